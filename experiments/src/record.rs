//! A sweep's records: one `runs/<id>.json` per finished run (`RunRecord`),
//! written whole or not at all (`write_atomically`), read back with the
//! damaged ones named, their figures by name (`figure`), and `runs.csv`.

use crate::experiment::RunSpec;
use crate::files::write_atomically;
use crate::machine::RunMachine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Exit 0 with a JSON record.
    Ok,
    /// Non-zero exit or killed by a signal.
    Failed,
    /// Killed at the experiment's timeout.
    Timeout,
}

/// One run's record in `runs/<id>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    /// What was run.
    pub spec: RunSpec,
    /// How it ended.
    pub status: Status,
    /// Exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Signal, if it was killed by one.
    pub signal: Option<i32>,
    /// Wall-clock seconds of the child process, spawn to exit.
    pub wall_secs: f64,
    /// The last 4 KiB of its stderr.
    pub stderr_tail: String,
    /// The run's own JSON record (`gclab run --json`), when it succeeded.
    pub result: Option<serde_json::Value>,
    /// The machine that ran it (absent in records made before gclab kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<RunMachine>,
}

/// One record file, checked (See Note [Records that cannot be trusted]).
pub(crate) fn read_record(path: &Path) -> Result<RunRecord, String> {
    let text = gclab_core::input::read_text(path, gclab_core::input::limit::RECORD, "a run's record")?;
    let record: RunRecord = serde_json::from_str(&text).map_err(|e| format!("{}: a damaged record ({e})", path.display()))?;
    check_record(&record, path).map_err(|why| format!("{}: {why}", path.display()))?;
    Ok(record)
}

// Note [Records that cannot be trusted]
// ----------------------------------------
// A record is read back by resumed sweeps (a run with a record is not run
// again) and by reports (which average it). So a record that parses but
// cannot be what the sweep wrote is damaged, like one cut short: it is
// named, left out of every figure, and its run is run again. That is a
// record under another run's file name (a copy: the sweep would skip the
// other run for ever, and the report count this one twice), an `ok`
// record without the run's own statistics, and one whose figures no run
// can have: not finite, negative, or a pause, GC or run longer than
// `MAX_PLAUSIBLE_SECS` (a pause of 1e200 s once sent the plotting library
// into a loop). A record that is not a run of the experiment at all (a
// stray copy named for a repetition the experiment does not have) is
// left out by the report, which knows the experiment's runs.

/// Longer than any run: ten years, in seconds.
const MAX_PLAUSIBLE_SECS: f64 = 10.0 * 365.0 * 86_400.0;

/// Why `record`, read from `path`, cannot be trusted (See Note [Records
/// that cannot be trusted]).
fn check_record(record: &RunRecord, path: &Path) -> Result<(), String> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if record.spec.id != stem {
        return Err(format!("holds the record of run {}, not of run {stem} (a copy?)", record.spec.id));
    }
    if !(record.wall_secs.is_finite() && (0.0..=MAX_PLAUSIBLE_SECS).contains(&record.wall_secs)) {
        return Err(format!("a wall time of {:e} s no run can have", record.wall_secs));
    }
    if record.status == Status::Ok {
        let Some(result) = &record.result else { return Err("says ok but holds no result".into()) };
        let Some(stats) = result.get("stats").and_then(|s| s.as_object()) else { return Err("says ok but its result holds no statistics".into()) };
        for (k, v) in stats {
            if let Some(x) = v.as_f64() {
                if !x.is_finite() || x < 0.0 || (k.ends_with("elapsed") || k.ends_with("cpu")) && x > MAX_PLAUSIBLE_SECS {
                    return Err(format!("a figure no run can have ({k} = {x:e})"));
                }
            }
        }
        let pauses = result.get("pauses").and_then(|p| p.as_array()).into_iter().flatten();
        if let Some(p) = pauses.filter_map(|p| p.as_f64()).find(|p| !p.is_finite() || *p < 0.0 || *p > MAX_PLAUSIBLE_SECS) {
            return Err(format!("a pause no run can have ({p:e} s)"));
        }
    }
    Ok(())
}

/// The manifest of results directory `dir` (None if it has none); an
/// error naming the file if it does not read.
pub fn read_manifest(dir: &Path) -> Result<Option<serde_json::Value>, String> {
    let path = dir.join("manifest.json");
    if !path.exists() {
        return Ok(None);
    }
    let text = gclab_core::input::read_text(&path, gclab_core::input::limit::SMALL_JSON, "a manifest")?;
    serde_json::from_str(&text).map(Some).map_err(|e| format!("{} is damaged ({e})", path.display()))
}

/// Every whole record in `dir/runs`, in id order, and each record file
/// that does not read, with why (See Note [Sweeps sharing a directory]).
pub fn load_records_and_damage(dir: &Path) -> Result<(Vec<RunRecord>, Vec<String>), String> {
    let runs = dir.join("runs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&runs)
        .map_err(|e| format!("{}: {e}", runs.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|x| x == "json").unwrap_or(false))
        .collect();
    paths.sort();
    let (mut records, mut damaged) = (Vec::new(), Vec::new());
    for p in &paths {
        match read_record(p) {
            Ok(r) => records.push(r),
            Err(e) => damaged.push(e),
        }
    }
    Ok((records, damaged))
}

/// Every record in `dir/runs`, in id order; an error naming the first
/// that does not read.
pub fn load_records(dir: &Path) -> Result<Vec<RunRecord>, String> {
    let (records, damaged) = load_records_and_damage(dir)?;
    match damaged.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(records),
    }
}

/// A statistic of a successful run, by name (a field of core's `Stats`,
/// or `mut_elapsed`, or `minor_gc_elapsed` and `major_gc_elapsed`: the
/// elapsed time of the GCs whose oldest collected generation was a young
/// one, and the oldest).
pub fn figure(record: &RunRecord, name: &str) -> Option<f64> {
    let result = record.result.as_ref()?;
    let stats = result.get("stats")?;
    if let Some(major) = match name {
        "minor_gc_elapsed" => Some(false),
        "major_gc_elapsed" => Some(true),
        _ => None,
    } {
        let gens = stats.get("gens")?.as_array()?;
        let (oldest, young) = gens.split_last()?;
        let elapsed = |g: &serde_json::Value| g.get("elapsed").and_then(|v| v.as_f64());
        return if major { elapsed(oldest) } else { young.iter().map(elapsed).sum() };
    }
    if let Some(v) = copy_out_figure(stats, name) {
        return Some(v);
    }
    if name == "mut_elapsed" {
        // No GC clock (an OCaml peer's run), no MUT time either.
        stats.get("gc_elapsed")?;
        let g = |k: &str| stats.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
        return Some(g("total_elapsed") - g("gc_elapsed") - g("init_elapsed") - g("exit_elapsed"));
    }
    stats.get(name).or_else(|| result.get("latency")?.get(name))?.as_f64()
}

/// A concurrent copier's figure (core's `CopyOutStats`, the record's
/// `stats.copy_out`): the bytes copied out by its threads and by the
/// mutators together, the mutators' copies, the read barrier's slow paths,
/// the degenerate collections. None for another name, or a record
/// without them (a peer's run).
fn copy_out_figure(stats: &serde_json::Value, name: &str) -> Option<f64> {
    let c = |k: &str| stats.get("copy_out")?.get(k)?.as_f64();
    match name {
        "copy_out_bytes" => Some(c("copied_bytes")? + c("mutator_copied_bytes")?),
        "mutator_copies" => c("mutator_copies"),
        "barrier_slow_paths" => c("barrier_slow_paths"),
        "degenerate_collections" => c("degenerate"),
        _ => None,
    }
}

/// Rebuild `runs.csv`: one row per record, the run's identity, status, and
/// every scalar statistic and latency figure (See `latency`) as a column.
pub fn write_csv(dir: &Path) -> Result<(), String> {
    // (A damaged record is named by the sweep and the report, and left out.)
    let (records, _) = load_records_and_damage(dir)?;
    let mut stat_keys: Vec<String> = Vec::new();
    for r in &records {
        for part in ["stats", "latency"] {
            if let Some(serde_json::Value::Object(fields)) = r.result.as_ref().and_then(|v| v.get(part)) {
                for (k, v) in fields {
                    if v.is_number() && !stat_keys.contains(k) {
                        stat_keys.push(k.clone());
                    }
                }
            }
        }
    }
    let grid_keys: Vec<String> = {
        let mut keys: Vec<String> = records.iter().flat_map(|r| r.spec.point.keys().cloned()).collect();
        keys.sort();
        keys.dedup();
        keys
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["id", "workload", "args", "collector", "repetition", "rts", "status", "exit_code", "wall_secs", "checksum"].iter().map(|s| s.to_string()).collect();
    header.extend(grid_keys.iter().map(|k| format!("flag_{k}")));
    header.extend(stat_keys.iter().cloned());
    w.write_record(&header).map_err(|e| e.to_string())?;
    for r in &records {
        let mut row = vec![
            r.spec.id.clone(),
            r.spec.workload.clone(),
            r.spec.args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" "),
            r.spec.collector.clone(),
            r.spec.repetition.to_string(),
            r.spec.rts.join(" "),
            serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
            r.exit_code.map(|c| c.to_string()).unwrap_or_default(),
            format!("{:.6}", r.wall_secs),
            r.result.as_ref().and_then(|v| v.get("checksum")).and_then(|c| c.as_str()).unwrap_or("").to_string(),
        ];
        row.extend(grid_keys.iter().map(|k| r.spec.point.get(k).cloned().unwrap_or_default()));
        row.extend(stat_keys.iter().map(|k| figure(r, k).map(|v| v.to_string()).unwrap_or_default()));
        w.write_record(&row).map_err(|e| e.to_string())?;
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    let path = dir.join("runs.csv");
    write_atomically(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::copy_out_figure;

    #[test]
    fn copy_out_figures_read_the_records_copy_out_stats() {
        let stats = serde_json::json!({"gc_elapsed": 1.0, "copy_out": {"cycles": 3, "copied_bytes": 1000, "mutator_copies": 7, "mutator_copied_bytes": 24, "barrier_slow_paths": 90, "updated_fields": 5, "degenerate": 1}});
        assert_eq!(copy_out_figure(&stats, "copy_out_bytes"), Some(1024.0));
        assert_eq!(copy_out_figure(&stats, "mutator_copies"), Some(7.0));
        assert_eq!(copy_out_figure(&stats, "barrier_slow_paths"), Some(90.0));
        assert_eq!(copy_out_figure(&stats, "degenerate_collections"), Some(1.0));
        assert_eq!(copy_out_figure(&stats, "gc_elapsed"), None, "not a copy-out figure");
        assert_eq!(copy_out_figure(&serde_json::json!({"gc_elapsed": 1.0}), "copy_out_bytes"), None, "a record without them");
    }
}
