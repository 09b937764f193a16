//! `fibheaps N`: heap sort through a Fibonacci-style heap, the algorithm of
//! nofib's gc/fibheaps. N pseudo-random keys are inserted into a heap that
//! is a list of heap-ordered trees (an insert conses a one-node tree onto
//! the list), then the minimum is deleted N times. A deletion finds the
//! least root, and consolidates the other roots and the least root's
//! children: trees of equal rank are linked (the larger key becomes a
//! child of the smaller) through a mutable array indexed by rank, until
//! every rank holds at most one tree; the new root list is read off the
//! array.
//!
//! What it stresses: many small nodes that live long (the heap's trees,
//! promoted and then slowly taken apart), a short-lived root list rebuilt
//! on every deletion, and old-to-young stores into the rank array. The
//! checksum folds in the keys in the order they come out, and the run
//! checks that they come out sorted.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "Trees", "FibHeaps");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static CONS: InfoTable = InfoTable::constr("Cons", "Trees", "FibHeaps", 2, 0);
/// A heap-ordered tree: its children; its key and rank.
static TREE: InfoTable = InfoTable::constr("Tree", "Tree", "FibHeaps", 1, 2);

/// Slots of the rank array: ranks stay below log2 of the heap's size.
const RANKS: usize = 64;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "fibheaps",
    description: "nofib fibheaps: heap sort through a Fibonacci heap, many small long-lived nodes",
    params: &[Param::new("keys", 400_000, 0, 1_000_000_000)],
    small: &[3_000],
    tiny: &[300],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// Live data: a tree node of 4 words and a list cell of 3 per key.
fn footprint(args: &[usize]) -> u128 {
    args[0] as u128 * 56
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0];
    let mut rng = Rng::new(7);
    let nil = m.static_obj(&NIL);
    let roots = m.dup(nil);
    m.set_heap_roots(&[("heap", roots)]); // for +RTS -ho
    for _ in 0..n {
        let base = m.depth();
        let tree = m.alloc(&TREE, &[nil], &[rng.below(1 << 30), 0]);
        m.alloc_into(roots, &CONS, &[tree, roots], &[]);
        m.truncate(base);
    }
    let ranks = m.new_array(RANKS, nil);
    let (mut sum, mut previous, mut first) = (0, 0, 0);
    for i in 0..n {
        let key = delete_min(m, roots, ranks, nil);
        assert!(key >= previous, "fibheaps: key {key} came out after {previous}");
        if i == 0 {
            first = key;
        }
        sum = mix(sum, key as u64);
        previous = key;
    }
    let _ = writeln!(out, "fibheaps: {n} keys sorted, smallest {first}, largest {previous}");
    sum
}

/// Remove the least key from the heap `roots`, and return it.
fn delete_min(m: &mut Mutator<'_>, roots: Handle, ranks: Handle, nil: Handle) -> usize {
    let (least, key) = least_root(m, roots);
    let base = m.depth();
    let list = m.dup(roots);
    let children = m.dup(nil);
    let mut position = 0;
    while !m.is_static(list) {
        let frame = m.depth();
        let tree = m.field(list, 0);
        if position == least {
            let kids = m.field(tree, 0);
            m.set(children, kids);
        } else {
            insert_by_rank(m, ranks, tree, nil);
        }
        m.follow(list, 1);
        m.truncate(frame);
        position += 1;
    }
    while !m.is_static(children) {
        let frame = m.depth();
        let tree = m.field(children, 0);
        insert_by_rank(m, ranks, tree, nil);
        m.follow(children, 1);
        m.truncate(frame);
    }
    m.set(roots, nil);
    for rank in (0..RANKS).rev() {
        let frame = m.depth();
        let tree = m.array_get(ranks, rank);
        if !m.same(tree, nil) {
            m.array_set(ranks, rank, nil);
            m.alloc_into(roots, &CONS, &[tree, roots], &[]);
        }
        m.truncate(frame);
    }
    m.truncate(base);
    key
}

/// The position in the root list of the tree with the least key (the
/// first of equals), and that key.
fn least_root(m: &Mutator<'_>, roots: Handle) -> (usize, usize) {
    let mut list = m.view().get(roots);
    let (mut best, mut key, mut position) = (0, usize::MAX, 0);
    while !list.is_static() {
        let k = list.field(0).word(0);
        if k < key {
            (best, key) = (position, k);
        }
        list = list.field(1);
        position += 1;
    }
    (best, key)
}

/// Put `tree` into the rank array, linking it with the tree already of its
/// rank (and the result with the next rank's, and so on).
fn insert_by_rank(m: &mut Mutator<'_>, ranks: Handle, tree: Handle, nil: Handle) {
    let base = m.depth();
    let tree = m.dup(tree);
    loop {
        let rank = m.word(tree, 1);
        let other = m.array_get(ranks, rank);
        if m.same(other, nil) {
            m.array_set(ranks, rank, tree);
            break;
        }
        m.array_set(ranks, rank, nil);
        let linked = link(m, tree, other);
        m.set(tree, linked);
    }
    m.truncate(base);
}

/// Two trees of one rank made one of the next: the one with the larger key
/// (`b` on a tie) becomes the first child of the other.
fn link(m: &mut Mutator<'_>, a: Handle, b: Handle) -> Handle {
    let (winner, loser) = if m.word(a, 0) <= m.word(b, 0) { (a, b) } else { (b, a) };
    let base = m.depth();
    let kids = m.field(winner, 0);
    let kids = m.alloc(&CONS, &[loser, kids], &[]);
    let (key, rank) = (m.word(winner, 0), m.word(winner, 1));
    m.alloc_ret(base, &TREE, &[kids], &[key, rank + 1])
}
