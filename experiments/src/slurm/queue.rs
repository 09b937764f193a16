//! What Slurm says of a job array's tasks: `squeue` for the tasks still
//! queued or running, `scontrol show job` for one that has ended (its
//! state, Slurm's reason, its node, its exit code). No `sacct`: it needs
//! Slurm's accounting database (`slurmdbd`), which many clusters, and a
//! one-node test cluster, do not run; `scontrol` knows an ended job for
//! `MinJobAge` seconds (300 by default).

use std::process::Command;

/// A task as `squeue` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The array task's index.
    pub task: usize,
    /// `PENDING`, `RUNNING`, `COMPLETING`, ...
    pub state: String,
    /// Why it waits (`Resources`, `Priority`, `None`).
    pub reason: String,
    /// The node it runs on (empty while pending).
    pub node: String,
}

/// An ended task as `scontrol show job` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// `COMPLETED`, `FAILED`, `CANCELLED`, `TIMEOUT`, `NODE_FAIL`,
    /// `OUT_OF_MEMORY`, ...
    pub state: String,
    /// Slurm's reason (`None` when it gives none).
    pub reason: String,
    /// Where it ran.
    pub node: String,
    /// `status:signal`.
    pub exit_code: String,
}

impl Ended {
    /// Whether Slurm ended the task from outside (`scancel`, preemption,
    /// a node or boot failure, a deadline): such a task may have been
    /// stopped after Slurm called it running but before its node opened
    /// its log or its script wrote a line, so missing files say nothing
    /// about where the task could write.
    pub fn stopped_from_outside(&self) -> bool {
        ["CANCELLED", "PREEMPTED", "NODE_FAIL", "BOOT_FAIL", "DEADLINE"].iter().any(|s| self.state.starts_with(s))
    }
}

/// The tasks of array job `job` still in the queue (pending, running or
/// completing). An error names what `squeue` said.
pub fn queued(job: &str) -> Result<Vec<Queued>, String> {
    let out = Command::new("squeue").args(["--noheader", "--array", "--job", job, "--format=%i|%T|%r|%N"]).output().map_err(|e| format!("cannot run squeue: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // A job Slurm has forgotten is no longer queued.
        if err.contains("Invalid job id") {
            return Ok(Vec::new());
        }
        return Err(format!("squeue --job {job}: {}", err.trim()));
    }
    Ok(parse_squeue(&text))
}

/// `squeue --array --format=%i|%T|%r|%N` lines: `12_3|RUNNING|None|node1`.
pub fn parse_squeue(text: &str) -> Vec<Queued> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.trim().split('|');
            let id = f.next()?;
            let task = id.rsplit_once('_')?.1.parse().ok()?;
            Some(Queued { task, state: f.next()?.to_string(), reason: f.next().unwrap_or("").to_string(), node: f.next().unwrap_or("").to_string() })
        })
        .collect()
}

/// What Slurm remembers of task `task` of array job `job` (None if it has
/// forgotten it, or never knew it).
pub fn ended(job: &str, task: usize) -> Option<Ended> {
    let out = Command::new("scontrol").args(["show", "job", &format!("{job}_{task}")]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    parse_scontrol(&String::from_utf8_lossy(&out.stdout))
}

/// The fields of `scontrol show job`'s record (`Key=Value` words).
pub fn parse_scontrol(text: &str) -> Option<Ended> {
    let field = |key: &str| text.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')).map(str::to_string);
    Some(Ended { state: field("JobState")?, reason: field("Reason").unwrap_or_else(|| "None".into()), node: field("NodeList").unwrap_or_default(), exit_code: field("ExitCode").unwrap_or_default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_task_stopped_from_outside_may_lack_its_files() {
        let end = |state: &str| Ended { state: state.into(), reason: "None".into(), node: "vm".into(), exit_code: "0:0".into() };
        assert!(end("CANCELLED").stopped_from_outside() && end("NODE_FAIL").stopped_from_outside());
        assert!(!end("COMPLETED").stopped_from_outside() && !end("FAILED").stopped_from_outside() && !end("OUT_OF_MEMORY").stopped_from_outside());
    }

    #[test]
    fn squeue_lines_by_task() {
        let q = parse_squeue("12_1|PENDING|Resources|\n12_0|RUNNING|None|node7\nnonsense\n");
        assert_eq!(q.len(), 2);
        assert_eq!(q[1], Queued { task: 0, state: "RUNNING".into(), reason: "None".into(), node: "node7".into() });
        assert_eq!((q[0].task, q[0].state.as_str(), q[0].reason.as_str()), (1, "PENDING", "Resources"));
    }

    #[test]
    fn an_ended_task_as_scontrol_shows_it() {
        let text = "JobId=15 ArrayJobId=12 ArrayTaskId=3 JobName=gclab-x\n   JobState=CANCELLED Reason=None Dependency=(null)\n   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15\n   NodeList=node2\n";
        let e = parse_scontrol(text).unwrap();
        assert_eq!(e, Ended { state: "CANCELLED".into(), reason: "None".into(), node: "node2".into(), exit_code: "0:15".into() });
        assert_eq!(parse_scontrol("slurm_load_jobs error: Invalid job id specified"), None);
    }
}
