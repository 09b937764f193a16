//! `copying`: GHC's default collector. Generational copying with aging:
//! the collected generations are evacuated from the roots, the mutable
//! lists of older generations and their weak pointers, then scanned
//! Cheney-style until everything reachable is in to-space; weak pointers
//! are judged; from-space is freed.
//!
//! The phases are the shared pieces (`from_space`, `trace`); `copy_collect`
//! strings them together, on one GC thread or several, so that other
//! collectors (two-space, parallel, the young generations of compacting)
//! reuse the whole sequence.

use crate::gc_thread::GcThread;
use crate::gc_workers::GcWorkers;
use crate::trace::{outcome, team_size, trace_with};
use crate::{from_space, CollectorEntry};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "copying",
    description: "generational copying with aging, Cheney scan over to-space blocks (GHC's default)",
    flags: "",
    make: |params, _| params.finish(ENTRY.name, &[]).map(|()| Box::new(Copying) as Box<dyn Collector>),
};

/// The generational copying collector.
#[derive(Debug, Default)]
pub struct Copying;

impl Collector for Copying {
    fn name(&self) -> &'static str {
        "copying"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        copy_collect(req, ctx, None)
    }
}

/// One copying collection of generations `0..=req.collect_gen`, on one
/// thread, or on the threads of `workers` (with balancing or not).
pub fn copy_collect(req: &GcRequest, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let n = req.collect_gen;
    // SAFETY: the runtime gives the collector the heap exclusively (core's
    // Note [Who touches what]).
    let from = unsafe { from_space::prepare(gens, n, *layout) };
    let (layout, blocks, count) = (*layout, &*blocks, gens.len());
    let make = || GcThread::new(layout, n, count, blocks);
    // SAFETY: as above; every root and heap slot holds a valid object
    // address, which is what tracing requires.
    let mut threads = unsafe { trace_with(&make, gens, ctx.caps, ctx.stable_ptrs, ctx.leader, workers) };
    // SAFETY: tracing is over; from-space holds nothing live.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, n) };
    outcome(n, &threads, team_size(workers))
}
