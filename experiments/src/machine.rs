//! The machine and the source a sweep ran on, for its manifest: the git
//! commit of gclab's source tree, the CPU, memory, frequency governor,
//! load average, OS and compiler.

use std::process::Command;

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

