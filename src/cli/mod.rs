//! The `gclab` command line: run a workload under a collector with GHC's
//! RTS flags, sweep experiments, report, read eventlogs and heap
//! profiles, and list what there is.
//!
//! `gclab run [--collector NAME] [--json FILE] WORKLOAD [args] +RTS ... -RTS`
//! is parsed GHC's way for everything after the workload name (see core's
//! `flags`); clap handles the subcommands and the options before it.
//!
//! Every subcommand sees one collector registry: `main_with(registry)`.
//! The `gclab` binary passes the built-in one; a researcher's own binary
//! passes one with its collectors added, and gets the whole command line,
//! sweeps included (a sweep runs each run with the binary that started
//! it), for them (See `docs/adding-a-collector.md`).
//!
//! This module holds the command line's shape and its dispatch; each
//! subcommand lives in a module of its own (`run`, `sweep`, `minheap`,
//! `eventlog`, `stress`), and `output` is how they all write and exit.

mod eventlog;
mod hp;
mod minheap;
mod output;
mod program;
mod run;
mod stress;
mod sweep;

use clap::{Parser, Subcommand};
use eventlog::{eventlog, eventlog_diff, follow_eventlog, EventlogView};
use gclab_collectors::Registry;
use minheap::minheap;
use output::{finish, finish_with_code, out, Failure};
use run::{list_text, peer, run_catching_internal_errors};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use sweep::{report, sweep, SlurmArgs, SweepArgs};

#[derive(Parser)]
#[command(name = "gclab", version, about = "A pluggable-collector garbage-collection research framework modelled on GHC's runtime")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a workload: gclab run [--collector NAME] [--heap-policy NAME] [--json FILE] WORKLOAD [args] +RTS <flags> -RTS
    Run {
        /// The collector, by registry name (GHC's flags pick the built-in ones otherwise)
        #[arg(long)]
        collector: Option<String>,
        /// The heap-sizing policy, NAME[:key=value,...] (ghc, fixed, membalancer; see `gclab list`): the RTS option --heap-policy
        #[arg(long, value_name = "NAME")]
        heap_policy: Option<String>,
        /// Write one JSON record of the run (flags, checksum, every -s figure) to FILE
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// The workload, its arguments, and +RTS ... -RTS flags
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "WORKLOAD [ARGS] [+RTS FLAGS -RTS]")]
        rest: Vec<String>,
    },
    /// Run a workload's peer program (Haskell on GHC, OCaml, or C on Boehm GC), built if need be: gclab peer [--json FILE] LANGUAGE WORKLOAD [args] +RTS <flags> -RTS
    Peer {
        /// Write one JSON record of the run (flags, checksum, the runtime's statistics) to FILE
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Where peer programs are built
        #[arg(long, value_name = "DIR", default_value = "target/peers")]
        build_dir: PathBuf,
        /// Run this program, already built, instead of building the peer
        #[arg(long, value_name = "FILE")]
        program: Option<PathBuf>,
        /// The language (ghc, ghc-O0, ocaml, boehm), the workload, its arguments, and +RTS ... -RTS flags
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "LANGUAGE WORKLOAD [ARGS] [+RTS FLAGS -RTS]")]
        rest: Vec<String>,
    },
    /// Run every point of an experiment file's grid, each run in its own process
    Sweep {
        /// The experiment file (see experiments/README.md)
        file: PathBuf,
        /// Results directory (default: results/<experiment>/<name>)
        #[arg(long)]
        out: Option<PathBuf>,
        /// Name of this sweep's directory under results/<experiment>/ (default: latest)
        #[arg(long, default_value = "latest")]
        name: String,
        /// Rerun runs that already have a record
        #[arg(long)]
        force: bool,
        /// Run only shard i of n (i/n): every n-th run, starting at i
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Print no progress bar
        #[arg(long)]
        quiet: bool,
        /// The cache of minimum heaps that heap multiples (M = ["2x"]) use
        #[arg(long, value_name = "FILE", default_value = "results/minheap.json")]
        minheap_cache: PathBuf,
        /// Submit the sweep to Slurm as one job array (a shard per task) and follow it; again into the same --out, submit what is missing
        #[arg(long)]
        slurm: bool,
        /// With --slurm: array tasks (shards); default: the last submission's, else 8
        #[arg(long, value_name = "N", requires = "slurm")]
        shards: Option<usize>,
        /// With --slurm: an argument for sbatch (partition, account, time limit), repeatable: --sbatch=--partition=fast
        #[arg(long, value_name = "ARG", requires = "slurm", allow_hyphen_values = true)]
        sbatch: Vec<String>,
        /// With --slurm: let array tasks share nodes (by default each has a node to itself, for clean timings)
        #[arg(long, requires = "slurm")]
        no_exclusive: bool,
        /// With --slurm: follow the job array submitted into DIR (after Ctrl-C, or from another shell), submitting nothing
        #[arg(long, value_name = "DIR", requires = "slurm", conflicts_with = "out")]
        follow: Option<PathBuf>,
    },
    /// Summarise a results directory: a table (summary.md) and plots (plots/)
    Report {
        /// The results directory a sweep wrote
        dir: PathBuf,
    },
    /// GHC's +RTS -s summary and a timeline, computed from an eventlog (gclab's or GHC's); `eventlog diff A B` compares two runs
    #[command(args_conflicts_with_subcommands = true)]
    Eventlog {
        #[command(subcommand)]
        compare: Option<EventlogCompare>,
        /// The eventlog file
        file: Option<PathBuf>,
        /// Start of the interval, seconds from the run's start
        #[arg(long)]
        from: Option<f64>,
        /// End of the interval, seconds from the run's start
        #[arg(long)]
        to: Option<f64>,
        /// Where to draw the timeline (PREFIX.svg, PREFIX.png; default: beside the file); a directory puts it in it
        #[arg(long, value_name = "PREFIX")]
        plot: Option<PathBuf>,
        /// Draw no timeline
        #[arg(long)]
        no_plot: bool,
        /// Also print every event as text
        #[arg(long)]
        show: bool,
        /// Also write the events as Chrome trace-event JSON (open it in
        /// ui.perfetto.dev or chrome://tracing)
        #[arg(long, value_name = "OUT.json")]
        trace: Option<PathBuf>,
        /// Follow a file still being written: print the summary so far
        /// every SECS seconds, until the file ends with the end-of-data
        /// marker
        #[arg(long, value_name = "SECS")]
        follow: Option<f64>,
    },
    /// Draw a .hp heap profile (as hp2ps would) to PREFIX.svg and PREFIX.png
    Hp {
        /// The .hp file (+RTS -h... writes <program>.hp)
        file: PathBuf,
        /// Output prefix (default: the file without .hp); a directory puts the pictures in it
        #[arg(long, value_name = "PREFIX")]
        out: Option<PathBuf>,
    },
    /// Find the smallest -M under which a workload completes, and the peak memory in use there: gclab minheap [--collector NAME] WORKLOAD [args] +RTS <flags> -RTS
    Minheap {
        /// The collector, by registry name (with parameters)
        #[arg(long)]
        collector: Option<String>,
        /// Stop when the interval is at most this fraction of the answer
        #[arg(long, default_value_t = 0.02)]
        precision: f64,
        /// Seconds a probe may run before the search gives up
        #[arg(long, default_value_t = 600.0)]
        timeout: f64,
        /// The cache of answers
        #[arg(long, value_name = "FILE", default_value = "results/minheap.json")]
        cache: PathBuf,
        /// The workload, its arguments, and +RTS ... -RTS flags (no -M)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "WORKLOAD [ARGS] [+RTS FLAGS -RTS]")]
        rest: Vec<String>,
    },
    /// Random runs with the sanity checker on (a collector, a workload and a stress setting drawn from a seed), each in its own process, checksums against copying's; a failure prints the command that repeats it
    Stress {
        /// A collector to draw from, NAME or NAME:key=value,... (repeatable; default: every registered one but the baselines)
        #[arg(long = "collector", value_name = "NAME")]
        collectors: Vec<String>,
        /// A workload to draw from (repeatable; default: every workload but the test ones)
        #[arg(long = "workload", value_name = "NAME")]
        workloads: Vec<String>,
        /// Also draw the gclab-lang programs DIR/test-args.txt lists (`programs`), with their arguments there
        #[arg(long, value_name = "DIR")]
        programs: Option<PathBuf>,
        /// An RTS setting to draw from, one string (repeatable; default: conformance's stress settings and more)
        #[arg(long = "setting", value_name = "\"FLAGS\"", allow_hyphen_values = true)]
        settings: Vec<String>,
        /// The workloads' sizes: small (their small and tiny sizes, under -DS by default) or default (their default arguments, under --sanity=minor by default)
        #[arg(long, default_value = "small", value_name = "small|default")]
        size: String,
        /// Go on for this many minutes
        #[arg(long, default_value_t = 5.0)]
        minutes: f64,
        /// Stop after this many runs
        #[arg(long)]
        runs: Option<usize>,
        /// The seed of the draws: the same seed, the same runs
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seconds after which a run counts as hung
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Print no progress bar
        #[arg(long)]
        quiet: bool,
    },
    /// List the collectors and workloads
    List,
}

/// The command line, with the collectors of `registry`.
pub fn main_with(registry: Registry) -> ExitCode {
    gclab_core::rts::quiet_broken_pipes();
    run_args(&registry, std::env::args_os())
}

/// The command line for these arguments (the first is the program's name).
pub fn run_args<I, T>(registry: &Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match cli.command {
        Command::List => finish(out(list_text(registry))),
        Command::Sweep { file, out, name, force, shard, quiet, minheap_cache, slurm, shards, sbatch, no_exclusive, follow } => {
            let slurm = slurm.then_some(SlurmArgs { shards, sbatch, exclusive: !no_exclusive, follow });
            finish(sweep(registry, SweepArgs { file: &file, out, name: &name, force, shard: shard.as_deref(), quiet, minheap_cache, slurm }))
        }
        Command::Report { dir } => finish(report(registry, &dir)),
        Command::Minheap { collector, precision, timeout, cache, rest } => finish(minheap(registry, collector.as_deref(), precision, timeout, &cache, &rest)),
        Command::Hp { file, out: prefix } => finish(hp::hp(&file, prefix.as_deref())),
        Command::Eventlog { compare: Some(EventlogCompare::Diff { a, b, plot, no_plot }), .. } => finish_with_code(eventlog_diff(&a, &b, plot, no_plot)),
        Command::Eventlog { compare: None, file: None, .. } => finish(Err("eventlog: name an eventlog file, or `diff A B'".into())),
        Command::Eventlog { compare: None, file: Some(file), from, to, plot, no_plot, show, trace, follow } => {
            let view = EventlogView { from, to, plot, no_plot, show, trace };
            match follow {
                Some(secs) => finish_with_code(follow_eventlog(&file, &view, secs)),
                None => finish_with_code(eventlog(&file, &view)),
            }
        }
        Command::Run { collector, heap_policy, json, rest } => {
            // `--heap-policy X` is the RTS option `--heap-policy=X`, put
            // first so that one after +RTS overrides it.
            let rest: Vec<String> = match heap_policy {
                Some(p) => ["+RTS".to_string(), format!("--heap-policy={p}"), "-RTS".to_string()].into_iter().chain(rest).collect(),
                None => rest,
            };
            finish_run(run_catching_internal_errors(registry, collector.as_deref(), json, &rest))
        }
        Command::Peer { json, build_dir, program, rest } => finish_run(peer(json.as_deref(), &build_dir, program, &rest)),
        Command::Stress { collectors, workloads, programs, settings, size, minutes, runs, seed, timeout, quiet } => {
            let args = stress::StressArgs { collectors, workloads, programs, settings, size, minutes, runs, seed, timeout, quiet };
            finish_with_code(stress::stress(registry, args))
        }
    }
}

/// The exit of `run` and `peer`: each line of a failure's message, then
/// its code.
fn finish_run(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, msg)) => {
            for line in msg.lines() {
                let _ = writeln!(std::io::stderr(), "gclab: {line}");
            }
            ExitCode::from(code)
        }
    }
}



/// `gclab eventlog diff`.
#[derive(Subcommand)]
enum EventlogCompare {
    /// Two runs side by side: eventlogs (gclab's or GHC's) or JSON run records, in any mix
    Diff {
        /// Run A
        a: PathBuf,
        /// Run B
        b: PathBuf,
        /// Where to draw both MMU curves (PREFIX-mmu.svg, .png) and both timelines (PREFIX-timelines.svg, .png); default: `diff` beside B; a directory puts them in it
        #[arg(long, value_name = "PREFIX")]
        plot: Option<PathBuf>,
        /// Draw nothing
        #[arg(long)]
        no_plot: bool,
    },
}

