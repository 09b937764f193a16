//! Reach: how far along a compaction's list of blocks the objects of each
//! block point, recorded while they are marked, so that the update pass
//! can leave alone the blocks whose pointers cannot change.
//!
//! Note [Blocks whose pointers stay put]
//! ----------------------------------------
//! A sliding compaction fixes every pointer into the blocks it compacts,
//! in a pass over every live object (See Note [Compaction by counting] in
//! `slide`). Most of that work changes nothing in a heap whose oldest
//! data has settled: the first blocks of the list, compacted by the last
//! major GC, are full of objects that survive again, so they keep their
//! addresses (the plan's *identity prefix*: each block's live words are
//! one run from its first word, and its destination is itself). A pointer
//! into that prefix needs no fixing. An object of a lazy functional
//! program is immutable once evaluated, and points only to objects older
//! than itself, which a compaction keeps below it in address order; so
//! the settled old data points only into itself. binary-trees 20's
//! long-lived tree is 12,337 blocks, the whole of the old generation's
//! live data in most of its major GCs.
//!
//! So the marking records, for each compacted block, one past the highest
//! block number that any of its objects points to (`Reach::points_to`, at
//! each pointer into a compacted block that `evacuate` marks through), and
//! gives up on a block holding any object whose pointers the marking does
//! not see as plain fields (an array, a stack, a weak pointer, a mutable
//! variable: `Reach::holds_other`, as `evacuate` marks it). The plan
//! finds the *unmoved run*: the leading blocks whose objects keep their
//! addresses, the identity prefix and after it every block left in place
//! (See Note [Blocks left in place] in `compaction_plan`), every block
//! that slides onto itself and every block with no live object (no
//! pointer leads into it). A block whose objects do not move and whose
//! reach stays inside the unmoved run is not fixed: neither it nor
//! anything it points to moves. The update pass skips such blocks of the
//! prefix, the slide such blocks left in place. The roots, the to-space,
//! the large objects, the GC's lists and every other block are fixed.
//! binary-trees 20's compactions leave in place 250-4,300 full blocks
//! after the prefix, with empty blocks among them, and in most of them the
//! unmoved run covers all but a block or two: all of those full blocks
//! but one go unfixed. lru's last compaction leaves 9,021 blocks in place
//! past the prefix and skips 7,692 of them, which hold only its values,
//! byte arrays with no pointers (their reach is none). Measured against
//! fixing every block left in place past the prefix: GC instructions
//! 0.992x on lru 200000 1000000 128 and 0.994x on binary-trees 18, their
//! first-level misses 0.961x and 0.989x (cachegrind); major GCs 0.99x on
//! the clock on lru 500000 4000000 128 and binary-trees 20, inside this
//! machine's noise (9 and 5 alternated rounds).
//!
//! Cost: a compare and a store per pointer marked through, and a
//! descriptor read per object scanned (the descriptor is in the cache:
//! the scan loop reads it for the generation). HotSpot's Parallel Old
//! collector keeps a "dense prefix" from moving, but still updates its
//! pointers; this skips them as well when the marking proved it safe. A
//! heap whose old objects are written to (lru's cache, mutable arrays)
//! gains nothing and pays the recording.

/// A block that holds an object whose pointers the marking does not see
/// as plain fields: it is always visited.
const EVERYWHERE: u32 = u32::MAX;

/// The reach of each compacted block (indexed by its `aux` word, its
/// number in the compaction's list).
#[derive(Debug)]
pub struct Reach {
    /// The block of the object being scanned; `furthest`'s last entry,
    /// which belongs to no block, while the object lies in no compacted
    /// block.
    source: usize,
    /// For each block: one past the highest block number its objects
    /// point to (0: none), or `EVERYWHERE`; then the entry for objects of
    /// no compacted block, never read.
    furthest: Vec<u32>,
}

// The recording has no branch that depends on the heap: the objects that
// a depth-first marking scans change block about every other object, and
// a test "same block as the last?" mispredicted often enough to cost
// binary-trees 20's marking 0.3 s in all (2-core machine); writing
// straight to the source's entry costs a load and a store that hit the
// cache.

impl Reach {
    /// The reach of `blocks` blocks, none recorded yet.
    pub fn new(blocks: usize) -> Reach {
        Reach { source: blocks, furthest: vec![0; blocks + 1] }
    }

    /// The objects scanned from now on lie in compacted block `block`,
    /// or in no compacted block.
    #[inline(always)]
    pub fn scanning(&mut self, block: Option<usize>) {
        self.source = block.unwrap_or(self.furthest.len() - 1);
    }

    /// The object being scanned points into compacted block `target`.
    #[inline(always)]
    pub fn points_to(&mut self, target: usize) {
        let furthest = &mut self.furthest[self.source];
        *furthest = (*furthest).max(target as u32 + 1);
    }

    /// Compacted block `block` holds a live object without a fixed layout
    /// (marked, not yet scanned): the block is always visited.
    #[inline(always)]
    pub fn holds_other(&mut self, block: usize) {
        self.furthest[block] = EVERYWHERE;
    }

    /// The reach of the same blocks as recorded by several GC threads
    /// (each its own `Reach`, of the same blocks): each block's furthest
    /// over all of them.
    pub fn merged(all: impl Iterator<Item = Reach>) -> Reach {
        let mut all = all;
        let mut merged = all.next().expect("a compaction has at least one GC thread");
        for other in all {
            assert_eq!(other.furthest.len(), merged.furthest.len(), "GC threads record the reach of the same blocks");
            for (m, o) in merged.furthest.iter_mut().zip(&other.furthest) {
                *m = (*m).max(*o);
            }
        }
        merged
    }

    /// Do all the pointers of block `block`'s objects lie in blocks
    /// numbered below `k` (and so, for the identity prefix `k`, in
    /// blocks that do not move)?
    pub fn stays_below(&self, block: usize, k: usize) -> bool {
        assert!(block < self.furthest.len() - 1, "block {block} is not one of the compaction's");
        self.furthest[block] != EVERYWHERE && self.furthest[block] as usize <= k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_the_furthest_block_pointed_to_by_each_block() {
        let mut reach = Reach::new(4);
        reach.points_to(3); // no block being scanned: nothing recorded
        reach.scanning(Some(0));
        reach.points_to(1);
        reach.points_to(0);
        reach.scanning(Some(1));
        reach.points_to(2);
        reach.scanning(Some(2));
        reach.points_to(0);
        reach.holds_other(2);
        reach.scanning(None);
        reach.points_to(3);
        assert!(reach.stays_below(0, 2) && !reach.stays_below(0, 1));
        assert!(!reach.stays_below(1, 2) && reach.stays_below(1, 3));
        assert!(!reach.stays_below(2, 4), "a block with an object of another kind is always visited");
        assert!(reach.stays_below(3, 0), "a block whose objects point nowhere");
    }

    #[test]
    fn the_reach_of_several_threads_is_each_blocks_furthest_over_all() {
        // Two GC threads scan objects of the same blocks (See Note
        // [Marking a compaction in parallel] in `compacting`).
        let (mut a, mut b) = (Reach::new(3), Reach::new(3));
        a.scanning(Some(0));
        a.points_to(0);
        b.scanning(Some(0));
        b.points_to(2);
        b.scanning(Some(1));
        b.points_to(0);
        a.holds_other(2);
        let merged = Reach::merged([a, b].into_iter());
        assert!(!merged.stays_below(0, 2) && merged.stays_below(0, 3), "block 0 reaches block 2 through the second thread's scan");
        assert!(merged.stays_below(1, 1), "block 1 was scanned by the second thread only");
        assert!(!merged.stays_below(2, 3), "a block one thread found holding another kind of object is always visited");
    }
}
