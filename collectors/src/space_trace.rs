//! The collection of a generational collector whose oldest generation is
//! a space (`mark_sweep`, `nonmoving`, `immix`; See `space`): prepare
//! from-space, trace with every GC thread's oldest to-space an allocator
//! of the space, install. A major GC marks the blocks it keeps in place;
//! blocks it leaves in the generation are from-space, and their live
//! objects move into the space (`immix`'s defragmentation). A minor GC
//! may take blocks of the space as an increment too, with the slots that
//! point into them (`lxr`'s evacuation in its pauses).

use crate::copy_order::CopyOrder;
use crate::from_space::{self, Increment};
use crate::gc_thread::GcThread;
use crate::gc_workers::GcWorkers;
use crate::mark::MarkBitmap;
use crate::prefetch_ring::Judge;
use crate::roots::RememberedSlot;
use crate::space::Space;
use crate::trace::{outcome, team_size, trace_remembering};
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::{Word, WORD_SIZE};
use gclab_core::heap::Heap;
use gclab_core::{GcContext, GcOutcome};

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
    /// List every object of the generations not collected that the trace
    /// reaches, for a concurrent marker to grey (`GcThread::old_reached`).
    pub record_old: bool,
    /// The marks of the blocks kept in place are sticky: what is marked
    /// already is old, what is not is young (`GcThread::sticky`).
    pub sticky: bool,
    /// Blocks of the space a minor GC evacuates too (See `Evacuate`).
    pub evacuate: Option<Evacuate<'m>>,
    /// The order the young generations' survivors are copied and placed
    /// in (See Note [Copying depth first] in `copy_order`).
    pub order: CopyOrder,
}

/// Blocks of the space that a minor GC takes as an increment (See Note
/// [Increments] in `from_space`): their live objects move into the space.
pub(crate) struct Evacuate<'m> {
    /// Does the increment take this block of the space?
    pub takes: &'m dyn Fn(BlockPtr) -> bool,
    /// Every slot outside from-space that points into the increment.
    pub remembered: &'m [RememberedSlot],
    /// Called when tracing is over and before from-space is freed, while
    /// each moved object's old place still holds its forwarding header.
    pub before_freeing: &'m mut dyn FnMut(),
}

/// Trace a collection whose oldest generation lives in `space`: prepare
/// from-space, trace with the GC threads `workers` gives, install. Returns
/// what the threads did and, when `how.defer`, the objects they marked in
/// place and left unscanned, or when `how.record_old`, the objects of the
/// generations not collected that they reached.
///
/// # Safety
/// The GC holds the heap; the blocks kept in place are attached to
/// `how.marks` and `space.begin_gc` has been called for this GC.
// SAFETY: the caller's contract; every root and heap slot holds a valid object address, which is what tracing requires.
pub(crate) unsafe fn trace_into(space: &dyn Space, how: Tracing<'_>, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> (GcOutcome, Vec<*mut Word>) {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let (layout, blocks, count, oldest) = (*layout, &*blocks, gens.len(), gens.len() - 1);
    let takes = how.evacuate.as_ref().map(|e| Increment { gen: oldest, takes: e.takes });
    let depth_first = how.order.depth_first(workers.is_some());
    let judge = Judge::of_marking(depth_first, gens[oldest].n_words * WORD_SIZE);
    // SAFETY: the caller's contract.
    let from = unsafe { from_space::prepare_partial(gens, ctx.caps, how.n, layout, takes) };
    let remembered = how.evacuate.as_ref().map_or(&[][..], |e| e.remembered);
    let make = || {
        let mut gct = GcThread::new(layout, how.n, count, blocks);
        gct.to[oldest].space = Some(space.allocator(blocks, how.black));
        gct.marks = how.marks;
        gct.deferred = how.defer.then(Vec::new);
        gct.old_reached = how.record_old.then(Vec::new);
        gct.sticky = how.sticky;
        gct.depth_first = depth_first;
        gct.judge = judge;
        gct
    };
    // SAFETY: the caller's contract, and `Evacuate`'s for the slots.
    let mut threads = unsafe { trace_remembering(&make, gens, ctx.caps, ctx.stable_ptrs, remembered, ctx.leader, workers) };
    if let Some(e) = how.evacuate {
        (e.before_freeing)();
    }
    // Tracing is over; from-space holds nothing live. (This finishes the
    // space's allocators too.)
    from_space::install(from, gens, ctx.caps, blocks, &mut threads, how.n);
    let deferred = threads.iter_mut().filter_map(|t| t.deferred.take().or_else(|| t.old_reached.take())).flatten().collect();
    (outcome(how.n, &threads, team_size(workers)), deferred)
}
