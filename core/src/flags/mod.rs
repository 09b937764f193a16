//! RTS flags: GHC's `+RTS ... -RTS` options, parsed by hand.
//!
//! This module owns the `RtsFlags` record and its parser. It keeps one
//! invariant: a flags record that parsed is consistent (every size in range,
//! no contradiction such as `-M` below `-A`), so nothing downstream checks
//! again. Errors name the flag and say what was wrong.
//!
//! Every option is one entry of one table (`table`), grouped by family in
//! modules of their own (`sizes`, `collectors`, `parallel`, `statistics`,
//! `memory`, `debug`, `tracing`, `profiling`); the parser looks options up
//! there and `+RTS -?` is printed from it. `decode` reads values and makes
//! the errors; `validate` checks the record as a whole.
//!
//! Note [Size suffixes]
//! ----------------------------------------
//! GHC's user's guide says that `k`, `m` and `g` multiply by 1000, 10^6 and
//! 10^9, but GHC's code (`decodeSize` in `rts/RtsFlags.c`) multiplies by
//! 1024, 1024^2 and 1024^3, and reads `w` as words. gclab follows the code,
//! since that is what the numbers in GHC's own output reflect: `-A1m` is 256
//! blocks. A fractional number is allowed (`-A1.5m`), as GHC reads it with
//! `strtod`; unlike GHC, trailing junk after the suffix is an error.

mod collectors;
mod debug;
mod flag;
mod memory;
mod parallel;
mod profiling;
mod sizes;
mod statistics;
pub mod table;
mod tracing;
mod validate;

pub use crate::option_value::{decode_size, FlagError, MAX_FACTOR, MAX_SIZE};
pub use parallel::machine_cores;

use crate::constants::BLOCK_SIZE;
use crate::mblock::MemoryReturn;
use crate::option_value::bad;
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
    /// `--heap-policy=NAME[:params]` (gclab's): how far the collected
    /// space grows before a major GC (See `heap_policy`); GHC's rule by
    /// default.
    pub heap_policy: crate::heap_policy::HeapPolicyChoice,
    /// `-K`: the largest evaluation stack in bytes; 0 for the default,
    /// 80% of physical memory (See `Mutator::max_stack_words`).
    pub max_stack_bytes: usize,
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
    /// Keep a reserve of megablocks touched beside the mutators (on
    /// unless `--no-pretouch`). See Note [Touching fresh memory off the
    /// pause] in `mblock_threads::pretouch`.
    pub pretouch: bool,
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
            heap_policy: crate::heap_policy::HeapPolicyChoice::default(),
            max_stack_bytes: 0,
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
            pretouch: true,
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
    /// RTS options: the command line wins because it is parsed last. A
    /// contradiction with an option the environment gave names it.
    pub fn from_env_and_args(env: Option<&str>, args: &[String]) -> Result<RtsFlags, FlagError> {
        let mut flags = RtsFlags::default();
        let words: Vec<String> = env.map(|e| e.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
        for w in &words {
            flags.parse_one(w)?;
        }
        flags.parse(args).map_err(|e| match words.iter().find(|w| same_option(w, &e.flag)) {
            // A contradiction with an option from the environment: name it.
            Some(w) if !args.iter().any(|a| a == &e.flag) => e.set_by_environment(w),
            _ => e,
        })?;
        Ok(flags)
    }

    /// Parse one option on top of the current settings, without checking
    /// the record as a whole (`validate` does that).
    pub fn parse_one(&mut self, arg: &str) -> Result<(), FlagError> {
        match table::lookup(arg) {
            Some(flag) => (flag.set)(self, arg, &arg[flag.prefix.len()..]),
            None if !arg.starts_with('-') => Err(bad(arg, "RTS options start with `-'")),
            None if arg == "-" => Err(bad(arg, "empty option")),
            None => Err(bad(arg, "unknown RTS option (try +RTS -?)")),
        }
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

/// Do two options set the same thing (`-M1m` and `-M2m`)?
fn same_option(a: &str, b: &str) -> bool {
    match (table::lookup(a), table::lookup(b)) {
        (Some(x), Some(y)) => std::ptr::eq(x, y),
        _ => false,
    }
}

/// The text `+RTS -?` prints: every option of the table, then the
/// collectors, `collectors` listing (name, description).
pub fn usage(collectors: &[(&str, &str)]) -> String {
    const HEADER: &[&str] = &[
        "Usage: gclab run [--collector NAME] [--json FILE] WORKLOAD [args] +RTS <rts options> -RTS",
        "",
        "RTS options may also be given in the GCLABRTS environment variable",
        "(the command line wins). Sizes take GHC's suffixes: k, m, g (powers of",
        "1024, as GHC's code reads them) and w (words).",
        "",
    ];
    let mut s = HEADER.join("\n");
    s.push('\n');
    for line in table::help_lines() {
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("\nCollectors (select with --collector NAME; GHC's flags pick the built-in ones):\n");
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
        assert!(f.pretouch && !parse(&["--no-pretouch"]).unwrap().pretouch);
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
        for refused in [&["-w", "-c"][..], &["-w", "-xn"][..]] {
            let e = parse(refused).unwrap_err().to_string();
            assert!(e.contains("-w"), "{refused:?}: {e}");
        }
        assert_eq!(parse(&["-w", "-G1"]).unwrap().generations, 1, "-w -G1 is whole-heap Immix");
        let f = parse(&["-c", "-G1"]).unwrap();
        assert!(f.compact && f.generations == 1, "-c -G1 is whole-heap mark-compact");
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
