//! Stress: random runs that shake collectors out beyond the fixed matrix
//! of `conformance`. Each run draws a collector, a workload (or a program
//! of gclab-lang, `programs/NAME.hs`) and a stress setting (from a seed,
//! so that a campaign repeats), runs in its own
//! process with the sanity checker on, and has its checksum compared with
//! `copying`'s for the same workload and arguments. A run that crashes,
//! hangs, fails a sanity check or computes another checksum is a failure,
//! reported with the command that repeats it; a combination the collector
//! or the workload refuses (`two-space` with `-G3`) is not run, nor a
//! program under `--gc-every` (it has one size, at which a GC at every
//! allocation takes minutes).
//!
//! Note [Random runs beside the fixed matrix]
//! ----------------------------------------
//! `conformance` holds every collector to every workload under six fixed
//! settings, which is what the tests run. The bugs that got past it were
//! found by hand-written loops over other combinations: a loser's copy
//! left in a to-space (Note [A loser zeroes the words it took] in
//! `collectors/src/copy_out.rs`) in 8 runs of 40 of `lru 10000` under
//! `-A8k -G2 -O8k -F1 -DS`, several capabilities against parallel GC
//! threads, a tight `-M`, a collector's parameters. Those loops were
//! rewritten at every session and kept nowhere. `gclab stress` is that
//! loop, with the settings the loops used (`MORE_SETTINGS`) added to the
//! fixed ones. Runs go in child processes, as a sweep's do: a crash or a
//! hang is a result, not the end of the campaign. Under a setting with
//! `-M` a heap overflow (exit 251) is a fair end; elsewhere it is a
//! failure. A setting with `--gc-every` runs the workload's tiny size, as
//! `conformance` does, the others its small size, or with `--size
//! default` its default arguments, under settings that check the heap
//! with `--sanity=minor` (`DEFAULT_SIZE_SETTINGS`).
//!
//! Note [What a campaign reached]
//! ----------------------------------------
//! A concurrent collector's bugs live in its concurrent phases, and at the
//! small sizes a run may end before a marking beside the mutators does,
//! or before a copying-out starts: a campaign of such runs is clean and
//! has tested nothing of them. (The test that runs `concurrent-copying`
//! with its read barrier off once caught the fault on 2 workloads of 5 on
//! a busy machine: `hash` at its small size never copied out, nor did
//! `power` there.) So each run's record is read for its concurrent phases
//! and copying-out cycles, and the summary says, for each collector, how
//! many of its runs reached each. A campaign that reaches too few can ask
//! for them: `concurrent-copying:mark=sync,gain=0` marks in the pause and
//! copies out any gain, so that its cycles start without waiting for a
//! marking. Campaigns of 2026-11-29: 18,572 runs of five variants of
//! `concurrent-copying`, `nonmoving` and `lxr` at these sizes, 80% reached
//! a concurrent phase and 32% copied out.

use crate::conformance::{ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::Registry;
use gclab_experiments::child::{run_command, wait_with_deadline};
use gclab_workloads::Workload;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Settings beyond `conformance`'s: several capabilities and GC threads,
/// a tight heap, the megablock reserve off.
pub const MORE_SETTINGS: &[&str] = &[
    "-N2 -qn2 -A8k -G3 -O8k -F1 -DS",
    "-N3 -A16k --sanity=minor:2",
    "-A8k -F1.2 -M3m -DS",
    "-N2 -A32k --no-pretouch -DS",
];

/// Settings for the workloads' default sizes, where checking the whole
/// heap after every GC (`-DS`) would take minutes a run: the checks of
/// what a GC can have changed, the whole heap every 64th check
/// (`--sanity=minor`), under several capabilities and GC threads.
pub const DEFAULT_SIZE_SETTINGS: &[&str] = &[
    "--sanity=minor",
    "-A64k -F1.2 --sanity=minor",
    "-N2 -qn2 --sanity=minor",
    "-N3 -A256k --sanity=minor",
    "-N2 --no-pretouch --sanity=minor",
];

/// The sizes a campaign runs its workloads at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Each workload's small size (its tiny one under `--gc-every`).
    Small,
    /// Each workload's default arguments: heaps of tens to hundreds of
    /// megabytes, where a concurrent collector's phases run long (See
    /// Note [What a campaign reached]).
    Default,
}

impl Size {
    pub fn parse(s: &str) -> Result<Size, String> {
        match s {
            "small" => Ok(Size::Small),
            "default" => Ok(Size::Default),
            _ => Err(format!("stress: --size must be small or default, not `{s}'")),
        }
    }
}

/// Every setting a campaign draws from by default, at `size`.
pub fn default_settings(size: Size) -> Vec<String> {
    match size {
        Size::Small => STRESS_SETTINGS.iter().chain(ONE_GENERATION_SETTINGS).chain(MORE_SETTINGS).map(|s| s.to_string()).collect(),
        Size::Default => DEFAULT_SIZE_SETTINGS.iter().map(|s| s.to_string()).collect(),
    }
}

/// What a run runs: a workload, or a program of gclab-lang, with the
/// arguments of each kind of setting.
#[derive(Debug, Clone)]
pub struct Subject {
    /// What `gclab run` is given: a workload's name, or a program's path.
    pub name: String,
    /// Its arguments under most settings (its small size, or its default
    /// arguments at `Size::Default`), and under a GC every few
    /// allocations (`--gc-every`; None: not run so, a program having one
    /// size only, at which a GC at every allocation takes minutes).
    args: Vec<usize>,
    tiny: Option<Vec<usize>>,
    /// The workload, if it is one (it may refuse a collector).
    workload: Option<&'static Workload>,
}

impl Subject {
    /// A workload, at its small size (or its default arguments, at
    /// `Size::Default`) and its tiny size.
    pub fn workload(w: &'static Workload, size: Size) -> Subject {
        let args = match size {
            Size::Small => w.small.to_vec(),
            Size::Default => w.defaults(),
        };
        Subject { name: w.name.to_string(), args, tiny: Some(w.tiny.to_vec()), workload: Some(w) }
    }

    /// The programs `dir/test-args.txt` lists (`NAME ARGS...` a line, `#`
    /// comments), each `dir/NAME.hs` with those arguments.
    pub fn programs_in(dir: &Path) -> Result<Vec<Subject>, String> {
        let list = dir.join("test-args.txt");
        let text = std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
        let lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
        lines
            .map(|l| {
                let mut words = l.split_whitespace();
                let name = words.next().expect("a line that is not empty has a word");
                let args = words.map(|a| a.parse::<usize>().map_err(|_| format!("{}: `{l}': arguments must be numbers", list.display()))).collect::<Result<Vec<_>, _>>()?;
                let path = dir.join(format!("{name}.hs"));
                Ok(Subject { name: path.display().to_string(), args, tiny: None, workload: None })
            })
            .collect()
    }
}

/// What a campaign draws from, and how long it goes on.
pub struct Campaign {
    /// Collectors, `NAME` or `NAME:key=value,...`.
    pub collectors: Vec<String>,
    /// Workloads and programs.
    pub subjects: Vec<Subject>,
    /// RTS settings, each one string (`"-A8k -G3 -DS"`).
    pub settings: Vec<String>,
    /// Stop after this many runs, if given.
    pub runs: Option<usize>,
    /// Stop once this much time has passed.
    pub duration: Duration,
    pub seed: u64,
    /// A run that takes longer has hung.
    pub timeout: Duration,
    /// The `gclab` binary the runs are made with.
    pub exe: PathBuf,
    /// Where the runs' records and error output go meanwhile.
    pub scratch: PathBuf,
}

/// One run that went wrong.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The command line that repeats it.
    pub command: String,
    /// What went wrong.
    pub what: String,
}

impl std::fmt::Display for Failure {
    /// As the progress and the summary print it: the command, then what
    /// went wrong.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FAILED: {}\n  {}", self.command, self.what)
    }
}

/// What a campaign did so far.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Runs made (copying's reference runs not counted).
    pub runs: usize,
    /// Draws not run: the collector or the workload refused them, or a
    /// program drew a setting with `--gc-every`.
    pub refused: usize,
    /// Runs that overflowed a setting's `-M`.
    pub overflowed: usize,
    pub failures: Vec<Failure>,
    /// Runs made of each collector, and what they reached.
    pub by_collector: BTreeMap<String, Reach>,
    /// Runs made of each workload or program.
    pub by_subject: BTreeMap<String, usize>,
}

/// Runs made of one collector, and how many of them ran at least one
/// phase beside the mutators (a marking, a sweep, a copying-out) and how
/// many copied out: See Note [What a campaign reached].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Runs made.
    pub runs: usize,
    /// Runs that ended well with at least one phase beside the mutators.
    pub concurrent: usize,
    /// Runs that ended well with at least one copying-out cycle.
    pub copied_out: usize,
}

impl Tally {
    /// What every collector's runs reached, together.
    pub fn reached(&self) -> Reach {
        self.by_collector.values().fold(Reach::default(), |a, r| Reach { runs: a.runs + r.runs, concurrent: a.concurrent + r.concurrent, copied_out: a.copied_out + r.copied_out })
    }
}

/// One drawn run.
struct Draw<'c> {
    collector: &'c str,
    subject: &'c Subject,
    args: &'c [usize],
    setting: &'c str,
}

impl Draw<'_> {
    fn command(&self) -> String {
        let words: Vec<String> = [self.subject.name.clone()].into_iter().chain(self.args.iter().map(usize::to_string)).collect();
        format!("gclab run --collector {} {} +RTS {} -RTS", self.collector, words.join(" "), self.setting)
    }
}

/// Run the campaign, calling `progress` after each draw with the tally so
/// far and the failure the draw added, if any.
pub fn stress(registry: &Registry, c: &Campaign, mut progress: impl FnMut(&Tally, Option<&Failure>)) -> Tally {
    let mut rng = gclab_workloads::rng::Rng::new(c.seed);
    let mut reference: HashMap<(&str, &[usize]), Result<String, String>> = HashMap::new();
    let (mut tally, start) = (Tally::default(), Instant::now());
    while c.runs.is_none_or(|n| tally.runs < n) && start.elapsed() < c.duration {
        let setting = &c.settings[rng.below(c.settings.len())];
        let subject = &c.subjects[rng.below(c.subjects.len())];
        let collector = &c.collectors[rng.below(c.collectors.len())];
        let args = if setting.contains("--gc-every") { subject.tiny.as_deref() } else { Some(&subject.args[..]) };
        let Some(d) = args.map(|args| Draw { collector, subject, args, setting }).filter(|d| !refuses(registry, d)) else {
            tally.refused += 1;
            progress(&tally, None);
            continue;
        };
        let args = d.args;
        let expected = reference.entry((&subject.name, args)).or_insert_with(|| checksum_of(c, "copying", &subject.name, args, "")).clone();
        tally.runs += 1;
        tally.by_collector.entry(collector.clone()).or_default().runs += 1;
        *tally.by_subject.entry(subject.name.clone()).or_default() += 1;
        let failure = match (run(c, &d), expected) {
            (_, Err(e)) => Some(format!("copying's reference run failed: {e}")),
            (Outcome::Ran(got), Ok(want)) if got.checksum != want => Some(format!("checksum {}, copying's {want}", got.checksum)),
            (Outcome::Ran(got), Ok(_)) => {
                let reach = tally.by_collector.get_mut(collector).expect("counted as drawn");
                reach.concurrent += usize::from(got.concurrent_phases > 0);
                reach.copied_out += usize::from(got.copy_out_cycles > 0);
                None
            }
            (Outcome::Overflowed, _) if d.setting.contains("-M") => {
                tally.overflowed += 1;
                None
            }
            (Outcome::Overflowed, _) => Some("heap overflow without -M".into()),
            (Outcome::Failed(why), _) => Some(why),
        };
        let failure = failure.map(|what| Failure { command: d.command(), what });
        tally.failures.extend(failure.clone());
        progress(&tally, failure.as_ref());
    }
    tally
}

/// Does the collector refuse the setting, or the workload the collector,
/// as `gclab run` would before running anything?
fn refuses(registry: &Registry, d: &Draw<'_>) -> bool {
    let Ok(mut flags) = crate::flags(d.setting) else { return true };
    let Ok((entry, params)) = registry.select(&mut flags, Some(d.collector)) else { return true };
    let refused_by_workload = d.subject.workload.is_some_and(|w| w.check_collector(entry.name, !gclab_collectors::is_baseline(entry.name)).is_err());
    refused_by_workload || (entry.make)(params, &flags).is_err()
}

/// How a run ended.
enum Outcome {
    /// It ran to its end.
    Ran(Ran),
    /// Exit 251: the heap's limit.
    Overflowed,
    Failed(String),
}

fn run(c: &Campaign, d: &Draw<'_>) -> Outcome {
    match run_child(c, d.collector, &d.subject.name, d.args, d.setting) {
        Ok(ran) => Outcome::Ran(ran),
        Err((Some(251), _)) => Outcome::Overflowed,
        Err((_, why)) => Outcome::Failed(why),
    }
}

fn checksum_of(c: &Campaign, collector: &str, subject: &str, args: &[usize], setting: &str) -> Result<String, String> {
    run_child(c, collector, subject, args, setting).map(|ran| ran.checksum).map_err(|(_, why)| why)
}

/// What a run's record says of a run that ended well.
struct Ran {
    /// As the record writes it (hex).
    checksum: String,
    /// Phases beside the mutators, and copying-out cycles among them.
    concurrent_phases: u64,
    copy_out_cycles: u64,
}

/// Run one child; what its record says, or its exit code and what went wrong.
fn run_child(c: &Campaign, collector: &str, subject: &str, args: &[usize], setting: &str) -> Result<Ran, (Option<i32>, String)> {
    let (json, err_path) = (c.scratch.join("run.json"), c.scratch.join("run.stderr"));
    let _ = std::fs::remove_file(&json);
    let fail = |why: String| (None, why);
    let err_file = std::fs::File::create(&err_path).map_err(|e| fail(format!("{}: {e}", err_path.display())))?;
    let rts: Vec<String> = setting.split_whitespace().map(str::to_string).collect();
    let mut cmd = run_command(&c.exe, collector, &json, subject, args, &rts);
    cmd.stdout(Stdio::null()).stderr(err_file);
    let mut child = cmd.spawn().map_err(|e| fail(format!("cannot run {}: {e}", c.exe.display())))?;
    let (status, hung) = wait_with_deadline(&mut child, Instant::now(), c.timeout).map_err(|e| fail(e.to_string()))?;
    if hung {
        return Err(fail(format!("still running after {} s: killed", c.timeout.as_secs())));
    }
    if !status.success() {
        return Err((status.code(), ended_badly(status, &err_path)));
    }
    read_record(&json).map_err(fail)
}

/// The way a run ended, and the first lines it wrote to its error output
/// (a panic's place and message, a sanity check's first violation).
fn ended_badly(status: std::process::ExitStatus, err_path: &Path) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended".to_string(),
    };
    let err = std::fs::read_to_string(err_path).unwrap_or_default();
    let first: Vec<&str> = err.lines().map(str::trim).filter(|l| !l.is_empty()).take_while(|l| !l.starts_with("stack backtrace")).take(3).collect();
    format!("{how}: {}", first.join("\n  "))
}

fn read_record(json: &Path) -> Result<Ran, String> {
    let text = std::fs::read_to_string(json).map_err(|e| format!("no JSON record: {e}"))?;
    let record: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("bad JSON record: {e}"))?;
    let checksum = record["checksum"].as_str().map(str::to_string).ok_or_else(|| "the record has no checksum".to_string())?;
    let stats = &record["stats"];
    let count = |v: &serde_json::Value, what: &str| v.as_u64().ok_or_else(|| format!("the record's stats have no {what}"));
    Ok(Ran { checksum, concurrent_phases: count(&stats["concurrent_phases"], "concurrent_phases")?, copy_out_cycles: count(&stats["copy_out"]["cycles"], "copy_out.cycles")? })
}
