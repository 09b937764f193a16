//! The figures every gclab tool draws, as SVG and PNG with the DejaVu
//! font embedded (no system font is needed): a title, panels (one per
//! workload, or one per run), and one legend for the whole figure below
//! them, so that no legend covers data.
//!
//! Note [One look for a configuration]
//! ----------------------------------------
//! A sweep's plots show every collector at several settings of a swept
//! flag (7 collectors x 3 `-A` sizes: 21 lines a panel). Drawn as 21
//! colours they could not be told apart (several too pale to see) and
//! their legend filled a third of each panel, over the data; and each plot
//! gave a collector whatever colour came next. So a line's colour is its
//! collector's, from one palette (Okabe and Ito's, which stays distinct
//! for colour-blind readers, then darker extras) in the order of the
//! figure's `Styles`, the same in every plot of a report; and the other
//! setting is the marker's shape. The legend names the collectors once
//! and the settings once, beneath the panels. A figure of distinct
//! measures (total time, GC time, ...) joins nothing: it draws each
//! configuration's points side by side with their intervals; a curve over
//! a continuous x (MMU against window) joins its points.

use crate::latency::MMU_WINDOWS;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// A point: its x (a category's index, or a value), its value and its 95%
/// interval (`lo == hi`: no interval).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Where on the x axis.
    pub x: f64,
    /// The value.
    pub y: f64,
    /// The interval's low end.
    pub lo: f64,
    /// The interval's high end.
    pub hi: f64,
}

impl Point {
    /// A point with no interval.
    pub fn exact(x: f64, y: f64) -> Point {
        Point { x, y, lo: y, hi: y }
    }
}

/// One configuration's points in a panel: its collector (the colour) and
/// its setting of the other swept flags (the marker; "" for none).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The collector (or run) it shows.
    pub collector: String,
    /// The other flags' setting.
    pub setting: String,
    /// Its points, in x order.
    pub points: Vec<Point>,
}

/// A panel: its title and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// What it shows (a workload).
    pub title: String,
    /// The configurations in it.
    pub series: Vec<Series>,
}

/// The x axis.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// Named values, one apart (flag values, measures).
    Categories(Vec<String>),
    /// Seconds on a log scale (MMU windows), labelled 1ms, 10ms, ...
    LogSeconds,
    /// Numbers on a linear scale, from the points' least to their
    /// greatest (memory against time: a trade-off curve).
    Linear,
}

/// The colour of each collector and the marker of each setting, one for a
/// whole report (See Note [One look for a configuration]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Styles {
    collectors: Vec<String>,
    settings: Vec<String>,
}

/// Okabe and Ito's palette (black last), then darker extras.
const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
    RGBColor(153, 153, 0),
    RGBColor(100, 50, 150),
    RGBColor(0, 90, 90),
];

/// Marker shapes, for the settings in order.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
    Cross,
    Ring,
}

const MARKERS: [Marker; 6] = [Marker::Circle, Marker::Triangle, Marker::Square, Marker::Diamond, Marker::Cross, Marker::Ring];

impl Styles {
    /// Styles for `collectors` and `settings`, each in the order given
    /// (an experiment's order): the first collector takes the first colour.
    pub fn new(collectors: &[String], settings: &[String]) -> Styles {
        let mut s = Styles::default();
        collectors.iter().for_each(|c| s.add_collector(c));
        settings.iter().for_each(|v| s.add_setting(v));
        s
    }

    /// Styles for whatever the panels hold, in the order first seen.
    pub fn of(panels: &[Panel]) -> Styles {
        let mut s = Styles::default();
        for series in panels.iter().flat_map(|p| &p.series) {
            s.add_collector(&series.collector);
            s.add_setting(&series.setting);
        }
        s
    }

    fn add_collector(&mut self, c: &str) {
        if !self.collectors.iter().any(|x| x == c) {
            self.collectors.push(c.to_string());
        }
    }

    fn add_setting(&mut self, v: &str) {
        if !self.settings.iter().any(|x| x == v) {
            self.settings.push(v.to_string());
        }
    }

    fn colour(&self, collector: &str) -> RGBColor {
        let i = self.collectors.iter().position(|c| c == collector).unwrap_or(self.collectors.len());
        PALETTE[i % PALETTE.len()]
    }

    fn marker(&self, setting: &str) -> Marker {
        let i = self.settings.iter().position(|v| v == setting).unwrap_or(0);
        MARKERS[i % MARKERS.len()]
    }
}

/// A figure to draw.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Its title.
    pub title: String,
    /// What the x axis is.
    pub x: XAxis,
    /// The x axis's label (words, with a unit).
    pub x_label: String,
    /// The y axis's label (words, with a unit).
    pub y_label: String,
    /// The panels, drawn in rows.
    pub panels: Vec<Panel>,
    /// Join each series' points (a curve), or draw them apart (measures).
    pub lines: bool,
    /// A horizontal reference line (1 for a ratio).
    pub reference: Option<f64>,
    /// The most a value can be (1 for MMU): intervals are cut there.
    pub y_max: Option<f64>,
    /// Each panel's width in pixels.
    pub panel_width: u32,
    /// A marker on every this many points of a series (1: every point;
    /// more for a dense curve such as a CDF).
    pub marker_every: usize,
}

impl Figure {
    /// A figure of `panels` with labels, joining points or not, no
    /// reference line, no cap, panels 520 pixels wide.
    pub fn new(title: impl Into<String>, x: XAxis, x_label: impl Into<String>, y_label: impl Into<String>, panels: Vec<Panel>, lines: bool) -> Figure {
        Figure { title: title.into(), x, x_label: x_label.into(), y_label: y_label.into(), panels, lines, reference: None, y_max: None, panel_width: 520, marker_every: 1 }
    }
}

/// Make the embedded DejaVu font plotters' sans-serif (once).
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// The two files of a figure at `prefix`; an error names the directory
/// that is missing, before anything is drawn.
pub fn files_at(prefix: &Path) -> Result<(PathBuf, PathBuf), String> {
    let (svg, png) = (prefix.with_extension("svg"), prefix.with_extension("png"));
    if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(format!("cannot write {}: the directory {} does not exist", svg.display(), dir.display()));
        }
    }
    Ok((svg, png))
}

/// Draw `figure` to `<prefix>.svg` and `<prefix>.png`; returns both paths.
pub fn render(prefix: &Path, figure: &Figure, styles: &Styles) -> Result<Vec<PathBuf>, String> {
    register_fonts();
    let (svg, png) = files_at(prefix)?;
    let size = figure_size(figure, styles);
    draw(SVGBackend::new(&svg, size).into_drawing_area(), figure, styles).map_err(|e| format!("{}: {e}", svg.display()))?;
    draw(BitMapBackend::new(&png, size).into_drawing_area(), figure, styles).map_err(|e| format!("{}: {e}", png.display()))?;
    Ok(vec![svg, png])
}

/// Panels in a row of a figure; more go on further rows.
const PANELS_PER_ROW: usize = 5;

/// Height of a panel, and of a line of the legend.
const PANEL_HEIGHT: u32 = 420;
const LEGEND_LINE: u32 = 26;

/// (rows, columns) of a figure of `n` panels.
fn panel_grid(n: usize) -> (usize, usize) {
    let columns = n.clamp(1, PANELS_PER_ROW);
    (n.max(1).div_ceil(columns), columns)
}

/// The legend's entries: (label, colour, marker), collectors then settings.
fn legend_entries(figure: &Figure, styles: &Styles) -> (Vec<String>, Vec<String>) {
    let mut collectors: Vec<String> = Vec::new();
    let mut settings: Vec<String> = Vec::new();
    for s in figure.panels.iter().flat_map(|p| &p.series) {
        if !collectors.contains(&s.collector) {
            collectors.push(s.collector.clone());
        }
        if !s.setting.is_empty() && !settings.contains(&s.setting) {
            settings.push(s.setting.clone());
        }
    }
    collectors.sort_by_key(|c| styles.collectors.iter().position(|x| x == c));
    settings.sort_by_key(|v| styles.settings.iter().position(|x| x == v));
    (collectors, settings)
}

/// Legend lines for a figure `width` pixels wide (an entry is at most
/// 200 pixels; about 8 pixels a character).
fn legend_lines(figure: &Figure, styles: &Styles, width: u32) -> Vec<Vec<(String, bool)>> {
    let (collectors, settings) = legend_entries(figure, styles);
    let mut lines: Vec<Vec<(String, bool)>> = Vec::new();
    for (group, is_setting) in [(collectors, false), (settings, true)] {
        let mut line: Vec<(String, bool)> = Vec::new();
        let mut used = 0;
        for label in group {
            let w = entry_width(&label);
            if used + w > width.saturating_sub(40) && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            used += w;
            line.push((label, is_setting));
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

fn entry_width(label: &str) -> u32 {
    40 + 8 * label.chars().count() as u32
}

/// The size of `figure`: its panels and its legend.
fn figure_size(figure: &Figure, styles: &Styles) -> (u32, u32) {
    let (rows, columns) = panel_grid(figure.panels.len());
    let width = figure.panel_width * columns as u32;
    let legend = legend_lines(figure, styles, width).len() as u32 * LEGEND_LINE + 10;
    (width, PANEL_HEIGHT * rows as u32 + 40 + legend)
}

/// The font size for a title `width` pixels wide, given the width
/// `measure` says the title takes at a size: 22, or smaller (down to 12)
/// for a long title in a narrow figure, which 22 would cut off.
fn title_size(width: u32, measure: impl Fn(f64) -> u32) -> f64 {
    let mut size = 22.0;
    while size > 12.0 && measure(size) + 16 > width {
        size -= 1.0;
    }
    size
}

/// Decimals for the y axis' labels of a panel that reaches `ymax`: none
/// from 100, two from 1, and below 1 enough that ten ticks read apart (a
/// panel of constraints' GC times, reaching 0.0016 s, read 0.001 at every
/// tick with three).
fn tick_decimals(ymax: f64) -> usize {
    if ymax >= 100.0 {
        0
    } else if ymax >= 1.0 {
        2
    } else {
        ((-ymax.log10()).ceil() as usize + 1).max(3)
    }
}

/// A number of seconds as an MMU window reads: `1ms`, `200ms`, `2s`.
pub fn seconds_text(s: f64) -> String {
    if s >= 1.0 {
        format!("{}s", (s * 1000.0).round() / 1000.0)
    } else if s >= 1e-3 {
        format!("{}ms", (s * 1e6).round() / 1e3)
    } else {
        format!("{}µs", (s * 1e9).round() / 1e3)
    }
}

type Area<DB> = DrawingArea<DB, Shift>;

fn draw<DB: DrawingBackend>(root: Area<DB>, figure: &Figure, styles: &Styles) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (width, height) = root.dim_in_pixel();
    let size = title_size(width, |size| root.estimate_text_size(&figure.title, &("sans-serif", size).into_text_style(&root)).map_or(0, |(w, _)| w));
    let root = root.titled(&figure.title, ("sans-serif", size)).map_err(e)?;
    let legend = legend_lines(figure, styles, width);
    let legend_height = legend.len() as u32 * LEGEND_LINE + 10;
    let (panels_area, legend_area) = root.split_vertically(height.saturating_sub(legend_height + 30));
    let mut areas = panels_area.split_evenly(panel_grid(figure.panels.len()));
    areas.truncate(figure.panels.len().max(1));
    for (panel, area) in figure.panels.iter().zip(areas.iter()) {
        draw_panel(area, panel, figure, styles).map_err(e)?;
    }
    draw_legend(&legend_area, &legend, styles).map_err(e)?;
    root.present().map_err(e)
}

/// The y range of a panel: from 0 (or the lowest value, if negative) to
/// a tenth above its highest point, and above the intervals unless they
/// reach far past the points (two repetitions give intervals ten times
/// their spread, which would squash every point at the bottom: those are
/// cut at the top), at most `y_max`.
fn y_range(panel: &Panel, figure: &Figure) -> (f64, f64) {
    let pts = panel.series.iter().flat_map(|s| &s.points);
    let top_point = pts.clone().map(|p| p.y).fold(0.0f64, f64::max);
    let top_interval = pts.clone().map(|p| p.hi).fold(0.0f64, f64::max);
    let lo = pts.map(|p| p.y.min(p.lo)).fold(0.0f64, f64::min);
    let hi = top_interval.min(1.5 * top_point).max(top_point);
    let hi = figure.reference.map_or(hi, |r| hi.max(r));
    let top = (hi * 1.1).max(1e-9);
    (lo * 1.1, figure.y_max.map_or(top, |m| top.min(m * 1.02)))
}

fn draw_panel<DB: DrawingBackend>(area: &Area<DB>, panel: &Panel, figure: &Figure, styles: &Styles) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (ylo, yhi) = y_range(panel, figure);
    let mut builder = ChartBuilder::on(area);
    builder.caption(&panel.title, ("sans-serif", 16)).margin(10).x_label_area_size(45).y_label_area_size(75);
    match &figure.x {
        XAxis::Categories(names) => {
            let n = names.len().max(1);
            let mut chart = builder.build_cartesian_2d(-0.5f64..(n as f64 - 0.5), ylo..yhi)?;
            let names = names.clone();
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(n + 1)
                .x_label_formatter(&move |x| {
                    let i = x.round();
                    if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() { names[i as usize].clone() } else { String::new() }
                })
                .y_label_formatter(&|y| format!("{y:.*}", tick_decimals(yhi)))
                .x_desc(&figure.x_label)
                .y_desc(&figure.y_label)
                .draw()?;
            draw_series(&mut chart, panel, figure, styles, true)
        }
        XAxis::LogSeconds => {
            // Drawn as a linear axis over log10(seconds), labelled at the
            // decades (1ms, 10ms, ...): plotters' own log axis labelled
            // every integer (3ms 4ms ... 9ms) and drew a mesh line for each.
            let xs = panel.series.iter().flat_map(|s| s.points.iter().map(|p| p.x)).filter(|x| *x > 0.0);
            let (xlo, xhi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x.log10()), hi.max(x.log10())));
            let (xlo, xhi) = if xlo.is_finite() { (xlo.floor(), (xhi + 0.15).max(xlo.floor() + 1.0)) } else { (-3.0, 0.0) };
            let mut chart = builder.build_cartesian_2d(xlo..xhi, ylo..yhi)?;
            chart
                .configure_mesh()
                .x_labels((xhi - xlo).ceil() as usize + 1)
                .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-9 { seconds_text(10f64.powf(x.round())) } else { String::new() })
                .y_label_formatter(&|y| format!("{y:.*}", tick_decimals(yhi)))
                .x_desc(&figure.x_label)
                .y_desc(&figure.y_label)
                .draw()?;
            let logged = Panel { title: panel.title.clone(), series: panel.series.iter().map(|s| Series { points: s.points.iter().filter(|p| p.x > 0.0).map(|p| Point { x: p.x.log10(), ..*p }).collect(), ..s.clone() }).collect() };
            draw_series(&mut chart, &logged, figure, styles, false)
        }
        XAxis::Linear => {
            let xs = panel.series.iter().flat_map(|s| s.points.iter().map(|p| p.x));
            let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
            let (lo, hi) = if lo.is_finite() { (lo, hi.max(lo + 1e-9)) } else { (0.0, 1.0) };
            let pad = (hi - lo) * 0.05;
            let (xlo, xhi) = ((lo - pad).max(0.0), hi + pad);
            let mut chart = builder.build_cartesian_2d(xlo..xhi, ylo..yhi)?;
            chart
                .configure_mesh()
                .x_label_formatter(&|x| format!("{x:.*}", tick_decimals(xhi)))
                .y_label_formatter(&|y| format!("{y:.*}", tick_decimals(yhi)))
                .x_desc(&figure.x_label)
                .y_desc(&figure.y_label)
                .draw()?;
            draw_series(&mut chart, panel, figure, styles, false)
        }
    }
}

/// Horizontal offset of series `k` of `n` within a category, so that the
/// intervals of a category's configurations stand side by side.
fn dodge(k: usize, n: usize) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let spread = 0.6f64.min(0.12 * n as f64);
    -spread / 2.0 + spread * k as f64 / (n - 1) as f64
}

fn draw_series<DB: DrawingBackend, X>(chart: &mut ChartContext<'_, DB, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>, panel: &Panel, figure: &Figure, styles: &Styles, categories: bool) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    X: Ranged<ValueType = f64>,
{
    let n = panel.series.len();
    if let Some(r) = figure.reference {
        let (xlo, xhi) = (chart.x_range().start, chart.x_range().end);
        chart.draw_series(std::iter::once(PathElement::new(vec![(xlo, r), (xhi, r)], BLACK.mix(0.5).stroke_width(1))))?;
    }
    for (k, s) in panel.series.iter().enumerate() {
        let colour = styles.colour(&s.collector);
        let marker = styles.marker(&s.setting);
        let shift = if categories { dodge(k, n) * if figure.lines { 0.4 } else { 1.0 } } else { 0.0 };
        let cap = figure.y_max.unwrap_or(f64::INFINITY).min(chart.y_range().end);
        let pts: Vec<Point> = s.points.iter().map(|p| Point { x: p.x + shift, y: p.y, lo: p.lo.max(0.0f64.min(p.lo)), hi: p.hi.min(cap) }).collect();
        if figure.lines && pts.len() > 1 {
            chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.x, p.y)), colour.stroke_width(2)))?;
        }
        let bars = pts.iter().filter(|p| p.hi > p.lo).map(|p| ErrorBar::new_vertical(p.x, p.lo, p.y, p.hi, colour.stroke_width(1), 8));
        chart.draw_series(bars)?;
        let marked: Vec<Point> = pts.iter().step_by(figure.marker_every.max(1)).copied().collect();
        draw_markers(chart, &marked, marker, colour)?;
    }
    Ok(())
}

/// Marker radius in pixels.
const MARKER: i32 = 5;

/// A marker of `shape` at each of `pts` (drawn in pixels around it).
fn draw_markers<DB: DrawingBackend, X>(chart: &mut ChartContext<'_, DB, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>, pts: &[Point], shape: Marker, colour: RGBColor) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    X: Ranged<ValueType = f64>,
{
    let r = MARKER;
    let at = pts.iter().map(|p| EmptyElement::at((p.x, p.y)));
    match shape {
        Marker::Circle => chart.draw_series(at.map(|e| e + Circle::new((0, 0), r, colour.filled())))?,
        Marker::Ring => chart.draw_series(at.map(|e| e + Circle::new((0, 0), r, colour.stroke_width(2))))?,
        Marker::Square => chart.draw_series(at.map(|e| e + Rectangle::new([(-r + 1, -r + 1), (r - 1, r - 1)], colour.filled())))?,
        Marker::Triangle => chart.draw_series(at.map(|e| e + Polygon::new(vec![(0, -r - 1), (-r, r - 1), (r, r - 1)], colour.filled())))?,
        Marker::Diamond => chart.draw_series(at.map(|e| e + Polygon::new(vec![(0, -r - 1), (r, 0), (0, r + 1), (-r, 0)], colour.filled())))?,
        Marker::Cross => chart.draw_series(at.map(|e| e + PathElement::new(vec![(-r, -r), (r, r)], colour.stroke_width(2)) + PathElement::new(vec![(-r, r), (r, -r)], colour.stroke_width(2))))?,
    };
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(area: &Area<DB>, lines: &[Vec<(String, bool)>], styles: &Styles) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    for (row, line) in lines.iter().enumerate() {
        let y = 12 + row as i32 * LEGEND_LINE as i32;
        let mut x = 20;
        for (label, is_setting) in line {
            if *is_setting {
                draw_marker(area, styles.marker(label), (x + 10, y), RGBColor(60, 60, 60))?;
            } else {
                let colour = styles.colour(label);
                area.draw(&Rectangle::new([(x, y - 6), (x + 22, y + 6)], colour.filled()))?;
            }
            area.draw(&Text::new(label.clone(), (x + 30, y - 8), font.clone()))?;
            x += entry_width(label) as i32;
        }
    }
    Ok(())
}

/// Draw a marker of `shape` at pixel `at` of `area` (the legend's).
fn draw_marker<DB: DrawingBackend>(area: &Area<DB>, shape: Marker, at: (i32, i32), colour: RGBColor) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = at;
    let r = MARKER;
    match shape {
        Marker::Circle => area.draw(&Circle::new(at, r, colour.filled())),
        Marker::Ring => area.draw(&Circle::new(at, r, colour.stroke_width(2))),
        Marker::Square => area.draw(&Rectangle::new([(x - r + 1, y - r + 1), (x + r - 1, y + r - 1)], colour.filled())),
        Marker::Triangle => area.draw(&Polygon::new(vec![(x, y - r - 1), (x - r, y + r - 1), (x + r, y + r - 1)], colour.filled())),
        Marker::Diamond => area.draw(&Polygon::new(vec![(x, y - r - 1), (x + r, y), (x, y + r + 1), (x - r, y)], colour.filled())),
        Marker::Cross => {
            area.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], colour.stroke_width(2)))?;
            area.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], colour.stroke_width(2)))
        }
    }
}

/// The MMU curve of each run (its latency record's `mmu_<window>` fields,
/// as `latency::latency_of` makes them), one colour a run, on one panel,
/// to `<prefix>.svg` and `.png`.
pub fn draw_mmu_curves(prefix: &Path, title: &str, runs: &[(&str, &serde_json::Map<String, serde_json::Value>)]) -> Result<Vec<PathBuf>, String> {
    let series: Vec<Series> = runs
        .iter()
        .map(|(label, fields)| Series {
            collector: label.to_string(),
            setting: String::new(),
            points: MMU_WINDOWS.iter().filter_map(|(w, secs)| Some(Point::exact(*secs, fields.get(&format!("mmu_{w}"))?.as_f64()?))).collect(),
        })
        .collect();
    let panels = vec![Panel { title: "minimum mutator utilisation".into(), series }];
    let styles = Styles::of(&panels);
    let mut figure = Figure::new(title, XAxis::LogSeconds, "window", "MMU (share of the window the mutator runs)", panels, true);
    figure.y_max = Some(1.0);
    figure.panel_width = 640;
    render(prefix, &figure, &styles)
}

/// `draw_mmu_curves` of one run.
pub fn draw_mmu_curve(prefix: &Path, title: &str, label: &str, fields: &serde_json::Map<String, serde_json::Value>) -> Result<Vec<PathBuf>, String> {
    draw_mmu_curves(prefix, title, &[(label, fields)])
}

/// Pause CDFs: per panel (a workload), the share of pauses at most each
/// length, one line per configuration (its collector's colour, its
/// setting's marker every so often), on a log scale of milliseconds.
pub fn draw_cdfs(prefix: &Path, title: &str, panels: &[Panel], styles: &Styles) -> Result<Vec<PathBuf>, String> {
    let mut figure = Figure::new(title, XAxis::LogSeconds, "pause", "share of pauses at most this long", panels.to_vec(), true);
    figure.y_max = Some(1.0);
    figure.marker_every = 25;
    render(prefix, &figure, styles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_title_is_set_smaller_to_fit_its_figure() {
        let measure = |size: f64| (size * 30.0) as u32; // a title 30 sizes wide
        assert_eq!(title_size(2000, measure), 22.0);
        assert_eq!(title_size(520, measure), 16.0, "30 x 16 + 16 = 496 fits in 520; 30 x 17 + 16 does not");
        assert_eq!(title_size(100, measure), 12.0, "never below 12");
    }

    #[test]
    fn small_figures_get_enough_decimals_for_their_ticks_to_differ() {
        assert_eq!(tick_decimals(250.0), 0);
        assert_eq!(tick_decimals(2.5), 2);
        assert_eq!(tick_decimals(0.3), 3);
        assert_eq!(tick_decimals(0.0016), 4);
        let step = 0.0016 / 10.0;
        let labels: Vec<String> = (0..10).map(|i| format!("{:.*}", tick_decimals(0.0016), i as f64 * step)).collect();
        let mut distinct = labels.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), labels.len(), "{labels:?}");
    }

    #[test]
    fn a_collector_keeps_its_colour_and_a_setting_its_marker() {
        let s = Styles::new(&["copying".into(), "immix".into()], &["-A1m".into(), "-A4m".into()]);
        assert_eq!(s.colour("copying"), PALETTE[0]);
        assert_eq!(s.colour("immix"), PALETTE[1]);
        assert_eq!(s.marker("-A4m"), Marker::Triangle);
        let panels = vec![Panel { title: "w".into(), series: vec![Series { collector: "immix".into(), setting: "-A4m".into(), points: vec![] }, Series { collector: "copying".into(), setting: "-A1m".into(), points: vec![] }] }];
        let f = Figure::new("t", XAxis::Categories(vec![]), "x", "y", panels, false);
        let (collectors, settings) = legend_entries(&f, &s);
        assert_eq!(collectors, ["copying", "immix"], "the legend keeps the report's order");
        assert_eq!(settings, ["-A1m", "-A4m"]);
    }

    #[test]
    fn a_figure_in_a_missing_directory_names_it() {
        assert!(files_at(Path::new("/nonexistent-dir-of-gclab/x")).unwrap_err().contains("/nonexistent-dir-of-gclab does not exist"));
    }
}
