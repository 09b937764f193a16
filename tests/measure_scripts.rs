//! The measuring scripts (`scripts/ab`, `scripts/claims`, `scripts/gc-phases`,
//! `scripts/gc-scaling` and `scripts/hot-lines`, which `docs/performance.md`
//! describes, and
//! `scripts/programs-vs-ghc`, which `docs/programs.md` does) work end to
//! end on a build of gclab: a build compared with itself does the same
//! work, copies the same bytes and executes the same number of collector
//! instructions, every claim is measured and judged by its bound, a
//! parallel run's
//! eventlog is cut into every one of its GCs, two builds' scaling is
//! measured in the same rounds, GHC's own figure stands beside a claim's
//! where GHC can answer it, a function's instructions
//! land on its source lines, and a program runs beside its GHC builds.

use std::process::Command;

const AB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ab");

fn ab(args: &[&str]) -> String {
    let o = Command::new(AB).args(args).env_remove("GCLABRTS").output().expect("scripts/ab runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/ab {args:?} failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The B/A column of the row labelled `label`.
fn ratio(out: &str, label: &str) -> f64 {
    let line = out.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label} row in:\n{out}"));
    let fields: Vec<&str> = line[label.len()..].split_whitespace().collect();
    fields[2].parse().unwrap_or_else(|_| panic!("no ratio in {line:?}"))
}

#[test]
fn ab_compares_a_build_with_itself_round_by_round() {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let out = ab(&["-n", "2", gclab, &format!("{gclab}:-A64k"), "--", "run", "binary-trees", "10"]);
    assert!(out.contains("median of 2 alternated rounds"), "{out}");
    assert!(ratio(&out, "copied MB") > 1.0, "a smaller nursery copies more:\n{out}");
    assert!(ratio(&out, "GC s") > 0.0, "{out}");
}

#[test]
fn ab_counts_the_same_instructions_for_the_same_build() {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let out = ab(&["--instructions", gclab, gclab, "--", "run", "binary-trees", "8"]);
    for part in ["GC instructions", "mutator instructions"] {
        let r = ratio(&out, part);
        assert!((0.99..=1.01).contains(&r), "{part}: {r} for one build against itself:\n{out}");
    }
    let gc: u64 = out.lines().find(|l| l.starts_with("GC instructions")).unwrap()["GC instructions".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(gc > 100_000, "binary-trees 8 collects: its GC instructions cannot be {gc}:\n{out}");
}

const CLAIMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/claims");

fn claims(args: &[&str]) -> std::process::Output {
    Command::new(CLAIMS).args(args).env_remove("GCLABRTS").output().expect("scripts/claims runs")
}

/// `scripts/claims --quick` runs every claim on every workload it names,
/// under -M twice the minimum heap where the claim says so, and each
/// verdict is the one its ratio, spread and bound give.
#[test]
fn claims_measures_every_claim_and_judges_it_by_its_bound() {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let dir = std::env::temp_dir().join(format!("gclab-claims-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cache, markdown, svg) = (dir.join("minheap.json"), dir.join("claims.md"), dir.join("claims.svg"));
    let list = claims(&["--list"]);
    assert!(list.status.success(), "{}", String::from_utf8_lossy(&list.stderr));
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout).lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert!(names.len() >= 6, "{names:?}");
    let o = claims(&["--gclab", gclab, "--quick", "--minheap-cache", cache.to_str().unwrap(), "--markdown", markdown.to_str().unwrap(), "--svg", svg.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/claims failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Vec<&str>> = out.lines().skip(1).filter(|l| !l.starts_with('(')).map(|l| l.split("  ").map(str::trim).filter(|f| !f.is_empty()).collect()).collect();
    for name in &names {
        assert!(rows.iter().any(|r| r[0] == name), "no row for claim {name}:\n{out}");
    }
    for row in &rows {
        let (name, verdict) = (row[0], *row.last().unwrap());
        let heap = row.iter().find(|f| f.ends_with('k') && f[..f.len() - 1].parse::<u64>().is_ok());
        assert_eq!(heap.is_some(), name.ends_with("-total") || name.starts_with("whole-heap"), "-M where the claim sets the heap: {row:?}");
        let n = row.len();
        let ratio: f64 = row[n - 4].parse().unwrap_or_else(|_| panic!("ratio in {row:?}"));
        let (lo, hi) = row[n - 3].split_once('-').map(|(a, b)| (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap())).unwrap();
        let (at_least, bound) = match row[n - 2].strip_prefix(">=") {
            Some(b) => (true, b.parse::<f64>().unwrap()),
            None => (false, row[n - 2].strip_prefix("<=").unwrap().parse::<f64>().unwrap()),
        };
        assert!(ratio > 0.0 && lo <= hi, "{row:?}");
        if name.ends_with("-minheap") {
            // One search a side: its spread is its ratio (to the 3 decimals printed).
            assert!((lo - ratio).abs() < 0.0015 && (hi - ratio).abs() < 0.0015, "{row:?}");
        }
        let ok = |r: f64| if at_least { r >= bound } else { r <= bound };
        let expected = match (ok(ratio), ok(lo) && ok(hi), ok(lo) || ok(hi)) {
            (true, true, _) => "met",
            (true, false, _) => "met, noisy",
            (false, _, true) => "missed, noisy",
            (false, _, false) => "missed",
        };
        assert_eq!(verdict, expected, "{row:?}");
    }
    let cached = std::fs::read_to_string(&cache).unwrap();
    for whole_heap in ["| immix | -G1", "| compacting | -G1"] {
        assert!(cached.contains(whole_heap), "the whole-heap minimum heaps are cached: no `{whole_heap}' in\n{cached}");
    }
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert_eq!(md.lines().count(), rows.len() + 2, "{md}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.trim_end().ends_with("</svg>"), "{plot}");
    assert_eq!(plot.matches("class=\"ratio\"").count(), rows.len(), "a dot per row:\n{plot}");
    assert_eq!(plot.matches("class=\"spread\"").count(), rows.len(), "a spread per row:\n{plot}");
    let bad = claims(&["--only", "no-such-claim"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("`no-such-claim'"), "{bad:?}");
    let one = claims(&["--gclab", gclab, "--quick", "--minheap-cache", cache.to_str().unwrap(), "--only", "immix-total", "--on", "lru"]);
    let one_out = String::from_utf8_lossy(&one.stdout).into_owned();
    assert!(one.status.success(), "{one:?}");
    let kept: Vec<&str> = one_out.lines().skip(1).filter(|l| !l.starts_with('(')).collect();
    assert!(kept.len() == 1 && kept[0].starts_with("immix-total") && kept[0].contains("lru"), "--on keeps one workload:\n{one_out}");
    let bad = claims(&["--on", "no-such-workload"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("`no-such-workload'"), "{bad:?}");
    // A text only the full inputs contain keeps nothing under --quick: refused, not an empty table.
    let bad = claims(&["--quick", "--on", "lru 500000"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("`lru 500000' (with --quick"), "{bad:?}");
    let bad = claims(&["-n", "0"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("at least one round"), "{bad:?}");
    claims_measures_ghc_beside_gclab(gclab, &cache, &svg);
    std::fs::remove_dir_all(&dir).ok();
}

/// `scripts/claims --ghc`: the claims GHC's runtime can answer too
/// (nonmoving's minor GCs as `-xn`, compacting's major GCs as `-c`, the
/// parallel speedup as `-qn2`) gain GHC's medians, ratio and spread on the
/// Haskell peer, measured in the same rounds; the others gain empty cells.
fn claims_measures_ghc_beside_gclab(gclab: &str, cache: &std::path::Path, svg: &std::path::Path) {
    let o = claims(&["--gclab", gclab, "--quick", "--ghc", "--on", "binary-trees", "--minheap-cache", cache.to_str().unwrap(), "--svg", svg.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/claims --ghc failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    assert!(out.lines().next().unwrap().trim_end().ends_with("GHC A      GHC B      GHC      GHC spread"), "GHC's columns:\n{out}");
    let rows: Vec<Vec<&str>> = out.lines().skip(1).filter(|l| !l.starts_with('(')).map(|l| l.split("  ").map(str::trim).filter(|f| !f.is_empty()).collect()).collect();
    let with_ghc = ["nonmoving-minor", "compacting-major", "parallel-major"];
    for name in with_ghc {
        let row = rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no row for {name}:\n{out}"));
        let n = row.len();
        let ratio: f64 = row[n - 2].parse().unwrap_or_else(|_| panic!("GHC's ratio in {row:?}"));
        let (lo, hi) = row[n - 1].split_once('-').map(|(a, b)| (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap())).unwrap();
        let (ghc_a, ghc_b): (f64, f64) = (row[n - 4].parse().unwrap(), row[n - 3].parse().unwrap());
        let verdict = row[n - 5];
        assert!(ratio > 0.0 && lo <= hi && (verdict.starts_with("met") || verdict.starts_with("missed")), "GHC's figure after the verdict: {row:?}");
        // The ratio is of GHC's own medians, as the claim takes it (A over
        // B for the speedup), up to the cells' rounding.
        let of_medians = if name == "parallel-major" { ghc_a / ghc_b } else { ghc_b / ghc_a };
        assert!((ratio - of_medians).abs() <= 0.002 * of_medians + 0.001, "GHC's ratio {ratio} against its medians' {of_medians}: {row:?}");
    }
    for row in rows.iter().filter(|r| !with_ghc.contains(&r[0])) {
        assert!(row.last().unwrap().starts_with("met") || row.last().unwrap().starts_with("missed"), "no GHC figure for {}: {row:?}", row[0]);
    }
    let plot = std::fs::read_to_string(svg).unwrap();
    assert_eq!(plot.matches("class=\"ghc\"").count(), with_ghc.len(), "a diamond per GHC figure:\n{plot}");
}

/// `scripts/gc-phases` cuts a parallel run's eventlog into GCs and times
/// their phases: every GC shows up, and its leader's phases, and the minor
/// GCs by their position after the last major one.
#[test]
fn gc_phases_times_every_gc_of_an_eventlog() {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let dir = std::env::temp_dir().join(format!("gclab-gc-phases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("run.eventlog");
    let ol = format!("-ol{}", log.display());
    let run = Command::new(gclab)
        .args(["run", "--collector", "parallel", "binary-trees", "12", "+RTS", "-N2", "-qn2", "-A64k", "-l", &ol])
        .env_remove("GCLABRTS")
        .output()
        .expect("gclab runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gc-phases");
    let o = Command::new(script).args(["--gclab", gclab, log.to_str().unwrap()]).output().expect("scripts/gc-phases runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/gc-phases failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    let gcs: usize = out.lines().next().and_then(|l| l.split('(').nth(1)).and_then(|s| s.split_whitespace().next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no GC count in:\n{out}"));
    let counted: usize = out.lines().filter(|l| l.starts_with("generation ")).map(|l| l.split_whitespace().nth(2).unwrap().parse::<usize>().unwrap()).sum();
    assert!(gcs > 10 && counted == gcs, "{gcs} GCs, {counted} by generation:\n{out}");
    assert!(out.contains("leader: work") && out.contains("minor GCs by position after the last generation-1 GC:"), "{out}");
    // --each: one line per GC of the generation, with its copied bytes.
    let majors: usize = out.lines().find(|l| l.starts_with("generation 1:")).and_then(|l| l.split_whitespace().nth(2)).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no major GCs in:\n{out}"));
    let o = Command::new(script).args(["--gclab", gclab, "--each", "1", log.to_str().unwrap()]).output().expect("scripts/gc-phases runs");
    let each = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/gc-phases --each failed: {}{each}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<&str> = each.lines().skip(2).collect();
    assert_eq!(rows.len(), majors, "one row per major GC:\n{each}");
    assert!(rows.iter().all(|r| r.contains('%') && r.split_whitespace().count() >= 8), "{each}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ab_names_a_collector_per_side() {
    // `BIN@COLLECTOR` puts `--collector COLLECTOR` after `run`: the side
    // that marks its oldest generation in place copies less than the one
    // that copies it, on the same binary and flags.
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let (copying, mark_sweep) = (format!("{gclab}@copying:-A64k"), format!("{gclab}@mark-sweep:-A64k"));
    let out = ab(&["-n", "1", &copying, &mark_sweep, "--", "run", "binary-trees", "14"]);
    assert!(ratio(&out, "copied MB") < 0.9, "{out}");
    let o = Command::new(AB).args([&copying, &copying, "--", "peer", "ghc", "binary-trees"]).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("names a collector for `run`"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `scripts/hp-vs-ghc` (docs/programs.md's heap profiles) profiles a
/// program under gclab and under GHC -O0 by closure type and prints
/// their peak samples in one vocabulary: power's peak is its lazy
/// series, thunks, under both, each peak read from several samples (a
/// profile with too few is taken again at a finer interval: GHC's run of
/// power 60 lasts 5 ms); a bad flag is refused, exit code 2.
#[test]
fn hp_vs_ghc_puts_both_profiles_in_one_vocabulary() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hp-vs-ghc");
    let o = Command::new(script).arg("power 60").env("GCLAB", env!("CARGO_BIN_EXE_gclab")).env_remove("GCLABRTS").output().expect("scripts/hp-vs-ghc runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/hp-vs-ghc failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    let thunks: Vec<&str> = out.lines().find(|l| l.trim_start().starts_with("thunk ")).unwrap_or_else(|| panic!("no thunk row in:\n{out}")).split_whitespace().collect();
    let share = |s: &str| s.trim_end_matches('%').parse::<f64>().unwrap_or_else(|_| panic!("no share in {thunks:?}"));
    assert!(share(thunks[2]) > 80.0 && share(thunks[4]) > 80.0, "power's peak is thunks under both:\n{out}");
    let counts: Vec<u32> = out.lines().find(|l| l.trim_start().starts_with("samples with live data:")).unwrap_or_else(|| panic!("no sample counts in:\n{out}")).split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(counts.len() == 2 && counts.iter().all(|&n| n >= 2), "each peak is read from several samples:\n{out}");
    let bad = Command::new(script).args(["--by", "x"]).output().expect("scripts/hp-vs-ghc runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--by takes T or y"));
}

/// `scripts/programs-vs-ghc` (docs/programs.md's table) runs a program
/// under gclab and its two GHC builds, checks the outputs equal, and
/// with `-n` keeps each build's fastest of the alternated runs; a bad
/// `-n` is refused with the reason, exit code 2.
#[test]
fn programs_vs_ghc_prints_each_build_beside_ghc() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/programs-vs-ghc");
    let o = Command::new(script).args(["-n", "2", "constraints 5"]).output().expect("scripts/programs-vs-ghc runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/programs-vs-ghc failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    for build in ["constraints    gclab", "ghc-O0", "ghc-O2", "vs -O0"] {
        assert!(out.lines().any(|l| l.contains(build)), "no {build} row in:\n{out}");
    }
    let gclab_row: Vec<&str> = out.lines().find(|l| l.contains(" gclab ")).unwrap().split_whitespace().collect();
    let allocated: u64 = gclab_row[2].parse().unwrap_or_else(|_| panic!("no allocation in {gclab_row:?}"));
    assert!(allocated > 100_000, "constraints 5 allocates: {gclab_row:?}");
    let bad = Command::new(script).args(["-n", "x"]).output().expect("scripts/programs-vs-ghc runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("-n wants a positive number of runs"));
}

/// `scripts/hot-lines` puts the instructions of one function on the source
/// lines they were inlined from: a marking's scan loop under mark-sweep
/// spends them in the collectors' and core's files, `--per` divides the
/// same exact counts, `--asm` lists the path's instructions with their
/// lines, and a function that never ran is an error that names it.
#[test]
fn hot_lines_puts_a_scan_loop_on_its_source_lines() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hot-lines");
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let run = |options: &[&str]| {
        let o = Command::new(script)
            .args(["--binary", gclab])
            .args(options)
            .args(["--", "run", "--collector", "mark-sweep", "binary-trees", "12", "+RTS", "-A64k", "-RTS"])
            .env_remove("GCLABRTS")
            .output()
            .expect("scripts/hot-lines runs");
        (o.status.success(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let total = |out: &str| -> f64 {
        let head = out.lines().next().unwrap_or_default();
        let figure = head.strip_prefix("gclab_collectors::scavenge::scavenge_loop: ").unwrap_or_else(|| panic!("no total in:\n{out}"));
        figure.split_whitespace().next().unwrap().replace(',', "").parse().unwrap()
    };
    let (ok, out, err) = run(&["--top", "5"]);
    assert!(ok, "{err}{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "the total and the five top lines:\n{out}");
    assert!(total(&out) > 100_000.0, "binary-trees 12 at -A64k marks its old generation:\n{out}");
    let shares: f64 = lines[1..].iter().map(|l| l.split_whitespace().nth(1).unwrap().trim_end_matches('%').parse::<f64>().unwrap()).sum();
    assert!(shares > 10.0 && shares <= 100.0, "the top lines' shares of the total: {shares}\n{out}");
    let ours = lines[1..].iter().filter(|l| {
        let path = l.split_whitespace().nth(2).unwrap_or_default();
        (path.starts_with("collectors/src/") || path.starts_with("core/src/")) && path.contains(".rs:")
    });
    assert!(ours.count() >= 4, "the top lines are this repository's collectors and core, by relative path:\n{out}");

    let (ok, per, err) = run(&["--top", "1", "--per", "1000"]);
    assert!(ok, "{err}{per}");
    let ratio = total(&out) / 1000.0 / total(&per);
    assert!((0.98..=1.02).contains(&ratio), "--per 1000 divides the same counts: {ratio}\n{out}\n{per}");

    let (ok, asm, err) = run(&["--asm", "1000"]);
    assert!(ok, "{err}{asm}");
    assert!(asm.lines().any(|l| l.contains("mov")) && asm.contains("collectors/src/"), "{asm}");

    let o = Command::new(script).args(["--binary", gclab, "--function", "gclab_collectors::no_such_function", "--", "run", "binary-trees", "8"]).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("no_such_function never ran"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `scripts/gc-scaling --against` runs two builds in the same rounds and
/// prints each one's speedups over `-qn1`, then the second's major GCs
/// over the first's at each thread count.
#[test]
fn gc_scaling_measures_two_builds_in_the_same_rounds() {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gc-scaling");
    let args = ["--gclab", gclab, "--against", gclab, "--threads", "1,2", "--rounds", "2", "binary-trees", "12"];
    let o = Command::new(script).args(args).env_remove("GCLABRTS").output().expect("scripts/gc-scaling runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "scripts/gc-scaling failed: {}{out}", String::from_utf8_lossy(&o.stderr));
    let tables = out.matches(&format!("binary-trees 12  [{gclab}]  (--collector parallel, -N2 -qb0, 2 rounds;")).count();
    assert_eq!(tables, 2, "a table for each build:\n{out}");
    let rows = |qn: &str| -> Vec<Vec<String>> {
        out.lines().map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>()).filter(|f| f.first().map(String::as_str) == Some(qn)).collect()
    };
    let ones = rows("1");
    assert_eq!(ones.len(), 3, "-qn1 in both tables and in the comparison:\n{out}");
    for table_row in &ones[..2] {
        assert_eq!((table_row[2].as_str(), table_row[4].as_str()), ("1.00", "1.00"), "-qn1 is its own baseline:\n{out}");
    }
    let twos = rows("2");
    assert_eq!(twos.len(), 3, "-qn2 in both tables and in the comparison:\n{out}");
    let ratio: f64 = twos[2][1].parse().unwrap_or_else(|_| panic!("a ratio at -qn2:\n{out}"));
    assert!(ratio > 0.0, "{out}");
    assert!(out.contains("same rounds"), "{out}");
    let bad = Command::new(script).args(["--gclab", gclab, "--threads", "2,4", "binary-trees", "10"]).output().expect("scripts/gc-scaling runs");
    assert!(!bad.status.success(), "thread counts that do not start at 1 are refused");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must start at 1"), "{}", String::from_utf8_lossy(&bad.stderr));
}
