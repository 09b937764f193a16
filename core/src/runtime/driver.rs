//! The GC driver: one collection, from the mutator that asked for it to
//! the observers that learn of it.
//!
//! The shape is GHC's `GarbageCollect` (`rts/sm/GC.c`): stop the world;
//! account what each capability allocated; plan (the policy says which
//! generations); hand the stopped world to the collector; reset the
//! nurseries and resize; let the observers that check (the sanity
//! checker) look, inside the GC's time; take the record; then tell the
//! statistics and every observer. Each step is a function here; the
//! collector, the policy and the observers are called, never the other
//! way round.
//!
//! Note [A GC's CPU time]
//! ----------------------
//! A GC's CPU time is the time its threads spent on it, each read on its
//! own clock: the leader's across the whole GC, and each helper's (a
//! pool thread, or a stopped mutator doing a pool thread's part) across
//! the parts it did (`GcWorkers::run` adds them up on the runtime's
//! `HelpBoard`). A collector's threads that run beside a GC (a marker
//! through a young GC, a copier) are not among them: their time is their
//! concurrent phase's, counted there.
//!
//! It was the process's CPU clock across the GC, less what the
//! collector's own threads used beside it. The two do not agree over a
//! short interval: Linux brings the process clock up to date only for
//! the calling thread, and adds another thread's time only when that
//! thread is next ticked or switched out (every 4 ms at this machine's 250
//! Hz), while a thread's own clock is always exact. Across a 1 ms young GC
//! with the marker running on the other core, the process clock mostly
//! saw none of the marker's time and the subtraction took all of it:
//! `nonmoving` on binary-trees 20 reported 0.82 s of CPU in its young
//! GCs, which had kept their thread busy for 1.34 s of their 1.33 s
//! elapsed. Parallel GCs erred the other way: a stopped mutator's last
//! stretch of mutator work, not yet added when it stopped, was added when
//! it next slept, inside the GC (binary-trees 18 at `-N2 -qn2`: young GCs'
//! CPU 2.4 times their elapsed time on two cores). GHC's `-s` reads the
//! process's clock (`getProcessTimes`) too, with the same error.

use super::{exhausted, unwind_failure, RunState, Runtime};
use crate::capability::Capability;
use crate::collector::{Collector, GcContext, GcOutcome, GcReason, GcRequest};
use crate::constants::WORD_SIZE;
use crate::gc_help::HelpBoard;
use crate::heap::Heap;
use crate::observe::{Collected, GcEnd};
use crate::policy::{self, HeapExhausted};
use crate::process_usage::{major_page_faults, thread_cpu_seconds, Stamp};
use crate::stats::{GcRecord, Stats};
use crate::sync::{Failure, WorldStopped};

impl Runtime {
    /// Stop the world and collect. Called by a mutator from its slow path,
    /// holding no reference into its capability.
    pub(crate) fn collect(&self, cap_no: usize, reason: GcReason, force_major: bool) {
        self.collect_with(cap_no, reason, force_major, false)
    }

    /// `collect`, optionally insisting that the oldest generation be
    /// compacted (`Gc.compact`; the collector must be able to).
    pub(crate) fn collect_with(&self, cap_no: usize, reason: GcReason, force_major: bool, force_compact: bool) {
        let world = match reason {
            // Any GC empties the nurseries: one led by another capability
            // serves as well (See Note [One global sync] in `sync`).
            GcReason::HeapExhausted | GcReason::LargeAllocation => match self.sync.stop_the_world() {
                Ok(Some(world)) => world,
                Ok(None) => return,
                Err(f) => unwind_failure(f),
            },
            GcReason::Forced | GcReason::Explicit => self.stop_the_world(),
        };
        self.collect_stopped(world, cap_no, reason, force_major, force_compact);
    }

    /// The GC proper, every mutator stopped; `leader` is the capability
    /// whose mutator asked for it (and runs it).
    fn collect_stopped(&self, world: WorldStopped<'_>, leader: usize, reason: GcReason, force_major: bool, force_compact: bool) {
        let start = Stamp::now();
        let cpu = GcCpu::start(&self.help);
        let faults_at_start = major_page_faults();
        // SAFETY: Note [Who touches what]: with every mutator stopped
        // (`world`), the GC holds all of it exclusively.
        let st = unsafe { &mut *self.state.get() };
        // SAFETY: as above.
        let allocated_words = unsafe { absorb_capability_allocation(self.heap_mut(), self.caps_mut(), &mut st.stats) };
        // A census is taken right after a major GC (See `census`).
        let census = self.census_due(st);
        let req = self.plan(st, reason, force_major || census, force_compact);
        let oldest_blocks_at_start = { let heap = self.heap_ref(); heap.gens[heap.oldest()].filled_blocks() };
        let outcome = self.run_collector(&req, leader);
        self.take_collector_events(st);
        let req = GcRequest { collect_gen: outcome.collected_gen, ..req };
        let measure = policy::GcMeasure { started: start.wall, gc_seconds: start.wall.elapsed().as_secs_f64(), oldest_blocks_at_start, allocated_words };
        let resized = self.after_collection(st, &req, &outcome, &measure);
        let gc_number = st.stats.gcs + 1;
        let collector = self.collector_name();
        // A partial collection changed its increment's generation too.
        let changed = outcome.increment_of.map_or(req.collect_gen, |g| g.max(req.collect_gen));
        self.show_collected(Some(changed), &|| format!("GC {gc_number} (collector {collector}, generation {})", req.collect_gen));
        let end = Stamp::now();
        let gc_cpu = cpu.seconds(&self.help);
        let mut record = self.gc_record(st, &req, &outcome, allocated_words, (&start, &end, gc_cpu), faults_at_start);
        record.sync_wait = world.time_to_safepoint.as_secs_f64();
        let heap = self.heap_ref();
        let gc = GcEnd {
            req: &req,
            outcome: &outcome,
            record: &record,
            major: req.is_major(heap),
            forced_major: reason == GcReason::Explicit && force_major,
            start: start.wall,
            end: end.wall,
            heap,
            caps: self.caps_ref(),
            verbose: self.flags().verbose,
        };
        st.stats.account_gc(gc.record, gc.outcome, gc.heap, gc.major, gc.forced_major);
        self.tell_observers(|o| o.gc_end(&gc));
        if census {
            self.heap_census(st);
        }
        if let Err(e) = resized {
            world.fail(Failure::Exhausted(e));
            exhausted(e);
        }
        // The touching thread works while the mutators run: See Note [When
        // the reserve is topped up] in `mblock_threads::pretouch`.
        self.heap_ref().blocks.lock().gc_ending(outcome.threads.len().max(1));
        self.collector.lock().world_restarts();
        drop(world);
    }

    /// What to collect: the policy's choice, made major or compacting when
    /// the caller insists.
    fn plan(&self, st: &RunState, reason: GcReason, force_major: bool, force_compact: bool) -> GcRequest {
        let heap = self.heap_ref();
        let mut req = policy::plan_collection(heap, self.flags(), &st.policy, reason, force_major);
        if force_compact && heap.gens.len() > 1 {
            req.compact_oldest = true;
        }
        req
    }

    /// Hand the stopped world to the collector.
    fn run_collector(&self, req: &GcRequest, leader: usize) -> GcOutcome {
        // What the last GC offered is withdrawn: this one offers afresh.
        // SAFETY: the world is stopped.
        unsafe { self.heap_mut() }.offered.clear();
        self.with_gc_context(leader, |collector, ctx| collector.collect(req, ctx))
    }

    /// Call `f` with the collector and the context of a GC led by
    /// capability `leader`. The caller has stopped the world.
    pub(super) fn with_gc_context<R>(&self, leader: usize, f: impl FnOnce(&mut dyn Collector, &mut GcContext<'_>) -> R) -> R {
        // SAFETY: the world is stopped (the caller holds `WorldStopped`),
        // and the context's borrows end with `f`.
        let (heap, caps, stable_ptrs) = unsafe { (self.heap_mut(), self.caps_mut(), self.stable_ptrs_mut()) };
        let mut ctx = GcContext { flags: self.flags(), heap, caps, stable_ptrs, leader, sync_request: &self.sync_request, help: &self.help };
        let r = f(&mut **self.collector.lock(), &mut ctx);
        // What the field-logging barrier logged is the collector's to take
        // in the pause; what it left names addresses that may have moved
        // (See Note [The field-logging barrier] in `barrier`).
        for cap in ctx.caps.iter_mut() {
            cap.field_log.clear();
        }
        r
    }

    /// Empty the nurseries, count the collection and resize as the policy
    /// says; an `Err` is a heap overflow, reported once the GC is
    /// recorded.
    fn after_collection(&self, st: &mut RunState, req: &GcRequest, outcome: &GcOutcome, measure: &policy::GcMeasure) -> Result<(), HeapExhausted> {
        // SAFETY: the world is stopped; the collector has returned.
        let heap = unsafe { self.heap_mut() };
        heap.reset_nurseries(self.caps.len());
        // SAFETY: as above.
        for (i, cap) in unsafe { self.caps_mut() }.iter_mut().enumerate() {
            cap.chunk = i;
            cap.next_block = 0;
        }
        heap.gens[req.collect_gen].collections += 1;
        policy::after_gc(heap, self.flags(), &mut st.policy, req, outcome, self.caps.len(), measure)
    }

    /// Show the observers the heap a collector has just left (a GC of
    /// generations `0..=g`, or None for a collector's sync), inside the
    /// GC's time: the sanity checker's turn. The caller stopped the world;
    /// `what` must not lock the collector, which is held meanwhile.
    pub(super) fn show_collected(&self, collected: Option<usize>, what: &dyn Fn() -> String) {
        let collector = self.collector.lock();
        let c = Collected { heap: self.heap_ref(), caps: self.caps_ref(), stable_ptrs: self.stable_ptrs(), collector: &**collector, collected, what };
        self.tell_observers(|o| o.collected(&c));
    }

    /// The statistics record of a GC that ran from `times.0` to `times.1`
    /// and spent `times.2` CPU seconds (See Note [A GC's CPU time]).
    fn gc_record(&self, st: &mut RunState, req: &GcRequest, outcome: &GcOutcome, allocated_words: u64, times: (&Stamp, &Stamp, f64), faults_at_start: u64) -> GcRecord {
        let heap = self.heap_ref();
        let gc_cpu = times.2;
        let (_, gc_elapsed) = times.1.since(times.0);
        let (total_cpu, total_elapsed) = times.1.since(&st.start);
        let faults = major_page_faults();
        let mut_faults = faults_at_start.saturating_sub(st.faults_at_last_gc);
        st.faults_at_last_gc = faults;
        GcRecord {
            gen: req.collect_gen,
            allocated_bytes: allocated_words * WORD_SIZE as u64,
            copied_bytes: (outcome.copied_words * WORD_SIZE) as u64,
            live_bytes: heap.live_bytes() as u64,
            slop_bytes: heap.slop_bytes() as u64,
            heap_bytes: (heap.blocks.lock().mblocks().mapped() * crate::constants::MBLOCK_SIZE) as u64,
            gc_cpu,
            gc_elapsed,
            total_cpu,
            total_elapsed,
            gc_faults: faults.saturating_sub(faults_at_start),
            mut_faults,
            thread_copied_bytes: outcome.threads.iter().map(|t| (t.copied_words * WORD_SIZE) as u64).collect(),
            compacted: outcome.compacted,
            marked_bytes: (outcome.marked_words * WORD_SIZE) as u64,
            swept_bytes: (outcome.swept_words * WORD_SIZE) as u64,
            prefetched_objects: outcome.threads.iter().map(|t| t.prefetched_objects as u64).sum(),
            scanned_objects: outcome.threads.iter().map(|t| t.scanned_objects as u64).sum(),
            hole_bytes: heap.hole_bytes() as u64,
            region: outcome.region,
            compaction: outcome.compaction,
            sync_wait: 0.0,
        }
    }
}

/// Where a pause's CPU time is read (See Note [A GC's CPU time]): the
/// leader's own clock and the helpers' count, at its start.
pub(super) struct GcCpu {
    leader: f64,
    helpers: f64,
}

impl GcCpu {
    /// On the leader, as the pause begins.
    pub(super) fn start(help: &HelpBoard) -> GcCpu {
        GcCpu { leader: thread_cpu_seconds(), helpers: help.helper_cpu_seconds() }
    }

    /// On the leader, as the pause ends: the CPU seconds its threads spent.
    pub(super) fn seconds(&self, help: &HelpBoard) -> f64 {
        (thread_cpu_seconds() - self.leader) + (help.helper_cpu_seconds() - self.helpers)
    }
}

/// Mutator seconds so far: elapsed less INIT, GC and profiling.
pub(super) fn mutator_seconds(st: &RunState) -> f64 {
    let (_, elapsed) = Stamp::now().since(&st.start);
    (elapsed - st.stats.init_elapsed - st.stats.gc_elapsed - st.stats.prof_elapsed).max(0.0)
}

/// Fold each capability's allocation since the last GC into the totals,
/// and hand its new large objects and weak pointers to generation 0.
/// Returns the words allocated since the last GC.
fn absorb_capability_allocation(heap: &mut Heap, caps: &mut [Capability], stats: &mut Stats) -> u64 {
    let mut total = 0;
    for (i, cap) in caps.iter_mut().enumerate() {
        let allocated = cap.take_allocation();
        stats.count_capability_allocation(i, allocated);
        total += allocated.words;
        let g0 = &mut heap.gens[0];
        for bd in cap.new_large.drain(..) {
            // SAFETY: the world is stopped and the GC holds the heap; the
            // capability's new large objects are live groups.
            unsafe { g0.add_large_object(bd) };
        }
        g0.weak_ptrs.append(&mut cap.new_weaks);
        cap.gc_wanted = false;
    }
    total
}
