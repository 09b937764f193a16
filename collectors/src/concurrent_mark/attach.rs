//! Attaching a marking's snapshot beside the mutators: the list of the
//! old generation's blocks that the pause beginning a `concurrent-copying`
//! marking took, flagged and given their maps by the marker before it
//! marks, or by whoever stops the world first (See Note [The marker
//! attaches its snapshot]).
//!
//! Invariant kept: until the list is gone, its first `done` blocks are
//! attached and the rest untouched; only the holder of the list's lock
//! writes their descriptors, and the megablock set is found once, with
//! the last batch.

use super::MarkQueue;
use crate::mark::MarkBitmap;
use crate::megablock_set::MegablockSet;
use gclab_core::bdescr::BlockPtr;
use gclab_core::object::Layout;
use std::sync::OnceLock;

// Note [The marker attaches its snapshot]
// ----------------------------------------
// A marking's snapshot is the old generation's blocks and large objects
// as the pause that begins it finds them. Each must be flagged
// `BF_MARK_IN_PLACE` and given its map in the bitmap (its `aux` word the
// map's number), and the megablocks that hold them listed, before anyone
// asks whether an object is in the snapshot. Done in that pause (as
// `nonmoving` and `lxr` still do), it is a pass over every old block's
// descriptor, a 64-byte line written each, then a second pass after the
// trace to flag each block evacuated again: 9-10 ns a block in all, 40%
// of the pause at 25-48 thousand blocks (binary-trees 20, timed in the
// pause, 2-core machine), and the one part of it that grows with the
// heap rather than with the roots and the young generations.
//
// `concurrent-copying` leaves the pass to the marker:
//
// - The pause copies the list (`memcpy`, under 1 ns a block) and traces
//   the young generations with no bitmap at all. The old blocks keep
//   their `BF_EVACUATED`, so `evacuate` leaves their objects where they
//   are, and lists each one it reaches (`Tracing::record_old`): from the
//   roots, the young objects' fields and the mutable lists. Those are the
//   objects the pause used to mark and defer; the marker greys them
//   instead, once the blocks are attached.
// - Nothing is placed in a snapshot block's holes in that pause, since
//   nothing there can be marked yet: the recyclable list is set aside
//   for the trace, so promoted objects go to fresh blocks, which the
//   marking judges by their fill (See Note [Blocks cut during the
//   marking] in `concurrent_copying`).
// - The marker starts held, until the world restarts (the pause's sanity
//   check and census read the descriptors), then attaches the list in
//   batches of `ATTACH_EVERY` between checkpoints, finds the megablocks,
//   and only then greys and marks. It writes the flags atomically: a
//   mutator never reads an old block's flags but with `load_flags`.
// - A young GC that comes before it is done reads no snapshot flag but
//   `BF_EVACUATED`, as the pause did: it places nothing in the holes and
//   leaves the barrier's records in the capabilities, where they are its
//   roots (`young_gc_beside_the_attaching`). Everything else that reads
//   the snapshot's flags with the world stopped (a sync, which filters
//   the records by them; a major GC; a walk of the heap; the sanity
//   checker or a census after a young GC) first calls `finish_attaching`,
//   which attaches what is left under the list's lock: at most a wait for
//   the marker's batch, or the rest of the pass if the marker is far
//   behind.
//
// Measured on binary-trees 20 (2-core machine, `scripts/ab -n 5`): the
// pauses that begin a marking took 0.69x the time (0.60-0.76; 0.027 s to
// 0.018 s over 37 of them), their longest 0.8-1.1 ms against 1.1-1.3. The
// marker attached every one of the 36 snapshots of a run itself. Before
// young GCs learnt to run beside the attaching, 10-27 of 37 markings left
// part of the pass to the next young GC (6-150 us there): binary-trees
// allocates 3 GB a second, a young GC every 0.3 ms. The price elsewhere
// is one test on `evacuate`'s path for an object that stays where it is:
// See Note [Listing the old objects a GC reaches] in `evacuate`.

/// A snapshot's blocks (and large objects), attached to its bitmap in
/// list order: the first `done` are.
pub(super) struct Attaching {
    pub(super) blocks: Vec<BlockPtr>,
    pub(super) done: usize,
}

// SAFETY: the blocks are the snapshot's, whose descriptors the thread
// that holds the list's lock writes alone (See Note [The marker attaches
// its snapshot]).
unsafe impl Send for Attaching {}

/// Snapshot blocks attached between two checkpoints of the marker.
pub(super) const ATTACH_EVERY: usize = 1024;

impl MarkQueue {
    /// A queue for a cycle that marks the snapshot `blocks` (the old
    /// generation's blocks and large objects at the pause that began it),
    /// none of them attached yet: the marker attaches them first, or
    /// `finish_attaching` does (See Note [The marker attaches its
    /// snapshot]).
    pub fn attaching(blocks: Vec<BlockPtr>, layout: Layout) -> MarkQueue {
        let marks = MarkBitmap::snapshot_unattached(blocks.len());
        MarkQueue::with(marks, OnceLock::new(), Some(Attaching { blocks, done: 0 }), layout)
    }

    /// Attach the next `ATTACH_EVERY` snapshot blocks (the marker, before
    /// it marks); false once every block is.
    pub(super) fn attach_some(&self) -> bool {
        self.attach(ATTACH_EVERY)
    }

    /// Attach every snapshot block not attached yet, here: called with the
    /// world stopped, before anything reads the snapshot's flags (a GC, a
    /// sync, a walk of the heap). Waits at most for the marker's current
    /// batch.
    pub fn finish_attaching(&self) {
        self.attach(usize::MAX);
    }

    /// Are some of the snapshot's blocks not attached yet?
    pub fn is_attaching(&self) -> bool {
        self.attaching.lock().expect("the snapshot's blocks").is_some()
    }

    /// Attach at most `most` more snapshot blocks; false if none was left.
    fn attach(&self, most: usize) -> bool {
        let mut attaching = self.attaching.lock().expect("the snapshot's blocks");
        let Some(a) = attaching.as_mut() else { return false };
        let end = a.blocks.len().min(a.done.saturating_add(most));
        // SAFETY: snapshot blocks, whose descriptors only the holder of
        // this lock writes until every one is attached; nothing reads
        // their `aux` words before then (See Note [The marker attaches
        // its snapshot]).
        unsafe { self.marks.attach_snapshot_blocks(&a.blocks[a.done..end], a.done) };
        a.done = end;
        if end == a.blocks.len() {
            let set = MegablockSet::of(&a.blocks);
            assert!(self.megablocks.set(set).is_ok(), "a snapshot's megablocks are found once");
            *attaching = None;
        }
        true
    }
}
