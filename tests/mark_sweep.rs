//! The `mark-sweep` collector: its old generation never moves, reuses the
//! cells its sweeps free, keeps live and free words apart, runs with
//! several capabilities and GC threads (marking in parallel), and refuses
//! what it cannot do. (It is also in `COLLECTORS`, so the conformance,
//! property and API tests run it like every other collector.)

use gclab::conformance::{check_collector, run_with};
use gclab_workloads::WORKLOADS;

fn mark_sweep() -> &'static gclab_collectors::CollectorEntry {
    gclab_collectors::by_name("mark-sweep").expect("mark-sweep is built in")
}

#[test]
fn promotion_fills_the_cells_that_sweeps_freed() {
    // lru replaces its entries all the time: each major GC sweeps dead
    // entries into free cells, and the promotions of the next minor GCs
    // must land in them. If reuse stopped, free cells would only ever
    // grow between major GCs and the old generation would cut fresh blocks.
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(mark_sweep(), w, &[4000, 100000, 64], "-A64k -O64k -DS").unwrap();
    let records = &r.stats.records;
    let majors = records.iter().filter(|g| g.gen == 1).count();
    assert!(majors >= 3, "only {majors} major GCs");
    assert!(r.stats.swept_bytes > 0, "the sweeps freed nothing");
    assert!(r.stats.marked_bytes > 0, "nothing was marked in place");
    let mut fills = 0;
    for pair in records.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        assert!(after.live_bytes > 0);
        if after.gen == 0 && before.hole_bytes > 0 && after.hole_bytes < before.hole_bytes {
            fills += 1;
        }
    }
    assert!(fills >= majors / 2, "minor GCs filled free cells after only {fills} of {majors} major GCs");
    assert_eq!(r.stats.gens[1].compactions, 0, "mark-sweep never compacts");
}

#[test]
fn live_and_free_words_are_kept_apart() {
    // After a major GC the residency is the marked data, not the blocks'
    // used words: a full major GC of a heap with much dead old data.
    let w = gclab_workloads::by_name("lru").unwrap();
    let ms = run_with(mark_sweep(), w, &[4000, 60000, 64], "-A64k -DS").unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), w, &[4000, 60000, 64], "-A64k -DS").unwrap();
    assert_eq!(ms.checksum, copying.checksum);
    let (a, b) = (ms.stats.max_live_bytes as f64, copying.stats.max_live_bytes as f64);
    assert!(a < 1.25 * b && a > 0.75 * b, "maximum residency {a} under mark-sweep, {b} under copying: holes counted as live?");
    assert!(ms.stats.max_hole_bytes > 0, "a sweeping collector reports its free cells");
    assert_eq!(copying.stats.max_hole_bytes, 0, "bump blocks have no holes");
}

#[test]
fn several_capabilities_and_gc_threads_mark_one_bitmap() {
    const SETTINGS: &[&str] = &["-N2 -A8k -DS", "-N3 -qn3 -A8k -qb0 -DS", "-N4 -A8k -G3 -O8k -qb0 -DS", "-N4 --gc-every=7 -A8k -qb0 -DS"];
    for round in 0..3 {
        let c = check_collector(mark_sweep(), SETTINGS).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(c.runs, WORKLOADS.len() * SETTINGS.len());
    }
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(mark_sweep(), w, &[14], "-N2 -A64k -qb0").unwrap();
    assert_eq!(r.stats.par_collections(), r.stats.gcs, "every GC is parallel with -N2");
    assert!(r.stats.gens[1].par_collections > 0, "the major GCs mark in parallel");
}

#[test]
fn one_generation_is_refused_with_the_reason() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["run", "--collector", "mark-sweep", "binary-trees", "8", "+RTS", "-G1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mark-sweep") && err.contains("-G1"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["run", "--collector", "mark-sweep:sweep=lazy", "binary-trees", "8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`sweep'"));
}
