//! `lxr`'s young objects in holes: after an RC pause the mutators are
//! offered the holes of the space's recyclable blocks (`holes=PERCENT` of
//! `-A`), as LXR's mutators allocate into the lines its counts free; the
//! next pause marks the young objects there where they lie, counts the
//! survivors as promoted and zeroes the rest.
//!
//! Invariant kept: while a hole is offered its field bits are clear, so
//! no store into a young object there is logged; the pause that takes it
//! back sets them again, every word of it.

use super::Lxr;
use crate::mark::MarkBitmap;
use crate::offered_holes::{young_in, Offered};
use gclab_core::bdescr::{BlockPtr, LiveMap};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::heap::Heap;
use gclab_core::side_metadata::{set_bits_between, side_bits_of, word_in_block};
use gclab_core::{GcContext, RegionSweep};

// Note [Young objects in holes]
// ----------------------------------------
// LXR's mutators allocate into the free lines of partly used blocks, so
// that what the counts free is used again at once, not only after a
// block empties or a backup trace. Here an RC pause with no backup trace
// marking offers the holes of recyclable blocks, up to `holes=PERCENT` of
// `-A` (core's Note [Allocation regions]; the shared mechanism is
// `offered_holes`, which `sticky-immix` uses too). What differs from
// sticky-immix is the counts:
//
// - A young object has no count and its fields count nothing until it
//   survives a pause. So the field bits of an offered hole are cleared:
//   the field-logging barrier logs no store into a young object there (a
//   logged old value would be lowered at the pause though no count ever
//   held it), and `young_fields` passes over such an object on a mutable
//   list (only unlogged fields are looked at).
// - The next pause takes the blocks back, attached with their sticky
//   marks, and the minor GC marks the young objects it reaches where they
//   lie (a young mutable-list entry is skipped: See Note [Young objects in
//   old blocks] in `scavenge`). The survivors are promoted in place: they
//   join the pause's placements, whose fields raise counts and whose words
//   enter the lines' account, and their holes' bits are set again, so
//   that their first stores are logged as any old object's. The blocks are
//   judged by the marks, which zeroes the dead young objects. A hole's
//   survivor is old at once, under `age=1` too: keeping it young for
//   another epoch would mean copying it out of the hole (LXR too promotes
//   every survivor at its first pause).
// - Between pauses the counts keep freeing old objects in offered blocks.
//   Their words leave the block's account (`LazyLines::died_offered`), but
//   the block is not judged: judging is by counts, and its young objects
//   have none. One whose old objects all died is freed by the pause, if
//   no young object in it survived either.
//
// No holes are offered while a backup trace marks beside the mutators: a
// snapshot block is judged only by the sweep, which would find a young
// object in its hole unmarked. Allocating black there is the alternative.
//
// The default offers none (`holes=0`). Measured on 2 cores against it,
// medians of 3 alternated rounds at `-A1m`, `holes=25` cost GC time 1.21x
// on fibheaps 400000 and 1.25x on lru, 1.04x on hash, 1.0x on gcbench and
// binary-trees, with peak memory unchanged: the nursery stays `-A`
// whatever the holes take (core's Note [The allocation area with offered
// regions]), so recycled lines save no memory, while the holes the counts
// leave are small (fibheaps: 2,000 holes of 14 words on average in 400
// blocks at each pause), so the mutators change regions every few objects
// and each pause takes back hundreds of blocks. docs/lxr.md has the table.

impl Lxr {
    /// Offer the mutators the holes of recyclable blocks, their field bits
    /// cleared (See Note [Young objects in holes]); nothing while a backup
    /// trace marks.
    ///
    /// # Safety
    /// The GC holds the heap, at the end of a GC; the last offer was taken
    /// back or forgotten.
    // SAFETY: the caller's contract covers the blocks' descriptors and tables.
    pub(super) unsafe fn offer_holes(&mut self, ctx: &mut GcContext<'_>) {
        if self.marking.is_some() {
            return;
        }
        let (space, _) = self.immix.parts(ctx.heap.oldest());
        // SAFETY: the caller's contract.
        unsafe { self.holes.offer(space, ctx) };
        for r in ctx.heap.offered.regions() {
            let bits = side_bits_of(r.start).expect("a block of the counted space has a side table");
            let first = word_in_block(r.start);
            set_bits_between(bits, first..first + r.words(), false);
        }
    }

    /// Take the offered blocks back for this pause's minor GC, attached to
    /// `marks` with every word outside their holes marked (See Note [Marks
    /// that stick] in `offered_holes`); their holes come off the
    /// generation's free words (the judging after the GC counts the free
    /// lines again).
    ///
    /// # Safety
    /// The GC holds the heap, before the minor GC.
    // SAFETY: the caller's contract covers the blocks.
    pub(super) unsafe fn take_back_holes(&mut self, heap: &mut Heap, marks: &mut MarkBitmap) -> Vec<Offered> {
        // SAFETY: the caller's contract.
        let taken = unsafe { self.holes.take(marks, heap.layout) };
        let oldest = heap.oldest();
        heap.gens[oldest].n_free_words -= taken.iter().map(|o| o.free_words()).sum::<usize>();
        taken
    }

    /// After the minor GC: the young objects that survived in the holes of
    /// `taken`, promoted where they lie (their words counted into the
    /// generation here, into the lines' account with the pause's
    /// placements), and the blocks judged by `marks`: the dead young
    /// zeroed, the holes' bits set again, and a block left empty freed.
    ///
    /// # Safety
    /// The GC holds the heap; the minor GC that marked into `marks` is over.
    // SAFETY: the caller's contract covers the blocks and their words.
    pub(super) unsafe fn judge_holes(&mut self, taken: Vec<Offered>, marks: &MarkBitmap, ctx: &mut GcContext<'_>) -> (Vec<*mut Word>, RegionSweep) {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let mut survivors = Vec::new();
        let mut judged: Vec<(BlockPtr, LiveMap)> = Vec::new();
        for o in &taken {
            let before = survivors.len();
            // SAFETY: the caller's contract: the holes are not judged yet.
            for (p, size) in unsafe { young_in(o, layout) } {
                if marks.is_marked(p) {
                    survivors.push(p);
                    ctx.heap.gens[oldest].n_words += size;
                }
            }
            // SAFETY: as above.
            let d = unsafe { o.bd.get() };
            let table = side_bits_of(d.start).expect("a block of the counted space has a side table");
            for h in &o.holes {
                set_bits_between(table, h.clone(), true);
            }
            let empty = survivors.len() == before && self.lines.counted_words(o.bd) == 0;
            if empty {
                for h in &o.holes {
                    // SAFETY: the block is the GC's; nothing in it lives
                    // (its old objects were zeroed as they died).
                    unsafe { std::ptr::write_bytes(d.start.add(h.start), 0, h.len()) };
                }
            }
            // Marked: the words outside the holes, and the survivors'.
            judged.push((o.bd, if empty { [0; BLOCK_WORDS / 64] } else { marks.bits(o.bd) }));
            d.end_marking_in_place(0);
            d.aux = 0;
        }
        let Heap { gens, blocks, .. } = &mut *ctx.heap;
        let gen = &mut gens[oldest];
        let (space, _) = self.immix.parts(oldest);
        // SAFETY: the caller's contract; the blocks are off the recyclable
        // list, their holes' words taken back.
        let (empty, sweep) = unsafe { space.judge_unlisted(&judged, gen) };
        // SAFETY: as above.
        unsafe { self.free_empty(empty, gen, &mut blocks.lock()) };
        (survivors, sweep)
    }
}
