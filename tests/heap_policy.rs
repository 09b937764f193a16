//! Heap-sizing policies (`--heap-policy`, core's `heap_policy`): every
//! collector conforms under each (sanity after every GC, checksums equal
//! to copying's), each policy does what it says (a fixed heap stays
//! within its size and overflows past it; MemBalancer's constant trades
//! major GCs for memory), and bad choices are refused by name.

mod common;

use common::gclab;
use gclab::conformance::{check_collector, run_with};
use gclab_collectors::COLLECTORS;
use std::process::Output;

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn every_collector_conforms_under_every_policy() {
    // MemBalancer at its extremes: memory so dear that the room is one
    // allocation area (a major GC after nearly every minor one), and so
    // cheap that major GCs are rare; a fixed heap; GHC's rule with its
    // own factor.
    let settings = [
        "-A8k -DS --heap-policy=membalancer:c=1000",
        "-A8k -G3 -DS --heap-policy=membalancer:c=0.000001",
        "-A8k -DS --heap-policy=fixed:size=96m",
        "--gc-every=7 -A8k -DS --heap-policy=ghc:F=1.2",
    ];
    for entry in COLLECTORS {
        let c = check_collector(entry, &settings).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        assert!(c.gcs > 0, "{}", entry.name);
    }
}

/// Major GCs and peak memory in use of binary-trees 16 under `rts`.
fn majors_and_peak(collector: &str, rts: &str) -> (u64, u64) {
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(gclab_collectors::by_name(collector).unwrap(), w, &[16], rts).unwrap();
    (r.stats.major_gcs, r.stats.max_mem_in_use_bytes)
}

#[test]
fn membalancers_constant_trades_major_gcs_for_memory() {
    for collector in ["copying", "mark-sweep"] {
        let (dear_majors, dear_peak) = majors_and_peak(collector, "-A64k --heap-policy=membalancer:c=1000");
        let (cheap_majors, cheap_peak) = majors_and_peak(collector, "-A64k --heap-policy=membalancer:c=0.000001");
        assert!(dear_majors > 4 * cheap_majors.max(1), "{collector}: memory dear {dear_majors} major GCs, cheap {cheap_majors}");
        assert!(dear_peak < cheap_peak, "{collector}: memory dear peaks at {dear_peak} bytes, cheap at {cheap_peak}");
    }
}

#[test]
fn a_fixed_heap_stays_within_its_size_and_collects_only_when_full() {
    // binary-trees 16 lives in a few MB: at 24 MB the heap grows to its
    // size between major GCs, where GHC's rule collects at F x live.
    let (fixed_majors, fixed_peak) = majors_and_peak("copying", "-A64k --heap-policy=fixed:size=24m");
    let (ghc_majors, _) = majors_and_peak("copying", "-A64k");
    assert!(fixed_peak <= 24 << 20, "peak {fixed_peak} bytes");
    assert!(fixed_majors < ghc_majors, "fixed {fixed_majors} major GCs, ghc {ghc_majors}");
    // Too small for the live data: GHC's heap overflow, naming the policy.
    let o = gclab(&["run", "--heap-policy", "fixed:size=2m", "binary-trees", "16"]);
    assert_eq!(o.status.code(), Some(251), "{}", text(&o));
    assert!(text(&o).contains("Heap exhausted") && text(&o).contains("--heap-policy=fixed:size=<size>"), "{}", text(&o));
}

#[test]
fn the_policy_is_recorded_and_the_option_after_rts_wins() {
    let dir = std::env::temp_dir().join(format!("gclab-heap-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    let o = gclab(&["run", "--heap-policy", "membalancer:smoothing=0.25,c=0.01", "--json", json.to_str().unwrap(), "binary-trees", "10"]);
    assert!(o.status.success(), "{}", text(&o));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(record["heap_policy"], "membalancer:c=0.01,smoothing=0.25", "one spelling");
    let o = gclab(&["run", "--heap-policy", "membalancer", "--json", json.to_str().unwrap(), "binary-trees", "10", "+RTS", "--heap-policy=ghc:F=3"]);
    assert!(o.status.success(), "{}", text(&o));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(record["heap_policy"], "ghc:F=3");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_policies_are_refused_by_name() {
    for (policy, needle) in [
        ("nope", "unknown heap policy `nope' (known: ghc, fixed, membalancer)"),
        ("fixed", "the fixed heap policy needs size=SIZE"),
        ("fixed:size=1q", "the fixed heap policy's size=1q"),
        ("membalancer:c=-1", "the membalancer heap policy's parameter c=-1"),
        ("membalancer:k=1", "the membalancer heap policy has no parameter `k' (known: c, smoothing)"),
        ("ghc:F=x", "the ghc heap policy's F=x"),
        ("ghc:F", "heap policy parameter `F' is not key=value"),
    ] {
        let o = gclab(&["run", "--heap-policy", policy, "binary-trees", "4"]);
        assert_eq!(o.status.code(), Some(1), "{policy}: {}", text(&o));
        assert!(text(&o).contains(needle) && text(&o).contains(&format!("--heap-policy={policy}")), "{policy}: expected {needle:?} in {}", text(&o));
    }
}

#[test]
fn gclab_list_names_the_policies() {
    let o = gclab(&["list"]);
    for name in ["ghc", "fixed", "membalancer"] {
        assert!(text(&o).lines().any(|l| l.trim_start().starts_with(name)), "{name} missing from:\n{}", text(&o));
    }
}

#[test]
fn a_sweep_over_policies_resolves_multiples_and_draws_the_tradeoff() {
    let dir = std::env::temp_dir().join(format!("gclab-heap-policy-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exp = dir.join("policies.toml");
    std::fs::write(
        &exp,
        r#"
description = "policies"
repetitions = 1
timeout_secs = 60
collectors = ["copying"]
heap_policies = ["ghc:F=1.5", "ghc:F=3", "membalancer:c=0.001", "membalancer:c=0.01", "fixed:size=3x"]
[[workloads]]
name = "binary-trees"
args = [12]
"#,
    )
    .unwrap();
    let out = dir.join("r");
    let cache = dir.join("minheap.json");
    let o = gclab(&["sweep", exp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--minheap-cache", cache.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    let fixed = std::fs::read_dir(out.join("runs")).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).find(|t| t.contains("fixed:size=")).expect("the fixed heap's run");
    let record: serde_json::Value = serde_json::from_str(&fixed).unwrap();
    let ran = record["result"]["heap_policy"].as_str().unwrap_or_default();
    assert!(ran.starts_with("fixed:size=") && ran.ends_with('k'), "the multiple became a size: {fixed}");
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(out.join("plots/tradeoff.svg").is_file() && out.join("plots/tradeoff.png").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}
