//! Which collector the oldest generation gets: `-c`, `-c<n>` (compacting),
//! `-w` (mark-region, gclab's `immix`), `-xn` (nonmoving). `--collector
//! NAME` on `gclab run` names any registered collector instead.

use crate::option_value::{decode_float, FlagError};
use super::flag::Flag;
use super::RtsFlags;

pub(super) const FLAGS: &[Flag] = &[
    Flag {
        prefix: "-c",
        exact: true,
        syntax: "-c",
        help: &["Compact the oldest generation in place (compacting collector)"],
        set: |f, _, _| {
            f.compact = true;
            Ok(())
        },
    },
    Flag {
        prefix: "-c",
        exact: false,
        syntax: "-c<n>",
        help: &["Compact automatically when live data exceeds n% of -M (default 30);", "without -M there is no maximum, so this has no effect (as in GHC)"],
        set: compact_threshold,
    },
    Flag {
        prefix: "-w",
        exact: true,
        syntax: "-w",
        help: &["Mark-region (Immix) for the oldest generation (the immix collector)"],
        set: |f, _, _| {
            f.mark_region = true;
            Ok(())
        },
    },
    Flag { prefix: "-xn", exact: true, syntax: "-xn", help: &["Nonmoving, concurrently marked oldest generation (the nonmoving collector)"], set: nonmoving },
    Flag { prefix: "--nonmoving-gc", exact: true, syntax: "--nonmoving-gc", help: &["The same as -xn"], set: nonmoving },
    Flag {
        prefix: "--copying-gc",
        exact: true,
        syntax: "--copying-gc",
        help: &["Copy the oldest generation (the default; undoes -xn)"],
        set: |f, _, _| {
            f.nonmoving = false;
            Ok(())
        },
    },
];

fn compact_threshold(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.compact_threshold = decode_float(arg, rest, "the compaction threshold (a percentage)", 0.0, 100.0)?;
    Ok(())
}

fn nonmoving(f: &mut RtsFlags, _: &str, _: &str) -> Result<(), FlagError> {
    f.nonmoving = true;
    Ok(())
}
