//! `lxr`: deferred, coalescing reference counting over an Immix space,
//! with a backup trace for cycles (after LXR: Zhao, Blackburn and
//! McKinley, PLDI 2022; MMTk's LXR plan).
//!
//! - Between GCs the mutators allocate young objects, which have no count,
//!   and the field-logging barrier logs the first store into each field
//!   of an old object per epoch, with the value it overwrote (core's Note
//!   [The field-logging barrier]).
//! - A minor GC is an RC pause (an epoch's end): the young survivors are
//!   copied as `immix` copies them: those of the nursery stay young for
//!   one more epoch, those that survived a pause already are promoted into
//!   the line space and counted from then on (See Note [Survivors age
//!   once] in `rc_aging`; `age=0` promotes every survivor at once, as LXR
//!   does; the young that die before either cost nothing, LXR's
//!   "implicitly dead"); then the counts are brought up to date,
//!   increments before decrements (See Note [An RC pause]); the objects
//!   whose count fell to zero are zeroed, the blocks left empty freed, and
//!   the others judged again line by line (`LineSpace::rejudge`) when
//!   promotion will need their lines (`lxr::reclaim`).
//! - A major GC runs the backup trace, which frees cycles and objects
//!   with stuck counts. By default (`trace=concurrent`) a major GC the
//!   policy asks for is an RC pause, then a marking of the counted space
//!   beside the mutators and the pauses, ended by a sweep in a sync
//!   (`concurrent_trace`, See Note [A concurrent backup trace] there).
//!   Under `trace=pause`, and for a major GC the program asks for or the
//!   heap's limit forces, it is `immix`'s major GC (mark in place,
//!   evacuate the most fragmented blocks, sweep), after which every count
//!   is rebuilt from the heap (`trace_in_pause`, See Note [The backup
//!   trace recounts] there).
//!
//! The counts live in side metadata, `bits=N` bits a word (2, 4 or 8;
//! default 4, as LXR's), each object's at its first word; they saturate
//! and stick (core's Note [Side counts]). What is counted and what is a
//! root is in Note [What the counts count] in `ref_count`. With two
//! generations only: generation 0 (the nursery and the survivors aging
//! in it, uncounted) and the counted space.
//!
//! The decrements run on threads beside the mutators between pauses
//! (`decrement_thread`, `dthreads=N`, default 2; `concurrent=0` keeps them
//! in the pauses).
//!
//! After a pause the mutators may allocate young objects into the holes
//! of the space's recyclable blocks, which the next pause marks where
//! they lie (`holes=PERCENT` of `-A`, default 0; `young_in_holes`, See
//! Note [Young objects in holes] there).
//!
//! The sparsest blocks by count, chosen when a backup trace begins, are
//! evacuated at the first RC pause after it ends, with the slots that
//! point into them remembered meanwhile (`lxr::evacuation`, See Note
//! [Evacuating in an RC pause] there).

mod concurrent_trace;
mod entry;
mod evacuation;
mod reclaim;
mod trace_in_pause;
mod young_in_holes;

pub use entry::ENTRY;

use crate::immix::Immix;
use crate::nonmoving::block_in_snapshot as in_snapshot;
use concurrent_trace::Marking;
use crate::large_counts::LargeCounts;
use crate::lazy_lines::LazyLines;
use crate::mark::MarkBitmap;
use crate::offered_holes::OfferedHoles;
use crate::parallel_increments::{raise_all, raise_fields, OldKind};
use crate::rc_aging::{count_young, young_fields};
use crate::decrement_thread::{decrement_under, gather, Deaths, DecrementThread};
use crate::ref_count::{check_counts, count_roots, count_stack, counted, Tally};
use gclab_core::barrier::{set_extension, BarrierExtension};
use gclab_core::bdescr::{BlockDesc, BlockPtr};
use gclab_core::capability::FieldLog;
use gclab_core::constants::Word;
use gclab_core::heap::Heap;
use gclab_core::object::{info_of_header, load_header, Layout};
use gclab_core::side_metadata::{set_bit, side_table_of, SideTables};
use gclab_core::{Collector, CollectorEvent, GcContext, GcOutcome, GcReason, GcRequest, RegionSweep};
use std::collections::{HashMap, HashSet};

/// The lxr collector: an `immix` collector for its space and its backup
/// trace, the counts' side tables, and what the counts need between
/// pauses.
pub struct Lxr {
    immix: Immix,
    /// A table with counts on every block of the space.
    tables: SideTables,
    /// The last pause's root buffer: the values whose counts it raised,
    /// which this pause lowers (See Note [What the counts count]).
    roots: Vec<Word>,
    /// Where the decrements are done, and what is left of them.
    decrements: Decrements,
    /// The evaluation stacks in the space (their live slots are roots),
    /// each with its slots' values as last counted (See Note [Stacks are
    /// counted by difference] in `ref_count`).
    stacks: HashMap<usize, Vec<Word>>,
    /// The large objects counted (See `large_counts`).
    large: LargeCounts,
    /// Each space block's words, and when it is judged again (See Note
    /// [Lines are reclaimed lazily] in `lazy_lines`).
    lines: LazyLines,
    /// The blocks whose holes the mutators allocate into until the next
    /// pause (See Note [Young objects in holes] in `lxr::young_in_holes`).
    holes: OfferedHoles,
    /// Decrements that found a count at zero, for the sanity checker.
    underflows: u64,
    /// The decrement threads' runs, for the statistics and the eventlog.
    events: Vec<CollectorEvent>,
    /// The field logs taken at syncs and stops since the last pause, for
    /// the next.
    synced_logs: Vec<FieldLog>,
    /// The backup trace running beside the mutators, if one is (See Note
    /// [A concurrent backup trace] in `lxr::concurrent_trace`).
    marking: Option<Marking>,
    /// Whether a major GC the policy asks for begins a backup trace beside
    /// the mutators (`trace=concurrent`, the default) or traces in its
    /// pause (`trace=pause`).
    concurrent_trace: bool,
    /// Whether the survivors of a pause stay young until the next (See
    /// Note [Survivors age once] in `rc_aging`); if not, every survivor is
    /// old at once.
    age: bool,
    /// Test-only faults and schedules (See `entry::Faults`).
    faults: entry::Faults,
    /// The blocks to evacuate at a pause after the backup trace that
    /// chose them (See Note [Evacuating in an RC pause] in
    /// `lxr::evacuation`).
    evacuation: Option<evacuation::Evacuation>,
}

/// Where an RC pause's decrements are done: on a thread beside the
/// mutators (See Note [Decrements beside the mutators] in
/// `decrement_thread`), or in the pauses, a budget at a time (See Note
/// [Decrements wait] in `ref_count`).
struct Decrements {
    /// On a thread (`concurrent=1`, the default).
    concurrent: bool,
    /// The most counts a pause lowers (every pause under `concurrent=0`,
    /// otherwise one after the thread fell behind).
    per_pause: u64,
    /// Whether a pause lowers a budget itself when the last thread was
    /// stopped before it had lowered all it was given (`help=1`), and
    /// whether it was.
    help: bool,
    behind: bool,
    /// What the last pause, or the stopped thread, left to lower.
    waiting: Vec<Word>,
    /// The thread, when one runs.
    thread: DecrementThread,
    /// The work the last pause handed to the thread, which starts when
    /// the world restarts.
    handed: Option<(Layout, Vec<Word>)>,
    /// Words freed, and blocks judged, after the thread was stopped
    /// between GCs: for the next pause's statistics.
    unreported: Option<(usize, RegionSweep)>,
}

impl Drop for Lxr {
    fn drop(&mut self) {
        // The decrement thread writes counts into `tables`, which as an
        // earlier field would be freed before `decrements` joins it: a
        // run that ends right after a pause freed them under the thread.
        self.decrements.thread.join();
    }
}

// SAFETY: the block pointers and addresses name the collector's own space,
// touched only with the world stopped (the collector is held exclusively).
unsafe impl Send for Lxr {}
// SAFETY: as above.
unsafe impl Sync for Lxr {}

// Note [An RC pause]
// ----------------------------------------
// A pause first runs immix's minor GC, which promotes the survivors that
// aged (or, under `age=0`, every survivor) into the space, so that every
// reference the counts see afterwards is to an object at its final
// address. Then:
//
// 1. each object promoted in this pause raises the counts of what its
//    counted fields point at (it is old now, its fields count), and so
//    does each old field that pointed at a young object now promoted
//    (See Note [Survivors age once] in `rc_aging`);
// 2. each field logged raises the count of its *current* value (later
//    stores into it were not logged: coalescing), and its bit is set
//    again for the next epoch;
// 3. the roots are counted into a new root buffer (the young objects'
//    references to old ones among them);
// 4. only then the decrements: the last pause's root buffer, and each
//    logged field's old value (the value it held when the epoch began),
//    recursively through every object whose count falls to zero.
//
// Increments come first so that an object moved between two references
// in one epoch (its count lowered through one field, raised through
// another) never passes through zero. Only the logged old values that
// were counted are lowered (they are taken before the minor GC, which
// moves the young ones: See Note [Survivors age once] in `rc_aging`). The
// log holds raw addresses, which are good because a minor GC does not
// move old objects; a backup trace discards the log and recounts.

// Note [A shrunk object's logged fields]
// ----------------------------------------
// Black-holing a thunk logs and zeroes its free variables (core's Note
// [The field-logging barrier]), and the thunk shrinks to a black hole,
// later an indirection: the logged fields now lie past the object's end,
// in slop. A block judged again before the log is read (which the
// decrement thread's deaths are, at the start of the next pause: See Note
// [Decrements beside the mutators] in `decrement_thread`) gives that slop
// to promotion as a free line, and the minor GC may copy an object over
// it. So a pause raises a logged field's current value only if the field
// still lies inside its object; one past the end held 0 since the store
// (the free variable was deleted), and its old value is lowered all the
// same. Its side bit is set again as every logged field's is: the word
// may hold a field of an object promoted there, which must start
// unlogged. Found by `programs_under_lxr` (power.hs), as a crash reading a
// promoted object's header as a field.

// Note [Copies that lost their claim]
// ----------------------------------------
// In a parallel pause two GC threads may copy the same object; the one
// whose claim fails (See Note [Claiming an object] in `evacuate`) gives
// its copy back by rewinding its bump, but the line space places lxr's
// objects one by one (it records every placement) and has no bump to
// rewind: the copy stays, garbage that nothing points to, listed among
// the placements, so the pause raises its fields' counts like any
// other's. The space lists these copies apart (`LineSpace::take_lost`)
// and the pause gives each a stuck count, so that counts never judge
// it; the backup trace frees it, and the recount after it lowers what
// its fields raised. Before, the sanity checker found such a copy with
// a count of zero, unreclaimed, in about one run in four of gcbench 12
// at `-N2 -qn2 -A16k`. Freeing it at once (zeroing it) is not safe in
// the pause: its thread scanned it and may have put it on a mutable list.
// Treating every promoted object still at zero after the increments as
// such a copy would also free an object whose increment was lost, which
// the sanity checker must catch instead.

impl Collector for Lxr {
    fn name(&self) -> &'static str {
        "lxr"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let mut logs = std::mem::take(&mut self.synced_logs);
        logs.extend(ctx.caps.iter_mut().flat_map(|c| c.field_log.drain(..)));
        // SAFETY: the runtime gives the collector the heap exclusively
        // (core's Note [Who touches what]).
        unsafe { self.settle(ctx) };
        if !self.age {
            promote_at_once(ctx.heap);
        }
        let oldest = ctx.heap.oldest();
        let major = req.collect_gen == oldest;
        // A major GC the program asks for, or the heap's limit forces, or
        // any under `trace=pause`, traces in its pause; one the policy asks
        // for begins a trace beside the mutators, unless one runs (See
        // Note [A concurrent backup trace] in `lxr::concurrent_trace`).
        let in_pause = major && (!self.concurrent_trace || req.reason == GcReason::Explicit || req.heap_full);
        let mut outcome = if in_pause {
            self.drop_marking(ctx);
            self.drop_evacuation();
            // SAFETY: as above.
            unsafe { self.backup_trace(req, ctx) }
        } else {
            let young = GcRequest { collect_gen: req.collect_gen.min(oldest - 1), ..*req };
            // SAFETY: as above.
            let done = unsafe { self.pause(&young, ctx, &logs) };
            if major && self.marking.is_none() {
                // SAFETY: as above; the pause has counted the roots.
                unsafe { self.begin_marking(ctx) };
                GcOutcome { collected_gen: oldest, began_concurrently: true, ..done }
            } else {
                done
            }
        };
        if let Some((freed, sweep)) = self.decrements.unreported.take() {
            outcome.swept_words += freed;
            outcome.region = Some(outcome.region.map_or(sweep, |r| add_sweeps(r, sweep)));
        }
        // SAFETY: as above; the pause took the last offer back, or the
        // backup trace forgot it.
        unsafe { self.offer_holes(ctx) };
        set_extension(ctx.caps, BarrierExtension::FieldLogging);
        outcome
    }

    fn world_restarts(&mut self) {
        if let Some((layout, work)) = self.decrements.handed.take() {
            let stacks = std::mem::take(&mut self.stacks);
            // SAFETY: the work's values were counted by the pause; until
            // the next pause or walk stops the thread, nothing else
            // touches counts, tables or dead objects (See Note
            // [Decrements beside the mutators] in `decrement_thread`).
            unsafe { self.decrements.thread.start(layout, work, stacks, self.marking.as_ref().map(|m| m.queue())) };
        }
    }

    fn is_concurrent(&self) -> bool {
        // Its decrement threads' runs are concurrent phases (`CONC GC
        // time` in `-s`); it has no syncs.
        self.decrements.concurrent
    }

    fn take_events(&mut self) -> Vec<CollectorEvent> {
        std::mem::take(&mut self.events)
    }

    fn sync(&mut self, ctx: &mut GcContext<'_>) {
        let since = self.synced_logs.len();
        self.keep_logs(ctx);
        // The decrement thread stops for a sync as for a GC: a sweep must
        // not run beside it, nor may the sanity checker after the sync
        // walk objects it is zeroing. It goes on when the world restarts.
        // SAFETY: the world is stopped and the collector held.
        unsafe { self.settle(ctx) };
        self.marking_sync(ctx, since);
        if self.decrements.concurrent && !self.decrements.waiting.is_empty() {
            let work = std::mem::take(&mut self.decrements.waiting);
            self.decrements.handed = Some((ctx.heap.layout, work));
        }
    }

    fn world_stopped(&mut self, ctx: &mut GcContext<'_>) {
        if let Some(m) = self.marking.as_mut() {
            m.let_go(entry::HoldMarker::UntilStop);
        }
        self.keep_logs(ctx);
        // SAFETY: the world is stopped and the collector held.
        unsafe { self.settle(ctx) };
    }

    fn check_heap(&self, heap: &Heap) -> Vec<String> {
        let mut problems = self.immix.check_heap(heap);
        problems.extend(OfferedHoles::check(heap));
        let young = &heap.gens[0];
        if !self.age && (!young.blocks.is_empty() || !young.large_objects.is_empty()) {
            problems.push(format!("lxr: generation 0 keeps {} blocks and {} large objects after a GC; every survivor should be old", young.blocks.len(), young.large_objects.len()));
        }
        let old = &heap.gens[heap.oldest()];
        // The root buffer: the runtime's roots and the stacks' kept slots.
        let roots: Vec<Word> = self.roots.iter().chain(self.stacks.values().flatten()).copied().collect();
        // SAFETY: the sanity checker runs with the world stopped; every
        // block of the space has a table (attached when it was cut).
        problems.extend(unsafe { check_counts(&old.blocks, &self.large.objects(), &roots, &self.synced_logs, heap.layout, self.underflows) });
        // The decrements that wait across this pause hold counted values
        // only (See `ref_count::decrement`): each lies in the space. (Only
        // its block is looked at: a stale young address may lie in a block
        // freed since.)
        let space: HashSet<BlockPtr> = old.blocks.iter().chain(old.large_objects.iter()).copied().collect();
        if let Some(&v) = self.decrements.waiting.iter().find(|&&v| v != 0 && !space.contains(&BlockPtr(BlockDesc::of_raw(v)))) {
            problems.push(format!("lxr: a decrement waits on {v:#x}, which is not an object of the counted space"));
        }
        problems
    }
}

impl Lxr {
    /// Keep the field logs for the next pause: the runtime empties them
    /// after a sync or a stop between GCs, in which nothing moves.
    fn keep_logs(&mut self, ctx: &mut GcContext<'_>) {
        self.synced_logs.extend(ctx.caps.iter_mut().flat_map(|c| c.field_log.drain(..)));
    }

    /// An RC pause (See Note [An RC pause]).
    ///
    /// # Safety
    /// The GC holds the heap; `logs` are the field logs of the epoch.
    // SAFETY: the caller's contract; every root and heap slot holds a valid object address.
    unsafe fn pause(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>, logs: &[FieldLog]) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        // SAFETY: the GC holds the heap and has not begun.
        let cards = unsafe { self.large.take_marked_cards(layout) };
        // Before the minor GC moves the young objects (See Note [Survivors
        // age once]): the old values logged that were counted, and the
        // old objects' fields that point at young objects uncounted.
        // SAFETY: a logged old value is an object address, not moved yet.
        let mut lowered: Vec<Word> = logs.iter().map(|e| e.old).filter(|&v| unsafe { counted(v) }.is_some()).collect();
        // SAFETY: the GC holds the heap and has not begun.
        let mut uncounted = unsafe { young_fields(ctx.caps, oldest, layout) };
        // SAFETY: the GC holds the heap, before promotion.
        let judged = unsafe { self.judge_for_promotion(ctx) };
        self.immix.parts(oldest).0.record_placements();
        let mut holes = MarkBitmap::new();
        // SAFETY: the GC holds the heap, before the minor GC.
        let taken = unsafe { self.take_back_holes(ctx.heap, &mut holes) };
        let marking = self.marking.as_ref();
        let room = marking.and_then(|m| m.make_room(ctx.flags, req.collect_gen));
        let holes_taken = (!taken.is_empty()).then_some(&holes);
        let (mut outcome, moved) = if self.evacuates_now() {
            // SAFETY: as above; the logs and cards were taken before it.
            unsafe { self.young_gc_evacuating(req.collect_gen, ctx, logs, &cards, holes_taken) }
        } else {
            (self.immix.collect_young(req.collect_gen, ctx, marking.map(|m| m.marks()), holes_taken, None), evacuation::Moved::default())
        };
        drop(room);
        let logs = moved.logs(logs);
        moved.forward_pause(&mut lowered, &mut uncounted);
        if !taken.is_empty() {
            // The young objects marked in holes are promoted where they lie.
            for t in outcome.threads.iter_mut() {
                t.promoted_words += std::mem::take(&mut t.marked_words);
            }
        }
        // SAFETY: the minor GC is over.
        let (in_holes, hole_sweep) = unsafe { self.judge_holes(taken, &holes, ctx) };
        if let Some(m) = self.marking.as_mut() {
            // The snapshot values the mutators overwrote (See Note [A
            // concurrent backup trace] in `lxr::concurrent_trace`).
            m.grey_deleted(lowered.iter().copied());
            m.snapshot_words += self.immix.parts(oldest).0.count_kept_placements(&mut ctx.heap.gens[oldest]);
        }
        let mut placed = self.immix.parts(oldest).0.take_placements();
        placed.extend(in_holes);
        let lost = self.immix.parts(oldest).0.take_lost();
        let mut tally = Tally::default();
        let mut weaks = Vec::new();
        // Every block first, so that no increment misses a table.
        for &p in &placed {
            if side_table_of(p).is_none() {
                // SAFETY: the GC holds the heap; the block is the space's,
                // in use (an object was just placed in it), with no table.
                unsafe { self.tables.attach(BlockPtr(BlockDesc::of(p)), true) };
            }
        }
        if !moved.is_empty() {
            // A moved object keeps its count, and its fields stay counted.
            let copies = moved.copies();
            placed.retain(|p| !copies.contains(p));
            moved.set_counts();
            self.lines.placed(moved.copy_sizes());
        }
        // SAFETY: the GC holds the heap.
        let adopted = unsafe { self.large.adopt(&ctx.heap.gens[oldest], &mut self.tables, layout) };
        for &p in &adopted {
            // SAFETY: a large object just found old: live, its group covered.
            unsafe { self.promoted(p, layout, &mut weaks, &mut tally) };
        }
        // The fields to raise: each logged field's current value, and the
        // old objects' fields whose young values have just become old.
        let mut slots = Vec::with_capacity(logs.len() + uncounted.len());
        for e in logs.iter() {
            // SAFETY: a logged object is old and live (See Note [A shrunk
            // object's logged fields]).
            if !self.faults.lose_increments && unsafe { still_inside(layout, e.obj, e.slot) } {
                slots.push(e.slot);
            }
            // Past the end too: whatever lies there now or later has its
            // fields unlogged.
            if let Some(t) = side_table_of(e.slot) {
                set_bit(&t.bits, e.slot);
            }
        }
        if !self.faults.lose_increments {
            slots.extend_from_slice(&uncounted);
        }
        let workers = self.immix.pool().for_collection(ctx.flags, req.collect_gen, ctx.help).map(|(w, _)| w);
        // SAFETY: the minor GC is over and nothing moves until the pause
        // ends; the placed objects were just promoted into blocks with
        // tables; a logged field belongs to an old object, which a minor
        // GC does not move, and holds an object address.
        let raised = unsafe { raise_all(workers, layout, &placed, &slots) };
        for &p in &raised.stacks {
            self.stacks.entry(p as usize).or_default();
        }
        weaks.extend_from_slice(&raised.weaks);
        tally.add(raised.tally);
        self.lines.placed(raised.sizes);
        // SAFETY: the GC is over; the placed objects and the large ones
        // adopted are live and old, the logs' slots checked as above, the
        // cards taken in this pause.
        unsafe { self.record_for_evacuation(placed.iter().chain(&adopted).copied(), &logs, &cards, layout) };
        if let Some(m) = self.marking.as_mut() {
            // Every value the written cards held, before `reconcile` takes
            // the new ones (See Note [Every value a written card held] in
            // `lxr::concurrent_trace`).
            // SAFETY: the GC holds the heap; the cards were taken in it.
            let held = unsafe { m.unmarked_shadows(&self.large, &cards, layout) };
            m.grey_deleted(held);
        }
        // SAFETY: the GC is done moving objects.
        let big_lowered = unsafe { self.large.reconcile(&cards, layout, &mut tally) };
        // SAFETY: the GC holds the heap.
        let mut unstacked = Vec::new();
        // SAFETY: the GC holds the heap.
        let new_roots = unsafe { self.count_roots(ctx, layout, &mut unstacked, &mut tally) };
        stick(&weaks);
        stick(&lost); // See Note [Copies that lost their claim]
        let mut work = std::mem::replace(&mut self.roots, new_roots);
        work.append(&mut unstacked);
        work.extend(lowered);
        work.extend(big_lowered);
        // With the work left by the last pause or thread, the shorter of
        // the two copied (See Note [Work that waits is not copied] in
        // `decrement_thread`).
        gather(&mut work, std::mem::take(&mut self.decrements.waiting));
        // In the pause: a budget of it under `concurrent=0`, or when the
        // last thread fell behind (See Note [Decrements beside the
        // mutators] in `decrement_thread`).
        let in_pause = !self.decrements.concurrent || std::mem::take(&mut self.decrements.behind);
        let sweep = if in_pause {
            // SAFETY: every value of `work` was counted (See Note [An RC pause]).
            let marker = self.marking.as_ref().map(|m| m.queue());
            let dead = unsafe { decrement_under(marker.as_deref(), layout, &mut work, self.decrements.per_pause, &mut |v| self.stacks.remove(&v), &mut tally) };
            let mut deaths = Deaths::default();
            // SAFETY: the dead are nobody's; marking by counts is over.
            unsafe { deaths.add(&dead, layout) };
            // SAFETY: as above.
            unsafe { self.reclaim(deaths, ctx, &mut tally) }
        } else {
            // Every pause reports a sweep, if only of no blocks: the one
            // the last thread's deaths gave is added to it (`collect`).
            self.immix.parts(oldest).0.sweep_record(0)
        };
        let mut region = judged.into_iter().fold(add_sweeps(sweep, hole_sweep), add_sweeps);
        moved.record(&mut region);
        outcome.region = Some(region);
        if self.decrements.concurrent {
            self.decrements.handed = Some((layout, work));
        } else {
            self.decrements.waiting = work;
        }
        self.underflows += tally.underflows;
        outcome.swept_words += tally.freed_words as usize;
        outcome
    }

    /// Stop the decrement thread, if one ran, reclaim what it found dead
    /// and keep what it had not lowered for the next (See Note [Decrements
    /// beside the mutators] in `decrement_thread`); what it freed waits in
    /// `unreported` for the statistics of the next pause.
    ///
    /// # Safety
    /// The world is stopped and the collector held.
    // SAFETY: the caller's contract.
    unsafe fn settle(&mut self, ctx: &mut GcContext<'_>) {
        let Some(done) = self.decrements.thread.join() else { return };
        self.stacks = done.stacks;
        self.decrements.behind = self.decrements.help && !done.left.is_empty();
        gather(&mut self.decrements.waiting, done.left);
        let mut tally = done.tally;
        self.underflows += tally.underflows;
        self.events.push(CollectorEvent::DecrementsEnd { decrements: tally.decrements, freed_objects: done.deaths.objects(), concurrent: done.phase });
        // SAFETY: the caller's contract; the thread found these dead.
        let sweep = unsafe { self.reclaim(done.deaths, ctx, &mut tally) };
        let freed = tally.freed_words as usize;
        self.decrements.unreported = Some(match self.decrements.unreported.take() {
            Some((f, s)) => (f + freed, add_sweeps(s, sweep)),
            None => (freed, sweep),
        });
    }

    /// The object `p` became old (promoted into the space, found old by
    /// a pause, or walked by the recount after a backup trace): raise the
    /// counts its fields hold (an evaluation stack's are roots; a weak
    /// pointer is listed in `weaks`, to stick); its words.
    ///
    /// # Safety
    /// `p` is a live object of the space, whose block has a table; the GC
    /// holds the heap.
    // SAFETY: the caller's contract.
    unsafe fn promoted(&mut self, p: *mut Word, layout: Layout, weaks: &mut Vec<*mut Word>, tally: &mut Tally) -> usize {
        // SAFETY: the caller's contract.
        let (kind, size) = unsafe { raise_fields(layout, p, tally) };
        match kind {
            OldKind::Stack => {
                self.stacks.entry(p as usize).or_default();
            }
            OldKind::Weak => weaks.push(p),
            OldKind::Other => {}
        }
        size
    }

    /// Count the roots (the runtime's, and the evaluation stacks' live
    /// slots: See Note [What the counts count] in `ref_count`): the new
    /// root buffer of the runtime's roots; the stacks' slots are counted
    /// against what they held (See Note [Stacks are counted by
    /// difference]), and the values they no longer hold are pushed onto
    /// `lowered`.
    ///
    /// # Safety
    /// The GC holds the heap.
    // SAFETY: the caller's contract.
    unsafe fn count_roots(&mut self, ctx: &mut GcContext<'_>, layout: Layout, lowered: &mut Vec<Word>, tally: &mut Tally) -> Vec<Word> {
        for (&stack, kept) in self.stacks.iter_mut() {
            // SAFETY: the caller's contract: a stack of the space is live
            // (its count, held by a reference, is above zero).
            unsafe { count_stack(layout, stack as *mut Word, kept, lowered, tally) };
        }
        // SAFETY: the caller's contract.
        let mut raised = unsafe { count_roots(ctx.caps, ctx.stable_ptrs, tally) };
        // SAFETY: as above.
        unsafe { count_young(&ctx.heap.gens[0], layout, &mut raised, tally) };
        raised
    }
}

/// Give each object of `objects` a stuck count: weak pointers, which the
/// runtime's weak lists point at uncounted (See Note [What the counts
/// count] in `ref_count`), and copies that lost their claims (See Note
/// [Copies that lost their claim]).
fn stick(objects: &[*mut Word]) {
    for &w in objects {
        if let Some(t) = side_table_of(w) {
            t.set_count(w, t.stuck());
        }
    }
}

/// Send every survivor of generation 0, in its blocks and its large
/// objects, straight into the old generation (a pause makes every
/// survivor old, so that the counts see only old objects).
fn promote_at_once(heap: &mut Heap) {
    let oldest = heap.oldest() as u16;
    let young = heap.nurseries.iter().flatten().chain(heap.gens[0].blocks.iter()).chain(heap.gens[0].large_objects.iter());
    for &bd in young {
        // SAFETY: the GC holds the heap, the nurseries included.
        unsafe { bd.get() }.dest_no = oldest;
    }
}

/// Whether field `slot` of the logged object `obj` still lies inside it
/// (See Note [A shrunk object's logged fields]).
///
/// # Safety
/// `obj` is a live object, old (not moved by the minor GC).
// SAFETY: the caller's contract: the header is a live object's.
pub(super) unsafe fn still_inside(layout: Layout, obj: *mut Word, slot: *mut Word) -> bool {
    // SAFETY: the caller's contract.
    let size = unsafe { layout.size_of(obj, info_of_header(load_header(obj))) };
    (slot as usize) < obj as usize + size * std::mem::size_of::<Word>()
}

/// Two sweeps' records as one (a pause's, and the blocks judged after a
/// decrement thread was stopped).
fn add_sweeps(a: RegionSweep, b: RegionSweep) -> RegionSweep {
    RegionSweep {
        line_bytes: a.line_bytes.max(b.line_bytes),
        blocks_swept: a.blocks_swept + b.blocks_swept,
        blocks_freed: a.blocks_freed + b.blocks_freed,
        blocks_recyclable: a.blocks_recyclable + b.blocks_recyclable,
        lines_free: a.lines_free + b.lines_free,
        defrag_blocks: a.defrag_blocks + b.defrag_blocks,
        defrag_copied_bytes: a.defrag_copied_bytes + b.defrag_copied_bytes,
    }
}
