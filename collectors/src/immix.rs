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
//! Parameters: `immix:line=BYTES` (64 to 2048, default 128: See Note
//! [Line size] in `line_space`), `defrag=auto|always|never` and
//! `headroom=PERCENT` (default 2): See `defrag`. Runs on one GC thread or
//! on `-qn` of them, as `-qg`/`-qb` say. The oldest generation is kept in
//! place (its evacuation is bounded by the headroom), so under `-M` the
//! policy sizes the heap as for compaction.
//!
//! Not here: StickyImmix (no nursery copy; new objects allocated into
//! holes by the mutators, and a minor GC that marks them in place with
//! sticky mark bits). The seams stop it in two places: the mutators
//! allocate only into the runtime's nursery blocks, which the runtime
//! owns, hands out whole and resets after every GC, so a collector cannot
//! hand a mutator a hole; and a block of objects that have just been
//! marked in place would have to become the oldest generation's while the
//! nursery is refilled with fresh blocks, a change to the runtime's
//! nursery, not to a collector. See `docs/immix.md`.

use crate::defrag::{self, DefragMode};
use crate::gc_workers::GcThreadPool;
use crate::line_space::{Geometry, LineSpace};
use crate::mark::MarkBitmap;
use crate::space::{trace_into, trace_into_inspecting, Tracing};
use crate::CollectorEntry;
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::WORD_SIZE;
use gclab_core::heap::Heap;
use gclab_core::object::{forward_target, info_of_header, is_forwarded, load_header, Layout};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, RtsFlags};
use std::collections::HashSet;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "immix",
    description: "GHC's -w: young generations copied; the oldest in line-marked blocks, marked in place and its holes reused, the most fragmented blocks evacuated (line=BYTES, defrag=auto|always|never, headroom=PERCENT)",
    flags: "-w",
    make: |mut params, flags| {
        let line = params.take("line").map(|v| v.parse::<usize>().map_err(|_| format!("line must be a number of bytes, not `{v}'"))).transpose()?.unwrap_or(128);
        let geometry = Geometry::new(line)?;
        let defrag = params.take("defrag").map(|v| DefragMode::parse(&v)).transpose()?.unwrap_or_default();
        let headroom = params.take("headroom").map(|v| parse_percent(&v)).transpose()?.unwrap_or(2);
        params.finish("immix", &["line", "defrag", "headroom"])?;
        if flags.generations < 2 {
            return Err(format!("the immix collector needs at least two generations (its oldest is line-marked, the others copied), not -G{}", flags.generations));
        }
        Ok(Box::new(Immix { geometry, defrag, headroom_percent: headroom, old: None, pool: GcThreadPool::default() }))
    },
};

fn parse_percent(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(p) if p <= 100 => Ok(p),
        _ => Err(format!("headroom must be a percentage from 0 to 100, not `{v}'")),
    }
}

/// The immix collector: its geometry and defragmentation settings, its
/// old generation's space (made at the first GC) and its GC threads.
pub struct Immix {
    geometry: Geometry,
    defrag: DefragMode,
    headroom_percent: usize,
    old: Option<LineSpace>,
    pool: GcThreadPool,
}

impl Collector for Immix {
    fn name(&self) -> &'static str {
        "immix"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        assert!(oldest > 0, "immix needs at least two generations (the registry refuses -G1)");
        let n = req.collect_gen;
        let (mode, headroom) = self.defrag_for(req, ctx.heap, ctx.flags);
        let workers = self.pool.for_collection(ctx.flags, n);
        let space = self.old.get_or_insert_with(|| LineSpace::new(oldest, self.geometry));
        if n < oldest {
            let how = Tracing { n, marks: None, black: None, defer: false };
            // SAFETY: the runtime gives the collector the heap exclusively
            // (core's Note [Who touches what]).
            let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
            return GcOutcome { in_place: true, ..done };
        }
        let old = &mut ctx.heap.gens[oldest];
        let words_before = old.n_words;
        // SAFETY: as above.
        let chosen = unsafe { choose_candidates(space, mode, headroom) };
        space.forget(&chosen);
        // The candidates stay in the generation and become from-space; the
        // others are kept in place.
        let candidates: HashSet<BlockPtr> = chosen.iter().copied().collect();
        let (evacuated, kept): (Vec<BlockPtr>, Vec<BlockPtr>) = std::mem::take(&mut old.blocks).into_iter().partition(|bd| candidates.contains(bd));
        old.blocks = evacuated;
        // SAFETY: as above.
        let marks = unsafe { MarkBitmap::keep_in_place(&kept) };
        let how = Tracing { n, marks: Some(&marks), black: Some(&marks), defer: false };
        let layout = ctx.heap.layout;
        let mut copied_out = 0;
        // SAFETY: as above; the kept blocks are attached to `marks`.
        let (done, _) = unsafe { trace_into_inspecting(space, how, ctx, workers, |gens| copied_out = evacuated_words(&gens[oldest].old_blocks, layout)) };
        let Heap { blocks, gens, .. } = &mut *ctx.heap;
        // SAFETY: marking is complete and every allocator finished.
        let mut region = unsafe { space.sweep(kept, &marks, &mut blocks.lock(), &mut gens[oldest]) };
        region.defrag_blocks = chosen.len() as u32;
        region.defrag_copied_bytes = (copied_out * WORD_SIZE) as u64;
        let swept_words = words_before.saturating_sub(done.marked_words + copied_out);
        GcOutcome { in_place: true, swept_words, region: Some(region), ..done }
    }

    fn check_heap(&self, heap: &Heap) -> Vec<String> {
        match &self.old {
            // SAFETY: the sanity checker runs with the world stopped.
            Some(space) => unsafe { space.check(&heap.gens[heap.oldest()]) },
            None => Vec::new(),
        }
    }
}

impl Immix {
    /// When this major GC defragments, and its headroom in blocks. The
    /// collector's parameters say, unless the policy asks the oldest
    /// generation to be compacted (`-M` with live data past `-c<n>`% of
    /// it: the heap is tight): then it defragments whatever fits in the
    /// room left under `-M` (See Note [Defragmenting under -M]).
    fn defrag_for(&self, req: &GcRequest, heap: &Heap, flags: &RtsFlags) -> (DefragMode, usize) {
        let old = &heap.gens[heap.oldest()];
        let percent = (old.n_blocks * self.headroom_percent).div_ceil(100);
        if req.compact_oldest && self.defrag != DefragMode::Never {
            let room = flags.max_heap_blocks.saturating_sub(heap.generation_blocks() + heap.nursery_blocks());
            return (DefragMode::Always, room.max(percent));
        }
        (self.defrag, percent)
    }
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
// into the other blocks' holes and into those fresh blocks. On lru
// (50000 1000000 128) that brought its minimum heap from 19.3 MB to
// a figure measured in `docs/immix.md`. `immix:defrag=never` refuses
// it too.

/// The blocks this major GC evacuates: none unless `mode` says it should
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

/// Words of the objects evacuated from `blocks` (from-space, after
/// tracing): each forwarded object, sized by its copy.
fn evacuated_words(blocks: &[BlockPtr], layout: Layout) -> usize {
    let mut words = 0;
    for &bd in blocks {
        // SAFETY: from-space blocks are the GC's; their objects and zero
        // words tile them (a line-space block's free is its end), and a
        // forwarded object's copy carries its header.
        let walk = |p: *mut gclab_core::constants::Word| unsafe {
            let header = load_header(p);
            if is_forwarded(header) {
                let to = forward_target(header);
                let size = layout.size_of(to, info_of_header(load_header(to)));
                words += size;
                Some(size)
            } else {
                Some(layout.size_of(p, info_of_header(header)))
            }
        };
        // SAFETY: as above.
        let d = unsafe { bd.read() };
        // SAFETY: as above.
        unsafe { gclab_core::heap_walk::walk_block(d, d.free, walk) };
    }
    words
}
