//! `gclab eventlog` (the summary, latency and timeline of an eventlog,
//! gclab's or GHC's; `--follow`, `--show`, `--trace`) and `gclab eventlog
//! diff`.

use super::output::out;
use gclab_core::output::{not_an_input, prefix_in};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Refuse a figure at `prefix` (its `.svg` and `.png`) that would replace
/// one of `inputs`.
fn figure_not_an_input(prefix: &Path, inputs: &[&Path]) -> Result<(), String> {
    not_an_input(&prefix.with_extension("svg"), inputs)?;
    not_an_input(&prefix.with_extension("png"), inputs)
}

/// `gclab eventlog diff A B`: the table, both MMU curves on one picture
/// and both timelines on another.
/// Its exit code is `gclab eventlog`'s: 3 if an eventlog was cut short,
/// 4 if bytes of one were skipped.
pub(super) fn eventlog_diff(a: &Path, b: &Path, plot: Option<PathBuf>, no_plot: bool) -> Result<u8, String> {
    let prefix = plot.map_or_else(|| b.with_file_name("diff"), |given| prefix_in(&given, "diff"));
    if !no_plot {
        for figure in [gclab_eventlog_tools::diff::mmu_prefix(&prefix), gclab_eventlog_tools::diff::timelines_prefix(&prefix)] {
            figure_not_an_input(&figure, &[a, b])?;
        }
    }
    let (sa, da) = gclab_eventlog_tools::diff::load(a)?;
    let (sb, db) = gclab_eventlog_tools::diff::load(b)?;
    for (path, d) in da.iter().map(|d| (a, d)).chain(db.iter().map(|d| (b, d))) {
        let _ = writeln!(std::io::stderr(), "gclab: warning: {}: {d}", path.display());
    }
    let code = gclab_eventlog_tools::reader::exit_code(&da).max(gclab_eventlog_tools::reader::exit_code(&db));
    out(gclab_eventlog_tools::diff::diff_text(&sa, &sb))?;
    if !no_plot {
        for p in gclab_eventlog_tools::diff::draw(&sa, &sb, &prefix)? {
            out(format!("Plot: {}\n", p.display()))?;
        }
    }
    Ok(code)
}

/// What `gclab eventlog` shows of a file.
pub(super) struct EventlogView {
    pub(super) from: Option<f64>,
    pub(super) to: Option<f64>,
    pub(super) plot: Option<PathBuf>,
    pub(super) no_plot: bool,
    pub(super) show: bool,
    pub(super) trace: Option<PathBuf>,
}

/// `--from` and `--to`: finite seconds, not negative, `--to` after `--from`.
fn check_interval(from: Option<f64>, to: Option<f64>) -> Result<(), String> {
    for (flag, v) in [("--from", from), ("--to", to)] {
        if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(format!("{flag} {v}: must be a number of seconds from the start of the log, 0 or more"));
        }
    }
    match (from, to) {
        (Some(f), Some(t)) if t <= f => Err(format!("--to {t} is not after --from {f}")),
        _ => Ok(()),
    }
}

/// `gclab eventlog FILE`: the summary, latency and timeline; the exit code
/// says whether the file was whole (0), cut short (3) or had bytes
/// skipped (4). Only `--show` and `--trace` hold every event in memory.
pub(super) fn eventlog(file: &Path, view: &EventlogView) -> Result<u8, String> {
    check_interval(view.from, view.to)?;
    if let Some(trace) = &view.trace {
        not_an_input(trace, &[file])?;
    }
    let prefix = timeline_prefix(file, view.plot.as_deref());
    if !view.no_plot {
        figure_not_an_input(&prefix, &[file])?;
        figure_not_an_input(&mmu_prefix(&prefix), &[file])?;
    }
    let (derived, damage) = if view.show || view.trace.is_some() {
        let log = gclab_eventlog_tools::reader::read(file)?;
        if view.show {
            out(gclab_eventlog_tools::summary::show(&log))?;
        }
        if let Some(trace) = &view.trace {
            let json = gclab_eventlog_tools::trace::trace(&log).to_string();
            std::fs::write(trace, json).map_err(|e| format!("cannot write {}: {e}", trace.display()))?;
            out(format!("Trace: {}\n", trace.display()))?;
        }
        (gclab_eventlog_tools::summary::derive(&log, view.from, view.to), log.damage)
    } else {
        gclab_eventlog_tools::summary::summarise(file, view.from, view.to)?
    };
    for d in &damage {
        let _ = writeln!(std::io::stderr(), "gclab: warning: {}: {d}", file.display());
    }
    if let Some(from) = view.from.filter(|&f| f >= derived.log_end) {
        return Err(format!("--from {from}: {} ends at {:.6} s", file.display(), derived.log_end));
    }
    out(gclab_eventlog_tools::summary::summary_text(&derived, file))?;
    if !view.no_plot {
        let title = format!("{}: heap, live data and allocation; GC pauses by generation", file.display());
        for p in gclab_eventlog_tools::timeline::draw(&derived.timeline, &prefix, &title)? {
            out(format!("Timeline: {}\n", p.display()))?;
        }
        let title = format!("{}: minimum mutator utilisation", file.display());
        let label = file.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for p in gclab_eventlog_tools::plot::draw_mmu_curve(&mmu_prefix(&prefix), &title, &label, &derived.latency)? {
            out(format!("MMU: {}\n", p.display()))?;
        }
    }
    Ok(gclab_eventlog_tools::reader::exit_code(&damage))
}

/// Where the timeline of `file` goes: `<stem>-timeline` beside it, or
/// at (or in) what `--plot` names.
fn timeline_prefix(file: &Path, plot: Option<&Path>) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "eventlog".into());
    let name = format!("{stem}-timeline");
    plot.map_or_else(|| file.with_file_name(&name), |given| prefix_in(given, &name))
}

/// The MMU curve goes beside the timeline.
fn mmu_prefix(timeline: &Path) -> PathBuf {
    PathBuf::from(format!("{}-mmu", timeline.display()))
}

/// `gclab eventlog --follow SECS FILE`: the summary of a file still being
/// written, every `secs` seconds (a file that does not exist yet is
/// waited for), until it ends with the end-of-data marker; then the whole
/// report, as without `--follow`.
pub(super) fn follow_eventlog(file: &Path, view: &EventlogView, secs: f64) -> Result<u8, String> {
    check_interval(view.from, view.to)?;
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(format!("--follow {secs}: must be a positive number of seconds"));
    }
    loop {
        if file.exists() {
            match gclab_eventlog_tools::summary::summarise(file, view.from, view.to) {
                Ok((_, damage)) if !damage.iter().any(|d| matches!(d, gclab_eventlog_tools::reader::Damage::CutShort { .. })) => break,
                Ok((derived, _)) => {
                    out(format!("-- {} so far ({} bytes):\n", file.display(), std::fs::metadata(file).map(|m| m.len()).unwrap_or(0)))?;
                    out(gclab_eventlog_tools::summary::summary_text(&derived, file))?;
                }
                // The header may not be written whole yet.
                Err(e) if e.contains("file ends inside") => {}
                Err(e) => return Err(e),
            }
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(secs));
    }
    eventlog(file, view)
}



