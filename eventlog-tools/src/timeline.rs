//! The timeline of a run: heap size, live data and allocation over time,
//! and the share of each stretch of time spent in GC pauses (per
//! generation), in concurrent marking and in concurrent copying out; drawn for one run (`gclab
//! eventlog`) or two on one picture (`gclab eventlog diff`).
//!
//! A timeline is built from an eventlog as it is read (`Deriver`) or from
//! a run's JSON record (`from_record`), and holds at most a few thousand
//! points whatever the run's length: series are thinned as they grow
//! (`Thinned`) and pauses are summed per stretch of time (`Occupancy`),
//! so a picture of a run of millions of GCs is as small as one of ten.

use plotters::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a timeline shows.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Seconds the run lasted.
    pub elapsed: f64,
    /// The share of time in GC pauses, per generation (a collector's
    /// syncs in the oldest).
    pub pausing: Vec<Occupancy>,
    /// The share of time a concurrent marker was running.
    pub marking: Occupancy,
    /// The share of time a concurrent copier's cycle was running (from
    /// `COPY_OUT_BEGIN` to `COPY_OUT_END`: copying, then updating).
    pub copying: Occupancy,
    /// (seconds, bytes) of the heap's size.
    pub heap_size: Vec<(f64, f64)>,
    /// (seconds, bytes) of live data, at major GCs.
    pub live: Vec<(f64, f64)>,
    /// (seconds, bytes) of total allocation.
    pub allocated: Vec<(f64, f64)>,
}

/// Points kept of a time series (heap size, live data, allocation): past
/// this many, every other one is dropped and then only every other new
/// one kept, so a series of any length is at most this long, evenly
/// thinned, for the timeline.
const SERIES_POINTS: usize = 20_000;

/// A time series thinned as it grows (See `SERIES_POINTS`).
#[derive(Debug, Default)]
pub struct Thinned {
    points: Vec<(f64, f64)>,
    stride: usize,
    seen: usize,
}

impl Thinned {
    /// Take the next point.
    pub fn push(&mut self, p: (f64, f64)) {
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

    /// The points kept.
    pub fn into_points(self) -> Vec<(f64, f64)> {
        self.points
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

impl Timeline {
    /// Nothing to draw (no GC, no heap size).
    pub fn is_empty(&self) -> bool {
        self.live.is_empty() && self.allocated.is_empty() && self.heap_size.is_empty() && self.pausing.iter().all(Occupancy::is_empty)
    }
}

/// The timeline of a run's JSON record (`gclab run --json`, or a sweep's
/// record's result): its `timeline` of GCs (end, length, generation, live
/// bytes, bytes allocated since the last) gives the pauses, live data at
/// major GCs and the allocation; the heap's size over time is not in a
/// record. A record without one (made before gclab wrote it) gives an
/// empty timeline (`is_empty`).
pub fn from_record(record: &Value) -> Timeline {
    let stats = &record["stats"];
    let generations = stats["gens"].as_array().map_or(1, Vec::len).max(1);
    let mut t = Timeline { elapsed: stats["total_elapsed"].as_f64().unwrap_or(0.0), pausing: vec![Occupancy::default(); generations], ..Timeline::default() };
    let (mut live, mut allocated, mut heap, mut total) = (Thinned::default(), Thinned::default(), Thinned::default(), 0.0);
    for r in record["timeline"].as_array().into_iter().flatten() {
        let f = |i: usize| r[i].as_f64().unwrap_or(0.0);
        let (end, gen) = (f(0), (f(2) as usize).min(generations - 1));
        t.pausing[gen].add(end - f(1), end);
        if gen == generations - 1 {
            live.push((end, f(3)));
        }
        total += f(4);
        allocated.push((end, total));
        // Records written before the heap size was kept have five fields.
        if r.as_array().is_some_and(|fields| fields.len() > 5) {
            heap.push((end, f(5)));
        }
    }
    for s in stats["sync_pauses"].as_array().into_iter().flatten() {
        let (start, length) = (s[0].as_f64().unwrap_or(0.0), s[1].as_f64().unwrap_or(0.0));
        t.pausing[generations - 1].add(start, start + length);
    }
    (t.live, t.allocated, t.heap_size) = (live.points, allocated.points, heap.points);
    t
}

/// Draw `timeline` to `<prefix>.svg` and `<prefix>.png`: heap size and
/// live data, the GC pauses beneath on their own scale, and allocation.
pub fn draw(timeline: &Timeline, prefix: &Path, title: &str) -> Result<Vec<PathBuf>, String> {
    draw_runs(&[("", timeline)], prefix, title)
}

/// Height of a run's memory chart, of its GC strip, and of the allocation
/// chart and legend at the bottom.
const MEMORY_HEIGHT: u32 = 300;
const STRIP_HEIGHT: u32 = 130;
const BOTTOM_HEIGHT: u32 = 260;

/// Draw several runs' timelines on one picture, `<prefix>.svg` and
/// `.png`: for each run its heap size and live data (MiB) and, beneath on
/// a scale of its own, the share of each stretch of time spent in GC
/// pauses and in concurrent marking; then every run's allocation
/// together, and one legend. A run whose record holds no timeline is
/// named in the legend as having none.
pub fn draw_runs(runs: &[(&str, &Timeline)], prefix: &Path, title: &str) -> Result<Vec<PathBuf>, String> {
    crate::plot::register_fonts();
    let (svg, png) = crate::plot::files_at(prefix)?;
    let size = (1100, 60 + (MEMORY_HEIGHT + STRIP_HEIGHT) * runs.len() as u32 + BOTTOM_HEIGHT);
    draw_on(SVGBackend::new(&svg, size).into_drawing_area(), runs, title).map_err(|e| format!("{}: {e}", svg.display()))?;
    draw_on(BitMapBackend::new(&png, size).into_drawing_area(), runs, title).map_err(|e| format!("{}: {e}", png.display()))?;
    Ok(vec![svg, png])
}

const MIB: f64 = 1024.0 * 1024.0;
/// Generations' colours in the GC strip (young light, old dark), and the
/// concurrent marking's.
const GEN_COLOURS: [RGBColor; 4] = [RGBColor(86, 180, 233), RGBColor(0, 114, 178), RGBColor(0, 60, 110), RGBColor(0, 30, 60)];
const MARKING: RGBColor = RGBColor(230, 159, 0);
const COPYING: RGBColor = RGBColor(0, 158, 115);
const HEAP: RGBColor = RGBColor(60, 60, 60);
const LIVE: RGBColor = RGBColor(213, 94, 0);
/// The runs' colours (allocation lines, panel titles).
const RUNS: [RGBColor; 2] = [RGBColor(0, 114, 178), RGBColor(204, 121, 167)];

type Area<DB> = DrawingArea<DB, plotters::coord::Shift>;

fn draw_on<DB: DrawingBackend>(root: Area<DB>, runs: &[(&str, &Timeline)], title: &str) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(e)?;
    let tmax = runs.iter().map(|(_, t)| t.elapsed).fold(1e-6, f64::max);
    let ymax = runs.iter().flat_map(|(_, t)| t.heap_size.iter().chain(&t.live)).map(|p| p.1 / MIB).fold(1.0f64, f64::max) * 1.1;
    let generations = runs.iter().map(|(_, t)| t.pausing.len()).max().unwrap_or(1);
    let (upper, bottom) = root.split_vertically((MEMORY_HEIGHT + STRIP_HEIGHT) * runs.len() as u32);
    for ((label, timeline), area) in runs.iter().zip(upper.split_evenly((runs.len(), 1))) {
        let (memory, strip) = area.split_vertically(MEMORY_HEIGHT);
        draw_memory(&memory, label, timeline, tmax, ymax).map_err(e)?;
        draw_strip(&strip, timeline, tmax).map_err(e)?;
    }
    let (alloc_area, legend) = bottom.split_vertically(BOTTOM_HEIGHT - 70);
    let amax = runs.iter().flat_map(|(_, t)| &t.allocated).map(|p| p.1 / MIB).fold(1.0f64, f64::max) * 1.1;
    let mut alloc = ChartBuilder::on(&alloc_area).margin(10).x_label_area_size(30).y_label_area_size(70).build_cartesian_2d(0.0..tmax, 0.0..amax).map_err(e)?;
    alloc.configure_mesh().x_desc("time (s)").y_desc("allocated so far (MiB)").draw().map_err(e)?;
    for (i, (_, timeline)) in runs.iter().enumerate() {
        let pts: Vec<(f64, f64)> = timeline.allocated.iter().map(|&(t, b)| (t, b / MIB)).collect();
        alloc.draw_series(LineSeries::new(pts, RUNS[i % RUNS.len()].stroke_width(2))).map_err(e)?;
    }
    draw_legend(&legend, runs, generations).map_err(e)?;
    root.present().map_err(e)
}

/// One run's heap size and live data, on `tmax` seconds by `ymax` MiB.
fn draw_memory<DB: DrawingBackend>(area: &Area<DB>, label: &str, t: &Timeline, tmax: f64, ymax: f64) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let caption = if t.is_empty() { format!("{label} (no timeline: its record holds none)") } else { label.to_string() };
    let mut chart = ChartBuilder::on(area).margin(10).caption(caption.trim(), ("sans-serif", 16)).x_label_area_size(20).y_label_area_size(70).build_cartesian_2d(0.0..tmax, 0.0..ymax)?;
    chart.configure_mesh().y_desc("memory (MiB)").draw()?;
    if !t.heap_size.is_empty() {
        chart.draw_series(LineSeries::new(t.heap_size.iter().map(|&(t, b)| (t, b / MIB)), HEAP.stroke_width(2)))?;
    }
    let live: Vec<(f64, f64)> = t.live.iter().map(|&(t, b)| (t, b / MIB)).collect();
    chart.draw_series(LineSeries::new(live.clone(), LIVE.stroke_width(2)))?;
    chart.draw_series(live.iter().map(|&p| Circle::new(p, 3, LIVE.filled())))?;
    Ok(())
}

/// One run's GC strip: per stretch of the run, a bar as tall as the share
/// of it spent in GC pauses (generations stacked), and beside it the
/// share spent in concurrent marking or copying out, on a scale of 0 to 1.
fn draw_strip<DB: DrawingBackend>(area: &Area<DB>, t: &Timeline, tmax: f64) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area).margin(10).margin_top(0).x_label_area_size(30).y_label_area_size(70).build_cartesian_2d(0.0..tmax, 0.0..1.0)?;
    chart.configure_mesh().y_labels(3).x_desc("time (s)").y_desc("share in GC").draw()?;
    let mut stacked: Vec<f64> = Vec::new();
    for (g, occupancy) in t.pausing.iter().enumerate() {
        let c = GEN_COLOURS[g.min(GEN_COLOURS.len() - 1)];
        stacked.resize(stacked.len().max(occupancy.busy.len()), 0.0);
        let mut bars = Vec::new();
        for (i, &b) in occupancy.busy.iter().enumerate().filter(|(_, &b)| b > 0.0) {
            let (lo, share) = (i as f64 * occupancy.width, (b / occupancy.width).min(1.0));
            bars.push(Rectangle::new([(lo, stacked[i]), (lo + occupancy.width, (stacked[i] + share).min(1.0))], c.filled()));
            stacked[i] += share;
        }
        chart.draw_series(bars)?;
    }
    // A marking and a copying-out never overlap: the copying-out starts
    // once the marking's sweep is over.
    for (m, colour) in [(&t.marking, MARKING), (&t.copying, COPYING)] {
        let spans = m.busy.iter().enumerate().filter(|(_, &b)| b > 0.0).map(|(i, &b)| {
            let lo = i as f64 * m.width;
            Rectangle::new([(lo, 0.0), (lo + m.width, (b / m.width).min(1.0))], colour.mix(0.5).filled())
        });
        chart.draw_series(spans)?;
    }
    Ok(())
}

/// The legend beneath the allocation chart: the memory lines, the GC
/// strip's generations and marking, and the runs' allocation lines.
fn draw_legend<DB: DrawingBackend>(area: &Area<DB>, runs: &[(&str, &Timeline)], generations: usize) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let mut entries: Vec<(String, RGBColor, bool)> = vec![("heap size".into(), HEAP, true), ("live data (at major GCs)".into(), LIVE, true)];
    for g in 0..generations {
        entries.push((format!("GC pauses, generation {g}"), GEN_COLOURS[g.min(GEN_COLOURS.len() - 1)], false));
    }
    if runs.iter().any(|(_, t)| !t.marking.is_empty()) {
        entries.push(("concurrent marking".into(), MARKING, false));
    }
    if runs.iter().any(|(_, t)| !t.copying.is_empty()) {
        entries.push(("concurrent copying out".into(), COPYING, false));
    }
    for (i, (label, _)) in runs.iter().enumerate() {
        let name = if label.is_empty() { "allocation".to_string() } else { format!("{label}: allocation") };
        entries.push((name, RUNS[i % RUNS.len()], true));
    }
    let (width, _) = area.dim_in_pixel();
    let (mut x, mut y) = (20i32, 16i32);
    for (label, colour, line) in entries {
        let w = 40 + 8 * label.chars().count() as i32;
        if x + w > width as i32 - 20 {
            x = 20;
            y += 24;
        }
        if line {
            area.draw(&PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3)))?;
        } else {
            area.draw(&Rectangle::new([(x, y - 6), (x + 22, y + 6)], colour.filled()))?;
        }
        area.draw(&Text::new(label, (x + 30, y - 8), font.clone()))?;
        x += w;
    }
    Ok(())
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
    fn occupancy_keeps_the_time_in_pauses_in_few_buckets() {
        let mut o = Occupancy::default();
        // A 5 ms pause every 100 ms for 1,000 s: 10,000 pauses.
        for i in 0..10_000 {
            let start = i as f64 * 0.1;
            o.add(start, start + 0.005);
        }
        assert!(o.busy.len() <= OCCUPANCY_BUCKETS);
        let total: f64 = o.busy.iter().sum();
        assert!((total - 50.0).abs() < 1e-6, "all 50 s of pauses are counted: {total}");
        let share_max = o.busy.iter().map(|b| b / o.width).fold(0.0, f64::max);
        assert!((share_max - 0.05).abs() < 0.01, "each stretch is about 5% GC: {share_max}");
        // A pause across buckets is split between them.
        let mut one = Occupancy::default();
        one.add(0.0005, 0.0025);
        assert_eq!(one.busy.len(), 3);
        assert!((one.busy[0] - 0.0005).abs() < 1e-12 && (one.busy[1] - 0.001).abs() < 1e-12 && (one.busy[2] - 0.0005).abs() < 1e-12, "{:?}", one.busy);
    }
}
