//! Peers (Haskell on GHC, OCaml, C on Boehm GC): every peer program builds,
//! prints what its gclab workload prints and the same checksum, and
//! reports its runtime's statistics; a sweep runs peers beside gclab's
//! collectors and reports them; a missing compiler is named.

mod common;

use common::gclab;
use gclab_experiments::peers::{build, Language};
use std::path::{Path, PathBuf};

/// A build directory kept between test runs (peers rebuild only when
/// their sources change; See Note [Building peers once]).
fn build_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("peers")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gclab-peers-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every peer in `language`, at its workload's small size: the same output
/// and checksum as `gclab run`, and statistics that say work was done.
fn peers_agree_with_gclab(language: Language) {
    let dir = scratch(language.name());
    let workloads: Vec<&str> = gclab_experiments::peers::all().into_iter().filter(|&(_, l)| l == language).map(|(w, _)| w).collect();
    assert!(workloads.len() >= 8, "{}: only {workloads:?}", language.name());
    for name in workloads {
        let w = gclab_workloads::by_name(name).unwrap();
        let args: Vec<String> = w.small.iter().map(|a| a.to_string()).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ours = dir.join(format!("{name}.gclab.json"));
        let o = gclab(&[&["run", "--json", ours.to_str().unwrap(), name], &args[..]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let our_output = String::from_utf8_lossy(&o.stdout).into_owned();

        let program = build::build(&build_dir(), name, language).unwrap_or_else(|e| panic!("{e}"));
        let theirs = dir.join(format!("{name}.{}.json", language.name()));
        let o = gclab(&[&["peer", "--program", program.to_str().unwrap(), "--json", theirs.to_str().unwrap(), language.name(), name], &args[..], &["+RTS", "-A256k", "-RTS"]].concat());
        assert!(o.status.success(), "{} peer of {name}: {}", language.name(), String::from_utf8_lossy(&o.stderr));
        let their_output = String::from_utf8_lossy(&o.stdout).into_owned();
        let (lines, checksum_line) = their_output.trim_end().rsplit_once('\n').unwrap_or_else(|| panic!("{their_output}"));
        assert_eq!(format!("{lines}\n"), our_output, "{} peer of {name} {args:?}: different output", language.name());
        let (ours, theirs) = (json(&ours), json(&theirs));
        assert_eq!(theirs["checksum"], ours["checksum"], "{} peer of {name} {args:?}: {checksum_line}", language.name());
        let stats = &theirs["stats"];
        assert!(stats["allocated_bytes"].as_u64().unwrap() > 0, "{name}: {stats}");
        assert!(stats["max_rss_bytes"].as_u64().unwrap() > 0, "{name}: {stats}");
        assert!(stats["total_elapsed"].as_f64().unwrap() > 0.0, "{name}: {stats}");
        assert_eq!(stats.get("gc_elapsed").is_some(), language != Language::Ocaml, "{name}: {stats}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_ghc_peer_agrees_with_gclab() {
    peers_agree_with_gclab(Language::Ghc);
}

#[test]
fn every_ocaml_peer_agrees_with_gclab() {
    peers_agree_with_gclab(Language::Ocaml);
}

#[test]
fn every_boehm_peer_agrees_with_gclab() {
    peers_agree_with_gclab(Language::Boehm);
}

#[test]
fn every_workload_modelled_on_nofib_and_every_benchmark_has_peers() {
    for name in ["binary-trees", "gcbench", "lru", "fibheaps", "hash", "lcss", "constraints", "linear", "power"] {
        let languages = gclab_experiments::peers::languages_of(name);
        assert!(languages.contains(&Language::Ghc) && languages.contains(&Language::Ocaml), "{name}: {languages:?}");
    }
    // No collector may be named like a peer (a run's collector names it).
    for entry in gclab_collectors::COLLECTORS {
        assert!(Language::from_name(entry.name).is_none(), "collector {} is named like a peer", entry.name);
    }
}

const PEERS: &str = r#"
description = "peers beside a collector"
repetitions = 1
collectors = ["copying"]
peers = ["ghc", "ocaml", "boehm"]
baseline = "ghc"
[[workloads]]
name = "binary-trees"
args = [8]
[[workloads]]
name = "power"
args = [20, 3]
[grid]
A = ["256k"]
F = [2]
"#;

#[test]
fn a_sweep_runs_peers_beside_collectors_and_reports_them() {
    let dir = scratch("sweep");
    let file = dir.join("peers.toml");
    std::fs::write(&file, PEERS).unwrap();
    let out = dir.join("results");
    let o = gclab(&["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = gclab_experiments::record::load_records(&out).unwrap();
    // binary-trees: copying and three peers; power: copying, GHC and OCaml.
    assert_eq!(records.len(), 7, "{records:#?}");
    for r in &records {
        assert_eq!(r.status, gclab_experiments::record::Status::Ok, "{}: {}", r.spec.id, r.stderr_tail);
        assert!(gclab_experiments::record::figure(r, "allocated_bytes").is_some_and(|b| b > 0.0), "{}", r.spec.id);
    }
    let ocaml = records.iter().find(|r| r.spec.collector == "ocaml" && r.spec.workload == "power").unwrap();
    assert_eq!(ocaml.result.as_ref().unwrap()["peer"]["environment"][0], "OCAMLRUNPARAM=s=32768,o=100");
    assert!(gclab_experiments::record::figure(ocaml, "mut_elapsed").is_none(), "OCaml has no GC clock, so no MUT time");
    assert!(std::fs::read_dir(out.join("peers").join("ghc")).unwrap().count() == 2, "each peer is built once, into the results");
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for line in ["| binary-trees 8 | ghc |", "| binary-trees 8 | ocaml |", "| binary-trees 8 | boehm |", "| power 20 3 | ghc |", "No boehm peer of power", "boehm has no counterpart for, and ran without: -A256k.", "## Normalised to ghc"] {
        assert!(md.contains(line), "no `{line}' in:\n{md}");
    }
    assert!(!md.contains("disagree on the checksum"), "{md}");
    // A resumed sweep runs nothing again.
    let o = gclab(&["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 ran ok, 0 failed, 7 already recorded"), "{}", String::from_utf8_lossy(&o.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_compiler_and_an_unknown_peer_are_named() {
    let dir = scratch("missing");
    let file = dir.join("peers.toml");
    std::fs::write(&file, PEERS).unwrap();
    let out = dir.join("results");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
        .env("PATH", dir.join("nothing-here"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    for said in ["`ghc', which is not installed (on Debian: apt-get install ghc)", "`ocamlopt', which is not installed (on Debian: apt-get install ocaml-nox)", "`gcc', which is not installed (on Debian: apt-get install gcc libgc-dev)"] {
        assert!(err.contains(said), "every missing compiler is named at once: no `{said}' in {err}");
    }
    assert!(gclab_experiments::record::load_records(&out).unwrap().is_empty(), "no run is made without its peers");

    std::fs::write(&file, PEERS.replace(r#""boehm"]"#, r#""java"]"#)).unwrap();
    let o = gclab(&["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown peer `java' (known: ghc, ghc-O0, ocaml, boehm)"), "{err}");
    let o = gclab(&["peer", "boehm", "power"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("workload `power' has no boehm peer (it has: ghc, ghc-O0, ocaml)"), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_heap_limit_overflows_ghc_and_boehm_with_ghcs_exit_code() {
    for language in ["ghc", "boehm"] {
        let dir = build_dir();
        let o = gclab(&["peer", "--build-dir", dir.to_str().unwrap(), language, "binary-trees", "16", "+RTS", "-M2m", "-RTS"]);
        assert_eq!(o.status.code(), Some(251), "{language}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("Heap exhausted"), "{language}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Processes whose command line mentions `needle`.
fn processes_running(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push(cmdline);
        }
    }
    found
}

#[test]
fn a_peer_past_the_timeout_is_killed_with_its_program() {
    let dir = scratch("timeout");
    let file = dir.join("slow.toml");
    std::fs::write(&file, "collectors = [\"copying\"]\npeers = [\"boehm\"]\ntimeout_secs = 1\n[[workloads]]\nname = \"binary-trees\"\nargs = [24]\n").unwrap();
    let out = dir.join("results");
    let o = gclab(&["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = gclab_experiments::record::load_records(&out).unwrap();
    let peer = records.iter().find(|r| r.spec.collector == "boehm").unwrap();
    assert_eq!(peer.status, gclab_experiments::record::Status::Timeout, "{peer:?}");
    // The peer's program (a grandchild of the sweep) died with its run.
    let program = out.join("peers").join("boehm").join("binary_trees").join("binary_trees");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(processes_running(program.to_str().unwrap()).is_empty(), "{:?}", processes_running(program.to_str().unwrap()));
    std::fs::remove_dir_all(&dir).unwrap();
}
