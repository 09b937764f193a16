//! RTS flags: GHC's `+RTS ... -RTS` options, parsed by hand.
//!
//! This module owns the `RtsFlags` record and its parser. It keeps one
//! invariant: a flags record that parsed is consistent (every size in range,
//! no contradiction such as `-M` below `-A`), so nothing downstream checks
//! again. Errors name the flag and say what was wrong.
//!
//! Note [Size suffixes]
//! ----------------------------------------
//! GHC's user's guide says that `k`, `m` and `g` multiply by 1000, 10^6 and
//! 10^9, but GHC's code (`decodeSize` in `rts/RtsFlags.c`) multiplies by
//! 1024, 1024^2 and 1024^3, and reads `w` as words. gclab follows the code,
//! since that is what the numbers in GHC's own output reflect: `-A1m` is 256
//! blocks. A fractional number is allowed (`-A1.5m`), as GHC reads it with
//! `strtod`; unlike GHC, trailing junk after the suffix is an error.

use crate::constants::{BLOCK_SIZE, WORD_SIZE};
use crate::mblock::MemoryReturn;
use std::fmt;
use std::path::PathBuf;

/// Where a statistics report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatsTarget {
    /// Standard error (the default).
    Stderr,
    /// A file.
    File(PathBuf),
}

/// How much the run reports about itself at the end (`-t`, `-s`, `-S`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StatsLevel {
    /// Nothing (or `-T`: collect, print nothing).
    None,
    /// `-t`: one line.
    OneLine,
    /// `-s`: the summary.
    Summary,
    /// `-S`: a line per GC, then the summary.
    Verbose,
}

/// Every RTS setting of a run. Sizes are in bytes, rounded as GHC rounds them.
#[derive(Debug, Clone, PartialEq)]
pub struct RtsFlags {
    /// `-A`: allocation area per capability, in blocks.
    pub alloc_area_blocks: usize,
    /// `-n`: allocation-area chunk size in blocks (0: no chunks).
    pub chunk_blocks: usize,
    /// `-F`: old generation size factor.
    pub old_gen_factor: f64,
    /// `-G`: number of generations.
    pub generations: usize,
    /// Was `-G` given (so that a collector's own `-G1` contradicts it)?
    pub generations_given: bool,
    /// `-H`: suggested heap size in blocks (0: none).
    pub heap_suggestion_blocks: usize,
    /// `-H` with no size: use the heap size at the previous GC.
    pub heap_suggestion_auto: bool,
    /// `-M`: maximum heap size in blocks (0: unlimited).
    pub max_heap_blocks: usize,
    /// `-m`: minimum % of the heap kept free for allocation.
    pub pc_free_heap: f64,
    /// `-O`: minimum old generation size in blocks.
    pub min_old_gen_blocks: usize,
    /// `-c`: compact the oldest generation always.
    pub compact: bool,
    /// `-c<n>`: compact when live data exceeds n% of `-M`.
    pub compact_threshold: f64,
    /// `-xn` / `--nonmoving-gc`: the oldest generation is nonmoving,
    /// marked concurrently (`--copying-gc` turns it off again).
    pub nonmoving: bool,
    /// `-w`: the oldest generation is mark-region (GHC's "mark-region for
    /// the oldest generation (experimental)"): gclab's `immix` collector.
    pub mark_region: bool,
    /// `-N`: capabilities.
    pub capabilities: usize,
    /// `-qg<gen>`: collections of generation `gen` and older use the
    /// parallel GC (default 0); `-qg` alone (None): never.
    pub par_gc_gen: Option<usize>,
    /// `-qb<gen>`: parallel collections of generation `gen` and older
    /// balance work by stealing (None: never). Unset, GHC's default: 0
    /// when `-A` is at least 32 MiB, else 1 (See `par_balance_gen`).
    pub par_balance: Option<Option<usize>>,
    /// `-qn<n>`: GC threads (0, the default: one per capability).
    pub par_gc_threads: usize,
    /// `-s`, `-S`, `-t`.
    pub stats: StatsLevel,
    /// Where the report goes.
    pub stats_target: StatsTarget,
    /// `--machine-readable` (with `-t`).
    pub machine_readable: bool,
    /// `-T`: collect statistics even if none is printed.
    pub collect_stats: bool,
    /// `-DS` or `--sanity=<mode>`: what the heap sanity checker checks
    /// after every GC.
    pub sanity: SanityMode,
    /// `--gc-every=<n>` (gclab): force a GC every n allocations (stress
    /// testing). GHC's own `-Z` (no update-frame squeezing) is accepted
    /// and has no effect: gclab's mutators have no Haskell stacks.
    pub gc_every_allocs: u64,
    /// `--count-objects` (gclab): count the objects allocated, for the
    /// average object size (Stats' `allocated_objects`), by walking each
    /// nursery block as it is retired. Off by default: it costs a pass
    /// over everything allocated.
    pub count_objects: bool,
    /// How megablocks the heap no longer needs go back to the OS: lazily
    /// (`MADV_FREE`, GHC's default) or, with GHC's
    /// `--disable-delayed-os-memory-return`, at once (`MADV_DONTNEED`).
    /// See Note [Returning memory lazily] in `mblock`.
    pub memory_return: MemoryReturn,
    /// `--huge-pages` (gclab): map the heap's megablocks in pairs backed
    /// by transparent huge pages. See Note [Huge pages for the heap] in
    /// `mblock`.
    pub huge_pages: bool,
    /// Objects carry the two-word profiling header (switched on by
    /// profiling flags; tests may also switch it on).
    pub profiling_header: bool,
    /// `-?` was given: print the flags and stop.
    pub help: bool,
    /// OCaml's `verbose` bits (set through the `gc` API's `set`): GC
    /// messages on stderr. See `gc::Control::verbose`.
    pub verbose: u32,
    /// `-l`: write a binary eventlog.
    pub eventlog: bool,
    /// `-v`: print the events as text on stdout; Some(with timestamps).
    pub trace_text: Option<bool>,
    /// Event classes (`-l`/`-v` flags): GC and heap events.
    pub trace_gc: bool,
    /// Event classes: scheduler and capability events.
    pub trace_scheduler: bool,
    /// `-ln`: the nonmoving collector's heap census after each sweep.
    pub trace_nonmoving_census: bool,
    /// `-ol<file>`: where the eventlog goes (default `<program>.eventlog`).
    pub eventlog_path: Option<PathBuf>,
    /// `-h<break-down>`: heap profiling, by closure type (`T`), description
    /// (`d`), type (`y`), module (`m`), cost centre (`c`) or root (`o`).
    pub heap_profile: Option<char>,
    /// `-i<secs>`: seconds between heap profile samples (0: every GC).
    pub heap_profile_interval: f64,
    /// `-po<stem>`: the heap profile goes to `<stem>.hp` (default: the program's name).
    pub profile_stem: Option<PathBuf>,
    /// The program's name and arguments (set by the command line, for the
    /// eventlog's name and its PROGRAM_ARGS event).
    pub program: Vec<String>,
    /// OCaml's `max_overhead` (set through the `gc` API): compact the
    /// oldest generation when its wasted space exceeds this % of its live
    /// data; 0 at every major GC, 1000000 or more never. None: GHC's
    /// `-c`/`-c<n>` rule.
    pub compact_overhead: Option<usize>,
}

impl Default for RtsFlags {
    fn default() -> RtsFlags {
        RtsFlags {
            alloc_area_blocks: (1 << 20) / BLOCK_SIZE,
            chunk_blocks: 0,
            old_gen_factor: 2.0,
            generations: 2,
            generations_given: false,
            heap_suggestion_blocks: 0,
            heap_suggestion_auto: false,
            max_heap_blocks: 0,
            pc_free_heap: 3.0,
            min_old_gen_blocks: (1 << 20) / BLOCK_SIZE,
            compact: false,
            compact_threshold: 30.0,
            nonmoving: false,
            mark_region: false,
            capabilities: 1,
            par_gc_gen: Some(0),
            par_balance: None,
            par_gc_threads: 0,
            stats: StatsLevel::None,
            stats_target: StatsTarget::Stderr,
            machine_readable: false,
            collect_stats: false,
            sanity: SanityMode::Off,
            gc_every_allocs: 0,
            count_objects: false,
            memory_return: MemoryReturn::Lazy,
            huge_pages: false,
            profiling_header: false,
            help: false,
            verbose: 0,
            compact_overhead: None,
            eventlog: false,
            trace_text: None,
            trace_gc: true,
            trace_nonmoving_census: false,
            trace_scheduler: true,
            eventlog_path: None,
            program: vec!["gclab".into()],
            heap_profile: None,
            heap_profile_interval: 0.1,
            profile_stem: None,
        }
    }
}

/// A bad RTS option: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagError {
    /// The option as given.
    pub flag: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Characters of a bad flag an error shows, and of the reason (which may
/// quote the flag's value): a 100 KB flag was echoed whole.
const FLAG_SHOWN: usize = 60;
const REASON_SHOWN: usize = 200;

/// `text` cut to `n` characters, with `...` if it was longer.
fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = cut(&self.reason, REASON_SHOWN);
        if self.flag.chars().count() > FLAG_SHOWN {
            return write!(f, "bad RTS option `{}' ({} bytes): {reason}", cut(&self.flag, FLAG_SHOWN), self.flag.len());
        }
        write!(f, "bad RTS option `{}': {reason}", self.flag)
    }
}

/// A size as a flag would give it: `1m`, `64k`, or bytes.
fn size_text(bytes: usize) -> String {
    match bytes {
        b if b > 0 && b.is_multiple_of(1 << 30) => format!("{}g", b >> 30),
        b if b > 0 && b.is_multiple_of(1 << 20) => format!("{}m", b >> 20),
        b if b > 0 && b.is_multiple_of(1 << 10) => format!("{}k", b >> 10),
        b => b.to_string(),
    }
}

impl std::error::Error for FlagError {}

fn bad(flag: &str, reason: impl Into<String>) -> FlagError {
    FlagError { flag: flag.to_string(), reason: reason.into() }
}

/// Read a size as GHC's `decodeSize` does (See Note [Size suffixes]),
/// checking it lies in `min..=max` bytes.
pub fn decode_size(flag: &str, text: &str, min: u64, max: u64) -> Result<u64, FlagError> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')).unwrap_or(text.len());
    // An 'e' directly before a suffix-less end is part of the number; a
    // suffix letter is never 'e', so this split is unambiguous.
    let (num, suffix) = text.split_at(split);
    let value: f64 = num.parse().map_err(|_| bad(flag, format!("`{text}' is not a size (a number with an optional k, m, g or w suffix)")))?;
    let multiplier: f64 = match suffix {
        "" => 1.0,
        "k" | "K" => 1024.0,
        "m" | "M" => 1024.0 * 1024.0,
        "g" | "G" => 1024.0 * 1024.0 * 1024.0,
        "w" | "W" => WORD_SIZE as f64,
        _ => return Err(bad(flag, format!("unknown size suffix `{suffix}' (use k, m, g or w)"))),
    };
    let bytes = value * multiplier;
    if !(bytes.is_finite()) || value < 0.0 || bytes < min as f64 || bytes > max as f64 {
        return Err(bad(flag, format!("size outside allowed range ({min} - {max})")));
    }
    Ok(bytes as u64)
}

fn decode_blocks(flag: &str, text: &str, min_bytes: u64) -> Result<usize, FlagError> {
    Ok((decode_size(flag, text, min_bytes, i64::MAX as u64)? as usize) / BLOCK_SIZE)
}

fn decode_float(flag: &str, text: &str, what: &str) -> Result<f64, FlagError> {
    text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(flag, format!("`{text}' is not {what}")))
}

/// What the heap sanity checker checks after each GC (See Note [The minor
/// sanity check] in `sanity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanityMode {
    /// No checks.
    Off,
    /// The whole heap after every GC (`-DS`).
    Full,
    /// After a minor GC, what it can have changed; the whole heap after a
    /// major GC and at every `full_every`-th check.
    Minor {
        /// Every this many checks, one is whole.
        full_every: u64,
    },
}

impl SanityMode {
    /// The checks between whole-heap ones under `--sanity=minor`.
    pub const DEFAULT_FULL_EVERY: u64 = 64;

    /// Is any check on?
    pub fn is_on(self) -> bool {
        self != SanityMode::Off
    }

    fn parse(flag: &str, mode: &str) -> Result<SanityMode, FlagError> {
        match mode.split_once(':') {
            None if mode == "off" => Ok(SanityMode::Off),
            None if mode == "full" => Ok(SanityMode::Full),
            None if mode == "minor" => Ok(SanityMode::Minor { full_every: Self::DEFAULT_FULL_EVERY }),
            Some(("minor", k)) => match decode_count(flag, k, "a number of checks")? {
                0 => Err(bad(flag, "--sanity=minor:<k> needs k of 1 or more (every k-th check is whole)")),
                k => Ok(SanityMode::Minor { full_every: k as u64 }),
            },
            _ => Err(bad(flag, format!("`{mode}' is not a sanity mode (off, full, minor or minor:<k>)"))),
        }
    }
}

fn decode_count(flag: &str, text: &str, what: &str) -> Result<usize, FlagError> {
    text.parse::<usize>().map_err(|_| bad(flag, format!("`{text}' is not {what}")))
}

fn stats_target(rest: &str) -> StatsTarget {
    if rest.is_empty() || rest == "stderr" {
        StatsTarget::Stderr
    } else {
        StatsTarget::File(PathBuf::from(rest))
    }
}

impl RtsFlags {
    /// Parse RTS options (the words between `+RTS` and `-RTS`), on top of
    /// the current settings, then check the whole record.
    pub fn parse(&mut self, args: &[String]) -> Result<(), FlagError> {
        for arg in args {
            self.parse_one(arg)?;
        }
        self.validate()
    }

    /// Flags from the environment variable's value then the command line's
    /// RTS options: the command line wins because it is parsed last.
    pub fn from_env_and_args(env: Option<&str>, args: &[String]) -> Result<RtsFlags, FlagError> {
        let mut flags = RtsFlags::default();
        if let Some(env) = env {
            let words: Vec<String> = env.split_whitespace().map(str::to_string).collect();
            for w in &words {
                flags.parse_one(w)?;
            }
        }
        flags.parse(args)?;
        Ok(flags)
    }

    /// Parse one option on top of the current settings, without checking
    /// the record as a whole (`validate` does that).
    pub fn parse_one(&mut self, arg: &str) -> Result<(), FlagError> {
        if arg == "-?" {
            self.help = true;
            return Ok(());
        }
        if arg == "--count-objects" {
            self.count_objects = true;
            return Ok(());
        }
        if arg == "--disable-delayed-os-memory-return" {
            self.memory_return = MemoryReturn::Eager;
            return Ok(());
        }
        if arg == "--huge-pages" {
            self.huge_pages = true;
            return Ok(());
        }
        if let Some(n) = arg.strip_prefix("--gc-every=") {
            let n = decode_count(arg, n, "a number of allocations")?;
            if n < 1 {
                return Err(bad(arg, "--gc-every needs a positive number of allocations between forced GCs"));
            }
            self.gc_every_allocs = n as u64;
            return Ok(());
        }
        if arg == "-xn" || arg == "--nonmoving-gc" {
            self.nonmoving = true;
            return Ok(());
        }
        if arg == "-w" {
            self.mark_region = true;
            return Ok(());
        }
        if arg == "--copying-gc" {
            self.nonmoving = false;
            return Ok(());
        }
        if arg == "--machine-readable" {
            self.machine_readable = true;
            return Ok(());
        }
        if let Some(path) = arg.strip_prefix("-ol") {
            if path.is_empty() {
                return Err(bad(arg, "-ol needs a file name (-ol<file>)"));
            }
            self.eventlog_path = Some(PathBuf::from(path));
            return Ok(());
        }
        if let Some(classes) = arg.strip_prefix("-l") {
            self.eventlog = true;
            return self.event_classes(arg, classes, false);
        }
        if let Some(classes) = arg.strip_prefix("-v") {
            self.trace_text = Some(false);
            return self.event_classes(arg, classes, true);
        }
        if let Some(stem) = arg.strip_prefix("-po") {
            if stem.is_empty() {
                return Err(bad(arg, "-po needs a file stem (-po<stem>)"));
            }
            self.profile_stem = Some(PathBuf::from(stem));
            return Ok(());
        }
        if let Some(kind) = arg.strip_prefix("-h") {
            let k = match kind {
                "" | "T" => 'T',
                "d" | "y" | "m" | "c" | "r" | "o" => kind.chars().next().expect("one letter"),
                _ => return Err(bad(arg, "unknown heap profile break-down (known: -hT, -hd, -hy, -hm, -hc, -hr, -ho)")),
            };
            self.heap_profile = Some(k);
            // Cost centres and root profiling need the profiling header.
            if matches!(k, 'c' | 'r' | 'o') {
                self.profiling_header = true;
            }
            return Ok(());
        }
        if let Some(secs) = arg.strip_prefix("-i") {
            let v = decode_float(arg, secs, "a number of seconds")?;
            if v < 0.0 {
                return Err(bad(arg, "the heap profile interval must not be negative"));
            }
            self.heap_profile_interval = v;
            return Ok(());
        }
        if let Some(rest) = arg.strip_prefix("-DS") {
            if !rest.is_empty() {
                return Err(bad(arg, "debug flag -DS takes no argument"));
            }
            self.sanity = SanityMode::Full;
            return Ok(());
        }
        if let Some(mode) = arg.strip_prefix("--sanity=") {
            self.sanity = SanityMode::parse(arg, mode)?;
            return Ok(());
        }
        if let Some(rest) = arg.strip_prefix("-q") {
            return self.parse_parallel_gc(arg, rest);
        }
        let Some(body) = arg.strip_prefix('-') else {
            return Err(bad(arg, "RTS options start with `-'"));
        };
        let mut chars = body.chars();
        let Some(letter) = chars.next() else {
            return Err(bad(arg, "empty option"));
        };
        let rest = chars.as_str();
        match letter {
            'A' => self.alloc_area_blocks = decode_blocks(arg, rest, 2 * BLOCK_SIZE as u64)?,
            'n' => self.chunk_blocks = if rest.is_empty() { 0 } else { decode_blocks(arg, rest, BLOCK_SIZE as u64)? },
            'F' => {
                let f = decode_float(arg, rest, "a factor")?;
                if f < 0.0 {
                    return Err(bad(arg, "the old generation factor must not be negative"));
                }
                self.old_gen_factor = f;
            }
            'G' => {
                let g = decode_count(arg, rest, "a number of generations")?;
                if g < 1 {
                    return Err(bad(arg, "there must be at least one generation"));
                }
                self.generations = g;
                self.generations_given = true;
            }
            'H' => {
                if rest.is_empty() {
                    self.heap_suggestion_auto = true;
                } else {
                    self.heap_suggestion_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?;
                }
            }
            'M' => self.max_heap_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?,
            'm' => {
                let pc = decode_float(arg, rest, "a percentage")?;
                if !(0.0..=100.0).contains(&pc) {
                    return Err(bad(arg, "the minimum free heap must be a percentage from 0 to 100"));
                }
                self.pc_free_heap = pc;
            }
            'O' => self.min_old_gen_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?,
            'c' => {
                if rest.is_empty() {
                    self.compact = true;
                } else {
                    let pc = decode_float(arg, rest, "a percentage")?;
                    if !(0.0..=100.0).contains(&pc) {
                        return Err(bad(arg, "the compaction threshold must be a percentage from 0 to 100"));
                    }
                    self.compact_threshold = pc;
                }
            }
            'N' => {
                self.capabilities = if rest.is_empty() {
                    num_cpus::get().max(1)
                } else {
                    let n = decode_count(arg, rest, "a number of capabilities")?;
                    if n < 1 {
                        return Err(bad(arg, "there must be at least one capability"));
                    }
                    n
                };
            }
            's' => self.set_stats(StatsLevel::Summary, rest),
            'S' => self.set_stats(StatsLevel::Verbose, rest),
            't' => self.set_stats(StatsLevel::OneLine, rest),
            'T' => {
                if !rest.is_empty() {
                    return Err(bad(arg, "-T takes no argument"));
                }
                self.collect_stats = true;
            }
            'Z' if rest.is_empty() => {
                // GHC's -Z: don't squeeze out update frames. gclab's
                // mutators have no Haskell stacks, so there is nothing to
                // squeeze: accepted, no effect.
            }
            'Z' => return Err(bad(arg, "GHC's -Z takes no argument (to force a GC every n allocations, gclab's option is --gc-every=<n>)")),
            _ => return Err(bad(arg, "unknown RTS option (try +RTS -?)")),
        }
        Ok(())
    }

    /// GHC's event class letters: `a` all, `s` scheduler, `g` GC, `p` and
    /// `u` (sparks and user events: accepted, none are emitted), `-x`
    /// turns class x off; with `-v`, `t` adds timestamps.
    fn event_classes(&mut self, arg: &str, letters: &str, text: bool) -> Result<(), FlagError> {
        let mut on = true;
        for c in letters.chars() {
            match c {
                '-' => {
                    on = false;
                    continue;
                }
                'a' => {
                    self.trace_gc = on;
                    self.trace_scheduler = on;
                }
                's' => self.trace_scheduler = on,
                'g' => self.trace_gc = on,
                'n' => self.trace_nonmoving_census = on,
                'p' | 'u' => {}
                't' if text => self.trace_text = Some(true),
                _ => return Err(bad(arg, format!("unknown event class `{c}' (known: a, s, g, n, p, u{})", if text { ", t" } else { "" }))),
            }
            on = true;
        }
        Ok(())
    }

    fn set_stats(&mut self, level: StatsLevel, rest: &str) {
        self.stats = self.stats.max(level);
        self.stats_target = stats_target(rest);
        self.collect_stats = true;
    }

    /// `-qg`, `-qb`, `-qn` (`rest` follows the `-q`).
    fn parse_parallel_gc(&mut self, arg: &str, rest: &str) -> Result<(), FlagError> {
        let gen = |text: &str| -> Result<Option<usize>, FlagError> {
            if text.is_empty() {
                Ok(None)
            } else {
                decode_count(arg, text, "a generation number").map(Some)
            }
        };
        // (At the first character's end, not byte 1: `-qÔ` panicked here;
        // found by fuzzing.)
        let first = rest.chars().next().map_or(0, char::len_utf8);
        match rest.split_at(first) {
            ("g", text) => self.par_gc_gen = gen(text)?,
            ("b", text) => self.par_balance = Some(gen(text)?),
            ("n", text) => {
                let n = decode_count(arg, text, "a number of GC threads")?;
                if n < 1 {
                    return Err(bad(arg, "there must be at least one GC thread"));
                }
                self.par_gc_threads = n;
            }
            _ => return Err(bad(arg, "unknown parallel option (gclab knows -qg[<gen>], -qb[<gen>] and -qn<n>)")),
        }
        Ok(())
    }

    /// GC threads a parallel collection uses (`-qn`, default `-N`).
    pub fn gc_threads(&self) -> usize {
        if self.par_gc_threads == 0 {
            self.capabilities
        } else {
            self.par_gc_threads
        }
    }

    /// The oldest-generation threshold for load balancing (`-qb`), GHC's
    /// default filled in: balancing from generation 0 when the allocation
    /// area is at least 32 MiB (it then outgrows the caches, so locality
    /// in young collections is lost anyway), else from generation 1.
    pub fn par_balance_gen(&self) -> Option<usize> {
        match self.par_balance {
            Some(explicit) => explicit,
            None if self.alloc_area_bytes() >= 32 << 20 => Some(0),
            None => Some(1),
        }
    }

    /// Check the record as a whole: contradictions between flags.
    pub fn validate(&self) -> Result<(), FlagError> {
        if self.par_gc_threads > self.capabilities {
            return Err(bad(&format!("-qn{}", self.par_gc_threads), format!("GC threads (-qn) must be between 1 and the value of -N ({})", self.capabilities)));
        }
        if self.max_heap_blocks != 0 && self.max_heap_blocks < self.alloc_area_blocks {
            return Err(bad(
                &format!("-M{}", size_text(self.max_heap_blocks * BLOCK_SIZE)),
                format!("the maximum heap size is smaller than the allocation area (-A{})", size_text(self.alloc_area_blocks * BLOCK_SIZE)),
            ));
        }
        if self.nonmoving {
            self.validate_nonmoving()?;
        }
        if self.mark_region {
            self.validate_mark_region()?;
        }
        if self.chunk_blocks > self.alloc_area_blocks {
            return Err(bad(&format!("-n{}", self.chunk_blocks * BLOCK_SIZE), "the chunk size is larger than the allocation area (-A)"));
        }
        Ok(())
    }

    /// GHC's refusals for `-xn` (`RtsFlags.c`), each saying why.
    fn validate_nonmoving(&self) -> Result<(), FlagError> {
        if self.generations == 1 {
            return Err(bad("-xn", "the nonmoving collector needs at least two generations: its oldest is marked and swept, the young ones copied (-G1 has no young generation), as in GHC"));
        }
        if self.compact {
            return Err(bad("-xn", "the nonmoving collector cannot compact (-c): its oldest generation never moves, as in GHC"));
        }
        if self.profiling_header {
            return Err(bad("-xn", "the nonmoving collector cannot run with -hc, -hr or -ho: those need the profiling header, and GHC refuses the nonmoving collector in profiled builds"));
        }
        Ok(())
    }

    /// The refusals for `-w`, each saying why.
    fn validate_mark_region(&self) -> Result<(), FlagError> {
        if self.generations == 1 {
            return Err(bad("-w", "the mark-region collector needs at least two generations: its oldest is line-marked in place, the young ones copied into it (-G1 has no young generation)"));
        }
        if self.compact {
            return Err(bad("-w", "the mark-region collector does not compact (-c): it defragments its oldest generation by evacuating its most fragmented blocks"));
        }
        if self.nonmoving {
            return Err(bad("-w", "-w and -xn each choose the oldest generation's collector: give one"));
        }
        Ok(())
    }

    /// Allocation area per capability in bytes.
    pub fn alloc_area_bytes(&self) -> usize {
        self.alloc_area_blocks * BLOCK_SIZE
    }
}

/// Split a command line into the program's arguments and the RTS options,
/// GHC's way: `+RTS` starts RTS options, `-RTS` ends them, and `--RTS` makes
/// everything after it the program's.
pub fn split_rts_args(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut program = Vec::new();
    let mut rts = Vec::new();
    let mut in_rts = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--RTS" => {
                program.extend(iter.by_ref().cloned());
                break;
            }
            "+RTS" => in_rts = true,
            "-RTS" => in_rts = false,
            _ if in_rts => rts.push(arg.clone()),
            _ => program.push(arg.clone()),
        }
    }
    (program, rts)
}

/// The text `+RTS -?` prints. `collectors` lists (name, description).
pub fn usage(collectors: &[(&str, &str)]) -> String {
    const LINES: &[&str] = &[
        "Usage: gclab run [--collector NAME] [--json FILE] WORKLOAD [args] +RTS <rts options> -RTS",
        "",
        "RTS options may also be given in the GCLABRTS environment variable",
        "(the command line wins). Sizes take GHC's suffixes: k, m, g (powers of",
        "1024, as GHC's code reads them) and w (words).",
        "",
        "  -?         Print this message and exit",
        "  -A<size>   Allocation area size per capability (default 1m; at least 8k, two blocks)",
        "  -n<size>   Split the allocation area into chunks of this size (default 0: no chunks)",
        "  -F<n>      Old generation size factor (default 2); with -G1, the allocation",
        "             area is resized to F x live data",
        "  -G<n>      Number of generations (default 2); -G1 is a two-space collector",
        "  -H[<size>] Suggested heap size: spare room goes to the allocation area;",
        "             with no size, the heap size at the previous GC",
        "  -M<size>   Maximum heap size (default unlimited); past it the run stops",
        "             with \"Heap exhausted\" and exit code 251",
        "  -m<n>      Minimum % of the heap that must be free for allocation (default 3)",
        "  -O<size>   Minimum old generation size (default 1m)",
        "  -c         Compact the oldest generation in place (compacting collector)",
        "  -c<n>      Compact automatically when live data exceeds n% of -M (default 30);",
        "             without -M there is no maximum, so this has no effect (as in GHC)",
        "  -w         Mark-region (Immix) for the oldest generation (the immix collector)",
        "  -xn        Nonmoving, concurrently marked oldest generation (the nonmoving collector)",
        "  -N[<n>]    Capabilities (mutator threads); -N alone: the number of cores",
        "  -qg[<gen>] Parallel GC for generation gen and older (default 0); -qg alone: none",
        "  -qb[<gen>] Load balancing (work stealing) in parallel GCs of generation gen and",
        "             older (default 1, or 0 with -A32m or more); -qb alone: none",
        "  -qn<n>     GC threads for parallel GC (default: the value of -N, at most -N)",
        "  -s[<file>] Summary statistics at exit (to stderr, or the file)",
        "  -S[<file>] A line per GC, then the summary",
        "  -t[<file>] One line of statistics; with --machine-readable, GHC's key/value list",
        "  --machine-readable  Statistics as a list of key/value pairs",
        "  --disable-delayed-os-memory-return  Give freed memory back to the OS at once",
        "             (MADV_DONTNEED), so the RSS shows it; by default the kernel takes",
        "             it back lazily (MADV_FREE), which is cheaper",
        "  --huge-pages  (gclab) Back the heap with 2 MiB transparent huge pages",
        "             (megablocks mapped in aligned pairs, MADV_HUGEPAGE)",
        "  -T         Collect statistics (for the JSON record) without printing them",
        "  -DS        Run the heap sanity checker after every GC (the whole heap)",
        "  --sanity=minor[:<k>]  (gclab) After a minor GC, check only what it can have",
        "             changed, and the whole heap at every k-th check (default 64);",
        "             --sanity=full is -DS, --sanity=off none",
        "  -Z         Don't squeeze out update frames (GHC's; no effect: gclab has no stacks)",
        "  --gc-every=<n>  (gclab) Force a GC every n allocations, for stress tests",
        "  --count-objects  (gclab) Count the objects allocated (for the JSON record's",
        "             allocated_objects: the average object size)",
        "  -l[flags]  Write a binary eventlog, <program>.eventlog (GHC's format; flags:",
        "             a all, s scheduler, g GC and heap, -x turns class x off)",
        "  -ol<file>  Write the eventlog to <file>",
        "  -v[flags]  Print the events as text on stdout (flags as -l, t: timestamps)",
        "  -h<b>      Heap profile to <program>.hp, broken down by T closure type, d closure",
        "             description, y type, m module, c cost centre, r retainer set,",
        "             o user-specified roots (-po<stem>: write <stem>.hp)",
        "  -i<secs>   Seconds of mutator time between heap profile samples (default 0.1;",
        "             0: every GC)",
        "",
        "Collectors (select with --collector NAME; GHC's flags pick the built-in ones):",
    ];
    let mut s = LINES.join("\n");
    s.push('\n');
    for (name, desc) in collectors {
        s.push_str(&format!("  {name:<12} {desc}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<RtsFlags, FlagError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        RtsFlags::from_env_and_args(None, &args)
    }

    fn err(args: &[&str]) -> FlagError {
        parse(args).expect_err("expected a bad flag")
    }

    #[test]
    fn sizes_follow_ghc_code() {
        assert_eq!(decode_size("-A", "1m", 0, u64::MAX).unwrap(), 1 << 20);
        assert_eq!(decode_size("-A", "64k", 0, u64::MAX).unwrap(), 64 * 1024);
        assert_eq!(decode_size("-A", "2G", 0, u64::MAX).unwrap(), 2 << 30);
        assert_eq!(decode_size("-A", "100w", 0, u64::MAX).unwrap(), 800);
        assert_eq!(decode_size("-A", "1.5m", 0, u64::MAX).unwrap(), 3 << 19);
        assert_eq!(decode_size("-A", "4096", 0, u64::MAX).unwrap(), 4096);
    }

    #[test]
    fn sanity_modes() {
        assert_eq!(parse(&["--sanity=minor"]).unwrap().sanity, SanityMode::Minor { full_every: SanityMode::DEFAULT_FULL_EVERY });
        assert_eq!(parse(&["--sanity=minor:4"]).unwrap().sanity, SanityMode::Minor { full_every: 4 });
        assert_eq!(parse(&["-DS", "--sanity=minor:1"]).unwrap().sanity, SanityMode::Minor { full_every: 1 });
        assert_eq!(parse(&["--sanity=minor", "--sanity=full"]).unwrap().sanity, SanityMode::Full);
        assert_eq!(parse(&["-DS", "--sanity=off"]).unwrap().sanity, SanityMode::Off);
        assert_eq!(parse(&[]).unwrap().sanity, SanityMode::Off);
    }

    #[test]
    fn good_flags() {
        let f = parse(&["-A8k", "-n4k", "-F1.5", "-G3", "-H64m", "-M1g", "-m5", "-O2m", "-c", "-s", "-DS", "--gc-every=1", "-Z"]).unwrap();
        assert_eq!(f.alloc_area_blocks, 2);
        assert_eq!(f.chunk_blocks, 1);
        assert_eq!(f.old_gen_factor, 1.5);
        assert_eq!(f.generations, 3);
        assert_eq!(f.heap_suggestion_blocks, 64 * 256);
        assert_eq!(f.max_heap_blocks, 256 * 1024);
        assert_eq!(f.pc_free_heap, 5.0);
        assert_eq!(f.min_old_gen_blocks, 512);
        assert!(f.compact && f.sanity == SanityMode::Full);
        assert_eq!(f.stats, StatsLevel::Summary);
        assert_eq!(f.gc_every_allocs, 1);
        assert!(!f.count_objects && parse(&["--count-objects"]).unwrap().count_objects);
        assert_eq!(f.memory_return, MemoryReturn::Lazy);
        assert_eq!(parse(&["--disable-delayed-os-memory-return"]).unwrap().memory_return, MemoryReturn::Eager);
        assert!(!f.huge_pages && parse(&["--huge-pages"]).unwrap().huge_pages);
        let f = parse(&["-c50", "-Sgc.log", "-H"]).unwrap();
        assert_eq!(f.compact_threshold, 50.0);
        assert!(!f.compact);
        assert!(f.heap_suggestion_auto);
        assert_eq!(f.stats_target, StatsTarget::File("gc.log".into()));
    }

    #[test]
    fn parallel_gc_flags() {
        let f = parse(&["-N4"]).unwrap();
        assert_eq!((f.gc_threads(), f.par_gc_gen, f.par_balance_gen()), (4, Some(0), Some(1)), "GHC's defaults");
        let f = parse(&["-N4", "-qn2", "-qg1", "-qb0"]).unwrap();
        assert_eq!((f.gc_threads(), f.par_gc_gen, f.par_balance_gen()), (2, Some(1), Some(0)));
        let f = parse(&["-N4", "-qg", "-qb"]).unwrap();
        assert_eq!((f.par_gc_gen, f.par_balance_gen()), (None, None), "alone: off");
        assert_eq!(parse(&["-N2", "-A32m"]).unwrap().par_balance_gen(), Some(0), "big -A balances young GCs too");
        assert_eq!(parse(&["-N2", "-A32m", "-qb1"]).unwrap().par_balance_gen(), Some(1));
        assert!(err(&["-N2", "-qn3"]).to_string().contains("between 1 and the value of -N"));
    }

    #[test]
    fn nonmoving_flags_and_refusals() {
        assert!(parse(&["-xn"]).unwrap().nonmoving && parse(&["--nonmoving-gc"]).unwrap().nonmoving);
        assert!(!parse(&["-xn", "--copying-gc"]).unwrap().nonmoving);
        assert!(parse(&["-l", "-ln"]).unwrap().trace_nonmoving_census);
        assert!(parse(&["-w"]).unwrap().mark_region);
        for refused in [&["-w", "-G1"][..], &["-w", "-c"][..], &["-w", "-xn"][..]] {
            let e = parse(refused).unwrap_err().to_string();
            assert!(e.contains("-w"), "{refused:?}: {e}");
        }
        for refused in [&["-xn", "-G1"][..], &["-xn", "-c"][..], &["-G1", "-xn"][..], &["-xn", "-hc"][..]] {
            let e = parse(refused).and_then(|f| f.validate().map(|_| f)).err().unwrap_or_else(|| panic!("{refused:?} accepted")).to_string();
            assert!(e.contains("-xn") && e.contains("nonmoving"), "{refused:?}: {e}");
        }
    }

    #[test]
    fn bad_flags_name_the_flag() {
        for (args, needle) in [
            (&["-A0"][..], "-A0"),
            (&["-A4k"][..], "-A4k"),
            (&["-Gx"][..], "-Gx"),
            (&["-G0"][..], "-G0"),
            (&["-F-1"][..], "-F-1"),
            (&["-Q"][..], "-Q"),
            (&["-c101"][..], "-c101"),
            (&["-m101"][..], "-m101"),
            (&["-A1q"][..], "-A1q"),
            (&["-N0"][..], "-N0"),
            (&["-Ax"][..], "-Ax"),
            (&["-qx"][..], "-qx"),
            (&["-qÔ"][..], "-qÔ"),
            (&["-qgx"][..], "-qgx"),
            (&["-qn0"][..], "-qn0"),
            (&["-N2", "-qn3"][..], "-qn3"),
            (&["-hx"][..], "-hx"),
            (&["-i-1"][..], "-i-1"),
            (&["-lz"][..], "-lz"),
            (&["-Z3"][..], "-Z3"),
            (&["--gc-every=0"][..], "--gc-every=0"),
            (&["--sanity=minor:0"][..], "--sanity=minor:0"),
            (&["--sanity=minor:x"][..], "--sanity=minor:x"),
            (&["--sanity=most"][..], "--sanity=most"),
            (&["-ol"][..], "-ol"),
            (&["nonsense"][..], "nonsense"),
        ] {
            let e = err(args);
            assert_eq!(e.flag, needle, "{e}");
            assert!(e.to_string().contains(needle));
        }
    }

    #[test]
    fn max_heap_below_alloc_area_is_refused() {
        let e = err(&["-A4m", "-M1m"]);
        assert!(e.to_string().contains("smaller than the allocation area"), "{e}");
    }

    #[test]
    fn environment_then_command_line() {
        let args: Vec<String> = vec!["-A2m".into()];
        let f = RtsFlags::from_env_and_args(Some("-A4m -G3"), &args).unwrap();
        assert_eq!(f.alloc_area_blocks, 512, "the command line wins");
        assert_eq!(f.generations, 3, "the environment still counts");
        assert!(RtsFlags::from_env_and_args(Some("-Gx"), &[]).is_err());
    }

    #[test]
    fn split_args() {
        let a: Vec<String> = ["x", "+RTS", "-s", "-A1m", "-RTS", "y", "+RTS", "-G3", "--RTS", "+RTS", "z"].iter().map(|s| s.to_string()).collect();
        let (prog, rts) = split_rts_args(&a);
        assert_eq!(prog, vec!["x", "y", "+RTS", "z"]);
        assert_eq!(rts, vec!["-s", "-A1m", "-G3"]);
    }
}
