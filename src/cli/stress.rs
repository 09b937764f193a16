//! `gclab stress`: random runs with the sanity checker on, until a time
//! or a number of runs is up (See `crate::stress`), with a progress bar;
//! exit 1 if any run failed.

use crate::stress::{default_settings, Campaign, Size, Subject, Tally};
use gclab_collectors::Registry;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// The subcommand's options.
pub(super) struct StressArgs {
    pub collectors: Vec<String>,
    pub workloads: Vec<String>,
    pub programs: Option<std::path::PathBuf>,
    pub settings: Vec<String>,
    pub size: String,
    pub minutes: f64,
    pub runs: Option<usize>,
    pub seed: u64,
    pub timeout: u64,
    pub quiet: bool,
}

/// Run the campaign; exit 0 if no run failed, 1 if one did.
pub(super) fn stress(registry: &Registry, a: StressArgs) -> Result<u8, String> {
    let quiet = a.quiet;
    let campaign = campaign(registry, a)?;
    let bar = if quiet { ProgressBar::hidden() } else { bar(&campaign) };
    let tally = crate::stress::stress(registry, &campaign, |t, failure| {
        if let Some(f) = failure {
            bar.println(f.to_string());
        }
        match campaign.runs {
            Some(_) => bar.set_position(t.runs as u64),
            None => bar.set_position(bar.elapsed().as_secs()),
        }
        bar.set_message(format!("{} runs, {} failed", t.runs, t.failures.len()));
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&campaign.scratch);
    println!("{}", summary(&tally, campaign.seed));
    Ok(u8::from(!tally.failures.is_empty()))
}

/// The campaign the options describe: the named collectors and workloads
/// (checked), or all of them, and the programs of `--programs`.
fn campaign(registry: &Registry, a: StressArgs) -> Result<Campaign, String> {
    let StressArgs { collectors, workloads, programs, settings, size, minutes, runs, seed, timeout, quiet: _ } = a;
    let size = Size::parse(&size)?;
    if !(minutes > 0.0 && minutes.is_finite()) {
        return Err(format!("stress: --minutes must be a positive number, not {minutes}"));
    }
    if runs == Some(0) || timeout == 0 {
        return Err("stress: --runs and --timeout must be at least 1".into());
    }
    let collectors = if collectors.is_empty() {
        registry.entries().iter().filter(|e| !gclab_collectors::is_baseline(e.name)).map(|e| e.name.to_string()).collect()
    } else {
        for c in &collectors {
            let name = c.split(':').next().unwrap_or(c);
            registry.by_name(name).ok_or_else(|| format!("stress: unknown collector `{name}' (see `gclab list`)"))?;
        }
        collectors
    };
    let mut subjects: Vec<Subject> = if workloads.is_empty() {
        gclab_workloads::WORKLOADS.iter().map(|w| Subject::workload(w, size)).collect()
    } else {
        workloads.iter().map(|w| gclab_workloads::by_name(w).map(|w| Subject::workload(w, size)).ok_or_else(|| format!("stress: unknown workload `{w}' (see `gclab list`)"))).collect::<Result<_, _>>()?
    };
    if let Some(dir) = &programs {
        subjects.extend(Subject::programs_in(dir).map_err(|e| format!("stress: --programs: {e}"))?);
    }
    for s in &settings {
        crate::flags(s).map_err(|e| format!("stress: --setting \"{s}\": {e}"))?;
    }
    let settings = if settings.is_empty() { default_settings(size) } else { settings };
    let exe = std::env::current_exe().map_err(|e| format!("stress: cannot find this program: {e}"))?;
    let scratch = std::env::temp_dir().join(format!("gclab-stress-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("stress: {}: {e}", scratch.display()))?;
    let duration = Duration::from_secs_f64(minutes * 60.0);
    Ok(Campaign { collectors, subjects, settings, runs, duration, seed, timeout: Duration::from_secs(timeout), exe, scratch })
}

/// A bar over the runs asked for, or over the minutes.
fn bar(c: &Campaign) -> ProgressBar {
    let (len, unit) = match c.runs {
        Some(n) => (n as u64, "runs"),
        None => (c.duration.as_secs(), "s"),
    };
    let bar = ProgressBar::new(len);
    let template = format!("stress [{{bar:30}}] {{pos}}/{{len}} {unit}: {{msg}}");
    bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar
}

/// The campaign's outcome, its failures last.
fn summary(t: &Tally, seed: u64) -> String {
    let mut s = format!(
        "stress (seed {seed}): {} run(s), {} failed; {} heap overflow(s) under -M; {} draw(s) not run (refused by the collector or the workload, or a program under --gc-every)",
        t.runs,
        t.failures.len(),
        t.overflowed,
        t.refused
    );
    s.push_str(&format!("\ncovered: {} collector(s), {} workload(s) and program(s)", t.by_collector.len(), t.by_subject.len()));
    // See Note [What a campaign reached] in `crate::stress`.
    let all = t.reached();
    s.push_str(&format!("\nreached: {} run(s) with a phase beside the mutators, {} with a copying-out cycle, of {}", all.concurrent, all.copied_out, all.runs));
    for (collector, r) in &t.by_collector {
        s.push_str(&format!("\n  {collector}: {} of {} reached a phase beside the mutators, {} copied out", r.concurrent, r.runs, r.copied_out));
    }
    for f in &t.failures {
        s.push_str(&format!("\n{f}"));
    }
    s
}
