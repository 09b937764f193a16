//! The one table of RTS options: what each starts with, how `+RTS -?`
//! shows it, and the function that sets it. The parser looks options up
//! here and the help text is printed from here, so an option cannot be
//! accepted without being documented, or documented without being
//! accepted. Each family of options (sizes, collectors, parallelism,
//! statistics, memory, debugging, tracing, profiling) keeps its entries
//! in a module of its own.

pub use super::flag::Flag;
use super::{collectors, debug, memory, parallel, profiling, sizes, statistics, tracing};

/// The families of options, in the order `+RTS -?` lists them.
pub const FAMILIES: &[&[Flag]] = &[HELP, sizes::FLAGS, collectors::FLAGS, parallel::FLAGS, statistics::FLAGS, memory::FLAGS, debug::FLAGS, tracing::FLAGS, profiling::FLAGS];

/// `-?` itself.
const HELP: &[Flag] = &[Flag {
    prefix: "-?",
    exact: true,
    syntax: "-?",
    help: &["Print this message and exit"],
    set: |f, _, _| {
        f.help = true;
        Ok(())
    },
}];

/// The entry for `arg`: an exact entry equal to it, else the entry with
/// the longest prefix of it.
pub fn lookup(arg: &str) -> Option<&'static Flag> {
    let all = FAMILIES.iter().flat_map(|family| family.iter());
    all.filter(|f| if f.exact { arg == f.prefix } else { arg.starts_with(f.prefix) }).max_by_key(|f| (f.exact, f.prefix.len()))
}

/// Column where the help text starts (after `  -A<size>   `).
const HELP_COLUMN: usize = 13;

/// The help lines of every documented option, in table order.
pub fn help_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for flag in FAMILIES.iter().flat_map(|family| family.iter()).filter(|f| !f.syntax.is_empty()) {
        let (first, rest) = flag.help.split_first().map_or(("", &[][..]), |(a, b)| (*a, b));
        lines.push(if flag.syntax.len() + 3 <= HELP_COLUMN { format!("  {:<w$}{first}", flag.syntax, w = HELP_COLUMN - 2) } else { format!("  {}  {first}", flag.syntax) });
        lines.extend(rest.iter().map(|l| format!("{:w$}{l}", "", w = HELP_COLUMN)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_has_one_entry_and_help_when_shown() {
        let all: Vec<&Flag> = FAMILIES.iter().flat_map(|f| f.iter()).collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert!(!(a.prefix == b.prefix && a.exact == b.exact), "{} is in the table twice", a.prefix);
            }
            assert!(a.syntax.is_empty() || !a.help.is_empty(), "{} is shown without help", a.syntax);
        }
    }

    #[test]
    fn the_longest_prefix_wins_and_exact_entries_match_whole_words() {
        assert_eq!(lookup("-ol/tmp/x").map(|f| f.prefix), Some("-ol"));
        assert_eq!(lookup("-l").map(|f| f.prefix), Some("-l"));
        assert_eq!(lookup("-c").map(|f| (f.prefix, f.exact)), Some(("-c", true)));
        assert_eq!(lookup("-c30").map(|f| (f.prefix, f.exact)), Some(("-c", false)));
        assert_eq!(lookup("-qg1").map(|f| f.prefix), Some("-qg"));
        assert_eq!(lookup("-qx").map(|f| f.prefix), Some("-q"));
        assert!(lookup("-xnope").is_none() && lookup("-Y").is_none());
    }
}
