//! A collector defined only here, in a test crate, registered at run time
//! and held to the same conformance checks as the built-in ones. It is the
//! example of `docs/adding-a-collector.md`: `full-copy`, a non-generational
//! copying collector that collects the whole heap at every GC.

use gclab::conformance::{check_collector, run_with, STRESS_SETTINGS};
use gclab_collectors::copying::copy_collect;
use gclab_collectors::{CollectorEntry, Registry};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// Every GC collects every generation, whatever the policy asked for.
struct FullCopy;

impl Collector for FullCopy {
    fn name(&self) -> &'static str {
        "full-copy"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let whole_heap = GcRequest { collect_gen: ctx.heap.oldest(), ..*req };
        copy_collect(&whole_heap, ctx, None)
    }
}

const FULL_COPY: CollectorEntry = CollectorEntry {
    name: "full-copy",
    description: "copies the whole heap at every GC (non-generational)",
    flags: "",
    make: |params, _| params.finish("full-copy", &[]).map(|()| Box::new(FullCopy) as Box<dyn Collector>),
};

#[test]
fn a_collector_from_a_test_crate_registers_and_conforms() {
    let mut registry = Registry::builtin();
    registry.register(FULL_COPY).unwrap();
    let mut flags = gclab::flags("-A8k").unwrap();
    let (entry, _) = registry.select(&mut flags, Some("full-copy")).unwrap();
    let c = check_collector(entry, STRESS_SETTINGS).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.gcs > 10_000, "only {} GCs", c.gcs);
    // And it really is non-generational: every GC is a major one.
    let w = gclab_workloads::by_name("gcbench").unwrap();
    let r = run_with(entry, w, w.small, "-A8k -DS").unwrap();
    assert_eq!(r.stats.major_gcs, r.stats.gcs);
    assert_eq!(r.collector, "full-copy");
}
