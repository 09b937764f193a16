//! Capabilities and parallel GC: `-N`, `-qg`, `-qb`, `-qn` (GHC 9.0's
//! meanings; See `RtsFlags::gc_threads` and `par_balance_gen`).

use crate::option_value::{bad, decode_count, FlagError};
use super::flag::Flag;
use super::RtsFlags;

/// The most capabilities `-N` (and GC threads `-qn`) takes: each is an
/// OS thread.
pub const MAX_CAPABILITIES: usize = 1024;

pub(super) const FLAGS: &[Flag] = &[
    Flag { prefix: "-N", exact: false, syntax: "-N[<n>]", help: &["Capabilities (mutator threads, at most 1024); -N alone: the number of cores"], set: capabilities },
    Flag {
        prefix: "-qg",
        exact: false,
        syntax: "-qg[<gen>]",
        help: &["Parallel GC for generation gen and older (default 0); -qg alone: none"],
        set: |f, arg, rest| {
            f.par_gc_gen = generation(arg, rest)?;
            Ok(())
        },
    },
    Flag {
        prefix: "-qb",
        exact: false,
        syntax: "-qb[<gen>]",
        help: &["Load balancing (work stealing) in parallel GCs of generation gen and", "older (default 1, or 0 with -A32m or more); -qb alone: none"],
        set: |f, arg, rest| {
            f.par_balance = Some(generation(arg, rest)?);
            Ok(())
        },
    },
    Flag { prefix: "-qn", exact: false, syntax: "-qn<n>", help: &["GC threads for parallel GC (default: the value of -N, at most -N)"], set: gc_threads },
    // Any other -q: say which ones there are.
    Flag { prefix: "-q", exact: false, syntax: "", help: &[], set: |_, arg, _| Err(bad(arg, "unknown parallel option (gclab knows -qg[<gen>], -qb[<gen>] and -qn<n>)")) },
];

/// The cores this process may run on: `-N` alone, and what a collector's
/// own threads weigh against its GC threads.
pub fn machine_cores() -> usize {
    num_cpus::get().max(1)
}

fn capabilities(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.capabilities = if rest.is_empty() {
        machine_cores()
    } else {
        decode_count(arg, rest, "the number of capabilities", 1, MAX_CAPABILITIES)?
    };
    Ok(())
}

/// A generation number, or None for the option alone (`-qg`, `-qb`).
fn generation(arg: &str, text: &str) -> Result<Option<usize>, FlagError> {
    if text.is_empty() {
        Ok(None)
    } else {
        decode_count(arg, text, "the generation", 0, super::sizes::MAX_GENERATIONS).map(Some)
    }
}

fn gc_threads(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.par_gc_threads = decode_count(arg, rest, "the number of GC threads", 1, MAX_CAPABILITIES)?;
    Ok(())
}
