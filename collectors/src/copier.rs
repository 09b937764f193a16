//! The copier: the thread of `concurrent_copying` that copies a
//! from-space out and then points the old generation's fields at the
//! copies, beside the mutators (See Note [A copying-out cycle] in
//! `concurrent_copying`).
//!
//! Invariant kept: it parks only between blocks (and between pieces of
//! a large object: See Note [A large object is updated in pieces]), so a
//! GC (which may fill a block's holes) never finds it inside a block, and
//! it holds no
//! address a GC may move: only old blocks and large objects, which no
//! GC moves while a cycle runs.

use crate::copy_out::{copy_out, ToSpace};
use gclab_core::bdescr::{next_set_bit, BlockPtr, LiveMap, BF_COPYING_OUT};
use gclab_core::constants::{Word, BLOCK_SIZE, BLOCK_WORDS, WORD_SIZE};
use gclab_core::info::ClosureType;
use gclab_core::object::{copied_out_size, forward_target, info_of_header, is_forwarded, load_field, load_header, weak_field, Layout};
use gclab_core::process_usage::thread_cpu_seconds;
use gclab_core::SyncRequest;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use crate::parking::Parking;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The object starts of from-space block `bd` (one bit per word, as a
/// mark bitmap), and the words of its objects: taken with the world
/// stopped when the cycle starts, so that the copier walks the block by
/// them and never sizes an object by what a claimer writes into it (See
/// Note [Walking a from-space beside the claimers]).
///
/// # Safety
/// Objects and zero words tile the block up to its fill, and nobody
/// writes the block meanwhile.
pub(crate) unsafe fn object_starts(bd: BlockPtr, layout: Layout) -> (LiveMap, usize) {
    let mut starts: LiveMap = [0; BLOCK_WORDS / 64];
    let mut words = 0;
    // SAFETY: the caller's contract.
    let first = unsafe { bd.read() }.start;
    // SAFETY: as above.
    unsafe {
        each_object(bd, layout, |p, size| {
            let w = (p as usize - first as usize) / WORD_SIZE;
            starts[w / 64] |= 1 << (w % 64);
            words += size;
        })
    };
    (starts, words)
}

// Note [Walking a from-space beside the claimers]
// ----------------------------------------
// A linear walk of a block reads each header for the object's size; a
// forwarded object is sized by the word its claimer stores into it right
// after the claim (See Note [Forwarded objects keep their size] in core's
// `object`). Between that claim and that store the word still holds the
// object's first field, so a walk that runs beside the claimers (the
// copier, while a mutator copies an object it loaded) could read a field
// as a size and land inside an object: the model property test crashed
// the copier so, about once in 3000 programs. Walks with the world
// stopped are safe (a mutator stops only between operations, never
// inside the barrier's copy). So the copier walks each from-space block by
// its object starts, recorded when the cycle starts (`object_starts`, 64
// bytes a block, during the walk that counts the from-space's words
// anyway). The alternative, a claim in two steps (a busy header that
// readers wait on, then the forwarding pointer), would make every reader
// of a from-space object wait on a claimer that may be descheduled.

/// Call `f` with each object of block `bd` (from its start to its fill)
/// and its size; a forwarded object is sized by its copy. Headers are read
/// atomically: a mutator may be installing a forwarding pointer.
///
/// # Safety
/// Objects and zero words tile the block up to its fill, and no GC changes
/// it meanwhile.
pub(crate) unsafe fn each_object(bd: BlockPtr, layout: Layout, mut f: impl FnMut(*mut Word, usize)) {
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    let mut p = d.start;
    while p < d.free {
        // SAFETY: `p` is at an object or a zero word of the block.
        let header = unsafe { load_header(p) };
        if header == 0 {
            p = p.wrapping_add(1);
            continue;
        }
        // SAFETY: an object is whole; a forwarded one is in a block being
        // copied out.
        let size = unsafe { if is_forwarded(header) { copied_out_size(p, layout) } else { layout.size_of(p, info_of_header(header)) } };
        f(p, size);
        p = p.wrapping_add(size);
    }
}

/// What the copier is asked to do.
pub(crate) enum Job {
    /// Copy every object of these from-space blocks, each with its object
    /// starts (`object_starts`).
    Copy(Vec<(BlockPtr, LiveMap)>),
    /// Point every field that leads into the from-space (`from`, its
    /// blocks by start address) at its copy: in the objects of every
    /// `hands`-th block of `blocks` from number `hand` on, the from-space
    /// blocks among them passed over, and in the large objects `large`
    /// (See Note [The update pass is handed the whole list]).
    Update { from: HashSet<usize>, blocks: Arc<Vec<BlockPtr>>, hand: usize, hands: usize, large: Vec<BlockPtr> },
}

// Note [The update pass is handed the whole list]
// ----------------------------------------
// The update pass goes over every old block but the from-space's. The
// sync that starts it used to write that list (the old generation's
// blocks, each tested against a hash set of the from-space's) and deal it
// out to the copiers, and the sync that ends the cycle took the
// from-space out of the generation's list by the same test: 2.4 and 1.0
// ms of those syncs on binary-trees 20 at 87 thousand blocks (the 2-core
// machine), work in the heap's size in a pause that should be bounded by
// the roots. Now the sync hands every copier the generation's list as it
// stands (one copy, shared), each copier takes every n-th block, and it
// is the copier, beside the mutators, that passes over a from-space block
// (flagged `BF_COPYING_OUT` from the cycle's start to its end) and notes
// its place in the list. Blocks are only appended to the generation
// while a cycle runs (no GC but a major one takes any out, and a major GC
// ends the cycle first), so those places still hold when the cycle ends,
// and the sync that ends it takes the from-space out by place: a copy of
// the list, with no test per block. It checks that each place holds a
// from-space block.

/// Fields of a large object the update pass does between two
/// checkpoints.
const UPDATE_PIECE: usize = 4096;

// Note [A large object is updated in pieces]
// ----------------------------------------
// The copier parks only at checkpoints, and every GC and sync waits for
// it to park, so what it does between two checkpoints is added to a
// pause. A block of the update pass is a few microseconds' work, but a
// large object was one piece: lru 500000's table, half a million fields each
// looked up in the from-space's block set, held a young GC for 2.8 ms (a
// GC that copies in 1 ms). So a large object is updated `UPDATE_PIECE`
// fields at a time, with a checkpoint between two pieces. That is safe
// where stopping inside a block is not (See the module doc): no GC moves
// or fills a large object, a GC meanwhile writes only to-space addresses
// into it (the from-space blocks no longer carry `BF_EVACUATED`, so it
// follows forwarding pointers), and neither does a mutator, so the
// fields done before the checkpoint stay done.

// SAFETY: the blocks named are old blocks that only the copier and the
// stopped-world GC read, and the copier is parked whenever a GC runs.
unsafe impl Send for Job {}

/// State shared by the collector and its copier thread.
pub(crate) struct Shared {
    layout: Layout,
    parking: Parking,
    job: Mutex<Option<Job>>,
    /// The copier's own to-space.
    pub(crate) to: Mutex<ToSpace>,
    /// Words it copied, and fields it updated.
    pub(crate) copied_words: AtomicUsize,
    pub(crate) updated: AtomicUsize,
    /// The places, in its update job's list, of the from-space blocks it
    /// passed over (See Note [The update pass is handed the whole list]).
    pub(crate) from_places: Mutex<Vec<usize>>,
    /// Its thread's CPU seconds (an `f64`'s bits), written when it ends.
    cpu_seconds: AtomicU64,
}

/// The copier: a thread of the collector's that copies the from-space
/// out and then updates the old generation's fields (See Note [A
/// copying-out cycle]); it parks between blocks whenever the collector
/// asks, as the nonmoving marker does (See Note [Pausing the marker] in
/// `concurrent_mark`).
pub(crate) struct Copier {
    pub(crate) shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Copier {
    /// A copier thread for `job`, copying into `to`, parked until
    /// `resume` (the world restarts: See `Collector::world_restarts`).
    pub(crate) fn start(job: Job, to: ToSpace, layout: Layout, request: SyncRequest) -> Copier {
        let shared = Arc::new(Shared {
            layout,
            parking: Parking::new("copier"),
            job: Mutex::new(Some(job)),
            to: Mutex::new(to),
            copied_words: AtomicUsize::new(0),
            updated: AtomicUsize::new(0),
            from_places: Mutex::new(Vec::new()),
            cpu_seconds: AtomicU64::new(0),
        });
        shared.parking.hold();
        let s = shared.clone();
        let thread = std::thread::Builder::new().name("gclab-copier".into()).spawn(move || {
            let _gone = s.parking.enter();
            s.run(&request);
            s.cpu_seconds.store(thread_cpu_seconds().to_bits(), Ordering::Release);
        }).expect("start the copier thread");
        Copier { shared, thread: Some(thread) }
    }

    /// Park it at its next checkpoint; true if its job is done.
    pub(crate) fn pause(&self) -> bool {
        self.shared.parking.pause()
    }

    /// CPU seconds its thread used (once stopped).
    pub(crate) fn cpu_seconds(&self) -> f64 {
        f64::from_bits(self.shared.cpu_seconds.load(Ordering::Acquire))
    }

    /// Let it go on, if parked (a drained copier waits for its next job).
    pub(crate) fn resume(&self) {
        self.shared.parking.resume();
    }

    /// Hand it its next job (it is drained), to start on `resume`.
    pub(crate) fn give(&self, job: Job) {
        *self.shared.job.lock().expect("copier job") = Some(job);
        self.shared.parking.hold();
    }

    /// End its thread (See `Parking::end`).
    pub(crate) fn stop(&mut self) {
        self.shared.parking.end(&mut self.thread);
    }
}

impl Drop for Copier {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn run(&self, request: &SyncRequest) {
        loop {
            if !self.parking.checkpoint() {
                return;
            }
            let job = self.job.lock().expect("copier job").take();
            match job {
                // SAFETY: the blocks are as `Job` says, and `each_block`
                // parks only between blocks.
                Some(Job::Copy(blocks)) => self.each_block(&blocks, |(bd, starts)| unsafe { self.copy_block(*bd, starts) }),
                Some(Job::Update { from, blocks, hand, hands, large }) => {
                    let mut from_places = Vec::new();
                    self.each_block(blocks.iter().enumerate().skip(hand).step_by(hands), |(place, &bd)| {
                        // SAFETY: an old block; its `BF_COPYING_OUT` flag
                        // stays as it is while the cycle runs.
                        if unsafe { bd.read() }.has(BF_COPYING_OUT) {
                            from_places.push(place);
                            return;
                        }
                        // SAFETY: as above.
                        unsafe { each_object(bd, self.layout, |p, _| _ = self.update_object(p, &from, 0..usize::MAX)) }
                    });
                    *self.from_places.lock().expect("the copier's from-space places") = from_places;
                    for bd in &large {
                        // SAFETY: a large object of the old generation: never
                        // moved (See Note [A large object is updated in pieces]).
                        let p = unsafe { bd.read() }.start;
                        self.each_piece(|at| self.update_object(p, &from, at..at + UPDATE_PIECE));
                    }
                }
                None => {}
            }
            self.parking.drained(request);
        }
    }

    /// Do `each` for every block, parking between blocks when asked.
    fn each_block<B>(&self, blocks: impl IntoIterator<Item = B>, mut each: impl FnMut(B)) {
        for bd in blocks {
            if !self.parking.checkpoint() {
                return;
            }
            each(bd);
        }
    }

    /// Do `piece(at)` for `at` = 0, `UPDATE_PIECE`, twice that, ..., while
    /// it says fields remain, parking between two pieces when asked.
    fn each_piece(&self, mut piece: impl FnMut(usize) -> bool) {
        let mut at = 0;
        while self.parking.checkpoint() && piece(at) {
            at += UPDATE_PIECE;
        }
    }

    /// Copy every object of from-space block `bd` not copied yet, walking
    /// it by its object `starts` (See Note [Walking a from-space beside
    /// the claimers]).
    ///
    /// # Safety
    /// `bd` is a from-space block of the running cycle, `starts` its
    /// object starts.
    unsafe fn copy_block(&self, bd: BlockPtr, starts: &LiveMap) {
        let mut to = self.to.lock().expect("the copier's to-space");
        // SAFETY: the caller's contract.
        let first = unsafe { bd.read() }.start;
        let mut at = 0;
        while let Some(w) = next_set_bit(|i| starts[i], at) {
            let before = to.copied_words;
            // SAFETY: an object of a swept old block, which only claimers
            // write (See Note [Copying out while the mutators run] in
            // `copy_out`).
            unsafe { copy_out(first.add(w), self.layout, &mut to) };
            self.copied_words.fetch_add(to.copied_words - before, Ordering::Relaxed);
            at = w + 1;
        }
    }

    /// Point every field of the object at `p` numbered `within` that
    /// leads into the from-space at the copy, unless a mutator stored
    /// something else there meanwhile; true if it has fields after them.
    fn update_object(&self, p: *mut Word, from: &HashSet<usize>, within: Range<usize>) -> bool {
        // SAFETY: `p` is an old object (or a copy) that no GC changes
        // while the copier runs; mutators may write its fields, which is
        // why each is swapped by compare-and-swap.
        unsafe {
            let header = load_header(p);
            if header == 0 || is_forwarded(header) {
                return false;
            }
            let info = info_of_header(header);
            let (slots, n) = self.layout.pointer_slots(p, info);
            let weak = self.layout.payload(p);
            let fields = (within.start.min(n)..within.end.min(n)).map(|i| slots.add(i));
            let weak_fields = [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER].map(|f| weak.add(f));
            let weak_fields = weak_fields.into_iter().filter(|_| info.closure_type == ClosureType::Weak && within.start == 0);
            for slot in fields.chain(weak_fields) {
                let v = load_field(slot);
                if v != 0 && from.contains(&(v & !(BLOCK_SIZE - 1))) {
                    let to = forward_target(load_header(v as *const Word)) as Word;
                    let cell = std::sync::atomic::AtomicUsize::from_ptr(slot);
                    if cell.compare_exchange(v, to, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                        self.updated.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            within.end < n
        }
    }
}
