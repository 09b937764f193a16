//! Statistics: what the run measures about itself.
//!
//! Counters follow GHC's `RTSStats` (`rts/include/RtsAPI.h`) so that every
//! figure of `+RTS -s/-S/-t` has a field here with the same meaning:
//! allocation is counted per capability and the total is their sum (seed
//! 002); residency is sampled at major GCs; times are process CPU time and
//! wall-clock time, as `process_usage` reads them. `report` turns them
//! into GHC's text.
//!
//! Note [What is kept of each GC]
//! ----------------------------------------
//! Each GC's whole `GcRecord` goes to the observers when the GC ends (a
//! `-S` line, an eventlog event, the counters here) and is then dropped.
//! What stays for the rest of the run is a `GcSummary`: the figures read
//! per GC afterwards (the pauses of the latency report and its MMU, the
//! time to safepoint, the residency and holes the tests follow, a region
//! sweep or a compaction, boxed, as most GCs have neither). The whole
//! records had been kept, about 250 bytes a GC with their per-thread
//! vector: 1.7 MB for binary-trees 20's 7,000 GCs, and 90 MB for an hour
//! at 100 GCs a second. A summary is 80 bytes (29 MB for that hour); the
//! pauses must be kept for the latency report's MMU, and the allocation
//! and heap size for a JSON record's timeline.

use crate::constants::{BLOCKS_PER_MBLOCK, BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::capability::Allocated;
use crate::heap::Heap;
use serde::Serialize;

/// What is kept of one GC after it (See Note [What is kept of each GC]).
#[derive(Debug, Clone)]
pub struct GcSummary {
    /// The oldest generation collected.
    pub gen: usize,
    /// Elapsed seconds of this GC.
    pub gc_elapsed: f64,
    /// Elapsed seconds since the start, at its end.
    pub total_elapsed: f64,
    /// Seconds the mutator that led it waited for the others to stop.
    pub sync_wait: f64,
    /// Bytes live in the heap after it.
    pub live_bytes: u64,
    /// Bytes allocated since the previous GC (the timeline's allocation).
    pub allocated_bytes: u64,
    /// The heap's memory from the OS after it (the timeline's heap size).
    pub heap_bytes: u64,
    /// Bytes free for allocation inside partly used generation blocks
    /// after it.
    pub hole_bytes: u64,
    /// What the sweep of a mark-region space found, if it swept one.
    pub region: Option<Box<crate::collector::RegionSweep>>,
    /// What a sliding compaction moved, if the GC compacted.
    pub compaction: Option<Box<crate::collector::CompactionRecord>>,
}

const _: () = assert!(std::mem::size_of::<GcSummary>() == 80, "See Note [What is kept of each GC]");

impl GcSummary {
    /// What is kept of `rec`.
    pub fn of(rec: &GcRecord) -> GcSummary {
        GcSummary {
            gen: rec.gen,
            gc_elapsed: rec.gc_elapsed,
            total_elapsed: rec.total_elapsed,
            sync_wait: rec.sync_wait,
            live_bytes: rec.live_bytes,
            allocated_bytes: rec.allocated_bytes,
            heap_bytes: rec.heap_bytes,
            hole_bytes: rec.hole_bytes,
            region: rec.region.map(Box::new),
            compaction: rec.compaction.map(Box::new),
        }
    }
}

/// One GC, as a `-S` line and a JSON record entry.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GcRecord {
    /// The oldest generation collected.
    pub gen: usize,
    /// Bytes allocated since the previous GC.
    pub allocated_bytes: u64,
    /// Bytes copied by this GC.
    pub copied_bytes: u64,
    /// Bytes live in the heap after it.
    pub live_bytes: u64,
    /// Slop after it.
    pub slop_bytes: u64,
    /// Memory the heap holds from the OS after it, in whole megablocks
    /// (what the eventlog's HEAP_SIZE event says).
    pub heap_bytes: u64,
    /// CPU seconds of this GC.
    pub gc_cpu: f64,
    /// Elapsed seconds of this GC.
    pub gc_elapsed: f64,
    /// CPU seconds since the start, at its end.
    pub total_cpu: f64,
    /// Elapsed seconds since the start, at its end.
    pub total_elapsed: f64,
    /// Major page faults during the GC.
    pub gc_faults: u64,
    /// Major page faults in the mutator since the previous GC.
    pub mut_faults: u64,
    /// Bytes copied by each GC thread.
    pub thread_copied_bytes: Vec<u64>,
    /// Compacted rather than copied.
    pub compacted: bool,
    /// Bytes of objects marked in place (not copied).
    pub marked_bytes: u64,
    /// Bytes of dead objects a sweep freed for reuse.
    pub swept_bytes: u64,
    /// Objects a marking scanned after prefetching what they point to
    /// (See Note [When the marking prefetches] in the collectors'
    /// `prefetch_ring`).
    pub prefetched_objects: u64,
    /// Objects the GC scanned for pointers: every copy, and every object
    /// marked in place that has pointer fields (See Note [A leaf is
    /// marked, not pushed] in the collectors' `evacuate`).
    pub scanned_objects: u64,
    /// Bytes free for allocation inside partly used generation blocks
    /// after it (the holes of non-moving spaces).
    pub hole_bytes: u64,
    /// What the sweep of a mark-region space found (`immix`'s major GCs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<crate::collector::RegionSweep>,
    /// What a sliding compaction moved (`compacting`'s major GCs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<crate::collector::CompactionRecord>,
    /// Seconds the mutator that led it waited for the others to stop
    /// (time to safepoint; 0 with one capability), before `gc_elapsed`.
    pub sync_wait: f64,
}

/// Totals for one generation (the `-s` per-generation table).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GenStats {
    /// Collections in which it was the oldest collected.
    pub collections: u64,
    /// Of those, parallel ones.
    pub par_collections: u64,
    /// Of those, compactions.
    pub compactions: u64,
    /// CPU seconds.
    pub cpu: f64,
    /// Elapsed seconds.
    pub elapsed: f64,
    /// Longest pause, elapsed seconds.
    pub max_pause: f64,
}

/// The run's statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// GCs so far.
    pub gcs: u64,
    /// Major GCs (residency samples).
    pub major_gcs: u64,
    /// Of the other GCs, partial ones: the young generations with an
    /// increment of an older one (See Note [Increments] in the
    /// collectors' `from_space`).
    pub partial_gcs: u64,
    /// Bytes allocated (sum over capabilities).
    pub allocated_bytes: u64,
    /// Bytes allocated per capability.
    pub cap_allocated_bytes: Vec<u64>,
    /// Of `allocated_bytes`, those allocated into regions a collector
    /// offered (holes of its old blocks: See Note [Allocation regions] in
    /// `alloc_region`).
    pub mutator_hole_bytes: u64,
    /// Objects allocated, counted with `--count-objects` (0 without it).
    pub allocated_objects: u64,
    /// Bytes copied.
    pub copied_bytes: u64,
    /// Words moved from generation 0 into older generations (OCaml's
    /// promoted words).
    pub promoted_words: u64,
    /// Major collections the program asked for (`Gc.full_major`, ...).
    pub forced_major_collections: u64,
    /// Bytes copied in parallel GCs.
    pub par_copied_bytes: u64,
    /// Sum over parallel GCs of the most any one thread copied.
    pub cumulative_par_max_copied_bytes: u64,
    /// Sum over parallel GCs of the balanced share (GHC's definition).
    pub cumulative_par_balanced_copied_bytes: u64,
    /// Largest live data seen at a major GC.
    pub max_live_bytes: u64,
    /// Sum of live bytes over major GCs (for the average).
    pub cumulative_live_bytes: u64,
    /// Largest large-object total seen.
    pub max_large_objects_bytes: u64,
    /// Largest slop seen.
    pub max_slop_bytes: u64,
    /// Bytes marked in place, all GCs together.
    pub marked_bytes: u64,
    /// Bytes freed by sweeps, all GCs together.
    pub swept_bytes: u64,
    /// Objects the markings scanned through the prefetch ring, all GCs
    /// together (See Note [When the marking prefetches] in the
    /// collectors' `prefetch_ring`).
    pub prefetched_objects: u64,
    /// Objects the GCs scanned for pointers, all GCs together.
    pub scanned_objects: u64,
    /// Largest hole space seen after a GC: free space inside partly used
    /// blocks of non-moving spaces (their fragmentation).
    pub max_hole_bytes: u64,
    /// Sweeps of a mark-region space (`immix`'s major GCs).
    pub region_sweeps: u64,
    /// Bytes of free lines those sweeps found in the blocks they kept
    /// (Immix's reclaimed lines), all sweeps together.
    pub reclaimed_line_bytes: u64,
    /// Bytes of the blocks those sweeps found empty and freed.
    pub reclaimed_block_bytes: u64,
    /// Of those sweeps, the ones that defragmented.
    pub defrag_gcs: u64,
    /// Bytes copied out of the blocks evacuated to defragment.
    pub defrag_copied_bytes: u64,
    /// Blocks the sliding compactions planned, all together (their count
    /// is the oldest generation's `compactions`).
    pub compacted_blocks: u64,
    /// Of those, blocks left where they were, nearly all live.
    pub blocks_left_in_place: u64,
    /// Dead bytes those blocks kept as holes, all compactions together.
    pub compaction_hole_bytes: u64,
    /// Bytes of live objects the compactions slid.
    pub compaction_slid_bytes: u64,
    /// Bytes of the blocks the compactions emptied and freed.
    pub compaction_freed_bytes: u64,
    /// Peak memory mapped for the heap.
    pub max_mem_in_use_bytes: u64,
    /// Space lost to fragmentation at the peak.
    pub fragmentation_bytes: u64,
    /// GC CPU seconds.
    pub gc_cpu: f64,
    /// GC elapsed seconds.
    pub gc_elapsed: f64,
    /// INIT phase.
    pub init_cpu: f64,
    /// INIT phase, elapsed.
    pub init_elapsed: f64,
    /// EXIT phase.
    pub exit_cpu: f64,
    /// EXIT phase, elapsed.
    pub exit_elapsed: f64,
    /// Whole run (set at exit).
    pub total_cpu: f64,
    /// Whole run, elapsed.
    pub total_elapsed: f64,
    /// Per generation.
    pub gens: Vec<GenStats>,
    /// Megablocks returned to the OS.
    pub mblocks_returned: u64,
    /// Megablocks the heap took from the reserve touched off the pause
    /// (See Note [Touching fresh memory off the pause] in core's
    /// `mblock_threads::pretouch`).
    pub mblocks_pretouched: u64,
    /// What is kept of every GC (See Note [What is kept of each GC]).
    #[serde(skip)]
    pub records: Vec<GcSummary>,
    /// Peak resident set size of the process (set at exit).
    pub max_rss_bytes: u64,
    /// Heap profiling is on (then `-s` shows the PROF line).
    pub profiling: bool,
    /// Heap census CPU seconds.
    pub prof_cpu: f64,
    /// Heap census elapsed seconds.
    pub prof_elapsed: f64,
    /// Heap censuses taken.
    pub censuses: u64,
    /// GC threads used.
    pub gc_threads: usize,
    /// Stop-the-world syncs a collector's own threads asked for (See Note
    /// [Concurrent phases] in `collector`).
    pub collector_syncs: u64,
    /// Elapsed seconds of those syncs (counted in GC time too).
    pub collector_sync_elapsed: f64,
    /// CPU seconds of those syncs.
    pub collector_sync_cpu: f64,
    /// The longest of them.
    pub collector_sync_max: f64,
    /// Each of them: (elapsed seconds since the start when it began, its
    /// length), for the pause distribution and MMU.
    pub sync_pauses: Vec<(f64, f64)>,
    /// The run's collector works concurrently (`-xn`): `-s`, `-t
    /// --machine-readable` show GHC's nonmoving lines and keys.
    pub concurrent_collector: bool,
    /// Concurrent phases finished (nonmoving marking cycles).
    pub concurrent_phases: u64,
    /// CPU seconds of the collector's own threads in those phases (GHC's
    /// `CONC GC time`, not counted as MUT).
    pub concurrent_cpu: f64,
    /// Elapsed seconds of those phases, beside the mutators.
    pub concurrent_elapsed: f64,
    /// The longest of them.
    pub concurrent_max: f64,
    /// What a concurrent copier's cycles did (See `CopyOutStats`).
    pub copy_out: CopyOutStats,
}

/// What the cycles of a collector that copies objects out while the
/// mutators run did, all together (`concurrent-copying`): gclab's own, in
/// `-s`, the JSON record and the eventlog (`COPY_OUT_END`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CopyOutStats {
    /// Cycles finished.
    pub cycles: u64,
    /// Bytes the collector's own thread copied beside the mutators.
    pub copied_bytes: u64,
    /// Objects the mutators copied at the read barrier, and their bytes.
    pub mutator_copies: u64,
    /// Bytes of those.
    pub mutator_copied_bytes: u64,
    /// Loads that took the read barrier's slow path (found a from-space
    /// object).
    pub barrier_slow_paths: u64,
    /// Fields pointed at copies by the update pass.
    pub updated_fields: u64,
    /// Degenerate collections: major GCs that finished a marking, sweep
    /// or copying-out in their pause because the heap was past its limit.
    pub degenerate: u64,
}

impl Stats {
    /// Zeroed statistics for `gens` generations and `caps` capabilities.
    pub fn new(gens: usize, caps: usize) -> Stats {
        Stats {
            gcs: 0,
            major_gcs: 0,
            allocated_bytes: 0,
            cap_allocated_bytes: vec![0; caps],
            mutator_hole_bytes: 0,
            partial_gcs: 0,
            allocated_objects: 0,
            copied_bytes: 0,
            promoted_words: 0,
            forced_major_collections: 0,
            par_copied_bytes: 0,
            cumulative_par_max_copied_bytes: 0,
            cumulative_par_balanced_copied_bytes: 0,
            max_live_bytes: 0,
            cumulative_live_bytes: 0,
            max_large_objects_bytes: 0,
            max_slop_bytes: 0,
            marked_bytes: 0,
            swept_bytes: 0,
            prefetched_objects: 0,
            scanned_objects: 0,
            max_hole_bytes: 0,
            region_sweeps: 0,
            reclaimed_line_bytes: 0,
            reclaimed_block_bytes: 0,
            defrag_gcs: 0,
            defrag_copied_bytes: 0,
            compacted_blocks: 0,
            blocks_left_in_place: 0,
            compaction_hole_bytes: 0,
            compaction_slid_bytes: 0,
            compaction_freed_bytes: 0,
            max_mem_in_use_bytes: 0,
            fragmentation_bytes: 0,
            gc_cpu: 0.0,
            gc_elapsed: 0.0,
            init_cpu: 0.0,
            init_elapsed: 0.0,
            exit_cpu: 0.0,
            exit_elapsed: 0.0,
            total_cpu: 0.0,
            total_elapsed: 0.0,
            gens: vec![GenStats::default(); gens],
            mblocks_returned: 0,
            mblocks_pretouched: 0,
            records: Vec::new(),
            max_rss_bytes: 0,
            gc_threads: 1,
            profiling: false,
            prof_cpu: 0.0,
            prof_elapsed: 0.0,
            censuses: 0,
            collector_syncs: 0,
            collector_sync_elapsed: 0.0,
            collector_sync_cpu: 0.0,
            collector_sync_max: 0.0,
            sync_pauses: Vec::new(),
            concurrent_collector: false,
            concurrent_phases: 0,
            concurrent_cpu: 0.0,
            concurrent_elapsed: 0.0,
            concurrent_max: 0.0,
            copy_out: CopyOutStats::default(),
        }
    }

    /// Mutator CPU seconds: total less INIT, GC, PROF, EXIT and the
    /// collector's concurrent threads (as GHC counts CONC GC time apart).
    pub fn mut_cpu(&self) -> f64 {
        (self.total_cpu - self.init_cpu - self.gc_cpu - self.prof_cpu - self.exit_cpu - self.concurrent_cpu).max(0.0)
    }

    /// Count a concurrent phase that ended.
    /// Account what a collector reports beyond its GCs: a concurrent
    /// marking's phase and the words it marked, a sweep's words freed (a
    /// concurrent collector's marking and sweeping are not in any GC's
    /// record).
    pub fn collector_event(&mut self, e: &crate::collector::CollectorEvent) {
        use crate::collector::CollectorEvent as E;
        match *e {
            E::MarkEnd { marked_words, concurrent, .. } => {
                self.marked_bytes += (marked_words * WORD_SIZE) as u64;
                if let Some(phase) = concurrent {
                    self.concurrent_phase(phase);
                }
            }
            E::SweepEnd { swept_words } => self.swept_bytes += (swept_words * WORD_SIZE) as u64,
            E::CopyOutEnd { stats, concurrent } => {
                self.record_copy_out(&stats);
                if let Some(phase) = concurrent {
                    self.concurrent_phase(phase);
                }
            }
            E::DecrementsEnd { concurrent, .. } => self.concurrent_phase(concurrent),
            _ => {}
        }
    }

    /// Account a concurrent copier's cycle (saturating: `gclab eventlog`
    /// feeds it what a file says).
    pub fn record_copy_out(&mut self, one: &CopyOutStats) {
        let c = &mut self.copy_out;
        c.cycles = c.cycles.saturating_add(one.cycles);
        c.copied_bytes = c.copied_bytes.saturating_add(one.copied_bytes);
        c.mutator_copies = c.mutator_copies.saturating_add(one.mutator_copies);
        c.mutator_copied_bytes = c.mutator_copied_bytes.saturating_add(one.mutator_copied_bytes);
        c.barrier_slow_paths = c.barrier_slow_paths.saturating_add(one.barrier_slow_paths);
        c.updated_fields = c.updated_fields.saturating_add(one.updated_fields);
        c.degenerate = c.degenerate.saturating_add(one.degenerate);
    }

    /// Account a concurrent phase that ended.
    pub fn concurrent_phase(&mut self, phase: crate::collector::ConcurrentPhase) {
        self.concurrent_phases += 1;
        self.concurrent_cpu += phase.cpu;
        self.concurrent_elapsed += phase.elapsed;
        self.concurrent_max = self.concurrent_max.max(phase.elapsed);
    }

    /// Mutator elapsed seconds.
    pub fn mut_elapsed(&self) -> f64 {
        (self.total_elapsed - self.init_elapsed - self.gc_elapsed - self.prof_elapsed - self.exit_elapsed).max(0.0)
    }

    /// Account one sweep of a mark-region space.
    /// (Saturating: `gclab eventlog` feeds it what a file says, which a
    /// damaged file can make absurd.)
    pub fn record_region_sweep(&mut self, r: &crate::collector::RegionSweep) {
        self.region_sweeps += 1;
        let lines = (r.lines_free as u64).saturating_mul(r.line_bytes as u64);
        self.reclaimed_line_bytes = self.reclaimed_line_bytes.saturating_add(lines);
        self.reclaimed_block_bytes = self.reclaimed_block_bytes.saturating_add(r.blocks_freed as u64 * crate::constants::BLOCK_SIZE as u64);
        if r.defrag_blocks > 0 {
            self.defrag_gcs += 1;
        }
        self.defrag_copied_bytes = self.defrag_copied_bytes.saturating_add(r.defrag_copied_bytes);
    }

    /// Account one sliding compaction (saturating, as above).
    pub fn record_compaction(&mut self, c: &crate::collector::CompactionRecord) {
        self.compacted_blocks = self.compacted_blocks.saturating_add(c.blocks as u64);
        self.blocks_left_in_place = self.blocks_left_in_place.saturating_add(c.blocks_left_in_place as u64);
        self.compaction_hole_bytes = self.compaction_hole_bytes.saturating_add(c.hole_bytes);
        self.compaction_slid_bytes = self.compaction_slid_bytes.saturating_add(c.slid_bytes);
        self.compaction_freed_bytes = self.compaction_freed_bytes.saturating_add(c.blocks_freed as u64 * crate::constants::BLOCK_SIZE as u64);
    }

    /// Account one GC.
    pub fn record_gc(&mut self, rec: &GcRecord, major: bool, parallel: bool) {
        self.gcs += 1;
        self.allocated_bytes += rec.allocated_bytes;
        self.copied_bytes += rec.copied_bytes;
        self.gc_cpu += rec.gc_cpu;
        self.gc_elapsed += rec.gc_elapsed;
        self.max_slop_bytes = self.max_slop_bytes.max(rec.slop_bytes);
        self.marked_bytes += rec.marked_bytes;
        self.swept_bytes += rec.swept_bytes;
        self.prefetched_objects += rec.prefetched_objects;
        self.scanned_objects += rec.scanned_objects;
        self.max_hole_bytes = self.max_hole_bytes.max(rec.hole_bytes);
        if let Some(r) = rec.region {
            self.record_region_sweep(&r);
        }
        if let Some(c) = rec.compaction {
            self.record_compaction(&c);
        }
        if major {
            self.major_gcs += 1;
            self.max_live_bytes = self.max_live_bytes.max(rec.live_bytes);
            self.cumulative_live_bytes += rec.live_bytes;
        }
        if parallel {
            let max = rec.thread_copied_bytes.iter().copied().max().unwrap_or(0);
            self.par_copied_bytes += rec.copied_bytes;
            self.cumulative_par_max_copied_bytes += max;
            self.cumulative_par_balanced_copied_bytes += balanced_copied(&rec.thread_copied_bytes);
        }
        let g = &mut self.gens[rec.gen];
        g.collections += 1;
        g.par_collections += parallel as u64;
        g.compactions += rec.compacted as u64;
        g.cpu += rec.gc_cpu;
        g.elapsed += rec.gc_elapsed;
        g.max_pause = g.max_pause.max(rec.gc_elapsed);
        self.records.push(GcSummary::of(rec));
    }

    /// Parallel collections, all generations together.
    pub fn par_collections(&self) -> u64 {
        self.gens.iter().map(|g| g.par_collections).sum()
    }

    /// GHC's parallel work balance in percent (`rts/Stats.c`): the balanced
    /// share of all bytes copied in parallel GCs. 0 for serial work, 100 for
    /// perfectly even work (See `balanced_copied`).
    pub fn work_balance_percent(&self) -> f64 {
        if self.par_copied_bytes == 0 {
            return 0.0;
        }
        100.0 * self.cumulative_par_balanced_copied_bytes as f64 / self.par_copied_bytes as f64
    }
}

impl Stats {
    /// Count what capability `cap` allocated between two GCs (or since
    /// the last one, at the end of the run) under its name; the run's
    /// total bytes are the GC record's (or the caller's at the end).
    pub fn count_capability_allocation(&mut self, cap: usize, allocated: Allocated) {
        self.cap_allocated_bytes[cap] += allocated.words * WORD_SIZE as u64;
        self.mutator_hole_bytes += allocated.hole_words * WORD_SIZE as u64;
        self.allocated_objects += allocated.objects;
    }

    /// Record the heap's peak memory in use, the megablocks returned and
    /// taken touched, and the fragmentation at the peak (whole megablocks, as GHC counts it).
    pub fn note_memory_in_use(&mut self, heap: &Heap) {
        let blocks = heap.blocks.lock();
        let peak_mblocks = blocks.mblocks().peak();
        self.max_mem_in_use_bytes = (peak_mblocks * MBLOCK_SIZE) as u64;
        self.mblocks_returned = blocks.mblocks().returned() as u64;
        self.mblocks_pretouched = blocks.mblocks().pretouched() as u64;
        let capacity = peak_mblocks * BLOCKS_PER_MBLOCK * BLOCK_SIZE;
        let used = blocks.peak_used_blocks() * BLOCK_SIZE;
        self.fragmentation_bytes = capacity.saturating_sub(used) as u64 / 1024 / 1024 * 1024 * 1024;
    }
}

impl Stats {
    /// Account one finished GC: `record` and what the collector said it
    /// did (`outcome`), with the heap after it.
    pub fn account_gc(&mut self, record: &GcRecord, outcome: &crate::collector::GcOutcome, heap: &Heap, major: bool, forced_major: bool) {
        self.max_large_objects_bytes = self.max_large_objects_bytes.max((heap.large_object_words() * WORD_SIZE) as u64);
        self.gc_threads = self.gc_threads.max(outcome.threads.len());
        self.note_memory_in_use(heap);
        self.promoted_words += outcome.threads.iter().map(|t| t.promoted_words as u64).sum::<u64>();
        if forced_major {
            self.forced_major_collections += 1;
        }
        if outcome.increment_of.is_some() {
            self.partial_gcs += 1;
        }
        self.record_gc(record, major, outcome.parallel());
    }
}

/// GHC's "balanced" copied bytes of one parallel GC (`rts/sm/GC.c`, Note
/// [Work Balance]): with k + 1 threads copying c_i of C bytes in all,
/// `(sum_i min((k+1) c_i, C) - C) / k`, rounded. It is C when every thread
/// copied C/(k+1), and 0 when one thread copied everything.
pub fn balanced_copied(per_thread: &[u64]) -> u64 {
    if per_thread.len() < 2 {
        return 0;
    }
    let k = per_thread.len() as u64 - 1;
    let total: u64 = per_thread.iter().sum();
    let acc: u64 = per_thread.iter().map(|&c| ((k + 1) * c).min(total)).sum();
    (acc - total + k / 2) / k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_balance_of_hand_made_figures() {
        assert_eq!(balanced_copied(&[1000, 1000]), 2000, "perfectly even: everything is balanced");
        assert_eq!(balanced_copied(&[2000, 0]), 0, "serial: nothing is balanced");
        assert_eq!(balanced_copied(&[500, 500, 500, 500]), 2000);
        assert_eq!(balanced_copied(&[3000, 1000]), 2000, "(min(6000,4000) + min(2000,4000) - 4000) / 1");
        let mut s = Stats::new(2, 2);
        for per_thread in [vec![1000u64, 1000], vec![2000, 0]] {
            let copied: u64 = per_thread.iter().sum();
            s.par_copied_bytes += copied;
            s.cumulative_par_balanced_copied_bytes += balanced_copied(&per_thread);
        }
        assert_eq!(s.work_balance_percent(), 50.0);
        assert_eq!(Stats::new(2, 1).work_balance_percent(), 0.0);
    }
}
