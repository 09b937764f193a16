//! `nonmoving`: GHC's nonmoving collector (`-xn`, `--nonmoving-gc`): the
//! oldest generation never moves and is marked by a thread of its own
//! while the mutators run, under a snapshot-at-the-beginning barrier, then
//! swept; the young generations are copied as by `copying`, and minor GCs
//! go on while a marking runs (GHC's `NonMoving.c`; Ueno and Ohori, ICFP
//! 2016; Gamari and Dietz, ISMM 2020).
//!
//! A cycle, from one major GC to the sync that ends it:
//!
//! 1. The major GC (a pause) takes the snapshot: see Note [The snapshot].
//!    It copies the young generations, promoting into the old
//!    generation's cells, and greys every old object that the roots, the
//!    young generations and the remembered set point to; it turns on the
//!    snapshot barrier and starts the marker (`concurrent_mark`).
//! 2. The mutators run and minor GCs come and go, the marker marking
//!    beside them too (See Note [The marker runs through young GCs] in
//!    `concurrent_mark`); objects they promote into the snapshot's free
//!    cells are marked as they are placed ("allocated black"); blocks cut
//!    meanwhile are not in the snapshot and are all kept.
//! 3. When the marker runs out of work it asks for a sync. The sync takes
//!    every capability's recorded overwritten values; if there are many,
//!    the marker goes on with them beside the mutators (at most
//!    `CONCURRENT_ROUNDS` times), else the sync finishes the marking in
//!    its pause, judges the old generation's weak pointers, turns the
//!    barrier off and sweeps (in the pause, lazily or on the sweeper
//!    thread, as `sweep=` says; concurrently by default, as GHC does).
//!
//! A major GC requested while a cycle runs collects the young generations
//! only (GHC does the same), unless the program asked for it (`Gc.major`,
//! `Gc.full_major`): then the running cycle is finished in the pause and a
//! whole new one run synchronously, so the program sees its garbage gone
//! when the call returns. `mark=sync` marks every cycle inside the major
//! GC's pause, as GHC's non-threaded runtime does, for comparison.
//!
//! Note [The snapshot]
//! ----------------------------------------
//! Snapshot-at-the-beginning (Yuasa) marks every object that was reachable
//! when the cycle began, plus whatever is allocated during it. The major
//! GC flags every block and large object of the oldest generation
//! `BF_MARK_IN_PLACE` and traces the young generations as a minor GC
//! would, scanning the remembered set (the old generation's mutable-list
//! entries) and keeping the old weak pointers out of it (their fields are
//! old, since they were promoted with their weak; they are judged at the
//! end). Each old object the trace reaches is marked and handed to the
//! marker unscanned (`GcThread::deferred`), where a compacting or
//! mark-sweep collection would scan it at once. Young objects survive the
//! GC into the old generation or the young ones, so after it every old
//! object reachable at that moment is reachable from a grey object through
//! old objects only, and the marker, following old pointers only, finds
//! it unless a mutator deletes a pointer on the way. The barrier records
//! each such deletion (the value a mutable variable, an array element, a
//! thunk update or a finaliser's run overwrites: See Note [Extending the
//! barrier] in core's `barrier`), and the syncs grey what it recorded.
//! Objects promoted during the cycle are marked (in the snapshot's cells)
//! or outside the snapshot (in blocks cut since), so the sweep keeps them.
//! Mutators allocate only into nurseries, which are young: nothing they
//! allocate is judged by this cycle. While the cycle runs, the snapshot
//! blocks carry `BF_EVACUATED` too, so that minor GCs leave them alone.
//!
//! Note [Recorded values are filtered in the pause]
//! ----------------------------------------
//! A value the barrier records may be a young object. While it sits in a
//! capability's records it is a GC root (`roots`), so a minor GC moves it
//! and updates the record. Once a sync hands the records to the marker
//! and the world restarts, nothing updates them: if a minor GC comes
//! before the marker takes them (on a loaded machine, it does), a young
//! value then points into a nursery block reset or freed, its megablock
//! perhaps returned to the OS, and the marker read its "header" and
//! crashed (SIGSEGV in `in_snapshot`: once in three full test runs
//! here, and three times in one run of the heavy test binaries side by
//! side, after the nofib-style workloads joined the stress tests). The
//! marker only ever greys snapshot objects, which neither move nor die
//! while the cycle runs; so the sync keeps just those, filtering the
//! records while the world is stopped and every value is still an object,
//! and the marker never holds an address a GC can invalidate. Every young
//! GC of a marking does the same: the records are its roots, and a
//! marking whose syncs are few let them grow with every store, each
//! young GC walking them all (linear at -A16k: 56 s of GC where immix
//! took 0.1 s). linear's markings had no sync at all, for a reason of
//! their own: its rows are large arrays, which skipped the allocation
//! slow path's safe point, so no sync was ever served and its first
//! marking never ended (0 syncs in 35 thousand young GCs); they pass it
//! now (`alloc_array_object`): 28 syncs, 27 markings, peak RSS at the
//! default -A1m 30 MiB instead of 67.
//!
//! Note [Segments and cells]
//! ----------------------------------------
//! GHC keeps its nonmoving heap in 32 KiB segments, one size class each
//! (powers of two from 8 bytes), a segment's mark bitmap in its header
//! and an epoch number in each mark so that bitmaps need no clearing
//! between cycles; a capability allocates from its current segment of
//! each class, and full and partly free segments wait on lists. gclab's
//! old generation is the cell space of `mark-sweep` (`cell_space`): one
//! 4 KiB block is a segment of one class, the block descriptor its
//! header, and the classes are every size up to 16 words and then the
//! largest cell for each count per block (44 classes; See Note [Size
//! classes] in `size_classes`), which wastes less than powers of two (on
//! average a quarter of each cell above 16 bytes). The mark bitmap is a
//! side table made fresh for each cycle (64 bytes a block), so no epoch
//! is needed: clearing it is allocating it. A GC thread allocates from its
//! current block of each class, as a capability does from its current
//! segment, and the space's partly free blocks are GHC's active list.
//! Large objects stay apart, in the generation's large-object list, and
//! are marked by the first bit of their own map.

use crate::copy_order::CopyOrder;
use crate::cell_space::CellSpace;
use crate::concurrent_mark::{in_snapshot, survives, MarkQueue, Marker, Snapshot};
use crate::megablock_set::MegablockSet;
use crate::gc_workers::{GcThreadPool, GcWorkers};
use crate::space::Space;
use crate::mark::MarkBitmap;
use crate::space_trace::{trace_into, Tracing};
use crate::snapshot_check::snapshot_violations;
use crate::sweep::SweepMode;
use crate::weak_ptrs::{bury, registration_order};
use crate::CollectorEntry;
use gclab_core::barrier::{set_extension, BarrierExtension};
use gclab_core::bdescr::{BlockPtr, BF_EVACUATED, BF_LARGE, BF_MARK_IN_PLACE};
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::object::weak_field;
use gclab_core::{Collector, CollectorEvent, ConcurrentPhase, GcContext, GcOutcome, GcReason, GcRequest};
use std::time::Instant;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "nonmoving",
    description: "GHC's -xn: young generations copied; the oldest in size-class cells, marked by its own thread beside the mutators (snapshot barrier), then swept (mark=concurrent|sync, sweep=concurrent|lazy|eager, order=breadth|depth)",
    flags: "-xn",
    make: |mut params, flags| {
        let mark = params.take("mark").map(|v| MarkMode::parse(&v)).transpose()?.unwrap_or_default();
        let sweep = params.take("sweep").map(|v| SweepMode::parse(&v)).transpose()?.unwrap_or(SweepMode::Concurrent);
        // Cheney's order by default, GHC's: See Note [Copying depth
        // first] in `copy_order` for what depth first gave it.
        let order = CopyOrder::take(&mut params, CopyOrder::BreadthFirst)?;
        params.finish("nonmoving", &["mark", "sweep", "order"])?;
        if flags.generations < 2 {
            return Err(format!("the nonmoving collector needs at least two generations (its oldest is marked and swept, the others copied), not -G{}", flags.generations));
        }
        // A broken collector on purpose, for the test that shows the
        // snapshot check catching a marking that misses live objects.
        let lose_grey = std::env::var("GCLAB_NONMOVING_FAULT").is_ok_and(|f| f == "lose-grey");
        Ok(Box::new(Nonmoving { mark, sweep, order, lose_grey, old: None, pool: GcThreadPool::default(), cycle: None, events: Vec::new(), snapshot_counts: (0, 0, 0), promoted_at_snapshot: 0 }))
    },
};

/// Where a cycle's marking runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkMode {
    /// On the marker thread, beside the mutators (GHC's threaded runtime).
    #[default]
    Concurrent,
    /// Inside the major GC's pause (GHC's non-threaded runtime).
    Sync,
}

impl MarkMode {
    /// Parse `mark=`'s value.
    pub fn parse(text: &str) -> Result<MarkMode, String> {
        match text {
            "concurrent" => Ok(MarkMode::Concurrent),
            "sync" => Ok(MarkMode::Sync),
            _ => Err(format!("mark={text}: expected concurrent or sync")),
        }
    }
}

/// Syncs at which the marker may be sent back to work beside the mutators
/// with what the barrier recorded, before a sync finishes the marking in
/// its pause whatever is left.
const CONCURRENT_ROUNDS: usize = 3;

/// Recorded values below which a sync finishes the marking itself.
const FINISH_IN_PAUSE_BELOW: usize = 4096;

/// A marking cycle under way.
struct Cycle {
    marker: Marker,
    /// When the marker started.
    started: Instant,
    /// Syncs so far in this cycle.
    syncs: usize,
}

/// The nonmoving collector.
pub struct Nonmoving {
    mark: MarkMode,
    sweep: SweepMode,
    /// The order the young generations' survivors are copied and
    /// promoted in (`nonmoving:order=depth`; breadth first by default).
    order: CopyOrder,
    /// The test-only fault `GCLAB_NONMOVING_FAULT=lose-grey`: the
    /// snapshot's grey objects are dropped, so the marking misses what
    /// only they lead to.
    lose_grey: bool,
    old: Option<CellSpace>,
    pool: GcThreadPool,
    cycle: Option<Cycle>,
    /// What it did beyond its GCs, not yet taken by the runtime.
    events: Vec<CollectorEvent>,
    /// The old generation's blocks, object words and free words when the
    /// running cycle took its snapshot: the snapshot blocks' counts then
    /// (See `uncount_snapshot`).
    snapshot_counts: (usize, usize, usize),
    /// The object words that pause promoted into the snapshot's cells
    /// (See Note [What a marking found live]).
    promoted_at_snapshot: usize,
}

impl Collector for Nonmoving {
    fn name(&self) -> &'static str {
        "nonmoving"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        assert!(oldest > 0, "nonmoving needs at least two generations (the registry refuses -G1)");
        let major = req.collect_gen == oldest;
        // One the program asks for, or the heap's limit forces, is
        // finished in its pause (See `GcRequest::heap_full`).
        let in_pause = req.reason == GcReason::Explicit || req.heap_full;
        if major && self.cycle.is_some() && in_pause {
            self.finish_cycle(ctx, false);
        }
        if !major || self.cycle.is_some() {
            // The marker, if one runs, goes on beside it, given a core:
            // See Note [The marker runs through young GCs] in
            // `concurrent_mark`.
            let n = req.collect_gen.min(oldest - 1);
            let _room = self.cycle.as_ref().and_then(|c| c.marker.make_room(ctx.flags, n));
            return self.collect_young(n, ctx);
        }
        let (done, queue) = self.begin_cycle(ctx);
        self.events.push(CollectorEvent::MarkBegin);
        if self.mark == MarkMode::Sync || in_pause {
            self.finish_marking(queue, ctx, true, None);
            return done;
        }
        self.cycle = Some(Cycle { marker: Marker::start(queue, ctx.sync_request.clone()), started: Instant::now(), syncs: 0 });
        GcOutcome { began_concurrently: true, ..done }
    }

    fn sync(&mut self, ctx: &mut GcContext<'_>) {
        let Some(cycle) = self.cycle.as_mut() else { return };
        if marking_goes_on(&cycle.marker, &mut cycle.syncs, ctx.caps, &mut self.events) {
            return;
        }
        self.finish_cycle(ctx, false);
    }

    fn take_events(&mut self) -> Vec<CollectorEvent> {
        std::mem::take(&mut self.events)
    }
}

impl Nonmoving {
    /// Copy generations `0..=n` (all young), promoting into the cell
    /// space; objects placed in the snapshot's cells are marked, if a
    /// cycle runs.
    fn collect_young(&mut self, n: usize, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let workers = self.pool.for_collection(ctx.flags, n, ctx.help);
        if let Some(cycle) = &self.cycle {
            // See Note [Recorded values are filtered in the pause].
            flush_barrier_records(&cycle.marker.queue, ctx.caps, &mut self.events);
        }
        let black = self.cycle.as_ref().map(|c| &c.marker.queue.marks);
        let space = self.old.get_or_insert_with(|| CellSpace::new(oldest, self.sweep));
        // SAFETY: the runtime gives the collector the heap exclusively
        // (core's Note [Who touches what]); a marker beside it reads only
        // the snapshot (See Note [The marker runs through young GCs] in
        // `concurrent_mark`).
        unsafe { space.begin_gc(false) };
        let how = Tracing { n, marks: None, black, defer: false, record_old: false, sticky: false, evacuate: None, order: self.order };
        // SAFETY: as above.
        let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
        GcOutcome { in_place: true, ..done }
    }

    /// The major GC that starts a cycle: take the snapshot (See Note [The
    /// snapshot]); returns what to mark from.
    fn begin_cycle(&mut self, ctx: &mut GcContext<'_>) -> (GcOutcome, MarkQueue) {
        let oldest = ctx.heap.oldest();
        let workers = self.pool.for_collection(ctx.flags, oldest, ctx.help);
        let space = self.old.get_or_insert_with(|| CellSpace::new(oldest, self.sweep));
        // SAFETY: the runtime gives the collector the heap exclusively
        // (core's Note [Who touches what]); no cycle runs.
        unsafe {
            space.finish_sweeping();
            space.begin_gc(false);
        }
        let old = &mut ctx.heap.gens[oldest];
        self.snapshot_counts = (old.n_blocks, old.n_words, old.n_free_words);
        space.take_kept_placements();
        // SAFETY: as above.
        let (done, grey, mut snapshot) = unsafe { snapshot_and_grey(space, ctx, workers, self.order) };
        self.promoted_at_snapshot = space.kept_placements().0;
        // Its sweep counts the cells itself.
        snapshot.marks.forget_count();
        let queue = MarkQueue::new(snapshot, ctx.heap.layout);
        if !self.lose_grey {
            queue.push_marked(grey);
        }
        (GcOutcome { collected_gen: oldest, in_place: true, ..done }, queue)
    }

    /// End the running cycle, with the world stopped: stop the marker and
    /// finish its marking.
    fn finish_cycle(&mut self, ctx: &mut GcContext<'_>, in_gc: bool) {
        if let Some(cycle) = self.cycle.take() {
            let queue = cycle.marker.join();
            let phase = ConcurrentPhase { cpu: queue.marker_cpu_seconds(), elapsed: cycle.started.elapsed().as_secs_f64() };
            self.finish_marking(queue, ctx, in_gc, Some(phase));
        }
    }

    /// Finish a cycle's marking in a pause: take the barrier's records,
    /// mark what is left, judge the old weak pointers, turn the barrier
    /// off and sweep. `in_gc`: inside a GC, rather than a sync;
    /// `concurrent`: what the marking cost beside the mutators, if it ran
    /// there.
    fn finish_marking(&mut self, queue: MarkQueue, ctx: &mut GcContext<'_>, in_gc: bool, concurrent: Option<ConcurrentPhase>) {
        let (marks, marked_words) = end_marking(queue, ctx, in_gc, concurrent, &mut self.events, "nonmoving");
        let oldest = ctx.heap.oldest();
        let gclab_core::heap::Heap { blocks, gens, .. } = &mut *ctx.heap;
        let old = &mut gens[oldest];
        let (snapshot, since): (Vec<BlockPtr>, Vec<BlockPtr>) = old.blocks.iter().partition(|bd| block_in_snapshot(**bd));
        old.blocks = since;
        let space = self.old.as_mut().expect("a cycle runs only once the space exists");
        if ctx.flags.sanity.is_on() {
            // SAFETY: the world is stopped and marking is complete.
            no_violations("nonmoving", unsafe { space.empty_marked_cells(&snapshot, &marks) });
        }
        let black = space.take_kept_placements();
        uncount_snapshot(old, self.snapshot_counts, black);
        let words_since = old.n_words;
        self.events.push(CollectorEvent::SweepBegin);
        let mut ba = blocks.lock();
        // SAFETY: marking is complete; no allocator exists outside a GC.
        _ = unsafe { sweep_large_objects(old, &marks, &mut ba) };
        // SAFETY: as above.
        unsafe { space.sweep(snapshot, marks, &mut ba, old) };
        // See Note [What a marking found live].
        old.live_estimate = Some(old.n_words - words_since - (black.0 - self.promoted_at_snapshot));
        // The snapshot's object words less those the marking found live
        // are what the sweep frees (objects allocated black since are in
        // neither).
        self.events.push(CollectorEvent::SweepEnd { swept_words: self.snapshot_counts.1.saturating_sub(marked_words) });
        if ctx.flags.eventlog && ctx.flags.trace_nonmoving_census {
            // SAFETY: the world is stopped; the sweep has judged every block.
            self.events.extend(unsafe { space.census(old) });
        }
    }
}

// Note [What a marking found live]
// ----------------------------------------
// The policy sizes the old generation from its live words (`F x live`
// before the next major GC: `policy`'s `resize_generations`). After a
// sweep the generation also holds everything promoted while the marking
// ran, allocated black or in blocks cut since, kept whether it is live or
// not (floating garbage), and more of it the longer the marking ran. So
// the estimate is what the marking found live in the snapshot (with what
// the pause that took it promoted there), as GHC's (its Note [Live data
// accounting in nonmoving collector]); what was promoted since counts
// against the next trigger as any promotion does.
// Counting the floating garbage as live let each cycle raise the next
// one's trigger: on gcbench 18 the old generation's live bytes at the
// major GCs climbed to 52 MB, where `mark=sync` saw 10-13 MB. Measured
// (2-core, `scripts/ab -n 3` against the estimate with the floating
// garbage): peak RSS 0.78x on binary-trees 20 (354 -> 278 MiB), 0.75x
// on gcbench 18, 1.06x on lru 150000 1000000 128; young GCs and total
// time unchanged (0.96-1.01x). The cost is more cycles (binary-trees
// 19: 24 instead of 14) and so more of the marker's CPU beside the
// mutators (0.59 s against 0.32).

/// End a marking with the world stopped and the marker gone (GHC's
/// `nonmovingMark` finish): take the barrier's records, turn the barrier
/// off, mark what is left, judge the old weak pointers, report the
/// marking (`concurrent`: what it cost beside the mutators, if it ran
/// there), forget the dead mutable-list entries and, under `-DS`, check
/// that every live snapshot object is marked (`in_gc`: inside a GC rather
/// than a sync; `collector` names it in the failure). Returns the marks
/// and the words marked, for the sweep.
pub(crate) fn end_marking(queue: MarkQueue, ctx: &mut GcContext<'_>, in_gc: bool, concurrent: Option<ConcurrentPhase>, events: &mut Vec<CollectorEvent>, collector: &str) -> (MarkBitmap, usize) {
    flush_barrier_records(&queue, ctx.caps, events);
    set_extension(ctx.caps, BarrierExtension::None);
    let mut stack = Vec::new();
    // SAFETY: the world is stopped and the marker thread is gone.
    unsafe { queue.drain(&mut stack) };
    let oldest = ctx.heap.oldest();
    // SAFETY: as above.
    unsafe { judge_weaks(&queue, &mut ctx.heap.gens[oldest].weak_ptrs, ctx.caps, &mut stack) };
    let marked_objects = u32::try_from(queue.marked_objects()).unwrap_or(u32::MAX);
    let marked_words = queue.marked_words();
    events.push(CollectorEvent::MarkEnd { marked_objects, marked_words, concurrent });
    let marks = queue.marks;
    forget_dead_mut_list_entries(ctx.caps, oldest, &marks);
    if ctx.flags.sanity.is_on() {
        // SAFETY: the world is stopped and nothing is swept yet.
        no_violations(collector, unsafe { snapshot_violations(&marks, ctx, in_gc) });
    }
    (marks, marked_words)
}

/// Fail the sanity check at the end of a `collector`'s marking if it found
/// `violations`.
fn no_violations(collector: &str, violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "heap sanity check failed at the end of a {collector} marking: {} violation(s):\n  {}",
        violations.len(),
        violations.iter().take(20).cloned().collect::<Vec<_>>().join("\n  ")
    );
}

/// Take the snapshot of the oldest generation, whose storage is `space`,
/// in a major GC's pause (See Note [The snapshot]): flag and attach its
/// blocks, turn the snapshot barrier on, copy the young generations (in
/// `order`) with the old weak pointers kept out, and leave the snapshot
/// `BF_EVACUATED` so that minor GCs leave it alone. Returns what the GC
/// did, the old objects it greyed and the marks.
///
/// # Safety
/// The GC holds the heap and no marking runs.
// SAFETY: the caller's contract: tracing needs the heap held, and the snapshot is attached to the marks it traces with.
pub(crate) unsafe fn snapshot_and_grey(space: &dyn Space, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>, order: CopyOrder) -> (GcOutcome, Vec<*mut Word>, Snapshot) {
    let oldest = ctx.heap.oldest();
    let old = &mut ctx.heap.gens[oldest];
    let (marks, snapshot) = take_snapshot(old);
    let megablocks = MegablockSet::of(&snapshot);
    let old_weaks = std::mem::take(&mut old.weak_ptrs);
    set_extension(ctx.caps, BarrierExtension::SnapshotAtTheBeginning);
    let how = Tracing { n: oldest - 1, marks: Some(&marks), black: Some(&marks), defer: true, record_old: false, sticky: false, evacuate: None, order };
    let (done, grey) = trace_into(space, how, ctx, workers);
    ctx.heap.gens[oldest].weak_ptrs.extend(old_weaks);
    for bd in snapshot {
        bd.get().insert_flags(BF_EVACUATED);
    }
    (done, grey, Snapshot { marks, megablocks })
}

/// A sync during a marking (the marker parked): hand the marker what the
/// barrier recorded, and let it go on beside the mutators (true) unless
/// it had run out of work and little was recorded, or it has been sent
/// back `CONCURRENT_ROUNDS` times already: then the caller finishes the
/// marking in this pause (false). `syncs` counts the marking's syncs.
pub(crate) fn marking_goes_on(marker: &Marker, syncs: &mut usize, caps: &mut [gclab_core::capability::Capability], events: &mut Vec<CollectorEvent>) -> bool {
    marking_goes_on_with(marker, syncs, |queue| flush_barrier_records(queue, caps, events))
}

/// `marking_goes_on` for a collector whose barrier records elsewhere:
/// `flush` hands the marker what was recorded and says how much.
pub(crate) fn marking_goes_on_with(marker: &Marker, syncs: &mut usize, flush: impl FnOnce(&MarkQueue) -> usize) -> bool {
    let drained = marker.queue.pause();
    *syncs += 1;
    let recorded = flush(&marker.queue);
    if !drained || (recorded >= FINISH_IN_PAUSE_BELOW && *syncs <= CONCURRENT_ROUNDS) {
        marker.queue.resume();
        return true;
    }
    false
}

/// Take every capability's recorded overwritten values and hand the
/// snapshot objects among them to the marker (See Note [Recorded values
/// are filtered in the pause]), with an event per capability; returns how
/// many were recorded. The world is stopped.
pub(crate) fn flush_barrier_records(queue: &MarkQueue, caps: &mut [gclab_core::capability::Capability], events: &mut Vec<CollectorEvent>) -> usize {
    let mut n = 0;
    for cap in caps.iter_mut().filter(|c| !c.update_rem_set.is_empty()) {
        n += cap.update_rem_set.len();
        // SAFETY: the world is stopped, and a record is zero (slop of an
        // updated thunk) or an object the GCs kept valid as a root.
        let snapshot = cap.update_rem_set.drain(..).filter(|&v| v != 0 && unsafe { in_snapshot(v as *const Word) });
        queue.push(snapshot);
        events.push(CollectorEvent::RemSetFlush { cap: cap.no as u16 });
    }
    n
}

/// Drop the old generation's mutable-list entries that the marking found
/// dead: the sweep is about to free them. (A live entry stays: the
/// remembered set still needs it.)
pub(crate) fn forget_dead_mut_list_entries(caps: &mut [gclab_core::capability::Capability], oldest: usize, marks: &MarkBitmap) {
    for cap in caps.iter_mut() {
        // SAFETY: a mutable-list entry is an object of the old generation
        // (the barrier's invariant), read with the world stopped.
        cap.mut_lists[oldest].retain(|obj| unsafe { survives(marks, obj.0) });
    }
}

/// Take the snapshot blocks' words out of `old`'s counts, so that they
/// count only the blocks cut since (as `CellSpace::sweep` wants them). The
/// snapshot blocks held `at_snapshot` (blocks, object words, free words)
/// when the cycle began, plus what GCs placed in them since (`placed`:
/// object words and cell words taken), all of it counted in `old` too.
fn uncount_snapshot(old: &mut Generation, at_snapshot: (usize, usize, usize), placed: (usize, usize)) {
    let (blocks, words, free) = at_snapshot;
    old.n_blocks -= blocks;
    old.n_words -= words + placed.0;
    old.n_free_words -= free - placed.1;
}

/// Is block `bd` (or large object) part of the running cycle's snapshot?
pub(crate) fn block_in_snapshot(bd: BlockPtr) -> bool {
    // SAFETY: a block of the old generation, read with the world stopped.
    unsafe { bd.read() }.has(BF_MARK_IN_PLACE)
}

/// Flag every block and large object of `old` as the snapshot (kept in
/// place, not yet `BF_EVACUATED`) and attach them to a fresh bitmap.
///
/// # Safety
/// The GC holds the heap.
// SAFETY: writes the descriptors of the old generation's blocks, which the GC holds.
unsafe fn take_snapshot(old: &Generation) -> (MarkBitmap, Vec<BlockPtr>) {
    let snapshot: Vec<BlockPtr> = old.blocks.iter().chain(&old.large_objects).copied().collect();
    // SAFETY: the caller's contract.
    let marks = unsafe { MarkBitmap::snapshot(&snapshot) };
    (marks, snapshot)
}

/// Free the old generation's large objects that the snapshot held and
/// the marking did not reach; recount the rest. Returns the bits that
/// the kept ones have set in `marks` (See Note [Live words counted as
/// they are marked] in `line_sweeper`).
///
/// # Safety
/// Marking is complete; the world is stopped.
// SAFETY: frees unreachable large objects' groups and resets descriptors, under the caller's contract.
pub(crate) unsafe fn sweep_large_objects(old: &mut Generation, marks: &MarkBitmap, ba: &mut gclab_core::block_alloc::BlockAllocator) -> usize {
    old.n_large_blocks = 0;
    old.n_large_words = 0;
    let mut marked_words = 0;
    for bd in std::mem::take(&mut old.large_objects) {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        if d.has(BF_MARK_IN_PLACE) {
            if !marks.is_marked(d.start) {
                ba.free_group(bd);
                continue;
            }
            marked_words += marks.live_words(bd);
            d.end_marking_in_place(BF_LARGE);
            d.aux = 0;
        }
        // SAFETY: a live large object of the old generation.
        unsafe { old.add_large_object(bd) };
    }
    marked_words
}

/// Judge the old generation's weak pointers once marking is complete
/// (GHC's `nonmovingTidyWeaks`): a weak whose key is marked, or lies
/// outside the snapshot, is kept, and its value and finaliser are marked,
/// which may mark more keys; the rest die, as in a copying GC (See
/// `weak_ptrs`), their values kept for their finalisers.
///
/// # Safety
/// The world is stopped, the marker thread is gone and `queue` is drained.
// SAFETY: reads and writes the weak objects and marks, under the caller's contract.
pub(crate) unsafe fn judge_weaks(queue: &MarkQueue, weaks: &mut Vec<ObjPtr>, caps: &mut [gclab_core::capability::Capability], stack: &mut Vec<*mut Word>) {
    let layout = queue.layout();
    let field = |w: ObjPtr, f: usize| -> Word { *layout.payload(w.0).add(f) };
    let key_alive = |key: Word| survives(&queue.marks, key as *const Word);
    let keep = |w: ObjPtr, stack: &mut Vec<*mut Word>| {
        queue.push([w.0 as Word, field(w, weak_field::VALUE), field(w, weak_field::FINALIZER)]);
        queue.drain(stack);
    };
    let mut pending = std::mem::take(weaks);
    loop {
        let before = pending.len();
        let (alive, dead): (Vec<ObjPtr>, Vec<ObjPtr>) = pending.into_iter().partition(|&w| key_alive(field(w, weak_field::KEY)));
        for &w in &alive {
            keep(w, stack);
        }
        weaks.extend(alive);
        pending = dead;
        if pending.len() == before {
            break;
        }
    }
    registration_order(layout, &mut pending, |w| w);
    for w in pending {
        bury(layout, w.0, caps);
        keep(w, stack);
    }
}
