//! `binary-trees N`: the Benchmarks Game program, as GHC's and OCaml's
//! versions do it. A stretch tree of depth N+1 is built and checked; a
//! long-lived tree of depth N is built and kept; then for d = 4, 6, .. N,
//! 2^(N-d+4) trees of depth d are built and checked; finally the long-lived
//! tree is checked. `check` counts the nodes of a tree.
//!
//! With several capabilities (`-N`), the trees of each depth are shared out
//! among them (`Mutator::par_map`), each capability building and checking
//! its own: the parallel binary-trees of the Benchmarks Game, with the
//! same output and checksum as the serial run.
//!
//! Note [Testing for Nil before the call]
//! ----------------------------------------
//! Half the calls of a naive `make` build a leaf and half the calls of a
//! naive `check` look at a `Nil`. GHC's compiled code pays little for
//! them: it has no callee-saved registers to save, and `check` reads a
//! `Nil` from its pointer's tag. A Rust function saves and restores six
//! registers per call, so `make` and `check` here are inlined wrappers
//! that do the leaf's work in the caller, and only call for a `Node`
//! (`make_node`, `check_node`). The program's work is the same: the same
//! objects allocated in the same order, the same nodes visited. What it
//! saves is the calls: binary-trees 14's mutator instructions fell from
//! 315.1 M to 250.8 M (GHC's: 208.6 M; `scripts/ab --instructions`), and
//! binary-trees 19's MUT to 0.944x with `check` alone (7 alternated
//! rounds, 0.90-0.99), then to 0.80x more with `make` (0.78-0.82).

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, ObjRef, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "Tree", "BinaryTrees");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static NODE: InfoTable = InfoTable::constr("Node", "Tree", "BinaryTrees", 2, 0);

const MIN_DEPTH: usize = 4;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "binary-trees",
    description: "Benchmarks Game binary-trees: many short-lived trees beside a long-lived one",
    params: &[Param::new("depth", 16, 0, 30)],
    small: &[8],
    tiny: &[6],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// A complete tree of depth `d`, built bottom-up. See Note [Testing for
/// Nil before the call].
#[inline(always)]
pub fn make(m: &mut Mutator<'_>, nil: Handle, d: usize) -> Handle {
    if d == 0 {
        m.alloc(&NODE, &[nil, nil], &[])
    } else {
        make_node(m, nil, d)
    }
}

/// A complete tree of depth `d` > 0.
fn make_node(m: &mut Mutator<'_>, nil: Handle, d: usize) -> Handle {
    let base = m.depth();
    let l = make(m, nil, d - 1);
    let r = make(m, nil, d - 1);
    m.alloc_ret(base, &NODE, &[l, r], &[])
}

/// Nodes in a tree. See Note [Testing for Nil before the call].
#[inline(always)]
pub fn check(t: ObjRef<'_>) -> u64 {
    if t.is_static() {
        0
    } else {
        check_node(t)
    }
}

/// Nodes in a tree that is a `Node`.
fn check_node(t: ObjRef<'_>) -> u64 {
    let [l, r] = t.fields();
    1 + check(l) + check(r)
}

fn make_check(m: &mut Mutator<'_>, nil: Handle, d: usize) -> u64 {
    let base = m.depth();
    let t = make(m, nil, d);
    let c = check(m.view().get(t));
    m.truncate(base);
    c
}

/// The stretch tree, depth `max_depth + 1`: 2^(max_depth + 2) - 1 nodes
/// of three words, all live at once.
fn footprint(args: &[usize]) -> u128 {
    let max_depth = args[0].clamp(MIN_DEPTH + 2, 100) as u32;
    (1u128 << (max_depth + 2)) * 24
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0];
    let max_depth = n.max(MIN_DEPTH + 2);
    let nil = m.static_obj(&NIL);
    let mut sum = 0;

    let stretch = make_check(m, nil, max_depth + 1);
    let _ = writeln!(out, "stretch tree of depth {}\t check: {}", max_depth + 1, stretch);
    sum = mix(sum, stretch);

    let long_lived = make(m, nil, max_depth);
    m.set_heap_roots(&[("long-lived", long_lived)]); // for +RTS -ho
    for d in (MIN_DEPTH..=max_depth).step_by(2) {
        let iterations = 1u64 << (max_depth - d + MIN_DEPTH);
        let tasks = (m.capabilities() as u64).min(iterations);
        let checks = m.par_map(tasks as usize, |m, i| {
            let nil = m.static_obj(&NIL);
            let share = iterations * i as u64 / tasks..iterations * (i as u64 + 1) / tasks;
            share.map(|_| make_check(m, nil, d)).sum::<u64>()
        });
        let c: u64 = checks.iter().sum();
        let _ = writeln!(out, "{}\t trees of depth {}\t check: {}", iterations, d, c);
        sum = mix(sum, c);
    }
    let ll = check(m.view().get(long_lived));
    let _ = writeln!(out, "long lived tree of depth {}\t check: {}", max_depth, ll);
    mix(sum, ll)
}
