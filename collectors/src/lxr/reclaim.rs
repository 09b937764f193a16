//! `lxr`'s reclaiming: what the counts found dead taken off the mutable
//! lists and the generation, the large objects freed, blocks left empty
//! freed whole, and blocks with dead words judged again line by line when
//! promotion will need their lines (See Note [Lines are reclaimed lazily]
//! in `lazy_lines`).
//!
//! Invariant kept: no block is judged while its holes are offered to the
//! mutators or while a backup trace's snapshot holds it.
//!
//! Note [Freeing blocks of a large space]
//! ----------------------------------------
//! Counts free blocks a few at a time, at almost every pause, out of a
//! space of tens of thousands (binary-trees 20: 50-100 thousand blocks,
//! about 7,000 pauses). A tracing collector frees blocks in its sweep,
//! one pass that rebuilds the lists anyway; here each freeing is its own
//! pass. It was two passes over everything, each looking every block up
//! in a hash set of the freed ones: the generation's block list filtered,
//! and the side tables partitioned (`SideTables::detach`). Together they
//! were 19% of binary-trees 20's run under `perf` (the partition 7%, the
//! hashing of every block 6%). Now the tables are kept by block, so a
//! detach touches only the freed blocks, and the block list is filtered
//! with a binary search in the sorted few freed (as `LineSpace::forget`
//! does): 3.5% of the run, GC time 0.81x and total 0.87x (`scripts/ab -n
//! 3 ... -- run binary-trees 20`, 2-core machine). What is left is the
//! pass over the list itself, once for each reclaiming in a pause (the
//! decrement threads' deaths, and the judging before promotion): keeping
//! each block's place in the list in its descriptor would make it a
//! swap-remove per block, at the price of every other owner of the list
//! keeping that place up to date.

use crate::evacuating::is_evacuating;
use super::{in_snapshot, Lxr};
use crate::decrement_thread::Deaths;
use crate::ref_count::Tally;
use crate::rc_aging::forget_dead;
use gclab_core::bdescr::{BlockDesc, BlockPtr, LiveMap};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::generation::Generation;
use gclab_core::heap::Heap;
use gclab_core::object::{info_of_header, load_header};
use gclab_core::{GcContext, RegionSweep};

impl Lxr {
    /// Reclaim the objects whose counts fell to zero: take them off the
    /// mutable lists, free the large ones, and judge again the blocks
    /// where the small ones (zeroed already) gathered enough dead words
    /// (See Note [Lines are reclaimed lazily] in `lazy_lines`), freeing
    /// the empty ones; count the freed words into `tally`.
    ///
    /// # Safety
    /// The GC holds the heap; every count of the space is up to date; the
    /// objects are dead.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn reclaim(&mut self, deaths: Deaths, ctx: &mut GcContext<'_>, tally: &mut Tally) -> RegionSweep {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let large: Vec<*mut Word> = deaths.large.iter().map(|&p| p as *mut Word).collect();
        // SAFETY: the caller's contract: the mutable lists hold old
        // objects, the dead ones zeroed or in `large`.
        unsafe { forget_dead(ctx.caps, oldest, &large) };
        tally.freed_objects += deaths.objects();
        for &p in &large {
            // SAFETY: a dead large object is intact until it is freed.
            tally.freed_words += unsafe { layout.size_of(p, info_of_header(load_header(p))) } as u64;
        }
        let Heap { gens, blocks, .. } = &mut *ctx.heap;
        let gen = &mut gens[oldest];
        let mut blocks = blocks.lock();
        // A backup trace's marker may be reading the snapshot's: their
        // groups wait for its end, and their blocks' lines are not reused
        // until then (See Note [A concurrent backup trace] in
        // `lxr::concurrent_trace`).
        let (kept, large): (Vec<*mut Word>, Vec<*mut Word>) = large.into_iter().partition(|&p| self.marking.is_some() && in_snapshot(BlockPtr(BlockDesc::of(p))));
        // SAFETY: the caller's contract: these large objects are dead.
        unsafe {
            self.large.free(&large, gen, &mut self.tables, &mut blocks);
            let kept = self.large.unlist(&kept, gen, &mut self.tables);
            if let Some(m) = self.marking.as_mut() {
                m.dead_large.extend(kept);
            }
        }
        // Each block's dead words come as one entry, so that a block judged
        // below (exactly, by its counts) has no more deaths to take off.
        let mut judged: Vec<(BlockPtr, LiveMap)> = Vec::new();
        for (bd, words) in deaths.blocks {
            tally.freed_words += words as u64;
            gen.n_words -= words;
            if let Some(m) = self.marking.as_mut().filter(|_| in_snapshot(bd)) {
                m.snapshot_words -= words;
                continue;
            }
            if self.holes.contains(bd) {
                self.lines.died_offered(bd, words);
                continue;
            }
            // SAFETY: the caller's contract: a block of the space.
            judged.extend(self.lines.died(bd, words));
        }
        let (space, _) = self.immix.parts(oldest);
        // SAFETY: the caller's contract; no allocator runs now.
        let (empty, swept) = unsafe { space.rejudge(&judged, gen) };
        // SAFETY: as above.
        unsafe { self.free_empty(empty, gen, &mut blocks) };
        swept
    }

    /// Free the space's blocks `empty`, judged empty: off the generation's
    /// list, their tables detached, given back.
    ///
    /// # Safety
    /// The GC holds the heap; nothing lives in the blocks.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn free_empty(&mut self, empty: Vec<BlockPtr>, gen: &mut Generation, blocks: &mut BlockAllocator) {
        if empty.is_empty() {
            return;
        }
        // A pass over the generation's list, each block looked up in the
        // few sorted ones freed: no hashing per block (See Note [Freeing
        // blocks of a large space]).
        let mut gone = empty;
        gone.sort_unstable();
        gone.dedup();
        gen.blocks.retain(|bd| gone.binary_search(bd).is_err());
        gen.n_blocks -= gone.len();
        // SAFETY: the blocks are still in use until freed just below.
        unsafe { self.tables.detach(&gone) };
        for &bd in &gone {
            self.lines.forget(bd);
        }
        blocks.free_all(gone);
    }

    /// Before a pause's promotion, with no backup trace marking: judge
    /// again the blocks with the most dead words, until the generation's
    /// free words reach twice the allocation area (what promotion may
    /// want), freeing those found empty (See Note [Lines are reclaimed
    /// lazily] in `lazy_lines`).
    ///
    /// # Safety
    /// The GC holds the heap; every count of the space is up to date.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn judge_for_promotion(&mut self, ctx: &mut GcContext<'_>) -> Option<RegionSweep> {
        if self.marking.is_some() {
            return None;
        }
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let wanted = 2 * ctx.flags.alloc_area_blocks * ctx.caps.len() * BLOCK_WORDS;
        let Heap { gens, blocks, .. } = &mut *ctx.heap;
        let gen = &mut gens[oldest];
        let short = wanted.checked_sub(gen.n_free_words).filter(|&w| w > 0)?;
        let holes = &self.holes;
        // SAFETY: the caller's contract; a block with dead words is in use,
        // its descriptor live for `is_evacuating`.
        let judged = unsafe { self.lines.judge_dirty(short, |bd| holes.contains(bd) || is_evacuating(bd), gen, layout) };
        let (space, _) = self.immix.parts(oldest);
        // SAFETY: the caller's contract; no allocator runs now.
        let (empty, swept) = unsafe { space.rejudge(&judged, gen) };
        // SAFETY: as above.
        unsafe { self.free_empty(empty, gen, &mut blocks.lock()) };
        Some(swept)
    }
}
