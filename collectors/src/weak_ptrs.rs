//! Weak pointers during a GC (GHC's `rts/sm/MarkWeak.c`).
//!
//! After the transitive closure from the roots, a weak pointer of a
//! collected generation is judged by its key: if the key was reached, the
//! weak is kept (copied, moved to its new generation's list) and its value
//! and finaliser become reachable, which may reach more keys, so this
//! alternates with scavenging until nothing changes. Weak pointers whose
//! keys were never reached are then dead: each becomes DEAD_WEAK, its key
//! field is cleared, its value is kept for the finaliser, and it is queued
//! on capability 0 for the mutator to finalise after the GC. Weak pointers
//! of generations not being collected trace their fields strongly (See
//! Note [Weak fields] in core's `object`).

use crate::evacuate::{current_address, evacuate, is_alive};
use crate::gc_thread::GcThread;
use crate::scavenge::{scavenge_loop, scavenge_object};
use gclab_core::barrier::generation_of;
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_CLAIM, BF_EVACUATED, BF_LARGE, BF_MARK_IN_PLACE};
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::info::{DEAD_WEAK_INFO, NULL_OBJECT};
use gclab_core::object::{info_of_header, is_forwarded, load_header, store_header, weak_field, Layout};

/// Flag `BF_CLAIM` on each from-space block that holds the key of a weak
/// pointer of any generation, so that a parallel GC copies every key once
/// (See Note [Copying an immutable object twice] in `evacuate`), and
/// return the blocks flagged. Called once the collected generations (and
/// the increment of generation `increment_gen`, if any: See Note
/// [Increments] in `from_space`) are from-space (their weak pointers on
/// `old_weak_ptrs`).
///
/// # Safety
/// The GC holds the heap; every weak list holds live WEAK objects.
// SAFETY: weak lists hold live WEAKs whose key is a valid object address; the GC holds the descriptors.
pub unsafe fn flag_key_blocks(gens: &[Generation], collect_gen: usize, increment_gen: Option<usize>, layout: Layout) -> Vec<BlockPtr> {
    let mut flagged = Vec::new();
    for w in gens.iter().flat_map(|g| g.old_weak_ptrs.iter().chain(&g.weak_ptrs)) {
        let key = *layout.payload(w.0).add(weak_field::KEY) as *mut Word;
        // A key already copied (a from-space object `concurrent-copying`
        // copied out while the mutators ran) is not copied from here again,
        // and its header is no info table.
        let header = load_header(key);
        if is_forwarded(header) || info_of_header(header).is_static() {
            continue;
        }
        let bd = BlockDesc::of(key);
        let flags = BlockDesc::load_flags(bd);
        let gen_no = (*bd).gen_no as usize;
        let collected = gen_no <= collect_gen || Some(gen_no) == increment_gen;
        let copied_from_here = collected && flags & (BF_EVACUATED | BF_LARGE | BF_MARK_IN_PLACE) == 0;
        if copied_from_here && flags & BF_CLAIM == 0 {
            BlockDesc::store_flags(bd, flags | BF_CLAIM);
            flagged.push(BlockPtr(bd));
        }
    }
    flagged
}

/// Trace the fields of the weak pointers of uncollected generations strongly.
///
/// # Safety
/// As for `evacuate_roots`.
// SAFETY: weak lists hold live WEAK objects whose fields are valid object addresses.
pub unsafe fn trace_uncollected_weaks(gct: &mut GcThread<'_>, gens: &[Generation]) {
    for (g, gen) in gens.iter().enumerate().skip(gct.collect_gen + 1) {
        for w in &gen.weak_ptrs {
            trace_weak_fields(gct, w.0, g);
        }
    }
}

// SAFETY: `w` is a live WEAK or DEAD_WEAK whose three fields are valid object addresses.
unsafe fn trace_weak_fields(gct: &mut GcThread<'_>, w: *mut Word, gen: usize) {
    let payload = gct.layout.payload(w);
    gct.evac_gen = gen;
    for f in [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER] {
        evacuate(gct, payload.add(f));
    }
    gct.failed_to_evac = false;
}

/// Judge the weak pointers of the collected generations (and of an
/// increment: See Note [Increments] in `from_space`), alternating with
/// scavenging until no more keys become reachable; then finalise the rest.
///
/// # Safety
/// As for `evacuate_roots`; called after the first `scavenge_loop`.
// SAFETY: called after the first transitive closure; old weak lists hold from-space or forwarded WEAKs.
pub unsafe fn process_weak_ptrs(gct: &mut GcThread<'_>, gens: &mut [Generation], caps: &mut [Capability]) {
    let mut pending: Vec<ObjPtr> = Vec::new();
    // Only collected generations and an increment's have any.
    for gen in gens.iter_mut() {
        pending.append(&mut gen.old_weak_ptrs);
    }
    loop {
        let before = pending.len();
        let mut still_pending = Vec::with_capacity(pending.len());
        for w in pending {
            let key = *gct.layout.payload(current_address(w.0)).add(weak_field::KEY) as *const Word;
            if is_alive(gct, key) {
                let kept = keep_weak(gct, w.0);
                let g = generation_of(kept);
                gct.to[g].weak_ptrs.push(ObjPtr(kept));
            } else {
                still_pending.push(w);
            }
        }
        pending = still_pending;
        scavenge_loop(gct);
        if pending.len() == before {
            break;
        }
    }
    registration_order(gct.layout, &mut pending, |w| current_address(w));
    for w in pending {
        kill_weak(gct, w.0, caps);
    }
    scavenge_loop(gct);
}

/// Evacuate a live weak pointer object and trace its fields; returns its
/// new address.
// SAFETY: `w` is a WEAK of a collected generation (maybe already forwarded).
unsafe fn keep_weak(gct: &mut GcThread<'_>, w: *mut Word) -> *mut Word {
    let mut slot = w as Word;
    gct.evac_gen = 0;
    evacuate(gct, &mut slot as *mut Word);
    let kept = slot as *mut Word;
    trace_weak_fields(gct, kept, generation_of(kept));
    kept
}

/// A weak pointer whose key died: keep the object (the mutator may still
/// hold it), clear its key, make it DEAD_WEAK and queue its finaliser. Its
/// value and finaliser stay reachable through it until the finaliser runs
/// (See Note [Weak fields] in core's `object`); with no finaliser they are
/// dropped now.
// SAFETY: `w` is a WEAK of a collected generation whose key was not reached.
unsafe fn kill_weak(gct: &mut GcThread<'_>, w: *mut Word, caps: &mut [Capability]) {
    let mut slot = w as Word;
    gct.evac_gen = 0;
    evacuate(gct, &mut slot as *mut Word);
    let dead = slot as *mut Word;
    bury(gct.layout, dead, caps);
    scavenge_object(gct, dead, generation_of(dead));
}

/// Sort dead weak pointers into registration order (finaliser ids grow
/// with it), so that they are queued in it: the mutator runs them newest
/// first (core's Note [Finaliser order]). `at` gives a weak's current
/// address.
///
/// # Safety
/// Every weak is a valid WEAK object at `at(w)`.
// SAFETY: the caller's contract: the finaliser id is a payload word of each.
pub unsafe fn registration_order(layout: Layout, weaks: &mut [ObjPtr], at: impl Fn(*mut Word) -> *mut Word) {
    weaks.sort_by_key(|w| *layout.payload(at(w.0)).add(weak_field::FINALIZER_ID));
}

/// Make the weak pointer at `dead` (whose key died) DEAD_WEAK: clear its
/// key, and queue its finaliser on capability 0, or with none, drop its
/// value and finaliser now. The caller keeps the object itself and what
/// it still points to alive.
///
/// # Safety
/// `dead` is a WEAK object the GC holds (the world is stopped).
// SAFETY: the caller's contract.
pub unsafe fn bury(layout: Layout, dead: *mut Word, caps: &mut [Capability]) {
    let payload = layout.payload(dead);
    *payload.add(weak_field::KEY) = NULL_OBJECT.addr();
    store_header(dead, DEAD_WEAK_INFO.header());
    if *payload.add(weak_field::FINALIZER_ID) == 0 {
        *payload.add(weak_field::VALUE) = NULL_OBJECT.addr();
        *payload.add(weak_field::FINALIZER) = NULL_OBJECT.addr();
    } else {
        caps[0].pending_finalizers.push(dead as Word);
    }
}
