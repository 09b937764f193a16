//! The timeline of a run: heap size, live data and allocation over time,
//! and the share of each stretch of time spent in GC pauses (per
//! generation) and in concurrent marking; drawn for one run (`gclab
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

/// The timeline of a run's JSON record (`gclab run --json`, a sweep's
/// record): its GC records give the pauses, live data at major GCs and
/// the allocation; the heap's size over time is not in a record.
pub fn from_record(stats: &Value) -> Timeline {
    let generations = stats["gens"].as_array().map_or(1, Vec::len).max(1);
    let mut t = Timeline { elapsed: stats["total_elapsed"].as_f64().unwrap_or(0.0), pausing: vec![Occupancy::default(); generations], ..Timeline::default() };
    let (mut live, mut allocated, mut total) = (Thinned::default(), Thinned::default(), 0.0);
    for r in stats["records"].as_array().into_iter().flatten() {
        let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
        let (end, gen) = (f("total_elapsed"), (f("gen") as usize).min(generations - 1));
        t.pausing[gen].add(end - f("gc_elapsed"), end);
        if gen == generations - 1 {
            live.push((end, f("live_bytes")));
        }
        total += f("allocated_bytes");
        allocated.push((end, total));
    }
    for s in stats["sync_pauses"].as_array().into_iter().flatten() {
        let (start, length) = (s[0].as_f64().unwrap_or(0.0), s[1].as_f64().unwrap_or(0.0));
        t.pausing[generations - 1].add(start, start + length);
    }
    (t.live, t.allocated) = (live.points, allocated.points);
    t
}

/// Draw `timeline` to `<prefix>.svg` and `<prefix>.png`: heap size, live
/// data and the pauses above, allocation below.
pub fn draw(timeline: &Timeline, prefix: &Path, title: &str) -> Result<Vec<PathBuf>, String> {
    draw_runs(&[("", timeline)], prefix, title)
}

/// Draw several runs' timelines on one picture, `<prefix>.svg` and
/// `.png`: a panel each of heap size, live data and pauses, on the same
/// scales, then their allocation together.
pub fn draw_runs(runs: &[(&str, &Timeline)], prefix: &Path, title: &str) -> Result<Vec<PathBuf>, String> {
    crate::plot::register_fonts();
    let svg = prefix.with_extension("svg");
    let png = prefix.with_extension("png");
    let size = (1100, 240 + 360 * runs.len() as u32);
    draw_on(SVGBackend::new(&svg, size).into_drawing_area(), runs, title)?;
    draw_on(BitMapBackend::new(&png, size).into_drawing_area(), runs, title)?;
    Ok(vec![svg, png])
}

const MIB: f64 = 1024.0 * 1024.0;
const COLORS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];

fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, runs: &[(&str, &Timeline)], title: &str) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(e)?;
    let tmax = runs.iter().map(|(_, t)| t.elapsed).fold(1e-6, f64::max);
    let ymax = runs.iter().flat_map(|(_, t)| t.heap_size.iter().chain(&t.live)).map(|p| p.1 / MIB).fold(1.0f64, f64::max) * 1.1;
    let (panels, bottom) = root.split_vertically(360 * runs.len() as u32);
    for ((label, timeline), area) in runs.iter().zip(panels.split_evenly((runs.len(), 1))) {
        draw_panel(&area, label, timeline, tmax, ymax).map_err(e)?;
    }
    let amax = runs.iter().flat_map(|(_, t)| &t.allocated).map(|p| p.1 / MIB).fold(1.0f64, f64::max) * 1.1;
    let mut alloc = ChartBuilder::on(&bottom).margin(10).x_label_area_size(30).y_label_area_size(60).build_cartesian_2d(0.0..tmax, 0.0..amax).map_err(e)?;
    alloc.configure_mesh().x_desc("time (s)").y_desc("allocated, MiB").draw().map_err(e)?;
    for (i, (label, timeline)) in runs.iter().enumerate() {
        let color = [BLUE, MAGENTA][i % 2];
        let pts: Vec<(f64, f64)> = timeline.allocated.iter().map(|&(t, b)| (t, b / MIB)).collect();
        let series = alloc.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(e)?;
        if !label.is_empty() {
            series.label(format!("{label}: allocated")).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        }
    }
    if runs.len() > 1 {
        alloc.configure_series_labels().position(SeriesLabelPosition::UpperLeft).border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(e)?;
    }
    root.present().map_err(e)
}

/// One run's heap size, live data and pauses, on `tmax` seconds by `ymax`
/// MiB.
fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, label: &str, t: &Timeline, tmax: f64, ymax: f64) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area).margin(10).caption(label, ("sans-serif", 16)).x_label_area_size(30).y_label_area_size(60).build_cartesian_2d(0.0..tmax, 0.0..ymax)?;
    chart.configure_mesh().x_desc("time (s)").y_desc("MiB").draw()?;
    // The pauses: per stretch of the run, a bar as tall as the share of it
    // spent in GC (the band's full height is all of it), generations
    // stacked.
    let full = ymax * 0.08;
    let mut stacked: Vec<f64> = Vec::new();
    for (g, occupancy) in t.pausing.iter().enumerate() {
        let c = COLORS[g % COLORS.len()].mix(0.6);
        stacked.resize(stacked.len().max(occupancy.busy.len()), 0.0);
        let mut bars = Vec::new();
        for (i, &b) in occupancy.busy.iter().enumerate().filter(|(_, &b)| b > 0.0) {
            let (lo, share) = (i as f64 * occupancy.width, (b / occupancy.width).min(1.0));
            bars.push(Rectangle::new([(lo, stacked[i]), (lo + occupancy.width, stacked[i] + share * full)], c.filled()));
            stacked[i] += share * full;
        }
        chart.draw_series(bars)?;
        if !occupancy.is_empty() {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                .label(format!("share of time in GC pauses, generation {g}"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()));
        }
    }
    // Concurrent markings: a band above the pauses, beside the mutators.
    let band = RGBColor(255, 127, 14).mix(0.45);
    let m = &t.marking;
    let bars = m.busy.iter().enumerate().filter(|(_, &b)| b > 0.0).map(|(i, &b)| {
        let lo = i as f64 * m.width;
        Rectangle::new([(lo, full * 1.1), (lo + m.width, full * (1.1 + 0.5 * (b / m.width).min(1.0)))], band.filled())
    });
    chart.draw_series(bars)?;
    if !m.is_empty() {
        chart.draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?.label("concurrent marking").legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], band.filled()));
    }
    if !t.heap_size.is_empty() {
        let size: Vec<(f64, f64)> = t.heap_size.iter().map(|&(t, b)| (t, b / MIB)).collect();
        chart.draw_series(LineSeries::new(size, BLACK.stroke_width(2)))?.label("heap size").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.stroke_width(2)));
    }
    let live: Vec<(f64, f64)> = t.live.iter().map(|&(t, b)| (t, b / MIB)).collect();
    chart.draw_series(LineSeries::new(live.clone(), RED.stroke_width(2)))?.label("live data (major GCs)").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED.stroke_width(2)));
    chart.draw_series(live.iter().map(|&p| Circle::new(p, 3, RED.filled())))?;
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).border_style(BLACK).background_style(WHITE.mix(0.8)).draw()
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
