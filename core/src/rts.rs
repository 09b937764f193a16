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
use crate::collector::{Collector, GcContext, GcReason, GcRequest};
use crate::constants::{BLOCK_SIZE, BLOCKS_PER_MBLOCK, MBLOCK_SIZE, WORD_SIZE};
use crate::eventlog::{self as ev, EventLog, Payload};
use crate::flags::{RtsFlags, StatsLevel, StatsTarget};
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
use crate::sync::{Failure, WorldStopped, WorldSync};
use std::sync::atomic::{AtomicU64, Ordering};
use crate::lock::Lock;
use std::sync::Once;
use std::time::Instant;

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
    /// The statistics file could not be written.
    Io(std::io::Error),
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
            RunError::Io(e) => write!(f, "cannot write statistics: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

impl RunError {
    /// The process exit code GHC uses for this failure (251 for heap overflow).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::HeapOverflow { .. } => 251,
            RunError::OutOfMemory { .. } => 251,
            RunError::Io(_) => 1,
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
    sanity_checks: u64,
    stats_out: Option<Box<dyn Write + Send>>,
}

/// A runtime instance: one heap, its capabilities and its collector.
pub struct Rts {
    flags: UnsafeCell<RtsFlags>,
    heap: UnsafeCell<Heap>,
    caps: Box<[UnsafeCell<Capability>]>,
    stable_ptrs: Lock<StablePtrTable>,
    finalizers: Lock<HashMap<u64, FinalizerKind>>,
    alarms: Lock<Vec<(u64, Option<Alarm>)>>,
    collector: Lock<Box<dyn Collector>>,
    state: UnsafeCell<RunState>,
    eventlog: Lock<Option<EventLog>>,
    profiler: Lock<Option<Box<dyn HeapProfiler>>>,
    cost_centres: Lock<CostCentres>,
    heap_roots: Lock<Vec<(String, StablePtr)>>,
    defined_cost_centres: Lock<Vec<usize>>,
    sync: WorldSync,
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
        let mut stats_out = open_stats_target(&flags)?;
        if flags.stats == StatsLevel::Verbose {
            if let Some(out) = stats_out.as_mut() {
                out.write_all(report::gc_table_header().as_bytes()).map_err(RunError::Io)?;
            }
        }
        let mut stats = Stats::new(flags.generations, caps);
        let (init_cpu, init_elapsed) = Stamp::now().since(&start);
        stats.init_cpu = init_cpu;
        stats.init_elapsed = init_elapsed;
        let generations = flags.generations;
        let eventlog = open_eventlog(&flags, start.wall, collector.name()).map_err(RunError::Io)?;
        Ok(Rts {
            eventlog: Lock::new(eventlog),
            profiler: Lock::new(None),
            cost_centres: Lock::new(CostCentres::default()),
            heap_roots: Lock::new(Vec::new()),
            defined_cost_centres: Lock::new(Vec::new()),
            heap: UnsafeCell::new(heap),
            caps: (0..caps).map(|i| UnsafeCell::new(Capability::new(i, generations))).collect(),
            stable_ptrs: Lock::new(StablePtrTable::new()),
            finalizers: Lock::new(HashMap::new()),
            alarms: Lock::new(Vec::new()),
            collector: Lock::new(collector),
            state: UnsafeCell::new(RunState {
                stats,
                policy: PolicyState::default(),
                start,
                faults_at_last_gc: major_page_faults(),
                sanity_checks: 0,
                stats_out,
            }),
            sync: WorldSync::default(),
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

    /// A safe point: stop here if another capability wants a GC.
    #[inline(always)]
    pub(crate) fn safe_point(&self) {
        if self.sync.gc_pending() {
            self.stop_for_gc();
        }
    }

    #[cold]
    fn stop_for_gc(&self) {
        if let Err(f) = self.sync.safe_point() {
            Rts::unwind_for(f);
        }
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
            match self.sync.stop_the_world() {
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
            p.finish(exit_start.since(&st.start).1);
        }
        // SAFETY: the mutators have returned: the run is over.
        let caps = unsafe { self.caps_mut() };
        for (i, cap) in caps.iter_mut().enumerate() {
            let words = cap.take_allocation();
            st.stats.cap_allocated_bytes[i] += words * WORD_SIZE as u64;
            st.stats.allocated_bytes += words * WORD_SIZE as u64;
        }
        self.note_memory_in_use(st);
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
            log.finish().map_err(RunError::Io)?;
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
        if let Some(out) = st.stats_out.as_mut() {
            out.write_all(text.as_bytes()).map_err(RunError::Io)?;
            out.flush().map_err(RunError::Io)?;
        }
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
        // SAFETY: as for `stats`.
        unsafe { (*self.state.get()).sanity_checks }
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
    unsafe fn caps_mut(&self) -> &mut [Capability] {
        // SAFETY: UnsafeCell<T> has T's layout; exclusive per the caller's
        // contract.
        unsafe { std::slice::from_raw_parts_mut(self.caps.as_ptr() as *mut Capability, self.caps.len()) }
    }

    pub(crate) fn stable_ptrs(&self) -> std::sync::MutexGuard<'_, StablePtrTable> {
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
    /// whose mutator asked for it (and runs it).
    fn collect_stopped(&self, world: WorldStopped<'_>, leader: usize, reason: GcReason, force_major: bool, force_compact: bool) {
        let gc_start = Stamp::now();
        let faults_at_start = major_page_faults();
        // SAFETY: Note [Who touches what]: with every mutator stopped
        // (`world`), the GC holds all of it exclusively.
        let st = unsafe { &mut *self.state.get() };
        // SAFETY: as above.
        let heap = unsafe { self.heap_mut() };
        // SAFETY: as above.
        let caps = unsafe { self.caps_mut() };
        let allocated_words = absorb_capability_allocation(heap, caps, &mut st.stats);
        // A census is taken right after a major GC (See `profiling`).
        let census = self.census_due(st);
        let force_major = force_major || census;

        let mut req = policy::plan_collection(heap, self.flags(), &st.policy, reason, force_major);
        if force_compact && heap.gens.len() > 1 {
            req.compact_oldest = true;
        }
        let outcome = {
            let mut stable = self.stable_ptrs.lock();
            let mut ctx = GcContext { flags: self.flags(), heap, caps, stable_ptrs: &mut stable, leader };
            self.collector.lock().collect(&req, &mut ctx)
        };
        let req = GcRequest { collect_gen: outcome.collected_gen, ..req };
        // SAFETY: as above; the collector has returned its borrows.
        let heap = unsafe { self.heap_mut() };
        heap.reset_nurseries(self.caps.len());
        // SAFETY: as above.
        for (i, cap) in unsafe { self.caps_mut() }.iter_mut().enumerate() {
            cap.chunk = i;
            cap.next_block = 0;
        }
        let major = req.is_major(heap);
        heap.gens[req.collect_gen].collections += 1;
        let resized = policy::after_gc(heap, self.flags(), &mut st.policy, &req, outcome.in_place, outcome.copied_words, self.caps.len());

        if self.flags().sanity {
            st.sanity_checks += 1;
            if let Err(violations) = self.check_heap() {
                panic!(
                    "heap sanity check failed after GC {} (collector {}, generation {}): {} violation(s):\n  {}",
                    st.stats.gcs + 1,
                    self.collector_name(),
                    req.collect_gen,
                    violations.len(),
                    violations.iter().take(20).cloned().collect::<Vec<_>>().join("\n  ")
                );
            }
        }
        let end = Stamp::now();
        let (gc_cpu, gc_elapsed) = end.since(&gc_start);
        let (total_cpu, total_elapsed) = end.since(&st.start);
        let faults = major_page_faults();
        let record = GcRecord {
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
            mut_faults: faults_at_start.saturating_sub(st.faults_at_last_gc),
            thread_copied_bytes: outcome.threads.iter().map(|t| (t.copied_words * WORD_SIZE) as u64).collect(),
            compacted: outcome.compacted,
            marked_bytes: (outcome.marked_words * WORD_SIZE) as u64,
            swept_bytes: (outcome.swept_words * WORD_SIZE) as u64,
            hole_bytes: heap.hole_bytes() as u64,
        };
        st.faults_at_last_gc = faults;
        self.post_gc_events(&req, &outcome, &record, gc_start.wall, end.wall);
        st.stats.max_large_objects_bytes = st.stats.max_large_objects_bytes.max((heap.large_object_words() * WORD_SIZE) as u64);
        st.stats.gc_threads = st.stats.gc_threads.max(outcome.threads.len());
        self.note_memory_in_use(st);
        if self.flags().stats == StatsLevel::Verbose {
            if let Some(out) = st.stats_out.as_mut() {
                let _ = out.write_all(report::gc_table_line(&record).as_bytes());
            }
        }
        st.stats.promoted_words += outcome.threads.iter().map(|t| t.promoted_words as u64).sum::<u64>();
        if reason == GcReason::Explicit && force_major {
            st.stats.forced_major_collections += 1;
        }
        self.verbose_gc_message(&req, major, outcome.compacted);
        st.stats.record_gc(record, major, outcome.parallel());

        if census {
            self.heap_census(st);
        }
        if let Err(e) = resized {
            world.fail(Failure::Exhausted(e));
            Rts::exhausted(e);
        }
        drop(world);
    }

    /// The events of one GC, as seed 002 settles their order. They go in
    /// capability 0's buffer whichever capability led the GC (the leader
    /// is not recorded; GC thread t's GC_WORK/IDLE/DONE go in capability
    /// t mod -N's): GC_START and GC_END carry the
    /// statistics' own timestamps, GC_GLOBAL_SYNC and GC_STATS_GHC come
    /// between them.
    fn post_gc_events(&self, req: &GcRequest, outcome: &crate::collector::GcOutcome, record: &GcRecord, start: Instant, end: Instant) {
        let mut guard = self.eventlog.lock();
        let Some(log) = guard.as_mut() else { return };
        if !log.classes().gc {
            return;
        }
        let parallel = outcome.parallel();
        let caps = self.caps.len();
        let threads_shown = log.classes().scheduler;
        if threads_shown {
            for c in 0..caps {
                log.post(Some(c), start, ev::id::STOP_THREAD, Payload::new().u32(c as u32 + 1).u16(ev::STOP_HEAP_OVERFLOW).u32(0));
            }
        }
        let request = if parallel { ev::id::REQUEST_PAR_GC } else { ev::id::REQUEST_SEQ_GC };
        log.post(Some(0), start, request, Payload::new());
        log.post(Some(0), start, ev::id::GC_START, Payload::new());
        log.post(Some(0), start, ev::id::GC_GLOBAL_SYNC, Payload::new());
        for t in 0..outcome.threads.len().max(1) {
            log.post(Some(t % caps), start, ev::id::GC_WORK, Payload::new());
            log.post(Some(t % caps), end, ev::id::GC_IDLE, Payload::new());
            log.post(Some(t % caps), end, ev::id::GC_DONE, Payload::new());
        }
        for (c, cap) in self.caps_ref().iter().enumerate() {
            log.post(Some(c), end, ev::id::HEAP_ALLOCATED, Payload::new().u32(0).u64(cap.total_allocated_words * WORD_SIZE as u64));
        }
        let per_thread = &record.thread_copied_bytes;
        let max_copied = if parallel { per_thread.iter().copied().max().unwrap_or(0) } else { 0 };
        let balanced = if parallel { crate::stats::balanced_copied(per_thread) } else { 0 };
        let heap = self.heap_ref();
        let (mapped, free_blocks) = {
            let b = heap.blocks.lock();
            (b.mblocks().mapped(), b.free_blocks() + b.mblocks().free_count() * BLOCKS_PER_MBLOCK)
        };
        log.post(
            Some(0),
            end,
            ev::id::GC_STATS_GHC,
            Payload::new()
                .u32(0)
                .u16(req.collect_gen as u16)
                .u64(record.copied_bytes)
                .u64(record.slop_bytes)
                .u64((free_blocks * BLOCK_SIZE) as u64)
                .u32(outcome.threads.len().max(1) as u32)
                .u64(max_copied)
                .u64(record.copied_bytes)
                .u64(balanced),
        );
        log.post(Some(0), end, ev::id::HEAP_SIZE, Payload::new().u32(0).u64((mapped * MBLOCK_SIZE) as u64));
        if req.collect_gen == heap.oldest() {
            // Live data is known at major GCs only, as in GHC.
            log.post(Some(0), end, ev::id::HEAP_LIVE, Payload::new().u32(0).u64(record.live_bytes));
        }
        log.post(Some(0), end, ev::id::GC_END, Payload::new());
        if threads_shown {
            for c in 0..caps {
                log.post(Some(c), end, ev::id::RUN_THREAD, Payload::new().u32(c as u32 + 1));
            }
        }
    }

    /// OCaml's verbose bits 0x001 (major cycles), 0x002 (minor
    /// collections) and 0x004 (heap growth and shrinkage), on stderr.
    fn verbose_gc_message(&self, req: &GcRequest, major: bool, compacted: bool) {
        let verbose = self.flags().verbose;
        if verbose & 0x001 != 0 && major {
            eprintln!("gclab: major GC cycle (generations 0..={}){}", req.collect_gen, if compacted { ", compacted" } else { "" });
        }
        if verbose & 0x002 != 0 && !major {
            eprintln!("gclab: minor collection (generations 0..={})", req.collect_gen);
        }
        if verbose & 0x004 != 0 {
            let blocks = self.heap_ref().blocks.lock();
            eprintln!("gclab: heap: {} megablocks mapped, {} returned to the OS so far", blocks.mblocks().mapped(), blocks.mblocks().returned());
        }
    }

    fn note_memory_in_use(&self, st: &mut RunState) {
        let heap = self.heap_ref();
        let blocks = heap.blocks.lock();
        let peak_mblocks = blocks.mblocks().peak();
        st.stats.max_mem_in_use_bytes = (peak_mblocks * MBLOCK_SIZE) as u64;
        st.stats.mblocks_returned = blocks.mblocks().returned() as u64;
        let capacity = peak_mblocks * BLOCKS_PER_MBLOCK * BLOCK_SIZE;
        let used = blocks.peak_used_blocks() * BLOCK_SIZE;
        st.stats.fragmentation_bytes = capacity.saturating_sub(used) as u64 / 1024 / 1024 * 1024 * 1024;
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
        let words = cap.take_allocation();
        stats.cap_allocated_bytes[i] += words * WORD_SIZE as u64;
        total += words;
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
fn open_eventlog(flags: &RtsFlags, start: Instant, collector: &str) -> std::io::Result<Option<EventLog>> {
    if !flags.eventlog && flags.trace_text.is_none() {
        return Ok(None);
    }
    let program = flags.program.first().cloned().unwrap_or_else(|| "gclab".into());
    let path = flags.eventlog.then(|| flags.eventlog_path.clone().unwrap_or_else(|| format!("{program}.eventlog").into()));
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
        log.post(
            None,
            now,
            ev::id::HEAP_INFO_GHC,
            Payload::new()
                .u32(0)
                .u16(flags.generations as u16)
                .u64((flags.max_heap_blocks * BLOCK_SIZE) as u64)
                .u64((flags.alloc_area_blocks * BLOCK_SIZE) as u64)
                .u64(MBLOCK_SIZE as u64)
                .u64(BLOCK_SIZE as u64),
        );
    }
    Ok(Some(log))
}

fn open_stats_target(flags: &RtsFlags) -> Result<Option<Box<dyn Write + Send>>, RunError> {
    if flags.stats == StatsLevel::None {
        return Ok(None);
    }
    Ok(Some(match &flags.stats_target {
        StatsTarget::Stderr => Box::new(std::io::stderr()),
        StatsTarget::File(path) => Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(RunError::Io)?)),
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
