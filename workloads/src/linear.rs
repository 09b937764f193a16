//! `linear N COUNT`: determinants of COUNT dense pseudo-random N x N
//! matrices over the integers modulo a prime, by Gaussian elimination
//! that builds new rows, in the spirit of nofib's gc/linear (dense linear
//! algebra over immutable rows). A matrix is a mutable array of rows, each
//! row an unboxed array of N numbers. Eliminating column k replaces every
//! row below the pivot with a new row (`row - f * pivot row`), stored back
//! into the array; the determinant is the product of the pivots, negated
//! for each row swap.
//!
//! What it stresses: arrays. About N^2 / 2 unboxed rows of N words are
//! allocated per matrix (large objects from N = 410 up, as in GHC: 3,276
//! bytes), each dying one step after it was made, and every new row is
//! stored into an older array. The checksum folds in every determinant
//! and each matrix's last pivot row.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static ZERO_INFO: InfoTable = InfoTable::static_constr("Zero", "Row", "Linear");
static ZERO: StaticObject = StaticObject::new(&ZERO_INFO);

/// The modulus: a prime whose products of two residues fit in 64 bits.
const P: u64 = 1_000_000_007;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "linear",
    description: "nofib linear: Gaussian elimination building new unboxed rows (large objects), old-to-young stores",
    params: &[Param::new("n", 420, 1, 1_000_000), Param::new("count", 2, 0, 1_000_000)],
    small: &[40, 2],
    tiny: &[24, 2],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// One matrix of N rows of N words.
fn footprint(args: &[usize]) -> u128 {
    (args[0] as u128).pow(2) * 8
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (n, count) = (args[0].max(1), args[1]);
    let mut rng = Rng::new(3);
    let zero = m.static_obj(&ZERO);
    let mut sum = 0;
    for c in 0..count {
        let frame = m.depth();
        let matrix = m.new_array(n, zero);
        m.set_heap_roots(&[("matrix", matrix)]); // for +RTS -ho
        for i in 0..n {
            let row = m.new_byte_array(n * 8);
            for j in 0..n {
                m.byte_array_write(row, j, rng.below(P as usize) as u64);
            }
            m.array_set(matrix, i, row);
            m.truncate(frame + 1);
        }
        let det = determinant(m, matrix);
        let last = m.array_get(matrix, n - 1);
        let row_sum = (0..n).map(|j| m.byte_array_read(last, j)).fold(0u64, |a, v| a.wrapping_add(v));
        let _ = writeln!(out, "linear: matrix {} of {n}x{n} mod {P}: determinant {det}", c + 1);
        sum = mix(mix(sum, det), row_sum);
        m.truncate(frame);
    }
    sum
}

/// The determinant of `matrix` (mod P), which is left upper triangular.
fn determinant(m: &mut Mutator<'_>, matrix: Handle) -> u64 {
    let n = m.array_len(matrix);
    let mut det = 1;
    for k in 0..n {
        let frame = m.depth();
        let Some(p) = (k..n).find(|&i| {
            let row = m.array_get(matrix, i);
            m.byte_array_read(row, k) != 0
        }) else {
            return 0;
        };
        m.truncate(frame);
        if p != k {
            let (a, b) = (m.array_get(matrix, p), m.array_get(matrix, k));
            m.array_set(matrix, k, a);
            m.array_set(matrix, p, b);
            det = (P - det) % P;
        }
        let pivot_row = m.array_get(matrix, k);
        let pivot = m.byte_array_read(pivot_row, k);
        det = det * pivot % P;
        let inverse = power_mod(pivot, P - 2);
        for i in k + 1..n {
            let row = m.array_get(matrix, i);
            let f = m.byte_array_read(row, k) * inverse % P;
            let new = m.new_byte_array(n * 8);
            for j in 0..n {
                let v = (m.byte_array_read(row, j) + P - f * m.byte_array_read(pivot_row, j) % P) % P;
                m.byte_array_write(new, j, v);
            }
            m.array_set(matrix, i, new);
            m.truncate(frame + 1);
        }
        m.truncate(frame);
    }
    det
}

/// `b^e mod P`.
fn power_mod(mut b: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % P;
        }
        b = b * b % P;
        e >>= 1;
    }
    r
}
