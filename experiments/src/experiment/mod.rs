//! Experiment files: the TOML format of `experiments/` and the plan of
//! runs it stands for (`experiments/README.md` specifies the format).
//!
//! An experiment names workloads with their arguments, collectors, a grid
//! of RTS flags, repetitions, a per-run timeout and what to plot. Loading
//! checks everything a sweep would otherwise discover halfway: unknown
//! keys, workloads and collectors, flag values that do not parse, empty
//! grids; each error names the file, the line and the key. `runs` expands
//! the grid into a deterministic list of runs, each with a stable id, so
//! that sweeps resume and shard.

use crate::peers::Language;
pub use runs::{add_own_flags, heap_multiple, run_order, with_heap_limit, MultipleOf, RunOrder, RunSpec};
use runs::plain;
use gclab_collectors::Registry;
use gclab_core::RtsFlags;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

mod runs;

/// A problem with an experiment file: where, which key, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExperimentError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// The key at fault (dotted path), or empty.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: ", self.file.display())?,
            line => write!(f, "{}:{line}: ", self.file.display())?,
        }
        if !self.key.is_empty() {
            write!(f, "`{}': ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExperimentError {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<Spanned<String>>,
    description: Option<String>,
    repetitions: Option<Spanned<i64>>,
    warmup: Option<Spanned<i64>>,
    order: Option<Spanned<String>>,
    seed: Option<Spanned<i64>>,
    baseline: Option<Spanned<String>>,
    heap_multiple_of: Option<Spanned<String>>,
    timeout_secs: Option<Spanned<f64>>,
    collectors: Spanned<Vec<Spanned<String>>>,
    peers: Option<Spanned<Vec<Spanned<String>>>>,
    workloads: Spanned<Vec<WorkloadSpec>>,
    heap_policies: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    grid: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    plot: Option<PlotSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadSpec {
    name: Spanned<String>,
    #[serde(default)]
    args: Vec<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlotSpec {
    x: Spanned<String>,
    #[serde(default)]
    figures: Option<Spanned<Vec<Spanned<String>>>>,
}


/// A loaded, checked experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// Its name (the file stem unless `name` says otherwise).
    pub name: String,
    /// One line about it.
    pub description: String,
    /// Runs per grid point.
    pub repetitions: usize,
    /// Warm-up runs per grid point: run before the counted ones, and left
    /// out of every figure.
    pub warmup: usize,
    /// The order the runs are made in (See Note [Run order]).
    pub order: RunOrder,
    /// The seed of a random order; None: chosen at the sweep's start and
    /// recorded in its manifest.
    pub seed: Option<u64>,
    /// The collector the report's geometric means are normalised to.
    pub baseline: Option<String>,
    /// What heap multiples (`M = ["2x"]`) multiply.
    pub heap_multiple_of: MultipleOf,
    /// Per-run timeout in seconds.
    pub timeout_secs: f64,
    /// Collector names, with the RTS flags each brings (its registry
    /// entry's `flags`).
    pub collectors: Vec<(String, String)>,
    /// Peer programs run beside the collectors (See `peers`): each is a
    /// collector in the runs and the report, named for its language.
    pub peers: Vec<Language>,
    /// (workload, arguments).
    pub workloads: Vec<(String, Vec<usize>)>,
    /// Flag name (without the dash) -> its values as flag texts (`-A64k`,
    /// or "" for a boolean flag that is off).
    pub grid: Vec<(String, Vec<String>)>,
    /// The flag on the x axis of the plots, if any.
    pub plot_x: Option<String>,
    /// Figures to plot.
    pub plot_figures: Vec<String>,
    /// The file's text (kept in the sweep's manifest).
    pub source: String,
}

/// The dotted key whose value lies at byte `at` of `text`: the key on that
/// line, under the last table header above it.
fn key_at(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..text[line_start..].find('\n').map_or(text.len(), |i| line_start + i)];
    let key = line.split_once('=').map(|(k, _)| k.trim().to_string()).unwrap_or_default();
    let table = before[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| l.trim_matches(|c| c == '[' || c == ']').trim().to_string())
    });
    match table {
        Some(t) if !key.is_empty() => format!("{t}.{key}"),
        _ => key,
    }
}

/// A TOML type error in words (`expected i64` means a whole number).
fn plain_toml_message(message: &str) -> String {
    if message.trim().is_empty() {
        // (toml says nothing for a key at the very end with no value.)
        return "expected a value".into();
    }
    message.trim().replace("expected i64", "expected a whole number").replace("expected usize", "expected a whole number, 0 or more").replace("expected f64", "expected a number")
}

fn line_of(text: &str, span: Range<usize>) -> usize {
    text[..span.start.min(text.len())].matches('\n').count() + 1
}

fn flag_text(key: &str, v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(format!("-{key}{s}")),
        toml::Value::Integer(i) => Some(format!("-{key}{i}")),
        toml::Value::Float(f) => Some(format!("-{key}{f}")),
        toml::Value::Boolean(true) => Some(format!("-{key}")),
        toml::Value::Boolean(false) => Some(String::new()),
        _ => None,
    }
}

impl Experiment {
    /// Load and check an experiment file; its collectors are looked up in
    /// `registry`.
    pub fn load(path: &Path, registry: &Registry) -> Result<Experiment, ExperimentError> {
        let text = gclab_core::input::read_text(path, gclab_core::input::limit::EXPERIMENT, "an experiment file").map_err(|e| ExperimentError { file: path.into(), line: 0, key: String::new(), message: format!("cannot read: {e}") })?;
        Experiment::parse(path, &text, registry)
    }

    /// Check experiment `text` as if read from `path`.
    pub fn parse(path: &Path, text: &str, registry: &Registry) -> Result<Experiment, ExperimentError> {
        let err = |span: Option<Range<usize>>, key: &str, message: String| ExperimentError {
            file: path.into(),
            line: span.map(|s| line_of(text, s)).unwrap_or(0),
            key: key.to_string(),
            message,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            // The key is the one on the line the error points at (a type
            // error's message quotes the value, not the key), under its
            // table; a missing key is named in the message.
            let key = match e.span() {
                Some(span) if !e.message().starts_with("missing field") => key_at(text, span.start),
                _ => e.message().split('`').nth(1).unwrap_or("").to_string(),
            };
            err(e.span().filter(|s| s.start > 0 || !e.message().starts_with("missing field")), &key, plain_toml_message(e.message()))
        })?;
        // An integer key of at least `min`, if given.
        let count = |value: &Option<Spanned<i64>>, key: &str, min: i64| match value {
            Some(v) if *v.get_ref() < min => {
                let bound = if min == 0 { "0 or more".to_string() } else { format!("at least {min}") };
                Err(err(Some(v.span()), key, format!("must be {bound}, not {}", v.get_ref())))
            }
            Some(v) => Ok(Some(*v.get_ref() as u64)),
            None => Ok(None),
        };
        let repetitions = count(&file.repetitions, "repetitions", 1)?.unwrap_or(1) as usize;
        let warmup = count(&file.warmup, "warmup", 0)?.unwrap_or(0) as usize;
        let seed = count(&file.seed, "seed", 0)?;
        let order = match file.order.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
            None | Some(("random", _)) => RunOrder::Random,
            Some(("fixed", _)) => RunOrder::Fixed,
            Some((other, span)) => return Err(err(Some(span), "order", format!("`{other}': expected \"random\" or \"fixed\""))),
        };
        let heap_multiple_of = match file.heap_multiple_of.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
            None | Some(("smallest", _)) => MultipleOf::Smallest,
            Some(("each", _)) => MultipleOf::Each,
            Some((other, span)) => return Err(err(Some(span), "heap_multiple_of", format!("`{other}': expected \"smallest\" (over the collectors) or \"each\" (each collector's own)"))),
        };
        let timeout_secs = match &file.timeout_secs {
            Some(t) if !(*t.get_ref() > 0.0 && *t.get_ref() <= MAX_TIMEOUT_SECS) => {
                return Err(err(Some(t.span()), "timeout_secs", format!("must be a positive number of seconds, at most {MAX_TIMEOUT_SECS} (a week), not {}", t.get_ref())))
            }
            Some(t) => *t.get_ref(),
            None => 600.0,
        };
        if file.collectors.get_ref().is_empty() {
            return Err(err(Some(file.collectors.span()), "collectors", "names no collector".into()));
        }
        let mut collectors: Vec<(String, String)> = Vec::new();
        for c in file.collectors.get_ref() {
            let named: Vec<(String, String)> = if c.get_ref() == "all" {
                let real = registry.entries().iter().filter(|e| !gclab_collectors::is_baseline(e.name));
                real.map(|e| (e.name.to_string(), e.flags.to_string())).collect()
            } else if let Some(e) = registry.by_name(c.get_ref().split(':').next().unwrap_or_default()) {
                // `NAME:key=value,...` keeps its parameters, in one spelling
                // (checked against the collector below).
                vec![(canonical_collector(c.get_ref()).map_err(|e| err(Some(c.span()), "collectors", e))?, e.flags.to_string())]
            } else {
                let known: Vec<&str> = registry.entries().iter().map(|e| e.name).collect();
                return Err(err(Some(c.span()), "collectors", format!("unknown collector `{}' (known: {}, or \"all\")", c.get_ref(), known.join(", "))));
            };
            for n in named {
                if collectors.iter().any(|(have, _)| *have == n.0) {
                    return Err(err(Some(c.span()), "collectors", format!("collector `{}' is listed twice (each collector once: its runs would be the same configuration)", n.0)));
                }
                collectors.push(n);
            }
        }
        let mut peers = Vec::new();
        for p in file.peers.iter().flat_map(|ps| ps.get_ref()) {
            let language = Language::from_name(p.get_ref()).ok_or_else(|| err(Some(p.span()), "peers", format!("unknown peer `{}' (known: {})", p.get_ref(), Language::names())))?;
            if !peers.contains(&language) {
                peers.push(language);
            }
        }
        if let Some(b) = &file.baseline {
            if !collectors.iter().any(|(name, _)| name == b.get_ref()) && !peers.iter().any(|l| l.name() == b.get_ref()) {
                let mut named: Vec<&str> = collectors.iter().map(|(n, _)| n.as_str()).collect();
                named.extend(peers.iter().map(|l| l.name()));
                return Err(err(Some(b.span()), "baseline", format!("`{}' is not one of the experiment's collectors or peers ({})", b.get_ref(), named.join(", "))));
            }
        }
        if file.workloads.get_ref().is_empty() {
            return Err(err(Some(file.workloads.span()), "workloads", "names no workload".into()));
        }
        let mut workloads = Vec::new();
        for w in file.workloads.get_ref() {
            if w.name.get_ref().ends_with(".hs") {
                // A Haskell program that gclab-lang runs (`gclab run FILE.hs`).
                let path = Path::new(w.name.get_ref());
                if !path.is_file() {
                    return Err(err(Some(w.name.span()), "workloads.name", format!("the program `{}' is not a file (a path from the directory the sweep runs in)", w.name.get_ref())));
                }
                workloads.push((w.name.get_ref().clone(), w.args.clone()));
                continue;
            }
            let Some(entry) = gclab_workloads::by_name(w.name.get_ref()) else {
                return Err(err(Some(w.name.span()), "workloads.name", format!("unknown workload `{}' (see `gclab list`)", w.name.get_ref())));
            };
            let given: Vec<String> = w.args.iter().map(|a| a.to_string()).collect();
            let args = entry.parse_args(&given).map_err(|e| err(Some(w.name.span()), "workloads.args", e.to_string()))?;
            for (collector, _) in &collectors {
                let name = collector.split(':').next().unwrap_or_default();
                entry.check_collector(name, !gclab_collectors::is_baseline(name)).map_err(|e| err(Some(w.name.span()), "workloads.name", e.to_string()))?;
            }
            workloads.push((entry.name.to_string(), args));
        }
        let mut grid = Vec::new();
        for (key, values) in &file.grid {
            check_grid_key(key).map_err(|e| err(Some(values.span()), &format!("grid.{key}"), e))?;
            if values.get_ref().is_empty() {
                return Err(err(Some(values.span()), &format!("grid.{key}"), "an empty list of values: a grid key needs at least one".into()));
            }
            let mut texts = Vec::new();
            for v in values.get_ref() {
                let Some(t) = flag_text(key, v.get_ref()) else {
                    return Err(err(Some(v.span()), &format!("grid.{key}"), format!("{} is not a flag value (use a string, number or boolean)", v.get_ref())));
                };
                let multiple = if key == "M" { v.get_ref().as_str().and_then(crate::minheap::parse_multiple) } else { None };
                if let Some(m) = multiple {
                    m.map_err(|e| err(Some(v.span()), "grid.M", e))?;
                } else if !t.is_empty() {
                    // The value alone; combinations are checked run by run below.
                    RtsFlags::default().parse_one(&t).map_err(|e| err(Some(v.span()), &format!("grid.{key}"), e.to_string()))?;
                }
                texts.push(t);
            }
            grid.push((key.clone(), texts));
        }
        if let Some(policies) = &file.heap_policies {
            grid.push((HEAP_POLICY_KEY.to_string(), heap_policy_flags(policies).map_err(|(span, e)| err(Some(span), "heap_policies", e))?));
        }
        let (plot_x, plot_figures) = match &file.plot {
            None => (None, vec!["gc_elapsed".into(), "total_elapsed".into(), "max_live_bytes".into(), "max_mem_in_use_bytes".into()]),
            Some(p) => {
                let swept = file.grid.contains_key(p.x.get_ref()) || (p.x.get_ref() == HEAP_POLICY_KEY && file.heap_policies.is_some());
                if !swept {
                    return Err(err(Some(p.x.span()), "plot.x", format!("`{}' is not a key of [grid]", p.x.get_ref())));
                }
                let figures = match &p.figures {
                    None => vec!["gc_elapsed".into(), "total_elapsed".into(), "max_live_bytes".into(), "max_mem_in_use_bytes".into()],
                    Some(fs) => {
                        let mut out = Vec::new();
                        for f in fs.get_ref() {
                            if crate::figures::figure_named(f.get_ref()).is_none() {
                                return Err(err(Some(f.span()), "plot.figures", format!("unknown figure `{}' (known: {})", f.get_ref(), crate::figures::names().collect::<Vec<_>>().join(", "))));
                            }
                            out.push(f.get_ref().clone());
                        }
                        out
                    }
                };
                (Some(p.x.get_ref().clone()), figures)
            }
        };
        let name = match &file.name {
            Some(n) => check_dir_name(n.get_ref()).map_err(|e| err(Some(n.span()), "name", e))?,
            None => {
                let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                check_dir_name(&stem).map_err(|e| err(None, "name", format!("no `name' given, and the file's name will not do: {e}")))?
            }
        };
        // Multiplied with a check: 128 grid keys of two values each once
        // wrapped the count to 0 (and the sweep aborted on an allocation).
        let points = grid.iter().try_fold(1u128, |n, (_, values)| n.checked_mul(values.len() as u128));
        let run_count = points.and_then(|p| p.checked_mul(workloads.len() as u128 * (collectors.len() + peers.len()) as u128 * (repetitions + warmup) as u128));
        if run_count.is_none_or(|n| n > MAX_RUNS as u128) {
            let points = points.map_or("more than 2^128".to_string(), |p| p.to_string());
            let count = run_count.map_or("more than 2^128".to_string(), |n| n.to_string());
            let why = format!("{} workloads x {} collectors and peers x {points} grid points x {} repetitions and warm-ups", workloads.len(), collectors.len() + peers.len(), repetitions + warmup);
            return Err(err(None, "grid", format!("the experiment has {count} runs ({why}): more than {MAX_RUNS}; shrink the grid or split the experiment")));
        }
        let exp = Experiment {
            name,
            description: file.description.clone().unwrap_or_default(),
            repetitions,
            warmup,
            order,
            seed,
            baseline: file.baseline.as_ref().map(|b| b.get_ref().clone()),
            heap_multiple_of,
            timeout_secs,
            collectors,
            peers,
            workloads,
            grid,
            plot_x,
            plot_figures,
            source: text.to_string(),
        };
        let runs = exp.runs();
        let mut ids = std::collections::HashSet::new();
        for run in &runs {
            if !ids.insert(run.id.as_str()) {
                return Err(err(None, "grid", format!("two runs have the id {}: make the grid's values differ in more than punctuation", run.id)));
            }
        }
        for run in runs {
            // A heap multiple becomes a size at the sweep; any size checks the rest.
            let rts = with_heap_limit(&run.rts, 1 << 30);
            if let Some(language) = exp.peer_of(&run) {
                // GHC judges its own flags (See Note [Peers' flags]).
                crate::peers::flags::invocation(language, &rts, Path::new("stats")).map_err(|e| err(None, "grid", format!("run {}: {e}", run.id)))?;
                continue;
            }
            let mut flags = RtsFlags::from_env_and_args(None, &rts).map_err(|e| err(None, "grid", format!("run {}: {e}", run.id)))?;
            let (entry, params) = registry.select(&mut flags, Some(&run.collector)).map_err(|e| err(None, "grid", format!("run {}: {e}", run.id)))?;
            (entry.make)(params, &flags).map_err(|e| err(None, "collectors", format!("run {}: {e}", run.id)))?;
        }
        Ok(exp)
    }

    /// The most cores one run uses: its capabilities (`-N<n>`; a bare `-N`
    /// takes every core).
    pub fn cores_used(&self) -> usize {
        let all = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let caps = |rts: &[String]| rts.iter().filter_map(|f| f.strip_prefix("-N")).map(|n| if n.is_empty() { all } else { n.parse().unwrap_or(1) }).max().unwrap_or(1);
        self.runs().iter().map(|r| caps(&r.rts)).max().unwrap_or(1)
    }

    /// The peer language of `run`, if it is a peer's run.
    pub fn peer_of(&self, run: &RunSpec) -> Option<Language> {
        Language::from_name(&run.collector).filter(|l| self.peers.contains(l))
    }

    /// The workloads some of the experiment's peers have no program for,
    /// with those peers (their runs are left out).
    pub fn missing_peers(&self) -> Vec<(String, Vec<Language>)> {
        let missing = |w: &str| -> Vec<Language> { self.peers.iter().copied().filter(|&l| !crate::peers::languages_of(w).contains(&l)).collect() };
        self.workloads.iter().map(|(w, _)| (w.clone(), missing(w))).filter(|(_, m)| !m.is_empty()).collect()
    }

}

/// The grid key an experiment's `heap_policies` become: a run's point
/// names its policy under it, as `--heap-policy=NAME[:params]`.
pub const HEAP_POLICY_KEY: &str = "heap-policy";

/// `heap_policies` as the RTS options that choose them, each checked
/// (a fixed heap's size may be a heap multiple, `fixed:size=2x`, which
/// the sweep makes a size) and spelled one way; Err: the bad entry's
/// span and why.
fn heap_policy_flags(policies: &Spanned<Vec<Spanned<String>>>) -> Result<Vec<String>, (Range<usize>, String)> {
    if policies.get_ref().is_empty() {
        return Err((policies.span(), "names no heap policy (leave the key out for GHC's rule alone)".into()));
    }
    let mut flags: Vec<String> = Vec::new();
    for p in policies.get_ref() {
        let (name, params) = p.get_ref().split_once(':').unwrap_or((p.get_ref(), ""));
        let canonical = gclab_core::params::Params::parse_for("heap policy", params).map_err(|e| (p.span(), e))?.canonical();
        let flag = if canonical.is_empty() { format!("--heap-policy={name}") } else { format!("--heap-policy={name}:{canonical}") };
        // A multiple stands for some size: any size checks the rest.
        let sized = with_heap_limit(std::slice::from_ref(&flag), 1 << 30);
        RtsFlags::default().parse(&sized).map_err(|e| (p.span(), e.reason))?;
        if flags.contains(&flag) {
            return Err((p.span(), format!("heap policy `{}' is listed twice (each once: its runs would be the same configuration)", p.get_ref())));
        }
        flags.push(flag);
    }
    Ok(flags)
}

/// `NAME:key=value,...` with its parameters in one spelling (See
/// `Params::canonical`).
fn canonical_collector(text: &str) -> Result<String, String> {
    match text.split_once(':') {
        None => Ok(text.to_string()),
        Some((name, params)) => {
            let p = gclab_collectors::Params::parse(params).map_err(|e| e.to_string())?;
            Ok(format!("{name}:{}", p.canonical()))
        }
    }
}

/// Most runs an experiment may expand to: past this, a grid is more
/// likely a mistake than a plan (10^4 points x 4 collectors x 1,000
/// repetitions once took 17 GB before the first run).
pub const MAX_RUNS: u64 = 100_000;

/// The longest timeout of a run, seconds: a week.
pub const MAX_TIMEOUT_SECS: f64 = 7.0 * 24.0 * 3600.0;

/// The longest name of an experiment or sweep directory: room under a
/// file system's 255 bytes for what a sweep puts beside it.
pub const MAX_NAME: usize = 100;

/// `name` if it will do as a directory name under `results/`.
pub fn check_dir_name(name: &str) -> Result<String, String> {
    if name.is_empty() || name.starts_with('.') || !name.chars().all(plain) {
        return Err(format!("`{name}': must be a directory name under results/: letters, digits, `-', `_' and `.', not starting with `.'"));
    }
    if name.len() > MAX_NAME {
        return Err(format!("`{}...' ({} characters): a directory name under results/ has at most {MAX_NAME}", &name[..20], name.len()));
    }
    Ok(name.to_string())
}

/// A grid key must name an RTS option without its dash (`A`, `qg`,
/// `xn`): the value is appended to it, so a key that only begins like an
/// option (`A1`, or a top-level key such as `collectors` written after
/// `[grid]` by mistake, which read as `-c` with the value `ollectors...`)
/// would make a flag nobody meant.
fn check_grid_key(key: &str) -> Result<(), String> {
    let flag = format!("-{key}");
    match gclab_core::flags::table::lookup(&flag) {
        Some(f) if f.prefix == flag => Ok(()),
        _ if ["collectors", "workloads", "repetitions", "warmup", "peers", "baseline", "timeout_secs", "order", "seed", "name", "description", "heap_multiple_of", "heap_policies"].contains(&key) => {
            Err(format!("`{key}' is a key of the experiment, not of [grid]: move it above the [grid] table (every key after a table header belongs to that table)"))
        }
        _ => Err(format!("`{key}' names no RTS option: a grid key is an option without its dash (A, n, F, G, H, M, qg, qb, qn, N, c, ...; see `gclab run +RTS -?`)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
description = "test"
repetitions = 2
timeout_secs = 5
collectors = ["copying", "two-space"]

[[workloads]]
name = "binary-trees"
args = [6]

[grid]
A = ["8k", "64k"]
c = [false]

[plot]
x = "A"
figures = ["gc_elapsed"]
"#;

    #[test]
    fn expands_the_grid_in_a_fixed_order() {
        let e = Experiment::parse(Path::new("t.toml"), GOOD, &Registry::builtin()).unwrap();
        let runs = e.runs();
        assert_eq!(runs.len(), 2 * 2 * 2);
        assert_eq!(runs[0].rts, vec!["-A8k"]);
        assert_eq!(runs[0].id, "binary-trees_6_copying_-A8koff_r0");
        assert_eq!(runs[5].collector, "two-space");
        assert!(runs[5].rts.contains(&"-G1".to_string()));
        let ids: std::collections::HashSet<_> = runs.iter().map(|r| &r.id).collect();
        assert_eq!(ids.len(), runs.len(), "ids are unique");
        let modes = GOOD.replace("\"two-space\"", "\"mark-sweep:sweep=lazy\", \"mark-sweep:sweep=concurrent\"");
        let e = Experiment::parse(Path::new("t.toml"), &modes, &Registry::builtin()).unwrap();
        let names: Vec<&str> = e.collectors.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["copying", "mark-sweep:sweep=lazy", "mark-sweep:sweep=concurrent"], "a collector's parameters are kept");
        // A collector's own flag that the grid gives already is not repeated.
        let one = GOOD.replace("c = [false]", "G = [1]").replace("\"two-space\"", "\"two-space\", \"immix\"").replace("\"copying\", ", "");
        let e = Experiment::parse(Path::new("t.toml"), &one, &Registry::builtin()).unwrap();
        let runs = e.runs();
        assert_eq!(runs[0].rts, ["-A8k", "-G1"], "two-space's -G1 once");
        assert_eq!(runs.last().unwrap().rts, ["-A64k", "-G1", "-w"], "immix's -w after the grid's flags");
    }

    #[test]
    fn heap_policies_are_an_axis_of_checked_options() {
        let text = GOOD.replace("collectors = [", "heap_policies = [\"ghc\", \"membalancer:smoothing=0.5,c=0.01\", \"fixed:size=2x\"]\ncollectors = [");
        let e = Experiment::parse(Path::new("t.toml"), &text, &Registry::builtin()).unwrap();
        let runs = e.runs();
        assert_eq!(runs.len(), 2 * 2 * 2 * 3);
        assert_eq!(runs[2].point[HEAP_POLICY_KEY], "--heap-policy=membalancer:c=0.01,smoothing=0.5", "one spelling");
        assert!(runs[2].rts.contains(&"--heap-policy=membalancer:c=0.01,smoothing=0.5".to_string()), "{:?}", runs[2].rts);
        assert_eq!(heap_multiple(&runs[4].point[HEAP_POLICY_KEY]), Some(2.0), "a fixed heap's size may be a multiple");
        assert_eq!(with_heap_limit(&runs[4].rts, 8 << 20).iter().filter(|f| f.starts_with("--heap-policy=")).collect::<Vec<_>>(), ["--heap-policy=fixed:size=8192k"]);
        // A peer's runs leave the policies out: one per grid point.
        let with_peer = text.replace("collectors = [\"copying\", \"two-space\"]", "collectors = [\"copying\"]\npeers = [\"ghc\"]");
        let e = Experiment::parse(Path::new("t.toml"), &with_peer, &Registry::builtin()).unwrap();
        let peer_runs: Vec<RunSpec> = e.runs().into_iter().filter(|r| r.collector == "ghc").collect();
        assert_eq!(peer_runs.len(), 2 * 2, "-A values x repetitions, not x policies");
        assert!(peer_runs.iter().all(|r| !r.point.contains_key(HEAP_POLICY_KEY) && !r.rts.iter().any(|f| f.starts_with("--heap-policy"))));
        for (bad, needle) in [
            ("[\"ghc\", \"ghc\"]", "listed twice"),
            ("[\"nope\"]", "unknown heap policy `nope'"),
            ("[\"membalancer:c=0\"]", "parameter c=0"),
            ("[]", "names no heap policy"),
        ] {
            let text = GOOD.replace("collectors = [", &format!("heap_policies = {bad}\ncollectors = ["));
            let e = Experiment::parse(Path::new("t.toml"), &text, &Registry::builtin()).unwrap_err();
            assert!(e.key == "heap_policies" && e.line == 5 && e.message.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn warm_ups_come_first_and_each_round_holds_every_configuration_once() {
        let text = GOOD.replace("repetitions = 2", "repetitions = 3\nwarmup = 1\nseed = 7\nbaseline = \"copying\"");
        let e = Experiment::parse(Path::new("t.toml"), &text, &Registry::builtin()).unwrap();
        assert_eq!((e.warmup, e.seed, e.baseline.as_deref(), e.order), (1, Some(7), Some("copying"), RunOrder::Random));
        let runs = e.runs();
        let configs = 2 * 2; // collectors x -A values
        assert_eq!(runs.len(), configs * (1 + 3));
        assert_eq!(runs.iter().filter(|r| r.warmup).count(), configs);
        assert!(runs.iter().filter(|r| r.warmup).all(|r| r.id.ends_with("_w0")));
        let ordered = run_order(runs.clone(), e.order, 7);
        assert_eq!(ordered, run_order(runs.clone(), e.order, 7), "one seed, one order");
        assert_ne!(ordered, run_order(runs.clone(), e.order, 8), "another seed, another order");
        assert!(ordered[..configs].iter().all(|r| r.warmup), "warm-ups first");
        for (round, chunk) in ordered[configs..].chunks(configs).enumerate() {
            let mut keys: Vec<(String, String)> = chunk.iter().map(|r| (r.collector.clone(), r.rts.join(" "))).collect();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), configs, "round {round} holds every configuration once");
            assert!(chunk.iter().all(|r| r.repetition == round && !r.warmup));
        }
        let mut sorted = ordered.clone();
        sorted.sort_by_key(|r| r.index);
        assert_eq!(sorted, runs, "the order changes no run");
        assert_eq!(run_order(runs.clone(), RunOrder::Fixed, 7), runs);
    }

    fn error(text: &str) -> ExperimentError {
        Experiment::parse(Path::new("bad.toml"), text, &Registry::builtin()).unwrap_err()
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = error(&GOOD.replace("repetitions = 2", "repetitions = 2\nfrobnicate = 1"));
        assert_eq!((e.line, e.key.as_str()), (4, "frobnicate"), "{e}");
        assert!(e.to_string().starts_with("bad.toml:4:"), "{e}");
        let e = error(&GOOD.replace("A = [\"8k\", \"64k\"]", "A = [\"8k\", \"lots\"]"));
        assert_eq!((e.line, e.key.as_str()), (12, "grid.A"), "{e}");
        assert!(e.message.contains("-Alots"), "{e}");
        let e = error(&GOOD.replace("A = [\"8k\", \"64k\"]", "A = []"));
        assert_eq!((e.line, e.key.as_str()), (12, "grid.A"), "{e}");
        assert!(e.message.contains("empty"), "{e}");
        let e = error(&GOOD.replace("\"two-space\"", "\"nope\""));
        assert_eq!((e.line, e.key.as_str()), (5, "collectors"), "{e}");
        let e = error(&GOOD.replace("repetitions = 2", "repetitions = 2\norder = \"sorted\""));
        assert_eq!((e.line, e.key.as_str()), (4, "order"), "{e}");
        let e = error(&GOOD.replace("repetitions = 2", "repetitions = 2\nwarmup = -1"));
        assert_eq!(e.key, "warmup", "{e}");
        let e = error(&GOOD.replace("repetitions = 2", "repetitions = 2\nbaseline = \"mark-sweep\""));
        assert_eq!((e.line, e.key.as_str()), (4, "baseline"), "{e}");
        assert!(e.message.contains("copying, two-space"), "{e}");
        let e = error(&GOOD.replace("\"two-space\"", "\"mark-sweep:sweep=later\""));
        assert_eq!(e.key, "collectors", "{e}");
        assert!(e.message.contains("sweep=later: expected eager, lazy or concurrent"), "{e}");
        let e = error(&GOOD.replace("name = \"binary-trees\"", "name = \"nope\""));
        assert_eq!((e.line, e.key.as_str()), (8, "workloads.name"), "{e}");
        let e = error(&GOOD.replace("repetitions = 2", "repetitions = 0"));
        assert_eq!((e.line, e.key.as_str()), (3, "repetitions"), "{e}");
        let e = error(&GOOD.replace("x = \"A\"", "x = \"F\""));
        assert_eq!(e.key, "plot.x", "{e}");
        let e = error(&GOOD.replace("[\"gc_elapsed\"]", "[\"speed\"]"));
        assert_eq!(e.key, "plot.figures", "{e}");
        let e = error(&GOOD.replace("timeout_secs = 5", "timeout_secs = \"soon\""));
        assert_eq!((e.line, e.key.as_str()), (4, "timeout_secs"), "{e}");
        assert!(e.message.contains("expected a number"), "{e}");
        for value in ["\"three\"", "2.5"] {
            let e = error(&GOOD.replace("repetitions = 2", &format!("repetitions = {value}")));
            assert_eq!((e.line, e.key.as_str()), (3, "repetitions"), "{e}");
            assert!(e.message.contains("expected a whole number"), "{e}");
        }
        let e = error(&GOOD.replace("args = [6]", "args = [-3]"));
        assert_eq!((e.line, e.key.as_str()), (9, "workloads.args"), "{e}");
        let e = error("collectors = [\"copying\"]\n");
        assert_eq!((e.line, e.key.as_str()), (0, "workloads"), "{e}");
        assert_eq!(e.to_string(), "bad.toml: `workloads': missing field `workloads`", "no line 0 shown");
        let e = error(&GOOD.replace("c = [false]", "c = [true]").replace("\"copying\", ", ""));
        assert!(e.message.contains("-c") && e.message.contains("contradicts"), "two-space with -c is refused: {e}");
    }

    #[test]
    fn hostile_values_are_refused_before_any_run() {
        for t in ["inf", "1e20", "1e300", "nan", "-1.0"] {
            let e = error(&GOOD.replace("timeout_secs = 5", &format!("timeout_secs = {t}")));
            assert_eq!((e.line, e.key.as_str()), (4, "timeout_secs"), "{t}: {e}");
        }
        for name in ["/abs/path", "../../x", "..", "", ".hidden", "a b"] {
            let e = error(&format!("name = {name:?}\n{GOOD}"));
            assert_eq!((e.line, e.key.as_str()), (1, "name"), "{name}: {e}");
            assert!(e.message.contains("directory name"), "{e}");
        }
        // 10^4 grid points x 2 collectors x 1,000 repetitions: said and refused.
        let values: Vec<String> = (0..10_000).map(|i| format!("\"{}k\"", 8 + i)).collect();
        let big = GOOD.replace("A = [\"8k\", \"64k\"]", &format!("A = [{}]", values.join(", "))).replace("repetitions = 2", "repetitions = 1000");
        let e = error(&big);
        assert!(e.message.contains("20000000 runs") && e.message.contains("more than 100000"), "{e}");
    }

    #[test]
    fn grid_values_differing_in_punctuation_get_different_ids() {
        let text = GOOD.replace("A = [\"8k\", \"64k\"]", "A = [\"8k\"]").replace("[grid]", "[grid]\nS = [\"x/stats.txt\", \"x_stats.txt\", \"x stats.txt\"]");
        let text = text.replace("x = \"A\"", "x = \"S\"");
        let exp = Experiment::parse(Path::new("ids.toml"), &text, &Registry::builtin());
        // (-S takes a file name; the point is the ids.)
        let exp = exp.unwrap_or_else(|e| panic!("{e}"));
        let ids: std::collections::HashSet<String> = exp.runs().into_iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), exp.runs().len(), "{ids:?}");
        assert!(ids.iter().all(|id| id.chars().all(plain)), "{ids:?}");
    }
}
