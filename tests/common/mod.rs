//! What the integration tests share: the `gclab` binary, the examples'
//! own binaries, and a tiny experiment.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run the `gclab` binary under test (without any GCLABRTS of the caller's).
#[allow(dead_code)] // not every test file runs it
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

/// The binary of example `name` (`examples/NAME/main.rs`), which cargo
/// builds beside the tests.
#[allow(dead_code)] // not every test file runs an example
pub fn example_binary(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    deps.parent().unwrap().join("examples").join(name)
}
