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
    /// What ran: the collector or runtime, the program and its flags, as
    /// far as the source says.
    pub ran: String,
}

/// Read a side: an eventlog (it starts with `hdrb`) or a JSON run record.
/// The damage an eventlog survived is returned with it (`reader::exit_code`
/// says what it means for the exit code).
pub fn load(path: &Path) -> Result<(Side, Vec<crate::reader::Damage>), String> {
    let label = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
    gclab_core::input::check_regular(path, u64::MAX, "an eventlog or a JSON run record")?;
    let mut magic = [0u8; 4];
    let head = std::fs::File::open(path).and_then(|mut f| f.read(&mut magic)).map_err(|e| format!("{}: {e}", path.display()))?;
    if magic[..head] == *b"hdrb" {
        let (d, damage) = crate::summary::summarise(path, None, None)?;
        let stats = serde_json::to_value(&d.stats).map_err(|e| e.to_string())?;
        let ran = if d.ran.is_empty() { "(the log does not say what ran: it was written without the scheduler class)".into() } else { d.ran };
        return Ok((Side { label, stats, latency: d.latency, timeline: d.timeline, ran }, damage));
    }
    let bytes = gclab_core::input::read_bytes(path, gclab_core::input::limit::RECORD, "a JSON run record")?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{}: neither an eventlog (no `hdrb' header) nor a JSON run record: {e}", path.display()))?;
    // A sweep's record holds the run's record under "result".
    let record = if v.get("result").is_some_and(Value::is_object) { &v["result"] } else { &v };
    let (Some(stats), Some(latency)) = (record.get("stats"), record.get("latency").and_then(Value::as_object)) else {
        return Err(format!("{}: a JSON record without `stats' and `latency' (not from `gclab run --json' or a sweep)", path.display()));
    };
    let text = |k: &str| record[k].as_str().map(str::to_string).unwrap_or_else(|| record[k].to_string());
    let args = record["args"].as_array().map(|a| a.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ")).unwrap_or_default();
    let flags = record["rts_flags"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")).unwrap_or_default();
    let ran = format!("collector {}: {} {args}{}", text("collector"), text("workload"), if flags.is_empty() { String::new() } else { format!(" +RTS {flags}") });
    Ok((Side { label, stats: stats.clone(), latency: latency.clone(), timeline: crate::timeline::from_record(record), ran }, Vec::new()))
}

/// One row of the table: its name, its value on a side (None: absent),
/// and its decimals (0 for a count).
pub type Row = (String, Option<f64>, usize);

/// The figures compared, each with its value on a side.
pub fn rows(side: &Side) -> Vec<Row> {
    let s = &side.stats;
    let num = |v: &Value| v.as_f64();
    let mib = |k: &str| num(&s[k]).map(|b| b / (1024.0 * 1024.0));
    let mut rows: Vec<Row> = vec![
        ("allocated (MiB)".to_string(), mib("allocated_bytes"), 2),
        ("copied (MiB)".into(), mib("copied_bytes"), 2),
        ("maximum residency (MiB)".into(), mib("max_live_bytes"), 2),
        ("memory in use (MiB)".into(), mib("max_mem_in_use_bytes"), 2),
        ("GCs".into(), num(&s["gcs"]), 0),
        ("total elapsed (s)".into(), num(&s["total_elapsed"]), 4),
        ("GC elapsed (s)".into(), num(&s["gc_elapsed"]), 4),
        ("MUT elapsed (s)".into(), num(&s["total_elapsed"]).zip(num(&s["gc_elapsed"])).map(|(t, g)| t - g), 4),
        ("syncs".into(), num(&s["collector_syncs"]), 0),
        ("concurrent elapsed (s)".into(), num(&s["concurrent_elapsed"]), 4),
    ];
    for (g, gen) in s["gens"].as_array().into_iter().flatten().enumerate() {
        rows.push((format!("gen {g} collections"), num(&gen["collections"]), 0));
        rows.push((format!("gen {g} elapsed (s)"), num(&gen["elapsed"]), 4));
        rows.push((format!("gen {g} max pause (ms)"), num(&gen["max_pause"]).map(|p| p * 1e3), 3));
    }
    let l = &side.latency;
    for p in ["p50", "p90", "p99", "p99_9", "max"] {
        rows.push((format!("pause {p} (ms)"), l.get(&format!("pause_{p}")).and_then(Value::as_f64).map(|v| v * 1e3), 3));
    }
    for (w, _) in MMU_WINDOWS {
        rows.push((format!("MMU {w}"), l.get(&format!("mmu_{w}")).and_then(Value::as_f64), 3));
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
    let value = |rows: &[Row], name: &str| rows.iter().find(|(n, _, _)| n == name).and_then(|(_, v, _)| *v);
    let mut names: Vec<(&String, usize)> = ra.iter().map(|(n, _, d)| (n, *d)).collect();
    names.extend(rb.iter().map(|(n, _, d)| (n, *d)).filter(|(n, _)| !ra.iter().any(|(m, _, _)| m == *n)));
    for (name, digits) in names {
        let (x, y) = (value(&ra, name), value(&rb, name));
        if x.is_none() && y.is_none() {
            continue;
        }
        let cell = |v: Option<f64>| v.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "-".into());
        let delta = x.zip(y).map(|(x, y)| format!("{:+.digits$}", y - x)).unwrap_or_else(|| "-".into());
        let ratio = x.zip(y).filter(|(x, _)| *x != 0.0).map(|(x, y)| format!("{:.3}", y / x)).unwrap_or_else(|| "-".into());
        let _ = writeln!(o, "{name:<26} {:>14} {:>14} {delta:>14} {ratio:>8}", cell(x), cell(y));
    }
    let _ = writeln!(o, "\nA = {}: {}\nB = {}: {}", a.label, a.ran, b.label, b.ran);
    o
}

/// Draw both MMU curves on one picture, `<prefix>-mmu.svg` and `.png`,
/// and both timelines on another, `<prefix>-timelines.svg` and `.png`.
pub fn draw(a: &Side, b: &Side, prefix: &Path) -> Result<Vec<PathBuf>, String> {
    let title = format!("minimum mutator utilisation: {} vs {}", a.label, b.label);
    let mut drawn = crate::plot::draw_mmu_curves(&mmu_prefix(prefix), &title, &[(a.label.as_str(), &a.latency), (b.label.as_str(), &b.latency)])?;
    let title = format!("{} vs {}: heap, live data and pauses; allocation", a.label, b.label);
    let runs = [(format!("A: {}", a.label), &a.timeline), (format!("B: {}", b.label), &b.timeline)];
    let runs: Vec<(&str, &Timeline)> = runs.iter().map(|(l, t)| (l.as_str(), *t)).collect();
    drawn.extend(crate::timeline::draw_runs(&runs, &timelines_prefix(prefix), &title)?);
    Ok(drawn)
}

/// Where `draw` puts the MMU curves: `<prefix>-mmu`.
pub fn mmu_prefix(prefix: &Path) -> PathBuf {
    PathBuf::from(format!("{}-mmu", prefix.display()))
}

/// Where `draw` puts the timelines: `<prefix>-timelines`.
pub fn timelines_prefix(prefix: &Path) -> PathBuf {
    PathBuf::from(format!("{}-timelines", prefix.display()))
}
