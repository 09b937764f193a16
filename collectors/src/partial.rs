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
use gclab_core::bdescr::BlockPtr;
use gclab_core::capability::Capability;
use gclab_core::constants::{Word, BLOCK_SIZE};
use gclab_core::heap::Heap;
use gclab_core::heap_walk::for_each_generation_object;
use gclab_core::{GcContext, GcOutcome};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Copy generations `0..=young` and `increment`, tracing from the roots,
/// the mutable lists and the slots `remembered` gives, asked once the
/// increment is from-space (so that `remembered_by_walk` can tell its
/// blocks by their flags); the outcome is a collection of `0..=young`,
/// which the runtime's policy reads as such (See Note [Increments] in
/// `from_space`).
///
/// # Safety
/// `remembered` gives every slot outside from-space, and outside the
/// generations traced whole, that points into the increment, each a
/// field of a live object (else such a slot would be left pointing into
/// freed memory).
// SAFETY: the caller's contract, and the runtime's: the collector holds the heap.
pub unsafe fn copy_collect_increment(
    young: usize,
    increment: Increment<'_>,
    remembered: &dyn Fn(&Heap, &[Capability]) -> Vec<RememberedSlot>,
    ctx: &mut GcContext<'_>,
    workers: Option<(&GcWorkers, bool)>,
) -> GcOutcome {
    let increment_gen = increment.gen;
    let layout = ctx.heap.layout;
    // SAFETY: the runtime gives the collector the heap exclusively (core's
    // Note [Who touches what]).
    let from = unsafe { from_space::prepare_partial(&mut ctx.heap.gens, ctx.caps, young, layout, Some(increment)) };
    let slots = remembered(ctx.heap, ctx.caps);
    let Heap { blocks, gens, .. } = &mut *ctx.heap;
    let (blocks, count) = (&*blocks, gens.len());
    let make = || GcThread::new(layout, young, count, blocks);
    // SAFETY: as above, with the caller's contract for `remembered`.
    let mut threads = unsafe { trace_remembering(&make, gens, ctx.caps, ctx.stable_ptrs, &slots, ctx.leader, workers) };
    // SAFETY: tracing is over; from-space holds nothing live.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, young) };
    GcOutcome { increment_of: Some(increment_gen), ..outcome(young, &threads, team_size(workers)) }
}

/// Every slot of an object in generations `young + 1..` that points into
/// the increment of generation `gen`, found by a walk of what is left of
/// those generations once the increment is from-space (its blocks are
/// then the generation's `old_blocks`). See Note [Walking for the
/// remembered set].
pub fn remembered_by_walk(heap: &Heap, caps: &[Capability], young: usize, gen: usize) -> Vec<RememberedSlot> {
    let layout = heap.layout;
    let increment = BlockSet::of(&heap.gens[gen].old_blocks);
    let mut slots = Vec::new();
    // SAFETY: the collector holds the heap (the world is stopped); every
    // object walked is live (the increment and the young generations,
    // from-space now, are not walked) and its pointer slots hold object
    // addresses.
    unsafe {
        for_each_generation_object(heap, caps, |p, info, _, g| {
            if g <= young {
                return;
            }
            let (first, n) = layout.pointer_slots(p, info);
            for i in 0..n {
                let slot = first.add(i);
                if increment.holds(*slot) {
                    slots.push(RememberedSlot::new(p, slot, g));
                }
            }
        });
    }
    slots
}

// Note [Walking for the remembered set]
// ----------------------------------------
// The walk visits every pointer field of what is left of the old
// generations, so what it does per field is its cost. A first version
// asked of each field's target whether it was static (reading its
// header) and then read its block's descriptor: two loads from wherever
// the target lay, cache misses on a heap of small objects (fibheaps'
// partial GCs took 98 ms against its full GCs' 36 ms). Now the
// increment's blocks are put in a hash set of block addresses first, and
// a field is tested by masking its value to a block address and looking
// that up: no load from the target at all. A static object's address is
// never a heap block's, so it needs no test of its own.

/// The 4 KiB blocks of an increment, by address.
struct BlockSet(HashSet<usize, BuildHasherDefault<BlockHasher>>);

impl BlockSet {
    /// Every block of the groups `blocks`.
    fn of(blocks: &[BlockPtr]) -> BlockSet {
        let mut set = HashSet::default();
        for &bd in blocks {
            // SAFETY: the collector holds the heap; the groups are in use.
            let d = unsafe { bd.read() };
            for i in 0..d.blocks as usize {
                set.insert(d.start as usize + i * BLOCK_SIZE);
            }
        }
        BlockSet(set)
    }

    /// Does the word `w`, read as an address, lie in one of the blocks?
    #[inline(always)]
    fn holds(&self, w: Word) -> bool {
        self.0.contains(&(w & !(BLOCK_SIZE - 1)))
    }
}

/// A hasher for block addresses: their low 12 bits are zero, so the
/// address shifted and multiplied by an odd constant (Fibonacci hashing)
/// spreads them; SipHash, the default, cost more than the lookup saved.
#[derive(Default)]
struct BlockHasher(u64);

impl Hasher for BlockHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = ((n >> 12) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A partial collection whose remembered set is found by a walk
/// (`remembered_by_walk`): generations `0..=young` and the blocks of
/// generation `gen` that `takes` picks.
pub fn collect_increment_walking(young: usize, gen: usize, takes: &dyn Fn(BlockPtr) -> bool, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>) -> GcOutcome {
    // SAFETY: the walk finds every slot into the increment outside the
    // generations traced whole, each a field of a live object.
    unsafe { copy_collect_increment(young, Increment { gen, takes }, &|heap, caps| remembered_by_walk(heap, caps, young, gen), ctx, workers) }
}
