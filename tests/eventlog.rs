//! The eventlog as its real clients see it: GHC's own parser (the
//! ghc-events library, through tools/eventlog-check.hs) reads every
//! eventlog gclab writes; `gclab eventlog` gives the figures `-s` gives,
//! for gclab's runs and for a GHC program's; bad files are clear errors.
//! `.ci/run` installs ghc and libghc-ghc-events-dev.

mod common;

use common::{gclab, ghc_events_counts, summary_count};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gclab-ev-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const REQUIRED: &[&str] = &[
    "CreateThread", "RunThread", "StopThread", "RtsIdentifier", "ProgramArgs", "OsProcessPid", "OsProcessParentPid", "WallClockTime", "CapsetCreate", "CapsetAssignCap", "CapCreate",
    "RequestSeqGC", "StartGC", "EndGC", "GlobalSyncGC", "GCWork", "GCIdle", "GCDone", "GCStatsGHC", "HeapAllocated", "HeapSize", "HeapLive", "HeapInfoGHC",
];

/// The nonmoving collector's events (GHC's, with `-ln` for the census).
const CONCURRENT: &[&str] = &["ConcMarkBegin", "ConcMarkEnd", "ConcSyncBegin", "ConcSyncEnd", "ConcSweepBegin", "ConcSweepEnd", "NonmovingHeapCensus"];

#[test]
fn ghc_events_parses_the_eventlog_of_every_collector() {
    let dir = scratch("collectors");
    for entry in gclab_collectors::COLLECTORS {
        let file = dir.join(format!("{}.eventlog", entry.name));
        let ol = format!("-ol{}", file.display());
        let concurrent = entry.name == "nonmoving";
        // A concurrent collector's run must be long enough for several
        // markings to end (each one starts at a major GC).
        let ops = if concurrent { "100000" } else { "20000" };
        let mut args = vec!["run", "--collector", entry.name, "lru", "2000", ops, "64", "+RTS", "-A64k", "-O64k", ol.as_str()];
        args.extend(entry.flags.split_whitespace());
        args.push("-l");
        if concurrent {
            args.push("-ln");
        }
        let o = gclab(&args);
        assert!(o.status.success(), "{}: {}", entry.name, String::from_utf8_lossy(&o.stderr));
        let counts = ghc_events_counts(&file);
        for kind in REQUIRED.iter().chain(if concurrent { CONCURRENT } else { &[] }) {
            assert!(counts.get(*kind).copied().unwrap_or(0) > 0, "{}: no {kind} event in {counts:?}", entry.name);
        }
        if concurrent {
            // A marking still running when the program ends is stopped
            // unfinished.
            let unfinished = counts["ConcMarkBegin"] - counts["ConcMarkEnd"];
            assert!(unfinished <= 1, "{unfinished} markings never ended: {counts:?}");
            assert_eq!(counts["ConcSyncBegin"], counts["ConcSyncEnd"]);
            assert_eq!(counts["NonmovingHeapCensus"] % counts["ConcSweepEnd"], 0, "a census line per size after each sweep");
        }
        // gclab's own events are declared with their sizes, so GHC's parser
        // skips them: a mark-region collector's sweep event, one per major
        // GC of immix, one per GC of sticky-immix (its minor GCs judge the
        // blocks they marked line by line) and of lxr (its RC pauses judge
        // again the blocks where counts fell to zero).
        let own = (entry.name.contains("immix") || entry.name == "lxr").then(|| counts.get("UnknownEvent248").copied().unwrap_or(0));
        let sweeps = match entry.name {
            "immix" => Some(counts["HeapLive"]),
            "sticky-immix" | "lxr" => Some(counts["StartGC"]),
            _ => None,
        };
        assert_eq!(own, sweeps, "{}: a REGION_SWEEP (248) per sweep: {counts:?}", entry.name);
        // lxr's decrement thread reports each run it ends (DECREMENTS_END,
        // 251), which its RC pauses stop.
        let decrements_ended = counts.get("UnknownEvent251").copied().unwrap_or(0);
        if entry.name == "lxr" {
            assert!(decrements_ended > 0, "lxr: no DECREMENTS_END (251): {counts:?}");
        }
        // A sliding compactor's compaction event, one per major GC (each
        // compacts the oldest generation).
        let compactions = counts.get("UnknownEvent252").copied().unwrap_or(0);
        let expected_compactions = if entry.name == "compacting" { counts["HeapLive"] } else { 0 };
        assert_eq!(compactions, expected_compactions, "{}: a COMPACTION (252) per compaction: {counts:?}", entry.name);
        let unknown: usize = counts.iter().filter(|(k, _)| k.starts_with("UnknownEvent")).map(|(_, n)| n).sum();
        assert_eq!(unknown, own.unwrap_or(0) + decrements_ended + compactions, "{}: events ghc-events does not know: {counts:?}", entry.name);
        assert_eq!(counts["StartGC"], counts["EndGC"]);
        assert_eq!(counts["StartGC"], counts["GCStatsGHC"]);
    }
    // A run that ends by heap overflow still leaves a complete eventlog.
    let file = dir.join("overflow.eventlog");
    let ol = format!("-ol{}", file.display());
    let o = gclab(&["run", "grow", "+RTS", "-M8m", "-l", ol.as_str()]);
    assert_eq!(o.status.code(), Some(251));
    assert!(ghc_events_counts(&file)["StartGC"] > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The figures of a `-s` report: bytes allocated, copied, residency, and
/// collections per generation.
fn s_figures(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            l.contains("bytes allocated in the heap")
                || l.contains("bytes copied during GC")
                || l.contains("maximum residency")
                || l.contains("Parallel GC work balance")
                || l.trim_start().starts_with("Gen ")
        })
        .map(|l| {
            if l.trim_start().starts_with("Gen ") {
                l.split(',').next().unwrap().trim().to_string() // "Gen  0      335 colls"
            } else {
                l.trim().to_string()
            }
        })
        .collect()
}

#[test]
fn gclab_eventlog_reports_what_dash_s_reported() {
    let dir = scratch("summary");
    for (workload, rts) in [("binary-trees 14", "-A64k"), ("gcbench 12", "-G3 -A32k"), ("thunks 20000", "-G1"), ("gcbench 12", "-N2 -qb0 -A32k")] {
        let file = dir.join("run.eventlog");
        let sfile = dir.join("run.s");
        let mut args: Vec<String> = vec!["run".into()];
        args.extend(workload.split_whitespace().map(String::from));
        args.push("+RTS".into());
        args.extend(rts.split_whitespace().map(String::from));
        args.extend([format!("-ol{}", file.display()), "-l".into(), format!("-s{}", sfile.display())]);
        let o = Command::new(env!("CARGO_BIN_EXE_gclab")).args(&args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let expected = s_figures(&std::fs::read_to_string(&sfile).unwrap());
        let o = gclab(&["eventlog", "--no-plot", file.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = s_figures(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(got, expected, "{workload} +RTS {rts}");
        assert!(expected.len() >= 4);
        if rts.contains("-N2") {
            assert!(expected.iter().any(|l| l.contains("work balance")), "a parallel run reports its work balance: {expected:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run `collector` on `args` (a workload, its arguments, then `+RTS` and
/// flags) with a JSON record and an eventlog, and read the eventlog back
/// with `gclab eventlog`: the run's record and the summary's text.
fn record_and_read_back(collector: &str, args: &[&str]) -> (serde_json::Value, String) {
    let dir = scratch(collector);
    let (file, json) = (dir.join("run.eventlog"), dir.join("run.json"));
    let ol = format!("-ol{}", file.display());
    let mut run = vec!["run", "--collector", collector, "--json", json.to_str().unwrap()];
    run.extend(args);
    run.extend(["-l", ol.as_str()]);
    let o = gclab(&run);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let o = gclab(&["eventlog", "--no-plot", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    std::fs::remove_dir_all(&dir).unwrap();
    (record, text)
}

#[test]
fn gclab_eventlog_totals_a_mark_region_collectors_sweeps() {
    // immix's REGION_SWEEP events, read back, give the totals its run
    // recorded; a tight -M makes it defragment.
    let (record, text) = record_and_read_back("immix", &["lru", "4000", "100000", "64", "+RTS", "-A64k", "-M1m"]);
    let stat = |k: &str| record["stats"][k].as_u64().unwrap();
    assert!(stat("defrag_gcs") > 0, "{}", record["stats"]);
    let commas = |n: u64| gclab_core::report::with_commas(n);
    let line = format!(
        "  Mark-region: {} sweeps freed {} bytes of lines and {} bytes of whole blocks; {} defragmented, copying {} bytes",
        stat("region_sweeps"),
        commas(stat("reclaimed_line_bytes")),
        commas(stat("reclaimed_block_bytes")),
        stat("defrag_gcs"),
        commas(stat("defrag_copied_bytes"))
    );
    assert!(text.lines().any(|l| l == line), "expected `{line}' in:\n{text}");
}

#[test]
fn gclab_eventlog_totals_a_compactors_compactions() {
    // compacting's COMPACTION events, read back, give the totals and the
    // count its run recorded.
    let (record, text) = record_and_read_back("compacting", &["binary-trees", "14", "+RTS", "-A64k"]);
    let stat = |k: &str| record["stats"][k].as_u64().unwrap();
    let compactions = record["stats"]["gens"][1]["compactions"].as_u64().unwrap();
    assert!(compactions > 2 && stat("blocks_left_in_place") > 0 && stat("compaction_freed_bytes") > 0, "{}", record["stats"]);
    let commas = |n: u64| gclab_core::report::with_commas(n);
    let line = format!(
        "  Compaction: {compactions} compactions left {} of {} blocks in place ({} bytes of holes), slid {} bytes and freed {} bytes of blocks",
        commas(stat("blocks_left_in_place")),
        commas(stat("compacted_blocks")),
        commas(stat("compaction_hole_bytes")),
        commas(stat("compaction_slid_bytes")),
        commas(stat("compaction_freed_bytes"))
    );
    assert!(text.lines().any(|l| l == line), "expected `{line}' in:\n{text}");
}

/// Build the Haskell binary-trees peer with GHC (`ghc_flags` besides
/// `-O2 -eventlog -rtsopts`) in `dir`, run it at `depth` with `rts` flags
/// and an eventlog; returns the eventlog's path and GHC's own `-s` text.
fn ghc_binary_trees(dir: &Path, ghc_flags: &[&str], depth: &str, rts: &[&str]) -> (PathBuf, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("bt");
    let o = Command::new("ghc")
        .args(["-O2", "-eventlog", "-rtsopts"])
        .args(ghc_flags)
        .arg(format!("-i{}", root.join("peers").join("ghc").display()))
        .arg("-outputdir")
        .arg(dir)
        .arg("-o")
        .arg(&exe)
        .arg(root.join("peers").join("ghc").join("binary_trees.hs"))
        .output()
        .expect("ghc is installed (.ci/run installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = dir.join("bt.eventlog");
    let sfile = dir.join("bt.s");
    let (ol, s) = (format!("-ol{}", file.display()), format!("-s{}", sfile.display()));
    let o = Command::new(&exe).args([depth, "+RTS", "-l", &ol, &s]).args(rts).arg("-RTS").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (file, std::fs::read_to_string(&sfile).unwrap())
}

#[test]
fn a_ghc_programs_eventlog_reads_like_its_own_dash_s() {
    let dir = scratch("ghc");
    let (file, ghc_s) = ghc_binary_trees(&dir, &[], "14", &[]);
    let o = gclab(&["eventlog", "--no-plot", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = String::from_utf8_lossy(&o.stdout).into_owned();
    let pick = |text: &str, what: &str| text.lines().find(|l| l.contains(what)).map(|l| l.trim().to_string());
    assert_eq!(pick(&ours, "bytes allocated in the heap"), pick(&ghc_s, "bytes allocated in the heap"), "bytes allocated");
    let colls = |text: &str| -> Vec<String> { text.lines().filter(|l| l.trim_start().starts_with("Gen ")).map(|l| l.split(',').next().unwrap().trim().to_string()).collect() };
    assert_eq!(colls(&ours), colls(&ghc_s), "GC counts per generation");
    // The latency of a GHC program, which GHC itself does not report: one
    // pause per GC, and an MMU line.
    let gcs: usize = colls(&ghc_s).iter().map(|c| c.split_whitespace().nth(2).unwrap().parse::<usize>().unwrap()).sum();
    let all = pick(&ours, "  all").unwrap_or_else(|| panic!("{ours}"));
    assert_eq!(all.split_whitespace().nth(1), Some(gcs.to_string().as_str()), "{all}");
    assert!(pick(&ours, "MMU ").is_some_and(|l| l.contains(" 10ms ")), "{ours}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_ghc_nonmoving_eventlog_shows_its_syncs_and_concurrent_marking() {
    let dir = scratch("ghc-xn");
    let (file, ghc_s) = ghc_binary_trees(&dir, &["-threaded"], "16", &["-xn", "-N2"]);
    let o = gclab(&["eventlog", "--no-plot", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = String::from_utf8_lossy(&o.stdout).into_owned();
    // GHC prints its major-GC count as its syncs; the eventlog has one
    // sync per marking that ended, and a major GC during a marking starts
    // none, so there are at most as many.
    let (ghc_syncs, our_syncs) = (summary_count(&ghc_s, 1, " syncs,"), summary_count(&ours, 1, " syncs,"));
    assert!(our_syncs >= 1 && our_syncs <= ghc_syncs, "syncs: GHC {ghc_syncs}, from the eventlog {our_syncs}\n{ours}");
    assert!(ours.contains("concurrent,"), "{ours}");
    // And a GHC program's trace.
    let out = dir.join("bt.json");
    assert!(gclab(&["eventlog", "--no-plot", "--trace", out.to_str().unwrap(), file.to_str().unwrap()]).status.success());
    check_trace(&out, &["mutator", "gc work", "gc idle", "gc", "mark", "sync"], &["heap size"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Write gclab's eventlog of binary-trees 12 (-A64k) to `file`; its bytes.
fn binary_trees_eventlog(file: &Path) -> Vec<u8> {
    assert!(gclab(&["run", "binary-trees", "12", "+RTS", "-A64k", "-l", &format!("-ol{}", file.display())]).status.success());
    std::fs::read(file).unwrap()
}

/// The GC count `gclab eventlog` printed (its first line).
fn gcs_read(stdout: &[u8]) -> usize {
    let text = String::from_utf8_lossy(stdout);
    let first = text.lines().next().unwrap_or_default().to_string();
    first.split(" events, ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no GC count in {text}"))
}

#[test]
fn cut_and_corrupted_eventlogs_give_what_is_there_with_warnings_and_exit_codes() {
    let dir = scratch("bad");
    let file = dir.join("good.eventlog");
    let bytes = binary_trees_eventlog(&file);
    let whole = gclab(&["eventlog", "--no-plot", file.to_str().unwrap()]);
    assert_eq!(whole.status.code(), Some(0));
    let all_gcs = gcs_read(&whole.stdout);
    let data = bytes.windows(4).position(|w| w == b"datb").unwrap() + 4;
    // A damaged header: nothing can be read.
    for cut in [3, 40, data - 2] {
        let bad = dir.join(format!("cut{cut}.eventlog"));
        std::fs::write(&bad, &bytes[..cut]).unwrap();
        let o = gclab(&["eventlog", "--no-plot", bad.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "cut at {cut}: {e}");
        assert!(e.contains("byte offset") && !e.contains("panicked"), "cut at {cut}: {e}");
    }
    // Cut in the data: the summary of what is there, a warning naming
    // where the file ends, exit code 3.
    for cut in [bytes.len() / 2, bytes.len() - 1] {
        let bad = dir.join(format!("cut{cut}.eventlog"));
        std::fs::write(&bad, &bytes[..cut]).unwrap();
        let o = gclab(&["eventlog", "--no-plot", bad.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "cut at {cut}: {e}");
        assert!(e.contains("warning") && e.contains("cut short at byte offset"), "cut at {cut}: {e}");
        let gcs = gcs_read(&o.stdout);
        assert!(gcs > 0 && gcs <= all_gcs, "cut at {cut}: {gcs} of {all_gcs} GCs");
    }
    // Corrupted bytes: skipped to the next block marker, the range named,
    // exit code 4; the rest is read.
    for (at, len) in [(data, 1), (bytes.len() / 3, 300)] {
        let mut corrupt = bytes.clone();
        for b in &mut corrupt[at..at + len] {
            *b = 0x7f;
        }
        let bad = dir.join(format!("corrupt{at}.eventlog"));
        std::fs::write(&bad, &corrupt).unwrap();
        let o = gclab(&["eventlog", "--no-plot", bad.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(4), "{e}");
        assert!(e.contains("skipped") && e.contains("not declared") && e.contains("bytes "), "{e}");
        // The rest of the damaged block is lost with it (a block holds up
        // to 1 MiB of one capability's events); what comes before it and
        // the other blocks are read.
        let gcs = gcs_read(&o.stdout);
        assert!(gcs > 0 && gcs <= all_gcs, "corrupted at {at}: read {gcs} of {all_gcs} GCs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Check a Chrome trace-event file: its structure, every span's begin
/// before its end, and the span kinds (`cat`) and counters it must hold.
fn check_trace(file: &Path, kinds: &[&str], counters: &[&str]) {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().expect("a traceEvents array");
    let mut seen = std::collections::HashSet::new();
    for e in events {
        let ph = e["ph"].as_str().expect("every event has a phase");
        assert!(e["pid"].is_u64(), "{e}");
        match ph {
            "X" => {
                let (ts, dur) = (e["ts"].as_f64().expect("ts"), e["dur"].as_f64().expect("dur"));
                assert!(ts >= 0.0 && dur >= 0.0, "a span ends before it begins: {e}");
                assert!(e["tid"].is_u64() && e["name"].is_string(), "{e}");
                seen.insert(e["cat"].as_str().unwrap().to_string());
            }
            "C" => {
                assert!(e["ts"].as_f64().is_some() && e["args"]["MiB"].as_f64().is_some_and(|m| m >= 0.0), "{e}");
                seen.insert(e["name"].as_str().unwrap().to_string());
            }
            "M" => assert!(e["args"]["name"].is_string(), "{e}"),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for k in kinds.iter().chain(counters) {
        assert!(seen.contains(*k), "no `{k}' in the trace (has {seen:?})");
    }
    // On each track, spans are disjoint or nested, as a viewer computes
    // their ends (ts + dur, in floating point).
    let mut by_track: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        by_track.entry(e["tid"].as_u64().unwrap()).or_default().push((ts, ts + dur));
    }
    for (tid, mut spans) in by_track {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut open: Vec<f64> = Vec::new();
        for (start, end) in spans {
            while open.last().is_some_and(|&e| e <= start) {
                open.pop();
            }
            assert!(open.last().is_none_or(|&e| end <= e), "track {tid}: a span [{start}, {end}] overlaps one ending at {:?}", open.last());
            open.push(end);
        }
    }
}

#[test]
fn trace_writes_chrome_trace_events_with_every_track() {
    let dir = scratch("trace");
    let file = dir.join("run.eventlog");
    let out = dir.join("run.json");
    let o = gclab(&["run", "--collector", "nonmoving", "lru", "2000", "100000", "64", "+RTS", "-N2", "-A64k", "-O64k", "-l", &format!("-ol{}", file.display())]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = gclab(&["eventlog", "--no-plot", "--trace", out.to_str().unwrap(), file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_trace(&out, &["mutator", "stopped", "gc work", "gc", "mark", "sync", "sweep"], &["heap size", "allocated"]);
    let text = std::fs::read_to_string(&out).unwrap();
    for track in ["capability 0", "capability 1", "GC thread 0", "GC phases (capability 0)", "concurrent marker", "concurrent sweeper"] {
        assert!(text.contains(&format!("\"{track}\"")), "no {track} track");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn diff_puts_two_runs_side_by_side_from_eventlogs_or_json_records() {
    let dir = scratch("diff");
    let (a_log, a_json) = (dir.join("a.eventlog"), dir.join("a.json"));
    let b_log = dir.join("b.eventlog");
    let o = gclab(&["run", "--json", a_json.to_str().unwrap(), "binary-trees", "12", "+RTS", "-A64k", "-l", &format!("-ol{}", a_log.display())]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = gclab(&["run", "--collector", "nonmoving", "binary-trees", "12", "+RTS", "-A64k", "-l", &format!("-ol{}", b_log.display())]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // One run, read from its eventlog and from its JSON record: the same
    // allocation and GC counts.
    // The record's timeline has each GC's heap size, as the eventlog's
    // HEAP_SIZE events do: both sides of a diff draw it.
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a_json).unwrap()).unwrap();
    let timeline = record["timeline"].as_array().unwrap();
    assert!(!timeline.is_empty() && timeline.iter().all(|gc| gc[5].as_u64().is_some_and(|heap| heap >= 1 << 20)), "{timeline:?}");
    let o = gclab(&["eventlog", "diff", "--no-plot", a_log.to_str().unwrap(), a_json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let row = |name: &str| -> Vec<String> { out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} row: {out}")).split_whitespace().map(String::from).collect() };
    assert_eq!(row("GCs")[1], row("GCs")[2], "{out}");
    assert_eq!(row("gen 0 collections").last().unwrap(), "1.000", "{out}");
    assert_eq!(row("allocated (MiB)").last().unwrap(), "1.000", "{out}");
    // Two collectors, with both MMU curves drawn on one picture and both
    // timelines on another.
    let prefix = dir.join("two");
    let o = gclab(&["eventlog", "diff", "--plot", prefix.to_str().unwrap(), a_log.to_str().unwrap(), b_log.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    // MMU rows stop at the runs' length, which is about 10 ms here (8 ms
    // on a fast day, when the 10 ms row is left out); 1 ms is always there.
    assert!(out.contains("syncs") && out.contains("MMU 1ms") && out.contains("B / A"), "{out}");
    for picture in ["two-mmu.png", "two-timelines.png", "two-timelines.svg"] {
        assert!(std::fs::metadata(dir.join(picture)).unwrap().len() > 1000, "{picture}");
    }
    let svg = std::fs::read_to_string(dir.join("two-timelines.svg")).unwrap();
    assert!(svg.contains("A: a.eventlog") && svg.contains("B: b.eventlog") && svg.contains("concurrent marking"), "both runs drawn, B's marking too");
    // A JSON record draws its timeline too.
    let o = gclab(&["eventlog", "diff", "--plot", prefix.to_str().unwrap(), a_json.to_str().unwrap(), b_log.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(dir.join("two-timelines.svg")).unwrap();
    assert!(svg.contains("A: a.json") && svg.matches("<rect").count() > 20, "the record's pauses are drawn");
    // Runs with different generation counts line up by figure.
    let g3 = dir.join("g3.json");
    assert!(gclab(&["run", "--json", g3.to_str().unwrap(), "binary-trees", "12", "+RTS", "-G3"]).status.success());
    let o = gclab(&["eventlog", "diff", "--no-plot", a_json.to_str().unwrap(), g3.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let cells = |name: &str| -> Vec<String> { out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} row: {out}")).split_whitespace().map(String::from).collect() };
    assert_eq!(cells("gen 2 collections")[3], "-", "A has no generation 2: {out}");
    assert!(cells("pause p50 (ms)")[3].parse::<f64>().is_ok() && cells("pause p50 (ms)")[4].parse::<f64>().is_ok(), "{out}");
    // Something that is neither.
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello").unwrap();
    let o = gclab(&["eventlog", "diff", "--no-plot", junk.to_str().unwrap(), a_log.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("junk.txt") && e.contains("neither an eventlog"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn follow_reads_a_file_still_being_written() {
    let dir = scratch("follow");
    let file = dir.join("run.eventlog");
    let bytes = binary_trees_eventlog(&file);
    let growing = dir.join("growing.eventlog");
    std::fs::write(&growing, &bytes[..bytes.len() / 2]).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["eventlog", "--no-plot", "--follow", "0.05", growing.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::fs::write(&growing, &bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("so far"), "no summary while the file grew: {out}");
    assert!(out.trim_end().ends_with(|c: char| c.is_ascii_digit()) && out.contains("MMU"), "the final report: {out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dash_v_prints_the_events_and_the_timeline_is_drawn() {
    let o = gclab(&["run", "binary-trees", "8", "+RTS", "-vt", "-A16k"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("cap 0: starting GC") && out.contains("cap 0: finished GC"), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(": cap 0: GC working")), "timestamps with t");
    let dir = scratch("plot");
    let file = dir.join("p.eventlog");
    assert!(gclab(&["run", "gcbench", "12", "+RTS", "-l", &format!("-ol{}", file.display())]).status.success());
    let prefix = dir.join("timeline");
    let o = gclab(&["eventlog", file.to_str().unwrap(), "--plot", prefix.to_str().unwrap(), "--from", "0", "--to", "100"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for ext in ["svg", "png"] {
        assert!(std::fs::metadata(prefix.with_extension(ext)).unwrap().len() > 1000);
        assert!(std::fs::metadata(dir.join(format!("timeline-mmu.{ext}"))).unwrap().len() > 1000, "the MMU curve is drawn too");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn heap_profile_samples_reach_the_eventlog() {
    let dir = scratch("hprof");
    for (kind, sample) in [("-hT", "HeapProfSampleString"), ("-hc", "HeapProfSampleCostCentre"), ("-ho", "HeapProfSampleString")] {
        let file = dir.join(format!("{kind}.eventlog"));
        let o = gclab(&["run", "hsc-roots", "3000", "+RTS", kind, "-i0", "-l", &format!("-ol{}", file.display()), &format!("-po{}", dir.join("p").display())]);
        assert!(o.status.success(), "{kind}: {}", String::from_utf8_lossy(&o.stderr));
        let counts = ghc_events_counts(&file);
        assert_eq!(counts.get("HeapProfBegin"), Some(&1), "{kind}: {counts:?}");
        assert!(counts.get(sample).copied().unwrap_or(0) > 0, "{kind}: no {sample}: {counts:?}");
        assert_eq!(counts.get("HeapProfSampleBegin"), counts.get("HeapProfSampleEnd"));
        assert!(!counts.contains_key("UnknownEvent"));
        if kind == "-hc" {
            assert!(counts.get("HeapProfCostCentre").copied().unwrap_or(0) > 0);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The pause distribution and MMU that `gclab eventlog` computes from a
/// run's eventlog are those of the run's own JSON record (both through
/// `latency::Latency`; the eventlog's timestamps are whole nanoseconds).
#[test]
fn an_eventlogs_latency_is_the_runs_own() {
    let dir = scratch("latency");
    for rts in ["-A32k", "-xn -A64k", "-N2 -A32k"] {
        let (file, json) = (dir.join("run.eventlog"), dir.join("run.json"));
        let mut args: Vec<String> = vec!["run".into(), "--json".into(), json.display().to_string(), "binary-trees".into(), "14".into(), "+RTS".into()];
        args.extend(rts.split_whitespace().map(String::from));
        args.extend([format!("-ol{}", file.display()), "-l".into()]);
        let o = Command::new(env!("CARGO_BIN_EXE_gclab")).args(&args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let want = record["latency"].as_object().unwrap();
        let log = gclab_eventlog_tools::reader::read(&file).unwrap();
        let got = gclab_eventlog_tools::summary::derive(&log, None, None).latency;
        assert!(want["pause_count"].as_u64().unwrap() > 20, "{rts}: {want:?}");
        for (key, w) in want {
            if key.starts_with("safepoint_") {
                continue; // not in an eventlog
            }
            let Some(g) = got.get(key) else {
                // A window about as long as the run can be in one and not
                // in the other: the record's run counts start-up and exit,
                // the eventlog's runs from its first event to its last.
                let total = record["stats"]["total_elapsed"].as_f64().unwrap();
                let window = gclab_eventlog_tools::latency::MMU_WINDOWS.iter().find(|(name, _)| *key == format!("mmu_{name}")).map(|&(_, w)| w);
                assert!(window.is_some_and(|w| w > 0.9 * total), "{rts}: the eventlog has no {key} (run of {total} s)");
                continue;
            };
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            let close = if key.starts_with("mmu_") { (g - w).abs() < 1e-3 } else { (g - w).abs() <= w * 2e-3 + 2e-6 };
            assert!(close, "{rts}: {key}: eventlog {g}, record {w}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interval_backwards_not_finite_or_past_the_log_is_refused() {
    let dir = scratch("interval");
    let file = dir.join("run.eventlog");
    binary_trees_eventlog(&file);
    let f = file.to_str().unwrap();
    for (args, says) in [(vec!["--from", "5", "--to", "1"], "--to 1 is not after --from 5"), (vec!["--from", "nan"], "--from NaN"), (vec!["--to", "inf"], "--to inf"), (vec!["--from", "100"], "ends at")] {
        let mut all = vec!["eventlog", "--no-plot"];
        all.extend(&args);
        all.push(f);
        let o = gclab(&all);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.code() == Some(1) && e.contains(says), "{args:?}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dash_v_with_several_capabilities_prints_every_capabilitys_gcs() {
    // A GC led by capability 1 prints its events from capability 1's
    // thread while capability 0's workload writes its own output: the run
    // once deadlocked on standard output's lock here.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["run", "binary-trees", "10", "+RTS", "-N2", "-A64k", "-v", "-RTS"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("gclab run +RTS -N2 -v hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = reader.join().unwrap();
    assert!(child.wait().unwrap().success(), "{out}");
    assert!(out.contains("long lived tree of depth 10"), "the workload's output: {out}");
    for cap in 0..2 {
        assert!(out.contains(&format!("cap {cap}: GC done")), "capability {cap}'s GC thread: {out}");
    }
}
