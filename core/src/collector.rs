//! The `Collector` trait: what a garbage collector is to the runtime.
//!
//! The runtime decides *when* to collect and *which* generations (the
//! policy, in `policy`), stops the mutators, and hands the collector a
//! request and a context: the heap (blocks, generations, nurseries), every
//! capability (roots, mutable lists), the stable pointer table and the
//! flags. The collector decides *how*: it must leave every object reachable
//! from the roots in the generations' block lists, with every root and
//! pointer updated, the mutable lists of uncollected generations complete
//! (the remembered-set invariant), dead weak pointers queued for
//! finalisation, and from-space freed. It reports what it did. Afterwards
//! the runtime resets the nurseries, resizes, records statistics, and runs
//! the sanity checker under `-DS`.
//!
//! A new collector is a type implementing this trait in one module of the
//! collectors crate, plus one line in that crate's registry.

use crate::capability::Capability;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use crate::flags::RtsFlags;
use crate::heap::Heap;
use crate::stable_ptr::StablePtrTable;

/// Why a GC happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcReason {
    /// The allocation area is full.
    HeapExhausted,
    /// Large objects allocated since the last GC reached the nursery's size.
    LargeAllocation,
    /// `--gc-every`: a forced GC every n allocations.
    Forced,
    /// The program asked (`perform_gc`, the `Gc` API).
    Explicit,
}

/// What to collect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcRequest {
    /// Collect generations `0..=collect_gen`.
    pub collect_gen: usize,
    /// Why.
    pub reason: GcReason,
    /// The policy asks that the oldest generation be compacted in place
    /// (`-c`, or `-c<n>` past its threshold). Collectors that cannot
    /// compact copy instead.
    pub compact_oldest: bool,
    /// The heap is past its limit (`-M`, or the heap policy's size): this
    /// major GC must free memory in its pause. A concurrent collector
    /// whose cycle is under way finishes it here, stopping the world (a
    /// degenerate collection, as Shenandoah's), instead of collecting the
    /// young generations only.
    pub heap_full: bool,
}

impl GcRequest {
    /// Is the oldest generation of `heap` collected?
    pub fn is_major(&self, heap: &Heap) -> bool {
        self.collect_gen == heap.oldest()
    }
}

/// Everything a collector may touch, held exclusively for the GC.
pub struct GcContext<'a> {
    /// The run's settings.
    pub flags: &'a RtsFlags,
    /// The heap.
    pub heap: &'a mut Heap,
    /// Every capability: roots, mutable lists, dead weak queues.
    pub caps: &'a mut [Capability],
    /// Global roots.
    pub stable_ptrs: &'a mut StablePtrTable,
    /// The capability whose mutator asked for this GC and whose OS thread
    /// runs it (a parallel collector gives it that capability's roots,
    /// which are warm in its cache).
    pub leader: usize,
    /// How the collector's own threads ask for a sync later (See Note
    /// [Concurrent phases]): clone it into them.
    pub sync_request: &'a SyncRequest,
    /// Where a parallel collector posts work for the mutator threads
    /// stopped for this GC (See Note [Stopped mutators help the GC] in
    /// `gc_help`): hand it to the GC threads' pool.
    pub help: &'a std::sync::Arc<crate::gc_help::HelpBoard>,
}

// Note [Concurrent phases]
// ----------------------------------------
// A collector may keep threads of its own that work while the mutators
// run: marking, sweeping, a census. What they may touch between GCs is
// the collector's own state (its side tables, the blocks it holds and has
// taken out of every generation's lists) and the objects of blocks that
// no mutator and no GC moves or writes meanwhile (the blocks of a
// non-moving space, whose objects the mutators can still write through
// the barrier: See Note [Extending the barrier] in `barrier` for how a
// collector learns of those writes). Nurseries, capabilities, young
// generations and the runtime's lists are the GC's and the mutators'
// alone. Every `collect` runs with the world stopped and the collector
// held exclusively, so a collector pauses or joins its threads there if
// they could race with the GC it is about to do.
//
// When a concurrent phase needs the world stopped (to take the mutators'
// recorded barrier values, to finish marking, to hand swept blocks
// back), one of its threads calls `SyncRequest::request`. Each mutator
// checks the request at its safe points (the allocation slow path and
// `poll`), so within a block's worth of allocation one of them stops the
// world and the runtime calls `Collector::sync` with the same context a
// GC gets; the sanity checker runs after it under `-DS`, and the
// statistics count the syncs and their time. Objects a collector places
// in its own spaces while a phase runs (promotion during minor GCs) are
// coloured by its space allocator as it chooses (mark-sweep's allocates
// black in a major GC); mutators allocate only into the nursery, which no
// concurrent phase traces. A phase whose threads change what the pause's
// readers walk (a concurrent copier placing copies in old blocks, which
// the sanity checker and a census walk after `collect`) keeps them
// parked until `Collector::world_restarts`.

/// A collector's request for a stop-the-world sync, made from any thread
/// (See Note [Concurrent phases]). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct SyncRequest(Arc<AtomicBool>);

impl SyncRequest {
    /// Ask the runtime to stop the world and call `Collector::sync`.
    pub fn request(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Is a sync asked for? (A relaxed read, for safe points.)
    #[inline(always)]
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Take the request: true once per `request`.
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::Acquire)
    }
}

/// A concurrent phase a collector's own threads finished (a nonmoving
/// collector's marking cycle): their CPU seconds, and the wall-clock
/// seconds from its start to its end, beside the mutators; for GHC's
/// `Gen 1 concurrent` line and `CONC GC time` (See `CollectorEvent`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ConcurrentPhase {
    /// CPU seconds of the collector's threads.
    pub cpu: f64,
    /// Wall-clock seconds from the phase's start to its end.
    pub elapsed: f64,
}

/// Something a collector did outside the runtime's view, for the
/// eventlog (GHC's nonmoving events) and the statistics. The runtime
/// takes them after every GC and sync (`Collector::take_events`) and
/// writes them with the time it takes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CollectorEvent {
    /// A marking began (`CONC_MARK_BEGIN`).
    MarkBegin,
    /// A marking ended, having marked `marked_objects` objects
    /// (`CONC_MARK_END`); `concurrent`: what it cost beside the mutators,
    /// None when it ran inside a pause.
    MarkEnd {
        /// Objects marked.
        marked_objects: u32,
        /// Words of those objects (the statistics' `marked_bytes`).
        marked_words: usize,
        /// Its concurrent phase, if it had one.
        concurrent: Option<ConcurrentPhase>,
    },
    /// A sweep began (`CONC_SWEEP_BEGIN`).
    SweepBegin,
    /// A sweep ended (`CONC_SWEEP_END`).
    SweepEnd {
        /// Words of dead objects it freed (the statistics' `swept_bytes`).
        swept_words: usize,
    },
    /// Capability `cap`'s update remembered set was taken
    /// (`CONC_UPD_REM_SET_FLUSH`).
    RemSetFlush {
        /// The capability.
        cap: u16,
    },
    /// A concurrent copier began copying `blocks` blocks holding `bytes`
    /// bytes of objects out (`COPY_OUT_BEGIN`, gclab's own).
    CopyOutBegin {
        /// Blocks of the from-space.
        blocks: u32,
        /// Bytes of the objects in them.
        bytes: u64,
    },
    /// A concurrent copier's cycle ended, the from-space freed
    /// (`COPY_OUT_END`, gclab's own): what it did (`stats.cycles` is 1),
    /// and its concurrent phase; or a degenerate collection ended a
    /// marking or sweep, with no cycle (`stats.cycles` 0, no phase).
    CopyOutEnd {
        /// What the cycle did.
        stats: crate::stats::CopyOutStats,
        /// The cycle beside the mutators.
        concurrent: Option<ConcurrentPhase>,
    },
    /// A reference-counting collector's thread beside the mutators ended
    /// a run of decrements (`DECREMENTS_END`, gclab's own): the counts it
    /// lowered, the objects it found dead, and its phase.
    DecrementsEnd {
        /// Counts lowered.
        decrements: u64,
        /// Objects whose counts fell to zero.
        freed_objects: u64,
        /// The run beside the mutators.
        concurrent: ConcurrentPhase,
    },
    /// One line of the old generation's census by size (GHC's
    /// `NONMOVING_HEAP_CENSUS`, with `-ln`): cells of at most
    /// `2^log_cell_bytes` bytes, in `active` partly free blocks and
    /// `filled` full ones, `live` of them in use.
    Census {
        /// log2 of the largest cell size counted, in bytes.
        log_cell_bytes: u8,
        /// Blocks with a free cell.
        active: u32,
        /// Blocks with none.
        filled: u32,
        /// Cells in use.
        live: u32,
    },
}

/// What one GC thread did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadWork {
    /// Words it copied (or, compacting, moved).
    pub copied_words: usize,
    /// Objects it scavenged.
    pub scanned_objects: usize,
    /// Words it moved from generation 0 (nursery included) into an older
    /// generation: OCaml's "promoted words".
    pub promoted_words: usize,
    /// Of `copied_words`, the words it copied out of the oldest
    /// generation's blocks (with one generation, out of generation 0's
    /// blocks other than the nursery's): a copying major GC's old
    /// survivors, or the objects a mark-region collector evacuates to
    /// defragment.
    pub oldest_copied_words: usize,
    /// Words of objects it marked in place (not copied).
    pub marked_words: usize,
    /// Objects it scanned after prefetching what they point to (See Note
    /// [Prefetching a marking] in the collectors' `prefetch_ring`).
    pub prefetched_objects: usize,
    /// When this thread came in to a parallel GC and when it left; None
    /// in a sequential GC, and for a pool thread that never came in (See
    /// Note [Late GC threads] in the collectors' `gc_workers`). The
    /// eventlog's GC_WORK and GC_IDLE carry these times.
    pub active: Option<(std::time::Instant, std::time::Instant)>,
}

/// What the collector did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcOutcome {
    /// The oldest generation it actually collected (a collector may
    /// collect more than asked; statistics and the policy follow this).
    pub collected_gen: usize,
    /// Words copied to to-space, all threads together.
    pub copied_words: usize,
    /// Per GC thread (one entry for a sequential collector).
    pub threads: Vec<ThreadWork>,
    /// The collected oldest generation was kept in place (marked, then
    /// compacted or swept): its next collection needs no room for a copy,
    /// and the policy sizes the heap under `-M` accordingly.
    pub in_place: bool,
    /// The oldest generation was compacted (counted in `-s`).
    pub compacted: bool,
    /// Words of objects marked in place (not copied).
    pub marked_words: usize,
    /// Words of dead objects a sweep gave back as free space.
    pub swept_words: usize,
    /// What the sweep of a line-marked (mark-region) space found, for a
    /// collector that has one (`immix`'s major GCs).
    pub region: Option<RegionSweep>,
    /// What a sliding compaction of the oldest generation moved and left
    /// where it was (`compacting`'s major GCs).
    pub compaction: Option<CompactionRecord>,
    /// A partial collection also collected part of this older generation
    /// (an increment: See Note [Increments] in the collectors'
    /// `from_space`). The GC still counts as one of `0..=collected_gen`;
    /// the sanity checker's minor scope covers the increment's generation.
    pub increment_of: Option<usize>,
    /// A major GC that only began collecting the oldest generation beside
    /// the mutators (a concurrent marking): what it frees is freed later,
    /// so the heap's limit is judged at the next GC, which the policy
    /// makes a major one with `heap_full` (a degenerate collection).
    pub began_concurrently: bool,
}

/// One sweep of a mark-region space, by lines and blocks (Immix's
/// statistics): in `-S`, the JSON record, `gclab report` and the
/// eventlog's `REGION_SWEEP` event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RegionSweep {
    /// Bytes per line.
    pub line_bytes: u32,
    /// Blocks the sweep judged (marked in place this GC).
    pub blocks_swept: u32,
    /// Of those, blocks with nothing live, given back to the block allocator.
    pub blocks_freed: u32,
    /// Blocks left with at least one free line: recyclable, their holes
    /// reused by the next GCs' promotion.
    pub blocks_recyclable: u32,
    /// Free lines found in the blocks kept (the holes), all together.
    pub lines_free: u32,
    /// Blocks evacuated to defragment (See Note [Choosing what to
    /// evacuate] in `defrag`); 0 when this GC did not defragment.
    pub defrag_blocks: u32,
    /// Bytes of live objects copied out of those blocks.
    pub defrag_copied_bytes: u64,
}

/// One sliding compaction of a generation, by blocks (See Note [Blocks
/// left in place] in the collectors' `compaction_plan`): in `-S`, the JSON
/// record, `gclab report` and the eventlog's `COMPACTION` event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CompactionRecord {
    /// Blocks of the generation the compaction planned.
    pub blocks: u32,
    /// Of those, blocks nearly all live, left where they were with their
    /// dead words zeroed (`compacting:dead=N`).
    pub blocks_left_in_place: u32,
    /// The leading run of blocks whose objects kept their addresses (left
    /// in place, slid onto themselves, or empty): pointers into them were
    /// not changed.
    pub blocks_unmoved: u32,
    /// Blocks left empty after the slide, given back to the block
    /// allocator.
    pub blocks_freed: u32,
    /// Dead bytes left as holes (slop) in the blocks left in place.
    pub hole_bytes: u64,
    /// Bytes of the live objects of the blocks that slid.
    pub slid_bytes: u64,
}

impl GcOutcome {
    /// Did more than one thread take part?
    pub fn parallel(&self) -> bool {
        self.threads.len() > 1
    }
}

/// A garbage collector.
pub trait Collector: Send + Sync {
    /// Its name in the registry, `--collector`, results and reports.
    fn name(&self) -> &'static str;
    /// Collect as `req` asks. See the module doc for what must hold after.
    /// The collector is held exclusively for the GC, so it keeps whatever
    /// it carries from one GC to the next (spaces, GC thread pools) in
    /// plain fields.
    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome;
    /// The world is stopped because one of the collector's own threads
    /// asked (See Note [Concurrent phases]); `ctx` is as for `collect`,
    /// and what must hold afterwards is what holds between GCs.
    fn sync(&mut self, _ctx: &mut GcContext<'_>) {}
    /// The pause is over: everything the runtime does with the world
    /// stopped after `collect` or `sync` (statistics, the sanity checker,
    /// a heap census) is done, and the mutators are about to run. A
    /// collector whose own threads change what those read (objects placed
    /// in the old generation's blocks by a concurrent copier) lets them go
    /// here rather than at the end of `collect` (See Note [Concurrent
    /// phases]).
    fn world_restarts(&mut self) {}
    /// The world is stopped between GCs for a walk of the heap (`Gc.stat`,
    /// a sanity check the program asks for); `world_restarts` follows the
    /// walk. A collector whose threads change what a walk reads parks
    /// them here, and leaves the heap's lists and counts whole.
    fn world_stopped(&mut self, _ctx: &mut GcContext<'_>) {}
    /// What it did since the last call, beyond what `collect` returns
    /// (called with the world stopped, after every `collect` and `sync`).
    fn take_events(&mut self) -> Vec<CollectorEvent> {
        Vec::new()
    }
    /// Check the collector's own invariants about the heap (a space's
    /// free lines or cells really free, say): the sanity checker calls it
    /// after its own checks, with the world stopped, and reports each
    /// string returned as a violation.
    fn check_heap(&self, _heap: &Heap) -> Vec<String> {
        Vec::new()
    }
    /// The hooks it puts on the mutators' reference loads and in front of
    /// their stores (See Note [Access hooks] in `access_hooks`): asked
    /// once, when the runtime is made; in effect only in builds with
    /// gclab-core's `access-hooks` feature.
    fn access_hooks(&self) -> crate::access_hooks::AccessHooks {
        crate::access_hooks::AccessHooks::default()
    }
    /// Does it work beside the mutators (syncs and concurrent phases in
    /// `-s`, as GHC's `-xn` shows them)?
    fn is_concurrent(&self) -> bool {
        false
    }
    /// Does it compact the oldest generation when `compact_oldest` asks?
    /// (`Gc.compact` and a finite `max_overhead` need one that does.)
    fn can_compact(&self) -> bool {
        false
    }
}
