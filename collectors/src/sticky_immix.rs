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
//!   See Note [Marks that stick] in `offered_holes`); tracing from the roots and the
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

use crate::copy_order::CopyOrder;
use crate::immix::Immix;
use crate::mark::MarkBitmap;
use crate::offered_holes::OfferedHoles;
use crate::space_trace::{trace_into, Tracing};
use crate::CollectorEntry;
use gclab_core::bdescr::BlockPtr;
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "sticky-immix",
    description: "Immix with sticky mark bits: mutators allocate into the old blocks' holes, where minor GCs mark the young in place (offer=PERCENT of -A as holes, default 25; young=mark|copy, what a minor GC does with the young in holes, default mark; order=breadth|depth, the order survivors are copied in; line, defrag, headroom as immix)",
    flags: "-G2",
    make: |mut params, flags| {
        if flags.generations != 2 {
            return Err(format!("the sticky-immix collector has two generations (a minor GC makes every survivor old where it lies), not -G{}", flags.generations));
        }
        let offer = params.take_percent("offer", " of -A", 1..=100, 25)?;
        let copy_young = params.take("young").map(|v| parse_young(&v)).transpose()?.unwrap_or(false);
        // Cheney's order by default: See Note [Copying depth first] in
        // `copy_order` for what depth first gave it.
        let order = CopyOrder::take(&mut params, CopyOrder::BreadthFirst)?;
        let mut immix = Immix::from_params(params, "sticky-immix", &["offer", "young", "order"])?;
        immix.order = order;
        Ok(Box::new(StickyImmix { immix, copy_young, holes: OfferedHoles::walked(offer) }))
    },
};

/// The sticky-immix collector: an `immix` collector for its major GCs and
/// its space, how much of `-A` it offers as holes, and the blocks it
/// offered since the last GC.
pub struct StickyImmix {
    immix: Immix,
    /// `young=copy`: See Note [Young objects copied out of holes].
    copy_young: bool,
    /// The blocks whose holes are offered, and how much of `-A` is.
    holes: OfferedHoles,
}

// SAFETY: the offered holes name blocks of the collector's own space, touched
// only with the world stopped (the collector is held exclusively then).
unsafe impl Send for StickyImmix {}
// SAFETY: as above.
unsafe impl Sync for StickyImmix {}

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
            self.holes.forget();
            self.immix.collect(req, ctx)
        } else {
            // SAFETY: the runtime gives the collector the heap exclusively
            // (core's Note [Who touches what]).
            unsafe { self.minor(ctx) }
        };
        let (space, _) = self.immix.parts(ctx.heap.oldest());
        // SAFETY: as above; the offer was taken back or forgotten.
        unsafe { self.holes.offer(space, ctx) };
        outcome
    }

    fn check_heap(&self, heap: &Heap) -> Vec<String> {
        let mut problems = self.immix.check_heap(heap);
        problems.extend(OfferedHoles::check(heap));
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
        let order = self.immix.order;
        let (space, pool) = self.immix.parts(oldest);
        let workers = pool.for_collection(ctx.flags, 0, ctx.help);
        let mut marks = MarkBitmap::new().copying_the_unmarked(self.copy_young);
        // SAFETY: the caller's contract: the offered blocks are the space's.
        let taken = unsafe { self.holes.take(&mut marks, ctx.heap.layout) };
        let old = &mut ctx.heap.gens[oldest];
        for o in &taken {
            // The block is judged again below: take back what it counted.
            old.n_words -= crate::line_space::live_words(&o.marks);
            old.n_free_words -= o.free_words();
        }
        let offered: Vec<BlockPtr> = taken.iter().map(|o| o.bd).collect();
        promote_nursery_at_once(ctx.heap);
        let how = Tracing { n: 0, marks: Some(&marks), black: Some(&marks), defer: false, record_old: false, sticky: true, evacuate: None, order };
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
