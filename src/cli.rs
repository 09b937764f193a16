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

use clap::{Parser, Subcommand};
use gclab_collectors::Registry;
use gclab_core::flags::{split_rts_args, usage};
use gclab_core::RtsFlags;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "gclab", version, about = "A pluggable-collector garbage-collection research framework modelled on GHC's runtime")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a workload: gclab run [--collector NAME] [--json FILE] WORKLOAD [args] +RTS <flags> -RTS
    Run {
        /// The collector, by registry name (GHC's flags pick the built-in ones otherwise)
        #[arg(long)]
        collector: Option<String>,
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
        /// The language (ghc, ocaml, boehm), the workload, its arguments, and +RTS ... -RTS flags
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
        /// Where to draw the timeline (PREFIX.svg, PREFIX.png; default: beside the file)
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
        /// Output prefix (default: the file without .hp)
        #[arg(long, value_name = "PREFIX")]
        out: Option<PathBuf>,
    },
    /// Find the smallest -M under which a workload completes: gclab minheap [--collector NAME] WORKLOAD [args] +RTS <flags> -RTS
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
        Command::Hp { file, out: prefix } => finish(gclab_eventlog_tools::hp_plot::plot(&file, &prefix.unwrap_or_else(|| file.with_extension(""))).and_then(|files| files.iter().try_for_each(|f| out(format!("Plot: {}\n", f.display()))))),
        Command::Eventlog { compare: Some(EventlogCompare::Diff { a, b, plot, no_plot }), .. } => finish(eventlog_diff(&a, &b, plot, no_plot)),
        Command::Eventlog { compare: None, file: None, .. } => finish(Err("eventlog: name an eventlog file, or `diff A B'".into())),
        Command::Eventlog { compare: None, file: Some(file), from, to, plot, no_plot, show, trace, follow } => {
            let view = EventlogView { from, to, plot, no_plot, show, trace };
            match follow {
                Some(secs) => finish_with_code(follow_eventlog(&file, &view, secs)),
                None => finish_with_code(eventlog(&file, &view)),
            }
        }
        Command::Run { collector, json, rest } => finish_run(run_catching_internal_errors(registry, collector.as_deref(), json, &rest)),
        Command::Peer { json, build_dir, program, rest } => finish_run(peer(json.as_deref(), &build_dir, program, &rest)),
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

/// `gclab peer`: build the peer (unless `program` is given) and run it.
fn peer(json: Option<&Path>, build_dir: &Path, program: Option<PathBuf>, rest: &[String]) -> Result<(), Failure> {
    use gclab_experiments::peers::{build, exec, Language};
    let (words, rts) = split_rts_args(rest);
    let [language, name, args @ ..] = words.as_slice() else {
        return Err((1, format!("name a language ({}) and a workload (see `gclab list`)", Language::names())));
    };
    let language = Language::from_name(language).ok_or_else(|| (1, format!("unknown peer language `{language}' (known: {})", Language::names())))?;
    let workload = gclab_workloads::by_name(name).ok_or_else(|| (1, format!("unknown workload `{name}' (see `gclab list`)")))?;
    let args = workload.parse_args(args).map_err(|e| (1, e.to_string()))?;
    let Some(program) = program else {
        // The peak RSS `exec` reads is the largest of this process's
        // children's, which would include the compiler's: the built
        // program runs under a fresh `gclab peer --program`.
        let built = build::build(build_dir, workload.name, language).map_err(|e| (1, e))?;
        let exe = std::env::current_exe().map_err(|e| (1, format!("cannot find gclab's own program: {e}")))?;
        let mut again = std::process::Command::new(exe);
        again.arg("peer").arg("--program").arg(built);
        if let Some(j) = json {
            again.arg("--json").arg(j);
        }
        let status = again.args(rest).status().map_err(|e| (1, format!("cannot run gclab peer again: {e}")))?;
        return match status.code() {
            Some(0) => Ok(()),
            code => Err((code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1), String::new())),
        };
    };
    let run = exec::PeerRun { language, workload: workload.name.to_string(), args, rts, program };
    exec::run(&run, json)
}

/// `run`, with a panic inside the runtime (a failed sanity check, a
/// panicking GC thread) turned into GHC's internal-error exit code, 254,
/// after the panic message has been printed.
fn run_catching_internal_errors(registry: &Registry, collector: Option<&str>, json: Option<PathBuf>, rest: &[String]) -> Result<(), (u8, String)> {
    std::panic::catch_unwind(|| run(registry, collector, json, rest)).unwrap_or_else(|_| Err((254, "internal error: the run stopped (see the message above)".into())))
}

/// The `GCLABRTS` environment variable's flags, checked alone so that an
/// error in them says where they came from.
fn gclabrts() -> Result<Option<String>, String> {
    match std::env::var("GCLABRTS") {
        Ok(text) => {
            RtsFlags::from_env_and_args(Some(&text), &[]).map_err(|e| format!("in GCLABRTS=\"{text}\": {e}"))?;
            Ok(Some(text))
        }
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => Err(format!("GCLABRTS is not UTF-8 text: {}", raw.to_string_lossy())),
    }
}

/// A writer that keeps its first failure.
struct Checked<W> {
    inner: W,
    failed: Option<std::io::Error>,
}

impl<W: Write> Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            self.failed.get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Write `text` to standard output: a failure (a full disk) is an error
/// that says so, not a panic (a closed pipe ends the process quietly, See
/// `quiet_broken_pipes`).
fn out(text: impl AsRef<str>) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_ref().as_bytes()).and_then(|()| stdout.flush()).map_err(|e| format!("cannot write to standard output: {e}"))
}

fn finish(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gclab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `finish`, for a command whose success has an exit code of its own.
fn finish_with_code(r: Result<u8, String>) -> ExitCode {
    match r {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gclab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `gclab sweep` was asked.
struct SweepArgs<'a> {
    file: &'a Path,
    out: Option<PathBuf>,
    name: &'a str,
    force: bool,
    shard: Option<&'a str>,
    quiet: bool,
    minheap_cache: PathBuf,
    slurm: Option<SlurmArgs>,
}

/// What `gclab sweep --slurm` was asked besides a sweep's options.
struct SlurmArgs {
    shards: Option<usize>,
    sbatch: Vec<String>,
    exclusive: bool,
    follow: Option<PathBuf>,
}

fn sweep(registry: &Registry, a: SweepArgs<'_>) -> Result<(), String> {
    let SweepArgs { file, out: out_dir, name, force, shard, quiet, minheap_cache, slurm } = a;
    let exp = gclab_experiments::experiment::Experiment::load(file, registry).map_err(|e| e.to_string())?;
    if let Some(s) = slurm {
        if force || shard.is_some() {
            return Err("--slurm chooses the shards itself and resumes: it takes neither --shard nor --force".into());
        }
        let name = gclab_experiments::experiment::check_dir_name(name).map_err(|e| format!("--name {e}"))?;
        let follow_only = s.follow.is_some();
        let out_dir = s.follow.or(out_dir).unwrap_or_else(|| PathBuf::from("results").join(&exp.name).join(name));
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
        let opts = gclab_experiments::slurm::SlurmOptions {
            out: out_dir.clone(),
            file: file.to_path_buf(),
            shards: s.shards,
            sbatch_args: s.sbatch,
            exclusive: s.exclusive,
            follow_only,
            progress: !quiet,
            exe,
            minheap_cache,
            poll: std::time::Duration::from_secs(2),
        };
        let summary = gclab_experiments::slurm::sweep(&exp, &opts)?;
        return out(summary.text(file, &out_dir));
    }
    let shard = match shard {
        Some(s) => gclab_experiments::sweep::parse_shard(s)?,
        None => (0, 1),
    };
    let name = gclab_experiments::experiment::check_dir_name(name).map_err(|e| format!("--name {e}"))?;
    let out_dir = out_dir.unwrap_or_else(|| PathBuf::from("results").join(&exp.name).join(name));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
    let opts = gclab_experiments::sweep::SweepOptions { out: out_dir.clone(), force, shard, progress: !quiet, exe, minheap_cache };
    let s = gclab_experiments::sweep::sweep(&exp, &opts)?;
    out(format!(
        "sweep {}: {} runs in this shard: {} ran ok, {} failed, {} already recorded; results in {}\n",
        exp.name,
        s.total,
        s.ok,
        s.failed,
        s.skipped,
        out_dir.display()
    ))
}

fn report(registry: &Registry, dir: &std::path::Path) -> Result<(), String> {
    let (md, plots) = gclab_experiments::report::report(dir, registry)?;
    out(&md)?;
    out(format!("\nTable: {}\n", dir.join("summary.md").display()))?;
    out(format!("Runs:  {}\n", dir.join("runs.csv").display()))?;
    for p in plots {
        out(format!("Plot:  {}\n", p.display()))?;
    }
    Ok(())
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
        /// Where to draw both MMU curves (PREFIX-mmu.svg, .png) and both timelines (PREFIX-timelines.svg, .png); default: `diff` beside B
        #[arg(long, value_name = "PREFIX")]
        plot: Option<PathBuf>,
        /// Draw nothing
        #[arg(long)]
        no_plot: bool,
    },
}

/// `gclab eventlog diff A B`: the table, both MMU curves on one picture
/// and both timelines on another.
fn eventlog_diff(a: &Path, b: &Path, plot: Option<PathBuf>, no_plot: bool) -> Result<(), String> {
    let (sa, wa) = gclab_eventlog_tools::diff::load(a)?;
    let (sb, wb) = gclab_eventlog_tools::diff::load(b)?;
    for w in wa.iter().chain(&wb) {
        let _ = writeln!(std::io::stderr(), "gclab: warning: {w}");
    }
    out(gclab_eventlog_tools::diff::diff_text(&sa, &sb))?;
    if !no_plot {
        let prefix = plot.unwrap_or_else(|| b.with_file_name("diff"));
        for p in gclab_eventlog_tools::diff::draw(&sa, &sb, &prefix)? {
            out(format!("Plot: {}\n", p.display()))?;
        }
    }
    Ok(())
}

/// What `gclab eventlog` shows of a file.
struct EventlogView {
    from: Option<f64>,
    to: Option<f64>,
    plot: Option<PathBuf>,
    no_plot: bool,
    show: bool,
    trace: Option<PathBuf>,
}

/// `--from` and `--to`: finite seconds, not negative, `--to` after `--from`.
fn check_interval(from: Option<f64>, to: Option<f64>) -> Result<(), String> {
    for (flag, v) in [("--from", from), ("--to", to)] {
        if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(format!("{flag} {v}: must be a number of seconds from the start of the log, 0 or more"));
        }
    }
    match (from, to) {
        (Some(f), Some(t)) if t <= f => Err(format!("--to {t} is not after --from {f}")),
        _ => Ok(()),
    }
}

/// `gclab eventlog FILE`: the summary, latency and timeline; the exit code
/// says whether the file was whole (0), cut short (3) or had bytes
/// skipped (4). Only `--show` and `--trace` hold every event in memory.
fn eventlog(file: &Path, view: &EventlogView) -> Result<u8, String> {
    check_interval(view.from, view.to)?;
    let (derived, damage) = if view.show || view.trace.is_some() {
        let log = gclab_eventlog_tools::reader::read(file)?;
        if view.show {
            out(gclab_eventlog_tools::summary::show(&log))?;
        }
        if let Some(trace) = &view.trace {
            let json = gclab_eventlog_tools::trace::trace(&log).to_string();
            std::fs::write(trace, json).map_err(|e| format!("cannot write {}: {e}", trace.display()))?;
            out(format!("Trace: {}\n", trace.display()))?;
        }
        (gclab_eventlog_tools::summary::derive(&log, view.from, view.to), log.damage)
    } else {
        gclab_eventlog_tools::summary::summarise(file, view.from, view.to)?
    };
    for d in &damage {
        let _ = writeln!(std::io::stderr(), "gclab: warning: {}: {d}", file.display());
    }
    if let Some(from) = view.from.filter(|&f| f >= derived.log_end) {
        return Err(format!("--from {from}: {} ends at {:.6} s", file.display(), derived.log_end));
    }
    out(gclab_eventlog_tools::summary::summary_text(&derived, file))?;
    if !view.no_plot {
        let prefix = view.plot.clone().unwrap_or_else(|| {
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "eventlog".into());
            file.with_file_name(format!("{stem}-timeline"))
        });
        let title = format!("{}: heap, live data and allocation; GC pauses by generation", file.display());
        for p in gclab_eventlog_tools::timeline::draw(&derived.timeline, &prefix, &title)? {
            out(format!("Timeline: {}\n", p.display()))?;
        }
        let mmu = PathBuf::from(format!("{}-mmu", prefix.display()));
        let title = format!("{}: minimum mutator utilisation", file.display());
        let label = file.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for p in gclab_eventlog_tools::plot::draw_mmu_curve(&mmu, &title, &label, &derived.latency)? {
            out(format!("MMU: {}\n", p.display()))?;
        }
    }
    Ok(gclab_eventlog_tools::reader::exit_code(&damage))
}

/// `gclab eventlog --follow SECS FILE`: the summary of a file still being
/// written, every `secs` seconds (a file that does not exist yet is
/// waited for), until it ends with the end-of-data marker; then the whole
/// report, as without `--follow`.
fn follow_eventlog(file: &Path, view: &EventlogView, secs: f64) -> Result<u8, String> {
    check_interval(view.from, view.to)?;
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(format!("--follow {secs}: must be a positive number of seconds"));
    }
    loop {
        if file.exists() {
            match gclab_eventlog_tools::summary::summarise(file, view.from, view.to) {
                Ok((_, damage)) if !damage.iter().any(|d| matches!(d, gclab_eventlog_tools::reader::Damage::CutShort { .. })) => break,
                Ok((derived, _)) => {
                    out(format!("-- {} so far ({} bytes):\n", file.display(), std::fs::metadata(file).map(|m| m.len()).unwrap_or(0)))?;
                    out(gclab_eventlog_tools::summary::summary_text(&derived, file))?;
                }
                // The header may not be written whole yet.
                Err(e) if e.contains("file ends inside") => {}
                Err(e) => return Err(e),
            }
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(secs));
    }
    eventlog(file, view)
}



fn list_text(registry: &Registry) -> String {
    let mut s = String::from("Collectors:\n");
    for c in registry.entries() {
        s.push_str(&format!("  {:<14} {}\n", c.name, c.description));
    }
    s.push_str("\nWorkloads (arguments: name=default (range)):\n");
    for w in gclab_workloads::WORKLOADS {
        s.push_str(&format!("  {:<14} {}\n  {:<14}   args: {}\n", w.name, w.description, "", w.params_text()));
        let peers: Vec<&str> = gclab_experiments::peers::languages_of(w.name).iter().map(|l| l.name()).collect();
        if !peers.is_empty() {
            s.push_str(&format!("  {:<14}   peers: {}\n", "", peers.join(", ")));
        }
    }
    s.push_str("\nTest workloads (for gclab's own tests of failing runs; not for measurements):\n");
    for w in gclab_workloads::testing::TEST_WORKLOADS {
        s.push_str(&format!("  {:<14} {}\n", w.name, w.description));
    }
    s
}

type Failure = (u8, String);

fn minheap(registry: &Registry, collector: Option<&str>, precision: f64, timeout_secs: f64, cache: &Path, rest: &[String]) -> Result<(), String> {
    if !(precision > 0.0 && precision < 1.0) {
        return Err(format!("--precision {precision}: must be between 0 and 1"));
    }
    let (program, rts) = split_rts_args(rest);
    let Some((name, args)) = program.split_first() else {
        return Err("no workload given (see `gclab list`)".into());
    };
    let workload = gclab_workloads::by_name(name).ok_or_else(|| format!("unknown workload `{name}' (see `gclab list`)"))?;
    let args = workload.parse_args(args).map_err(|e| e.to_string())?;
    if let Some(m) = rts.iter().find(|f| f.starts_with("-M")) {
        return Err(format!("`{m}': minheap searches for -M itself; leave it out"));
    }
    let mut flags = RtsFlags::from_env_and_args(None, &rts).map_err(|e| e.to_string())?;
    let (entry, params) = registry.select(&mut flags, collector).map_err(|e| e.to_string())?;
    (entry.make)(params, &flags)?;
    let collector = collector.map_or(entry.name.to_string(), str::to_string);
    let mut rts_all = rts.clone();
    rts_all.extend(entry.flags.split_whitespace().map(str::to_string));
    let q = gclab_experiments::minheap::Question { workload: workload.name.to_string(), args, collector, rts: rts_all };
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
    let how = gclab_experiments::minheap::Probing { exe, scratch: std::env::temp_dir(), timeout_secs, precision };
    let mut cache = gclab_experiments::minheap::Cache::open(cache)?;
    let (answer, cached) = gclab_experiments::minheap::min_heap(&how, &q, &mut cache, |line| {
        let _ = writeln!(std::io::stderr(), "{line}");
    })?;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    out(format!(
        "{} under {}{}: minimum heap {:.2} MiB (-M{}k): it overflows at -M{}k; {:.2} MiB in use without -M. {} probes, {:.1} s{}\n",
        q.workload_and_args(),
        q.collector,
        if q.rts.is_empty() { String::new() } else { format!(" +RTS {}", q.rts.join(" ")) },
        mib(answer.bytes),
        answer.bytes / 1024,
        answer.fails_at / 1024,
        mib(answer.unlimited_peak_bytes),
        answer.probes,
        answer.seconds,
        if cached { " (cached)" } else { "" }
    ))
}

/// `run`'s exit code when an output cannot be written.
const UNWRITABLE: u8 = gclab_core::runtime::EXIT_OUTPUT_UNWRITABLE as u8;

fn run(registry: &Registry, collector: Option<&str>, json: Option<PathBuf>, rest: &[String]) -> Result<(), Failure> {
    gclab_experiments::child::exit_with_parent();
    let (program, rts_args) = split_rts_args(rest);
    let env = gclabrts().map_err(|e| (1, e))?;
    let mut flags = RtsFlags::from_env_and_args(env.as_deref(), &rts_args).map_err(|e| (1, e.to_string()))?;
    flags.program = program.clone();
    if flags.help {
        let descriptions: Vec<(&str, &str)> = registry.entries().iter().map(|c| (c.name, c.description)).collect();
        out(usage(&descriptions)).map_err(|e| (UNWRITABLE, e))?;
        return Ok(());
    }
    let Some((name, args)) = program.split_first() else {
        return Err((1, "no workload given (see `gclab list`)".into()));
    };
    let workload = gclab_workloads::by_name(name).ok_or_else(|| (1, format!("unknown workload `{name}' (see `gclab list`)")))?;
    let args = workload.parse_args(args).map_err(|e| (1, e.to_string()))?;
    let (entry, params) = registry.select(&mut flags, collector).map_err(|e| (1, e.to_string()))?;
    let made = (entry.make)(params, &flags).map_err(|e| (1, e))?;
    crate::check_fits(workload, &args, &flags)?;

    // The workloads write as they go and cannot stop for an error: the
    // first is kept, and fails the run at its end. Standard output is not
    // held locked for the run: `-v` prints events to it from whichever
    // capability leads a GC, and a lock held here deadlocked `-N2 -v`.
    let mut out = Checked { inner: std::io::stdout(), failed: None };
    let outcome = crate::run_workload(workload, &args, flags, made, &mut out).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
    if let Some(e) = out.flush().err().or(out.failed.take()) {
        return Err((UNWRITABLE, format!("cannot write the workload's output to standard output: {e}")));
    }
    let (checksum, stats) = (outcome.checksum, outcome.stats);
    if let Some(path) = json {
        let mut record = serde_json::json!({
            "workload": workload.name,
            "args": args,
            "collector": entry.name,
            "rts_flags": rts_args,
            "checksum": format!("{checksum:016x}"),
            "latency": gclab_eventlog_tools::latency::latency(&stats),
            "pauses": gclab_eventlog_tools::latency::pauses(&stats).iter().map(|p| p.length).collect::<Vec<f64>>(),
            "safepoint_waits": stats.records.iter().map(|r| r.sync_wait).collect::<Vec<f64>>(),
            "stats": stats,
        });
        let sweeps: Vec<gclab_core::RegionSweep> = stats.records.iter().filter_map(|r| r.region.as_deref().copied()).collect();
        if !sweeps.is_empty() {
            // A mark-region collector's sweeps, one per major GC.
            record["region_sweeps"] = serde_json::json!(sweeps);
        }
        if outcome.sanity_checks > 0 {
            record["sanity"] = serde_json::json!({
                "checks": outcome.sanity_checks,
                "whole_checks": outcome.sanity_whole_checks,
                "seconds": outcome.sanity_seconds,
                "whole_seconds": outcome.sanity_whole_seconds,
            });
        }
        let text = serde_json::to_string_pretty(&record).expect("statistics serialise");
        std::fs::write(&path, text + "\n").map_err(|e| (UNWRITABLE, format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}
