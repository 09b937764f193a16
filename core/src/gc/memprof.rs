//! Memprof: statistical sampling of allocations (OCaml's `Gc.Memprof`),
//! a `SampleSink` of the mutator's allocation sampler (See Note [Sampling
//! without a fast-path test] in `mutator::sampling`).
//!
//! Every allocated word is sampled with probability `rate`; a block of n
//! words is reported with `n_samples` ~ Binomial(n, rate), and only if
//! that is positive. The tracker's `alloc_minor` (or `alloc_major`, for
//! large objects, which OCaml would put in its major heap) may return data
//! to track the block; a tracked block is then reported when a GC promotes
//! it out of generation 0 (`promote`) and when a GC finds it dead
//! (`dealloc_minor`/`dealloc_major`). Callbacks run on the mutator.
//!
//! Tracked blocks are watched through weak pointers held by stable
//! pointers, so the GC needs no special knowledge of them.

use super::GcError;
use crate::info::NULL_OBJECT;
use crate::mutator::{Handle, Mutator, SampleSink, SampledAllocation};
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
struct Tracked {
    weak: StablePtr,
    data: u64,
    major: bool,
}

/// Memprof's state while sampling: the callbacks and the blocks tracked.
struct Memprof {
    tracker: Tracker,
    tracked: Vec<Tracked>,
    /// The GCs the tracked blocks were last looked at after.
    seen_gcs: u64,
}

impl SampleSink for Memprof {
    /// Report the sampled block behind `h` and maybe start tracking it.
    fn sampled(&mut self, m: &mut Mutator<'_>, h: Handle, s: SampledAllocation) {
        let info = AllocationInfo { n_samples: s.n_samples, size: s.size, source: AllocationSource::Normal };
        let data = if s.major { (self.tracker.alloc_major)(&info) } else { (self.tracker.alloc_minor)(&info) };
        if let Some(data) = data {
            let base = m.depth();
            let weak = m.new_weak_raw(h, NULL_OBJECT.addr(), None);
            let sp = m.new_stable_ptr(weak);
            m.truncate(base);
            self.tracked.push(Tracked { weak: sp, data, major: s.major });
        }
    }

    /// After GCs: tell the tracker which tracked blocks were promoted or died.
    fn after_gc(&mut self, m: &mut Mutator<'_>) {
        let gcs = m.runtime().stats_gcs();
        if self.seen_gcs == gcs {
            return;
        }
        self.seen_gcs = gcs;
        let mut kept = Vec::with_capacity(self.tracked.len());
        for mut t in std::mem::take(&mut self.tracked) {
            let base = m.depth();
            let w = m.deref_stable_ptr(t.weak);
            let alive = m.deref_weak(w);
            let keep = match alive {
                None => {
                    if t.major {
                        (self.tracker.dealloc_major)(t.data);
                    } else {
                        (self.tracker.dealloc_minor)(t.data);
                    }
                    false
                }
                Some(k) if !t.major && m.generation_of(k).unwrap_or(0) > 0 => match (self.tracker.promote)(t.data) {
                    Some(d) => {
                        t.data = d;
                        t.major = true;
                        true
                    }
                    None => false,
                },
                Some(_) => true,
            };
            m.truncate(base);
            if keep {
                kept.push(t);
            } else {
                m.free_stable_ptr(t.weak);
            }
        }
        self.tracked = kept;
    }

    /// Stop tracking: free the stable pointers that watch the blocks.
    fn stop(self: Box<Self>, m: &mut Mutator<'_>) {
        for t in self.tracked {
            m.free_stable_ptr(t.weak);
        }
    }
}

/// Start sampling every allocated word with probability `sampling_rate`.
pub fn start(m: &mut Mutator<'_>, sampling_rate: f64, tracker: Tracker) -> Result<(), GcError> {
    if !(0.0..=1.0).contains(&sampling_rate) {
        return Err(GcError::InvalidArgument(format!("Gc.Memprof.start: sampling_rate {sampling_rate} is not in [0, 1]")));
    }
    let seen_gcs = m.runtime().stats_gcs();
    m.start_sampling(sampling_rate, Box::new(Memprof { tracker, tracked: Vec::new(), seen_gcs }));
    Ok(())
}

/// Stop sampling; tracked blocks are no longer reported.
pub fn stop(m: &mut Mutator<'_>) {
    m.stop_sampling();
}
