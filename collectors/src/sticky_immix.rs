//! `sticky-immix`: Immix with sticky mark bits (Demers et al.'s sticky
//! marks, as MMTk's StickyImmix and Whippet's generational `mmc` use
//! them): the young generation is the objects allocated since the last
//! GC wherever they lie, most of them in the holes of old blocks, and a
//! minor GC marks those where they lie, beside the old objects.
//!
//! - Allocation: after every GC the collector offers the mutators the
//!   holes of its recyclable blocks, up to `-A` of them (See Note
//!   [Allocation regions] in core's `alloc_region`); the mutators fill
//!   those first, objects larger than a line that miss a hole going to an
//!   overflow nursery block, then the runtime's nursery blocks, of which
//!   they leave unused as many as the holes they took.
//! - Minor GC: the blocks whose holes were offered are marked in place,
//!   each starting from the marks of its old objects (its sticky marks:
//!   See Note [Marks that stick]); tracing from the roots and the
//!   remembered set marks the young objects reached there and stops at
//!   every old one. Each of those blocks is then judged line by line
//!   (`LineSpace::judge`): dead young objects' words are zeroed, the free
//!   lines are holes again. The young objects in the runtime's nursery
//!   blocks (those that missed the holes) are copied into the line space,
//!   as `immix` promotes, straight into the old generation (See Note
//!   [Young objects in fresh blocks]).
//! - Major GC: `immix`'s, unchanged (mark in place, evacuate the most
//!   fragmented blocks, sweep); the nursery's survivors are copied into
//!   the line space there, as `immix` promotes.
//!
//! The remembered set is the runtime's: the write barrier judges age by
//! block, so a store into a young object in an old block is remembered as
//! if the object were old, and the minor GC skips such entries (See Note
//! [Young objects in old blocks] in `scavenge`). With two generations
//! only: a minor GC makes every survivor old at once.
//!
//! With `young=copy` a minor GC copies the young objects it reaches in
//! the offered holes out of them instead (as MMTk's StickyImmix prefers
//! to in a nursery GC): See Note [Young objects copied out of holes].
//! (An offered block never becomes empty in a minor GC: it held old
//! objects when it was offered, and a minor GC keeps every old object.)

use crate::immix::{parse_percent, Immix};
use crate::mark::MarkBitmap;
use crate::space_trace::{trace_into, Tracing};
use crate::CollectorEntry;
use gclab_core::alloc_region::Region;
use gclab_core::bdescr::{BlockPtr, LiveMap, BF_EVACUATED, BF_MARK_IN_PLACE};
use gclab_core::constants::BLOCK_WORDS;
use gclab_core::heap::Heap;
use gclab_core::object::{info_of_header, Layout};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "sticky-immix",
    description: "Immix with sticky mark bits: mutators allocate into the old blocks' holes, where minor GCs mark the young in place (offer=PERCENT of -A as holes, default 25; young=mark|copy, what a minor GC does with the young in holes, default mark; line, defrag, headroom as immix)",
    flags: "-G2",
    make: |mut params, flags| {
        if flags.generations != 2 {
            return Err(format!("the sticky-immix collector has two generations (a minor GC makes every survivor old where it lies), not -G{}", flags.generations));
        }
        let offer = params.take("offer").map(|v| parse_percent("offer", " of -A", 1, &v)).transpose()?.unwrap_or(25);
        let copy_young = params.take("young").map(|v| parse_young(&v)).transpose()?.unwrap_or(false);
        let immix = Immix::from_params(params, flags, "sticky-immix", &["offer", "young"])?;
        Ok(Box::new(StickyImmix { immix, offer_percent: offer, copy_young, offered: Vec::new() }))
    },
};

/// A block whose holes were offered to the mutators at the last GC.
struct Offered {
    bd: BlockPtr,
    /// The marks of its objects when it was offered: all of them old.
    marks: LiveMap,
    /// The words of the holes offered, which the generation counted free.
    free_words: usize,
}

/// The sticky-immix collector: an `immix` collector for its major GCs and
/// its space, how much of `-A` it offers as holes, and the blocks it
/// offered since the last GC.
pub struct StickyImmix {
    immix: Immix,
    offer_percent: usize,
    /// `young=copy`: See Note [Young objects copied out of holes].
    copy_young: bool,
    offered: Vec<Offered>,
}

// SAFETY: `Offered` names blocks of the collector's own space, touched
// only with the world stopped (the collector is held exclusively then).
unsafe impl Send for StickyImmix {}
// SAFETY: as above.
unsafe impl Sync for StickyImmix {}

// Note [Marks that stick]
// ----------------------------------------
// In a sticky-mark-bits collector a mark, once set, says "old" until the
// next major GC clears it, so a minor GC marks only what is unmarked: the
// young. MMTk keeps the bits of every block in side metadata for the
// whole run. Here only the blocks whose holes are offered can hold young
// objects (besides the nursery), and right after a GC every object in
// them is old: a block's sticky marks are exactly its objects. So the
// marks are taken when a block is offered, by walking it (at most 512
// words, and only the blocks offered, about `-A` of holes), and are kept
// with the offer until the next GC, which marks into a bitmap that starts
// from them (`MarkBitmap::attach_with`): old objects read as marked, and
// are neither scanned nor judged dead. A minor GC then costs what is young
// and what the remembered set names, not the old generation's size. The
// alternative, a persistent bitmap over every block of the space, would
// save the walk and cost 64 bytes for each block and its upkeep through
// `immix`'s major GCs, which mark into a fresh bitmap of their own.
//
// An old object may shrink while it is offered: a thunk updated in place
// keeps two words and zeroes the rest (core's Note [Slop is zeroed]). Its
// sticky marks still cover the old size, and a line judged by them would
// count that slop as live words, which the next offer's walk no longer
// sees: the generation's word count would creep up by the slop at every
// offer (a sanity check caught it: 25 words counted, 24 in the blocks).
// So the next GC first drops from the marks every marked zero word that
// lies where an object would start (`drop_slop`): only slop is zero there.

// Note [Young objects in fresh blocks]
// ----------------------------------------
// The first version marked the young objects of the nursery blocks in
// place too, and moved every nursery block with a survivor into the old
// generation (fresh blocks into the nursery in their place), so that a
// minor GC copied nothing at all. Measured on the 16-core device
// (experiments/sticky-immix.toml, medians of 3): a nursery block's few
// survivors then kept a whole block in the old generation, whose size
// the policy counts in blocks, so major GCs came far more often
// (fibheaps: 142 against immix's 33) and each minor GC zeroed nearly the
// whole nursery's dead words; GC time was 2.6x immix's on fibheaps and
// 1.25x on binary-trees 20. Copying what survives of whole blocks of
// young objects costs only the survivors, and packs them into the space's
// holes; marking in place pays where copying cannot help, in the holes
// of old blocks, where the young objects lie among old ones.

// Note [How much to offer]
// ----------------------------------------
// Holes offered to the mutators are holes the minor GC's promotion cannot
// fill (the offered blocks are off the recyclable list until the GC has
// judged them), so what is offered decides who recycles the old
// generation's free lines: the mutators, with young objects that mostly
// die and leave the lines free again, or promotion, with survivors that
// stay. Offering up to all of `-A` left promotion cutting fresh blocks,
// the old generation grew in blocks and major GCs came sooner. Measured
// on this 2-core machine, 3 alternated runs each, GC seconds:
// fibheaps 400000 at offer=100 94 major GCs, 2.01-2.37 s, 37% of the
// allocation into holes; at offer=25 66 major GCs, 1.46-1.60 s, 11%
// (immix: 33, 1.20 s); lru 50000 1000000 128 at offer=100 0.152-0.163 s
// (37% into holes), at offer=25 0.092-0.101 s (16%). So the default is
// 25% (`sticky-immix:offer=PERCENT`). A collector that let promotion and
// the mutators share holes in one pass would not have to
// choose.

// Note [Young objects copied out of holes]
// ----------------------------------------
// A minor GC marks the young objects of the offered holes where they lie
// (`young=mark`): the survivors then stay scattered among the old
// objects, one here and one there, and a hole with a survivor on it is a
// used line until the next major GC. MMTk's StickyImmix prefers to copy
// young objects in a nursery GC wherever it can, as a generational
// copying collector does: the survivors are packed together where
// promotion puts them (the space's other holes, or fresh blocks) and the
// offered holes come back whole. With `young=copy` the bitmap of the
// offered blocks is told so (`MarkBitmap::copying_the_unmarked`):
// `evacuate` copies an object of such a block that is not marked (the
// old objects are, by their sticky marks) and leaves a forwarding
// pointer, which the judging of the block then zeroes with the rest of
// the dead words. A mutable-list entry that is young stays skipped (Note
// [Young objects in old blocks] in `scavenge`): if it is live, something
// else reaches it and copies it. Its copy counts as promoted, not as
// defragmentation. Measured against `young=mark` (5 alternated rounds,
// default heap, 2 cores): fibheaps 400000 total 0.85x, its minor GCs
// 0.57x (its heap nodes had stayed scattered in the holes); gcbench 18
// total 1.07x and lru 1.06x, whose survivors in holes cost more to copy
// than to mark; binary-trees 19 1.03x. So the default stays `mark`
// (docs/immix.md, "StickyImmix, measured", has the table).

impl Collector for StickyImmix {
    fn name(&self) -> &'static str {
        "sticky-immix"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let outcome = if req.collect_gen == ctx.heap.oldest() {
            // The major GC judges every block afresh, the offered ones
            // with their young objects included.
            self.offered.clear();
            self.immix.collect(req, ctx)
        } else {
            // SAFETY: the runtime gives the collector the heap exclusively
            // (core's Note [Who touches what]).
            unsafe { self.minor(ctx) }
        };
        // SAFETY: as above.
        unsafe { self.offer_holes(ctx) };
        outcome
    }

    fn check_heap(&self, heap: &Heap) -> Vec<String> {
        let mut problems = self.immix.check_heap(heap);
        let old: std::collections::HashSet<BlockPtr> = heap.gens[heap.oldest()].blocks.iter().copied().collect();
        for r in heap.offered.regions() {
            if !old.contains(&r.bd) {
                problems.push(format!("offered region {:p}..{:p} is in block {:p}, not in the old generation", r.start, r.end, r.bd.0));
            }
            // SAFETY: the sanity checker runs with the world stopped,
            // right after the GC that offered the region: nothing is in it.
            let words = unsafe { std::slice::from_raw_parts(r.start, r.words()) };
            if let Some(w) = words.iter().position(|&w| w != 0) {
                problems.push(format!("offered region {:p}..{:p} is not empty: word {w} holds {:#x}", r.start, r.end, words[w]));
            }
        }
        problems
    }
}

impl StickyImmix {
    /// A minor GC: mark the young where they lie. See the module doc.
    ///
    /// # Safety
    /// The GC holds the heap.
    // SAFETY: the caller's contract; every root and heap slot holds a valid object address.
    unsafe fn minor(&mut self, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let (space, pool) = self.immix.parts(oldest);
        let workers = pool.for_collection(ctx.flags, 0, ctx.help);
        let mut marks = MarkBitmap::new().copying_the_unmarked(self.copy_young);
        let offered: Vec<BlockPtr> = self.offered.iter().map(|o| o.bd).collect();
        let old = &mut ctx.heap.gens[oldest];
        for o in self.offered.drain(..) {
            // The block is judged again below: take back what it counted.
            old.n_words -= crate::line_space::live_words(&o.marks);
            old.n_free_words -= o.free_words;
            // SAFETY: the caller's contract: the block is the space's.
            let d = unsafe { o.bd.get() };
            d.flags = (d.flags & !BF_EVACUATED) | BF_MARK_IN_PLACE;
            // SAFETY: the block is the space's, its objects and zeros tile it.
            let sticky = unsafe { drop_slop(o.bd, o.marks, ctx.heap.layout) };
            // SAFETY: as above.
            unsafe { marks.attach_with(o.bd, &sticky) };
        }
        promote_nursery_at_once(ctx.heap);
        let how = Tracing { n: 0, marks: Some(&marks), black: Some(&marks), defer: false, sticky: true };
        // SAFETY: as above; the blocks marked in place are attached.
        let (mut done, _) = unsafe { trace_into(space, how, ctx, workers) };
        let old = &mut ctx.heap.gens[oldest];
        // SAFETY: marking is over; the blocks are the space's.
        let region = unsafe { space.judge_all(&offered, &marks, old) };
        // Every object marked was young: promoted where it lies; every
        // object copied out of an old block too (not defragmentation).
        for t in done.threads.iter_mut() {
            t.promoted_words += t.marked_words + std::mem::take(&mut t.oldest_copied_words);
        }
        GcOutcome { in_place: true, region: Some(region), ..done }
    }

    /// Offer the mutators the holes of recyclable blocks, up to `-A`'s
    /// words, each block with its sticky marks (See Note [Marks that
    /// stick]).
    ///
    /// # Safety
    /// The GC holds the heap.
    // SAFETY: reads the space's blocks, which the GC holds (the caller's contract).
    unsafe fn offer_holes(&mut self, ctx: &mut GcContext<'_>) {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        // See Note [How much to offer].
        let wanted = ctx.flags.alloc_area_blocks * ctx.caps.len() * BLOCK_WORDS * self.offer_percent / 100;
        let (space, _) = self.immix.parts(oldest);
        let mut regions = Vec::new();
        // SAFETY: the caller's contract.
        for (r, holes) in unsafe { space.take_holes(wanted) } {
            // SAFETY: as above.
            let d = unsafe { r.bd.read() };
            for h in &holes {
                regions.push(Region { bd: r.bd, start: d.start.wrapping_add(h.start), end: d.start.wrapping_add(h.end) });
            }
            // SAFETY: as above.
            let marks = unsafe { object_marks(r.bd, layout) };
            self.offered.push(Offered { bd: r.bd, marks, free_words: holes.iter().map(|h| h.len()).sum() });
        }
        // An object larger than a line that misses a hole goes to an
        // overflow block, as immix's own allocator sends it.
        ctx.heap.offered.offer(regions, space.geometry().line_words());
    }
}

/// `young=mark|copy`: whether a minor GC copies the young objects of the
/// offered holes out (See Note [Young objects copied out of holes]).
fn parse_young(v: &str) -> Result<bool, String> {
    match v {
        "mark" => Ok(false),
        "copy" => Ok(true),
        _ => Err(format!("sticky-immix's young={v}: what a minor GC does with the young objects in holes is `mark` (in place) or `copy` (out of the holes)")),
    }
}

/// Send the survivors of the nursery blocks straight into the old
/// generation (no aging in generation 0: a sticky minor GC makes every
/// survivor old).
fn promote_nursery_at_once(heap: &mut Heap) {
    let oldest = heap.oldest() as u16;
    for &bd in heap.nurseries.iter().flatten() {
        // SAFETY: the GC holds the heap, the nurseries included.
        unsafe { bd.get() }.dest_no = oldest;
    }
}

/// Every word of every object in space block `bd`, as a mark bitmap.
///
/// # Safety
/// The GC holds the heap; the block's objects and zero words tile it (a
/// line-space block: See `line_space`).
// SAFETY: the caller's contract covers the walk.
unsafe fn object_marks(bd: BlockPtr, layout: Layout) -> LiveMap {
    let mut bits: LiveMap = [0; BLOCK_WORDS / 64];
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    let walk = |p: *mut gclab_core::constants::Word| {
        // SAFETY: `p` starts an object of the block (the caller's contract).
        let size = unsafe { layout.size_of(p, info_of_header(*p)) };
        let first = d.word_index(p);
        for w in first..(first + size).min(BLOCK_WORDS) {
            bits[w / 64] |= 1 << (w % 64);
        }
        Some(size)
    };
    // SAFETY: as above.
    unsafe { gclab_core::block_walk::walk_block(d, d.free, walk) };
    bits
}

/// `marks` (a block's sticky marks, taken by `object_marks` when it was
/// offered) less the slop its old objects left since, when updated in
/// place (See Note [Marks that stick]). Walks each marked run object by
/// object: a marked run starts at an object, and a zero word where the
/// next object would start is slop.
///
/// # Safety
/// The GC holds the heap; `bd` is a line-space block whose objects and
/// zero words tile it.
// SAFETY: the caller's contract covers the reads of the block's words.
unsafe fn drop_slop(bd: BlockPtr, mut marks: LiveMap, layout: Layout) -> LiveMap {
    // SAFETY: the caller's contract.
    let start = unsafe { bd.read() }.start;
    let marked = |m: &LiveMap, w: usize| m[w / 64] & (1 << (w % 64)) != 0;
    let mut w = 0;
    while w < BLOCK_WORDS {
        if !marked(&marks, w) {
            w += 1;
            continue;
        }
        // SAFETY: `w` is in the block (the caller's contract).
        let p = unsafe { start.add(w) };
        // SAFETY: as above; `p` starts an object or is slop.
        let header = unsafe { *p };
        if header == 0 {
            marks[w / 64] &= !(1 << (w % 64));
            w += 1;
        } else {
            // SAFETY: a non-zero word where an object starts is its header.
            w += unsafe { layout.size_of(p, info_of_header(header)) };
        }
    }
    marks
}
