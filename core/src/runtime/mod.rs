//! The runtime: one heap, its capabilities, a collector, and the GC
//! driver, shared by every mutator of a run.
//!
//! `Runtime` owns what a run's mutators and GCs share, and is the only
//! place that turns that shared state into exclusive access for a GC (See
//! Note [Who touches what]). It is split by concern: this module holds the
//! state and its accessors; `handshake` the stop-the-world protocol as the
//! mutators see it (safe points, stopping the world, failures and the
//! unwinding they cause); `driver` the GC itself (plan, collect, resize,
//! record, tell the observers); `collector_sync` the syncs a concurrent
//! collector asks for; `census` heap profiling after GCs; `lifetime` the
//! end of a run. What learns of GCs (the `-S` table, the eventlog, the
//! sanity checker) is plugged in as `observe::GcObserver`s by whoever
//! builds the runtime (core's `rts`), so nothing here names them.
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

mod census;
mod collector_sync;
mod driver;
mod error;
mod handshake;
mod lifetime;

pub use error::{RunError, EXIT_OUTPUT_UNWRITABLE};
pub use handshake::{out_of_memory, run_error, WorldFailed};
pub(crate) use handshake::{exhausted, install_quiet_hook, unwind_failure};

use crate::capability::Capability;
use crate::collector::{Collector, SyncRequest};
use crate::flags::RtsFlags;
use crate::gc_help::HelpBoard;
use crate::heap::Heap;
use crate::lock::Lock;
use crate::mblock::OutOfMemory;
use crate::observe::GcObserver;
use crate::policy::PolicyState;
use crate::profiling::{CostCentres, HeapProfiler};
use crate::stable_ptr::{StablePtr, StablePtrTable};
use crate::process_usage::{major_page_faults, Stamp};
use crate::stats::Stats;
use crate::sync::WorldSync;
use std::cell::UnsafeCell;
use std::sync::Arc;

/// Mutable run state that only the GC (or the single mutator between GCs) touches.
struct RunState {
    stats: Stats,
    policy: PolicyState,
    start: Stamp,
    faults_at_last_gc: u64,
}

/// A runtime instance: one heap, its capabilities and its collector.
pub struct Runtime {
    /// Declared first, so dropped first: a collector's own threads (a
    /// concurrent sweeper) may write the heap until the collector is
    /// dropped and joins them.
    collector: Lock<Box<dyn Collector>>,
    flags: UnsafeCell<RtsFlags>,
    heap: UnsafeCell<Heap>,
    caps: Box<[UnsafeCell<Capability>]>,
    /// Read without a lock by any capability, written by the GC with the
    /// world stopped (See Note [Reading stable pointers without a lock]).
    stable_ptrs: UnsafeCell<StablePtrTable>,
    state: UnsafeCell<RunState>,
    /// Told of every GC, sync and heap sample, in order (See `observe`).
    observers: Lock<Vec<Box<dyn GcObserver>>>,
    profiler: Lock<Option<Box<dyn HeapProfiler>>>,
    cost_centres: Lock<CostCentres>,
    heap_roots: Lock<Vec<(String, StablePtr)>>,
    sync: WorldSync,
    sync_request: SyncRequest,
    /// Where a parallel collector posts work for the mutator threads
    /// stopped for its GC (See Note [Stopped mutators help the GC] in
    /// `gc_help`).
    help: Arc<HelpBoard>,
    /// The collector's hooks on the mutators' loads and stores (See Note
    /// [Access hooks] in `access_hooks`), which each mutator copies...
    pub(crate) access: crate::access_hooks::Installed,
    /// ...pointing into this, which the runtime holds for its life.
    _access_hooks: crate::access_hooks::AccessHooks,
}

// SAFETY: shared access follows Note [Who touches what]: capabilities are
// per-thread between GCs, the heap and run state are touched by the GC
// holder only, and the rest is behind locks.
unsafe impl Sync for Runtime {}

impl Runtime {
    /// A runtime with `flags`, collecting with `collector`, whose GCs
    /// `observers` learn of; `start` is the run's time zero.
    pub fn new(flags: RtsFlags, collector: Box<dyn Collector>, observers: Vec<Box<dyn GcObserver>>, start: Stamp) -> Result<Runtime, RunError> {
        let caps = flags.capabilities;
        let heap = Heap::new(&flags, caps).map_err(|e: OutOfMemory| RunError::OutOfMemory { bytes: e.bytes })?;
        let mut stats = Stats::new(flags.generations, caps);
        stats.concurrent_collector = flags.nonmoving || collector.is_concurrent();
        let (init_cpu, init_elapsed) = Stamp::now().since(&start);
        stats.init_cpu = init_cpu;
        stats.init_elapsed = init_elapsed;
        let generations = flags.generations;
        let layout = heap.layout;
        let access_hooks = collector.access_hooks();
        // SAFETY: the runtime holds `access_hooks` for its life, and every
        // mutator, the only holder of a copy, borrows the runtime.
        let access = unsafe { crate::access_hooks::Installed::new(&access_hooks) };
        Ok(Runtime {
            observers: Lock::new(observers),
            profiler: Lock::new(None),
            cost_centres: Lock::new(CostCentres::default()),
            heap_roots: Lock::new(Vec::new()),
            heap: UnsafeCell::new(heap),
            caps: (0..caps).map(|i| UnsafeCell::new(Capability::new(i, generations, flags.count_objects.then_some(layout)))).collect(),
            stable_ptrs: UnsafeCell::new(StablePtrTable::new()),
            collector: Lock::new(collector),
            state: UnsafeCell::new(RunState { stats, policy: PolicyState::new(&flags), start, faults_at_last_gc: major_page_faults() }),
            sync: WorldSync::default(),
            sync_request: SyncRequest::default(),
            help: Arc::new(HelpBoard::default()),
            flags: UnsafeCell::new(flags),
            access,
            _access_hooks: access_hooks,
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

    /// Can the collector compact the oldest generation in place?
    pub fn can_compact(&self) -> bool {
        self.collector.lock().can_compact()
    }

    /// The collector's name.
    pub fn collector_name(&self) -> &'static str {
        self.collector.lock().name()
    }

    /// The number of a cost centre, made on first use (profiling).
    pub(crate) fn cost_centre_id(&self, name: &str) -> u32 {
        self.cost_centres.lock().id(name)
    }

    /// Name the objects root profiling measures; returns the ones named before.
    pub(crate) fn replace_heap_roots(&self, roots: Vec<(String, StablePtr)>) -> Vec<(String, StablePtr)> {
        std::mem::replace(&mut *self.heap_roots.lock(), roots)
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

    /// GCs so far, and of them the major ones, without copying the
    /// statistics (`stats` copies every GC's record).
    pub(crate) fn collections(&self) -> (u64, u64) {
        // SAFETY: read by the single mutator between GCs.
        let stats = unsafe { &(*self.state.get()).stats };
        (stats.gcs, stats.major_gcs)
    }

    /// A copy of the statistics so far.
    pub fn stats(&self) -> Stats {
        // SAFETY: read by the single mutator between GCs.
        unsafe { (*self.state.get()).stats.clone() }
    }

    /// The heap, to read between GCs.
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

    /// Capability `no`, for its mutator (See Note [Who touches what]).
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

    /// The global roots, to make, read and free stable pointers with.
    pub(crate) fn stable_ptrs(&self) -> &StablePtrTable {
        // SAFETY: the table's shared calls synchronise among themselves;
        // the one exclusive borrow (`stable_ptrs_mut`) is taken with the
        // world stopped, when no thread is inside one of them.
        unsafe { &*self.stable_ptrs.get() }
    }

    /// The global roots, for a GC to update.
    ///
    /// # Safety
    /// As for `heap_mut`: the world is stopped, and no other reference to
    /// the table is used while the result lives.
    #[allow(clippy::mut_from_ref)]
    // SAFETY: the caller's contract above.
    pub(crate) unsafe fn stable_ptrs_mut(&self) -> &mut StablePtrTable {
        // SAFETY: exclusive per the caller's contract.
        unsafe { &mut *self.stable_ptrs.get() }
    }

    /// Tell every observer something, in order.
    fn tell_observers(&self, mut f: impl FnMut(&mut dyn GcObserver)) {
        for o in self.observers.lock().iter_mut() {
            f(o.as_mut());
        }
    }
}
