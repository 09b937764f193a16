//! The heap's fixed geometry: words, blocks and megablocks.
//!
//! These numbers are GHC's (`rts/include/rts/Constants.h`, `Block.h`): 4 KiB
//! blocks inside 1 MiB megablocks, a 64-byte descriptor per block, and the
//! descriptors of a megablock filling its first 16 KiB, so 252 of its 256
//! blocks hold data. Everything else in gclab derives from them.

/// A heap word: every object is a whole number of these.
pub type Word = usize;

/// Bytes in a word.
pub const WORD_SIZE: usize = std::mem::size_of::<Word>();

/// log2 of the block size.
pub const BLOCK_SHIFT: usize = 12;
/// Bytes in a block.
pub const BLOCK_SIZE: usize = 1 << BLOCK_SHIFT;
/// Words in a block.
pub const BLOCK_WORDS: usize = BLOCK_SIZE / WORD_SIZE;

/// log2 of the megablock size.
pub const MBLOCK_SHIFT: usize = 20;
/// Bytes in a megablock.
pub const MBLOCK_SIZE: usize = 1 << MBLOCK_SHIFT;
/// Mask that takes an address to the start of its megablock.
pub const MBLOCK_MASK: usize = MBLOCK_SIZE - 1;

/// Blocks in a megablock, counting the ones the descriptors occupy.
pub const BLOCKS_PER_MBLOCK_TOTAL: usize = MBLOCK_SIZE / BLOCK_SIZE;
/// Bytes of one block descriptor.
pub const BDESCR_SIZE: usize = 64;
/// Index of the first block of a megablock that holds data: the blocks
/// before it are filled by the descriptors of all 256 blocks.
pub const FIRST_BLOCK: usize = BLOCKS_PER_MBLOCK_TOTAL * BDESCR_SIZE / BLOCK_SIZE;
/// Data blocks in a megablock (252).
pub const BLOCKS_PER_MBLOCK: usize = BLOCKS_PER_MBLOCK_TOTAL - FIRST_BLOCK;

/// An object of at least this many bytes is large: it gets a block group
/// of its own and is never copied (8/10 of a block, 3276 bytes).
pub const LARGE_OBJECT_THRESHOLD: usize = BLOCK_SIZE * 8 / 10;

/// `LARGE_OBJECT_THRESHOLD` in words, rounded up: an object of at least
/// this many words is large (a test on words cannot overflow).
pub const LARGE_OBJECT_WORDS: usize = LARGE_OBJECT_THRESHOLD.div_ceil(WORD_SIZE);

/// Blocks needed to hold `bytes`.
pub const fn blocks_for_bytes(bytes: usize) -> usize {
    bytes.div_ceil(BLOCK_SIZE)
}

/// Words needed to hold `bytes`.
pub const fn words_for_bytes(bytes: usize) -> usize {
    bytes.div_ceil(WORD_SIZE)
}

/// Blocks in a group of `n` contiguous megablocks: the first megablock
/// gives its 252 data blocks, every later one all 256 (its descriptor
/// space is not needed, since only the group's head descriptor is used).
pub const fn mblock_group_blocks(n: usize) -> usize {
    BLOCKS_PER_MBLOCK + (n - 1) * BLOCKS_PER_MBLOCK_TOTAL
}

/// Megablocks needed for a group of `blocks` blocks.
pub const fn mblocks_for_blocks(blocks: usize) -> usize {
    if blocks <= BLOCKS_PER_MBLOCK {
        1
    } else {
        1 + (blocks - BLOCKS_PER_MBLOCK).div_ceil(BLOCKS_PER_MBLOCK_TOTAL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_ghc() {
        assert_eq!(BLOCK_SIZE, 4096);
        assert_eq!(MBLOCK_SIZE, 1 << 20);
        assert_eq!(FIRST_BLOCK, 4);
        assert_eq!(BLOCKS_PER_MBLOCK, 252);
        assert_eq!(LARGE_OBJECT_THRESHOLD, 3276);
    }

    #[test]
    fn megablock_groups() {
        assert_eq!(mblocks_for_blocks(1), 1);
        assert_eq!(mblocks_for_blocks(252), 1);
        assert_eq!(mblocks_for_blocks(253), 2);
        assert_eq!(mblock_group_blocks(2), 252 + 256);
        assert_eq!(mblocks_for_blocks(mblock_group_blocks(3)), 3);
        assert_eq!(mblocks_for_blocks(mblock_group_blocks(3) + 1), 4);
    }
}
