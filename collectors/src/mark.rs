//! Mark bitmaps: which words of the blocks being compacted are live.
//!
//! One bit per word of each block, 512 bits (64 bytes) a block, in a side
//! table the block's descriptor points into through its `aux` word. Marking
//! an object sets the bits of *all* its words, not only its first: then the
//! number of live words before any address in a block is a popcount, which
//! is what compaction needs to compute forwarding addresses without storing
//! them anywhere (See Note [Compaction by counting] in `compact`). An object
//! is marked when the bit of its first word is set.

use gclab_core::bdescr::{BlockDesc, BlockPtr};
use gclab_core::constants::{Word, BLOCK_WORDS};

const MAP_WORDS: usize = BLOCK_WORDS / 64;

/// The mark bits of a set of single blocks.
#[derive(Debug, Default)]
pub struct MarkBitmap {
    maps: Vec<[u64; MAP_WORDS]>,
}

#[inline(always)]
fn word_index(p: *const Word, bd: *const BlockDesc) -> usize {
    // SAFETY: callers pass an address inside the block `bd` describes.
    (p as usize - unsafe { (*bd).start } as usize) / std::mem::size_of::<Word>()
}

impl MarkBitmap {
    /// An empty table.
    pub fn new() -> MarkBitmap {
        MarkBitmap::default()
    }

    /// Give block `bd` (a single block) a cleared bitmap.
    pub fn attach(&mut self, bd: BlockPtr) {
        assert_eq!(bd.get().blocks, 1, "mark bitmaps cover single blocks");
        bd.get().aux = self.maps.len() as u64;
        self.maps.push([0; MAP_WORDS]);
    }

    #[inline(always)]
    fn map_of(&mut self, bd: *const BlockDesc) -> &mut [u64; MAP_WORDS] {
        // SAFETY: `bd` was attached, so its aux word indexes our table.
        let i = unsafe { (*bd).aux } as usize;
        &mut self.maps[i]
    }

    /// Mark the object at `p` of `size` words; false if it already was.
    #[inline]
    pub fn mark(&mut self, p: *const Word, size: usize) -> bool {
        let bd = BlockDesc::of(p);
        let first = word_index(p, bd);
        let map = self.map_of(bd);
        if map[first / 64] & (1 << (first % 64)) != 0 {
            return false;
        }
        for w in first..first + size {
            map[w / 64] |= 1 << (w % 64);
        }
        true
    }

    /// Is the object at `p` marked?
    #[inline]
    pub fn is_marked(&mut self, p: *const Word) -> bool {
        let bd = BlockDesc::of(p);
        let w = word_index(p, bd);
        self.map_of(bd)[w / 64] & (1 << (w % 64)) != 0
    }

    /// Live words in `p`'s block before `p`.
    #[inline]
    pub fn live_words_before(&mut self, p: *const Word) -> usize {
        let bd = BlockDesc::of(p);
        let w = word_index(p, bd);
        let map = self.map_of(bd);
        let full: u32 = map[..w / 64].iter().map(|m| m.count_ones()).sum();
        let partial = (map[w / 64] & ((1u64 << (w % 64)) - 1)).count_ones();
        (full + partial) as usize
    }

    /// The first marked word at or after word `from` of block `bd`.
    pub fn next_marked(&mut self, bd: BlockPtr, from: usize) -> Option<usize> {
        let map = self.map_of(bd.0);
        let mut w = from;
        while w < BLOCK_WORDS {
            let bits = map[w / 64] >> (w % 64);
            if bits != 0 {
                return Some(w + bits.trailing_zeros() as usize);
            }
            w = (w / 64 + 1) * 64;
        }
        None
    }

    /// Live words in block `bd`.
    pub fn live_words(&mut self, bd: BlockPtr) -> usize {
        self.map_of(bd.0).iter().map(|m| m.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::block_alloc::BlockAllocator;

    #[test]
    fn marks_count_and_find() {
        let mut ba = BlockAllocator::new();
        let bd = ba.alloc_block().unwrap();
        let start = bd.get().start;
        let mut marks = MarkBitmap::new();
        marks.attach(bd);
        // SAFETY: offsets inside the block.
        let (a, b) = unsafe { (start.add(3), start.add(100)) };
        assert!(marks.mark(a, 3));
        assert!(!marks.mark(a, 3), "marking twice reports the second as old");
        assert!(marks.mark(b, 70));
        assert!(marks.is_marked(a) && marks.is_marked(b));
        // SAFETY: as above (a word inside the first object).
        assert_eq!(marks.live_words_before(unsafe { start.add(4) }), 1);
        assert_eq!(marks.live_words_before(b), 3);
        // SAFETY: as above.
        assert_eq!(marks.live_words_before(unsafe { start.add(200) }), 73);
        assert_eq!(marks.next_marked(bd, 0), Some(3));
        assert_eq!(marks.next_marked(bd, 6), Some(100));
        assert_eq!(marks.next_marked(bd, 170), None);
        assert_eq!(marks.live_words(bd), 73);
    }
}
