//! Heap sizing as a plug-in: how far the collected space may grow before
//! the next major GC, chosen after each major GC by a `HeapPolicy`.
//!
//! The runtime's `policy` keeps what every policy shares (which
//! generations to collect, the allocation area, `-M`, returning memory
//! to the OS); a heap policy owns one number, the collected space's
//! limit, and may hold the whole heap to a size of its own. The built-in
//! policies, one module each: `ghc` (GHC's `F x live` rule, the
//! default), `fixed` (a heap of one size, MMTk's `FixedHeapSize`) and
//! `membalancer` (the square-root rule of Kirisame, Shenoy and
//! Panchekha, PLDI'22). A run chooses one with the RTS option
//! `--heap-policy=NAME[:key=value,...]`; to add one, write a module with
//! an `ENTRY` and add it to `HEAP_POLICIES` (See
//! `docs/adding-a-collector.md`, "A heap-sizing policy").

mod fixed;
mod ghc;
mod membalancer;

use crate::params::Params;

/// What a policy is told after a major GC (of the oldest generation, or
/// of the whole heap with one generation).
#[derive(Debug, Clone, Copy)]
pub struct MajorGc {
    /// `-F` as it is now (`Gc.control` may change it).
    pub old_gen_factor: f64,
    /// `-O`, in blocks.
    pub min_old_gen_blocks: usize,
    /// Blocks of live data in the collected space after this GC.
    pub live_blocks: usize,
    /// One generation (two-space): the collected space is the whole heap,
    /// and what it grows by is what the mutators allocate; else the
    /// oldest generation, which grows by what minor GCs promote.
    pub two_space: bool,
    /// Blocks the collected space grew by between the previous major GC
    /// and this one.
    pub grown_blocks: usize,
    /// Seconds from the end of the previous major GC (or the run's start)
    /// to the start of this one: the mutators' time and the minor GCs'.
    pub seconds_between: f64,
    /// Seconds this major GC took (its pause).
    pub gc_seconds: f64,
    /// The least room worth leaving: every capability's allocation area
    /// (one minor GC may promote that much).
    pub min_room_blocks: usize,
}

/// A heap-sizing policy. See the module's doc.
pub trait HeapPolicy: Send + std::fmt::Debug {
    /// After a major GC: the blocks the collected space may occupy before
    /// the next major GC, its live data included (GHC's `max_blocks` of
    /// the oldest generation; with one generation, live data plus the
    /// allocation area). The runtime cuts it to fit `-M` and
    /// `heap_cap`.
    fn space_limit(&mut self, gc: &MajorGc) -> usize;

    /// A size that this policy holds the whole heap to, as `-M` does
    /// (the smaller of the two holds); `None`: no size of its own.
    fn heap_cap(&self) -> Option<HeapCap> {
        None
    }
}

/// A size the whole heap is held to, and the option a heap overflow
/// names for raising it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapCap {
    /// The size, in blocks.
    pub blocks: usize,
    /// The option, as the overflow message names it (`-M<size>`).
    pub set_by: &'static str,
}

/// A limit that means "as large as the caps allow": far below the
/// products the runtime's `-M` arithmetic forms with it.
pub const UNBOUNDED_BLOCKS: usize = 1 << 40;

/// A policy's registry entry.
#[derive(Debug, Clone, Copy)]
pub struct HeapPolicyEntry {
    /// Its name, as `--heap-policy` and an experiment's `heap_policies`
    /// give it.
    pub name: &'static str,
    /// One line for `gclab list` and `+RTS -?`.
    pub description: &'static str,
    /// A fresh instance with the given parameters.
    pub make: fn(Params) -> Result<Box<dyn HeapPolicy>, String>,
}

/// Every built-in heap policy. One line per policy.
pub const HEAP_POLICIES: &[HeapPolicyEntry] = &[ghc::ENTRY, fixed::ENTRY, membalancer::ENTRY];

/// The policy runs use unless told otherwise.
pub const DEFAULT: &str = "ghc";

/// The entry named `name`.
pub fn by_name(name: &str) -> Option<&'static HeapPolicyEntry> {
    HEAP_POLICIES.iter().find(|e| e.name == name)
}

/// A run's choice of policy, `NAME[:key=value,...]` as given, checked
/// when chosen (`choose`) and made when the run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapPolicyChoice {
    /// The policy's registry name.
    pub name: &'static str,
    /// Its parameters, in one spelling (`Params::canonical`).
    pub params: String,
}

impl Default for HeapPolicyChoice {
    fn default() -> HeapPolicyChoice {
        HeapPolicyChoice { name: DEFAULT, params: String::new() }
    }
}

impl HeapPolicyChoice {
    /// Check `text` (`NAME[:key=value,...]`): the name is a policy's and
    /// the policy takes the parameters.
    pub fn choose(text: &str) -> Result<HeapPolicyChoice, String> {
        let (name, params) = text.split_once(':').unwrap_or((text, ""));
        let Some(entry) = by_name(name) else {
            let known: Vec<&str> = HEAP_POLICIES.iter().map(|e| e.name).collect();
            return Err(format!("unknown heap policy `{name}' (known: {})", known.join(", ")));
        };
        let parsed = Params::parse_for("heap policy", params)?;
        let canonical = parsed.canonical();
        (entry.make)(parsed)?;
        Ok(HeapPolicyChoice { name: entry.name, params: canonical })
    }

    /// A fresh instance of the chosen policy.
    pub fn make(&self) -> Box<dyn HeapPolicy> {
        let entry = by_name(self.name).expect("a choice names a registered policy");
        let params = Params::parse_for("heap policy", &self.params).expect("a choice's parameters were checked");
        (entry.make)(params).expect("a choice's parameters were checked")
    }

    /// `NAME[:params]`, as the choice would be given.
    pub fn text(&self) -> String {
        if self.params.is_empty() {
            self.name.to_string()
        } else {
            format!("{}:{}", self.name, self.params)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_checked_and_spelled_one_way() {
        assert_eq!(HeapPolicyChoice::choose("ghc").unwrap(), HeapPolicyChoice::default());
        let c = HeapPolicyChoice::choose("membalancer:smoothing=0.5,c=0.02").unwrap();
        assert_eq!(c.text(), "membalancer:c=0.02,smoothing=0.5");
        assert!(HeapPolicyChoice::choose("nope").unwrap_err().contains("unknown heap policy `nope' (known: ghc, fixed, membalancer)"));
        assert!(HeapPolicyChoice::choose("ghc:x=1").unwrap_err().contains("the ghc heap policy has no parameter `x' (known: F)"));
        assert!(HeapPolicyChoice::choose("fixed").unwrap_err().contains("size="));
    }
}
