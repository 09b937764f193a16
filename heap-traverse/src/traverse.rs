//! A generic heap traversal with per-object data (GHC's `TraverseHeap.c`).
//!
//! Objects are visited from a set of roots, depth first, with an explicit
//! stack (never recursion: a list of a million cells is a million stack
//! entries in a `Vec`, not a million Rust frames). Each object's data lives
//! in the 63 low bits of its traversal word, the third header word that
//! profiling runs give every object; the top bit says whether the object
//! has been visited in the current traversal (See Note [Traversal flip
//! bit]). A visitor decides what a first visit records and whether a
//! revisit changes the data and walks the children again; a context
//! (GHC's "stack data") can be passed down each edge. Objects are reached
//! through core's census accessors (`ProfileContext`), so nothing here is
//! `unsafe`.
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
use gclab_core::info::InfoTable;
use gclab_core::profiling::{Obj, ProfileContext};


const VISITED: Word = 1 << 63;
const DATA: Word = !VISITED;

/// What a traversal that carries context down its edges does at each
/// object (GHC's "stack data"): `ctx` is what the parent passed on.
pub trait ContextVisitor {
    /// The first time `obj` is reached, from context `ctx`: its data, and
    /// the context to walk its children with (None: do not walk them).
    fn first_visit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, ctx: u64) -> (u64, Option<u64>);
    /// `obj` is reached again from `ctx`, holding `data`: new data and the
    /// context to walk its children again with, or None to leave it.
    fn revisit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, data: u64, ctx: u64) -> Option<(u64, Option<u64>)>;
}

/// What a traversal does at each object.
pub trait Visitor {
    /// The first time `obj` is reached: its data, and whether to walk its
    /// children. `size` is in words without the profiling header.
    fn first_visit(&mut self, obj: Obj, info: &'static InfoTable, size: usize) -> (u64, bool);
    /// `obj` is reached again, holding `data`: new data and whether to walk
    /// its children again, or None to leave it.
    fn revisit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, data: u64) -> Option<u64>;
}

/// Flip the heap's traversal bit: every object becomes unvisited. Returns
/// the bit that marks "visited" in the traversal about to start.
pub fn begin(ctx: &ProfileContext<'_>) -> bool {
    ctx.flip_traversal_bit()
}

/// A `Visitor` seen as a `ContextVisitor` that ignores context.
struct NoContext<'v, V>(&'v mut V);

impl<V: Visitor> ContextVisitor for NoContext<'_, V> {
    fn first_visit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, _: u64) -> (u64, Option<u64>) {
        let (data, descend) = self.0.first_visit(obj, info, size);
        (data, descend.then_some(0))
    }

    fn revisit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, data: u64, _: u64) -> Option<(u64, Option<u64>)> {
        self.0.revisit(obj, info, size, data).map(|d| (d, Some(0)))
    }
}

/// Traverse from `root`. `flip` is what `begin` returned.
pub fn traverse(ctx: &ProfileContext<'_>, flip: bool, root: Obj, visitor: &mut impl Visitor) {
    traverse_with_context(ctx, flip, &[(root, 0)], &mut NoContext(visitor));
}

/// Traverse from `roots`, each with the context its children start from.
pub fn traverse_with_context(ctx: &ProfileContext<'_>, flip: bool, roots: &[(Obj, u64)], visitor: &mut impl ContextVisitor) {
    assert!(ctx.layout().profiling(), "heap traversal needs the profiling header (-hc, -hr or -ho)");
    let mut stack: Vec<(Obj, u64)> = roots.iter().rev().copied().collect();
    while let Some((obj, c)) = stack.pop() {
        let info = ctx.info(obj);
        if info.is_static() {
            continue;
        }
        if let Some(target) = ctx.indirectee(obj) {
            stack.push((target, c));
            continue;
        }
        let (size, word) = (ctx.size(obj), ctx.traversal_word(obj));
        let visited = ((word & VISITED) != 0) == flip;
        let (data, child_ctx) = if !visited {
            visitor.first_visit(obj, info, size, c)
        } else {
            match visitor.revisit(obj, info, size, (word & DATA) as u64, c) {
                Some(r) => r,
                None => continue,
            }
        };
        ctx.set_traversal_word(obj, (if flip { VISITED } else { 0 }) | (data as Word & DATA));
        if let Some(cc) = child_ctx {
            let mark = stack.len();
            ctx.for_each_child(obj, |child| stack.push((child, cc)));
            stack[mark..].reverse(); // visit fields in order
        }
    }
}
