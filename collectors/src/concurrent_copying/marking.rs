//! `concurrent-copying`'s marking: its state, the pause that begins it
//! (which leaves the snapshot for the marker to attach: See Note [The
//! marker attaches its snapshot] in `concurrent_mark::attach`), the young
//! GCs that run beside the marker, and its end in a sync, which starts
//! the line space's sweep beside the mutators, or its drop by a major GC
//! in a pause.
//!
//! Invariant kept: while a marking runs, every snapshot block is attached
//! before anything reads the snapshot's flags with the world stopped,
//! but a young GC, which reads none of them while the marker attaches.

use super::{copy_out_lines, ConcurrentCopying};
use crate::copy_order::CopyOrder;
use crate::concurrent_mark::{MarkQueue, Marker};
use crate::gc_workers::GcWorkers;
use crate::line_space::LineSpace;
use crate::line_sweeper::{LineSweep, SweepStart};
use crate::nonmoving::{end_marking, flush_barrier_records, marking_goes_on, sweep_large_objects};
use crate::space_trace::{trace_into, Tracing};
use gclab_core::barrier::{set_extension, BarrierExtension};
use gclab_core::bdescr::{BlockPtr, BF_MARK_IN_PLACE};
use gclab_core::constants::Word;
use gclab_core::{CollectorEvent, ConcurrentPhase, GcContext, GcOutcome, RtsFlags};
use std::time::Instant;

/// A marking under way.
pub(super) struct Marking {
    pub(super) marker: Marker,
    started: Instant,
    /// Syncs so far in it.
    syncs: usize,
    /// The snapshot's blocks: the first ones of the old generation's list.
    snapshot_blocks: usize,
    /// The marker waits for the world to restart after the pause that
    /// began the marking (See Note [The marker attaches its snapshot] in
    /// `concurrent_mark::attach`).
    held: bool,
}

impl ConcurrentCopying {
    /// With the world stopped, before anything reads the snapshot's
    /// flags: attach what the marker has not (See Note [The marker
    /// attaches its snapshot] in `concurrent_mark::attach`).
    pub(super) fn attach_snapshot(&self) {
        if let Some(marking) = &self.marking {
            marking.marker.queue.finish_attaching();
        }
    }

    /// The major GC that starts a marking: copy the young generations,
    /// list the old objects they and the roots point to, and start the
    /// marker, which attaches the snapshot and greys them (See the module
    /// doc).
    pub(super) fn begin_marking(&mut self, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let (space, pool) = self.immix.parts(oldest);
        let workers = pool.for_collection(ctx.flags, oldest, ctx.help);
        let snapshot_blocks = ctx.heap.gens[oldest].blocks.len();
        // SAFETY: the runtime gives the collector the heap exclusively,
        // and no marking runs.
        let (done, reached, snapshot) = unsafe { snapshot_for_the_marker(space, ctx, workers) };
        let queue = MarkQueue::attaching(snapshot, layout);
        if !self.lose_reached {
            queue.push(reached.into_iter().map(|p| p as Word));
        }
        self.events.push(CollectorEvent::MarkBegin);
        // See Note [The marker attaches its snapshot] in `concurrent_mark::attach`.
        let marker = Marker::start_held(queue, ctx.sync_request.clone());
        self.marking = Some(Marking { marker, started: Instant::now(), syncs: 0, snapshot_blocks, held: true });
        GcOutcome { collected_gen: oldest, in_place: true, began_concurrently: true, ..done }
    }

    /// A GC of the young generations `0..=n` while a marking runs (the
    /// marker beside it): what it promotes into the snapshot's holes is
    /// marked as it is placed, before it is written.
    pub(super) fn young_gc_marking(&mut self, n: usize, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let (space, pool) = self.immix.parts(oldest);
        let workers = pool.for_collection(ctx.flags, n, ctx.help);
        let queue = &self.marking.as_ref().expect("a marking runs").marker.queue;
        if queue.is_attaching() {
            // SAFETY: as below.
            let done = unsafe { young_gc_beside_the_attaching(space, n, ctx, workers) };
            if walk_may_follow(ctx.flags) {
                // It reads the descriptors next.
                queue.finish_attaching();
            }
            return done;
        }
        // See Note [Recorded values are filtered in the pause] in `nonmoving`.
        flush_barrier_records(queue, ctx.caps, &mut self.events);
        let black = &queue.marks;
        let how = Tracing { n, marks: None, black: Some(black), defer: false, record_old: false, sticky: false, evacuate: None, order: CopyOrder::BreadthFirst };
        // SAFETY: the runtime gives the collector the heap exclusively; a
        // marker beside it reads only the snapshot (See Note [The marker
        // runs through young GCs] in `concurrent_mark`).
        let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
        space.count_kept_placements(&mut ctx.heap.gens[oldest]);
        GcOutcome { in_place: true, ..done }
    }

    /// The world restarts: let a marker held since the pause that began
    /// its marking go (See Note [The marker attaches its snapshot] in
    /// `concurrent_mark::attach`).
    pub(super) fn release_marker(&mut self) {
        if let Some(marking) = self.marking.as_mut().filter(|m| m.held) {
            marking.held = false;
            marking.marker.queue.resume();
        }
    }

    /// A sync while a marking runs: attach what the marker has not, hand
    /// it what the barrier recorded, and end the marking in this pause if
    /// it had run out of work (See `marking_goes_on` in `nonmoving`).
    pub(super) fn sync_marking(&mut self, ctx: &mut GcContext<'_>) {
        self.attach_snapshot();
        let marking = self.marking.as_mut().expect("a marking runs");
        if !marking_goes_on(&marking.marker, &mut marking.syncs, ctx.caps, &mut self.events) {
            self.finish_marking(ctx);
        }
    }

    /// End the running marking in a sync: mark what is left, judge the
    /// old weak pointers and large objects, and start the line space's
    /// sweep beside the mutators (See Note [Sweeping lines beside the
    /// mutators] in `line_sweeper`); the copying-out starts once it ends.
    fn finish_marking(&mut self, ctx: &mut GcContext<'_>) {
        let marking = self.marking.take().expect("a marking runs");
        let queue = marking.marker.join();
        let concurrent = ConcurrentPhase { cpu: queue.marker_cpu_seconds(), elapsed: marking.started.elapsed().as_secs_f64() };
        let (marks, _) = end_marking(queue, ctx, false, Some(concurrent), &mut self.events, "concurrent-copying");
        let (check, walked) = (ctx.flags.sanity.is_on(), walk_may_follow(ctx.flags));
        let oldest = ctx.heap.oldest();
        let (space, _) = self.immix.parts(oldest);
        let gclab_core::heap::Heap { blocks, gens, layout, .. } = &mut *ctx.heap;
        let old = &mut gens[oldest];
        self.events.push(CollectorEvent::SweepBegin);
        // SAFETY: the world is stopped, marking is complete and nothing
        // is attached to the marks from now on.
        unsafe {
            let large_words = sweep_large_objects(old, &marks, &mut blocks.lock());
            // See Note [What a marking found live] in `nonmoving`.
            // The pause that began the marking marked nothing (See Note
            // [The marker attaches its snapshot] in `concurrent_mark::attach`).
            old.live_estimate = Some(marks.marker_words().saturating_sub(large_words));
            let spare_list = std::mem::take(&mut self.spare_list);
            // See Note [Blocks flagged unswept when a walk needs them] in `line_sweeper`.
            let copy_out_lines = copy_out_lines(space, self.live_percent);
            let start = SweepStart { large_words, spare_list, snapshot_blocks: marking.snapshot_blocks, check, walked, copy_out_lines, layout: *layout };
            self.sweeping = Some(LineSweep::begin(old, marks, start, space, ctx.sync_request.clone()));
        }
    }

    /// Drop the running marking (a major GC the program asked for is about
    /// to mark the old generation in its pause): nothing was freed, so the
    /// snapshot's blocks simply become old blocks again.
    pub(super) fn drop_marking(&mut self, ctx: &mut GcContext<'_>) {
        let marking = self.marking.take().expect("a marking runs");
        drop(marking.marker.join());
        set_extension(ctx.caps, BarrierExtension::None);
        for cap in ctx.caps.iter_mut() {
            cap.update_rem_set.clear();
        }
        let old = &ctx.heap.gens[ctx.heap.oldest()];
        for &bd in old.blocks.iter().chain(&old.large_objects) {
            // SAFETY: the world is stopped; the bitmap the snapshot's
            // descriptors pointed at is gone.
            let d = unsafe { bd.get() };
            if d.has(BF_MARK_IN_PLACE) {
                d.end_marking_in_place(0);
                d.aux = 0;
            }
        }
        self.events.push(CollectorEvent::MarkEnd { marked_objects: 0, marked_words: 0, concurrent: None });
    }
}

/// May a walk of the heap follow this GC or sync before the world restarts
/// (the sanity checker after each, a census after a major GC)? Then the
/// descriptors must be as walks read them (See Note [Blocks flagged
/// unswept when a walk needs them] in `line_sweeper`).
fn walk_may_follow(flags: &RtsFlags) -> bool {
    flags.sanity.is_on() || flags.heap_profile.is_some()
}

/// Trace as `how` says with the space's recyclable list set aside, so that
/// nothing is placed in the holes of the snapshot's blocks, whose marks
/// the trace cannot set (promoted objects go to fresh blocks: See Note
/// [Blocks cut during the marking] in `concurrent_copying`).
///
/// # Safety
/// As for `trace_into`.
// SAFETY: the caller's contract, which is `trace_into`'s.
unsafe fn trace_past_the_holes(space: &LineSpace, how: Tracing<'_>, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> (GcOutcome, Vec<*mut Word>) {
    let mut holes = space.take_recyclable();
    // SAFETY: the caller's contract.
    let traced = unsafe { trace_into(space, how, ctx, workers) };
    space.relist(&mut holes);
    traced
}

/// A GC of the young generations `0..=n` while the marker is still
/// attaching the snapshot's blocks beside it (See Note [The marker
/// attaches its snapshot] in `concurrent_mark::attach`): it reads no snapshot
/// block's flags but `BF_EVACUATED`, places nothing in their holes, and
/// leaves the barrier's records in the capabilities, where they are its
/// roots, for a sync to hand the marker.
///
/// # Safety
/// The GC holds the heap but the snapshot blocks' descriptors, which the
/// marker writes; it reads their flags only atomically.
// SAFETY: the caller's contract, which is `trace_into`'s.
unsafe fn young_gc_beside_the_attaching(space: &LineSpace, n: usize, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    let how = Tracing { n, marks: None, black: None, defer: false, record_old: false, sticky: false, evacuate: None, order: CopyOrder::BreadthFirst };
    // SAFETY: the caller's contract.
    let (done, _) = unsafe { trace_past_the_holes(space, how, ctx, workers) };
    GcOutcome { in_place: true, ..done }
}

/// The pause that begins a marking: copy the young generations (into
/// fresh blocks only), and list the old objects that the roots and the
/// young generations reach, for the marker to grey. Returns what the GC
/// did, that list, and the snapshot: the old generation's blocks and large
/// objects as the pause began, none of them attached to a bitmap yet (See
/// Note [The marker attaches its snapshot] in `concurrent_mark::attach`).
///
/// # Safety
/// The GC holds the heap; no marking runs.
// SAFETY: the caller's contract, which is `trace_into`'s.
unsafe fn snapshot_for_the_marker(space: &LineSpace, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> (GcOutcome, Vec<*mut Word>, Vec<BlockPtr>) {
    let oldest = ctx.heap.oldest();
    let old = &mut ctx.heap.gens[oldest];
    let snapshot: Vec<BlockPtr> = old.blocks.iter().chain(&old.large_objects).copied().collect();
    // The old generation's weak pointers are judged at the marking's end.
    let old_weaks = std::mem::take(&mut old.weak_ptrs);
    set_extension(ctx.caps, BarrierExtension::SnapshotAtTheBeginning);
    // Nothing is marked in this pause.
    let how = Tracing { n: oldest - 1, marks: None, black: None, defer: false, record_old: true, sticky: false, evacuate: None, order: CopyOrder::BreadthFirst };
    // SAFETY: the caller's contract.
    let (done, reached) = unsafe { trace_past_the_holes(space, how, ctx, workers) };
    ctx.heap.gens[oldest].weak_ptrs.extend(old_weaks);
    (done, reached, snapshot)
}
