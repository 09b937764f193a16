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

use crate::gc_thread::GcThread;
use crate::weak_ptrs;
use gclab_core::bdescr::{BlockPtr, BF_CLAIM, BF_EVACUATED};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::capability::Capability;
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;
use gclab_core::object::Layout;

/// What `prepare` hands `install` besides the generations' own from-space
/// lists: the blocks it flagged `BF_CLAIM`.
#[must_use = "install clears the flags prepare set"]
pub struct FromSpace {
    key_blocks: Vec<BlockPtr>,
}

/// Make generations `0..=collect_gen` from-space.
///
/// # Safety
/// The GC holds the heap: the generations' blocks are its to change.
// SAFETY: writes the descriptors of the collected generations' blocks, which the GC holds.
pub unsafe fn prepare(gens: &mut [Generation], collect_gen: usize, layout: Layout) -> FromSpace {
    for gen in gens.iter_mut().take(collect_gen + 1) {
        gen.old_blocks = std::mem::take(&mut gen.blocks);
        gen.old_large_objects = std::mem::take(&mut gen.large_objects);
        gen.old_weak_ptrs = std::mem::take(&mut gen.weak_ptrs);
        for bd in gen.old_blocks.iter().chain(gen.old_large_objects.iter()) {
            // SAFETY: the caller's contract.
            unsafe { bd.get() }.flags &= !BF_EVACUATED;
        }
        gen.n_blocks = 0;
        gen.n_words = 0;
        gen.n_free_words = 0;
        gen.n_large_blocks = 0;
        gen.n_large_words = 0;
    }
    // SAFETY: the caller's contract; the weak lists hold live WEAKs.
    FromSpace { key_blocks: unsafe { weak_ptrs::flag_key_blocks(gens, collect_gen, layout) } }
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
        unsafe { bd.get() }.flags &= !BF_CLAIM;
    }
    let mut ba = blocks.lock();
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
