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
use gclab_collectors::CollectorEntry;
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
fn check_sanity_counts(w: &Workload, entry: &CollectorEntry, rts: &str, r: &crate::RunOutcome) -> Result<(), String> {
    let mode = crate::flags(rts).map_err(|e| format!("+RTS {rts}: {e}"))?.sanity;
    let what = || format!("{} +RTS {rts} ({})", w.name, entry.name);
    if mode.is_on() && r.sanity_checks != r.stats.gcs + r.stats.collector_syncs {
        return Err(format!("{}: {} GCs and {} syncs but {} sanity checks", what(), r.stats.gcs, r.stats.collector_syncs, r.sanity_checks));
    }
    let minor_gcs = r.stats.gcs - r.stats.major_gcs;
    if matches!(mode, SanityMode::Minor { full_every } if full_every > 1) && minor_gcs > 1 && r.sanity_whole_checks == r.sanity_checks {
        return Err(format!("{}: {minor_gcs} minor GCs but every sanity check was whole", what()));
    }
    Ok(())
}

/// Run `w` with `args` under `rts` (plus nothing else) with `entry`.
pub fn run_with(entry: &CollectorEntry, w: &Workload, args: &[usize], rts: &str) -> Result<crate::RunOutcome, String> {
    let flags = crate::flags(rts).map_err(|e| format!("+RTS {rts}: {e}"))?;
    let collector = entry.make(&flags).map_err(|e| format!("+RTS {rts}: {e}"))?;
    run_workload(w, args, flags, collector, &mut std::io::sink()).map_err(|e| format!("{} {args:?} +RTS {rts} ({}): {e}", w.name, entry.name))
}

/// Check `entry` on every workload under every setting. See the module doc.
pub fn check_collector(entry: &CollectorEntry, settings: &[&str]) -> Result<Conformance, String> {
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
            let rts = format!("{setting} {}", entry.flags);
            let r = run_with(entry, w, args, &rts)?;
            if r.checksum != baselines[&key] {
                return Err(format!("{} {args:?} +RTS {rts} ({}): checksum {:016x}, copying's is {:016x}", w.name, entry.name, r.checksum, baselines[&key]));
            }
            check_sanity_counts(w, entry, &rts, &r)?;
            if r.stats.gcs == 0 {
                return Err(format!("{} +RTS {rts} ({}): no GC happened; the setting does not stress anything", w.name, entry.name));
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
pub fn assert_conforms(entry: &CollectorEntry, settings: &[&str], context: &str) -> Conformance {
    let c = check_collector(entry, settings).unwrap_or_else(|e| panic!("{context}{e}"));
    assert_eq!(c.runs, WORKLOADS.len() * settings.len(), "{context}{}: a workload or a setting was not run", entry.name);
    c
}
