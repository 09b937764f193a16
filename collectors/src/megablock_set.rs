//! A set of megablocks, tested by address: "is this address inside one of
//! the megablocks that hold these blocks?" in a subtraction, a compare
//! and a bit test, without reading anything at the address.
//!
//! A static object never lies in a heap megablock (the heap maps its own
//! megablocks; static objects are the program's data), so an address that
//! the set holds is a heap object whose block descriptor may be read, and
//! an address it does not hold is one a pass over only these blocks may
//! leave alone. GHC's `HEAP_ALLOCED` is the same test over the whole
//! heap's address space. See Note [Fixing a pointer without its target]
//! in `slide` for the pass that needs it.
//!
//! Invariant kept: `holds(a)` is true exactly when `a` lies in the
//! megablock of one of the blocks the set was made from.

use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::MBLOCK_SHIFT;

// Note [A snapshot's megablocks in two passes]
// ----------------------------------------
// A concurrent marking builds the set of its snapshot's megablocks (See
// Note [The marker runs through young GCs] in `concurrent_mark`), a pass
// over every old block: in its first pause for `nonmoving` and `lxr`, so
// that its cost is part of that pause whatever the roots, and on the
// marker's thread for `concurrent-copying` (See Note [The marker attaches
// its snapshot] there). Written as `min()`, `max()` and a pass
// setting the bits, it read the block list three times: 2.3 ns a block
// (binary-trees 20 under `concurrent-copying`, 25-48 thousand blocks,
// 60-115 us of pauses of 0.3-1.2 ms, timed inside the pause on the
// 2-core machine). Both bounds in one fold, then the bits: 1.25 ns a
// block. The rest of the pause's passes over the blocks are the
// descriptors' (attaching each block to the bitmap, 6-7 ns a block, then
// flagging it evacuated, 1.7 ns), one 64-byte line written each, which is
// what their time is.

/// The megablocks of some blocks, as a bitmap over the range between the
/// lowest and the highest.
#[derive(Debug, Default)]
pub struct MegablockSet {
    /// The lowest megablock's number (its address shifted right by
    /// `MBLOCK_SHIFT`).
    first: usize,
    /// One bit per megablock from `first` on.
    bits: Vec<u64>,
}

impl MegablockSet {
    /// The megablocks that hold `blocks`.
    pub fn of(blocks: &[BlockPtr]) -> MegablockSet {
        let number = |bd: &BlockPtr| bd.0 as usize >> MBLOCK_SHIFT;
        if blocks.is_empty() {
            return MegablockSet::default();
        }
        // Both bounds in one pass: See Note [A snapshot's megablocks in two passes].
        let (first, last) = blocks.iter().map(number).fold((usize::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        let mut bits = vec![0u64; (last - first) / 64 + 1];
        for k in blocks.iter().map(|bd| number(bd) - first) {
            bits[k / 64] |= 1 << (k % 64);
        }
        MegablockSet { first, bits }
    }

    /// Does `addr` lie in one of the set's megablocks?
    #[inline(always)]
    pub fn holds(&self, addr: usize) -> bool {
        let k = (addr >> MBLOCK_SHIFT).wrapping_sub(self.first);
        match self.bits.get(k / 64) {
            Some(word) => word & (1 << (k % 64)) != 0,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::block_alloc::BlockAllocator;
    use gclab_core::constants::MBLOCK_SIZE;

    #[test]
    fn holds_the_megablocks_of_its_blocks_and_nothing_else() {
        let mut ba = BlockAllocator::new();
        let a = ba.alloc_block().unwrap();
        // Enough blocks to need a second megablock.
        let more: Vec<BlockPtr> = (0..300).map(|_| ba.alloc_block().unwrap()).collect();
        let far = *more.last().unwrap();
        assert_ne!(a.0 as usize >> MBLOCK_SHIFT, far.0 as usize >> MBLOCK_SHIFT, "300 blocks span two megablocks");
        let set = MegablockSet::of(&[a]);
        assert!(set.holds(a.0 as usize));
        assert!(set.holds((a.0 as usize & !(MBLOCK_SIZE - 1)) + MBLOCK_SIZE - 8), "the whole megablock");
        assert!(!set.holds(far.0 as usize), "another megablock");
        let both = MegablockSet::of(&[a, far]);
        assert!(both.holds(a.0 as usize) && both.holds(far.0 as usize));
        let backwards = MegablockSet::of(&[far, a, far]);
        assert!(backwards.holds(a.0 as usize) && backwards.holds(far.0 as usize), "the bounds do not depend on the order");
        static STATIC_WORD: u64 = 0;
        assert!(!both.holds(&STATIC_WORD as *const u64 as usize), "a static address is not the heap's");
        assert!(!MegablockSet::of(&[]).holds(a.0 as usize));
    }
}
