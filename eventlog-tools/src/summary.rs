//! `gclab eventlog FILE`: GHC's `+RTS -s` summary and a timeline, computed
//! from an eventlog alone (gclab's or a GHC program's), as seed 002 designs it.
//!
//! - Bytes allocated: the sum over capabilities of each one's last
//!   HEAP_ALLOCATED (a running total per capability), within the interval.
//! - A GC is a GC_START .. GC_END on the capability that posted its
//!   GC_STATS_GHC; its pause is that span (the statistics' own timestamps),
//!   its generation and copied bytes come from GC_STATS_GHC.
//! - Maximum residency: the largest HEAP_LIVE; samples: the major GCs.
//! - Memory in use: the largest HEAP_SIZE. Slop: the largest in GC_STATS_GHC.
//! - Elapsed: the interval; MUT = elapsed - GC. An eventlog holds no CPU
//!   times, so the CPU columns repeat the elapsed ones.
//! - A concurrent collector's (GHC's `-xn`, gclab's `nonmoving`): each
//!   CONC_MARK_BEGIN .. CONC_MARK_END is a marking beside the mutators
//!   (GHC's `Gen 1 concurrent` line; the last begin before an end counts,
//!   as a GHC marking may begin several times), each CONC_SYNC_BEGIN ..
//!   CONC_SYNC_END a sync pause (the `syncs` line, counted as GC time and
//!   in the pause distribution, in the oldest generation).
//!
//! Nothing kept grows with the file: the pauses go to `Latency` as they
//! are read (See Note [Pauses out of order]), the timeline keeps the
//! share of time in GC per stretch of the run and thinned series of heap
//! size, live data and allocation (See `timeline`).
//!
//! Note [Pauses out of order]
//! ----------------------------------------
//! An eventlog is written a buffer at a time: one buffer per capability
//! and one for events of none, each written out as a block when it fills.
//! A GC's events go in its leader's buffer (GHC) or capability 0's
//! (gclab), a GHC sync's in the capability-less one, so a pause can be
//! read after later pauses from another buffer (GHC 9.0 writes the
//! capability-less buffer out only when it fills or the program ends, so
//! a `-xn` program's syncs all come last). The MMU takes pauses in time
//! order, so the `Deriver` holds them in a heap ordered by start until
//! every buffer seen, and the capability-less one from the start, has
//! gone past that start: a buffer's events are in time order, so none of
//! its later pauses can start before its last event, or before the start
//! of a pause it has begun and not ended. Which buffers will post pauses
//! is not known ahead, and one that posts rarely would hold them all, so
//! at most `HELD_PAUSES` are held (4 MB) and past that the earliest goes;
//! a pause that then arrives before one already released is late: it
//! counts in the pause distribution, is clipped for the MMU, and the
//! summary says how many there were. (Measured: GHC's binary-trees 20
//! `-xn`, 7,082 pauses, none late; had only buffers that had posted
//! pauses been waited for, its 22 syncs would have been.)

use crate::reader::{Damage, Event, EventLogFile, EventRef, EventStream};
use crate::latency::{Latency, Pause};
use gclab_core::eventlog::{id, GcStatsGhc, HeapInfoGhc};
use gclab_core::stats::{GenStats, Stats};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use crate::timeline::{Occupancy, Thinned, Timeline};
use std::path::Path;

/// What the events say about the run.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The statistics, in core's record (for core's `-s` printer).
    pub stats: Stats,
    /// Capabilities seen.
    pub caps: usize,
    /// Heap, live data, allocation and pauses over the interval (its
    /// times from the interval's start).
    pub timeline: Timeline,
    /// Pause distribution and MMU (`latency::Latency`'s fields).
    pub latency: serde_json::Map<String, serde_json::Value>,
    /// Pauses that arrived too far out of order for the MMU (See Note
    /// [Pauses out of order]).
    pub late_pauses: u64,
    /// Signs of damage the figures show.
    pub implausible: Implausible,
    /// Events read.
    pub events: usize,
    /// Start of the interval, seconds from the log's start.
    pub from: f64,
    /// The last event's time, seconds from the log's start.
    pub log_end: f64,
    /// What ran, as the log says: the runtime (`gclab-0.1.0 copying`,
    /// `GHC-9.0.2 rts_thr`) and the program's arguments; empty if the log
    /// has neither (`-l` without the scheduler class).
    pub ran: String,
}

const NS: f64 = 1e9;

/// Summarise the eventlog `file` as it is read, an event at a time, in
/// memory that does not grow with the file (`EventStream`, `Deriver`),
/// reading ahead on a second thread (`read_ahead`); with what was wrong
/// with it.
pub fn summarise(file: &Path, from: Option<f64>, to: Option<f64>) -> Result<(Derived, Vec<Damage>), String> {
    gclab_core::input::check_regular(file, u64::MAX, "an eventlog")?;
    let f = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let stream = EventStream::open(f).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut deriver = Deriver::new(from, to);
    let damage = crate::reader::read_ahead(stream, crate::reader::BATCH_EVENTS, |e| deriver.feed(e));
    Ok((deriver.finish(), damage))
}

/// A GC begun on a capability: its start, and its GC_STATS_GHC once it
/// arrives.
type OpenGc = (f64, Option<GcStatsGhc>);

/// Compute the summary over `[from, to]` seconds (the whole run by default).
pub fn derive(log: &EventLogFile, from: Option<f64>, to: Option<f64>) -> Derived {
    let mut deriver = Deriver::new(from, to);
    for e in &log.events {
        deriver.feed(e.as_ref());
    }
    deriver.finish()
}

/// Pauses held until they can go to `Latency` in time order, at most
/// this many. See Note [Pauses out of order].
const HELD_PAUSES: usize = 1 << 17;

/// A pause ordered by its start.
#[derive(Debug, PartialEq)]
struct ByStart(Pause);

impl Eq for ByStart {}

impl PartialOrd for ByStart {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByStart {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.start.total_cmp(&other.0.start)
    }
}

/// What `InOrder` knows of a buffer.
#[derive(Debug, Clone, Copy, Default)]
struct Buffer {
    /// The time of its last event.
    last: f64,
    /// The start of a pause it has begun and not yet ended.
    open: Option<f64>,
}

impl Buffer {
    /// No pause this buffer posts from now on starts before this.
    fn bound(&self) -> f64 {
        self.open.map_or(self.last, |o| o.min(self.last))
    }
}

/// The pauses on their way to `Latency`, in the log's times (the
/// interval's start is taken off as they go). See Note [Pauses out of
/// order].
#[derive(Default)]
struct InOrder {
    from: f64,
    held: BinaryHeap<Reverse<ByStart>>,
    /// Per buffer (`slot`).
    buffers: Vec<Buffer>,
    /// The latest start released.
    released: f64,
    late: u64,
    latency: Latency,
}

/// How far (seconds) an event may be stamped before the previous one of
/// its buffer before the file counts as damaged. GHC posts GC_END with the
/// GC statistics' own time, a fraction of a millisecond before the event
/// it follows; a flipped bit in a timestamp moves it by seconds to
/// centuries, which made the summary print a GC time of -4611686018 s.
const BACKWARDS_SLACK: f64 = 1.0;

/// Signs that a file's events are damaged in ways the reader cannot see
/// (a flipped bit in a timestamp reads as a valid event): the summary
/// warns instead of printing impossible figures silently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Implausible {
    /// Events stamped more than `BACKWARDS_SLACK` before the previous one
    /// of their buffer (a buffer's events are in time order).
    pub backwards: u64,
    /// GCs or syncs that end before they begin (left out).
    pub inverted: u64,
    /// GCs that begin before the previous GC ended (the world is stopped
    /// for one at a time).
    pub overlapping: u64,
    /// More GC time than elapsed time.
    pub gc_over_elapsed: bool,
    /// Bytes allocated or copied summing past 2^64 (kept at 2^64 - 1).
    pub bytes_overflow: bool,
}

impl Implausible {
    /// A warning line, or nothing.
    pub fn text(&self) -> String {
        let mut signs = Vec::new();
        if self.backwards > 0 {
            signs.push(format!("{} events are stamped over a second before the previous event of their buffer", self.backwards));
        }
        if self.inverted > 0 {
            signs.push(format!("{} GCs or syncs end before they begin (left out)", self.inverted));
        }
        if self.overlapping > 0 {
            signs.push(format!("{} GCs begin before the previous one ended", self.overlapping));
        }
        if self.gc_over_elapsed {
            signs.push("the GCs take longer than the run".to_string());
        }
        if self.bytes_overflow {
            signs.push("the bytes allocated or copied sum past 2^64".to_string());
        }
        match signs.is_empty() {
            true => String::new(),
            false => format!("(warning: {}: the file is damaged, and the figures above may be wrong)\n", signs.join("; ")),
        }
    }
}

/// A buffer's index: 0 for the events of no capability, c + 1 for
/// capability c's.
fn slot(cap: Option<u16>) -> usize {
    cap.map_or(0, |c| c as usize + 1)
}

impl InOrder {
    /// An event of buffer `slot` at `t`.
    /// Returns whether `t` is more than `BACKWARDS_SLACK` before the
    /// buffer's previous event.
    fn seen(&mut self, slot: usize, t: f64) -> bool {
        let b = grown(&mut self.buffers, slot);
        let backwards = t < b.last - BACKWARDS_SLACK;
        b.last = t;
        backwards
    }

    /// A pause began at `t` (GC_START, CONC_SYNC_BEGIN) in buffer `slot`.
    fn opened(&mut self, slot: usize, t: f64) {
        let b = grown(&mut self.buffers, slot);
        b.open = Some(b.open.map_or(t, |o| o.min(t)));
    }

    /// A pause ended, posted in buffer `slot`.
    fn push(&mut self, slot: usize, p: Pause) {
        grown(&mut self.buffers, slot).open = None;
        self.held.push(Reverse(ByStart(p)));
        let safe = self.buffers.iter().map(Buffer::bound).fold(f64::INFINITY, f64::min);
        while let Some(Reverse(ByStart(next))) = self.held.peek() {
            if next.start > safe && self.held.len() <= HELD_PAUSES {
                break;
            }
            self.release();
        }
    }

    /// Pass on the earliest pause held.
    fn release(&mut self) {
        if let Some(Reverse(ByStart(p))) = self.held.pop() {
            if p.start < self.released {
                self.late += 1;
            }
            self.released = self.released.max(p.start);
            self.latency.push(Pause { start: p.start - self.from, ..p });
        }
    }

    /// Every pause passed on.
    fn finish(mut self) -> (Latency, u64) {
        while !self.held.is_empty() {
            self.release();
        }
        (self.latency, self.late)
    }
}

/// `derive`, an event at a time, so that a file of any size is summarised
/// as it is read (`EventStream`) in memory that does not grow with it.
pub struct Deriver {
    from: f64,
    to: f64,
    generations: usize,
    stats: Stats,
    pauses: InOrder,
    pausing: Vec<Occupancy>,
    marking: Occupancy,
    copying: Occupancy,
    heap_size: Thinned,
    live: Thinned,
    allocated: Thinned,
    mark_begin: Option<f64>,
    copy_out_begin: Option<f64>,
    sync_begin: Option<f64>,
    /// Per buffer (`slot`): its running allocation total at the
    /// interval's start and at its last HEAP_ALLOCATED inside it.
    alloc_at_from: Vec<u64>,
    alloc_last: Vec<u64>,
    /// The sum of `alloc_last`.
    alloc_sum: u64,
    open: Vec<Option<OpenGc>>,
    max_threads: u32,
    events: usize,
    last: f64,
    caps: usize,
    implausible: Implausible,
    /// Where the last GC ended.
    last_gc_end: f64,
    /// The runtime and the program, from RTS_IDENTIFIER and PROGRAM_ARGS.
    runtime: String,
    program: String,
}

/// `v[i]`, growing `v` to hold it.
fn grown<T: Clone + Default>(v: &mut Vec<T>, i: usize) -> &mut T {
    if i >= v.len() {
        v.resize(i + 1, T::default());
    }
    &mut v[i]
}

impl Deriver {
    /// A summary of `[from, to]` seconds (the whole run by default).
    pub fn new(from: Option<f64>, to: Option<f64>) -> Deriver {
        let from = from.unwrap_or(0.0);
        Deriver {
            from,
            to: to.unwrap_or(f64::INFINITY),
            generations: 2,
            stats: Stats::new(2, 1),
            pauses: InOrder { from, buffers: vec![Buffer::default()], ..InOrder::default() },
            pausing: Vec::new(),
            marking: Occupancy::default(),
            copying: Occupancy::default(),
            heap_size: Thinned::default(),
            live: Thinned::default(),
            allocated: Thinned::default(),
            mark_begin: None,
            copy_out_begin: None,
            sync_begin: None,
            alloc_at_from: Vec::new(),
            alloc_last: Vec::new(),
            alloc_sum: 0,
            open: Vec::new(),
            max_threads: 1,
            events: 0,
            last: 0.0,
            caps: 1,
            implausible: Implausible::default(),
            last_gc_end: 0.0,
            runtime: String::new(),
            program: String::new(),
        }
    }

    /// A pause of generation `gen` over `[start, end]` (seconds from the
    /// log's start), posted in buffer `slot`.
    fn pause(&mut self, slot: usize, gen: usize, start: f64, end: f64) {
        grown(&mut self.pausing, gen).add(start - self.from, end - self.from);
        self.pauses.push(slot, Pause { start, length: end - start, gen });
    }

    /// Take one event (in file order).
    pub fn feed(&mut self, e: EventRef<'_>) {
        let t = e.ts as f64 / NS;
        self.events += 1;
        self.last = self.last.max(t);
        if let Some(c) = e.cap {
            self.caps = self.caps.max(c as usize + 1);
        }
        let slot = slot(e.cap);
        self.implausible.backwards += self.pauses.seen(slot, t) as u64;
        let (from, to) = (self.from, self.to);
        let inside = |t: f64| t >= from && t <= to;
        match e.id {
            id::RTS_IDENTIFIER => self.runtime = String::from_utf8_lossy(e.payload.get(4..).unwrap_or(&[])).trim_end_matches('\0').to_string(),
            id::PROGRAM_ARGS => {
                let args = e.payload.get(4..).unwrap_or(&[]).split(|b| *b == 0).filter(|a| !a.is_empty());
                self.program = args.map(|a| String::from_utf8_lossy(a).into_owned()).collect::<Vec<_>>().join(" ");
            }
            id::HEAP_INFO_GHC => {
                // Announced first, by GHC and gclab alike.
                self.generations = (HeapInfoGhc::decode(e.payload).generations as usize).max(1);
                self.stats.gens.resize(self.generations, GenStats::default());
            }
            id::HEAP_ALLOCATED => {
                let total = e.field(4, 8);
                if t <= from {
                    *grown(&mut self.alloc_at_from, slot) = total;
                }
                if t <= to {
                    let last = grown(&mut self.alloc_last, slot);
                    self.alloc_sum = self.alloc_sum.wrapping_sub(*last).wrapping_add(total);
                    *last = total;
                    if inside(t) {
                        self.allocated.push((t - from, self.alloc_sum as f64));
                    }
                }
            }
            id::GC_START => {
                *grown(&mut self.open, slot) = Some((t, None));
                self.pauses.opened(slot, t);
            }
            id::GC_STATS_GHC => {
                if let Some(Some(g)) = self.open.get_mut(slot) {
                    let stats = GcStatsGhc::decode(e.payload);
                    g.1 = Some(stats);
                    self.stats.max_slop_bytes = self.stats.max_slop_bytes.max(stats.slop);
                }
            }
            id::GC_END => {
                if let Some((start, Some(stats))) = self.open.get_mut(slot).and_then(Option::take) {
                    if t < start {
                        self.implausible.inverted += 1;
                    } else if inside(start) && inside(t) {
                        self.implausible.overlapping += (start < self.last_gc_end) as u64;
                        self.last_gc_end = t;
                        let gen = (stats.gen as usize).min(self.generations - 1);
                        record_gc(&mut self.stats, gen, t - start, &stats, self.generations);
                        self.max_threads = self.max_threads.max(stats.par_threads);
                        self.pause(slot, gen, start, t);
                    }
                }
            }
            id::CONC_MARK_BEGIN => self.mark_begin = Some(t),
            id::CONC_MARK_END => {
                if let Some(b) = self.mark_begin.take().filter(|&b| inside(b) && inside(t)) {
                    self.marking.add(b - from, t - from);
                    self.stats.concurrent_phase(gclab_core::ConcurrentPhase { cpu: t - b, elapsed: t - b });
                }
            }
            id::CONC_SYNC_BEGIN => {
                self.sync_begin = Some(t);
                self.pauses.opened(slot, t);
            }
            id::CONC_SYNC_END => {
                if let Some(b) = self.sync_begin.take().filter(|&b| inside(b) && inside(t)) {
                    if t < b {
                        self.implausible.inverted += 1;
                        return;
                    }
                    record_sync(&mut self.stats, t - b);
                    self.pause(slot, self.generations - 1, b, t);
                }
            }
            id::REGION_SWEEP if inside(t) => self.stats.record_region_sweep(&gclab_core::eventlog::decode_region_sweep(e.payload)),
            id::COMPACTION if inside(t) => {
                // Compactions are of the oldest generation; `-s` counts
                // them there.
                self.stats.record_compaction(&gclab_core::eventlog::decode_compaction(e.payload));
                if let Some(oldest) = self.stats.gens.last_mut() {
                    oldest.compactions += 1;
                }
            }
            id::COPY_OUT_BEGIN => self.copy_out_begin = Some(t),
            id::COPY_OUT_END if inside(t) => {
                if let Some(b) = self.copy_out_begin.take().filter(|&b| inside(b)) {
                    self.copying.add(b - from, t - from);
                }
                self.stats.record_copy_out(&gclab_core::eventlog::decode_copy_out(e.payload));
            }
            id::DECREMENTS_END if inside(t) => {
                // A decrement thread's run: its own CPU and elapsed
                // nanoseconds, as lxr measured them.
                let ns = |at: usize| e.field(at, 8) as f64 * 1e-9;
                self.stats.concurrent_phase(gclab_core::ConcurrentPhase { cpu: ns(16), elapsed: ns(24) });
            }
            id::HEAP_LIVE if inside(t) => {
                let live = e.field(4, 8);
                self.stats.max_live_bytes = self.stats.max_live_bytes.max(live);
                self.live.push((t - from, live as f64));
            }
            id::HEAP_SIZE if inside(t) => {
                let size = e.field(4, 8);
                self.stats.max_mem_in_use_bytes = self.stats.max_mem_in_use_bytes.max(size);
                self.heap_size.push((t - from, size as f64));
            }
            _ => {}
        }
    }

    /// The summary of what was fed.
    pub fn finish(self) -> Derived {
        let mut s = self.stats;
        // Saturating: a damaged file's counters can sum past 2^64.
        let allocated: u64 = self.alloc_last.iter().enumerate().map(|(i, v)| v.saturating_sub(self.alloc_at_from.get(i).copied().unwrap_or(0))).fold(0, u64::saturating_add);
        s.allocated_bytes = allocated;
        s.cap_allocated_bytes = vec![allocated];
        s.gc_threads = self.max_threads as usize;
        s.total_elapsed = (self.to.min(self.last) - self.from).max(0.0);
        s.total_cpu = s.total_elapsed;
        s.gc_cpu = s.gc_elapsed;
        s.concurrent_collector = !self.marking.is_empty() || s.collector_syncs > 0 || s.concurrent_phases > 0;
        let (latency, late_pauses) = self.pauses.finish();
        let elapsed = s.total_elapsed;
        let bytes_overflow = [s.allocated_bytes, s.copied_bytes, s.cumulative_par_max_copied_bytes, s.cumulative_par_balanced_copied_bytes].contains(&u64::MAX);
        let implausible = Implausible { gc_over_elapsed: s.gc_elapsed > elapsed + 1e-9, bytes_overflow, ..self.implausible };
        let mut pausing = self.pausing;
        pausing.resize(s.gens.len().max(pausing.len()), Occupancy::default());
        let ran = format!("{}: {}", self.runtime, self.program).trim_matches(|c| c == ':' || c == ' ').to_string();
        Derived {
            ran,
            latency: latency.finish(elapsed, s.gens.len()),
            stats: s,
            caps: self.caps,
            timeline: Timeline {
                elapsed,
                pausing,
                marking: self.marking,
                copying: self.copying,
                heap_size: self.heap_size.into_points(),
                live: self.live.into_points(),
                allocated: self.allocated.into_points(),
            },
            late_pauses,
            implausible,
            events: self.events,
            from: self.from,
            log_end: self.last,
        }
    }
}

/// Count a concurrent collector's sync pause of `pause` seconds.
fn record_sync(s: &mut Stats, pause: f64) {
    s.collector_syncs += 1;
    s.collector_sync_elapsed += pause;
    s.collector_sync_cpu += pause;
    s.collector_sync_max = s.collector_sync_max.max(pause);
    s.gc_elapsed += pause;
}

fn record_gc(s: &mut Stats, gen: usize, pause: f64, stats: &GcStatsGhc, generations: usize) {
    let (copied, threads) = (stats.copied, stats.par_threads);
    // The byte counts come from the file, and a damaged one can make them
    // sum past 2^64: they saturate (and the summary says it is implausible).
    s.gcs += 1;
    s.copied_bytes = s.copied_bytes.saturating_add(copied);
    s.gc_elapsed += pause;
    if gen == generations - 1 {
        s.major_gcs += 1;
    }
    if threads > 1 {
        s.par_copied_bytes = s.par_copied_bytes.saturating_add(copied);
        s.cumulative_par_max_copied_bytes = s.cumulative_par_max_copied_bytes.saturating_add(stats.par_max_copied);
        s.cumulative_par_balanced_copied_bytes = s.cumulative_par_balanced_copied_bytes.saturating_add(stats.par_balanced_copied);
    }
    let g: &mut GenStats = &mut s.gens[gen];
    g.collections += 1;
    g.par_collections += (threads > 1) as u64;
    g.elapsed += pause;
    g.cpu += pause;
    g.max_pause = g.max_pause.max(pause);
}

/// The `-s` text, with a line saying where it came from, then the pause
/// distribution and MMU of the interval (See `latency`).
pub fn summary_text(d: &Derived, file: &Path) -> String {
    let mut out = format!("{}: {} events, {} GCs; computed from the eventlog (elapsed times only: the CPU columns repeat them)\n\n", file.display(), d.events, d.stats.gcs);
    out.push_str(&gclab_core::report::summary(&d.stats, d.caps));
    out.push_str(&gclab_core::report::region_summary(&d.stats).unwrap_or_default());
    out.push_str(&gclab_core::report::compaction_summary(&d.stats).unwrap_or_default());
    out.push('\n');
    out.push_str(&crate::latency::latency_text(&d.latency, d.stats.gens.len()));
    out.push_str(&d.implausible.text());
    if d.late_pauses > 0 {
        out.push_str(&format!("(warning: {} pauses were read after more than {HELD_PAUSES} later ones, from another capability's buffer: the distributions count them, the MMU clips them to where the pauses before them ended)\n", d.late_pauses));
    }
    out
}

/// The events of `log` as text, one a line (`gclab eventlog --show`).
pub fn show(log: &EventLogFile) -> String {
    let mut out = String::new();
    for Event { ts, cap, id, payload } in &log.events {
        let who = cap.map(|c| format!("cap {c}: ")).unwrap_or_default();
        let text = if log.types.contains_key(id) && gclab_core::eventlog::EVENT_TYPES.iter().any(|t| t.id == *id) {
            gclab_core::eventlog::describe(*id, payload)
        } else {
            log.types.get(id).map(|(_, d)| d.clone()).unwrap_or_else(|| format!("event {id}"))
        };
        out.push_str(&format!("{ts:>12}: {who}{text}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_counts_the_gcs_wholly_inside_it() {
        // Ten GCs of 2 ms every 3 ms; [0, 14.5 ms] holds five whole ones.
        let mut whole = crate::reader::EventLogFile::default();
        for (i, id) in [id::GC_START, id::GC_STATS_GHC, id::GC_END].iter().cycle().take(30).enumerate() {
            let payload = if *id == id::GC_STATS_GHC { GcStatsGhc { gen: 0, copied: 100, ..GcStatsGhc::default() }.encode().0 } else { Vec::new() };
            whole.events.push(Event { ts: i as u64 * 1_000_000, cap: Some(0), id: *id, payload });
        }
        let d = derive(&whole, None, None);
        assert_eq!(d.stats.gcs, 10);
        assert_eq!(d.stats.copied_bytes, 1000);
        let part = derive(&whole, Some(0.0), Some(0.0145));
        assert_eq!(part.stats.gcs, 5, "GCs wholly inside [0, 14.5 ms]");
        assert!((part.stats.total_elapsed - 0.0145).abs() < 1e-12);
    }

    /// GC events on capability 0's buffer, sync events on the buffer of no
    /// capability written out after all of them (as GHC 9.0 writes a
    /// `-xn` program's): the latency is that of the pauses in time order.
    #[test]
    fn pauses_from_a_buffer_written_last_are_put_back_in_order() {
        let mut log = crate::reader::EventLogFile::default();
        let ms = |t: f64| (t * 1e6) as u64;
        let mut pauses = Vec::new();
        for i in 0..200 {
            let start = i as f64 * 5.0;
            let stats = GcStatsGhc { gen: 0, ..GcStatsGhc::default() }.encode().0;
            for (at, id, payload) in [(start, id::GC_START, vec![]), (start + 1.0, id::GC_STATS_GHC, stats), (start + 1.0, id::GC_END, vec![])] {
                log.events.push(Event { ts: ms(at), cap: Some(0), id, payload });
            }
            pauses.push(Pause { start: start / 1e3, length: 1e-3, gen: 0 });
        }
        for i in 0..20 {
            let start = i as f64 * 50.0 + 2.0;
            log.events.push(Event { ts: ms(start), cap: None, id: id::CONC_SYNC_BEGIN, payload: vec![] });
            log.events.push(Event { ts: ms(start + 2.5), cap: None, id: id::CONC_SYNC_END, payload: vec![] });
            pauses.push(Pause { start: start / 1e3, length: 2.5e-3, gen: 1 });
        }
        let d = derive(&log, None, None);
        assert_eq!(d.late_pauses, 0);
        pauses.sort_by(|a, b| a.start.total_cmp(&b.start));
        let want = crate::latency::latency_of(&pauses, d.stats.total_elapsed, 2);
        assert_eq!(d.latency.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
        for (k, v) in &want {
            let (got, v) = (d.latency[k].as_f64().unwrap(), v.as_f64().unwrap());
            assert!((got - v).abs() < 1e-9, "{k}: {got} vs {v}");
        }
        assert!(want["mmu_5ms"].as_f64().unwrap() < 0.4, "the syncs count: {want:?}");
    }
}
