//! `lxr`'s backup trace in a pause (`trace=pause`, and every major GC the
//! program asks for or the heap's limit forces): `immix`'s major GC, then
//! every count rebuilt from the heap.
//!
//! Invariant kept: when it ends, every object of the space has exactly
//! the count of its references from counted fields and from the new root
//! buffer (stuck counts unstuck, leaked ones mended).
//!
//! Note [The backup trace recounts]
//! ----------------------------------------
//! LXR's backup trace marks from the roots concurrently, frees what it did
//! not reach (cycles, objects whose counts stuck) and leaves the other
//! counts be, as `lxr`'s does by default (See Note [A concurrent backup
//! trace] in `concurrent_trace`). In a pause, the backup trace is immix's
//! major GC, which moves
//! objects (defragmentation) and frees whole dead structures without
//! decrementing what they pointed at: the counts it leaves are stale. So
//! after it every table is attached afresh and every count rebuilt by one
//! walk of the space (each object raises what its counted fields point
//! at), and the roots are counted anew: a cost of the same order as the
//! trace itself. Stuck counts come unstuck; leaked ones are mended.

use super::{stick, Lxr};
use crate::ref_count::Tally;
use gclab_core::constants::Word;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

impl Lxr {
    /// The backup trace: immix's major GC, then every count rebuilt (See
    /// Note [The backup trace recounts]).
    ///
    /// # Safety
    /// The GC holds the heap.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn backup_trace(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        // The tables come off before the GC frees any block they cover.
        self.tables.release(ctx.heap);
        self.roots.clear();
        self.decrements.waiting.clear();
        self.stacks.clear();
        self.large.clear();
        self.lines.clear();
        // The major GC judges every block afresh, the young objects in
        // offered holes included; the tables come back with every bit set.
        self.holes.forget();
        let outcome = self.immix.collect(req, ctx);
        // SAFETY: the caller's contract.
        unsafe { self.recount(ctx) };
        outcome
    }

    /// Attach a table to every block of the space and count every
    /// reference from its objects' counted fields and from the roots.
    ///
    /// # Safety
    /// The GC holds the heap; the space is swept (its objects and zero
    /// words tile its blocks).
    // SAFETY: the caller's contract.
    unsafe fn recount(&mut self, ctx: &mut GcContext<'_>) {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let blocks = ctx.heap.gens[oldest].blocks.clone();
        for &bd in &blocks {
            // SAFETY: the caller's contract; the tables were all released.
            unsafe { self.tables.attach(bd, true) };
        }
        let mut tally = Tally::default();
        let mut weaks = Vec::new();
        // SAFETY: the caller's contract; every table was released.
        let adopted = unsafe { self.large.adopt(&ctx.heap.gens[oldest], &mut self.tables, layout) };
        for &p in &adopted {
            // SAFETY: a live large object, its group covered.
            unsafe { self.promoted(p, layout, &mut weaks, &mut tally) };
        }
        for bd in blocks {
            let mut words = 0;
            // SAFETY: the caller's contract.
            let d = unsafe { bd.read() };
            let walk = |p: *mut Word| {
                // SAFETY: `p` starts a live object of the block, which has
                // a table; its count starts from the walk.
                let size = unsafe { self.promoted(p, layout, &mut weaks, &mut tally) };
                words += size;
                Some(size)
            };
            // SAFETY: as above.
            unsafe { gclab_core::block_walk::walk_block(d, d.free, walk) };
            self.lines.recounted(bd, words);
        }
        // SAFETY: the caller's contract.
        self.roots = unsafe { self.count_roots(ctx, layout, &mut Vec::new(), &mut tally) };
        stick(&weaks);
    }
}
