//! `parallel`: generational copying with several GC threads (GHC's
//! parallel GC, `-N`, `-qn`, `-qg`, `-qb`).
//!
//! A parallel collection runs the copying collector's phases (`copying`)
//! with `-qn` GC threads, each with its own to-space: the tracing driver's
//! parallel path (`trace::trace_parallel`) deals the roots out by
//! capability, claims mutable objects by compare-and-swap (immutable ones
//! are copied unclaimed: See Note [Copying an immutable object twice] in
//! `evacuate`) and steals full to-space blocks between threads when load
//! balancing is on (`work_stealing`); the GC threads themselves are a pool
//! kept between GCs (`gc_workers`).
//!
//! `-qg<g>`: only collections of generation g or older are parallel; the
//! rest (and every collection with `-qg` alone, or one GC thread) run on
//! one thread. `-qb<g>`: load balancing only in parallel collections of
//! generation g or older (GHC's default: the old generation only, since
//! stealing young objects moves them away from the cache of the
//! capability that will use them next).

use crate::copying::copy_collect;
use crate::gc_workers::GcThreadPool;
use crate::CollectorEntry;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "parallel",
    description: "copying with -qn GC threads, work stealing of to-space blocks (GHC's parallel GC; -N, -qg, -qb)",
    flags: "",
    make: |params, _| params.finish(ENTRY.name, &[]).map(|()| Box::new(Parallel::default()) as Box<dyn Collector>),
};

/// The parallel collector: its state is the GC thread pool.
#[derive(Default)]
pub struct Parallel {
    pool: GcThreadPool,
}

impl Collector for Parallel {
    fn name(&self) -> &'static str {
        "parallel"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let workers = self.pool.for_collection(ctx.flags, req.collect_gen, ctx.help);
        copy_collect(req, ctx, workers)
    }
}
