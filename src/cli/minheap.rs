//! `gclab minheap`: the smallest `-M` a run completes in (See the
//! experiments crate's `minheap`).

use super::output::out;
use gclab_collectors::Registry;
use gclab_core::flags::split_rts_args;
use gclab_core::RtsFlags;
use std::io::Write;
use std::path::Path;

/// `--timeout`'s range: a probe needs time to start, and a search longer
/// than a day is a mistake.
const MIN_TIMEOUT_SECS: f64 = 0.1;
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// Find, print (and cache) the minimum heap of the run `rest` names.
pub(super) fn minheap(registry: &Registry, collector: Option<&str>, precision: f64, timeout_secs: f64, cache: &Path, rest: &[String]) -> Result<(), String> {
    if !(precision > 0.0 && precision < 1.0) {
        return Err(format!("--precision {precision}: must be between 0 and 1"));
    }
    if !(MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&timeout_secs) {
        return Err(format!("--timeout {timeout_secs}: must be a number of seconds from {MIN_TIMEOUT_SECS} to {MAX_TIMEOUT_SECS} (a day)"));
    }
    let (program, given) = split_rts_args(rest);
    let (workload, args) = super::run::workload_of("minheap", &program)?;
    // The flags of GCLABRTS come first, as for `gclab run`; the probes
    // run with them on their command lines (and without the variable),
    // so that the cache's key holds them.
    let mut rts: Vec<String> = super::run::gclabrts()?.map(|text| text.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
    rts.extend(given);
    if let Some(m) = rts.iter().find(|f| f.starts_with("-M")) {
        return Err(format!("`{m}' (in GCLABRTS or after +RTS): minheap searches for -M itself; leave it out"));
    }
    let mut flags = RtsFlags::from_env_and_args(None, &rts).map_err(|e| e.to_string())?;
    let (entry, params) = registry.select(&mut flags, collector).map_err(|e| e.to_string())?;
    workload.check_collector(entry.name, !gclab_collectors::is_baseline(entry.name)).map_err(|e| e.to_string())?;
    (entry.make)(params, &flags)?;
    let collector = collector.map_or(entry.name.to_string(), str::to_string);
    let mut rts_all = rts.clone();
    gclab_experiments::experiment::add_own_flags(&mut rts_all, entry.flags);
    let q = gclab_experiments::minheap::Question { workload: workload.name.to_string(), args, collector, rts: rts_all };
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
    let how = gclab_experiments::minheap::Probing { exe, scratch: std::env::temp_dir(), timeout_secs, precision };
    let mut cache = gclab_experiments::minheap::Cache::open(cache)?;
    let (answer, cached) = gclab_experiments::minheap::min_heap(&how, &q, &mut cache, |line| {
        let _ = writeln!(std::io::stderr(), "{line}");
    })?;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    out(format!(
        "{} under {}{}: minimum heap {:.2} MiB (-M{}k): it overflows at -M{}k; {} MiB in use at its peak there, {:.2} MiB without -M. {} probes, {:.1} s{}\n",
        q.workload_and_args(),
        q.collector,
        if q.rts.is_empty() { String::new() } else { format!(" +RTS {}", q.rts.join(" ")) },
        mib(answer.bytes),
        answer.bytes / 1024,
        answer.fails_at / 1024,
        if answer.peak_at_answer_bytes == 0 { "?".to_string() } else { format!("{:.0}", mib(answer.peak_at_answer_bytes)) },
        mib(answer.unlimited_peak_bytes),
        answer.probes,
        answer.seconds,
        if cached { " (cached)" } else { "" }
    ))
}

