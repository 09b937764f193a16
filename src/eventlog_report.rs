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
//! share of time in GC per stretch of the run (`Occupancy`) and thinned
//! series of heap size, live data and allocation.
//!
//! Note [Pauses out of order]
//! ----------------------------------------
//! An eventlog is written a buffer at a time: one buffer per capability
//! and one for events of none, each written out as a block when it fills.
//! A GC's events go in its leader's buffer (GHC) or capability 0's
//! (gclab), a GHC sync's in the capability-less one, so a pause can be
//! read after later pauses from another buffer. The MMU takes pauses in
//! time order, so the `Deriver` holds them in a heap ordered by start
//! until every buffer that has posted pauses has gone past that start (a
//! buffer's events are in time order, so none of its later pauses can
//! start earlier). A buffer that posts rarely would hold them all, so at
//! most `HELD_PAUSES` are held (4 MB) and past that the earliest goes; a
//! pause that then arrives before one already released is late: it counts
//! in the pause distribution, is clipped for the MMU, and the summary says
//! how many there were. gclab's own eventlogs post every pause in
//! capability 0's buffer, so none is ever late.

use crate::eventlog_reader::{Event, EventLogFile};
use crate::latency::{Latency, Pause};
use gclab_core::eventlog::{id, GcStatsGhc, HeapInfoGhc};
use gclab_core::stats::{GenStats, Stats};
use plotters::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

/// What the events say about the run.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The statistics, in core's record (for core's `-s` printer).
    pub stats: Stats,
    /// Capabilities seen.
    pub caps: usize,
    /// The share of time in GC pauses over the interval, per generation
    /// (a collector's syncs in the oldest).
    pub pausing: Vec<Occupancy>,
    /// The share of time a concurrent marker was running.
    pub marking: Occupancy,
    /// Pause distribution and MMU (`latency::Latency`'s fields).
    pub latency: serde_json::Map<String, serde_json::Value>,
    /// Pauses that arrived too far out of order for the MMU (See Note
    /// [Pauses out of order]).
    pub late_pauses: u64,
    /// (seconds, bytes) of HEAP_SIZE.
    pub heap_size: Vec<(f64, f64)>,
    /// (seconds, bytes) of HEAP_LIVE.
    pub live: Vec<(f64, f64)>,
    /// (seconds, bytes) of total allocation (all capabilities).
    pub allocated: Vec<(f64, f64)>,
    /// Events read.
    pub events: usize,
    /// Start of the interval, seconds from the log's start.
    pub from: f64,
}

const NS: f64 = 1e9;

/// A GC begun on a capability: its start, and its GC_STATS_GHC once it
/// arrives.
type OpenGc = (f64, Option<GcStatsGhc>);

/// Compute the summary over `[from, to]` seconds (the whole run by default).
pub fn derive(log: &EventLogFile, from: Option<f64>, to: Option<f64>) -> Derived {
    let mut deriver = Deriver::new(from, to);
    for e in &log.events {
        deriver.feed(e);
    }
    deriver.finish()
}

/// Points kept of a time series (heap size, live data, allocation): past
/// this many, every other one is dropped and then only every other new
/// one kept, so a series of any length is at most this long, evenly
/// thinned, for the timeline.
const SERIES_POINTS: usize = 20_000;

/// A time series thinned as it grows (See `SERIES_POINTS`).
#[derive(Debug, Default)]
struct Thinned {
    points: Vec<(f64, f64)>,
    stride: usize,
    seen: usize,
}

impl Thinned {
    fn push(&mut self, p: (f64, f64)) {
        if self.seen.is_multiple_of(self.stride.max(1)) {
            self.points.push(p);
            if self.points.len() > SERIES_POINTS {
                let kept: Vec<(f64, f64)> = self.points.iter().copied().step_by(2).collect();
                self.points = kept;
                self.stride = self.stride.max(1) * 2;
            }
        }
        self.seen += 1;
    }
}

/// Stretches of time an `Occupancy` keeps at most.
const OCCUPANCY_BUCKETS: usize = 2048;

/// The share of time taken by spans (pauses, markings) in each of at most
/// `OCCUPANCY_BUCKETS` equal stretches of the run, 1 ms wide at first;
/// whenever a span ends past the last, neighbours merge and the width
/// doubles. A timeline of any number of GCs in 16 KB, and a picture of
/// at most 2,048 bars.
#[derive(Debug, Clone)]
pub struct Occupancy {
    /// Seconds per bucket.
    pub width: f64,
    /// Seconds taken in each bucket.
    pub busy: Vec<f64>,
}

impl Default for Occupancy {
    fn default() -> Occupancy {
        Occupancy { width: 1e-3, busy: Vec::new() }
    }
}

impl Occupancy {
    /// Count the span `[start, end]` (seconds from the interval's start).
    pub fn add(&mut self, start: f64, end: f64) {
        if !(start.is_finite() && end.is_finite() && end > start) {
            return;
        }
        let start = start.max(0.0);
        while end > self.width * OCCUPANCY_BUCKETS as f64 {
            self.busy = self.busy.chunks(2).map(|pair| pair.iter().sum()).collect();
            self.width *= 2.0;
        }
        let w = self.width;
        let last = ((end / w) as usize).min(OCCUPANCY_BUCKETS - 1);
        if last >= self.busy.len() {
            self.busy.resize(last + 1, 0.0);
        }
        for i in (start / w) as usize..=last {
            let (lo, hi) = ((i as f64 * w).max(start), ((i + 1) as f64 * w).min(end));
            self.busy[i] += (hi - lo).max(0.0);
        }
    }

    /// Whether any span was counted.
    pub fn is_empty(&self) -> bool {
        self.busy.iter().all(|&b| b == 0.0)
    }
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

/// The pauses on their way to `Latency`. See Note [Pauses out of order].
#[derive(Default)]
struct InOrder {
    held: BinaryHeap<Reverse<ByStart>>,
    /// Per buffer (`slot`): the time of its last event, and whether it
    /// has posted a pause.
    buffers: Vec<(f64, bool)>,
    /// The latest start released.
    released: f64,
    late: u64,
    latency: Latency,
}

/// A buffer's index: 0 for the events of no capability, c + 1 for
/// capability c's.
fn slot(cap: Option<u16>) -> usize {
    cap.map_or(0, |c| c as usize + 1)
}

impl InOrder {
    /// An event of buffer `slot` at `t`.
    fn seen(&mut self, slot: usize, t: f64) {
        if slot >= self.buffers.len() {
            self.buffers.resize(slot + 1, (0.0, false));
        }
        self.buffers[slot].0 = t;
    }

    /// A pause ended, posted in buffer `slot`.
    fn push(&mut self, slot: usize, p: Pause) {
        self.buffers[slot].1 = true;
        self.held.push(Reverse(ByStart(p)));
        let safe = self.buffers.iter().filter(|b| b.1).map(|b| b.0).fold(f64::INFINITY, f64::min);
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
            self.latency.push(p);
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
    heap_size: Thinned,
    live: Thinned,
    allocated: Thinned,
    mark_begin: Option<f64>,
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
        Deriver {
            from: from.unwrap_or(0.0),
            to: to.unwrap_or(f64::INFINITY),
            generations: 2,
            stats: Stats::new(2, 1),
            pauses: InOrder::default(),
            pausing: Vec::new(),
            marking: Occupancy::default(),
            heap_size: Thinned::default(),
            live: Thinned::default(),
            allocated: Thinned::default(),
            mark_begin: None,
            sync_begin: None,
            alloc_at_from: Vec::new(),
            alloc_last: Vec::new(),
            alloc_sum: 0,
            open: Vec::new(),
            max_threads: 1,
            events: 0,
            last: 0.0,
            caps: 1,
        }
    }

    /// A pause of generation `gen` over `[start, end]` (seconds from the
    /// log's start), posted in buffer `slot`.
    fn pause(&mut self, slot: usize, gen: usize, start: f64, end: f64) {
        let (start, end) = (start - self.from, end - self.from);
        grown(&mut self.pausing, gen).add(start, end);
        self.pauses.push(slot, Pause { start, length: end - start, gen });
    }

    /// Take one event (in file order).
    pub fn feed(&mut self, e: &Event) {
        let t = e.ts as f64 / NS;
        self.events += 1;
        self.last = self.last.max(t);
        if let Some(c) = e.cap {
            self.caps = self.caps.max(c as usize + 1);
        }
        let slot = slot(e.cap);
        self.pauses.seen(slot, t);
        let (from, to) = (self.from, self.to);
        let inside = |t: f64| t >= from && t <= to;
        match e.id {
            id::HEAP_INFO_GHC => {
                // Announced first, by GHC and gclab alike.
                self.generations = (HeapInfoGhc::decode(&e.payload).generations as usize).max(1);
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
                        self.allocated.push((t, self.alloc_sum as f64));
                    }
                }
            }
            id::GC_START => *grown(&mut self.open, slot) = Some((t, None)),
            id::GC_STATS_GHC => {
                if let Some(Some(g)) = self.open.get_mut(slot) {
                    let stats = GcStatsGhc::decode(&e.payload);
                    g.1 = Some(stats);
                    self.stats.max_slop_bytes = self.stats.max_slop_bytes.max(stats.slop);
                }
            }
            id::GC_END => {
                if let Some((start, Some(stats))) = self.open.get_mut(slot).and_then(Option::take) {
                    if inside(start) && inside(t) {
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
            id::CONC_SYNC_BEGIN => self.sync_begin = Some(t),
            id::CONC_SYNC_END => {
                if let Some(b) = self.sync_begin.take().filter(|&b| inside(b) && inside(t)) {
                    record_sync(&mut self.stats, t - b);
                    self.pause(slot, self.generations - 1, b, t);
                }
            }
            id::HEAP_LIVE if inside(t) => {
                let live = e.field(4, 8);
                self.stats.max_live_bytes = self.stats.max_live_bytes.max(live);
                self.live.push((t, live as f64));
            }
            id::HEAP_SIZE if inside(t) => {
                let size = e.field(4, 8);
                self.stats.max_mem_in_use_bytes = self.stats.max_mem_in_use_bytes.max(size);
                self.heap_size.push((t, size as f64));
            }
            _ => {}
        }
    }

    /// The summary of what was fed.
    pub fn finish(self) -> Derived {
        let mut s = self.stats;
        let allocated: u64 = self.alloc_last.iter().enumerate().map(|(i, v)| v.saturating_sub(self.alloc_at_from.get(i).copied().unwrap_or(0))).sum();
        s.allocated_bytes = allocated;
        s.cap_allocated_bytes = vec![allocated];
        s.gc_threads = self.max_threads as usize;
        s.total_elapsed = self.to.min(self.last) - self.from;
        s.total_cpu = s.total_elapsed;
        s.gc_cpu = s.gc_elapsed;
        s.concurrent_collector = !self.marking.is_empty() || s.collector_syncs > 0;
        let (latency, late_pauses) = self.pauses.finish();
        let mut pausing = self.pausing;
        pausing.resize(s.gens.len().max(pausing.len()), Occupancy::default());
        Derived {
            latency: latency.finish(s.total_elapsed, s.gens.len()),
            stats: s,
            caps: self.caps,
            pausing,
            marking: self.marking,
            late_pauses,
            heap_size: self.heap_size.points,
            live: self.live.points,
            allocated: self.allocated.points,
            events: self.events,
            from: self.from,
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
    s.gcs += 1;
    s.copied_bytes += copied;
    s.gc_elapsed += pause;
    if gen == generations - 1 {
        s.major_gcs += 1;
    }
    if threads > 1 {
        s.par_copied_bytes += copied;
        s.cumulative_par_max_copied_bytes += stats.par_max_copied;
        s.cumulative_par_balanced_copied_bytes += stats.par_balanced_copied;
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
    out.push('\n');
    out.push_str(&crate::latency::latency_text(&d.latency, d.stats.gens.len()));
    if d.late_pauses > 0 {
        out.push_str(&format!("(warning: {} pauses were read after more than {HELD_PAUSES} later ones, from another capability's buffer: the distributions count them, the MMU clips them to where the pauses before them ended)\n", d.late_pauses));
    }
    out
}

/// Draw the timeline to `<prefix>.svg` and `<prefix>.png`.
pub fn timeline(d: &Derived, prefix: &Path, title: &str) -> Result<Vec<PathBuf>, String> {
    crate::report::register_fonts();
    let svg = prefix.with_extension("svg");
    let png = prefix.with_extension("png");
    draw(SVGBackend::new(&svg, (1100, 600)).into_drawing_area(), d, title)?;
    draw(BitMapBackend::new(&png, (1100, 600)).into_drawing_area(), d, title)?;
    Ok(vec![svg, png])
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, d: &Derived, title: &str) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mib = 1024.0 * 1024.0;
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(e)?;
    let (top, bottom) = root.split_vertically(360);
    let tmax = d.stats.total_elapsed.max(1e-6);
    let ymax = d.heap_size.iter().chain(d.live.iter()).map(|p| p.1 / mib).fold(1.0f64, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&top)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tmax, 0.0..ymax)
        .map_err(e)?;
    chart.configure_mesh().x_desc("time (s)").y_desc("MiB").draw().map_err(e)?;
    const COLORS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];
    // The pauses: per stretch of the run, a bar as tall as the share of it
    // spent in GC (the band's full height is all of it), generations
    // stacked.
    let full = ymax * 0.08;
    let mut stacked: Vec<f64> = Vec::new();
    for (g, occupancy) in d.pausing.iter().enumerate() {
        let c = COLORS[g % COLORS.len()].mix(0.6);
        stacked.resize(stacked.len().max(occupancy.busy.len()), 0.0);
        let bars = occupancy.busy.iter().enumerate().filter(|(_, &b)| b > 0.0).map(|(i, &b)| {
            let (lo, share) = (i as f64 * occupancy.width, (b / occupancy.width).min(1.0));
            let bottom = stacked[i];
            stacked[i] += share * full;
            Rectangle::new([(lo, bottom), (lo + occupancy.width, bottom + share * full)], c.filled())
        });
        let bars: Vec<_> = bars.collect();
        chart.draw_series(bars).map_err(e)?;
    }
    // Concurrent markings: a band above the pauses, beside the mutators.
    let band = RGBColor(255, 127, 14).mix(0.45);
    let marking = &d.marking;
    let bars = marking.busy.iter().enumerate().filter(|(_, &b)| b > 0.0).map(|(i, &b)| {
        let lo = i as f64 * marking.width;
        Rectangle::new([(lo, full * 1.1), (lo + marking.width, full * (1.1 + 0.5 * (b / marking.width).min(1.0)))], band.filled())
    });
    chart.draw_series(bars).map_err(e)?;
    if !marking.is_empty() {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(e)?
            .label("concurrent marking")
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], band.filled()));
    }
    for (g, &color) in COLORS.iter().enumerate().take(d.stats.gens.len()) {
        if d.pausing.get(g).is_some_and(|o| !o.is_empty()) {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(e)?
                .label(format!("share of time in GC pauses, generation {g}"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], color.mix(0.6).filled()));
        }
    }
    let size: Vec<(f64, f64)> = d.heap_size.iter().map(|&(t, b)| (t, b / mib)).collect();
    chart.draw_series(LineSeries::new(size, BLACK.stroke_width(2))).map_err(e)?.label("heap size").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.stroke_width(2)));
    let live: Vec<(f64, f64)> = d.live.iter().map(|&(t, b)| (t, b / mib)).collect();
    chart.draw_series(LineSeries::new(live.clone(), RED.stroke_width(2))).map_err(e)?.label("live data (major GCs)").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED.stroke_width(2)));
    chart.draw_series(live.iter().map(|&p| Circle::new(p, 3, RED.filled()))).map_err(e)?;
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(e)?;
    let amax = d.allocated.iter().map(|p| p.1 / mib).fold(1.0f64, f64::max) * 1.1;
    let mut alloc = ChartBuilder::on(&bottom).margin(10).x_label_area_size(30).y_label_area_size(60).build_cartesian_2d(0.0..tmax, 0.0..amax).map_err(e)?;
    alloc.configure_mesh().x_desc("time (s)").y_desc("allocated, MiB").draw().map_err(e)?;
    let pts: Vec<(f64, f64)> = d.allocated.iter().map(|&(t, b)| (t, b / mib)).collect();
    alloc.draw_series(LineSeries::new(pts, BLUE.stroke_width(2))).map_err(e)?;
    root.present().map_err(e)
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
    fn a_thinned_series_stays_short_and_spans_the_run() {
        let mut series = Thinned::default();
        let n = 1_000_000;
        for i in 0..n {
            series.push((i as f64, 1.0));
        }
        let points = &series.points;
        assert!(points.len() <= SERIES_POINTS && points.len() > SERIES_POINTS / 4, "{} points", points.len());
        assert_eq!(points[0].0, 0.0);
        assert!(points.last().unwrap().0 > (n as f64) * 0.99, "the end of the run is kept");
        let gaps: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|&g| g == gaps[0]), "evenly thinned");
    }

    #[test]
    fn an_interval_counts_the_gcs_wholly_inside_it() {
        // Ten GCs of 2 ms every 3 ms; [0, 14.5 ms] holds five whole ones.
        let mut whole = crate::eventlog_reader::EventLogFile::default();
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
}
