//! `full-copy`: a non-generational copying collector, defined outside
//! gclab's crates (the first walkthrough of `docs/adding-a-collector.md`).
//! Every GC collects every generation, whatever the policy asked for.

use gclab_collectors::copying::copy_collect;
use gclab_collectors::CollectorEntry;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The collector: it keeps nothing between GCs.
pub struct FullCopy;

impl Collector for FullCopy {
    fn name(&self) -> &'static str {
        "full-copy"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let whole_heap = GcRequest { collect_gen: ctx.heap.oldest(), ..*req };
        copy_collect(&whole_heap, ctx, None)
    }
}

/// Its registry entry.
pub const FULL_COPY: CollectorEntry = CollectorEntry {
    name: "full-copy",
    description: "copies the whole heap at every GC (non-generational)",
    flags: "",
    make: |params, _| params.finish("full-copy", &[]).map(|()| Box::new(FullCopy) as Box<dyn Collector>),
};
