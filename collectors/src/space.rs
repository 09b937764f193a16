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
//! - `finish(gen)` ends the GC for that thread: the space takes back the
//!   blocks the thread was filling and adds what the thread allocated to
//!   the generation's block list and counts (`n_blocks`, `n_words`,
//!   `n_free_words`).
//!
//! The space's own state lives in the collector (which outlives GCs); an
//! allocator borrows it for one GC, so several GC threads allocate into
//! one space at once, each from blocks it took for itself.
//!
//! `trace_into` is the collection of a generational collector whose
//! oldest generation is a space (`mark_sweep`, `nonmoving`, `immix`):
//! prepare from-space, trace with every GC thread's oldest to-space an
//! allocator of the space, install. A major GC marks the blocks it keeps
//! in place; blocks it leaves in the generation are from-space, and their
//! live objects move into the space (`immix`'s defragmentation).
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

use crate::gc_thread::GcThread;
use crate::gc_workers::GcWorkers;
use crate::mark::MarkBitmap;
use crate::trace::{outcome, team_size, trace_with};
use crate::from_space;
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::Word;
use gclab_core::generation::Generation;
use gclab_core::heap::Heap;
use gclab_core::lock::Lock;
use gclab_core::{GcContext, GcOutcome};

/// A generation's storage, for one collector (See the module doc).
pub trait Space: Sync {
    /// An allocator for one GC thread, for the GC about to start: fresh
    /// blocks come from `blocks`; `marks` is the bitmap of a GC that marks
    /// the space's blocks in place (then objects placed in them must be
    /// marked live, or a sweep would take them back).
    fn allocator<'a>(&'a self, blocks: &'a Lock<BlockAllocator>, marks: Option<&'a MarkBitmap>) -> Box<dyn SpaceAllocator + 'a>;
}

/// One GC thread's allocation into a `Space` during one GC.
pub trait SpaceAllocator: Send {
    /// Room for an object of `words` words (uninitialised except that
    /// words the object leaves unused must stay as the space keeps them).
    fn alloc(&mut self, words: usize) -> *mut Word;

    /// The GC ends for this thread: hand the blocks it holds back to the
    /// space and account what it allocated in `gen`.
    ///
    /// # Safety
    /// Called once, by the GC holding the heap, after every object this
    /// allocator placed has been scanned.
    // SAFETY: the caller's contract above; the space then owns the blocks again.
    unsafe fn finish(&mut self, gen: &mut Generation);
}

/// How a collection traces into a space (See `trace_into`).
pub(crate) struct Tracing<'m> {
    /// Generations `0..=n` are collected: the young ones copied, the
    /// oldest (if `n` is it) marked in place.
    pub n: usize,
    /// The bitmap of the blocks kept in place, which `evacuate` marks.
    pub marks: Option<&'m MarkBitmap>,
    /// The bitmap in which the space's allocators mark the objects they
    /// place in kept-in-place blocks ("allocated black").
    pub black: Option<&'m MarkBitmap>,
    /// Leave the objects marked in place unscanned, for a concurrent
    /// marker (`GcThread::deferred`).
    pub defer: bool,
}

/// Trace a collection whose oldest generation lives in `space`: prepare
/// from-space, trace with the GC threads `workers` gives, install. Returns
/// what the threads did and, when `how.defer`, the objects they marked in
/// place and left unscanned.
///
/// # Safety
/// The GC holds the heap; the blocks kept in place are attached to
/// `how.marks` and `space.begin_gc` has been called for this GC.
// SAFETY: the caller's contract; every root and heap slot holds a valid object address, which is what tracing requires.
pub(crate) unsafe fn trace_into(space: &dyn Space, how: Tracing<'_>, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> (GcOutcome, Vec<*mut Word>) {
    // SAFETY: the caller's contract.
    unsafe { trace_into_inspecting(space, how, ctx, workers, |_| ()) }
}

/// `trace_into`, calling `inspect` with the generations when tracing is
/// over and before from-space is freed (their `old_blocks` are still
/// there: what was evacuated from them can be counted).
///
/// # Safety
/// As for `trace_into`.
// SAFETY: the caller's contract; as for `trace_into`.
pub(crate) unsafe fn trace_into_inspecting(
    space: &dyn Space,
    how: Tracing<'_>,
    ctx: &mut GcContext<'_>,
    workers: Option<(&GcWorkers, bool)>,
    inspect: impl FnOnce(&[Generation]),
) -> (GcOutcome, Vec<*mut Word>) {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let (layout, blocks, count, oldest) = (*layout, &*blocks, gens.len(), gens.len() - 1);
    let from = from_space::prepare(gens, how.n, layout);
    let make = || {
        let mut gct = GcThread::new(layout, how.n, count, blocks);
        gct.to[oldest].space = Some(space.allocator(blocks, how.black));
        gct.marks = how.marks;
        gct.deferred = how.defer.then(Vec::new);
        gct
    };
    let mut threads = trace_with(&make, gens, ctx.caps, ctx.stable_ptrs, ctx.leader, workers);
    inspect(gens);
    // Tracing is over; from-space holds nothing live. (This finishes the
    // space's allocators too.)
    from_space::install(from, gens, ctx.caps, blocks, &mut threads, how.n);
    let deferred = threads.iter_mut().filter_map(|t| t.deferred.take()).flatten().collect();
    (outcome(how.n, &threads, team_size(workers)), deferred)
}
