//! The sanity check of a finished snapshot marking (`-DS`): before the
//! nonmoving collector sweeps, nothing that will survive the sweep may
//! point at a snapshot object that the marking left unmarked (the sweep
//! would free it under a live pointer).
//!
//! What survives is: every root (capability roots, pending finalisers,
//! stable pointers), every object outside the snapshot (young generations,
//! nurseries, old blocks cut while the marking ran, large objects
//! promoted since), and every marked snapshot object; plus the old
//! generation's weak-pointer and mutable lists, which must name survivors
//! only. Each of their pointer fields is checked. The runtime's own
//! sanity checker runs after the sync as after every GC and catches what
//! the sweep itself gets wrong; this check catches a marking that missed
//! an object while its dangling pointer would still read as valid (the
//! dead cell not yet cleared, as a lazy sweep leaves it).

use crate::concurrent_mark::survives;
use crate::mark::MarkBitmap;
use crate::roots::root_slots;
use gclab_core::constants::Word;
use gclab_core::heap_walk::{for_each_generation_object, for_each_object};
use gclab_core::GcContext;

/// The violations of the snapshot invariant (See the module doc); empty
/// when it holds. `in_gc`: the check runs inside a GC, whose nurseries
/// hold nothing live any more (they are not walked).
///
/// # Safety
/// The world is stopped, marking is complete and nothing is swept yet.
// SAFETY: reads headers and fields of objects the stopped world leaves alone.
pub unsafe fn snapshot_violations(marks: &MarkBitmap, ctx: &mut GcContext<'_>, in_gc: bool) -> Vec<String> {
    let mut errors = Vec::new();
    let oldest = ctx.heap.oldest();
    // SAFETY: the caller's contract: every value checked is an object address.
    let dead = |v: Word| v != 0 && unsafe { !survives(marks, v as *const Word) };
    for slot in root_slots(ctx.caps, ctx.stable_ptrs) {
        // SAFETY: root slots hold object addresses.
        let v = unsafe { *slot };
        if dead(v) {
            errors.push(format!("root {v:#x} was not marked"));
        }
    }
    let layout = ctx.heap.layout;
    let mut visit = |p: *mut Word, info: &'static gclab_core::InfoTable, _: usize, gen: usize| {
        if dead(p as Word) {
            return;
        }
        // SAFETY: a live object's pointer slots hold object addresses.
        let (slots, n) = unsafe { layout.pointer_slots(p, info) };
        for i in 0..n {
            // SAFETY: as above.
            let v = unsafe { *slots.add(i) };
            if dead(v) {
                errors.push(format!("field {i} of {} at {p:p} (generation {gen}) points at {v:#x}, which was not marked", info.name));
            }
        }
    };
    // SAFETY: the caller's contract.
    unsafe {
        if in_gc {
            for_each_generation_object(ctx.heap, ctx.caps, &mut visit);
        } else {
            for_each_object(ctx.heap, ctx.caps, &mut visit);
        }
    }
    let old = &ctx.heap.gens[oldest];
    let lists = old.weak_ptrs.iter().map(|w| ("weak pointer list", w.0)).chain(ctx.caps.iter().flat_map(|c| c.mut_lists[oldest].iter().map(|e| ("mutable list", e.0))));
    for (list, p) in lists {
        if dead(p as Word) {
            errors.push(format!("{list} of generation {oldest}: {p:p} was not marked"));
        }
    }
    errors
}
