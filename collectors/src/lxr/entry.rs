//! `lxr`'s registry entry: its parameters, read into a collector.

use super::{Decrements, Lxr};
use crate::decrement_thread::DecrementThread;
use crate::immix::Immix;
use crate::large_counts::LargeCounts;
use crate::lazy_lines::LazyLines;
use crate::offered_holes::OfferedHoles;
use crate::CollectorEntry;
use gclab_core::side_metadata::SideTables;
use std::collections::HashMap;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "lxr",
    description: "LXR-style deferred, coalescing reference counting over an Immix space (counts of bits=2|4|8 bits in side metadata, a field-logging barrier, RC pauses lowering at most decrements=N counts, default 200000; dthreads=N threads lowering counts beside the mutators, default 2; a backup trace for cycles beside the mutators (trace=concurrent, the default) or in a stop-the-world GC (trace=pause); holes=PERCENT of -A offered to the mutators as the space's holes after each pause, default 0; line, defrag, headroom as immix, defrag=never also keeping the pause after each backup trace from evacuating sparse blocks)",
    flags: "-G2",
    make: |mut params, flags| {
        if flags.generations != 2 {
            return Err(format!("the lxr collector has two generations (every survivor of an RC pause is old and counted), not -G{}", flags.generations));
        }
        let bits = match params.take("bits").as_deref() {
            None => 4,
            Some(v) => match v.parse::<u32>() {
                Ok(b @ (2 | 4 | 8)) => b,
                _ => return Err(format!("bits must be 2, 4 or 8 (the bits of each count), not `{v}'")),
            },
        };
        let decrements = counts(params.take("decrements"), "decrements")?.unwrap_or(DECREMENTS_PER_PAUSE);
        let batch = counts(params.take("batch"), "batch")?.unwrap_or(DECREMENTS_PER_LOOK);
        let dthreads = decrement_threads(params.take("dthreads"))?;
        let age = params.take_switch("age", true, "survivors of a pause are old at once", "they stay young until the next")?;
        let concurrent = params.take_switch("concurrent", true, "decrements in the pauses", "decrements on a thread beside the mutators")?;
        let help = params.take_switch("help", false, "the thread alone lowers counts", "a pause lowers some when the thread fell behind")?;
        let concurrent_trace = match params.take("trace").as_deref() {
            None | Some("concurrent") => true,
            Some("pause") => false,
            Some(v) => return Err(format!("trace must be concurrent (a backup trace beside the mutators) or pause (in a stop-the-world GC), not `{v}'")),
        };
        let holes = params.take_percent("holes", " of -A", 0..=100, HOLES_PERCENT)?;
        let immix = Immix::from_params(params, "lxr", &["bits", "decrements", "batch", "dthreads", "age", "concurrent", "help", "trace", "holes"])?;
        let faults = Faults::from_env();
        let decrements = Decrements { concurrent, per_pause: decrements, help, behind: false, waiting: Vec::new(), thread: DecrementThread::new(batch, dthreads), handed: None, unreported: None };
        Ok(Box::new(Lxr { immix, tables: SideTables::with_counts(bits), roots: Vec::new(), decrements, stacks: HashMap::new(), large: LargeCounts::default(), lines: LazyLines::default(), holes: OfferedHoles::outside_holes(holes), underflows: 0, events: Vec::new(), synced_logs: Vec::new(), marking: None, concurrent_trace, age, faults, evacuation: None }))
    },
};

/// Test-only faults and schedules, read from the environment when the
/// collector is made: each takes a part of the design away, or changes
/// its timing, so that a test can see the sanity checker catch the fault.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Faults {
    /// `GCLAB_LXR_FAULT=lose-increments`: the new values of the fields
    /// the mutators wrote are not counted (a barrier that logs only old
    /// values, and old objects' fields that point at young ones
    /// forgotten), so counts fall below their references and live objects
    /// are freed.
    pub lose_increments: bool,
    /// `GCLAB_LXR_FAULT=lose-deletions`: the snapshot values the mutators
    /// overwrite while a backup trace marks are not handed to the marker
    /// (the deletion barrier taken away), so an object moved from an
    /// unscanned field to a new object is swept while reachable; the
    /// snapshot check at the marking's end (`-DS`) must catch it.
    pub lose_deletions: bool,
    /// `GCLAB_LXR_FAULT=net-shadows`: a backup trace's marker is handed
    /// only the big objects' elements that differ from their shadows, so
    /// an element written and written back within an epoch loses its
    /// snapshot value (See Note [Every value a written card held] in
    /// `lxr::concurrent_trace`).
    pub net_shadows: bool,
    /// `GCLAB_LXR_FAULT=lose-remembered`: the evacuating pause after a
    /// backup trace is given none of the slots recorded into the blocks
    /// it moves (See Note [Evacuating in an RC pause] in
    /// `lxr::evacuation`), so old objects are left pointing into freed
    /// blocks; the sanity checker after that pause must catch it.
    pub lose_remembered: bool,
    /// `GCLAB_LXR_HOLD_MARKER`, a schedule, not a fault: when the marker
    /// of a backup trace begins its work (See `HoldMarker`).
    pub hold_marker: HoldMarker,
}

/// When a backup trace's marker begins its work (a test's schedule).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum HoldMarker {
    /// At once, as it always does outside tests.
    #[default]
    No,
    /// `GCLAB_LXR_HOLD_MARKER=1`: at the RC pause after the one that began
    /// it, so every deletion of that first epoch reaches it through the
    /// barrier alone (which makes `lose-deletions` fail every time, where
    /// a marker that raced the mutator often got there first).
    UntilPause,
    /// `GCLAB_LXR_HOLD_MARKER=stop`: at the mutators' first stop of the
    /// world between GCs (`Mutator::check_heap`), which returns only once
    /// the marker has run out of work, so that a test decides what the
    /// marker reads in the middle of an epoch.
    UntilStop,
}

impl Faults {
    /// The faults and schedule the environment asks for.
    fn from_env() -> Faults {
        let fault = std::env::var("GCLAB_LXR_FAULT").unwrap_or_default();
        Faults {
            lose_increments: fault == "lose-increments",
            lose_deletions: fault == "lose-deletions",
            net_shadows: fault == "net-shadows",
            lose_remembered: fault == "lose-remembered",
            hold_marker: match std::env::var("GCLAB_LXR_HOLD_MARKER").as_deref() {
                Ok("1") => HoldMarker::UntilPause,
                Ok("stop") => HoldMarker::UntilStop,
                _ => HoldMarker::No,
            },
        }
    }
}

/// The share of `-A` offered as holes after a pause, by default: none
/// (See Note [Young objects in holes] in `lxr::young_in_holes` for why).
const HOLES_PERCENT: usize = 0;

/// How many counts a pause lowers at most, by default (See Note
/// [Decrements wait] in `ref_count`): about 2 ms of work.
const DECREMENTS_PER_PAUSE: u64 = 200_000;

/// How many counts the decrement thread lowers between two looks at
/// its stop flag, by default (See Note [Decrements beside the mutators]
/// in `decrement_thread`): some 40 microseconds.
const DECREMENTS_PER_LOOK: u64 = 4096;

/// How many threads lower the counts beside the mutators, by default: two,
/// which kept binary-trees 20's decrements up where one fell behind, on
/// sixteen cores and on two (docs/lxr.md, "Decrements on several
/// threads").
const DECREMENT_THREADS: usize = 2;

/// `dthreads=N`: how many threads lower the counts beside the mutators
/// (See Note [Decrements on several threads] in `decrement_thread`).
fn decrement_threads(value: Option<String>) -> Result<usize, String> {
    let Some(v) = value else { return Ok(DECREMENT_THREADS) };
    v.parse::<usize>().ok().filter(|n| (1..=256).contains(n)).ok_or(format!("dthreads must be a number of decrement threads from 1 to 256, not `{v}'"))
}

/// A parameter that counts decrements: a number above 0, if given.
fn counts(value: Option<String>, key: &str) -> Result<Option<u64>, String> {
    value.map(|v| v.parse::<u64>().ok().filter(|&n| n > 0).ok_or(format!("{key} must be a number of counts above 0, not `{v}'"))).transpose()
}
