//! `gcbench D`: the Ellis/Kovac/Boehm GCBench. A stretch tree of depth D
//! is built and dropped; a long-lived tree of depth D-2 (built top-down)
//! and a long-lived array of doubles stay live throughout; then for each
//! depth d = 4, 6, .. D-2, as many trees as make up twice the stretch
//! tree's size are built top-down and then bottom-up and dropped. With the
//! classic sizes (D = 18) the array has 500,000 elements; it scales with
//! 2^(D-18).
//!
//! Top-down construction allocates a node and then stores freshly allocated
//! children into it, as the Java original does: nodes are mutable
//! two-element arrays, so that stores into an already promoted parent go
//! through the write barrier. Bottom-up trees are immutable constructors.
//!
//! The temporary trees of each depth are built in `TASKS` tasks, spread
//! over the capabilities (`-N`) by `Mutator::par_map`. The long-lived tree
//! and array are shared by all of them through stable pointers (See Note
//! [Sharing between capabilities] in core's `par`): every task reads the
//! long-lived tree's size and an element of the array while other
//! capabilities allocate and collect, and folds them into its count. The
//! task count is fixed, so the checksum is the same for every `-N`.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, ObjRef, StaticObject};
use std::io::Write;

static EMPTY_INFO: InfoTable = InfoTable::static_constr("Empty", "Node", "GCBench");
static EMPTY: StaticObject = StaticObject::new(&EMPTY_INFO);
static NODE: InfoTable = InfoTable::constr("Node", "Node", "GCBench", 2, 2);

const MIN_DEPTH: usize = 4;

/// Tasks per depth (independent of `-N`, so that every run does the same work).
const TASKS: u64 = 4;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "gcbench",
    description: "Ellis/Kovac/Boehm GCBench: top-down and bottom-up trees beside a long-lived tree and array",
    params: &[Param::new("stretch-depth", 18, 0, 26)],
    small: &[10],
    tiny: &[7],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

fn tree_size(d: usize) -> u64 {
    (1u64 << (d + 1)) - 1
}

/// Bottom-up: children first, then the immutable node.
fn make_tree(m: &mut Mutator<'_>, empty: Handle, d: usize) -> Handle {
    if d == 0 {
        return m.alloc(&NODE, &[empty, empty], &[0, 0]);
    }
    let base = m.depth();
    let l = make_tree(m, empty, d - 1);
    let r = make_tree(m, empty, d - 1);
    m.alloc_ret(base, &NODE, &[l, r], &[d, 0])
}

/// Top-down: `node` (a mutable two-element array) gets new children,
/// `d` levels of them. (Public for the tests of the layout copying gives
/// such a tree: `tests/copy_order.rs`.)
pub fn populate(m: &mut Mutator<'_>, empty: Handle, d: usize, node: Handle) {
    if d == 0 {
        return;
    }
    let base = m.depth();
    let l = m.new_array(2, empty);
    m.array_set(node, 0, l);
    let r = m.new_array(2, empty);
    m.array_set(node, 1, r);
    populate(m, empty, d - 1, l);
    populate(m, empty, d - 1, r);
    m.truncate(base);
}

/// Nodes of a tree of either kind.
fn count(t: ObjRef<'_>) -> u64 {
    if t.is_static() {
        0
    } else if t.info().closure_type.is_pointer_array() {
        1 + count(t.array_get(0)) + count(t.array_get(1))
    } else {
        let [l, r] = t.fields();
        1 + count(l) + count(r)
    }
}

/// Live data: the long-lived tree (depth `stretch - 2`, 2^(depth+1)
/// nodes of 5 words) and the long-lived array of `array_size` doubles.
fn footprint(args: &[usize]) -> u128 {
    let stretch = args[0].max(MIN_DEPTH + 2) as u32;
    let tree = 1u128 << (stretch - 1);
    let array = if stretch >= 18 { 500_000u128 << (stretch - 18) } else { (500_000u128 >> (18 - stretch)).max(1000) };
    tree * 40 + array * 8
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let stretch_depth = args[0].max(MIN_DEPTH + 2);
    let long_lived_depth = stretch_depth - 2;
    let max_depth = stretch_depth - 2;
    let array_size = if stretch_depth >= 18 { 500_000 << (stretch_depth - 18) } else { (500_000 >> (18 - stretch_depth)).max(1000) };
    let empty = m.static_obj(&EMPTY);
    let mut sum = 0;

    let base = m.depth();
    let stretch = make_tree(m, empty, stretch_depth);
    let c = count(m.view().get(stretch));
    m.truncate(base);
    let _ = writeln!(out, "stretch tree of depth {stretch_depth}: {c} nodes");
    sum = mix(sum, c);

    let long_lived = m.new_array(2, empty);
    populate(m, empty, long_lived_depth, long_lived);
    let array = m.new_byte_array(array_size * 8);
    for i in 0..array_size / 2 {
        m.byte_array_write(array, i, (1.0f64 / (i + 1) as f64).to_bits());
    }

    let shared_tree = m.new_stable_ptr(long_lived);
    let shared_array = m.new_stable_ptr(array);
    for d in (MIN_DEPTH..=max_depth).step_by(2) {
        let iterations = 2 * tree_size(stretch_depth) / tree_size(d);
        let counts = m.par_map(TASKS as usize, |m, task| {
            let share = iterations * task as u64 / TASKS..iterations * (task as u64 + 1) / TASKS;
            let empty = m.static_obj(&EMPTY);
            let mut nodes = 0;
            for _ in share.clone() {
                let base = m.depth();
                let t = m.new_array(2, empty);
                populate(m, empty, d, t);
                nodes += count(m.view().get(t));
                m.truncate(base);
            }
            for _ in share {
                let base = m.depth();
                let t = make_tree(m, empty, d);
                nodes += count(m.view().get(t));
                m.truncate(base);
            }
            // Read the data every capability shares.
            let tree = m.deref_stable_ptr(shared_tree);
            let array = m.deref_stable_ptr(shared_array);
            let element = m.byte_array_read(array, (task * 997 + d) % (array_size / 2));
            (nodes, mix(count(m.view().get(tree)), element))
        });
        let nodes: u64 = counts.iter().map(|c| c.0).sum();
        let _ = writeln!(out, "{iterations} top-down and bottom-up trees of depth {d}: {nodes} nodes");
        sum = counts.iter().fold(mix(sum, nodes), |a, c| mix(a, c.1));
    }
    m.free_stable_ptr(shared_tree);
    m.free_stable_ptr(shared_array);
    let ll = count(m.view().get(long_lived));
    let probe = (1..array_size / 2).step_by(997).map(|i| m.byte_array_read(array, i)).fold(0u64, |a, b| a ^ b);
    let i = 1000.min(array_size / 2 - 1);
    let intact = m.byte_array_read(array, i) == (1.0f64 / (i + 1) as f64).to_bits();
    let _ = writeln!(out, "long-lived tree of depth {long_lived_depth}: {ll} nodes; array of {array_size} doubles intact: {intact}");
    mix(mix(sum, ll), probe)
}
