//! `gclab hp FILE.hp`: a heap profile drawn as hp2ps draws it, a stacked
//! area chart of bytes over time with a band per closure type, cost centre
//! or root set, without needing hp2ps: SVG and PNG (fonts embedded).
//! As hp2ps does, the largest bands are drawn and the rest gathered into
//! one band, `(rest)`.

use gclab_heap_traverse::hp_file::parse;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bands drawn individually; the rest are summed into one.
const MAX_BANDS: usize = 15;

/// (band names, largest first; per sample (time, bytes per band)).
type Stacked = (Vec<String>, Vec<(f64, Vec<f64>)>);

fn stack(samples: &[(f64, Vec<(String, u64)>)]) -> Stacked {
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, bands) in samples {
        for (b, v) in bands {
            *totals.entry(b).or_insert(0) += v;
        }
    }
    let mut order: Vec<(&str, u64)> = totals.into_iter().filter(|(_, v)| *v > 0).collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut names: Vec<String> = order.iter().take(MAX_BANDS).map(|(b, _)| b.to_string()).collect();
    let rest = order.len() > MAX_BANDS;
    if rest {
        names.push("(rest)".into());
    }
    let rows = samples
        .iter()
        .map(|(t, bands)| {
            let mut row = vec![0.0; names.len()];
            for (b, v) in bands {
                match names.iter().position(|n| n == b) {
                    Some(i) => row[i] += *v as f64,
                    None if rest => *row.last_mut().expect("a rest band") += *v as f64,
                    None => {}
                }
            }
            (*t, row)
        })
        .collect();
    (names, rows)
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, title: &str, names: &[String], rows: &[(f64, Vec<f64>)]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mib = 1024.0 * 1024.0;
    let tmax = rows.iter().map(|r| r.0).fold(1e-6, f64::max);
    let ymax = rows.iter().map(|r| r.1.iter().sum::<f64>() / mib).fold(1e-6, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..tmax, 0.0..ymax)
        .map_err(e)?;
    chart.configure_mesh().x_desc("seconds").y_desc("MiB").draw().map_err(e)?;
    for k in 0..names.len() {
        let color = Palette99::pick(k).to_rgba();
        let top: Vec<(f64, f64)> = rows.iter().map(|(t, v)| (*t, v[..=k].iter().sum::<f64>() / mib)).collect();
        let mut bottom: Vec<(f64, f64)> = rows.iter().map(|(t, v)| (*t, v[..k].iter().sum::<f64>() / mib)).collect();
        bottom.reverse();
        let polygon: Vec<(f64, f64)> = top.iter().copied().chain(bottom).collect();
        chart
            .draw_series(std::iter::once(Polygon::new(polygon, color.filled())))
            .map_err(e)?
            .label(names[k].clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).border_style(BLACK).background_style(WHITE.mix(0.85)).draw().map_err(e)?;
    root.present().map_err(e)
}

/// A drawn profile: its two files, and a warning when the profile holds
/// no data (a run shorter than its sampling interval gives two empty
/// samples, and the chart is blank).
pub struct Drawn {
    pub files: Vec<PathBuf>,
    pub warning: Option<String>,
}

/// Draw `hp` to `<prefix>.svg` and `<prefix>.png`.
pub fn plot(hp: &Path, prefix: &Path) -> Result<Drawn, String> {
    let text = gclab_core::input::read_text(hp, gclab_core::input::limit::HEAP_PROFILE, "a heap profile (.hp)")?;
    let samples = parse(&text).map_err(|e| format!("{}: {e}", hp.display()))?;
    if samples.is_empty() {
        return Err(format!("{}: no samples (BEGIN_SAMPLE .. END_SAMPLE): nothing to draw", hp.display()));
    }
    let job = text.lines().next().and_then(|l| l.strip_prefix("JOB ")).unwrap_or("\"\"").trim_matches('"').to_string();
    let (names, rows) = stack(&samples);
    let warning = names.is_empty().then(|| {
        format!(
            "{}: its {} samples hold no data, so the chart is blank: the run ended before a census saw anything live; run it longer, or sample more often (+RTS -i<secs>)",
            hp.display(),
            samples.len()
        )
    });
    crate::plot::register_fonts();
    let title = format!("{job} ({})", hp.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default());
    let (svg, png) = crate::plot::files_at(prefix)?;
    let drawn = draw(SVGBackend::new(&svg, (1000, 560)).into_drawing_area(), &title, &names, &rows).map_err(|e| (svg.clone(), e));
    let drawn = drawn.and_then(|()| draw(BitMapBackend::new(&png, (1000, 560)).into_drawing_area(), &title, &names, &rows).map_err(|e| (png.clone(), e)));
    if let Err((file, e)) = drawn {
        // No half-drawn picture is left to be mistaken for a whole one.
        let _ = std::fs::remove_file(&svg);
        let _ = std::fs::remove_file(&png);
        return Err(format!("cannot draw {}: {e}", file.display()));
    }
    Ok(Drawn { files: vec![svg, png], warning })
}
