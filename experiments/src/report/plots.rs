//! The report's plots: every report draws the MMU curves, the pause
//! percentiles and the pause CDFs; with a baseline, each configuration's
//! figures over the baseline's; with `plot.x`, each figure the experiment
//! names against that flag. One panel per workload (and grid point, for
//! the ratios), a collector's colour the same in every plot and each other
//! setting a marker (See Note [One look for a configuration] in the
//! eventlog tools' `plot`).

use super::tables::{baseline_of, NORMALISED};
use super::{Group, Summary};
use crate::experiment::Experiment;
use crate::figures::{figure_named, Unit};
use gclab_eventlog_tools::latency::MMU_WINDOWS;
use gclab_eventlog_tools::plot::{draw_cdfs, render, Figure, Panel, Point, Series, Styles, XAxis};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A point at `x` of summary `s`, in the unit's scale.
fn point(x: f64, s: Summary, scale: f64) -> Point {
    let ci = s.ci95.unwrap_or(0.0);
    Point { x, y: s.mean / scale, lo: ((s.mean - ci) / scale).max(0.0), hi: (s.mean + ci) / scale }
}

/// The styles of a report: collectors in the experiment's order, then its
/// peers; settings as `setting` labels them, in the groups' order.
pub(super) fn styles(exp: &Experiment, groups: &[Group], setting: impl Fn(&Group) -> String) -> Styles {
    let mut collectors: Vec<String> = exp.collectors.iter().map(|(c, _)| c.clone()).collect();
    collectors.extend(exp.peers.iter().map(|l| l.name().to_string()));
    let mut settings: Vec<String> = Vec::new();
    for g in groups {
        let s = setting(g);
        if !settings.contains(&s) {
            settings.push(s);
        }
    }
    Styles::new(&collectors, &settings)
}

/// Panels by workload, one series per configuration, of `points(g)`.
/// With several settings, and few enough of them to fit, each setting of
/// each workload has a panel of its own: a panel then holds a line per
/// collector, told apart by colour alone (the default sweep's 21 MMU
/// curves in one panel hid each other). See `SPLIT_PANELS_UP_TO`.
fn by_workload(groups: &[Group], setting: impl Fn(&Group) -> String, points: impl Fn(&Group) -> Vec<Point>) -> Vec<Panel> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for g in groups {
        let key = (g.workload.clone(), setting(g));
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let settings = keys.iter().map(|(_, s)| s).collect::<std::collections::BTreeSet<_>>().len();
    let split = settings > 1 && keys.len() <= SPLIT_PANELS_UP_TO;
    let mut panels: Vec<Panel> = Vec::new();
    for g in groups {
        let pts = points(g);
        if pts.is_empty() {
            continue;
        }
        let (title, setting) = if split { (format!("{} {}", g.workload, setting(g)).trim().to_string(), String::new()) } else { (g.workload.clone(), setting(g)) };
        let series = Series { collector: g.collector.clone(), setting, points: pts };
        match panels.iter_mut().find(|p| p.title == title) {
            Some(p) => p.series.push(series),
            None => panels.push(Panel { title, series: vec![series] }),
        }
    }
    panels
}

/// The most panels a latency figure is split into (three rows of five);
/// past that, a workload's settings share its panel, told apart by marker.
const SPLIT_PANELS_UP_TO: usize = 15;

/// `plots/mmu` (MMU against window), `plots/pauses` (pause percentiles)
/// and `plots/pause_cdf`, one panel per workload.
pub(super) fn latency_plots(exp: &Experiment, groups: &[Group], plots: &Path) -> Result<Vec<PathBuf>, String> {
    let styles = styles(exp, groups, |g| g.point_label());
    let setting = |g: &Group| g.point_label();
    let name = &exp.name;
    let mut files = Vec::new();
    let mmu = by_workload(groups, setting, |g| MMU_WINDOWS.iter().filter_map(|(w, secs)| Some(point(*secs, g.figure(&format!("mmu_{w}"))?, 1.0))).collect());
    if !mmu.is_empty() {
        let mut f = Figure::new(format!("{name}: minimum mutator utilisation against window (mean, 95% CI)"), XAxis::LogSeconds, "window", "MMU (share of the window the mutator runs)", mmu, true);
        f.y_max = Some(1.0);
        files.extend(render(&plots.join("mmu"), &f, &styles)?);
    }
    const PERCENTILES: [(&str, &str); 5] = [("pause_p50", "p50"), ("pause_p90", "p90"), ("pause_p99", "p99"), ("pause_p99_9", "p99.9"), ("pause_max", "max")];
    let ms = Unit::Milliseconds.scale();
    let pauses = by_workload(groups, setting, |g| PERCENTILES.iter().enumerate().filter_map(|(i, (fig, _))| Some(point(i as f64, g.figure(fig)?, ms))).collect());
    if !pauses.is_empty() {
        let x = XAxis::Categories(PERCENTILES.iter().map(|(_, l)| l.to_string()).collect());
        let f = Figure::new(format!("{name}: pause-time percentiles (mean, 95% CI)"), x, "percentile of each run's pauses", "pause (ms)", pauses, true);
        files.extend(render(&plots.join("pauses"), &f, &styles)?);
    }
    let cdfs = by_workload(groups, setting, pause_cdf);
    if !cdfs.is_empty() {
        files.extend(draw_cdfs(&plots.join("pause_cdf"), &format!("{name}: pause-time distribution (all counted runs' pauses)"), &cdfs, &styles)?);
    }
    Ok(files)
}

/// The CDF of a configuration's pauses, pooled over its counted runs
/// (each run's `pauses`): (pause in seconds, share of pauses at most
/// that long), at most 200 points.
fn pause_cdf(g: &Group) -> Vec<Point> {
    let mut pauses: Vec<f64> = g.ok.iter().filter_map(|r| r.result.as_ref()?.get("pauses")?.as_array().cloned()).flatten().filter_map(|v| v.as_f64()).filter(|&p| p > 0.0).collect();
    if pauses.is_empty() {
        return Vec::new();
    }
    pauses.sort_by(f64::total_cmp);
    let n = pauses.len();
    let step = n.div_ceil(200);
    (0..n).step_by(step).chain([n - 1]).map(|i| Point::exact(pauses[i], (i + 1) as f64 / n as f64)).collect()
}

/// The ratio of `g`'s mean to the baseline's, with an interval from both
/// means' intervals (their relative half-widths added in quadrature).
fn ratio_point(x: f64, g: &Group, b: &Group, fig: &str) -> Option<Point> {
    let (s, t) = (g.figure(fig)?, b.figure(fig)?);
    let r = s.mean / t.mean;
    if !r.is_finite() {
        return None;
    }
    let rel = |s: Summary| if s.mean > 0.0 { s.ci95.unwrap_or(0.0) / s.mean } else { 0.0 };
    let half = r * (rel(s).powi(2) + rel(t).powi(2)).sqrt();
    Some(Point { x, y: r, lo: (r - half).max(0.0), hi: r + half })
}

/// `plots/normalised`: per workload and grid point, each collector's
/// figures over the baseline's, as points with intervals beside each other
/// (no line joins different measures), and a line at 1.
pub(super) fn normalised_plot(exp: &Experiment, baseline: &str, groups: &[Group], prefix: &Path) -> Result<Vec<PathBuf>, String> {
    const FIGS: [(&str, &str); 4] = [("total", "total_elapsed"), ("GC", "gc_elapsed"), ("allocated", "allocated_bytes"), ("peak RSS", "max_rss_bytes")];
    debug_assert!(FIGS.iter().all(|(_, f)| NORMALISED.iter().any(|(_, n)| n == f)));
    let mut panels: Vec<Panel> = Vec::new();
    for g in groups {
        let Some(b) = baseline_of(baseline, g, groups) else { continue };
        let points: Vec<Point> = FIGS.iter().enumerate().filter_map(|(x, (_, fig))| ratio_point(x as f64, g, b, fig)).collect();
        let title = format!("{} {}", g.workload, g.point_label()).trim().to_string();
        let series = Series { collector: g.collector.clone(), setting: String::new(), points };
        match panels.iter_mut().find(|p| p.title == title) {
            Some(p) => p.series.push(series),
            None => panels.push(Panel { title, series: vec![series] }),
        }
    }
    if panels.is_empty() {
        return Ok(Vec::new());
    }
    let x = XAxis::Categories(FIGS.iter().map(|(t, _)| t.to_string()).collect());
    let mut f = Figure::new(format!("{}: each collector's mean over {baseline}'s (95% CI)", exp.name), x, "", format!("ratio to {baseline}"), panels, false);
    f.reference = Some(1.0);
    f.panel_width = 360;
    render(prefix, &f, &styles(exp, groups, |_| String::new()))
}

/// `plots/<figure>` for each figure the experiment names: against the
/// values of `plot.x`, one panel per workload, a line per collector and
/// setting of the other swept flags.
pub(super) fn figure_plots(exp: &Experiment, groups: &[Group], x: &str, plots: &Path) -> Result<Vec<PathBuf>, String> {
    let x_values = exp.grid.iter().find(|(k, _)| k == x).map(|(_, v)| v.clone()).unwrap_or_default();
    let others = |g: &Group| g.point.iter().filter(|(k, _)| k.as_str() != x).map(|(_, v)| if v.is_empty() { "(off)".to_string() } else { v.clone() }).collect::<Vec<_>>().join(" ");
    let styles = styles(exp, groups, others);
    let mut files = Vec::new();
    for fig in &exp.plot_figures {
        let Some(name) = figure_named(fig) else { continue };
        let scale = name.unit.scale();
        let mut series: BTreeMap<(String, String, String), Vec<Point>> = BTreeMap::new();
        let mut order: Vec<(String, String, String)> = Vec::new();
        for g in groups {
            let Some(xi) = g.point.get(x).and_then(|xv| x_values.iter().position(|v| v == xv)) else { continue };
            let Some(s) = g.figure(fig) else { continue };
            let key = (g.workload.clone(), g.collector.clone(), others(g));
            if !series.contains_key(&key) {
                order.push(key.clone());
            }
            series.entry(key).or_default().push(point(xi as f64, s, scale));
        }
        let mut panels: Vec<Panel> = Vec::new();
        for key in order {
            let mut points = series.remove(&key).unwrap_or_default();
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            let (workload, collector, setting) = key;
            let s = Series { collector, setting, points };
            match panels.iter_mut().find(|p| p.title == workload) {
                Some(p) => p.series.push(s),
                None => panels.push(Panel { title: workload, series: vec![s] }),
            }
        }
        if panels.is_empty() {
            continue;
        }
        let title = format!("{}: {} against -{x} (mean of {} repetitions, 95% CI)", exp.name, name.words, exp.repetitions);
        let f = Figure::new(title, XAxis::Categories(x_values.clone()), format!("-{x}"), name.axis_label(), panels, true);
        files.extend(render(&plots.join(fig), &f, &styles)?);
    }
    Ok(files)
}
