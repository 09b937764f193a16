//! The `gclab` command: run a workload under a collector with GHC's RTS
//! flags, and list what there is.
//!
//! `gclab run [--collector NAME] [--json FILE] WORKLOAD [args] +RTS ... -RTS`
//! is parsed GHC's way for everything after the workload name (see core's
//! `flags`); clap handles the subcommands and the options before it.

use clap::{Parser, Subcommand};
use gclab_core::flags::{split_rts_args, usage};
use gclab_core::RtsFlags;
use std::io::Write;
use std::path::PathBuf;
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
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
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
    },
    /// Summarise a results directory: a table (summary.md) and plots (plots/)
    Report {
        /// The results directory a sweep wrote
        dir: PathBuf,
    },
    /// GHC's +RTS -s summary and a timeline, computed from an eventlog (gclab's or GHC's)
    Eventlog {
        /// The eventlog file
        file: PathBuf,
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
    },
    /// Draw a .hp heap profile (as hp2ps would) to PREFIX.svg and PREFIX.png
    Hp {
        /// The .hp file (+RTS -h... writes <program>.hp)
        file: PathBuf,
        /// Output prefix (default: the file without .hp)
        #[arg(long, value_name = "PREFIX")]
        out: Option<PathBuf>,
    },
    /// List the collectors and workloads
    List,
}

fn main() -> ExitCode {
    gclab_core::rts::quiet_broken_pipes();
    let cli = Cli::parse();
    match cli.command {
        Command::List => {
            print!("{}", list_text());
            ExitCode::SUCCESS
        }
        Command::Sweep { file, out, name, force, shard, quiet } => finish(sweep(&file, out, &name, force, shard.as_deref(), quiet)),
        Command::Report { dir } => finish(report(&dir)),
        Command::Hp { file, out } => finish(gclab::hp_plot::plot(&file, &out.unwrap_or_else(|| file.with_extension(""))).map(|files| {
            for f in files {
                println!("Plot: {}", f.display());
            }
        })),
        Command::Eventlog { file, from, to, plot, no_plot, show } => finish(eventlog(&file, from, to, plot, no_plot, show)),
        Command::Run { collector, json, rest } => match run_catching_internal_errors(collector.as_deref(), json, &rest) {
            Ok(()) => ExitCode::SUCCESS,
            Err((code, msg)) => {
                for line in msg.lines() {
                    eprintln!("gclab: {line}");
                }
                ExitCode::from(code)
            }
        },
    }
}

/// `run`, with a panic inside the runtime (a failed sanity check, a
/// panicking GC thread) turned into GHC's internal-error exit code, 254,
/// after the panic message has been printed.
fn run_catching_internal_errors(collector: Option<&str>, json: Option<PathBuf>, rest: &[String]) -> Result<(), (u8, String)> {
    std::panic::catch_unwind(|| run(collector, json, rest)).unwrap_or_else(|_| Err((254, "internal error: the run stopped (see the message above)".into())))
}

fn finish(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gclab: {e}");
            ExitCode::FAILURE
        }
    }
}

fn sweep(file: &std::path::Path, out: Option<PathBuf>, name: &str, force: bool, shard: Option<&str>, quiet: bool) -> Result<(), String> {
    let exp = gclab::experiment::Experiment::load(file).map_err(|e| e.to_string())?;
    let shard = match shard {
        Some(s) => gclab::sweep::parse_shard(s)?,
        None => (0, 1),
    };
    let out = out.unwrap_or_else(|| PathBuf::from("results").join(&exp.name).join(name));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
    let opts = gclab::sweep::SweepOptions { out: out.clone(), force, shard, progress: !quiet, exe };
    let s = gclab::sweep::sweep(&exp, &opts)?;
    println!(
        "sweep {}: {} runs in this shard: {} ran ok, {} failed, {} already recorded; results in {}",
        exp.name,
        s.total,
        s.ok,
        s.failed,
        s.skipped,
        out.display()
    );
    Ok(())
}

fn report(dir: &std::path::Path) -> Result<(), String> {
    let (md, plots) = gclab::report::report(dir)?;
    print!("{md}");
    println!("
Table: {}", dir.join("summary.md").display());
    println!("Runs:  {}", dir.join("runs.csv").display());
    for p in plots {
        println!("Plot:  {}", p.display());
    }
    Ok(())
}

fn eventlog(file: &std::path::Path, from: Option<f64>, to: Option<f64>, plot: Option<PathBuf>, no_plot: bool, show: bool) -> Result<(), String> {
    let log = gclab::eventlog_reader::read(file)?;
    if show {
        print!("{}", gclab::eventlog_report::show(&log));
    }
    let derived = gclab::eventlog_report::derive(&log, from, to);
    print!("{}", gclab::eventlog_report::summary_text(&derived, file));
    if !no_plot {
        let prefix = plot.unwrap_or_else(|| {
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "eventlog".into());
            file.with_file_name(format!("{stem}-timeline"))
        });
        let title = format!("{}: heap, live data and allocation; GC pauses by generation", file.display());
        for p in gclab::eventlog_report::timeline(&derived, &prefix, &title)? {
            println!("Timeline: {}", p.display());
        }
    }
    Ok(())
}

fn list_text() -> String {
    let mut s = String::from("Collectors:\n");
    for c in gclab_collectors::COLLECTORS {
        s.push_str(&format!("  {:<14} {}\n", c.name, c.description));
    }
    s.push_str("\nWorkloads (arguments, defaults):\n");
    for w in gclab_workloads::WORKLOADS {
        let args: Vec<String> = w.params.iter().zip(w.defaults).map(|(p, d)| format!("{p}={d}")).collect();
        s.push_str(&format!("  {:<14} {}\n  {:<14}   args: {}\n", w.name, w.description, "", args.join(" ")));
    }
    s
}

type Failure = (u8, String);

fn run(collector: Option<&str>, json: Option<PathBuf>, rest: &[String]) -> Result<(), Failure> {
    let (program, rts_args) = split_rts_args(rest);
    let env = std::env::var("GCLABRTS").ok();
    let mut flags = RtsFlags::from_env_and_args(env.as_deref(), &rts_args).map_err(|e| (1, e.to_string()))?;
    flags.program = program.clone();
    if flags.help {
        print!("{}", usage(&gclab_collectors::descriptions()));
        return Ok(());
    }
    let Some((name, args)) = program.split_first() else {
        return Err((1, "no workload given (see `gclab list`)".into()));
    };
    let workload = gclab_workloads::by_name(name).ok_or_else(|| (1, format!("unknown workload `{name}' (see `gclab list`)")))?;
    let args = workload.parse_args(args).map_err(|e| (1, e.to_string()))?;
    let (entry, params) = gclab_collectors::select(&mut flags, collector).map_err(|e| (1, e.to_string()))?;
    let made = (entry.make)(params, &flags).map_err(|e| (1, e))?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let outcome = gclab::run_workload(workload, &args, flags, made, &mut out).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
    let _ = out.flush();
    let (checksum, stats) = (outcome.checksum, outcome.stats);
    if let Some(path) = json {
        let record = serde_json::json!({
            "workload": workload.name,
            "args": args,
            "collector": entry.name,
            "rts_flags": rts_args,
            "checksum": format!("{checksum:016x}"),
            "stats": stats,
        });
        let text = serde_json::to_string_pretty(&record).expect("statistics serialise");
        std::fs::write(&path, text + "\n").map_err(|e| (1, format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}
