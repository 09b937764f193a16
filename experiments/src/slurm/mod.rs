//! `gclab sweep FILE --slurm`: a sweep as one Slurm job array, one shard
//! of its runs per array task, into a results directory that every node
//! shares; submitted, followed with a progress bar, summed up, and
//! resubmitted for what is missing.
//!
//! Note [Sweeps through Slurm]
//! ----------------------------------------
//! A shard is what `--shard i/n` already is: every n-th run of the
//! experiment, from i, run by `gclab sweep` itself, which skips runs that
//! have a record and locks the ones it runs (See Note [Sweeps sharing a
//! directory] in `sweep`). So a job array needs nothing new on the nodes:
//! the batch script (`script`) runs the shard of its task, and the results
//! directory is the only state. What is new is on the submitting side:
//!
//! - the directory is made (manifest, seed) before anything is submitted,
//!   so every task finds the same run order;
//! - only the shards with a missing run are submitted (`--array=1,3`): a
//!   second `--slurm` into the same directory is the resume that sweeps
//!   have, and the directory's `slurm/jobs.json` records each submission;
//! - the follower counts the records in `runs/` for its progress bar and
//!   asks `squeue` which tasks are still queued; when none is, it sums up:
//!   runs done, failed and missing, and each task that died, with what
//!   `scontrol` says of it (a task killed by `scancel`, a time limit or a
//!   node failure never writes its `.ended` marker);
//! - a task that ran (Slurm says it ended) but whose `.started` marker,
//!   written on its node, is not visible here means the directory is not
//!   one the nodes share: the follower stops with that error, since every
//!   record would be lost the same way;
//! - Ctrl-C stops the follower, not the jobs: `--follow DIR` takes it up.

mod queue;
mod script;

use crate::experiment::Experiment;
use crate::record::{load_records, Status};
use crate::sweep::{missing_runs, prepare};
use indicatif::{ProgressBar, ProgressStyle};
use queue::{ended, queued, Ended};
use script::Script;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Shards when neither `--shards` nor an earlier submission says.
pub const DEFAULT_SHARDS: usize = 8;

/// What `gclab sweep --slurm` was asked.
#[derive(Debug, Clone)]
pub struct SlurmOptions {
    /// The results directory, on a file system the nodes share.
    pub out: PathBuf,
    /// The experiment file.
    pub file: PathBuf,
    /// Array tasks (shards); None: the last submission's, or `DEFAULT_SHARDS`.
    pub shards: Option<usize>,
    /// Arguments for `sbatch` (partition, account, time limit, ...).
    pub sbatch_args: Vec<String>,
    /// `--exclusive`: one task per node (the default).
    pub exclusive: bool,
    /// Only follow what was submitted before (`--follow`).
    pub follow_only: bool,
    /// Draw a progress bar.
    pub progress: bool,
    /// The `gclab` program the tasks run (on the shared file system too).
    pub exe: PathBuf,
    /// The cache of minimum heaps the tasks share.
    pub minheap_cache: PathBuf,
    /// How often the follower looks.
    pub poll: Duration,
}

/// One `sbatch` of a results directory (`slurm/jobs.json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    /// Slurm's job id of the array.
    pub job: String,
    /// Shards (the `n` of `--shard i/n`).
    pub shards: usize,
    /// The array tasks submitted.
    pub tasks: Vec<usize>,
    /// Seconds since the epoch at submission.
    pub submitted: u64,
}

/// A task of the last submission that did not finish its shard.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadTask {
    /// The array task.
    pub task: usize,
    /// What Slurm says of it (None: it no longer remembers the task).
    pub slurm: Option<Ended>,
    /// The shard's exit status, if the task finished it.
    pub status: Option<i32>,
    /// The node it started on, as its marker says (None: it never started).
    pub started_on: Option<String>,
}

/// How a sweep through Slurm stands once its array has ended.
#[derive(Debug, Clone, Default)]
pub struct SlurmSummary {
    /// Runs of the experiment.
    pub runs: usize,
    /// Recorded, ok.
    pub ok: usize,
    /// Recorded, failed or timed out.
    pub failed: usize,
    /// Not recorded.
    pub missing: usize,
    /// What was submitted this time (None: nothing was missing, or `--follow`).
    pub submitted: Option<Submission>,
    /// Tasks of the last submission that did not finish their shard.
    pub dead: Vec<DeadTask>,
    /// The follower was stopped (Ctrl-C) before the array ended.
    pub interrupted: bool,
}

/// Submit what is missing of `exp` as a job array (unless following
/// only), follow it until it ends, and sum up. See Note [Sweeps through
/// Slurm].
pub fn sweep(exp: &Experiment, opts: &SlurmOptions) -> Result<SlurmSummary, String> {
    let dir = absolute(&opts.out)?;
    let mut summary = SlurmSummary::default();
    if !opts.follow_only {
        which("sbatch")?;
        prepare(exp, &dir, false)?;
        let last = submissions(&dir)?.pop();
        if let Some(s) = &last {
            if !queued(&s.job)?.is_empty() {
                return Err(format!("job {} of {} is still queued or running: follow it with `gclab sweep FILE --slurm --follow {}`", s.job, dir.display(), dir.display()));
            }
        }
        let shards = opts.shards.or(last.map(|s| s.shards)).unwrap_or(DEFAULT_SHARDS).max(1);
        summary.submitted = submit(exp, opts, &dir, shards)?;
    }
    let Some(last) = submissions(&dir)?.pop() else {
        return Err(format!("{}: nothing was ever submitted to Slurm from this directory (sweep it with --slurm first)", dir.display()));
    };
    summary.interrupted = follow(exp, &dir, &last, opts)?;
    let records = load_records(&dir).unwrap_or_default();
    let ids: std::collections::HashSet<String> = exp.runs().into_iter().map(|r| r.id).collect();
    let mine: Vec<_> = records.iter().filter(|r| ids.contains(&r.spec.id)).collect();
    summary.runs = ids.len();
    summary.ok = mine.iter().filter(|r| r.status == Status::Ok).count();
    summary.failed = mine.len() - summary.ok;
    summary.missing = summary.runs - mine.len();
    if !summary.interrupted {
        summary.dead = dead_tasks(&dir, &last)?;
    }
    Ok(summary)
}

/// `path` made absolute (the nodes do not share the submitter's working
/// directory's meaning).
fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `program` on the PATH, or why not.
fn which(program: &str) -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{program} is not on the PATH: --slurm submits the sweep with Slurm's {program} (install Slurm's client tools, or sweep without --slurm)"))
}

/// The submissions recorded in `dir/slurm/jobs.json`, oldest first.
fn submissions(dir: &Path) -> Result<Vec<Submission>, String> {
    let path = dir.join("slurm").join("jobs.json");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = gclab_core::input::read_text(&path, gclab_core::input::limit::SMALL_JSON, "a list of Slurm submissions")?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Write the batch script and submit the shards with a missing run; None
/// if every run has its record.
fn submit(exp: &Experiment, opts: &SlurmOptions, dir: &Path, shards: usize) -> Result<Option<Submission>, String> {
    let all = exp.runs();
    let missing = missing_runs(exp, dir);
    let mut tasks: Vec<usize> = missing.iter().map(|r| all.iter().position(|a| a.id == r.id).expect("a run of the experiment") % shards).collect();
    tasks.sort_unstable();
    tasks.dedup();
    if tasks.is_empty() {
        return Ok(None);
    }
    let slurm = dir.join("slurm");
    for sub in ["logs", "tasks"] {
        std::fs::create_dir_all(slurm.join(sub)).map_err(|e| format!("{}: {e}", slurm.join(sub).display()))?;
    }
    let (file, exe, cache) = (absolute(&opts.file)?, absolute(&opts.exe)?, absolute(&opts.minheap_cache)?);
    let text = Script { name: &exp.name, dir, file: &file, exe: &exe, minheap_cache: &cache, shards, exclusive: opts.exclusive, sbatch_args: &opts.sbatch_args }.text()?;
    let script = slurm.join("sweep.sbatch");
    crate::files::write_atomically(&script, text.as_bytes()).map_err(|e| format!("{}: {e}", script.display()))?;
    let array = tasks.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",");
    let out = Command::new("sbatch").arg("--parsable").arg(format!("--array={array}")).arg(&script).output().map_err(|e| format!("cannot run sbatch: {e}"))?;
    if !out.status.success() {
        return Err(format!("Slurm refused the job array: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let job = String::from_utf8_lossy(&out.stdout).trim().split(';').next().unwrap_or("").to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("sbatch answered {:?}, not a job id", String::from_utf8_lossy(&out.stdout).trim()));
    }
    let submitted = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let submission = Submission { job, shards, tasks, submitted };
    let mut all_submissions = submissions(dir)?;
    all_submissions.push(submission.clone());
    let path = slurm.join("jobs.json");
    crate::files::write_atomically(&path, serde_json::to_string_pretty(&all_submissions).expect("submissions serialise").as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(submission))
}

/// Set by SIGINT while the follower runs.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Follow `job` until no task of it is queued, with a bar of the
/// experiment's runs recorded; true if Ctrl-C stopped it first (the jobs
/// go on).
fn follow(exp: &Experiment, dir: &Path, job: &Submission, opts: &SlurmOptions) -> Result<bool, String> {
    let ids: Vec<String> = exp.runs().into_iter().map(|r| r.id).collect();
    let bar = if opts.progress { ProgressBar::new(ids.len() as u64) } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} runs recorded  {msg}  [{elapsed_precise}]").expect("template parses"));
    INTERRUPTED.store(false, Ordering::Relaxed);
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    let previous = unsafe { libc::signal(libc::SIGINT, on_interrupt as *const () as libc::sighandler_t) };
    let mut unseen = BTreeMap::new();
    let result = (|| loop {
        let recorded = ids.iter().filter(|id| crate::sweep::record_path(dir, id).is_file()).count();
        bar.set_position(recorded as u64);
        let q = queued(&job.job)?;
        check_shared(dir, job, &q, &mut unseen)?;
        if q.is_empty() && unseen.is_empty() {
            return Ok(false);
        }
        let running = q.iter().filter(|t| t.state == "RUNNING").count();
        bar.set_message(format!("job {}: {running} task(s) running, {} pending", job.job, q.len() - running));
        let mut waited = Duration::ZERO;
        while waited < opts.poll {
            if INTERRUPTED.load(Ordering::Relaxed) {
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(50));
            waited += Duration::from_millis(50);
        }
    })();
    // SAFETY: restoring the disposition found on entry.
    unsafe { libc::signal(libc::SIGINT, previous) };
    bar.finish_and_clear();
    result
}

/// How long a task may have ended without its markers showing here
/// before the follower concludes that the directory is not shared (a
/// network file system may show another machine's new file late).
const MARKER_GRACE: Duration = Duration::from_secs(15);

/// Stop if a task has run, as Slurm says, and neither its `.started`
/// marker nor its Slurm log, both written on its node, has shown here for
/// `MARKER_GRACE`: the results directory is not shared with the nodes.
/// A task Slurm stopped from outside is no evidence: `scancel` of a task
/// that squeue already shows running can land before its node has opened
/// the log (seen in CI).
/// `unseen` remembers since when each task has been missing them.
fn check_shared(dir: &Path, job: &Submission, queued_now: &[queue::Queued], unseen: &mut BTreeMap<usize, Instant>) -> Result<(), String> {
    for &task in &job.tasks {
        let log = dir.join("slurm").join("logs").join(format!("{}_{task}.out", job.job));
        if queued_now.iter().any(|q| q.task == task) || marker(dir, job, task, "started").is_file() || log.is_file() {
            unseen.remove(&task);
            continue;
        }
        let Some(e) = ended(&job.job, task) else { continue };
        if e.node.is_empty() || e.node == "(null)" {
            continue; // it never ran (cancelled while pending)
        }
        if e.stopped_from_outside() {
            continue; // it may have been stopped before it could write anything
        }
        if unseen.entry(task).or_insert_with(Instant::now).elapsed() < MARKER_GRACE {
            continue;
        }
        return Err(format!(
            "task {task} of job {} ran on {} ({}), but neither its marker {} nor its log is visible here: {} is not on a file system the nodes share (sweep into a shared directory with --out)",
            job.job,
            e.node,
            e.state,
            marker(dir, job, task, "started").display(),
            dir.display()
        ));
    }
    Ok(())
}

fn marker(dir: &Path, job: &Submission, task: usize, what: &str) -> PathBuf {
    dir.join("slurm").join("tasks").join(format!("{}_{task}.{what}", job.job))
}

/// What Slurm says of an ended task, in words.
fn slurm_account(e: &Ended) -> String {
    format!("{} (reason: {}, exit code {}) on {}", e.state, e.reason, e.exit_code, if e.node.is_empty() || e.node == "(null)" { "no node" } else { &e.node })
}

/// The tasks of `job` that did not finish their shard with status 0, with
/// what Slurm says of each.
fn dead_tasks(dir: &Path, job: &Submission) -> Result<Vec<DeadTask>, String> {
    let mut dead = Vec::new();
    for &task in &job.tasks {
        let status = std::fs::read_to_string(marker(dir, job, task, "ended")).ok().and_then(|t| t.trim().parse::<i32>().ok());
        if status != Some(0) {
            let started_on = std::fs::read_to_string(marker(dir, job, task, "started")).ok().map(|t| t.split('\t').next().unwrap_or("").trim().to_string());
            dead.push(DeadTask { task, slurm: ended(&job.job, task), status, started_on });
        }
    }
    Ok(dead)
}

impl SlurmSummary {
    /// The summary in words, ending with what to do next.
    pub fn text(&self, file: &Path, dir: &Path) -> String {
        let mut s = String::new();
        match &self.submitted {
            Some(sub) => s.push_str(&format!("submitted job {}: {} of {} shards ({:?})\n", sub.job, sub.tasks.len(), sub.shards, sub.tasks)),
            None if self.missing == 0 && self.dead.is_empty() && !self.interrupted => s.push_str("nothing to submit: every run has its record\n"),
            None => {}
        }
        s.push_str(&format!("{} runs: {} ok, {} failed, {} missing; results in {}\n", self.runs, self.ok, self.failed, self.missing, dir.display()));
        for d in &self.dead {
            let how = match (&d.slurm, d.status, &d.started_on) {
                // A shard killed by a signal (128 + its number: scancel's
                // SIGTERM) may write its status before it dies: Slurm's own
                // account of the task says why.
                (Some(e), Some(status), _) if status >= 128 => slurm_account(e),
                (_, Some(status), _) => format!("its shard exited with status {status}"),
                (Some(e), None, _) => slurm_account(e),
                (None, None, Some(node)) => format!("started on {node} but never finished its shard, and Slurm no longer remembers why (killed, or past MinJobAge)"),
                (None, None, None) => "never started: cancelled while pending, and Slurm keeps no record of it".into(),
            };
            s.push_str(&format!("task {}: {how}\n", d.task));
        }
        let (file, dir) = (file.display(), dir.display());
        if self.interrupted {
            s.push_str(&format!("stopped following; the jobs go on: `gclab sweep {file} --slurm --follow {dir}` follows them again\n"));
        } else if self.missing > 0 {
            s.push_str(&format!("`gclab sweep {file} --slurm --out {dir}` submits the missing runs again\n"));
        } else {
            s.push_str(&format!("every run is recorded: `gclab report {dir}`\n"));
        }
        s
    }
}
