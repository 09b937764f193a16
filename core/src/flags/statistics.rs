//! What the run reports about itself: `-s`, `-S`, `-t` (to stderr or a
//! file), `--machine-readable`, `-T`.

use crate::option_value::{bad, file_name, FlagError};
use super::flag::Flag;
use super::{RtsFlags, StatsLevel, StatsTarget};

pub(super) const FLAGS: &[Flag] = &[
    Flag { prefix: "-s", exact: false, syntax: "-s[<file>]", help: &["Summary statistics at exit (to stderr, or the file)"], set: |f, arg, rest| stats(f, StatsLevel::Summary, arg, rest) },
    Flag { prefix: "-S", exact: false, syntax: "-S[<file>]", help: &["A line per GC, then the summary"], set: |f, arg, rest| stats(f, StatsLevel::Verbose, arg, rest) },
    Flag {
        prefix: "-t",
        exact: false,
        syntax: "-t[<file>]",
        help: &["One line of statistics; with --machine-readable, GHC's key/value list"],
        set: |f, arg, rest| stats(f, StatsLevel::OneLine, arg, rest),
    },
    Flag {
        prefix: "--machine-readable",
        exact: true,
        syntax: "--machine-readable",
        help: &["Statistics as a list of key/value pairs"],
        set: |f, _, _| {
            f.machine_readable = true;
            Ok(())
        },
    },
    Flag { prefix: "-T", exact: false, syntax: "-T", help: &["Collect statistics (for the JSON record) without printing them"], set: collect_only },
];

/// `-s`, `-S`, `-t`: the most detailed level asked for wins; the last
/// target given is where it goes.
fn stats(f: &mut RtsFlags, level: StatsLevel, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.stats = f.stats.max(level);
    f.stats_target = if rest.is_empty() || rest == "stderr" { StatsTarget::Stderr } else { StatsTarget::File(file_name(arg, rest, "the statistics file")?) };
    f.collect_stats = true;
    Ok(())
}

fn collect_only(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    if !rest.is_empty() {
        return Err(bad(arg, "-T takes no argument"));
    }
    f.collect_stats = true;
    Ok(())
}
