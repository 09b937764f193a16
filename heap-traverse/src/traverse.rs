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

/// What a traversal that carries context down its edges does at each
/// object (GHC's "stack data"): `ctx` is what the parent passed on.
pub trait ContextVisitor {
    /// The first time `obj` is reached, from context `ctx`: its data, and
    /// the context to walk its children with (None: do not walk them).
    fn first_visit(&mut self, obj: Word, info: &'static InfoTable, size: usize, ctx: u64) -> (u64, Option<u64>);
    /// `obj` is reached again from `ctx`, holding `data`: new data and the
    /// context to walk its children again with, or None to leave it.
    fn revisit(&mut self, obj: Word, info: &'static InfoTable, size: usize, data: u64, ctx: u64) -> Option<(u64, Option<u64>)>;
}

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

/// A `Visitor` seen as a `ContextVisitor` that ignores context.
struct NoContext<'v, V>(&'v mut V);

impl<V: Visitor> ContextVisitor for NoContext<'_, V> {
    fn first_visit(&mut self, obj: Word, info: &'static InfoTable, size: usize, _: u64) -> (u64, Option<u64>) {
        let (data, descend) = self.0.first_visit(obj, info, size);
        (data, descend.then_some(0))
    }

    fn revisit(&mut self, obj: Word, info: &'static InfoTable, size: usize, data: u64, _: u64) -> Option<(u64, Option<u64>)> {
        self.0.revisit(obj, info, size, data).map(|d| (d, Some(0)))
    }
}

/// Traverse from `root` (an object address). `flip` is what `begin` returned.
pub fn traverse(layout: Layout, flip: bool, root: Word, visitor: &mut impl Visitor) {
    traverse_with_context(layout, flip, &[(root, 0)], &mut NoContext(visitor));
}

/// Traverse from `roots`, each with the context its children start from.
///
/// Safety of the reads below rests on the caller: the world is stopped and
/// the heap was just collected, so every pointer reached is a valid object,
/// and profiling is on, so every heap object has a traversal word.
pub fn traverse_with_context(layout: Layout, flip: bool, roots: &[(Word, u64)], visitor: &mut impl ContextVisitor) {
    assert!(layout.profiling(), "heap traversal needs the profiling header (a -h flag)");
    let mut stack: Vec<(Word, u64)> = roots.iter().rev().copied().collect();
    while let Some((obj, ctx)) = stack.pop() {
        let p = obj as *mut Word;
        // SAFETY: `obj` is a valid object (module doc).
        let info = info_of_header(unsafe { *p });
        if info.is_static() {
            continue;
        }
        if info.closure_type == ClosureType::Ind {
            // SAFETY: an IND's payload is its indirectee.
            stack.push((unsafe { *layout.payload(p) }, ctx));
            continue;
        }
        // SAFETY: a heap object with the profiling header.
        let (size, word) = unsafe { (layout.size_of(p, info) - (layout.hdr - 1), *p.add(2)) };
        let visited = ((word & VISITED) != 0) == flip;
        let (data, child_ctx) = if !visited {
            visitor.first_visit(obj, info, size, ctx)
        } else {
            match visitor.revisit(obj, info, size, (word & DATA) as u64, ctx) {
                Some(r) => r,
                None => continue,
            }
        };
        // SAFETY: as above; the traversal word is ours to write.
        unsafe { *p.add(2) = (if flip { VISITED } else { 0 }) | (data as Word & DATA) };
        if let Some(c) = child_ctx {
            // SAFETY: pointer slots of a valid object.
            let (slots, n) = unsafe { layout.pointer_slots(p, info) };
            for i in (0..n).rev() {
                // SAFETY: i < n.
                stack.push((unsafe { *slots.add(i) }, c));
            }
        }
    }
}
