//! Observing the runtime: how the `-S` table and verbose messages, the
//! eventlog, the sanity checker and the `-s` report learn what each GC,
//! each collector's sync and each heap sample did.
//!
//! The runtime (`runtime`) collects, resizes, times and records a
//! collection, and tells every observer through this interface, in the
//! order they were installed; it names none of them. Whoever builds a
//! runtime (core's `rts`) chooses the observers from the flags. An
//! observer reads what it is shown and updates what it owns; a new kind of
//! output or check is one more observer, not another branch in the driver.
//! The statistics themselves (`stats::Stats`) are the runtime's own
//! record, which the mutator and the `Gc` API read, so they are kept by
//! the runtime and shown to observers rather than being one of them.

use crate::capability::Capability;
use crate::collector::{Collector, CollectorEvent, GcOutcome, GcRequest};
use crate::heap::Heap;
use crate::stable_ptr::StablePtrTable;
use crate::stats::{GcRecord, Stats};
use std::time::Instant;

/// The heap right after a collector ran, inside the GC's time: what the
/// sanity checker reads (See `sanity::observer`).
pub struct Collected<'a> {
    /// The heap.
    pub heap: &'a Heap,
    /// Every capability.
    pub caps: &'a [Capability],
    /// The global roots.
    pub stable_ptrs: &'a StablePtrTable,
    /// The collector, for the invariants of its own spaces.
    pub collector: &'a dyn Collector,
    /// A GC of generations `0..=g`, or None for a collector's sync, which
    /// may have changed any generation.
    pub collected: Option<usize>,
    /// What ran, in words, for a message ("GC 12 (collector copying,
    /// generation 1)").
    pub what: &'a dyn Fn() -> String,
}

/// What observers see of one finished GC.
pub struct GcEnd<'a> {
    /// What was collected (`collect_gen` is what the collector did).
    pub req: &'a GcRequest,
    /// What the collector said it did.
    pub outcome: &'a GcOutcome,
    /// The GC's statistics record (the `-S` line, the JSON record entry).
    pub record: &'a GcRecord,
    /// Was the oldest generation collected?
    pub major: bool,
    /// Did the program ask for this major GC (`Gc.full_major` and kin)?
    pub forced_major: bool,
    /// When the GC started and ended (the record's own clock).
    pub start: Instant,
    /// See `start`.
    pub end: Instant,
    /// The heap after the GC.
    pub heap: &'a Heap,
    /// Every capability after the GC.
    pub caps: &'a [Capability],
    /// OCaml's verbose bits in force (See `gc::Control::verbose`).
    pub verbose: u32,
}

/// One heap profile sample (taken after a major GC; See `profiling`).
pub struct HeapSample<'a> {
    /// The sample's number, from 0.
    pub number: u64,
    /// When it was taken.
    pub at: Instant,
    /// Bytes per band (closure type, cost centre, retainer set, ...).
    pub bands: &'a [(String, u64)],
    /// Are the bands cost centres (`-hc`)?
    pub by_cost_centre: bool,
    /// The cost centres' names, by number.
    pub cost_centres: &'a [String],
}

/// The run's end, before its totals are final: what was allocated since
/// the last GC is counted.
pub struct RunEnd<'a> {
    /// When the mutators had all returned.
    pub at: Instant,
    /// The statistics so far (allocation final; times not yet).
    pub stats: &'a Stats,
}

/// Something that learns of every GC, sync and heap sample of a run.
/// Every method has a default that does nothing: an observer implements
/// what it needs.
pub trait GcObserver: Send {
    /// A collector has just run (a GC, before its statistics are taken,
    /// or a collector's sync): counted as GC time.
    fn collected(&mut self, _c: &Collected<'_>) {}

    /// A GC has ended.
    fn gc_end(&mut self, _gc: &GcEnd<'_>) {}

    /// A collector's sync begins (the world is stopped; See Note
    /// [Concurrent phases] in `collector`).
    fn sync_begins(&mut self, _at: Instant) {}

    /// A collector's sync ends.
    fn sync_ends(&mut self, _at: Instant) {}

    /// A collector reported something of its own (a concurrent phase).
    fn collector_event(&mut self, _at: Instant, _event: &CollectorEvent) {}

    /// Heap profiling starts: samples every `interval` seconds of mutator
    /// time, broken down by `breakdown` (`-h<breakdown>`).
    fn heap_profile_begins(&mut self, _at: Instant, _interval: f64, _breakdown: char) {}

    /// A heap profile sample was taken.
    fn heap_sample(&mut self, _sample: &HeapSample<'_>) {}

    /// The mutators have returned: write what the run's end adds. Counted
    /// in the run's exit time. An `Err` names what could not be written.
    fn run_ends(&mut self, _end: &RunEnd<'_>) -> Result<(), String> {
        Ok(())
    }

    /// The run's statistics are final (`-s`, `-t` print them). An `Err`
    /// names what could not be written.
    fn report(&mut self, _stats: &Stats) -> Result<(), String> {
        Ok(())
    }
}
