//! From-space: turning the collected generations' blocks into from-space at
//! the start of a copying GC, and freeing it at the end.
//!
//! `prepare` takes each collected generation's blocks, large objects and
//! weak pointers aside and clears `BF_EVACUATED` on them, so `evacuate`
//! copies (or relinks) what it finds there. Nursery blocks never carry the
//! flag. `install` frees what was not evacuated and gives every generation
//! its to-space blocks, surviving large objects, kept weak pointers and
//! new mutable-list entries, with exact word and block counts.

use crate::gc_thread::GcThread;
use gclab_core::bdescr::BF_EVACUATED;
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::capability::Capability;
use gclab_core::generation::Generation;
use std::sync::Mutex;

/// Make generations `0..=collect_gen` from-space.
pub fn prepare(gens: &mut [Generation], collect_gen: usize) {
    for gen in gens.iter_mut().take(collect_gen + 1) {
        gen.old_blocks = std::mem::take(&mut gen.blocks);
        gen.old_large_objects = std::mem::take(&mut gen.large_objects);
        gen.old_weak_ptrs = std::mem::take(&mut gen.weak_ptrs);
        for bd in gen.old_blocks.iter().chain(gen.old_large_objects.iter()) {
            bd.get().flags &= !BF_EVACUATED;
        }
        gen.n_blocks = 0;
        gen.n_words = 0;
        gen.n_large_blocks = 0;
        gen.n_large_words = 0;
    }
}

/// Free from-space and install each thread's to-space into the generations.
pub fn install(gens: &mut [Generation], caps: &mut [Capability], blocks: &Mutex<BlockAllocator>, threads: &mut [GcThread<'_>], collect_gen: usize) {
    let mut blocks = blocks.lock().unwrap_or_else(|e| e.into_inner());
    for gen in gens.iter_mut().take(collect_gen + 1) {
        for bd in gen.old_blocks.drain(..) {
            blocks.free_group(bd);
        }
        for bd in gen.old_large_objects.drain(..) {
            if !bd.get().has(BF_EVACUATED) {
                blocks.free_group(bd);
            }
        }
    }
    for gct in threads.iter_mut() {
        for (g, gen) in gens.iter_mut().enumerate() {
            for bd in gct.take_blocks(g) {
                gen.add_block(bd);
            }
            let ts = &mut gct.to[g];
            for bd in ts.large.drain(..) {
                gen.add_large_object(bd);
            }
            gen.weak_ptrs.append(&mut ts.weak_ptrs);
            caps[0].mut_lists[g].append(&mut ts.mut_list);
        }
    }
}
