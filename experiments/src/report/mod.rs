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
//! and PNG (fonts embedded: no system font is needed). With
//! `heap_policies`, each policy's time-memory curve and the memory it
//! needs at equal time against GHC's rule (`tradeoff`).

mod plots;
mod tables;
mod tradeoff;

pub use tables::markdown;

use crate::confidence::mean_ci95;
use crate::experiment::{Experiment, MultipleOf};
use crate::files::write_atomically;
use crate::record::{figure, load_records_and_damage, read_manifest, write_csv, RunRecord, Status};
use crate::sweep::UsedMinHeap;
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

/// The minimum heaps a sweep's heap multiples (`M = ["2x"]`) multiplied,
/// from `minheaps.json` (empty if it used none).
fn min_heap_table(exp: &Experiment, dir: &Path) -> String {
    let path = dir.join("minheaps.json");
    let Some(used) = gclab_core::input::read_text(&path, gclab_core::input::limit::SMALL_JSON, "a list of minimum heaps").ok().and_then(|t| serde_json::from_str::<Vec<UsedMinHeap>>(&t).ok()) else {
        return String::new();
    };
    let of = match exp.heap_multiple_of {
        MultipleOf::Smallest => "the smallest of these over the experiment's collectors, for the same workload and flags",
        MultipleOf::Each => "each collector's own",
    };
    let mut out = format!("\n## Minimum heaps\n\nA heap multiple (`-M1.5x`) is that multiple of {of}: the smallest `-M` under which the run completes, found by binary search to 2% (`gclab minheap`); beside it the peak memory in use of a run at it, which a limit judged after each GC does not bound (a copying collector's limit keeps room for a copy it may not make; a collector that keeps data in place may stand past the limit after a minor GC, which only makes the next GC a major one).\n\n| workload | collector | flags | minimum heap (MiB) | peak in use there (MiB) |\n| --- | --- | --- | --- | --- |\n");
    for u in used {
        let size = match (u.bytes, &u.error) {
            (Some(b), _) => format!("{:.2}", b as f64 / (1024.0 * 1024.0)),
            (None, Some(e)) => format!("none: {e}"),
            (None, None) => "-".into(),
        };
        let peak = u.peak_bytes.map_or("-".to_string(), |b| format!("{:.0}", b as f64 / (1024.0 * 1024.0)));
        out.push_str(&format!("| {} | {} | {} | {size} | {peak} |\n", u.workload, u.collector, u.flags));
    }
    out
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
    let manifest = read_manifest(dir)?.ok_or_else(|| format!("{} has no manifest.json: not a results directory (a sweep writes one)", dir.display()))?;
    let source = manifest["experiment_file"].as_str().unwrap_or_default();
    let mut exp = Experiment::parse(&dir.join("manifest.json"), source, registry).map_err(|e| e.to_string())?;
    if let Some(name) = manifest["experiment"].as_str() {
        exp.name = name.to_string();
    }
    write_csv(dir)?;
    let (records, mut damaged) = load_records_and_damage(dir)?;
    // Only the experiment's own runs count (See Note [Records that cannot
    // be trusted] in `record`).
    let ids: std::collections::HashSet<String> = exp.runs().into_iter().map(|r| r.id).collect();
    let (records, strays): (Vec<RunRecord>, Vec<RunRecord>) = records.into_iter().partition(|r| ids.contains(&r.spec.id));
    damaged.extend(strays.iter().map(|r| format!("{}: run {} is not a run of this experiment (a stray copy?)", dir.join("runs").join(format!("{}.json", r.spec.id)).display(), r.spec.id)));
    let groups = groups(&records);
    let mut md = markdown(&exp.name, &groups);
    let title_end = md.find("\n\n").map_or(md.len(), |i| i + 2);
    md.insert_str(title_end, &format!("{}{}\n{}{}{}", methodology(&exp, &manifest), peers_text(&exp, &manifest, &records), machines_text(&records, &groups), damaged_text(&damaged), checksum_text(&records)));
    if let Some(b) = &exp.baseline {
        md.push_str(&tables::normalised_table(b, &groups));
    }
    md.push_str(&min_heap_table(&exp, dir));
    md.push_str(&tradeoff::tradeoff_table(&groups));
    for (name, bytes) in [("summary.csv", tables::summary_csv(&groups)?), ("summary.md", md.clone().into_bytes())] {
        let path = dir.join(name);
        write_atomically(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).map_err(|e| format!("{}: {e}", plots.display()))?;
    let mut files = plots::latency_plots(&exp, &groups, &plots)?;
    if let Some(b) = &exp.baseline {
        files.extend(plots::normalised_plot(&exp, b, &groups, &plots.join("normalised"))?);
    }
    if let Some(x) = &exp.plot_x {
        files.extend(plots::figure_plots(&exp, &groups, x, &plots)?);
    }
    files.extend(tradeoff::tradeoff_plot(&exp, &groups, &plots)?);
    Ok((md, files))
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::tables::with_interval;

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
