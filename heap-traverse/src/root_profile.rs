//! Root profiling (`-ho`): heap profiling by user-specified roots, with the
//! sharing between them (seed 003).
//!
//! Root i gets bit i. Traversing from each root in turn, an object's data
//! is the set of roots it is known to be reachable from; `sizes[set]` holds
//! the bytes of objects whose set it is. A first visit puts the object in
//! the bin of the current root alone. A revisit from a root not yet in its
//! set moves its size to the bin of the set plus that root and walks its
//! children again, to update them too. Bins are dense (2^n - 1 of them) up
//! to `DENSE_ROOTS` roots and a sparse map beyond; the traversal word holds
//! up to 63 root bits.

use crate::traverse::{begin, traverse, Visitor};
use gclab_core::constants::WORD_SIZE;
use gclab_core::info::InfoTable;
use gclab_core::profiling::{Obj, ProfileContext};
use std::collections::HashMap;

/// Up to this many roots the bins are a dense array (2^20 entries, 8 MiB).
pub const DENSE_ROOTS: usize = 20;
/// The most roots: the traversal word has 63 data bits.
pub const MAX_ROOTS: usize = 63;

enum Bins {
    Dense(Vec<u64>),
    Sparse(HashMap<u64, u64>),
}

impl Bins {
    fn add(&mut self, set: u64, bytes: i64) {
        match self {
            Bins::Dense(v) => v[set as usize] = (v[set as usize] as i64 + bytes) as u64,
            Bins::Sparse(m) => {
                let e = m.entry(set).or_insert(0);
                *e = (*e as i64 + bytes) as u64;
            }
        }
    }
}

struct RootVisitor {
    bit: u64,
    bins: Bins,
}

impl Visitor for RootVisitor {
    fn first_visit(&mut self, _: Obj, _: &'static InfoTable, size: usize) -> (u64, bool) {
        self.bins.add(self.bit, (size * WORD_SIZE) as i64);
        (self.bit, true)
    }

    fn revisit(&mut self, _: Obj, _: &'static InfoTable, size: usize, set: u64) -> Option<u64> {
        if set & self.bit != 0 {
            return None;
        }
        let bytes = (size * WORD_SIZE) as i64;
        self.bins.add(set, -bytes);
        self.bins.add(set | self.bit, bytes);
        Some(set | self.bit)
    }
}

/// The bins of one root profile: (name, bytes), the single roots first,
/// then pairs, and so on, each group in bit order; names join root names
/// with `+`. Dense profiles list every bin, zeros included; sparse ones
/// only the bins that hold something.
pub fn root_profile(ctx: &ProfileContext<'_>) -> Vec<(String, u64)> {
    let roots: Vec<(&str, Obj)> = ctx.named_roots().collect();
    let n = roots.len();
    assert!(n <= MAX_ROOTS, "root profiling takes at most {MAX_ROOTS} roots, not {n}");
    if n == 0 {
        return Vec::new();
    }
    let flip = begin(ctx);
    let bins = if n <= DENSE_ROOTS { Bins::Dense(vec![0; 1 << n]) } else { Bins::Sparse(HashMap::new()) };
    let mut v = RootVisitor { bit: 0, bins };
    for (i, (_, root)) in roots.iter().enumerate() {
        v.bit = 1 << i;
        traverse(ctx, flip, *root, &mut v);
    }
    let name = |set: u64| -> String { (0..n).filter(|i| set & (1 << i) != 0).map(|i| roots[i].0).collect::<Vec<_>>().join("+") };
    let mut out: Vec<(u64, u64)> = match v.bins {
        Bins::Dense(b) => b.into_iter().enumerate().skip(1).map(|(s, bytes)| (s as u64, bytes)).collect(),
        Bins::Sparse(m) => m.into_iter().filter(|&(_, b)| b > 0).collect(),
    };
    out.sort_by_key(|&(set, _)| (set.count_ones(), set));
    out.into_iter().map(|(set, bytes)| (name(set), bytes)).collect()
}
