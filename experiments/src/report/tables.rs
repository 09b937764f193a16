//! The report's tables, in Markdown: the main table (times and sizes of
//! every configuration), what the collectors that do not copy did, the
//! latency table, the table normalised to a baseline, and `summary.csv`.
//!
//! A cell is the mean over the counted repetitions and the half-width of
//! its 95% interval; a figure that does not apply to a configuration (a
//! copying collector's bytes swept, a peer's pauses) is `-`, never `0.0`;
//! a column that no row fills is left out. Sizes are in MiB (1024 x 1024
//! bytes) everywhere, and every header says its unit.

use super::{Group, Summary};
use crate::confidence::geometric_mean_ci95;
use crate::figures::{figure_named, FIGURES};

/// `mean ±half-width` (the 95% interval), or the one value; `-` if none.
pub(super) fn cell(s: Option<Summary>, scale: f64, digits: usize) -> String {
    match s {
        Some(Summary { mean, ci95: Some(ci), .. }) if ci > 0.0 => format!("{:.*} ±{:.*}", digits, mean / scale, digits, ci / scale),
        Some(s) => format!("{:.*}", digits, s.mean / scale),
        None => "-".into(),
    }
}

/// A column: its header (with its unit), its figure, and its decimals.
struct Column {
    header: &'static str,
    figure: &'static str,
    digits: usize,
}

const fn col(header: &'static str, figure: &'static str, digits: usize) -> Column {
    Column { header, figure, digits }
}

/// The main table's columns.
const MAIN: &[Column] = &[
    col("total (s)", "total_elapsed", 3),
    col("GC (s)", "gc_elapsed", 3),
    col("MUT (s)", "mut_elapsed", 3),
    col("allocated (MiB)", "allocated_bytes", 0),
    col("copied (MiB)", "copied_bytes", 0),
    col("max live (MiB)", "max_live_bytes", 1),
    col("mem in use (MiB)", "max_mem_in_use_bytes", 0),
    col("peak RSS (MiB)", "max_rss_bytes", 0),
];

/// What collectors that mark in place, sweep or free by lines did.
const IN_PLACE: &[Column] = &[
    col("marked (MiB)", "marked_bytes", 1),
    col("swept (MiB)", "swept_bytes", 1),
    col("most in holes (MiB)", "max_hole_bytes", 1),
    col("mutators into holes (MiB)", "mutator_hole_bytes", 1),
    col("lines freed (MiB)", "reclaimed_line_bytes", 1),
    col("blocks freed (MiB)", "reclaimed_block_bytes", 1),
    col("defrag copied (MiB)", "defrag_copied_bytes", 1),
    col("slid (MiB)", "compaction_slid_bytes", 1),
    col("blocks left in place", "blocks_left_in_place", 0),
];

/// The latency table's columns.
const LATENCY: &[Column] = &[
    col("pauses", "pause_count", 0),
    col("p50 (ms)", "pause_p50", 2),
    col("p90 (ms)", "pause_p90", 2),
    col("p99 (ms)", "pause_p99", 2),
    col("p99.9 (ms)", "pause_p99_9", 2),
    col("max (ms)", "pause_max", 2),
    col("MMU 1ms", "mmu_1ms", 3),
    col("MMU 10ms", "mmu_10ms", 3),
    col("MMU 100ms", "mmu_100ms", 3),
    col("MMU 1s", "mmu_1s", 3),
    col("to safepoint p99 (ms)", "safepoint_p99", 3),
];

/// `g`'s summary of `figure`, None where it does not apply: absent, or
/// a figure of what collectors do in place that is 0 in every run.
fn applies(g: &Group, figure: &str) -> Option<Summary> {
    let s = g.figure(figure)?;
    let in_place = IN_PLACE.iter().any(|c| c.figure == figure);
    (!(in_place && s.max == 0.0)).then_some(s)
}

/// A table of `columns` for `rows`, leaving out the columns no row fills.
fn table(rows: &[&Group], columns: &[Column]) -> String {
    let shown: Vec<&Column> = columns.iter().filter(|c| rows.iter().any(|g| applies(g, c.figure).is_some())).collect();
    let mut out = String::from("| workload | collector | flags | ok/runs |");
    shown.iter().for_each(|c| out.push_str(&format!(" {} |", c.header)));
    out.push_str(&format!("\n{}|\n", "| --- ".repeat(4 + shown.len())));
    for g in rows {
        out.push_str(&format!("| {} | {} | {} | {}/{} |", g.workload, g.collector, g.point_label(), g.ok.len(), g.runs));
        for c in &shown {
            let scale = figure_named(c.figure).map_or(1.0, |f| f.unit.scale());
            out.push_str(&format!(" {} |", cell(applies(g, c.figure), scale, c.digits)));
        }
        out.push('\n');
    }
    out
}

/// The summary tables in Markdown.
pub fn markdown(name: &str, groups: &[Group]) -> String {
    let mut out = format!("# {name}\n\nMean ± half-width of its 95% confidence interval (Student's t) over the counted repetitions; times in seconds, sizes in MiB (1024 x 1024 bytes). `-`: does not apply.\n\n");
    let all: Vec<&Group> = groups.iter().collect();
    out.push_str(&table(&all, MAIN));
    let in_place: Vec<&Group> = groups.iter().filter(|g| IN_PLACE.iter().any(|c| applies(g, c.figure).is_some())).collect();
    if !in_place.is_empty() {
        out.push_str("\n## Marking in place, sweeping and compacting\n\nWhat the collectors that do not copy everything did: bytes marked in place and freed by sweeping, the most free space left in holes; for mark-region collectors, the space freed as lines and as whole blocks and the bytes copied to defragment; for a sliding compactor, the bytes its compactions slid and the blocks they left in place.\n\n");
        out.push_str(&table(&in_place, IN_PLACE));
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
    // Peers' runtimes report no pauses: their rows would be empty.
    let rows: Vec<&Group> = groups.iter().filter(|g| g.figure("pause_count").is_some()).collect();
    out.push_str(&table(&rows, LATENCY));
    out
}

/// The geometric mean over workloads and grid points of each collector's
/// mean figures divided by the baseline collector's at the same workload
/// and point.
pub(super) fn normalised_table(baseline: &str, groups: &[Group]) -> String {
    let mut out = format!("\n## Normalised to {baseline}\n\nGeometric mean, over the workloads and grid points both ran, of each collector's mean divided by {baseline}'s (below 1: less than {baseline}), with a 95% interval [low, high] from the spread of the ratios between points (Student's t on their logarithms: it says whether the difference is larger than how much the ratio varies from point to point, treating the points as independent draws, which neighbouring grid points are not quite).\n\n| collector | points |");
    NORMALISED.iter().for_each(|(title, _)| out.push_str(&format!(" {title} |")));
    out.push_str(&format!("\n{}|\n", "| --- ".repeat(2 + NORMALISED.len())));
    let mut collectors: Vec<&str> = Vec::new();
    groups.iter().for_each(|g| if !collectors.contains(&g.collector.as_str()) { collectors.push(&g.collector) });
    for c in collectors {
        let pairs: Vec<(&Group, &Group)> = groups.iter().filter(|g| g.collector == c).filter_map(|g| Some((g, baseline_of(baseline, g, groups)?))).collect();
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
pub(super) fn with_interval(r: f64, ci: Option<(f64, f64)>) -> String {
    let r3 = format!("{r:.3}");
    match ci {
        Some((lo, hi)) if format!("{lo:.3}") != r3 || format!("{hi:.3}") != r3 => format!("{r3} [{lo:.3}, {hi:.3}]"),
        _ => r3,
    }
}

/// Figures normalised to a baseline: (title, figure).
pub(super) const NORMALISED: [(&str, &str); 7] = [
    ("total", "total_elapsed"),
    ("GC", "gc_elapsed"),
    ("MUT", "mut_elapsed"),
    ("allocated", "allocated_bytes"),
    ("max live", "max_live_bytes"),
    ("mem in use", "max_mem_in_use_bytes"),
    ("peak RSS", "max_rss_bytes"),
];

/// `g`'s mean of `fig` over baseline `b`'s, where both have it.
pub(super) fn ratio(g: &Group, b: &Group, fig: &str) -> Option<f64> {
    Some(g.figure(fig)?.mean / b.figure(fig)?.mean).filter(|r| r.is_finite())
}

/// The baseline's group at `g`'s workload and point.
pub(super) fn baseline_of<'a>(baseline: &str, g: &Group, groups: &'a [Group]) -> Option<&'a Group> {
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

/// `summary.csv`: one row per configuration; per figure its repetitions,
/// mean, 95% half-width, median, minimum and maximum, in the record's own
/// units (seconds, bytes).
pub(super) fn summary_csv(groups: &[Group]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["workload", "collector", "flags", "ok", "runs"].iter().map(|s| s.to_string()).collect();
    for fig in FIGURES {
        header.extend(["n", "mean", "ci95", "median", "min", "max"].iter().map(|s| format!("{}_{s}", fig.name)));
    }
    w.write_record(&header).map_err(|e| e.to_string())?;
    for g in groups {
        let mut row = vec![g.workload.clone(), g.collector.clone(), g.point_label(), g.ok.len().to_string(), g.runs.to_string()];
        for fig in FIGURES {
            match g.figure(fig.name) {
                Some(s) => row.extend([s.n.to_string(), s.mean.to_string(), s.ci95.map(|c| c.to_string()).unwrap_or_default(), s.median.to_string(), s.min.to_string(), s.max.to_string()]),
                None => row.extend(std::iter::repeat_n(String::new(), 6)),
            }
        }
        w.write_record(&row).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}
