//! The `gclab` program is linked with `link/run-code.ld` (See Note [A run's
//! code laid out together] in build.rs): the functions a run executes lie
//! together, between the script's start and end symbols. This fails if the
//! build stops passing the script to the linker, or if the script's
//! patterns stop matching the program's functions (a renamed module).

use std::collections::HashMap;
use std::process::Command;

/// The program's symbols and their addresses (`nm`).
fn symbols() -> HashMap<String, u64> {
    let gclab = env!("CARGO_BIN_EXE_gclab");
    let out = Command::new("nm").args(["--defined-only", gclab]).output().expect("nm (binutils) runs");
    assert!(out.status.success(), "nm {gclab}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let address = u64::from_str_radix(fields.next()?, 16).ok()?;
            let _kind = fields.next()?;
            Some((fields.next()?.to_string(), address))
        })
        .collect()
}

/// The address of the one function whose symbol holds `path` (a mangled
/// path, such as `8scavenge14scavenge_block17h`).
fn address_of(symbols: &HashMap<String, u64>, path: &str) -> u64 {
    let found: Vec<(&String, &u64)> = symbols.iter().filter(|(name, _)| name.contains(path)).collect();
    assert_eq!(found.len(), 1, "one function with {path} in its symbol, found {found:?}");
    *found[0].1
}

#[test]
fn the_functions_a_run_executes_lie_together() {
    let symbols = symbols();
    let start = symbols["__gclab_run_code_start"];
    let end = symbols["__gclab_run_code_end"];
    assert!(end > start + 64 * 1024, "the run's code section holds {} bytes", end - start);
    // The copying loop, the block allocator, a workload, and the driver.
    for path in [
        "16gclab_collectors8scavenge14scavenge_block17h",
        "16gclab_collectors8evacuate17evacuate_uncommon17h",
        "10gclab_core11block_alloc14BlockAllocator11alloc_group17h",
        "15gclab_workloads12binary_trees3run17h",
    ] {
        let at = address_of(&symbols, path);
        assert!((start..end).contains(&at), "{path} at {at:#x}, outside the run's code {start:#x}..{end:#x}");
    }
    // And something a run never calls stays out: the sweep's driver.
    let sweep = address_of(&symbols, "17gclab_experiments5sweep5sweep17h");
    assert!(!(start..end).contains(&sweep), "the sweep's driver is inside the run's code");
}

#[test]
fn layout_run_code_lists_what_a_run_executes() {
    // One workload under every collector, on this (debug) build: the
    // script's quick mode (See scripts/layout-run-code).
    let out = std::env::temp_dir().join(format!("gclab-layout-{}.ld", std::process::id()));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/layout-run-code");
    let o = Command::new(script).args(["--gclab", env!("CARGO_BIN_EXE_gclab"), "--workload", "binary-trees", "--out"]).arg(&out).output().expect("scripts/layout-run-code runs");
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(text.contains("__gclab_run_code_start = .;") && text.trim_end().ends_with("INSERT BEFORE .text;"), "{text}");
    let patterns: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("*(.text.")).collect();
    assert!(patterns.len() > 100, "{} functions listed", patterns.len());
    for needle in ["16gclab_collectors8scavenge14scavenge_block17h*E*", "15gclab_workloads12binary_trees3run17h*E*"] {
        assert!(patterns.iter().any(|p| p.contains(needle)), "no pattern for {needle}");
    }
    assert!(!text.contains("17gclab_experiments5sweep5sweep17h"), "the sweep's driver is not run by a run");
}
