//! Memprof: statistical sampling of allocations (OCaml's `Gc.Memprof`).
//!
//! Every allocated word is sampled with probability `rate`; a block of n
//! words is reported with `n_samples` ~ Binomial(n, rate), and only if
//! that is positive. The tracker's `alloc_minor` (or `alloc_major`, for
//! large objects, which OCaml would put in its major heap) may return data
//! to track the block; a tracked block is then reported when a GC promotes
//! it out of generation 0 (`promote`) and when a GC finds it dead
//! (`dealloc_minor`/`dealloc_major`). Callbacks run on the mutator.
//!
//! Note [Sampling without a fast-path test]
//! ----------------------------------------
//! The gaps between sampled words are drawn from a geometric distribution
//! with parameter `rate`. While Memprof runs, the capability's allocation
//! limit is pulled back to the next sampled word, so only an allocation
//! that covers a sample leaves the inlined fast path; the slow path counts
//! the samples inside it. The fast path is the same code with or without
//! Memprof (the same trick as `--gc-every`, Note [Forced GCs] in `mutator::alloc`).
//! Tracked blocks are watched through weak pointers held by stable
//! pointers, so the GC needs no special knowledge of them.

use crate::info::NULL_OBJECT;
use crate::mutator::{Handle, Mutator};
use crate::constants::Word;
use crate::stable_ptr::StablePtr;

/// Where a sampled block was allocated (gclab has only ordinary allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocationSource {
    /// An ordinary allocation.
    Normal,
}

/// What the allocation callbacks learn of a sampled block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationInfo {
    /// How many of its words were sampled (at least 1).
    pub n_samples: u64,
    /// Its size in words (header included).
    pub size: usize,
    /// How it was allocated.
    pub source: AllocationSource,
}

/// A tracker's allocation callback: the data to keep with the block, or
/// None not to track it.
pub type AllocationCallback = Box<dyn FnMut(&AllocationInfo) -> Option<u64> + Send>;

/// The callbacks. Data returned by `alloc_*`/`promote` is passed to the
/// later callbacks of the same block; `None` stops tracking it.
pub struct Tracker {
    /// A sampled block allocated in the minor heap (gclab's generation 0).
    pub alloc_minor: AllocationCallback,
    /// A sampled large block (OCaml would allocate it in its major heap).
    pub alloc_major: AllocationCallback,
    /// A tracked minor block was promoted to an older generation.
    pub promote: Box<dyn FnMut(u64) -> Option<u64> + Send>,
    /// A tracked block died in the minor heap.
    pub dealloc_minor: Box<dyn FnMut(u64) + Send>,
    /// A tracked block died in the major heap.
    pub dealloc_major: Box<dyn FnMut(u64) + Send>,
}

impl Tracker {
    /// A tracker that tracks nothing and is told of nothing.
    pub fn null() -> Tracker {
        Tracker {
            alloc_minor: Box::new(|_| None),
            alloc_major: Box::new(|_| None),
            promote: Box::new(|_| None),
            dealloc_minor: Box::new(|_| {}),
            dealloc_major: Box::new(|_| {}),
        }
    }
}

/// A block being tracked.
pub(crate) struct Tracked {
    pub weak: StablePtr,
    pub data: u64,
    pub major: bool,
}

/// A sample waiting for its block to be initialised.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PendingSample {
    pub n_samples: u64,
    pub size: usize,
    pub major: bool,
}

/// The sampler's state, held by the mutator while sampling runs.
pub(crate) struct Memprof {
    rate: f64,
    rng: u64,
    /// Words until (and including) the next sampled word.
    pub countdown: u64,
    /// The bump pointer when `countdown` was last brought up to date.
    pub base: *mut Word,
    pub tracker: Tracker,
    pub tracked: Vec<Tracked>,
    pub pending: Option<PendingSample>,
    /// In a callback or in tracking bookkeeping: do not sample.
    pub busy: bool,
    pub seen_gcs: u64,
}

impl Memprof {
    pub fn new(rate: f64, tracker: Tracker, seen_gcs: u64) -> Memprof {
        let mut m = Memprof {
            rate,
            rng: 0x853c_49e6_748f_ea9b,
            countdown: 0,
            base: std::ptr::null_mut(),
            tracker,
            tracked: Vec::new(),
            pending: None,
            busy: false,
            seen_gcs,
        };
        m.countdown = m.gap();
        m
    }

    fn uniform(&mut self) -> f64 {
        // xorshift64*, to (0, 1].
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        ((x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// Words from one sampled word to the next: Geometric(rate) on 1, 2, ...
    fn gap(&mut self) -> u64 {
        if self.rate <= 0.0 {
            return u64::MAX;
        }
        if self.rate >= 1.0 {
            return 1;
        }
        let g = (self.uniform().ln() / (1.0 - self.rate).ln()).floor();
        if g >= (u64::MAX / 2) as f64 {
            u64::MAX / 2
        } else {
            g as u64 + 1
        }
    }

    /// Account `words` just allocated: how many sampled words they cover.
    pub fn draw(&mut self, words: usize) -> u64 {
        let mut remaining = words as u64;
        let mut n = 0;
        while self.countdown <= remaining {
            n += 1;
            remaining -= self.countdown;
            self.countdown = self.gap();
        }
        self.countdown -= remaining;
        n
    }

    /// Account words bump-allocated on the fast path since `base`, which
    /// by construction covered no sampled word.
    pub fn consume_fast_path(&mut self, hp: *mut Word) {
        if !self.base.is_null() && hp > self.base {
            let words = (hp as usize - self.base as usize) / std::mem::size_of::<Word>();
            self.countdown -= (words as u64).min(self.countdown.saturating_sub(1));
        }
        self.base = hp;
    }
}

/// Memprof's hooks in the mutator's allocation path.
impl Mutator<'_> {
    /// Bring Memprof's countdown up to date with what the fast path
    /// allocated since the limit was last set.
    pub(crate) fn memprof_catch_up(&mut self) {
        let hp = self.cap().hp;
        self.memprof_catch_up_to(hp);
    }

    pub(crate) fn memprof_catch_up_to(&mut self, hp: *mut Word) {
        if let Some(mp) = self.memprof.as_mut() {
            if !mp.busy {
                mp.consume_fast_path(hp);
            }
        }
    }

    /// Memprof's view of an allocation of `words` at `p` (See Note
    /// [Sampling without a fast-path test] in `memprof`).
    pub(crate) fn memprof_account(&mut self, p: *mut Word, words: usize, major: bool) {
        self.memprof_catch_up_to(p);
        let Some(mp) = self.memprof.as_mut() else { return };
        if mp.busy {
            return;
        }
        let n_samples = mp.draw(words);
        if n_samples > 0 {
            mp.pending = Some(PendingSample { n_samples, size: words, major });
            self.sample_pending = true;
        }
    }

    /// Report the sampled object behind `h` and maybe start tracking it.
    #[cold]
    pub(crate) fn memprof_sampled(&mut self, h: Handle) {
        self.sample_pending = false;
        let Some(mut mp) = self.memprof.take() else { return };
        if let Some(s) = mp.pending.take() {
            let info = AllocationInfo { n_samples: s.n_samples, size: s.size, source: AllocationSource::Normal };
            mp.busy = true;
            let data = if s.major { (mp.tracker.alloc_major)(&info) } else { (mp.tracker.alloc_minor)(&info) };
            if let Some(data) = data {
                let base = self.depth();
                let weak = self.new_weak_raw(h, NULL_OBJECT.addr(), None);
                let sp = self.new_stable_ptr(weak);
                self.truncate(base);
                mp.tracked.push(Tracked { weak: sp, data, major: s.major });
            }
            mp.busy = false;
        }
        self.memprof = Some(mp);
        self.refresh_limit();
    }

    /// After GCs: tell the tracker which tracked blocks were promoted or died.
    pub(crate) fn memprof_after_gc(&mut self) {
        let gcs = self.rts.stats_gcs();
        let Some(mut mp) = self.memprof.take() else { return };
        if mp.seen_gcs != gcs {
            mp.seen_gcs = gcs;
            mp.busy = true;
            let mut kept = Vec::with_capacity(mp.tracked.len());
            for mut t in std::mem::take(&mut mp.tracked) {
                let base = self.depth();
                let w = self.deref_stable_ptr(t.weak);
                let alive = self.deref_weak(w);
                let keep = match alive {
                    None => {
                        if t.major {
                            (mp.tracker.dealloc_major)(t.data);
                        } else {
                            (mp.tracker.dealloc_minor)(t.data);
                        }
                        false
                    }
                    Some(k) if !t.major && self.generation_of(k).unwrap_or(0) > 0 => match (mp.tracker.promote)(t.data) {
                        Some(d) => {
                            t.data = d;
                            t.major = true;
                            true
                        }
                        None => false,
                    },
                    Some(_) => true,
                };
                self.truncate(base);
                if keep {
                    kept.push(t);
                } else {
                    self.free_stable_ptr(t.weak);
                }
            }
            mp.tracked = kept;
            mp.busy = false;
        }
        self.memprof = Some(mp);
    }

    /// Start sampling (the `gc` API's `Memprof.start`).
    pub(crate) fn memprof_start(&mut self, rate: f64, tracker: Tracker) {
        self.memprof_stop();
        let gcs = self.rts.stats_gcs();
        self.memprof = Some(Box::new(Memprof::new(rate, tracker, gcs)));
        self.refresh_limit();
    }

    /// Stop sampling and tracking.
    pub(crate) fn memprof_stop(&mut self) {
        if let Some(mp) = self.memprof.take() {
            for t in mp.tracked {
                self.free_stable_ptr(t.weak);
            }
        }
        self.sample_pending = false;
        self.refresh_limit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_zero_and_one_are_exact() {
        let mut none = Memprof::new(0.0, Tracker::null(), 0);
        assert_eq!((0..1000).map(|_| none.draw(7)).sum::<u64>(), 0);
        let mut all = Memprof::new(1.0, Tracker::null(), 0);
        assert_eq!((0..1000).map(|_| all.draw(7)).sum::<u64>(), 7000);
    }

    #[test]
    fn sampling_rate_is_respected_on_average() {
        let mut m = Memprof::new(0.01, Tracker::null(), 0);
        let samples: u64 = (0..250_000).map(|_| m.draw(4)).sum();
        // 10^6 words at 1%: mean 10^4, standard deviation ~99.5; allow 5 sigma.
        assert!((9_500..=10_500).contains(&samples), "{samples} samples");
    }
}
