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

use crate::eventlog_reader::{Event, EventLogFile};
use crate::latency::Pause;
use gclab_core::eventlog::{id, GcStatsGhc, HeapInfoGhc};
use gclab_core::stats::{GenStats, Stats};
use plotters::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One GC, as the eventlog tells it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gc {
    /// GC_START, seconds.
    pub start: f64,
    /// GC_END, seconds.
    pub end: f64,
    /// Generation collected.
    pub gen: usize,
    /// Bytes copied.
    pub copied: u64,
    /// GC threads.
    pub threads: u32,
}

/// What the events say about the run.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The statistics, in core's record (for core's `-s` printer).
    pub stats: Stats,
    /// Capabilities seen.
    pub caps: usize,
    /// Every GC in the interval.
    pub gcs: Vec<Gc>,
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
    /// (begin, end) seconds of each concurrent marking.
    pub markings: Vec<(f64, f64)>,
    /// (begin, end) seconds of each sync pause of a concurrent collector.
    pub syncs: Vec<(f64, f64)>,
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

/// `derive`, an event at a time, so that a file of any size is summarised
/// as it is read (`EventStream`): what it keeps grows with the GCs of the
/// interval (a few words each, for the pauses), not with the events.
pub struct Deriver {
    from: f64,
    to: f64,
    generations: usize,
    stats: Stats,
    gcs: Vec<Gc>,
    heap_size: Thinned,
    live: Thinned,
    allocated: Thinned,
    markings: Vec<(f64, f64)>,
    syncs: Vec<(f64, f64)>,
    mark_begin: Option<f64>,
    sync_begin: Option<f64>,
    alloc_at_from: HashMap<u16, u64>,
    alloc_last: HashMap<u16, u64>,
    open: HashMap<u16, OpenGc>,
    max_threads: u32,
    events: usize,
    last: f64,
    caps: usize,
}

impl Deriver {
    /// A summary of `[from, to]` seconds (the whole run by default).
    pub fn new(from: Option<f64>, to: Option<f64>) -> Deriver {
        Deriver {
            from: from.unwrap_or(0.0),
            to: to.unwrap_or(f64::INFINITY),
            generations: 2,
            stats: Stats::new(2, 1),
            gcs: Vec::new(),
            heap_size: Thinned::default(),
            live: Thinned::default(),
            allocated: Thinned::default(),
            markings: Vec::new(),
            syncs: Vec::new(),
            mark_begin: None,
            sync_begin: None,
            alloc_at_from: HashMap::new(),
            alloc_last: HashMap::new(),
            open: HashMap::new(),
            max_threads: 1,
            events: 0,
            last: 0.0,
            caps: 1,
        }
    }

    /// Take one event (in file order).
    pub fn feed(&mut self, e: &Event) {
        let t = e.ts as f64 / NS;
        self.events += 1;
        self.last = self.last.max(t);
        if let Some(c) = e.cap {
            self.caps = self.caps.max(c as usize + 1);
        }
        let cap = e.cap.unwrap_or(u16::MAX);
        let (from, to) = (self.from, self.to);
        let inside = |t: f64| t >= from && t <= to;
        let s = &mut self.stats;
        match e.id {
            id::HEAP_INFO_GHC => {
                // Announced first, by GHC and gclab alike.
                self.generations = (HeapInfoGhc::decode(&e.payload).generations as usize).max(1);
                s.gens.resize(self.generations, GenStats::default());
            }
            id::HEAP_ALLOCATED => {
                let total = e.field(4, 8);
                if t <= from {
                    self.alloc_at_from.insert(cap, total);
                }
                if t <= to {
                    self.alloc_last.insert(cap, total);
                    if inside(t) {
                        let sum: u64 = self.alloc_last.values().sum();
                        self.allocated.push((t, sum as f64));
                    }
                }
            }
            id::GC_START => {
                self.open.insert(cap, (t, None));
            }
            id::GC_STATS_GHC => {
                if let Some(g) = self.open.get_mut(&cap) {
                    let stats = GcStatsGhc::decode(&e.payload);
                    g.1 = Some(stats);
                    s.max_slop_bytes = s.max_slop_bytes.max(stats.slop);
                }
            }
            id::GC_END => {
                if let Some((start, Some(stats))) = self.open.remove(&cap) {
                    if inside(start) && inside(t) {
                        let gen = (stats.gen as usize).min(self.generations - 1);
                        self.gcs.push(Gc { start, end: t, gen, copied: stats.copied, threads: stats.par_threads });
                        record_gc(&mut self.stats, gen, t - start, &stats, self.generations);
                        self.max_threads = self.max_threads.max(stats.par_threads);
                    }
                }
            }
            id::CONC_MARK_BEGIN => self.mark_begin = Some(t),
            id::CONC_MARK_END => {
                if let Some(b) = self.mark_begin.take().filter(|&b| inside(b) && inside(t)) {
                    self.markings.push((b, t));
                    s.concurrent_phase(gclab_core::ConcurrentPhase { cpu: t - b, elapsed: t - b });
                }
            }
            id::CONC_SYNC_BEGIN => self.sync_begin = Some(t),
            id::CONC_SYNC_END => {
                if let Some(b) = self.sync_begin.take().filter(|&b| inside(b) && inside(t)) {
                    self.syncs.push((b, t));
                    record_sync(s, t - b);
                }
            }
            id::HEAP_LIVE if inside(t) => {
                let live = e.field(4, 8);
                s.max_live_bytes = s.max_live_bytes.max(live);
                self.live.push((t, live as f64));
            }
            id::HEAP_SIZE if inside(t) => {
                let size = e.field(4, 8);
                s.max_mem_in_use_bytes = s.max_mem_in_use_bytes.max(size);
                self.heap_size.push((t, size as f64));
            }
            _ => {}
        }
    }

    /// The summary of what was fed.
    pub fn finish(self) -> Derived {
        let mut s = self.stats;
        let allocated: u64 = self.alloc_last.iter().map(|(c, v)| v - self.alloc_at_from.get(c).copied().unwrap_or(0)).sum();
        s.allocated_bytes = allocated;
        s.cap_allocated_bytes = vec![allocated];
        s.gc_threads = self.max_threads as usize;
        s.total_elapsed = self.to.min(self.last) - self.from;
        s.total_cpu = s.total_elapsed;
        s.gc_cpu = s.gc_elapsed;
        s.concurrent_collector = !self.markings.is_empty() || !self.syncs.is_empty();
        Derived {
            stats: s,
            caps: self.caps,
            gcs: self.gcs,
            heap_size: self.heap_size.points,
            live: self.live.points,
            allocated: self.allocated.points,
            events: self.events,
            from: self.from,
            markings: self.markings,
            syncs: self.syncs,
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
    let mut out = format!("{}: {} events, {} GCs; computed from the eventlog (elapsed times only: the CPU columns repeat them)\n\n", file.display(), d.events, d.gcs.len());
    out.push_str(&gclab_core::report::summary(&d.stats, d.caps));
    out.push('\n');
    out.push_str(&crate::latency::latency_text(&latency(d), d.stats.gens.len()));
    out
}

/// The pause distribution and MMU of the interval's GCs (GC_START to
/// GC_END), as a run's JSON record has them.
pub fn latency(d: &Derived) -> serde_json::Map<String, serde_json::Value> {
    let oldest = d.stats.gens.len() - 1;
    let syncs = d.syncs.iter().map(|&(b, end)| Pause { start: b - d.from, length: end - b, gen: oldest });
    let mut pauses: Vec<Pause> = d.gcs.iter().map(|g| Pause { start: g.start - d.from, length: g.end - g.start, gen: g.gen }).chain(syncs).collect();
    pauses.sort_by(|a, b| a.start.total_cmp(&b.start));
    crate::latency::latency_of(&pauses, d.stats.total_elapsed, d.stats.gens.len())
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
    let colors = COLORS;
    for gc in &d.gcs {
        let c = colors[gc.gen % colors.len()].mix(0.35);
        chart.draw_series(std::iter::once(Rectangle::new([(gc.start, 0.0), (gc.end.max(gc.start + tmax / 2000.0), ymax * 0.04)], c.filled()))).map_err(e)?;
    }
    // Concurrent markings: a band above the pauses, beside the mutators.
    let band = RGBColor(255, 127, 14).mix(0.45);
    for &(b, end) in &d.markings {
        chart.draw_series(std::iter::once(Rectangle::new([(b, ymax * 0.05), (end.max(b + tmax / 2000.0), ymax * 0.09)], band.filled()))).map_err(e)?;
    }
    if !d.markings.is_empty() {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(e)?
            .label("concurrent marking")
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], band.filled()));
    }
    let oldest = d.stats.gens.len() - 1;
    for &(b, end) in &d.syncs {
        let c = colors[oldest % colors.len()].mix(0.35);
        chart.draw_series(std::iter::once(Rectangle::new([(b, 0.0), (end.max(b + tmax / 2000.0), ymax * 0.04)], c.filled()))).map_err(e)?;
    }
    for (g, &color) in COLORS.iter().enumerate().take(d.stats.gens.len()) {
        if d.gcs.iter().any(|gc| gc.gen == g) {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(e)?
                .label(format!("GC pauses, generation {g}"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], color.mix(0.5).filled()));
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
        assert_eq!(d.gcs.len(), 10);
        assert_eq!(d.stats.copied_bytes, 1000);
        let part = derive(&whole, Some(0.0), Some(0.0145));
        assert_eq!(part.gcs.len(), 5, "GCs wholly inside [0, 14.5 ms]");
        assert!((part.stats.total_elapsed - 0.0145).abs() < 1e-12);
    }
}
