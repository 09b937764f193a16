//! The machine and the source a sweep ran on: for its manifest, the git
//! commit of gclab's source tree, the CPU, memory, frequency governor,
//! load average, OS and compiler; for each run's record, the node and its
//! CPU model (a sweep through Slurm spreads its runs over several).

use serde::{Deserialize, Serialize};
use std::process::Command;

/// The machine a run ran on, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunMachine {
    /// The node's host name.
    pub node: String,
    /// Its CPU model (`/proc/cpuinfo`'s `model name`).
    pub cpu_model: String,
}

/// This machine, as a run's record keeps it.
pub fn this_machine() -> RunMachine {
    RunMachine { node: host_name(), cpu_model: cpu_field("model name") }
}

/// This machine's host name ("unknown" if the kernel will not say).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

/// A field of `/proc/cpuinfo`'s first processor ("unknown" if absent).
pub(crate) fn cpu_field(name: &str) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpuinfo.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string()).unwrap_or_else(|| "unknown".into())
}

// Note [The commit of a build]
// ----------------------------------------
// A sweep's manifest says which commit of gclab made its runs, and the
// minimum-heap cache keys its answers by it. That must be the commit the
// running binary was built from: asking git at sweep time read the
// working directory's repository instead (or whatever `GIT_DIR` named),
// so a sweep run from another checkout, or with `GIT_DIR` set, recorded
// another source's commit. So the build script asks git once, with
// `GIT_DIR` and kin removed, and compiles the answer in; it reruns when
// any source file or HEAD changes, so `-dirty` follows the tree.

/// The git commit gclab was built from (with `-dirty` when the tree had
/// uncommitted changes), or "unknown" outside a checkout (See Note [The
/// commit of a build]).
pub fn git_commit() -> String {
    env!("GCLAB_GIT_COMMIT").to_string()
}

pub(crate) fn command_output(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd).args(args).output().ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_else(|| "unknown".into())
}

/// The 1-, 5- and 15-minute load averages.
pub(crate) fn load_average() -> Vec<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).filter_map(|v| v.parse().ok()).collect()
}

