//! Records the git commit gclab is built from, so that a sweep's manifest
//! and the minimum-heap cache's keys name the source of the build that ran
//! them (See Note [The commit of a build] in `machine`).

use std::path::Path;
use std::process::Command;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate sits in the workspace").to_path_buf();
    // Any change to a source file of the workspace can make the tree
    // dirty, and a commit moves HEAD: rerun on either.
    for dir in ["core", "collectors", "heap-traverse", "workloads", "eventlog-tools", "experiments/src", "src", "peers"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    let git = root.join(".git");
    for file in ["HEAD", "index", "refs"] {
        println!("cargo:rerun-if-changed={}", git.join(file).display());
    }
    let commit = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["describe", "--always", "--dirty", "--abbrev=40"])
        // The commit of this source tree, whatever repository the
        // builder's environment points git at.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown (not built from a git checkout)".into());
    println!("cargo:rustc-env=GCLAB_GIT_COMMIT={commit}");
}
