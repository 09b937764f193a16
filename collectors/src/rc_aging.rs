//! Reference counting with young objects that live across a pause: what
//! `lxr` must do when the survivors of its RC pauses stay young, and
//! uncounted, for one more epoch (See Note [Survivors age once]).
//!
//! Invariant kept, beside `ref_count`'s: every reference to a counted
//! object that no count holds (from a young object, or from an old
//! object's field to a young object promoted in this pause) is counted by
//! the pause before any of its decrements; the mutable lists name only
//! live objects.

use crate::ref_count::{counted_fields, counted_value, Tally};
use gclab_core::barrier::generation_of;
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::Generation;
use gclab_core::info::ClosureType;
use gclab_core::object::{info_of_header, load_header, Layout, CARD_SIZE};
use gclab_core::side_metadata::{field_bits_of, test_bit};
use std::collections::HashSet;

// Note [Survivors age once]
// ----------------------------------------
// LXR promotes every survivor of an RC pause into the counted space. On
// a lazy program that is costly: a thunk that survives one pause is old,
// and when it is updated its value is reached from it (through the
// mutable list) at the next pause and promoted too, though the thunk is
// dead by then; the value's own thunks follow. treejoin.hs (10000 rows)
// promoted 660 MB under `lxr:age=0` where copying copies 153 MB, and its
// RC pauses took 1.7 s against copying's 0.08 s of young GCs. GHC's young
// generation ages its survivors once for this reason. So by default
// (`age=1`) the survivors of the nursery stay in generation 0, uncounted,
// until the next pause promotes them, as `immix` and `copying` do; the
// same program then promotes 126 MB and its pauses take 0.44 s. Young
// objects that live across a pause need what the counts alone do not
// give:
//
// 1. An old object's field that points at a young object holds no count
//    until that object is promoted. Such an object stays on the mutable
//    list (the minor GC's rule), so before the next minor GC moves
//    anything the pause lists the fields of the mutable lists' objects
//    that point at young objects and were not logged in this epoch
//    (`young_fields`; a logged field is counted through the log), and
//    raises their counts once their values are promoted.
// 2. A young object's fields are not counted, yet it may be what keeps
//    an old object alive. So at every pause the young objects'
//    references to counted objects are roots (`count_young`): raised
//    into the root buffer, lowered at the next pause.
// 3. A value kept for a later decrement must be one that was counted: a
//    young object's address goes stale when it moves. So the logged old
//    values are filtered before the minor GC, the copies kept of stack
//    slots and of big objects' fields hold 0 for a value that had no
//    count (`ref_count::counted_value`), and a dead object's fields join
//    the decrements only if counted (`ref_count::decrement`: the work may
//    wait across a pause, whose minor GC moves the young).
// 4. A dead old object is taken off the mutable lists (`forget_dead`),
//    which now outlive a pause.
//
// The cost is the second copy of the young survivors and a walk of
// generation 0 at every pause: Rust workloads, which do not update old
// thunks, gain little (binary-trees 20) or lose up to a fifth of their
// GC time (hash, whose table's cards stay marked while they point at
// young objects). The alternative is LXR's: young objects allocated into
// the holes of old blocks, so that promoting them moves nothing (not
// here yet).

/// The fields of the old objects on the mutable lists of `caps` that hold
/// a young object and were not logged in this epoch: references made
/// before the last pause to an object that stayed young, which no count
/// holds yet (See Note [Survivors age once]). A pointer array's fields
/// are looked for in its marked cards only (a field that points at a
/// young object lies in a marked card).
///
/// # Safety
/// The GC holds the heap and has not begun: the mutable lists hold live
/// old objects, their fields valid object addresses.
// SAFETY: the caller's contract covers every read.
pub unsafe fn young_fields(caps: &[Capability], oldest: usize, layout: Layout) -> Vec<*mut Word> {
    let mut found = Vec::new();
    for o in caps.iter().flat_map(|c| c.mut_lists[oldest].iter()) {
        let p = o.0;
        // SAFETY: the caller's contract.
        let (slots, n) = unsafe { counted_fields(layout, p) };
        // SAFETY: as above.
        let cards = info_of_header(unsafe { load_header(p) }).closure_type.is_pointer_array().then(|| layout.card_table(p, n));
        for k in 0..n {
            if let Some(table) = cards {
                // SAFETY: the card of element `k` lies in the table.
                if unsafe { *table.add(k / CARD_SIZE) } == 0 {
                    continue;
                }
            }
            // SAFETY: the slot lies in the object.
            let slot = unsafe { slots.add(k) };
            // A field no table covers, or logged in this epoch, is
            // counted otherwise (a shadow, the log).
            let unlogged = field_bits_of(p, slot).is_some_and(|bits| test_bit(bits, slot));
            // SAFETY: a field holds an object address.
            if unlogged && unsafe { is_young(*slot) } {
                found.push(slot);
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// Whether `v` is a young heap object (in generation 0: not counted).
///
/// # Safety
/// `v` is an object address (or 0) not moved since the mutators ran.
// SAFETY: the caller's contract.
unsafe fn is_young(v: Word) -> bool {
    if v == 0 {
        return false;
    }
    // SAFETY: the caller's contract.
    let header = unsafe { load_header(v as *const Word) };
    header != 0 && !info_of_header(header).is_static() && generation_of(v as *const Word) == 0
}

/// Take the dead objects off the mutable lists of generation `oldest`,
/// where an old object that pointed at a young one stays between pauses
/// (See Note [Survivors age once]): a minor GC must not scan what is no
/// longer an object. A dead small object was zeroed, so its header is 0;
/// the dead large ones, left whole, are `large`. (The lists are short and
/// the dead many: each entry is tested, not each death looked up.)
///
/// # Safety
/// Each entry of the lists is an object of the space or a zeroed dead
/// one.
// SAFETY: the caller's contract: every entry has a header word to read.
pub unsafe fn forget_dead(caps: &mut [Capability], oldest: usize, large: &[*mut Word]) {
    let large: HashSet<usize> = large.iter().map(|&p| p as usize).collect();
    for cap in caps {
        // SAFETY: the caller's contract.
        cap.mut_lists[oldest].retain(|o| unsafe { load_header(o.0) } != 0 && !large.contains(&(o.0 as usize)));
    }
}

/// Count, as roots of the root buffer (pushed onto `raised`), what the
/// young objects of `young` (generation 0, the survivors that stay young:
/// See Note [Survivors age once]) point at: no count holds their
/// references until they are old, and an old object they keep alive must
/// not be freed meanwhile.
///
/// # Safety
/// The GC holds the heap; the generation's objects tile its blocks.
// SAFETY: the caller's contract.
pub unsafe fn count_young(young: &Generation, layout: Layout, raised: &mut Vec<Word>, tally: &mut Tally) {
    let mut raise = |p: *mut Word| {
        // SAFETY: the caller's contract: `p` is a live young object.
        let info = info_of_header(unsafe { load_header(p) });
        // An evaluation stack's live slots, as every other object's
        // counted fields.
        // SAFETY: as above.
        let (slots, n) = unsafe { if info.closure_type == ClosureType::Stack { layout.pointer_slots(p, info) } else { counted_fields(layout, p) } };
        for k in 0..n {
            // SAFETY: the slot lies in the object; it holds an object.
            let v = unsafe { counted_value(*slots.add(k), tally) };
            if v != 0 {
                raised.push(v);
            }
        }
        // SAFETY: as above.
        unsafe { layout.size_of(p, info) }
    };
    for &bd in &young.large_objects {
        // SAFETY: a live large object heads its group.
        raise(unsafe { bd.read() }.start);
    }
    for &bd in &young.blocks {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.read() };
        // SAFETY: as above.
        unsafe { gclab_core::block_walk::walk_block(d, d.free, |p| Some(raise(p))) };
    }
}
