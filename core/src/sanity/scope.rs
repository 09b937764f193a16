//! Which checks are due after a GC (`Checks`: the whole heap, or what a
//! minor GC can have changed), and what the minor check remembers of the
//! blocks between checks (`SeenBlocks`; See Note [The minor sanity check]).

use super::addr::AddrMap;
use crate::bdescr::BlockDesc;
use crate::flags::SanityMode;
use crate::heap::Heap;
use std::time::Duration;

/// A run's sanity checks: the scope of each, how many, what they cost.
#[derive(Debug, Default)]
pub struct Checks {
    /// Checks run.
    pub checks: u64,
    /// Of those, whole-heap checks.
    pub whole_checks: u64,
    /// Minor checks since the last whole one.
    minor_in_a_row: u64,
    /// Their time.
    pub time: Duration,
    /// Of that, the whole-heap checks' time.
    pub whole_time: Duration,
    /// The blocks at the last check (See `SeenBlocks`).
    pub seen: SeenBlocks,
}

impl Checks {
    /// Count the check due after a GC of generations `0..=collected`
    /// (None: a change anywhere) of a heap whose oldest generation is
    /// `oldest`, and say its scope; None under `--sanity=off`.
    pub fn next_scope(&mut self, mode: SanityMode, collected: Option<usize>, oldest: usize) -> Option<Scope> {
        let scope = match (mode, collected) {
            (SanityMode::Off, _) => return None,
            (SanityMode::Minor { full_every }, Some(g)) if g < oldest && self.minor_in_a_row + 1 < full_every => Scope::Collected { oldest: g },
            _ => Scope::Whole,
        };
        self.checks += 1;
        if scope == Scope::Whole {
            self.whole_checks += 1;
            self.minor_in_a_row = 0;
        } else {
            self.minor_in_a_row += 1;
        }
        Some(scope)
    }

    /// Count `elapsed`, the time of a check of `scope`.
    pub fn took(&mut self, scope: Scope, elapsed: Duration) {
        self.time += elapsed;
        if scope == Scope::Whole {
            self.whole_time += elapsed;
        }
    }
}

/// How much of the heap one check covers (See Note [The minor sanity check]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every generation, every object.
    Whole,
    /// What a GC of generations `0..=oldest` can have changed.
    Collected {
        /// The oldest generation the GC collected.
        oldest: usize,
    },
}

/// The blocks of every generation at the last check, each with its fill
/// level: the minor check walks an older generation's blocks that are new
/// or refilled since (See Note [The minor sanity check]).
#[derive(Debug, Default)]
pub struct SeenBlocks {
    fill: AddrMap<(usize, u16)>,
}

impl SeenBlocks {
    /// Remember every block of every generation, its fill level and its
    /// generation.
    pub(super) fn remember(&mut self, heap: &Heap) {
        self.fill.clear();
        for gen in &heap.gens {
            for &bd in gen.blocks.iter().chain(&gen.large_objects) {
                // SAFETY: the checker runs with the world stopped (See `check`).
                let d = unsafe { bd.read() };
                self.fill.insert(d.start as usize, (d.free as usize, d.gen_no));
            }
        }
    }

    /// Is the block unchanged since the last check: the same fill level
    /// in the same generation? (A large object promoted keeps its block
    /// and fill level, but its fields were scanned by the GC that
    /// promoted it: it counts as changed.)
    pub(super) fn unchanged(&self, d: &BlockDesc) -> bool {
        self.fill.get(&(d.start as usize)) == Some(&(d.free as usize, d.gen_no))
    }
}

