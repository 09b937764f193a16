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
    /// List the collectors and workloads
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List => {
            print!("{}", list_text());
            ExitCode::SUCCESS
        }
        Command::Run { collector, json, rest } => match run(collector.as_deref(), json, &rest) {
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
    let flags = RtsFlags::from_env_and_args(env.as_deref(), &rts_args).map_err(|e| (1, e.to_string()))?;
    if flags.help {
        print!("{}", usage(&gclab_collectors::descriptions()));
        return Ok(());
    }
    let Some((name, args)) = program.split_first() else {
        return Err((1, "no workload given (see `gclab list`)".into()));
    };
    let workload = gclab_workloads::by_name(name).ok_or_else(|| (1, format!("unknown workload `{name}' (see `gclab list`)")))?;
    let args = workload.parse_args(args).map_err(|e| (1, e.to_string()))?;
    let entry = gclab_collectors::select(&flags, collector).map_err(|e| (1, e.to_string()))?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let outcome = gclab::run_workload(workload, &args, flags, (entry.make)(), &mut out).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
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
