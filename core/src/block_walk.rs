//! Walking the objects of one block, in address order.
//!
//! Objects tile each block from its start to its fill level (zero words
//! are slop: See Note [Slop is zeroed] in `object`), so a walk needs no
//! side table: it reads each header for the object's size. The exception
//! is a block a space has not swept yet, walked through its live map (See
//! Note [Unswept blocks]). `walk_block` is the one linear walk of a block:
//! `Gc.stat` counts with it, heap censuses build on it, and the sanity
//! checker walks with it and checks as it goes.
//!
//! Note [Unswept blocks]
//! ----------------------------------------
//! A non-moving space may leave the dead objects of a marked block where
//! they lie after a major GC and clear them later: when allocation reaches
//! the block (lazy sweeping) or on a thread of its own while the mutators
//! run (concurrent sweeping). Until then the block holds garbage that must
//! never be read as objects: a dead object's fields may point into blocks
//! freed since, or at objects that died with it. Such a block is flagged
//! `BF_UNSWEPT`, and its `aux` word holds the address of its `LiveMap`, the
//! major GC's mark bits for it: an object is live if the bit of its first
//! word is set, and no dead word has its bit set. So the contract is:
//!
//! - every linear walk skips the unmarked words of an unswept block (they
//!   count as free, as zero words do: the space counts them in the
//!   generation's `n_free_words`), and reads a marked word as an object
//!   start, or as slop if it is zero (an object shrunk in place since);
//! - the space keeps the map alive and unchanged, and the flag set, until
//!   it has swept the block and the world is stopped to clear the flag (so
//!   no walker sees the flag and the map disagree), or until it has swept
//!   the block on a thread that parks whenever the world is stopped (the
//!   collectors' `line_sweeper`), which clears the flag itself;
//! - a sweeper writes only the dead words of the blocks it holds, which
//!   nobody else reads (walkers skip them, the mutators cannot reach them),
//!   so it may sweep while the mutators run and while the world is stopped
//!   for a walk; it changes no descriptor until the world is stopped.
//!
//! Pointers into unswept blocks are only ever to live objects, which the
//! sanity checker verifies as for any block: the dead objects are not
//! recorded as object starts, so a pointer to one is reported.

use crate::bdescr::{next_set_bit, BlockDesc};
use crate::constants::{Word, BLOCK_WORDS};

/// What a walk of one block saw besides its objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockWalk {
    /// Zero words (slop, free cells, holes).
    pub zero_words: usize,
    /// Unmarked words of an unswept block: dead objects and free cells not
    /// yet swept (See Note [Unswept blocks]).
    pub unswept_words: usize,
    /// Where the walk stopped: `end` unless `object` stopped it, or the
    /// last object ran past `end`.
    pub stopped_at: *mut Word,
}

/// Walk the block `d` from its start to `end`, calling `object(p)` at each
/// object's first word; it returns the object's size in words, or None to
/// stop the walk there.
///
/// # Safety
/// Nobody writes the block's descriptor or its live objects while the
/// walk runs (the world is stopped, or the caller holds the block), and
/// `end` lies in the block at or past its last object.
pub unsafe fn walk_block(d: &BlockDesc, end: *mut Word, mut object: impl FnMut(*mut Word) -> Option<usize>) -> BlockWalk {
    // SAFETY: the caller's contract covers the map (See Note [Unswept blocks]).
    let live = unsafe { d.live_map() };
    let mut walk = BlockWalk { zero_words: 0, unswept_words: 0, stopped_at: d.start };
    let mut p = d.start;
    while p < end {
        let index = d.word_index(p);
        if let Some(map) = live {
            if map[index / 64] & (1 << (index % 64)) == 0 {
                let next = next_set_bit(|i| map[i], index).unwrap_or(BLOCK_WORDS).min(d.word_index(end));
                walk.unswept_words += next - index;
                p = d.start.wrapping_add(next);
                continue;
            }
        }
        // SAFETY: `p` lies in the block's used part, at an object start or
        // a zero slop word (a live one, in an unswept block).
        if unsafe { *p } == 0 {
            walk.zero_words += 1;
            p = p.wrapping_add(1);
            continue;
        }
        let Some(size) = object(p) else {
            walk.stopped_at = p;
            return walk;
        };
        p = p.wrapping_add(size);
    }
    walk.stopped_at = p;
    walk
}
