//! Every workload under every collector: checksums unchanged by allocation
//! area sizes, generation counts and collectors; the sanity checker after
//! every GC under stress settings (tiny `-A`, a GC at every allocation).

use gclab::conformance::{assert_conforms, run_with, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::COLLECTORS;
use gclab_workloads::WORKLOADS;

#[test]
fn every_collector_conforms_under_stress() {
    for entry in COLLECTORS {
        let c = assert_conforms(entry, STRESS_SETTINGS, "");
        assert!(c.gcs > 10_000, "{}: only {} GCs over the stress settings", entry.name, c.gcs);
    }
}

#[test]
fn checksums_agree_across_alloc_areas_generations_and_collectors() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    for w in WORKLOADS {
        let base = run_with(copying, w, w.small, "").unwrap().checksum;
        for entry in COLLECTORS {
            for setting in ["-A8k", "-A64k", "-A4m", "-G3", "-G3 -A16k -F1.2", "-G4 -A8k -O16k", "-A8k -n4k", "-H8m"] {
                let rts = format!("{setting} {}", entry.flags);
                let r = run_with(entry, w, w.small, &rts).unwrap();
                assert_eq!(r.checksum, base, "{} {:?}: checksum differs under {} +RTS {rts}", w.name, w.small, entry.name);
                if setting.contains("-A8k") {
                    assert!(r.stats.gcs > 2, "{} +RTS {rts}: only {} GCs", w.name, r.stats.gcs);
                }
            }
        }
    }
}

#[test]
fn compaction_happens_and_is_counted() {
    let compacting = gclab_collectors::by_name("compacting").unwrap();
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(compacting, w, &[2000, 20000, 64], "-A16k -c -DS").unwrap();
    let compactions: u64 = r.stats.gens.iter().map(|g| g.compactions).sum();
    assert_eq!(compactions, r.stats.major_gcs, "with -c every major GC compacts");
    assert!(compactions > 0);
    // -c<n> with -M: compaction only once the old generation passes n% of -M.
    let r = run_with(compacting, w, &[2000, 20000, 64], "-A16k -M64m -c90 -DS").unwrap();
    assert_eq!(r.stats.gens.iter().map(|g| g.compactions).sum::<u64>(), 0, "live data never reaches 90% of -M64m");
    let r = run_with(compacting, w, &[2000, 20000, 64], "-A16k -M4m -c1 -DS").unwrap();
    assert!(r.stats.gens.iter().map(|g| g.compactions).sum::<u64>() > 0, "live data passes 1% of -M4m");
    // -c<n> without -M is accepted and does nothing, as in GHC.
    let mut f = gclab::flags("-A16k -c50").unwrap();
    let (entry, _) = gclab_collectors::select(&mut f, None).unwrap();
    assert_eq!(entry.name, "copying");
    let r = run_with(entry, w, &[2000, 20000, 64], "-A16k -c50 -DS").unwrap();
    assert!(r.stats.major_gcs > 0);
    assert_eq!(r.stats.gens.iter().map(|g| g.compactions).sum::<u64>(), 0);
}

#[test]
fn whole_heap_compaction_conforms_and_compacts_at_every_gc() {
    // -c -G1: whole-heap mark-compact (See Note [One generation]).
    let compacting = gclab_collectors::by_name("compacting").unwrap();
    let c = assert_conforms(compacting, ONE_GENERATION_SETTINGS, "");
    assert!(c.gcs > 1_000, "only {} GCs over the one-generation settings", c.gcs);
    let w = gclab_workloads::by_name("gcbench").unwrap();
    let r = run_with(compacting, w, &[14], "-G1 -A16k -c -DS").unwrap();
    assert_eq!(r.stats.gens.len(), 1);
    assert!(r.stats.gcs > 20, "only {} GCs", r.stats.gcs);
    assert_eq!(r.stats.gens[0].compactions, r.stats.gcs, "every GC compacts the one generation");
    // Two-space copies every survivor at every GC; the compaction copies
    // the allocation area's survivors and slides only what lies behind a
    // gap (gcbench 14: 1.7 MB against 8.7).
    let two_space = run_with(gclab_collectors::by_name("two-space").unwrap(), w, &[14], "-G1 -A16k").unwrap();
    assert_eq!(r.checksum, two_space.checksum);
    assert!(r.stats.copied_bytes * 3 < two_space.stats.copied_bytes, "compaction copied {} bytes, two-space {}", r.stats.copied_bytes, two_space.stats.copied_bytes);
}

#[test]
fn major_collections_happen_and_residency_is_sampled() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(copying, w, &[2000, 20000, 64], "-A16k -O16k -DS").unwrap();
    assert!(r.stats.major_gcs > 0, "no major GC with a 16k old generation minimum");
    assert!(r.stats.max_live_bytes > 2000 * 64, "residency {} below the cache's own size", r.stats.max_live_bytes);
    assert_eq!(r.stats.gens.len(), 2);
    assert_eq!(r.stats.gens.iter().map(|g| g.collections).sum::<u64>(), r.stats.gcs);
}

#[test]
fn allocation_is_counted_per_capability_and_totals_match() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(copying, w, &[10], "-A8k").unwrap();
    assert_eq!(r.stats.cap_allocated_bytes.iter().sum::<u64>(), r.stats.allocated_bytes);
    // Exactly the objects binary-trees 10 builds: every node is 3 words.
    let nodes: u64 = (1 << 12) - 1 + (1 << 11) - 1 + (4..=10).step_by(2).map(|d| (1u64 << (10 - d + 4)) * ((1 << (d + 1)) - 1)).sum::<u64>();
    assert_eq!(r.stats.allocated_bytes, nodes * 24);
}

#[test]
fn objects_allocated_are_counted_on_request() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    let trees = gclab_workloads::by_name("binary-trees").unwrap();
    // Every object binary-trees allocates is a three-word node.
    for rts in ["-A8k --count-objects", "-A8k -N2 --count-objects", "-A1m --count-objects"] {
        let r = run_with(copying, trees, trees.small, rts).unwrap();
        assert!(r.stats.allocated_objects > 0, "{rts}");
        assert_eq!(r.stats.allocated_bytes, r.stats.allocated_objects * 24, "{rts}");
    }
    assert_eq!(run_with(copying, trees, trees.small, "-A8k").unwrap().stats.allocated_objects, 0, "counted only on request");
    // linear's rows are large objects, counted one each.
    let linear = gclab_workloads::by_name("linear").unwrap();
    let r = run_with(copying, linear, &[420, 1], "--count-objects").unwrap();
    let rows = 420 + 420 * 419 / 2; // the random ones, then one per elimination
    assert!(r.stats.allocated_objects >= rows, "{} objects", r.stats.allocated_objects);
    assert!(r.stats.allocated_bytes / r.stats.allocated_objects > 3_000, "{} bytes per object", r.stats.allocated_bytes / r.stats.allocated_objects);
}
