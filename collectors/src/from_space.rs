//! From-space: turning the collected generations' blocks into from-space at
//! the start of a copying GC, and freeing it at the end.
//!
//! `prepare` takes each collected generation's blocks, large objects and
//! weak pointers aside and clears `BF_EVACUATED` on them, so `evacuate`
//! copies (or relinks) what it finds there. Nursery blocks never carry the
//! flag. It also flags the from-space blocks that hold weak pointers' keys
//! `BF_CLAIM` (See Note [Copying an immutable object twice] in
//! `evacuate`), which `install` clears. A collector that keeps a
//! generation in place takes that generation's blocks out before
//! `prepare` (they are then not from-space) and puts them back itself.
//! `install` frees what was not evacuated and gives every generation its
//! to-space blocks, what the GC threads' spaces allocated, surviving large
//! objects, kept weak pointers and new mutable-list entries, with exact
//! word and block counts.
//!
//! A partial collection (`prepare_partial`) also makes an *increment* of
//! one older generation from-space: the blocks of it that the collector
//! picks. See Note [Increments].
//!
//! Note [Increments]
//! ----------------------------------------
//! Collectors of the Beltway family (older-first, Beltway's belts and
//! increments, Garbage-First's regions) collect part of a generation at a
//! time. Here an increment is a set of small-object blocks of one
//! generation g above the collected ones, made from-space with them: its
//! blocks lose `BF_EVACUATED`, so `evacuate` copies what it finds there
//! (into g's to-space, where the blocks' `dest_no` sends it), and are
//! freed by `install`. What else must hold:
//!
//! - Pointers into the increment from outside it (the rest of g, older
//!   generations, their large objects) are not on any list the runtime
//!   keeps: the write barrier records old-to-young stores only. The
//!   collector gives them to the trace as remembered slots (See
//!   `roots::RememberedSlot`), kept however it likes (a walk, the
//!   field-logging barrier).
//! - Mutable-list entries of g whose object is in the increment are
//!   dropped: the object, if live, is scanned where it is copied to and
//!   listed again if it still points younger. Scanned where it lay, it
//!   could already be a forwarding pointer.
//! - Weak pointers of g whose WEAK lies in the increment are judged by
//!   their keys, as a collected generation's are (`old_weak_ptrs`); those
//!   outside it trace their fields strongly, as every uncollected
//!   generation's do, so a key in the increment survives until a
//!   collection that takes the weak pointer too.
//! - Large objects are never in an increment: they do not move, and are
//!   reclaimed by a collection of their whole generation.
//!
//! The cost is the collector's: its remembered set. The alternative, a
//! from-space of whole generations only, forced an older-first collector
//! to fake mutable-list entries (with every card of an array marked) and
//! to move the increment's weak pointers by hand.

use crate::gc_thread::GcThread;
use crate::weak_ptrs;
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_CLAIM, BF_EVACUATED, BF_LARGE};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::lock::Lock;
use gclab_core::object::Layout;

/// What `prepare` hands `install` besides the generations' own from-space
/// lists: the blocks it flagged `BF_CLAIM`.
#[must_use = "install clears the flags prepare set"]
pub struct FromSpace {
    key_blocks: Vec<BlockPtr>,
    /// The generation an increment was taken from, if any.
    increment_gen: Option<usize>,
}

/// The blocks of an older generation that a partial collection makes
/// from-space with the young ones (See Note [Increments]).
pub struct Increment<'a> {
    /// The generation, above the collected ones.
    pub gen: usize,
    /// Does the increment take this (small-object) block of it?
    pub takes: &'a dyn Fn(BlockPtr) -> bool,
}

/// Make generations `0..=collect_gen` from-space.
///
/// # Safety
/// The GC holds the heap: the generations' blocks are its to change.
// SAFETY: the caller's contract.
pub unsafe fn prepare(gens: &mut [Generation], collect_gen: usize, layout: Layout) -> FromSpace {
    // SAFETY: the caller's contract.
    unsafe { prepare_partial(gens, &mut [], collect_gen, layout, None) }
}

/// Make generations `0..=collect_gen` from-space, and the `increment`
/// of an older one (See Note [Increments]); `caps`' mutable lists lose
/// the increment's entries.
///
/// # Safety
/// The GC holds the heap: the generations' blocks are its to change.
// SAFETY: writes the descriptors of the collected generations' blocks, which the GC holds.
pub unsafe fn prepare_partial(gens: &mut [Generation], caps: &mut [Capability], collect_gen: usize, layout: Layout, increment: Option<Increment<'_>>) -> FromSpace {
    let increment_gen = increment.as_ref().map(|i| i.gen);
    if let Some(inc) = increment {
        assert!(inc.gen > collect_gen && inc.gen < gens.len(), "an increment is of a generation above the collected ones");
        // SAFETY: the caller's contract.
        unsafe { take_increment(&mut gens[inc.gen], caps, inc.gen, inc.takes) };
    }
    for gen in gens.iter_mut().take(collect_gen + 1) {
        gen.old_blocks = std::mem::take(&mut gen.blocks);
        gen.old_large_objects = std::mem::take(&mut gen.large_objects);
        gen.old_weak_ptrs = std::mem::take(&mut gen.weak_ptrs);
        for bd in gen.old_blocks.iter().chain(gen.old_large_objects.iter()) {
            // SAFETY: the caller's contract.
            unsafe { bd.get() }.remove_flags(BF_EVACUATED);
        }
        gen.n_blocks = 0;
        gen.n_words = 0;
        gen.n_free_words = 0;
        gen.n_large_blocks = 0;
        gen.n_large_words = 0;
    }
    // SAFETY: the caller's contract; the weak lists hold live WEAKs.
    FromSpace { key_blocks: unsafe { weak_ptrs::flag_key_blocks(gens, collect_gen, increment_gen, layout) }, increment_gen }
}

/// Take the blocks `takes` picks out of `gen` (number `g`) as from-space
/// (its `old_blocks`), with their counts, the weak pointers that lie in
/// them and the mutable-list entries (See Note [Increments]).
// SAFETY: the GC holds the heap; `gen`'s blocks, weak list and the mutable lists hold live objects.
unsafe fn take_increment(gen: &mut Generation, caps: &mut [Capability], g: usize, takes: &dyn Fn(BlockPtr) -> bool) {
    let (taken, kept): (Vec<BlockPtr>, Vec<BlockPtr>) = std::mem::take(&mut gen.blocks).into_iter().partition(|&bd| {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.read() };
        d.flags & BF_LARGE == 0 && takes(bd)
    });
    gen.blocks = kept;
    for &bd in &taken {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        d.remove_flags(BF_EVACUATED);
        gen.n_blocks -= d.blocks as usize;
        gen.n_words -= d.used_words();
    }
    let in_increment = |p: *mut Word| {
        let bd = BlockDesc::of(p);
        // SAFETY: `p` is a live heap object, so `bd` is its block's
        // descriptor, which the GC holds.
        unsafe { (*bd).gen_no as usize == g && BlockDesc::load_flags(bd) & BF_EVACUATED == 0 && (*bd).flags & BF_LARGE == 0 }
    };
    let (weaks_in, weaks_out): (Vec<ObjPtr>, Vec<ObjPtr>) = std::mem::take(&mut gen.weak_ptrs).into_iter().partition(|w| in_increment(w.0));
    gen.weak_ptrs = weaks_out;
    gen.old_weak_ptrs = weaks_in;
    for cap in caps.iter_mut() {
        cap.mut_lists[g].retain(|o| !in_increment(o.0));
    }
    gen.old_blocks = taken;
}

/// Free from-space and install each thread's to-space into the generations.
///
/// # Safety
/// The GC holds the heap and tracing is over: nothing live is left in
/// from-space, and every space allocator still in a thread has had all it
/// placed scanned.
// SAFETY: frees from-space and installs to-space, both the GC's, after tracing.
pub unsafe fn install(from: FromSpace, gens: &mut [Generation], caps: &mut [Capability], blocks: &Lock<BlockAllocator>, threads: &mut [GcThread<'_>], collect_gen: usize) {
    for bd in from.key_blocks {
        // SAFETY: flagged by `prepare` in this GC, still the GC's.
        unsafe { bd.get() }.remove_flags(BF_CLAIM);
    }
    let mut ba = blocks.lock();
    if let Some(g) = from.increment_gen {
        for bd in gens[g].old_blocks.drain(..) {
            ba.free_group(bd);
        }
    }
    for gen in gens.iter_mut().take(collect_gen + 1) {
        for bd in gen.old_blocks.drain(..) {
            ba.free_group(bd);
        }
        for bd in gen.old_large_objects.drain(..) {
            // SAFETY: the caller's contract: from-space is the GC's.
            if !unsafe { bd.read() }.has(BF_EVACUATED) {
                ba.free_group(bd);
            }
        }
    }
    drop(ba);
    for gct in threads.iter_mut() {
        for (g, gen) in gens.iter_mut().enumerate() {
            gct.to[g].give_back_lent();
            for bd in gct.take_blocks(g) {
                // SAFETY: to-space blocks are the GC's, now installed.
                unsafe { gen.add_block(bd) };
            }
            let ts = &mut gct.to[g];
            if let Some(mut space) = ts.space.take() {
                // SAFETY: the caller's contract.
                unsafe { space.finish(gen) };
            }
            for bd in ts.large.drain(..) {
                // SAFETY: large objects the GC kept alive, now installed.
                unsafe { gen.add_large_object(bd) };
            }
            gen.weak_ptrs.append(&mut ts.weak_ptrs);
            caps[0].mut_lists[g].append(&mut ts.mut_list);
        }
    }
}
