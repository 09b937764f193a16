//! The runtime's side of heap profiling: cost centres, named profiling
//! roots, and the hook a heap profiler plugs into.
//!
//! Core knows nothing of censuses or traversals (they live in the
//! heap-traverse crate); it gives objects the two profiling header words
//! when profiling is on (`object::Layout`), stamps each new object with the
//! cost-centre stack its capability is running under, keeps the roots a
//! program names for root profiling (`Mutator::set_heap_roots`), and calls
//! the installed `HeapProfiler` after GCs: a census is taken right after a
//! major GC, when everything in the heap is live, and its time is counted
//! apart from GC time (GHC's `PROF` line of `-s`).

use crate::capability::Capability;
use crate::constants::Word;
use crate::heap::Heap;

/// What a profiler may look at during a census (the world is stopped).
pub struct ProfileContext<'a> {
    /// The heap, right after a GC.
    pub heap: &'a Heap,
    /// Every capability (root stacks).
    pub caps: &'a [Capability],
    /// Named profiling roots: (name, current address of the object).
    pub roots: &'a [(String, Word)],
    /// Cost-centre names by id (0 is `MAIN`).
    pub cost_centres: &'a [String],
    /// Seconds since the run began (the sample's time in the profile).
    pub elapsed: f64,
    /// Mutator seconds so far (what sampling intervals count).
    pub mutator: f64,
}

/// A heap profiler, installed on a runtime with `Rts::set_heap_profiler`.
pub trait HeapProfiler: Send {
    /// Is a sample due, `mutator` seconds of mutator time into the run?
    /// (Mutator time, so that GC and profiling itself cannot make every GC
    /// a sample.) A due sample makes the coming GC a major one.
    fn due(&self, mutator: f64) -> bool;
    /// The `-h` break-down letter (for the eventlog's HEAP_PROF_BEGIN).
    fn breakdown(&self) -> char;
    /// Seconds between samples.
    fn interval(&self) -> f64;
    /// Take a sample, right after a major GC; returns its bands (name,
    /// bytes), which the runtime also posts to the eventlog.
    fn sample(&mut self, ctx: &ProfileContext<'_>) -> Vec<(String, u64)>;
    /// The run ends (`elapsed` seconds): write whatever is left.
    fn finish(&mut self, elapsed: f64);
}

/// The cost-centre stack id new objects of a capability are stamped with.
pub type CostCentre = u32;

/// Names of cost centres, by id; 0 is `MAIN`.
#[derive(Debug)]
pub struct CostCentres {
    names: Vec<String>,
}

impl Default for CostCentres {
    fn default() -> CostCentres {
        CostCentres { names: vec!["MAIN".to_string()] }
    }
}

impl CostCentres {
    /// The id of `name`, registering it on first use.
    pub fn id(&mut self, name: &str) -> CostCentre {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as CostCentre,
            None => {
                self.names.push(name.to_string());
                (self.names.len() - 1) as CostCentre
            }
        }
    }

    /// Every name, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}
