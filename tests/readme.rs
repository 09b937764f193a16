//! Every command in the README, run as a newcomer would run it: in a copy
//! of the repository's tracked files (so the checkout's own `results/`
//! and eventlogs are untouched), in the README's order (later commands
//! read what earlier ones wrote), with `cargo run --release --` meaning
//! the `gclab` under test and `CARGO_TARGET_DIR` pointing at its build (so
//! the scripts find it only if they honour that variable). A command that
//! takes long runs at a smaller size (`SMALLER`, and every swept
//! experiment file cut down to one repetition of its workloads' small
//! sizes); the few run elsewhere say where (`ELSEWHERE`).
//!
//! Each command must exit 0; each file it says it wrote (`Plot:`,
//! `Table:`, `Timeline:`, `MMU:`, `Trace:`, `--json`) must be non-empty; and
//! at the end, nothing may be left that git would show as untracked: what
//! the commands write is either covered by `.gitignore` or a bug.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Sizes the test runs instead of the README's (README text, test text),
/// applied to every command.
const SMALLER: &[(&str, &str)] = &[
    ("binary-trees 20", "binary-trees 12"),
    ("binary-trees 18", "binary-trees 12"),
    ("binary-trees 16", "binary-trees 12"),
    ("gcbench 18", "gcbench 12"),
    ("gcbench 16", "gcbench 14"),
    ("lru 50000 1000000 128", "lru 5000 100000 64"),
    ("lru 20000 200000 128", "lru 2000 20000 64"),
    ("scripts/sanity-cost", "scripts/sanity-cost --workloads 'binary-trees=10,lru=2000 20000 64'"),
    ("scripts/claims --only compacting -n 5", "scripts/claims --only compacting --quick"),
];

/// README commands run elsewhere (the start of the command, where).
const ELSEWHERE: &[(&str, &str)] = &[
    ("./scripts/test", "it is the test command itself (.ci/run)"),
    ("cargo bench", "scripts/test's clippy --all-targets builds the benches; running them takes minutes"),
    ("scripts/fuzz", "scripts/test runs scripts/fuzz on every input reader"),
    ("cargo run --release -- sweep experiments/default.toml --slurm", "tests/slurm.rs sweeps on a real one-node Slurm"),
];

/// The commands of the README's `sh` blocks, in order.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            l if in_sh && !l.is_empty() && !l.starts_with('#') => commands.push(l.to_string()),
            _ => {}
        }
    }
    commands
}

/// Copy the repository's tracked files into `to`, and make `to` a git
/// repository with them staged, so that `git status` there shows what the
/// commands add.
fn copy_tracked(root: &Path, to: &Path) {
    let listed = Command::new("git").args(["ls-files", "-z"]).current_dir(root).output().expect("git runs");
    assert!(listed.status.success(), "git ls-files: {}", String::from_utf8_lossy(&listed.stderr));
    for name in listed.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).expect("a UTF-8 file name");
        let (from, dest) = (root.join(name), to.join(name));
        // A file deleted but not yet committed is listed too.
        if from.is_file() {
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(&from, &dest).unwrap_or_else(|e| panic!("copy {name}: {e}"));
        }
    }
    for args in [&["init", "-q"][..], &["add", "-A"]] {
        let o = Command::new("git").args(args).current_dir(to).output().expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Cut the experiment file at `path` down: one repetition, no warm-up,
/// each workload at its small size, at most two values of each grid key.
fn cut_down(path: &Path) {
    let mut exp: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    exp.insert("repetitions".into(), 1.into());
    exp.remove("warmup");
    for w in exp.get_mut("workloads").and_then(|w| w.as_array_mut()).into_iter().flatten() {
        let name = w["name"].as_str().unwrap().to_string();
        let small = gclab_workloads::by_name(&name).unwrap_or_else(|| panic!("workload {name}")).small;
        w.as_table_mut().unwrap().insert("args".into(), small.iter().map(|&a| toml::Value::Integer(a as i64)).collect::<Vec<_>>().into());
    }
    for values in exp.get_mut("grid").and_then(|g| g.as_table_mut()).into_iter().flat_map(|g| g.iter_mut().map(|(_, v)| v)) {
        if let Some(list) = values.as_array_mut() {
            list.truncate(2);
        }
    }
    std::fs::write(path, toml::to_string(&exp).unwrap()).unwrap();
}

/// The files a command says it wrote, relative to `dir`.
fn files_written(command: &str, stdout: &str, dir: &Path) -> Vec<PathBuf> {
    let said = ["Plot:", "Table:", "Runs:", "Timeline:", "MMU:", "Trace:"];
    let mut files: Vec<PathBuf> = stdout
        .lines()
        .filter_map(|l| said.iter().find_map(|s| l.strip_prefix(s)))
        .map(|f| dir.join(f.trim()))
        .collect();
    let words: Vec<&str> = command.split_whitespace().collect();
    files.extend(words.windows(2).filter(|w| w[0] == "--json").map(|w| dir.join(w[1])));
    files
}

#[test]
fn every_readme_command_runs_and_leaves_nothing_untracked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let gclab = Path::new(env!("CARGO_BIN_EXE_gclab"));
    let target_dir = gclab.parent().and_then(Path::parent).expect("gclab lies in <target>/release");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = readme_commands(&readme);
    for (start, _) in ELSEWHERE {
        assert!(commands.iter().any(|c| c.starts_with(start)), "ELSEWHERE names `{start}', which the README no longer has");
    }
    for (from, _) in SMALLER {
        assert!(commands.iter().any(|c| c.contains(from)), "SMALLER names `{from}', which the README no longer has");
    }
    let dir = std::env::temp_dir().join(format!("gclab-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    copy_tracked(root, &dir);
    let mut cut = BTreeSet::new();
    for command in &commands {
        if ELSEWHERE.iter().any(|(start, _)| command.starts_with(start)) {
            continue;
        }
        let mut run = command.replace("cargo run --release --", &gclab.display().to_string());
        for (from, to) in SMALLER {
            run = run.replace(from, to);
        }
        for word in run.split_whitespace().filter(|w| w.starts_with("experiments/") && w.ends_with(".toml")) {
            if cut.insert(word.to_string()) {
                cut_down(&dir.join(word));
            }
        }
        let o = Command::new("bash")
            .args(["-c", &run])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", target_dir)
            .env_remove("GCLABRTS")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("bash runs");
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "README command `{command}' (run as `{run}') failed ({}):\n{}\n{stdout}", o.status, String::from_utf8_lossy(&o.stderr));
        for file in files_written(&run, &stdout, &dir) {
            let len = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            assert!(len > 0, "README command `{command}' says it wrote {}, which is empty or missing", file.display());
        }
    }
    // What the commands left that git would show.
    let status = Command::new("git").args(["status", "--porcelain", "--untracked-files=all"]).current_dir(&dir).output().unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    let untracked: Vec<&str> = status.lines().filter_map(|l| l.strip_prefix("?? ")).collect();
    assert!(untracked.is_empty(), "the README's commands leave files that .gitignore does not cover:\n{}", untracked.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}
