//! `mutable-graph NODES STEPS`: a graph of mutable references and a large
//! pointer array, rewired from old to young for STEPS steps.
//!
//! NODES vertices, each a mutable variable holding a (young, freshly
//! allocated) edge record that points at another vertex's variable and
//! carries a label. A large mutable array indexes every vertex. Each step
//! allocates a new edge record and stores it into a random, usually
//! long-promoted vertex (an old-to-young store through the write barrier),
//! and now and then overwrites a random element of the index array with a
//! new wrapper (card marking). The checksum walks the graph from every
//! vertex along its edges and folds in the labels it finds.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{InfoTable, Mutator, StaticObject};
use std::io::Write;

static NONE_INFO: InfoTable = InfoTable::static_constr("None", "Edge", "MutableGraph");
static NONE: StaticObject = StaticObject::new(&NONE_INFO);
static EDGE: InfoTable = InfoTable::constr("Edge", "Edge", "MutableGraph", 1, 1);
static VERTEX: InfoTable = InfoTable::constr("Vertex", "Vertex", "MutableGraph", 1, 1);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "mutable-graph",
    description: "mutable references and a large array rewired old-to-young (write barrier, card marks)",
    params: &[Param::new("nodes", 20_000, 2, 1_000_000_000), Param::new("steps", 2_000_000, 0, 1_000_000_000_000)],
    small: &[300, 5_000],
    tiny: &[40, 600],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// Live data: two arrays of a word per node, and a vertex of 3 words
/// per node.
fn footprint(args: &[usize]) -> u128 {
    args[0].max(2) as u128 * 40
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (nodes, steps) = (args[0].max(2), args[1]);
    let mut rng = Rng::new(7);
    let none = m.static_obj(&NONE);
    let vars = m.new_array(nodes, none);
    let index = m.new_array(nodes, none);
    for i in 0..nodes {
        let base = m.depth();
        let v = m.new_mut_var(none);
        m.array_set(vars, i, v);
        let w = m.alloc(&VERTEX, &[v], &[i]);
        m.array_set(index, i, w);
        m.truncate(base);
    }
    m.set_heap_roots(&[("vars", vars), ("index", index)]); // for +RTS -ho: they share every vertex
    for step in 0..steps {
        let base = m.depth();
        let (from, to) = (rng.below(nodes), rng.below(nodes));
        let target = m.array_get(vars, to);
        let edge = m.alloc(&EDGE, &[target], &[step]);
        let var = m.array_get(vars, from);
        m.write_mut_var(var, edge);
        if step % 16 == 0 {
            let i = rng.below(nodes);
            let v = m.array_get(vars, i);
            let w = m.alloc(&VERTEX, &[v], &[i]);
            m.array_set(index, i, w);
        }
        m.truncate(base);
    }
    let mut sum = 0u64;
    let mut edges = 0u64;
    for i in 0..nodes {
        let base = m.depth();
        let w = m.array_get(index, i);
        assert_eq!(m.word(w, 0), i, "mutable-graph: index entry {i} lost its vertex number");
        let mut var = m.field(w, 0);
        for _ in 0..4 {
            let e = m.read_mut_var(var);
            if m.same(e, none) {
                break;
            }
            sum = mix(sum, m.word(e, 0) as u64);
            edges += 1;
            var = m.field(e, 0);
        }
        m.truncate(base);
    }
    let _ = writeln!(out, "mutable-graph: {nodes} vertices, {steps} rewirings, {edges} edges walked");
    mix(sum, edges)
}
