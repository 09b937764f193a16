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

/// One record file.
pub(crate) fn read_record(path: &Path) -> Result<RunRecord, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: a damaged record ({e})", path.display()))
}

/// The manifest of results directory `dir`, if it has a readable one.
pub fn read_manifest(dir: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).ok()?).ok()
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
    if name == "mut_elapsed" {
        // No GC clock (an OCaml peer's run), no MUT time either.
        stats.get("gc_elapsed")?;
        let g = |k: &str| stats.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
        return Some(g("total_elapsed") - g("gc_elapsed") - g("init_elapsed") - g("exit_elapsed"));
    }
    stats.get(name).or_else(|| result.get("latency")?.get(name))?.as_f64()
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
