//! `concurrent-copying`: Immix whose fragmented old blocks are copied out
//! while the mutators run, behind a read barrier (Baker's to-space
//! invariant; the family of Shenandoah, ZGC and C4).
//!
//! - Minor GC: `immix`'s (young generations copied, promoted into the
//!   line space's holes), with the copying thread parked.
//! - Major GC: a snapshot of the old generation is marked by a thread of
//!   the collector's beside the mutators, as `nonmoving` marks its cells
//!   (See Note [The snapshot] in `nonmoving`): the pause copies the young
//!   generations and lists the old objects they and the roots point to,
//!   and the marker attaches the snapshot's blocks to its bitmap itself
//!   before it greys them (See Note [The marker attaches its snapshot] in
//!   `concurrent_mark::attach`); the sync that ends the marking counts
//!   the live words, and a thread of the collector's sweeps the marked
//!   blocks beside the mutators, gathering the sparsest for a copying-out
//!   (See Note [Sweeping lines beside the mutators] in `line_sweeper`). With
//!   `mark=sync` the major GC is `immix`'s, marked and swept in its pause.
//! - Then, in the sync that ends the sweep (or that pause), the sparsest
//!   old blocks (at most `live=PERCENT` of their lines used, default 50)
//!   become the from-space: flagged `BF_COPYING_OUT`, taken off the space's lists, the
//!   roots that point there copied (a pause bounded by the roots), and the
//!   read barrier turned on. See Note [A copying-out cycle].
//! - A major GC the policy asks for while a marking, a sweep or a
//!   copying-out runs collects the young generations only, as `nonmoving`
//!   does; one the program asks for (`Gc.major`), or one the heap's limit
//!   forces (`-M`: a degenerate collection, counted in `-s`), drops a
//!   running marking or sweep, or ends a copying-out inside itself, and is
//!   `immix`'s, the world stopped.
//! - Beside the mutators, a thread of the collector's copies every object
//!   of the from-space (`copy_out`: mutators that load a from-space object
//!   first copy it themselves), then, at a sync, goes over every other old
//!   object and large object, pointing each field that leads into the
//!   from-space at its copy.
//! - The from-space is freed at the first sync (or GC) after that pass
//!   that follows a GC of every young generation, and the barrier is off.
//!
//! Parameters: `live=PERCENT` (0 copies nothing out), `gain=PERCENT` (a
//! cycle starts only if it frees that much of the old generation, default
//! 1: See Note [A copying-out that pays for itself] in `defrag`),
//! `mark=concurrent|sync`
//! (default concurrent), `threads=N` (copier threads, default 1: See
//! `copiers`), and `line` as `immix`'s. Needs the read barrier
//! compiled in (the `access-hooks` feature).
//!
//! Note [A copying-out cycle]
//! ----------------------------------------
//! What must hold for the from-space to be freed is that nothing points
//! into it: not the roots, not the young generations, not an old object.
//!
//! - Roots. The start copies every root into the from-space (root stacks,
//!   pending finalisers, stable pointers, mutable-list entries, weak
//!   lists), and so does every GC and sync of the cycle before the world
//!   restarts, so a root never holds a from-space object while a mutator
//!   runs (the sanity checker checks it). Mutators gain new roots only by
//!   loads, through the barrier, or by allocating.
//! - Copying half. The from-space blocks keep `BF_EVACUATED`, so the GCs
//!   meanwhile leave their objects where they are (a young weak pointer
//!   whose key lies there judges it alive, as for any old key); objects
//!   they promote may point into the from-space. Mutators copy on load, so
//!   nothing they store points there.
//! - Updating half. It starts at a sync once every from-space object is
//!   copied: the from-space blocks lose `BF_EVACUATED`, so every GC from
//!   then on follows the forwarding pointer of any from-space object it
//!   meets, in a root, a young object, or a field of what it promotes. The
//!   pass goes over every old block and large object as they stood at
//!   that sync (promoted since are clean) and over the copies, swapping
//!   each field that leads into the from-space for the copy's address with
//!   a compare-and-swap: a mutator's store to the field meanwhile wins,
//!   and holds a to-space object anyway. It stops between blocks only,
//!   since a GC may fill a block's holes.
//! - Young objects made before the updating half began may still point
//!   into the from-space, so it is freed only once a GC of every young
//!   generation has run in that half (at once, if the program allocates).
//!
//! A major GC that the policy asks for while a cycle runs ends the cycle
//! inside itself: the thread is stopped and the from-space blocks become
//! that major GC's evacuation candidates, so its trace copies what was not
//! copied yet and follows the forwarding pointers of what was.
//!
//! Note [Blocks cut during the marking]
//! ----------------------------------------
//! The young GCs of a marking promote into the snapshot's holes, where
//! each object is marked as it is placed, and into fresh blocks, which the
//! snapshot's bitmap does not cover. Every object promoted during the
//! marking is alive for this cycle (allocated black), and a fresh block is
//! filled from its start, so such a block is judged by its fill alone:
//! its words up to its fill are live, the lines after it free (the line
//! sweeper's `filled`). The sync that ends the marking used to walk these
//! blocks' objects to mark them: 7-14 ms of a 10-18 ms sync on
//! binary-trees 20. Slop in such a block counts as live until the next
//! marking, as slop of an uncollected generation does (Note [Checking the
//! word counts] in core's `sanity`).
//!
//! Note [Nothing is retired while the mutators run]
//! ----------------------------------------
//! Concurrent copiers that free memory the mutators may still read
//! (ZGC's forwarding tables, Shenandoah's regions freed one by one,
//! work lists handed between GC threads and mutators) need a way to know
//! that no mutator still holds a pointer into it: epochs (crossbeam-epoch)
//! or handshakes. Here the only such memory is the from-space, and it is
//! freed in a pause, after the update pass has fixed every old field, a
//! young GC every young object, and the pause itself every root: no
//! mutator can be inside it then, since a mutator loads from-space
//! addresses only through the read barrier, which hands out copies. The
//! to-spaces are never retired, only handed to the generation. So no
//! epoch is needed here. Freeing the from-space block by block sooner
//! would not need one either: a block can go only once nothing points
//! into it, which takes the update pass and a young GC, a pause; what an
//! epoch would buy is releasing a block's memory while pointers into it
//! remain, its forwarding pointers kept off the block (ZGC's forwarding
//! tables), every reader of a from-space header (the barrier, `evacuate`,
//! the update pass, weak pointers, `indirect_to_copy`, the sanity
//! checker) then consulting the table under a pin. The structure that the
//! mutators do read while another thread retires it is the stable pointer
//! table, which a capability outgrows while the others read it: that one
//! is retired by crossbeam-epoch (See Note [Reading stable pointers
//! without a lock] in core's `stable_ptr`).

use crate::copy_order::CopyOrder;
use crate::copier::{each_object, object_starts};
use crate::copiers::{parse_copier_threads, take_out_places, Copiers};
use crate::copy_out::{copy_out, indirect_to_copy, point_weaks_at_copies, CopyBarrier};
use crate::immix::{major, Candidates, Immix};
use crate::line_space::{LineSpace, Recyclable};
use crate::line_sweeper::{CopyOutCandidate, LineSweep};
use crate::nonmoving::MarkMode;
use crate::roots::root_slots;
use crate::CollectorEntry;
use gclab_core::access_hooks::{AccessHooks, Installed};
use gclab_core::bdescr::{BlockPtr, BF_COPYING_OUT, BF_EVACUATED};
use gclab_core::constants::{Word, BLOCK_WORDS, WORD_SIZE};
use gclab_core::stats::CopyOutStats;
use gclab_core::object::Layout;
use gclab_core::{Collector, CollectorEvent, ConcurrentPhase, GcContext, GcOutcome, GcReason, GcRequest};
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Instant;
use std::sync::Arc;

mod marking;
use marking::Marking;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "concurrent-copying",
    description: "Immix marked beside the mutators, whose sparsest old blocks are then copied out beside them behind a read barrier (Baker's to-space invariant) (live=PERCENT of a block's lines, default 50; gain=PERCENT of the old generation a cycle must free, default 1; mark=concurrent|sync; threads=N copier threads, default 1; line as immix)",
    flags: "",
    make: |mut params, flags| {
        if !Installed::compiled_in() {
            return Err("the concurrent-copying collector needs the read barrier compiled in: build gclab with `cargo build --release --features access-hooks`".to_string());
        }
        let live = params.take_percent("live", " of a block's lines", 0..=100, 50)?;
        let gain = params.take_percent("gain", " of the old generation", 0..=100, 1)?;
        let mark = params.take("mark").map(|v| MarkMode::parse(&v)).transpose()?.unwrap_or_default();
        let threads = params.take("threads").map(|v| parse_copier_threads(&v)).transpose()?.unwrap_or(1);
        if flags.generations < 2 {
            return Err(format!("the concurrent-copying collector needs at least two generations (its oldest is marked and copied beside the mutators, the young ones copied in pauses), not -G{}", flags.generations));
        }
        let mut immix = Immix::from_params(params, "concurrent-copying", &["live", "gain", "mark", "threads"])?;
        immix.defragment(false);
        let barrier = Arc::new(CopyBarrier::new(Layout::new(flags.profiling_header), flags.generations - 1));
        let fault = std::env::var("GCLAB_CONCURRENT_COPYING_FAULT").unwrap_or_default();
        let (no_barrier, lose_reached) = (fault == "no-barrier", fault == "lose-reached");
        Ok(Box::new(ConcurrentCopying { immix, live_percent: live, gain_percent: gain, mark, threads, barrier, marking: None, sweeping: None, spare_list: Vec::new(), cycle: None, events: Vec::new(), degenerate_in_cycle: false, no_barrier, lose_reached }))
    },
};

/// The concurrent copying collector.
pub struct ConcurrentCopying {
    immix: Immix,
    live_percent: usize,
    /// Copy out only what frees this much of the old generation (See Note
    /// [A copying-out that pays for itself] in `defrag`).
    gain_percent: usize,
    mark: MarkMode,
    /// Copier threads per cycle.
    threads: usize,
    barrier: Arc<CopyBarrier>,
    /// A marking under way.
    marking: Option<Marking>,
    /// The line space's sweep after a marking, under way.
    sweeping: Option<LineSweep>,
    /// The buffer the last sweep handed back (See `LineSweep::begin`).
    spare_list: Vec<BlockPtr>,
    /// A copying-out under way (never beside a marking or a sweep).
    cycle: Option<Cycle>,
    /// What it did beyond its GCs, not yet taken by the runtime.
    events: Vec<CollectorEvent>,
    /// This pause is a degenerate collection ending the running cycle.
    degenerate_in_cycle: bool,
    /// The test-only fault `GCLAB_CONCURRENT_COPYING_FAULT=no-barrier`:
    /// the read barrier is never turned on, so mutators go on using the
    /// from-space objects after they are copied (their writes lost, their
    /// roots left in the from-space), which the checks must catch.
    no_barrier: bool,
    /// The test-only fault `GCLAB_CONCURRENT_COPYING_FAULT=lose-reached`:
    /// the old objects that the pause beginning a marking reached are not
    /// handed to the marker, which must then miss what only they lead to
    /// (See Note [The marker attaches its snapshot] in `concurrent_mark::attach`).
    lose_reached: bool,
}

/// A copying-out under way (See Note [A copying-out cycle]).
struct Cycle {
    /// When it began.
    started: Instant,
    /// The from-space blocks.
    from: Vec<BlockPtr>,
    /// What the old generation counts for them until they are freed
    /// (See Note [What the from-space counted] in `line_sweeper`).
    from_counted: usize,
    copiers: Copiers,
    /// The updating half has begun.
    updating: bool,
    /// GCs of every young generation since it began.
    young_gcs_updating: usize,
}

impl Collector for ConcurrentCopying {
    fn name(&self) -> &'static str {
        "concurrent-copying"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let major = req.collect_gen == oldest;
        // A major GC the program asks for, or the heap's limit forces, is
        // done in its pause, finishing what runs beside the mutators (the
        // latter is a degenerate collection: See `GcRequest::heap_full`).
        let in_pause = major && (req.reason == GcReason::Explicit || req.heap_full);
        let degenerate = in_pause && req.heap_full && (self.marking.is_some() || self.sweeping.is_some() || self.cycle.is_some());
        if degenerate && self.cycle.is_none() {
            self.events.push(CollectorEvent::CopyOutEnd { stats: CopyOutStats { degenerate: 1, ..CopyOutStats::default() }, concurrent: None });
        } else if degenerate {
            self.degenerate_in_cycle = true;
        }
        if let Some(marking) = &self.marking {
            if !in_pause {
                // The marker goes on beside it, given a core: See Note
                // [The marker runs through young GCs] in `concurrent_mark`.
                let n = req.collect_gen.min(oldest - 1);
                let _room = marking.marker.make_room(ctx.flags, n);
                return self.young_gc_marking(n, ctx);
            }
            marking.marker.queue.finish_attaching();
            marking.marker.queue.pause();
            self.drop_marking(ctx);
        }
        if self.sweeping.is_some() {
            self.settle_sweep(ctx);
            if in_pause {
                let marks = self.sweeping.take().expect("a sweep runs").abandon(&mut ctx.heap.gens[oldest]);
                let done = self.major_in_pause(req, ctx);
                drop(marks);
                return done;
            }
            return self.immix.collect(&GcRequest { collect_gen: req.collect_gen.min(oldest - 1), ..*req }, ctx);
        }
        if self.cycle.is_some() {
            if in_pause {
                let done = self.major_gc(req, ctx);
                if !req.heap_full {
                    self.start_cycle(ctx, None);
                }
                return done;
            }
            let young = GcRequest { collect_gen: req.collect_gen.min(oldest - 1), ..*req };
            return self.young_gc_copying(&young, ctx);
        }
        if !major {
            return self.immix.collect(req, ctx);
        }
        if self.mark == MarkMode::Concurrent && !in_pause {
            return self.begin_marking(ctx);
        }
        self.major_in_pause(req, ctx)
    }

    fn sync(&mut self, ctx: &mut GcContext<'_>) {
        if self.marking.is_some() {
            self.sync_marking(ctx);
            return;
        }
        if self.sweeping.is_some() {
            if self.settle_sweep(ctx) {
                let candidates = self.end_sweep(ctx);
                self.start_cycle(ctx, Some(candidates));
            }
            return;
        }
        let Some(cycle) = self.cycle.as_mut() else { return };
        let drained = cycle.copiers.pause();
        // SAFETY: the world is stopped and the copiers parked.
        unsafe { self.fix_roots(ctx) };
        self.next_step(ctx, drained);
    }

    fn world_stopped(&mut self, ctx: &mut GcContext<'_>) {
        self.attach_snapshot();
        if self.sweeping.is_some() {
            self.settle_sweep(ctx);
            let sweep = self.sweeping.as_ref().expect("a sweep runs");
            // SAFETY: the world is stopped and the sweeper parked (`settle_sweep`).
            unsafe { sweep.make_walkable(&ctx.heap.gens[ctx.heap.oldest()]) };
        }
        if let Some(cycle) = &self.cycle {
            cycle.copiers.pause();
            // SAFETY: the world is stopped and the copiers parked.
            unsafe { self.settle(&cycle.copiers, ctx) };
        }
    }

    fn world_restarts(&mut self) {
        self.release_marker();
        if let Some(cycle) = &self.cycle {
            cycle.copiers.resume();
        }
        if let Some(sweep) = &self.sweeping {
            sweep.resume();
        }
    }

    fn check_heap(&self, heap: &gclab_core::heap::Heap) -> Vec<String> {
        self.immix.check_heap(heap)
    }

    fn take_events(&mut self) -> Vec<CollectorEvent> {
        std::mem::take(&mut self.events)
    }

    fn access_hooks(&self) -> AccessHooks {
        AccessHooks::new(self.barrier.clone())
    }

    fn is_concurrent(&self) -> bool {
        true
    }
}

impl ConcurrentCopying {
    /// A GC of the young generations `0..=req.collect_gen` while a
    /// copying-out runs, with the copiers parked.
    fn young_gc_copying(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let oldest = ctx.heap.oldest();
        let drained = self.cycle.as_ref().expect("a cycle runs").copiers.pause();
        // SAFETY: the world is stopped and the copiers parked.
        unsafe { self.settle_cycle(ctx) };
        let done = self.immix.collect(req, ctx);
        let cycle = self.cycle.as_mut().expect("the cycle runs");
        if cycle.updating && done.collected_gen + 1 >= oldest {
            cycle.young_gcs_updating += 1;
        }
        // SAFETY: as above.
        unsafe { self.fix_roots(ctx) };
        self.next_step(ctx, drained);
        done
    }

    /// `immix`'s major GC, then a copying-out of its sparsest blocks. One
    /// the heap's limit forces defragments in its pause instead, as
    /// `immix` does under `-M`, and starts no copying-out (whose copies
    /// would need room the heap lacks).
    fn major_in_pause(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        if !req.heap_full {
            let done = self.immix.collect(req, ctx);
            self.start_cycle(ctx, None);
            return done;
        }
        self.immix.defragment(true);
        let done = self.immix.collect(&GcRequest { compact_oldest: true, ..*req }, ctx);
        self.immix.defragment(false);
        done
    }

    /// Take what the sweeper judged since the last stop (it is parked);
    /// true if the sweep is done.
    fn settle_sweep(&mut self, ctx: &mut GcContext<'_>) -> bool {
        let sweep = self.sweeping.as_ref().expect("a sweep runs");
        let done = sweep.pause();
        let oldest = ctx.heap.oldest();
        let (space, _) = self.immix.parts(oldest);
        sweep.settle(space, &mut ctx.heap.gens[oldest]);
        done
    }

    /// The sweep is done and settled: free the blocks it found empty.
    /// Returns the blocks it gathered for a copying-out cycle (See Note
    /// [The sweep gathers what a cycle copies out] in `line_sweeper`).
    fn end_sweep(&mut self, ctx: &mut GcContext<'_>) -> Vec<CopyOutCandidate> {
        let sweep = self.sweeping.take().expect("a sweep runs");
        let oldest = ctx.heap.oldest();
        let gclab_core::heap::Heap { blocks, gens, .. } = &mut *ctx.heap;
        // SAFETY: the world is stopped and every block judged.
        let end = unsafe { sweep.finish(&mut gens[oldest], &mut blocks.lock()) };
        self.events.push(CollectorEvent::SweepEnd { swept_words: end.swept_words });
        self.spare_list = end.spare_list;
        end.candidates
    }

    /// A major GC: `immix`'s, ending a running cycle inside it (See Note
    /// [A copying-out cycle]).
    fn major_gc(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let Some(mut cycle) = self.cycle.take() else { return self.immix.collect(req, ctx) };
        cycle.copiers.stop();
        self.report_cycle(&cycle);
        let oldest = ctx.heap.oldest();
        // SAFETY: the world is stopped and the copiers gone.
        unsafe { self.settle(&cycle.copiers, ctx) };
        self.finish_to_spaces(&cycle.copiers);
        let layout = ctx.heap.layout;
        // SAFETY: the world is stopped and the copiers gone.
        unsafe { point_weaks_at_copies(ctx) };
        for &bd in &cycle.from {
            // SAFETY: a from-space block, the collector's while the world
            // is stopped; the copier is gone.
            unsafe {
                each_object(bd, layout, |p, _| indirect_to_copy(p, layout));
                bd.get().remove_flags(BF_COPYING_OUT | BF_EVACUATED);
            }
        }
        self.barrier.set_active(false);
        let (space, pool) = self.immix.parts(oldest);
        let workers = pool.for_collection(ctx.flags, oldest, ctx.help);
        // SAFETY: the runtime gives the collector the heap exclusively;
        // the from-space blocks are in the old generation's list, and
        // every object in them is live or forwarded.
        unsafe { major(space, ctx, workers, Candidates::Chosen(cycle.from), CopyOrder::BreadthFirst) }
    }

    /// After a major GC: choose the from-space and start copying it out.
    /// `swept`: the blocks sparse enough that the sweep which ended in
    /// this sync gathered, if the major GC swept beside the mutators (See
    /// Note [The sweep gathers what a cycle copies out] in
    /// `line_sweeper`); `None` if it swept in this very pause, whose
    /// recyclable list is searched instead.
    fn start_cycle(&mut self, ctx: &mut GcContext<'_>, swept: Option<Vec<CopyOutCandidate>>) {
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let (space, _) = self.immix.parts(oldest);
        let most_used = copy_out_lines(space, self.live_percent);
        let old_words = ctx.heap.gens[oldest].occupied_blocks() * BLOCK_WORDS;
        let from = match swept {
            Some(candidates) => {
                let freed = candidates.iter().map(|c| c.free_words).sum();
                if !crate::defrag::pays_for_itself(freed, self.gain_percent, old_words) {
                    space.relist(&mut candidates.iter().map(|c| Recyclable { bd: c.bd, used: c.used }).collect());
                    return;
                }
                candidates
            }
            // SAFETY: the world is stopped: nobody allocates into the space.
            None => unsafe { candidates_in_pause(space, most_used, self.gain_percent, old_words, layout) },
        };
        if from.is_empty() {
            return;
        }
        let (mut from_words, mut from_counted) = (0, 0);
        let mut jobs = Vec::with_capacity(from.len());
        let old = &mut ctx.heap.gens[oldest];
        for c in &from {
            from_words += c.words;
            from_counted += c.counted;
            jobs.push((c.bd, c.starts));
            // Its holes were the generation's free words.
            old.n_free_words -= c.free_words;
            // SAFETY: a block of the old generation, which the stopped
            // world leaves to the collector.
            unsafe { c.bd.get() }.insert_flags(BF_COPYING_OUT);
        }
        let blocks: Vec<BlockPtr> = from.iter().map(|c| c.bd).collect();
        // SAFETY: the heap's block allocator outlives the collector (the
        // runtime drops the collector first).
        let copiers = unsafe {
            self.barrier.to.lock().expect("the mutators' to-space").start(&ctx.heap.blocks);
            Copiers::start(jobs, self.threads, oldest, &ctx.heap.blocks, layout, ctx.sync_request)
        };
        self.barrier.set_active(!self.no_barrier);
        self.events.push(CollectorEvent::CopyOutBegin { blocks: blocks.len() as u32, bytes: (from_words * WORD_SIZE) as u64 });
        self.cycle = Some(Cycle { started: Instant::now(), from: blocks, from_counted, copiers, updating: false, young_gcs_updating: 0 });
        // SAFETY: the world is stopped and the copiers parked.
        unsafe { self.fix_roots(ctx) };
    }

    /// The copier is parked (it goes on when the world restarts): start
    /// the updating half once copying is done, or end the cycle once that
    /// is done and a young GC ran in it.
    fn next_step(&mut self, ctx: &mut GcContext<'_>, drained: bool) {
        let cycle = self.cycle.as_mut().expect("a cycle runs");
        if !drained {
            return;
        }
        if !cycle.updating {
            for &bd in &cycle.from {
                // SAFETY: a from-space block, every object of it copied.
                unsafe { bd.get() }.remove_flags(BF_EVACUATED);
            }
            let old = &ctx.heap.gens[ctx.heap.oldest()];
            // The update pass tests a field's block by its start address.
            // SAFETY: the from-space's descriptors are live until it is freed.
            let from: HashSet<usize> = cycle.from.iter().map(|bd| unsafe { bd.read() }.start as usize).collect();
            cycle.updating = true;
            // See Note [The update pass is handed the whole list] in `copier`.
            cycle.copiers.update(from, old.blocks.clone(), old.large_objects.clone());
            return;
        }
        if cycle.young_gcs_updating == 0 {
            return;
        }
        self.end_cycle(ctx);
    }

    /// The cycle is over (its copier stopped): report what it did.
    fn report_cycle(&mut self, cycle: &Cycle) {
        let counts = &self.barrier.counts;
        let take = |c: &std::sync::atomic::AtomicUsize| c.swap(0, Ordering::Relaxed) as u64;
        let (copied_words, updated, cpu) = cycle.copiers.work();
        let stats = CopyOutStats {
            cycles: 1,
            copied_bytes: (copied_words * WORD_SIZE) as u64,
            mutator_copies: take(&counts.copies),
            mutator_copied_bytes: take(&counts.copied_bytes),
            barrier_slow_paths: take(&counts.slow_paths),
            updated_fields: updated as u64,
            degenerate: std::mem::take(&mut self.degenerate_in_cycle) as u64,
        };
        let concurrent = ConcurrentPhase { cpu, elapsed: cycle.started.elapsed().as_secs_f64() };
        self.events.push(CollectorEvent::CopyOutEnd { stats, concurrent: Some(concurrent) });
    }

    /// Free the from-space: nothing points into it any more.
    fn end_cycle(&mut self, ctx: &mut GcContext<'_>) {
        let mut cycle = self.cycle.take().expect("a cycle runs");
        cycle.copiers.stop();
        self.report_cycle(&cycle);
        // SAFETY: the world is stopped and the copiers gone.
        unsafe { self.settle(&cycle.copiers, ctx) };
        self.finish_to_spaces(&cycle.copiers);
        self.barrier.set_active(false);
        let oldest = ctx.heap.oldest();
        let gclab_core::heap::Heap { blocks, gens, .. } = &mut *ctx.heap;
        let old = &mut gens[oldest];
        take_out_places(&mut old.blocks, &cycle.copiers.places_of_the_from_space(), cycle.from.len());
        old.n_blocks -= cycle.from.len();
        old.n_words -= cycle.from_counted;
        let mut ba = blocks.lock();
        for bd in cycle.from {
            // SAFETY: nothing points into the block (See Note [A
            // copying-out cycle]).
            unsafe { bd.get() }.remove_flags(BF_COPYING_OUT);
            ba.free_group(bd);
        }
    }

    /// Give the old generation the copies made since the last pause.
    ///
    /// # Safety
    /// The world is stopped and the copiers parked or gone.
    // SAFETY: the caller's contract: nobody adds to the to-spaces meanwhile.
    unsafe fn settle(&self, copiers: &Copiers, ctx: &mut GcContext<'_>) {
        let oldest = ctx.heap.oldest();
        let old = &mut ctx.heap.gens[oldest];
        copiers.to_spaces().for_each(|mut to| to.settle(old));
        self.barrier.to.lock().expect("the mutators' to-space").settle(old);
    }

    /// Make the to-spaces ordinary line-space blocks (settled already).
    fn finish_to_spaces(&self, copiers: &Copiers) {
        copiers.to_spaces().for_each(|mut to| to.finish());
        self.barrier.to.lock().expect("the mutators' to-space").finish();
    }

    /// Copy every root that points into the from-space (See Note [A
    /// copying-out cycle]).
    ///
    /// # Safety
    /// The world is stopped and the copiers parked.
    // SAFETY: the caller's contract: roots hold valid objects and only this thread copies.
    unsafe fn fix_roots(&mut self, ctx: &mut GcContext<'_>) {
        let Some(cycle) = &self.cycle else { return };
        let layout = ctx.heap.layout;
        let mut to = cycle.copiers.first_to().lock().expect("the copier's to-space");
        let mut fix = |slot: *mut Word| {
            let p = *slot as *mut Word;
            if crate::copy_out::in_from_space(p) {
                *slot = copy_out(p, layout, &mut to).0 as Word;
            }
        };
        for slot in root_slots(ctx.caps, ctx.stable_ptrs) {
            fix(slot);
        }
        let lists = ctx.caps.iter_mut().flat_map(|c| c.mut_lists.iter_mut().flatten().chain(c.new_weaks.iter_mut()));
        for obj in lists.chain(ctx.heap.gens.iter_mut().flat_map(|g| g.weak_ptrs.iter_mut())) {
            fix(&mut obj.0 as *mut *mut Word as *mut Word);
        }
        drop(to);
        // SAFETY: as above.
        unsafe { self.settle(&cycle.copiers, ctx) };
    }

    /// `settle` for the running cycle's copier.
    ///
    /// # Safety
    /// As for `settle`.
    // SAFETY: the caller's contract, passed on to `settle`.
    unsafe fn settle_cycle(&self, ctx: &mut GcContext<'_>) {
        if let Some(cycle) = &self.cycle {
            // SAFETY: the caller's contract.
            unsafe { self.settle(&cycle.copiers, ctx) };
        }
    }
}

/// The most lines a block of `space` may have used and still be copied
/// out: `live_percent` of them (`live=PERCENT`).
fn copy_out_lines(space: &LineSpace, live_percent: usize) -> usize {
    space.geometry().lines() * live_percent / 100
}

/// The blocks of `space` that a copying-out cycle takes when the sweep ran
/// in this very pause: its recyclable blocks with at most `most_used`
/// lines used, if together they pay for a cycle (See Note [A copying-out
/// that pays for itself] in `defrag`), taken off its list and walked for
/// their object starts; none otherwise.
///
/// # Safety
/// The world is stopped: nobody allocates into the space.
// SAFETY: the caller's contract, which `copy_out_choice` needs; swept blocks, so objects and zero words tile them.
unsafe fn candidates_in_pause(space: &LineSpace, most_used: usize, gain_percent: usize, old_words: usize, layout: Layout) -> Vec<CopyOutCandidate> {
    // SAFETY: the caller's contract.
    let from = unsafe { crate::defrag::copy_out_choice(space, most_used, gain_percent, old_words) };
    space.forget(&from.iter().map(|b| b.bd).collect::<Vec<_>>());
    let walk = |b: &crate::defrag::BlockHoles| {
        // SAFETY: as above.
        let (starts, words) = unsafe { object_starts(b.bd, layout) };
        // Swept in this pause: the walk's words are what it counted (See
        // Note [What the from-space counted] in `line_sweeper`).
        CopyOutCandidate { bd: b.bd, used: b.used, free_words: b.free_words, counted: words, starts, words }
    };
    from.iter().map(walk).collect()
}
