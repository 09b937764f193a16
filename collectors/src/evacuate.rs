//! Evacuate: move one object to to-space and update the slot that pointed
//! to it (GHC's `rts/sm/Evac.c`).
//!
//! Given a slot holding a pointer, `evacuate` leaves in it the object's
//! to-space address, copying the object the first time it is reached and
//! leaving a forwarding pointer behind (See Note [Forwarding pointers] in
//! core's `object`). Objects that must not move are left alone: static
//! objects, objects in to-space or in a generation not being collected
//! (`BF_EVACUATED`), and large objects, which are instead relinked into
//! their destination generation's large-object list, and objects in blocks
//! kept in place (`BF_MARK_IN_PLACE`), which are marked where they lie for
//! the collector to compact or sweep later. Indirections left by
//! updated thunks are removed on the way: the slot is pointed straight at
//! the value.
//!
//! Note [Claiming an object]
//! ----------------------------------------
//! In a parallel GC two threads can reach the same object at once. As in
//! GHC's `copy_tag`, each copies it into its own to-space and then tries
//! to swap the object's header for a forwarding pointer to its copy with
//! one compare-and-swap; exactly one succeeds. The loser takes its copy
//! back (a bump-pointer rewind, since nothing else was copied after it;
//! in the rare case where the copy opened a fresh block, it stays behind
//! as unreachable words, scanned once and freed at the next GC) and
//! follows the winner's forwarding pointer. Copying before claiming keeps
//! the claim to one atomic operation and never makes a thread wait for
//! another; the price is the occasional wasted copy. The header copied is
//! the one read before the claim, never re-read from the object, so the
//! copy is never a forwarding pointer. The compare-and-swap is not free:
//! it waits for the copy's stores to reach the cache, and `perf` puts a
//! fifth of a parallel GC's samples on it (binary-trees 19, 2 threads). A
//! thread that works alone (`GcThread::parallel` false: every sequential
//! collection, and the leader of a parallel GC without balancing until a
//! pool thread comes in, See Note [A GC thread alone claims nothing] in
//! `gc_workers`) stores the forwarding pointer plainly instead, as GHC
//! compiles a lock-free `evacuate1` for its sequential GC; uncontended,
//! the difference measured about 3% on binary-trees' three-word nodes,
//! and half of the time of copying lru's 17-word byte arrays. An immutable
//! object is not claimed even in a parallel GC (See Note [Copying an
//! immutable object twice]).
//!
//! Note [Copying an immutable object twice]
//! ----------------------------------------
//! Most objects are never written after allocation: constructors,
//! functions and frozen arrays (`ClosureType::is_immutable`). As GHC's
//! `copy_tag_nolock` does, a parallel GC copies such an object without
//! claiming it: it stores the forwarding pointer with a plain release
//! store. Two threads that reach the object at once both copy it; each
//! points its own slot at its own copy, and the header keeps whichever
//! forwarding pointer was stored last, which later visitors follow. Both
//! copies are live and equal, and neither is ever written, so the program
//! can tell them apart only by address. Mutable objects, thunks (updated
//! in place) and weak pointers are always claimed: a second copy would
//! miss the writes made to the first.
//!
//! An address shows in two places. `Mutator::same` on two handles to one
//! immutable object may read false after such a GC (as GHC's
//! `reallyUnsafePtrEquality#` may); gclab's workloads compare only with
//! static objects, which never move. And a weak pointer's key must stay
//! one object: copied twice, the weak pointer would follow one copy while
//! the program holds the other, and its finaliser would run once the copy
//! it follows died, the key still held. So `from_space::prepare` flags
//! every from-space block holding a weak key `BF_CLAIM`
//! (`weak_ptrs::flag_key_blocks`), every object copied from such a block
//! is claimed, and `install` clears the flags. The flag is per block, not
//! per object, because the block's descriptor is one the copy has just
//! read (for the destination), so testing it costs a load from a line in
//! cache, and only in a parallel GC: a thread alone never asks
//! (`claimed_when_shared`).
//!
//! Measured on binary-trees 19 (`-N2 -A1m`, three runs each): claiming
//! every copy, a parallel major GC used 1.43x the CPU time of a
//! sequential one and was 1.30-1.39x faster at `-qn2` than at `-qn1`;
//! copying immutable objects unclaimed, it uses 1.15x the CPU and is
//! 1.57-1.67x faster (GHC 9.0's own, same machine and program:
//! 1.64-1.79x), and the minor GCs of the two capabilities take 0.67 s of
//! CPU instead of 0.86 s. The test
//! `a_weak_pointers_key_stays_one_object_when_gc_threads_race_for_it`
//! (`tests/parallel.rs`) makes two threads race for 20,000 keys; without
//! `BF_CLAIM` it failed in each of three runs.
//!
//! A slot is written with `store_field` (release order), as a mutator
//! writes one: a young GC of `nonmoving` or `concurrent-copying` runs
//! beside their marker, which may be reading the same field of an old
//! object (See Note [The marker runs through young GCs] in
//! `concurrent_mark`). On x86-64 it compiles to the plain store it
//! replaces.
//!
//! Invariant kept: after `evacuate(slot)`, `*slot` is a static object or an
//! object that will survive this GC, never a from-space address; and if
//! that object is younger than `evac_gen`, `failed_to_evac` is set.

use crate::gc_thread::GcThread;
use gclab_core::bdescr::{BlockDesc, BF_CLAIM, BF_EVACUATED, BF_LARGE, BF_MARK_IN_PLACE, BF_NURSERY, SUMMARY_STAYS};
use gclab_core::constants::Word;
use gclab_core::info::{ClosureType, InfoTable};
use gclab_core::object::{claim_header, forward_target, forwarding_header, info_of_header, is_forwarded, load_header, store_field, store_header};

// Note [The block before the object]
// ----------------------------------------
// `evacuate` asks three questions of a pointer, cheapest first, as GHC's
// does: is it the heap's (`HeapRange::holds`: a subtraction and a compare
// against the heap's reserved address space, See Note [Reserving the
// heap's address space] in core's `mblock::address_space`), then does its
// block stay (`BF_EVACUATED`: an older generation, or to-space; asked of
// the block's summary byte, See Note [Block summaries] in
// core's `bdescr`), and only then what the object's header says. A
// static object, or one that stays, is left without a look at it.
//
// It read the header first, to tell a static object by its info table
// (half the fields of a binary tree are a static `Nil`, whose header is
// always in the cache). But in a minor GC most of the fields of promoted
// and remembered objects point into the old generation, and each such
// header is a cache miss in memory nothing else in the GC touches: `perf`
// put 65% of `scavenge_run`'s samples on that one load on fibheaps 400000
// under mark-sweep, whose old objects lie scattered in cells. A
// descriptor is one of 252 in the first 16 KiB of its megablock, so the
// descriptors of the whole old generation stay in the cache.
//
// Measured (`scripts/ab --instructions`, before against after, GC part):
// first-level misses 0.872x on fibheaps 100000 under mark-sweep, 0.857x
// under copying, lru 0.923-0.947x (copying, mark-sweep, nonmoving), no
// change on binary-trees 16 or gcbench 16 (whose pointers into old
// objects are few); instructions 1.003-1.032x, the range test costing
// four per pointer (the `Nil` fields' header read saved pays part). On
// the clock (`scripts/ab`, alternated rounds): fibheaps 400000 at
// `-M75056k`, GC time 0.743x under mark-sweep (0.58-0.89, minor GCs
// 0.694x) and 0.776x under copying (0.50-1.16); binary-trees 20 under
// copying 0.866x (0.86-0.93, 3 rounds); lru 500000 4000000 128 within
// the noise (nonmoving's minor GCs 1.061x, 0.82-1.08).
//
// Tried first, and left out: a map of the heap's megablocks (a bitmap per
// 64 GiB chunk of the address space), since megablocks were mapped
// wherever the kernel put them and a leaked static object (the info
// tables of `lang`) can lie between two of them. Its lookup took 17
// instructions: GC instructions 1.09-1.26x.

/// Evacuate the object `*slot` points to. See the module doc.
///
/// # Safety
/// `slot` must hold the address of a valid object (heap or static), the
/// slot must be this thread's to write, and the caller must hold the heap
/// for this GC (alone, or shared with other GC threads that follow Note
/// [Claiming an object]).
#[inline(always)]
// SAFETY: the caller holds the heap for this GC and `*slot` is a valid object, so its header and descriptor may be read and to-space written.
pub unsafe fn evacuate(gct: &mut GcThread<'_>, slot: *mut Word) {
    let p = *slot as *mut Word;
    // See Note [The block before the object]: a static object, or one in
    // a block that stays (an older generation, to-space), is left without
    // a look at it.
    if !gct.heap.holds(p as usize) {
        return;
    }
    // The block's summary byte, not its descriptor, says whether it stays
    // or is out of the common path, in one test: See Note [Block
    // summaries] in core's `bdescr`.
    let summary = gct.heap.summary(p as usize);
    if summary != 0 {
        if summary & SUMMARY_STAYS != 0 {
            stays(gct, p, (summary & !SUMMARY_STAYS) as usize);
        } else {
            evacuate_in_place_or_large(gct, slot, p);
        }
        return;
    }
    let header = load_header(p);
    if is_forwarded(header) {
        follow_forwarding(gct, slot, header);
        return;
    }
    // See Note [The common object first] in `scavenge`: an object of
    // fixed layout in a block being evacuated is simply copied.
    let info = info_of_header(header);
    let bd = BlockDesc::of(p);
    if info.closure_type.is_copied_as_is() {
        copy_or_follow(gct, slot, p, header, bd, gct.layout.fixed_size(info));
        return;
    }
    // See Note [Arrays on the common path].
    if info.closure_type.is_array() {
        copy_or_follow(gct, slot, p, header, bd, gct.layout.array_object_size(p, info.closure_type));
        return;
    }
    evacuate_uncommon(gct, slot, p, header, info, bd, BlockDesc::load_flags(bd));
}

/// `evacuate` for an object in a block marked in place or a large
/// object's (`SUMMARY_UNCOMMON`), which may have been copied out of its
/// block (See Note [Young objects copied out of holes] in `sticky_immix`).
#[inline(always)]
// SAFETY: as for `evacuate`; `p` is a heap object.
unsafe fn evacuate_in_place_or_large(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word) {
    let bd = BlockDesc::of(p);
    let flags = BlockDesc::load_flags(bd);
    if flags & BF_EVACUATED != 0 {
        // A large object another GC thread claimed after this one read its
        // summary.
        stays(gct, p, (*bd).gen_no as usize);
        return;
    }
    let header = load_header(p);
    if is_forwarded(header) {
        follow_forwarding(gct, slot, header);
        return;
    }
    evacuate_uncommon(gct, slot, p, header, info_of_header(header), bd, flags);
}

/// `evacuate` for a field of an object popped off the scan stack, where
/// a marking in place meets most of its objects: the common object of a
/// block marked in place is marked here, inline, before `evacuate`'s
/// tests (See Note [A marking's common object inline]).
///
/// # Safety
/// As for `evacuate`.
#[inline(always)]
// SAFETY: as for `evacuate`: `*slot` is a valid object, whose header and descriptor may be read.
pub unsafe fn evacuate_marking(gct: &mut GcThread<'_>, slot: *mut Word) {
    let p = *slot as *mut Word;
    let header = load_header(p);
    if !is_forwarded(header) {
        let info = info_of_header(header);
        if info.is_static() {
            return;
        }
        let bd = BlockDesc::of(p);
        let in_place = BlockDesc::load_flags(bd) & (BF_MARK_IN_PLACE | BF_EVACUATED) == BF_MARK_IN_PLACE;
        if in_place && !gct.marks.is_some_and(|m| m.copies(p)) {
            if info.closure_type.has_fixed_layout() {
                gct.mark_in_place(p, gct.layout.fixed_size(info), false);
                return;
            }
            if info.closure_type == ClosureType::ArrWords {
                // See Note [A leaf is marked, not pushed].
                gct.mark_in_place(p, gct.layout.size_of(p, info), true);
                return;
            }
        }
    }
    evacuate(gct, slot);
}

/// What `evacuate`'s common path leaves out, for an object `p` (header
/// `header`) in collected block `bd` with `flags`: an indirection, an object
/// in a block kept in place, a large object, and the kinds of object
/// without a fixed layout.
#[inline(never)]
// SAFETY: as for `evacuate`; `p` is an unforwarded heap object whose header read `header`.
unsafe fn evacuate_uncommon(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word, header: Word, info: &InfoTable, bd: *mut BlockDesc, flags: u32) {
    // The common object of a marking in place first, sized from its info
    // table (unless its bitmap copies it out: a young object of a sticky
    // GC's block, below). Tested in `evacuate` itself, which every scan
    // inlines, it cost copying 1-4% more GC instructions (binary-trees
    // 16, lru, gcbench under cachegrind); here it costs copying nothing.
    if flags & BF_MARK_IN_PLACE != 0 && info.closure_type.has_fixed_layout() && !gct.marks.is_some_and(|m| m.copies(p)) {
        gct.mark_in_place(p, gct.layout.fixed_size(info), false);
        return;
    }
    if flags & BF_MARK_IN_PLACE != 0 && gct.marks.is_some_and(|m| m.is_marked(p)) {
        // Marked already: an old object of a sticky minor GC's block, kept
        // as it is. See Note [Old indirections stay].
        return;
    }
    // An old object of an increment moves as it is: See Note [An
    // increment's objects move as they are].
    let collected = (*bd).gen_no as usize <= gct.collect_gen;
    if collected && info.closure_type == ClosureType::Selector && crate::selector::select(gct, slot, p) {
        return;
    }
    if collected && info.closure_type == ClosureType::BoxedWord && flags & BF_MARK_IN_PLACE == 0 {
        if let Some(shared) = info.shared_box(*gct.layout.payload(p)) {
            // See Note [Small boxes are shared].
            store_field(slot, shared.addr());
            return;
        }
    }
    if collected && info.closure_type == ClosureType::Ind {
        // Short-cut the indirection and evacuate its value instead.
        store_field(slot, *gct.layout.payload(p));
        evacuate(gct, slot);
    } else if flags & BF_MARK_IN_PLACE != 0 {
        let size = gct.layout.size_of(p, info);
        if gct.marks.is_some_and(|m| m.copies(p)) {
            // A young object of a sticky-mark-bits minor GC's block: See
            // Note [Young objects copied out of holes] in `sticky_immix`.
            copy_or_follow(gct, slot, p, header, bd, size);
        } else {
            // Kept in place: mark it and scan it later; a compaction
            // moves it (and fixes this slot) in its own phases, a sweep
            // keeps it. (A large object is kept in place this way by the
            // nonmoving collector's snapshot.)
            // A byte array holds no pointers: See Note [A leaf is marked,
            // not pushed].
            let leaf = info.closure_type == ClosureType::ArrWords;
            if let Some(reach) = gct.reach.as_mut() {
                if !info.closure_type.has_fixed_layout() && !leaf {
                    // See Note [Blocks whose pointers stay put] in `reach`.
                    reach.holds_other((*bd).aux as usize);
                }
            }
            gct.mark_in_place(p, size, leaf);
        }
    } else if flags & BF_LARGE != 0 {
        evacuate_large(gct, bd);
    } else {
        copy_or_follow(gct, slot, p, header, bd, gct.layout.size_of(p, info));
    }
}

// Note [Arrays on the common path]
// ----------------------------------------
// A small array in from-space (a pointer array or a byte array, neither
// marked in place nor large: the summary byte said so) is copied by
// `evacuate` itself, its size read off its length word. It took the
// uncommon path before, a call and a chain of tests for the kinds that
// need one (selectors, shared boxes, indirections, blocks kept in
// place) that an array never passes: about 128 instructions an array,
// met half a million times by gcbench 16 (its top-down trees' nodes are
// two-element arrays) and once an operation by lru (its values).
// Measured (`scripts/ab --instructions`, GC instructions, the binary
// before against after): copying 0.853x on gcbench 16 and 0.831x on lru
// 50000 300000 128; nonmoving, immix and mark-sweep 0.885-0.903x on
// gcbench and 0.888-0.899x on lru; binary-trees 16 and fibheaps 100000,
// which copy no arrays, 1.008x (the scan loop's registers are allocated
// differently). A call to an array-only function instead of the test
// inline saved less (0.905x, 0.907x) and cost binary-trees and fibheaps
// more (1.016x, 1.015x).

// Note [Listing the old objects a GC reaches]
// ----------------------------------------
// The pause that begins a `concurrent-copying` marking marks nothing: the
// marker attaches the snapshot after it (See Note [The marker attaches
// its snapshot] in `concurrent_mark`), so that pause lists instead every
// object of an older generation that its trace reaches, for the marker to
// grey. Those objects all take `evacuate`'s first exit (their blocks are
// `BF_EVACUATED`), where the list is pushed to if this GC keeps one. An
// object of this GC's own to-space takes the same exit; it is younger, or
// was promoted by this pause, and is left off by its generation, so the
// list holds only objects that stay where they are until the marking
// ends. Every other GC pays the test of an empty option on that exit:
// copying's GC instructions (cachegrind, `scripts/ab --instructions`)
// 1.000x on binary-trees 17 and 1.006x on lru 20000 300000 128, whose
// young GCs meet old objects through the mutable lists at every turn.
// Marking the snapshot's objects in place instead needs the blocks
// attached first, the pass that the pause is rid of.

// Note [A marking's common object inline]
// ----------------------------------------
// A major GC of mark-sweep, immix or compacting marks its old generation
// where it lies: it meets the objects there through the fields of objects
// popped off the scan stack, and for each one `evacuate`'s common path
// fails (the block is `BF_MARK_IN_PLACE`, not plain from-space) and it
// calls `evacuate_uncommon`, whose first test marks it: a call, with its
// saving and restoring of registers, for nearly every object the marking
// reaches. Moving that test into `evacuate`, which every scan inlines,
// cost copying 1-4% more GC instructions, where copying never marks.
// So objects popped off the scan stack are scanned with their own
// `evacuate`, `evacuate_marking`, which tests for a marked-in-place
// object of fixed layout first, inline, and leaves everything else to
// `evacuate` (`scavenge_object_by::<true>` in `scavenge`). Copying's
// scans of its to-space blocks keep the plain `evacuate`; copying meets
// the scan stack only for objects a space placed one by one.
// Measured: GC instructions (binary-trees 17, `scripts/ab
// --instructions`) 0.965x under mark-sweep, immix and compacting,
// 1.000x under copying; on the clock (binary-trees 20, `scripts/ab -n
// 5`, 2-core machine) major GCs 0.938x under mark-sweep (0.94-0.96) and
// 0.961x under compacting (0.92-0.97), minor GCs unchanged.
// The path was then counted instruction by instruction (callgrind's
// per-instruction counts over `scavenge_loop`, binary-trees 17 under
// compacting: 205 instructions for each object marked, scanned and
// popped), and three things taken off it: a static child (a leaf's
// empty subtree) went on through `evacuate`, which read the slot and the
// header again to find it static, and now leaves at once; the block's
// marks and starts maps took a bounds check each, and an assertion that
// starts are recorded, and now take one check for both
// (`MarkBitmap::maps_at`); and the bits of every object were computed as
// for one that spills into the next 64-word chunk, and now the common
// object, inside one chunk, skips that arithmetic. 189 instructions an
// object; GC instructions (with the minor GCs) 0.978x under compacting,
// 0.983x under mark-sweep and immix; the marking of binary-trees 20's
// major GCs under compacting 1717 -> 1555 ms (summed over its 37, median
// of 5 alternated rounds). Tried on the clock and left: the ring always
// on (2243 against 2107 ms) and the fields pushed in reverse, so that a
// node's first child is scanned first (1671 against 1510 ms).

// Note [A leaf is marked, not pushed]
// ----------------------------------------
// A marking in place pushes each object it marks, to scan its fields
// later. A byte array has no pointer fields: its scan finds nothing, but
// it still cost a push, a pop, a pass through the prefetch ring, the
// scan's dispatch on its closure type and, under a compaction, a reach
// record that gave up on its whole block (`Reach::holds_other`, meant for
// objects whose pointers the marking does not see as fields). So a byte
// array is marked and counted, and not pushed; its block's reach is left
// as its pointers (none) make it. lru holds one per cache entry (its
// value, beside a one-pointer entry record). GC instructions (cachegrind,
// `scripts/ab --instructions`): lru 200000 1000000 128 0.915x under
// compacting and 0.928x under mark-sweep, lru 50000 1000000 128 at
// `-M40m` 0.959x under immix; binary-trees 17 (compacting) and fibheaps
// 100000 (mark-sweep), which mark no byte arrays, 1.000x.
// A constructor without pointer fields (a boxed Int) is a leaf too, but
// testing `ptrs == 0` on the inline path of the common object (Note [A
// marking's common object inline]) cost binary-trees 17 1.006x and
// fibheaps 1.005x their GC instructions, for no object of theirs: so only
// byte arrays are leaves. `evacuate_marking` tests for one after an
// object's fixed layout has failed, where a byte array had gone on
// through `evacuate` to `evacuate_uncommon`'s call: GC instructions on
// lru 200000 1000000 128 0.923x under compacting and 0.918x under
// mark-sweep, binary-trees 17 1.000x (it has no object there). A nonmoving
// snapshot's deferred objects are left as they were (the marker scans
// them). On the clock the leaves' absence first cost more than it saved:
// with the values off the scan stack, lru's samples found the next object
// near and turned the prefetch ring off, and its marking under compacting
// (lru 500000 4000000, 9 alternated rounds) took 92.1 ms against 80.9
// with the ring forced on; the samples now look at the first child too
// (See Note [When the marking prefetches] in `prefetch_ring`), 80.7 ms.
// A compaction's fix of the objects it visits (`slide`'s `fix_object`)
// passes over a byte array the same way, without the call that objects
// of no fixed layout take: 0.977x of compacting's GC instructions on lru
// 200000 1000000 128, 1.000x on binary-trees 16; lru 500000 4000000's
// slide 48.4 -> 42.4 ms (summed over its compactions, 11 rounds). The test
// `mark_sweep::a_marking_in_place_scans_no_leaf` counts the scans.

// Note [Old indirections stay]
// ----------------------------------------
// `evacuate` short-cuts an indirection (and a selector thunk whose
// selectee is evaluated): the slot gets the value, and the indirection is
// left to die. That is right for a young one, and for one in a block this
// GC marks in place for the first time. But a minor GC that marks the
// blocks whose holes it offered (sticky-immix, lxr) starts from their
// sticky marks: an indirection marked there is an old object, which the
// GC keeps, and the slot that points at it belongs to an old object that
// the GC scans only because it is on a mutable list. Short-cutting it
// would rewrite an old object's field behind the mutator's back: harmless
// for sticky-immix, but lxr counts an old field only through its log, so
// the new target (a young object of a hole, promoted in place by the same
// GC) got a reference its count never saw, and the old indirection kept a
// count for one it had lost. The sanity checker found it, as "a count of 1
// but 2 references" in lcss under lxr with holes offered. So an object
// already marked in a block kept in place is left as it is, whatever its
// kind; the old indirection goes when the next major GC finds it.

// Note [An increment's objects move as they are]
// ----------------------------------------
// A minor GC may take blocks of an older generation as an increment (See
// Note [Increments] in `from_space`). Their objects are copied, but not
// short-cut: an indirection there is copied as an indirection, a selector
// thunk as a thunk, a small box as a box, so that no slot that points
// into the increment changes what it refers to, only where. For a
// tracing collector the short-cut would be merely a saving missed; for
// `lxr`, whose counts follow old fields only through their logs, a slot
// that the GC pointed past an old indirection gave the indirectee a
// reference its count never saw. The sanity checker found it (power
// under `lxr:defrag=always`, "a count of 2 but 3 references"), as it had
// for the old indirections of Note [Old indirections stay]. The next GC
// that collects the generation whole short-cuts them.

// Note [Small boxes are shared]
// ----------------------------------------
// A program of boxed values holds many boxes of the same small value: the
// characters of strings, counters, flags, small keys. GHC's RTS keeps one
// static closure for each `Char` from 0 to 255 and each `Int` from -16 to
// 255 (`stg_CHARLIKE_closure`, `stg_INTLIKE_closure`), and its
// `evacuate` points a slot holding a heap box of such a value at the
// static closure instead of copying the box (`CONSTR_0_1` with the info
// table of `C#` or `I#`, in `Evac.c`). The box then dies, so a string
// kept across GCs holds its list cells only, as under GHC.
//
// Here the box's info table says it may be shared: its closure type is
// `BoxedWord`, and it names a `SharedBoxes` range of static copies, each
// a static constructor whose table the mutator reads the value from. The
// mutator sees the same value through either (gclab-lang's reads of
// numbers accept both). `BoxedWord` is kept off `evacuate`'s common path
// (`is_copied_as_is`), so no other object pays a test for it; a box in a
// block kept in place is marked there as a constructor is (GHC's
// non-moving and compacting collectors leave theirs too), and a box of a
// value outside the range is copied. Only the stop-the-world tracing of
// the shared `evacuate` shares boxes: every collector's young generations
// and copying major GCs. The test
// `programs::boxes_of_small_values_are_shared_by_the_gc` keeps a string
// alive across GCs and counts its `C#` boxes in a census.

/// Is a copy of the object with header `header`, in block `bd`, claimed
/// by compare-and-swap when GC threads share from-space? Not an immutable
/// one, unless a weak pointer's key may be in its block (See Note [Copying
/// an immutable object twice]). `copy` asks only once it knows that its
/// thread shares from-space, and asks from what it holds anyway (the
/// header, the block), so that a thread alone pays one test per copy as
/// before: asked by the caller, from its info table and flags, binary-trees
/// 14's sequential GCs executed 4.3% more instructions (cachegrind).
#[inline(always)]
// SAFETY: `bd` is a live block descriptor; `header` is an info pointer.
unsafe fn claimed_when_shared(header: Word, bd: *const BlockDesc) -> bool {
    !info_of_header(header).is_immutable() || BlockDesc::load_flags(bd) & BF_CLAIM != 0
}

/// Copy the object at `p` (See `copy`); if another GC thread claimed it
/// first, its header is now that thread's forwarding pointer: follow it.
#[inline(always)]
// SAFETY: as for `copy`.
unsafe fn copy_or_follow(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word, header: Word, bd: *mut BlockDesc, size: usize) {
    if !copy(gct, slot, p, header, bd, size) {
        lost_claim(gct, slot, p);
    }
}

/// Another GC thread claimed the object at `p` first (rare).
#[cold]
#[inline(never)]
// SAFETY: `p`'s header is another thread's forwarding pointer.
unsafe fn lost_claim(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word) {
    follow_forwarding(gct, slot, load_header(p));
}

/// The object `slot` points to was copied already (its header is the
/// forwarding pointer `header`): point the slot at the copy.
#[inline(always)]
// SAFETY: `header` is a forwarding pointer to a copy in to-space.
unsafe fn follow_forwarding(gct: &mut GcThread<'_>, slot: *mut Word, header: Word) {
    let to = forward_target(header);
    store_field(slot, to as Word);
    note_generation(gct, (*BlockDesc::of(to)).gen_no as usize);
}

/// The object at `p` stays where it is, in a block of generation `gen`
/// (to-space, or a generation not being collected).
#[inline(always)]
fn stays(gct: &mut GcThread<'_>, p: *mut Word, gen: usize) {
    note_generation(gct, gen);
    if let Some(reached) = gct.old_reached.as_mut() {
        // See Note [Listing the old objects a GC reaches].
        if gen > gct.collect_gen {
            reached.push(p);
        }
    }
}

/// An object stays in a block of generation `gen`: if that is younger
/// than `evac_gen`, the object being scanned will point younger (See Note
/// [Eager promotion] in `gc_thread`).
#[inline(always)]
fn note_generation(gct: &mut GcThread<'_>, gen: usize) {
    if gen < gct.evac_gen {
        gct.failed_to_evac = true;
    }
}

/// Copy the object at `p` (`size` words, header `header`, in block `bd`)
/// to its destination's to-space, leave a forwarding pointer (claiming the
/// object with it if this thread shares from-space and the object is
/// `claimed_when_shared`) and point `slot` at the copy. False when the
/// claim failed, another GC thread having claimed the object first: the
/// caller then follows that thread's forwarding pointer (See Note
/// [Claiming an object]).
#[inline(always)]
// SAFETY: `p` is an unclaimed object of `size` words in from-space block `bd`, whose header read `header`.
unsafe fn copy(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word, header: Word, bd: *mut BlockDesc, size: usize) -> bool {
    let dest = gct.destination((*bd).dest_no as usize);
    let to = gct.alloc_to(dest, size);
    *to = header;
    copy_words(p.add(1), to.add(1), size - 1);
    if !gct.parallel || !claimed_when_shared(header, bd) {
        store_header(p, forwarding_header(to));
    } else if claim_header(p, header, forwarding_header(to)).is_err() {
        if !gct.unalloc_to(dest, to, size) {
            gct.work.copied_words += size;
            gct.lost_copy(dest, to);
        }
        return false;
    }
    gct.work.copied_words += size;
    let from_gen = (*bd).gen_no as usize;
    if from_gen == 0 {
        if dest > 0 {
            gct.work.promoted_words += size;
        } else if gct.oldest == 0 && (*bd).flags & BF_NURSERY == 0 {
            // One generation: out of its own blocks, not the allocation
            // area (See Note [Counting what defragmentation copies] in `immix`).
            gct.work.oldest_copied_words += size;
        }
    } else if from_gen == gct.oldest {
        gct.work.oldest_copied_words += size;
    }
    store_field(slot, to as Word);
    if gct.depth_first {
        // See Note [Copying depth first] in `copy_order`.
        gct.scan_stack.push(to);
    }
    true
}

/// Copy an object's words after its header. Most objects are a handful of
/// words, for which a call to `memcpy` costs more than the copy: those are
/// copied inline. From 4 to 8 words, as two blocks of four, the first at
/// the start and the second ending at the end (they overlap when n < 8,
/// and copy the overlap twice): gcbench's nodes (four words after the
/// header) and small arrays went to `memcpy` before.
#[inline(always)]
// SAFETY: `from` and `to` each span `n` words (an object's payload and its fresh to-space copy) and do not overlap.
unsafe fn copy_words(from: *const Word, to: *mut Word, n: usize) {
    type Four = [Word; 4];
    match n {
        1 => *to = *from,
        2 => {
            *to = *from;
            *to.add(1) = *from.add(1);
        }
        3 => {
            *to = *from;
            *to.add(1) = *from.add(1);
            *to.add(2) = *from.add(2);
        }
        4..=8 => {
            let (head, tail) = ((from as *const Four).read_unaligned(), (from.add(n - 4) as *const Four).read_unaligned());
            (to as *mut Four).write_unaligned(head);
            (to.add(n - 4) as *mut Four).write_unaligned(tail);
        }
        _ => std::ptr::copy_nonoverlapping(from, to, n),
    }
}

/// A large object is live: relink its block group into its destination
/// generation instead of copying it, and queue it for scavenging. Its
/// descriptor is claimed under the block allocator's lock, which every GC
/// thread already shares; a thread that finds it claimed meanwhile treats
/// it as already evacuated.
///
/// # Safety
/// `bd` must head a large object's group in a generation being collected.
// SAFETY: `bd` heads a live large object's group in a collected generation; its descriptor is written under the lock only.
unsafe fn evacuate_large(gct: &mut GcThread<'_>, bd: *mut BlockDesc) {
    let _claim = gct.blocks().lock();
    let flags = BlockDesc::load_flags(bd);
    if flags & BF_EVACUATED != 0 {
        if ((*bd).gen_no as usize) < gct.evac_gen {
            gct.failed_to_evac = true;
        }
        return;
    }
    let dest = gct.destination((*bd).dest_no as usize);
    if dest > 0 && (*bd).gen_no == 0 {
        gct.work.promoted_words += (*bd).used_words();
    }
    (*bd).set_gen_no(dest as u16);
    (*bd).dest_no = (dest + 1).min(gct.oldest) as u16;
    BlockDesc::store_flags(bd, flags | BF_EVACUATED);
    let group = gclab_core::bdescr::BlockPtr(bd);
    gct.to[dest].large.push(group);
    gct.large_todo.push(group);
}

/// Has the object at `p` survived the GC so far (been evacuated or marked,
/// or does it live where the GC does not move things)? Used to judge weak
/// keys.
///
/// # Safety
/// `p` must be a valid object address.
// SAFETY: `p` is a valid object, so its header and (for heap objects) its descriptor may be read.
pub unsafe fn is_alive(gct: &mut GcThread<'_>, p: *const Word) -> bool {
    let header = load_header(p);
    if is_forwarded(header) || info_of_header(header).is_static() {
        return true;
    }
    let flags = BlockDesc::load_flags(BlockDesc::of(p));
    if flags & BF_EVACUATED != 0 {
        return true;
    }
    if flags & BF_MARK_IN_PLACE != 0 {
        // Under a snapshot, the concurrent marker judges old objects
        // later: this GC must take them as alive.
        return gct.deferred.is_some() || gct.marks.is_some_and(|m| m.is_marked(p));
    }
    false
}

/// The current address of a live object (following its forwarding pointer).
///
/// # Safety
/// `p` must be a valid object address.
// SAFETY: `p` is a valid object, so its header may be read.
pub unsafe fn current_address(p: *mut Word) -> *mut Word {
    let header = load_header(p);
    if is_forwarded(header) {
        forward_target(header)
    } else {
        p
    }
}

