//! The plan of a sliding compaction: for each block of the generation
//! being compacted, whether it stays where it is or where its live words
//! go. A destination cursor walks the blocks in list order and every
//! block that moves is slid down to it (See Note [Compaction by counting]
//! in `slide`); a block that is nearly all live stays, and its dead words
//! become holes (See Note [Blocks left in place]).
//!
//! Invariant: a block's live words go only to blocks at or before it in
//! the list, never into a block that stays, and never over words whose
//! objects have not moved yet (See Note [Sliding is safe]).
//!
//! Note [Sliding is safe]
//! ----------------------------------------
//! The destination cursor starts where the source does and only moves past
//! an object's source position if that object fits below it, so after
//! placing any object the cursor is at or before that object's source end.
//! Sliding objects in the same order therefore only ever writes over words
//! whose objects have already moved. A block that stays is skipped by the
//! cursor: the next destination block is the first block after the
//! current one that moves, which is at or before the source block, since
//! the source block moves itself.
//!
//! Note [Blocks left in place]
//! ----------------------------------------
//! A sliding compaction moves every live word that has a dead word below
//! it, however few those dead words are. Two shapes of old generation
//! made it move nearly everything to win nearly nothing:
//!
//! - lru 500000 4000000 128's second and third compactions: every block
//!   was live to its fill level (no dead word at all), but promotion
//!   leaves each block a few words short of its end (an object never
//!   straddles blocks), 1.4% of the generation. Past the first such block
//!   the cursor falls behind the sources by those few words, so every
//!   later block slid: 14,978 blocks planned, 4,369 left where they were;
//! - binary-trees 20: after the long-lived tree (the identity prefix,
//!   which never moved), the trees that were live at the major GC lie in
//!   full blocks among blocks of trees that died, 2,000-7,000 full blocks
//!   among 12,000-24,000 empty ones, and every full one slid down.
//!
//! So a block stays where it is when at most `dead`% of its words are not
//! live (its dead objects and the room past its fill level; 5% by
//! default, `compacting:dead=N`). Its objects keep their addresses: the
//! plan flags it no longer marked in place, so fixing a pointer into it
//! is the flags test alone (See `slide`'s `fix`). The cursor skips it.
//! The slide zeroes its dead words (zero words are slop to every walk of
//! a block: See Note [Slop is zeroed] in core's `object`) and ends it at
//! its last live word. A block's waste is bounded by `dead`% of it: its
//! holes stay until a later compaction finds it below the threshold and
//! slides it. They are slop to the heap's counts too (the generation's
//! `n_words`, as GHC counts the slop of an updated thunk), so the policy
//! sees them as live until then. A major GC with the heap past its limit
//! (`heap_full`) leaves nothing in place: it compacts every block, for
//! every word it can free.
//!
//! This is HotSpot's: G1's full GC leaves in place a region whose live
//! words are at least `100 - MarkSweepDeadRatio` percent of it (5 by
//! default, JDK-8262068) and fills its dead objects, and the Parallel
//! collector's full GC keeps a dense prefix that may hold some dead wood.
//! gclab's identity prefix (See Note [Blocks whose pointers stay put] in
//! `reach`) is the leading run of blocks that stay and hold no holes.
//!
//! Measured (2-core machine, the phases' sum as `-s`'s Gen 1 line): lru
//! 500000 4000000 128's major GCs 0.78x of `dead=0`'s (0.74-0.92, 7
//! alternated rounds), 0.90x of the code before; compacting's GC
//! instructions on lru 0.93x; binary-trees 20's major GCs 0.96x. 15%
//! against 5% was within the noise (0.95x, 0.86-1.11). The minimum heaps
//! did not move. More in docs/performance.md, "Blocks left in place".

use crate::mark::{MarkBitmap, MAP_WORDS};
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::{Word, BLOCK_WORDS, WORD_SIZE};

/// Where one block's live words go.
#[derive(Debug, Clone, Copy)]
pub struct BlockPlan {
    /// Where the first `split` live words go.
    pub first: *mut Word,
    /// The live words that go to `first`; the rest go to `second`.
    pub split: usize,
    /// Where the live words after the first `split` go.
    pub second: *mut Word,
    /// The block's live words before each of its 64-word chunks (See Note
    /// [Compaction by counting] in `slide`).
    pub chunk_offsets: [u16; MAP_WORDS],
    /// The numbers of the blocks `first` and `second` lie in (both the
    /// first's when the block is not split): the blocks whose own slide
    /// must be over before this one's begins (See Note [Sliding on several
    /// threads] in `slide`).
    pub into: [usize; 2],
    /// The block stays where it is (See Note [Blocks left in place]).
    pub stays: bool,
}

impl BlockPlan {
    /// Where the live word that has `before` live words before it in its
    /// block goes.
    #[inline]
    pub fn destination(&self, before: usize) -> *mut Word {
        if before < self.split {
            self.first.wrapping_add(before)
        } else {
            self.second.wrapping_add(before - self.split)
        }
    }
}

/// The plan of one compaction.
#[derive(Debug)]
pub struct Plan {
    /// Each block's, in list order.
    pub blocks: Vec<BlockPlan>,
    /// Where each block's objects end after the slide: null for a block
    /// left empty.
    pub ends: Vec<*mut Word>,
    /// The identity prefix: the first `prefix` blocks' objects keep their
    /// addresses and hold no holes (See Note [Blocks whose pointers stay
    /// put] in `reach`).
    pub prefix: usize,
    /// The unmoved run: the first `unmoved` blocks' objects keep their
    /// addresses (blocks that stay, blocks that slide onto themselves, and
    /// blocks with no live object), so no pointer into them changes (See
    /// Note [Blocks whose pointers stay put] in `reach`). At least
    /// `prefix`.
    pub unmoved: usize,
    /// Blocks left in place.
    pub left_in_place: usize,
    /// Dead words below the last live word of the blocks left in place:
    /// their holes.
    pub hole_words: usize,
    /// Live words of the blocks whose objects do not keep their addresses.
    pub slid_words: usize,
}

/// How many of a block's words may be dead for it to stay in place, with
/// `dead_percent`% allowed (See Note [Blocks left in place]).
pub fn dead_words_allowed(dead_percent: usize) -> usize {
    BLOCK_WORDS * dead_percent / 100
}

/// The destination cursor: the block it writes into and the next word.
struct Cursor {
    block: usize,
    next: *mut Word,
}

/// Plan the compaction of `blocks` (single blocks, attached to `marks`,
/// in this order), leaving in place every block with at most `dead_words`
/// words not live.
///
/// # Safety
/// The GC holds the blocks, and marking is complete.
// SAFETY: reads the descriptors, marks and recorded starts of blocks the GC holds, before anything moves.
pub unsafe fn plan(marks: &MarkBitmap, blocks: &[BlockPtr], dead_words: usize) -> Plan {
    // SAFETY: the caller's contract.
    let start = |b: BlockPtr| unsafe { b.read() }.start;
    let mut plan = Plan { blocks: Vec::with_capacity(blocks.len()), ends: vec![std::ptr::null_mut(); blocks.len()], prefix: 0, unmoved: 0, left_in_place: 0, hole_words: 0, slid_words: 0 };
    let mut cursor: Option<Cursor> = None;
    for (i, &bd) in blocks.iter().enumerate() {
        let (chunk_offsets, live) = marks.chunk_offsets(bd);
        if live > 0 && BLOCK_WORDS - live <= dead_words {
            // See Note [Blocks left in place].
            let end = 1 + marks.marked_word_with_rank(bd, &chunk_offsets, live - 1).expect("a block has `live` marked words");
            plan.ends[i] = start(bd).wrapping_add(end);
            plan.left_in_place += 1;
            plan.hole_words += end - live;
            if plan.prefix == i && end == live {
                plan.prefix += 1;
            }
            if plan.unmoved == i {
                plan.unmoved += 1;
            }
            plan.blocks.push(BlockPlan { first: start(bd), split: usize::MAX, second: std::ptr::null_mut(), chunk_offsets, into: [i, i], stays: true });
            continue;
        }
        let c = cursor.get_or_insert(Cursor { block: i, next: start(bd) });
        let mut block_plan = BlockPlan { first: c.next, split: usize::MAX, second: std::ptr::null_mut(), chunk_offsets, into: [c.block, c.block], stays: false };
        let room = (start(blocks[c.block]).wrapping_add(BLOCK_WORDS) as usize - c.next as usize) / WORD_SIZE;
        if live <= room {
            c.next = c.next.wrapping_add(live);
        } else {
            // The block's live words do not all fit: the object that
            // holds its live word number `room` is the first that does
            // not, and starts the next destination block.
            let last = marks.marked_word_with_rank(bd, &chunk_offsets, room).expect("live > room");
            let cut = marks.object_holding(bd, last);
            let split = chunk_offsets[cut / 64] as usize + marks.live_words_before_in_chunk(start(bd).wrapping_add(cut)).1;
            plan.ends[c.block] = c.next.wrapping_add(split);
            // The next block that moves: at or before this one, which moves.
            c.block = (c.block + 1..i).find(|&j| !plan.blocks[j].stays).unwrap_or(i);
            c.next = start(blocks[c.block]);
            if split == 0 {
                block_plan.first = c.next;
                block_plan.into = [c.block, c.block];
            } else {
                block_plan.split = split;
                block_plan.second = c.next;
                block_plan.into[1] = c.block;
            }
            c.next = c.next.wrapping_add(live - split);
        }
        // A block's objects keep their addresses when its live words are
        // one run from its first word and go to its own start.
        let in_place = block_plan.first == start(bd) && block_plan.split == usize::MAX && marks.next_unmarked(bd, 0).unwrap_or(BLOCK_WORDS) >= live;
        if plan.prefix == i && in_place {
            plan.prefix += 1;
        }
        if plan.unmoved == i && (in_place || live == 0) {
            plan.unmoved += 1;
        }
        if !in_place {
            plan.slid_words += live;
        }
        plan.blocks.push(block_plan);
    }
    if let Some(c) = cursor {
        plan.ends[c.block] = c.next;
    }
    plan
}

#[cfg(test)]
mod tests;
