//! `gclab run` (a workload under a collector, GHC's statistics, a JSON
//! record), `gclab peer` (a workload's GHC, OCaml or Boehm program) and
//! `gclab list`.

use super::output::{out, Checked, Failure, UNWRITABLE};
use gclab_collectors::Registry;
use gclab_core::flags::{split_rts_args, usage};
use gclab_core::RtsFlags;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The workload that `words` (the command line from the workload's name
/// on, before `+RTS`) names, and its arguments. One of gclab's options
/// placed after the workload (`run binary-trees 8 --collector immix`)
/// is named as such: the workloads' arguments are numbers.
pub(super) fn workload_of(command: &str, words: &[String]) -> Result<(&'static gclab_workloads::Workload, Vec<usize>), String> {
    let Some((name, args)) = words.split_first() else {
        return Err("no workload given (see `gclab list`)".into());
    };
    if let Some(option) = words.iter().find(|w| w.starts_with("--")) {
        return Err(format!(
            "`{option}' comes after the workload: gclab's options go before it (gclab {command} {option} ... WORKLOAD ARGS), RTS flags after +RTS"
        ));
    }
    let workload = gclab_workloads::by_name(name).ok_or_else(|| format!("unknown workload `{name}' (see `gclab list`)"))?;
    let args = workload.parse_args(args).map_err(|e| e.to_string())?;
    Ok((workload, args))
}

/// `gclab peer`: build the peer (unless `program` is given) and run it.
pub(super) fn peer(json: Option<&Path>, build_dir: &Path, program: Option<PathBuf>, rest: &[String]) -> Result<(), Failure> {
    use gclab_experiments::peers::{build, exec, Language};
    let (words, rts) = split_rts_args(rest);
    let [language, _, ..] = words.as_slice() else {
        return Err((1, format!("name a language ({}) and a workload (see `gclab list`)", Language::names())));
    };
    let language = Language::from_name(language).ok_or_else(|| (1, format!("unknown peer language `{language}' (known: {})", Language::names())))?;
    // A Haskell program's file, or a workload by name.
    let (workload, args): (String, Vec<usize>) = if gclab_experiments::peers::is_program(&words[1]) {
        let args = words[2..].iter().map(|a| a.parse::<usize>().map_err(|_| (1, format!("`{a}': a program's arguments in a peer run are numbers")))).collect::<Result<_, _>>()?;
        (words[1].clone(), args)
    } else {
        let (w, args) = workload_of("peer", &words[1..]).map_err(|e| (1, e))?;
        (w.name.to_string(), args)
    };
    if let Some(json) = json {
        gclab_core::output::check_writable(json).map_err(|e| (UNWRITABLE, e))?;
    }
    let Some(program) = program else {
        // The peak RSS `exec` reads is the largest of this process's
        // children's, which would include the compiler's: the built
        // program runs under a fresh `gclab peer --program`.
        let built = build::build(build_dir, &workload, language).map_err(|e| (1, e))?;
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
    let run = exec::PeerRun { language, workload, args, rts, program };
    exec::run(&run, json)
}

/// `run`, with a panic inside the runtime (a failed sanity check, a
/// panicking GC thread) turned into GHC's internal-error exit code, 254,
/// after the panic message has been printed.
pub(super) fn run_catching_internal_errors(registry: &Registry, collector: Option<&str>, json: Option<PathBuf>, rest: &[String]) -> Result<(), (u8, String)> {
    std::panic::catch_unwind(|| run(registry, collector, json, rest)).unwrap_or_else(|_| Err((254, "internal error: the run stopped (see the message above)".into())))
}

/// The `GCLABRTS` environment variable's flags, checked alone so that an
/// error in them says where they came from.
pub(super) fn gclabrts() -> Result<Option<String>, String> {
    match std::env::var("GCLABRTS") {
        Ok(text) => {
            RtsFlags::from_env_and_args(Some(&text), &[]).map_err(|e| format!("in GCLABRTS=\"{text}\": {e}"))?;
            Ok(Some(text))
        }
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => Err(format!("GCLABRTS is not UTF-8 text: {}", raw.to_string_lossy())),
    }
}

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
    if program.first().is_some_and(|p| p.ends_with(".hs")) {
        return super::program::run(registry, collector, json, &program, &rts_args, flags);
    }
    let (workload, args) = workload_of("run", &program).map_err(|e| (1, e))?;
    if let Some(json) = &json {
        gclab_core::output::check_writable(json).map_err(|e| (UNWRITABLE, e))?;
    }
    let (entry, params) = registry.select(&mut flags, collector).map_err(|e| (1, e.to_string()))?;
    workload.check_collector(entry.name, !gclab_collectors::is_baseline(entry.name)).map_err(|e| (1, e.to_string()))?;
    let made = (entry.make)(params, &flags).map_err(|e| (1, e))?;
    crate::check_fits(workload, &args, &flags)?;

    // The workloads write as they go and cannot stop for an error: the
    // first is kept, and fails the run at its end. Standard output is not
    // held locked for the run: `-v` prints events to it from whichever
    // capability leads a GC, and a lock held here deadlocked `-N2 -v`.
    let heap_policy = flags.heap_policy.text();
    let mut out = Checked::new(std::io::stdout());
    let outcome = crate::run_workload(workload, &args, flags, made, &mut out).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
    if let Some(e) = out.flush().err().or(out.take_failure()) {
        return Err((UNWRITABLE, format!("cannot write the workload's output to standard output: {e}")));
    }
    if let Some(path) = json {
        let what = serde_json::json!({ "workload": workload.name, "args": args });
        write_record(&path, what, (entry.name, &heap_policy), &rts_args, &outcome)?;
    }
    Ok(())
}

/// The JSON record of a run (`--json`): what ran (`what`: the workload or
/// program and its arguments), under which collector and heap policy
/// (`under`) and flags, and its statistics.
pub(super) fn write_record(path: &Path, what: serde_json::Value, under: (&str, &str), rts_args: &[String], outcome: &crate::RunOutcome) -> Result<(), Failure> {
    let stats = &outcome.stats;
    let mut record = what;
    record["collector"] = serde_json::json!(under.0);
    record["heap_policy"] = serde_json::json!(under.1);
    record["rts_flags"] = serde_json::json!(rts_args);
    record["checksum"] = serde_json::json!(format!("{:016x}", outcome.checksum));
    record["latency"] = serde_json::json!(gclab_eventlog_tools::latency::latency(stats));
    record["pauses"] = serde_json::json!(gclab_eventlog_tools::latency::pauses(stats).iter().map(|p| p.length).collect::<Vec<f64>>());
    record["safepoint_waits"] = serde_json::json!(stats.records.iter().map(|r| r.sync_wait).collect::<Vec<f64>>());
    // Each GC as [end (s), length (s), oldest generation, live bytes
    // after, bytes allocated since the last, heap bytes after]: a
    // timeline of the run.
    record["timeline"] = serde_json::json!(stats.records.iter().map(|r| serde_json::json!([r.total_elapsed, r.gc_elapsed, r.gen, r.live_bytes, r.allocated_bytes, r.heap_bytes])).collect::<Vec<_>>());
    record["stats"] = serde_json::json!(stats);
    let sweeps: Vec<gclab_core::RegionSweep> = stats.records.iter().filter_map(|r| r.region.as_deref().copied()).collect();
    if !sweeps.is_empty() {
        // A mark-region collector's sweeps, one per major GC.
        record["region_sweeps"] = serde_json::json!(sweeps);
    }
    let compactions: Vec<gclab_core::CompactionRecord> = stats.records.iter().filter_map(|r| r.compaction.as_deref().copied()).collect();
    if !compactions.is_empty() {
        // A sliding compactor's compactions, one per major GC.
        record["compactions"] = serde_json::json!(compactions);
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
    std::fs::write(path, text + "\n").map_err(|e| (UNWRITABLE, format!("cannot write {}: {e}", path.display())))
}

/// What `gclab list` prints: collectors, workloads with their arguments'
/// ranges and their peers, and the test workloads.
pub(super) fn list_text(registry: &Registry) -> String {
    let mut s = String::from("Collectors:\n");
    for c in registry.entries() {
        s.push_str(&format!("  {:<14} {}\n", c.name, c.description));
    }
    s.push_str("\nHeap policies (--heap-policy NAME[:key=value,...]):\n");
    for p in gclab_core::heap_policy::HEAP_POLICIES {
        s.push_str(&format!("  {:<14} {}\n", p.name, p.description));
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

