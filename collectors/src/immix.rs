//! `immix`: a generational mark-region collector (GenImmix; GHC's `-w`).
//! Young generations are copied and aged as by `copying`; objects
//! promoted into the oldest generation are bump-allocated into the holes
//! of a line space (`line_space`), where earlier major GCs found dead
//! lines. A major GC marks the oldest generation in place, except its most
//! fragmented blocks, which it evacuates (`defrag`), and then sweeps it
//! line by line.
//!
//! - Minor GC: the copying sequence, with the oldest generation's
//!   to-space an allocator of the line space: promoted objects fill holes
//!   before fresh blocks are cut.
//! - Major GC: choose the blocks to evacuate (See Note [Choosing what to
//!   evacuate] in `defrag`) and leave them in the generation, so they are
//!   from-space; take the others out, flag them `BF_MARK_IN_PLACE` and
//!   attach them to a mark bitmap. Tracing marks the kept blocks' live
//!   objects where they lie and copies the candidates' and the young
//!   generations' survivors into the space (marked as they are placed in
//!   a kept block, so the sweep keeps them). The candidates, now empty of
//!   anything live, are freed with from-space; the sweep frees kept blocks
//!   with no used line and lists the rest's holes.
//!
//! Parameters: `immix:line=BYTES` (64 to 2048, default 64: See Note
//! [Line size] in `line_space`), `defrag=auto|always|never` and
//! `headroom=PERCENT` (default 2): See `defrag`. Runs on one GC thread or
//! on `-qn` of them, as `-qg`/`-qb` say. The oldest generation is kept in
//! place (its evacuation is bounded by the headroom), so under `-M` the
//! policy sizes the heap as for compaction.
//!
//! With `-G1` there is no young generation: every GC is the major GC,
//! the allocation area's survivors copied into the space as promotion
//! copies them, so `immix -G1` is whole-heap Immix (See Note [One
//! generation] in the crate's root). With `immix:holes=PERCENT` (`-G1`
//! only) the mutators also allocate into the space's holes, up to that
//! share of the allocation area, as the paper's whole-heap Immix
//! allocates: See Note [Whole-heap Immix allocating into holes].
//!
//! StickyImmix, whose mutators allocate into the holes and whose minor
//! GCs mark the young in place, is built on this collector's space and
//! major GC: See `sticky_immix`.

use crate::copy_order::CopyOrder;
use crate::defrag::{self, DefragMode};
use crate::gc_workers::{GcThreadPool, GcWorkers};
use crate::line_space::{Geometry, LineSpace};
use crate::mark::MarkBitmap;
use crate::offered_holes::OfferedHoles;
use crate::space_trace::{trace_into, Evacuate, Tracing};
use crate::{CollectorEntry, Params};
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::{BLOCK_WORDS, WORD_SIZE};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, RegionSweep, RtsFlags, ThreadWork};
use std::collections::HashSet;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "immix",
    description: "GHC's -w: young generations copied; the oldest in line-marked blocks, marked in place and its holes reused, the most fragmented blocks evacuated (line=BYTES, defrag=auto|always|never, headroom=PERCENT, order=depth|breadth; with -G1 whole-heap Immix, whose mutators allocate into the space's holes with holes=PERCENT of the allocation area, default 0)",
    flags: "-w",
    make: |mut params, flags| {
        let holes = params.take_percent("holes", " of the allocation area", 0..=100, 0)?;
        if holes > 0 && flags.generations > 1 {
            return Err(format!("immix:holes={holes} needs -G1 (every GC a major GC): with a young generation, young objects in old blocks need sticky marks, which is sticky-immix"));
        }
        // See Note [Copying depth first] in `copy_order`: immix's own
        // default, not that of the collectors built on it.
        let order = CopyOrder::take(&mut params, CopyOrder::DepthFirst)?;
        let mut immix = Immix::from_params(params, "immix", &["holes", "order"])?;
        immix.holes = OfferedHoles::of_allocation_area(holes);
        immix.order = order;
        Ok(Box::new(immix))
    },
};

/// The immix collector: its geometry and defragmentation settings, its
/// old generation's space (made at the first GC) and its GC threads.
pub struct Immix {
    geometry: Geometry,
    defrag: DefragMode,
    headroom_percent: usize,
    old: Option<LineSpace>,
    pool: GcThreadPool,
    /// With one generation, the holes offered to the mutators after each
    /// GC (`immix:holes=PERCENT`; none by default).
    holes: OfferedHoles,
    /// The order survivors are copied and placed in (`immix:order=depth`,
    /// its default: See Note [Copying depth first] in `copy_order`);
    /// breadth first in the collectors built on this one, unless they
    /// say otherwise (`sticky-immix:order=depth`).
    pub(crate) order: CopyOrder,
}

impl Immix {
    /// The GC threads it keeps, which a collector made of it may run its
    /// own parallel work on (`lxr`'s increments).
    pub(crate) fn pool(&mut self) -> &mut GcThreadPool {
        &mut self.pool
    }

    /// When its major GCs defragment, and their headroom in percent of the
    /// space's blocks (`lxr`'s evacuation in its pauses chooses by them).
    pub(crate) fn defrag_settings(&self) -> (DefragMode, usize) {
        (self.defrag, self.headroom_percent)
    }

    /// An immix collector as its parameters (`line`, `defrag`, `headroom`)
    /// and the run's flags say; `name` is the collector's, for messages
    /// (`sticky-immix` is made of one, and has taken its own parameters,
    /// `also_known`, out of `params` already).
    pub fn from_params(mut params: Params, name: &str, also_known: &[&str]) -> Result<Immix, String> {
        let line = params.take("line").map(|v| v.parse::<usize>().map_err(|_| format!("line must be a number of bytes, not `{v}'"))).transpose()?.unwrap_or(64);
        let geometry = Geometry::new(line)?;
        let defrag = params.take("defrag").map(|v| DefragMode::parse(&v)).transpose()?.unwrap_or_default();
        let headroom = params.take_percent("headroom", "", 0..=100, 2)?;
        let known: Vec<&str> = ["line", "defrag", "headroom"].iter().chain(also_known).copied().collect();
        params.finish(name, &known)?;
        Ok(Immix { geometry, defrag, headroom_percent: headroom, old: None, pool: GcThreadPool::default(), holes: OfferedHoles::of_allocation_area(0), order: CopyOrder::BreadthFirst })
    }

    /// Whether major GCs may evacuate in their pause (`defrag=auto`) or
    /// never do (a collector built on this one that moves objects out of
    /// fragmented blocks itself, but not when the heap is full).
    pub(crate) fn defragment(&mut self, on: bool) {
        self.defrag = if on { DefragMode::Auto } else { DefragMode::Never };
    }

    /// A GC of the young generations `0..=n`, whose survivors promoted into
    /// blocks of the space that a marker's snapshot holds are marked in
    /// `black` as they are placed (`lxr`'s RC pauses while its backup trace
    /// marks; `None`: no marking runs), and whose young objects in the
    /// holes of the blocks attached to `holes` are marked where they lie,
    /// those blocks' old objects read as marked already (sticky marks:
    /// `lxr`'s young objects in holes; never beside a marking), and which
    /// evacuates the blocks of the space that `evacuate` takes (`lxr`'s
    /// evacuation in its pauses).
    pub(crate) fn collect_young<'m>(&mut self, n: usize, ctx: &mut GcContext<'_>, black: Option<&'m MarkBitmap>, holes: Option<&'m MarkBitmap>, evacuate: Option<Evacuate<'m>>) -> GcOutcome {
        debug_assert!(black.is_none() || holes.is_none(), "no holes are offered while a marker runs");
        let oldest = ctx.heap.oldest();
        let workers = self.pool.for_collection(ctx.flags, n, ctx.help);
        let space = self.old.get_or_insert_with(|| LineSpace::new(oldest, self.geometry));
        let how = Tracing { n, marks: holes, black: black.or(holes), defer: false, record_old: false, sticky: holes.is_some(), evacuate, order: self.order };
        // SAFETY: the runtime gives the collector the heap exclusively
        // (core's Note [Who touches what]); a marker beside it reads only
        // its snapshot (See Note [The marker runs through young GCs] in
        // `concurrent_mark`).
        let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
        GcOutcome { in_place: true, ..done }
    }

    /// Its old generation's line space (made at the first GC) and its GC
    /// threads, for a collector built on it.
    pub(crate) fn parts(&mut self, oldest: usize) -> (&LineSpace, &mut GcThreadPool) {
        let space = self.old.get_or_insert_with(|| LineSpace::new(oldest, self.geometry));
        (space, &mut self.pool)
    }
}

impl Collector for Immix {
    fn name(&self) -> &'static str {
        "immix"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        // With one generation every GC is this major GC (See Note [One
        // generation] in the crate's root).
        let n = req.collect_gen;
        if n < oldest {
            return self.collect_young(n, ctx, None, None, None);
        }
        let outcome = self.collect_major(req, ctx);
        // Marked in this pause, the old generation's count is exact: a
        // concurrent marking's estimate (`concurrent_copying`) is stale.
        ctx.heap.gens[oldest].live_estimate = None;
        if self.holes.any() {
            let space = self.old.as_ref().expect("made by the GC");
            // SAFETY: the runtime gives the collector the heap exclusively;
            // the last offer was forgotten by the major GC.
            unsafe { self.holes.offer(space, ctx) };
        }
        outcome
    }

    fn check_heap(&self, heap: &Heap) -> Vec<String> {
        let mut problems = match &self.old {
            // SAFETY: the sanity checker runs with the world stopped.
            Some(space) => unsafe { space.check(&heap.gens[heap.oldest()]) },
            None => Vec::new(),
        };
        if self.holes.any() {
            problems.extend(OfferedHoles::check(heap));
        }
        problems
    }
}

// Note [Whole-heap Immix allocating into holes]
// ----------------------------------------
// The paper's whole-heap Immix has no nursery: the mutators bump-allocate
// into the holes of recyclable blocks, then into free blocks, and a GC
// marks everything where it lies. `immix -G1` by default keeps gclab's
// allocation area: the mutators allocate into nursery blocks and each GC
// copies their survivors into the space, so a young object is copied
// once, however long it lives. With `holes=PERCENT` each GC, after its
// sweep, offers the mutators the holes of recyclable blocks up to that
// share of the allocation area (the offered-holes seam of `sticky_immix`
// and `lxr`, core's Note [Allocation regions]); the next GC, a major GC,
// forgets the offer and judges those blocks afresh with everything else,
// so no sticky marks are taken. Measured on fibheaps 400000 at -G1
// (scripts/ab -n 3, holes=100 against 0): GC 0.56x (51 MB copied instead
// of 72), mutator 1.14x (its heap's nodes scattered through holes
// instead of packed in the nursery), total 0.95x, peak RSS 1.32x (the
// nursery blocks the holes stand in for are still there); lru, gcbench
// and binary-trees, whose free space comes back as whole blocks, move by
// 2-3%. Under -M (experiments/whole-heap.toml, docs/immix.md) it loses
// on lru and fibheaps, 1.3-1.5x at 2x the minimum heap: the allocation
// area's blocks that the holes stand in for still count against the
// limit, so GCs come sooner (fibheaps at 1.5x: 41 GCs against 34), and
// each GC pays for the young objects of the holes, its survivors marked
// in place and its dead ones' words zeroed by the sweep (gclab keeps
// every block a walk of objects and zero words), where a dead object of
// the allocation area costs nothing (fibheaps at 2x: 26 GCs either way,
// 0.64-0.82 s of GC against 0.49-0.53). It stays off by default. A collector with
// young generations cannot take this offer: young objects in old blocks
// need sticky marks (`sticky_immix`), so `holes` is refused without -G1.

impl Immix {
    /// A major GC: mark the space in place, evacuate its most fragmented
    /// blocks, sweep.
    fn collect_major(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let n = req.collect_gen;
        // Every block is judged afresh, those whose holes were offered
        // with the objects the mutators allocated there.
        self.holes.forget();
        let workers = self.pool.for_collection(ctx.flags, n, ctx.help);
        let space = self.old.get_or_insert_with(|| LineSpace::new(ctx.heap.oldest(), self.geometry));
        let (mode, headroom) = defrag_for(self.defrag, self.headroom_percent, req, ctx.heap, ctx.flags);
        if req.compact_oldest && mode != DefragMode::Never && defrag::whole_evacuation_fits(words_to_place(ctx.heap), headroom) {
            // See Note [Evacuating a tight generation whole] in `defrag`.
            // SAFETY: the runtime gives the collector the heap exclusively.
            return unsafe { major(space, ctx, workers, Candidates::Every, self.order) };
        }
        // SAFETY: the runtime gives the collector the heap exclusively
        // (core's Note [Who touches what]).
        let first = unsafe { major(space, ctx, workers, Candidates::Chosen(choose_candidates(space, mode, headroom)), self.order) };
        if !req.compact_oldest || mode == DefragMode::Never {
            return first;
        }
        // See Note [Defragmenting under -M]: the heap is tight, and the
        // sweep just found exactly what is live where. Passes after the
        // second run only while the heap stands past its limit, which
        // would end the run (See Note [A last resort before the overflow]).
        let mut done = first;
        for pass in 0..=LAST_RESORT_PASSES {
            if pass > 0 && !past_limit(ctx.heap, ctx.flags) {
                break;
            }
            let (_, room) = defrag_for(self.defrag, self.headroom_percent, req, ctx.heap, ctx.flags);
            // SAFETY: as above.
            let chosen = unsafe { choose_candidates(space, DefragMode::Always, room) };
            if chosen.is_empty() {
                break;
            }
            // SAFETY: as above.
            let next = unsafe { major(space, ctx, workers, Candidates::Chosen(chosen), self.order) };
            done = one_pause(done, next);
        }
        done
    }
}

/// Passes a tight major GC may add after its second while the heap stays
/// past `-M` (See Note [A last resort before the overflow]).
const LAST_RESORT_PASSES: usize = 2;

/// Does the heap stand past `-M`, so that the overflow check after this
/// major GC would end the run?
fn past_limit(heap: &Heap, flags: &RtsFlags) -> bool {
    flags.max_heap_blocks > 0 && heap.blocks_in_use() > flags.max_heap_blocks
}

/// When a major GC defragments, and its headroom in blocks: as the
/// collector's parameters say (`mode`, `percent` of the space's blocks),
/// unless the policy asks the oldest generation to be compacted (`-M` with
/// live data past `-c<n>`% of it: the heap is tight): then whatever fits
/// in the room left under `-M` (See Note [Defragmenting under -M]).
fn defrag_for(mode: DefragMode, percent: usize, req: &GcRequest, heap: &Heap, flags: &RtsFlags) -> (DefragMode, usize) {
    let headroom = (heap.gens[heap.oldest()].n_blocks * percent).div_ceil(100);
    if req.compact_oldest && mode != DefragMode::Never {
        let room = flags.max_heap_blocks.saturating_sub(heap.blocks_in_use());
        return (DefragMode::Always, room.max(headroom));
    }
    (mode, headroom)
}

/// The most words a major GC that evacuated the whole oldest generation
/// would place: every generation's small objects, and the allocation
/// area whole (its survivors are not counted yet). Large objects stay
/// where they are.
fn words_to_place(heap: &Heap) -> usize {
    let generations: usize = heap.gens.iter().map(|g| g.n_words).sum();
    generations + heap.nursery_blocks() * BLOCK_WORDS
}

// Note [Defragmenting under -M]
// ----------------------------------------
// Immix defragments when the last collection did not free enough, as well
// as when holes went unused. gclab's policy already says when the heap is
// tight: under `-M` it asks for the oldest generation to be compacted once
// live data passes `-c<n>`% of the maximum (30 by default, GHC's
// threshold), which is what `compacting` acts on. `immix` takes the same
// request as an order to defragment, with every block left under `-M` as
// headroom instead of 2% of the space: the candidates' objects are packed
// into the other blocks' holes and into those fresh blocks.
//
// Candidates are chosen from the holes the last sweep found, so a heap
// that filled up since (lru's old generation grows to its full size
// before any major GC finds a hole) would defragment one GC too late:
// the policy's overflow check after this very GC would stop the run. So
// when compaction is asked for and this GC could not defragment, a second
// major GC runs in the same pause, choosing from the holes the first one
// just found (Immix's "defragment when the last collection did not yield
// enough"). Its choice is also the better one: right after a sweep a
// block's used lines are exactly its live lines, where later its filled
// holes count as used whether what was placed there lived or not.
// Statistics count the pause once, with both passes' work; a pass is run
// only when it has blocks to evacuate.
// `immix:defrag=never` refuses all of it.

// Note [A last resort before the overflow]
// ----------------------------------------
// After the second pass the heap can still stand past `-M`, and then the
// policy's check ends the run with a heap overflow. But that pass's sweep
// has just found the holes again, and its evacuation was bounded by the
// room it had (the headroom and the free lines it knew of), not by what
// the heap holds: another pass, choosing from the new holes, frees more
// blocks. So while the heap stays past its limit, up to
// `LAST_RESORT_PASSES` more passes run, each a full trace. They cost a
// run nothing unless it was about to fail, which is the trade MMTk makes
// with its emergency collection (a full-heap, defragmenting GC after one
// that did not free enough, before it reports out of memory). On lru
// 50000 1000000 128 the minimum heap fell from 13.18 to 12.51 MiB (at
// `-M13324k` the second pass left the heap 16 blocks past its 3,331),
// lru 20000 200000 128 from 5.95 to 5.41 MiB and at
// `-N2 -qn2` from 6.95 to 6.46; gcbench 16 and 18 and fibheaps 100000 and
// 400000 kept theirs (their overflows are live data, not holes). Two
// more passes, not more: on both lru sizes one more pass gives part of
// the gain (12.68 and 5.62 MiB), two give all of it, and four or eight
// give nothing more.

/// The blocks of the space a major GC evacuates.
pub(crate) enum Candidates {
    /// These; the others are kept in place.
    Chosen(Vec<BlockPtr>),
    /// Every block (See Note [Evacuating a tight generation whole] in
    /// `defrag`).
    Every,
}

/// A major GC that evacuates the blocks `candidates` names and keeps the
/// others in place: mark, trace, sweep; survivors are copied in `order`.
///
/// # Safety
/// The GC holds the heap.
// SAFETY: the caller's contract; every root and heap slot holds a valid object address.
pub(crate) unsafe fn major(space: &LineSpace, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>, candidates: Candidates, order: CopyOrder) -> GcOutcome {
    let oldest = ctx.heap.oldest();
    let old = &mut ctx.heap.gens[oldest];
    let words_before = old.n_words;
    // The candidates stay in the generation and become from-space; the
    // others are kept in place. No hole of a candidate may be filled.
    let (evacuated, kept): (Vec<BlockPtr>, Vec<BlockPtr>) = match candidates {
        Candidates::Every => {
            space.drop_recyclable();
            (std::mem::take(&mut old.blocks), Vec::new())
        }
        Candidates::Chosen(chosen) => {
            space.forget(&chosen);
            let chosen: HashSet<BlockPtr> = chosen.into_iter().collect();
            std::mem::take(&mut old.blocks).into_iter().partition(|bd| chosen.contains(bd))
        }
    };
    let defrag_blocks = evacuated.len();
    old.blocks = evacuated;
    // SAFETY: as above.
    let marks = unsafe { MarkBitmap::keep_in_place(&kept) }.for_one_thread(workers.is_none());
    let how = Tracing { n: oldest, marks: Some(&marks), black: Some(&marks), defer: false, record_old: false, sticky: false, evacuate: None, order };
    // SAFETY: as above; the kept blocks are attached to `marks`.
    let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
    // See Note [Counting what defragmentation copies].
    let copied_out: usize = done.threads.iter().map(|t| t.oldest_copied_words).sum();
    let Heap { blocks, gens, .. } = &mut *ctx.heap;
    // SAFETY: marking is complete and every allocator finished.
    let mut region = unsafe { space.sweep(kept, &marks, &mut blocks.lock(), &mut gens[oldest]) };
    region.defrag_blocks = defrag_blocks as u32;
    region.defrag_copied_bytes = (copied_out * WORD_SIZE) as u64;
    let swept_words = words_before.saturating_sub(done.marked_words + copied_out);
    GcOutcome { in_place: true, swept_words, region: Some(region), ..done }
}

/// Two major GCs run in one pause, as one: their work added up, and the
/// second's sweep (the state the space is left in), with both sweeps'
/// freed blocks and both passes' defragmentation.
fn one_pause(first: GcOutcome, second: GcOutcome) -> GcOutcome {
    let threads = first.threads.iter().zip(&second.threads).map(|(a, b)| ThreadWork {
        copied_words: a.copied_words + b.copied_words,
        scanned_objects: a.scanned_objects + b.scanned_objects,
        promoted_words: a.promoted_words + b.promoted_words,
        oldest_copied_words: a.oldest_copied_words + b.oldest_copied_words,
        marked_words: a.marked_words + b.marked_words,
        prefetched_objects: a.prefetched_objects + b.prefetched_objects,
        active: match (a.active, b.active) {
            (Some((came_in, _)), Some((_, left))) => Some((came_in, left)),
            (one, other) => one.or(other),
        },
    });
    let region = match (first.region, second.region) {
        (Some(a), Some(b)) => Some(RegionSweep {
            blocks_freed: a.blocks_freed + b.blocks_freed,
            defrag_blocks: a.defrag_blocks + b.defrag_blocks,
            defrag_copied_bytes: a.defrag_copied_bytes + b.defrag_copied_bytes,
            ..b
        }),
        (a, b) => b.or(a),
    };
    GcOutcome {
        copied_words: first.copied_words + second.copied_words,
        marked_words: first.marked_words + second.marked_words,
        swept_words: first.swept_words + second.swept_words,
        threads: threads.collect(),
        region,
        ..second
    }
}

/// The blocks a major GC evacuates: none unless `mode` says it should
/// defragment now, else as `defrag::choose` picks them, with `headroom`
/// blocks to cut fresh.
///
/// # Safety
/// The GC holds the heap.
// SAFETY: the caller's contract covers the census's reads of the space's blocks.
unsafe fn choose_candidates(space: &LineSpace, mode: DefragMode, headroom: usize) -> Vec<BlockPtr> {
    // SAFETY: the caller's contract.
    let census = unsafe { defrag::census(space) };
    if !defrag::wanted(mode, &census) {
        return Vec::new();
    }
    defrag::choose(&census, headroom * space.geometry().lines())
}

// Note [Counting what defragmentation copies]
// ----------------------------------------
// The bytes a major GC copies to defragment (`-S`'s `defrag: ... bytes
// copied`, the record's `defrag_copied_bytes`) were counted after the
// trace by walking every candidate block and reading, for each forwarded
// object, its copy's header: a cache miss per object, in blocks that
// are then freed. On fibheaps 400000 at `-M` 2x its minimum heap, where
// a major GC evacuates up to 10,000 blocks, that walk was 8.5% of the
// whole run's samples (about a quarter of its major GCs' time). Now the
// copy counts them (`ThreadWork::oldest_copied_words`), under the branch
// on the source block's generation that promotion's count already takes;
// generation 0's copies, the minor GCs' whole work, take no extra test
// but those that stay in generation 0 (aging), which test whether there
// is one generation only: then generation 0's blocks outside the nursery
// are the space's, and what is copied out of them is defragmentation
// (`immix -G1`, See Note [One generation] in the crate's root).

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_in_one_pause_add_their_work_and_defragmentation_and_keep_the_last_sweep() {
        let sweep = |freed, lines_free, defrag_blocks, defrag_copied_bytes| RegionSweep { line_bytes: 64, blocks_swept: 10, blocks_freed: freed, blocks_recyclable: 5, lines_free, defrag_blocks, defrag_copied_bytes };
        let pass = |words, region| GcOutcome { copied_words: words, marked_words: words, swept_words: words, region: Some(region), ..GcOutcome::default() };
        let three = one_pause(one_pause(pass(1, sweep(1, 100, 3, 300)), pass(2, sweep(2, 50, 4, 400))), pass(4, sweep(4, 20, 5, 500)));
        assert_eq!((three.copied_words, three.marked_words, three.swept_words), (7, 7, 7));
        let r = three.region.unwrap();
        assert_eq!((r.blocks_freed, r.defrag_blocks, r.defrag_copied_bytes), (7, 12, 1200), "every pass's");
        assert_eq!(r.lines_free, 20, "the state the last pass left");
    }
}
