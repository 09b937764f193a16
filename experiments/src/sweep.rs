//! `gclab sweep`: run every point of an experiment's grid, each run in a
//! child process, into a results directory that survives crashes.
//!
//! Layout of a results directory (`results/README.md` documents it):
//! `manifest.json` (the experiment file, git commit, machine), `runs/` with
//! one `<run id>.json` per finished run, `runs.csv` (one row per run, every
//! statistic a column), and `logs/` with each run's stdout and stderr.
//!
//! Note [Crash-proof sweeps]
//! ----------------------------------------
//! Each run is `gclab run ... --json` in its own process (a peer's run is
//! `gclab peer ... --json`, whose program is a grandchild: See
//! `peers::exec`), so a crash, a heap overflow or a hang (killed, with its
//! process group, at the experiment's timeout) marks that run failed, with its exit status and stderr kept, and the sweep goes
//! on. A run's record is written to a temporary file and renamed into
//! `runs/` only when complete, so a sweep killed at any moment leaves only
//! whole records behind; a rerun skips every run that has one (`--force`
//! reruns them). Shards (`--shard i/n`) take every n-th run, so several
//! processes or machines can fill one directory; `runs.csv` is rebuilt
//! from `runs/` by whoever finishes, and by `gclab report`.
//!
//! Note [Sweeps sharing a directory]
//! ----------------------------------------
//! Shards share a directory by design, and a user may start a second
//! sweep on one by mistake; either way no run may be run twice at once
//! (both sweeps once deleted the same `logs/<id>.result.json` and
//! recorded successful runs as failed). So a run is taken by locking
//! `logs/<id>.lock` (an advisory lock, which the kernel drops when its
//! process dies, so a killed sweep leaves no stale lock); a sweep that
//! finds it held skips the run as another's, and one that takes it checks
//! again for a record another has just written. The child writes its JSON
//! record to a file named for the sweep's process. A directory swept with
//! one experiment file is not swept with another (the manifest keeps the
//! text) unless `--force` says to start again; a record that does not
//! read (empty, cut, hand-edited) is named and its run run again, and
//! `gclab report` names it and goes on without it.
//!
//! Note [A sweep on a full disk]
//! ----------------------------------------
//! When the results directory cannot be written (a full disk, a read-only
//! mount), a run would fail for want of room, not for anything it did,
//! and recording it as failed would keep it failed on every resume. So
//! the sweep stops instead, with an error naming the file: when its own
//! write fails (a lock file, a record, `runs.csv`), or when a run exits
//! with `EXIT_OUTPUT_UNWRITABLE` (74), which `gclab run` uses for exactly
//! this and nothing else (its message may itself be lost on a full disk,
//! its exit code is not). Records are written whole or not at all
//! (`write_atomically`, which also removes its temporary file on
//! failure), so every record already there stays whole, and a resume
//! after making room carries on where the sweep stopped.
//!
//! A child must not outlive its sweep (a killed sweep once left
//! binary-trees 24 running at 3 GB): it is told the sweep's process id
//! (`GCLAB_EXIT_WITH_PARENT`) and exits when its parent changes.

use crate::child::{child_command, run_command, wait_with_deadline};
use crate::experiment::{heap_multiple, run_order, with_heap_limit, Experiment, MultipleOf, RunOrder, RunSpec};
use crate::files::write_atomically;
use crate::machine::{command_output, cpu_field, git_commit, load_average, this_machine};
use crate::peers::Language;
use crate::record::{read_manifest, read_record, write_csv, RunRecord, Status};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Options of a sweep.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// The results directory.
    pub out: PathBuf,
    /// Rerun runs that already have a record.
    pub force: bool,
    /// (i, n): run only the runs whose index is i modulo n.
    pub shard: (usize, usize),
    /// Draw a progress bar.
    pub progress: bool,
    /// The `gclab` executable the runs use.
    pub exe: PathBuf,
    /// The cache of minimum heaps that heap multiples use (See `minheap`).
    pub minheap_cache: PathBuf,
}

/// What a sweep did.
#[derive(Debug, Clone, Default)]
pub struct SweepSummary {
    /// Runs in this shard.
    pub total: usize,
    /// Skipped: already recorded.
    pub skipped: usize,
    /// Ran and succeeded.
    pub ok: usize,
    /// Ran and failed or timed out.
    pub failed: usize,
}

/// Parse `i/n`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (i, n) = s.split_once('/').ok_or_else(|| format!("--shard `{s}': expected i/n, such as 0/4"))?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| format!("--shard `{s}': `{i}' is not a number"))?, n.parse().map_err(|_| format!("--shard `{s}': `{n}' is not a number"))?);
    if n == 0 || i >= n {
        return Err(format!("--shard `{s}': need 0 <= i < n"));
    }
    Ok((i, n))
}

/// Where run `id`'s record goes under results directory `out`.
pub fn record_path(out: &Path, id: &str) -> PathBuf {
    out.join("runs").join(format!("{id}.json"))
}

/// Check that `path` is a directory or can be made one: not a file, and
/// not a link to nothing (a dangling `latest` once gave "File exists").
fn check_can_be_dir(path: &Path, what: &str) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(m) if m.file_type().is_symlink() && !path.exists() => {
            let to = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            Err(format!("{} ({what}) is a link to {to}, which does not exist: remove the link, or sweep into another directory (--name, --out)", path.display()))
        }
        Ok(_) if !path.is_dir() => Err(format!("{} ({what}) is a file, not a directory: move it away, or sweep into another directory (--name, --out)", path.display())),
        Ok(_) => Ok(()),
    }
}

/// Make `out` a results directory of `exp` (its `runs/`, `logs/` and
/// manifest), or check that it is one; returns the seed of the run order
/// (a resumed sweep keeps the one its manifest recorded: See Note [Run
/// order]). With `force`, a manifest of another experiment is replaced.
pub fn prepare(exp: &Experiment, out: &Path, force: bool) -> Result<u64, String> {
    let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
    check_can_be_dir(out, "the results directory")?;
    for dir in ["runs", "logs"] {
        check_can_be_dir(&out.join(dir), &format!("where the sweep keeps its {dir}"))?;
        std::fs::create_dir_all(out.join(dir)).map_err(|e| io(&out.join(dir).display().to_string(), e))?;
    }
    let recorded = match read_manifest(out) {
        Ok(m) => m.filter(|_| !force),
        Err(_) if force => None,
        Err(e) => return Err(format!("{e}: it says which experiment {} holds; restore it, or sweep with --force to start the directory again", out.display())),
    };
    if let Some(file) = recorded.as_ref().and_then(|m| m.get("experiment_file")?.as_str().map(str::to_string)) {
        if file != exp.source {
            return Err(format!(
                "{} was swept with a different experiment file (its manifest.json keeps the text): sweep into another directory (--name, --out), or pass --force to start this one again",
                out.display()
            ));
        }
    }
    let seed = exp.seed.or_else(|| recorded.as_ref()?.get("seed")?.as_u64()).unwrap_or_else(fresh_seed);
    if recorded.is_none() {
        let text = serde_json::to_string_pretty(&manifest_json(exp, seed)).expect("manifest serialises");
        write_atomically(&out.join("manifest.json"), text.as_bytes()).map_err(|e| io("manifest.json", e))?;
    }
    Ok(seed)
}

/// The runs of `exp` in `out` that have no whole record yet.
pub fn missing_runs(exp: &Experiment, out: &Path) -> Vec<RunSpec> {
    exp.runs().into_iter().filter(|r| read_record(&record_path(out, &r.id)).is_err()).collect()
}

/// Run the sweep. See Note [Crash-proof sweeps].
pub fn sweep(exp: &Experiment, opts: &SweepOptions) -> Result<SweepSummary, String> {
    let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
    let seed = prepare(exp, &opts.out, opts.force)?;
    let runs: Vec<RunSpec> = exp.runs().into_iter().enumerate().filter(|(i, _)| i % opts.shard.1 == opts.shard.0).map(|(_, r)| r).collect();
    let runs = run_order(runs, exp.order, seed);
    let mut summary = SweepSummary { total: runs.len(), ..SweepSummary::default() };
    let bar = if opts.progress { ProgressBar::new(runs.len() as u64) } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} runs  {msg}  [{elapsed_precise}, ETA {eta}]").expect("template parses"));
    let mut heaps = HeapMultiples::open(exp, opts)?;
    let programs = build_peers(exp, &runs, &opts.out.join("peers"), &bar)?;
    for run in &runs {
        let path = record_path(&opts.out, &run.id);
        // See Note [Sweeps sharing a directory].
        let lock = match take_run(&opts.out, &run.id)? {
            Some(lock) if opts.force || !recorded_whole(&path, &bar) => lock,
            _ => {
                summary.skipped += 1;
                bar.inc(1);
                continue;
            }
        };
        bar.set_message(format!("{} failed, running {}", summary.failed, run.id));
        let record = match heaps.resolve(exp, run, &bar) {
            Ok(run) => {
                let program = exp.peer_of(&run).map(|l| (l, programs[&(run.workload.clone(), l)].as_path()));
                run_one(&run, program, exp.timeout_secs, opts).map_err(|e| io(&format!("run {}", run.id), e))?
            }
            Err(reason) => RunRecord { spec: run.clone(), status: Status::Failed, exit_code: None, signal: None, wall_secs: 0.0, stderr_tail: reason, result: None, machine: Some(this_machine()) },
        };
        if record.exit_code == Some(gclab_core::runtime::EXIT_OUTPUT_UNWRITABLE) {
            return Err(unwritable_output(&opts.out, &record));
        }
        match record.status {
            Status::Ok => summary.ok += 1,
            _ => summary.failed += 1,
        }
        let text = serde_json::to_string_pretty(&record).expect("records serialise");
        write_atomically(&path, text.as_bytes()).map_err(|e| io(&path.display().to_string(), e))?;
        drop(lock);
        bar.inc(1);
    }
    bar.finish_with_message(format!("{} failed", summary.failed));
    record_load_after(&opts.out).map_err(|e| io("manifest.json", e))?;
    write_csv(&opts.out)?;
    Ok(summary)
}

/// The error that stops a sweep whose run could not write its output
/// (See Note [A sweep on a full disk]).
fn unwritable_output(out: &Path, record: &RunRecord) -> String {
    let said = record.stderr_tail.lines().rev().find(|l| l.contains("cannot write")).map(|l| format!(" ({})", l.trim())).unwrap_or_default();
    format!(
        "run {} could not write its output under {}{said}: the sweep stops here, without recording it. Make room (or make the directory writable) and run the sweep again: it resumes",
        record.spec.id,
        out.join("logs").display()
    )
}

/// Take run `id` for this process by locking `logs/<id>.lock`; None if
/// another process holds it (See Note [Sweeps sharing a directory]).
fn take_run(out: &Path, id: &str) -> Result<Option<std::fs::File>, String> {
    let path = out.join("logs").join(format!("{id}.lock"));
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: cannot lock: {e}", path.display())),
    }
}

/// Whether `path` holds a whole run record; a damaged one is named (it
/// will be run again).
fn recorded_whole(path: &Path, bar: &ProgressBar) -> bool {
    match read_record(path) {
        Ok(_) => true,
        Err(e) if path.exists() => {
            bar.suspend(|| {
                let _ = writeln!(std::io::stderr(), "gclab: warning: {e}: running it again");
            });
            false
        }
        Err(_) => false,
    }
}

/// Heap multiples resolved to sizes (See `minheap`): the cache of minimum
/// heaps, and what this results directory used (`minheaps.json`).
struct HeapMultiples {
    cache: crate::minheap::Cache,
    how: crate::minheap::Probing,
    out: PathBuf,
    /// Per question key: the answer, or why there is none.
    answers: HashMap<String, Result<crate::minheap::MinHeap, String>>,
}

/// A minimum heap a sweep used, as `minheaps.json` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UsedMinHeap {
    /// `workload args`.
    pub workload: String,
    /// The collector.
    pub collector: String,
    /// RTS flags (without -M).
    pub flags: String,
    /// The minimum heap in bytes; None if it could not be found.
    pub bytes: Option<u64>,
    /// The peak memory in use of a run at it (See Note [A limit is not
    /// the memory used] in `minheap`); absent in older sweeps' files.
    #[serde(default)]
    pub peak_bytes: Option<u64>,
    /// Why not, if not.
    pub error: Option<String>,
}

impl HeapMultiples {
    fn open(exp: &Experiment, opts: &SweepOptions) -> Result<HeapMultiples, String> {
        let how = crate::minheap::Probing { exe: opts.exe.clone(), scratch: opts.out.join("logs"), timeout_secs: exp.timeout_secs, precision: 0.02 };
        Ok(HeapMultiples { cache: crate::minheap::Cache::open(&opts.minheap_cache)?, how, out: opts.out.clone(), answers: HashMap::new() })
    }

    /// `run` with its heap multiple (if any) replaced by a size; Err: why
    /// the minimum heap it multiplies could not be found.
    fn resolve(&mut self, exp: &Experiment, run: &RunSpec, bar: &ProgressBar) -> Result<RunSpec, String> {
        let Some(multiple) = run.rts.iter().find_map(|f| heap_multiple(f)) else { return Ok(run.clone()) };
        let collectors: Vec<(String, String)> = match exp.heap_multiple_of {
            MultipleOf::Each => exp.collectors.iter().filter(|(c, _)| *c == run.collector).cloned().collect(),
            MultipleOf::Smallest => exp.collectors.clone(),
        };
        if collectors.is_empty() {
            return Err(format!("a peer ({}) has no minimum heap of its own to multiply: use heap_multiple_of = \"smallest\" (the smallest of gclab's collectors')", run.collector));
        }
        // The minimum heap is the workload's under each collector: the
        // heap policy's (how far the heap grows below the limit) is left out.
        let point_flags: Vec<String> = run.point.values().filter(|v| !v.is_empty() && heap_multiple(v).is_none() && !v.starts_with("--heap-policy=")).cloned().collect();
        let mut base = u64::MAX;
        for (collector, own) in collectors {
            let mut rts = point_flags.clone();
            crate::experiment::add_own_flags(&mut rts, &own);
            let q = crate::minheap::Question { workload: run.workload.clone(), args: run.args.clone(), collector, rts };
            base = base.min(self.answer(&q, bar)?.bytes);
        }
        let block = gclab_core::constants::BLOCK_SIZE as u64;
        let bytes = ((base as f64 * multiple) as u64).div_ceil(block) * block;
        let mut resolved = run.clone();
        resolved.rts = with_heap_limit(&run.rts, bytes);
        Ok(resolved)
    }

    fn answer(&mut self, q: &crate::minheap::Question, bar: &ProgressBar) -> Result<crate::minheap::MinHeap, String> {
        let key = q.key("");
        if !self.answers.contains_key(&key) {
            bar.set_message(format!("finding the minimum heap of {} under {}", q.workload_and_args(), q.collector));
            let found = crate::minheap::min_heap(&self.how, q, &mut self.cache, |line| bar.set_message(line.to_string())).map(|(a, _)| a);
            self.record(q, &found)?;
            self.answers.insert(key.clone(), found);
        }
        self.answers[&key].clone().map_err(|e| format!("no minimum heap to multiply: {e}"))
    }

    /// Add the answer to `minheaps.json` (merged with what shards wrote).
    fn record(&self, q: &crate::minheap::Question, found: &Result<crate::minheap::MinHeap, String>) -> Result<(), String> {
        let path = self.out.join("minheaps.json");
        let mut used: Vec<UsedMinHeap> = gclab_core::input::read_text(&path, gclab_core::input::limit::SMALL_JSON, "a list of minimum heaps").ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
        let entry = UsedMinHeap {
            workload: q.workload_and_args(),
            collector: q.collector.clone(),
            flags: q.rts.join(" "),
            bytes: found.as_ref().ok().map(|a| a.bytes),
            peak_bytes: found.as_ref().ok().map(|a| a.peak_at_answer_bytes).filter(|&b| b > 0),
            error: found.as_ref().err().cloned(),
        };
        used.retain(|u| (&u.workload, &u.collector, &u.flags) != (&entry.workload, &entry.collector, &entry.flags));
        used.push(entry);
        let text = serde_json::to_string_pretty(&used).expect("minimum heaps serialise");
        write_atomically(&path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Build every peer program `runs` use, under `dir` (See Note [Building
/// peers once]): (workload, language) -> the program.
fn build_peers(exp: &Experiment, runs: &[RunSpec], dir: &Path, bar: &ProgressBar) -> Result<HashMap<(String, Language), PathBuf>, String> {
    let mut languages: Vec<Language> = runs.iter().filter_map(|r| exp.peer_of(r)).collect();
    languages.sort();
    languages.dedup();
    // Every missing compiler at once, before any build.
    let missing: Vec<String> = languages.iter().filter_map(|&l| crate::peers::build::compiler_version(l).err()).collect();
    if !missing.is_empty() {
        return Err(missing.join("\n"));
    }
    let mut programs = HashMap::new();
    for run in runs {
        let Some(language) = exp.peer_of(run) else { continue };
        if let std::collections::hash_map::Entry::Vacant(slot) = programs.entry((run.workload.clone(), language)) {
            bar.set_message(format!("building the {} peer of {}", language.name(), run.workload));
            slot.insert(crate::peers::build::build(dir, &run.workload, language)?);
        }
    }
    Ok(programs)
}

/// One run as a child process (See Note [Crash-proof sweeps]): gclab's
/// own, or a peer's (`peer`: its language and program).
fn run_one(run: &RunSpec, peer: Option<(Language, &Path)>, timeout_secs: f64, opts: &SweepOptions) -> std::io::Result<RunRecord> {
    let logs = opts.out.join("logs");
    let json = logs.join(format!("{}.{}.result.json", run.id, std::process::id()));
    let _ = std::fs::remove_file(&json);
    let stdout = std::fs::File::create(logs.join(format!("{}.stdout", run.id)))?;
    let stderr_path = logs.join(format!("{}.stderr", run.id));
    let stderr = std::fs::File::create(&stderr_path)?;
    let mut cmd = match peer {
        Some((language, program)) => peer_command(&opts.exe, language, program, &json, run),
        None => run_command(&opts.exe, &run.collector, &json, &run.workload, &run.args, &outputs_beside_logs(&run.rts, &logs, &run.id)),
    };
    cmd.stdout(stdout).stderr(stderr);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let (status, timed_out) = wait_with_deadline(&mut child, start, Duration::from_secs_f64(timeout_secs))?;
    let wall_secs = start.elapsed().as_secs_f64();
    let err_text = std::fs::read(&stderr_path).unwrap_or_default();
    let tail_start = err_text.len().saturating_sub(4096);
    let stderr_tail = String::from_utf8_lossy(&err_text[tail_start..]).into_owned();
    let result = std::fs::read_to_string(&json).ok().and_then(|t| serde_json::from_str(&t).ok());
    let _ = std::fs::remove_file(&json);
    use std::os::unix::process::ExitStatusExt;
    let status_kind = if timed_out {
        Status::Timeout
    } else if status.success() && result.is_some() {
        Status::Ok
    } else {
        Status::Failed
    };
    Ok(RunRecord { spec: run.clone(), status: status_kind, exit_code: status.code(), signal: status.signal(), wall_secs, stderr_tail, result, machine: Some(this_machine()) })
}

/// `rts` with the files a run writes by its program's name (`-l`'s
/// eventlog, `-h`'s heap profile) sent beside its record's logs, as
/// `logs/<id>.eventlog` and `logs/<id>.hp`, unless the flags name them:
/// every run of a sweep would otherwise write `<workload>.eventlog` into
/// the sweep's working directory, each over the last.
fn outputs_beside_logs(rts: &[String], logs: &Path, id: &str) -> Vec<String> {
    let mut out = rts.to_vec();
    let has = |prefix: &str| rts.iter().any(|f| f.starts_with(prefix));
    if has("-l") && !has("-ol") {
        out.push(format!("-ol{}", logs.join(format!("{id}.eventlog")).display()));
    }
    if has("-h") && !has("-po") {
        out.push(format!("-po{}", logs.join(id).display()));
    }
    out
}

fn manifest_json(exp: &Experiment, seed: u64) -> serde_json::Value {
    let governor = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").map(|g| g.trim().to_string()).unwrap_or_else(|_| "unknown (no cpufreq)".into());
    serde_json::json!({
        "experiment": exp.name,
        "description": exp.description,
        "experiment_file": exp.source,
        "runs": exp.runs().len(),
        "order": match exp.order { RunOrder::Random => "random", RunOrder::Fixed => "fixed" },
        "seed": seed,
        "gclab_version": env!("CARGO_PKG_VERSION"),
        "git_commit": git_commit(),
        "peers": exp.peers.iter().map(|&l| (l.name().to_string(), crate::peers::build::compiler_version(l).unwrap_or_else(|e| e).into())).collect::<serde_json::Map<String, serde_json::Value>>(),
        "machine": {
            "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "memory_bytes": gclab_core::process_usage::machine_memory_bytes().unwrap_or(0),
            "cpu_model": cpu_field("model name"),
            "cpu_mhz": cpu_field("cpu MHz"),
            "frequency_governor": governor,
            "load_before": load_average(),
            "os": command_output("uname", &["-srm"]),
            "rustc": command_output("rustc", &["--version"]),
        },
    })
}

/// Record the load average after this sweep (process) ended in the
/// manifest (the report warns when either was high).
fn record_load_after(dir: &Path) -> std::io::Result<()> {
    let Ok(Some(mut m)) = read_manifest(dir) else { return Ok(()) };
    m["machine"]["load_after"] = load_average().into();
    write_atomically(&dir.join("manifest.json"), serde_json::to_string_pretty(&m).expect("manifest serialises").as_bytes())
}

/// A seed for a sweep that names none: the clock's nanoseconds.
fn fresh_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// The child process of a peer's run: `gclab peer --program P --json J
/// LANGUAGE WORKLOAD ARGS +RTS FLAGS -RTS` (See `peers::exec`).
fn peer_command(exe: &Path, language: Language, program: &Path, json: &Path, run: &RunSpec) -> Command {
    let mut cmd = child_command(exe, "peer");
    cmd.arg("--program").arg(program).arg("--json").arg(json).arg(language.name()).arg(&run.workload);
    cmd.args(run.args.iter().map(|a| a.to_string()));
    cmd.arg("+RTS").args(&run.rts).arg("-RTS");
    cmd
}

