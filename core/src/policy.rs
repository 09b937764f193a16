//! The sizing policy: which generations to collect, and how big things grow.
//!
//! This is GHC's policy (`rts/sm/GC.c`: `calcNeeded`, `resize_generations`,
//! `resize_nursery`; `rts/sm/Storage.c`), shared by every collector:
//!
//! - Generation 0 is collected at every GC; generation g > 0 too when it
//!   occupies more than its `max_blocks`, and then every younger one.
//! - After a major GC every generation's `max_blocks` becomes the limit
//!   the run's heap policy chooses (See `heap_policy`; GHC's rule, the
//!   default, is `max(live x F, -O)`, where live is the oldest
//!   generation's blocks). With `-M` (or a policy's own heap size, the
//!   smaller of the two), that size is cut so that the generations (twice
//!   over, since copying needs to-space; once for the oldest when
//!   compacting) plus the minimum allocation area fit; if even the live
//!   data does not fit, the heap has overflowed.
//! - Compaction of the oldest generation is asked for with `-c`, or when
//!   the oldest generation exceeds `-c<n>`% of `-M`.
//! - The allocation area is `-A` per capability, except with one
//!   generation (two-space: the policy's limit less the live data, by
//!   default `F x live`, at least `-A`; near `-M`, what is left) or with
//!   `-H` (what the suggested heap size leaves after the generations'
//!   needs, at least `-A`).
//! - Free megablocks beyond twice the live data plus the policy's room
//!   (by default `(F + 2) x live`) plus the nursery are returned to the
//!   OS after a major GC.

use crate::collector::{GcOutcome, GcReason, GcRequest};
use crate::constants::{Word, BLOCKS_PER_MBLOCK, BLOCK_SIZE};
use crate::flags::RtsFlags;
use crate::heap::Heap;
use crate::heap_policy::{HeapCap, HeapPolicy, MajorGc};
use crate::mblock::OutOfMemory;
use std::time::Instant;

/// The heap cannot be kept within `-M` (or a heap policy's size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapOverflow {
    /// The limit, in bytes.
    pub max_heap_bytes: usize,
    /// The option that set it, as the message names it (`-M<size>`).
    pub set_by: &'static str,
}

/// How the message names `-M`.
pub const SET_BY_MAX_HEAP: &str = "-M<size>";

/// Why the heap could not grow: the `-M` limit, or the OS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapExhausted {
    /// `-M` is exceeded.
    Overflow(HeapOverflow),
    /// The OS refused memory.
    OutOfMemory(OutOfMemory),
}

impl From<OutOfMemory> for HeapExhausted {
    fn from(e: OutOfMemory) -> Self {
        HeapExhausted::OutOfMemory(e)
    }
}

/// What the policy wants of the next GC, and what it remembers of the
/// last ones.
#[derive(Debug)]
pub struct PolicyState {
    /// The next GC must be major (the heap is near `-M`).
    pub force_major: bool,
    /// Nursery survival rate of the last minor GC, in percent (for `-H`).
    pub g0_pct_kept: usize,
    /// Heap size at the previous GC, in blocks (for `-H` with no size).
    pub last_heap_blocks: usize,
    /// The run's heap policy (`--heap-policy`).
    pub heap: Box<dyn HeapPolicy>,
    /// When the last major GC ended (the run's start before the first).
    last_major_end: Instant,
    /// The oldest generation's blocks after the last major GC.
    live_after_major: usize,
    /// Of those, the blocks' worth that its live data does not account
    /// for: dead words the major GC could not free (See Note [Waste the
    /// last major GC left]).
    waste_after_major: usize,
}

impl PolicyState {
    /// The state at a run's start, with the heap policy `flags` choose.
    pub fn new(flags: &RtsFlags) -> PolicyState {
        PolicyState { force_major: false, g0_pct_kept: 0, last_heap_blocks: 0, heap: flags.heap_policy.make(), last_major_end: Instant::now(), live_after_major: 0, waste_after_major: 0 }
    }

    /// The heap's size limit, if any, with the option that set it: `-M`,
    /// or the heap policy's own size, whichever is smaller (`-M` on a tie).
    fn heap_limit(&self, flags: &RtsFlags) -> Option<HeapCap> {
        let by_flag = (flags.max_heap_blocks > 0).then_some(HeapCap { blocks: flags.max_heap_blocks, set_by: SET_BY_MAX_HEAP });
        match (by_flag, self.heap.heap_cap()) {
            (Some(m), Some(cap)) => Some(if cap.blocks < m.blocks { cap } else { m }),
            (m, cap) => m.or(cap),
        }
    }

    /// The heap's size limit in blocks (0: none; See `heap_limit`).
    fn max_heap(&self, flags: &RtsFlags) -> usize {
        self.heap_limit(flags).map_or(0, |l| l.blocks)
    }

    /// The overflow of the heap's limit, naming the option that set it.
    fn overflow(&self, flags: &RtsFlags) -> HeapExhausted {
        let limit = self.heap_limit(flags).unwrap_or(HeapCap { blocks: 0, set_by: SET_BY_MAX_HEAP });
        HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: limit.blocks * BLOCK_SIZE, set_by: limit.set_by })
    }
}

/// What the driver measured of a GC, for the heap policy.
#[derive(Debug, Clone, Copy)]
pub struct GcMeasure {
    /// When the GC started.
    pub started: Instant,
    /// Seconds the GC has taken.
    pub gc_seconds: f64,
    /// The oldest generation's blocks when the GC started.
    pub oldest_blocks_at_start: usize,
    /// Words the mutators allocated since the previous GC.
    pub allocated_words: u64,
}

// Note [Filled, not occupied]
// ----------------------------------------
// GHC's rule collects a generation once it occupies more blocks than
// `max_blocks`, `F x live` after the last major GC. For a copying
// generation occupied blocks are filled ones. A non-moving old
// generation (mark-sweep's and nonmoving's cells, immix's lines) keeps
// its blocks after a sweep with holes where the dead were, and
// promotion fills those holes before it takes a new block; counting the
// holes as occupancy made such a generation look over its limit right
// after a major GC whenever it was fragmented by more than F - 1 of its
// live data: fibheaps 400000 under mark-sweep at F = 2 made 361 major
// GCs (18.4 s of GC) against 2 at a fixed heap, lru under MemBalancer's
// rule up to 173. So the trigger weighs the blocks a generation fills
// (`Generation::filled_blocks`: occupied less `n_free_words`), as GHC's
// nonmoving collector weighs its live estimate; `-M` still weighs every
// block the heap holds. For copying generations the two are the same,
// and nothing changes.
//
// Note [Waste the last major GC left]
// ----------------------------------------
// A space that reclaims by lines or cells cannot free every dead word: a
// line with one live object stays whole (and Immix's conservative line
// marking keeps the line after it too), a cell keeps its slop. After a
// major GC such a generation fills more blocks than its live data needs,
// and GHC's rule (collect at `F x live`) then leaves room for less than
// `(F - 1) x live` of promotion before the next major GC: fibheaps
// 400000 under immix filled 31 MiB for 20 MiB live (11 MiB in partly
// live lines) and made 39 major GCs where copying made 11. So the oldest
// generation's trigger discounts the blocks' worth of dead words its last
// major GC left (`filled - live`, measured at its end): every collector
// gets `(F - 1) x live` of promotion between major GCs, as copying does.
// The heap is larger by that waste, which `-M` still weighs (it counts
// every block), and which the statistics show (`max_hole_bytes`, the
// `-S` line of a sweep). Only a major GC that swept the generation in
// its pause measures it. A copied or compacted generation holds no dead
// words, only slop at block ends, which GHC's rule counts as well:
// discounting it moved copying's binary-trees 20 from 37 major GCs to 35
// and its peak memory in use from 258 to 278 MiB, away from GHC's. A
// major GC that begins a concurrent marking knows no live data yet (its
// `live_estimate` is the last cycle's, and everything promoted since
// counts as filled), so a concurrent collector's waste is taken as none.
// The cost is memory: fibheaps under immix peaks at 53 MiB in use
// against 49 (copying: 68).

/// Choose what to collect: GHC's `calcNeeded`.
pub fn plan_collection(heap: &Heap, flags: &RtsFlags, state: &PolicyState, reason: GcReason, force_major: bool) -> GcRequest {
    let mut collect_gen = 0;
    for (g, gen) in heap.gens.iter().enumerate().skip(1) {
        // See Note [Filled, not occupied] and Note [Waste the last major
        // GC left].
        let waste = if g == heap.oldest() { state.waste_after_major } else { 0 };
        if gen.filled_blocks().saturating_sub(waste) > gen.max_blocks {
            collect_gen = g;
        }
    }
    if force_major || state.force_major {
        collect_gen = heap.oldest();
    }
    // With one generation only `-c` compacts (whole-heap mark-compact: See
    // Note [One generation] in the collectors crate); `-c<n>`'s share of
    // `-M` is a generational rule, and immix reads the request too.
    let compact_oldest = collect_gen == heap.oldest() && if heap.gens.len() > 1 { wants_compaction(heap, flags, state.max_heap(flags)) } else { flags.compact };
    GcRequest { collect_gen, reason, compact_oldest, heap_full: state.force_major && collect_gen == heap.oldest() }
}

/// `-c`, or `-c<n>` past its threshold of the heap's limit `max`; or,
/// once the program set OCaml's `max_overhead`, that rule instead.
fn wants_compaction(heap: &Heap, flags: &RtsFlags, max: usize) -> bool {
    if let Some(overhead) = flags.compact_overhead {
        let old = &heap.gens[heap.oldest()];
        let live = (old.n_words + old.n_large_words).max(1);
        let wasted = (old.occupied_blocks() * BLOCK_SIZE / 8).saturating_sub(live);
        return overhead < 1_000_000 && wasted * 100 >= overhead * live;
    }
    if flags.compact {
        return true;
    }
    max > 0 && (heap.gens[heap.oldest()].occupied_blocks() as f64) > flags.compact_threshold * max as f64 / 100.0
}

/// The least allocation area the heap must leave room for under the
/// limit `max`: `-m`% of it, at least `-A` per capability.
fn min_alloc_blocks(flags: &RtsFlags, max: usize, caps: usize) -> usize {
    let by_pc = (flags.pc_free_heap * max as f64 / 200.0) as usize;
    by_pc.max(flags.alloc_area_blocks * caps)
}

/// After a GC: resize the generations and the nursery, and decide whether
/// the heap has overflowed `-M`. `req` is what was collected and
/// `outcome` what the collector did: whether the oldest generation was
/// kept in place (compacted or swept) rather than copied (the sizing
/// follows what the collector did, not what the policy asked: a collector
/// that cannot compact copies, and then needs room for a copy), and
/// whether a major GC only began a concurrent collection (then the limit
/// is judged at the next GC). `measure` is what the heap policy learns of
/// the GC.
pub fn after_gc(heap: &mut Heap, flags: &RtsFlags, state: &mut PolicyState, req: &GcRequest, outcome: &GcOutcome, caps: usize, measure: &GcMeasure) -> Result<(), HeapExhausted> {
    let in_place = outcome.in_place;
    let major = req.collect_gen == heap.oldest();
    let swept = outcome.in_place && !outcome.compacted && !outcome.began_concurrently;
    let limit = if major { Some(space_limit(heap, flags, state, caps, measure, swept)) } else { None };
    if let Some(limit) = limit.filter(|_| heap.gens.len() > 1) {
        resize_generations(heap, flags, state, caps, in_place, limit)?;
    }
    resize_nursery(heap, flags, state, req, outcome, caps, limit)?;
    check_max_heap(heap, flags, state, major && !outcome.began_concurrently, caps)?;
    if let Some(limit) = limit {
        return_memory(heap, flags, state, limit);
    }
    state.last_heap_blocks = heap.blocks_in_use();
    Ok(())
}

/// Ask the heap policy for the collected space's limit after a major GC,
/// telling it what it measures by; `swept`: the major GC swept the
/// oldest generation in its pause (See Note [Waste the last major GC
/// left]).
fn space_limit(heap: &Heap, flags: &RtsFlags, state: &mut PolicyState, caps: usize, measure: &GcMeasure, swept: bool) -> usize {
    let two_space = heap.gens.len() == 1;
    let live_blocks = live_blocks(heap);
    let grown_blocks = if two_space {
        (measure.allocated_words as usize).div_ceil(BLOCK_SIZE / std::mem::size_of::<Word>())
    } else {
        measure.oldest_blocks_at_start.saturating_sub(state.live_after_major)
    };
    let seconds_between = measure.started.saturating_duration_since(state.last_major_end).as_secs_f64();
    let gc = MajorGc { old_gen_factor: flags.old_gen_factor, min_old_gen_blocks: flags.min_old_gen_blocks, live_blocks, two_space, grown_blocks, seconds_between, gc_seconds: measure.gc_seconds, min_room_blocks: flags.alloc_area_blocks * caps };
    let limit = state.heap.space_limit(&gc);
    state.last_major_end = Instant::now();
    state.live_after_major = heap.gens[heap.oldest()].filled_blocks();
    // See Note [Waste the last major GC left].
    state.waste_after_major = if two_space || !swept { 0 } else { state.live_after_major.saturating_sub(live_blocks) };
    limit
}

/// The collected space's live data, in blocks: with one generation its
/// blocks; else the oldest generation's live words (the collector's
/// estimate where it has one) and large objects.
fn live_blocks(heap: &Heap) -> usize {
    if heap.gens.len() == 1 {
        return heap.gens[0].occupied_blocks();
    }
    let oldest = &heap.gens[heap.oldest()];
    let words = oldest.live_estimate.unwrap_or(oldest.n_words);
    words.div_ceil(BLOCK_SIZE / std::mem::size_of::<Word>()) + oldest.n_large_blocks
}

/// GHC's `resize_generations`, with the policy's `limit` for GHC's
/// `max(F x live, -O)`; `in_place`: the oldest generation needs no copy
/// reserve (GHC's `compacting` case, which a non-moving old generation
/// shares).
fn resize_generations(heap: &mut Heap, flags: &RtsFlags, state: &PolicyState, caps: usize, in_place: bool, limit: usize) -> Result<(), HeapExhausted> {
    let gens = heap.gens.len();
    let live = live_blocks(heap);
    let mut size = limit;
    let max = state.max_heap(flags);
    if max != 0 {
        let min_alloc = min_alloc_blocks(flags, max, caps);
        if max < min_alloc {
            return Err(state.overflow(flags));
        }
        if in_place {
            if size + (size.saturating_sub(1)) * (gens - 2) * 2 + min_alloc > max {
                size = (max - min_alloc) / ((gens - 1) * 2 - 1);
            }
        } else if size * (gens - 1) * 2 + min_alloc > max {
            size = (max - min_alloc) / ((gens - 1) * 2);
        }
        if size < live {
            return Err(state.overflow(flags));
        }
    }
    for gen in &mut heap.gens {
        gen.max_blocks = size;
    }
    Ok(())
}

/// GHC's `resize_nursery`; `limit` is the heap policy's, after a major
/// GC; `outcome` what the GC did (what it copied, whether it kept the
/// oldest generation in place).
fn resize_nursery(heap: &mut Heap, flags: &RtsFlags, state: &mut PolicyState, req: &GcRequest, outcome: &GcOutcome, caps: usize, limit: Option<usize>) -> Result<(), HeapExhausted> {
    let min_nursery = flags.alloc_area_blocks * caps;
    let copied_words = outcome.copied_words;
    let wanted = if heap.gens.len() == 1 {
        let room = limit.map_or(0, |l| l.saturating_sub(heap.gens[0].occupied_blocks()));
        two_space_nursery(heap, flags, state, min_nursery, room, outcome.in_place)?
    } else if flags.heap_suggestion_blocks > 0 || flags.heap_suggestion_auto {
        let suggestion = if flags.heap_suggestion_blocks > 0 { flags.heap_suggestion_blocks } else { state.last_heap_blocks };
        if req.collect_gen == 0 {
            let nursery = heap.nursery_blocks().max(1);
            state.g0_pct_kept = (copied_words / (BLOCK_SIZE / 8 - 10)) * 100 / nursery;
        }
        let needed = needed_blocks(heap);
        let blocks = (suggestion as i64 - needed as i64) * 100 / (100 + state.g0_pct_kept as i64);
        (blocks.max(0) as usize).max(min_nursery)
    } else {
        min_nursery
    };
    if wanted != heap.nursery_blocks() {
        heap.resize_nurseries(wanted, flags.chunk_blocks, caps)?;
    }
    Ok(())
}

/// Two-space sizing: the allocation area is the policy's `room` beyond
/// the live data (GHC's `F x live`), at least `-A`; near the heap's
/// limit, whatever is left after the live data and its copy, or, when
/// the GC keeps the live data in place, after the live data and a copy
/// of the allocation area's survivors (See Note [One generation kept in
/// place]).
fn two_space_nursery(heap: &Heap, flags: &RtsFlags, state: &PolicyState, min_nursery: usize, room: usize, in_place: bool) -> Result<usize, HeapExhausted> {
    let live = heap.gens[0].occupied_blocks();
    let max = state.max_heap(flags);
    if max != 0 && room.saturating_mul(2) > max {
        let copy_reserve = max as i64 - 2 * live as i64;
        let adjusted = if in_place { copy_reserve.max((max as i64 - live as i64) / 2) } else { copy_reserve };
        let pc_free = adjusted * 100 / max as i64;
        if adjusted <= 0 || (pc_free as f64) < flags.pc_free_heap {
            return Err(state.overflow(flags));
        }
        return Ok((adjusted as usize).max(1));
    }
    Ok(room.max(min_nursery))
}

// Note [One generation kept in place]
// ----------------------------------------
// With one generation (`-G1`) GHC sizes the allocation area, near the
// `-M` limit, as what is left after the live data and its copy: the next
// GC copies everything. Whole-heap Immix, mark-sweep and mark-compact
// (See Note [One generation] in the collectors crate) keep the live data
// where it lies
// and copy only the allocation area's survivors into the space, so the
// next GC needs the live data, the allocation area N and at most N more
// for its survivors: N = (max - live) / 2 fits. Where that is the larger
// allocation area (the live data above a third of the limit) it is the
// one given; below, GHC's is larger and still fits. Without it a
// collector that never copies its old objects still paid for their
// copy: whole-heap Immix's minimum heap on fibheaps 400000 was 80 MB,
// above two-space's 71.

/// Blocks the next GC will need for live data and its copies (GHC's
/// `calcNeeded`, without choosing the generations).
fn needed_blocks(heap: &Heap) -> usize {
    let mut needed = 0;
    for (g, gen) in heap.gens.iter().enumerate() {
        let blocks = gen.occupied_blocks();
        needed += blocks;
        if g == 0 || blocks > gen.max_blocks {
            needed += gen.n_blocks;
        }
    }
    needed
}

/// Past the heap's limit after a GC: a minor GC asks for a major one
/// next; after a major one it is an overflow.
fn check_max_heap(heap: &Heap, flags: &RtsFlags, state: &mut PolicyState, major: bool, caps: usize) -> Result<(), HeapExhausted> {
    let max = state.max_heap(flags);
    if max == 0 {
        return Ok(());
    }
    let in_use = heap.blocks_in_use();
    let min_alloc = min_alloc_blocks(flags, max, caps);
    if in_use > max || heap.generation_blocks() + min_alloc > max {
        if major {
            return Err(state.overflow(flags));
        }
        state.force_major = true;
    } else if major {
        state.force_major = false;
    }
    Ok(())
}

/// Return free megablocks beyond what the heap needs to the OS. If the live
/// data stays the same, the next major GC needs the policy's `limit` (for
/// GHC's rule `F x live`) plus a copy of the live data plus the nursery;
/// like GHC (`GC.c`, after GHC #14702) we keep one more `live`, so that a
/// program whose live data swings a little does not unmap and re-fault
/// the same memory at every major GC. With one generation the limit
/// holds the live data already (the nursery is the room beyond it).
fn return_memory(heap: &mut Heap, flags: &RtsFlags, state: &PolicyState, limit: usize) {
    let live = heap.generation_blocks();
    let room = if heap.gens.len() == 1 { limit.saturating_sub(live) } else { limit };
    let mut need = (2 * live).saturating_add(room).saturating_add(heap.nursery_blocks());
    need = need.max(flags.heap_suggestion_blocks);
    let max = state.max_heap(flags);
    if max > 0 {
        need = need.min(max);
    }
    let need_mblocks = need.div_ceil(BLOCKS_PER_MBLOCK);
    let blocks = heap.blocks_mut();
    let in_use = blocks.mblocks().mapped() - blocks.mblocks().free_count();
    let keep = need_mblocks.saturating_sub(in_use);
    blocks.release(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> RtsFlags {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        RtsFlags::from_env_and_args(None, &a).unwrap()
    }

    /// A heap whose oldest generation claims `blocks` blocks of live data.
    fn heap_with_old_data(f: &RtsFlags, blocks: usize) -> Heap {
        let mut heap = Heap::new(f, 1).unwrap();
        let oldest = heap.oldest();
        let gen = &mut heap.gens[oldest];
        gen.n_blocks = blocks;
        gen.n_words = blocks * BLOCK_SIZE / 8;
        heap
    }

    /// What the driver would measure of a GC starting now.
    fn measure() -> GcMeasure {
        GcMeasure { started: Instant::now(), gc_seconds: 0.0, oldest_blocks_at_start: 0, allocated_words: 0 }
    }

    /// A major GC of a two-generation heap (of a one-generation heap too:
    /// generation 0 is then the oldest).
    const MAJOR: GcRequest = GcRequest { collect_gen: 1, reason: GcReason::Explicit, compact_oldest: false, heap_full: false };
    const MAJOR_G1: GcRequest = GcRequest { collect_gen: 0, reason: GcReason::Explicit, compact_oldest: false, heap_full: false };

    #[test]
    fn old_generation_limit_is_f_times_live_at_least_o() {
        let f = flags(&["-F3", "-O4m"]);
        let mut heap = heap_with_old_data(&f, 2000);
        let mut st = PolicyState::new(&f);
        after_gc(&mut heap, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap();
        assert_eq!(heap.gens[1].max_blocks, 6000);
        let mut small = heap_with_old_data(&f, 10);
        after_gc(&mut small, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap();
        assert_eq!(small.gens[1].max_blocks, 1024, "-O4m is 1024 blocks");
    }

    #[test]
    fn max_heap_cuts_the_limit_then_overflows() {
        // -M64m = 16384 blocks; live 4100 blocks x F2 x 2 (copying) + 256 > 16384.
        let f = flags(&["-M64m"]);
        let mut heap = heap_with_old_data(&f, 4100);
        let mut st = PolicyState::new(&f);
        after_gc(&mut heap, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap();
        let min_alloc = (3.0 * 16384.0 / 200.0) as usize;
        assert_eq!(heap.gens[1].max_blocks, (16384 - min_alloc.max(256)) / 2);
        let mut full = heap_with_old_data(&f, 9000);
        let e = after_gc(&mut full, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap_err();
        assert_eq!(e, HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: 64 << 20, set_by: SET_BY_MAX_HEAP }));
    }

    #[test]
    fn two_space_nursery_is_f_times_live_at_least_a() {
        let f = flags(&["-G1", "-F2", "-A64k"]);
        let mut heap = heap_with_old_data(&f, 100);
        let mut st = PolicyState::new(&f);
        after_gc(&mut heap, &f, &mut st, &MAJOR_G1, &GcOutcome::default(), 1, &measure()).unwrap();
        assert_eq!(heap.nursery_blocks(), 200);
        let mut tiny = heap_with_old_data(&f, 3);
        after_gc(&mut tiny, &f, &mut st, &MAJOR_G1, &GcOutcome::default(), 1, &measure()).unwrap();
        assert_eq!(tiny.nursery_blocks(), 16, "-A64k is the minimum");
    }

    #[test]
    fn one_generation_kept_in_place_needs_no_copy_of_its_live_data() {
        // See Note [One generation kept in place]. -M64m = 16384 blocks.
        let f = flags(&["-G1", "-F3", "-M64m"]);
        let mut st = PolicyState::new(&f);
        let in_place = GcOutcome { in_place: true, ..GcOutcome::default() };
        let after = |st: &mut PolicyState, live: usize, outcome: &GcOutcome| {
            let mut heap = heap_with_old_data(&f, live);
            after_gc(&mut heap, &f, st, &MAJOR_G1, outcome, 1, &measure()).map(|()| heap.nursery_blocks())
        };
        // Live 7000 blocks: a copy leaves 16384 - 14000; in place, (16384 - 7000) / 2.
        assert_eq!(after(&mut st, 7000, &GcOutcome::default()), Ok(2384));
        assert_eq!(after(&mut st, 7000, &in_place), Ok(4692));
        // Past half the limit only a GC that keeps the live data in place fits.
        assert!(after(&mut st, 9000, &GcOutcome::default()).is_err());
        assert_eq!(after(&mut st, 9000, &in_place), Ok(3692));
        // Far from the limit, GHC's F x live whatever the GC does.
        assert_eq!(after(&mut st, 1000, &in_place), Ok(3000));
        assert_eq!(after(&mut st, 1000, &GcOutcome::default()), Ok(3000));
    }

    #[test]
    fn older_generations_are_collected_past_their_limit() {
        let f = flags(&["-G3"]);
        let mut heap = Heap::new(&f, 1).unwrap();
        let st = PolicyState::new(&f);
        for g in &mut heap.gens {
            g.max_blocks = 100;
        }
        assert_eq!(plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).collect_gen, 0);
        heap.gens[1].n_blocks = 101;
        assert_eq!(plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).collect_gen, 1);
        heap.gens[2].n_large_blocks = 101;
        assert_eq!(plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).collect_gen, 2);
        assert_eq!(plan_collection(&Heap::new(&f, 1).unwrap(), &f, &st, GcReason::Explicit, true).collect_gen, 2);
    }

    #[test]
    fn compaction_is_asked_for_by_c_or_past_the_threshold() {
        let f = flags(&["-c"]);
        let st = PolicyState::new(&f);
        let heap = Heap::new(&f, 1).unwrap();
        assert!(plan_collection(&heap, &f, &st, GcReason::Explicit, true).compact_oldest);
        let f = flags(&["-M100m", "-c30"]);
        let mut heap = heap_with_old_data(&f, 1000);
        assert!(!plan_collection(&heap, &f, &st, GcReason::Explicit, true).compact_oldest);
        heap.gens[1].n_blocks = 25600 * 31 / 100;
        assert!(plan_collection(&heap, &f, &st, GcReason::Explicit, true).compact_oldest);
        // One generation: every GC compacts with -c (whole-heap
        // mark-compact), and -c<n>'s share of -M, a generational rule,
        // asks for nothing (immix reads the request).
        let f = flags(&["-c", "-G1"]);
        assert!(plan_collection(&Heap::new(&f, 1).unwrap(), &f, &st, GcReason::HeapExhausted, false).compact_oldest);
        let f = flags(&["-G1", "-M1m", "-c1"]);
        let mut heap = Heap::new(&f, 1).unwrap();
        heap.gens[0].n_blocks = 200;
        assert!(!plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).compact_oldest);
    }

    #[test]
    fn a_fixed_heap_grows_the_old_generation_to_its_size_then_overflows() {
        // 64m = 16384 blocks; the old generation and its copy fit beside
        // the minimum allocation area, whatever F says.
        let f = flags(&["--heap-policy=fixed:size=64m", "-F1.1"]);
        let mut heap = heap_with_old_data(&f, 100);
        let mut st = PolicyState::new(&f);
        after_gc(&mut heap, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap();
        let min_alloc = ((3.0 * 16384.0 / 200.0) as usize).max(256);
        assert_eq!(heap.gens[1].max_blocks, (16384 - min_alloc) / 2);
        // A smaller -M holds instead, and names itself.
        let f = flags(&["--heap-policy=fixed:size=64m", "-M32m"]);
        let mut full = heap_with_old_data(&f, 5000);
        let mut st = PolicyState::new(&f);
        let e = after_gc(&mut full, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap_err();
        assert_eq!(e, HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: 32 << 20, set_by: SET_BY_MAX_HEAP }));
        let f = flags(&["--heap-policy=fixed:size=64m"]);
        let mut full = heap_with_old_data(&f, 9000);
        let mut st = PolicyState::new(&f);
        let e = after_gc(&mut full, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &measure()).unwrap_err();
        assert_eq!(e, HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: 64 << 20, set_by: "--heap-policy=fixed:size=<size>" }));
    }

    #[test]
    fn the_trigger_discounts_the_waste_a_major_gc_left_only_when_it_swept_in_its_pause() {
        // 3000 blocks filled after the major GC, 2000 of them live data:
        // F2 gives a limit of 4000, and 1000 blocks of waste.
        let f = flags(&["-F2"]);
        let grown = |heap: &mut Heap, filled: usize| heap.gens[1].n_blocks = filled;
        let swept = GcOutcome { in_place: true, ..GcOutcome::default() };
        let outcomes = [(swept.clone(), 1000), (GcOutcome::default(), 0), (GcOutcome { compacted: true, ..swept.clone() }, 0), (GcOutcome { began_concurrently: true, ..swept }, 0)];
        for (outcome, waste) in outcomes {
            let mut heap = heap_with_old_data(&f, 2000);
            heap.gens[1].n_blocks = 3000;
            let mut st = PolicyState::new(&f);
            after_gc(&mut heap, &f, &mut st, &MAJOR, &outcome, 1, &measure()).unwrap();
            assert_eq!((heap.gens[1].max_blocks, st.waste_after_major), (4000, waste));
            // 2000 blocks promoted since: (F - 1) x live, as copying gets.
            grown(&mut heap, 4000 + waste);
            assert_eq!(plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).collect_gen, 0);
            grown(&mut heap, 4001 + waste);
            assert_eq!(plan_collection(&heap, &f, &st, GcReason::HeapExhausted, false).collect_gen, 1, "waste {waste}");
        }
    }

    #[test]
    fn membalancer_is_told_what_the_space_grew_by_and_how_long_the_gc_took() {
        let f = flags(&["--heap-policy=membalancer:c=0.002"]);
        let mut heap = heap_with_old_data(&f, 256 * 100);
        let mut st = PolicyState::new(&f);
        // Grown by 256 MiB in about 10 ms, 100 MiB traced in 1 s: a fill
        // rate far above the trace rate gives room well beyond F x live.
        std::thread::sleep(std::time::Duration::from_millis(10));
        let m = GcMeasure { gc_seconds: 1.0, oldest_blocks_at_start: 256 * 356, ..measure() };
        after_gc(&mut heap, &f, &mut st, &MAJOR, &GcOutcome::default(), 1, &m).unwrap();
        assert!(heap.gens[1].max_blocks > 2 * 256 * 100, "{}", heap.gens[1].max_blocks);
    }
}
