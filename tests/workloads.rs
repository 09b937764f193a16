//! Every workload under every setting that must not change its result:
//! allocation area sizes, generation counts, collectors; and under stress
//! settings with the heap sanity checker after every GC.

use gclab::{flags, run_workload, RunOutcome};
use gclab_workloads::{Workload, WORKLOADS};

fn run(w: &Workload, args: &[usize], rts: &str) -> RunOutcome {
    let f = flags(rts).unwrap_or_else(|e| panic!("{rts}: {e}"));
    let entry = gclab_collectors::select(&f, None).unwrap_or_else(|e| panic!("{rts}: {e}"));
    run_workload(w, args, f, (entry.make)(), &mut std::io::sink()).unwrap_or_else(|e| panic!("{} {args:?} +RTS {rts}: {e}", w.name))
}

/// Sizes small enough that a GC at every allocation, each followed by a
/// full sanity walk, finishes in seconds.
fn tiny(w: &Workload) -> Vec<usize> {
    match w.name {
        "binary-trees" => vec![6],
        "gcbench" => vec![7],
        "lru" => vec![60, 600, 32],
        "mutable-graph" => vec![40, 600],
        "large-arrays" => vec![20, 4096],
        "thunks" => vec![400],
        other => panic!("no tiny size for workload {other}: add one here"),
    }
}

#[test]
fn checksums_agree_across_alloc_areas_and_generations() {
    for w in WORKLOADS {
        let base = run(w, w.small, "");
        for setting in ["-A8k", "-A64k", "-A4m", "-G1", "-G1 -A8k", "-G3", "-G3 -A16k -F1.2", "-G4 -A8k -O16k", "-A8k -n4k", "-H8m"] {
            let r = run(w, w.small, setting);
            assert_eq!(r.checksum, base.checksum, "{} {:?}: checksum differs under +RTS {setting}", w.name, w.small);
            if setting.contains("-A8k") {
                assert!(r.stats.gcs > 2, "{} +RTS {setting}: only {} GCs", w.name, r.stats.gcs);
            }
        }
    }
}

#[test]
fn sanity_holds_after_every_gc_with_the_smallest_allocation_area() {
    for w in WORKLOADS {
        let base = run(w, w.small, "");
        for setting in ["-A8k -DS", "-A8k -G1 -DS", "-A8k -G3 -DS", "-A8k -G2 -O8k -F1 -DS"] {
            let r = run(w, w.small, setting);
            assert_eq!(r.checksum, base.checksum, "{}: checksum differs under +RTS {setting}", w.name);
            assert!(r.stats.gcs >= 2, "{} +RTS {setting}: only {} GCs; the stress setting is not stressing", w.name, r.stats.gcs);
            assert_eq!(r.sanity_checks, r.stats.gcs, "{} +RTS {setting}: a GC went unchecked", w.name);
        }
    }
}

#[test]
fn sanity_holds_with_a_gc_at_every_allocation() {
    for w in WORKLOADS {
        let args = tiny(w);
        let base = run(w, &args, "");
        for setting in ["-Z1 -A8k -DS", "-Z1 -A8k -G3 -DS", "-Z1 -G1 -DS", "-Z7 -A8k -G2 -O8k -DS"] {
            let r = run(w, &args, setting);
            assert_eq!(r.checksum, base.checksum, "{} {args:?}: checksum differs under +RTS {setting}", w.name);
            assert_eq!(r.sanity_checks, r.stats.gcs, "{} +RTS {setting}: a GC went unchecked", w.name);
            let objects = r.stats.allocated_bytes / 64; // far fewer allocations than bytes/8
            let every = if setting.starts_with("-Z7") { 7 } else { 1 };
            assert!(r.stats.gcs >= objects / every / 8, "{} +RTS {setting}: {} GCs for {} bytes allocated", w.name, r.stats.gcs, r.stats.allocated_bytes);
        }
    }
}

#[test]
fn major_collections_happen_and_residency_is_sampled() {
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run(w, &[2000, 20000, 64], "-A16k -O16k -DS");
    assert!(r.stats.major_gcs > 0, "no major GC with a 16k old generation minimum");
    assert!(r.stats.max_live_bytes > 2000 * 64, "residency {} below the cache's own size", r.stats.max_live_bytes);
    assert_eq!(r.stats.gens.len(), 2);
    assert_eq!(r.stats.gens.iter().map(|g| g.collections).sum::<u64>(), r.stats.gcs);
}

#[test]
fn allocation_is_counted_per_capability_and_totals_match() {
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run(w, &[10], "-A8k");
    assert_eq!(r.stats.cap_allocated_bytes.iter().sum::<u64>(), r.stats.allocated_bytes);
    // Exactly the objects binary-trees 10 builds: every node is 3 words.
    let nodes: u64 = (1 << 12) - 1 + (1 << 11) - 1 + (4..=10).step_by(2).map(|d| (1u64 << (10 - d + 4)) * ((1 << (d + 1)) - 1)).sum::<u64>();
    assert_eq!(r.stats.allocated_bytes, nodes * 24);
}
