//! Heap profiling: `-h<break-down>`, `-i<secs>`, `-po<stem>`.

use crate::option_value::{bad, decode_float, file_name, FlagError};
use super::flag::Flag;
use super::RtsFlags;

pub(super) const FLAGS: &[Flag] = &[
    Flag {
        prefix: "-h",
        exact: false,
        syntax: "-h<b>",
        help: &["Heap profile to <program>.hp, broken down by T closure type, d closure", "description, y type, m module, c cost centre, r retainer set,", "o user-specified roots"],
        set: heap_profile,
    },
    Flag { prefix: "-i", exact: false, syntax: "-i<secs>", help: &["Seconds of mutator time between heap profile samples (default 0.1;", "0: every GC)"], set: interval },
    Flag {
        prefix: "-po",
        exact: false,
        syntax: "-po<stem>",
        help: &["Write the heap profile to <stem>.hp"],
        set: |f, arg, stem| {
            if stem.is_empty() {
                return Err(bad(arg, "-po needs a file stem (-po<stem>)"));
            }
            f.profile_stem = Some(file_name(arg, stem, "the heap profile's stem")?);
            Ok(())
        },
    },
];

fn heap_profile(f: &mut RtsFlags, arg: &str, kind: &str) -> Result<(), FlagError> {
    let k = match kind {
        "" | "T" => 'T',
        "d" | "y" | "m" | "c" | "r" | "o" => kind.chars().next().expect("one letter"),
        _ => return Err(bad(arg, "unknown heap profile break-down (known: -hT, -hd, -hy, -hm, -hc, -hr, -ho)")),
    };
    f.heap_profile = Some(k);
    // Cost centres and root profiling need the profiling header.
    if matches!(k, 'c' | 'r' | 'o') {
        f.profiling_header = true;
    }
    Ok(())
}

fn interval(f: &mut RtsFlags, arg: &str, secs: &str) -> Result<(), FlagError> {
    f.heap_profile_interval = decode_float(arg, secs, "the heap profile interval (seconds)", 0.0, 7.0 * 24.0 * 3600.0)?;
    Ok(())
}
