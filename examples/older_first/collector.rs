//! `older-first`: the oldest generation collected an increment at a time
//! (after Stefanović, McKinley and Moss's older-first collector and
//! Blackburn et al.'s Beltway), the third walkthrough of
//! `docs/adding-a-collector.md`. Defined outside gclab's crates, with no
//! `unsafe`, on the partial-collection seam (the collectors' `partial`
//! and Note [Increments] in `from_space`).
//!
//! Minor GCs are copying's. When the policy asks for a major GC (the
//! program's own requests, `performMajorGC` and the `Gc` API, collect the
//! whole heap, as they promise), the
//! collector first copies the young generations with only the older half
//! of the oldest generation's blocks (the blocks it has held longest: a
//! generation's block list grows at its end), tracing from the remembered
//! slots into that half, which a walk of the rest of the heap finds. If
//! the oldest generation is still over its limit at the next request, that
//! GC collects the whole heap: garbage that spans both halves, or a
//! cycle through them, is reclaimed there.

use gclab_collectors::copying::copy_collect;
use gclab_collectors::partial::collect_increment_walking;
use gclab_collectors::CollectorEntry;
use gclab_core::bdescr::BlockPtr;
use gclab_core::{Collector, GcContext, GcOutcome, GcReason, GcRequest};
use std::collections::HashSet;

/// The collector: whether its last GC was a partial one.
#[derive(Debug, Default)]
pub struct OlderFirst {
    partial_last: bool,
}

impl Collector for OlderFirst {
    fn name(&self) -> &'static str {
        "older-first"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let asked_by_policy = matches!(req.reason, GcReason::HeapExhausted | GcReason::LargeAllocation);
        let partial = req.collect_gen == oldest && oldest > 0 && asked_by_policy && !self.partial_last && !req.compact_oldest;
        self.partial_last = partial;
        if !partial {
            return copy_collect(req, ctx, None);
        }
        let blocks = &ctx.heap.gens[oldest].blocks;
        let older: HashSet<usize> = blocks[..blocks.len() / 2].iter().map(|b| b.0 as usize).collect();
        let takes = |bd: BlockPtr| older.contains(&(bd.0 as usize));
        collect_increment_walking(oldest - 1, oldest, &takes, ctx, None)
    }
}

/// Its registry entry.
pub const OLDER_FIRST: CollectorEntry = CollectorEntry {
    name: "older-first",
    description: "generational copying whose major GCs take the older half of the oldest generation first",
    flags: "",
    make: |params, _| params.finish("older-first", &[]).map(|()| Box::new(OlderFirst::default()) as Box<dyn Collector>),
};
