//! `two-space`: GHC's `-G1`. One generation, collected whole at every GC by
//! copying it into fresh to-space; the allocation area is resized after
//! each GC to `-F` times the live data, with `-A` as its minimum (that
//! sizing is the policy's, in core: it applies whenever there is one
//! generation). The collection itself is `copying`'s sequence with one
//! generation, which is exactly a semispace collector whose "semispaces"
//! are block lists.

use crate::copying::copy_collect;
use crate::CollectorEntry;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "two-space",
    description: "one generation copied whole at every GC; allocation area = -F x live (GHC's -G1)",
    flags: "-G1",
    make: |params, _| params.finish(ENTRY.name, &[]).map(|()| Box::new(TwoSpace) as Box<dyn Collector>),
};

/// The two-space collector.
#[derive(Debug, Default)]
pub struct TwoSpace;

impl Collector for TwoSpace {
    fn name(&self) -> &'static str {
        "two-space"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        assert_eq!(ctx.heap.gens.len(), 1, "two-space runs with exactly one generation (-G1)");
        copy_collect(req, ctx, None)
    }
}
