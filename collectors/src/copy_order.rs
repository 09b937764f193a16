//! The order in which a copying GC lays out what it copies: breadth first
//! (Cheney's scan of to-space, GHC's order and the default) or depth
//! first (`order=depth`: every copy goes on the scan stack and is scanned
//! from there, its first field's object next).
//!
//! Invariant kept: copying depth first, every object copied in a GC is
//! scanned exactly once, off the scan stack; the scan pointers of the
//! to-space blocks it lies in are moved past it unscanned (See Note
//! [Copying depth first]).
//!
//! Note [Copying depth first]
//! ----------------------------------------
//! Cheney's scan copies the children of the objects in one stretch of
//! to-space into the next stretch, so a tree comes out level by level:
//! siblings side by side, but a node's children further from it the
//! deeper it lies (at depth 12 of a tree of 3-word nodes, about 100 KB).
//! A copying collector does not care: its next major GC traces the tree
//! in the same order and reads from-space front to back. A compaction
//! does: it keeps the order promotion gave the old generation for good,
//! and its marking is depth first (a stack). On binary-trees 20 under
//! `compacting`, 31% of the objects the marking reached lay 4 KiB or
//! more from the one reached before (18 of 57 million), each a cache and
//! TLB miss that the processor's prefetcher does not cover, and 30% of
//! the marking's samples waited on those headers.
//!
//! So with `order=depth` (the default of `compacting`, `immix` and
//! `mark-sweep`, an option of `copying`) each object is pushed on the scan
//! stack as it is copied,
//! and the stack, not the blocks' scan pointers, drives the scan: the
//! object popped has its fields (an array, its elements: See Note [An
//! array's elements last to first] in `scavenge`) evacuated last to
//! first, so that the copies of its first field's object and that
//! object's own first field are popped and copied next, right behind it. That is the order the
//! mutator of a functional program walks a structure in (a list's head
//! before its tail, a tree's left subtree first), and it is the order a
//! compaction's marking then follows, since it pops the same stack the
//! same way: both go through `scan_popped`, which evacuates fields last
//! to first when the GC copies depth first (See `GcThread::depth_first`).
//! The to-space blocks still fill and chain as before; their unscanned
//! stretches are passed over (`scan_or_pass` in `scavenge`), since every
//! object in them was pushed when it was copied, and so are the runs of
//! cells, lines and holes a space lends (`mark-sweep`'s and `immix`'s
//! promotion: See Note [Runs a space lends] in `lent_runs`), which take a
//! structure's objects in depth-first order (a cell space's, those of one
//! size).
//!
//! Depth first is for one GC thread: a parallel GC shares to-space blocks
//! and stretches of the stack between threads, and its threads' copies
//! interleave in to-space whatever order each follows. With `-qn2` and
//! more the order is breadth first.
//!
//! The stack costs a push and a pop per object copied, where the Cheney
//! scan walks to-space, and memory: up to one word per object waiting to
//! be scanned (a wide array's elements at once), where Cheney needs none.
//!
//! Measured (2-core machine, 2026-11-29; `scripts/ab`, `compacting`
//! with `order=breadth` against its default `order=depth`, one binary):
//! - where the marking goes next: on binary-trees 20, of the 84 million
//!   objects its marking reached, 30.0 million lay 4 KiB or more from the
//!   one before with breadth-first promotion, 46 thousand with depth
//!   first, and 99.1% within the same 64 bytes;
//! - GC instructions (cachegrind, binary-trees 17): 1.106x, with 0.651x
//!   the first-level misses; power and hash, whose copies gain no
//!   locality, 1.07x with 1.00-1.02x the misses;
//! - on the clock, major GCs: binary-trees 20 0.891x (7 rounds,
//!   0.86-0.96), lru 500000 4000000 128 0.817x (7, 0.77-0.99); minor
//!   GCs 1.114x on binary-trees 20 (1.04-1.20), 0.926x on lru; the
//!   mutator 0.943x and 0.915x (it walks the trees left first, as they
//!   now lie); totals 1.008x and 0.908x. power, hash, gcbench 18 and
//!   fibheaps 400000: totals 0.996x, 1.050x, 0.994x and 0.889x, inside
//!   this machine's noise (spreads up to 0.56-2.0).
//! - `copying:order=depth` against `copying` on binary-trees 20: major
//!   GCs 0.919x, minor GCs 1.022x, mutator 0.942x, total 0.968x (5
//!   rounds). `copying` keeps Cheney's order by default, GHC's, so that
//!   its figures read beside GHC's.
//! - The space collectors, depth over breadth first: GC instructions
//!   1.108x (`mark-sweep`) and 1.109x (`immix`) on binary-trees 17 with
//!   0.640x the first-level misses; 1.020x and 1.022x on fibheaps 100000
//!   with 0.705x and 0.695x, and the mutator's misses 0.932x and 0.897x.
//!   On the clock, `immix` on fibheaps 400000 at `-M84m` (its worst
//!   target): total 0.841x (5 rounds, 0.61-0.96), the mutator 0.787x,
//!   and against `copying` 0.947x (7 rounds, 0.71-1.06) where breadth
//!   first gave 1.204x; gcbench 18, lru 50000 1000000 128 and
//!   binary-trees 20 at their `-M`: 1.046x, 0.946x and 1.008x, inside the
//!   noise. So `immix` copies depth first by default. `mark-sweep` did
//!   not then: on fibheaps its GCs took 1.208x (7 rounds, 1.00-1.34) for
//!   a mutator at 0.985x, and on binary-trees 20 its total was 1.052x.
//! - `mark-sweep` again, once an array's elements went last to first
//!   (See Note [An array's elements last to first] in `scavenge`;
//!   fibheaps keeps its trees in a rank array): totals at the targets'
//!   `-M`, two runs of 7 alternated rounds each, binary-trees 20 0.947x
//!   and 0.936x, gcbench 18 1.015x and 0.866x, lru 50000 1000000 128
//!   0.889x and 0.943x, fibheaps 400000 0.924x and 0.856x (the mutator
//!   0.895x and 0.838x), the peak memory unchanged; GC instructions
//!   1.088x, 1.042x, 1.029x and 1.014x (binary-trees 17, gcbench 16, lru,
//!   fibheaps 100000) with 0.642x, 0.740x, 0.955x and 0.683x the
//!   first-level misses. So `mark-sweep` now copies depth first by
//!   default too. (`nonmoving` keeps Cheney's order, GHC's, with
//!   `nonmoving:order=depth` to choose: its target is its minor GCs'
//!   time, and depth first made them 1.117x on binary-trees 20 and
//!   1.067x on gcbench 18, 0.946x on lru 500000 4000000 128.)
//! - `sticky-immix:order=depth` (its minor GCs' copies of what missed
//!   the holes, and `immix`'s major GCs) against its breadth-first
//!   default, at the targets' `-M`: totals 0.946x on fibheaps 400000,
//!   0.914x on gcbench 18, 1.015x on binary-trees 20 (minor GCs 1.21x)
//!   and 1.040x on lru 50000 1000000 128 (5-7 rounds; 1.012x on lru
//!   500000 4000000 128); GC instructions 1.21x and 1.10x on fibheaps
//!   100000 and gcbench 16, with 0.70x and 0.58x the first-level misses.
//!   Two ahead and two behind, so it stays an option.
//!
//! Tried and left out: depth first only for copies into the oldest
//! generation (an aging copy's layout lasts one GC): 1.056x the
//! instructions instead of 1.106x, but major GCs on lru 0.895x instead of
//! 0.817x, the mutator no faster; a stack of copies per generation, so
//! that a popped copy's generation needs no read of its descriptor: 1.169x
//! breadth first's instructions against 1.106x (the push indexes the
//! generation's to-space, and the marking's copies went apart from its
//! marked objects); and a copy without pointer fields left off the stack:
//! power 1.118x against 1.071x, its copies nearly all having some, so the
//! test cost more than the pushes it saved. A breadth-first marking (a queue, not a stack) over the old
//! layout: major GCs 1.47x slower, and 21% more peak memory.
//!
//! This is Moon's approximately depth-first copying (1984) taken to its
//! end; Wilson, Lam and Moher's hierarchical decomposition (1991) and
//! Siegwart and Hirzel's parallel hierarchical copying (2006) are the
//! block-local forms that keep Cheney's cheap scan and share work.

use gclab_core::params::Params;

/// The order a copying GC copies in (`order=breadth|depth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CopyOrder {
    /// Cheney's scan over to-space blocks: a structure comes out level by
    /// level.
    #[default]
    BreadthFirst,
    /// Each copy scanned off the scan stack, first field first: a
    /// structure comes out in the order a depth-first walk visits it (See
    /// Note [Copying depth first]).
    DepthFirst,
}

impl CopyOrder {
    /// Parse a collector parameter's value.
    pub fn parse(v: &str) -> Result<CopyOrder, String> {
        match v {
            "breadth" => Ok(CopyOrder::BreadthFirst),
            "depth" => Ok(CopyOrder::DepthFirst),
            _ => Err(format!("order must be breadth or depth, not `{v}'")),
        }
    }

    /// A collector's `order` parameter, taken out of `params`; `default`
    /// where it is not given.
    pub fn take(params: &mut Params, default: CopyOrder) -> Result<CopyOrder, String> {
        params.take("order").map(|v| CopyOrder::parse(&v)).transpose().map(|order| order.unwrap_or(default))
    }

    /// Does a GC copy depth first, on one GC thread (`!parallel`) or
    /// several? Only one thread does (See Note [Copying depth first]).
    pub fn depth_first(self, parallel: bool) -> bool {
        self == CopyOrder::DepthFirst && !parallel
    }
}

#[cfg(test)]
mod tests {
    use super::{CopyOrder, Params};

    #[test]
    fn an_order_is_parsed_and_a_bad_one_named() {
        assert_eq!(CopyOrder::parse("depth"), Ok(CopyOrder::DepthFirst));
        assert_eq!(CopyOrder::parse("breadth"), Ok(CopyOrder::BreadthFirst));
        let err = CopyOrder::parse("sideways").unwrap_err();
        assert!(err.contains("`sideways'") && err.contains("breadth or depth"), "{err}");
        assert!(CopyOrder::DepthFirst.depth_first(false));
        assert!(!CopyOrder::DepthFirst.depth_first(true), "several GC threads copy breadth first");
        assert!(!CopyOrder::BreadthFirst.depth_first(false));
    }

    #[test]
    fn the_order_parameter_is_taken_or_defaulted() {
        let mut params = Params::parse("order=depth, other=1").unwrap();
        assert_eq!(CopyOrder::take(&mut params, CopyOrder::BreadthFirst), Ok(CopyOrder::DepthFirst));
        assert_eq!(params.take("other").as_deref(), Some("1"), "the rest is left");
        assert!(params.finish("t", &[]).is_ok(), "order was taken out");
        let mut params = Params::parse("").unwrap();
        assert_eq!(CopyOrder::take(&mut params, CopyOrder::DepthFirst), Ok(CopyOrder::DepthFirst));
        let mut params = Params::parse("order=up").unwrap();
        assert!(CopyOrder::take(&mut params, CopyOrder::DepthFirst).unwrap_err().contains("`up'"));
    }
}
