//! Walking every object in the heap, in block order.
//!
//! Objects tile each block from its start to its fill level (zero words
//! are slop: See Note [Slop is zeroed] in `object`), so a walk needs no
//! side table: it reads each header for the object's size. This is what
//! `Gc.stat` counts with, and what heap censuses build on. The sanity
//! checker walks the same way but checks as it goes.

use crate::bdescr::BlockPtr;
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
pub unsafe fn for_each_object(heap: &Heap, caps: &[Capability], mut f: impl FnMut(*mut Word, &'static InfoTable, usize, usize)) {
    let layout = heap.layout;
    let walk = |bd: BlockPtr, gen: usize, f: &mut dyn FnMut(*mut Word, &'static InfoTable, usize, usize)| {
        // SAFETY: heap walks run with the world stopped (See the module
        // doc), so nobody writes the heap's descriptors meanwhile.
        let d = unsafe { bd.read() };
        let end = caps.iter().find(|c| c.is_current(bd.0)).map(|c| c.hp).unwrap_or(d.free);
        let mut p = d.start;
        while p < end {
            // SAFETY: `p` lies in the used part of a live block, at an
            // object start or a zero slop word.
            let header = unsafe { *p };
            if header == 0 {
                p = p.wrapping_add(1);
                continue;
            }
            let info = info_of_header(header);
            // SAFETY: `p` is an object whose header is `info`.
            let size = unsafe { layout.size_of(p, info) };
            f(p, info, size, gen);
            p = p.wrapping_add(size);
        }
    };
    for (g, gen) in heap.gens.iter().enumerate() {
        for &bd in gen.blocks.iter().chain(gen.large_objects.iter()) {
            walk(bd, g, &mut f);
        }
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
