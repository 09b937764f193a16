//! `gclab stress`: random runs with the sanity checker on, each in its own
//! process; a failure (a sanity check, a crash) is reported with the
//! command that repeats it, and the campaign goes on.

mod common;

use common::{gclab, gclab_with_env};

fn stderr_and_out(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Run `gclab stress` with `args`, which must make `runs` runs (`": 0"`:
/// none at all) and fail none; what it printed.
fn clean_campaign(args: &[&str], runs: &str) -> String {
    let o = gclab(args);
    let text = stderr_and_out(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains(&format!("{runs} run(s), 0 failed")), "{text}");
    text
}

#[test]
fn a_clean_campaign_makes_its_runs_and_exits_zero() {
    clean_campaign(&["stress", "--runs", "8", "--seed", "2", "--collector", "copying", "--collector", "mark-sweep", "--workload", "binary-trees", "--workload", "lru", "--quiet"], "8");
}

/// A collector's line of the summary's `reached:` part: how many of its
/// runs reached a phase beside the mutators, of how many (See Note [What
/// a campaign reached] in `stress`).
fn reached(text: &str, collector: &str) -> (usize, usize) {
    let line = text.lines().find_map(|l| l.trim().strip_prefix(&format!("{collector}: "))).unwrap_or_else(|| panic!("no line for {collector}: {text}"));
    let words: Vec<&str> = line.split(' ').collect();
    (words[0].parse().unwrap(), words[2].parse().unwrap())
}

#[test]
fn the_summary_counts_each_collectors_runs_that_reached_a_concurrent_phase() {
    let text = clean_campaign(&["stress", "--runs", "8", "--seed", "4", "--collector", "copying", "--collector", "nonmoving", "--workload", "fibheaps", "--workload", "gcbench", "--setting", "-A16k -F1.2 -DS", "--quiet"], "8");
    let (copying, copying_runs) = reached(&text, "copying");
    let (nonmoving, nonmoving_runs) = reached(&text, "nonmoving");
    assert_eq!(copying_runs + nonmoving_runs, 8, "{text}");
    assert_eq!(copying, 0, "copying never runs beside the mutators: {text}");
    // Whether a marking ends before the run does is the threads' race; at
    // these sizes it did in 12 runs of 12 on an idle machine.
    assert!(nonmoving > 0 && nonmoving <= nonmoving_runs, "nonmoving marks fibheaps and gcbench beside the mutators: {text}");
    assert!(text.contains(&format!("reached: {nonmoving} run(s) with a phase beside the mutators, 0 with a copying-out cycle, of 8")), "{text}");
}

#[test]
fn a_collector_that_loses_objects_fails_with_the_command_that_repeats_it() {
    let args = ["stress", "--runs", "2", "--collector", "nonmoving:mark=sync", "--workload", "binary-trees", "--setting", "-A8k -G2 -O8k -F1 -DS", "--quiet"];
    let o = gclab_with_env(&args, &[("GCLAB_NONMOVING_FAULT", "lose-grey")]);
    let text = stderr_and_out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("2 run(s), 2 failed"), "{text}");
    assert!(text.contains("FAILED: gclab run --collector nonmoving:mark=sync binary-trees 8 +RTS -A8k -G2 -O8k -F1 -DS -RTS"), "{text}");
    assert!(text.contains("which was not marked"), "the sanity check's first violation is shown: {text}");
}

#[test]
fn at_the_default_size_runs_take_the_workloads_default_arguments_and_cheaper_checks() {
    // A failing run's repeat command shows what it ran: gcbench's default
    // stretch depth (18; its small size is 10).
    let args = ["stress", "--runs", "1", "--size", "default", "--collector", "nonmoving:mark=sync", "--workload", "gcbench", "--setting", "-A64k -DS", "--quiet"];
    let o = gclab_with_env(&args, &[("GCLAB_NONMOVING_FAULT", "lose-grey")]);
    let text = stderr_and_out(&o);
    assert!(text.contains("FAILED: gclab run --collector nonmoving:mark=sync gcbench 18 +RTS -A64k -DS -RTS"), "{text}");
    // Without --setting, the default size draws the --sanity=minor settings.
    let o = gclab(&["stress", "--runs", "2", "--size", "default", "--collector", "copying", "--workload", "crash", "--quiet"]);
    let text = stderr_and_out(&o);
    let commands: Vec<&str> = text.lines().filter(|l| l.starts_with("FAILED: ")).collect();
    assert_eq!(commands.len(), 2, "{text}");
    assert!(commands.iter().all(|c| c.contains("--sanity=minor") && !c.contains("-DS")), "{text}");
}

#[test]
fn a_crash_is_a_failure_and_the_campaign_goes_on() {
    let o = gclab(&["stress", "--runs", "3", "--collector", "copying", "--workload", "crash", "--quiet"]);
    let text = stderr_and_out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("3 run(s), 3 failed") && text.contains("killed by signal"), "{text}");
}

#[test]
fn combinations_a_collector_refuses_are_not_run() {
    let text = clean_campaign(&["stress", "--minutes", "0.01", "--collector", "two-space", "--setting", "-A8k -G3 -DS", "--workload", "binary-trees", "--quiet"], ": 0");
    let refused: usize = text.split_once(" draw(s) not run").and_then(|(before, _)| before.rsplit(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(refused > 0, "two-space refuses -G3, so its draws were refused: {text}");
}

#[test]
fn bad_options_are_refused_by_name() {
    for (args, says) in [
        (&["stress", "--collector", "nope"][..], "unknown collector `nope'"),
        (&["stress", "--workload", "nope"][..], "unknown workload `nope'"),
        (&["stress", "--setting", "-Q9"][..], "bad RTS option `-Q9'"),
        (&["stress", "--minutes", "0"][..], "--minutes must be a positive number"),
        (&["stress", "--size", "huge"][..], "--size must be small or default, not `huge'"),
    ] {
        let o = gclab(args);
        let text = stderr_and_out(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
    }
}

#[test]
fn programs_of_gclab_lang_are_drawn_too() {
    let text = clean_campaign(&["stress", "--runs", "6", "--seed", "4", "--programs", "programs", "--workload", "binary-trees", "--collector", "immix", "--setting", "-A8k -G2 -O8k -F1 -DS", "--quiet"], "6");
    let covered: usize = text.split("collector(s), ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(covered >= 2, "binary-trees and some program ran: {text}");
    let o = gclab(&["stress", "--programs", "nowhere"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_and_out(&o).contains("nowhere/test-args.txt"), "{}", stderr_and_out(&o));
}
