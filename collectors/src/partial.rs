//! Partial collections: the young generations copied whole, with an
//! increment of an older generation (See Note [Increments] in
//! `from_space`), as Beltway's belts, older-first windows or
//! Garbage-First's regions collect part of the heap at a time.
//!
//! `copy_collect_increment` is `copying::copy_collect` with an increment
//! and the collector's remembered slots into it; `remembered_by_walk`
//! finds those slots by walking everything outside from-space that is not
//! traced (the generations above the collected ones, the increment left
//! out), which a collector without a barrier of its own can use, at the
//! cost of that walk; `collect_increment_walking` puts the two together,
//! safely. A collector that keeps its remembered set with the
//! field-logging barrier (See Note [The field-logging barrier] in core's
//! `barrier`) gives its own slots to `copy_collect_increment` instead.

use crate::from_space::{self, Increment};
use crate::gc_thread::GcThread;
use crate::gc_workers::GcWorkers;
use crate::roots::RememberedSlot;
use crate::trace::{outcome, team_size, trace_remembering};
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_LARGE};
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::heap::Heap;
use gclab_core::heap_walk::for_each_generation_object;
use gclab_core::object::{info_of_header, load_header};
use gclab_core::{GcContext, GcOutcome};

/// Copy generations `0..=young` and `increment`, tracing from the roots,
/// the mutable lists and `remembered` too; the outcome is a collection of
/// `0..=young`, which the runtime's policy reads as such (See Note
/// [Increments] in `from_space`).
///
/// # Safety
/// `remembered` holds every slot outside from-space, and outside the
/// generations traced whole, that points into the increment, each a
/// field of a live object (else such a slot would be left pointing into
/// freed memory).
// SAFETY: the caller's contract, and the runtime's: the collector holds the heap.
pub unsafe fn copy_collect_increment(young: usize, increment: Increment<'_>, remembered: &[RememberedSlot], ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    let increment_gen = increment.gen;
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    // SAFETY: the runtime gives the collector the heap exclusively (core's
    // Note [Who touches what]).
    let from = unsafe { from_space::prepare_partial(gens, ctx.caps, young, *layout, Some(increment)) };
    let (layout, blocks, count) = (*layout, &*blocks, gens.len());
    let make = || GcThread::new(layout, young, count, blocks);
    // SAFETY: as above, with the caller's contract for `remembered`.
    let mut threads = unsafe { trace_remembering(&make, gens, ctx.caps, ctx.stable_ptrs, remembered, ctx.leader, workers) };
    // SAFETY: tracing is over; from-space holds nothing live.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, young) };
    GcOutcome { increment_of: Some(increment_gen), ..outcome(young, &threads, team_size(workers)) }
}

/// Every slot of an object in generations `young + 1..` outside the
/// blocks `takes` picks from generation `gen` that points into those
/// blocks: the remembered set of an increment, found by a walk.
pub fn remembered_by_walk(heap: &Heap, caps: &[Capability], young: usize, gen: usize, takes: &dyn Fn(BlockPtr) -> bool) -> Vec<RememberedSlot> {
    let layout = heap.layout;
    let in_increment = |p: *const Word| {
        let bd = BlockDesc::of(p);
        // SAFETY: `p` is a heap object (statics are ruled out first), so
        // `bd` is its block's descriptor, which the GC holds.
        unsafe { (*bd).gen_no as usize == gen && BlockDesc::load_flags(bd) & BF_LARGE == 0 && takes(BlockPtr(bd)) }
    };
    let mut slots = Vec::new();
    // SAFETY: the collector holds the heap (the world is stopped); every
    // object walked is live and its pointer slots hold object addresses.
    unsafe {
        for_each_generation_object(heap, caps, |p, info, _, g| {
            if g <= young || in_increment(p) {
                return;
            }
            let (first, n) = layout.pointer_slots(p, info);
            for i in 0..n {
                let slot = first.add(i);
                let target = *slot as *const Word;
                if !info_of_header(load_header(target as *mut Word)).is_static() && in_increment(target) {
                    slots.push(RememberedSlot::new(p, slot, g));
                }
            }
        });
    }
    slots
}

/// A partial collection whose remembered set is found by a walk
/// (`remembered_by_walk`): generations `0..=young` and the blocks of
/// generation `gen` that `takes` picks.
pub fn collect_increment_walking(young: usize, gen: usize, takes: &dyn Fn(BlockPtr) -> bool, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    let remembered = remembered_by_walk(ctx.heap, ctx.caps, young, gen, takes);
    // SAFETY: the walk found every slot into the increment outside the
    // generations traced whole, each a field of a live object.
    unsafe { copy_collect_increment(young, Increment { gen, takes }, &remembered, ctx, workers) }
}
