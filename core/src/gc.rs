//! OCaml's `Gc` module for gclab's mutators (seed 004 is the reference for
//! names and meanings). A workload calls `gc::stat(m)`, `gc::set(m, c)`,
//! `gc::finalise(m, f, v)` and so on, as an OCaml program calls `Gc.stat ()`.
//!
//! How OCaml's two heaps map onto gclab's generations (See Note [Minor and
//! major heaps]), and how each `control` field maps onto an RTS flag, is
//! documented on the items below. A field gclab cannot honour is refused
//! with an error naming it, never ignored.
//!
//! Note [Minor and major heaps]
//! ----------------------------------------
//! OCaml has a minor heap (the nursery) and a major heap. In gclab the
//! "minor heap" is generation 0 with its nursery, and the "major heap" is
//! every older generation (with `-G1`, generation 0 is both). So:
//! `minor_words` counts every word allocated (gclab allocates everything,
//! large objects included, in generation 0); `promoted_words` counts words
//! the GC moved from generation 0 into an older one; `major_words` equals
//! `promoted_words` (nothing is allocated directly in an old generation),
//! so `allocated_bytes = (minor + major - promoted) x 8` is every byte
//! allocated. A minor collection is any GC (OCaml's major cycles start with
//! one too); a major collection is a GC of the oldest generation.
//! `heap_chunks` counts megablocks mapped; `heap_words`, `top_heap_words`
//! count block space held by generations and its peak. `live_*` are walked
//! over the whole heap (both "heaps": after `full_major` that is exactly
//! the live data, the figure the sanity checker counts); `free_*`,
//! `largest_free` and `fragments` are the block allocator's free groups and
//! the generations' slop.

use crate::constants::{BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::heap_walk::for_each_object;
use crate::mutator::{Alarm, FinalizerKind, Handle, LastFinalizer, Mutator};
use crate::stats::Stats;
use std::fmt;
use std::io::Write;

/// A `gc` API call that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GcError {
    /// OCaml's `Invalid_argument`: the named function does not accept the value.
    InvalidArgument(String),
    /// A `control` field gclab cannot honour, with why.
    Unsupported {
        /// The field.
        field: &'static str,
        /// Why not.
        reason: String,
    },
}

impl fmt::Display for GcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcError::InvalidArgument(what) => write!(f, "Invalid_argument: {what}"),
            GcError::Unsupported { field, reason } => write!(f, "Gc.set: field `{field}' cannot be honoured: {reason}"),
        }
    }
}

impl std::error::Error for GcError {}

/// OCaml's `Gc.stat` record (words are machine words).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stat {
    /// Words allocated (See Note [Minor and major heaps]).
    pub minor_words: f64,
    /// Words moved from generation 0 into older generations.
    pub promoted_words: f64,
    /// Words put in the older generations: equal to `promoted_words`.
    pub major_words: f64,
    /// GCs of any kind.
    pub minor_collections: u64,
    /// GCs of the oldest generation.
    pub major_collections: u64,
    /// Block space held by the generations, in words.
    pub heap_words: u64,
    /// Megablocks mapped.
    pub heap_chunks: u64,
    /// Words of objects in the heap (walked; 0 in `quick_stat`).
    pub live_words: u64,
    /// Objects in the heap (walked; 0 in `quick_stat`).
    pub live_blocks: u64,
    /// Words in free block groups (walked; 0 in `quick_stat`).
    pub free_words: u64,
    /// Free block groups (walked; 0 in `quick_stat`).
    pub free_blocks: u64,
    /// Largest free block group in words (walked; 0 in `quick_stat`).
    pub largest_free: u64,
    /// Slop: words of block space the generations hold beyond their objects (0 in `quick_stat`).
    pub fragments: u64,
    /// Compactions of the oldest generation.
    pub compactions: u64,
    /// Peak block space in use, in words.
    pub top_heap_words: u64,
    /// Words in the mutator's root stack.
    pub stack_size: u64,
    /// Major collections the program asked for.
    pub forced_major_collections: u64,
}

fn counters_of(stats: &Stats, allocated_words: u64) -> (f64, f64, f64) {
    let promoted = stats.promoted_words as f64;
    (allocated_words as f64, promoted, promoted)
}

/// `Gc.quick_stat`: the counters, without walking the heap.
pub fn quick_stat(m: &Mutator<'_>) -> Stat {
    let stats = m.stats();
    let (minor, promoted, major) = counters_of(&stats, m.allocated_words());
    let heap = m.rts().heap_ref();
    let blocks = heap.blocks.lock();
    Stat {
        minor_words: minor,
        promoted_words: promoted,
        major_words: major,
        minor_collections: stats.gcs,
        major_collections: stats.major_gcs,
        heap_words: (heap.generation_blocks() * BLOCK_SIZE / WORD_SIZE) as u64,
        heap_chunks: blocks.mblocks().mapped() as u64,
        compactions: stats.gens.iter().map(|g| g.compactions).sum(),
        top_heap_words: (blocks.peak_used_blocks() * BLOCK_SIZE / WORD_SIZE) as u64,
        stack_size: m.root_stack_words() as u64,
        forced_major_collections: stats.forced_major_collections,
        ..Stat::default()
    }
}

/// `Gc.stat`: `quick_stat` plus the fields that need a walk of the heap.
pub fn stat(m: &mut Mutator<'_>) -> Stat {
    m.flush_allocation_pointer();
    let mut s = quick_stat(m);
    m.rts().with_world_stopped(|heap, caps| {
        // SAFETY: `with_world_stopped` stopped the world.
        unsafe {
            for_each_object(heap, caps, |_, _, size, _| {
                s.live_blocks += 1;
                s.live_words += size as u64;
            })
        }
    });
    let heap = m.rts().heap_ref();
    let free = heap.blocks.lock().free_group_sizes();
    s.free_blocks = free.len() as u64;
    s.free_words = free.iter().map(|&b| (b * BLOCK_SIZE / WORD_SIZE) as u64).sum();
    s.largest_free = free.iter().map(|&b| (b * BLOCK_SIZE / WORD_SIZE) as u64).max().unwrap_or(0);
    s.fragments = (heap.slop_bytes() / WORD_SIZE) as u64;
    s
}

/// `Gc.counters`: (minor_words, promoted_words, major_words).
pub fn counters(m: &Mutator<'_>) -> (f64, f64, f64) {
    counters_of(&m.stats(), m.allocated_words())
}

/// `Gc.minor_words`: words allocated so far, the current block included.
pub fn minor_words(m: &Mutator<'_>) -> f64 {
    m.allocated_words() as f64
}

/// `Gc.allocated_bytes`: `(minor_words + major_words - promoted_words) x 8`.
pub fn allocated_bytes(m: &Mutator<'_>) -> f64 {
    let (minor, promoted, major) = counters(m);
    (minor + major - promoted) * WORD_SIZE as f64
}

/// `Gc.print_stat`: `stat` printed one field a line, as OCaml prints it.
pub fn print_stat(m: &mut Mutator<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    let s = stat(m);
    write_stat(&s, out)
}

fn write_stat(s: &Stat, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "minor_collections:      {}", s.minor_collections)?;
    writeln!(out, "major_collections:      {}", s.major_collections)?;
    writeln!(out, "compactions:            {}", s.compactions)?;
    writeln!(out, "forced_major_collections: {}", s.forced_major_collections)?;
    writeln!(out)?;
    writeln!(out, "minor_words:    {:.0}", s.minor_words)?;
    writeln!(out, "promoted_words: {:.0}", s.promoted_words)?;
    writeln!(out, "major_words:    {:.0}", s.major_words)?;
    writeln!(out)?;
    writeln!(out, "top_heap_words: {}", s.top_heap_words)?;
    writeln!(out, "heap_words:     {}", s.heap_words)?;
    writeln!(out, "live_words:     {}", s.live_words)?;
    writeln!(out, "free_words:     {}", s.free_words)?;
    writeln!(out, "largest_free:   {}", s.largest_free)?;
    writeln!(out, "fragments:      {}", s.fragments)?;
    writeln!(out)?;
    writeln!(out, "live_blocks: {}", s.live_blocks)?;
    writeln!(out, "free_blocks: {}", s.free_blocks)?;
    writeln!(out, "heap_chunks: {}", s.heap_chunks)?;
    writeln!(out, "stack_size:  {}", s.stack_size)
}

/// The counters of a finished run, printed as `print_stat` prints them
/// (verbose bit 0x400 at exit).
pub fn print_stats(stats: &Stats, out: &mut dyn Write) -> std::io::Result<()> {
    let words = stats.allocated_bytes / WORD_SIZE as u64;
    let (minor, promoted, major) = counters_of(stats, words);
    let s = Stat {
        minor_words: minor,
        promoted_words: promoted,
        major_words: major,
        minor_collections: stats.gcs,
        major_collections: stats.major_gcs,
        compactions: stats.gens.iter().map(|g| g.compactions).sum(),
        forced_major_collections: stats.forced_major_collections,
        ..Stat::default()
    };
    write_stat(&s, out)
}

/// OCaml's `Gc.control` record, mapped onto gclab's RTS settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    /// Words of allocation area per capability: `-A`. Setting it re-cuts
    /// the nursery after a minor collection, as OCaml does.
    pub minor_heap_size: usize,
    /// Fixed in gclab: the heap grows by megablocks (131072 words). Any
    /// other value is refused.
    pub major_heap_increment: usize,
    /// `-F` as a percentage of overhead: `F = 1 + space_overhead / 100`.
    pub space_overhead: usize,
    /// GC messages on stderr: 0x001 major cycles, 0x002 minor collections,
    /// 0x004 heap growth and shrinkage, 0x010 changes of GC parameters,
    /// 0x400 statistics at exit. Other bits are refused.
    pub verbose: u32,
    /// Compact the oldest generation when its wasted space exceeds this %
    /// of its live data: 0 at every major GC, 1000000 or more never.
    /// Needs a collector that compacts (`compacting`) unless "never".
    pub max_overhead: usize,
    /// gclab's mutators have no stack to limit: only 0 is accepted.
    pub stack_limit: usize,
    /// Accepted (0, 1 or 2) and not meaningful: gclab allocates by bumping
    /// a pointer in the nursery and the old generation by copying or
    /// compaction, so there is no free-list policy to choose.
    pub allocation_policy: usize,
    /// OCaml's smoothing window for major GC speed: gclab's major GCs are
    /// not incremental, so only the default (1) is accepted.
    pub window_size: usize,
    /// Custom blocks do not exist in gclab: only the defaults are accepted.
    pub custom_major_ratio: usize,
    /// See `custom_major_ratio`.
    pub custom_minor_ratio: usize,
    /// See `custom_major_ratio`.
    pub custom_minor_max_size: usize,
}

const MEGABLOCK_WORDS: usize = MBLOCK_SIZE / WORD_SIZE;
const VERBOSE_BITS: u32 = 0x001 | 0x002 | 0x004 | 0x010 | 0x400;

/// `Gc.get`.
pub fn get(m: &Mutator<'_>) -> Control {
    let f = m.rts().flags();
    let max_overhead = match f.compact_overhead {
        Some(o) => o,
        None if f.compact => 0,
        None => 1_000_000,
    };
    Control {
        minor_heap_size: f.alloc_area_blocks * BLOCK_SIZE / WORD_SIZE,
        major_heap_increment: MEGABLOCK_WORDS,
        space_overhead: ((f.old_gen_factor - 1.0) * 100.0).round().max(0.0) as usize,
        verbose: f.verbose,
        max_overhead,
        stack_limit: 0,
        allocation_policy: 2,
        window_size: 1,
        custom_major_ratio: 44,
        custom_minor_ratio: 100,
        custom_minor_max_size: 8192,
    }
}

fn unsupported(field: &'static str, reason: impl Into<String>) -> GcError {
    GcError::Unsupported { field, reason: reason.into() }
}

/// `Gc.set`: apply every field, or none if any cannot be honoured.
pub fn set(m: &mut Mutator<'_>, c: Control) -> Result<(), GcError> {
    let old = get(m);
    let fixed = [
        ("major_heap_increment", c.major_heap_increment, old.major_heap_increment, "the heap grows by megablocks"),
        ("stack_limit", c.stack_limit, old.stack_limit, "gclab's mutators have no stack"),
        ("window_size", c.window_size, old.window_size, "major GCs are not incremental"),
        ("custom_major_ratio", c.custom_major_ratio, old.custom_major_ratio, "there are no custom blocks"),
        ("custom_minor_ratio", c.custom_minor_ratio, old.custom_minor_ratio, "there are no custom blocks"),
        ("custom_minor_max_size", c.custom_minor_max_size, old.custom_minor_max_size, "there are no custom blocks"),
    ];
    for (field, new, current, why) in fixed {
        if new != current {
            return Err(unsupported(field, format!("{why} (only {current} is accepted, got {new})")));
        }
    }
    if c.allocation_policy > 2 {
        return Err(unsupported("allocation_policy", format!("OCaml knows policies 0, 1 and 2, not {}", c.allocation_policy)));
    }
    if c.verbose & !VERBOSE_BITS != 0 {
        return Err(unsupported("verbose", format!("bits {:#x} are not implemented (known: {VERBOSE_BITS:#x})", c.verbose & !VERBOSE_BITS)));
    }
    if c.max_overhead < 1_000_000 && !m.rts().can_compact() {
        return Err(unsupported("max_overhead", format!("compaction needs a collector that compacts (+RTS -c), not {}", m.rts().collector_name())));
    }
    let words_per_block = BLOCK_SIZE / WORD_SIZE;
    let blocks = c.minor_heap_size.div_ceil(words_per_block);
    if blocks < 2 {
        return Err(unsupported("minor_heap_size", format!("at least {} words (two blocks, GHC's smallest -A)", 2 * words_per_block)));
    }
    let mut flags = m.rts().flags().clone();
    flags.alloc_area_blocks = blocks;
    flags.old_gen_factor = 1.0 + c.space_overhead as f64 / 100.0;
    flags.verbose = c.verbose;
    flags.compact_overhead = if c.max_overhead == old.max_overhead && m.rts().flags().compact_overhead.is_none() { None } else { Some(c.max_overhead) };
    flags.validate().map_err(|e| unsupported("minor_heap_size", e.to_string()))?;
    if c.verbose & 0x010 != 0 {
        let _ = writeln!(std::io::stderr(), "gclab: Gc.set: -A{}k -F{} max_overhead {}", blocks * BLOCK_SIZE / 1024, flags.old_gen_factor, c.max_overhead);
    }
    if blocks != m.rts().flags().alloc_area_blocks {
        minor(m);
    }
    m.set_rts_flags(flags);
    Ok(())
}

/// `Gc.minor`: a minor collection (generation 0; the policy may add older
/// generations that are past their limits, as in any GC).
pub fn minor(m: &mut Mutator<'_>) {
    m.perform_gc(false);
}

/// `Gc.major`: a major collection.
pub fn major(m: &mut Mutator<'_>) {
    m.perform_gc(true);
}

/// `Gc.major_slice`: gclab's major GCs are not incremental, so a slice is
/// a whole major collection; returns 0, as OCaml does when the cycle ends.
pub fn major_slice(m: &mut Mutator<'_>, _n: usize) -> usize {
    major(m);
    0
}

/// `Gc.full_major`: a major collection, the finalisers it makes due, and
/// another major collection, so everything unreachable now is collected
/// and finalised.
pub fn full_major(m: &mut Mutator<'_>) {
    major(m);
    major(m);
}

/// `Gc.compact`: a major collection that compacts the oldest generation.
/// Needs a collector that compacts.
pub fn compact(m: &mut Mutator<'_>) -> Result<(), GcError> {
    if !m.rts().can_compact() {
        return Err(GcError::InvalidArgument(format!("Gc.compact: the {} collector does not compact (use +RTS -c)", m.rts().collector_name())));
    }
    m.perform_compaction();
    Ok(())
}

fn check_heap_value(m: &Mutator<'_>, v: Handle, what: &str) -> Result<(), GcError> {
    if m.is_static(v) {
        return Err(GcError::InvalidArgument(format!("{what}: the value is static, not in the heap")));
    }
    Ok(())
}

/// `Gc.finalise f v`: call `f` with `v` after the first GC that finds `v`
/// unreachable (See Note [Finaliser order] in `mutator::finalise`). Several per value
/// are allowed.
pub fn finalise(m: &mut Mutator<'_>, f: crate::mutator::Finalizer, v: Handle) -> Result<(), GcError> {
    check_heap_value(m, v, "Gc.finalise")?;
    let value = m.root_word(v);
    let base = m.depth();
    m.new_weak_raw(v, value, Some(FinalizerKind::Value(f)));
    m.truncate(base);
    Ok(())
}

/// `Gc.finalise_last f v`: call `f` (without `v`) once `v` is unreachable
/// and every weak pointer to it has been cleared; after every `finalise`
/// finaliser of the same GC.
pub fn finalise_last(m: &mut Mutator<'_>, f: LastFinalizer, v: Handle) -> Result<(), GcError> {
    check_heap_value(m, v, "Gc.finalise_last")?;
    let base = m.depth();
    m.new_weak_raw(v, crate::info::NULL_OBJECT.addr(), Some(FinalizerKind::Last(f)));
    m.truncate(base);
    Ok(())
}

/// `Gc.finalise_release`: from inside a finaliser, let the next finalisers
/// run (at the next GC hook) without waiting for this one to return.
pub fn finalise_release(m: &mut Mutator<'_>) {
    m.running_finalizers = false;
}

/// An alarm's handle (`Gc.alarm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlarmId(u64);

/// `Gc.create_alarm f`: run `f` at the end of every major GC.
pub fn create_alarm(m: &mut Mutator<'_>, f: Alarm) -> AlarmId {
    AlarmId(m.rts().add_alarm(f))
}

/// `Gc.delete_alarm a`: stop it; deleting twice is harmless.
pub fn delete_alarm(m: &mut Mutator<'_>, a: AlarmId) {
    m.rts().remove_alarm(a.0);
}

/// OCaml's `Gc.Memprof`: sample allocated words at a rate, with callbacks
/// on allocation, promotion and deallocation of tracked blocks (See
/// core's `memprof` module).
pub mod memprof {
    use super::GcError;
    use crate::mutator::Mutator;
    pub use crate::memprof::{AllocationInfo, AllocationSource, Tracker};

    /// Start sampling every allocated word with probability `sampling_rate`.
    pub fn start(m: &mut Mutator<'_>, sampling_rate: f64, tracker: Tracker) -> Result<(), GcError> {
        if !(0.0..=1.0).contains(&sampling_rate) {
            return Err(GcError::InvalidArgument(format!("Gc.Memprof.start: sampling_rate {sampling_rate} is not in [0, 1]")));
        }
        m.memprof_start(sampling_rate, tracker);
        Ok(())
    }

    /// Stop sampling; tracked blocks are no longer reported.
    pub fn stop(m: &mut Mutator<'_>) {
        m.memprof_stop();
    }
}
