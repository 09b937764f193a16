//! OCaml's `Gc` module for gclab's mutators (seed 004 is the reference for
//! names and meanings). A workload calls `gc::stat(m)`, `gc::set(m, c)`,
//! `gc::finalise(m, f, v)` and so on, as an OCaml program calls `Gc.stat ()`.
//!
//! How OCaml's two heaps map onto gclab's generations (See Note [Minor and
//! major heaps]), and how each `control` field maps onto an RTS flag, is
//! documented on the items below. A field gclab cannot honour is refused
//! with an error naming it, never ignored.
//!
//! The API sits above the mutator and is split as OCaml's module is:
//! `stat` (the `stat` record and counters), `control` (`get`, `set` and
//! the collections a program asks for), `finalise` (finalisers and
//! alarms) and `memprof` (allocation sampling).
//!
//! Note [Minor and major heaps]
//! ----------------------------------------
//! OCaml has a minor heap (the nursery) and a major heap. In gclab the
//! "minor heap" is generation 0 with its nursery, and the "major heap" is
//! every older generation (with `-G1`, generation 0 is both). So:
//! `minor_words` counts every word allocated (gclab allocates everything,
//! large objects included, in generation 0); `promoted_words` counts words
//! the GC moved from generation 0 into an older one; `major_words` equals
//! `promoted_words` (nothing is allocated directly in an old generation),
//! so `allocated_bytes = (minor + major - promoted) x 8` is every byte
//! allocated. A minor collection is any GC (OCaml's major cycles start with
//! one too); a major collection is a GC of the oldest generation.
//! `heap_chunks` counts megablocks mapped; `heap_words`, `top_heap_words`
//! count block space held by generations and its peak. `live_*` are walked
//! over the whole heap (both "heaps": after `full_major` that is exactly
//! the live data, the figure the sanity checker counts); `free_*`,
//! `largest_free` and `fragments` are the block allocator's free groups and
//! the generations' slop.

mod control;
mod finalise;
pub mod memprof;
mod stat;

pub use control::{compact, full_major, get, major, major_slice, minor, set, Control};
pub use finalise::{create_alarm, delete_alarm, finalise, finalise_last, finalise_release, AlarmId};
pub use stat::{allocated_bytes, counters, minor_words, print_stat, print_stats, quick_stat, stat, Stat};

use std::fmt;

/// A `gc` API call that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GcError {
    /// OCaml's `Invalid_argument`: the named function does not accept the value.
    InvalidArgument(String),
    /// A `control` field gclab cannot honour, with why.
    Unsupported {
        /// The field.
        field: &'static str,
        /// Why not.
        reason: String,
    },
}

impl fmt::Display for GcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcError::InvalidArgument(what) => write!(f, "Invalid_argument: {what}"),
            GcError::Unsupported { field, reason } => write!(f, "Gc.set: field `{field}' cannot be honoured: {reason}"),
        }
    }
}

impl std::error::Error for GcError {}

