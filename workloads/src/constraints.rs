//! `constraints N`: every solution of the N-queens problem by backtracking
//! search, the problem nofib's gc/constraints solves. A partial solution
//! is a list of the columns of the queens placed so far (the latest
//! first); at each row the search builds the list of columns that no
//! placed queen attacks, and tries each in turn.
//!
//! What it stresses: a search tree of short-lived structures. Partial
//! solutions share their tails, candidate lists die as soon as they are
//! tried, and nothing lives long but the search's own path. The checksum
//! folds in a signature of every solution, in the order they are found.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "List", "Constraints");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
/// A list cell: the rest of the list; a column.
static CONS: InfoTable = InfoTable::constr("Cons", "List", "Constraints", 1, 1);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "constraints",
    description: "nofib constraints: N-queens by backtracking search, short-lived partial solutions",
    params: &[Param::new("queens", 13, 1, 20)],
    small: &[9],
    tiny: &[8],
    run,
    footprint: None,
    needs_collection: false,
};

/// What the search has found so far.
struct Found {
    solutions: u64,
    sum: u64,
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0];
    let nil = m.static_obj(&NIL);
    let mut found = Found { solutions: 0, sum: 0 };
    place(m, n, 0, nil, nil, &mut found);
    let _ = writeln!(out, "constraints: {n} queens: {} solutions", found.solutions);
    mix(found.sum, found.solutions)
}

/// Place queens on rows `row..n` below the partial solution `placed`.
fn place(m: &mut Mutator<'_>, n: usize, row: usize, placed: Handle, nil: Handle, found: &mut Found) {
    if row == n {
        found.solutions += 1;
        found.sum = mix(found.sum, signature(m, placed));
        return;
    }
    let base = m.depth();
    let candidates = m.dup(nil);
    for column in (1..=n).rev() {
        if safe(m, placed, column) {
            m.alloc_into(candidates, &CONS, &[candidates], &[column]);
        }
    }
    while !m.is_static(candidates) {
        let frame = m.depth();
        let extended = m.alloc(&CONS, &[placed], &[m.word(candidates, 0)]);
        place(m, n, row + 1, extended, nil, found);
        m.follow(candidates, 0);
        m.truncate(frame);
    }
    m.truncate(base);
}

/// Whether a queen in `column` on the next row is attacked by none of
/// `placed` (the queen `d` rows up is `placed`'s d-th element).
fn safe(m: &Mutator<'_>, placed: Handle, column: usize) -> bool {
    let mut cell = m.view().get(placed);
    let mut d = 1;
    while !cell.is_static() {
        let q = cell.word(0);
        if q == column || q + d == column || column + d == q {
            return false;
        }
        cell = cell.field(0);
        d += 1;
    }
    true
}

/// A solution's signature: the sum of each column times its position in
/// the list, counted from 1.
fn signature(m: &Mutator<'_>, placed: Handle) -> u64 {
    let mut cell = m.view().get(placed);
    let (mut sum, mut i) = (0u64, 1u64);
    while !cell.is_static() {
        sum += cell.word(0) as u64 * i;
        cell = cell.field(0);
        i += 1;
    }
    sum
}
