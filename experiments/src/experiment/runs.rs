//! The runs an experiment stands for: the grid expanded into a fixed list
//! of runs (`Experiment::runs`), each with a stable id so that sweeps
//! resume and shard, and the order a sweep makes them in (Note [Run
//! order]); heap multiples (`-M2x`) and what they multiply.

use super::Experiment;
use std::collections::BTreeMap;

// Note [Run order]
// ----------------------------------------
// A machine drifts during a sweep (thermal throttling, other load, page
// cache), and a sweep that runs one collector's repetitions back to back
// puts that drift on one collector. So by default (`order = "random"`)
// the runs are made in rounds: first every warm-up run, then round r
// holds repetition r of every configuration, and each round is shuffled
// with a seed that the manifest records (given as `seed`, or chosen at
// the sweep's start; a resumed sweep reuses the recorded one). `order =
// "fixed"` makes them in the file's order: workloads, collectors, grid
// points, repetitions. The order never changes which runs exist or their
// ids, so shards and resumption do not depend on it.

/// What a heap multiple (`M = ["1.5x"]`) multiplies: the minimum heap of
/// the run's workload and flags (See `minheap`) ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultipleOf {
    /// ... the smallest over the experiment's collectors (the usual
    /// methodology: every collector gets the same heap).
    Smallest,
    /// ... the run's own collector's.
    Each,
}

/// The multiple in a run's `-M<m>x` flag, or in a fixed heap policy's
/// size (`--heap-policy=fixed:size=<m>x`), if it has one.
pub fn heap_multiple(flag: &str) -> Option<f64> {
    crate::minheap::parse_multiple(multiple_text(flag)?.1)?.ok()
}

/// A flag that may hold a heap multiple: the text before the multiple,
/// the multiple's text, and the text after it.
fn multiple_text(flag: &str) -> Option<(&str, &str, &str)> {
    if let Some(m) = flag.strip_prefix("-M") {
        return Some(("-M", m, ""));
    }
    let params = flag.strip_prefix("--heap-policy=fixed:")?;
    let at = params.find("size=")? + "size=".len();
    let end = params[at..].find(',').map_or(params.len(), |i| at + i);
    let start = flag.len() - params.len() + at;
    Some((&flag[..start], &params[at..end], &flag[start + (end - at)..]))
}

/// RTS flags `rts` with a heap multiple (`-M2x`, `fixed:size=2x`)
/// replaced by the size `bytes`.
pub fn with_heap_limit(rts: &[String], bytes: u64) -> Vec<String> {
    rts.iter()
        .map(|f| match multiple_text(f) {
            Some((before, _, after)) if heap_multiple(f).is_some() => format!("{before}{}k{after}", bytes / 1024),
            _ => f.clone(),
        })
        .collect()
}

/// How a sweep orders its runs (See Note [Run order]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOrder {
    /// Rounds of repetitions, each shuffled.
    Random,
    /// The file's order.
    Fixed,
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunSpec {
    /// A stable, file-name-safe identifier.
    pub id: String,
    /// The workload.
    pub workload: String,
    /// Its arguments.
    pub args: Vec<usize>,
    /// The collector.
    pub collector: String,
    /// The grid point: flag name -> flag text.
    pub point: BTreeMap<String, String>,
    /// The RTS flags of the run, the collector's own last.
    pub rts: Vec<String>,
    /// 0-based repetition (of the warm-ups, for a warm-up run).
    pub repetition: usize,
    /// A warm-up run: made, recorded, and left out of every figure.
    #[serde(default)]
    pub warmup: bool,
    /// Position in the experiment's run list (reports keep this order).
    #[serde(default)]
    pub index: usize,
}

impl Experiment {
    /// Every run, in a fixed order: workloads, collectors then peers, grid
    /// points (first key slowest), repetitions.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut points: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
        for (key, values) in &self.grid {
            points = points.into_iter().flat_map(|p| values.iter().map(move |v| {
                let mut q = p.clone();
                q.insert(key.clone(), v.clone());
                q
            })).collect();
        }
        // A peer sizes its heap by its own runtime's rule: it has no heap
        // policy, so its runs leave that axis out (and are not repeated
        // for each policy).
        let mut peer_points: Vec<BTreeMap<String, String>> = Vec::new();
        for p in &points {
            let mut q = p.clone();
            q.remove(super::HEAP_POLICY_KEY);
            if !peer_points.contains(&q) {
                peer_points.push(q);
            }
        }
        let mut runs = Vec::new();
        for (workload, args) in &self.workloads {
            // A peer brings no flags of its own.
            let peers = self.peers.iter().filter(|&&l| crate::peers::languages_of(workload).contains(&l)).map(|l| (l.name().to_string(), String::new(), &peer_points));
            let collectors = self.collectors.iter().map(|(c, f)| (c.clone(), f.clone(), &points));
            for (collector, entry_flags, points) in collectors.chain(peers) {
                for point in points {
                    let warmups = (0..self.warmup).map(|r| (r, true));
                    for (repetition, warmup) in warmups.chain((0..self.repetitions).map(|r| (r, false))) {
                        let mut rts: Vec<String> = point.values().filter(|v| !v.is_empty()).cloned().collect();
                        add_own_flags(&mut rts, &entry_flags);
                        let label: Vec<String> = point.values().map(|v| if v.is_empty() { "off".into() } else { v.clone() }).collect();
                        let id = run_id(&format!(
                            "{workload}_{}_{collector}_{}_{}{repetition}",
                            args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("-"),
                            label.join(""),
                            if warmup { "w" } else { "r" }
                        ));
                        let index = runs.len();
                        runs.push(RunSpec { id, workload: workload.clone(), args: args.clone(), collector: collector.clone(), point: point.clone(), rts, repetition, warmup, index });
                    }
                }
            }
        }
        runs
    }
}

/// Add a collector's own flags (`CollectorEntry::flags`) to a run's,
/// less those the run gives already (a grid's `G = [1]` and two-space's
/// `-G1`), so that a run, and the minimum heap a cache keeps for it, is
/// named by one spelling of its flags.
pub fn add_own_flags(rts: &mut Vec<String>, own: &str) {
    for flag in own.split_whitespace() {
        if !rts.iter().any(|r| r == flag) {
            rts.push(flag.to_string());
        }
    }
}

/// `runs` (a subset of an experiment's, in its order) in the order a sweep
/// makes them (See Note [Run order]).
pub fn run_order(runs: Vec<RunSpec>, order: RunOrder, seed: u64) -> Vec<RunSpec> {
    if order == RunOrder::Fixed {
        return runs;
    }
    let mut rounds: BTreeMap<(bool, usize), Vec<RunSpec>> = BTreeMap::new();
    for run in runs {
        // Warm-ups first (false sorts before true), then round by round.
        rounds.entry((!run.warmup, run.repetition)).or_default().push(run);
    }
    let mut rng = SplitMix64(seed);
    let mut ordered = Vec::new();
    for (_, mut round) in rounds {
        for i in (1..round.len()).rev() {
            round.swap(i, rng.below(i + 1));
        }
        ordered.extend(round);
    }
    ordered
}

/// A small, fully specified random generator (Steele, Lea and Flood's
/// SplitMix64), so that a recorded seed gives the same order with any
/// build of gclab.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection so that no value is favoured.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// Characters a run id or directory name keeps as they are.
pub(super) fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'
}

/// A run's id: its description with every other character made `_`, and
/// where that lost something, a hash of the description (FNV-1a), so that
/// grid values differing only there (`x/y`, `x_y`, `x y`) still give
/// different ids (one record each in `runs/`).
fn run_id(description: &str) -> String {
    let id: String = description.chars().map(|c| if plain(c) { c } else { '_' }).collect();
    if description.chars().all(plain) {
        return id;
    }
    let hash = gclab_workloads::fnv1a(gclab_workloads::FNV_OFFSET, description.as_bytes());
    format!("{id}-{:08x}", hash as u32)
}

