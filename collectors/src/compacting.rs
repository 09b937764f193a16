//! `compacting`: GHC's `-c`. Young generations are copied as by `copying`
//! (but depth first, below); in a major collection the oldest generation
//! is instead marked and compacted in place (`slide`), so a major GC needs
//! no to-space for the oldest generation's data: roughly half the peak
//! memory of copying when the old generation dominates the heap.
//!
//! Young generations are copied depth first (`order=depth`, the default;
//! `order=breadth` for Cheney's order), so that what a compaction keeps in
//! the order promotion gave it lies in the order its marking visits it
//! (See Note [Copying depth first] in `copy_order`).
//!
//! The policy (core's `policy`) decides when to compact: always with `-c`,
//! or with `-c<n>` once the oldest generation passes n% of `-M`. A GC it
//! does not ask to compact is an ordinary copying collection. With one
//! generation (`-c -G1`) every GC compacts it: whole-heap mark-compact,
//! the allocation area's survivors copied after the slid data (See Note
//! [One generation] in this crate's root). Large objects
//! are never moved (they are relinked, as in copying). Weak and stable
//! pointers into the compacted blocks are fixed with every other pointer.
//! With `-qn` GC threads every collection is shared among them, a
//! compaction's marking and its update pass included (See Note [Marking a
//! compaction in parallel]).
//!
//! Note [Marking a compaction in parallel]
//! ----------------------------------------
//! A compaction's marking is the tracing every collector shares
//! (`trace_with`), so the GC threads of `-qn` mark it as they mark
//! `mark-sweep`'s cells: roots dealt out by capability, scan stacks
//! shared by stealing, and an object claimed by the thread whose atomic
//! `fetch_or` sets its first mark bit (`MarkBitmap::for_one_thread` off).
//! What is the compaction's own is made per thread and joined after: each
//! thread records the reach of the blocks whose objects it scans (See
//! Note [Blocks whose pointers stay put] in `reach`), and the joined reach
//! is each block's furthest over all threads (`Reach::merged`), since a
//! block's objects may be scanned by any of them. The update pass and
//! the slide are shared too (See Notes [Updating on several threads] and
//! [Sliding on several threads] in `slide`); the plan stays on the
//! leader, a walk in list order whose every step depends on the one
//! before (the destination cursor), 3-6% of binary-trees 20's major GC
//! time.
//!
//! Measured on binary-trees 20 (2-core machine, 2026-11-27): at `-N2`,
//! where compacting had run every collection on one GC thread, its major
//! GCs take 0.865x (0.83-0.92, `scripts/ab -n 5`), its minor GCs 0.74x
//! and the whole run 0.82x; lru 500000 4000000's major GCs 0.80x. Per
//! major GC phase at `-N2`, two GC threads against one (totals over
//! 34-35 major GCs): marking 0.85-0.90 s against 1.08 s, update 0.10-0.11
//! s against 0.15, plan and slide 0.11-0.14 s on the leader (before the
//! slide was shared, which did not shorten it on two cores).
//! The marking gains less than the parallel copying collector does (its
//! major GCs 1.47x faster at two threads): a marking thread marks each
//! object with two locked instructions (the claim, which sets the bits of
//! its words, and its start bit: See Note [Object starts] in `mark`),
//! where one thread alone uses plain stores (Note [One thread marks]),
//! and the major GCs' CPU time rose from 1.2 s to 2.1 s. `perf` puts two
//! thirds of the marking's own samples on those two instructions, which
//! also keep the next object's header load from overlapping them.
//! `mark-sweep`, whose marking claims with the same one but records no
//! start, has its major GCs on binary-trees 20 1.56x faster at two
//! threads (0.642x, 0.62-0.64, `scripts/ab -n 3` at `-N2`, `-qn1`
//! against `-qn2`), where compacting's are 1.21x (0.825x, 0.80-0.85).

use crate::compaction_plan::dead_words_allowed;
use crate::copy_order::CopyOrder;
use crate::copying::copy_collect_in;
use crate::gc_thread::GcThread;
use crate::gc_workers::{GcThreadPool, GcWorkers};
use crate::mark::MarkBitmap;
use crate::prefetch_ring::Judge;
use crate::reach::Reach;
use crate::slide::Compaction;
use crate::trace::{outcome, team_size, trace_with};
use crate::{from_space, CollectorEntry};
use gclab_core::constants::WORD_SIZE;
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "compacting",
    description: "copying for young generations (depth first; order=breadth|depth); the oldest marked and compacted in place (GHC's -c), a block at most dead=N% dead (5) left where it is; with -G1, whole-heap mark-compact",
    flags: "-c",
    make: |mut params, _| {
        let order = CopyOrder::take(&mut params, CopyOrder::DepthFirst)?;
        // Below half a block: a block more dead than live is always
        // worth sliding.
        let dead = params.take_percent("dead", " of a block (its words that may be dead for it to stay in place)", 0..=49, DEFAULT_DEAD_PERCENT)?;
        params.finish(ENTRY.name, &["order", "dead"])?;
        let slow_leader = std::env::var("GCLAB_COMPACTING_FAULT").is_ok_and(|f| f == "slow-leader");
        Ok(Box::new(Compacting { pool: GcThreadPool::default(), order, dead_words: dead_words_allowed(dead), slow_leader }))
    },
};

/// The percentage of a block that may be dead for a compaction to leave
/// it in place, by default: G1's `MarkSweepDeadRatio` (See Note [Blocks
/// left in place] in `compaction_plan`).
pub const DEFAULT_DEAD_PERCENT: usize = 5;

/// The compacting collector: its GC thread pool (`-qn`), the order it
/// copies in, the dead words a block may hold and stay in place, and a
/// fault.
pub struct Compacting {
    pool: GcThreadPool,
    order: CopyOrder,
    /// See Note [Blocks left in place] in `compaction_plan`.
    dead_words: usize,
    /// The test-only fault `GCLAB_COMPACTING_FAULT=slow-leader`: the leader
    /// pauses before each block it slides, so that the other GC threads
    /// overtake it and must wait for its blocks (See Note [Sliding on
    /// several threads] in `slide`); without those waits the checks fail.
    slow_leader: bool,
}

impl Collector for Compacting {
    fn name(&self) -> &'static str {
        "compacting"
    }

    fn can_compact(&self) -> bool {
        true
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let workers = self.pool.for_collection(ctx.flags, req.collect_gen, ctx.help);
        if req.compact_oldest && req.is_major(ctx.heap) {
            // A heap past its limit compacts every block it can.
            let dead_words = if req.heap_full { 0 } else { self.dead_words };
            compact_collect(req, ctx, workers, self.order, dead_words, self.slow_leader)
        } else {
            copy_collect_in(req, ctx, workers, self.order)
        }
    }
}

/// A major collection that compacts the oldest generation in place: it
/// is marked, updated and slid by the GC threads `workers` gives, and
/// planned by the leader (See Note [Marking a compaction in parallel]),
/// leaving where it is each block with at most `dead_words` words not
/// live.
fn compact_collect(req: &GcRequest, ctx: &mut GcContext<'_>, workers: Option<(&GcWorkers, bool)>, order: CopyOrder, dead_words: usize, slow_leader: bool) -> GcOutcome {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let n = req.collect_gen;
    // The oldest generation's blocks stay where they are: take them out of
    // the generation before `prepare` makes the rest from-space.
    let marked_bytes = gens[n].n_words * WORD_SIZE;
    let in_place = std::mem::take(&mut gens[n].blocks);
    // SAFETY: the runtime gives the collector the heap exclusively
    // (core's Note [Who touches what]).
    let marks = unsafe { MarkBitmap::keep_in_place_recording_starts(&in_place) }.for_one_thread(workers.is_none());
    // SAFETY: as above.
    let from = unsafe { from_space::prepare(gens, n, *layout) };
    let (layout, count, compacted) = (*layout, gens.len(), in_place.len());
    let blocks = &*blocks;
    let depth_first = order.depth_first(workers.is_some());
    let judge = Judge::of_marking(depth_first, marked_bytes);
    let make = || {
        let mut gct = GcThread::new(layout, n, count, blocks);
        gct.depth_first = depth_first;
        gct.judge = judge;
        gct.marks = Some(&marks);
        gct.reach = Some(Reach::new(compacted));
        gct
    };
    // SAFETY: as in `copy_collect`: the collector holds the heap, and every
    // root and slot holds a valid object address; the compaction phases run
    // once each, in order, after tracing.
    let (mut threads, (kept, record)) = unsafe {
        let mut threads = trace_with(&make, gens, ctx.caps, ctx.stable_ptrs, ctx.leader, workers);
        let reach = Reach::merged(threads.iter_mut().filter_map(|t| t.reach.take()));
        let compaction = Compaction::plan(&marks, in_place, dead_words);
        compaction.update_pointers(&mut threads, ctx.caps, ctx.stable_ptrs, &reach, workers.map(|(w, _)| w));
        let slid = compaction.slide(&marks, layout, &mut blocks.lock(), &reach, workers.map(|(w, _)| w), slow_leader);
        (threads, slid)
    };
    for bd in kept {
        // SAFETY: the compacted blocks are the GC's, now reinstalled.
        unsafe { gens[n].add_block(bd) };
    }
    // SAFETY: tracing and compaction are over.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, n) };
    GcOutcome { in_place: true, compacted: true, compaction: Some(record), ..outcome(n, &threads, team_size(workers)) }
}
