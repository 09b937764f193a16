//! `mark-sweep`: a generational collector whose old generation never
//! moves. Young generations are copied and aged as by `copying`; objects
//! promoted into the oldest generation go into size-class cells
//! (`cell_space`), and a major collection marks the oldest generation in
//! place and sweeps it eagerly, instead of copying it.
//!
//! - Minor GC: the copying sequence, with the oldest generation's
//!   to-space an allocator of the cell space, so promoted objects fill
//!   free cells left by earlier sweeps before fresh blocks are cut. The
//!   young survivors are copied depth first (`order=depth`, the default;
//!   `order=breadth` for Cheney's order), so that a structure's objects
//!   of one size lie in its cells in the order the mutator and the next
//!   marking walk them (See Note [Copying depth first] in `copy_order`).
//! - Major GC: the oldest generation's blocks are flagged
//!   `BF_MARK_IN_PLACE` and attached to a mark bitmap; tracing marks
//!   their live objects where they lie (`evacuate` does that for any such
//!   block) and copies the young generations' survivors into cells (each
//!   placed cell marked at once, so the sweep keeps it); then the space
//!   sweeps every marked block: in the pause (`sweep=eager`, the
//!   default), when promotion reaches it (`sweep=lazy`), or on a sweeper
//!   thread beside the mutators (`sweep=concurrent`); See Note [When to
//!   sweep] in `sweep`.
//!
//! Both run on one GC thread or on `-qn` of them, as `-qg`/`-qb` say (the
//! GC threads mark into one bitmap with atomic bit sets). The oldest
//! generation needs no copy reserve, so under `-M` the policy sizes the
//! heap as for compaction, and the old generation never moves: what a
//! program with a large, long-lived heap gains is the copy, what it pays
//! is fragmentation (free cells in partly used blocks, `hole_bytes` in
//! the statistics) and a sweep that grows with the dead old data.
//!
//! With `-G1` every GC is the major GC, the allocation area's survivors
//! copied into cells: whole-heap mark-sweep (See Note [One generation]
//! in the crate's root).

use crate::cell_space::CellSpace;
use crate::copy_order::CopyOrder;
use crate::gc_workers::GcThreadPool;
use crate::mark::MarkBitmap;
use crate::space_trace::{trace_into, Tracing};
use crate::sweep::SweepMode;
use crate::CollectorEntry;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "mark-sweep",
    description: "copying for young generations; the oldest in size-class cells, marked in place and swept (non-moving; sweep=eager|lazy|concurrent; order=depth|breadth; with -G1 the whole heap)",
    flags: "",
    make: |mut params, _| {
        let sweep = params.take("sweep").map(|v| SweepMode::parse(&v)).transpose()?.unwrap_or_default();
        let order = CopyOrder::take(&mut params, CopyOrder::DepthFirst)?;
        params.finish("mark-sweep", &["sweep", "order"])?;
        Ok(Box::new(MarkSweep { sweep, order, ..MarkSweep::default() }))
    },
};

/// The mark-sweep collector: how it sweeps (`mark-sweep:sweep=lazy`), the
/// order its young survivors are copied and promoted in (depth first
/// unless `mark-sweep:order=breadth`: See Note [Copying depth first] in
/// `copy_order`), its old generation's space, made at the first GC, and
/// its GC threads.
#[derive(Default)]
pub struct MarkSweep {
    sweep: SweepMode,
    order: CopyOrder,
    old: Option<CellSpace>,
    pool: GcThreadPool,
}

// Note [Sweeping with one generation]
// ----------------------------------------
// A lazy or concurrent sweep leaves a major GC's blocks queued, their dead
// cells cleared when promotion next takes one (or by the sweeper thread);
// the next major GC forgets the queue and judges every block afresh with
// its new marks. With young generations that is cheap: promotion happens
// in the minor GCs between, which take the queued blocks. With one
// generation every GC is a major GC, so nothing ever took them: each GC's
// survivors went to fresh blocks, the space grew by a few part-filled
// blocks per GC, and every GC judged them all. On programs/mutstore.hs
// 300 at `-G1 --gc-every=7 -A8k` (104,000 GCs) eager took 41 s and lazy
// more than 300: by the 12,000th GC it had spent 9.9 s in GCs against
// eager's 2.3, and lru 2000 60000 64 at the same settings peaked at 29
// MiB in use against 1. Now lazy takes 41 s there, concurrent 46, and
// lru peaks at 1 MiB in every mode. So with one generation a GC first
// finishes the last one's sweep (what the sweeper thread has not done
// yet, and the queued blocks the mutators never reached), and this GC's
// promotion fills their free cells: the lazy and concurrent modes then
// only move the clearing from the end of one GC to the start of the
// next, or beside the mutators.

impl Collector for MarkSweep {
    fn name(&self) -> &'static str {
        "mark-sweep"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        // With one generation every GC is a major GC (See Note [One
        // generation] in the crate's root).
        let oldest = ctx.heap.oldest();
        let (sweep, order) = (self.sweep, self.order);
        let space = self.old.get_or_insert_with(|| CellSpace::new(oldest, sweep));
        let workers = self.pool.for_collection(ctx.flags, req.collect_gen, ctx.help);
        let n = req.collect_gen;
        let major = n == oldest;
        // The oldest generation's blocks stay where they are: in a major
        // GC they are taken out of the generation before `prepare`, and
        // marked in place.
        let marked = if major { std::mem::take(&mut ctx.heap.gens[oldest].blocks) } else { Vec::new() };
        let words_before = ctx.heap.gens[oldest].n_words;
        if oldest == 0 {
            // SAFETY: the runtime gives the collector the heap exclusively
            // (core's Note [Who touches what]). See Note [Sweeping with
            // one generation].
            unsafe { space.finish_sweeping() };
        }
        // SAFETY: as above.
        unsafe { space.begin_gc(major) };
        // SAFETY: as above.
        let marks = unsafe { MarkBitmap::keep_in_place(&marked) }.for_one_thread(workers.is_none());
        let marking = major.then_some(&marks);
        let how = Tracing { n, marks: marking, black: marking, defer: false, record_old: false, sticky: false, evacuate: None, order };
        // SAFETY: as above.
        let (done, _) = unsafe { trace_into(space, how, ctx, workers) };
        if !major {
            return GcOutcome { in_place: true, ..done };
        }
        // SAFETY: marking is complete and every allocator finished.
        unsafe { space.sweep(marked, marks, &mut ctx.heap.blocks.lock(), &mut ctx.heap.gens[oldest]) };
        GcOutcome { in_place: true, swept_words: words_before.saturating_sub(done.marked_words), ..done }
    }
}
