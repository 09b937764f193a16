//! Which events a run writes, and when: the preamble (capability sets,
//! the process, the program, the heap's parameters), every GC's events in
//! the order seed 002 settles, a collector's syncs and concurrent phases,
//! heap-profile samples, and the last events at exit. The run's eventlog
//! is an observer of the runtime (See `observe`).

use super::format::*;
use super::writer::{Classes, EventLog};
use crate::collector::CollectorEvent;
use crate::constants::{BLOCKS_PER_MBLOCK, BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::flags::RtsFlags;
use crate::observe::{GcEnd, GcObserver, HeapSample, RunEnd};
use crate::stats::balanced_copied;
use std::path::PathBuf;
use std::time::Instant;

/// A run's eventlog (`-l`, `-v`): the events of its GCs, syncs and heap
/// samples, as they happen.
pub struct RunEventLog {
    log: EventLog,
    /// Where the binary eventlog goes (None: `-v`'s text only).
    path: Option<PathBuf>,
    /// Cost centres whose definition event has been written.
    defined_cost_centres: Vec<usize>,
}

/// Where `-l` writes the eventlog (`-ol<file>`, else `<program>.eventlog`).
fn eventlog_path(flags: &RtsFlags) -> Option<PathBuf> {
    let program = flags.program.first().cloned().unwrap_or_else(|| "gclab".into());
    flags.eventlog.then(|| flags.eventlog_path.clone().unwrap_or_else(|| format!("{program}.eventlog").into()))
}

/// A failure to write the eventlog (or `-v`'s trace), naming where.
fn write_error(path: Option<&PathBuf>, e: std::io::Error) -> String {
    match path {
        Some(path) => format!("cannot write the eventlog {}: {e}", path.display()),
        None => format!("cannot write the event trace (-v) to standard output: {e}"),
    }
}

impl RunEventLog {
    /// Open the eventlog `-l`/`-v` ask for (None if neither) and post the
    /// run's preamble: the capability sets and capabilities, the process,
    /// the program and the heap parameters. `start` is time zero.
    pub fn open(flags: &RtsFlags, start: Instant, collector: &str) -> Result<Option<RunEventLog>, String> {
        if !flags.eventlog && flags.trace_text.is_none() {
            return Ok(None);
        }
        let path = eventlog_path(flags);
        let classes = Classes { gc: flags.trace_gc, scheduler: flags.trace_scheduler };
        let mut log = EventLog::create(path.as_deref(), flags.trace_text, flags.capabilities, classes, start).map_err(|e| write_error(path.as_ref(), e))?;
        let now = Instant::now();
        if classes.scheduler {
            post_process(&mut log, flags, now, collector);
        }
        if classes.gc {
            let info = HeapInfoGhc {
                heap_capset: 0,
                generations: flags.generations as u16,
                max_heap_size: (flags.max_heap_blocks * BLOCK_SIZE) as u64,
                alloc_area_size: (flags.alloc_area_blocks * BLOCK_SIZE) as u64,
                mblock_size: MBLOCK_SIZE as u64,
                block_size: BLOCK_SIZE as u64,
            };
            log.post(None, now, id::HEAP_INFO_GHC, info.encode());
        }
        Ok(Some(RunEventLog { log, path, defined_cost_centres: Vec::new() }))
    }
}

/// The scheduler class's preamble: capability sets, capabilities, the
/// process and program, and one thread per capability's mutator.
fn post_process(log: &mut EventLog, flags: &RtsFlags, now: Instant, collector: &str) {
    log.post(None, now, id::CAPSET_CREATE, Payload::new().u32(0).u16(CAPSET_OSPROCESS));
    log.post(None, now, id::CAPSET_CREATE, Payload::new().u32(1).u16(CAPSET_CLOCKDOMAIN));
    for c in 0..flags.capabilities {
        log.post(None, now, id::CAP_CREATE, Payload::new().u16(c as u16));
        log.post(None, now, id::CAPSET_ASSIGN_CAP, Payload::new().u32(0).u16(c as u16));
        log.post(None, now, id::CAPSET_ASSIGN_CAP, Payload::new().u32(1).u16(c as u16));
    }
    let wall = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    log.post(None, now, id::WALL_CLOCK_TIME, Payload::new().u32(1).u64(wall.as_secs()).u32(wall.subsec_nanos()));
    log.post(None, now, id::OSPROCESS_PID, Payload::new().u32(0).u32(std::process::id()));
    // SAFETY: getppid has no preconditions.
    let ppid = unsafe { libc::getppid() } as u32;
    log.post(None, now, id::OSPROCESS_PPID, Payload::new().u32(0).u32(ppid));
    let ident = format!("gclab-{} {collector}", env!("CARGO_PKG_VERSION"));
    log.post(None, now, id::RTS_IDENTIFIER, Payload::new().u32(0).bytes(ident.as_bytes()));
    let mut args = Vec::new();
    for a in &flags.program {
        args.extend_from_slice(a.as_bytes());
        args.push(0);
    }
    log.post(None, now, id::PROGRAM_ARGS, Payload::new().u32(0).bytes(&args));
    // Each capability's mutator appears as one thread, running between
    // GCs, so that ThreadScope shows mutator activity.
    for c in 0..flags.capabilities {
        log.post(Some(c), now, id::CREATE_THREAD, Payload::new().u32(c as u32 + 1));
        log.post(Some(c), now, id::RUN_THREAD, Payload::new().u32(c as u32 + 1));
    }
}

impl RunEventLog {
    /// Write what a collector reports (See `CollectorEvent`), at `at`, in
    /// the buffer of no capability (a collector's own threads belong to
    /// none), except each capability's remembered-set flush.
    fn collector_event(&mut self, at: Instant, event: &CollectorEvent) {
        use CollectorEvent as E;
        if !self.log.classes().gc {
            return;
        }
        let (cap, id, payload) = match *event {
            E::MarkBegin => (None, id::CONC_MARK_BEGIN, Payload::new()),
            E::MarkEnd { marked_objects, .. } => (None, id::CONC_MARK_END, Payload::new().u32(marked_objects)),
            E::SweepBegin => (None, id::CONC_SWEEP_BEGIN, Payload::new()),
            E::SweepEnd { .. } => (None, id::CONC_SWEEP_END, Payload::new()),
            E::RemSetFlush { cap } => (Some(cap as usize), id::CONC_UPD_REM_SET_FLUSH, Payload::new().u16(cap)),
            E::CopyOutBegin { blocks, bytes } => (None, id::COPY_OUT_BEGIN, Payload::new().u32(blocks).u64(bytes)),
            E::CopyOutEnd { ref stats, .. } => (None, id::COPY_OUT_END, crate::eventlog::format::encode_copy_out(stats)),
            E::DecrementsEnd { decrements, freed_objects, concurrent } => {
                let ns = |s: f64| (s * 1e9) as u64;
                (None, id::DECREMENTS_END, Payload::new().u64(decrements).u64(freed_objects).u64(ns(concurrent.cpu)).u64(ns(concurrent.elapsed)))
            }
            E::Census { log_cell_bytes, active, filled, live } => {
                (None, id::NONMOVING_HEAP_CENSUS, Payload::new().u8(log_cell_bytes).u32(active).u32(filled).u32(live))
            }
        };
        self.log.post(cap, at, id, payload);
    }

    /// A collector's sync begins or ends (`CONC_SYNC_BEGIN`/`END`), in
    /// capability 0's buffer with the GCs: a sync stops the world too, and
    /// a reader takes the pauses in time order from one buffer (GHC posts
    /// its syncs in the buffer of no capability).
    fn collector_sync(&mut self, at: Instant, begins: bool) {
        if self.log.classes().gc {
            self.log.post(Some(0), at, if begins { id::CONC_SYNC_BEGIN } else { id::CONC_SYNC_END }, Payload::new());
        }
    }
}

/// The events of one GC, as seed 002 settles their order. They go in
/// capability 0's buffer whichever capability led the GC (the leader is
/// not recorded; GC thread t's GC_WORK/IDLE/DONE go in capability t mod
/// -N's, GC_WORK and GC_IDLE at the times the thread came in and left,
/// and only GC_DONE for a pool thread that never came in): GC_START and
/// GC_END carry the statistics' own timestamps, GC_GLOBAL_SYNC and
/// GC_STATS_GHC come between them.
impl RunEventLog {
    fn gc_events(&mut self, gc: &GcEnd<'_>) {
        if !self.log.classes().gc {
            return;
        }
        let (start, end, record) = (gc.start, gc.end, gc.record);
        let parallel = gc.outcome.parallel();
        let caps = gc.caps.len();
        let threads_shown = self.log.classes().scheduler;
        if threads_shown {
            for c in 0..caps {
                self.log.post(Some(c), start, id::STOP_THREAD, Payload::new().u32(c as u32 + 1).u16(STOP_HEAP_OVERFLOW).u32(0));
            }
        }
        let request = if parallel { id::REQUEST_PAR_GC } else { id::REQUEST_SEQ_GC };
        self.log.post(Some(0), start, request, Payload::new());
        self.log.post(Some(0), start, id::GC_START, Payload::new());
        self.log.post(Some(0), start, id::GC_GLOBAL_SYNC, Payload::new());
        for t in 0..gc.outcome.threads.len().max(1) {
            // A parallel GC's threads came in and left when they did; one
            // that never came in (See Note [Late GC threads] in the
            // collectors' `gc_workers`) only reports done.
            let active = match gc.outcome.threads.get(t).and_then(|w| w.active) {
                Some((came_in, left)) => Some((came_in.clamp(start, end), left.clamp(start, end))),
                None if parallel => None,
                None => Some((start, end)),
            };
            if let Some((came_in, left)) = active {
                self.log.post(Some(t % caps), came_in, id::GC_WORK, Payload::new());
                self.log.post(Some(t % caps), left.max(came_in), id::GC_IDLE, Payload::new());
            }
            self.log.post(Some(t % caps), end, id::GC_DONE, Payload::new());
        }
        for (c, cap) in gc.caps.iter().enumerate() {
            self.log.post(Some(c), end, id::HEAP_ALLOCATED, Payload::new().u32(0).u64(cap.total_allocated_words * WORD_SIZE as u64));
        }
        let per_thread = &record.thread_copied_bytes;
        let max_copied = if parallel { per_thread.iter().copied().max().unwrap_or(0) } else { 0 };
        let balanced = if parallel { balanced_copied(per_thread) } else { 0 };
        let free_blocks = {
            let b = gc.heap.blocks.lock();
            b.free_blocks() + b.mblocks().free_count() * BLOCKS_PER_MBLOCK
        };
        let stats = GcStatsGhc {
            heap_capset: 0,
            gen: gc.req.collect_gen as u16,
            copied: record.copied_bytes,
            slop: record.slop_bytes,
            fragmentation: (free_blocks * BLOCK_SIZE) as u64,
            par_threads: gc.outcome.threads.len().max(1) as u32,
            par_max_copied: max_copied,
            par_tot_copied: record.copied_bytes,
            par_balanced_copied: balanced,
        };
        self.log.post(Some(0), end, id::GC_STATS_GHC, stats.encode());
        self.log.post(Some(0), end, id::HEAP_SIZE, Payload::new().u32(0).u64(record.heap_bytes));
        if gc.major {
            // Live data is known at major GCs only, as in GHC.
            self.log.post(Some(0), end, id::HEAP_LIVE, Payload::new().u32(0).u64(record.live_bytes));
        }
        if let Some(r) = &record.region {
            self.log.post(Some(0), end, id::REGION_SWEEP, encode_region_sweep(r));
        }
        if let Some(c) = &record.compaction {
            self.log.post(Some(0), end, id::COMPACTION, encode_compaction(c));
        }
        self.log.post(Some(0), end, id::GC_END, Payload::new());
        if threads_shown {
            for c in 0..caps {
                self.log.post(Some(c), end, id::RUN_THREAD, Payload::new().u32(c as u32 + 1));
            }
        }
    }
}


impl GcObserver for RunEventLog {
    fn gc_end(&mut self, gc: &GcEnd<'_>) {
        self.gc_events(gc);
    }

    fn sync_begins(&mut self, at: Instant) {
        self.collector_sync(at, true);
    }

    fn sync_ends(&mut self, at: Instant) {
        self.collector_sync(at, false);
    }

    fn collector_event(&mut self, at: Instant, event: &CollectorEvent) {
        RunEventLog::collector_event(self, at, event);
    }

    /// HEAP_PROF_BEGIN: profile 0, period, break-down, seven empty filters.
    fn heap_profile_begins(&mut self, at: Instant, interval: f64, breakdown: char) {
        let mut payload = Payload::new().bytes(&[0]).u64((interval * 1e9) as u64).u32(heap_prof_breakdown(breakdown));
        for _ in 0..7 {
            payload = payload.bytes(&[0]);
        }
        self.log.post(None, at, id::HEAP_PROF_BEGIN, payload);
    }

    /// A heap profile sample as events (seed 001): SAMPLE_BEGIN, a string
    /// or cost-centre sample per band (cost centres defined on first
    /// use), SAMPLE_END.
    fn heap_sample(&mut self, s: &HeapSample<'_>) {
        let (log, now) = (&mut self.log, s.at);
        log.post(None, now, id::HEAP_PROF_SAMPLE_BEGIN, Payload::new().u64(s.number));
        for (band, bytes) in s.bands {
            match s.cost_centres.iter().position(|n| n == band).filter(|_| s.by_cost_centre) {
                Some(cc) => {
                    if !self.defined_cost_centres.contains(&cc) {
                        self.defined_cost_centres.push(cc);
                        let def = Payload::new().u32(cc as u32).bytes(band.as_bytes()).bytes(&[0]).bytes(b"Main\0<unknown>\0").bytes(&[0]);
                        log.post(None, now, id::HEAP_PROF_COST_CENTRE, def);
                    }
                    log.post(None, now, id::HEAP_PROF_SAMPLE_COST_CENTRE, Payload::new().bytes(&[0]).u64(*bytes).bytes(&[1]).u32(cc as u32));
                }
                None => log.post(None, now, id::HEAP_PROF_SAMPLE_STRING, Payload::new().bytes(&[0]).u64(*bytes).bytes(band.as_bytes()).bytes(&[0])),
            }
        }
        log.post(None, now, id::HEAP_PROF_SAMPLE_END, Payload::new().u64(s.number));
    }

    /// Seed 002: a final HEAP_ALLOCATED per capability, so that the
    /// eventlog's total equals the -s figure; then the data's end.
    fn run_ends(&mut self, end: &RunEnd<'_>) -> Result<(), String> {
        for (i, bytes) in end.stats.cap_allocated_bytes.iter().enumerate() {
            self.log.post(Some(i), end.at, id::HEAP_ALLOCATED, Payload::new().u32(0).u64(*bytes));
            if self.log.classes().scheduler {
                self.log.post(Some(i), end.at, id::STOP_THREAD, Payload::new().u32(i as u32 + 1).u16(STOP_FINISHED).u32(0));
            }
        }
        if let Some(e) = self.log.take_text_failure() {
            return Err(write_error(None, e));
        }
        self.log.finish().map_err(|e| write_error(self.path.as_ref(), e))
    }
}
