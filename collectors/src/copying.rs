//! `copying`: GHC's default collector. Generational copying with aging:
//! the collected generations are evacuated from the roots, the mutable
//! lists of older generations and their weak pointers, then scanned
//! Cheney-style until everything reachable is in to-space; weak pointers
//! are judged; from-space is freed.
//!
//! The phases are the shared pieces (`from_space`, `trace`); `copy_collect`
//! strings them together, on one GC thread or several, so that other
//! collectors (two-space, parallel, the young generations of compacting)
//! reuse the whole sequence. `copying:order=depth` copies depth first
//! instead (See Note [Copying depth first] in `copy_order`).

use crate::copy_order::CopyOrder;
use crate::gc_thread::GcThread;
use crate::gc_workers::GcWorkers;
use crate::trace::{outcome, team_size, trace_with};
use crate::{from_space, CollectorEntry};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "copying",
    description: "generational copying with aging, Cheney scan over to-space blocks (GHC's default; order=breadth|depth)",
    flags: "",
    make: |mut params, _| {
        let order = CopyOrder::take(&mut params, CopyOrder::BreadthFirst)?;
        params.finish(ENTRY.name, &["order"])?;
        Ok(Box::new(Copying { order }))
    },
};

/// The generational copying collector, and the order it copies in.
#[derive(Debug, Default)]
pub struct Copying {
    order: CopyOrder,
}

impl Collector for Copying {
    fn name(&self) -> &'static str {
        "copying"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        copy_collect_in(req, ctx, None, self.order)
    }
}

/// One copying collection of generations `0..=req.collect_gen`, on one
/// thread, or on the threads of `workers` (with balancing or not).
pub fn copy_collect(req: &GcRequest, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    copy_collect_in(req, ctx, workers, CopyOrder::BreadthFirst)
}

/// `copy_collect`, copying in `order` (depth first on one GC thread only:
/// See Note [Copying depth first] in `copy_order`).
pub fn copy_collect_in(req: &GcRequest, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>, order: CopyOrder) -> GcOutcome {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let n = req.collect_gen;
    // SAFETY: the runtime gives the collector the heap exclusively (core's
    // Note [Who touches what]).
    let from = unsafe { from_space::prepare(gens, n, *layout) };
    let (layout, blocks, count) = (*layout, &*blocks, gens.len());
    let depth_first = order.depth_first(workers.is_some());
    let make = || {
        let mut gct = GcThread::new(layout, n, count, blocks);
        gct.depth_first = depth_first;
        gct
    };
    // SAFETY: as above; every root and heap slot holds a valid object
    // address, which is what tracing requires.
    let mut threads = unsafe { trace_with(&make, gens, ctx.caps, ctx.stable_ptrs, ctx.leader, workers) };
    // SAFETY: tracing is over; from-space holds nothing live.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, n) };
    outcome(n, &threads, team_size(workers))
}
