//! Sweeps end to end, as a user runs them: experiment files, bad files,
//! crashing runs, a sweep killed midway and resumed, shards merged.

mod common;

use common::{gclab, TINY};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};


fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gclab-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn records(dir: &Path) -> BTreeMap<String, serde_json::Value> {
    gclab_experiments::record::load_records(dir)
        .unwrap()
        .into_iter()
        .map(|r| (r.spec.id.clone(), serde_json::to_value(&r).unwrap()))
        .collect()
}

#[test]
fn every_experiment_file_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        // (The experiments crate's own manifest lives there too.)
        if p.extension().map(|x| x == "toml").unwrap_or(false) && p.file_name() != Some("Cargo.toml".as_ref()) {
            let exp = gclab_experiments::experiment::Experiment::load(&p, &gclab_collectors::Registry::builtin()).unwrap_or_else(|e| panic!("{e}"));
            assert!(!exp.runs().is_empty(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 4, "only {n} experiment files");
}

#[test]
fn a_bad_file_is_an_error_naming_file_line_and_key() {
    let dir = scratch("bad");
    let f = write(&dir, "bad.toml", "collectors = [\"copying\"]\n[[workloads]]\nname = \"binary-trees\"\n[grid]\nG = [\"x\"]\n");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", dir.join("out").to_str().unwrap()]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad.toml:5: `grid.G'") && e.contains("-Gx"), "{e}");
    assert!(!dir.join("out").exists(), "nothing is run or written for a bad file");
    std::fs::remove_dir_all(&dir).unwrap();
}


#[test]
fn a_tiny_sweep_end_to_end_with_report() {
    let dir = scratch("tiny");
    let f = write(&dir, "tiny.toml", TINY);
    let out = dir.join("out");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("8 ran ok, 0 failed"));
    let recs = records(&out);
    assert_eq!(recs.len(), 8);
    let checksums: std::collections::HashSet<String> = recs.values().map(|r| r["result"]["checksum"].as_str().unwrap().to_string()).collect();
    assert_eq!(checksums.len(), 1, "every collector and setting computes the same checksum");
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9);
    let header = csv.lines().next().unwrap();
    assert!(header.contains("gc_elapsed") && header.contains("pause_p99"), "{header}");
    for r in recs.values() {
        let (latency, stats) = (&r["result"]["latency"], &r["result"]["stats"]);
        assert_eq!(latency["pause_count"], stats["gcs"], "one pause per GC");
        assert_eq!(r["result"]["pauses"].as_array().unwrap().len() as u64, stats["gcs"].as_u64().unwrap(), "every pause, for the CDF");
        let (p50, p99, max) = (latency["pause_p50"].as_f64().unwrap(), latency["pause_p99"].as_f64().unwrap(), latency["pause_max"].as_f64().unwrap());
        assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{latency}");
        // These runs last a few milliseconds: only the windows that fit.
        let total = stats["total_elapsed"].as_f64().unwrap();
        for (name, window) in gclab_eventlog_tools::latency::MMU_WINDOWS {
            let mmu = latency.get(format!("mmu_{name}")).and_then(|v| v.as_f64());
            assert_eq!(mmu.is_some(), window <= total, "mmu_{name} in a run of {total} s");
            assert!(mmu.is_none_or(|u| (0.0..=1.0).contains(&u)), "{latency}");
        }
    }
    // Minor and major GC time split the GC time (two-space has one
    // generation: all its GCs are major).
    for r in gclab_experiments::record::load_records(&out).unwrap() {
        let f = |name: &str| gclab_experiments::record::figure(&r, name).unwrap_or_else(|| panic!("{name} of {}", r.spec.id));
        let (minor, major, gc) = (f("minor_gc_elapsed"), f("major_gc_elapsed"), f("gc_elapsed"));
        assert!((minor + major - gc).abs() < 1e-9 * gc.max(1.0), "{}: {minor} + {major} against {gc}", r.spec.id);
        assert_eq!(minor > 0.0, r.spec.collector == "copying", "{}: minor GC time {minor}", r.spec.id);
    }
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["experiment"], "tiny");
    assert!(manifest["machine"]["cores"].as_u64().unwrap() >= 1);
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| binary-trees 11 | two-space | -A64k | 2/2 |"), "{md}");
    // The runs last a few milliseconds, so they have an MMU at 1 ms (the
    // 10 ms column is there only when some run lasted that long).
    assert!(md.contains("## Latency") && md.contains("| MMU 1ms |"), "{md}");
    // binary-trees 11 runs for several milliseconds, so every run has an
    // MMU at 1 ms at least (at depth 8 a fast run ended within 1 ms).
    for f in ["gc_elapsed.svg", "gc_elapsed.png", "max_live_bytes.svg", "max_live_bytes.png", "mmu.svg", "mmu.png", "pauses.svg", "pauses.png", "pause_cdf.svg", "pause_cdf.png"] {
        let len = std::fs::metadata(out.join("plots").join(f)).unwrap().len();
        assert!(len > 1000, "{f} is only {len} bytes");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn warm_ups_are_run_not_counted_and_the_order_seed_is_kept_on_resume() {
    let dir = scratch("method");
    let text = TINY.replace("repetitions = 2", "repetitions = 2\nwarmup = 1\nbaseline = \"copying\"");
    let f = write(&dir, "method.toml", &text);
    let out = dir.join("out");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = records(&out);
    assert_eq!(recs.len(), 4 * 3, "2 collectors x 2 -A values x (1 warm-up + 2 counted)");
    assert_eq!(recs.values().filter(|r| r["spec"]["warmup"] == true).count(), 4);
    let manifest = |out: &std::path::Path| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap() };
    let seed = manifest(&out)["seed"].as_u64().expect("the manifest records the seed");
    assert!(manifest(&out)["machine"]["load_after"].is_array() && manifest(&out)["machine"]["cpu_model"].is_string());
    // A resumed sweep reuses the recorded seed.
    std::fs::remove_file(out.join("runs").join(format!("{}.json", recs.keys().next().unwrap()))).unwrap();
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("1 ran ok, 0 failed, 11 already recorded"), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(manifest(&out)["seed"].as_u64(), Some(seed));
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| binary-trees 11 | two-space | -A64k | 2/2 |"), "warm-ups are not counted: {md}");
    assert!(md.contains(&format!("shuffled (seed {seed})")) && md.contains("after 1 warm-up run(s)"), "{md}");
    assert!(md.contains("## Normalised to copying") && md.contains("| copying | 2 | 1.000 | 1.000 | 1.000 |"), "{md}");
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4);
    assert!(csv.lines().next().unwrap().contains("gc_elapsed_ci95"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_sweep_over_sweeping_modes_reports_marked_swept_and_hole_bytes() {
    let dir = scratch("modes");
    let f = write(&dir, "modes.toml", r#"
repetitions = 1
timeout_secs = 60
collectors = ["copying", "mark-sweep:sweep=lazy", "mark-sweep:sweep=concurrent"]
[[workloads]]
name = "lru"
args = [4000, 100000, 64]
[grid]
A = ["64k"]
[plot]
x = "A"
figures = ["swept_bytes"]
"#);
    let out = dir.join("out");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("3 ran ok, 0 failed"));
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    // Marking and sweeping have a table of their own, in MiB.
    let (_, marking) = md.split_once("## Marking in place, sweeping and compacting").unwrap_or_else(|| panic!("{md}"));
    assert!(marking.contains("| marked (MiB) | swept (MiB) | most in holes (MiB) |"), "{md}");
    let row = marking.lines().find(|l| l.contains("| mark-sweep:sweep=concurrent | -A64k | 1/1 |")).unwrap_or_else(|| panic!("{md}"));
    let swept: f64 = row.trim_end_matches('|').rsplit('|').nth(1).unwrap().trim().parse().unwrap();
    assert!(swept > 0.0, "{row}");
    assert!(std::fs::metadata(out.join("plots").join("swept_bytes.svg")).unwrap().len() > 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn heap_multiples_run_at_multiples_of_the_smallest_minimum_heap() {
    let dir = scratch("multiples");
    let f = write(&dir, "m.toml", r#"
timeout_secs = 60
order = "fixed"
collectors = ["copying", "compacting"]
[[workloads]]
name = "binary-trees"
args = [12]
[[workloads]]
name = "crash"
[grid]
M = ["1.5x", "3x"]
"#);
    let out = dir.join("out");
    let cache = dir.join("minheap.json");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--minheap-cache", cache.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = records(&out);
    let limit = |r: &serde_json::Value| -> u64 {
        let m = r["spec"]["rts"].as_array().unwrap().iter().find_map(|f| f.as_str()?.strip_prefix("-M")).unwrap_or_else(|| panic!("{r}"));
        m.strip_suffix('k').unwrap().parse::<u64>().unwrap() * 1024
    };
    let trees: Vec<&serde_json::Value> = recs.values().filter(|r| r["spec"]["workload"] == "binary-trees").collect();
    assert!(trees.iter().all(|r| r["status"] == "ok"), "every multiple fits");
    let at = |c: &str, m: &str| limit(trees.iter().find(|r| r["spec"]["collector"] == c && r["spec"]["point"]["M"] == m).unwrap());
    assert_eq!(at("copying", "-M1.5x"), at("compacting", "-M1.5x"), "both collectors get the same heap: a multiple of the smaller minimum");
    let ratio = at("copying", "-M3x") as f64 / at("copying", "-M1.5x") as f64;
    assert!((ratio - 2.0).abs() < 0.01, "3x is twice 1.5x: {ratio}");
    // The cache holds both collectors' answers; the smaller one is the base.
    let cached: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let smallest = cached.as_object().unwrap().iter().filter(|(k, _)| k.starts_with("binary-trees 12 |")).map(|(_, v)| v["bytes"].as_u64().unwrap()).min().unwrap();
    assert!(at("copying", "-M1.5x").abs_diff((smallest as f64 * 1.5) as u64) <= 4096);
    // A workload that fails without -M has no minimum heap: its runs fail, saying why.
    let crash: Vec<&serde_json::Value> = recs.values().filter(|r| r["spec"]["workload"] == "crash").collect();
    assert_eq!(crash.len(), 4);
    assert!(crash.iter().all(|r| r["status"] == "failed" && r["stderr_tail"].as_str().unwrap().contains("no minimum heap to multiply")), "{crash:?}");
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## Minimum heaps") && md.contains("the smallest of these over the experiment's collectors") && md.contains("| crash  | copying |"), "{md}");
    // Each minimum heap found comes with the peak memory a run used there.
    let used: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("minheaps.json")).unwrap()).unwrap();
    let trees_used: Vec<&serde_json::Value> = used.as_array().unwrap().iter().filter(|u| u["workload"] == "binary-trees 12").collect();
    assert!(trees_used.len() == 2 && trees_used.iter().all(|u| u["peak_bytes"].as_u64().is_some_and(|p| p > 0)), "{used}");
    assert!(md.contains("| peak in use there (MiB) |"), "{md}");
    // A collector's own flag that the run gives already is not added
    // twice: the cache names two-space's minimum heap by `-G1` alone.
    let o = gclab(&["minheap", "--cache", cache.to_str().unwrap(), "--collector", "two-space", "binary-trees", "8", "+RTS", "-G1"]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && said.contains("under two-space +RTS -G1: minimum heap"), "{said}{}", String::from_utf8_lossy(&o.stderr));
    // A bad multiple names file, line and key.
    let bad = write(&dir, "bad.toml", "collectors = [\"copying\"]\n[[workloads]]\nname = \"binary-trees\"\n[grid]\nM = [\"1.5y\", \"twox\"]\n");
    let o = gclab(&["sweep", bad.to_str().unwrap(), "--out", dir.join("bad").to_str().unwrap(), "--quiet"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("bad.toml:5: `grid.M'"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_minimum_heap_is_a_size_seen_to_fit_even_above_the_peak_without_a_limit() {
    // gcbench 18 under copying peaks at 32 MiB without -M but overflows
    // at -M36m: the policy keeps room for a copy of its stretch tree. The
    // search once answered the peak unprobed. See Note [Searching for the
    // minimum heap] in the experiments crate.
    let dir = scratch("minheap-above-peak");
    let cache = dir.join("minheap.json");
    let o = gclab(&["minheap", "--cache", cache.to_str().unwrap(), "--collector", "copying", "gcbench", "18"]);
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{said}{}", String::from_utf8_lossy(&o.stderr));
    let cached: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let answer = cached.as_object().unwrap().values().next().unwrap();
    let (bytes, fails_at, peak) = (answer["bytes"].as_u64().unwrap(), answer["fails_at"].as_u64().unwrap(), answer["unlimited_peak_bytes"].as_u64().unwrap());
    assert!(bytes > peak, "this case needs more than its peak without -M: {said}");
    assert!(said.contains(&format!("(-M{}k)", bytes / 1024)), "{said}");
    // The answer fits, and its record gives the memory the run used there
    // (See Note [A limit is not the memory used]); the size below it
    // overflows.
    let record = dir.join("at-answer.json");
    let at = |limit: u64| gclab(&["run", "--json", record.to_str().unwrap(), "--collector", "copying", "gcbench", "18", "+RTS", &format!("-M{}k", limit / 1024)]).status.code();
    assert_eq!(at(bytes), Some(0), "the answer fits: {said}");
    let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let used = answer["peak_at_answer_bytes"].as_u64().unwrap();
    assert_eq!(used, stats["stats"]["max_mem_in_use_bytes"].as_u64().unwrap(), "{said}");
    assert!(used > 0 && used < bytes, "{said}");
    assert!(said.contains(&format!("{} MiB in use at its peak there", used >> 20)), "{said}");
    assert_eq!(at(fails_at), Some(251), "the size below it overflows: {said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crashing_overflowing_and_hanging_runs_fail_while_the_rest_finish() {
    let dir = scratch("failures");
    let f = write(&dir, "f.toml", r#"
timeout_secs = 2
collectors = ["copying"]
[[workloads]]
name = "crash"
[[workloads]]
name = "grow"
[[workloads]]
name = "spin"
[[workloads]]
name = "binary-trees"
args = [6]
[grid]
M = ["16m"]
"#);
    let out = dir.join("out");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "a sweep with failed runs still completes: {}", String::from_utf8_lossy(&o.stderr));
    let recs = records(&out);
    let by = |w: &str| recs.values().find(|r| r["spec"]["workload"] == w).unwrap().clone();
    assert_eq!(by("crash")["status"], "failed");
    assert_eq!(by("crash")["signal"], 6, "abort");
    assert_eq!(by("grow")["status"], "failed");
    assert_eq!(by("grow")["exit_code"], 251);
    assert!(by("grow")["stderr_tail"].as_str().unwrap().contains("Heap exhausted"));
    assert_eq!(by("spin")["status"], "timeout");
    assert_eq!(by("binary-trees")["status"], "ok");
    std::fs::remove_dir_all(&dir).unwrap();
}

const SLOWER: &str = r#"
repetitions = 3
collectors = ["copying"]
[[workloads]]
name = "binary-trees"
args = [13]
[grid]
A = ["8k", "16k", "32k", "64k", "128k", "256k"]
"#;

#[test]
fn a_killed_sweep_resumes_without_redoing_finished_runs() {
    let dir = scratch("kill");
    let f = write(&dir, "k.toml", SLOWER);
    let out = dir.join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while records_count(&out) < 4 {
        assert!(start.elapsed() < Duration::from_secs(60), "the sweep made no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = records(&out);
    assert!(before.len() >= 4 && before.len() < 18, "killed midway: {} records", before.len());
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains(&format!("{} already recorded", before.len())), "{stdout}");
    let after = records(&out);
    assert_eq!(after.len(), 18);
    for (id, rec) in &before {
        assert_eq!(&after[id], rec, "run {id} was redone");
    }
    assert!(std::fs::read_dir(out.join("runs")).unwrap().all(|e| e.unwrap().path().extension().unwrap() == "json"), "no partial record left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn records_count(out: &Path) -> usize {
    std::fs::read_dir(out.join("runs")).map(|d| d.filter(|e| e.as_ref().unwrap().path().extension().map(|x| x == "json").unwrap_or(false)).count()).unwrap_or(0)
}

#[test]
fn three_concurrent_shards_equal_one_sweep() {
    let dir = scratch("shards");
    let f = write(&dir, "s.toml", TINY);
    let sharded = dir.join("sharded");
    let children: Vec<_> = (0..3)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_gclab"))
                .args(["sweep", f.to_str().unwrap(), "--out", sharded.to_str().unwrap(), "--quiet", "--shard", &format!("{i}/3")])
                .output_then()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let single = dir.join("single");
    assert!(gclab(&["sweep", f.to_str().unwrap(), "--out", single.to_str().unwrap(), "--quiet"]).status.success());
    let (a, b) = (records(&sharded), records(&single));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "the same runs");
    for id in a.keys() {
        assert_eq!(a[id]["result"]["checksum"], b[id]["result"]["checksum"], "{id}");
    }
    assert!(gclab(&["report", sharded.to_str().unwrap()]).status.success(), "the report merges shards");
    assert_eq!(std::fs::read_to_string(sharded.join("runs.csv")).unwrap().lines().count(), 9);
    std::fs::remove_dir_all(&dir).unwrap();
}

trait SpawnPiped {
    fn output_then(&mut self) -> std::process::Child;
}

impl SpawnPiped for Command {
    fn output_then(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap()
    }
}

/// Two sweeps started on one directory by mistake (not as shards): every
/// run is run once and recorded ok (they once recorded successful runs as
/// failed). See Note [Sweeps sharing a directory].
#[test]
fn two_sweeps_on_one_directory_run_each_run_once_and_record_it_ok() {
    for trial in 0..3 {
        let dir = scratch(&format!("twice{trial}"));
        let f = write(&dir, "t.toml", TINY);
        let out = dir.join("out");
        let children: Vec<_> = (0..2).map(|_| Command::new(env!("CARGO_BIN_EXE_gclab")).args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).output_then()).collect();
        let mut ran = 0;
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            assert!(text.contains("0 failed"), "{text}");
            ran += text.split(" ran ok").next().unwrap().rsplit(' ').next().unwrap().parse::<usize>().unwrap();
        }
        let recs = records(&out);
        assert_eq!(recs.len(), 8);
        assert!(recs.values().all(|r| r["status"] == "ok"), "trial {trial}: {recs:?}");
        assert_eq!(ran, 8, "trial {trial}: each run ran once, in one sweep or the other");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// An empty or cut record is named and its run run again; the report names
/// it and goes on.
#[test]
fn a_damaged_record_is_named_and_run_again() {
    let dir = scratch("damaged");
    let f = write(&dir, "d.toml", TINY);
    let out = dir.join("out");
    assert!(gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).status.success());
    let recs = records(&out);
    let (empty, cut) = {
        let mut ids = recs.keys();
        (ids.next().unwrap().clone(), ids.next().unwrap().clone())
    };
    std::fs::write(out.join("runs").join(format!("{empty}.json")), "").unwrap();
    let whole = std::fs::read_to_string(out.join("runs").join(format!("{cut}.json"))).unwrap();
    std::fs::write(out.join("runs").join(format!("{cut}.json")), &whole[..whole.len() / 2]).unwrap();
    // The report names both and reports the rest.
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("2 damaged record(s)") && md.contains(&format!("{empty}.json")) && md.contains(&format!("{cut}.json")), "{md}");
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap().lines().count(), 7, "runs.csv has the six whole records");
    // A resumed sweep names them and runs them again.
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(&format!("{empty}.json: a damaged record")) && e.contains("running it again"), "{e}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 ran ok, 0 failed, 6 already recorded"), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(records(&out).len(), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A directory swept with one experiment file is not swept with another.
#[test]
fn a_changed_experiment_is_not_mixed_into_old_results() {
    let dir = scratch("changed");
    let out = dir.join("out");
    let f = write(&dir, "c.toml", TINY);
    assert!(gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).status.success());
    let f = write(&dir, "c.toml", &TINY.replace("args = [11]", "args = [10]"));
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("different experiment file") && e.contains("--force"), "{e}");
    assert_eq!(records(&out).len(), 8, "nothing was added");
    let o = gclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("args = [10]"), "the manifest keeps the new file");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A killed sweep's child stops within moments, not at its timeout.
#[test]
fn a_killed_sweeps_run_stops_with_it() {
    let dir = scratch("orphan");
    let f = write(&dir, "o.toml", "timeout_secs = 600\ncollectors = [\"copying\"]\n[[workloads]]\nname = \"binary-trees\"\nargs = [24]\n");
    let out = dir.join("out");
    let mut sweep = Command::new(env!("CARGO_BIN_EXE_gclab")).args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).stdout(std::process::Stdio::null()).spawn().unwrap();
    // (The sweep's children include `git describe`, for the manifest.)
    let runs_of = |parent: u32| -> Vec<u32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                // pid (comm) state ppid ...: the fields after the last ')'.
                let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)).and_then(|p| p.parse::<u32>().ok()) == Some(parent) && cmdline.contains("binary-trees")
            })
            .collect()
    };
    let start = Instant::now();
    let run = loop {
        if let Some(&pid) = runs_of(sweep.id()).first() {
            break pid;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the sweep started no run");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(200));
    sweep.kill().unwrap(); // SIGKILL: the sweep can do nothing about it
    sweep.wait().unwrap();
    let killed = Instant::now();
    while std::path::Path::new(&format!("/proc/{run}")).exists() && std::fs::read_to_string(format!("/proc/{run}/stat")).map(|s| !s.contains(") Z")).unwrap_or(false) {
        assert!(killed.elapsed() < Duration::from_secs(5), "the run {run} outlived its sweep by 5 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
