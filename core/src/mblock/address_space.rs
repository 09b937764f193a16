//! The heap's address space: one range of addresses reserved from the OS
//! for the heap, in which every megablock of the heap is mapped and
//! nothing else ever is. The reservation has no access and holds no
//! memory; megablocks are committed inside it as the heap grows, and
//! released back into it (their memory dropped, their addresses kept)
//! when the heap frees a group. GHC reserves its heap's address space the
//! same way (`USE_LARGE_ADDRESS_SPACE`).
//!
//! What it buys: "is this address the heap's?" is a subtraction and a
//! compare (`HeapRange::holds`, GHC's `HEAP_ALLOCED`), which the GC asks
//! of every pointer it evacuates (See Note [The block before the object]
//! in the collectors' `evacuate`).
//!
//! Invariant kept: every address `take` hands out lies inside `range()`,
//! and nothing but this module maps anything there, so no static object
//! (the program's data, or one leaked for the run) ever lies inside it.
//!
//! Note [Reserving the heap's address space]
//! ----------------------------------------
//! The reservation is made when the heap maps its first megablock: 1 TiB,
//! GHC's default, or half as much until the OS grants it (under valgrind,
//! which grants at most 32 GiB, a smaller one). Reserving costs nothing but
//! address space (`PROT_NONE`, `MAP_NORESERVE`: no commit charge either),
//! so a process holds 127 heaps at once before a reservation shrinks. A
//! heap can never grow past its reservation: a request beyond it fails as
//! heap exhaustion does, naming the bytes asked for.
//!
//! The reservation's first bytes are not the heap's: they hold one summary
//! byte per block of the whole reservation (a 4,096th of it, rounded up to
//! a huge page), committed as the heap grows into the blocks they describe
//! (See Note [Block summaries] in `bdescr`). So the summary of the block at
//! any heap address is a subtraction, a shift and a load from the range's
//! base, which the GC threads already hold for `holds`.
//!
//! Megablocks are taken from above the summaries up, so the heap
//! lies in one mapping, each megablock beside the last (which is what huge
//! pages need: a whole aligned 2 MiB range, See Note [Huge pages for the
//! heap] in `mblock`). A freed group's range goes back on a list that
//! later requests are fitted into first.
//!
//! Before, each megablock was its own `mmap`, below the last where the
//! kernel granted it. The GC then had no cheap way to tell a heap object
//! from a static one without reading the object, and tried a map of the
//! heap's megablocks instead (a 64 GiB chunk's bitmap per table entry):
//! 17 instructions a pointer, GC instructions 1.09-1.26x on binary-trees
//! 16, fibheaps and lru (`scripts/ab --instructions`), where the range
//! test costs four.

use super::{os, HUGE_PAGE};
use crate::constants::BLOCK_SHIFT;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};

/// The largest reservation asked for: 1 TiB.
const LARGEST: usize = 1 << 40;

/// The smallest reservation taken before giving up: 64 MiB.
const SMALLEST: usize = 1 << 26;

/// The heap's reserved addresses: what is taken, what was released.
#[derive(Debug)]
pub struct AddressSpace {
    /// The reservation's first address, aligned to a huge page.
    base: usize,
    /// Its bytes.
    size: usize,
    /// Bytes from `base` handed out at least once.
    next: usize,
    /// Released ranges, base -> bytes, neighbours merged.
    released: BTreeMap<usize, usize>,
    /// Bytes of the block summaries at `base` committed so far (See Note
    /// [Block summaries] in `bdescr`); they only grow.
    summaries_committed: usize,
}

/// The block summaries' share of a reservation of `size` bytes: a byte
/// per block, rounded up to a huge page so that the heap after it stays
/// aligned to one.
fn summary_bytes(size: usize) -> usize {
    (size >> BLOCK_SHIFT).next_multiple_of(HUGE_PAGE)
}

/// The memory page, the unit the summaries are committed in.
const PAGE: usize = 4096;

/// The range of addresses a heap's megablocks lie in: a copy the GC
/// threads keep, asked of every pointer (See `AddressSpace`).
#[derive(Debug, Clone, Copy)]
pub struct HeapRange {
    base: usize,
    size: usize,
}

impl HeapRange {
    /// Does `addr` lie in the heap's reserved range? True of every heap
    /// object, false of every static one.
    #[inline(always)]
    pub fn holds(self, addr: usize) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }

    /// Where the summary byte of the block holding `addr` lies (See Note
    /// [Block summaries] in `bdescr`).
    #[inline(always)]
    pub fn summary_slot(self, addr: usize) -> *mut u8 {
        (self.base + (addr.wrapping_sub(self.base) >> BLOCK_SHIFT)) as *mut u8
    }

    /// The summary byte of the block holding `addr`.
    ///
    /// # Safety
    /// `addr` lies in a megablock the heap has taken (`holds` is not
    /// enough: the summaries of blocks never taken are not committed).
    #[inline(always)]
    // SAFETY: the caller's contract above.
    pub unsafe fn summary(self, addr: usize) -> u8 {
        // SAFETY: the slot lies in the summaries committed for every
        // megablock taken (`AddressSpace::take`); written by descriptor
        // setters on other GC threads, hence atomic.
        unsafe { AtomicU8::from_ptr(self.summary_slot(addr)).load(Ordering::Acquire) }
    }
}

impl AddressSpace {
    /// Reserve the heap's address space (See Note [Reserving the heap's
    /// address space]); None if the OS grants not even the smallest.
    pub fn reserve() -> Option<AddressSpace> {
        let mut size = LARGEST;
        while size >= SMALLEST {
            if let Some(got) = os::reserve(size + HUGE_PAGE) {
                let base = got.next_multiple_of(HUGE_PAGE);
                let (head, tail) = (base - got, got + HUGE_PAGE - base);
                if head > 0 {
                    os::unmap(got, head);
                }
                if tail > 0 {
                    os::unmap(base + size, tail);
                }
                return Some(AddressSpace { base, size, next: summary_bytes(size), released: BTreeMap::new(), summaries_committed: 0 });
            }
            size /= 2;
        }
        None
    }

    /// The reserved range.
    pub fn range(&self) -> HeapRange {
        HeapRange { base: self.base, size: self.size }
    }

    /// `bytes` of zeroed memory at an address aligned to `align` (a power
    /// of two, at least a megablock): fitted into a released range if one
    /// holds it, else past everything handed out; None when the
    /// reservation is full or the OS refuses the memory.
    pub fn take(&mut self, bytes: usize, align: usize) -> Option<usize> {
        let start = match self.fit_released(bytes, align) {
            Some(start) => start,
            None => self.take_fresh(bytes, align)?,
        };
        if !os::commit(start, bytes) {
            self.put_back(start, bytes);
            return None;
        }
        if !self.commit_summaries(start + bytes) {
            self.release(start, bytes);
            return None;
        }
        Some(start)
    }

    /// Commit the block summaries of every block below `end`, if they are
    /// not yet; false if the OS refuses the memory.
    fn commit_summaries(&mut self, end: usize) -> bool {
        let needed = ((end - self.base) >> BLOCK_SHIFT).next_multiple_of(PAGE);
        if needed <= self.summaries_committed {
            return true;
        }
        if !os::commit(self.base + self.summaries_committed, needed - self.summaries_committed) {
            return false;
        }
        self.summaries_committed = needed;
        true
    }

    /// Release `bytes` at `start`, taken before: their memory goes back to
    /// the OS, their addresses stay reserved for a later `take`.
    pub fn release(&mut self, start: usize, bytes: usize) {
        os::uncommit(start, bytes);
        self.put_back(start, bytes);
    }

    /// An aligned start inside a released range that holds `bytes`, cut
    /// out of it.
    fn fit_released(&mut self, bytes: usize, align: usize) -> Option<usize> {
        let (at, len, start) = self.released.iter().find_map(|(&at, &len)| {
            let start = at.next_multiple_of(align);
            (start + bytes <= at + len).then_some((at, len, start))
        })?;
        self.released.remove(&at);
        if start > at {
            self.released.insert(at, start - at);
        }
        if start + bytes < at + len {
            self.released.insert(start + bytes, at + len - start - bytes);
        }
        Some(start)
    }

    /// An aligned start past everything handed out; the gap the alignment
    /// skips is released.
    fn take_fresh(&mut self, bytes: usize, align: usize) -> Option<usize> {
        let from = self.base + self.next;
        let start = from.next_multiple_of(align);
        if start + bytes > self.base + self.size {
            return None;
        }
        self.next = start + bytes - self.base;
        if start > from {
            self.put_back(from, start - from);
        }
        Some(start)
    }

    /// Put `bytes` at `start` on the released list, merged with the
    /// released ranges it touches.
    fn put_back(&mut self, mut start: usize, mut bytes: usize) {
        if let Some((&before, &len)) = self.released.range(..start).next_back() {
            if before + len == start {
                self.released.remove(&before);
                (start, bytes) = (before, bytes + len);
            }
        }
        if let Some(len) = self.released.remove(&(start + bytes)) {
            bytes += len;
        }
        self.released.insert(start, bytes);
    }
}

impl Drop for AddressSpace {
    fn drop(&mut self) {
        os::unmap(self.base, self.size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::MBLOCK_SIZE;

    #[test]
    fn what_is_taken_lies_in_the_range_and_a_static_object_does_not() {
        static STATIC: u64 = 7;
        let mut space = AddressSpace::reserve().expect("a reservation");
        let range = space.range();
        let a = space.take(3 * MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        assert!(range.holds(a) && range.holds(a + 3 * MBLOCK_SIZE - 1));
        assert!(!range.holds(&STATIC as *const u64 as usize));
        assert!(!range.holds(Box::leak(Box::new(8u64)) as *const u64 as usize), "the program's own heap");
        // The memory is there and zeroed.
        // SAFETY: three megablocks just committed, ours alone.
        unsafe {
            assert_eq!(*((a + 3 * MBLOCK_SIZE - 8) as *const u64), 0);
            *(a as *mut u64) = 1;
        }
    }

    #[test]
    fn the_block_summaries_lie_below_the_heap_and_are_committed_as_it_grows() {
        let mut space = AddressSpace::reserve().expect("a reservation");
        let range = space.range();
        let a = space.take(MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        let g = space.take(3 * MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        assert!(a >= range.base + summary_bytes(range.size), "no megablock among the summaries");
        for addr in [a, a + MBLOCK_SIZE - 1, g, g + 3 * MBLOCK_SIZE - 1] {
            let slot = range.summary_slot(addr) as usize;
            assert!(slot >= range.base && slot < a, "a summary lies at the base, below every megablock");
            // SAFETY: the summaries of a taken megablock are committed.
            unsafe { *(slot as *mut u8) = 7 };
        }
        assert_eq!(range.summary_slot(a + 4096) as usize, range.summary_slot(a) as usize + 1, "one byte a block");
    }

    #[test]
    fn a_released_range_is_refitted_aligned_and_comes_back_zeroed() {
        let mut space = AddressSpace::reserve().expect("a reservation");
        let a = space.take(MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        let g = space.take(4 * MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        assert_eq!(g, a + MBLOCK_SIZE, "taken side by side");
        // SAFETY: the group was just committed, ours alone.
        unsafe { *(g as *mut u64) = 9 };
        space.release(g, 4 * MBLOCK_SIZE);
        let pair = space.take(HUGE_PAGE, HUGE_PAGE).unwrap();
        assert!(pair >= g && pair + HUGE_PAGE <= g + 4 * MBLOCK_SIZE, "fitted into the released group");
        assert_eq!(pair % HUGE_PAGE, 0);
        let rest = space.take(MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        assert_eq!(rest, g, "the group's first megablock is fitted next");
        // SAFETY: `g` was just committed again, ours alone.
        assert_eq!(unsafe { *(g as *const u64) }, 0, "released memory comes back zeroed");
    }
}
