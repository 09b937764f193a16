//! Conformance: what every collector must do, checked the same way for
//! each (mmtk-core's habit of running its tests under every plan).
//!
//! `check_collector` runs every workload under a list of RTS settings with
//! the sanity checker after every GC (`-DS`), and compares each checksum
//! with the one the `copying` collector gets under default settings. Stress
//! settings (`--gc-every=<n>`, a GC every n allocations) use each workload's tiny
//! size, the others its small size. The collector's own required flags
//! (`CollectorEntry::flags`) are added last, so they win.

use crate::run_workload;
use gclab_collectors::{CollectorEntry, Params};
use gclab_workloads::{Workload, WORKLOADS};
use gclab_core::flags::SanityMode;
use std::collections::HashMap;

/// Settings every collector is checked under: the smallest allocation area
/// GHC allows, several generation counts and old-generation sizes, and a
/// GC at every (or every 7th) allocation.
pub const STRESS_SETTINGS: &[&str] = &[
    "-A8k -DS",
    "-A8k -G3 --sanity=minor:4",
    "-A8k -G3 -DS",
    "-A8k -G2 -O8k -F1 -DS",
    "--gc-every=1 -A8k -DS",
    "--gc-every=7 -A8k -G3 -O8k -DS",
];

/// The stress settings with one generation, for the collectors that also
/// collect the whole heap at every GC (`immix` and `mark-sweep` with
/// `-G1`): a GC at every (or every 7th) allocation, a tiny `-F`, and
/// three GC threads.
pub const ONE_GENERATION_SETTINGS: &[&str] = &["-G1 -A8k -DS", "--gc-every=1 -G1 -A8k -DS", "--gc-every=7 -G1 -A8k -F1 -DS", "-N3 -qn3 -G1 -A8k -qb0 -DS"];

/// A collector as a run chooses it: its entry and its parameters
/// (`mark-sweep:order=breadth`), so that a check can run a collector
/// with parameters without an entry of its own. Every check takes an
/// entry alone as well (its defaults).
#[derive(Debug, Clone, Copy)]
pub struct Chosen<'a> {
    pub entry: &'a CollectorEntry,
    /// `key=value,key=value`, empty for the defaults.
    pub params: &'a str,
}

impl<'a> From<&'a CollectorEntry> for Chosen<'a> {
    fn from(entry: &'a CollectorEntry) -> Chosen<'a> {
        Chosen { entry, params: "" }
    }
}

impl Chosen<'_> {
    /// Its name as `--collector` takes it.
    pub fn name(&self) -> String {
        match self.params {
            "" => self.entry.name.to_string(),
            params => format!("{}:{params}", self.entry.name),
        }
    }

    /// A fresh instance for a run with `flags`.
    pub fn make(&self, flags: &gclab_core::RtsFlags) -> Result<Box<dyn gclab_core::Collector>, String> {
        (self.entry.make)(Params::parse(self.params)?, flags)
    }
}

/// The built-in collector `spec` names, `NAME[:key=value,...]`, for a
/// check; panics if there is none of that name.
pub fn chosen(spec: &str) -> Chosen<'_> {
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let entry = gclab_collectors::by_name(name).unwrap_or_else(|| panic!("no built-in collector is called {name}"));
    Chosen { entry, params }
}

/// What a clean check did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Conformance {
    /// Runs made.
    pub runs: usize,
    /// GCs, each followed by a sanity check.
    pub gcs: u64,
}

/// A GC or sync that went unchecked, or a minor mode (See Note [The minor
/// sanity check] in `gclab_core::sanity`) that checked only whole heaps, is
/// an error: the setting would not test what it says.
fn check_sanity_counts(w: &Workload, collector: Chosen<'_>, rts: &str, r: &crate::RunOutcome) -> Result<(), String> {
    let mode = crate::flags(rts).map_err(|e| format!("+RTS {rts}: {e}"))?.sanity;
    let what = || format!("{} +RTS {rts} ({})", w.name, collector.name());
    if mode.is_on() && r.sanity_checks != r.stats.gcs + r.stats.collector_syncs {
        return Err(format!("{}: {} GCs and {} syncs but {} sanity checks", what(), r.stats.gcs, r.stats.collector_syncs, r.sanity_checks));
    }
    let minor_gcs = r.stats.gcs - r.stats.major_gcs;
    if matches!(mode, SanityMode::Minor { full_every } if full_every > 1) && minor_gcs > 1 && r.sanity_whole_checks == r.sanity_checks {
        return Err(format!("{}: {minor_gcs} minor GCs but every sanity check was whole", what()));
    }
    Ok(())
}

/// Run `w` with `args` under `rts` (plus nothing else) with `collector`
/// (an entry, or `chosen("NAME:PARAMS")`).
pub fn run_with<'a>(collector: impl Into<Chosen<'a>>, w: &Workload, args: &[usize], rts: &str) -> Result<crate::RunOutcome, String> {
    let chosen: Chosen<'a> = collector.into();
    let flags = crate::flags(rts).map_err(|e| format!("+RTS {rts}: {e}"))?;
    let made = chosen.make(&flags).map_err(|e| format!("+RTS {rts} ({}): {e}", chosen.name()))?;
    run_workload(w, args, flags, made, &mut std::io::sink()).map_err(|e| format!("{} {args:?} +RTS {rts} ({}): {e}", w.name, chosen.name()))
}

/// Check `collector` on every workload under every setting. See the
/// module doc.
pub fn check_collector<'a>(collector: impl Into<Chosen<'a>>, settings: &[&str]) -> Result<Conformance, String> {
    let chosen: Chosen<'a> = collector.into();
    let baseline_collector = gclab_collectors::by_name("copying").expect("copying is built in");
    let mut baselines: HashMap<(&str, Vec<usize>), u64> = HashMap::new();
    let mut result = Conformance::default();
    for w in WORKLOADS {
        for setting in settings {
            let args = if setting.contains("--gc-every") { w.tiny } else { w.small };
            let key = (w.name, args.to_vec());
            if !baselines.contains_key(&key) {
                baselines.insert(key.clone(), run_with(baseline_collector, w, args, "")?.checksum);
            }
            let rts = format!("{setting} {}", chosen.entry.flags);
            let r = run_with(chosen, w, args, &rts)?;
            if r.checksum != baselines[&key] {
                return Err(format!("{} {args:?} +RTS {rts} ({}): checksum {:016x}, copying's is {:016x}", w.name, chosen.name(), r.checksum, baselines[&key]));
            }
            check_sanity_counts(w, chosen, &rts, &r)?;
            if r.stats.gcs == 0 {
                return Err(format!("{} +RTS {rts} ({}): no GC happened; the setting does not stress anything", w.name, chosen.name()));
            }
            result.runs += 1;
            result.gcs += r.stats.gcs;
        }
    }
    Ok(result)
}

/// `check_collector` as a test asks it: panics with what failed (after
/// `context`, such as "round 2: "), and asserts that every workload ran
/// under every setting. Returns what the check did.
pub fn assert_conforms<'a>(collector: impl Into<Chosen<'a>>, settings: &[&str], context: &str) -> Conformance {
    let chosen: Chosen<'a> = collector.into();
    let c = check_collector(chosen, settings).unwrap_or_else(|e| panic!("{context}{e}"));
    assert_eq!(c.runs, WORKLOADS.len() * settings.len(), "{context}{}: a workload or a setting was not run", chosen.name());
    c
}
