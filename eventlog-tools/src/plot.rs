//! The pictures every gclab tool draws, as SVG and PNG with the DejaVu
//! font embedded (no system font is needed): figures of panels (one per
//! workload, or one per run), each a set of lines whose points carry 95%
//! intervals as error bars; MMU curves; pause-time CDFs.

use crate::latency::MMU_WINDOWS;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// A point of a line: x index, mean, and its 95% interval (low, high),
/// cut to what the figure can be (never below 0; at most 1 for MMU).
pub type Point = (usize, f64, (f64, f64));

/// One line of a panel: its label and its points.
pub type Series = (String, Vec<Point>);

/// `pts` with their intervals cut at `max`.
pub fn capped(pts: Vec<Point>, max: f64) -> Vec<Point> {
    pts.into_iter().map(|(x, y, (lo, hi))| (x, y, (lo, hi.min(max)))).collect()
}

/// Make the embedded DejaVu font plotters' sans-serif (once).
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// `draw` to `<prefix>.svg` and `<prefix>.png`, each panel `panel_width`
/// pixels wide (See `figure_size`); returns both paths.
pub fn render(prefix: &Path, panel_width: u32, title: &str, y_desc: &str, x_values: &[String], panels: &[(String, Vec<Series>)]) -> Result<Vec<PathBuf>, String> {
    let (svg, png) = (prefix.with_extension("svg"), prefix.with_extension("png"));
    let size = figure_size(panels.len(), panel_width);
    draw(SVGBackend::new(&svg, size).into_drawing_area(), title, y_desc, x_values, panels)?;
    draw(BitMapBackend::new(&png, size).into_drawing_area(), title, y_desc, x_values, panels)?;
    Ok(vec![svg, png])
}

/// Panels in a row of a figure; more go on further rows (a sweep of nine
/// workloads drew a strip 4,700 pixels wide).
const PANELS_PER_ROW: usize = 5;

/// (rows, columns) of a figure of `n` panels.
fn panel_grid(n: usize) -> (usize, usize) {
    let columns = n.clamp(1, PANELS_PER_ROW);
    (n.max(1).div_ceil(columns), columns)
}

/// The size of a figure of `n` panels, each `panel_width` by 420 pixels.
pub fn figure_size(n: usize, panel_width: u32) -> (u32, u32) {
    let (rows, columns) = panel_grid(n);
    (panel_width * columns as u32, 420 * rows as u32)
}

/// A white figure with `title`, split into `n` panels, in rows of at most
/// `PANELS_PER_ROW`.
fn titled_panels<DB: DrawingBackend>(root: &DrawingArea<DB, plotters::coord::Shift>, title: &str, n: usize) -> Result<Vec<DrawingArea<DB, plotters::coord::Shift>>, String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let width = root.dim_in_pixel().0;
    let size = title_size(width, |size| root.estimate_text_size(title, &("sans-serif", size).into_text_style(root)).map_or(0, |(w, _)| w));
    let mut areas = root.titled(title, ("sans-serif", size)).map_err(e)?.split_evenly(panel_grid(n));
    areas.truncate(n.max(1));
    Ok(areas)
}

/// The font size for a figure's title `width` pixels wide, given the
/// width `measure` says the title takes at a size: 22, or smaller (down to
/// 12) for a long title in a narrow figure, which 22 would cut off.
fn title_size(width: u32, measure: impl Fn(f64) -> u32) -> f64 {
    let mut size = 22.0;
    while size > 12.0 && measure(size) + 16 > width {
        size -= 1.0;
    }
    size
}

/// One configuration's pause CDF: its label and (log10 of the pause in
/// ms, fraction of pauses at most that long) points.
pub type Cdf = (String, Vec<(f64, f64)>);

/// Draw pause CDFs: x the pause (ms, log scale), y the fraction of pauses.
pub fn draw_cdfs<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, title: &str, panels: &[(String, Vec<Cdf>)]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let areas = titled_panels(&root, title, panels.len())?;
    for ((workload, lines), area) in panels.iter().zip(areas.iter()) {
        let xs = lines.iter().flat_map(|(_, pts)| pts.iter().map(|p| p.0));
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let (lo, hi) = (lo.floor(), hi.ceil().max(lo.floor() + 1.0));
        let mut chart = ChartBuilder::on(area).caption(workload, ("sans-serif", 16)).margin(10).x_label_area_size(35).y_label_area_size(60).build_cartesian_2d(lo..hi, 0.0f64..1.0).map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("pause (ms)")
            .y_desc("fraction of pauses")
            .x_labels((hi - lo) as usize + 1)
            .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-9 { format!("{}", 10f64.powf(x.round())) } else { String::new() })
            .draw()
            .map_err(e)?;
        for (k, (label, pts)) in lines.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(e)?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        }
        chart.configure_series_labels().position(SeriesLabelPosition::LowerRight).border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(e)?;
    }
    root.present().map_err(e)
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

/// Draw one figure: a panel per workload, x = the values of `x_flag`.
pub fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, title: &str, y_desc: &str, x_values: &[String], panels: &[(String, Vec<Series>)]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let areas = titled_panels(&root, title, panels.len())?;
    for ((workload, series), area) in panels.iter().zip(areas.iter()) {
        let ymax = series.iter().flat_map(|(_, pts)| pts.iter().map(|p| p.1.max(p.2 .1))).fold(0.0f64, f64::max).max(1e-9) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(workload, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(75)
            .build_cartesian_2d(-0.5f64..(x_values.len() as f64 - 0.5), 0.0f64..ymax)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_labels(x_values.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < x_values.len() { x_values[i as usize].clone() } else { String::new() }
            })
            .y_label_formatter(&|y| format!("{y:.*}", tick_decimals(ymax)))
            .y_desc(y_desc)
            .draw()
            .map_err(e)?;
        for (k, (label, pts)) in series.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points: Vec<(f64, f64)> = pts.iter().map(|&(x, y, _)| (x as f64, y)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(e)?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(e)?;
            let bars = pts.iter().filter(|p| p.2 .1 > p.2 .0).map(|&(x, y, (lo, hi))| ErrorBar::new_vertical(x as f64, lo, y, hi, color.stroke_width(1), 6));
            chart.draw_series(bars).map_err(e)?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(e)?;
    }
    root.present().map_err(e)
}

/// Draw one MMU curve (the `mmu_*` fields of a latency record, as
/// `latency::latency_of` makes them) to `<prefix>.svg` and `.png`.
pub fn draw_mmu_curve(prefix: &Path, title: &str, label: &str, fields: &serde_json::Map<String, serde_json::Value>) -> Result<Vec<PathBuf>, String> {
    draw_mmu_curves(prefix, title, &[(label, fields)])
}

/// `draw_mmu_curve` for several runs on one chart, each `(label, latency
/// fields)`.
pub fn draw_mmu_curves(prefix: &Path, title: &str, runs: &[(&str, &serde_json::Map<String, serde_json::Value>)]) -> Result<Vec<PathBuf>, String> {
    register_fonts();
    let series = runs
        .iter()
        .map(|(label, fields)| {
            let points: Vec<Point> = MMU_WINDOWS.iter().enumerate().filter_map(|(i, (w, _))| fields.get(&format!("mmu_{w}"))?.as_f64().map(|u| (i, u, (u, u)))).collect();
            (label.to_string(), points)
        })
        .collect();
    let x_values: Vec<String> = MMU_WINDOWS.iter().map(|(w, _)| w.to_string()).collect();
    render(prefix, 640, title, "MMU", &x_values, &[("MMU".to_string(), series)])
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
}
