//! gclab-workloads: deterministic mutator programs that every collector runs.
//!
//! Each workload builds and mutates a heap through the `Mutator` interface,
//! prints what it computed, and returns a checksum that depends on the heap
//! contents it read back, so a collector that loses, duplicates or corrupts
//! an object changes the checksum. Randomness comes from a fixed-seed
//! generator (`rng`), so every run of a workload does the same work.

#![warn(missing_docs)]

pub mod binary_trees;
pub mod constraints;
pub mod fibheaps;
pub mod gc_api;
pub mod gcbench;
pub mod hash;
pub mod hsc_roots;
pub mod large_arrays;
pub mod lcss;
pub mod linear;
pub mod lru;
pub mod mutable_graph;
pub mod power;
pub mod rng;
pub mod testing;
pub mod thunks;

use gclab_core::Mutator;
use std::fmt;
use std::io::Write;

/// Bad workload arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadError(pub String);

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WorkloadError {}

/// A workload's entry point: runs on a mutator with its arguments, writes
/// its output, returns its checksum.
pub type WorkloadFn = fn(&mut Mutator<'_>, &[usize], &mut dyn Write) -> u64;

/// One size argument of a workload: its name, its default and the range
/// it must lie in. Arguments outside the range are refused before the run
/// (a depth of 2^32 once overflowed the stack, a byte count near 2^64 the
/// allocator's arithmetic); whether arguments inside it fit in memory is
/// `Workload::fits`'s question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// Its name (`depth`, `value-bytes`).
    pub name: &'static str,
    /// Its value when not given.
    pub default: usize,
    /// The smallest value accepted.
    pub min: usize,
    /// The largest value accepted.
    pub max: usize,
}

impl Param {
    /// A parameter `name` with `default`, accepted in `min..=max`.
    pub const fn new(name: &'static str, default: usize, min: usize, max: usize) -> Param {
        Param { name, default, min, max }
    }
}

/// A registered workload.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line for `gclab list`.
    pub description: &'static str,
    /// Its size arguments, in order, with their defaults and ranges.
    pub params: &'static [Param],
    /// Small arguments for tests (seconds at most under stress settings).
    pub small: &'static [usize],
    /// Tiny arguments, for a GC at every allocation with a full sanity
    /// check after each.
    pub tiny: &'static [usize],
    /// The program.
    pub run: WorkloadFn,
    /// A lower bound on the bytes of live data its arguments make it hold
    /// at once, where that is easily computed: arguments that cannot fit
    /// are refused before the run starts (`fits`).
    pub footprint: Option<fn(&[usize]) -> u128>,
    /// It checks what collections do (finalisers run, weak pointers
    /// die), so a baseline that never collects (`nogc`) cannot run it.
    pub needs_collection: bool,
}

impl Workload {
    /// Refuse a collector this workload cannot run under, before the run:
    /// `collects` is false for a baseline that never collects.
    pub fn check_collector(&self, collector: &str, collects: bool) -> Result<(), WorkloadError> {
        if self.needs_collection && !collects {
            return Err(WorkloadError(format!(
                "{} checks what collections do (finalisers, weak pointers), and {collector} never collects: run it under a collector",
                self.name
            )));
        }
        Ok(())
    }

    /// Its arguments' defaults.
    pub fn defaults(&self) -> Vec<usize> {
        self.params.iter().map(|p| p.default).collect()
    }

    /// Its arguments: `given` (numbers) over the defaults, each checked
    /// against its range.
    pub fn parse_args(&self, given: &[String]) -> Result<Vec<usize>, WorkloadError> {
        self.check_count(given.len())?;
        let mut args = self.defaults();
        for (i, g) in given.iter().enumerate() {
            let p = &self.params[i];
            args[i] = g.parse().map_err(|_| WorkloadError(format!("{}: argument {} ({}) must be a whole number from {} to {}, not `{g}'", self.name, i + 1, p.name, p.min, p.max)))?;
        }
        self.check_args(&args)?;
        Ok(args)
    }

    /// Check arguments given as numbers (an experiment file's): their
    /// count, and each against its range.
    pub fn check_args(&self, args: &[usize]) -> Result<(), WorkloadError> {
        self.check_count(args.len())?;
        for (i, (&a, p)) in args.iter().zip(self.params).enumerate() {
            if a < p.min || a > p.max {
                return Err(WorkloadError(format!("{}: argument {} ({}) must be from {} to {}, not {a}", self.name, i + 1, p.name, p.min, p.max)));
            }
        }
        Ok(())
    }

    fn check_count(&self, n: usize) -> Result<(), WorkloadError> {
        if n <= self.params.len() {
            return Ok(());
        }
        let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        Err(WorkloadError(format!("{} takes at most {} argument(s) ({}), got {n}", self.name, self.params.len(), names.join(", "))))
    }

    /// Its parameters as `gclab list` shows them: `depth=16 (4..30)`.
    pub fn params_text(&self) -> String {
        self.params.iter().map(|p| format!("{}={} ({}..{})", p.name, p.default, p.min, p.max)).collect::<Vec<_>>().join(" ")
    }

    /// Whether `args` can fit in `bytes` of heap: an error saying what they
    /// need, if they cannot (`binary-trees 63` once ran until the OS
    /// refused memory).
    pub fn fits(&self, args: &[usize], bytes: u128, what: &str) -> Result<(), WorkloadError> {
        let Some(needs) = self.footprint.map(|f| f(args)) else { return Ok(()) };
        if needs <= bytes {
            return Ok(());
        }
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Err(WorkloadError(format!("{} {} holds at least {needs} bytes ({}) of live data at once: more than {what} ({}); try smaller arguments", self.name, args.join(" "), bytes_text(needs), bytes_text(bytes))))
    }
}

/// A size in words: GiB from 1 GiB up, else MiB, one decimal.
pub fn bytes_text(bytes: u128) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u128 << 30) as f64),
        b => format!("{:.1} MiB", b as f64 / (1u128 << 20) as f64),
    }
}

/// Every workload.
pub const WORKLOADS: &[Workload] = &[
    binary_trees::WORKLOAD,
    gcbench::WORKLOAD,
    lru::WORKLOAD,
    mutable_graph::WORKLOAD,
    large_arrays::WORKLOAD,
    thunks::WORKLOAD,
    gc_api::WORKLOAD,
    hsc_roots::WORKLOAD,
    fibheaps::WORKLOAD,
    hash::WORKLOAD,
    lcss::WORKLOAD,
    constraints::WORKLOAD,
    linear::WORKLOAD,
    power::WORKLOAD,
];

/// The workload called `name` (the test-only ones of `testing` too).
pub fn by_name(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().chain(testing::TEST_WORKLOADS).find(|w| w.name == name)
}

/// FNV-1a's starting value (64 bits).
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Fold `bytes` into the FNV-1a hash `h` (64 bits): the checksum of a
/// workload's values, of a program's output (gclab's and its GHC peers'
/// alike), and the short hash in run ids.
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Fold a value into a running checksum (FNV-1a over the value's bytes).
pub fn mix(acc: u64, v: u64) -> u64 {
    fnv1a(acc ^ FNV_OFFSET, &v.to_le_bytes())
}
