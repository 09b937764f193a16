//! The prefetch ring: objects popped off the scan stack wait in a small
//! ring before they are scanned, and the objects their fields point to are
//! prefetched as they enter it (See Note [Prefetching a marking]).
//!
//! Invariant kept: every object put in the ring comes out of it exactly
//! once, oldest first; the ring never holds more than `RING` objects.

use gclab_core::constants::{Word, BLOCK_SIZE};
use gclab_core::object::{info_of_header, load_header, Layout};

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
// So the pops are judged in windows of `WINDOW`: one window in
// `PROBE_EVERY` counts the near pops, and the windows after it use the
// ring if fewer than one in eight were near. A marking starts without it.
// Turning it off leaves the objects in the ring until the stack is empty,
// as when it is on. Cost where the ring stays off: binary-trees 16 under
// mark-sweep, 2.0% more GC instructions (cachegrind), within the clock's
// noise; copying, which marks nothing in place, is unchanged (1.000x).
// binary-trees 19 and gcbench 18 never turn it on; fibheaps 400000 uses it
// in 55% of its windows, lru 500000 4000000 in a third.

/// How many objects wait between being popped and being scanned.
pub const RING: usize = 8;

/// Pops judged per window: how many, and how few of them may be near the
/// pop before for the marking to count as scattered (See Note [When the
/// marking prefetches]).
const WINDOW: u32 = 256;
const SCATTERED_BELOW: u32 = WINDOW / 8;
/// One window in this many probes; the others keep its decision.
const PROBE_EVERY: u32 = 4;

/// Objects popped off a scan stack, waiting to be scanned, and whether the
/// marking is scattered enough for them to wait.
pub struct PrefetchRing {
    slots: [*mut Word; RING],
    /// Where the next object goes (and the oldest is, once full).
    head: usize,
    held: usize,
    /// Is the ring in use (the last window's pops scattered)?
    prefetching: bool,
    last: usize,
    pops: u32,
    near: u32,
    windows: u32,
    /// Objects that went through the ring.
    pub entered: usize,
}

impl Default for PrefetchRing {
    fn default() -> PrefetchRing {
        PrefetchRing { slots: [std::ptr::null_mut(); RING], head: 0, held: 0, prefetching: false, last: 0, pops: 0, near: 0, windows: 0, entered: 0 }
    }
}

impl PrefetchRing {
    /// `p`, just popped: returns the object to scan now, `p` itself while
    /// the marking is not scattered, otherwise the ring's oldest once it
    /// is full (`p` waiting in it, its children prefetched).
    ///
    /// # Safety
    /// `p` is a live heap object whose fields hold object addresses.
    #[inline(always)]
    // SAFETY: the caller's contract passes to `exchange`.
    pub unsafe fn pass(&mut self, layout: Layout, p: *mut Word) -> Option<*mut Word> {
        self.observe(p as usize);
        if !self.prefetching {
            return Some(p);
        }
        // SAFETY: the caller's contract.
        unsafe { self.exchange(layout, p) }
    }

    /// In a window that probes, count whether `p` lies within a block of
    /// the pop before it; at the end of a window, decide whether the next
    /// ones prefetch (See Note [When the marking prefetches]).
    #[inline(always)]
    fn observe(&mut self, p: usize) {
        self.pops += 1;
        if self.windows.is_multiple_of(PROBE_EVERY) {
            self.near += (p.abs_diff(self.last) < BLOCK_SIZE) as u32;
            self.last = p;
        }
        if self.pops == WINDOW {
            self.end_window();
        }
    }

    #[cold]
    fn end_window(&mut self) {
        if self.windows.is_multiple_of(PROBE_EVERY) {
            self.prefetching = self.near < SCATTERED_BELOW;
            self.near = 0;
        }
        self.windows = self.windows.wrapping_add(1);
        self.pops = 0;
    }

    /// Put `p` in (its children prefetched, See Note [Prefetching a
    /// marking]); returns the oldest object, to scan now, once the ring is
    /// full.
    ///
    /// # Safety
    /// `p` is a live heap object whose fields hold object addresses.
    #[inline(always)]
    // SAFETY: `p`'s header and fields are read only as the caller's contract allows.
    unsafe fn exchange(&mut self, layout: Layout, p: *mut Word) -> Option<*mut Word> {
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

/// Ask for the cache line at `q`; a hint, never a fault.
#[inline(always)]
fn prefetch(q: *const u8) {
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
        let mut ring = PrefetchRing::default();
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

    /// Pops `n` addresses `step` bytes apart from `base` through the
    /// detector alone.
    fn observe_run(ring: &mut PrefetchRing, base: usize, step: usize, n: usize) {
        for i in 0..n {
            ring.observe(base + i * step);
        }
    }

    #[test]
    fn scattered_pops_turn_the_ring_on_and_near_ones_off() {
        let mut ring = PrefetchRing::default();
        assert!(!ring.prefetching, "a marking starts without the ring");
        // Each pop a megablock from the last: scattered.
        observe_run(&mut ring, 1 << 30, 1 << 20, WINDOW as usize);
        assert!(ring.prefetching);
        // Windows that do not probe keep the decision, near pops or not.
        observe_run(&mut ring, 1 << 30, 64, (WINDOW * (PROBE_EVERY - 1)) as usize);
        assert!(ring.prefetching);
        // The next probe sees pops 64 bytes apart: in marking order.
        observe_run(&mut ring, 1 << 30, 64, WINDOW as usize);
        assert!(!ring.prefetching);
    }

    #[test]
    fn while_the_ring_is_off_each_pop_is_scanned_at_once() {
        let layout = Layout::new(false);
        let mut object = [LINK.header(), 0];
        let p = object.as_mut_ptr();
        // SAFETY: `p` points at the two words of `object`.
        unsafe { *p.add(1) = p as Word };
        let mut ring = PrefetchRing::default();
        // SAFETY: `p` is an object whose field points at itself.
        assert_eq!(unsafe { ring.pass(layout, p) }, Some(p));
        assert_eq!(ring.take_oldest(), None);
    }
}
