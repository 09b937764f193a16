//! `Gc.stat`, `quick_stat`, `counters` and `print_stat`: OCaml's view of
//! gclab's statistics (See Note [Minor and major heaps]).

use crate::constants::{BLOCK_SIZE, WORD_SIZE};
use crate::heap_walk::for_each_object;
use crate::mutator::Mutator;
use crate::stats::Stats;
use std::io::Write;

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
    let heap = m.runtime().heap_ref();
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
    m.runtime().with_world_stopped(|heap, caps| {
        // SAFETY: `with_world_stopped` stopped the world.
        unsafe {
            for_each_object(heap, caps, |_, _, size, _| {
                s.live_blocks += 1;
                s.live_words += size as u64;
            })
        }
    });
    let heap = m.runtime().heap_ref();
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

