//! The write barrier: how a store into an old object is remembered.
//!
//! A minor GC traces only the young generations, so it must learn of every
//! pointer from an older generation into a younger one. Objects can only
//! come to hold such pointers by mutation after they were promoted (a new
//! object is young, and the GC never leaves an old-to-young pointer behind
//! without recording it), so the barrier sits on the three kinds of store:
//! writing a mutable variable, writing an element of a mutable array, and
//! updating a thunk with its value.
//!
//! A mutable object is *clean* or *dirty* (two info tables, as in GHC).
//! The first store into a clean object makes it dirty and, if it lives in
//! an old generation, pushes it on its capability's mutable list for that
//! generation; later stores cost only the dirty check. The GC makes an
//! object clean again once it holds no young pointer.
//!
//! Note [Card marking]
//! ----------------------------------------
//! A large mutable array in an old generation may be written a few
//! elements at a time; rescanning all of it at every minor GC would cost
//! its whole length. So each array carries a card table after its elements,
//! one byte per 128 elements, and a store marks the card of the element it
//! wrote. A minor GC that finds the array on a mutable list scans only the
//! marked cards, and afterwards marks exactly the cards that still hold a
//! young pointer. A full scan (when the array itself is copied or its
//! generation collected) recomputes every card.
//!
//! Note [Extending the barrier]
//! ----------------------------------------
//! A collector that traces while the mutators run needs more than the
//! remembered set: a snapshot-at-the-beginning collector must see every
//! pointer the mutator overwrites (the value it held when marking began),
//! an incremental-update collector every pointer it stores. Each
//! capability carries the extension its collector asked for
//! (`Capability::barrier`, set only while the world is stopped, so a
//! mutator reads its own copy without synchronisation), and the three
//! stores record, into the capability's `update_rem_set`, the overwritten
//! value (`SnapshotAtTheBeginning`; for a thunk update, the thunk's
//! pointer fields, which the update overwrites) or the stored value
//! (`Insertion`). Static objects are never recorded. The recorded values
//! are roots until the collector takes them at a sync (the GC updates them
//! when objects move), so a recorded object stays valid however long the
//! collector waits. With no extension the cost is one load and one
//! predictable branch on each store; the recording itself is out of line.
//! The stores themselves are atomic (See Note [Fields a concurrent marker
//! reads] in `object`).

use crate::bdescr::BlockDesc;
pub use crate::capability::BarrierExtension;
use crate::capability::Capability;
use crate::constants::Word;
use crate::generation::ObjPtr;
use crate::info::{ClosureType, InfoTable, IND_INFO, MUT_ARR_DIRTY_INFO, MUT_VAR_DIRTY_INFO, STACK_CLEAN_INFO, STACK_DIRTY_INFO};
use crate::object::{info_of_header, load_header, store_field, store_header, Layout, CARD_BITS};

/// Turn an extension on (or off) on every capability. Only while the
/// world is stopped: the caller holds `caps` exclusively.
pub fn set_extension(caps: &mut [Capability], extension: BarrierExtension) {
    for cap in caps {
        cap.barrier = extension;
    }
}

/// Record for the extension a store of `new` over `old` into field
/// `slot` of `obj` (See Note [Extending the barrier]).
#[cold]
#[inline(never)]
fn record(cap: &mut Capability, obj: *mut Word, slot: *mut Word, old: Word, new: Word) {
    let v = match cap.barrier {
        BarrierExtension::None => return,
        BarrierExtension::SnapshotAtTheBeginning => old,
        BarrierExtension::Insertion => new,
        BarrierExtension::FieldLogging => return log_field(cap, obj, slot, old, new),
    };
    // SAFETY: both values are object addresses (heap or static), whose
    // header word may always be read.
    if !info_of_header(unsafe { *(v as *const Word) }).is_static() {
        cap.update_rem_set.push(v);
    }
}

// Note [The field-logging barrier]
// ----------------------------------------
// A reference-counting collector that defers and coalesces (LXR, after
// Levanoni and Petrank) needs, for each field of an old object, the value
// it held before the first store since the collector last looked, and
// nothing for later stores: at its pause it decrements those old values
// and increments the fields' current values, however many stores came
// between. The collector says which fields it wants by setting their
// side bits (See `side_metadata`: a bit per word of the blocks it covers,
// all of an old object's fields, say); `FieldLogging` then makes every
// store into a field whose bit is set clear the bit and log a
// `FieldLog` (object, field, old value, new value) in its capability's
// `field_log`, and makes a store into any other field cost the bit test.
// The log holds raw addresses, so it is not a root: the collector takes
// it at every GC and sync, before anything moves, and sets the bits of
// the fields it wants next. The stores that log: mutable variables,
// array elements, a dead weak pointer's cleared fields, a knot-tying
// field write, and a thunk's update (each pointer field it overwrites,
// with the new value for the one that gets the indirection's target and
// 0 for the rest). Black-holing deletes the free variables (a black
// hole's payload is not traced), so under this extension it logs each
// and zeroes it: the mutator has copied them out before it black-holes
// (as GHC's code loads them before it blackholes), and a counting
// collector then lowers what they held, which it could never do later
// (the update finds a black hole, with no pointer fields, and logs only
// its first payload word). Evaluation stacks log nothing: such a
// collector scans them whole at its pauses, as LXR scans thread stacks.
// Byte arrays hold no pointers and are not logged. With the extension off
// the cost is today's: one load and one predictable branch.

/// Log the store of `new` over `old` into field `slot` of `obj` if the
/// field's side bit is set, clearing it (See Note [The field-logging
/// barrier]).
fn log_field(cap: &mut Capability, obj: *mut Word, slot: *mut Word, old: Word, new: Word) {
    if let Some(bits) = crate::side_metadata::field_bits_of(obj, slot) {
        if crate::side_metadata::take_bit(bits, slot) {
            cap.field_log.push(crate::capability::FieldLog { obj, slot, old, new });
        }
    }
}

/// Whether a store into an evaluation stack is recorded: not under the
/// field-logging barrier, which leaves stacks alone (See Note [The
/// field-logging barrier]: a stack's slots are roots). Tested inline on
/// every stack store: lxr's stores into stacks went through an
/// out-of-line call that did nothing, 3% of treejoin.hs's run.
#[inline(always)]
pub(crate) fn records_stack_stores(cap: &Capability) -> bool {
    !matches!(cap.barrier, BarrierExtension::None | BarrierExtension::FieldLogging)
}

/// `record` for a store into an evaluation stack; out of line, so that
/// the stack's store path stays short.
#[cold]
#[inline(never)]
fn record_stack(cap: &mut Capability, stack: *mut Word, slot: *mut Word, old: Word, new: Word) {
    record(cap, stack, slot, old, new);
}

/// The generation of the object at `obj`.
#[inline(always)]
pub fn generation_of(obj: *const Word) -> usize {
    // SAFETY: `obj` is a heap object, so its block descriptor is a live
    // descriptor in a megablock the heap owns.
    unsafe { (*BlockDesc::of(obj)).gen_no as usize }
}

#[inline(always)]
fn remember(cap: &mut Capability, obj: *mut Word) {
    let gen = generation_of(obj);
    if gen > 0 {
        cap.mut_lists[gen].push(ObjPtr(obj));
    }
}

/// Store `value` into the mutable variable `var`.
///
/// # Safety
/// `var` must be a live heap object of type MUT_VAR (clean or dirty) and
/// `value` a valid object address.
#[inline(always)]
// SAFETY: `var` is a live MUT_VAR in the heap and `value` a valid object address.
pub unsafe fn write_mut_var(cap: &mut Capability, layout: Layout, var: *mut Word, value: Word) {
    let slot = layout.payload(var);
    if cap.barrier != BarrierExtension::None {
        record(cap, var, slot, *slot, value);
    }
    store_field(slot, value);
    let info: &InfoTable = info_of_header(load_header(var));
    if info.closure_type == ClosureType::MutVarClean {
        store_header(var, MUT_VAR_DIRTY_INFO.header());
        remember(cap, var);
    }
}

/// Store `value` into element `i` of the mutable array `arr`, marking its card.
///
/// # Safety
/// `arr` must be a live mutable pointer array with more than `i` elements,
/// and `value` a valid object address.
#[inline(always)]
// SAFETY: `arr` is a live mutable array of more than `i` elements and `value` a valid object address.
pub unsafe fn write_array(cap: &mut Capability, layout: Layout, arr: *mut Word, i: usize, value: Word) {
    let payload = layout.payload(arr);
    let n = *payload;
    debug_assert!(i < n);
    if cap.barrier != BarrierExtension::None {
        record(cap, arr, payload.add(1 + i), *payload.add(1 + i), value);
    }
    store_field(payload.add(1 + i), value);
    *layout.card_table(arr, n).add(i >> CARD_BITS) = 1;
    let info: &InfoTable = info_of_header(load_header(arr));
    if info.closure_type == ClosureType::MutArrClean {
        store_header(arr, MUT_ARR_DIRTY_INFO.header());
        remember(cap, arr);
    }
}

/// Overwrite a pointer field with a static object (`NULL_OBJECT`), as the
/// mutator does when it takes a dead weak pointer's value and finaliser.
/// A static object is never young, so nothing is remembered; but the
/// value overwritten is recorded for a snapshot barrier like any other.
///
/// # Safety
/// `slot` must be a pointer field of the live heap object `obj` that the
/// caller may write, and `value` a static object's address.
// SAFETY: `slot` is a pointer field of the live heap object `obj` and `value` a static object.
pub unsafe fn clear_field(cap: &mut Capability, obj: *mut Word, slot: *mut Word, value: Word) {
    if cap.barrier != BarrierExtension::None {
        record(cap, obj, slot, *slot, value);
    }
    store_field(slot, value);
}

/// Overwrite the thunk at `thunk` (of `size` words) with an indirection to
/// `value`, zeroing the rest (See Note [Slop is zeroed] in `object`).
///
/// # Safety
/// `thunk` must be a live heap thunk of `size` words; `value` a valid object.
#[inline]
// SAFETY: `thunk` is a live heap thunk of `size` words and `value` a valid object address.
pub unsafe fn update_thunk(cap: &mut Capability, layout: Layout, thunk: *mut Word, size: usize, value: Word) {
    let payload = layout.payload(thunk);
    if cap.barrier == BarrierExtension::SnapshotAtTheBeginning || cap.barrier == BarrierExtension::FieldLogging {
        // The update overwrites the thunk's free variables; the first
        // payload word gets the value (See Note [The field-logging
        // barrier]).
        let (slots, n) = layout.pointer_slots(thunk, info_of_header(load_header(thunk)));
        for k in 0..n {
            let slot = slots.add(k);
            record(cap, thunk, slot, *slot, if slot == payload { value } else { 0 });
        }
        if cap.barrier == BarrierExtension::FieldLogging && (n == 0 || slots > payload) {
            record(cap, thunk, payload, 0, value);
        }
    } else if cap.barrier == BarrierExtension::Insertion {
        record(cap, thunk, payload, value, value);
    }
    store_field(payload, value);
    for k in (layout.hdr + 1)..size {
        store_field(thunk.add(k), 0);
    }
    store_header(thunk, IND_INFO.header());
    remember(cap, thunk);
}

/// Store `value` into slot `i` of the evaluation stack `stack` (See Note
/// [Evaluation stacks] in `mutator::stack`): the stack's dirty rule is a
/// mutable variable's, one remembering per GC however many slots are
/// written.
///
/// # Safety
/// `stack` must be a live STACK with more than `i` slots, and `value` a
/// valid object address.
#[inline(always)]
// SAFETY: `stack` is a live STACK of more than `i` slots and `value` a valid object address.
pub unsafe fn write_stack(cap: &mut Capability, layout: Layout, stack: *mut Word, i: usize, value: Word) {
    let slot = layout.payload(stack).add(2 + i);
    if records_stack_stores(cap) {
        record_stack(cap, stack, slot, *slot, value);
    }
    store_field(slot, value);
    if load_header(stack) == STACK_CLEAN_INFO.header() {
        store_header(stack, STACK_DIRTY_INFO.header());
        remember(cap, stack);
    }
}

/// Push `value` onto the evaluation stack `stack`, which has room: the
/// slot it fills held nothing live, so a snapshot barrier has nothing to
/// record (an insertion barrier records the value).
///
/// # Safety
/// `stack` must be a live STACK whose depth is below its capacity, and
/// `value` a valid object address.
#[inline(always)]
// SAFETY: `stack` is a live STACK with room for one more slot; `value` a valid object address.
pub unsafe fn push_stack(cap: &mut Capability, layout: Layout, stack: *mut Word, value: Word) -> usize {
    let payload = layout.payload(stack);
    let depth = *payload.add(1);
    if cap.barrier == BarrierExtension::Insertion {
        record(cap, stack, payload.add(2 + depth), value, value);
    }
    store_field(payload.add(2 + depth), value);
    *payload.add(1) = depth + 1;
    if load_header(stack) == STACK_CLEAN_INFO.header() {
        store_header(stack, STACK_DIRTY_INFO.header());
        remember(cap, stack);
    }
    depth
}

/// Pop the live slots of `stack` above `depth`. Under a snapshot barrier
/// the popped values are recorded, as overwritten ones are: a pop deletes
/// the stack's references to them.
///
/// # Safety
/// `stack` must be a live STACK whose depth is at least `depth`.
#[inline(always)]
// SAFETY: `stack` is a live STACK whose depth is at least `depth`.
pub unsafe fn pop_stack(cap: &mut Capability, layout: Layout, stack: *mut Word, depth: usize) {
    let payload = layout.payload(stack);
    if cap.barrier == BarrierExtension::SnapshotAtTheBeginning {
        for k in depth..*payload.add(1) {
            record(cap, stack, payload.add(2 + k), *payload.add(2 + k), 0);
        }
    }
    *payload.add(1) = depth;
}

/// Black-hole the thunk at `thunk` under evaluation: its header becomes
/// `blackhole` (a black hole of its size), so that its free variables are
/// no longer traced and entering it again is seen. A snapshot barrier
/// records those free variables, which the new header deletes; the
/// field-logging barrier logs them and zeroes them (the caller has copied
/// them out).
///
/// # Safety
/// `thunk` must be a live heap thunk (plain or selector) and `blackhole` a
/// black-hole table of the same payload size.
#[inline(always)]
// SAFETY: `thunk` is a live thunk and `blackhole` a black hole of its size.
pub unsafe fn blackhole(cap: &mut Capability, layout: Layout, thunk: *mut Word, blackhole: &'static InfoTable) {
    let info = info_of_header(load_header(thunk));
    debug_assert_eq!(info.payload_words().max(1), blackhole.payload_words());
    if cap.barrier == BarrierExtension::SnapshotAtTheBeginning {
        let (slots, n) = layout.pointer_slots(thunk, info);
        for k in 0..n {
            record(cap, thunk, slots.add(k), *slots.add(k), 0);
        }
    } else if cap.barrier == BarrierExtension::FieldLogging {
        // The free variables are deleted: logged and zeroed, so that a
        // counting collector lowers what they held (See Note [The
        // field-logging barrier]).
        let (slots, n) = layout.pointer_slots(thunk, info);
        for k in 0..n {
            record(cap, thunk, slots.add(k), *slots.add(k), 0);
            store_field(slots.add(k), 0);
        }
    }
    store_header(thunk, blackhole.header());
}

/// Store `value` into the pointer field at `slot` of the object `obj`, a
/// constructor, function or thunk (an interpreter tying a recursive
/// binding's knot into objects it has just made). Such an object has no
/// dirty bit, so an old one is remembered at every such store; these
/// stores are rare.
///
/// # Safety
/// `slot` must be a pointer field of the live fixed-layout object `obj`,
/// and `value` a valid object address.
// SAFETY: `slot` is a pointer field of the live object `obj`; `value` a valid object address.
pub unsafe fn write_field(cap: &mut Capability, _layout: Layout, obj: *mut Word, slot: *mut Word, value: Word) {
    if cap.barrier != BarrierExtension::None {
        record(cap, obj, slot, *slot, value);
    }
    store_field(slot, value);
    remember(cap, obj);
}
