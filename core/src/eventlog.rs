//! GHC's binary eventlog: the writer behind `+RTS -l` (and `-v`, the same
//! events as text).
//!
//! Format (GHC's `rts/include/rts/EventLogFormat.h`, all numbers
//! big-endian): a header `hdrb hetb`, one `etb\0 id:u16 size:i16
//! desc_len:u32 desc extra_len:u32 ete\0` per event type (size -1 for
//! variable-size events), `hete hdre`, then `datb` and the events: `type:u16
//! time:u64 payload` (a variable-size payload is preceded by its u16
//! length), and finally the type 0xffff. Events are buffered per
//! capability (and one buffer for events of no capability) and written in
//! blocks, each led by a block marker event that names its capability and
//! time span, which is how readers learn an event's capability. Timestamps
//! are nanoseconds since the run began, made monotone per buffer.
//!
//! The event ids, sizes and descriptions below are GHC 9.0.2's
//! (the types GHC 9.0.2 declares in its eventlogs' headers); only types
//! this writer emits are declared in the header.

use crate::constants::{BLOCKS_PER_MBLOCK, BLOCK_SIZE, MBLOCK_SIZE, WORD_SIZE};
use crate::observe::{GcEnd, GcObserver};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

/// Event type ids used here.
pub mod id {
    #![allow(missing_docs)]
    pub const CREATE_THREAD: u16 = 0;
    pub const RUN_THREAD: u16 = 1;
    pub const STOP_THREAD: u16 = 2;
    pub const BLOCK_MARKER: u16 = 18;
    pub const GC_START: u16 = 9;
    pub const GC_END: u16 = 10;
    pub const REQUEST_SEQ_GC: u16 = 11;
    pub const REQUEST_PAR_GC: u16 = 12;
    pub const GC_IDLE: u16 = 20;
    pub const GC_WORK: u16 = 21;
    pub const GC_DONE: u16 = 22;
    pub const CAPSET_CREATE: u16 = 25;
    pub const CAPSET_ASSIGN_CAP: u16 = 27;
    pub const RTS_IDENTIFIER: u16 = 29;
    pub const PROGRAM_ARGS: u16 = 30;
    pub const OSPROCESS_PID: u16 = 32;
    pub const OSPROCESS_PPID: u16 = 33;
    pub const WALL_CLOCK_TIME: u16 = 43;
    pub const CAP_CREATE: u16 = 45;
    pub const HEAP_ALLOCATED: u16 = 49;
    pub const HEAP_SIZE: u16 = 50;
    pub const HEAP_LIVE: u16 = 51;
    pub const HEAP_INFO_GHC: u16 = 52;
    pub const GC_STATS_GHC: u16 = 53;
    pub const GC_GLOBAL_SYNC: u16 = 54;
    pub const HEAP_PROF_BEGIN: u16 = 160;
    pub const HEAP_PROF_COST_CENTRE: u16 = 161;
    pub const HEAP_PROF_SAMPLE_BEGIN: u16 = 162;
    pub const HEAP_PROF_SAMPLE_COST_CENTRE: u16 = 163;
    pub const HEAP_PROF_SAMPLE_STRING: u16 = 164;
    pub const HEAP_PROF_SAMPLE_END: u16 = 165;
    pub const CONC_MARK_BEGIN: u16 = 200;
    pub const CONC_MARK_END: u16 = 201;
    pub const CONC_SYNC_BEGIN: u16 = 202;
    pub const CONC_SYNC_END: u16 = 203;
    pub const CONC_SWEEP_BEGIN: u16 = 204;
    pub const CONC_SWEEP_END: u16 = 205;
    pub const CONC_UPD_REM_SET_FLUSH: u16 = 206;
    pub const NONMOVING_HEAP_CENSUS: u16 = 207;
    /// gclab's own: one sweep of a mark-region space (See
    /// `region_sweep_payload`). Declared with its size, so GHC's readers
    /// skip it.
    pub const REGION_SWEEP: u16 = 248;
    pub const DATA_END: u16 = 0xffff;
}

/// One declared event type: id, payload size (None: variable), description.
#[derive(Debug, Clone, Copy)]
pub struct EventType {
    /// The id.
    pub id: u16,
    /// Payload bytes, None for variable-size events.
    pub size: Option<u16>,
    /// GHC's description.
    pub desc: &'static str,
}

const fn et(id: u16, size: Option<u16>, desc: &'static str) -> EventType {
    EventType { id, size, desc }
}

/// The event types this writer declares, with GHC 9.0.2's sizes.
pub const EVENT_TYPES: &[EventType] = &[
    et(id::CREATE_THREAD, Some(4), "Create thread"),
    et(id::RUN_THREAD, Some(4), "Run thread"),
    et(id::STOP_THREAD, Some(10), "Stop thread"),
    et(id::GC_START, Some(0), "Starting GC"),
    et(id::GC_END, Some(0), "Finished GC"),
    et(id::REQUEST_SEQ_GC, Some(0), "Request sequential GC"),
    et(id::REQUEST_PAR_GC, Some(0), "Request parallel GC"),
    et(id::BLOCK_MARKER, Some(14), "Block marker"),
    et(id::GC_IDLE, Some(0), "GC idle"),
    et(id::GC_WORK, Some(0), "GC working"),
    et(id::GC_DONE, Some(0), "GC done"),
    et(id::CAPSET_CREATE, Some(6), "Create capability set"),
    et(id::CAPSET_ASSIGN_CAP, Some(6), "Add capability to capability set"),
    et(id::RTS_IDENTIFIER, None, "RTS name and version"),
    et(id::PROGRAM_ARGS, None, "Program arguments"),
    et(id::OSPROCESS_PID, Some(8), "Process ID"),
    et(id::OSPROCESS_PPID, Some(8), "Parent process ID"),
    et(id::WALL_CLOCK_TIME, Some(16), "Wall clock time"),
    et(id::CAP_CREATE, Some(2), "Create capability"),
    et(id::HEAP_ALLOCATED, Some(12), "Total heap mem ever allocated"),
    et(id::HEAP_SIZE, Some(12), "Current heap size"),
    et(id::HEAP_LIVE, Some(12), "Current heap live data"),
    et(id::HEAP_INFO_GHC, Some(38), "Heap static parameters"),
    et(id::GC_STATS_GHC, Some(58), "GC statistics"),
    et(id::GC_GLOBAL_SYNC, Some(0), "Synchronise stop-the-world GC"),
    et(id::HEAP_PROF_BEGIN, None, "Start of heap profile"),
    et(id::HEAP_PROF_COST_CENTRE, None, "Cost center definition"),
    et(id::HEAP_PROF_SAMPLE_BEGIN, Some(8), "Start of heap profile sample"),
    et(id::HEAP_PROF_SAMPLE_COST_CENTRE, None, "Heap profile cost-centre sample"),
    et(id::HEAP_PROF_SAMPLE_STRING, None, "Heap profile string sample"),
    et(id::HEAP_PROF_SAMPLE_END, Some(8), "End of heap profile sample"),
    et(id::CONC_MARK_BEGIN, Some(0), "Begin concurrent mark phase"),
    et(id::CONC_MARK_END, Some(4), "End concurrent mark phase"),
    et(id::CONC_SYNC_BEGIN, Some(0), "Begin concurrent GC synchronisation"),
    et(id::CONC_SYNC_END, Some(0), "End concurrent GC synchronisation"),
    et(id::CONC_SWEEP_BEGIN, Some(0), "Begin concurrent sweep"),
    et(id::CONC_SWEEP_END, Some(0), "End concurrent sweep"),
    et(id::CONC_UPD_REM_SET_FLUSH, Some(2), "Update remembered set flushed"),
    et(id::NONMOVING_HEAP_CENSUS, Some(13), "Nonmoving heap census"),
    et(id::REGION_SWEEP, Some(30), "Mark-region sweep (gclab)"),
];

/// The `HEAP_PROF_BEGIN` break-down code of a `-h` letter (GHC's
/// `HeapProfBreakdown`, seed 001).
pub fn heap_prof_breakdown(kind: char) -> u32 {
    match kind {
        'c' => 1,
        'm' => 2,
        'd' => 3,
        'y' => 4,
        'r' => 5,
        'T' => 7,
        // Root profiling is gclab's (and seed 003's): its bands are strings.
        _ => 3,
    }
}

/// Capability set types (`CAPSET_CREATE`): GHC's 1 custom, 2 OS process,
/// 3 clock domain.
pub const CAPSET_OSPROCESS: u16 = 2;
/// See `CAPSET_OSPROCESS`.
pub const CAPSET_CLOCKDOMAIN: u16 = 3;

/// STOP_THREAD statuses (GHC's `StgThreadReturnCode` numbering): the
/// mutator stops for a GC as a GHC thread does on heap overflow.
pub const STOP_HEAP_OVERFLOW: u16 = 1;
/// See `STOP_HEAP_OVERFLOW`.
pub const STOP_FINISHED: u16 = 5;

/// The block marker's capability for events of no capability.
const NO_CAP: u16 = 0xffff;

/// Flush a buffer once it holds this many bytes.
const FLUSH_BYTES: usize = 1 << 20;

/// A payload under construction, big-endian.
#[derive(Debug, Default, Clone)]
pub struct Payload(pub Vec<u8>);

impl Payload {
    /// An empty payload.
    pub fn new() -> Payload {
        Payload(Vec::with_capacity(64))
    }
    /// Append a u8.
    pub fn u8(mut self, v: u8) -> Payload {
        self.0.push(v);
        self
    }
    /// Append a u16.
    pub fn u16(mut self, v: u16) -> Payload {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    /// Append a u32.
    pub fn u32(mut self, v: u32) -> Payload {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    /// Append a u64.
    pub fn u64(mut self, v: u64) -> Payload {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    /// Append raw bytes.
    pub fn bytes(mut self, b: &[u8]) -> Payload {
        self.0.extend_from_slice(b);
        self
    }
}

/// The `GC_STATS_GHC` event: one GC's statistics. Its layout is written
/// here once; the writer, `-v` and the readers all go through `encode` and
/// `decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GcStatsGhc {
    /// The heap capability set (always 0).
    pub heap_capset: u32,
    /// The oldest generation collected.
    pub gen: u16,
    /// Bytes copied.
    pub copied: u64,
    /// Bytes of slop.
    pub slop: u64,
    /// Bytes of free blocks (GHC's "fragmentation").
    pub fragmentation: u64,
    /// GC threads.
    pub par_threads: u32,
    /// Most bytes one GC thread copied (parallel GCs only).
    pub par_max_copied: u64,
    /// Bytes copied by all threads (parallel GCs only).
    pub par_tot_copied: u64,
    /// GHC's balanced bytes (See `stats::balanced_copied`).
    pub par_balanced_copied: u64,
}

impl GcStatsGhc {
    /// The payload, GHC's 58 bytes.
    pub fn encode(&self) -> Payload {
        Payload::new()
            .u32(self.heap_capset)
            .u16(self.gen)
            .u64(self.copied)
            .u64(self.slop)
            .u64(self.fragmentation)
            .u32(self.par_threads)
            .u64(self.par_max_copied)
            .u64(self.par_tot_copied)
            .u64(self.par_balanced_copied)
    }

    /// Read a payload back (missing bytes read as zero).
    pub fn decode(p: &[u8]) -> GcStatsGhc {
        GcStatsGhc {
            heap_capset: be32(p, 0) as u32,
            gen: be16(p, 4) as u16,
            copied: be64(p, 6),
            slop: be64(p, 14),
            fragmentation: be64(p, 22),
            par_threads: be32(p, 30) as u32,
            par_max_copied: be64(p, 34),
            par_tot_copied: be64(p, 42),
            par_balanced_copied: be64(p, 50),
        }
    }
}

/// The `HEAP_INFO_GHC` event: the heap's static parameters, once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeapInfoGhc {
    /// The heap capability set (always 0).
    pub heap_capset: u32,
    /// Generations (`-G`).
    pub generations: u16,
    /// `-M` in bytes (0: none).
    pub max_heap_size: u64,
    /// `-A` in bytes.
    pub alloc_area_size: u64,
    /// Megablock size.
    pub mblock_size: u64,
    /// Block size.
    pub block_size: u64,
}

impl HeapInfoGhc {
    /// The payload, GHC's 38 bytes.
    pub fn encode(&self) -> Payload {
        Payload::new().u32(self.heap_capset).u16(self.generations).u64(self.max_heap_size).u64(self.alloc_area_size).u64(self.mblock_size).u64(self.block_size)
    }

    /// Read a payload back (missing bytes read as zero).
    pub fn decode(p: &[u8]) -> HeapInfoGhc {
        HeapInfoGhc { heap_capset: be32(p, 0) as u32, generations: be16(p, 4) as u16, max_heap_size: be64(p, 6), alloc_area_size: be64(p, 14), mblock_size: be64(p, 22), block_size: be64(p, 30) }
    }
}

struct Buffer {
    cap: u16,
    bytes: Vec<u8>,
    first_ts: Option<u64>,
    last_ts: u64,
}

/// Which classes of events to write (`-l` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classes {
    /// GC and heap events (`g`).
    pub gc: bool,
    /// Scheduler and capability events (`s`).
    pub scheduler: bool,
}

/// The eventlog of one run.
pub struct EventLog {
    out: Option<BufWriter<File>>,
    text: Option<bool>,
    bufs: Vec<Buffer>,
    start: Instant,
    classes: Classes,
    finished: bool,
    /// Bytes written to the file so far.
    pub bytes_written: u64,
    /// Events posted so far.
    pub events: u64,
    /// The first failure to write `-v`'s text to standard output.
    text_failed: Option<std::io::Error>,
}

fn size_of(id: u16) -> Option<Option<u16>> {
    EVENT_TYPES.iter().find(|t| t.id == id).map(|t| t.size)
}

impl EventLog {
    /// An eventlog writing the binary format to `path` (if given) and/or
    /// text to stdout (`text`: Some(with timestamps)), for `caps`
    /// capabilities; `start` is time zero.
    pub fn create(path: Option<&Path>, text: Option<bool>, caps: usize, classes: Classes, start: Instant) -> std::io::Result<EventLog> {
        let mut out = match path {
            Some(p) => Some(BufWriter::with_capacity(1 << 20, File::create(p)?)),
            None => None,
        };
        if let Some(w) = out.as_mut() {
            let mut h = Vec::new();
            h.extend_from_slice(b"hdrbhetb");
            for t in EVENT_TYPES {
                h.extend_from_slice(b"etb\0");
                h.extend_from_slice(&t.id.to_be_bytes());
                h.extend_from_slice(&t.size.map(|s| s as i16).unwrap_or(-1).to_be_bytes());
                h.extend_from_slice(&(t.desc.len() as u32).to_be_bytes());
                h.extend_from_slice(t.desc.as_bytes());
                h.extend_from_slice(&0u32.to_be_bytes());
                h.extend_from_slice(b"ete\0");
            }
            h.extend_from_slice(b"hetehdredatb");
            w.write_all(&h)?;
        }
        let mut bufs: Vec<Buffer> = (0..caps).map(|c| Buffer { cap: c as u16, bytes: Vec::with_capacity(FLUSH_BYTES), first_ts: None, last_ts: 0 }).collect();
        bufs.push(Buffer { cap: NO_CAP, bytes: Vec::new(), first_ts: None, last_ts: 0 });
        let written = out.as_ref().map(|_| 0).unwrap_or(0);
        Ok(EventLog { out, text, bufs, start, classes, finished: false, bytes_written: written, events: 0, text_failed: None })
    }

    /// Nanoseconds from the run's start to `at`.
    pub fn ts(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.start).as_nanos() as u64
    }

    /// The classes being written.
    pub fn classes(&self) -> Classes {
        self.classes
    }

    /// Post event `id` with `payload` at `at` on capability `cap` (None: no
    /// capability).
    pub fn post(&mut self, cap: Option<usize>, at: Instant, id: u16, payload: Payload) {
        let ts = self.ts(at);
        let index = cap.unwrap_or(self.bufs.len() - 1).min(self.bufs.len() - 1);
        let buf = &mut self.bufs[index];
        let ts = ts.max(buf.last_ts);
        buf.last_ts = ts;
        buf.first_ts.get_or_insert(ts);
        buf.bytes.extend_from_slice(&id.to_be_bytes());
        buf.bytes.extend_from_slice(&ts.to_be_bytes());
        let declared = size_of(id).expect("only declared event types are posted");
        match declared {
            Some(n) => debug_assert_eq!(n as usize, payload.0.len(), "event {id}: payload size"),
            None => buf.bytes.extend_from_slice(&(payload.0.len() as u16).to_be_bytes()),
        }
        buf.bytes.extend_from_slice(&payload.0);
        self.events += 1;
        if let Some(with_ts) = self.text {
            let who = match cap {
                Some(c) => format!("cap {c}: "),
                None => String::new(),
            };
            let line = describe(id, &payload.0);
            let stamp = if with_ts { format!("{ts:>12}: ") } else { String::new() };
            if let Err(e) = writeln!(std::io::stdout().lock(), "{stamp}{who}{line}") {
                self.text_failed.get_or_insert(e);
            }
        }
        if self.bufs[index].bytes.len() >= FLUSH_BYTES {
            let _ = self.flush_buffer(index);
        }
    }

    fn flush_buffer(&mut self, index: usize) -> std::io::Result<()> {
        let buf = &mut self.bufs[index];
        if buf.bytes.is_empty() {
            return Ok(());
        }
        let first = buf.first_ts.take().unwrap_or(0);
        let marker_len = 2 + 8 + 14;
        let mut block = Vec::with_capacity(marker_len + buf.bytes.len());
        block.extend_from_slice(&id::BLOCK_MARKER.to_be_bytes());
        block.extend_from_slice(&first.to_be_bytes());
        block.extend_from_slice(&((marker_len + buf.bytes.len()) as u32).to_be_bytes());
        block.extend_from_slice(&buf.last_ts.to_be_bytes());
        block.extend_from_slice(&buf.cap.to_be_bytes());
        block.extend_from_slice(&buf.bytes);
        buf.bytes.clear();
        if let Some(w) = self.out.as_mut() {
            w.write_all(&block)?;
            self.bytes_written += block.len() as u64;
        }
        Ok(())
    }

    /// The first failure to write `-v`'s text, if any (taken).
    pub fn take_text_failure(&mut self) -> Option<std::io::Error> {
        self.text_failed.take()
    }

    /// Flush every buffer and end the data. Idempotent; also done on drop,
    /// so a run that ends by an error still leaves a complete file.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        // The capability-less buffer first: it holds the run's preamble.
        let last = self.bufs.len() - 1;
        self.flush_buffer(last)?;
        for i in 0..last {
            self.flush_buffer(i)?;
        }
        if let Some(w) = self.out.as_mut() {
            w.write_all(&id::DATA_END.to_be_bytes())?;
            w.flush()?;
            self.bytes_written += 2;
        }
        Ok(())
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl EventLog {
    /// Write what a collector reports (See `CollectorEvent`), at `at`, in
    /// the buffer of no capability (a collector's own threads belong to
    /// none), except each capability's remembered-set flush.
    pub fn collector_event(&mut self, at: Instant, event: &crate::collector::CollectorEvent) {
        use crate::collector::CollectorEvent as E;
        if !self.classes().gc {
            return;
        }
        let (cap, id, payload) = match *event {
            E::MarkBegin => (None, id::CONC_MARK_BEGIN, Payload::new()),
            E::MarkEnd { marked_objects, .. } => (None, id::CONC_MARK_END, Payload::new().u32(marked_objects)),
            E::SweepBegin => (None, id::CONC_SWEEP_BEGIN, Payload::new()),
            E::SweepEnd => (None, id::CONC_SWEEP_END, Payload::new()),
            E::RemSetFlush { cap } => (Some(cap as usize), id::CONC_UPD_REM_SET_FLUSH, Payload::new().u16(cap)),
            E::Census { log_cell_bytes, active, filled, live } => {
                (None, id::NONMOVING_HEAP_CENSUS, Payload::new().u8(log_cell_bytes).u32(active).u32(filled).u32(live))
            }
        };
        self.post(cap, at, id, payload);
    }

    /// A collector's sync begins or ends (`CONC_SYNC_BEGIN`/`END`), in
    /// capability 0's buffer with the GCs: a sync stops the world too, and
    /// a reader takes the pauses in time order from one buffer (GHC posts
    /// its syncs in the buffer of no capability).
    pub fn collector_sync(&mut self, at: Instant, begins: bool) {
        if self.classes().gc {
            self.post(Some(0), at, if begins { id::CONC_SYNC_BEGIN } else { id::CONC_SYNC_END }, Payload::new());
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
impl GcObserver for EventLog {
    fn gc_end(&mut self, gc: &GcEnd<'_>) {
        if !self.classes().gc {
            return;
        }
        let (start, end, record) = (gc.start, gc.end, gc.record);
        let parallel = gc.outcome.parallel();
        let caps = gc.caps.len();
        let threads_shown = self.classes().scheduler;
        if threads_shown {
            for c in 0..caps {
                self.post(Some(c), start, id::STOP_THREAD, Payload::new().u32(c as u32 + 1).u16(STOP_HEAP_OVERFLOW).u32(0));
            }
        }
        let request = if parallel { id::REQUEST_PAR_GC } else { id::REQUEST_SEQ_GC };
        self.post(Some(0), start, request, Payload::new());
        self.post(Some(0), start, id::GC_START, Payload::new());
        self.post(Some(0), start, id::GC_GLOBAL_SYNC, Payload::new());
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
                self.post(Some(t % caps), came_in, id::GC_WORK, Payload::new());
                self.post(Some(t % caps), left.max(came_in), id::GC_IDLE, Payload::new());
            }
            self.post(Some(t % caps), end, id::GC_DONE, Payload::new());
        }
        for (c, cap) in gc.caps.iter().enumerate() {
            self.post(Some(c), end, id::HEAP_ALLOCATED, Payload::new().u32(0).u64(cap.total_allocated_words * WORD_SIZE as u64));
        }
        let per_thread = &record.thread_copied_bytes;
        let max_copied = if parallel { per_thread.iter().copied().max().unwrap_or(0) } else { 0 };
        let balanced = if parallel { crate::stats::balanced_copied(per_thread) } else { 0 };
        let (mapped, free_blocks) = {
            let b = gc.heap.blocks.lock();
            (b.mblocks().mapped(), b.free_blocks() + b.mblocks().free_count() * BLOCKS_PER_MBLOCK)
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
        self.post(Some(0), end, id::GC_STATS_GHC, stats.encode());
        self.post(Some(0), end, id::HEAP_SIZE, Payload::new().u32(0).u64((mapped * MBLOCK_SIZE) as u64));
        if gc.major {
            // Live data is known at major GCs only, as in GHC.
            self.post(Some(0), end, id::HEAP_LIVE, Payload::new().u32(0).u64(record.live_bytes));
        }
        if let Some(r) = &record.region {
            self.post(Some(0), end, id::REGION_SWEEP, encode_region_sweep(r));
        }
        self.post(Some(0), end, id::GC_END, Payload::new());
        if threads_shown {
            for c in 0..caps {
                self.post(Some(c), end, id::RUN_THREAD, Payload::new().u32(c as u32 + 1));
            }
        }
    }
}

/// `REGION_SWEEP`'s 30 bytes: line bytes (u16), blocks swept, freed and
/// recyclable, free lines and defragmented blocks (u32 each), and the
/// bytes copied to defragment (u64).
pub fn encode_region_sweep(r: &crate::collector::RegionSweep) -> Payload {
    Payload::new().u16(r.line_bytes as u16).u32(r.blocks_swept).u32(r.blocks_freed).u32(r.blocks_recyclable).u32(r.lines_free).u32(r.defrag_blocks).u64(r.defrag_copied_bytes)
}

/// Read `REGION_SWEEP`'s payload back (missing bytes read as zero).
pub fn decode_region_sweep(p: &[u8]) -> crate::collector::RegionSweep {
    crate::collector::RegionSweep {
        line_bytes: be16(p, 0) as u32,
        blocks_swept: be32(p, 2) as u32,
        blocks_freed: be32(p, 6) as u32,
        blocks_recyclable: be32(p, 10) as u32,
        lines_free: be32(p, 14) as u32,
        defrag_blocks: be32(p, 18) as u32,
        defrag_copied_bytes: be64(p, 22),
    }
}

fn be16(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 2).map(|s| u16::from_be_bytes([s[0], s[1]]) as u64).unwrap_or(0)
}
fn be32(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 4).map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as u64).unwrap_or(0)
}
fn be64(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map(|s| u64::from_be_bytes(s.try_into().expect("8 bytes"))).unwrap_or(0)
}

/// An event as one line of text, in the words `ghc-events show` uses.
pub fn describe(id: u16, p: &[u8]) -> String {
    match id {
        id::CREATE_THREAD => format!("creating thread {}", be32(p, 0)),
        id::RUN_THREAD => format!("running thread {}", be32(p, 0)),
        id::STOP_THREAD => format!("stopping thread {} ({})", be32(p, 0), match be16(p, 4) as u16 { STOP_HEAP_OVERFLOW => "heap overflow", STOP_FINISHED => "thread finished", _ => "other" }),
        id::GC_START => "starting GC".into(),
        id::CONC_MARK_BEGIN => "concurrent mark began".into(),
        id::CONC_MARK_END => format!("concurrent mark ended: marked {} objects", be32(p, 0)),
        id::CONC_SYNC_BEGIN => "post-mark synchronization began".into(),
        id::CONC_SYNC_END => "post-mark synchronization ended".into(),
        id::CONC_SWEEP_BEGIN => "concurrent sweep began".into(),
        id::CONC_SWEEP_END => "concurrent sweep ended".into(),
        id::CONC_UPD_REM_SET_FLUSH => format!("update remembered set flushed by {}", be16(p, 0)),
        id::NONMOVING_HEAP_CENSUS => format!(
            "nonmoving heap census {}: {} active segments, {} filled segments, {} live blocks",
            1u64 << p.first().copied().unwrap_or(0).min(63),
            be32(p, 1),
            be32(p, 5),
            be32(p, 9)
        ),
        id::REGION_SWEEP => {
            let r = decode_region_sweep(p);
            format!(
                "mark-region sweep: {} free lines of {} bytes in {} recyclable of {} blocks swept, {} blocks freed; {} blocks evacuated, {} bytes copied",
                r.lines_free, r.line_bytes, r.blocks_recyclable, r.blocks_swept, r.blocks_freed, r.defrag_blocks, r.defrag_copied_bytes
            )
        }
        id::GC_END => "finished GC".into(),
        id::REQUEST_SEQ_GC => "requesting sequential GC".into(),
        id::REQUEST_PAR_GC => "requesting parallel GC".into(),
        id::GC_IDLE => "GC idle".into(),
        id::GC_WORK => "GC working".into(),
        id::GC_DONE => "GC done".into(),
        id::GC_GLOBAL_SYNC => "all caps stopped for GC".into(),
        id::CAPSET_CREATE => format!("created capset {} of type {}", be32(p, 0), match be16(p, 4) as u16 { CAPSET_OSPROCESS => "CapsetOsProcess", CAPSET_CLOCKDOMAIN => "CapsetClockDomain", _ => "CapsetCustom" }),
        id::CAPSET_ASSIGN_CAP => format!("assigned cap {} to capset {}", be16(p, 4), be32(p, 0)),
        id::CAP_CREATE => format!("created cap {}", be16(p, 0)),
        id::RTS_IDENTIFIER => format!("capset {}: RTS version {:?}", be32(p, 0), String::from_utf8_lossy(p.get(4..).unwrap_or(&[]))),
        id::PROGRAM_ARGS => {
            let args: Vec<String> = p.get(4..).unwrap_or(&[]).split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect();
            format!("capset {}: args: {:?}", be32(p, 0), args)
        }
        id::OSPROCESS_PID => format!("capset {}: pid {}", be32(p, 0), be32(p, 4)),
        id::OSPROCESS_PPID => format!("capset {}: parent pid {}", be32(p, 0), be32(p, 4)),
        id::WALL_CLOCK_TIME => format!("capset {}: wall clock time {}s {}ns (unix epoch)", be32(p, 0), be64(p, 4), be32(p, 12)),
        id::HEAP_ALLOCATED => format!("allocated on heap capset {}: {} total bytes till now", be32(p, 0), be64(p, 4)),
        id::HEAP_SIZE => format!("size of heap capset {}: {} bytes", be32(p, 0), be64(p, 4)),
        id::HEAP_LIVE => format!("live data in heap capset {}: {} bytes", be32(p, 0), be64(p, 4)),
        id::HEAP_INFO_GHC => {
            let h = HeapInfoGhc::decode(p);
            format!(
                "heap stats for heap capset {}: generations {}, {} bytes max heap size, {} bytes alloc area size, {} bytes mblock size, {} bytes block size",
                h.heap_capset, h.generations, h.max_heap_size, h.alloc_area_size, h.mblock_size, h.block_size
            )
        }
        id::GC_STATS_GHC => {
            let g = GcStatsGhc::decode(p);
            format!(
                "GC stats for heap capset {}: generation {}, {} bytes copied, {} bytes slop, {} bytes fragmentation, {} par threads, {} bytes max par copied, {} bytes total par copied, {} bytes balanced par copied",
                g.heap_capset, g.gen, g.copied, g.slop, g.fragmentation, g.par_threads, g.par_max_copied, g.par_tot_copied, g.par_balanced_copied
            )
        }
        id::HEAP_PROF_BEGIN => format!("start heap profiling {} at sampling period {} broken down by {}", be16(p, 0) >> 8, be64(p, 1), be32(p, 9)),
        id::HEAP_PROF_SAMPLE_BEGIN => format!("start heap prof sample {}", be64(p, 0)),
        id::HEAP_PROF_SAMPLE_END => format!("end heap prof sample {}", be64(p, 0)),
        id::HEAP_PROF_SAMPLE_STRING => format!("heap prof sample string: {} bytes {:?}", be64(p, 1), String::from_utf8_lossy(p.get(9..p.len().saturating_sub(1)).unwrap_or(&[]))),
        id::HEAP_PROF_COST_CENTRE => format!("heap prof define cost centre {}", be32(p, 0)),
        id::HEAP_PROF_SAMPLE_COST_CENTRE => format!("heap prof sample cost centre: {} bytes", be64(p, 1)),
        other => format!("event {other} ({} bytes)", p.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_sizes_match_ghc() {
        // GHC 9.0.2's sizes, as its eventlogs declare them.
        for (i, s) in [(9, 0), (18, 14), (25, 6), (27, 6), (32, 8), (43, 16), (45, 2), (49, 12), (52, 38), (53, 58), (54, 0)] {
            assert_eq!(size_of(i), Some(Some(s)), "event {i}");
        }
        assert_eq!(size_of(id::PROGRAM_ARGS), Some(None));
    }

    #[test]
    fn typed_events_round_trip_at_ghcs_sizes() {
        let g = GcStatsGhc { heap_capset: 0, gen: 1, copied: 7, slop: 8, fragmentation: 9, par_threads: 2, par_max_copied: 5, par_tot_copied: 7, par_balanced_copied: 4 };
        assert_eq!(g.encode().0.len(), 58);
        assert_eq!(GcStatsGhc::decode(&g.encode().0), g);
        let h = HeapInfoGhc { heap_capset: 0, generations: 3, max_heap_size: 1 << 30, alloc_area_size: 1 << 20, mblock_size: 1 << 20, block_size: 4096 };
        assert_eq!(h.encode().0.len(), 38);
        assert_eq!(HeapInfoGhc::decode(&h.encode().0), h);
    }

    #[test]
    fn file_has_header_blocks_and_end() {
        let path = std::env::temp_dir().join(format!("gclab-ev-{}.eventlog", std::process::id()));
        let start = Instant::now();
        {
            let mut log = EventLog::create(Some(&path), None, 1, Classes { gc: true, scheduler: true }, start).unwrap();
            log.post(None, start, id::CAPSET_CREATE, Payload::new().u32(0).u16(CAPSET_OSPROCESS));
            log.post(Some(0), start, id::GC_START, Payload::new());
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"hdrbhetbetb\0"));
        assert!(bytes.windows(12).any(|w| w == b"hetehdredatb"));
        assert_eq!(&bytes[bytes.len() - 2..], &[0xff, 0xff]);
        std::fs::remove_file(&path).unwrap();
    }
}
