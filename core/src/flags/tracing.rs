//! The eventlog: `-l` (GHC's binary format, to `<program>.eventlog` or
//! `-ol<file>`) and `-v` (the same events as text), with GHC's event
//! class letters.

use crate::option_value::{bad, file_name, FlagError};
use super::flag::Flag;
use super::RtsFlags;

pub(super) const FLAGS: &[Flag] = &[
    Flag {
        prefix: "-l",
        exact: false,
        syntax: "-l[flags]",
        help: &["Write a binary eventlog, <program>.eventlog (GHC's format; flags:", "a all, s scheduler, g GC and heap, -x turns class x off)"],
        set: |f, arg, classes| {
            f.eventlog = true;
            event_classes(f, arg, classes, false)
        },
    },
    Flag {
        prefix: "-ol",
        exact: false,
        syntax: "-ol<file>",
        help: &["Write the eventlog to <file>"],
        set: |f, arg, path| {
            if path.is_empty() {
                return Err(bad(arg, "-ol needs a file name (-ol<file>)"));
            }
            f.eventlog_path = Some(file_name(arg, path, "the eventlog's file name")?);
            Ok(())
        },
    },
    Flag {
        prefix: "-v",
        exact: false,
        syntax: "-v[flags]",
        help: &["Print the events as text on stdout (flags as -l, t: timestamps)"],
        set: |f, arg, classes| {
            f.trace_text = Some(false);
            event_classes(f, arg, classes, true)
        },
    },
];

/// GHC's event class letters: `a` all, `s` scheduler, `g` GC, `n` the
/// nonmoving census, `p` and `u` (sparks and user events: accepted, none
/// are emitted), `-x` turns class x off; with `-v`, `t` adds timestamps.
fn event_classes(f: &mut RtsFlags, arg: &str, letters: &str, text: bool) -> Result<(), FlagError> {
    let mut on = true;
    for c in letters.chars() {
        match c {
            '-' => {
                on = false;
                continue;
            }
            'a' => {
                f.trace_gc = on;
                f.trace_scheduler = on;
            }
            's' => f.trace_scheduler = on,
            'g' => f.trace_gc = on,
            'n' => f.trace_nonmoving_census = on,
            'p' | 'u' => {}
            't' if text => f.trace_text = Some(true),
            _ => return Err(bad(arg, format!("unknown event class `{c}' (known: a, s, g, n, p, u{})", if text { ", t" } else { "" }))),
        }
        on = true;
    }
    Ok(())
}
