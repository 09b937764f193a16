//! `concurrent-copying` (See the collectors' `concurrent_copying`): every
//! workload under the stress settings with the sanity checker after every
//! GC and sync (the to-space invariant on the roots included), checksums
//! equal to copying's, copying-out cycles that really ran and were ended
//! both ways (freed at a sync, and taken over by a major GC), several
//! mutators and GC threads, several copier threads, a heap limit, memcheck,
//! and a read barrier whose absence is caught.
//! Built only with the `access-hooks` feature (`scripts/test` runs
//! `cargo nextest run --release --features access-hooks --test
//! concurrent_copying`).
#![cfg(feature = "access-hooks")]

mod common;

use gclab::conformance::{check_collector, run_with, STRESS_SETTINGS};
use gclab_collectors::by_name;
use gclab_workloads::by_name as workload;
use gclab_core::{Handle, InfoTable, StaticObject};

fn collector() -> &'static gclab_collectors::CollectorEntry {
    by_name("concurrent-copying").expect("registered in a build with the read barrier")
}

#[test]
fn concurrent_copying_conforms_under_stress() {
    let c = check_collector(collector(), STRESS_SETTINGS).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.gcs > 10_000, "only {} GCs over the stress settings", c.gcs);
}

/// Runs that copy out: many major GCs (`-F1.2`) over an old generation
/// that churns, so that blocks go sparse.
const CHURN: &[(&str, &[usize])] = &[("lru", &[10000, 60000, 64]), ("hash", &[]), ("mutable-graph", &[4000, 200000]), ("fibheaps", &[20000]), ("power", &[])];

#[test]
fn cycles_copy_out_beside_the_mutators_and_keep_the_checksums() {
    let copying = by_name("copying").unwrap();
    let (mut cycles, mut mutator_copies, mut updated) = (0, 0, 0);
    for &(name, args) in CHURN {
        let w = workload(name).unwrap();
        let args = if args.is_empty() { w.small } else { args };
        let base = run_with(copying, w, args, "").unwrap();
        // The last setting marks in the pause and copies out any gain, so
        // that its cycles start without waiting for a marking beside the
        // mutators. See the bar below.
        let settings = [("", "-A64k -F1.2 -DS"), ("", "-A64k -F1.2 -N2 -qn2 -DS"), ("", "-A256k -F1.5 -G3 --sanity=minor:3"), ("threads=3", "-A64k -F1.2 -N2 -DS"), ("mark=sync,gain=0", "-A64k -F1.2 -N2 -DS")];
        for (params, rts) in settings {
            let r = run_params(params, w, args, rts).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.checksum, base.checksum, "{name} {args:?} +RTS {rts}");
            let c = r.stats.copy_out;
            cycles += c.cycles;
            mutator_copies += c.mutator_copies;
            updated += c.updated_fields;
            assert!(r.stats.concurrent_phases >= c.cycles, "{name} +RTS {rts}: each cycle is a concurrent phase");
        }
    }
    // How many cycles end depends on how much of the cores the marker,
    // the sweeper and the copier get: 64 on an idle 2-core machine, 50
    // with six other busy threads on it (fibheaps 44 of them; `-G3` none,
    // its old generation being seldom collected), where the bar was once
    // 50 for the first four settings alone and they made 24.
    assert!(cycles > 20, "only {cycles} copying-out cycles ran");
    assert!(mutator_copies > 0, "no mutator ever copied at the read barrier");
    assert!(updated > 1000, "the update pass pointed only {updated} fields at copies");
}

/// The dead words of blocks a sweep beside the mutators has not judged
/// yet are not slop (See Note [Unswept words are not slop] in the
/// collectors' `line_sweeper`): a marking's sweeps once made the maximum
/// slop most of the memory in use (binary-trees 20: 250-380 MB of 430-620
/// MiB); the sanity checker holds the count against the blocks.
#[test]
fn unswept_words_are_not_counted_as_slop() {
    let w = workload("binary-trees").unwrap();
    for rts in ["-A64k -DS", "-A64k -N2 -DS"] {
        let r = run_params("", w, &[15], rts).unwrap_or_else(|e| panic!("{e}"));
        let (slop, memory) = (r.stats.max_slop_bytes, r.stats.max_mem_in_use_bytes);
        assert!(r.stats.concurrent_phases > 0, "+RTS {rts}: no marking ran");
        assert!(slop * 20 < memory, "+RTS {rts}: maximum slop {slop} bytes of {memory} in use");
    }
}

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static INT: InfoTable = InfoTable::constr("I#", "Int", "Test", 0, 1);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 0);

/// Without `-DS`, the sync that ends a marking leaves the blocks it judged
/// attached to the marks, and the sweeper flags each as it judges it; a
/// walk of the heap between GCs (the program's own sanity check here, as
/// `Gc.stat` walks) first flags unswept every block the sweeper has not
/// judged (the collectors' Note [Blocks flagged unswept when a walk needs
/// them]). A block left attached would be walked whole, its dead objects
/// read as live words, which the checker holds against the generation's
/// count. The program keeps four lists of 3,000 cells and drops the
/// oldest each round, so every marking finds most of the old generation
/// dead, and checks the heap after every round.
#[test]
fn a_walk_during_a_sweep_finds_the_blocks_not_judged_flagged_unswept() {
    let rts = gclab::runtime("-A64k", "concurrent-copying").unwrap();
    let checks = rts.run(|m| {
        let unit = m.static_obj(&UNIT);
        let lists: Vec<Handle> = (0..4).map(|_| m.dup(unit)).collect();
        let depth = m.depth();
        for round in 0..300 {
            let list = lists[round % 4];
            m.set(list, unit);
            for i in 0..3000 {
                let v = m.alloc(&INT, &[], &[i]);
                let cell = m.alloc(&PAIR, &[v, list], &[]);
                m.set(list, cell);
                m.truncate(depth);
            }
            m.check_heap().unwrap_or_else(|v| panic!("round {round}: {} violations: {:?}", v.len(), &v[..v.len().min(3)]));
        }
        300
    });
    assert_eq!(checks.unwrap(), 300);
    let s = rts.stats();
    assert!(s.concurrent_phases > 10, "only {} phases ran beside the mutator", s.concurrent_phases);
}

/// Under a heap limit that `immix` runs in, `concurrent-copying` runs
/// too: a major GC that the limit forces is done in its pause,
/// defragmenting as `immix` does, and finishes a marking, sweep or
/// copying-out under way (a degenerate collection). Before, a marking
/// begun near the limit freed nothing in its pause, and lru ended in a
/// heap overflow at `-M48m`; it now runs at `-M40m`, as `immix` does.
#[test]
fn under_a_tight_heap_limit_it_runs_where_immix_does() {
    let w = workload("lru").unwrap();
    let args = [150_000, 1_000_000, 128];
    let immix = run_with(by_name("immix").unwrap(), w, &args, "-M40m").unwrap_or_else(|e| panic!("immix: {e}"));
    for rts in ["-M40m", "-M44m -A256k", "-M48m -N2"] {
        let r = run_with(collector(), w, &args, rts).unwrap_or_else(|e| panic!("+RTS {rts}: {e}"));
        assert_eq!(r.checksum, immix.checksum, "+RTS {rts}");
        assert!(r.stats.major_gcs > 0, "+RTS {rts}: no major GC under the limit");
    }
}

/// A thread that loses the claim zeroes every word it took (See Note [A
/// loser zeroes the words it took] in the collectors' `copy_out`). The
/// race is a copier and a mutator copying the same byte array at once, so
/// this test is a stress: before the fix each of these runs failed the
/// sanity check or crashed about one time in seven on a 2-core machine,
/// so thirty of them caught it with odds of about 99 in 100.
#[test]
fn a_claimer_that_loses_leaves_no_words_of_its_copy() {
    let args = ["lru", "2000", "100000"];
    let (ok, expected) = gclab(&[&["run", "--collector", "copying"][..], &args].concat());
    assert!(ok, "copying's run failed");
    let stress = ["+RTS", "-A8k", "-G2", "-O8k", "-F1", "-N2", "-DS"];
    for i in 0..30 {
        let (ok, out) = gclab(&[&["run", "--collector", "concurrent-copying"][..], &args, &stress].concat());
        assert!(ok, "run {i} of lru 2000 100000 +RTS {} failed", stress[1..].join(" "));
        assert_eq!(out, expected, "run {i}: not copying's output");
    }
}

/// A run of `concurrent-copying` with collector parameters `params`.
fn run_params(params: &str, w: &gclab_workloads::Workload, args: &[usize], rts: &str) -> Result<gclab::RunOutcome, String> {
    let flags = gclab::flags(rts).map_err(|e| e.to_string())?;
    let c = (collector().make)(gclab_collectors::Params::parse(params)?, &flags)?;
    gclab::run_workload(w, args, flags, c, &mut std::io::sink()).map_err(|e| format!("{} {args:?} +RTS {rts} ({params}): {e}", w.name))
}

/// The copying-out cycles `-s` counted in `stderr`, if it printed the line.
fn copy_out_cycles(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| l.trim().strip_prefix("Copying out: ")?.split(' ').next()?.parse::<u64>().ok())
}

/// `gclab` with `args`: its exit status and output.
fn gclab(args: &[&str]) -> (bool, String) {
    let out = common::gclab(args);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The test-only fault that leaves the read barrier off.
const NO_BARRIER: (&str, &str) = ("GCLAB_CONCURRENT_COPYING_FAULT", "no-barrier");

/// The workloads the fault runs on, each sized so that its run copies
/// out: `hash` at its small size copied out once, a few hundred bytes at
/// the run's end, and the fault went unseen (0 runs of 6 caught).
const FAULT_RUNS: &[(&str, &[usize])] = &[("lru", &[10000, 60000, 64]), ("hash", &[10000, 100000]), ("mutable-graph", &[4000, 200000]), ("fibheaps", &[20000]), ("power", &[80, 4])];

#[test]
fn without_the_read_barrier_the_checks_fail() {
    // The fault leaves the barrier off: mutators go on reading and writing
    // the from-space objects after they are copied; the run must crash,
    // fail a sanity check, or print something other than copying does.
    //
    // A fault can only show in a run that copies out. With the marking
    // beside the mutators a loaded machine finished few markings before
    // the run ended (CI caught 2 of 5 once: `hash` and `power` had run no
    // cycle at all), so the marking is done in the pause (`mark=sync`) and
    // any gain starts a cycle (`gain=0`): cycles then start without
    // waiting for a marking, though each still waits for the sweep and
    // its copier beside the mutators. A run that missed says how many
    // cycles each try ended (`-s`).
    let collector = "concurrent-copying:mark=sync,gain=0";
    for &(name, args) in FAULT_RUNS {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let mut cmd: Vec<&str> = vec!["run", "--collector", "copying", name];
        cmd.extend(args.iter().map(String::as_str));
        let (ok, expected) = gclab(&cmd);
        assert!(ok, "{name} under copying");
        cmd[2] = collector;
        cmd.extend(["+RTS", "-A16k", "-F1.2", "-DS", "-s"]);
        let (healthy, sound) = gclab(&cmd);
        assert!(healthy && sound == expected, "{name} with the read barrier");
        // Which reads meet a copied object is the threads' race, and on a
        // busy machine a run may end before its copier ends a cycle: a
        // run may pass by luck or copy nothing out, five in a row may not.
        let mut cycles_seen = Vec::new();
        let caught = (0..5).any(|_| {
            let run = common::gclab_with_env(&cmd, &[NO_BARRIER]);
            cycles_seen.push(copy_out_cycles(&String::from_utf8_lossy(&run.stderr)));
            !run.status.success() || String::from_utf8_lossy(&run.stdout) != expected
        });
        assert!(caught, "{name}: five runs without the read barrier passed every check (copying-out cycles in each: {cycles_seen:?}; {} +RTS -A16k -F1.2 -DS)", args.join(" "));
    }
}

/// The pause that begins a marking marks nothing: it lists the old
/// objects that the roots and the young generations reach, and the marker
/// greys them once it has attached the snapshot (the collectors' Note
/// [The marker attaches its snapshot]). With that list dropped
/// (`GCLAB_CONCURRENT_COPYING_FAULT=lose-reached`) the marking misses the
/// long-lived tree, which only a root leads to, and the snapshot check at
/// the marking's end must fail the run (exit 254, GHC's code for a failed
/// check). A marking still running when the run ends is dropped unchecked,
/// so each try reports the markings it began (`-s`).
#[test]
fn losing_what_the_first_pause_reached_is_caught_at_the_end_of_the_marking() {
    let args = ["run", "--collector", "concurrent-copying", "binary-trees", "13", "+RTS", "-A64k", "-DS", "-s"];
    let sound = common::gclab(&args);
    assert!(sound.status.success(), "{}", String::from_utf8_lossy(&sound.stderr));
    let mut tries = Vec::new();
    let caught = (0..5).any(|_| {
        let run = common::gclab_with_env(&args, &[("GCLAB_CONCURRENT_COPYING_FAULT", "lose-reached")]);
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        let markings = err.lines().find(|l| l.trim_start().starts_with("Gen  1") && l.contains("colls")).map(str::trim).map(String::from);
        tries.push((run.status.code(), markings));
        run.status.code() == Some(254) && err.contains("heap sanity check failed at the end of a concurrent-copying marking") && err.contains("which was not marked")
    });
    assert!(caught, "five runs without the reached list passed the snapshot check (exit codes and markings: {tries:?})");
}

#[test]
fn a_bad_thread_count_is_refused_by_name() {
    for bad in ["threads=0", "threads=65", "threads=many"] {
        let made = (collector().make)(gclab_collectors::Params::parse(bad).unwrap(), &gclab::flags("").unwrap());
        let Err(e) = made else { panic!("{bad} was accepted") };
        assert!(e.contains(bad) && e.contains("copier threads"), "{bad}: {e}");
    }
}

/// The marker, the line sweeper, the copier threads, the mutators' copies
/// at the read barrier and the update pass, under valgrind's memcheck: no
/// invalid read or write, no uninitialised value, no leak. Valgrind runs
/// one thread at a time; with its fair scheduling the collector's threads
/// get their turns, so cycles finish (without it, the first cycle outlived
/// the run). Valgrind is installed by `.ci/run`.
#[test]
fn concurrent_copying_is_clean_under_memcheck() {
    for (collector, rts) in [("concurrent-copying:mark=sync", "-A16k -F1.2 -DS"), ("concurrent-copying:threads=2", "-N2 -A16k -F1.2 -DS")] {
        let out = std::process::Command::new("valgrind")
            .args(["--tool=memcheck", "--fair-sched=yes", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
            .arg(env!("CARGO_BIN_EXE_gclab"))
            .args(["run", "--collector", collector, "fibheaps", "8000", "+RTS", "-s"])
            .args(rts.split(' '))
            .output()
            .expect("valgrind is installed (.ci/run installs it)");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "memcheck found errors in {collector} +RTS {rts}:\n{stderr}");
        let cycles = copy_out_cycles(&stderr);
        assert!(cycles.is_some_and(|c| c > 0), "{collector} +RTS {rts}: no copying-out cycle ended under memcheck:\n{stderr}");
    }
}

/// A run that copies out writes an eventlog GHC's parser reads (gclab's
/// own `COPY_OUT_BEGIN` and `COPY_OUT_END`, 249 and 250, skipped by their
/// declared sizes, beside GHC's marking, sweep and sync events), and
/// `gclab eventlog` reads the cycles back as `-s` counts them.
#[test]
fn ghc_events_reads_a_copying_out_runs_eventlog() {
    let dir = std::env::temp_dir().join(format!("gclab-cc-ev-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cc.eventlog");
    let ol = format!("-ol{}", file.display());
    let o = common::gclab(&["run", "--collector", "concurrent-copying", "fibheaps", "20000", "+RTS", "-A64k", "-F1.2", "-s", "-l", ol.as_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let counts = common::ghc_events_counts(&file);
    let (begun, ended) = (counts.get("UnknownEvent249").copied().unwrap_or(0), counts.get("UnknownEvent250").copied().unwrap_or(0));
    assert!(ended > 0 && begun >= ended && begun <= ended + 1, "copying-out cycles begun {begun}, ended {ended}: {counts:?}");
    for kind in ["ConcMarkBegin", "ConcMarkEnd", "ConcSweepBegin", "ConcSweepEnd", "ConcSyncBegin", "ConcSyncEnd"] {
        assert!(counts.get(kind).copied().unwrap_or(0) > 0, "no {kind}: {counts:?}");
    }
    assert_eq!(counts["StartGC"], counts["EndGC"]);
    let summary = common::gclab(&["eventlog", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&summary.stdout);
    assert!(text.contains(&format!("Copying out: {ended} cycles")), "gclab eventlog's summary:\n{text}");
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("Copying out: {ended} cycles")), "-s and the eventlog disagree");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The interpreter's programs, whose machine moves values between its
/// evaluation stack and objects' fields without following them, keep the
/// to-space invariant: before the stack's reads went through the read
/// hook, a field loaded into a slot could carry a from-space address
/// into a young object, and the sanity checker found lru.hs's and
/// treejoin.hs's young objects pointing at freed from-space words after
/// the sync that freed it.
#[test]
fn programs_keep_the_to_space_invariant() {
    let entry = collector();
    let mut cycles = 0;
    for (name, arg) in [("lru", "3000"), ("treejoin", "2000"), ("fibheaps", "3000"), ("mutstore", "3000")] {
        let code = gclab_lang::load(std::path::Path::new(&format!("programs/{name}.hs"))).unwrap_or_else(|e| panic!("{e}"));
        let rts = format!("-A64k -DS {}", entry.flags);
        let flags = gclab::flags(&rts).unwrap();
        let made = (entry.make)(gclab_collectors::Params::parse("live=90").unwrap(), &flags).unwrap();
        let mut out = Vec::new();
        let (outcome, stop) = gclab::run_program(&code, vec![arg.to_string()], flags, made, &mut out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(stop.is_none(), "{name}: {stop:?}");
        let copying = by_name("copying").unwrap();
        let flags = gclab::flags("").unwrap();
        let mut want = Vec::new();
        gclab::run_program(&code, vec![arg.to_string()], flags.clone(), copying.make(&flags).unwrap(), &mut want).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(want).unwrap(), "{name} {arg}");
        cycles += outcome.stats.copy_out.cycles;
    }
    assert!(cycles > 10, "only {cycles} copying-out cycles ran");
}
