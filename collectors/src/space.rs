//! Spaces: where a GC thread puts the objects it moves into a generation.
//!
//! A generation's storage is a *space* that its collector chooses. The
//! default space is bump-allocated blocks: each GC thread fills blocks of
//! its own, one after another, and scans them Cheney-style behind the
//! fill pointer; it is built into `GcThread`'s to-space for speed (the
//! copy loop's fast path is a pointer bump and a compare). A collector
//! that keeps a generation somewhere else (size-class cells, holes
//! between live objects, line-marked blocks) gives that generation a
//! `Space`. During a GC each GC thread then asks it for a
//! `SpaceAllocator`, and every object evacuated into the generation goes
//! through it:
//!
//! - `alloc(words)` returns room for one object. The objects it places
//!   are scanned from the GC thread's scan stack rather than by a scan
//!   pointer chasing a fill pointer, so a space may place them anywhere
//!   (See Note [Scanning what a space places]).
//! - `place(words)`, which the GC thread calls, is `alloc` unless the
//!   space can lend the thread a whole run of free words instead (a hole,
//!   a fresh block's cells), which the thread fills by bumping a pointer
//!   and scans Cheney-style, as it does its own to-space; `give_back`
//!   returns the run with what was placed in it (See Note [Runs a space
//!   lends] in `lent_runs`).
//! - `finish(gen)` ends the GC for that thread: the space takes back the
//!   blocks the thread was filling and adds what the thread allocated to
//!   the generation's block list and counts (`n_blocks`, `n_words`,
//!   `n_free_words`).
//!
//! The space's own state lives in the collector (which outlives GCs); an
//! allocator borrows it for one GC, so several GC threads allocate into
//! one space at once, each from blocks it took for itself.
//!
//! `space_trace` is the collection of a generational collector whose
//! oldest generation is a space.
//!
//! Note [Scanning what a space places]
//! ----------------------------------------
//! Cheney's scan needs each thread's new objects to lie one after another
//! in blocks that nothing else writes. A space that reuses the holes of
//! old blocks places new objects between live ones, where no scan pointer
//! can find them. So the GC thread pushes every object such a space
//! places on its scan stack, the same stack that holds objects marked in
//! place, and `scavenge_loop` drains it. The push happens in the
//! allocation's slow path, which a space's allocations always take (its
//! to-space has no bump region), so the copying fast path pays nothing.
//! Objects placed in a run the space lent are the exception: they lie one
//! after another, so the thread scans them by walking the run instead
//! (See Note [Runs a space lends] in `lent_runs`).

use crate::mark::MarkBitmap;
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::Word;
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;

/// A generation's storage, for one collector (See the module doc).
pub trait Space: Sync {
    /// An allocator for one GC thread, for the GC about to start: fresh
    /// blocks come from `blocks`; `marks` is the bitmap of a GC that marks
    /// the space's blocks in place (then objects placed in them must be
    /// marked live, or a sweep would take them back).
    fn allocator<'a>(&'a self, blocks: &'a Lock<BlockAllocator>, marks: Option<&'a MarkBitmap>) -> Box<dyn SpaceAllocator + 'a>;
}

/// A run of free words that a space lends a GC thread (See Note [Runs a
/// space lends] in `lent_runs`): objects are placed one after another from
/// `start`, up to `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The first free word.
    pub start: *mut Word,
    /// Just past the last free word.
    pub end: *mut Word,
    /// The size of every object the run takes: 0 for objects of any size
    /// (a hole between lines), k for objects of exactly k words (a run of
    /// free cells of k words).
    pub cell: usize,
}

/// Where `SpaceAllocator::place` puts an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Room for the object alone, as `alloc` gives it.
    Object(*mut Word),
    /// A run lent for the object, at its start, and the objects after it.
    Run(Run),
    /// A run of the space's overflow block lent for the object, at its
    /// start, and for every later object of more than `above` words that
    /// misses the hole lent beside it (See Note [The overflow block lent]
    /// in `lent_runs`).
    Overflow {
        /// The run, for objects of any size.
        run: Run,
        /// The size, in words, above which an object that misses the hole
        /// goes here.
        above: usize,
    },
}

/// One GC thread's allocation into a `Space` during one GC.
pub trait SpaceAllocator: Send {
    /// Room for an object of `words` words (uninitialised except that
    /// words the object leaves unused must stay as the space keeps them).
    fn alloc(&mut self, words: usize) -> *mut Word;

    /// Room for an object of `words` words, or a run of free words, at
    /// least `words` long, for the thread to place it and the objects
    /// after it in by bumping a pointer (a run for any size, or for
    /// exactly `words`). The run's words are the thread's until
    /// `give_back`; until then the allocator hands out none of them. A
    /// space that lends no runs leaves this as `alloc`.
    fn place(&mut self, words: usize) -> Placement {
        Placement::Object(self.alloc(words))
    }

    /// The size of the cells that `place(words)` may put an object of
    /// `words` words among when it places the object alone: a run of
    /// cells of that size lent to the thread must be given back first,
    /// or the allocator could hand out one of the run's cells (See Note
    /// [An object placed among a lent run's cells] in `lent_runs`). None
    /// by default: a space whose objects alone never share a run's cells.
    fn shared_cells(&self, _words: usize) -> Option<usize> {
        None
    }

    /// The object just placed at `p` by `place` (as `Placement::Object`)
    /// lost its claim to another GC thread's copy (See Note [Claiming an
    /// object] in `evacuate`): it stays, garbage that nothing will point
    /// to, and a space that lists its placements says so (See Note
    /// [Copies that lost their claim] in `lxr`). Nothing by default.
    fn lost(&mut self, _p: *mut Word) {}

    /// The thread gives back `run`, which `place` lent, having placed
    /// objects one after another from its start up to `end` (`start <=
    /// end <= run.end`): the allocator counts them as placed and takes the
    /// rest of the run back.
    fn give_back(&mut self, run: Run, _end: *mut Word) {
        unreachable!("a run was given back to an allocator that lends none: {run:?}")
    }

    /// The GC ends for this thread: hand the blocks it holds back to the
    /// space and account what it allocated in `gen`.
    ///
    /// # Safety
    /// Called once, by the GC holding the heap, after every object this
    /// allocator placed has been scanned.
    // SAFETY: the caller's contract above; the space then owns the blocks again.
    unsafe fn finish(&mut self, gen: &mut Generation);
}
