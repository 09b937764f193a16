//! A run, assembled: the runtime, the mutators' shared hooks, and the
//! observers the flags ask for, from `Rts::new` to `Rts::finish`.
//!
//! This is the top of core. `Rts::new` opens the outputs the flags name
//! (the `-s/-S/-t` statistics, the `-l`/`-v` eventlog) and the sanity
//! checker (`-DS`, `--sanity=`), and hands them to a `runtime::Runtime` as
//! observers; `Rts::run` runs a program on capability 0 (`mutator::run`);
//! `Rts::finish` closes the run and returns its statistics. Nothing below
//! this module knows which observers a run has.

use crate::collector::Collector;
use crate::flags::RtsFlags;
use crate::lock::Lock;
use crate::mutator::{GcHooks, Mutator};
use crate::observe::GcObserver;
use crate::profiling::HeapProfiler;
use crate::runtime::{RunError, Runtime};
use crate::sanity::{Checks, SanityChecker};
use crate::process_usage::Stamp;
use crate::stats::Stats;
use crate::stats_output::StatsOutput;
use std::sync::Arc;
use std::time::Duration;

/// A runtime instance: one heap, its capabilities and its collector, with
/// the outputs and checks its flags ask for.
pub struct Rts {
    runtime: Runtime,
    hooks: GcHooks,
    /// The sanity checker's counts (See `sanity::observer`).
    sanity: Arc<Lock<Checks>>,
}

impl Rts {
    /// A runtime with `flags`, collecting with `collector`.
    pub fn new(flags: RtsFlags, collector: Box<dyn Collector>) -> Result<Rts, RunError> {
        let start = Stamp::now();
        let mut observers: Vec<Box<dyn GcObserver>> = Vec::new();
        if let Some(log) = crate::eventlog::RunEventLog::open(&flags, start.wall, collector.name()).map_err(RunError::Write)? {
            observers.push(Box::new(log));
        }
        observers.push(Box::new(StatsOutput::open(&flags).map_err(RunError::Write)?));
        let checker = SanityChecker::new(flags.sanity);
        let sanity = checker.checks();
        observers.push(Box::new(checker));
        let runtime = Runtime::new(flags, collector, observers, start)?;
        Ok(Rts { runtime, hooks: GcHooks::default(), sanity })
    }

    /// The runtime the program runs on.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The run's flags.
    pub fn flags(&self) -> &RtsFlags {
        self.runtime.flags()
    }

    /// Install a heap profiler: it samples after GCs (See `profiling`).
    pub fn set_heap_profiler(&self, p: Box<dyn HeapProfiler>) {
        self.runtime.set_heap_profiler(p);
    }

    /// Can the collector compact the oldest generation in place?
    pub fn can_compact(&self) -> bool {
        self.runtime.can_compact()
    }

    /// The collector's name.
    pub fn collector_name(&self) -> &'static str {
        self.runtime.collector_name()
    }

    /// Run `program` as the mutator of capability 0 (it may spread work
    /// over the other capabilities with `Mutator::par_map`). A heap
    /// overflow ends it with `Err` (See Note [Heap overflow unwinds] in
    /// `runtime`); any other panic propagates.
    pub fn run<R>(&self, program: impl FnOnce(&mut Mutator<'_>) -> R) -> Result<R, RunError> {
        crate::mutator::run(&self.runtime, &self.hooks, program)
    }

    /// Close the run: account the last allocation, fill in the totals and
    /// print the reports `-s/-S/-t` asked for (and OCaml's `print_stat`
    /// under its verbose bit 0x400). Returns the statistics.
    pub fn finish(&self) -> Result<Stats, RunError> {
        let stats = self.runtime.finish()?;
        if self.flags().verbose & 0x400 != 0 {
            let _ = crate::gc::print_stats(&stats, &mut std::io::stderr());
        }
        Ok(stats)
    }

    /// A copy of the statistics so far.
    pub fn stats(&self) -> Stats {
        self.runtime.stats()
    }

    /// Number of heap sanity checks run so far (`-DS`).
    pub fn sanity_checks(&self) -> u64 {
        self.sanity.lock().checks
    }

    /// Of those, the checks of the whole heap (all of them under `-DS`;
    /// See Note [The minor sanity check] in `sanity`).
    pub fn sanity_whole_checks(&self) -> u64 {
        self.sanity.lock().whole_checks
    }

    /// The time spent in heap sanity checks (counted as GC time), and of
    /// that in whole-heap checks.
    pub fn sanity_time(&self) -> (Duration, Duration) {
        let checks = self.sanity.lock();
        (checks.time, checks.whole_time)
    }
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
