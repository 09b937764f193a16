//! A collector defined outside gclab's crates (`examples/full_copy`),
//! registered at run time and held to the same conformance checks as the
//! built-in ones; and the example's own `gclab` binary, which runs it
//! through the whole command line, sweeps included. It is the example of
//! `docs/adding-a-collector.md`: `full-copy`, a non-generational copying
//! collector that collects the whole heap at every GC.

#[path = "../examples/full_copy/collector.rs"]
mod collector;
mod common;

use gclab::conformance::{check_collector, run_with, STRESS_SETTINGS};
use common::example_binary;
use gclab_collectors::Registry;
use std::process::Command;

#[test]
fn a_collector_from_another_crate_registers_and_conforms() {
    let mut registry = Registry::builtin();
    registry.register(collector::FULL_COPY).unwrap();
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

#[test]
fn a_researchers_own_binary_runs_lists_and_sweeps_its_collector() {
    let exe = example_binary("full_copy");
    let run = |args: &[&str]| Command::new(&exe).args(args).env_remove("GCLABRTS").output().unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let list = run(&["list"]);
    assert!(String::from_utf8_lossy(&list.stdout).contains("full-copy"));
    let one = run(&["run", "--collector", "full-copy", "binary-trees", "10", "+RTS", "-t", "--machine-readable"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let dir = std::env::temp_dir().join(format!("gclab-full-copy-{}", std::process::id()));
    let exp = dir.join("e.toml");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&exp, "collectors = [\"full-copy\", \"copying\"]\n[[workloads]]\nname = \"binary-trees\"\nargs = [10]\n[grid]\nA = [\"64k\"]\n").unwrap();
    let out = dir.join("out");
    let sweep = run(&["sweep", exp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(sweep.status.success(), "{}", String::from_utf8_lossy(&sweep.stderr));
    assert!(String::from_utf8_lossy(&sweep.stdout).contains("2 ran ok"), "{}", String::from_utf8_lossy(&sweep.stdout));
    let report = run(&["report", out.to_str().unwrap()]);
    assert!(report.status.success() && String::from_utf8_lossy(&report.stdout).contains("full-copy"), "{}", String::from_utf8_lossy(&report.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
