//! The batch script of a sweep's job array: each array task runs one
//! shard of the sweep (`gclab sweep FILE --out DIR --shard TASK/N`) into
//! the shared results directory, and leaves two markers beside it, which
//! the follower reads: `slurm/tasks/JOB_TASK.started` (the node and its
//! CPU model: written from the node, so its absence after the task ran
//! says the directory is not shared) and `.ended` (the shard's exit
//! status: a task killed by Slurm never writes it). The script is kept in
//! the results directory, so that a user can read it and submit it again.

use std::path::Path;

/// What goes into the script.
pub struct Script<'a> {
    /// The experiment's name (the job's name is `gclab-<name>`).
    pub name: &'a str,
    /// The results directory (absolute).
    pub dir: &'a Path,
    /// The experiment file (absolute).
    pub file: &'a Path,
    /// The `gclab` program the tasks run (absolute).
    pub exe: &'a Path,
    /// The cache of minimum heaps (absolute).
    pub minheap_cache: &'a Path,
    /// The number of shards (array tasks `0..shards`).
    pub shards: usize,
    /// `--exclusive`: one task per node, so timings stay clean.
    pub exclusive: bool,
    /// The user's `--sbatch` arguments, one `#SBATCH` line each.
    pub sbatch_args: &'a [String],
}

/// `text` as one word of a shell command, single-quoted.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Script<'_> {
    /// The script's text. An `--sbatch` argument that cannot be a
    /// directive line (one with a line break) is refused.
    pub fn text(&self) -> Result<String, String> {
        if let Some(bad) = self.sbatch_args.iter().find(|a| a.contains(['\n', '\r'])) {
            return Err(format!("--sbatch {bad:?}: an sbatch argument cannot hold a line break"));
        }
        let dir = self.dir.display().to_string();
        let mut s = String::new();
        s.push_str("#!/bin/bash\n");
        s.push_str(&format!("# A gclab sweep of experiment {} through Slurm: one shard of its runs per\n", self.name));
        s.push_str("# array task, into a results directory every node shares. Written by\n");
        s.push_str("# `gclab sweep --slurm`; `gclab sweep FILE --slurm --out DIR` submits what is\n");
        s.push_str(&format!("# missing, or by hand: sbatch --array=<tasks> {}\n", quoted(&format!("{dir}/slurm/sweep.sbatch"))));
        s.push_str(&format!("#SBATCH --job-name=gclab-{}\n", self.name));
        s.push_str(&format!("#SBATCH --array=0-{}\n", self.shards - 1));
        s.push_str(&format!("#SBATCH --output={dir}/slurm/logs/%A_%a.out\n"));
        if self.exclusive {
            s.push_str("#SBATCH --exclusive\n");
        }
        for a in self.sbatch_args {
            s.push_str(&format!("#SBATCH {a}\n"));
        }
        s.push_str("set -u\n");
        s.push_str(&format!("dir={}\n", quoted(&dir)));
        s.push_str("marker=\"$dir/slurm/tasks/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n");
        s.push_str("mkdir -p \"$dir/slurm/tasks\"\n");
        s.push_str("cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')\n");
        s.push_str("printf '%s\\t%s\\n' \"$(hostname)\" \"$cpu\" > \"$marker.started\"\n");
        s.push_str(&format!(
            "{} sweep {} --out \"$dir\" --quiet --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\" --minheap-cache {}\n",
            quoted(&self.exe.display().to_string()),
            quoted(&self.file.display().to_string()),
            self.shards,
            quoted(&self.minheap_cache.display().to_string())
        ));
        s.push_str("status=$?\n");
        s.push_str("echo \"$status\" > \"$marker.ended\"\n");
        s.push_str("exit \"$status\"\n");
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_a_shard_per_task_and_leaves_its_markers() {
        let args = vec!["--partition=fast".to_string(), "--time=1:00:00".to_string()];
        let s = Script { name: "x", dir: Path::new("/shared/r's"), file: Path::new("/e/x.toml"), exe: Path::new("/bin/gclab"), minheap_cache: Path::new("/shared/m.json"), shards: 4, exclusive: true, sbatch_args: &args };
        let t = s.text().unwrap();
        assert!(t.starts_with("#!/bin/bash\n"));
        for line in ["#SBATCH --array=0-3", "#SBATCH --exclusive", "#SBATCH --partition=fast", "#SBATCH --time=1:00:00", "#SBATCH --job-name=gclab-x", "dir='/shared/r'\\''s'"] {
            assert!(t.lines().any(|l| l == line), "no line {line:?} in\n{t}");
        }
        assert!(t.contains("--shard \"${SLURM_ARRAY_TASK_ID}/4\"") && t.contains("\"$marker.started\"") && t.contains("\"$marker.ended\""));
        let bad = vec!["--x\n#SBATCH --y".to_string()];
        assert!(Script { sbatch_args: &bad, ..s }.text().is_err());
    }
}
