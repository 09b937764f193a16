//! gclab-collectors: the collectors, the pieces they share, and the registry.
//!
//! Shared pieces, one mechanism each, in layers from the bottom up (each
//! imports only from layers below it):
//!
//! - small tools: `megablock_set` (is an address in these megablocks?),
//!   `copy_order` (breadth- or depth-first copying),
//!   `popcount` (hot loops on the processor's popcount instruction),
//!   `reach` (how far each compacted block's objects point),
//!   `prefetch_ring` (objects waiting to be scanned while what they point
//!   to is prefetched), `lend_core` (a waiting thread hands its core to
//!   the thread it waits for);
//! - the GC threads and their work: `mark` (mark bitmaps),
//!   `work_stealing` (the load-balancing and termination protocol),
//!   `gc_workers` (the GC thread pool and its watchdog), `space` (where a
//!   generation's survivors go, when not bump blocks), `gc_thread` (a GC
//!   thread's to-space and evacuation state), `offer_point` (when a
//!   scanning thread offers work to idle ones);
//! - moving one object and scanning: `evacuate` (copy, relink or mark one
//!   object), `selector` (selector thunks the GC evaluates), `scavenge`
//!   (Cheney scan and the scan stack),
//!   `parallel_scavenge` (scanning and stealing until every thread is
//!   done);
//! - a collection's parts: `roots` (root slots and mutable lists),
//!   `weak_ptrs` (judging weak pointers), `from_space` (preparing and
//!   freeing from-space), `trace` (the tracing driver, on one GC thread or
//!   several), `space_trace` (tracing into a space), `partial` (the young
//!   generations with an increment of an older one);
//! - spaces and what collectors do beside tracing: `compaction_plan`
//!   (where a compaction's blocks go, and which stay), `slide` (sliding
//!   compaction), `cell_space` (size-class cells), `size_classes` (a cell
//!   space's cell sizes), `sweep` (when and by
//!   whom a cell space is swept), `line_space` (line-marked blocks whose
//!   holes are bump-allocated), `offered_holes` (a line space's holes
//!   handed to the mutators, with their sticky marks), `defrag` (which
//!   blocks of a line space to evacuate), `concurrent_mark` (a marker
//!   thread beside the mutators), `snapshot_check` (the sanity check of a finished snapshot marking);
//! - reference counting (`lxr`'s): `ref_count` (deferred, coalescing
//!   counts in side metadata), `parallel_increments` (a pause's
//!   increments on the GC threads), `rc_aging` (young objects that live
//!   across a pause), `large_counts` (counted large objects),
//!   `lazy_lines` (lines reclaimed lazily), `decrement_thread`
//!   (decrements beside the mutators);
//! - the collectors: `copying`, `compacting`, `two_space`, `parallel`,
//!   `mark_sweep`, `nonmoving`, `immix`, `sticky_immix`, `lxr`; the `nogc`
//!   baseline.
//!
//! To add a collector: write one module with a type implementing
//! `gclab_core::Collector` and an `ENTRY`, and add that entry to
//! `COLLECTORS` below. Nothing in core changes. `docs/adding-a-collector.md`
//! walks through it; a collector kept outside this crate is added to a
//! `Registry`, which `gclab::cli::main_with` runs.

#![warn(missing_docs)]

pub mod cell_space;
pub mod claim;
pub mod compacting;
pub mod compaction_plan;
pub mod concurrent_copying;
pub mod concurrent_mark;
pub mod copier;
pub mod copiers;
pub mod copy_order;
pub mod copy_out;
pub mod copying;
pub mod decrement_thread;
pub mod defrag;
pub mod evacuate;
pub mod evacuating;
pub mod from_space;
pub mod gc_thread;
pub mod gc_workers;
pub mod immix;
pub mod large_counts;
pub mod lend_core;
pub mod line_alloc;
pub mod line_space;
pub mod line_sweeper;
pub mod lazy_lines;
pub mod lent_runs;
pub mod lxr;
pub mod mark;
pub mod mark_sweep;
pub mod megablock_set;
pub mod nogc;
pub mod nonmoving;
pub mod offer_point;
pub mod offered_holes;
pub mod parallel;
pub mod parallel_increments;
pub mod parallel_scavenge;
pub mod parking;
pub mod partial;
pub mod popcount;
pub mod prefetch_ring;
pub mod rc_aging;
pub mod reach;
pub mod ref_count;
pub mod roots;
pub mod scavenge;
pub mod selector;
pub mod size_classes;
pub mod slide;
pub mod snapshot_check;
pub mod space;
pub mod space_trace;
pub mod sticky_immix;
pub mod sweep;
pub mod trace;
pub mod two_space;
pub mod weak_ptrs;
pub mod work_stealing;

use gclab_core::{Collector, RtsFlags};
use std::fmt;

/// How a registry entry makes its collector (See `CollectorEntry::make`).
pub type MakeCollector = fn(Params, &RtsFlags) -> Result<Box<dyn Collector>, String>;

/// A registered collector: its name, a line about it, and how to make one.
#[derive(Debug, Clone, Copy)]
pub struct CollectorEntry {
    /// The name `--collector` takes.
    pub name: &'static str,
    /// One line for `gclab list` and `+RTS -?`.
    pub description: &'static str,
    /// RTS flags a run of this collector needs (`-G1` for two-space, `-c`
    /// for compacting): `gclab run`, tests and sweeps add them to every
    /// setting that does not say otherwise.
    pub flags: &'static str,
    /// A fresh instance with the given parameters (See `Params`) for a
    /// run with `flags`; an unknown or bad parameter, or flags the
    /// collector cannot run with, is an error that names it.
    pub make: MakeCollector,
}

impl CollectorEntry {
    /// A fresh instance with no parameters, for a run with `flags`.
    pub fn make(&self, flags: &RtsFlags) -> Result<Box<dyn Collector>, String> {
        (self.make)(Params::default(), flags)
    }
}

/// A collector's parameters: `--collector NAME:key=value,key=value`
/// (core's parser, which heap policies share).
pub use gclab_core::params::Params;

/// Every built-in collector, by name. One line per collector.
#[cfg(not(feature = "access-hooks"))]
pub const COLLECTORS: &[CollectorEntry] = &[copying::ENTRY, compacting::ENTRY, two_space::ENTRY, parallel::ENTRY, mark_sweep::ENTRY, nonmoving::ENTRY, immix::ENTRY, sticky_immix::ENTRY, lxr::ENTRY];

/// Every built-in collector, by name, with those that need the read
/// barrier (core's Note [Access hooks]), which this build has.
#[cfg(feature = "access-hooks")]
pub const COLLECTORS: &[CollectorEntry] = &[copying::ENTRY, compacting::ENTRY, two_space::ENTRY, parallel::ENTRY, mark_sweep::ENTRY, nonmoving::ENTRY, immix::ENTRY, sticky_immix::ENTRY, lxr::ENTRY, concurrent_copying::ENTRY];

/// Collectors that need the read barrier, which a build without
/// gclab-core's `access-hooks` feature lacks: named, so that asking for
/// one says how to get it.
pub const NEED_READ_BARRIER: &[&str] = &["concurrent-copying"];

/// Built-in baselines: registered and runnable by name, but not
/// collectors (nothing is ever freed), so not in `COLLECTORS`, which the
/// conformance tests and an experiment's `"all"` take.
pub const BASELINES: &[CollectorEntry] = &[nogc::ENTRY];

/// Is `name` a baseline rather than a collector?
pub fn is_baseline(name: &str) -> bool {
    BASELINES.iter().any(|b| b.name == name)
}

/// The collectors a program can choose from: the built-in ones, plus any
/// registered at run time (a research collector in its own crate, or one
/// defined in a test).
#[derive(Debug, Clone)]
pub struct Registry {
    entries: Vec<CollectorEntry>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::builtin()
    }
}

impl Registry {
    /// The built-in collectors.
    pub fn builtin() -> Registry {
        Registry { entries: COLLECTORS.iter().chain(BASELINES).copied().collect() }
    }

    /// Add a collector; its name must be new.
    pub fn register(&mut self, entry: CollectorEntry) -> Result<(), SelectError> {
        if self.by_name(entry.name).is_some() {
            return Err(SelectError(format!("a collector named `{}' is already registered", entry.name)));
        }
        self.entries.push(entry);
        Ok(())
    }

    /// Every registered collector.
    pub fn entries(&self) -> &[CollectorEntry] {
        &self.entries
    }

    /// The collector called `name`.
    pub fn by_name(&self, name: &str) -> Option<&CollectorEntry> {
        self.entries.iter().find(|c| c.name == name)
    }

    /// Choose the collector for a run: `explicit` (from `--collector`,
    /// `NAME` or `NAME:key=value,...`) if given, else what GHC's flags
    /// select; then apply the collector's own flags (`CollectorEntry::flags`)
    /// to `flags`, so that `--collector two-space` implies `-G1` and
    /// `--collector compacting` implies `-c`. Only an explicit
    /// contradiction is an error (`--collector two-space` with `-G3`;
    /// `--collector copying` with `-c`), and it names both sides.
    pub fn select(&self, flags: &mut RtsFlags, explicit: Option<&str>) -> Result<(&CollectorEntry, Params), SelectError> {
        let (name, params) = match explicit {
            Some(e) => {
                let (name, params) = e.split_once(':').unwrap_or((e, ""));
                (Some(name), Params::parse(params).map_err(SelectError)?)
            }
            None => (None, Params::default()),
        };
        let entry = self.choose(flags, name)?;
        for word in entry.flags.split_whitespace() {
            if word.starts_with("-G") && flags.generations_given && word != format!("-G{}", flags.generations) {
                return Err(SelectError(format!("--collector {} runs with `{word}', which contradicts the RTS option `-G{}'", entry.name, flags.generations)));
            }
            flags.parse_one(word).map_err(|e| SelectError(format!("the {} collector's own flags: {e}", entry.name)))?;
        }
        flags.validate().map_err(|e| match (explicit, entry.flags.is_empty()) {
            // The user did not write the collector's flags: say who did.
            (Some(_), false) => SelectError(format!("--collector {} runs with `{}': {e}", entry.name, entry.flags)),
            _ => SelectError(e.to_string()),
        })?;
        Ok((entry, params))
    }

    /// The entry `name` names, or the one the flags imply.
    fn choose(&self, flags: &RtsFlags, explicit: Option<&str>) -> Result<&CollectorEntry, SelectError> {
        let (implied, by_flag) = implied_by_flags(flags);
        let name = match (explicit, by_flag) {
            (Some(e), Some(flag)) if e != implied => {
                return Err(SelectError(format!("--collector {e} contradicts the RTS option `{flag}', which selects the {implied} collector")));
            }
            (Some(e), _) => e,
            (None, _) => implied,
        };
        self.by_name(name).ok_or_else(|| match by_flag {
            Some(flag) if explicit.is_none() => {
                SelectError(format!("bad RTS option `{flag}': the {name} collector is not available in this build"))
            }
            _ if NEED_READ_BARRIER.contains(&name) => SelectError(format!(
                "the {name} collector needs the read barrier, which this build lacks: build gclab with `cargo build --release --features access-hooks`"
            )),
            _ => SelectError(format!(
                "unknown collector `{name}' (known: {})",
                self.entries.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
            )),
        })
    }
}

/// The built-in collector called `name`.
pub fn by_name(name: &str) -> Option<&'static CollectorEntry> {
    COLLECTORS.iter().chain(BASELINES).find(|c| c.name == name)
}

/// (name, description) of every built-in collector, for usage texts.
pub fn descriptions() -> Vec<(&'static str, &'static str)> {
    COLLECTORS.iter().chain(BASELINES).map(|c| (c.name, c.description)).collect()
}

/// The collector a run gets cannot be decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectError(pub String);

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectError {}

// Note [One generation]
// ----------------------------------------
// In GHC, `-G1` only sets the number of generations: the same copying GC
// then copies the whole heap at every collection, which is gclab's
// `two-space`. So `-G1` alone selects two-space, but, like `-N` and
// `-M`, it is only a default: a collector named with `--collector` (or
// by `-w`) runs with one generation if it can. With one generation
// there is no young generation to promote from, only the allocation
// area, so every GC is a major GC of the whole heap:
//
// - `immix` (`-w -G1`) is whole-heap Immix, the configuration of the
//   Immix paper's comparison with mark-sweep, mark-compact and
//   semi-space: every GC marks the line space in place, evacuates its
//   most fragmented blocks and copies the allocation area's survivors
//   into its holes;
// - `mark-sweep` is whole-heap mark-sweep: the survivors go into cells;
// - `compacting` (`-c -G1`) is whole-heap mark-compact: `-c` compacts
//   the oldest generation at every major GC, and with one generation
//   that is every GC, which marks the generation in place, slides it and
//   copies the allocation area's survivors after it. GHC 9.0 instead
//   warns that compaction is incompatible with `-G1` and copies; gclab
//   had refused the pair. This completes the Immix paper's comparison:
//   whole-heap Immix against mark-sweep, mark-compact and semi-space
//   (`two-space`);
// - `copying` and `parallel` copy everything, as two-space does.
//
// A collector that needs a young generation refuses `-G1` and says why
// (nonmoving's refusal is GHC's; sticky-immix, lxr
// and concurrent-copying keep their survivors in an older generation
// than the one the mutators allocate in; nogc keeps everything in the
// oldest of two). The allocation area is
// sized by the policy's one-generation rule, `-F` times the live data,
// whatever the collector (See `two_space`).

/// The built-in collector GHC's flags select, and the flag that selects it.
fn implied_by_flags(flags: &RtsFlags) -> (&'static str, Option<&'static str>) {
    if flags.nonmoving {
        // `-xn` with -G1 or -c is refused when the flags are validated.
        return ("nonmoving", Some("-xn"));
    }
    if flags.mark_region {
        // `-w` with -c or -xn is refused when the flags are validated;
        // with -G1 it is whole-heap Immix (See Note [One generation]).
        return ("immix", Some("-w"));
    }
    if flags.compact {
        return ("compacting", Some("-c"));
    }
    if flags.generations == 1 {
        // Only a default: a named collector runs with one generation if it
        // can (immix and mark-sweep collect the whole heap then), and
        // refuses with a reason if it cannot (See Note [One generation]).
        return ("two-space", None);
    }
    if flags.capabilities > 1 {
        // Several capabilities: GHC's parallel GC, by default only (the
        // sequential collectors run with several capabilities too).
        return ("parallel", None);
    }
    if flags.max_heap_blocks > 0 {
        // With -M, GHC compacts automatically past -c<n> (default 30%) of it.
        // Only a default: --collector may still name another collector.
        return ("compacting", None);
    }
    ("copying", None)
}

/// Choose among the built-in collectors (See `Registry::select`).
pub fn select(flags: &mut RtsFlags, explicit: Option<&str>) -> Result<(&'static CollectorEntry, Params), SelectError> {
    let builtin = Registry::builtin();
    let (entry, params) = builtin.select(flags, explicit)?;
    Ok((by_name(entry.name).expect("selected from the built-in collectors"), params))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> RtsFlags {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        RtsFlags::from_env_and_args(None, &a).unwrap()
    }

    fn name(args: &[&str], explicit: Option<&str>) -> &'static str {
        select(&mut flags(args), explicit).unwrap().0.name
    }

    fn error(args: &[&str], explicit: Option<&str>) -> String {
        select(&mut flags(args), explicit).unwrap_err().0
    }

    #[test]
    fn flags_select_builtin_collectors() {
        assert_eq!(name(&[], None), "copying");
        assert_eq!(name(&["-G1"], None), "two-space");
        assert_eq!(name(&["-G1"], Some("immix")), "immix", "-G1 only suggests two-space (See Note [One generation])");
        assert_eq!(name(&["-G1", "-w"], None), "immix");
        assert_eq!(name(&["-G1"], Some("mark-sweep")), "mark-sweep");
        assert!(error(&["-G1"], Some("sticky-immix")).contains("-G2"));
        assert_eq!(name(&["-G3"], Some("copying")), "copying");
        assert_eq!(name(&["-c"], None), "compacting");
        assert_eq!(name(&["-M64m"], None), "compacting");
        assert_eq!(name(&["-M64m"], Some("copying")), "copying");
        assert_eq!(name(&["-N2"], None), "parallel");
        assert_eq!(name(&["-N2"], Some("copying")), "copying", "-N only suggests parallel");
        assert_eq!(name(&[], Some("mark-sweep")), "mark-sweep");
        assert_eq!(name(&["-xn"], None), "nonmoving");
        assert_eq!(name(&["-xn", "-N2"], None), "nonmoving", "-xn wins over -N's suggestion");
        let mut f = flags(&[]);
        assert_eq!(select(&mut f, Some("nonmoving")).unwrap().0.name, "nonmoving");
        assert!(f.nonmoving, "--collector nonmoving implies -xn");
        assert!(error(&["-xn"], Some("copying")).contains("contradicts"));
    }

    #[test]
    fn a_collector_brings_its_own_flags() {
        let mut f = flags(&[]);
        assert_eq!(select(&mut f, Some("two-space")).unwrap().0.name, "two-space");
        assert_eq!(f.generations, 1, "--collector two-space implies -G1 when -G was not given");
        let mut f = flags(&["-A8k"]);
        select(&mut f, Some("compacting")).unwrap();
        assert!(f.compact, "--collector compacting implies -c");
        let mut f = flags(&["-G1"]);
        assert_eq!(select(&mut f, Some("compacting")).unwrap().0.name, "compacting", "whole-heap mark-compact");
        assert!(f.compact && f.generations == 1, "See Note [One generation]");
        assert_eq!(name(&["-c", "-G1"], None), "compacting");
    }

    #[test]
    fn contradictions_and_unknowns_are_errors() {
        let e = error(&["-hc"], Some("nonmoving"));
        assert!(e.starts_with("--collector nonmoving runs with `-xn'") && e.contains("-hc"), "the message names the collector that brought -xn: {e}");
        let e = error(&["-w"], Some("compacting"));
        assert!(e.contains("contradicts") && e.contains("-w"), "{e}");
        let e = error(&["-c"], Some("copying"));
        assert!(e.contains("contradicts") && e.contains("-c"), "{e}");
        let e = error(&[], Some("nope"));
        assert!(e.contains("unknown collector `nope'"), "{e}");
        let e = error(&["-G3"], Some("two-space"));
        assert!(e.contains("-G1") && e.contains("-G3"), "{e}");
    }

    #[test]
    fn parameters_are_parsed_and_unknown_ones_refused() {
        let (entry, params) = select(&mut flags(&[]), Some("two-space:x=1")).unwrap();
        let e = (entry.make)(params, &flags(&[])).err().expect("two-space takes no parameters");
        assert!(e.contains("no parameters") && e.contains("x"), "{e}");
        let (entry, params) = select(&mut flags(&[]), Some("copying:x=1")).unwrap();
        let e = (entry.make)(params, &flags(&[])).err().expect("copying takes only order");
        assert!(e.contains("no parameter `x'") && e.contains("known: order"), "{e}");
        assert!(error(&[], Some("copying:x")).contains("key=value"));
        let mut p = Params::parse("a=1, b=two").unwrap();
        assert_eq!(p.take("b").as_deref(), Some("two"));
        assert!(p.finish("t", &["b"]).unwrap_err().contains("`a'"));
    }

    #[test]
    fn registering_a_collector() {
        let mut r = Registry::builtin();
        let mine = CollectorEntry { name: "mine", description: "a test collector", flags: "", make: copying::ENTRY.make };
        r.register(mine).unwrap();
        assert_eq!(r.select(&mut flags(&[]), Some("mine")).unwrap().0.name, "mine");
        assert!(r.register(mine).unwrap_err().0.contains("already registered"));
        assert!(select(&mut flags(&[]), Some("mine")).is_err(), "the built-in registry is unchanged");
    }
}
