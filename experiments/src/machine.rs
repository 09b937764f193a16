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

/// The git commit of gclab's source tree (with `-dirty` when it has
/// uncommitted changes), or "unknown" outside a checkout.
pub fn git_commit() -> String {
    command_output("git", &["-C", env!("CARGO_MANIFEST_DIR"), "describe", "--always", "--dirty", "--abbrev=40"])
}

pub(crate) fn command_output(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd).args(args).output().ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_else(|| "unknown".into())
}

/// The 1-, 5- and 15-minute load averages.
pub(crate) fn load_average() -> Vec<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).filter_map(|v| v.parse().ok()).collect()
}

