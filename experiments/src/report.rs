//! `gclab report DIR`: what a sweep found, as a table and as plots.
//!
//! Runs are grouped by workload, collector and grid point; warm-up runs
//! are left out. Over the counted repetitions of a group the table gives
//! each figure's mean and the half-width of its 95% confidence interval
//! (`confidence`), `summary.csv` adds median and range, and a latency table
//! gives the pause distribution and MMU (`latency`). With a baseline
//! collector, a table of geometric means normalised to it. The plots put
//! the experiment's `plot.x` flag on the x axis, one panel per workload,
//! one line per collector (and per value of any other swept flag), the
//! mean as the point and its interval as the error bar; the MMU curves and
//! pause percentiles are drawn for every report. All are rendered to SVG
//! and PNG (fonts embedded: no system font is needed).

use crate::confidence::{geometric_mean_ci95, mean_ci95};
use crate::experiment::{Experiment, MultipleOf, FIGURES};
use crate::files::write_atomically;
use crate::record::{figure, load_records_and_damage, write_csv, RunRecord, Status};
use crate::sweep::UsedMinHeap;
use gclab_eventlog_tools::latency::MMU_WINDOWS;
use gclab_eventlog_tools::plot::{capped, draw_cdfs, figure_size, register_fonts, render, Cdf, Point, Series};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs of one workload and collector at one grid point: (workload, collector, grid values).
type GroupKey = (String, String, Vec<(String, String)>);

/// Runs of one workload x collector x grid point.
#[derive(Debug, Clone)]
pub struct Group {
    /// `workload args`.
    pub workload: String,
    /// The collector.
    pub collector: String,
    /// The grid point, flag name -> flag text.
    pub point: BTreeMap<String, String>,
    /// Its successful runs.
    pub ok: Vec<RunRecord>,
    /// Runs in all.
    pub runs: usize,
}

/// A figure over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Repetitions that gave it.
    pub n: usize,
    /// The mean.
    pub mean: f64,
    /// Half-width of the mean's 95% confidence interval (See `confidence`);
    /// None for one repetition.
    pub ci95: Option<f64>,
    /// The median.
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

/// Summarise `values` (None if empty).
pub fn summarise(mut values: Vec<f64>) -> Option<Summary> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.partial_cmp(b).expect("figures are numbers"));
    let n = values.len();
    let median = if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 };
    let (mean, ci95) = mean_ci95(&values);
    Some(Summary { n, mean, ci95, median, min: values[0], max: values[n - 1] })
}

impl Group {
    /// The summary of `name` over the group's successful runs.
    pub fn figure(&self, name: &str) -> Option<Summary> {
        summarise(self.ok.iter().filter_map(|r| figure(r, name)).collect())
    }

    /// `collector flags`: the configuration's line in a plot.
    fn label(&self) -> String {
        format!("{} {}", self.collector, self.point_label()).trim().to_string()
    }

    fn point_label(&self) -> String {
        self.point.values().map(|v| if v.is_empty() { "(off)".to_string() } else { v.clone() }).collect::<Vec<_>>().join(" ")
    }
}

/// Group every record of a results directory, in run order (the
/// experiment's order of workloads, collectors and grid values).
pub fn groups(records: &[RunRecord]) -> Vec<Group> {
    let mut records: Vec<&RunRecord> = records.iter().collect();
    records.sort_by_key(|r| r.spec.index);
    let mut order: Vec<GroupKey> = Vec::new();
    let mut map: BTreeMap<GroupKey, Group> = BTreeMap::new();
    for r in records {
        let workload = format!("{} {}", r.spec.workload, r.spec.args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" "));
        let key = (workload.clone(), r.spec.collector.clone(), r.spec.point.clone().into_iter().collect::<Vec<_>>());
        if !map.contains_key(&key) {
            order.push(key.clone());
        }
        let g = map.entry(key).or_insert_with(|| Group { workload, collector: r.spec.collector.clone(), point: r.spec.point.clone(), ok: Vec::new(), runs: 0 });
        if r.spec.warmup {
            continue;
        }
        g.runs += 1;
        if r.status == Status::Ok {
            g.ok.push(r.clone());
        }
    }
    order.into_iter().map(|k| map.remove(&k).expect("every key was inserted")).collect()
}

/// `mean ±half-width` (the 95% interval), or the one value.
fn cell(s: Option<Summary>, scale: f64, digits: usize) -> String {
    match s {
        Some(Summary { mean, ci95: Some(ci), .. }) if ci > 0.0 => format!("{:.*} ±{:.*}", digits, mean / scale, digits, ci / scale),
        Some(s) => format!("{:.*}", digits, s.mean / scale),
        None => "-".into(),
    }
}

/// Columns for collectors that mark in place: shown when any run marked.
const IN_PLACE_COLUMNS: [(&str, &str); 3] = [("marked", "marked_bytes"), ("swept", "swept_bytes"), ("max holes", "max_hole_bytes")];

/// Columns for mark-region collectors: shown when any run swept by lines.
const REGION_COLUMNS: [(&str, &str); 3] = [("lines freed", "reclaimed_line_bytes"), ("blocks freed", "reclaimed_block_bytes"), ("defrag copied", "defrag_copied_bytes")];

/// How the sweep was made, and whether the machine was busy, from its
/// manifest: the lines under the report's title.
fn methodology(exp: &Experiment, manifest: &serde_json::Value) -> String {
    let mut out = String::new();
    let order = match manifest["order"].as_str() {
        Some("random") => format!("in rounds of one repetition of every configuration, each round shuffled (seed {})", manifest["seed"]),
        Some(other) => format!("in {other} order"),
        None => "in the file's order".into(),
    };
    out.push_str(&format!("{} counted repetitions per configuration, after {} warm-up run(s) that are not counted; runs made {order}.\n", exp.repetitions, exp.warmup));
    let m = &manifest["machine"];
    out.push_str(&format!("Machine: {} ({} cores, governor {}), {}.\n", m["cpu_model"].as_str().unwrap_or("unknown CPU"), m["cores"], m["frequency_governor"].as_str().unwrap_or("unknown"), m["os"].as_str().unwrap_or("unknown OS")));
    let load = |k: &str| m[k].as_array().and_then(|a| a.first()).and_then(|v| v.as_f64());
    let uses = exp.cores_used() as f64;
    let cores = m["cores"].as_f64().unwrap_or(1.0);
    // Busy: before the sweep, fewer idle cores than its runs use; after
    // it (its own load included), more load than cores.
    if load("load_before").is_some_and(|l| l + uses > cores) || load("load_after").is_some_and(|l| l > cores) {
        out.push_str(&format!(
            "\n**Warning: the machine was busy** (1-minute load {} before the sweep, {} after, on {cores} cores; its runs use {uses}): timings may be disturbed.\n",
            load("load_before").map_or("unknown".into(), |l| format!("{l:.2}")),
            load("load_after").map_or("unknown".into(), |l| format!("{l:.2}"))
        ));
    }
    out
}

/// The geometric mean over workloads and grid points of each collector's
/// mean figures divided by the baseline collector's at the same workload
/// and point.
fn normalised_table(baseline: &str, groups: &[Group]) -> String {
    let mut out = format!("\n## Normalised to {baseline}\n\nGeometric mean, over the workloads and grid points both ran, of each collector's mean divided by {baseline}'s (below 1: less than {baseline}), with a 95% interval [low, high] from the spread of the ratios between points (Student's t on their logarithms: it says whether the difference is larger than how much the ratio varies from point to point, treating the points as independent draws, which neighbouring grid points are not quite).\n\n| collector | points |");
    NORMALISED.iter().for_each(|(title, _)| out.push_str(&format!(" {title} |")));
    out.push_str(&format!("\n{}|\n", "| --- ".repeat(2 + NORMALISED.len())));
    let mut collectors: Vec<&str> = Vec::new();
    groups.iter().for_each(|g| if !collectors.contains(&g.collector.as_str()) { collectors.push(&g.collector) });
    for c in collectors {
        let pairs: Vec<(&Group, &Group)> = groups
            .iter()
            .filter(|g| g.collector == c)
            .filter_map(|g| Some((g, baseline_of(baseline, g, groups)?)))
            .collect();
        out.push_str(&format!("| {c} | {} |", pairs.len()));
        for (_, fig) in NORMALISED {
            let ratios: Vec<f64> = pairs.iter().filter_map(|(g, b)| ratio(g, b, fig)).collect();
            out.push_str(&geometric_mean_ci95(&ratios).map_or(" - |".into(), |(r, ci)| format!(" {} |", with_interval(r, ci))));
        }
        out.push('\n');
    }
    if groups.iter().any(|g| g.workload != groups[0].workload) {
        out.push_str(&per_workload_table(baseline, groups));
    }
    out
}

/// `r` to three places, then its interval where that says more than `r`.
fn with_interval(r: f64, ci: Option<(f64, f64)>) -> String {
    let r3 = format!("{r:.3}");
    match ci {
        Some((lo, hi)) if format!("{lo:.3}") != r3 || format!("{hi:.3}") != r3 => format!("{r3} [{lo:.3}, {hi:.3}]"),
        _ => r3,
    }
}

/// Figures normalised to a baseline: (title, figure).
const NORMALISED: [(&str, &str); 7] = [
    ("total", "total_elapsed"),
    ("GC", "gc_elapsed"),
    ("MUT", "mut_elapsed"),
    ("allocated", "allocated_bytes"),
    ("max live", "max_live_bytes"),
    ("mem in use", "max_mem_in_use_bytes"),
    ("peak RSS", "max_rss_bytes"),
];

/// `g`'s mean of `fig` over baseline `b`'s, where both have it.
fn ratio(g: &Group, b: &Group, fig: &str) -> Option<f64> {
    Some(g.figure(fig)?.mean / b.figure(fig)?.mean).filter(|r| r.is_finite())
}

/// The baseline's group at `g`'s workload and point.
fn baseline_of<'a>(baseline: &str, g: &Group, groups: &'a [Group]) -> Option<&'a Group> {
    groups.iter().find(|b| b.collector == baseline && b.workload == g.workload && b.point == g.point)
}

/// Each workload's figures normalised to the baseline's (How closely does
/// a workload do its peer's work? Its allocated bytes and max live say).
fn per_workload_table(baseline: &str, groups: &[Group]) -> String {
    let mut out = format!("\nPer workload and grid point, each collector's mean divided by {baseline}'s:\n\n| workload | collector | flags |");
    NORMALISED.iter().for_each(|(title, _)| out.push_str(&format!(" {title} |")));
    out.push_str(&format!("\n{}|\n", "| --- ".repeat(3 + NORMALISED.len())));
    for g in groups.iter().filter(|g| g.collector != baseline) {
        let Some(b) = baseline_of(baseline, g, groups) else { continue };
        out.push_str(&format!("| {} | {} | {} |", g.workload, g.collector, g.point_label()));
        for (_, fig) in NORMALISED {
            out.push_str(&ratio(g, b, fig).map_or(" - |".into(), |r| format!(" {r:.2} |")));
        }
        out.push('\n');
    }
    out
}

/// The per-workload ratios to the baseline as a plot: one panel per
/// workload, one line per collector over the figures (empty if there is
/// no baseline to divide by).
fn normalised_plot(name: &str, baseline: &str, groups: &[Group], prefix: &Path) -> Result<Vec<PathBuf>, String> {
    const FIGS: [(&str, &str); 4] = [("total", "total_elapsed"), ("GC", "gc_elapsed"), ("allocated", "allocated_bytes"), ("peak RSS", "max_rss_bytes")];
    let mut panels: Vec<(String, Vec<Series>)> = Vec::new();
    for g in groups {
        let Some(b) = baseline_of(baseline, g, groups) else { continue };
        let points: Vec<Point> = FIGS.iter().enumerate().filter_map(|(x, (_, fig))| ratio(g, b, fig).map(|r| (x, r, (r, r)))).collect();
        let panel = format!("{} {}", g.workload, g.point_label());
        match panels.iter_mut().find(|(p, _)| *p == panel) {
            Some((_, series)) => series.push((g.collector.clone(), points)),
            None => panels.push((panel, vec![(g.collector.clone(), points)])),
        }
    }
    if panels.is_empty() {
        return Ok(Vec::new());
    }
    let x_values: Vec<String> = FIGS.iter().map(|(t, _)| t.to_string()).collect();
    let title = format!("{name}: each collector's mean over {baseline}'s");
    render(prefix, 320, &title, &format!("ratio to {baseline}"), &x_values, &panels)
}

/// The minimum heaps a sweep's heap multiples (`M = ["2x"]`) multiplied,
/// from `minheaps.json` (empty if it used none).
fn min_heap_table(exp: &Experiment, dir: &Path) -> String {
    let Some(used) = std::fs::read_to_string(dir.join("minheaps.json")).ok().and_then(|t| serde_json::from_str::<Vec<UsedMinHeap>>(&t).ok()) else {
        return String::new();
    };
    let of = match exp.heap_multiple_of {
        MultipleOf::Smallest => "the smallest of these over the experiment's collectors, for the same workload and flags",
        MultipleOf::Each => "each collector's own",
    };
    let mut out = format!("\n## Minimum heaps\n\nA heap multiple (`-M1.5x`) is that multiple of {of}: the smallest `-M` under which the run completes, found by binary search to 2% (`gclab minheap`).\n\n| workload | collector | flags | minimum heap (MiB) |\n| --- | --- | --- | --- |\n");
    for u in used {
        let size = match (u.bytes, &u.error) {
            (Some(b), _) => format!("{:.2}", b as f64 / (1024.0 * 1024.0)),
            (None, Some(e)) => format!("none: {e}"),
            (None, None) => "-".into(),
        };
        out.push_str(&format!("| {} | {} | {} | {size} |\n", u.workload, u.collector, u.flags));
    }
    out
}

/// `summary.csv`: one row per configuration; per figure its repetitions,
/// mean, 95% half-width, median, minimum and maximum.
fn summary_csv(groups: &[Group]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["workload", "collector", "flags", "ok", "runs"].iter().map(|s| s.to_string()).collect();
    for fig in FIGURES {
        header.extend(["n", "mean", "ci95", "median", "min", "max"].iter().map(|s| format!("{fig}_{s}")));
    }
    w.write_record(&header).map_err(|e| e.to_string())?;
    for g in groups {
        let mut row = vec![g.workload.clone(), g.collector.clone(), g.point_label(), g.ok.len().to_string(), g.runs.to_string()];
        for fig in FIGURES {
            match g.figure(fig) {
                Some(s) => row.extend([s.n.to_string(), s.mean.to_string(), s.ci95.map(|c| c.to_string()).unwrap_or_default(), s.median.to_string(), s.min.to_string(), s.max.to_string()]),
                None => row.extend(std::iter::repeat_n(String::new(), 6)),
            }
        }
        w.write_record(&row).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// The summary table in Markdown.
pub fn markdown(name: &str, groups: &[Group]) -> String {
    let mut out = format!("# {name}\n\nMean ± half-width of its 95% confidence interval (Student's t) over the counted repetitions; times in seconds, sizes in MB.\n\n");
    let in_place = groups.iter().any(|g| g.figure("marked_bytes").is_some_and(|s| s.max > 0.0));
    let region = groups.iter().any(|g| g.figure("region_sweeps").is_some_and(|s| s.max > 0.0));
    let mut extra: Vec<(&str, &str)> = Vec::new();
    if in_place {
        extra.extend(IN_PLACE_COLUMNS);
    }
    if region {
        extra.extend(REGION_COLUMNS);
    }
    out.push_str("| workload | collector | flags | ok/runs | total | GC | MUT | allocated | copied | max live | mem in use | peak RSS |");
    extra.iter().for_each(|(title, _)| out.push_str(&format!(" {title} |")));
    out.push_str(&format!("\n{}\n", "| --- ".repeat(12 + extra.len()) + "|"));
    let mb = 1024.0 * 1024.0;
    for g in groups {
        out.push_str(&format!(
            "| {} | {} | {} | {}/{} | {} | {} | {} | {} | {} | {} | {} | {} |",
            g.workload,
            g.collector,
            g.point_label(),
            g.ok.len(),
            g.runs,
            cell(g.figure("total_elapsed"), 1.0, 3),
            cell(g.figure("gc_elapsed"), 1.0, 3),
            cell(g.figure("mut_elapsed"), 1.0, 3),
            cell(g.figure("allocated_bytes"), mb, 0),
            cell(g.figure("copied_bytes"), mb, 0),
            cell(g.figure("max_live_bytes"), mb, 1),
            cell(g.figure("max_mem_in_use_bytes"), mb, 0),
            cell(g.figure("max_rss_bytes"), mb, 0),
        ));
        extra.iter().for_each(|(_, figure)| out.push_str(&format!(" {} |", cell(g.figure(figure), mb, 1))));
        out.push('\n');
    }
    out.push_str(&latency_table(groups));
    let failed: usize = groups.iter().map(|g| g.runs - g.ok.len()).sum();
    if failed > 0 {
        out.push_str(&format!("\n{failed} run(s) failed: see runs/*.json (status, exit code, stderr) and logs/.\n"));
    }
    out
}

/// The latency table: pause distribution and MMU (See `latency`).
fn latency_table(groups: &[Group]) -> String {
    let mut out = String::from("\n## Latency\n\nPauses in milliseconds (nearest-rank percentiles over each run's pauses), MMU as a fraction; with several capabilities, the time to safepoint (the GC's leader waiting for the others to stop, before the pause) in milliseconds; mean ± 95% half-width over repetitions.\n\n");
    out.push_str("| workload | collector | flags | pauses | p50 | p90 | p99 | p99.9 | max | MMU 1ms | MMU 10ms | MMU 100ms | MMU 1s | to safepoint p99 |\n");
    out.push_str(&format!("{}|\n", "| --- ".repeat(14)));
    let ms = 1e-3;
    // Peers' runtimes report no pauses: their rows would be empty.
    for g in groups.iter().filter(|g| g.figure("pause_count").is_some()) {
        let f = |name: &str, scale: f64, digits: usize| cell(g.figure(name), scale, digits);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            g.workload,
            g.collector,
            g.point_label(),
            f("pause_count", 1.0, 0),
            f("pause_p50", ms, 2),
            f("pause_p90", ms, 2),
            f("pause_p99", ms, 2),
            f("pause_p99_9", ms, 2),
            f("pause_max", ms, 2),
            f("mmu_1ms", 1.0, 3),
            f("mmu_10ms", 1.0, 3),
            f("mmu_100ms", 1.0, 3),
            f("mmu_1s", 1.0, 3),
            f("safepoint_p99", ms, 3),
        ));
    }
    out
}

/// For each workload, one series per collector and setting of the mean
/// of `figures` (the x axis: one point per figure), scaled by `scale`.
fn figure_curves(groups: &[Group], figures: &[(&str, &str)], scale: f64) -> Vec<(String, Vec<Series>)> {
    let mut by_workload: BTreeMap<String, Vec<Series>> = BTreeMap::new();
    for g in groups {
        let points: Vec<Point> = figures.iter().enumerate().filter_map(|(i, (name, _))| Some(point(i, g.figure(name)?, scale))).collect();
        if points.is_empty() {
            continue;
        }
        by_workload.entry(g.workload.clone()).or_default().push((g.label(), points));
    }
    by_workload.into_iter().collect()
}

/// `plots/mmu` (MMU against window length) and `plots/pauses` (pause
/// percentiles), one panel per workload, one line per collector and
/// setting; every report draws them.
fn latency_plots(name: &str, groups: &[Group], plots: &Path) -> Result<Vec<PathBuf>, String> {
    let windows: Vec<(String, String)> = MMU_WINDOWS.iter().map(|(w, _)| (format!("mmu_{w}"), w.to_string())).collect();
    let windows: Vec<(&str, &str)> = windows.iter().map(|(f, l)| (f.as_str(), l.as_str())).collect();
    let percentiles: Vec<(&str, &str)> = vec![("pause_p50", "p50"), ("pause_p90", "p90"), ("pause_p99", "p99"), ("pause_p99_9", "p99.9"), ("pause_max", "max")];
    // (file, title, y axis, figures, scale, the most a figure can be)
    let charts = [
        ("mmu", format!("{name}: minimum mutator utilisation against window (mean, 95% CI)"), "MMU", &windows, 1.0, 1.0),
        ("pauses", format!("{name}: pause-time percentiles (mean, 95% CI)"), "pause (ms)", &percentiles, 1e-3, f64::INFINITY),
    ];
    let mut files = Vec::new();
    for (file, title, y_desc, figures, scale, max) in charts {
        let panels: Vec<(String, Vec<Series>)> = figure_curves(groups, figures, scale).into_iter().map(|(w, series)| (w, series.into_iter().map(|(l, pts)| (l, capped(pts, max))).collect())).collect();
        if panels.is_empty() {
            continue;
        }
        let x_values: Vec<String> = figures.iter().map(|(_, label)| label.to_string()).collect();
        files.extend(render(&plots.join(file), 520, &title, y_desc, &x_values, &panels)?);
    }
    let cdfs = pause_cdfs(groups);
    if !cdfs.is_empty() {
        let title = format!("{name}: pause-time distribution (all counted runs' pauses)");
        let size = figure_size(cdfs.len(), 520);
        let svg = plots.join("pause_cdf.svg");
        draw_cdfs(SVGBackend::new(&svg, size).into_drawing_area(), &title, &cdfs)?;
        let png = plots.join("pause_cdf.png");
        draw_cdfs(BitMapBackend::new(&png, size).into_drawing_area(), &title, &cdfs)?;
        files.push(svg);
        files.push(png);
    }
    Ok(files)
}

/// Per workload, the CDF of every configuration's pauses, pooled over its
/// counted runs (each run's `pauses`), at most 200 points a line.
fn pause_cdfs(groups: &[Group]) -> Vec<(String, Vec<Cdf>)> {
    let mut by_workload: BTreeMap<String, Vec<Cdf>> = BTreeMap::new();
    for g in groups {
        let mut pauses: Vec<f64> = g.ok.iter().filter_map(|r| r.result.as_ref()?.get("pauses")?.as_array().cloned()).flatten().filter_map(|v| v.as_f64()).filter(|&p| p > 0.0).collect();
        if pauses.is_empty() {
            continue;
        }
        pauses.sort_by(f64::total_cmp);
        let n = pauses.len();
        let step = n.div_ceil(200);
        let points: Vec<(f64, f64)> = (0..n).step_by(step).chain([n - 1]).map(|i| ((pauses[i] * 1e3).log10(), (i + 1) as f64 / n as f64)).collect();
        by_workload.entry(g.workload.clone()).or_default().push((g.label(), points));
    }
    by_workload.into_iter().collect()
}

fn point(x: usize, s: Summary, scale: f64) -> Point {
    let ci = s.ci95.unwrap_or(0.0);
    (x, s.mean / scale, (((s.mean - ci) / scale).max(0.0), (s.mean + ci) / scale))
}

/// What the report says about the experiment's peers (empty if it has
/// none): their compilers, what their figures mean, the workloads some
/// have no program for, and the flags each had no counterpart for.
fn peers_text(exp: &Experiment, manifest: &serde_json::Value, records: &[RunRecord]) -> String {
    if exp.peers.is_empty() {
        return String::new();
    }
    let compilers: Vec<String> = exp.peers.iter().map(|l| format!("{} ({})", l.name(), manifest["peers"][l.name()].as_str().unwrap_or("compiler unknown"))).collect();
    let mut out = format!(
        "\nPeers, run beside gclab's collectors as collectors of their own: {}. GHC's figures are its own (`+RTS -t --machine-readable`); OCaml has no GC clock (no GC or MUT time), its \"copied\" is promoted words and it has no max live; Boehm GC copies nothing and its memory in use is its heap at exit; every peer's peak RSS and (for OCaml and Boehm) total time are measured from outside.\n",
        compilers.join(", ")
    );
    for (workload, missing) in exp.missing_peers() {
        out.push_str(&format!("No {} peer of {workload}: its runs are left out.\n", missing.iter().map(|l| l.name()).collect::<Vec<_>>().join(" or ")));
    }
    let mut ignored: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for r in records {
        let Some(flags) = r.result.as_ref().and_then(|v| v["peer"]["ignored_flags"].as_array()) else { continue };
        ignored.entry(r.spec.collector.clone()).or_default().extend(flags.iter().filter_map(|f| f.as_str().map(str::to_string)));
    }
    for (peer, flags) in ignored.iter().filter(|(_, f)| !f.is_empty()) {
        out.push_str(&format!("{peer} has no counterpart for, and ran without: {}.\n", flags.iter().cloned().collect::<Vec<_>>().join(" ")));
    }
    out
}

/// A warning naming the workloads whose successful runs disagree on their
/// checksum (a collector that lost or corrupted data, or a peer that does
/// other work), empty if every workload's runs agree.
fn checksum_text(records: &[RunRecord]) -> String {
    let mut by_workload: BTreeMap<String, BTreeMap<String, std::collections::BTreeSet<String>>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == Status::Ok) {
        let Some(sum) = r.result.as_ref().and_then(|v| v["checksum"].as_str()) else { continue };
        let workload = format!("{} {:?}", r.spec.workload, r.spec.args);
        by_workload.entry(workload).or_default().entry(sum.to_string()).or_default().insert(r.spec.collector.clone());
    }
    let mut out = String::new();
    for (workload, sums) in by_workload.iter().filter(|(_, s)| s.len() > 1) {
        let each: Vec<String> = sums.iter().map(|(sum, who)| format!("{sum} ({})", who.iter().cloned().collect::<Vec<_>>().join(", "))).collect();
        out.push_str(&format!("**Warning: the runs of {workload} disagree on the checksum**: {}.\n\n", each.join("; ")));
    }
    out
}

/// The records that do not read, named, as a warning paragraph (empty if
/// none).
fn damaged_text(damaged: &[String]) -> String {
    if damaged.is_empty() {
        return String::new();
    }
    let mut out = format!("**Warning: {} damaged record(s), left out of every table** (sweeping the experiment into this directory again runs them again):\n\n", damaged.len());
    for d in damaged {
        out.push_str(&format!("- {d}\n"));
    }
    out.push('\n');
    out
}

/// Where the runs ran, when on more than one node (a sweep through
/// Slurm), with a warning for each configuration whose counted runs ran
/// on CPUs of different models: its intervals mix machines.
fn machines_text(records: &[RunRecord], groups: &[Group]) -> String {
    let nodes: BTreeMap<&str, &str> = records.iter().filter_map(|r| r.machine.as_ref()).map(|m| (m.node.as_str(), m.cpu_model.as_str())).collect();
    if nodes.len() < 2 {
        return String::new();
    }
    let list: Vec<String> = nodes.iter().map(|(node, cpu)| format!("{node} ({cpu})")).collect();
    let mut out = format!("Runs ran on {} nodes: {}.\n\n", nodes.len(), list.join(", "));
    for g in groups {
        let mut models: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for m in g.ok.iter().filter_map(|r| r.machine.as_ref()) {
            let on = models.entry(m.cpu_model.as_str()).or_default();
            if !on.contains(&m.node.as_str()) {
                on.push(&m.node);
            }
        }
        if models.len() > 1 {
            let which: Vec<String> = models.iter().map(|(cpu, nodes)| format!("{cpu} on {}", nodes.join(", "))).collect();
            out.push_str(&format!("**Warning: the runs of {} {} ran on CPUs of different models** ({}): its intervals mix machines.\n\n", g.workload, g.label(), which.join("; ")));
        }
    }
    out
}

/// Write the report of results directory `dir`: `summary.md` and, if the
/// experiment names a `plot.x`, `plots/<figure>.svg` and `.png`. Returns
/// the Markdown and the plot files.
pub fn report(dir: &Path, registry: &gclab_collectors::Registry) -> Result<(String, Vec<PathBuf>), String> {
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| format!("{}: {e}", dir.join("manifest.json").display()))?)
        .map_err(|e| format!("manifest.json: {e}"))?;
    let source = manifest["experiment_file"].as_str().unwrap_or_default();
    let mut exp = Experiment::parse(&dir.join("manifest.json"), source, registry).map_err(|e| e.to_string())?;
    if let Some(name) = manifest["experiment"].as_str() {
        exp.name = name.to_string();
    }
    write_csv(dir)?;
    let (records, damaged) = load_records_and_damage(dir)?;
    let groups = groups(&records);
    let mut md = markdown(&exp.name, &groups);
    let title_end = md.find("\n\n").map_or(md.len(), |i| i + 2);
    md.insert_str(title_end, &format!("{}{}\n{}{}{}", methodology(&exp, &manifest), peers_text(&exp, &manifest, &records), machines_text(&records, &groups), damaged_text(&damaged), checksum_text(&records)));
    if let Some(b) = &exp.baseline {
        md.push_str(&normalised_table(b, &groups));
    }
    md.push_str(&min_heap_table(&exp, dir));
    for (name, bytes) in [("summary.csv", summary_csv(&groups)?), ("summary.md", md.clone().into_bytes())] {
        let path = dir.join(name);
        write_atomically(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    register_fonts();
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).map_err(|e| format!("{}: {e}", plots.display()))?;
    let mut files = latency_plots(&exp.name, &groups, &plots)?;
    if let Some(b) = &exp.baseline {
        files.extend(normalised_plot(&exp.name, b, &groups, &plots.join("normalised"))?);
    }
    if let Some(x) = &exp.plot_x {
        let x_values = exp.grid.iter().find(|(k, _)| k == x).map(|(_, v)| v.clone()).unwrap_or_default();
        for fig in &exp.plot_figures {
            let panels = panels(&groups, x, &x_values, fig);
            let title = format!("{}: {} against -{} (mean of {} repetitions, 95% CI)", exp.name, fig, x, exp.repetitions);
            let (y_desc, scale) = if fig.ends_with("bytes") {
                (format!("{} (MiB)", fig.trim_end_matches("_bytes")), 1024.0 * 1024.0)
            } else if fig.contains("elapsed") || fig.contains("cpu") {
                (format!("{fig} (s)"), 1.0)
            } else {
                (fig.clone(), 1.0)
            };
            let panels: Vec<(String, Vec<Series>)> = panels
                .into_iter()
                .map(|(w, series)| (w, series.into_iter().map(|(l, pts)| (l, pts.into_iter().map(|(x, y, (lo, hi))| (x, y / scale, (lo / scale, hi / scale))).collect())).collect()))
                .collect();
            files.extend(render(&plots.join(fig), 520, &title, &y_desc, &x_values, &panels)?);
        }
    }
    Ok((md, files))
}

/// For each workload, one series per collector and other-flags setting.
fn panels(groups: &[Group], x: &str, x_values: &[String], fig: &str) -> Vec<(String, Vec<Series>)> {
    let mut by_workload: BTreeMap<String, BTreeMap<String, Vec<Point>>> = BTreeMap::new();
    for g in groups {
        let Some(xv) = g.point.get(x) else { continue };
        let Some(xi) = x_values.iter().position(|v| v == xv) else { continue };
        let Some(s) = g.figure(fig) else { continue };
        let others: Vec<String> = g.point.iter().filter(|(k, _)| k.as_str() != x).map(|(_, v)| if v.is_empty() { "(off)".into() } else { v.clone() }).collect();
        let label = if others.is_empty() { g.collector.clone() } else { format!("{} {}", g.collector, others.join(" ")) };
        by_workload.entry(g.workload.clone()).or_default().entry(label).or_default().push(point(xi, s, 1.0));
    }
    by_workload
        .into_iter()
        .map(|(w, series)| {
            let series = series
                .into_iter()
                .map(|(l, mut pts)| {
                    pts.sort_by_key(|p| p.0);
                    (l, pts)
                })
                .collect();
            (w, series)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ranges() {
        let s = summarise(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.n, s.mean, s.median, s.min, s.max), (3, 2.0, 2.0, 1.0, 3.0));
        assert!((s.ci95.unwrap() - 4.303 / 3f64.sqrt()).abs() < 1e-9, "t(2) s/sqrt(n) with s = 1");
        assert_eq!(summarise(vec![4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert_eq!(summarise(vec![]), None);
    }

    #[test]
    fn runs_of_one_configuration_on_different_cpus_are_flagged() {
        use crate::experiment::RunSpec;
        use crate::machine::RunMachine;
        let run = |id: &str, node: &str, cpu: &str| RunRecord {
            spec: RunSpec { id: id.into(), workload: "lru".into(), args: vec![1], collector: "copying".into(), point: BTreeMap::new(), rts: vec![], repetition: 0, warmup: false, index: 0 },
            status: Status::Ok,
            exit_code: Some(0),
            signal: None,
            wall_secs: 1.0,
            stderr_tail: String::new(),
            result: None,
            machine: Some(RunMachine { node: node.into(), cpu_model: cpu.into() }),
        };
        let same = vec![run("a", "n1", "Xeon"), run("b", "n2", "Xeon")];
        let text = machines_text(&same, &groups(&same));
        assert!(text.contains("Runs ran on 2 nodes") && !text.contains("Warning"), "{text}");
        let mixed = vec![run("a", "n1", "Xeon"), run("b", "n2", "EPYC")];
        let text = machines_text(&mixed, &groups(&mixed));
        assert!(text.contains("Warning: the runs of lru 1 copying ran on CPUs of different models") && text.contains("EPYC on n2; Xeon on n1"), "{text}");
        assert_eq!(machines_text(&same[..1], &groups(&same[..1])), "", "one node: nothing to say");
    }

    #[test]
    fn a_normalised_figure_shows_its_interval_only_where_it_says_something() {
        assert_eq!(with_interval(1.0, Some((1.0, 1.0))), "1.000");
        assert_eq!(with_interval(1.0004, Some((0.9999, 1.0001))), "1.000");
        assert_eq!(with_interval(1.012, Some((0.984, 1.040))), "1.012 [0.984, 1.040]");
        assert_eq!(with_interval(0.5, None), "0.500");
    }
}
