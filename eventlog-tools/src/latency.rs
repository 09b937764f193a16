//! The latency of a run: its pause distribution and its minimum mutator
//! utilisation (MMU), from the pauses' start times and lengths, taken one
//! pause at a time in bounded memory (`Latency`), so that the pauses of a
//! run of any length (an eventlog of millions of GCs) are summarised as
//! they are read.
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
//! exactly. Pauses never overlap (the world is stopped for one GC at a
//! time) and come in order, so both candidate sequences only move
//! forward, and each is evaluated with a pointer that walks the pauses
//! once (a binary search per candidate cost 60% of summarising a 42 MB
//! eventlog):
//!
//! - the window ending at pause q's end is known when q arrives: it reaches
//!   back over the pauses of the last `w` seconds;
//! - the window starting at pause p's start is known once a pause starts
//!   `w` or more after p (or the run ends): until then p is pending.
//!
//! So `Mmu` keeps only the pauses of the last `w` seconds of the longest
//! window (10 s), however long the run. The run's ends are two more
//! candidates, given by a pause of no length at 0 and another at the end:
//! a window reaching past the run's end holds no more GC than the last
//! window inside it, so pending windows are evaluated unclamped.
//!
//! Note [Percentiles in bounded memory]
//! ----------------------------------------
//! Percentiles are nearest-rank: p-th percentile = the smallest pause with
//! at least p% of the pauses at or below it. Keeping every pause to sort
//! them grows with the run (40 bytes a GC held 60 MB for the 1.5 million
//! GCs of a 464 MB eventlog), so a distribution is a histogram instead:
//! pauses in nanoseconds fall in log-linear buckets, 1,024 to each
//! doubling (HdrHistogram's layout), and each bucket keeps its count and
//! the longest pause in it. The percentile is that longest pause of the
//! bucket holding the rank: a pause that happened, never shorter than the
//! exact nearest-rank figure and at most 1/1024 (0.1%) longer. The
//! buckets are kept a doubling (16 KB) at a time, only for the doublings
//! some pause reached: one table up to the longest pause held 300 KB for a
//! 1 ms pause, which a fuzzer's thousand short eventlogs a second paid for
//! in page faults, and an ordered map of the buckets reached made the
//! summary of a 195 MB eventlog 30% slower. Below 2,048 ns every bucket is
//! one nanosecond wide, so short pauses are exact.

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

/// Sub-buckets of each doubling (2^SUB_BITS - 1). See Note [Percentiles
/// in bounded memory].
const SUB_BITS: u32 = 11;

/// The histogram bucket of a pause of `ns` nanoseconds.
fn bucket(ns: u64) -> usize {
    let top = 64 - ns.leading_zeros();
    let shift = top.saturating_sub(SUB_BITS);
    (shift as usize) * (1 << (SUB_BITS - 1)) + (ns >> shift) as usize
}

/// Buckets kept together: one doubling's.
const CHUNK: usize = 1 << (SUB_BITS - 1);

/// One doubling's buckets: each one's pause count and longest pause.
type Doubling = [(u64, f64); CHUNK];

/// A distribution of pause lengths in bounded memory. See Note
/// [Percentiles in bounded memory].
#[derive(Debug, Clone, Default)]
pub struct Distribution {
    /// Per bucket: how many pauses, and the longest (seconds).
    /// Indexed by bucket / CHUNK, then bucket % CHUNK.
    buckets: Vec<Option<Box<Doubling>>>,
    count: u64,
    total: f64,
}

impl Distribution {
    /// Count one pause of `length` seconds (a negative or NaN one as 0).
    pub fn add(&mut self, length: f64) {
        let length = if length > 0.0 { length } else { 0.0 };
        let b = bucket((length * 1e9).round().min(u64::MAX as f64) as u64);
        let (chunk, at) = (b / CHUNK, b % CHUNK);
        if chunk >= self.buckets.len() {
            self.buckets.resize_with(chunk + 1, || None);
        }
        let slot = &mut self.buckets[chunk].get_or_insert_with(|| Box::new([(0, 0.0); CHUNK]))[at];
        slot.0 += 1;
        slot.1 = slot.1.max(length);
        self.count += 1;
        self.total += length;
    }

    /// The nearest-rank `p`-th percentile (None if no pauses).
    pub fn percentile(&self, p: f64) -> Option<f64> {
        self.percentiles(&[p])[0]
    }

    /// The nearest-rank percentiles `ps` (ascending), in one pass over the
    /// buckets.
    pub fn percentiles(&self, ps: &[f64]) -> Vec<Option<f64>> {
        // (Less a hair, so that 99.9% of 1000 is rank 999, not 1000.)
        let ranks: Vec<u64> = ps.iter().map(|p| (((p / 100.0) * self.count as f64 - 1e-9).ceil() as u64).clamp(1, self.count.max(1))).collect();
        let mut found = vec![None; ps.len()];
        let (mut next, mut below) = (0, 0);
        for &(n, longest) in self.buckets.iter().flatten().flat_map(|chunk| chunk.iter()) {
            below += n;
            while next < ps.len() && n > 0 && below >= ranks[next] {
                found[next] = Some(longest);
                next += 1;
            }
            if next == ps.len() {
                break;
            }
        }
        found
    }

    /// Pause count, percentiles, longest and total, as JSON fields named
    /// `{prefix}count`, `{prefix}p50`, ... (seconds).
    fn fields(&self, prefix: &str, out: &mut Map<String, Value>) {
        out.insert(format!("{prefix}count"), self.count.into());
        if self.count == 0 {
            return;
        }
        let ps: Vec<f64> = PERCENTILES.iter().map(|&(_, p)| p).chain([100.0]).collect();
        let names = PERCENTILES.iter().map(|&(name, _)| name).chain(["max"]);
        for (name, value) in names.zip(self.percentiles(&ps)) {
            out.insert(format!("{prefix}{name}"), value.into());
        }
        out.insert(format!("{prefix}total"), self.total.into());
    }
}

/// A pause as `Mmu` keeps it: where it lies and the GC time before it.
#[derive(Debug, Clone, Copy)]
struct Seen {
    start: f64,
    length: f64,
    /// GC seconds in [0, start].
    before: f64,
}

/// One window's search for its worst interval.
#[derive(Debug, Clone, Copy)]
struct Window {
    w: f64,
    /// The next pause whose starting window is pending (an index into
    /// all pauses pushed).
    pending: usize,
    /// `gc_until` pointers of the two candidate sequences.
    to_start: usize,
    from_end: usize,
    /// The most GC time found in one window so far. Once it is the whole
    /// window the MMU is 0 and can fall no further: the window is done,
    /// and its pointers no longer hold pauses (a run that spends whole
    /// windows in GC skips most of the work for the short ones).
    worst: f64,
}

/// Pauses pushed between two forgettings of the ones no longer needed (a
/// forgetting moves the rest down; this many keeps its cost per pause
/// small and the pauses kept at most this many more).
const DROP_EVERY: usize = 4096;

/// MMU at several windows, one pause at a time. See Note [Computing MMU
/// exactly].
#[derive(Debug, Clone)]
pub struct Mmu {
    /// The pauses still needed; `kept[0]` is pause number `dropped`.
    kept: Vec<Seen>,
    dropped: usize,
    /// GC seconds of every pause pushed.
    gc: f64,
    /// Where the last pause ended (a later one starting before it is
    /// clipped).
    end: f64,
    windows: Vec<Window>,
}

impl Mmu {
    /// An MMU search at each of `windows` (seconds).
    pub fn new(windows: &[f64]) -> Mmu {
        let windows = windows.iter().map(|&w| Window { w, pending: 0, to_start: 0, from_end: 0, worst: 0.0 }).collect();
        let mut mmu = Mmu { kept: Vec::new(), dropped: 0, gc: 0.0, end: 0.0, windows };
        mmu.push(0.0, 0.0);
        mmu
    }

    /// The pause numbered `i`.
    fn get(&self, i: usize) -> Seen {
        self.kept[i - self.dropped]
    }

    /// GC seconds in [0, t], `k` being a pointer that only moves forward
    /// (the number of pauses starting before the last `t` asked).
    fn gc_until(&self, t: f64, k: &mut usize) -> f64 {
        let pushed = self.dropped + self.kept.len();
        while *k < pushed && self.get(*k).start < t {
            *k += 1;
        }
        if *k == 0 {
            return 0.0;
        }
        let last = self.get(*k - 1);
        last.before + (t - last.start).clamp(0.0, last.length)
    }

    /// Take the next pause (starting at or after the last one's end; one
    /// that overlaps it is clipped to the part after).
    pub fn push(&mut self, start: f64, length: f64) {
        let end = start + length;
        let start = start.max(self.end);
        if end < start {
            return;
        }
        self.kept.push(Seen { start, length: end - start, before: self.gc });
        self.gc += end - start;
        self.end = end;
        let pushed = self.dropped + self.kept.len();
        for i in 0..self.windows.len() {
            let mut win = self.windows[i];
            if win.worst >= win.w {
                continue; // See `Window::worst`.
            }
            // The window ending where this pause ends (one reaching before
            // the run is the pending window starting at 0).
            if end >= win.w {
                let g = self.gc - self.gc_until(end - win.w, &mut win.from_end);
                win.worst = win.worst.max(g);
            }
            // Windows starting at earlier pauses that this one is past.
            while win.pending < pushed - 1 && self.get(win.pending).start + win.w <= start {
                self.evaluate_pending(&mut win);
            }
            self.windows[i] = win;
        }
        if pushed.is_multiple_of(DROP_EVERY) {
            self.drop_unneeded();
        }
    }

    /// The window starting at pause `win.pending`.
    fn evaluate_pending(&self, win: &mut Window) {
        let p = self.get(win.pending);
        let g = self.gc_until(p.start + win.w, &mut win.to_start) - p.before;
        win.worst = win.worst.max(g);
        win.pending += 1;
    }

    /// Forget the pauses no window can read again: a pointer `k` reads
    /// pause `k - 1` and later.
    fn drop_unneeded(&mut self) {
        let needed = self.windows.iter().filter(|w| w.worst < w.w).map(|w| w.pending.min(w.to_start.saturating_sub(1)).min(w.from_end.saturating_sub(1))).min().unwrap_or(usize::MAX);
        let n = needed.saturating_sub(self.dropped).min(self.kept.len() - 1);
        self.kept.drain(..n);
        self.dropped += n;
    }

    /// The MMU at each window for a run of `run` seconds (None for a
    /// window longer than the run).
    pub fn finish(mut self, run: f64) -> Vec<Option<f64>> {
        self.push(run.max(self.end), 0.0);
        let pushed = self.dropped + self.kept.len();
        let mut windows = std::mem::take(&mut self.windows);
        for win in &mut windows {
            while win.pending < pushed && win.worst < win.w {
                self.evaluate_pending(win);
            }
        }
        windows.iter().map(|win| (win.w <= run && win.w > 0.0).then(|| (1.0 - win.worst / win.w).clamp(0.0, 1.0))).collect()
    }
}

/// The pause distribution, overall and per generation, and the MMU of a
/// run's pauses, taken one at a time in time order.
#[derive(Debug, Clone)]
pub struct Latency {
    all: Distribution,
    by_gen: Vec<Distribution>,
    mmu: Mmu,
}

impl Default for Latency {
    fn default() -> Latency {
        Latency::new()
    }
}

impl Latency {
    /// Nothing seen yet.
    pub fn new() -> Latency {
        let windows: Vec<f64> = MMU_WINDOWS.iter().map(|&(_, w)| w).collect();
        Latency { all: Distribution::default(), by_gen: Vec::new(), mmu: Mmu::new(&windows) }
    }

    /// Take the next pause.
    pub fn push(&mut self, p: Pause) {
        self.all.add(p.length);
        if p.gen >= self.by_gen.len() {
            self.by_gen.resize(p.gen + 1, Distribution::default());
        }
        self.by_gen[p.gen].add(p.length);
        self.mmu.push(p.start, p.length);
    }

    /// The fields `latency` describes (less the time to safepoint) for a
    /// run of `run` seconds with `generations` generations.
    pub fn finish(self, run: f64, generations: usize) -> Map<String, Value> {
        let mut out = Map::new();
        self.all.fields("pause_", &mut out);
        for g in 0..generations {
            self.by_gen.get(g).cloned().unwrap_or_default().fields(&format!("gen{g}_pause_"), &mut out);
        }
        for ((name, _), u) in MMU_WINDOWS.iter().zip(self.mmu.finish(run)) {
            if let Some(u) = u {
                out.insert(format!("mmu_{name}"), u.into());
            }
        }
        out
    }
}

/// `Latency`'s fields of `pauses` (in time order, from the start of a run
/// of `run` seconds with `generations` generations). An eventlog's pauses
/// give the same (See `eventlog_report`).
pub fn latency_of(pauses: &[Pause], run: f64, generations: usize) -> Map<String, Value> {
    let mut l = Latency::new();
    for &p in pauses {
        l.push(p);
    }
    l.finish(run, generations)
}

/// `Latency`'s fields as text: a line of pause percentiles per
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
        let mut waits = Distribution::default();
        for r in &stats.records {
            waits.add(r.sync_wait);
        }
        waits.fields("safepoint_", &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(start: f64, length: f64) -> Pause {
        Pause { start, length, gen: 0 }
    }

    /// MMU at window `w` for a run of `run` seconds; None if the window
    /// is longer than the run. `pauses` are in time order.
    fn mmu(pauses: &[Pause], run: f64, w: f64) -> Option<f64> {
        let mut m = Mmu::new(&[w]);
        for p in pauses {
            m.push(p.start, p.length);
        }
        m.finish(run)[0]
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
        // Pauses at the run's two ends: the windows there are clamped inside.
        let ends = [p(0.0, 0.004), p(0.996, 0.004)];
        assert!((mmu(&ends, 1.0, 0.01).unwrap() - 0.6).abs() < 1e-9);
    }

    /// GC seconds in [a, a + w], counted pause by pause.
    fn gc_in(pauses: &[Pause], a: f64, w: f64) -> f64 {
        pauses.iter().map(|q| ((a + w).min(q.start + q.length) - a.max(q.start)).max(0.0)).sum()
    }

    #[test]
    fn mmu_matches_a_brute_force_scan() {
        // Irregular gaps and lengths, never overlapping.
        let sorted: Vec<Pause> = (0..40).map(|i| p(i as f64 * 0.025 + (i * i % 7) as f64 * 0.001, 0.0007 + (i % 5) as f64 * 0.0011)).collect();
        let run = 1.01;
        for w in [0.001, 0.004, 0.02, 0.1, 0.5] {
            let step = (run - w) / 200_000.0;
            let sampled = (0..=200_000).map(|i| gc_in(&sorted, i as f64 * step, w)).fold(0.0f64, f64::max) / w;
            let exact = 1.0 - mmu(&sorted, run, w).unwrap();
            // Sampling can only miss the worst window, by at most two
            // pause edges' worth of a step.
            assert!(exact >= sampled - 1e-9 && exact - sampled <= 2.0 * step / w + 1e-9, "w={w}: exact {exact}, sampled {sampled}");
        }
    }

    #[test]
    fn streaming_mmu_equals_the_candidates_evaluated_over_all_pauses() {
        // Many pauses over a long run, so that every window drops pauses
        // as it goes: each window's MMU must equal the maximum over all
        // the Note's candidates, computed with every pause at hand.
        let mut pauses = Vec::new();
        let mut t = 0.0;
        let mut x: u64 = 12345;
        for i in 0..3_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let gap = ((x >> 33) % 1000) as f64 * 1e-5;
            let length = if i % 97 == 0 { 0.05 } else { ((x >> 20) % 500) as f64 * 1e-6 };
            pauses.push(p(t + gap, length));
            t += gap + length;
        }
        let run = t + 0.01;
        let windows: Vec<f64> = MMU_WINDOWS.iter().map(|&(_, w)| w).collect();
        let mut m = Mmu::new(&windows);
        for q in &pauses {
            m.push(q.start, q.length);
        }
        let got = m.finish(run);
        for (&w, u) in windows.iter().zip(got) {
            let candidates = pauses.iter().flat_map(|q| [q.start, q.start + q.length - w]).chain([0.0, run - w]);
            let worst = candidates.map(|a| gc_in(&pauses, a.clamp(0.0, run - w), w)).fold(0.0f64, f64::max);
            let want = (w <= run).then(|| (1.0 - worst / w).clamp(0.0, 1.0));
            match (u, want) {
                (Some(u), Some(want)) => assert!((u - want).abs() < 1e-9, "w={w}: streaming {u}, all pauses {want}"),
                (u, want) => assert_eq!(u, want, "w={w}"),
            }
        }
    }

    #[test]
    fn mmu_keeps_only_the_longest_windows_pauses() {
        let mut m = Mmu::new(&[0.001, 0.1]);
        for i in 0..100_000 {
            m.push(i as f64 * 0.001, 0.0002);
        }
        // 100 s of pauses every millisecond: the 100 ms window needs about
        // the last 100, and forgetting is done every `DROP_EVERY` pauses.
        assert!(m.kept.len() < 300 + DROP_EVERY, "{} pauses kept", m.kept.len());
        let u = m.finish(100.0);
        assert!((u[0].unwrap() - 0.8).abs() < 1e-9 && (u[1].unwrap() - 0.8).abs() < 1e-9, "{u:?}");
    }

    #[test]
    fn nearest_rank_percentiles_are_pauses_that_happened() {
        let mut d = Distribution::default();
        for i in 1..=1000 {
            d.add(i as f64 / 1e9);
        }
        // Below 2,048 ns the buckets are a nanosecond wide: exact.
        assert_eq!(d.percentile(50.0), Some(500.0 / 1e9));
        assert_eq!(d.percentile(99.0), Some(990.0 / 1e9));
        assert_eq!(d.percentile(99.9), Some(999.0 / 1e9));
        let mut one = Distribution::default();
        one.add(7.0);
        assert_eq!(one.percentile(99.9), Some(7.0));
        let mut out = Map::new();
        let mut three = Distribution::default();
        for l in [0.003, 0.001, 0.002] {
            three.add(l);
        }
        three.fields("pause_", &mut out);
        assert_eq!(out["pause_count"], 3);
        assert_eq!(out["pause_p50"], 0.002);
        assert_eq!(out["pause_max"], 0.003);
    }

    #[test]
    fn percentiles_of_many_pauses_are_within_a_thousandth_of_exact() {
        let mut lengths: Vec<f64> = (0..100_000u64).map(|i| (i.wrapping_mul(2654435761) % 1_000_000) as f64 * 1e-7 + 1e-7).collect();
        let mut d = Distribution::default();
        for &l in &lengths {
            d.add(l);
        }
        lengths.sort_by(f64::total_cmp);
        for (_, p) in PERCENTILES {
            let exact = lengths[((p / 100.0 * lengths.len() as f64 - 1e-9).ceil() as usize).max(1) - 1];
            let got = d.percentile(p).unwrap();
            assert!(lengths.binary_search_by(|l| l.total_cmp(&got)).is_ok(), "p{p}: {got} is a pause that happened");
            assert!(got >= exact && got <= exact * (1.0 + 1.0 / 1024.0), "p{p}: {got} vs exact {exact}");
        }
        assert_eq!(d.percentile(100.0), Some(lengths[lengths.len() - 1]));
    }
}
