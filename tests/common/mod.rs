//! What the integration tests share: the `gclab` binary, the examples'
//! own binaries, and a tiny experiment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Run the `gclab` binary under test (without any GCLABRTS of the caller's).
#[allow(dead_code)] // not every test file runs it
pub fn gclab(args: &[&str]) -> Output {
    gclab_with_env(args, &[])
}

/// `gclab`, with the environment variables `env` set (a test-only fault,
/// such as `GCLAB_NONMOVING_FAULT`).
#[allow(dead_code)] // not every test file runs it
pub fn gclab_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).env_remove("GCLABRTS").envs(env.iter().copied()).output().expect("gclab runs")
}

/// Run `gclab run --json FILE` with `args` (the run must succeed) and
/// return its record's statistics (`stats`: `gc_cpu`, `gc_elapsed`, ...).
#[allow(dead_code)] // not every test file reads a record
pub fn run_stats(args: &[&str]) -> serde_json::Value {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("gclab-run-stats-{}-{n}.json", std::process::id()));
    let o = gclab(&[&["run", "--json", path.to_str().unwrap()], args].concat());
    assert!(o.status.success(), "gclab run {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    record["stats"].clone()
}

/// The count on generation `gen`'s line of a `+RTS -s` summary (GHC's
/// or gclab's) that contains `what`: `" colls,"`, `" syncs,"`.
#[allow(dead_code)] // not every test file reads summaries
pub fn summary_count(summary: &str, gen: usize, what: &str) -> usize {
    let line = summary.lines().find(|l| l.trim_start().starts_with(&format!("Gen  {gen}")) && l.contains(what)).unwrap_or_else(|| panic!("no `Gen {gen} ... {what}` line in:\n{summary}"));
    line.split_whitespace().nth(2).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no count in {line:?}"))
}

/// Eight runs of binary-trees 11 (two collectors, two -A sizes, twice
/// each), a second or two in all.
#[allow(dead_code)] // not every test file sweeps
pub const TINY: &str = r#"
description = "tiny"
repetitions = 2
timeout_secs = 60
collectors = ["copying", "two-space"]
[[workloads]]
name = "binary-trees"
args = [11]
[grid]
A = ["8k", "64k"]
[plot]
x = "A"
figures = ["gc_elapsed", "max_live_bytes"]
"#;

/// The binary of example `name` (`examples/NAME/main.rs`), which cargo
/// builds beside the tests.
#[allow(dead_code)] // not every test file runs an example
pub fn example_binary(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    deps.parent().unwrap().join("examples").join(name)
}

/// Build tools/eventlog-check.hs with ghc (once per test process).
#[allow(dead_code)] // only the eventlog tests read eventlogs with GHC's parser
fn checker() -> &'static Path {
    static CHECKER: OnceLock<PathBuf> = OnceLock::new();
    CHECKER.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = root.join("target").join("tools").join(format!("build-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let exe = out.join("eventlog-check");
        let o = Command::new("ghc")
            .args(["-O0", "-package", "ghc-events", "-outputdir"])
            .arg(&out)
            .arg("-o")
            .arg(&exe)
            .arg(root.join("tools").join("eventlog-check.hs"))
            .output()
            .expect("ghc is installed (.ci/run installs it)");
        assert!(o.status.success(), "building the ghc-events checker failed:\n{}", String::from_utf8_lossy(&o.stderr));
        exe
    })
}

/// Event kinds and counts, as GHC's parser (the ghc-events library) reads
/// the file. `.ci/run` installs ghc and libghc-ghc-events-dev.
#[allow(dead_code)] // only the eventlog tests read eventlogs with GHC's parser
pub fn ghc_events_counts(file: &Path) -> BTreeMap<String, usize> {
    let o = Command::new(checker()).arg(file).output().unwrap();
    assert!(o.status.success(), "ghc-events cannot parse {}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let (k, n) = l.rsplit_once(' ').unwrap();
            (k.to_string(), n.parse().unwrap())
        })
        .collect()
}
