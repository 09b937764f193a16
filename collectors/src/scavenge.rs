//! Scavenge: scan copied objects and evacuate what they point to (GHC's
//! `rts/sm/Scav.c`).
//!
//! Cheney's algorithm over blocks: every to-space block has a scan pointer
//! chasing its free pointer; scanning an object evacuates its children,
//! which lands them further along in some to-space block, to be scanned in
//! turn. `scavenge_loop` runs until no block has unscanned objects and no
//! large object awaits scanning: then everything reachable from what was
//! evacuated so far has been copied.
//!
//! Objects are scanned with `evac_gen` set to their own generation (See
//! Note [Eager promotion] in `gc_thread`); one that still points younger
//! afterwards is put on its generation's new mutable list. Mutable
//! variables and arrays become clean or dirty accordingly, and arrays get
//! their cards recomputed (See Note [Card marking] in core's `barrier`).
//!
//! Note [The common object first]
//! ----------------------------------------
//! Most objects a GC meets are constructors, functions and thunks: a
//! fixed layout read off the info table (`ClosureType::has_fixed_layout`),
//! with `payload_words` worked out once when the table is made. Both
//! halves of the copying loop test for that case before the others (GHC's
//! `scavenge_block` and `evacuate` switch on the closure type, with the
//! constructors' cases first):
//! `evacuate` leaves a static object or one in a block that stays (an
//! older generation, to-space) without reading it (See Note [The block
//! before the object] in `evacuate`), follows a forwarding pointer, and
//! copies an object of fixed layout straight away when its block is plain
//! from-space (neither marked in place nor large); `scavenge_object` evacuates its
//! `ptrs` fields and returns its size without a second look at the
//! closure type. Every other case takes the general path, unchanged.
//! `scavenge_object` is inlined into its callers, the block scan above
//! all, so a scanned object costs no call.
//!
//! Measured with `scripts/ab --instructions` (cachegrind, binary-trees 14,
//! instructions in `gclab_collectors`): 88.8 M before; 82.2 M with the
//! scavenge fast path; 70.7 M with evacuate's (its static test first: half
//! the fields of a binary tree are `Nil`); 61.0 M with `scavenge_object`
//! inlined; 56.8 M with forwarding pointers and older generations handled
//! on the common path too; 52.8 M with `scavenge_block` reading its limit
//! once per batch of objects rather than once per object; 51.0 M with the
//! count towards sharing work kept only by threads that balance; 52.3 M
//! once the uncommon cases became one function called without a loop
//! (which costs binary-trees 2.6% and saves gcbench, lru and thunks 3.5-6%).
//! 41% fewer in all, about 117 instead of 198 per copied node (GHC 9.0's
//! runtime: 43.5 M for the same trees). gcbench 14 went from 19.6 M to
//! 16.0 M, lru from 7.7 M to 6.0 M, mutable-graph from 4.8 M to 3.5 M,
//! thunks from 1.78 G to 1.17 G. The clock agrees within this machine's noise
//! (binary-trees 18, 5 alternated rounds: GC time 1.92 s before, 1.07 s
//! with the first three steps).
//!
//! Tried and left out: scanning ahead, prefetching the objects that the
//! fields of the object 1, 4 or 12 objects past the scan pointer point to
//! (GHC does not either). It added 14-37% to GC time at every distance
//! (binary-trees 18, 5 alternated rounds each): the extra header reads and
//! prefetches cost more than the misses they hid, which out-of-order
//! execution already overlaps with the copying of the object before.

use crate::evacuate::{evacuate, evacuate_marking};
use crate::gc_thread::{GcThread, Work};
use crate::offer_point::OfferPoint;
use crate::prefetch_ring::{first_child, prefetch_element, PrefetchRing, ELEMENTS_AHEAD};
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_MARK_IN_PLACE};
use gclab_core::constants::Word;
use gclab_core::generation::ObjPtr;
use gclab_core::info::*;
use crate::work_stealing::Worker;
use gclab_core::object::{info_of_header, load_header, store_header, CARD_SIZE};

/// Scan the object at `p`, which lives in generation `gen`; returns its size.
///
/// # Safety
/// `p` must be a live, already evacuated (or never-moving) object, and the
/// GC must hold the heap.
#[inline(always)]
// SAFETY: `p` is a live, already placed object; its fields hold valid object addresses to evacuate.
pub unsafe fn scavenge_object(gct: &mut GcThread<'_>, p: *mut Word, gen: usize) -> usize {
    scavenge_object_by::<false, false>(gct, p, gen)
}

/// `scavenge_object`, whose fields of fixed layout go through
/// `evacuate_marking` if `MARKING` (an object popped off the scan stack:
/// See Note [A marking's common object inline] in `evacuate`), else
/// through `evacuate`. `LAST_FIRST`: the fields of an object of fixed
/// layout last to first, so that its first field's object is popped next
/// (See Note [Copying depth first] in `copy_order`).
///
/// # Safety
/// As for `scavenge_object`.
#[inline(always)]
// SAFETY: the caller's contract.
unsafe fn scavenge_object_by<const MARKING: bool, const LAST_FIRST: bool>(gct: &mut GcThread<'_>, p: *mut Word, gen: usize) -> usize {
    let info = info_of_header(load_header(p));
    let layout = gct.layout;
    gct.evac_gen = gen;
    gct.failed_to_evac = false;
    gct.work.scanned_objects += 1;
    if info.closure_type.has_fixed_layout() {
        // See Note [The common object first].
        let fields = layout.payload(p);
        for k in 0..info.ptrs as usize {
            let i = if LAST_FIRST { info.ptrs as usize - 1 - k } else { k };
            if MARKING {
                evacuate_marking(gct, fields.add(i));
            } else {
                evacuate(gct, fields.add(i));
            }
        }
        remember_if_young(gct, p, gen);
        return layout.fixed_size(info);
    }
    match info.closure_type {
        ClosureType::MutVarClean | ClosureType::MutVarDirty => {
            gct.eager_promotion = false;
            evacuate(gct, layout.payload(p));
            gct.eager_promotion = true;
            store_header(p, if gct.failed_to_evac { MUT_VAR_DIRTY_INFO.header() } else { MUT_VAR_CLEAN_INFO.header() });
        }
        ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Arr => {
            let mutable = info.closure_type != ClosureType::Arr;
            gct.eager_promotion = !mutable;
            let n = *layout.payload(p);
            let any_young = scan_array_cards(gct, p, n, 0..n.div_ceil(CARD_SIZE));
            gct.eager_promotion = true;
            gct.failed_to_evac = any_young;
            if mutable {
                store_header(p, if any_young { MUT_ARR_DIRTY_INFO.header() } else { MUT_ARR_CLEAN_INFO.header() });
            }
        }
        ClosureType::Stack => {
            // A stack is mutable: what it points to is not promoted early,
            // and it is cleaned or left dirty as a mutable variable is
            // (See Note [Evaluation stacks] in core's `mutator::stack`).
            gct.eager_promotion = false;
            let (slots, n) = layout.pointer_slots(p, info);
            for i in 0..n {
                evacuate(gct, slots.add(i));
            }
            gct.eager_promotion = true;
            store_header(p, if gct.failed_to_evac { STACK_DIRTY_INFO.header() } else { STACK_CLEAN_INFO.header() });
        }
        // A live weak's fields are traced by weak-pointer processing only.
        ClosureType::Weak | ClosureType::ArrWords | ClosureType::ConstrStatic | ClosureType::BoxedWord => {}
        ClosureType::Constr | ClosureType::Fun | ClosureType::Thunk | ClosureType::Ind | ClosureType::DeadWeak | ClosureType::Selector | ClosureType::Blackhole => {
            let (slots, n) = layout.pointer_slots(p, info);
            for i in 0..n {
                evacuate(gct, slots.add(i));
            }
        }
    }
    remember_if_young(gct, p, gen);
    layout.size_of(p, info)
}

/// Field `slot` of the object `p` (of generation `gen`, not being
/// scanned) points younger than `gen` after the GC evacuated it: list `p`
/// on `gen`'s mutable list, with the slot's card marked and the array
/// made dirty if `p` is a pointer array (whose listed entry is scanned
/// card by card), and a mutable variable or stack made dirty.
///
/// # Safety
/// `p` is a live object of generation `gen` that the GC holds, `slot`
/// one of its pointer fields.
// SAFETY: the caller's contract: `p`'s header, payload and card table are the GC's to write.
pub unsafe fn remember_slot(gct: &mut GcThread<'_>, p: *mut Word, slot: *mut Word, gen: usize) {
    let layout = gct.layout;
    let info = info_of_header(load_header(p));
    match info.closure_type {
        ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Arr => {
            let n = *layout.payload(p);
            let first = layout.payload(p).add(1);
            let card = (slot as usize - first as usize) / std::mem::size_of::<Word>() / CARD_SIZE;
            *layout.card_table(p, n).add(card) = 1;
            if info.closure_type != ClosureType::Arr {
                store_header(p, MUT_ARR_DIRTY_INFO.header());
            }
        }
        ClosureType::MutVarClean | ClosureType::MutVarDirty => store_header(p, MUT_VAR_DIRTY_INFO.header()),
        ClosureType::Stack => store_header(p, STACK_DIRTY_INFO.header()),
        _ => {}
    }
    if gen > 0 {
        gct.to[gen].mut_list.push(ObjPtr(p));
    }
}

/// After scanning `p` (of generation `gen`): if one of its fields could
/// not be promoted as far as `gen`, it goes on `gen`'s mutable list (See
/// Note [Eager promotion] in `gc_thread`).
#[inline(always)]
fn remember_if_young(gct: &mut GcThread<'_>, p: *mut Word, gen: usize) {
    if gct.failed_to_evac && gen > 0 {
        gct.to[gen].mut_list.push(ObjPtr(p));
    }
    gct.failed_to_evac = false;
}

/// Scan the elements of the cards in `cards` of array `p` (`n` elements),
/// setting each card's mark to whether it still holds a young pointer.
/// Returns whether any card does. Copying depth first, the cards and
/// their elements go last to first (See Note [An array's elements last
/// to first]).
// SAFETY: `p` is a live pointer array of `n` elements; its cards lie after them.
unsafe fn scan_array_cards(gct: &mut GcThread<'_>, p: *mut Word, n: usize, cards: std::ops::Range<usize>) -> bool {
    // See Note [An array's elements marked inline].
    match (gct.marks.is_some(), gct.depth_first) {
        (true, true) => scan_cards::<true, true>(gct, p, n, cards),
        (true, false) => scan_cards::<true, false>(gct, p, n, cards),
        (false, true) => scan_cards::<false, true>(gct, p, n, cards),
        (false, false) => scan_cards::<false, false>(gct, p, n, cards),
    }
}

/// `scan_array_cards`, its elements through `evacuate_marking` if
/// `MARKING`, its cards and their elements last to first if `LAST_FIRST`.
#[inline(always)]
// SAFETY: as for `scan_array_cards`.
unsafe fn scan_cards<const MARKING: bool, const LAST_FIRST: bool>(gct: &mut GcThread<'_>, p: *mut Word, n: usize, cards: std::ops::Range<usize>) -> bool {
    let elems = gct.layout.payload(p).add(1);
    let table = gct.layout.card_table(p, n);
    if n <= CARD_SIZE {
        // See Note [An array of one card]. Written out, not as `scan(gct,
        // 0)` below: through the closure, gcbench 16's GCs executed 1.14x
        // the instructions (its elements' copies were no longer inlined).
        debug_assert!(cards.is_empty() || cards == (0..1), "an array of one card has card 0");
        if cards.is_empty() {
            return false;
        }
        gct.failed_to_evac = false;
        scan_card::<MARKING, LAST_FIRST, false>(gct, elems..elems.add(n));
        *table = gct.failed_to_evac as u8;
        return gct.failed_to_evac;
    }
    let mut any = false;
    let mut scan = |gct: &mut GcThread<'_>, c: usize| {
        gct.failed_to_evac = false;
        let card = elems.add(c * CARD_SIZE)..elems.add(((c + 1) * CARD_SIZE).min(n));
        scan_card::<MARKING, LAST_FIRST, true>(gct, card);
        *table.add(c) = gct.failed_to_evac as u8;
        any |= gct.failed_to_evac;
    };
    if LAST_FIRST {
        cards.rev().for_each(|c| scan(gct, c));
    } else {
        cards.for_each(|c| scan(gct, c));
    }
    any
}

/// Evacuate the elements `card` of an array, through `evacuate_marking`
/// if `MARKING`, the last first if `LAST_FIRST`, asking for the objects
/// of the elements ahead if `PREFETCH` (See Note [A card's elements
/// prefetched] in `prefetch_ring`).
#[inline(always)]
// SAFETY: `card` holds elements of a live array, each a valid object address.
unsafe fn scan_card<const MARKING: bool, const LAST_FIRST: bool, const PREFETCH: bool>(gct: &mut GcThread<'_>, card: std::ops::Range<*mut Word>) {
    let evacuate_slot = |gct: &mut GcThread<'_>, slot: *mut Word| {
        if MARKING {
            evacuate_marking(gct, slot);
        } else {
            evacuate(gct, slot);
        }
    };
    if LAST_FIRST {
        let mut slot = card.end;
        while slot > card.start {
            slot = slot.sub(1);
            if PREFETCH && slot >= card.start.wrapping_add(ELEMENTS_AHEAD) {
                prefetch_element(slot.sub(ELEMENTS_AHEAD));
            }
            evacuate_slot(gct, slot);
        }
    } else {
        let mut slot = card.start;
        while slot < card.end {
            if PREFETCH && slot.wrapping_add(ELEMENTS_AHEAD) < card.end {
                prefetch_element(slot.add(ELEMENTS_AHEAD));
            }
            evacuate_slot(gct, slot);
            slot = slot.add(1);
        }
    }
}

// Note [An array of one card]
// ----------------------------------------
// Many arrays a GC scans are small (gcbench's tree nodes are arrays of
// two elements): one card, the whole array. `scan_cards` scans such an
// array as one range and writes its one card mark, without the loop over
// cards and each card's bounds. A two-element array took 176 instructions
// in `scan_array_cards`, its elements' copies included, and now takes 160
// (gcbench 16 under copying, `scripts/hot-lines`). GC instructions
// (`scripts/ab --instructions`, gcbench 16): copying 0.956x, mark-sweep
// 0.943x, immix 0.942x, nonmoving 0.966x. Workloads without small arrays
// moved by the compiler's placement of `scavenge_block`, whose code this
// does not touch (it went to another codegen unit and its registers were
// allocated differently): binary-trees 16 and lru 1.008x, fibheaps 1.005x
// under copying, lru 0.997x under mark-sweep.

// Note [An array's elements last to first]
// ----------------------------------------
// Copying depth first pushes each copy on the scan stack, so of the
// objects one scan evacuates the last is popped, and its own children
// copied, first (See Note [Copying depth first] in `copy_order`). The
// fields of an object of fixed layout go last to first for that reason;
// an array's elements went first to last, so a tree of small arrays
// (gcbench's top-down trees, nodes of two elements) came out with its
// right subtree before its left. A mutator walking the tree left first
// then jumped back over the whole right subtree at every node, against
// the direction its reads had run: on gcbench 18 at `-M41552k` its
// mutator took 1.5x the time it takes with Cheney's order, with the
// same cache misses under cachegrind (which does not model the
// processor's prefetcher), and the immix claim on gcbench, which copies
// depth first by default, was missed by that. So copying depth first
// scans an array's cards last to first, and each card's elements too:
// its first element's object is popped next, as a constructor's first
// field's is. A breadth-first GC (Cheney's scan, and every parallel GC)
// keeps the order of memory, which the card scans of the minor GCs'
// mutable lists read front to back. Each pairing of the two choices
// (marking or not, last first or not) has its own loop, chosen once per
// array: a test of both inside the loop over cards cost `copying`, which
// takes neither, 1.042x the GC instructions on gcbench 16, and costs
// nothing now (0.998x; `immix` 1.013x, for the copies it now makes in
// another order). On the clock, immix's mutator on gcbench 18 at
// `-M41552k`: 0.703x (docs/performance.md has the figures).

// Note [An array's elements marked inline]
// ----------------------------------------
// The elements of an array go through `evacuate` (an array is scanned
// whole from the large-object list, or card by card from a mutable
// list), so in a marking in place each element that lies in a block
// marked in place took `evacuate_uncommon`'s call to be marked, the cost
// that Note [A marking's common object inline] took off the fields of
// objects popped off the scan stack. A GC that has a mark bitmap now
// scans an array's elements with `evacuate_marking`; one without (every
// copying GC) keeps `evacuate`, and pays one test of the bitmap per card.
// lru's cache is one array of entries, marked through it at every major
// GC: GC instructions on lru 200000 1000000 128 0.973x under compacting
// and 0.970x under mark-sweep, 0.998x under copying.

// Note [Young objects in old blocks]
// ----------------------------------------
// A collector that offers the mutators the holes of its old blocks (See
// Note [Allocation regions] in core's `alloc_region`) gets blocks whose
// objects are of two ages, and the write barrier, which judges age by
// block, remembers a store into a young object of such a block as if it
// were old. StickyImmix tells the ages apart by sticky mark bits: an
// object marked by an earlier GC is old, an unmarked one young. Its minor
// GC marks the blocks with young objects in place, starting from those
// bits, so a mutable-list entry that is still unmarked there is young:
// it is live only if something reaches it, and then it is marked and
// scanned whole like any young object (which also cleans its dirty bit,
// so the barrier will remember it at its next store as the old object it
// has become). Scanning it as a root instead would keep everything it
// points to alive until the next major GC, the entry itself dead or not.
// The test is opt-in (`GcThread::sticky`): the nonmoving collector's
// snapshot also keeps old blocks in place, where an unmarked entry is an
// old object that its concurrent marker has not reached yet.

/// Is `p`, a mutable-list entry, a young object in a block that this GC
/// marks in place (See Note [Young objects in old blocks])?
fn is_young_in_old_block(gct: &GcThread<'_>, p: *mut Word) -> bool {
    // SAFETY: `p` is a heap object, so its descriptor is live.
    let in_place = unsafe { BlockDesc::load_flags(BlockDesc::of(p)) } & BF_MARK_IN_PLACE != 0;
    in_place && gct.marks.is_some_and(|marks| !marks.is_marked(p))
}

/// Scan an entry of generation `gen`'s mutable list (an object that does
/// not move in this GC). Arrays have only their marked cards scanned.
///
/// # Safety
/// As for `scavenge_object`; `p` lives in an uncollected generation `gen`.
// SAFETY: `p` is a live object of uncollected generation `gen` (a mutable-list entry).
pub unsafe fn scavenge_mut_list_entry(gct: &mut GcThread<'_>, p: *mut Word, gen: usize) {
    if gct.sticky && is_young_in_old_block(gct, p) {
        return;
    }
    let info = info_of_header(load_header(p));
    if !info.closure_type.is_pointer_array() {
        scavenge_object(gct, p, gen);
        return;
    }
    let layout = gct.layout;
    let n = *layout.payload(p);
    let table = layout.card_table(p, n);
    gct.evac_gen = gen;
    let mutable = info.closure_type != ClosureType::Arr;
    gct.eager_promotion = !mutable;
    let mut any = false;
    for c in 0..n.div_ceil(CARD_SIZE) {
        if *table.add(c) != 0 {
            any |= scan_array_cards(gct, p, n, c..c + 1);
        }
    }
    gct.eager_promotion = true;
    gct.failed_to_evac = false;
    if mutable {
        store_header(p, if any { MUT_ARR_DIRTY_INFO.header() } else { MUT_ARR_CLEAN_INFO.header() });
    }
    if any {
        gct.to[gen].mut_list.push(ObjPtr(p));
    }
}

/// Scan block `bd` of generation `gen` from its scan pointer to its free
/// pointer (which may move on while we scan: objects copied into this very
/// block are scanned in the same call).
// SAFETY: `bd` is a to-space block of this thread whose [scan, limit) holds whole copied objects.
unsafe fn scavenge_block(gct: &mut GcThread<'_>, bd: BlockPtr, gen: usize) {
    // Only a thread of a balanced team has anyone to offer work to.
    if gct.roster.is_some() {
        scavenge_block_offering::<true>(gct, bd, gen);
    } else {
        scavenge_block_offering::<false>(gct, bd, gen);
    }
}

/// `scavenge_block`, offering work to idle threads as it goes if
/// `OFFERING` (See Note [Offering work by the words scanned] in `offer_point`).
#[inline(always)]
// SAFETY: as for `scavenge_block`.
unsafe fn scavenge_block_offering<const OFFERING: bool>(gct: &mut GcThread<'_>, bd: BlockPtr, gen: usize) {
    // SAFETY: a to-space block being scanned is this thread's own.
    let d = unsafe { bd.get() };
    let outer = gct.scanning.replace(bd);
    // The scan pointer lives in a register meanwhile: nobody reads the
    // descriptor's copy of the block being scanned (See Note [The block
    // being scanned] in `gc_thread`).
    let mut scan = d.scan;
    let mut offer = OfferPoint::<OFFERING>::new(scan);
    // The limit is read once per stretch: what is copied meanwhile (often
    // into this very block) is scanned by the next stretch.
    let mut limit = gct.limit_of(gen, bd);
    while scan < limit {
        let end = offer.stretch_end(limit);
        while scan < end {
            let size = scavenge_object(gct, scan, gen);
            scan = scan.add(size);
        }
        offer.passed(gct, scan);
        limit = gct.limit_of(gen, bd);
    }
    d.scan = scan;
    gct.scanning = outer;
}

/// Scan the objects placed one after another from `start` up to `end` in
/// a run a space lent (See Note [Runs a space lends] in `lent_runs`), which
/// this thread has claimed.
// SAFETY: [start, end) holds whole placed objects of one block, claimed by this thread.
unsafe fn scavenge_run(gct: &mut GcThread<'_>, start: *mut Word, end: *mut Word) {
    if gct.roster.is_some() {
        scavenge_run_offering::<true>(gct, start, end);
    } else {
        scavenge_run_offering::<false>(gct, start, end);
    }
}

/// `scavenge_run`, offering work to idle threads as it goes if
/// `OFFERING` (See Note [Offering work by the words scanned] in `offer_point`).
#[inline(always)]
// SAFETY: as for `scavenge_run`.
unsafe fn scavenge_run_offering<const OFFERING: bool>(gct: &mut GcThread<'_>, start: *mut Word, end: *mut Word) {
    // SAFETY: the run lies in a block of the space's generation.
    let gen = unsafe { (*BlockDesc::of(start)).gen_no } as usize;
    let mut offer = OfferPoint::<OFFERING>::new(start);
    let mut p = start;
    while p < end {
        let stop = offer.stretch_end(end);
        while p < stop {
            p = p.add(scavenge_object(gct, p, gen));
        }
        offer.passed(gct, p);
    }
}

/// Do a work item taken from a work queue (this thread's own, or stolen
/// from another GC thread): scan a full to-space block, which then
/// belongs to this thread, or take objects onto the scan stack.
///
/// # Safety
/// As for `scavenge_loop`; the item was pushed by `alloc_to_slow` or
/// `share_work` and no other thread holds it any more.
// SAFETY: a block's [scan, free) holds whole copied objects, and shared objects are whole; both now this thread's to scan.
pub unsafe fn scavenge_stolen(gct: &mut GcThread<'_>, work: Work) {
    match work {
        Work::Block(bd) => {
            // SAFETY: the caller's contract: the block is now this thread's.
            let gen = unsafe { bd.read() }.gen_no as usize;
            scavenge_block(gct, bd, gen);
            gct.to[gen].done.push(bd);
        }
        Work::Objects(objects) => gct.scan_stack.extend(objects),
        Work::Run(start, end) => scavenge_run(gct, start, end),
    }
}

/// Scan `p`, just popped off the scan stack (or out of the prefetch ring).
/// Copying depth first, its fields go last to first (See Note [Copying
/// depth first] in `copy_order`).
///
/// # Safety
/// As for `scavenge_object`: `p` is a marked, placed or copied object.
#[inline(always)]
// SAFETY: the caller's contract; a heap object's descriptor is live.
unsafe fn scan_popped(gct: &mut GcThread<'_>, p: *mut Word) {
    let bd = BlockDesc::of(p);
    if let Some(reach) = gct.reach.as_mut() {
        // See Note [Blocks whose pointers stay put] in `reach`.
        reach.scanning((BlockDesc::load_flags(bd) & BF_MARK_IN_PLACE != 0).then(|| (*bd).aux as usize));
    }
    let gen = (*bd).gen_no as usize;
    if gct.depth_first {
        scavenge_object_by::<true, true>(gct, p, gen);
    } else {
        scavenge_object_by::<true, false>(gct, p, gen);
    }
}

/// Copying depth first in a GC that marks nothing: scan the copies off
/// the scan stack, fields last to first, until it is empty; false if it
/// was empty. Its own loop, without the marking's sampling (one GC thread
/// has no one to share with, and what it copies is not scattered) or its
/// reach (See Note [Copying depth first] in `copy_order`).
///
/// # Safety
/// As for `scavenge_loop`: every object on the scan stack is a copy.
#[inline(never)]
// SAFETY: the caller's contract; a copy's descriptor is its to-space block's.
unsafe fn scan_copies(gct: &mut GcThread<'_>) -> bool {
    let mut any = false;
    while let Some(p) = gct.scan_stack.pop() {
        scavenge_object_by::<false, true>(gct, p, (*BlockDesc::of(p)).gen_no as usize);
        any = true;
    }
    any
}

/// Scan block `bd` of generation `gen` from its scan pointer to its free
/// pointer; copying depth first, pass over those objects instead, which
/// went on the scan stack as they were copied (See Note [Copying depth
/// first] in `copy_order`).
// SAFETY: as for `scavenge_block`.
unsafe fn scan_or_pass(gct: &mut GcThread<'_>, bd: BlockPtr, gen: usize) {
    if gct.depth_first {
        let limit = gct.limit_of(gen, bd);
        // SAFETY: a to-space block being scanned is this thread's own.
        unsafe { bd.get() }.scan = limit;
    } else {
        scavenge_block(gct, bd, gen);
    }
}

/// Pop and scan through `ring` (See Note [Prefetching a marking] in
/// `prefetch_ring`) until the stack is empty or the samples say the
/// marking is no longer scattered; the ring is empty when this returns.
///
/// # Safety
/// As for `scavenge_loop`.
#[inline(never)]
// SAFETY: the caller's contract: every object on the scan stack is marked.
unsafe fn scan_through_ring(gct: &mut GcThread<'_>, ring: &mut PrefetchRing, scanned: &mut u32) {
    let layout = gct.layout;
    loop {
        // Once the samples turn the ring off, it is emptied and the plain
        // loop takes the rest of the stack.
        let next = if ring.prefetching() { gct.scan_stack.pop() } else { None };
        let p = match next {
            Some(p) => match ring.exchange(layout, p) {
                Some(oldest) => oldest,
                None => continue,
            },
            None => match ring.take_oldest() {
                Some(oldest) => oldest,
                None => return,
            },
        };
        scan_popped(gct, p);
        count_scan(gct, ring, p, scanned);
    }
}

/// Count a scan of `p` off the scan stack; every 32nd offers work to idle
/// threads and is a sample of whether the marking is scattered (See Note
/// [When the marking prefetches] in `prefetch_ring`). True at a sample.
#[inline(always)]
fn count_scan(gct: &mut GcThread<'_>, ring: &mut PrefetchRing, p: *mut Word, scanned: &mut u32) -> bool {
    *scanned += 1;
    if !scanned.is_multiple_of(32) {
        return false;
    }
    gct.share_work();
    // SAFETY: `p` was just scanned.
    let child = unsafe { first_child(gct.layout, p) };
    ring.sample(p, gct.scan_stack.last().copied(), child);
    true
}

/// Scan until no to-space block and no large object has unscanned objects.
///
/// # Safety
/// The GC must hold the heap; every object in to-space is a valid copy.
// SAFETY: to-space and the mark stack hold only valid copied or marked objects; the GC holds the heap.
pub unsafe fn scavenge_loop(gct: &mut GcThread<'_>) {
    let mut ring = PrefetchRing::new(gct.judge);
    loop {
        let mut progress = false;
        for gen in 0..gct.to.len() {
            while let Some(bd) = gct.to[gen].pending.pop() {
                gct.poll_company();
                scan_or_pass(gct, bd, gen);
                gct.to[gen].done.push(bd);
                progress = true;
            }
            gct.poll_company();
            if let Some(bd) = gct.to[gen].current {
                // SAFETY: the block being filled is this thread's own.
                if unsafe { bd.read() }.scan < gct.to[gen].hp {
                    scan_or_pass(gct, bd, gen);
                    progress = true;
                }
            }
            while let Some((start, end)) = gct.claim_lent(gen, 0) {
                // Copying depth first, what a run holds went on the scan
                // stack as it was placed (See Note [Copying depth first]
                // in `copy_order`).
                if !gct.depth_first {
                    scavenge_run(gct, start, end);
                }
                progress = true;
            }
        }
        while let Some(work) = gct.todo_q.as_ref().and_then(Worker::pop) {
            scavenge_stolen(gct, work);
            progress = true;
        }
        while let Some(bd) = gct.large_todo.pop() {
            // SAFETY: this thread claimed the large object (`evacuate_large`).
            let d = unsafe { bd.read() };
            scavenge_object(gct, d.start, d.gen_no as usize);
            progress = true;
        }
        if gct.depth_first && gct.marks.is_none() {
            progress |= scan_copies(gct);
        }
        let mut scanned = 0u32;
        while let Some(p) = gct.scan_stack.pop() {
            scan_popped(gct, p);
            progress = true;
            if count_scan(gct, &mut ring, p, &mut scanned) && ring.prefetching() {
                scan_through_ring(gct, &mut ring, &mut scanned);
            }
        }
        if let Some(reach) = gct.reach.as_mut() {
            reach.scanning(None);
        }
        if !progress {
            gct.work.prefetched_objects += ring.entered;
            return;
        }
    }
}
