//! `lcss N`: the length of the longest common subsequence of two
//! pseudo-random sequences of length N over a four-letter alphabet, by
//! dynamic programming with lists, as nofib's gc/lcss computes its rows
//! (Hirschberg's algorithm, forward pass). Both sequences are lists; each
//! row of the table is a new list of N + 1 numbers, built from the
//! previous row in reverse and then reversed, so it is garbage two rows
//! later.
//!
//! What it stresses: a steady stream of short-lived cons cells (about
//! 2N^2 of them) beside a small long-lived structure; almost nothing
//! survives a minor collection. The checksum folds in the last number of
//! every row and the sum of the final row.
//!
//! Note [Dropping what was read]
//! ----------------------------------------
//! A handle is a root until its frame is truncated or it is overwritten,
//! whatever the code does next; GHC's stack maps instead know which
//! variables are dead, so while Haskell's `go` walks a list, the part it
//! has walked is garbage. Written naively (the previous row held by the
//! caller's handle while the next is built, the reversed row by its
//! handle while it is reversed), this workload copied twice GHC's bytes
//! for the same allocation (264 against 133 MiB at the default size). So
//! `next_row` and `reverse` walk the lists they are given in place,
//! through the caller's own handles, leaving them at Nil: what was read
//! dies as it would in the Haskell peer. gclab then copies what GHC does.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "List", "Lcss");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
/// A list cell: the rest of the list; the number.
static CONS: InfoTable = InfoTable::constr("Cons", "List", "Lcss", 1, 1);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "lcss",
    description: "nofib lcss: longest common subsequence by dynamic programming over lists, short-lived cells",
    params: &[Param::new("length", 5_000, 0, 1_000_000)],
    small: &[200],
    tiny: &[40],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// Live data: the two lists of `length` cells of 3 words each.
fn footprint(args: &[usize]) -> u128 {
    args[0] as u128 * 48
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0];
    let mut rng = Rng::new(5);
    let nil = m.static_obj(&NIL);
    let xs = random_list(m, &mut rng, n, nil);
    let ys = random_list(m, &mut rng, n, nil);
    let row = m.dup(nil);
    for _ in 0..=n {
        m.alloc_into(row, &CONS, &[row], &[0]);
    }
    m.set_heap_roots(&[("xs", xs), ("ys", ys), ("row", row)]); // for +RTS -ho
    let mut sum = 0;
    let x = m.dup(xs);
    while !m.is_static(x) {
        let frame = m.depth();
        let (next, last) = next_row(m, m.word(x, 0), ys, row, nil);
        m.set(row, next);
        sum = mix(sum, last as u64);
        m.follow(x, 0);
        m.truncate(frame);
    }
    let (mut total, mut length) = (0u64, 0);
    let mut cell = m.view().get(row);
    while !cell.is_static() {
        (total, length) = (total + cell.word(0) as u64, cell.word(0));
        cell = cell.field(0);
    }
    let _ = writeln!(out, "lcss: two sequences of {n}: longest common subsequence {length}");
    mix(mix(sum, total), length as u64)
}

/// A list of `n` letters 0..4 from `rng`, the first drawn first.
fn random_list(m: &mut Mutator<'_>, rng: &mut crate::rng::Rng, n: usize, nil: Handle) -> Handle {
    let letters: Vec<usize> = (0..n).map(|_| rng.below(4)).collect();
    let list = m.dup(nil);
    for &l in letters.iter().rev() {
        m.alloc_into(list, &CONS, &[list], &[l]);
    }
    list
}

/// The row of letter `x` from the row `prev` above it:
/// `row[0] = 0`, `row[j] = prev[j-1] + 1` where `x == ys[j-1]`, else
/// `max(row[j-1], prev[j])`. Built in reverse, then reversed; returned
/// with its last number. `prev` is consumed: see Note [Dropping what was
/// read].
fn next_row(m: &mut Mutator<'_>, x: usize, ys: Handle, prev: Handle, nil: Handle) -> (Handle, usize) {
    let base = m.depth();
    let reversed = m.alloc(&CONS, &[nil], &[0]);
    let (y, up) = (m.dup(ys), m.field(prev, 0));
    let (mut left, mut diagonal) = (0, m.word(prev, 0));
    m.set(prev, nil);
    while !m.is_static(y) {
        let above = m.word(up, 0);
        let v = if m.word(y, 0) == x { diagonal + 1 } else { left.max(above) };
        m.alloc_into(reversed, &CONS, &[reversed], &[v]);
        (left, diagonal) = (v, above);
        m.follow(y, 0);
        m.follow(up, 0);
    }
    let row = reverse(m, reversed, nil);
    (m.ret(base, row), left)
}

/// A new list of `list`'s numbers in reverse order; `list` is consumed
/// (See Note [Dropping what was read]).
fn reverse(m: &mut Mutator<'_>, from: Handle, nil: Handle) -> Handle {
    let base = m.depth();
    let to = m.dup(nil);
    while !m.is_static(from) {
        let v = m.word(from, 0);
        m.alloc_into(to, &CONS, &[to], &[v]);
        m.follow(from, 0);
    }
    m.ret(base, to)
}
