//! `power N K`: the first N coefficients of a power series raised to the
//! K-th power, with lazy streams, in the style of nofib's gc/power
//! (McIlroy's power series). A series is a stream: its first coefficient
//! and a thunk for the rest. The product of `f = f0 : fs` and `g` is
//! `f0 * g0 : (f0 * gs + fs * g)`, so every coefficient of `b^K` forces a
//! cascade of thunks through K - 1 products, sums and scalings, each
//! updated with its value (an indirection the GC removes). Coefficients
//! are integers modulo a prime; the base series is `b_i = i^2 + 1`.
//!
//! What it stresses: thunks and their updates, a structure that grows as
//! the streams are forced (every product's pending sums) while the
//! consumed prefix dies. The checksum folds in every coefficient taken.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator};
use std::io::Write;

/// A stream's cell: the rest (a thunk until forced); the coefficient.
static CELL: InfoTable = InfoTable::constr("S", "Series", "Power", 1, 1);
static BASE: InfoTable = InfoTable::thunk("base", "Series", "Power", 0, 1, base_entry);
static SCALE: InfoTable = InfoTable::thunk("scale", "Series", "Power", 1, 1, scale_entry);
static ADD: InfoTable = InfoTable::thunk("add", "Series", "Power", 2, 0, add_entry);
static MUL: InfoTable = InfoTable::thunk("mul", "Series", "Power", 2, 0, mul_entry);

/// The modulus: a prime whose products of two residues fit in 64 bits.
const P: usize = 1_000_000_007;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "power",
    description: "nofib power: lazy power series multiplied as streams, thunks updated as they are forced",
    params: &[Param::new("coefficients", 1_200, 1, 10_000_000), Param::new("k", 14, 1, 10_000)],
    small: &[80, 4],
    tiny: &[40, 3],
    run,
    footprint: None,
    needs_collection: false,
};

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (n, k) = (args[0].max(1), args[1].max(1));
    let base = m.alloc(&BASE, &[], &[0]);
    let series = m.dup(base);
    for _ in 2..=k {
        let frame = m.depth();
        let product = m.alloc(&MUL, &[series, base], &[]);
        m.set(series, product);
        m.truncate(frame);
    }
    m.set_heap_roots(&[("series", series)]); // for +RTS -ho
    let mut sum = 0;
    let mut last = 0;
    for _ in 0..n {
        let frame = m.depth();
        let cell = m.force(series);
        last = m.word(cell, 0);
        sum = mix(sum, last as u64);
        let rest = m.field(cell, 0);
        m.set(series, rest);
        m.truncate(frame);
    }
    let _ = writeln!(out, "power: {n} coefficients of b^{k} mod {P}: the last is {last}");
    sum
}

/// A cell of coefficient `c` whose rest is `rest`, returned from the frame
/// that began at `base`.
fn cell(m: &mut Mutator<'_>, base: usize, c: usize, rest: Handle) -> Handle {
    m.alloc_ret(base, &CELL, &[rest], &[c])
}

/// `base i = (i^2 + 1) : base (i + 1)`
fn base_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let i = m.word(this, 0);
    let base = m.depth();
    let rest = m.alloc(&BASE, &[], &[i + 1]);
    cell(m, base, (i * i + 1) % P, rest)
}

/// `scale c (f0 : fs) = c * f0 : scale c fs`
fn scale_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let c = m.word(this, 0);
    let base = m.depth();
    let f = m.field(this, 0);
    let f = m.force(f);
    let fs = m.field(f, 0);
    let rest = m.alloc(&SCALE, &[fs], &[c]);
    cell(m, base, c * m.word(f, 0) % P, rest)
}

/// `add (f0 : fs) (g0 : gs) = f0 + g0 : add fs gs`
fn add_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let base = m.depth();
    let (f, g) = (m.field(this, 0), m.field(this, 1));
    let (f, g) = (m.force(f), m.force(g));
    let (fs, gs) = (m.field(f, 0), m.field(g, 0));
    let rest = m.alloc(&ADD, &[fs, gs], &[]);
    cell(m, base, (m.word(f, 0) + m.word(g, 0)) % P, rest)
}

/// `mul (f0 : fs) g@(g0 : gs) = f0 * g0 : add (scale f0 gs) (mul fs g)`
fn mul_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let base = m.depth();
    let (f, g) = (m.field(this, 0), m.field(this, 1));
    let (f, g) = (m.force(f), m.force(g));
    let (f0, g0) = (m.word(f, 0), m.word(g, 0));
    let (fs, gs) = (m.field(f, 0), m.field(g, 0));
    let scaled = m.alloc(&SCALE, &[gs], &[f0]);
    let product = m.alloc(&MUL, &[fs, g], &[]);
    let rest = m.alloc(&ADD, &[scaled, product], &[]);
    cell(m, base, f0 * g0 % P, rest)
}
