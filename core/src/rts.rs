//! The runtime: one heap, its capabilities, a collector, and the GC entry.
//!
//! `Rts` owns everything a run needs and is the only place that turns the
//! runtime's shared state into exclusive access for a GC (See Note [Who
//! touches what]). `Rts::run` runs a mutator program on capability 0 and
//! turns a heap overflow into an error value; `Rts::finish` closes the
//! statistics and prints the reports the flags asked for.
//!
//! Note [Who touches what]
//! ----------------------------------------
//! Between GCs each capability is touched only by its own mutator (one OS
//! thread per running capability), and the generations by nobody: mutators
//! reach the block allocator through its lock, and take nursery chunks
//! with an atomic counter. A GC starts with every mutator stopped at a
//! safe point, holding no reference into its capability (`sync` runs that
//! handshake); the leader, the mutator whose allocation asked for the GC,
//! then has all of the heap and every capability to itself (and lends
//! parts of them to its GC threads) until the GC ends. The cells below are
//! `UnsafeCell`s because that protocol, not the borrow checker, is what
//! makes access exclusive.
//!
//! Note [Heap overflow unwinds]
//! ----------------------------------------
//! GHC throws a `HeapOverflow` exception to the program when `-M` cannot be
//! respected. A mutator here is plain Rust code that calls `alloc` without
//! checking a result, so the runtime unwinds out of the allocation with a
//! private payload type, and `Rts::run` catches exactly that payload and
//! returns `RunError::HeapOverflow`. A panic hook keeps the payload from
//! being printed as a panic; any other panic passes through untouched.

use crate::capability::Capability;
use crate::collector::{Collector, GcContext, GcOutcome, GcReason, GcRequest, SyncRequest};
use crate::observe::{GcEnd, GcObserver};
use crate::stats_output::StatsOutput;
use crate::constants::{BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::eventlog::{self as ev, EventLog, Payload};
use crate::flags::{RtsFlags, SanityMode, StatsLevel, StatsTarget};
use crate::heap::Heap;
use crate::mblock::OutOfMemory;
use crate::mutator::{Alarm, FinalizerKind, Mutator};
use crate::policy::{self, HeapExhausted, PolicyState};
use crate::profiling::{CostCentres, HeapProfiler, ProfileContext};
use crate::constants::Word;
use crate::report;
use crate::sanity;
use crate::stable_ptr::{StablePtr, StablePtrTable};
use crate::stats::{major_page_faults, max_rss_bytes, GcRecord, Stamp, Stats};
use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use crate::gc_help::HelpBoard;
use crate::sync::{Failure, WorldStopped, WorldSync};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use crate::lock::Lock;
use std::sync::Once;
use std::time::{Duration, Instant};

/// Why a run failed.
#[derive(Debug)]
pub enum RunError {
    /// `-M` could not be respected (GHC's "heap overflow").
    HeapOverflow {
        /// The limit in bytes.
        max_heap_bytes: usize,
    },
    /// The OS refused memory.
    OutOfMemory {
        /// The request in bytes.
        bytes: usize,
    },
    /// An output file (statistics, eventlog, heap profile) could not be
    /// written: what, with the file's name, and why.
    Write(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::HeapOverflow { max_heap_bytes } => write!(
                f,
                "Heap exhausted;\nCurrent maximum heap size is {} bytes ({} MB).\nUse `+RTS -M<size>' to increase it.",
                max_heap_bytes,
                max_heap_bytes / (1024 * 1024)
            ),
            RunError::OutOfMemory { bytes } => write!(f, "out of memory (requested {bytes} bytes)"),
            RunError::Write(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for RunError {}

/// The exit code of a run whose output could not be written (sysexits'
/// `EX_IOERR`): a sweep tells it from the run's own failure by the code
/// alone, since on a full disk the run's message may be lost too.
pub const EXIT_OUTPUT_UNWRITABLE: i32 = 74;

impl RunError {
    /// The process exit code for this failure: GHC's 251 for heap
    /// overflow, `EXIT_OUTPUT_UNWRITABLE` for an output not written.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::HeapOverflow { .. } => 251,
            RunError::OutOfMemory { .. } => 251,
            RunError::Write(_) => EXIT_OUTPUT_UNWRITABLE,
        }
    }
}

/// The unwinding payload of Note [Heap overflow unwinds].
struct HeapExhaustedUnwind(HeapExhausted);

/// The unwinding payload of a mutator stopped because another capability
/// failed (See Note [Failures stop every mutator] in `sync`): never the
/// cause of a failure, only its echo.
pub(crate) struct WorldFailed(pub(crate) String);

/// Mutable run state that only the GC (or the single mutator between GCs) touches.
struct RunState {
    stats: Stats,
    policy: PolicyState,
    start: Stamp,
    faults_at_last_gc: u64,
    sanity: sanity::Checks,
    output: StatsOutput,
}

/// A runtime instance: one heap, its capabilities and its collector.
pub struct Rts {
    /// Declared first, so dropped first: a collector's own threads (a
    /// concurrent sweeper) may write the heap until the collector is
    /// dropped and joins them.
    collector: Lock<Box<dyn Collector>>,
    flags: UnsafeCell<RtsFlags>,
    heap: UnsafeCell<Heap>,
    caps: Box<[UnsafeCell<Capability>]>,
    stable_ptrs: Lock<StablePtrTable>,
    finalizers: Lock<HashMap<u64, FinalizerKind>>,
    alarms: Lock<Vec<(u64, Option<Alarm>)>>,
    state: UnsafeCell<RunState>,
    eventlog: Lock<Option<EventLog>>,
    profiler: Lock<Option<Box<dyn HeapProfiler>>>,
    cost_centres: Lock<CostCentres>,
    heap_roots: Lock<Vec<(String, StablePtr)>>,
    defined_cost_centres: Lock<Vec<usize>>,
    sync: WorldSync,
    sync_request: SyncRequest,
    /// Where a parallel collector posts work for the mutator threads
    /// stopped for its GC (See Note [Stopped mutators help the GC] in
    /// `gc_help`).
    help: Arc<HelpBoard>,
    next_finalizer_id: AtomicU64,
}

// SAFETY: shared access follows Note [Who touches what]: capabilities are
// per-thread between GCs, the heap and run state are touched by the GC
// holder only, and the rest is behind locks.
unsafe impl Sync for Rts {}

impl Rts {
    /// A runtime with `flags`, collecting with `collector`.
    pub fn new(flags: RtsFlags, collector: Box<dyn Collector>) -> Result<Rts, RunError> {
        let start = Stamp::now();
        let caps = flags.capabilities;
        let heap = Heap::new(&flags, caps).map_err(|e: OutOfMemory| RunError::OutOfMemory { bytes: e.bytes })?;
        let output = StatsOutput::new(open_stats_target(&flags)?, flags.stats == StatsLevel::Verbose).map_err(|e| stats_write_error(&flags, e))?;
        let mut stats = Stats::new(flags.generations, caps);
        stats.concurrent_collector = flags.nonmoving;
        let (init_cpu, init_elapsed) = Stamp::now().since(&start);
        stats.init_cpu = init_cpu;
        stats.init_elapsed = init_elapsed;
        let generations = flags.generations;
        let layout = heap.layout;
        let eventlog = open_eventlog(&flags, start.wall, collector.name()).map_err(|e| eventlog_write_error(&flags, e))?;
        Ok(Rts {
            eventlog: Lock::new(eventlog),
            profiler: Lock::new(None),
            cost_centres: Lock::new(CostCentres::default()),
            heap_roots: Lock::new(Vec::new()),
            defined_cost_centres: Lock::new(Vec::new()),
            heap: UnsafeCell::new(heap),
            caps: (0..caps).map(|i| UnsafeCell::new(Capability::new(i, generations, flags.count_objects.then_some(layout)))).collect(),
            stable_ptrs: Lock::new(StablePtrTable::new()),
            finalizers: Lock::new(HashMap::new()),
            alarms: Lock::new(Vec::new()),
            collector: Lock::new(collector),
            state: UnsafeCell::new(RunState {
                stats,
                policy: PolicyState::default(),
                start,
                faults_at_last_gc: major_page_faults(),
                sanity: sanity::Checks::default(),
                output,
            }),
            sync: WorldSync::default(),
            sync_request: SyncRequest::default(),
            help: Arc::new(HelpBoard::default()),
            next_finalizer_id: AtomicU64::new(1),
            flags: UnsafeCell::new(flags),
        })
    }

    /// The run's flags.
    pub fn flags(&self) -> &RtsFlags {
        // SAFETY: the flags change only through `set_flags`, called by the
        // mutator between GCs (See Note [Who touches what]); no reference
        // handed out here is held across that call by the runtime itself.
        unsafe { &*self.flags.get() }
    }

    /// Change the run's settings (the `Gc.set` of the `gc` API). The new
    /// settings must have been validated. The nursery is re-cut to `-A` at
    /// once; everything else is read afresh at the next GC.
    pub(crate) fn set_flags(&self, flags: RtsFlags) -> Result<(), OutOfMemory> {
        let _world = self.stop_the_world();
        // SAFETY: the world is stopped (the caller is the only mutator
        // running, holding no reference into the flags).
        unsafe { *self.flags.get() = flags };
        let flags = self.flags();
        let caps = self.caps.len();
        // SAFETY: the world is stopped; the caller's mutator flushed its
        // allocation pointer and holds no reference into its capability.
        for cap in unsafe { self.caps_mut() }.iter_mut() {
            cap.retire_current_block();
            cap.chunk = cap.no;
            cap.next_block = 0;
        }
        // SAFETY: as above.
        unsafe { self.heap_mut() }.resize_nurseries(flags.alloc_area_blocks * caps, flags.chunk_blocks, caps)
    }

    /// Install a heap profiler: it samples after GCs (See `profiling`).
    pub fn set_heap_profiler(&self, p: Box<dyn HeapProfiler>) {
        if let Some(log) = self.eventlog.lock().as_mut() {
            // HEAP_PROF_BEGIN: profile 0, period, break-down, seven empty filters.
            let mut payload = Payload::new().bytes(&[0]).u64((p.interval() * 1e9) as u64).u32(ev::heap_prof_breakdown(p.breakdown()));
            for _ in 0..7 {
                payload = payload.bytes(&[0]);
            }
            log.post(None, Instant::now(), ev::id::HEAP_PROF_BEGIN, payload);
        }
        *self.profiler.lock() = Some(p);
        // SAFETY: called before the mutator runs; nothing else holds the state.
        unsafe { (*self.state.get()).stats.profiling = true };
    }

    pub(crate) fn cost_centre_id(&self, name: &str) -> u32 {
        self.cost_centres.lock().id(name)
    }

    pub(crate) fn replace_heap_roots(&self, roots: Vec<(String, StablePtr)>) -> Vec<(String, StablePtr)> {
        std::mem::replace(&mut *self.heap_roots.lock(), roots)
    }

    /// Take a heap profile sample now, if a profiler is installed (called
    /// right after a GC, the world stopped).
    fn heap_census(&self, st: &mut RunState) {
        let mut guard = self.profiler.lock();
        let Some(profiler) = guard.as_mut() else { return };
        let start = Stamp::now();
        let roots: Vec<(String, Word)> = {
            let stable = self.stable_ptrs();
            self.heap_roots.lock().iter().map(|(n, sp)| (n.clone(), stable.get(*sp))).collect()
        };
        let names = self.cost_centres.lock().names().to_vec();
        let (_, elapsed) = start.since(&st.start);
        let mutator = mutator_seconds(st);
        let bands = profiler.sample(&ProfileContext { heap: self.heap_ref(), caps: self.caps_ref(), roots: &roots, cost_centres: &names, elapsed, mutator });
        let by_cost_centre = profiler.breakdown() == 'c';
        drop(guard);
        self.post_heap_sample(st.stats.censuses, &bands, by_cost_centre, &names);
        let (cpu, wall) = Stamp::now().since(&start);
        st.stats.prof_cpu += cpu;
        st.stats.prof_elapsed += wall;
        st.stats.censuses += 1;
    }

    /// A heap profile sample as eventlog events (seed 001): SAMPLE_BEGIN,
    /// a string or cost-centre sample per band (cost centres defined on
    /// first use), SAMPLE_END.
    fn post_heap_sample(&self, number: u64, bands: &[(String, u64)], by_cost_centre: bool, names: &[String]) {
        let mut guard = self.eventlog.lock();
        let Some(log) = guard.as_mut() else { return };
        let now = Instant::now();
        log.post(None, now, ev::id::HEAP_PROF_SAMPLE_BEGIN, Payload::new().u64(number));
        for (band, bytes) in bands {
            match names.iter().position(|n| n == band).filter(|_| by_cost_centre) {
                Some(cc) => {
                    let mut defined = self.defined_cost_centres.lock();
                    if !defined.contains(&cc) {
                        defined.push(cc);
                        let def = Payload::new().u32(cc as u32).bytes(band.as_bytes()).bytes(&[0]).bytes(b"Main\0<unknown>\0").bytes(&[0]);
                        log.post(None, now, ev::id::HEAP_PROF_COST_CENTRE, def);
                    }
                    log.post(None, now, ev::id::HEAP_PROF_SAMPLE_COST_CENTRE, Payload::new().bytes(&[0]).u64(*bytes).bytes(&[1]).u32(cc as u32));
                }
                None => log.post(None, now, ev::id::HEAP_PROF_SAMPLE_STRING, Payload::new().bytes(&[0]).u64(*bytes).bytes(band.as_bytes()).bytes(&[0])),
            }
        }
        log.post(None, now, ev::id::HEAP_PROF_SAMPLE_END, Payload::new().u64(number));
    }

    fn census_due(&self, st: &RunState) -> bool {
        let guard = self.profiler.lock();
        guard.as_ref().map(|p| p.due(mutator_seconds(st))).unwrap_or(false)
    }

    /// Can the collector compact the oldest generation in place?
    pub fn can_compact(&self) -> bool {
        self.collector.lock().can_compact()
    }

    /// The collector's name.
    pub fn collector_name(&self) -> &'static str {
        self.collector.lock().name()
    }

    /// Run `program` as the mutator of capability 0 (it may spread work
    /// over the other capabilities with `Mutator::par_map`). A heap
    /// overflow ends it with `Err` (See Note [Heap overflow unwinds]); any
    /// other panic propagates.
    pub fn run<R>(&self, program: impl FnOnce(&mut Mutator<'_>) -> R) -> Result<R, RunError> {
        install_quiet_hook();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run_on_capability(0, |m| {
                let r = program(m);
                m.run_gc_hooks();
                r
            })
        }));
        match result {
            Ok(r) => Ok(r),
            Err(payload) => Err(Rts::run_error(payload)),
        }
    }

    /// The error a run's unwinding payload stands for; panics that are
    /// not a heap exhaustion go on unwinding.
    fn run_error(payload: Box<dyn std::any::Any + Send>) -> RunError {
        match payload.downcast::<HeapExhaustedUnwind>() {
            Ok(e) => match e.0 {
                HeapExhausted::Overflow(o) => RunError::HeapOverflow { max_heap_bytes: o.max_heap_bytes },
                HeapExhausted::OutOfMemory(o) => RunError::OutOfMemory { bytes: o.bytes },
            },
            Err(other) => match other.downcast::<WorldFailed>() {
                // Only an echo reached capability 0: say what it echoes.
                Ok(echo) => panic!("gclab: the run failed: {}", echo.0),
                Err(other) => std::panic::resume_unwind(other),
            },
        }
    }

    /// Run `f` as the mutator of capability `cap_no`, on this thread,
    /// holding the capability (See `sync`) until it returns or unwinds.
    /// The caller makes sure that no other thread runs that capability.
    pub(crate) fn run_on_capability<R>(&self, cap_no: usize, f: impl FnOnce(&mut Mutator<'_>) -> R) -> R {
        struct Held<'r>(&'r WorldSync);
        impl Drop for Held<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.fail(Failure::Panicked("a mutator failed on another capability".into()));
                }
                self.0.release();
            }
        }
        // Held first: a failed acquire still counts this mutator as
        // running, and the guard's release balances it while unwinding.
        let _held = Held(&self.sync);
        self.acquire_capability();
        let mut m = Mutator::new(self, cap_no);
        let r = f(&mut m);
        m.flush_allocation_pointer();
        r
    }

    /// Start running a mutator (or come back from a blocking call),
    /// unwinding if the run has failed meanwhile.
    pub(crate) fn acquire_capability(&self) {
        if let Err(f) = self.try_acquire_capability() {
            Rts::unwind_for(f);
        }
    }

    /// `acquire_capability`, handing back the failure instead of
    /// unwinding; either way the mutator counts as running afterwards.
    pub(crate) fn try_acquire_capability(&self) -> Result<(), Failure> {
        self.sync.acquire()
    }

    /// Unwind a mutator because the run failed.
    pub(crate) fn unwind_failure(f: Failure) -> ! {
        Rts::unwind_for(f)
    }

    /// Stop running a mutator for a blocking call (See `Mutator::safe_blocking`).
    pub(crate) fn release_capability(&self) {
        self.sync.release();
    }

    /// A safe point: stop here if another capability wants a GC, or lead
    /// the sync the collector asked for (See Note [Concurrent phases] in
    /// `collector`).
    #[inline(always)]
    pub(crate) fn safe_point(&self) {
        if self.sync.gc_pending() {
            self.stop_for_gc();
        }
        if self.sync_request.is_requested() {
            self.collector_sync();
        }
    }

    /// Stop the world for the collector's own sync and call it.
    #[cold]
    fn collector_sync(&self) {
        let world = match self.sync.stop_the_world() {
            Ok(Some(world)) => world,
            Ok(None) => return,
            Err(f) => Rts::unwind_for(f),
        };
        if !self.sync_request.take() {
            return;
        }
        let start = Stamp::now();
        if let Some(log) = self.eventlog.lock().as_mut() {
            log.collector_sync(start.wall, true);
        }
        // SAFETY: Note [Who touches what]: the world is stopped (`world`).
        let st = unsafe { &mut *self.state.get() };
        self.with_gc_context(0, |collector, ctx| {
            for cap in ctx.caps.iter_mut() {
                cap.retire_current_block_keeping_position();
            }
            collector.sync(ctx)
        });
        self.check_sanity(st, None, || format!("a sync of collector {}", self.collector_name()));
        self.take_collector_events(st);
        let end = Stamp::now();
        if let Some(log) = self.eventlog.lock().as_mut() {
            log.collector_sync(end.wall, false);
        }
        let (cpu, elapsed) = end.since(&start);
        st.stats.collector_syncs += 1;
        st.stats.collector_sync_elapsed += elapsed;
        st.stats.collector_sync_cpu += cpu;
        st.stats.collector_sync_max = st.stats.collector_sync_max.max(elapsed);
        st.stats.sync_pauses.push((start.since(&st.start).1, elapsed));
        st.stats.gc_cpu += cpu;
        st.stats.gc_elapsed += elapsed;
        drop(world);
    }

    /// Take what the collector did beyond its GCs: count the concurrent
    /// phases that ended, and write every event to the eventlog.
    fn take_collector_events(&self, st: &mut RunState) {
        let events = self.collector.lock().take_events();
        if events.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut log = self.eventlog.lock();
        for e in &events {
            if let crate::collector::CollectorEvent::MarkEnd { concurrent: Some(phase), .. } = e {
                st.stats.concurrent_phase(*phase);
            }
            if let Some(log) = log.as_mut() {
                log.collector_event(now, e);
            }
        }
    }

    #[cold]
    fn stop_for_gc(&self) {
        if let Err(f) = self.sync.safe_point_helping(self.help_once_stopped()) {
            Rts::unwind_for(f);
        }
    }

    /// What a mutator thread does once stopped for a GC and before it
    /// sleeps: the work the collector posts for it, if any (See Note
    /// [Stopped mutators help the GC] in `gc_help`). Called before the
    /// thread stops, so that it counts the posts made so far before the
    /// leader, which posts only once every mutator has stopped, can post.
    fn help_once_stopped(&self) -> impl FnOnce() + '_ {
        let seen = self.help.posts();
        move || self.help.help_while_stopped(seen, || self.sync.gc_pending())
    }

    /// Unwind a mutator because the run failed (See Note [Failures stop
    /// every mutator] in `sync`): a heap exhaustion keeps its payload.
    fn unwind_for(f: Failure) -> ! {
        match f {
            Failure::Exhausted(e) => Rts::exhausted(e),
            Failure::Panicked(why) => std::panic::panic_any(WorldFailed(why)),
        }
    }

    /// Lead a stopped world, asking again until this mutator leads (See
    /// Note [One global sync] in `sync`).
    fn stop_the_world(&self) -> WorldStopped<'_> {
        loop {
            match self.sync.stop_the_world_helping(self.help_once_stopped()) {
                Ok(Some(world)) => return world,
                Ok(None) => continue,
                Err(f) => Rts::unwind_for(f),
            }
        }
    }

    /// A heap exhaustion found by a mutator: fail the run on every
    /// capability, and unwind this one.
    pub(crate) fn fail_exhausted(&self, e: HeapExhausted) -> ! {
        self.sync.fail(Failure::Exhausted(e));
        Rts::exhausted(e)
    }

    /// Close the run: account the last allocation, fill in the totals and
    /// print the reports `-s/-S/-t` asked for. Returns the statistics.
    pub fn finish(&self) -> Result<Stats, RunError> {
        let exit_start = Stamp::now();
        // SAFETY: the mutator has returned; nothing else touches the state.
        let st = unsafe { &mut *self.state.get() };
        if let Some(p) = self.profiler.lock().as_mut() {
            p.finish(exit_start.since(&st.start).1).map_err(RunError::Write)?;
        }
        // SAFETY: the mutators have returned: the run is over.
        let caps = unsafe { self.caps_mut() };
        for (i, cap) in caps.iter_mut().enumerate() {
            let allocated = cap.take_allocation();
            st.stats.allocated_bytes += allocated.words * WORD_SIZE as u64;
            st.stats.count_capability_allocation(i, allocated);
        }
        st.stats.note_memory_in_use(self.heap_ref());
        if let Some(log) = self.eventlog.lock().as_mut() {
            // Seed 002: a final HEAP_ALLOCATED per capability, so that the
            // eventlog's total equals the -s figure.
            let now = Instant::now();
            for (i, bytes) in st.stats.cap_allocated_bytes.iter().enumerate() {
                log.post(Some(i), now, ev::id::HEAP_ALLOCATED, Payload::new().u32(0).u64(*bytes));
                if log.classes().scheduler {
                    log.post(Some(i), now, ev::id::STOP_THREAD, Payload::new().u32(i as u32 + 1).u16(ev::STOP_FINISHED).u32(0));
                }
            }
            if let Some(e) = log.take_text_failure() {
                return Err(RunError::Write(format!("cannot write the event trace (-v) to standard output: {e}")));
            }
            log.finish().map_err(|e| eventlog_write_error(self.flags(), e))?;
        }
        let end = Stamp::now();
        let (exit_cpu, exit_elapsed) = end.since(&exit_start);
        st.stats.exit_cpu = exit_cpu;
        st.stats.exit_elapsed = exit_elapsed;
        let (total_cpu, total_elapsed) = end.since(&st.start);
        st.stats.total_cpu = total_cpu;
        st.stats.total_elapsed = total_elapsed;
        st.stats.max_rss_bytes = max_rss_bytes();
        let text = match self.flags().stats {
            StatsLevel::None => String::new(),
            StatsLevel::OneLine if self.flags().machine_readable => report::machine_readable(&st.stats),
            StatsLevel::OneLine => report::one_line(&st.stats),
            StatsLevel::Summary | StatsLevel::Verbose => {
                let mut t = report::summary(&st.stats, self.flags().capabilities);
                if self.flags().machine_readable {
                    t.push_str(&report::machine_readable(&st.stats));
                }
                t
            }
        };
        st.output.finish(&text).map_err(|e| stats_write_error(self.flags(), e))?;
        if self.flags().verbose & 0x400 != 0 {
            let _ = crate::gc::print_stats(&st.stats, &mut std::io::stderr());
        }
        Ok(st.stats.clone())
    }

    /// GCs so far (read by the mutator for Memprof).
    pub(crate) fn stats_gcs(&self) -> u64 {
        // SAFETY: read by the single mutator between GCs.
        unsafe { (*self.state.get()).stats.gcs }
    }

    /// Major GCs so far (read by the mutator to run alarms).
    pub(crate) fn major_gcs(&self) -> u64 {
        // SAFETY: read by the single mutator between GCs.
        unsafe { (*self.state.get()).stats.major_gcs }
    }

    /// A copy of the statistics so far.
    pub fn stats(&self) -> Stats {
        // SAFETY: read by the single mutator between GCs.
        unsafe { (*self.state.get()).stats.clone() }
    }

    /// Number of heap sanity checks run so far (`-DS`).
    pub fn sanity_checks(&self) -> u64 {
        self.sanity_state().checks
    }

    /// Of those, the checks of the whole heap (all of them under `-DS`;
    /// See Note [The minor sanity check] in `sanity`).
    pub fn sanity_whole_checks(&self) -> u64 {
        self.sanity_state().whole_checks
    }

    /// The time spent in heap sanity checks (counted as GC time), and of
    /// that in whole-heap checks.
    pub fn sanity_time(&self) -> (Duration, Duration) {
        (self.sanity_state().time, self.sanity_state().whole_time)
    }

    fn sanity_state(&self) -> &sanity::Checks {
        // SAFETY: as for `stats`.
        unsafe { &(*self.state.get()).sanity }
    }

    /// Run the sanity checker now, the world stopped (See
    /// `with_world_stopped`); returns the words of live objects it walked.
    pub fn check_heap_now(&self) -> Result<sanity::SanityReport, Vec<String>> {
        self.with_world_stopped(|_, _| self.check_heap())
    }

    /// Run the sanity checker (the caller has stopped the world).
    fn check_heap(&self) -> Result<sanity::SanityReport, Vec<String>> {
        let stable = self.stable_ptrs.lock();
        // SAFETY: the caller stopped the world.
        unsafe { sanity::check(self.heap_ref(), self.caps_ref(), &stable) }
    }

    /// Walk the heap between GCs: `f` sees the heap and every capability
    /// with the world stopped (other capabilities may be running) and every
    /// nursery block's fill level up to date.
    pub(crate) fn with_world_stopped<R>(&self, f: impl FnOnce(&Heap, &[Capability]) -> R) -> R {
        let _world = self.stop_the_world();
        // SAFETY: the world is stopped.
        for cap in unsafe { self.caps_mut() }.iter_mut() {
            cap.retire_current_block_keeping_position();
        }
        f(self.heap_ref(), self.caps_ref())
    }

    pub(crate) fn heap_ref(&self) -> &Heap {
        // SAFETY: Note [Who touches what]: read between GCs by the mutator.
        unsafe { &*self.heap.get() }
    }

    /// The heap, for changing it.
    ///
    /// # Safety
    /// Note [Who touches what]: the caller holds the world stopped (or the
    /// run has not started or has ended), and holds no other reference to
    /// the heap while the result lives.
    #[allow(clippy::mut_from_ref)]
    // SAFETY: the caller's contract above.
    pub(crate) unsafe fn heap_mut(&self) -> &mut Heap {
        // SAFETY: the caller's contract.
        unsafe { &mut *self.heap.get() }
    }

    pub(crate) fn cap_ptr(&self, no: usize) -> *mut Capability {
        self.caps[no].get()
    }

    fn caps_ref(&self) -> &[Capability] {
        // SAFETY: UnsafeCell<T> has T's layout; shared reads between GCs.
        unsafe { std::slice::from_raw_parts(self.caps.as_ptr() as *const Capability, self.caps.len()) }
    }

    /// Every capability, for changing them.
    ///
    /// # Safety
    /// As for `heap_mut`: the world is stopped (or the run is over) and no
    /// other reference to a capability is used while the result lives.
    #[allow(clippy::mut_from_ref)]
    // SAFETY: the caller's contract above.
    unsafe fn caps_mut(&self) -> &mut [Capability] {
        // SAFETY: UnsafeCell<T> has T's layout; exclusive per the caller's
        // contract.
        unsafe { std::slice::from_raw_parts_mut(self.caps.as_ptr() as *mut Capability, self.caps.len()) }
    }

    pub(crate) fn stable_ptrs(&self) -> crate::shim::MutexGuard<'_, StablePtrTable> {
        self.stable_ptrs.lock()
    }

    pub(crate) fn register_finalizer(&self, f: FinalizerKind) -> u64 {
        let id = self.next_finalizer_id.fetch_add(1, Ordering::Relaxed);
        self.finalizers.lock().insert(id, f);
        id
    }

    pub(crate) fn take_finalizer(&self, id: u64) -> Option<FinalizerKind> {
        self.finalizers.lock().remove(&id)
    }

    /// Register an alarm (run after every major GC); returns its id.
    pub(crate) fn add_alarm(&self, f: Alarm) -> u64 {
        let id = self.next_finalizer_id.fetch_add(1, Ordering::Relaxed);
        self.alarms.lock().push((id, Some(f)));
        id
    }

    /// Forget an alarm; a no-op for one already deleted.
    pub(crate) fn remove_alarm(&self, id: u64) {
        self.alarms.lock().retain(|(a, _)| *a != id);
    }

    /// Take alarm `index` out to run it (None past the end).
    pub(crate) fn take_alarm(&self, index: usize) -> Option<(u64, Option<Alarm>)> {
        let mut alarms = self.alarms.lock();
        alarms.get_mut(index).map(|(id, f)| (*id, f.take()))
    }

    /// Put a run alarm back, unless it was deleted while it ran.
    pub(crate) fn return_alarm(&self, id: u64, f: Alarm) {
        let mut alarms = self.alarms.lock();
        if let Some(slot) = alarms.iter_mut().find(|(a, _)| *a == id) {
            slot.1 = Some(f);
        }
    }

    /// Unwind with a heap-exhausted payload (See Note [Heap overflow unwinds]).
    pub(crate) fn exhausted(e: HeapExhausted) -> ! {
        std::panic::panic_any(HeapExhaustedUnwind(e))
    }

    /// The OS refused memory during a GC: end the run with
    /// `RunError::OutOfMemory` (the heap is not consistent afterwards, but
    /// nothing but the statistics is read after it).
    pub fn out_of_memory(e: OutOfMemory) -> ! {
        Rts::exhausted(HeapExhausted::OutOfMemory(e))
    }

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
                Err(f) => Rts::unwind_for(f),
            },
            GcReason::Forced | GcReason::Explicit => self.stop_the_world(),
        };
        self.collect_stopped(world, cap_no, reason, force_major, force_compact);
    }

    /// The GC proper, every mutator stopped; `leader` is the capability
    /// whose mutator asked for it (and runs it). The shape of GHC's
    /// `GarbageCollect`: account the allocation, plan, collect, resize,
    /// check, then tell the observers (See `observe`).
    fn collect_stopped(&self, world: WorldStopped<'_>, leader: usize, reason: GcReason, force_major: bool, force_compact: bool) {
        let start = Stamp::now();
        let faults_at_start = major_page_faults();
        // SAFETY: Note [Who touches what]: with every mutator stopped
        // (`world`), the GC holds all of it exclusively.
        let st = unsafe { &mut *self.state.get() };
        // SAFETY: as above.
        let allocated_words = unsafe { absorb_capability_allocation(self.heap_mut(), self.caps_mut(), &mut st.stats) };
        // A census is taken right after a major GC (See `profiling`).
        let census = self.census_due(st);
        let req = self.plan(st, reason, force_major || census, force_compact);
        let outcome = self.run_collector(&req, leader);
        self.take_collector_events(st);
        let req = GcRequest { collect_gen: outcome.collected_gen, ..req };
        let resized = self.after_collection(st, &req, &outcome);
        let gc_number = st.stats.gcs + 1;
        self.check_sanity(st, Some(req.collect_gen), || format!("GC {gc_number} (collector {}, generation {})", self.collector_name(), req.collect_gen));
        let end = Stamp::now();
        let mut record = self.gc_record(st, &req, &outcome, allocated_words, (&start, &end), faults_at_start);
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
        if let Some(log) = self.eventlog.lock().as_mut() {
            log.gc_end(&gc);
        }
        st.stats.gc_end(&gc);
        st.output.gc_end(&gc);
        if census {
            self.heap_census(st);
        }
        if let Err(e) = resized {
            world.fail(Failure::Exhausted(e));
            Rts::exhausted(e);
        }
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
        self.with_gc_context(leader, |collector, ctx| collector.collect(req, ctx))
    }

    /// Call `f` with the collector and the context of a GC led by
    /// capability `leader`. The caller has stopped the world.
    fn with_gc_context<R>(&self, leader: usize, f: impl FnOnce(&mut dyn Collector, &mut GcContext<'_>) -> R) -> R {
        let mut stable = self.stable_ptrs.lock();
        // SAFETY: the world is stopped (the caller holds `WorldStopped`),
        // and the context's borrows end with `f`.
        let (heap, caps) = unsafe { (self.heap_mut(), self.caps_mut()) };
        let mut ctx = GcContext { flags: self.flags(), heap, caps, stable_ptrs: &mut stable, leader, sync_request: &self.sync_request, help: &self.help };
        f(&mut **self.collector.lock(), &mut ctx)
    }

    /// Empty the nurseries, count the collection and resize as the policy
    /// says; an `Err` is a heap overflow, reported once the GC is
    /// recorded.
    fn after_collection(&self, st: &mut RunState, req: &GcRequest, outcome: &GcOutcome) -> Result<(), HeapExhausted> {
        // SAFETY: the world is stopped; the collector has returned.
        let heap = unsafe { self.heap_mut() };
        heap.reset_nurseries(self.caps.len());
        // SAFETY: as above.
        for (i, cap) in unsafe { self.caps_mut() }.iter_mut().enumerate() {
            cap.chunk = i;
            cap.next_block = 0;
        }
        heap.gens[req.collect_gen].collections += 1;
        policy::after_gc(heap, self.flags(), &mut st.policy, req, outcome.in_place, outcome.copied_words, self.caps.len())
    }

    /// `-DS`: the sanity checker, counted as GC time, after a GC of
    /// generations `0..=collected` (None: a collector's sync, which may
    /// have changed any of them); a violation fails the run, naming what
    /// it ran `after`.
    fn check_sanity(&self, st: &mut RunState, collected: Option<usize>, after: impl FnOnce() -> String) {
        let Some(scope) = st.sanity.next_scope(self.flags().sanity, collected, self.heap_ref().oldest()) else { return };
        let start = Instant::now();
        let stable = self.stable_ptrs.lock();
        // Only the minor mode compares with the blocks seen last time.
        let seen = matches!(self.flags().sanity, SanityMode::Minor { .. }).then_some(&mut st.sanity.seen);
        // SAFETY: the caller stopped the world.
        let mut checked = unsafe { sanity::check_scope(self.heap_ref(), self.caps_ref(), &stable, scope, seen) };
        drop(stable);
        // The collector's own invariants (a space's free lines), after the
        // heap's.
        let own = self.collector.lock().check_heap(self.heap_ref());
        if !own.is_empty() {
            checked = Err(checked.err().unwrap_or_default().into_iter().chain(own).collect());
        }
        st.sanity.took(scope, start.elapsed());
        if let Err(violations) = checked {
            let kind = if scope == sanity::Scope::Whole { "" } else { " (a minor check: See Note [The minor sanity check])" };
            panic!(
                "heap sanity check failed after {}{kind}: {} violation(s):\n  {}",
                after(),
                violations.len(),
                violations.iter().take(20).cloned().collect::<Vec<_>>().join("\n  ")
            );
        }
    }

    /// The statistics record of a GC that ran from `times.0` to `times.1`.
    fn gc_record(&self, st: &mut RunState, req: &GcRequest, outcome: &GcOutcome, allocated_words: u64, times: (&Stamp, &Stamp), faults_at_start: u64) -> GcRecord {
        let heap = self.heap_ref();
        let (gc_cpu, gc_elapsed) = times.1.since(times.0);
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
            hole_bytes: heap.hole_bytes() as u64,
            region: outcome.region,
            sync_wait: 0.0,
        }
    }
}

/// Mutator seconds so far: elapsed less INIT, GC and profiling.
fn mutator_seconds(st: &RunState) -> f64 {
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

/// Open the eventlog `-l`/`-v` ask for and post the run's preamble: the
/// capability sets and capabilities, the process, the program and the heap
/// parameters.
/// Where `-l` writes the eventlog (`-ol<file>`, else `<program>.eventlog`).
fn eventlog_path(flags: &RtsFlags) -> Option<std::path::PathBuf> {
    let program = flags.program.first().cloned().unwrap_or_else(|| "gclab".into());
    flags.eventlog.then(|| flags.eventlog_path.clone().unwrap_or_else(|| format!("{program}.eventlog").into()))
}

/// A failure to write the eventlog (or `-v`'s trace), naming where.
fn eventlog_write_error(flags: &RtsFlags, e: std::io::Error) -> RunError {
    match eventlog_path(flags) {
        Some(path) => RunError::Write(format!("cannot write the eventlog {}: {e}", path.display())),
        None => RunError::Write(format!("cannot write the event trace (-v) to standard output: {e}")),
    }
}

/// A failure to write the statistics (`-s`, `-S`, `-t`), naming where.
fn stats_write_error(flags: &RtsFlags, e: std::io::Error) -> RunError {
    match &flags.stats_target {
        StatsTarget::File(path) => RunError::Write(format!("cannot write the statistics file {}: {e}", path.display())),
        StatsTarget::Stderr => RunError::Write(format!("cannot write the statistics to standard error: {e}")),
    }
}

fn open_eventlog(flags: &RtsFlags, start: Instant, collector: &str) -> std::io::Result<Option<EventLog>> {
    if !flags.eventlog && flags.trace_text.is_none() {
        return Ok(None);
    }
    let path = eventlog_path(flags);
    let classes = ev::Classes { gc: flags.trace_gc, scheduler: flags.trace_scheduler };
    let mut log = EventLog::create(path.as_deref(), flags.trace_text, flags.capabilities, classes, start)?;
    let now = Instant::now();
    if classes.scheduler {
        log.post(None, now, ev::id::CAPSET_CREATE, Payload::new().u32(0).u16(ev::CAPSET_OSPROCESS));
        log.post(None, now, ev::id::CAPSET_CREATE, Payload::new().u32(1).u16(ev::CAPSET_CLOCKDOMAIN));
        for c in 0..flags.capabilities {
            log.post(None, now, ev::id::CAP_CREATE, Payload::new().u16(c as u16));
            log.post(None, now, ev::id::CAPSET_ASSIGN_CAP, Payload::new().u32(0).u16(c as u16));
            log.post(None, now, ev::id::CAPSET_ASSIGN_CAP, Payload::new().u32(1).u16(c as u16));
        }
        let wall = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        log.post(None, now, ev::id::WALL_CLOCK_TIME, Payload::new().u32(1).u64(wall.as_secs()).u32(wall.subsec_nanos()));
        log.post(None, now, ev::id::OSPROCESS_PID, Payload::new().u32(0).u32(std::process::id()));
        // SAFETY: getppid has no preconditions.
        let ppid = unsafe { libc::getppid() } as u32;
        log.post(None, now, ev::id::OSPROCESS_PPID, Payload::new().u32(0).u32(ppid));
        let ident = format!("gclab-{} {collector}", env!("CARGO_PKG_VERSION"));
        log.post(None, now, ev::id::RTS_IDENTIFIER, Payload::new().u32(0).bytes(ident.as_bytes()));
        let mut args = Vec::new();
        for a in &flags.program {
            args.extend_from_slice(a.as_bytes());
            args.push(0);
        }
        log.post(None, now, ev::id::PROGRAM_ARGS, Payload::new().u32(0).bytes(&args));
        // Each capability's mutator appears as one thread, running between
        // GCs, so that ThreadScope shows mutator activity.
        for c in 0..flags.capabilities {
            log.post(Some(c), now, ev::id::CREATE_THREAD, Payload::new().u32(c as u32 + 1));
            log.post(Some(c), now, ev::id::RUN_THREAD, Payload::new().u32(c as u32 + 1));
        }
    }
    if classes.gc {
        let info = ev::HeapInfoGhc {
            heap_capset: 0,
            generations: flags.generations as u16,
            max_heap_size: (flags.max_heap_blocks * BLOCK_SIZE) as u64,
            alloc_area_size: (flags.alloc_area_blocks * BLOCK_SIZE) as u64,
            mblock_size: MBLOCK_SIZE as u64,
            block_size: BLOCK_SIZE as u64,
        };
        log.post(None, now, ev::id::HEAP_INFO_GHC, info.encode());
    }
    Ok(Some(log))
}

fn open_stats_target(flags: &RtsFlags) -> Result<Option<Box<dyn Write + Send>>, RunError> {
    if flags.stats == StatsLevel::None {
        return Ok(None);
    }
    Ok(Some(match &flags.stats_target {
        StatsTarget::Stderr => Box::new(std::io::stderr()),
        StatsTarget::File(path) => Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| stats_write_error(flags, e))?)),
    }))
}

/// Let a write to a closed pipe end the process quietly, as C tools do
/// (`gclab ... | head`), instead of panicking in `println!`.
pub fn quiet_broken_pipes() {
    // SAFETY: restoring the default disposition of SIGPIPE at start-up,
    // before any thread is spawned, has no other effect on the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Keep heap-overflow unwinds out of the panic output (Note [Heap overflow unwinds]).
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = info.payload().downcast_ref::<HeapExhaustedUnwind>().is_some() || info.payload().downcast_ref::<WorldFailed>().is_some();
            if !quiet {
                previous(info);
            }
        }));
    });
}
