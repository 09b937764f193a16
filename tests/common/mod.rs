//! What the sweep tests share: the `gclab` binary and a tiny experiment.

use std::process::{Command, Output};

/// Run the `gclab` binary under test (without any GCLABRTS of the caller's).
pub fn gclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).env_remove("GCLABRTS").output().expect("gclab runs")
}

/// Eight runs of binary-trees 11 (two collectors, two -A sizes, twice
/// each), a second or two in all.
#[allow(dead_code)] // not every test file sweeps
pub const TINY: &str = r#"
description = "tiny"
repetitions = 2
timeout_secs = 60
collectors = ["copying", "two-space"]
[[workloads]]
name = "binary-trees"
args = [11]
[grid]
A = ["8k", "64k"]
[plot]
x = "A"
figures = ["gc_elapsed", "max_live_bytes"]
"#;
