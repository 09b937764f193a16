//! The `gclab` command as a user meets it: flags, errors, exit codes, reports.

use std::process::{Command, Output};

fn gclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).env_remove("GCLABRTS").output().expect("gclab runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn bad_flags_name_the_flag_exit_nonzero_and_do_no_work() {
    for (flag, needle) in [
        ("-A0", "-A0"),
        ("-Gx", "-Gx"),
        ("-F-1", "-F-1"),
        ("-Q", "-Q"),
        ("-c101", "-c101"),
        ("-qx", "-qx"),
        ("-qn3", "-qn3"),
    ] {
        let o = gclab(&["run", "binary-trees", "10", "+RTS", flag, "-RTS"]);
        assert!(!o.status.success(), "{flag} was accepted");
        assert!(stderr(&o).contains(needle), "{flag}: stderr does not name it: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{flag}: the workload ran anyway");
    }
    let o = gclab(&["run", "binary-trees", "10", "+RTS", "-A4m", "-M1m"]);
    assert!(!o.status.success() && stderr(&o).contains("smaller than the allocation area"), "{}", stderr(&o));
    let o = gclab(&["run", "binary-trees", "10", "+RTS", "-xn", "-G1"]);
    assert!(!o.status.success() && stderr(&o).contains("-G1"), "{}", stderr(&o));
}

#[test]
fn bad_workloads_and_collectors_are_errors() {
    let o = gclab(&["run", "no-such-workload"]);
    assert!(!o.status.success() && stderr(&o).contains("unknown workload `no-such-workload'"));
    let o = gclab(&["run", "binary-trees", "ten"]);
    assert!(!o.status.success() && stderr(&o).contains("`ten'"));
    let o = gclab(&["run", "--collector", "nope", "binary-trees", "6"]);
    assert!(!o.status.success() && stderr(&o).contains("unknown collector `nope'"));
    let o = gclab(&["run", "--collector", "copying", "binary-trees", "6", "+RTS", "-c"]);
    assert!(!o.status.success() && stderr(&o).contains("contradicts"), "{}", stderr(&o));
    let o = gclab(&["run", "--collector", "compacting", "binary-trees", "6", "+RTS", "-xn"]);
    assert!(!o.status.success() && stderr(&o).contains("contradicts") && stderr(&o).contains("-xn"), "{}", stderr(&o));
}

#[test]
fn heap_overflow_is_ghcs_message_and_exit_code() {
    let o = gclab(&["run", "binary-trees", "18", "+RTS", "-M4m", "-s"]);
    assert_eq!(o.status.code(), Some(251));
    let e = stderr(&o);
    assert!(e.contains("gclab: Heap exhausted;"), "{e}");
    assert!(e.contains("Current maximum heap size is 4194304 bytes (4 MB)."), "{e}");
    assert!(e.contains("Use `+RTS -M<size>' to increase it."), "{e}");
    assert!(!e.contains("panicked"), "a panic leaked out: {e}");
    assert!(e.contains("bytes allocated in the heap"), "the -s report is still printed: {e}");
}

#[test]
fn statistics_reports_have_ghcs_shape() {
    let o = gclab(&["run", "binary-trees", "12", "+RTS", "-S", "-A64k"]);
    assert!(o.status.success());
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[0], "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts");
    assert!(lines[2].ends_with("(Gen:  0)") || lines[2].ends_with("(Gen:  1)"), "{}", lines[2]);
    for label in ["bytes allocated in the heap", "bytes copied during GC", "bytes maximum residency", "MiB total memory in use", "Gen  0", "Gen  1", "INIT    time", "MUT     time", "GC      time", "Total   time", "%GC     time", "Alloc rate", "Productivity"] {
        assert!(e.contains(label), "-S output lacks `{label}'");
    }
    let o = gclab(&["run", "binary-trees", "10", "+RTS", "-t"]);
    assert!(stderr(&o).starts_with("<<ghc: ") && stderr(&o).trim_end().ends_with(":ghc>>"), "{}", stderr(&o));
    let o = gclab(&["run", "binary-trees", "10", "+RTS", "-t", "--machine-readable"]);
    let e = stderr(&o);
    assert!(e.starts_with(" [(\"bytes allocated\", \""), "{e}");
    for key in ["num_GCs", "max_bytes_used", "gen_0_collections", "gen_1_max_pause_seconds", "copied_bytes", "gen_1_compactions"] {
        assert!(e.contains(&format!("(\"{key}\", ")), "machine-readable lacks {key}");
    }
}

#[test]
fn rts_options_come_from_the_environment_and_the_command_line_wins() {
    let o = Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "binary-trees", "6"]).env("GCLABRTS", "-Gx").output().unwrap();
    assert!(!o.status.success() && stderr(&o).contains("-Gx"));
    let o = Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "binary-trees", "10", "+RTS", "-G3", "-t", "--machine-readable"]).env("GCLABRTS", "-G2").output().unwrap();
    assert!(stderr(&o).contains("gen_2_collections"), "the command line's -G3 did not win");
}

#[test]
fn help_list_and_json_record() {
    let o = gclab(&["run", "+RTS", "-?"]);
    assert!(o.status.success());
    for text in ["  -A<size>", "  -M<size>", "  -DS", "  -l[flags]", "  -h<b>", "  copying", "  compacting", "  two-space", "1024"] {
        assert!(stdout(&o).contains(text), "+RTS -? lacks {text}");
    }
    assert!(stdout(&o).lines().filter(|l| l.starts_with("  -")).count() >= 24, "the flags are listed, indented");
    let o = gclab(&["list"]);
    for name in ["copying", "two-space", "binary-trees", "gcbench", "lru", "mutable-graph", "large-arrays", "thunks"] {
        assert!(stdout(&o).contains(name), "gclab list lacks {name}");
    }
    let dir = std::env::temp_dir().join(format!("gclab-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.json");
    let o = gclab(&["run", "--json", path.to_str().unwrap(), "binary-trees", "10", "+RTS", "-A64k"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["workload"], "binary-trees");
    assert_eq!(v["collector"], "copying");
    assert!(v["stats"]["gcs"].as_u64().unwrap() > 0);
    assert_eq!(v["stats"]["allocated_bytes"], v["stats"]["cap_allocated_bytes"][0]);
    assert_eq!(v["checksum"].as_str().unwrap().len(), 16);
    assert!(v["latency"].get("safepoint_max").is_none(), "one capability: no time to safepoint");
    // With two capabilities the leader waits for the other at each GC.
    let o = gclab(&["run", "--json", path.to_str().unwrap(), "binary-trees", "12", "+RTS", "-N2", "-A64k"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let latency = &v["latency"];
    assert_eq!(latency["safepoint_count"], v["stats"]["gcs"]);
    assert_eq!(v["safepoint_waits"].as_array().unwrap().len() as u64, v["stats"]["gcs"].as_u64().unwrap(), "per GC too");
    let (p50, max) = (latency["safepoint_p50"].as_f64().unwrap(), latency["safepoint_max"].as_f64().unwrap());
    assert!(0.0 <= p50 && p50 <= max, "{latency}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_collector_named_on_the_command_line_brings_its_own_flags() {
    // --collector compacting means -c: major GCs compact without it given.
    let json = std::env::temp_dir().join(format!("gclab-cli-compact-{}.json", std::process::id()));
    let o = gclab(&["run", "--collector", "compacting", "--json", json.to_str().unwrap(), "lru", "2000", "20000", "64", "+RTS", "-A16k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    let gens = record["stats"]["gens"].as_array().unwrap();
    assert!(gens[1]["compactions"].as_u64().unwrap() > 0, "--collector compacting did not compact: {record}");
    // --collector two-space means -G1 unless -G says otherwise.
    assert!(gclab(&["run", "--collector", "two-space", "binary-trees", "8"]).status.success());
    let o = gclab(&["run", "--collector", "two-space", "binary-trees", "8", "+RTS", "-G3"]);
    assert!(!o.status.success() && stderr(&o).contains("-G3") && stderr(&o).contains("-G1"), "{}", stderr(&o));
}

/// Every output that cannot be written (a full disk: /dev/full) is an
/// error naming it, exit 1 (74, EX_IOERR, for a run's outputs, so that a
/// sweep can tell), never a panic or a silent exit 0.
#[test]
fn a_full_disk_is_an_error_naming_the_output() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let to_full = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).env_remove("GCLABRTS").stdout(full()).output().unwrap();
    for args in [vec!["list"], vec!["run", "binary-trees", "10"], vec!["run", "binary-trees", "8", "+RTS", "-v"], vec!["run", "+RTS", "-?"]] {
        let o = to_full(&args);
        assert_eq!(o.status.code(), Some(if args[0] == "run" { 74 } else { 1 }), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("standard output") && stderr(&o).contains("No space left"), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    // Files: each a link to /dev/full.
    let dir = std::env::temp_dir().join(format!("gclab-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["p.hp", "e.eventlog", "s.txt"] {
        std::os::unix::fs::symlink("/dev/full", dir.join(name)).unwrap();
    }
    let at = |name: &str| dir.join(name).display().to_string();
    for (flags, says) in [
        (vec!["-hT".to_string(), format!("-po{}", at("p"))], format!("cannot write the heap profile {}", at("p.hp"))),
        (vec!["-l".to_string(), format!("-ol{}", at("e.eventlog"))], format!("cannot write the eventlog {}", at("e.eventlog"))),
        (vec![format!("-S{}", at("s.txt"))], format!("cannot write the statistics file {}", at("s.txt"))),
    ] {
        let mut args = vec!["run", "binary-trees", "12", "+RTS"];
        args.extend(flags.iter().map(String::as_str));
        let o = gclab(&args);
        assert_eq!(o.status.code(), Some(74), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&says), "{flags:?}: {}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gclab hp` on a malformed `.hp`: an error naming the file and line,
/// never a hang (an infinite time once hung at full CPU) or a blank plot.
#[test]
fn a_malformed_heap_profile_is_an_error_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("gclab-badhp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let head = "JOB \"x\"\nDATE \"now\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n";
    for (name, body, says) in [
        ("inf", "BEGIN_SAMPLE inf\nEND_SAMPLE inf\n", "line 5: sample time `inf'"),
        ("nan", "BEGIN_SAMPLE nan\nEND_SAMPLE nan\n", "line 5: sample time `nan'"),
        ("back", "BEGIN_SAMPLE 2.0\nEND_SAMPLE 2.0\nBEGIN_SAMPLE 1.0\nEND_SAMPLE 1.0\n", "line 7: sample time `1.0'"),
        ("cut", "BEGIN_SAMPLE 0.0\nx\t10\n", "ends inside the sample begun at line 5"),
        ("bytes", "BEGIN_SAMPLE 0.0\nx\tmany\nEND_SAMPLE 0.0\n", "line 6: bad byte count `many'"),
        ("empty", "", "no samples"),
    ] {
        let file = dir.join(format!("{name}.hp"));
        std::fs::write(&file, format!("{head}{body}")).unwrap();
        let start = std::time::Instant::now();
        let o = gclab(&["hp", file.to_str().unwrap()]);
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{name}: took {:?}", start.elapsed());
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("{name}.hp")) && stderr(&o).contains(says), "{name}: {}", stderr(&o));
        assert!(!dir.join(format!("{name}.svg")).exists(), "{name}: nothing drawn");
    }
    // A picture that cannot be written names it and leaves no part of it.
    let good = dir.join("good.hp");
    std::fs::write(&good, format!("{head}BEGIN_SAMPLE 0.0\nx\t10\nEND_SAMPLE 0.0\nBEGIN_SAMPLE 1.0\nx\t20\nEND_SAMPLE 1.0\n")).unwrap();
    let o = gclab(&["hp", good.to_str().unwrap(), "--out", dir.join("missing").join("p").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write") && stderr(&o).contains("missing/p.svg") && stderr(&o).contains("does not exist"), "{}", stderr(&o));
    assert!(!dir.join("missing").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Messages say what was wrong and where it came from.
#[test]
fn messages_name_the_source_and_keep_the_users_words() {
    let g = |args: &[&str], env: Option<&std::ffi::OsStr>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gclab"));
        c.args(args).env_remove("GCLABRTS");
        if let Some(v) = env {
            c.env("GCLABRTS", v);
        }
        c.output().unwrap()
    };
    let o = g(&["run", "binary-trees", "4"], Some(std::ffi::OsStr::new("-Qx")));
    assert!(stderr(&o).contains("in GCLABRTS=\"-Qx\"") && o.status.code() == Some(1), "{}", stderr(&o));
    use std::os::unix::ffi::OsStrExt;
    let o = g(&["run", "binary-trees", "4"], Some(std::ffi::OsStr::from_bytes(b"-s -A\xff")));
    assert!(stderr(&o).contains("GCLABRTS is not UTF-8") && o.status.code() == Some(1), "{}", stderr(&o));
    let o = g(&["run"], None);
    assert!(stderr(&o).contains("no workload given") && o.status.code() == Some(1), "{}", stderr(&o));
    let o = g(&["run", "binary-trees", "4", "+RTS", "-M1m", "-A2m"], None);
    assert!(stderr(&o).contains("`-M1m'") && stderr(&o).contains("(-A2m)"), "{}", stderr(&o));
    let long = format!("-Q{}", "x".repeat(100_000));
    let o = g(&["run", "binary-trees", "4", "+RTS", &long], None);
    assert!(stderr(&o).len() < 400 && stderr(&o).contains("(100002 bytes)"), "{} bytes of message", stderr(&o).len());
}

/// Arguments and flags that cannot fit are refused before the run, with
/// what they need (they ran until the OS refused memory). (Arguments
/// outside their ranges are refused earlier still: tests/hostile.rs.)
#[test]
fn sizes_that_cannot_fit_are_refused_up_front() {
    for (args, code, says) in [
        (vec!["run", "binary-trees", "30"], 1, "binary-trees 30 holds at least"),
        (vec!["run", "lru", "1000000000", "10", "8"], 1, "lru 1000000000 10 8 holds at least"),
        (vec!["run", "binary-trees", "4", "+RTS", "-N1024", "-A1g"], 1, "-N1024 with -A1048576 KiB needs"),
    ] {
        let start = std::time::Instant::now();
        let o = gclab(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "{args:?} was run, not refused");
    }
}
