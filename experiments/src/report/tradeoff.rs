//! The time-memory trade-off of heap-sizing policies, for an experiment
//! with `heap_policies`: `plots/tradeoff` (each policy's curve of total
//! time against peak memory in use, one point per setting) and the table
//! of what each policy's curve needs, at the total time of each of GHC's
//! rule's points, against GHC's rule. See Note [Memory at equal time].

use super::Group;
use crate::experiment::{Experiment, HEAP_POLICY_KEY};
use crate::figures::Unit;
use gclab_eventlog_tools::plot::{render, Figure, Panel, Point, Series, Styles, XAxis};
use std::path::{Path, PathBuf};

// Note [Memory at equal time]
// ----------------------------------------
// A heap policy is a curve, not a point: each of its settings (GHC's F,
// MemBalancer's c, a fixed heap's size) trades memory for time. Two
// policies compare fairly only at equal time or equal memory, so each
// setting of a policy is a point (peak memory in use, total time), the
// points of one policy are joined in order of memory, and the table
// reads each other policy's curve at the total time of each point of
// GHC's rule, by linear interpolation between the two points of the
// curve whose times bracket it. A point of GHC's rule outside another
// curve's range of times is left out for that curve: extrapolating a
// curve measured with noise says nothing. Times are medians over the
// repetitions (one slow run moved a mean by 20% on a shared 2-core
// machine), and a curve is read along its Pareto front: a setting that
// another setting of the same policy beats in both memory and time is
// noise, not a trade, and is drawn but not read. Memory is the run's
// peak of megablocks in use (`max_mem_in_use_bytes`), which is what a
// policy sizes; RSS adds the allocator's and the kernel's slack.

/// A configuration's policy as (family, setting): (`membalancer`,
/// `c=0.002`) for `--heap-policy=membalancer:c=0.002`, the setting the
/// family's name when it has no parameters; None without a policy axis.
fn policy(g: &Group) -> Option<(String, String)> {
    let flag = g.point.get(HEAP_POLICY_KEY)?;
    let text = flag.strip_prefix("--heap-policy=").unwrap_or(flag);
    Some(match text.split_once(':') {
        Some((family, params)) => (family.to_string(), params.to_string()),
        None => (text.to_string(), text.to_string()),
    })
}

/// The grid point's other flags, as a setting's label.
fn others(g: &Group) -> String {
    g.point.iter().filter(|(k, _)| k.as_str() != HEAP_POLICY_KEY).map(|(_, v)| if v.is_empty() { "(off)".to_string() } else { v.clone() }).collect::<Vec<_>>().join(" ")
}

/// One curve: a workload's configurations of one collector, policy
/// family and setting of the other flags, as (peak MiB, median total s,
/// bars from the fastest run to the slowest) points in order of memory,
/// each with its policy setting.
struct Curve {
    workload: String,
    collector: String,
    family: String,
    others: String,
    points: Vec<(Point, String)>,
}

impl Curve {
    /// Its points alone.
    fn plain(&self) -> Vec<Point> {
        self.points.iter().map(|(p, _)| *p).collect()
    }

    /// Its Pareto front: the points no other point beats in both memory
    /// and time (See Note [Memory at equal time]).
    fn front(&self) -> Vec<(Point, String)> {
        let beaten = |p: &Point| self.points.iter().any(|(q, _)| q.x <= p.x && q.y <= p.y && (q.x < p.x || q.y < p.y));
        self.points.iter().filter(|(p, _)| !beaten(p)).cloned().collect()
    }
}

fn curves(groups: &[Group]) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for g in groups {
        let (Some((family, setting)), Some(mem), Some(time)) = (policy(g), g.figure("max_mem_in_use_bytes"), g.figure("total_elapsed")) else { continue };
        let p = (Point { x: mem.median / Unit::MiB.scale(), y: time.median, lo: time.min, hi: time.max }, setting);
        let others = others(g);
        match out.iter_mut().find(|c| c.workload == g.workload && c.collector == g.collector && c.family == family && c.others == others) {
            Some(c) => c.points.push(p),
            None => out.push(Curve { workload: g.workload.clone(), collector: g.collector.clone(), family, others, points: vec![p] }),
        }
    }
    for c in &mut out {
        c.points.sort_by(|a, b| a.0.x.total_cmp(&b.0.x));
    }
    out
}

/// `plots/tradeoff`: a panel per workload, a line per policy (its
/// colour; with several collectors, per collector and policy) and
/// setting of the other flags (its marker).
pub(super) fn tradeoff_plot(exp: &Experiment, groups: &[Group], plots: &Path) -> Result<Vec<PathBuf>, String> {
    let several = exp.collectors.len() + exp.peers.len() > 1;
    let line = |c: &Curve| if several { format!("{} {}", c.collector, c.family) } else { c.family.clone() };
    let mut panels: Vec<Panel> = Vec::new();
    for c in curves(groups) {
        let series = Series { collector: line(&c), setting: c.others.clone(), points: c.plain() };
        match panels.iter_mut().find(|p| p.title == c.workload) {
            Some(p) => p.series.push(series),
            None => panels.push(Panel { title: c.workload.clone(), series: vec![series] }),
        }
    }
    if panels.is_empty() {
        return Ok(Vec::new());
    }
    let styles = Styles::of(&panels);
    let title = format!("{}: total time against peak memory in use, a point per heap-policy setting (median; bars: fastest to slowest run)", exp.name);
    let f = Figure::new(title, XAxis::Linear, "peak memory in use (MiB)", "total time (s)", panels, true);
    render(&plots.join("tradeoff"), &f, &styles)
}

/// A Pareto front's memory at total time `t`, between the two points
/// whose times bracket it, with their settings; None outside its range
/// of times.
fn memory_at(front: &[(Point, String)], t: f64) -> Option<(f64, String)> {
    let mut by_time: Vec<&(Point, String)> = front.iter().collect();
    by_time.sort_by(|a, b| a.0.y.total_cmp(&b.0.y));
    by_time.windows(2).find(|w| w[0].0.y <= t && t <= w[1].0.y).map(|w| {
        let (a, b) = (&w[0].0, &w[1].0);
        let span = b.y - a.y;
        let mem = if span <= 0.0 { a.x.min(b.x) } else { a.x + (b.x - a.x) * (t - a.y) / span };
        (mem, format!("{} .. {}", w[0].1, w[1].1))
    })
}

/// The Markdown table of Note [Memory at equal time]; empty without
/// GHC's rule and another policy with at least two settings.
pub(super) fn tradeoff_table(groups: &[Group]) -> String {
    let curves = curves(groups);
    let mut rows = String::new();
    for ghc in curves.iter().filter(|c| c.family == "ghc") {
        for other in curves.iter().filter(|c| c.family != "ghc" && c.workload == ghc.workload && c.collector == ghc.collector && c.others == ghc.others) {
            let front = other.front();
            for (p, ghc_setting) in &ghc.points {
                let Some((mem, between)) = memory_at(&front, p.y) else { continue };
                let config = format!("{} {}", ghc.collector, ghc.others).trim().to_string();
                rows.push_str(&format!(
                    "| {} | {config} | ghc {ghc_setting} | {:.3} | {:.0} | {} {between} | {mem:.0} | {:+.0}% |\n",
                    ghc.workload,
                    p.y,
                    p.x,
                    other.family,
                    (mem / p.x - 1.0) * 100.0
                ));
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n## Heap policies: memory at equal time\n\nEach point of GHC's rule (median total time, peak memory in use), and the memory another policy's curve needs for that total time, read between the two settings on its Pareto front whose times bracket it (See Note [Memory at equal time] in the report's `tradeoff`); negative: the policy needs less memory. The curves are in `plots/tradeoff`.\n\n");
    out.push_str("| workload | collector | GHC's rule | its median total (s) | its peak (MiB) | policy, between settings | peak at that time (MiB) | change |\n|---|---|---|---|---|---|---|---|\n");
    out.push_str(&rows);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(points: &[(f64, f64)]) -> Curve {
        let points = points.iter().enumerate().map(|(i, &(x, y))| (Point::exact(x, y), format!("s{i}"))).collect();
        Curve { workload: "w".into(), collector: "c".into(), family: "f".into(), others: String::new(), points }
    }

    #[test]
    fn memory_is_read_between_the_points_that_bracket_the_time() {
        let c = curve(&[(100.0, 2.0), (200.0, 1.0), (400.0, 0.9)]);
        assert_eq!(memory_at(&c.front(), 1.5), Some((150.0, "s1 .. s0".into())));
        assert!(memory_at(&c.front(), 0.95).is_some_and(|m| (m.0 - 300.0).abs() < 1e-9));
        assert_eq!(memory_at(&c.front(), 2.5), None, "no extrapolation");
        assert_eq!(memory_at(&c.front()[..1], 2.0), None, "one point is no curve");
    }

    #[test]
    fn a_setting_beaten_in_memory_and_time_is_not_read() {
        // s2 has more memory and more time than s1: noise, not a trade.
        let c = curve(&[(100.0, 2.0), (200.0, 1.0), (300.0, 1.5), (400.0, 0.9)]);
        let names: Vec<String> = c.front().into_iter().map(|(_, s)| s).collect();
        assert_eq!(names, ["s0", "s1", "s3"]);
    }
}
