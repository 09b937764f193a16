//! The roots of a tracing GC: every capability's root stack, pending
//! finalisers and recorded barrier values, the stable pointer table, the
//! remembered set (the mutable lists of the generations not being
//! collected), and a collector's own remembered slots (`RememberedSlot`,
//! for a partial collection: See Note [Increments] in `from_space`).
//!
//! A GC evacuates every root slot (leaving in it the object's new
//! address) and scans every mutable-list entry of an uncollected
//! generation, which may point into the collected ones. The lists of the
//! collected generations are dropped: their objects are all rescanned
//! where they land, and those that still point younger are listed anew.

use crate::evacuate::evacuate;
use crate::gc_thread::GcThread;
use crate::scavenge::{remember_slot, scavenge_mut_list_entry};
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::ObjPtr;
use gclab_core::stable_ptr::StablePtrTable;

/// A slot outside from-space that a collector remembers pointing into it:
/// the pointers into an increment from the rest of its generation and
/// from older ones, which no list of the runtime's holds (See Note
/// [Increments] in `from_space`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RememberedSlot {
    /// The object that holds the slot.
    obj: *mut Word,
    /// The slot: one of `obj`'s pointer fields.
    slot: *mut Word,
    /// `obj`'s generation: what the slot points to is promoted at least
    /// there, as a scanned object's fields are.
    gen: usize,
}

impl RememberedSlot {
    /// Pointer field `slot` of the object `obj` of generation `gen`.
    ///
    /// # Safety
    /// Until the GC it is given to ends, `obj` is a live object of
    /// generation `gen` outside from-space, `slot` one of its pointer
    /// fields, and only that GC writes them.
    // SAFETY: only records the addresses; the caller's contract is what
    // `evacuate_remembered` relies on.
    pub unsafe fn new(obj: *mut Word, slot: *mut Word, gen: usize) -> RememberedSlot {
        RememberedSlot { obj, slot, gen }
    }
}

// SAFETY: a remembered slot is handed to one GC thread, which alone reads
// and updates it during the GC.
unsafe impl Send for RememberedSlot {}

/// Evacuate every remembered slot, promoting what each points to into at
/// least the slot's generation, before anything else is evacuated: the
/// oldest slots first, so that an object two slots share goes as far as
/// the older one wants. A slot that still points younger afterwards (its
/// target was an indirection that `evacuate` short-cut to a younger
/// value, or lies in a younger generation not being collected) makes its
/// object remembered, with the slot's card marked in an array (See
/// `scavenge::remember_slot`): the write barrier had no reason to list it.
///
/// # Safety
/// As for `evacuate_roots`; each slot is as `RememberedSlot::new` says.
// SAFETY: the caller's contract.
pub unsafe fn evacuate_remembered(gct: &mut GcThread<'_>, slots: &[RememberedSlot]) {
    let mut oldest_first: Vec<&RememberedSlot> = slots.iter().collect();
    oldest_first.sort_by_key(|r| std::cmp::Reverse(r.gen));
    for r in oldest_first {
        gct.evac_gen = r.gen;
        gct.failed_to_evac = false;
        evacuate(gct, r.slot);
        if gct.failed_to_evac {
            remember_slot(gct, r.obj, r.slot, r.gen);
        }
    }
    gct.evac_gen = 0;
    gct.failed_to_evac = false;
}

/// Every root slot: each capability's root stack and pending finalisers
/// (`capability_root_slots`), then the stable pointer table.
pub fn root_slots<'a>(caps: &'a mut [Capability], stable: &'a mut StablePtrTable) -> impl Iterator<Item = *mut Word> + 'a {
    caps.iter_mut().flat_map(capability_root_slots).chain(stable.roots_mut().map(|r| r as *mut Word))
}

/// One capability's root slots: its root stack, pending finalisers and
/// the values its extended barrier recorded (See Note [Extending the
/// barrier] in core's `barrier`).
pub fn capability_root_slots(cap: &mut Capability) -> impl Iterator<Item = *mut Word> + '_ {
    cap.roots.iter_mut().chain(cap.pending_finalizers.iter_mut()).chain(cap.update_rem_set.iter_mut()).map(|r| r as *mut Word)
}

/// Does a GC of `0..=collect_gen` have anything to start from in `cap`:
/// a root slot (`capability_root_slots`) or an entry of an uncollected
/// generation's mutable list (`take_capability_mut_lists`)?
pub fn capability_has_roots(cap: &mut Capability, collect_gen: usize) -> bool {
    capability_root_slots(cap).next().is_some() || cap.mut_lists.iter().skip(collect_gen + 1).any(|list| !list.is_empty())
}

/// Evacuate every root (See `root_slots`), each where it lies: gathered
/// into a vector first, a deep root stack's slots cost power 600 14's GCs
/// 9% of their instructions.
///
/// # Safety
/// The GC must hold the heap; roots hold valid object addresses.
// SAFETY: root stacks, pending finalisers and stable pointers hold valid object addresses.
pub unsafe fn evacuate_roots(gct: &mut GcThread<'_>, caps: &mut [Capability], stable: &mut StablePtrTable) {
    gct.evac_gen = 0;
    for slot in root_slots(caps, stable) {
        evacuate(gct, slot);
    }
}

/// Empty one capability's mutable lists, handing `each` every entry of
/// a generation not being collected, with its generation (those of
/// collected generations are dropped: their objects are rescanned where
/// they land). Each list keeps its room for the next GC.
fn drain_mut_lists(cap: &mut Capability, collect_gen: usize, mut each: impl FnMut(ObjPtr, usize)) {
    for (gen, list) in cap.mut_lists.iter_mut().enumerate() {
        if gen > collect_gen {
            for &obj in list.iter() {
                each(obj, gen);
            }
        }
        list.clear();
    }
}

/// Scan every capability's mutable-list entries of the generations not
/// being collected where they lie, and empty the lists (See
/// `drain_mut_lists`): gathered into a vector first, as a parallel GC
/// deals them out (`take_capability_mut_lists`), they cost power 1200
/// 14's GCs 3.5% of their instructions.
///
/// # Safety
/// As for `scavenge_mut_lists`.
// SAFETY: mutable-list entries are live objects of their generation (the barrier's invariant).
pub unsafe fn scavenge_and_empty_mut_lists(gct: &mut GcThread<'_>, caps: &mut [Capability]) {
    let collect_gen = gct.collect_gen;
    for cap in caps.iter_mut() {
        // SAFETY: the caller's contract.
        drain_mut_lists(cap, collect_gen, |obj, gen| unsafe { scavenge_mut_list_entry(gct, obj.0, gen) });
    }
}

/// Empty one capability's mutable lists (See `drain_mut_lists`); the
/// entries of the generations not being collected, with their generation.
pub fn take_capability_mut_lists(cap: &mut Capability, collect_gen: usize) -> Vec<(ObjPtr, usize)> {
    let mut entries = Vec::new();
    drain_mut_lists(cap, collect_gen, |obj, gen| entries.push((obj, gen)));
    entries
}

/// Scan mutable-list entries; each entry that still points young goes on
/// its generation's new list.
///
/// # Safety
/// As for `evacuate_roots`.
// SAFETY: mutable-list entries are live objects of their generation (the barrier's invariant).
pub unsafe fn scavenge_mut_lists(gct: &mut GcThread<'_>, entries: &[(ObjPtr, usize)]) {
    for &(obj, gen) in entries {
        scavenge_mut_list_entry(gct, obj.0, gen);
    }
}
