//! Walking every object in the heap, in block order: the generations'
//! blocks and large objects, then the nurseries up to each capability's
//! bump pointer, and the large objects not yet handed to a generation.
//! Each block is walked by `block_walk::walk_block` (See Note [Unswept
//! blocks] there); `Gc.stat`, heap censuses and the collectors' own checks
//! walk the heap with these.

use crate::bdescr::BlockPtr;
use crate::block_walk::walk_block;
use crate::capability::Capability;
use crate::constants::Word;
use crate::heap::Heap;
use crate::info::InfoTable;
use crate::object::info_of_header;

/// Call `f(address, info, size_in_words, generation)` for every object:
/// generation blocks, large objects, nurseries (up to each capability's
/// bump pointer) and large objects not yet handed to a generation.
///
/// # Safety
/// The world is stopped (or the run not started): nobody allocates or
/// collects while the walk runs.
pub unsafe fn for_each_object(heap: &Heap, caps: &[Capability], f: impl FnMut(*mut Word, &'static InfoTable, usize, usize)) {
    // SAFETY: the caller's contract.
    unsafe { walk_objects(heap, caps, true, f) }
}

/// `for_each_object` over the generations' blocks and large objects only,
/// leaving out nurseries: what a collector may walk inside a GC, once its
/// tracing is over (the nurseries then hold only the dead and the
/// forwarded, until the runtime resets them).
///
/// # Safety
/// As for `for_each_object`.
pub unsafe fn for_each_generation_object(heap: &Heap, caps: &[Capability], f: impl FnMut(*mut Word, &'static InfoTable, usize, usize)) {
    // SAFETY: the caller's contract.
    unsafe { walk_objects(heap, caps, false, f) }
}

// SAFETY: the callers' contract: the world is stopped.
unsafe fn walk_objects(heap: &Heap, caps: &[Capability], nurseries: bool, mut f: impl FnMut(*mut Word, &'static InfoTable, usize, usize)) {
    let layout = heap.layout;
    let walk = |bd: BlockPtr, gen: usize, f: &mut dyn FnMut(*mut Word, &'static InfoTable, usize, usize)| {
        // SAFETY: heap walks run with the world stopped (See the module
        // doc), so nobody writes the heap's descriptors meanwhile.
        let d = unsafe { bd.read() };
        let end = caps.iter().find(|c| c.is_current(bd.0)).map(|c| c.hp).unwrap_or(d.free);
        // SAFETY: as above; `end` is the block's fill level.
        unsafe {
            walk_block(d, end, |p| {
                if crate::object::is_forwarded(*p) {
                    // Copied out by a concurrent copier (See
                    // `BF_COPYING_OUT`): the walk meets its copy elsewhere.
                    return Some(crate::object::copied_out_size(p, layout));
                }
                let info = info_of_header(*p);
                let size = layout.size_of(p, info);
                f(p, info, size, gen);
                Some(size)
            })
        };
    };
    for (g, gen) in heap.gens.iter().enumerate() {
        for &bd in gen.blocks.iter().chain(gen.large_objects.iter()) {
            walk(bd, g, &mut f);
        }
    }
    if !nurseries {
        return;
    }
    for chunk in &heap.nurseries {
        for &bd in chunk {
            walk(bd, 0, &mut f);
        }
    }
    for cap in caps {
        for &bd in &cap.new_large {
            walk(bd, 0, &mut f);
        }
    }
}
