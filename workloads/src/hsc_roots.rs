//! `hsc-roots`: seed 003's example of root profiling, built as the seed
//! builds it. An `HscEnv` holds an `EPS`, an `FC` and an `OTHER`, which
//! share boxed words x, y, z and hold e, f, t of their own; the roots are
//! "hsc" (the HscEnv), "eps" and "fc". A root profile (`+RTS -ho -i0`)
//! must then show: hsc 80, eps 0, fc 0, hsc+eps 48, hsc+fc 72, eps+fc 0,
//! hsc+eps+fc 32 bytes. The program then churns a little so that several
//! GCs (and samples) happen with the structure live, and checks it.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator};
use std::io::Write;

static W: InfoTable = InfoTable::constr("W#", "Word", "GHC.Types", 0, 1);
static HSC_ENV: InfoTable = InfoTable::constr("HscEnv", "HscEnv", "Main", 3, 0);
static EPS: InfoTable = InfoTable::constr("EPS", "EPS", "Main", 3, 0);
static FC: InfoTable = InfoTable::constr("FC", "FC", "Main", 4, 0);
static OTHER: InfoTable = InfoTable::constr("OTHER", "OTHER", "Main", 3, 0);
static GARBAGE: InfoTable = InfoTable::constr("Garbage", "Garbage", "Main", 0, 2);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "hsc-roots",
    description: "seed 003's root-profiling example (HscEnv, EPS, FC sharing words); run with +RTS -ho -i0",
    params: &[Param::new("churn", 20_000, 0, 1_000_000_000)],
    small: &[2_000],
    tiny: &[200],
    run,
    footprint: None,
    needs_collection: false,
};

fn word(m: &mut Mutator<'_>, v: usize) -> Handle {
    m.alloc(&W, &[], &[v])
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (x, y, z, e, f, t) = (word(m, 1), word(m, 2), word(m, 3), word(m, 4), word(m, 5), word(m, 6));
    let eps = m.alloc(&EPS, &[x, y, e], &[]);
    let fc = m.alloc(&FC, &[x, y, z, f], &[]);
    let other = m.alloc(&OTHER, &[x, z, t], &[]);
    let hsc = m.alloc(&HSC_ENV, &[eps, fc, other], &[]);
    m.set_heap_roots(&[("hsc", hsc), ("eps", eps), ("fc", fc)]);
    let base = m.depth();
    for i in 0..args[0] {
        m.alloc(&GARBAGE, &[], &[i, i]);
        m.truncate(base);
    }
    m.perform_gc(true);
    let view = m.view();
    let h = view.get(hsc);
    let sum: usize = (0..3).map(|i| h.field(i)).flat_map(|c| (0..c.info().ptrs as usize).map(move |j| c.field(j).word(0))).sum();
    let _ = writeln!(out, "hsc-roots: the fields' words sum to {sum}");
    mix(0, sum as u64)
}
