//! `gclab sweep` (locally, a shard, or through Slurm) and `gclab report`.

use super::output::out;
use gclab_collectors::Registry;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `gclab sweep` was asked.
pub(super) struct SweepArgs<'a> {
    pub(super) file: &'a Path,
    pub(super) out: Option<PathBuf>,
    pub(super) name: &'a str,
    pub(super) force: bool,
    pub(super) shard: Option<&'a str>,
    pub(super) quiet: bool,
    pub(super) minheap_cache: PathBuf,
    pub(super) slurm: Option<SlurmArgs>,
}

/// What `gclab sweep --slurm` was asked besides a sweep's options.
pub(super) struct SlurmArgs {
    pub(super) shards: Option<usize>,
    pub(super) sbatch: Vec<String>,
    pub(super) exclusive: bool,
    pub(super) follow: Option<PathBuf>,
}

pub(super) fn sweep(registry: &Registry, a: SweepArgs<'_>) -> Result<(), String> {
    let SweepArgs { file, out: out_dir, name, force, shard, quiet, minheap_cache, slurm } = a;
    let exp = gclab_experiments::experiment::Experiment::load(file, registry).map_err(|e| e.to_string())?;
    if std::env::var_os("GCLABRTS").is_some() {
        let _ = writeln!(std::io::stderr(), "gclab: warning: GCLABRTS is ignored by sweeps: each run's flags are the experiment's (put them in its grid)");
    }
    if let Some(s) = slurm {
        if force || shard.is_some() {
            return Err("--slurm chooses the shards itself and resumes: it takes neither --shard nor --force".into());
        }
        let name = gclab_experiments::experiment::check_dir_name(name).map_err(|e| format!("--name {e}"))?;
        let follow_only = s.follow.is_some();
        let out_dir = s.follow.or(out_dir).unwrap_or_else(|| PathBuf::from("results").join(&exp.name).join(name));
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
        let opts = gclab_experiments::slurm::SlurmOptions {
            out: out_dir.clone(),
            file: file.to_path_buf(),
            shards: s.shards,
            sbatch_args: s.sbatch,
            exclusive: s.exclusive,
            follow_only,
            progress: !quiet,
            exe,
            minheap_cache,
            poll: std::time::Duration::from_secs(2),
        };
        let summary = gclab_experiments::slurm::sweep(&exp, &opts)?;
        return out(summary.text(file, &out_dir));
    }
    let shard = match shard {
        Some(s) => gclab_experiments::sweep::parse_shard(s)?,
        None => (0, 1),
    };
    let name = gclab_experiments::experiment::check_dir_name(name).map_err(|e| format!("--name {e}"))?;
    let out_dir = out_dir.unwrap_or_else(|| PathBuf::from("results").join(&exp.name).join(name));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gclab executable: {e}"))?;
    let opts = gclab_experiments::sweep::SweepOptions { out: out_dir.clone(), force, shard, progress: !quiet, exe, minheap_cache };
    let s = gclab_experiments::sweep::sweep(&exp, &opts)?;
    out(format!(
        "sweep {}: {} runs in this shard: {} ran ok, {} failed, {} already recorded; results in {}\n",
        exp.name,
        s.total,
        s.ok,
        s.failed,
        s.skipped,
        out_dir.display()
    ))?;
    if s.total > 0 && s.skipped == s.total {
        out(format!(
            "Every run was already recorded, so none ran. `gclab report {}` summarises them; `--force` runs them again into the same directory, `--name NAME` sweeps afresh into results/{}/NAME.\n",
            out_dir.display(),
            exp.name
        ))?;
    }
    Ok(())
}

pub(super) fn report(registry: &Registry, dir: &std::path::Path) -> Result<(), String> {
    let (md, plots) = gclab_experiments::report::report(dir, registry)?;
    out(&md)?;
    out(format!("\nTable: {}\n", dir.join("summary.md").display()))?;
    out(format!("Runs:  {}\n", dir.join("runs.csv").display()))?;
    for p in plots {
        out(format!("Plot:  {}\n", p.display()))?;
    }
    Ok(())
}

