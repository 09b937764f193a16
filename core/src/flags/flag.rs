//! One RTS option, as the table (`table`) lists it: what it starts with,
//! how `+RTS -?` shows it, and the function that sets it.

use crate::option_value::FlagError;
use super::RtsFlags;

/// One RTS option.
pub struct Flag {
    /// What the option starts with (`-A`, `--gc-every=`).
    pub prefix: &'static str,
    /// Only the whole word `prefix` is this option (`-c`, not `-c30`).
    pub exact: bool,
    /// The option as `+RTS -?` shows it (`-A<size>`); empty for an option
    /// the help leaves out (an alias, or a catch-all that explains a
    /// mistake).
    pub syntax: &'static str,
    /// What `+RTS -?` says of it: the first line beside the syntax, the
    /// rest below it.
    pub help: &'static [&'static str],
    /// Set the option: `arg` is the whole option (for messages), `rest`
    /// what follows `prefix`.
    pub set: fn(&mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError>,
}
