//! The order a copying GC lays out what it copies (the collectors' Note
//! [Copying depth first] in `copy_order`): with `order=depth` (the
//! default of `compacting`, `immix` and `mark-sweep`, an option of
//! `copying`) a tree comes out in
//! the order of a depth-first walk, left subtree first; with Cheney's
//! order (`copying`'s default) it does not. Both orders give the same
//! results under the stress settings with the sanity checker after every
//! GC.

use gclab::conformance::{assert_conforms, chosen, run_with, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::Params;
use gclab_core::info::InfoTable;
use gclab_core::{Handle, Mutator, ObjRef, Rts, StaticObject};

static LEAF_INFO: InfoTable = InfoTable::static_constr("Leaf", "Tree", "CopyOrder");
static LEAF: StaticObject = StaticObject::new(&LEAF_INFO);
/// A tree node: its left and right subtrees; its number in preorder.
static NODE: InfoTable = InfoTable::constr("Node", "Tree", "CopyOrder", 2, 1);
/// A node's size in bytes: a header, two fields and a word.
const NODE_BYTES: usize = 4 * 8;
const BLOCK_BYTES: usize = 4096;

/// A complete tree of `depth` levels whose root is number `first` in
/// preorder; it is left as the mutator's newest handle.
fn tree(m: &mut Mutator<'_>, depth: u32, first: usize, leaf: Handle) -> Handle {
    let base = m.depth();
    if depth == 0 {
        return m.dup(leaf);
    }
    let left = tree(m, depth - 1, first + 1, leaf);
    let right = tree(m, depth - 1, first + (1 << (depth - 1)), leaf);
    m.alloc_ret(base, &NODE, &[left, right], &[first])
}

/// Every node of the tree of `shape` at `root`: its number in preorder,
/// its address, and its children's numbers (None for a leaf).
fn nodes(shape: Shape, root: ObjRef<'_>, out: &mut Vec<(usize, usize, Option<[usize; 2]>)>) -> Option<usize> {
    if root.is_static() {
        return None;
    }
    let at = out.len();
    let number = shape.number(root, at);
    out.push((number, root.addr(), None));
    let left = nodes(shape, shape.child(root, 0), out);
    let right = nodes(shape, shape.child(root, 1), out);
    out[at].2 = left.zip(right).map(|(l, r)| [l, r]);
    Some(number)
}

/// The order depth-first copying copies a tree in: the root first; then,
/// for each node popped off a stack, its fields last to first, each copy
/// pushed, so that the first field's node is popped next.
fn depth_first_order(children: &[Option<[usize; 2]>]) -> Vec<usize> {
    let (mut order, mut stack) = (vec![0], vec![0]);
    while let Some(n) = stack.pop() {
        if let Some([left, right]) = children[n] {
            for c in [right, left] {
                order.push(c);
                stack.push(c);
            }
        }
    }
    order
}

/// The two kinds of tree node a mutator builds: constructors built
/// bottom-up (`tree`), or mutable arrays of two elements filled top-down
/// by gcbench's own `populate`.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Constructors,
    Arrays,
}

impl Shape {
    /// A complete tree of `depth` levels of this shape; its root.
    fn build(self, m: &mut Mutator<'_>, depth: u32, leaf: Handle) -> Handle {
        match self {
            Shape::Constructors => tree(m, depth, 0, leaf),
            Shape::Arrays => {
                let root = m.new_array(2, leaf);
                gclab_workloads::gcbench::populate(m, leaf, depth as usize - 1, root);
                root
            }
        }
    }

    /// The preorder number of `node`, the `at`th node walked: a
    /// constructor carries its own (so the walk checks that it survived
    /// the GC), an array node is numbered as it is walked.
    fn number(self, node: ObjRef<'_>, at: usize) -> usize {
        match self {
            Shape::Constructors => node.word(0),
            Shape::Arrays => at,
        }
    }

    /// Child `i` (0: left, 1: right) of `node`.
    fn child(self, node: ObjRef<'_>, i: usize) -> ObjRef<'_> {
        match self {
            Shape::Constructors => node.field(i),
            Shape::Arrays => node.array_get(i),
        }
    }

    /// A node's size in bytes (an array's, with its card table, by the
    /// heap's layout).
    fn node_bytes(self, m: &Mutator<'_>) -> usize {
        match self {
            Shape::Constructors => NODE_BYTES,
            Shape::Arrays => m.layout().array_size(2) * std::mem::size_of::<usize>(),
        }
    }
}

/// Build a tree of `shape` and `depth` levels in the allocation area,
/// promote it into the oldest generation with minor GCs under
/// `entry:params`, and count the pairs of nodes that depth-first copying
/// puts one after the other which do not lie side by side (the second not
/// one node's size after the first, and not at a block's start). Also
/// returns the number of nodes.
fn gaps_after_a_minor_gc(entry: &str, params: &str, rts: &str, shape: Shape, depth: u32) -> (usize, usize) {
    let f = gclab::flags(rts).unwrap();
    let collector = gclab::conformance::Chosen { entry: gclab_collectors::by_name(entry).unwrap(), params }.make(&f).unwrap();
    let r = Rts::new(f, collector).unwrap();
    let mut found = (0, 0);
    r.run(|m| {
        let leaf = m.static_obj(&LEAF);
        let root = shape.build(m, depth, leaf);
        // The first minor GC ages the tree in generation 0, the second
        // promotes it into the oldest: each copies it in its order.
        m.perform_gc(false);
        m.perform_gc(false);
        let mut all = Vec::new();
        nodes(shape, m.view().get(root), &mut all);
        all.sort_by_key(|n| n.0);
        assert!(all.iter().enumerate().all(|(i, n)| n.0 == i), "the tree's numbers survive the GC");
        let children: Vec<Option<[usize; 2]>> = all.iter().map(|n| n.2).collect();
        let order = depth_first_order(&children);
        assert_eq!(order.len(), all.len());
        let node_bytes = shape.node_bytes(m);
        let gaps = order.windows(2).filter(|w| {
            let (a, b) = (all[w[0]].1, all[w[1]].1);
            b != a + node_bytes && b % BLOCK_BYTES != 0
        });
        found = (gaps.count(), all.len());
    })
    .unwrap();
    r.finish().unwrap();
    found
}

#[test]
fn depth_first_copying_lays_a_tree_out_in_depth_first_order() {
    // 2047 nodes of 32 bytes: 16 blocks of to-space.
    for (entry, params) in [("compacting", ""), ("copying", "order=depth"), ("mark-sweep", ""), ("immix", "")] {
        let (gaps, n) = gaps_after_a_minor_gc(entry, params, "-A1m -DS", Shape::Constructors, 11);
        assert_eq!(n, 2047);
        assert_eq!(gaps, 0, "{entry}:{params}: {gaps} of {n} nodes not where depth-first order puts them");
    }
    // Cheney's order puts most of them elsewhere: the check can fail.
    for (entry, params) in [("copying", ""), ("compacting", "order=breadth"), ("mark-sweep", "order=breadth"), ("immix", "order=breadth")] {
        let (gaps, n) = gaps_after_a_minor_gc(entry, params, "-A1m -DS", Shape::Constructors, 11);
        assert!(gaps > n / 2, "{entry}:{params}: only {gaps} of {n} nodes out of depth-first order");
    }
    // Several GC threads copy breadth first (each thread's copies
    // interleave in to-space): the tree still survives, checked.
    let (_, n) = gaps_after_a_minor_gc("compacting", "", "-A1m -N2 -qn2 -DS", Shape::Constructors, 11);
    assert_eq!(n, 2047);
}

/// A tree of small mutable arrays (gcbench's top-down trees) comes out
/// left subtree first too: an array's elements go last to first, as a
/// constructor's fields do (the collectors' Note [An array's elements
/// last to first] in `scavenge`). They went first to last, which laid
/// the right subtree first, every node's left child after it.
#[test]
fn depth_first_copying_lays_an_array_tree_out_left_subtree_first() {
    for (entry, params) in [("compacting", ""), ("copying", "order=depth"), ("mark-sweep", ""), ("immix", "")] {
        let (gaps, n) = gaps_after_a_minor_gc(entry, params, "-A1m -DS", Shape::Arrays, 11);
        assert_eq!(n, 2047);
        assert_eq!(gaps, 0, "{entry}:{params}: {gaps} of {n} array nodes not where depth-first order puts them");
    }
    for (entry, params) in [("copying", ""), ("immix", "order=breadth")] {
        let (gaps, n) = gaps_after_a_minor_gc(entry, params, "-A1m -DS", Shape::Arrays, 11);
        assert!(gaps > n / 2, "{entry}:{params}: only {gaps} of {n} array nodes out of depth-first order");
    }
}

#[test]
fn a_bad_order_is_refused_by_name() {
    let f = gclab::flags("").unwrap();
    for entry in ["copying", "compacting", "mark-sweep", "immix", "sticky-immix", "nonmoving"] {
        let made = (gclab_collectors::by_name(entry).unwrap().make)(Params::parse("order=sideways").unwrap(), &f);
        let err = made.err().expect("order=sideways is refused");
        assert!(err.contains("`sideways'") && err.contains("breadth or depth"), "{entry}: {err}");
    }
}

#[test]
fn both_orders_conform_under_the_stress_settings() {
    // `compacting` (depth first) and `copying` (breadth first) run the
    // same checks with every collector in tests/workloads.rs.
    assert_conforms(chosen("copying:order=depth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("compacting:order=breadth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("mark-sweep:order=breadth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("immix:order=breadth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("sticky-immix:order=depth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("nonmoving:order=depth"), STRESS_SETTINGS, "");
    assert_conforms(chosen("immix:order=breadth"), ONE_GENERATION_SETTINGS, "");
    assert_conforms(chosen("mark-sweep:order=breadth"), ONE_GENERATION_SETTINGS, "");
}

/// Depth-first copying puts a scanned object's first child right behind
/// it, which hid a scattered marking from the prefetch ring's samples
/// (the collectors' Note [Judging a depth-first marking] in
/// `prefetch_ring`): whole-heap immix on fibheaps, whose nodes die
/// scattered, went through its markings without the ring. Judged by
/// where the marking goes back up, its markings prefetch again, with
/// every GC sanity-checked and copying's checksum; a tree that compacting
/// laid out depth first still seldom turns the ring on. (Since an
/// array's elements go last to first when copying depth first, the
/// fibheaps run below puts 4.8% of its objects through the ring, where
/// it put 12.6%: its rank array's trees now lie in the order the marking
/// walks them. The bound keeps a factor of two from both figures.)
#[test]
fn a_scattered_marking_prefetches_though_its_copies_lie_depth_first() {
    let fibheaps = gclab_workloads::by_name("fibheaps").unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), fibheaps, &[100000], "").unwrap();
    let immix = gclab_collectors::by_name("immix").unwrap();
    let r = run_with(immix, fibheaps, &[100000], "-G1 -M20m -DS").unwrap();
    assert_eq!(r.checksum, copying.checksum);
    assert!(r.stats.prefetched_objects * 40 > r.stats.scanned_objects, "{} of {} objects went through the ring", r.stats.prefetched_objects, r.stats.scanned_objects);
    let trees = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(gclab_collectors::by_name("compacting").unwrap(), trees, &[19], "").unwrap();
    assert!(r.stats.major_gcs > 0, "no marking happened");
    assert!(r.stats.prefetched_objects * 100 < r.stats.scanned_objects, "{} of {} objects went through the ring", r.stats.prefetched_objects, r.stats.scanned_objects);
}
