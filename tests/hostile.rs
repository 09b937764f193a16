//! A careless or hostile user's inputs, each once a crash, a hang, a wrong
//! exit code or an unclear error, and each now refused up front with a
//! message that names what was wrong, or run to GHC's own outcome. One
//! test per family of inputs; the inputs of a family are several, since a
//! fix must hold for the class, not the example.

mod common;

use common::gclab;
use gclab_core::RunError;
use std::path::Path;
use std::process::{Command, Output};

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `o` failed with `code`, saying `needle`.
fn refused(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    assert!(text(o).contains(needle), "expected {needle:?} in:\n{}", text(o));
}

#[test]
fn an_object_no_heap_can_hold_is_a_heap_exhaustion_not_a_crash() {
    // A length near 2^64 once overflowed the size arithmetic into a small
    // block group, which was then zeroed at the full length (SIGSEGV).
    for collector in ["copying", "mark-sweep", "immix"] {
        for (rts, limited) in [("", false), ("-M64m", true)] {
            for len in [usize::MAX, usize::MAX - 7, 1 << 62, (1 << 47) + 3] {
                for bytes in [true, false] {
                    let rts_ = gclab::runtime(rts, collector).unwrap();
                    let r = rts_.run(|m| {
                        let nil = m.static_obj(&gclab_core::info::NULL_OBJECT);
                        if bytes {
                            m.new_byte_array(len);
                        } else {
                            m.new_array(len, nil);
                        }
                    });
                    let _ = rts_.finish();
                    match (r, limited) {
                        (Err(RunError::HeapOverflow { max_heap_bytes, .. }), true) => assert_eq!(max_heap_bytes, 64 << 20),
                        (Err(RunError::OutOfMemory { .. }), false) => {}
                        (other, _) => panic!("{collector} {rts} len {len} (bytes: {bytes}): {other:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn workload_arguments_outside_their_ranges_are_refused_before_the_run() {
    for (args, needle) in [
        (&["lru", "100", "1000", "18446744073709551615"][..], "argument 3 (value-bytes) must be from 8 to"),
        (&["binary-trees", "4294967296"][..], "argument 1 (depth) must be from 0 to 30"),
        (&["binary-trees", "18446744073709551615"][..], "(depth) must be from 0 to 30"),
        (&["gcbench", "4294967296"][..], "(stretch-depth) must be from 0 to 26"),
        (&["lcss", "18446744073709551615"][..], "(length) must be from 0 to"),
        (&["constraints", "1000"][..], "(queens) must be from 1 to 20"),
        (&["mutable-graph", "1"][..], "(nodes) must be from 2 to"),
        (&["binary-trees", "-3"][..], "must be a whole number from 0 to 30"),
        (&["binary-trees", "8", "9"][..], "takes at most 1 argument(s)"),
    ] {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        refused(&gclab(&all), 1, needle);
    }
}

#[test]
fn arguments_that_cannot_fit_in_memory_are_refused_before_the_run() {
    // Each once ran until killed (or the OS refused memory).
    // (Each needs tens of GB; the test machines have 24 GB. `timeout`
    // stops one that is wrongly let through.)
    for args in [&["hash", "1000000000", "10"][..], &["thunks", "1000000000"][..], &["lru", "1000000000", "10", "8"][..], &["fibheaps", "1000000000"][..], &["mutable-graph", "1000000000", "1"][..]] {
        let o = std::process::Command::new("timeout").arg("20").arg(env!("CARGO_BIN_EXE_gclab")).arg("run").args(args).env_remove("GCLABRTS").output().unwrap();
        refused(&o, 1, "of live data at once: more than this machine's memory");
    }
}

#[test]
fn flags_outside_their_ranges_are_refused_with_the_range() {
    for (flag, needle) in [
        ("-G4294967297", "the number of generations must be from 1 to 100"),
        ("-G10000000", "from 1 to 100"),
        ("-N100000", "the number of capabilities must be from 1 to 1024"),
        ("-F1e308", "the old generation factor must be from 0 to 1000"),
        ("-A2000g", "size outside allowed range (8k - 1024g)"),
        ("-H99999g", "size outside allowed range"),
        ("-qg1000", "the generation must be from 0 to 100"),
        ("-i1e300", "the heap profile interval (seconds) must be from 0 to"),
    ] {
        refused(&gclab(&["run", "binary-trees", "4", "+RTS", flag]), 1, needle);
    }
    // A flag is echoed as it was given.
    refused(&gclab(&["run", "binary-trees", "4", "+RTS", "-n2m", "-A1m"]), 1, "`-n2m'");
}

#[test]
fn a_contradiction_with_the_environment_names_the_environment() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "binary-trees", "4", "+RTS", "-A2m"]).env("GCLABRTS", "-M1m").output().unwrap();
    refused(&o, 1, "-M1m comes from the GCLABRTS environment variable");
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gclab-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `gclab` in `dir`, with `env` set.
fn gclab_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gclab"));
    cmd.args(args).current_dir(dir).env_remove("GCLABRTS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// An experiment of binary-trees 6 under copying, `repetitions` times,
/// with `extra` lines at its end.
fn experiment(dir: &Path, name: &str, repetitions: u32, collectors: &str, extra: &str) -> String {
    let text = format!("name = \"{name}\"\nrepetitions = {repetitions}\ncollectors = {collectors}\n[[workloads]]\nname = \"binary-trees\"\nargs = [6]\n{extra}");
    let file = format!("{name}.toml");
    std::fs::write(dir.join(&file), text).unwrap();
    file
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn experiment_files_that_cannot_be_right_are_refused_when_loaded() {
    let dir = scratch("experiments");
    let cases: &[(&str, &str, &str)] = &[
        ("[\"copying\"]", "[grid]\nA1 = [\"1m\"]\n", "`A1' names no RTS option"),
        ("[\"copying\"]", "[grid]\nA = [\"1m\"]\ncollectors = [\"immix\"]\n", "is a key of the experiment, not of [grid]"),
        ("[\"copying\", \"copying\"]", "", "collector `copying' is listed twice"),
        ("[\"immix:line=64\", \"immix:line=0064\"]", "", "collector `immix:line=64' is listed twice"),
        ("[\"immix:defrag=always,defrag=never\"]", "", "parameter `defrag' is given twice"),
        ("[\"copying\"]", "[grid]\nF = [1e308]\n", "-F"),
        ("[\"nogc\"]", "", "never collects"),
    ];
    for (i, (collectors, extra, needle)) in cases.iter().enumerate() {
        let mut file = experiment(&dir, &format!("e{i}"), 1, collectors, extra);
        if *needle == "never collects" {
            let text = std::fs::read_to_string(dir.join(&file)).unwrap().replace("binary-trees", "gc-api").replace("args = [6]", "args = []");
            std::fs::write(dir.join(&file), text).unwrap();
        }
        if i == 0 {
            // And a name no file system takes.
            let long = "long.toml";
            std::fs::write(dir.join(long), std::fs::read_to_string(dir.join(&file)).unwrap().replace("name = \"e0\"", &format!("name = \"{}\"", "n".repeat(300)))).unwrap();
            refused(&gclab_in(&dir, &[], &["sweep", long]), 1, "name");
            file = experiment(&dir, "e0", 1, collectors, extra);
        }
        refused(&gclab_in(&dir, &[], &["sweep", &file, "--out", "o"]), 1, needle);
        assert!(!dir.join("o").exists(), "{file}: nothing is written for a refused experiment");
    }
    // Not a file: a device that never ends, a pipe that never opens.
    refused(&gclab(&["sweep", "/dev/zero"]), 1, "not a regular file");
    mkfifo(&dir.join("fifo.toml"));
    refused(&gclab_in(&dir, &[], &["sweep", "fifo.toml"]), 1, "not a regular file");
    refused(&gclab_in(&dir, &[], &["sweep", "."]), 1, "is a directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn records_that_cannot_be_trusted_are_left_out_and_run_again() {
    let dir = scratch("records");
    let file = experiment(&dir, "r", 3, "[\"copying\"]", "");
    assert!(gclab_in(&dir, &[], &["sweep", &file, "--out", "o", "--quiet"]).status.success());
    let runs = dir.join("o/runs");
    let record = |r: usize| runs.join(format!("binary-trees_6_copying__r{r}.json"));
    // A copy under another run's name, a stray copy, `ok` without a
    // result, a pause no run can have, and a pipe where a record should be.
    std::fs::copy(record(0), record(1)).unwrap();
    std::fs::copy(record(0), runs.join("stray.json")).unwrap();
    let edit = |r: usize, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(record(r)).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(record(r), v.to_string()).unwrap();
    };
    edit(2, &|v| v["result"]["pauses"] = serde_json::json!([1e200]));
    let o = gclab_in(&dir, &[], &["report", "o"]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(dir.join("o/summary.md")).unwrap();
    for needle in ["3 damaged record(s)", "not of run binary-trees_6_copying__r1 (a copy?)", "not of run stray", "a pause no run can have (1e200 s)", "| 1/1 |"] {
        assert!(md.contains(needle), "{needle:?} in:\n{md}");
    }
    edit(2, &|v| v["result"] = serde_json::Value::Null);
    std::fs::remove_file(record(0)).unwrap();
    mkfifo(&record(0));
    let o = gclab_in(&dir, &[], &["report", "o"]);
    assert!(o.status.success(), "a pipe is not read (it would block): {}", text(&o));
    let md = std::fs::read_to_string(dir.join("o/summary.md")).unwrap();
    assert!(md.contains("says ok but holds no result") && md.contains("not a regular file"), "{md}");
    // The sweep runs the three again.
    let o = gclab_in(&dir, &[], &["sweep", &file, "--out", "o", "--quiet"]);
    assert!(o.status.success() && text(&o).contains("3 ran ok, 0 failed, 0 already recorded"), "{}", text(&o));
    // A damaged manifest stops a rerun (it says which experiment the
    // directory holds), unless --force.
    let manifest = dir.join("o/manifest.json");
    let whole = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, &whole[..whole.len() / 2]).unwrap();
    let other = experiment(&dir, "other", 1, "[\"two-space\"]", "");
    refused(&gclab_in(&dir, &[], &["sweep", &other, "--out", "o"]), 1, "manifest.json is damaged");
    assert!(gclab_in(&dir, &[], &["sweep", &other, "--out", "o", "--force", "--quiet"]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn what_stands_where_a_results_directory_goes_is_named() {
    let dir = scratch("in-the-way");
    let file = experiment(&dir, "w", 1, "[\"copying\"]", "");
    std::fs::create_dir_all(dir.join("o1")).unwrap();
    std::fs::write(dir.join("o1/runs"), "").unwrap();
    refused(&gclab_in(&dir, &[], &["sweep", &file, "--out", "o1"]), 1, "o1/runs (where the sweep keeps its runs) is a file");
    std::fs::write(dir.join("o2"), "").unwrap();
    refused(&gclab_in(&dir, &[], &["sweep", &file, "--out", "o2"]), 1, "o2 (the results directory) is a file");
    std::fs::create_dir_all(dir.join("results/w")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.join("results/w/latest")).unwrap();
    refused(&gclab_in(&dir, &[], &["sweep", &file]), 1, "is a link to nowhere, which does not exist");
    // A finished sweep run again says how to start afresh.
    assert!(gclab_in(&dir, &[], &["sweep", &file, "--out", "o3", "--quiet"]).status.success());
    let o = gclab_in(&dir, &[], &["sweep", &file, "--out", "o3", "--quiet"]);
    assert!(o.status.success() && text(&o).contains("Every run was already recorded") && text(&o).contains("--force"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_never_replaces_an_input_and_a_directory_takes_outputs_in_it() {
    let dir = scratch("outputs");
    refused(&gclab_in(&dir, &[], &["run", "binary-trees", "8", "+RTS", "-hT", "-popics/"]), 74, "cannot create the heap profile pics/binary-trees.hp");
    std::fs::create_dir_all(dir.join("pics")).unwrap();
    let o = gclab_in(&dir, &[], &["run", "binary-trees", "8", "+RTS", "-l", "-hT", "-popics/"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(dir.join("pics/binary-trees.hp").is_file(), "-po<dir>/ puts <program>.hp in the directory");
    // --trace onto the eventlog itself, a picture onto the profile.
    let before = std::fs::read(dir.join("binary-trees.eventlog")).unwrap();
    refused(&gclab_in(&dir, &[], &["eventlog", "--no-plot", "--trace", "binary-trees.eventlog", "binary-trees.eventlog"]), 1, "is also the input");
    std::fs::copy(dir.join("binary-trees.eventlog"), dir.join("t.png")).unwrap();
    refused(&gclab_in(&dir, &[], &["eventlog", "--plot", "./t", "t.png"]), 1, "is also the input");
    assert_eq!(std::fs::read(dir.join("binary-trees.eventlog")).unwrap(), before, "the eventlog is intact");
    std::fs::copy(dir.join("pics/binary-trees.hp"), dir.join("prof.png")).unwrap();
    refused(&gclab_in(&dir, &[], &["hp", "prof.png"]), 1, "prof.png is also the input prof.png");
    // A directory given for a prefix takes the pictures in it.
    let o = gclab_in(&dir, &[], &["hp", "pics/binary-trees.hp", "--out", "pics/"]);
    assert!(o.status.success() && dir.join("pics/binary-trees.png").is_file(), "{}", text(&o));
    let o = gclab_in(&dir, &[], &["eventlog", "--plot", "pics", "binary-trees.eventlog"]);
    assert!(o.status.success() && dir.join("pics/binary-trees-timeline.svg").is_file(), "{}", text(&o));
    let o = gclab_in(&dir, &[], &["eventlog", "diff", "--plot", "pics/", "binary-trees.eventlog", "binary-trees.eventlog"]);
    assert!(o.status.success() && dir.join("pics/diff-mmu.png").is_file(), "{}", text(&o));
    // An eventlog that is a directory, pictures into a directory that is not there.
    refused(&gclab_in(&dir, &[], &["eventlog", "pics"]), 1, "pics is a directory, not an eventlog");
    refused(&gclab_in(&dir, &[], &["eventlog", "--plot", "nodir/x", "binary-trees.eventlog"]), 1, "the directory nodir does not exist");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_that_cannot_be_written_stops_the_run_before_it_starts() {
    let dir = scratch("unwritable");
    // 74 for each, before any work: `peer` builds nothing first.
    for args in [
        &["run", "--json", "nodir/x.json", "binary-trees", "8"][..],
        &["peer", "--build-dir", "nobuild", "--json", "nodir/x.json", "ghc", "binary-trees", "8"],
        &["run", "binary-trees", "8", "+RTS", "-Snodir/x"],
        &["run", "binary-trees", "8", "+RTS", "-l", "-olnodir/x"],
        &["run", "--json", ".", "binary-trees", "8"],
    ] {
        let o = gclab_in(&dir, &[], args);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("nodir") || text(&o).contains("is a directory"), "{args:?}: {}", text(&o));
    }
    assert!(!dir.join("nobuild").exists(), "the peer was not built");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_after_the_workload_are_named_as_misplaced() {
    for args in [
        &["run", "binary-trees", "8", "--collector", "immix"][..],
        &["peer", "ghc", "binary-trees", "8", "--json", "x.json"],
        &["minheap", "binary-trees", "8", "--collector", "immix"],
    ] {
        refused(&gclab(args), 1, "comes after the workload: gclab's options go before it");
    }
}

#[test]
fn a_workload_that_needs_collections_is_refused_under_nogc() {
    refused(&gclab(&["run", "--collector", "nogc", "gc-api"]), 1, "gc-api checks what collections do");
    refused(&gclab(&["minheap", "--collector", "nogc", "gc-api"]), 1, "never collects");
}

#[test]
fn minheap_bounds_its_search_and_honours_gclabrts() {
    let dir = scratch("minheap");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    for t in ["nan", "0", "1e-300", "inf", "-1", "1e9"] {
        refused(&gclab_in(&dir, &[], &["minheap", "--timeout", t, "binary-trees", "8"]), 1, "--timeout");
    }
    refused(&gclab_in(&dir, &[("GCLABRTS", "-M4m")], &["minheap", "binary-trees", "8"]), 1, "`-M4m' (in GCLABRTS or after +RTS)");
    let tmp_s = tmp.to_str().unwrap();
    let o = gclab_in(&dir, &[("GCLABRTS", "-A64k"), ("TMPDIR", tmp_s)], &["minheap", "--cache", "c.json", "binary-trees", "9"]);
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("+RTS -A64k"), "GCLABRTS's flags are the search's: {said}");
    assert!(String::from_utf8_lossy(&o.stderr).lines().next().unwrap().starts_with("probe 1: no -M"), "{said}");
    assert!(said.contains("the answer lies above"), "the bounds are explained: {said}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "the probes' files are removed: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_heap_profile_without_data_is_drawn_with_a_warning() {
    let dir = scratch("empty-hp");
    // Two samples, both empty: what a run shorter than -i leaves.
    std::fs::write(dir.join("e.hp"), "JOB \"e\"\nDATE \"now\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\nBEGIN_SAMPLE 0.00\nEND_SAMPLE 0.00\nBEGIN_SAMPLE 0.01\nEND_SAMPLE 0.01\n").unwrap();
    let o = gclab_in(&dir, &[], &["hp", "e.hp"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("warning: e.hp: its 2 samples hold no data"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn running_out_of_memory_under_a_process_limit_is_a_heap_overflow() {
    // The OS refusing memory (ulimit -v) is GHC's heap overflow, 251,
    // never an abort (134) of the allocator.
    for run in ["run --collector nogc binary-trees 20", "run --collector nogc lcss 1000000", "run lcss 1000000"] {
        let o = Command::new("bash")
            .args(["-c", &format!("ulimit -v 300000; exec {} {run}", env!("CARGO_BIN_EXE_gclab"))])
            .env_remove("GCLABRTS")
            .stdout(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(251), "{run}: {}", text(&o));
        assert!(text(&o).contains("out of memory"), "{run}: {}", text(&o));
    }
}

#[test]
fn a_damaged_eventlog_gives_diff_the_exit_code_eventlog_gives() {
    let dir = scratch("diff-damage");
    assert!(gclab_in(&dir, &[], &["run", "binary-trees", "10", "+RTS", "-l"]).status.success());
    let whole = std::fs::read(dir.join("binary-trees.eventlog")).unwrap();
    std::fs::write(dir.join("cut.eventlog"), &whole[..whole.len() * 2 / 3]).unwrap();
    let cut = gclab_in(&dir, &[], &["eventlog", "--no-plot", "cut.eventlog"]);
    assert_eq!(cut.status.code(), Some(3), "{}", text(&cut));
    let diff = gclab_in(&dir, &[], &["eventlog", "diff", "--no-plot", "binary-trees.eventlog", "cut.eventlog"]);
    assert_eq!(diff.status.code(), Some(3), "{}", text(&diff));
    std::fs::remove_dir_all(&dir).unwrap();
}
