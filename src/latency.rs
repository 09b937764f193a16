//! The latency of a run: its pause distribution and its minimum mutator
//! utilisation (MMU), from the pauses' start times and lengths.
//!
//! MMU at a window length `w` (Cheng and Blelloch, PLDI 2001) is the least,
//! over every interval of length `w` inside the run, of the fraction of it
//! in which the mutator ran. A collector with short pauses far apart has a
//! high MMU at small windows; one whose total GC time is low has a high
//! MMU at large windows. See Note [Computing MMU exactly].
//!
//! Note [Computing MMU exactly]
//! ----------------------------------------
//! Let g(a) be the GC time inside the window [a, a + w]. It is piecewise
//! linear in a, and its slope only falls where the window's left end
//! enters a pause (a = a pause's start) or its right end leaves one
//! (a + w = a pause's end). A maximum of g lies where the slope falls, or
//! at an end of the run, so those candidates, two per pause, give the MMU
//! exactly: O(n log n) for n pauses, with the GC time before any instant a
//! binary search in the prefix sums of the pauses. Pauses never overlap
//! (the world is stopped for one GC at a time).
//!
//! Percentiles are nearest-rank: p-th percentile = the smallest pause with
//! at least p% of the pauses at or below it, so every figure is a pause
//! that happened.

use gclab_core::stats::Stats;
use serde_json::{Map, Value};

/// One stop-the-world pause.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pause {
    /// Seconds from the start of the run.
    pub start: f64,
    /// Its length in seconds.
    pub length: f64,
    /// The oldest generation it collected.
    pub gen: usize,
}

/// The windows of an MMU curve: 1 ms to 10 s, 1-2-5 steps.
pub const MMU_WINDOWS: [(&str, f64); 13] = [
    ("1ms", 0.001),
    ("2ms", 0.002),
    ("5ms", 0.005),
    ("10ms", 0.01),
    ("20ms", 0.02),
    ("50ms", 0.05),
    ("100ms", 0.1),
    ("200ms", 0.2),
    ("500ms", 0.5),
    ("1s", 1.0),
    ("2s", 2.0),
    ("5s", 5.0),
    ("10s", 10.0),
];

/// The percentiles a pause distribution reports, with their names.
pub const PERCENTILES: [(&str, f64); 4] = [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p99_9", 99.9)];

/// The pauses of a run, from its GC records and its collector syncs, in
/// order.
pub fn pauses(stats: &Stats) -> Vec<Pause> {
    let oldest = stats.gens.len().saturating_sub(1);
    let gcs = stats.records.iter().map(|r| Pause { start: r.total_elapsed - r.gc_elapsed, length: r.gc_elapsed, gen: r.gen });
    // A concurrent collector's syncs stop the world too (in the oldest
    // generation's row, as GHC's `-s` prints them).
    let syncs = stats.sync_pauses.iter().map(|&(start, length)| Pause { start, length, gen: oldest });
    let mut all: Vec<Pause> = gcs.chain(syncs).collect();
    all.sort_by(|a, b| a.start.total_cmp(&b.start));
    all
}

/// The nearest-rank `p`-th percentile of `sorted` (ascending, not empty).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    // (Less a hair, so that 99.9% of 1000 is rank 999, not 1000.)
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Pause count, percentiles, longest and total, as JSON fields named
/// `{prefix}count`, `{prefix}p50`, ... (seconds).
fn distribution(lengths: &[f64], prefix: &str, out: &mut Map<String, Value>) {
    let mut sorted = lengths.to_vec();
    sorted.sort_by(f64::total_cmp);
    out.insert(format!("{prefix}count"), sorted.len().into());
    if sorted.is_empty() {
        return;
    }
    for (name, p) in PERCENTILES {
        out.insert(format!("{prefix}{name}"), percentile(&sorted, p).into());
    }
    out.insert(format!("{prefix}max"), sorted[sorted.len() - 1].into());
    out.insert(format!("{prefix}total"), sorted.iter().sum::<f64>().into());
}

/// MMU at window `w` for a run of `run` seconds; None if the window is
/// longer than the run. `pauses` are in time order. See Note [Computing
/// MMU exactly].
pub fn mmu(pauses: &[Pause], run: f64, w: f64) -> Option<f64> {
    if w > run || w <= 0.0 {
        return None;
    }
    let mut before = Vec::with_capacity(pauses.len() + 1);
    before.push(0.0);
    for p in pauses {
        before.push(before[before.len() - 1] + p.length);
    }
    // GC time in [0, t], for times that only grow: each candidate
    // sequence below is in order, so one index walks the pauses once per
    // sequence (a binary search per candidate cost 60% of summarising a
    // 42 MB eventlog).
    let gc_until = |t: f64, k: &mut usize| -> f64 {
        while *k < pauses.len() && pauses[*k].start < t {
            *k += 1;
        }
        if *k == 0 {
            return 0.0;
        }
        let last = &pauses[*k - 1];
        before[*k - 1] + (t - last.start).min(last.length)
    };
    let worst_of = |windows: &mut dyn Iterator<Item = f64>| -> f64 {
        let (mut from, mut to) = (0, 0);
        windows.map(|a| a.clamp(0.0, run - w)).map(|a| gc_until(a + w, &mut to) - gc_until(a, &mut from)).fold(0.0f64, f64::max)
    };
    let starts = worst_of(&mut pauses.iter().map(|p| p.start));
    let ends = worst_of(&mut pauses.iter().map(|p| p.start + p.length - w));
    let edges = worst_of(&mut [0.0, run - w].into_iter());
    let worst = starts.max(ends).max(edges);
    Some((1.0 - worst / w).clamp(0.0, 1.0))
}

/// The pause distribution, overall and per generation, and the MMU, of
/// `pauses` (in time order, from the start of a run of `run` seconds with
/// `generations` generations): the fields `latency` describes, less the
/// time to safepoint. An eventlog's pauses give the same (See
/// `eventlog_report`).
pub fn latency_of(pauses: &[Pause], run: f64, generations: usize) -> Map<String, Value> {
    let mut out = Map::new();
    let lengths: Vec<f64> = pauses.iter().map(|p| p.length).collect();
    distribution(&lengths, "pause_", &mut out);
    for g in 0..generations {
        let lengths: Vec<f64> = pauses.iter().filter(|p| p.gen == g).map(|p| p.length).collect();
        distribution(&lengths, &format!("gen{g}_pause_"), &mut out);
    }
    for (name, w) in MMU_WINDOWS {
        if let Some(u) = mmu(pauses, run, w) {
            out.insert(format!("mmu_{name}"), u.into());
        }
    }
    out
}

/// `latency_of`'s fields as text: a line of pause percentiles per
/// generation and overall (milliseconds), and a line of MMU.
pub fn latency_text(fields: &Map<String, Value>, generations: usize) -> String {
    let ms = |k: &str| fields.get(k).and_then(Value::as_f64).map_or("-".to_string(), |v| format!("{:.3}", v * 1e3));
    let mut out = String::from("Pauses (ms)          count      p50      p90      p99    p99.9      max\n");
    let rows = (0..generations).map(|g| (format!("  generation {g}"), format!("gen{g}_pause_"))).chain([("  all".to_string(), "pause_".to_string())]);
    for (label, prefix) in rows {
        let count = fields.get(&format!("{prefix}count")).and_then(Value::as_u64).unwrap_or(0);
        let cols: Vec<String> = ["p50", "p90", "p99", "p99_9", "max"].iter().map(|p| format!("{:>8}", ms(&format!("{prefix}{p}")))).collect();
        out.push_str(&format!("{label:<18}{count:>8} {}\n", cols.join(" ")));
    }
    out.push_str("MMU ");
    for (name, _) in MMU_WINDOWS {
        if let Some(u) = fields.get(&format!("mmu_{name}")).and_then(Value::as_f64) {
            out.push_str(&format!(" {name} {u:.3}"));
        }
    }
    out.push('\n');
    out
}

/// The latency fields of a run's JSON record: the pause distribution
/// (`pause_count`, `pause_p50` ... `pause_max`, `pause_total`), the same per
/// generation (`gen1_pause_p99`, ...), `mmu_1ms` ... `mmu_10s` for the
/// windows no longer than the run, and with several capabilities the time
/// to safepoint (`safepoint_p50` ... `safepoint_max`: how long the mutator
/// that asked for a GC waited for the others to stop, which is not part
/// of the pause above). All times in seconds.
pub fn latency(stats: &Stats) -> Map<String, Value> {
    let mut out = latency_of(&pauses(stats), stats.total_elapsed, stats.gens.len());
    if stats.cap_allocated_bytes.len() > 1 {
        let waits: Vec<f64> = stats.records.iter().map(|r| r.sync_wait).collect();
        distribution(&waits, "safepoint_", &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(start: f64, length: f64) -> Pause {
        Pause { start, length, gen: 0 }
    }

    #[test]
    fn mmu_of_known_schedules() {
        // One 10 ms pause in a 1 s run.
        let one = [p(0.5, 0.01)];
        assert_eq!(mmu(&one, 1.0, 0.01), Some(0.0), "a window inside the pause");
        assert!((mmu(&one, 1.0, 0.02).unwrap() - 0.5).abs() < 1e-12);
        assert!((mmu(&one, 1.0, 1.0).unwrap() - 0.99).abs() < 1e-12);
        assert_eq!(mmu(&one, 1.0, 2.0), None, "a window longer than the run");
        // 5 ms pauses every 20 ms: any 20 ms window holds exactly 5 ms of GC;
        // a 10 ms window at worst 5 ms.
        let periodic: Vec<Pause> = (0..50).map(|i| p(0.01 + i as f64 * 0.02, 0.005)).collect();
        assert!((mmu(&periodic, 1.0, 0.02).unwrap() - 0.75).abs() < 1e-9);
        assert!((mmu(&periodic, 1.0, 0.01).unwrap() - 0.5).abs() < 1e-9);
        // Two pauses close together make the worst 30 ms window hold both.
        let pair = [p(0.1, 0.01), p(0.115, 0.01), p(0.5, 0.01)];
        assert!((mmu(&pair, 1.0, 0.025).unwrap() - 0.2).abs() < 1e-9);
        assert_eq!(mmu(&[], 1.0, 0.01), Some(1.0), "no GC: the mutator always ran");
    }

    #[test]
    fn mmu_matches_a_brute_force_scan() {
        // Irregular gaps and lengths, never overlapping.
        let sorted: Vec<Pause> = (0..40).map(|i| p(i as f64 * 0.025 + (i * i % 7) as f64 * 0.001, 0.0007 + (i % 5) as f64 * 0.0011)).collect();
        let run = 1.01;
        for w in [0.001, 0.004, 0.02, 0.1, 0.5] {
            let gc_in = |a: f64| -> f64 { sorted.iter().map(|q| ((a + w).min(q.start + q.length) - a.max(q.start)).max(0.0)).sum() };
            let step = (run - w) / 200_000.0;
            let sampled = (0..=200_000).map(|i| gc_in(i as f64 * step)).fold(0.0f64, f64::max) / w;
            let exact = 1.0 - mmu(&sorted, run, w).unwrap();
            // Sampling can only miss the worst window, by at most two
            // pause edges' worth of a step.
            assert!(exact >= sampled - 1e-9 && exact - sampled <= 2.0 * step / w + 1e-9, "w={w}: exact {exact}, sampled {sampled}");
        }
    }

    #[test]
    fn nearest_rank_percentiles_are_pauses_that_happened() {
        let sorted: Vec<f64> = (1..=1000).map(|i| i as f64).collect();
        assert_eq!(percentile(&sorted, 50.0), 500.0);
        assert_eq!(percentile(&sorted, 99.0), 990.0);
        assert_eq!(percentile(&sorted, 99.9), 999.0);
        assert_eq!(percentile(&[7.0], 99.9), 7.0);
        let mut out = Map::new();
        distribution(&[0.003, 0.001, 0.002], "pause_", &mut out);
        assert_eq!(out["pause_count"], 3);
        assert_eq!(out["pause_p50"], 0.002);
        assert_eq!(out["pause_max"], 0.003);
    }
}
