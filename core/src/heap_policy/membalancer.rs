//! MemBalancer (Kirisame, Shenoy and Panchekha, "Optimal Heap Limits for
//! Reducing Browser Memory Use", PLDI'22): the room beyond the live data
//! grows with the square root of live data times the rate the space
//! fills over the rate the collector traces. See Note [The square-root
//! rule].

use super::{HeapPolicy, HeapPolicyEntry, MajorGc};
use crate::constants::BLOCK_SIZE;
use crate::params::Params;

pub(super) const ENTRY: HeapPolicyEntry = HeapPolicyEntry {
    name: "membalancer",
    description: "MemBalancer's square-root rule: room beyond live = sqrt(live x fill rate / (trace rate x c)); c= the time worth a MiB (default 0.002), smoothing= weight of the newest measure (default 0.5)",
    make,
};

// Note [The square-root rule]
// ----------------------------------------
// Between two major GCs the collected space fills at g MiB per second
// (what minor GCs promote, or with one generation what the mutators
// allocate); a major GC traces the L MiB of live data at s MiB per
// second. With E MiB of room beyond the live data a major GC comes every
// E/g seconds and takes L/s, so major GCs take the share L·g/(s·E) of
// the time. Minimising that share plus c per MiB of heap, c·(L + E),
// gives
//
//     E = sqrt(L · g / (s · c))
//
// MemBalancer's rule: room grows with the square root of the live data,
// not in proportion as GHC's `F x live` does, so a small heap gets
// relatively more room and a large one less, and a program that fills
// its space fast (or a collector that traces slowly) gets more. `c` is
// the share of run time one MiB is worth: c = 0.002 buys a MiB for 0.2%
// more time in major GCs. g and s are smoothed across major GCs
// (exponentially, weight `smoothing` on the newest), as the paper's are,
// since one GC's pause is a noisy measure. Here s is measured as live
// data over pause time, the paper's model of a tracing collector's cost;
// the paper measures the browser's heaps in bytes collected, which for
// a copying or marking collector is the same work. The room is at least
// one allocation area per capability (a minor GC may promote that
// much), and the runtime cuts the limit to `-M`. Unlike GHC's rule the
// result depends on timing, so two runs of one program may size their
// heaps differently: sweeps should repeat runs.
//
// The alternatives: Whippet's adaptive sizer takes the constant outside
// the radical as an "expansiveness" and bounds the multiplier (1.1x to
// 5x live); MMTk's `DynamicHeapSize` trigger measures g per allocation
// heartbeat rather than between major GCs. Both are the same rule.

const MIB_BLOCKS: f64 = (1 << 20) as f64 / BLOCK_SIZE as f64;

fn make(mut params: Params) -> Result<Box<dyn HeapPolicy>, String> {
    let c = params.take_number("membalancer", "c", 0.002, 1e-9..=1e3)?;
    let smoothing = params.take_number("membalancer", "smoothing", 0.5, 0.01..=1.0)?;
    params.finish("membalancer", &["c", "smoothing"])?;
    Ok(Box::new(MemBalancer { c, smoothing, fill_rate: None, trace_rate: None }))
}

/// The rule's state: its constants and the smoothed rates, in MiB/s.
#[derive(Debug)]
struct MemBalancer {
    c: f64,
    smoothing: f64,
    fill_rate: Option<f64>,
    trace_rate: Option<f64>,
}

impl MemBalancer {
    /// Fold a new measure into a smoothed rate (the first is taken whole).
    fn smooth(&self, old: Option<f64>, new: f64) -> f64 {
        old.map_or(new, |o| o + self.smoothing * (new - o))
    }

    /// The room beyond the live data, in MiB, from the rates so far.
    fn room_mib(&self, live_mib: f64) -> f64 {
        match (self.fill_rate, self.trace_rate) {
            (Some(g), Some(s)) if s > 0.0 => (live_mib * g / (s * self.c)).sqrt(),
            _ => 0.0,
        }
    }
}

impl HeapPolicy for MemBalancer {
    fn space_limit(&mut self, gc: &MajorGc) -> usize {
        let live_mib = gc.live_blocks as f64 / MIB_BLOCKS;
        if gc.seconds_between > 0.0 {
            self.fill_rate = Some(self.smooth(self.fill_rate, gc.grown_blocks as f64 / MIB_BLOCKS / gc.seconds_between));
        }
        if gc.gc_seconds > 0.0 {
            self.trace_rate = Some(self.smooth(self.trace_rate, live_mib.max(1.0 / MIB_BLOCKS) / gc.gc_seconds));
        }
        let room = (self.room_mib(live_mib) * MIB_BLOCKS) as usize;
        gc.live_blocks + room.max(gc.min_room_blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gc(live_mib: f64, grown_mib: f64, seconds_between: f64, gc_seconds: f64) -> MajorGc {
        let b = |mib: f64| (mib * MIB_BLOCKS) as usize;
        MajorGc { old_gen_factor: 2.0, min_old_gen_blocks: 256, live_blocks: b(live_mib), two_space: false, grown_blocks: b(grown_mib), seconds_between, gc_seconds, min_room_blocks: 256 }
    }

    fn policy(c: f64) -> MemBalancer {
        MemBalancer { c, smoothing: 0.5, fill_rate: None, trace_rate: None }
    }

    #[test]
    fn room_is_the_square_root_rule() {
        // L = 100 MiB, g = 20 MiB/s, s = 100 MiB/s, c = 0.002:
        // E = sqrt(100 x 20 / (100 x 0.002)) = 100 MiB.
        let limit = policy(0.002).space_limit(&gc(100.0, 20.0, 1.0, 1.0));
        assert!((limit as f64 / MIB_BLOCKS - 200.0).abs() < 0.01, "{limit}");
        // Four times the live data: twice the room, not four times.
        let limit = policy(0.002).space_limit(&gc(400.0, 20.0, 1.0, 4.0));
        assert!((limit as f64 / MIB_BLOCKS - 600.0).abs() < 0.01, "{limit}");
        // Memory dearer: less room.
        assert!(policy(0.02).space_limit(&gc(100.0, 20.0, 1.0, 1.0)) < (150.0 * MIB_BLOCKS) as usize);
    }

    #[test]
    fn rates_are_smoothed_and_the_room_has_a_floor() {
        let mut p = policy(0.002);
        p.space_limit(&gc(100.0, 20.0, 1.0, 1.0));
        p.space_limit(&gc(100.0, 60.0, 1.0, 1.0));
        assert_eq!(p.fill_rate, Some(40.0), "half the old measure, half the new");
        // Nothing promoted: the room is one allocation area, not zero.
        let mut idle = policy(0.002);
        assert_eq!(idle.space_limit(&gc(100.0, 0.0, 1.0, 1.0)), (100.0 * MIB_BLOCKS) as usize + 256);
    }
}
