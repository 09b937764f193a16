//! Structure-aware fuzzing of gclab's other inputs: the `+RTS` flag
//! parser, the experiment TOML loader and the `.hp` reader. Each target
//! is fed inputs built from its grammar with hostile values in every
//! place (huge, negative, not-a-number, infinite, empty, non-ASCII),
//! and must answer with a value or an error that says something, never a
//! panic or a hang; what it accepts must hold its invariants.
//!
//! 1,000 cases per target by default; `PROPTEST_CASES=1000000 cargo test
//! --release --test input_fuzz` for a long run of its own. (The eventlog
//! reader has its own, `eventlog_fuzz`.)

use gclab_experiments::experiment::Experiment;
use gclab_collectors::Registry;
use gclab_core::RtsFlags;
use gclab_heap_traverse::hp_file::parse as parse_hp;
use proptest::prelude::*;
use std::path::Path;

/// Cases to run: `PROPTEST_CASES`, else 1,000.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

/// Values that have broken parsers before, and ordinary ones.
fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| f.to_string()),
        prop::sample::select(vec!["", "0", "-0", "inf", "-inf", "nan", "NaN", "1e300", "1e-300", "1e20", "0.5", "2.5", "18446744073709551616", "9223372036854775807", "+1", "1_000", "0x10", "１", "é"]).prop_map(String::from),
    ]
}

fn size_suffix() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "k", "K", "m", "M", "g", "G", "b", "w", "kk", "e", "%"])
}

/// One `+RTS` flag: a real prefix (or a near miss) and a hostile value.
fn flag() -> impl Strategy<Value = String> {
    let prefixes = vec![
        "-A", "-AL", "-n", "-M", "-H", "-N", "-G", "-F", "-c", "-m", "-O", "-I", "-C", "-V", "-qg", "-qb", "-qn", "-qa", "-k", "-kc", "-ki", "-D", "-DS", "-h", "-hT", "-hc", "-hr", "-ho", "-hd", "-i", "-s", "-S", "-t", "-l", "-la", "-lg", "-ol", "-po", "-v", "-x", "-xn", "-w", "-Z", "-T", "-B", "-?", "--", "-", "",
        "--machine-readable", "--nonmoving-gc", "--copying-gc", "-qx", "-Q",
    ];
    prop_oneof![
        (prop::sample::select(prefixes), hostile_number(), size_suffix()).prop_map(|(p, n, s)| format!("{p}{n}{s}")),
        "\\PC{0,12}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any flags: a value or an error naming a flag (cut to its first 60
    /// characters); accepted flags are consistent.
    #[test]
    fn the_flag_parser_answers_any_flags(flags in prop::collection::vec(flag(), 0..6), env in prop::option::of(prop::collection::vec(flag(), 0..3))) {
        let env = env.map(|e| e.join(" "));
        match RtsFlags::from_env_and_args(env.as_deref(), &flags) {
            Ok(f) => {
                prop_assert!(f.capabilities >= 1 && f.generations >= 1 && f.alloc_area_blocks >= 1, "{f:?}");
                prop_assert!(f.max_heap_blocks == 0 || f.max_heap_blocks >= f.alloc_area_blocks, "{f:?}");
                prop_assert!(f.par_gc_threads <= f.capabilities, "{f:?} (0: as many as -N)");
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(text.starts_with("bad RTS option `") && text.len() < 400, "{text}");
            }
        }
    }
}

/// A valid experiment, as the mutations below start from.
const EXPERIMENT: &str = r#"name = "fuzz"
description = "fuzz"
repetitions = 2
warmup = 0
timeout_secs = 5
order = "random"
collectors = ["copying", "mark-sweep"]
[[workloads]]
name = "binary-trees"
args = [6]
[grid]
A = ["8k", "64k"]
[plot]
x = "A"
figures = ["gc_elapsed"]
"#;

/// A change to an experiment file: a line's value replaced, a line
/// dropped or repeated, or a line of garbage.
#[derive(Debug, Clone)]
enum Edit {
    Value { line: usize, value: String },
    Drop { line: usize },
    Repeat { line: usize },
    Insert { line: usize, text: String },
}

fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        hostile_number(),
        hostile_number().prop_map(|n| format!("{n:?}")),
        prop::collection::vec(hostile_number().prop_map(|n| format!("{n:?}")), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        prop::collection::vec(hostile_number(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        prop::sample::select(vec!["true", "[true, false]", "{}", "[[]]", "\"all\"", "[\"all\"]", "\"/abs\"", "\"..\"", "\"\"", "\"x/stats.txt\""]).prop_map(String::from),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    let lines = EXPERIMENT.lines().count();
    prop_oneof![
        (0..lines, toml_value()).prop_map(|(line, value)| Edit::Value { line, value }),
        (0..lines).prop_map(|line| Edit::Drop { line }),
        (0..lines).prop_map(|line| Edit::Repeat { line }),
        (0..lines, "\\PC{0,20}").prop_map(|(line, text)| Edit::Insert { line, text }),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for e in edits {
        let at = |l: usize| l.min(lines.len().saturating_sub(1));
        match e {
            Edit::Value { line, value } if !lines.is_empty() => {
                let i = at(*line);
                if let Some((key, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{key}= {value}");
                }
            }
            Edit::Drop { line } if !lines.is_empty() => {
                lines.remove(at(*line));
            }
            Edit::Repeat { line } if !lines.is_empty() => {
                let i = at(*line);
                lines.insert(i, lines[i].clone());
            }
            Edit::Insert { line, text } => lines.insert((*line).min(lines.len()), text.clone()),
            _ => {}
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any edit of a valid experiment: loaded, or an error naming the file;
    /// a loaded one has runs with distinct plain ids and a bounded count.
    #[test]
    fn the_experiment_loader_answers_any_edit(edits in prop::collection::vec(edit(), 0..4)) {
        let text = apply(EXPERIMENT, &edits);
        match Experiment::parse(Path::new("fuzz.toml"), &text, &Registry::builtin()) {
            Ok(exp) => {
                let runs = exp.runs();
                prop_assert!(!runs.is_empty() && runs.len() as u64 <= gclab_experiments::experiment::MAX_RUNS);
                let ids: std::collections::HashSet<&str> = runs.iter().map(|r| r.id.as_str()).collect();
                prop_assert_eq!(ids.len(), runs.len());
                prop_assert!(exp.timeout_secs > 0.0 && exp.timeout_secs <= gclab_experiments::experiment::MAX_TIMEOUT_SECS);
                prop_assert!(gclab_experiments::experiment::check_dir_name(&exp.name).is_ok(), "{}", exp.name);
            }
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.toml") && !e.message.is_empty(), "{e}"),
        }
    }
}

/// A `.hp` file as gclab and GHC write them.
const HP: &str = "JOB \"binary-trees 10\"\nDATE \"now\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\nBEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\nBEGIN_SAMPLE 0.010000\nNode\t24000\nInt\t160\nEND_SAMPLE 0.010000\nBEGIN_SAMPLE 0.020000\nNode\t48000\nEND_SAMPLE 0.020000\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any edit of a heap profile: samples with finite times in order, or
    /// an error naming a line or saying what is missing.
    #[test]
    fn the_hp_reader_answers_any_edit(edits in prop::collection::vec(prop_oneof![
        edit().prop_map(|e| match e { Edit::Value { line, value } => Edit::Insert { line, text: format!("BEGIN_SAMPLE {value}") }, other => other }),
        (0..13usize, hostile_number()).prop_map(|(line, n)| Edit::Insert { line, text: format!("Node\t{n}") }),
        (0..13usize, hostile_number()).prop_map(|(line, n)| Edit::Insert { line, text: format!("END_SAMPLE {n}") }),
    ], 0..4)) {
        let text = apply(HP, &edits);
        match parse_hp(&text) {
            Ok(samples) => {
                prop_assert!(samples.iter().all(|s| s.0.is_finite() && s.0 >= 0.0));
                prop_assert!(samples.windows(2).all(|w| w[0].0 <= w[1].0));
            }
            Err(e) => prop_assert!(e.starts_with("line ") || e.contains("ends inside"), "{e}"),
        }
    }
}
