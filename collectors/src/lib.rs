//! gclab-collectors: the collectors, the pieces they share, and the registry.
//!
//! Shared pieces, one mechanism each: `gc_thread` (a GC thread's to-space
//! and evacuation state), `evacuate` (copy one object), `scavenge` (Cheney
//! scan), `weak_ptrs` (roots, mutable lists and weak pointers), `from_space`
//! (preparing and freeing from-space), `work_stealing` (load balancing and
//! termination among GC threads), `gc_workers` (the GC thread pool and its
//! watchdog). Collectors: `copying`, `compacting`, `two_space`, `parallel`.
//!
//! To add a collector: write one module with a type implementing
//! `gclab_core::Collector` and an `ENTRY`, and add that entry to
//! `COLLECTORS` below. Nothing in core changes. `docs/adding-a-collector.md`
//! walks through it; a collector kept outside this crate is added to a
//! `Registry` at run time instead.

#![warn(missing_docs)]

pub mod compact;
pub mod compacting;
pub mod copying;
pub mod evacuate;
pub mod from_space;
pub mod gc_thread;
pub mod gc_workers;
pub mod mark;
pub mod parallel;
pub mod scavenge;
pub mod two_space;
pub mod weak_ptrs;
pub mod work_stealing;

use gclab_core::{Collector, RtsFlags};
use std::fmt;

/// A registered collector: its name, a line about it, and how to make one.
#[derive(Debug, Clone, Copy)]
pub struct CollectorEntry {
    /// The name `--collector` takes.
    pub name: &'static str,
    /// One line for `gclab list` and `+RTS -?`.
    pub description: &'static str,
    /// RTS flags a run of this collector needs (`-G1` for two-space, `-c`
    /// for compacting): tests and sweeps add them to every setting.
    pub flags: &'static str,
    /// A fresh instance.
    pub make: fn() -> Box<dyn Collector>,
}

/// Every built-in collector, by name. One line per collector.
pub const COLLECTORS: &[CollectorEntry] = &[copying::ENTRY, compacting::ENTRY, two_space::ENTRY, parallel::ENTRY];

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
        Registry { entries: COLLECTORS.to_vec() }
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

    /// Choose the collector for a run: `explicit` (from `--collector`) if
    /// given, else what GHC's flags select. A contradiction between the
    /// two, or an unknown name, is an error naming both.
    pub fn select(&self, flags: &RtsFlags, explicit: Option<&str>) -> Result<&CollectorEntry, SelectError> {
        let (implied, by_flag) = implied_by_flags(flags)?;
        let name = match (explicit, by_flag) {
            (Some(e), Some(flag)) if e != implied => {
                return Err(SelectError(format!("--collector {e} contradicts the RTS option `{flag}', which selects the {implied} collector")));
            }
            (Some(e), _) => e,
            (None, _) => implied,
        };
        if name == "two-space" && flags.generations != 1 {
            return Err(SelectError(format!("--collector two-space needs +RTS -G1 (one generation), not -G{}", flags.generations)));
        }
        self.by_name(name).ok_or_else(|| match by_flag {
            Some(flag) if explicit.is_none() => {
                SelectError(format!("bad RTS option `{flag}': the {name} collector is not available in this build"))
            }
            _ => SelectError(format!(
                "unknown collector `{name}' (known: {})",
                self.entries.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
            )),
        })
    }
}

/// The built-in collector called `name`.
pub fn by_name(name: &str) -> Option<&'static CollectorEntry> {
    COLLECTORS.iter().find(|c| c.name == name)
}

/// (name, description) of every built-in collector, for usage texts.
pub fn descriptions() -> Vec<(&'static str, &'static str)> {
    COLLECTORS.iter().map(|c| (c.name, c.description)).collect()
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

/// The built-in collector GHC's flags select, and the flag that selects it.
fn implied_by_flags(flags: &RtsFlags) -> Result<(&'static str, Option<&'static str>), SelectError> {
    if flags.compact && flags.generations == 1 {
        return Err(SelectError("bad RTS option `-c': compaction is not supported with a single generation (-G1), as in GHC".into()));
    }
    if flags.compact {
        return Ok(("compacting", Some("-c")));
    }
    if flags.generations == 1 {
        return Ok(("two-space", Some("-G1")));
    }
    if flags.capabilities > 1 {
        // Several capabilities: GHC's parallel GC, by default only (the
        // sequential collectors run with several capabilities too).
        return Ok(("parallel", None));
    }
    if flags.max_heap_blocks > 0 {
        // With -M, GHC compacts automatically past -c<n> (default 30%) of it.
        // Only a default: --collector may still name another collector.
        return Ok(("compacting", None));
    }
    Ok(("copying", None))
}

/// Choose among the built-in collectors (See `Registry::select`).
pub fn select(flags: &RtsFlags, explicit: Option<&str>) -> Result<&'static CollectorEntry, SelectError> {
    let builtin = Registry::builtin();
    let name = builtin.select(flags, explicit)?.name;
    Ok(by_name(name).expect("selected from the built-in collectors"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> RtsFlags {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        RtsFlags::from_env_and_args(None, &a).unwrap()
    }

    #[test]
    fn flags_select_builtin_collectors() {
        assert_eq!(select(&flags(&[]), None).unwrap().name, "copying");
        assert_eq!(select(&flags(&["-G1"]), None).unwrap().name, "two-space");
        assert_eq!(select(&flags(&["-G3"]), Some("copying")).unwrap().name, "copying");
        assert_eq!(select(&flags(&["-c"]), None).unwrap().name, "compacting");
        assert_eq!(select(&flags(&["-M64m"]), None).unwrap().name, "compacting");
        assert_eq!(select(&flags(&["-M64m"]), Some("copying")).unwrap().name, "copying");
        assert_eq!(select(&flags(&["-N2"]), None).unwrap().name, "parallel");
        assert_eq!(select(&flags(&["-N2"]), Some("copying")).unwrap().name, "copying", "-N only suggests parallel");
    }

    #[test]
    fn contradictions_and_unknowns_are_errors() {
        let e = select(&flags(&["-G1"]), Some("copying")).unwrap_err();
        assert!(e.0.contains("contradicts") && e.0.contains("-G1"), "{e}");
        let e = select(&flags(&["-c", "-G1"]), None).unwrap_err();
        assert!(e.0.contains("-c") && e.0.contains("-G1"), "{e}");
        let e = select(&flags(&["-c"]), Some("copying")).unwrap_err();
        assert!(e.0.contains("contradicts") && e.0.contains("-c"), "{e}");
        let e = select(&flags(&[]), Some("nope")).unwrap_err();
        assert!(e.0.contains("unknown collector `nope'"), "{e}");
        let e = select(&flags(&[]), Some("two-space")).unwrap_err();
        assert!(e.0.contains("-G1"), "{e}");
    }

    #[test]
    fn registering_a_collector() {
        let mut r = Registry::builtin();
        let mine = CollectorEntry { name: "mine", description: "a test collector", flags: "", make: || Box::new(copying::Copying) };
        r.register(mine).unwrap();
        assert_eq!(r.select(&flags(&[]), Some("mine")).unwrap().name, "mine");
        assert!(r.register(mine).unwrap_err().0.contains("already registered"));
        assert!(select(&flags(&[]), Some("mine")).is_err(), "the built-in registry is unchanged");
    }
}
