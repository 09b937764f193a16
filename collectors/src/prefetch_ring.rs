//! The prefetch ring: objects popped off the scan stack wait in a small
//! ring before they are scanned, and the objects their fields point to are
//! prefetched as they enter it (See Note [Prefetching a marking]).
//!
//! Invariant kept: every object put in the ring comes out of it exactly
//! once, oldest first; the ring never holds more than `RING` objects.
//!
//! It also keeps the prefetch hint itself (`prefetch`), which the passes
//! over block descriptors in a pause use too (See Note [A pass over the
//! descriptors prefetches]), as does the scan of an array's cards (See
//! Note [A card's elements prefetched]).

use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::{Word, BLOCK_SIZE};
use gclab_core::object::{info_of_header, is_forwarded, load_header, Layout};

// Note [Prefetching a marking]
// ----------------------------------------
// A marking that leaves objects where they lie reads the header of every
// object a field points to, to mark it and learn its size. Where the heap
// is laid out in the order the marking visits it (a heap a copying GC or a
// compaction packed), the processor's own prefetcher brings those headers
// in; where the mutator left live objects scattered among dead ones (a
// mark-sweep or Immix old generation after many cycles), nearly every one
// is a cache miss that the marking waits for: fibheaps under mark-sweep
// spent 86% of its scan loop's samples on that one load.
//
// So objects popped off the scan stack wait in a ring of `RING` before
// they are scanned, and the targets of their pointer fields are
// prefetched as they go in: by the time an object comes out, the headers
// its scan will read are on their way (Cher, Hosking and Vijaykumar,
// "Software prefetching for mark-sweep garbage collection", ASPLOS 2004;
// Garner, Blackburn and Frampton, "Effective prefetch for mark-sweep
// garbage collection", ISMM 2007). Only objects of fixed layout are
// prefetched for (an array's elements are many and its scan goes card by
// card); others pass through the ring unprefetched.
//
// Measured (2-core machine, `scripts/ab -n 3`, the marking's major GC
// time with the ring always in use over without it): fibheaps 400000
// under mark-sweep at `-M73m` 0.67x (0.65-0.70), under immix 0.84x; lru
// 500000 4000000 0.93x; but binary-trees 19 1.19x under mark-sweep, 1.12x
// under immix, 1.13x under compacting, and gcbench 18 1.15x. So the ring
// is used only where the marking is scattered (See Note [When the marking
// prefetches]). Rings of 2 and 4 hid less of fibheaps' misses (0.78x and
// 0.74x) and cost binary-trees more (1.34x and 1.25x), and prefetching
// only the children outside the object's block changed neither.
// Prefetching the children of the object a few places below the top of
// the stack, with no ring, cost binary-trees 1.28-1.45x and did not help
// fibheaps: below the top of a depth-first stack is not what comes next.

// Note [When the marking prefetches]
// ----------------------------------------
// Why the ring costs binary-trees a fifth of its marking is not settled:
// under cachegrind it adds 2.7% to the GC's instructions and no first-level
// misses, so the loss is in what cachegrind does not model (the
// processor's own prefetcher, which a tree laid out in allocation order
// feeds well and an interleaved order feeds worse, is the likely part).
// What tells the two kinds of heap apart is cheap to see: how often an
// object popped off the scan stack lies within a block (4 KiB) of the one
// popped before. Counted over whole runs under mark-sweep: binary-trees
// 19 30-50% of pops, gcbench 18 30-45%, lru 30-70%, fibheaps 0.3%.
//
// A first version judged every pop (its distance from the pop before, in
// windows of 256 pops) inside the scan loop. With the ring off it added
// 2.0% to mark-sweep's GC instructions on binary-trees 16, and on the
// clock it cost compacting's major GCs on binary-trees 20 1.13-1.15x
// (5 rounds, twice), for reasons cachegrind does not show: the scan loop
// is that sensitive. So the loop over the scan stack is again exactly
// what it was, and the judging rides on its existing test of every 32nd
// scan (when it offers work to idle threads): a sample compares the
// object just scanned with the object now on top of the stack, the next
// to be popped. Every 64 samples (2,048 scans), the ring is turned on if
// fewer than one sample in eight was near, and off otherwise; the ring's
// own loop (`scavenge::scan_through_ring`) is a function of its own, left
// for the plain loop once the samples turn it off and the ring is empty.
// A marking starts without it. Measured after (2-core, `scripts/ab`, the
// major GCs over the binary before the ring): compacting on
// binary-trees 20 1.000x (0.98-1.02, 5 rounds); fibheaps 400000 at
// `-M73m` 0.69x under mark-sweep (0.67-0.71, 5 rounds), 0.83x under immix
// (0.82-0.93, 3); lru 500000 4000000 0.97x under mark-sweep, 1.00x under
// compacting; gcbench 18 0.97x; binary-trees 19 1.05x under mark-sweep
// (0.97-1.08) and immix (1.00-1.07), where the samples turn the ring on
// for a few percent of the objects (binary-trees 20: 4.9 million of about
// 80 million). GC instructions, binary-trees 16 under cachegrind:
// mark-sweep 1.007x, copying 1.000x. One near sample in sixteen instead
// of eight turned the ring on for fewer of fibheaps' objects (1.1 million
// against 2.0 million) and cost it 1.17x, and binary-trees was no faster.
//
// A sample is near only if the scanned object's first child lies near it
// too (when it has a pointer field to a heap object: the child's header,
// which that scan has just read, says whether it is static). The next
// object alone misjudged lru once byte arrays stopped going on the stack
// (See Note [A leaf is marked, not pushed] in `evacuate`): its stack then
// held the cache's entries, side by side in memory, while each entry's
// value lies far from it, so the samples said near and the ring stayed
// off for the very loads it hides (prefetched objects, lru 200000
// 1000000 128 under compacting: 0 of 217,000 marked entries; with the
// child 217,022). lru 500000 4000000 under compacting, the marking's
// median over 9 alternated rounds: 92.1 ms with the next object alone,
// 80.7 with the child too, 80.9 with the ring forced on. The ring's use
// elsewhere moved little (binary-trees 18 under compacting 316,000 ->
// 343,000 of 45.8 million scans, under mark-sweep 743,000 -> 747,000;
// fibheaps 200000 under immix 443,000 -> 576,000), and the GC's
// instructions by 1.001x on binary-trees 17 and fibheaps 100000.

/// How many objects wait between being popped and being scanned.
pub const RING: usize = 8;

/// Samples judged at a time (one every 32 scans: See `sample`), and how
/// few of them may be near for the marking to count as scattered (See
/// Note [When the marking prefetches]).
const SAMPLES: u32 = 64;
const SCATTERED_BELOW: u32 = SAMPLES / 8;

/// Which of a marking's samples say whether it is scattered (See Note
/// [Judging a depth-first marking]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// Every sample (See Note [When the marking prefetches]).
    EverySample,
    /// Only those where the marking goes back up: the object on top of
    /// the stack is not the scanned object's own first child.
    Backtracks,
}

/// The smallest generation whose marking judges its backtracks (See Note
/// [Judging a depth-first marking]).
const JUDGED_FROM_BYTES: usize = 4 << 20;

impl Judge {
    /// The judge of a marking by a GC that copies depth first or not, of a
    /// generation holding about `bytes` of objects.
    pub fn of_marking(depth_first: bool, bytes: usize) -> Judge {
        if depth_first && bytes >= JUDGED_FROM_BYTES {
            Judge::Backtracks
        } else {
            Judge::EverySample
        }
    }
}

// Note [Judging a depth-first marking]
// ----------------------------------------
// A GC that copies depth first (See Note [Copying depth first] in
// `copy_order`) scans its copies and its marked objects fields last to
// first, so after most scans the object on top of the stack is the
// scanned object's own first child, which depth-first copying put right
// behind it. A sample of that pair reads near whatever the rest of the
// heap is like, and the ring stayed off: immix, copying depth first,
// put no object through it on fibheaps 400000, in generations (`-M84m`)
// or whole-heap (`-G1 -M78m`, where breadth-first copying had put 2.8
// million of 8.1 million through it and mark-sweep 6.4 of 8.4). Yet its
// markings there are scattered: forcing the ring on took its major GCs
// to 0.77-0.83x (7 rounds twice) and whole-heap immix's GCs to 0.80x.
//
// So such a marking counts only the samples where it goes back up (the
// top of the stack is not the scanned object's first child, or the stack
// is empty): where the next object lies after the scanned object's
// subtree is what says whether the heap is laid out as the marking walks
// it. Judged this way, binary-trees, gcbench and lru put the same objects
// through the ring as before (none, none, and lru's 1.0 million).
//
// A small generation keeps the judge of every sample. power's old
// generation is about 1 MiB, and its backtracks do land far (the new
// judge put 1.5 million of its objects through the ring, against 0.7),
// but its marking finds them in the cache the mutator left warm, and the
// ring's own cost showed instead: compacting's major GCs on power 1.28x
// (7 rounds; 1.16x with a threshold of one half, which put 3.0 million
// through). hash, at 7.5 MiB, moved 1.79 -> 1.85 million objects and
// 0.95x and 1.02x (two runs); fibheaps' generation is 25 MiB. The line
// is drawn at 4 MiB, several times a core's second-level cache here (512
// KiB): above it a scattered marking misses to memory. Measured with the
// line (7 rounds, against the binary before): whole-heap immix's GCs on
// fibheaps 0.83x (0.62-0.95); immix's and compacting's major GCs on
// fibheaps inside this machine's noise (spreads of 0.7-1.4).

/// Objects popped off a scan stack, waiting to be scanned, and whether the
/// marking is scattered enough for them to wait.
pub struct PrefetchRing {
    slots: [*mut Word; RING],
    /// Where the next object goes (and the oldest is, once full).
    head: usize,
    held: usize,
    /// Is the ring in use (the last samples scattered)?
    prefetching: bool,
    samples: u32,
    near: u32,
    /// Objects that went through the ring.
    pub entered: usize,
    /// Which samples count.
    judge: Judge,
}

impl PrefetchRing {
    /// An empty ring, not in use, whose samples `judge` picks.
    pub fn new(judge: Judge) -> PrefetchRing {
        PrefetchRing { slots: [std::ptr::null_mut(); RING], head: 0, held: 0, prefetching: false, samples: 0, near: 0, entered: 0, judge }
    }

    /// Is the ring in use?
    #[inline(always)]
    pub fn prefetching(&self) -> bool {
        self.prefetching
    }

    /// A sample, taken once every 32 scans: `p`, just scanned, `next`,
    /// the object now on top of the scan stack, and `child`, the heap
    /// object `p`'s first pointer field points to, if any. Every `SAMPLES`
    /// samples, decide whether the ring is used (See Note [When the
    /// marking prefetches]).
    #[inline]
    pub fn sample(&mut self, p: *mut Word, next: Option<*mut Word>, child: Option<*mut Word>) {
        if self.judge == Judge::Backtracks && (next.is_none() || next == child) {
            // See Note [Judging a depth-first marking].
            return;
        }
        let near = |q: *mut Word| (q as usize).abs_diff(p as usize) < BLOCK_SIZE;
        self.near += (next.is_some_and(near) && child.is_none_or(near)) as u32;
        self.samples += 1;
        if self.samples == SAMPLES {
            self.prefetching = self.near < SCATTERED_BELOW;
            self.samples = 0;
            self.near = 0;
        }
    }

    /// Put `p` in (its children prefetched, See Note [Prefetching a
    /// marking]); returns the oldest object, to scan now, once the ring is
    /// full.
    ///
    /// # Safety
    /// `p` is a live heap object whose fields hold object addresses.
    #[inline(always)]
    // SAFETY: `p`'s header and fields are read only as the caller's contract allows.
    pub unsafe fn exchange(&mut self, layout: Layout, p: *mut Word) -> Option<*mut Word> {
        // SAFETY: the caller's contract.
        unsafe { prefetch_children(layout, p) };
        self.entered += 1;
        let out = self.slots[self.head];
        self.slots[self.head] = p;
        self.head = (self.head + 1) % RING;
        if self.held < RING {
            self.held += 1;
            return None;
        }
        Some(out)
    }

    /// Take the oldest object out, once the scan stack is empty.
    #[inline(always)]
    pub fn take_oldest(&mut self) -> Option<*mut Word> {
        if self.held == 0 {
            return None;
        }
        let i = (self.head + RING - self.held) % RING;
        self.held -= 1;
        Some(self.slots[i])
    }
}

/// The heap object that the first pointer field of `p` points to, for a
/// sample (See Note [When the marking prefetches]): None if `p` has no
/// fixed layout or no pointer field, or the field points at a static
/// object.
///
/// # Safety
/// `p` is an object just scanned, whose fields hold object addresses
/// whose headers that scan read.
#[inline]
// SAFETY: reads `p`'s header and first field, and the header of the object it points to, which the caller's contract allows.
pub unsafe fn first_child(layout: Layout, p: *mut Word) -> Option<*mut Word> {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { load_header(p) });
    if !info.closure_type.has_fixed_layout() || info.ptrs == 0 {
        return None;
    }
    // SAFETY: the object has a pointer field, which holds an object's address.
    let q = unsafe { *layout.payload(p) } as *mut Word;
    // SAFETY: as above; the scan that just ended read this header.
    let header = unsafe { load_header(q) };
    (!is_forwarded(header) && !info_of_header(header).is_static()).then_some(q)
}

/// Prefetch the objects that the pointer fields of `p` point to, if `p`
/// has a fixed layout.
///
/// # Safety
/// `p` is a live heap object whose fields hold object addresses.
#[inline(always)]
// SAFETY: reads `p`'s header and fields, which the caller's contract allows.
unsafe fn prefetch_children(layout: Layout, p: *mut Word) {
    // SAFETY: the caller's contract: `p`'s header and fields may be read.
    let info = info_of_header(unsafe { load_header(p) });
    if !info.closure_type.has_fixed_layout() {
        return;
    }
    let fields = layout.payload(p);
    for i in 0..info.ptrs as usize {
        // SAFETY: `i` is below the object's pointer count.
        prefetch(unsafe { *fields.add(i) } as *const u8);
    }
}

// Note [A pass over the descriptors prefetches]
// ----------------------------------------
// A concurrent marking's pauses still pass over the old generation's
// blocks: the pause that begins it flags and attaches every block to the
// snapshot's bitmap (`MarkBitmap::snapshot`), and the sync that ends it
// flags every marked block unswept (`LineSweep::begin`). Each writes one
// 64-byte descriptor per block, and the blocks come in the generation's
// order, not the descriptors', so each is a line from memory that the
// processor's prefetcher cannot guess: 12.0 and 10.3 ns a block
// (binary-trees 20 under `concurrent-copying`, timed in the pause, the
// mean over three runs' 36 passes each, 2-core machine). So each pass asks
// for the descriptor `DESCRIPTORS_AHEAD` blocks on as it takes one: 9.45
// and 7.86 ns a block (16 ahead: 10.3 and 8.7). (The first pass is also
// the one a major GC that marks in place makes, `MarkBitmap::keep_in_place`,
// where it is a small part of the pause.) The rest is the memory's
// bandwidth: a line read and written back for every block. The pause's
// second pass, which gives the snapshot's blocks `BF_EVACUATED` back after
// its trace, reads descriptors the first brought into the cache, 2.5 ns a
// block, and prefetching there cost it 1 ns. Removing these passes, not
// shortening them, needs the snapshot and the unswept state kept off the
// descriptors (GHC's nonmoving collector hands its filled segments to the
// mark thread for their per-segment snapshot work, for the same reason).

/// Blocks ahead that a pass over their descriptors asks for (See Note [A
/// pass over the descriptors prefetches]).
const DESCRIPTORS_AHEAD: usize = 32;

/// In a pass over `blocks`' descriptors, at the `i`th: ask for the
/// descriptor `DESCRIPTORS_AHEAD` places on.
#[inline(always)]
pub(crate) fn prefetch_descriptor_ahead(blocks: &[BlockPtr], i: usize) {
    if let Some(ahead) = blocks.get(i + DESCRIPTORS_AHEAD) {
        prefetch(ahead.0 as *const u8);
    }
}

// Note [A card's elements prefetched]
// ----------------------------------------
// A GC scans a large array card by card (128 elements), evacuating each
// element, and `evacuate` reads the header of every element's object
// that it may copy; a marking reads the header of every one. Where the
// elements point far apart (lru's cache, a 500,000-slot array of entries
// stored in the order the clock hand evicts them), each header is a miss
// that the scan waits for: `perf` put 53% of copying's
// `scan_array_cards` samples on that one load on lru 500000 4000000 128,
// and 65% of `nonmoving:mark=sync`'s, whose minor GCs spent twice the
// samples there. So the scan of a card asks for the object of the element
// `ELEMENTS_AHEAD` places on, in the direction it scans, within the card
// (the next card may be clean). An array of one card (gcbench's two-element
// tree nodes) is scanned without it: its elements are few, and the test
// per element cost gcbench 16's GCs 3.1% more instructions under
// copying. Every element is asked for, an old object too, which a young
// GC leaves without a look (See Note [The block before the object] in
// `evacuate`): asking only for the objects in blocks the GC empties (the
// block's summary byte read first) executed 9.7% more GC instructions on
// lru 100000 800000 128 where asking for all executed 4.4% more, and on
// the clock it was the slower of the two (minor GCs 1.10x, 0.86-1.38, 9
// rounds, 8 elements ahead). 16 ahead against 8: minor GCs 0.92x
// (0.80-1.12, 9 rounds).
//
// Measured (2-core machine, a noisy day: `scripts/ab`, the binary before
// against after, lru 500000 4000000 128, medians and the rounds'
// spread): minor GCs 0.827x under copying (0.70-1.17, 15 rounds), 0.878x
// under nonmoving (0.69-1.24, 15), 0.828x under mark-sweep (0.72-1.06,
// 7), 0.997x under compacting (0.73-1.31, 7), major GCs 0.95-1.05x;
// large-arrays under copying, GC time 0.822x (0.71-1.18, 7). GC
// instructions (cachegrind): lru 100000 800000 128 1.045x, large-arrays
// 1.038x, mutable-graph 1.044x, gcbench 16 1.012x, binary-trees 16 (no
// arrays: placement) 0.992x.
//
// Tried and left out: in a marking, scanning the objects a card marked as
// the card ends (they were pushed on the scan stack, and are popped long
// after the array's other cards have pushed theirs, when their headers
// are out of the cache again), with their children prefetched first.
// Under cachegrind compacting's GC on lru 500000 4000000 128 executed
// 0.985x the instructions with 0.95x the first-level misses, but on the
// clock its major GCs read 0.93x, 0.98x and 1.03x in three runs of 9-13
// rounds (mark-sweep's 1.05x, immix's 0.93x): no gain above the noise for
// a scan nested in the array's, with the thread's state saved around it.

/// How many elements ahead of the one it evacuates a card's scan asks for
/// an element's object (See Note [A card's elements prefetched]).
pub(crate) const ELEMENTS_AHEAD: usize = 16;

/// Ask for the object that the array element at `slot` points to.
///
/// # Safety
/// `slot` is an element of a live array.
#[inline(always)]
// SAFETY: reads one element of an array, which the caller's contract allows.
pub(crate) unsafe fn prefetch_element(slot: *mut Word) {
    // SAFETY: the caller's contract.
    prefetch(unsafe { *slot } as *const u8);
}

/// Ask for the cache line at `q`; a hint, never a fault.
#[inline(always)]
pub(crate) fn prefetch(q: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch does not access memory architecturally: any
    // address, mapped or not, is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(q as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = q;
}

#[cfg(test)]
mod tests {
    use super::*;

    static LINK: gclab_core::info::InfoTable = gclab_core::info::InfoTable::constr("Link", "List", "Test", 1, 0);

    #[test]
    fn objects_come_out_once_each_oldest_first() {
        let layout = Layout::new(false);
        // A chain of one-field objects, each pointing at the next (the
        // last at itself), so that every exchange prefetches a real
        // address.
        let mut objects: Vec<[Word; 2]> = (0..20).map(|_| [LINK.header(), 0]).collect();
        let ptrs: Vec<*mut Word> = objects.iter_mut().map(|o| o.as_mut_ptr()).collect();
        for (i, o) in objects.iter_mut().enumerate() {
            o[1] = ptrs[(i + 1).min(19)] as Word;
        }
        let mut ring = PrefetchRing::new(Judge::EverySample);
        let mut out = Vec::new();
        for &p in &ptrs {
            // SAFETY: each pointer is an object whose field is an object.
            out.extend(unsafe { ring.exchange(layout, p) });
        }
        assert_eq!(out.len(), 20 - RING);
        while let Some(p) = ring.take_oldest() {
            out.push(p);
        }
        assert_eq!(out, ptrs);
        assert_eq!(ring.take_oldest(), None);
    }

    /// `n` samples, each a scanned object and the next `step` bytes on.
    fn sample_run(ring: &mut PrefetchRing, step: usize, n: u32) {
        for i in 0..n as usize {
            let p = ((1 << 30) + i * (1 << 20)) as *mut Word;
            ring.sample(p, Some(p.wrapping_byte_add(step)), None);
        }
    }

    #[test]
    fn scattered_samples_turn_the_ring_on_and_near_ones_off() {
        let mut ring = PrefetchRing::new(Judge::EverySample);
        assert!(!ring.prefetching(), "a marking starts without the ring");
        sample_run(&mut ring, 1 << 20, SAMPLES - 1);
        assert!(!ring.prefetching(), "decided only once every sample is in");
        sample_run(&mut ring, 1 << 20, 1);
        assert!(ring.prefetching());
        // One near sample in eight is enough to turn it off.
        sample_run(&mut ring, 64, SCATTERED_BELOW);
        sample_run(&mut ring, 1 << 20, SAMPLES - SCATTERED_BELOW);
        assert!(!ring.prefetching());
        // An empty stack after the scan counts as far.
        for _ in 0..SAMPLES {
            ring.sample(std::ptr::null_mut(), None, None);
        }
        assert!(ring.prefetching());
    }

    #[test]
    fn a_far_first_child_makes_a_near_sample_far() {
        let mut ring = PrefetchRing::new(Judge::EverySample);
        let p = (1usize << 30) as *mut Word;
        let (near, far) = (p.wrapping_byte_add(64), p.wrapping_byte_add(1 << 20));
        // The next object near, the child far: scattered.
        for _ in 0..SAMPLES {
            ring.sample(p, Some(near), Some(far));
        }
        assert!(ring.prefetching(), "a far child counts the sample far");
        // The next object and the child near, or no child: not scattered.
        for i in 0..SAMPLES {
            ring.sample(p, Some(near), (i % 2 == 0).then_some(near));
        }
        assert!(!ring.prefetching(), "a near child, or none, leaves the sample near");
    }

    #[test]
    fn a_depth_first_marking_is_judged_where_it_goes_back_up() {
        let p = (1usize << 30) as *mut Word;
        let (child, far) = (p.wrapping_byte_add(24), p.wrapping_byte_add(1 << 20));
        // Every scan followed by its own first child, near: every sample
        // reads near, and the ring stays off however the marking jumps
        // when it goes back up (one sample in four here).
        let scans = |ring: &mut PrefetchRing| {
            for i in 0..4 * SAMPLES {
                if i % 4 == 0 {
                    ring.sample(p, Some(far), None);
                } else {
                    ring.sample(p, Some(child), Some(child));
                }
            }
        };
        let mut every = PrefetchRing::new(Judge::EverySample);
        scans(&mut every);
        assert!(!every.prefetching(), "the first children hide the far backtracks");
        let mut backtracks = PrefetchRing::new(Judge::Backtracks);
        scans(&mut backtracks);
        assert!(backtracks.prefetching(), "only the backtracks count, and they are far");
        // Near backtracks turn it off again; first children alone decide nothing.
        for _ in 0..SAMPLES {
            backtracks.sample(p, Some(child), None);
        }
        assert!(!backtracks.prefetching());
        for _ in 0..4 * SAMPLES {
            backtracks.sample(p, Some(far), Some(far));
        }
        assert!(!backtracks.prefetching(), "a first child, however far, is no backtrack");
    }

    #[test]
    fn only_a_large_generation_copied_depth_first_is_judged_by_its_backtracks() {
        assert_eq!(Judge::of_marking(true, 25 << 20), Judge::Backtracks);
        assert_eq!(Judge::of_marking(true, 1 << 20), Judge::EverySample, "a small generation is marked out of the cache");
        assert_eq!(Judge::of_marking(false, 25 << 20), Judge::EverySample);
    }
}
