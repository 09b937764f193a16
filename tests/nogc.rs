//! The `nogc` baseline: it never frees anything, yet every workload
//! computes what it computes under a collector (with the sanity checker
//! after every "GC"), its heap only grows, and under `-M` it stops with
//! GHC's heap overflow. It is registered but not in `COLLECTORS`, so the
//! conformance tests (whose weak pointers and finalisers must die) and an
//! experiment's `"all"` leave it out.

use gclab::conformance::run_with;
use gclab_workloads::WORKLOADS;

fn nogc() -> &'static gclab_collectors::CollectorEntry {
    gclab_collectors::by_name("nogc").expect("nogc is built in")
}

#[test]
fn every_workload_computes_the_same_under_nogc() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    // gc-api checks that finalisers run; under nogc nothing dies.
    for w in WORKLOADS.iter().filter(|w| w.name != "gc-api") {
        let base = run_with(copying, w, w.small, "").unwrap();
        let r = run_with(nogc(), w, w.small, "-A64k -DS").unwrap_or_else(|e| panic!("{}: {e}", w.name));
        assert_eq!(r.checksum, base.checksum, "{}", w.name);
        assert_eq!(r.sanity_checks, r.stats.gcs, "{}", w.name);
        assert_eq!(r.stats.copied_bytes, 0, "{}: nothing is copied", w.name);
        let lives: Vec<u64> = r.stats.records.iter().map(|g| g.live_bytes).collect();
        assert!(lives.windows(2).all(|p| p[0] <= p[1]), "{}: the heap only grows: {lives:?}", w.name);
    }
}

#[test]
fn under_a_heap_limit_nogc_overflows_as_ghc_does() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "--collector", "nogc", "binary-trees", "16", "+RTS", "-M16m"]).output().unwrap();
    assert_eq!(out.status.code(), Some(251));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Heap exhausted"), "{}", String::from_utf8_lossy(&out.stderr));
    // With a collector the same limit is plenty.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "binary-trees", "16", "+RTS", "-M16m"]).output().unwrap();
    assert!(out.status.success());
}

#[test]
fn it_is_listed_and_refuses_one_generation_but_all_means_collectors() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).arg("list").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("nogc"));
    assert!(gclab_collectors::COLLECTORS.iter().all(|c| c.name != "nogc"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "--collector", "nogc", "binary-trees", "8", "+RTS", "-G1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-G1"));
    let text = "collectors = [\"all\"]\n[[workloads]]\nname = \"binary-trees\"\n";
    let e = gclab_experiments::experiment::Experiment::parse(std::path::Path::new("t.toml"), text, &gclab_collectors::Registry::builtin()).unwrap();
    assert!(e.collectors.iter().all(|(c, _)| c != "nogc") && e.collectors.len() == gclab_collectors::COLLECTORS.len());
}
