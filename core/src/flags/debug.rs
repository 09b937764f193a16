//! Checking and stressing the collectors: `-DS` and `--sanity=` (the heap
//! sanity checker), `--gc-every=` (forced GCs), `--count-objects`, and
//! GHC's `-Z`, accepted with no effect.

use crate::option_value::{bad, decode_count, FlagError};
use super::flag::Flag;
use super::{RtsFlags, SanityMode};

pub(super) const FLAGS: &[Flag] = &[
    Flag {
        prefix: "-DS",
        exact: false,
        syntax: "-DS",
        help: &["Run the heap sanity checker after every GC (the whole heap:", "each check costs the heap's size, so a run whose heap only grows,", "as under nogc, takes time quadratic in it; --sanity=minor checks", "less after a minor GC)"],
        set: |f, arg, rest| {
            if !rest.is_empty() {
                return Err(bad(arg, "debug flag -DS takes no argument"));
            }
            f.sanity = SanityMode::Full;
            Ok(())
        },
    },
    Flag {
        prefix: "--sanity=",
        exact: false,
        syntax: "--sanity=minor[:<k>]",
        help: &["(gclab) After a minor GC, check only what it can have", "changed, and the whole heap at every k-th check (default 64);", "--sanity=full is -DS, --sanity=off none"],
        set: |f, arg, mode| {
            f.sanity = SanityMode::parse(arg, mode)?;
            Ok(())
        },
    },
    // GHC's -Z: don't squeeze out update frames. gclab's mutators have no
    // Haskell stacks, so there is nothing to squeeze: accepted, no effect.
    Flag { prefix: "-Z", exact: true, syntax: "-Z", help: &["Don't squeeze out update frames (GHC's; no effect: gclab has no stacks)"], set: |_, _, _| Ok(()) },
    Flag {
        prefix: "-Z",
        exact: false,
        syntax: "",
        help: &[],
        set: |_, arg, _| Err(bad(arg, "GHC's -Z takes no argument (to force a GC every n allocations, gclab's option is --gc-every=<n>)")),
    },
    Flag { prefix: "--gc-every=", exact: false, syntax: "--gc-every=<n>", help: &["(gclab) Force a GC every n allocations, for stress tests"], set: gc_every },
    Flag {
        prefix: "--count-objects",
        exact: true,
        syntax: "--count-objects",
        help: &["(gclab) Count the objects allocated (for the JSON record's", "allocated_objects: the average object size)"],
        set: |f, _, _| {
            f.count_objects = true;
            Ok(())
        },
    },
];

fn gc_every(f: &mut RtsFlags, arg: &str, n: &str) -> Result<(), FlagError> {
    f.gc_every_allocs = decode_count(arg, n, "the number of allocations between forced GCs", 1, usize::MAX)? as u64;
    Ok(())
}

impl SanityMode {
    /// `--sanity=<mode>`'s mode.
    fn parse(flag: &str, mode: &str) -> Result<SanityMode, FlagError> {
        match mode.split_once(':') {
            None if mode == "off" => Ok(SanityMode::Off),
            None if mode == "full" => Ok(SanityMode::Full),
            None if mode == "minor" => Ok(SanityMode::Minor { full_every: Self::DEFAULT_FULL_EVERY }),
            Some(("minor", k)) => Ok(SanityMode::Minor { full_every: decode_count(flag, k, "k, the checks from one whole check to the next,", 1, usize::MAX)? as u64 }),
            _ => Err(bad(flag, format!("`{mode}' is not a sanity mode (off, full, minor or minor:<k>)"))),
        }
    }
}
