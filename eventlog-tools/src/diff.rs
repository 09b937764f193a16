//! `gclab eventlog diff A B`: two runs side by side, each an eventlog
//! (gclab's or a GHC program's) or a JSON run record (`gclab run --json`,
//! or a sweep's record under `runs/`), in any mix: so gclab's run of a
//! workload reads beside GHC's run of its peer, or two collectors beside
//! each other.
//!
//! Both sides become the same two records, whatever their source: the
//! statistics (core's `Stats`, as a run's JSON record holds them) and the
//! latency fields (pause distribution per generation and MMU, as
//! `latency` computes them), and a timeline. The table has a row per
//! figure present in either: A, B, B - A and B / A. The MMU curves of both
//! are drawn on one picture, their timelines on another (on the same
//! scales). An eventlog is read as it is summarised, so a side may be
//! any size.

use crate::latency::MMU_WINDOWS;
use crate::timeline::Timeline;
use std::io::Read as _;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One side of a diff.
#[derive(Debug, Clone)]
pub struct Side {
    /// Its name in the table (the file's name).
    pub label: String,
    /// Core's statistics, as JSON.
    pub stats: Value,
    /// The latency fields.
    pub latency: Map<String, Value>,
    /// Heap, live data, allocation and pauses over time.
    pub timeline: Timeline,
}

/// Read a side: an eventlog (it starts with `hdrb`) or a JSON run record.
/// Damage an eventlog survived is returned as warnings.
pub fn load(path: &Path) -> Result<(Side, Vec<String>), String> {
    let label = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
    let mut magic = [0u8; 4];
    let head = std::fs::File::open(path).and_then(|mut f| f.read(&mut magic)).map_err(|e| format!("{}: {e}", path.display()))?;
    if magic[..head] == *b"hdrb" {
        let (d, damage) = crate::summary::summarise(path, None, None)?;
        let warnings = damage.iter().map(|d| format!("{}: {d}", path.display())).collect();
        let stats = serde_json::to_value(&d.stats).map_err(|e| e.to_string())?;
        return Ok((Side { label, stats, latency: d.latency, timeline: d.timeline }, warnings));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{}: neither an eventlog (no `hdrb' header) nor a JSON run record: {e}", path.display()))?;
    // A sweep's record holds the run's record under "result".
    let record = if v.get("result").is_some_and(Value::is_object) { &v["result"] } else { &v };
    let (Some(stats), Some(latency)) = (record.get("stats"), record.get("latency").and_then(Value::as_object)) else {
        return Err(format!("{}: a JSON record without `stats' and `latency' (not from `gclab run --json' or a sweep)", path.display()));
    };
    Ok((Side { label, stats: stats.clone(), latency: latency.clone(), timeline: crate::timeline::from_record(stats) }, Vec::new()))
}

/// The figures compared, each with its value on a side (None: absent).
pub fn rows(side: &Side) -> Vec<(String, Option<f64>)> {
    let s = &side.stats;
    let num = |v: &Value| v.as_f64();
    let mb = |k: &str| num(&s[k]).map(|b| b / 1e6);
    let mut rows = vec![
        ("allocated (MB)".to_string(), mb("allocated_bytes")),
        ("copied (MB)".into(), mb("copied_bytes")),
        ("maximum residency (MB)".into(), mb("max_live_bytes")),
        ("memory in use (MB)".into(), mb("max_mem_in_use_bytes")),
        ("GCs".into(), num(&s["gcs"])),
        ("total elapsed (s)".into(), num(&s["total_elapsed"])),
        ("GC elapsed (s)".into(), num(&s["gc_elapsed"])),
        ("MUT elapsed (s)".into(), num(&s["total_elapsed"]).zip(num(&s["gc_elapsed"])).map(|(t, g)| t - g)),
        ("syncs".into(), num(&s["collector_syncs"])),
        ("concurrent elapsed (s)".into(), num(&s["concurrent_elapsed"])),
    ];
    for (g, gen) in s["gens"].as_array().into_iter().flatten().enumerate() {
        rows.push((format!("gen {g} collections"), num(&gen["collections"])));
        rows.push((format!("gen {g} elapsed (s)"), num(&gen["elapsed"])));
        rows.push((format!("gen {g} max pause (ms)"), num(&gen["max_pause"]).map(|p| p * 1e3)));
    }
    let l = &side.latency;
    for p in ["p50", "p90", "p99", "p99_9", "max"] {
        rows.push((format!("pause {p} (ms)"), l.get(&format!("pause_{p}")).and_then(Value::as_f64).map(|v| v * 1e3)));
    }
    for (w, _) in MMU_WINDOWS {
        rows.push((format!("MMU {w}"), l.get(&format!("mmu_{w}")).and_then(Value::as_f64)));
    }
    rows
}

/// The side-by-side table: every figure present on either side.
pub fn diff_text(a: &Side, b: &Side) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{:<26} {:>14} {:>14} {:>14} {:>8}", "", a.label.chars().take(14).collect::<String>(), b.label.chars().take(14).collect::<String>(), "B - A", "B / A");
    // Rows by name: the two runs may have different generation counts
    // (GHC's -G3 beside gclab's default), so their rows need not line up.
    let (ra, rb) = (rows(a), rows(b));
    let value = |rows: &[(String, Option<f64>)], name: &str| rows.iter().find(|(n, _)| n == name).and_then(|(_, v)| *v);
    let mut names: Vec<&String> = ra.iter().map(|(n, _)| n).collect();
    names.extend(rb.iter().map(|(n, _)| n).filter(|n| !ra.iter().any(|(m, _)| m == *n)));
    for name in names {
        let (x, y) = (value(&ra, name), value(&rb, name));
        if x.is_none() && y.is_none() {
            continue;
        }
        let cell = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into());
        let delta = x.zip(y).map(|(x, y)| format!("{:+.4}", y - x)).unwrap_or_else(|| "-".into());
        let ratio = x.zip(y).filter(|(x, _)| *x != 0.0).map(|(x, y)| format!("{:.3}", y / x)).unwrap_or_else(|| "-".into());
        let _ = writeln!(o, "{name:<26} {:>14} {:>14} {delta:>14} {ratio:>8}", cell(x), cell(y));
    }
    let _ = writeln!(o, "\nA = {}\nB = {}", a.label, b.label);
    o
}

/// Draw both MMU curves on one picture, `<prefix>-mmu.svg` and `.png`,
/// and both timelines on another, `<prefix>-timelines.svg` and `.png`.
pub fn draw(a: &Side, b: &Side, prefix: &Path) -> Result<Vec<PathBuf>, String> {
    let at = |what: &str| PathBuf::from(format!("{}-{what}", prefix.display()));
    let title = format!("minimum mutator utilisation: {} vs {}", a.label, b.label);
    let mut drawn = crate::plot::draw_mmu_curves(&at("mmu"), &title, &[(a.label.as_str(), &a.latency), (b.label.as_str(), &b.latency)])?;
    let title = format!("{} vs {}: heap, live data and pauses; allocation", a.label, b.label);
    let runs = [(format!("A: {}", a.label), &a.timeline), (format!("B: {}", b.label), &b.timeline)];
    let runs: Vec<(&str, &Timeline)> = runs.iter().map(|(l, t)| (l.as_str(), *t)).collect();
    drawn.extend(crate::timeline::draw_runs(&runs, &at("timelines"), &title)?);
    Ok(drawn)
}
