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

/// A registered workload.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line for `gclab list`.
    pub description: &'static str,
    /// Names of its size arguments, in order.
    pub params: &'static [&'static str],
    /// Defaults of those arguments.
    pub defaults: &'static [usize],
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
}

impl Workload {
    /// Its arguments: `given` (numbers) over the defaults.
    pub fn parse_args(&self, given: &[String]) -> Result<Vec<usize>, WorkloadError> {
        if given.len() > self.params.len() {
            return Err(WorkloadError(format!(
                "{} takes at most {} argument(s) ({}), got {}",
                self.name,
                self.params.len(),
                self.params.join(", "),
                given.len()
            )));
        }
        let mut args = self.defaults.to_vec();
        for (i, g) in given.iter().enumerate() {
            args[i] = g.parse().map_err(|_| WorkloadError(format!("{}: argument {} ({}) must be a non-negative whole number, not `{g}'", self.name, i + 1, self.params[i])))?;
        }
        Ok(args)
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

/// Fold a value into a running checksum (FNV-1a over the value's bytes).
pub fn mix(acc: u64, v: u64) -> u64 {
    let mut h = acc ^ 0xcbf2_9ce4_8422_2325;
    for b in v.to_le_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
