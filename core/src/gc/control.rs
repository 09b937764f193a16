//! `Gc.get` and `Gc.set` (OCaml's `control` record, mapped onto gclab's
//! RTS settings), and the collections a program asks for.

use super::GcError;
use crate::constants::{BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::mutator::Mutator;
use std::io::Write;

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
    let f = m.runtime().flags();
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
    if c.max_overhead < 1_000_000 && !m.runtime().can_compact() {
        return Err(unsupported("max_overhead", format!("compaction needs a collector that compacts (+RTS -c), not {}", m.runtime().collector_name())));
    }
    let words_per_block = BLOCK_SIZE / WORD_SIZE;
    let blocks = c.minor_heap_size.div_ceil(words_per_block);
    if blocks < 2 {
        return Err(unsupported("minor_heap_size", format!("at least {} words (two blocks, GHC's smallest -A)", 2 * words_per_block)));
    }
    let mut flags = m.runtime().flags().clone();
    flags.alloc_area_blocks = blocks;
    flags.old_gen_factor = 1.0 + c.space_overhead as f64 / 100.0;
    flags.verbose = c.verbose;
    flags.compact_overhead = if c.max_overhead == old.max_overhead && m.runtime().flags().compact_overhead.is_none() { None } else { Some(c.max_overhead) };
    flags.validate().map_err(|e| unsupported("minor_heap_size", e.to_string()))?;
    if c.verbose & 0x010 != 0 {
        let _ = writeln!(std::io::stderr(), "gclab: Gc.set: -A{}k -F{} max_overhead {}", blocks * BLOCK_SIZE / 1024, flags.old_gen_factor, c.max_overhead);
    }
    if blocks != m.runtime().flags().alloc_area_blocks {
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
    if !m.runtime().can_compact() {
        return Err(GcError::InvalidArgument(format!("Gc.compact: the {} collector does not compact (use +RTS -c)", m.runtime().collector_name())));
    }
    m.perform_compaction();
    Ok(())
}

