//! A generic heap traversal with per-object data (GHC's `TraverseHeap.c`).
//!
//! Objects are visited from a set of roots, depth first, with an explicit
//! stack (never recursion: a list of a million cells is a million stack
//! entries in a `Vec`, not a million Rust frames). Each object's data lives
//! in the 63 low bits of its traversal word, the third header word that
//! profiling runs give every object; the top bit says whether the object
//! has been visited in the current traversal (See Note [Traversal flip
//! bit]). A `Visitor` decides what a first visit records and whether a
//! revisit changes the data and walks the children again.
//!
//! Note [Traversal flip bit]
//! ----------------------------------------
//! Clearing every traversal word before each traversal would cost a pass
//! over the heap. Instead an object counts as visited when its top bit
//! equals the heap's current flip bit, and each traversal starts by
//! flipping that bit: every object becomes "unvisited" at once. New objects
//! are allocated with the current flip bit (core's `Mutator`), so they too
//! read as unvisited to the next traversal. Only a traversal that wrote an
//! object can make it look visited, so no stale state survives a flip.

use gclab_core::constants::Word;
use gclab_core::heap::Heap;
use gclab_core::info::{ClosureType, InfoTable};
use gclab_core::object::{info_of_header, Layout};
use std::sync::atomic::Ordering;

const VISITED: Word = 1 << 63;
const DATA: Word = !VISITED;

/// What a traversal does at each object.
pub trait Visitor {
    /// The first time `obj` is reached: its data, and whether to walk its
    /// children. `size` is in words without the profiling header.
    fn first_visit(&mut self, obj: Word, info: &'static InfoTable, size: usize) -> (u64, bool);
    /// `obj` is reached again, holding `data`: new data and whether to walk
    /// its children again, or None to leave it.
    fn revisit(&mut self, obj: Word, info: &'static InfoTable, size: usize, data: u64) -> Option<u64>;
}

/// Flip the heap's traversal bit: every object becomes unvisited. Returns
/// the bit that marks "visited" in the traversal about to start.
pub fn begin(heap: &Heap) -> bool {
    !heap.traversal_flip.fetch_xor(true, Ordering::Relaxed)
}

/// Traverse from `root` (an object address). `flip` is what `begin` returned.
///
/// Safety of the reads below rests on the caller: the world is stopped and
/// the heap was just collected, so every pointer reached is a valid object,
/// and profiling is on, so every heap object has a traversal word.
pub fn traverse(layout: Layout, flip: bool, root: Word, visitor: &mut impl Visitor) {
    assert!(layout.profiling(), "heap traversal needs the profiling header (a -h flag)");
    let mut stack: Vec<Word> = vec![root];
    while let Some(obj) = stack.pop() {
        let p = obj as *mut Word;
        // SAFETY: `obj` is a valid object (module doc).
        let info = info_of_header(unsafe { *p });
        if info.is_static() {
            continue;
        }
        if info.closure_type == ClosureType::Ind {
            // SAFETY: an IND's payload is its indirectee.
            stack.push(unsafe { *layout.payload(p) });
            continue;
        }
        // SAFETY: a heap object with the profiling header.
        let (size, word) = unsafe { (layout.size_of(p, info) - (layout.hdr - 1), *p.add(2)) };
        let visited = ((word & VISITED) != 0) == flip;
        let (data, descend) = if !visited {
            visitor.first_visit(obj, info, size)
        } else {
            match visitor.revisit(obj, info, size, (word & DATA) as u64) {
                Some(d) => (d, true),
                None => continue,
            }
        };
        // SAFETY: as above; the traversal word is ours to write.
        unsafe { *p.add(2) = (if flip { VISITED } else { 0 }) | (data as Word & DATA) };
        if descend {
            // SAFETY: pointer slots of a valid object.
            let (slots, n) = unsafe { layout.pointer_slots(p, info) };
            for i in (0..n).rev() {
                // SAFETY: i < n.
                stack.push(unsafe { *slots.add(i) });
            }
        }
    }
}
