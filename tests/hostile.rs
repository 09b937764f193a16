//! A careless or hostile user's inputs, each once a crash, a hang, a wrong
//! exit code or an unclear error, and each now refused up front with a
//! message that names what was wrong, or run to GHC's own outcome. One
//! test per family of inputs; the inputs of a family are several, since a
//! fix must hold for the class, not the example.

mod common;

use common::gclab;
use gclab_core::{Rts, RunError};
use std::process::Output;

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
                    let f = gclab::flags(rts).unwrap();
                    let rts_ = Rts::new(f.clone(), gclab_collectors::by_name(collector).unwrap().make(&f).unwrap()).unwrap();
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
                        (Err(RunError::HeapOverflow { max_heap_bytes }), true) => assert_eq!(max_heap_bytes, 64 << 20),
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
