//! Allocation sampling: every allocated word is sampled with probability
//! `rate`; an object of n words is reported with `n_samples` ~
//! Binomial(n, rate), and only if that is positive. What is done with a
//! sampled object is a `SampleSink`'s business: the `gc` API's Memprof
//! (OCaml's `Gc.Memprof`) is one. This module is the mechanism in the
//! allocation path, which the sink never sees.
//!
//! Note [Sampling without a fast-path test]
//! ----------------------------------------
//! The gaps between sampled words are drawn from a geometric distribution
//! with parameter `rate`. While a sampler runs, the capability's allocation
//! limit is pulled back to the next sampled word, so only an allocation
//! that covers a sample leaves the inlined fast path; the slow path counts
//! the samples inside it. The fast path is the same code with or without a
//! sampler (the same trick as `--gc-every`, Note [Forced GCs] in `alloc`).
//! While the sink runs (it may allocate: Memprof watches the objects it
//! tracks through weak pointers), the sampler is out of the mutator, so
//! nothing the sink allocates is sampled.

use super::*;

/// A sampled object, as the sink learns of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledAllocation {
    /// How many of its words were sampled (at least 1).
    pub n_samples: u64,
    /// Its size in words (header included).
    pub size: usize,
    /// A large object (OCaml would allocate it in its major heap).
    pub major: bool,
}

/// What is done with sampled objects (the `gc` API's Memprof).
pub trait SampleSink: Send {
    /// An object with sampled words was just made; `h` roots it.
    fn sampled(&mut self, m: &mut Mutator<'_>, h: Handle, s: SampledAllocation);

    /// GCs have run since the mutator last looked (called with their
    /// hooks, on the mutator).
    fn after_gc(&mut self, m: &mut Mutator<'_>);

    /// Sampling stops: let go of what the sink holds.
    fn stop(self: Box<Self>, m: &mut Mutator<'_>);
}

/// The sampler's state, held by the mutator while sampling runs.
pub(super) struct Sampler {
    rate: f64,
    rng: u64,
    /// Words until (and including) the next sampled word.
    pub(super) countdown: u64,
    /// The bump pointer when `countdown` was last brought up to date.
    pub(super) base: *mut Word,
    /// A sample waiting for its object to be initialised and rooted.
    pending: Option<SampledAllocation>,
    sink: Box<dyn SampleSink>,
}

// SAFETY: `base` is a position in the mutator's own nursery block, only
// compared and subtracted, never dereferenced.
unsafe impl Send for Sampler {}

impl Sampler {
    fn new(rate: f64, sink: Box<dyn SampleSink>) -> Sampler {
        let mut s = Sampler { rate, rng: 0x853c_49e6_748f_ea9b, countdown: 0, base: std::ptr::null_mut(), pending: None, sink };
        s.countdown = s.gap();
        s
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
    fn draw(&mut self, words: usize) -> u64 {
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
    fn consume_fast_path(&mut self, hp: *mut Word) {
        if !self.base.is_null() && hp > self.base {
            let words = (hp as usize - self.base as usize) / std::mem::size_of::<Word>();
            self.countdown -= (words as u64).min(self.countdown.saturating_sub(1));
        }
        self.base = hp;
    }
}

/// The sampler's hooks in the mutator's allocation path.
impl Mutator<'_> {
    /// Bring the countdown up to date with what the fast path allocated
    /// since the limit was last set.
    pub(super) fn sampler_catch_up(&mut self) {
        let hp = self.cap().hp;
        self.sampler_catch_up_to(hp);
    }

    fn sampler_catch_up_to(&mut self, hp: *mut Word) {
        if let Some(s) = self.sampler.as_mut() {
            s.consume_fast_path(hp);
        }
    }

    /// The sampler's view of an allocation of `words` at `p` (See Note
    /// [Sampling without a fast-path test]).
    pub(super) fn sampler_account(&mut self, p: *mut Word, words: usize, major: bool) {
        self.sampler_catch_up_to(p);
        let Some(s) = self.sampler.as_mut() else { return };
        let n_samples = s.draw(words);
        if n_samples > 0 {
            s.pending = Some(SampledAllocation { n_samples, size: words, major });
            self.sample_pending = true;
        }
    }

    /// Show the sink the sampled object behind `h`.
    #[cold]
    pub(super) fn report_sampled(&mut self, h: Handle) {
        self.sample_pending = false;
        let Some(mut s) = self.sampler.take() else { return };
        if let Some(sample) = s.pending.take() {
            s.sink.sampled(self, h, sample);
        }
        self.sampler = Some(s);
        self.refresh_limit();
    }

    /// After GCs: let the sink look at what it follows.
    pub(super) fn sampler_after_gc(&mut self) {
        let Some(mut s) = self.sampler.take() else { return };
        s.sink.after_gc(self);
        self.sampler = Some(s);
    }

    /// Sample allocations at `rate` (each word with that probability),
    /// showing the sampled objects to `sink`; replaces a sampler already
    /// running.
    pub fn start_sampling(&mut self, rate: f64, sink: Box<dyn SampleSink>) {
        self.stop_sampling();
        self.sampler = Some(Box::new(Sampler::new(rate, sink)));
        self.refresh_limit();
    }

    /// Stop sampling; the sink lets go of what it holds.
    pub fn stop_sampling(&mut self) {
        if let Some(s) = self.sampler.take() {
            s.sink.stop(self);
        }
        self.sample_pending = false;
        self.refresh_limit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;

    impl SampleSink for Nothing {
        fn sampled(&mut self, _: &mut Mutator<'_>, _: Handle, _: SampledAllocation) {}
        fn after_gc(&mut self, _: &mut Mutator<'_>) {}
        fn stop(self: Box<Self>, _: &mut Mutator<'_>) {}
    }

    #[test]
    fn rates_zero_and_one_are_exact() {
        let mut none = Sampler::new(0.0, Box::new(Nothing));
        assert_eq!((0..1000).map(|_| none.draw(7)).sum::<u64>(), 0);
        let mut all = Sampler::new(1.0, Box::new(Nothing));
        assert_eq!((0..1000).map(|_| all.draw(7)).sum::<u64>(), 7000);
    }

    #[test]
    fn sampling_rate_is_respected_on_average() {
        let mut m = Sampler::new(0.01, Box::new(Nothing));
        let samples: u64 = (0..250_000).map(|_| m.draw(4)).sum();
        // 10^6 words at 1%: mean 10^4, standard deviation ~99.5; allow 5 sigma.
        assert!((9_500..=10_500).contains(&samples), "{samples} samples");
    }
}
