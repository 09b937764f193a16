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
        let numbers = || blocks.iter().map(|bd| bd.0 as usize >> MBLOCK_SHIFT);
        let (Some(first), Some(last)) = (numbers().min(), numbers().max()) else {
            return MegablockSet::default();
        };
        let mut bits = vec![0u64; (last - first) / 64 + 1];
        for n in numbers() {
            bits[(n - first) / 64] |= 1 << ((n - first) % 64);
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
        static STATIC_WORD: u64 = 0;
        assert!(!both.holds(&STATIC_WORD as *const u64 as usize), "a static address is not the heap's");
        assert!(!MegablockSet::of(&[]).holds(a.0 as usize));
    }
}
