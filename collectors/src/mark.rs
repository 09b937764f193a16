//! Mark bitmaps: which words of the blocks kept in place are live.
//!
//! One bit per word of each block, 512 bits (64 bytes) a block, in a side
//! table that the block's descriptor points into through its `aux` word
//! while the block is flagged `BF_MARK_IN_PLACE`. Marking an object sets
//! the bits of *all* its words, not only its first: then the number of
//! live words before any address in a block is a popcount, which is what
//! compaction needs to compute forwarding addresses without storing them
//! anywhere (See Note [Compaction by counting] in `slide`), and what a
//! sweep needs to count live words without reading a header. An object is
//! marked when the bit of its first word is set.
//!
//! A large object's group may be attached too (the nonmoving collector
//! marks old large objects this way): its map covers the group's first
//! block only, and only the object's first bit means anything.
//!
//! Blocks are attached before the GC's threads start, and the bits are
//! atomic, so several GC threads mark into one bitmap: the thread whose
//! `fetch_or` sets an object's first bit owns its scan (See `mark`).

use gclab_core::bdescr::{next_set_bit, BlockDesc, BlockPtr, LiveMap, BF_EVACUATED, BF_LARGE, BF_MARK_IN_PLACE, BF_UNSWEPT};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::info::InfoTable;
use gclab_core::object::{info_of_header, Layout};
use std::sync::atomic::{AtomicU64, Ordering};

const MAP_WORDS: usize = BLOCK_WORDS / 64;

type Map = [AtomicU64; MAP_WORDS];

/// The mark bits of a set of single blocks.
#[derive(Debug, Default)]
pub struct MarkBitmap {
    maps: Vec<Map>,
}

#[inline(always)]
fn word_index(p: *const Word, bd: *const BlockDesc) -> usize {
    // SAFETY: callers pass an address inside the block `bd` describes,
    // which is attached (so its descriptor is live and ours to read).
    unsafe { &*bd }.word_index(p)
}

#[inline(always)]
fn bit(w: usize) -> u64 {
    1 << (w % 64)
}

impl MarkBitmap {
    /// An empty table.
    pub fn new() -> MarkBitmap {
        MarkBitmap::default()
    }

    /// An empty table with room for `blocks` maps: a GC that attaches
    /// every block of a large generation in its pause then zeroes each
    /// map once instead of also copying the table as it grows.
    pub fn with_capacity(blocks: usize) -> MarkBitmap {
        MarkBitmap { maps: Vec::with_capacity(blocks) }
    }

    /// Give block `bd` (a single block, or a large object's group) a
    /// cleared bitmap.
    ///
    /// # Safety
    /// The caller holds `bd` for this GC: its `aux` word becomes the index
    /// of the block's map, and stays so until the GC ends.
    pub unsafe fn attach(&mut self, bd: BlockPtr) {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        assert!(d.blocks == 1 || d.has(BF_LARGE), "mark bitmaps cover single blocks and large objects");
        d.aux = self.maps.len() as u64;
        self.maps.push(Default::default());
    }

    /// Give block `bd` (a single block) a bitmap holding `bits`: the marks
    /// an earlier GC left it (sticky mark bits, See Note [Young objects in
    /// old blocks] in `scavenge`), so that what they mark reads as marked
    /// already.
    ///
    /// # Safety
    /// As for `attach`.
    pub unsafe fn attach_with(&mut self, bd: BlockPtr, bits: &LiveMap) {
        // SAFETY: the caller's contract.
        unsafe { self.attach(bd) };
        let map = self.maps.last().expect("just attached");
        for (word, &b) in map.iter().zip(bits) {
            word.store(b, Ordering::Relaxed);
        }
    }

    /// A bitmap for `blocks`, each flagged `BF_MARK_IN_PLACE` (no longer
    /// `BF_EVACUATED`): `evacuate` will mark their objects where they lie.
    /// The caller has taken the blocks out of their generation, so that
    /// `from_space::prepare` does not make them from-space.
    ///
    /// # Safety
    /// As for `attach`, for every block.
    // SAFETY: the caller holds every block for this GC.
    pub unsafe fn keep_in_place(blocks: &[BlockPtr]) -> MarkBitmap {
        let mut marks = MarkBitmap::with_capacity(blocks.len());
        for &bd in blocks {
            // SAFETY: the caller's contract.
            let d = unsafe { bd.get() };
            // A block left unswept by the last major GC is judged afresh
            // by this one's marks: its old dead words are simply unmarked.
            d.flags = (d.flags & !(BF_EVACUATED | BF_UNSWEPT)) | BF_MARK_IN_PLACE;
            // SAFETY: as above.
            unsafe { marks.attach(bd) };
        }
        marks
    }

    #[inline(always)]
    fn map_of(&self, bd: *const BlockDesc) -> &Map {
        // SAFETY: `bd` was attached, so its aux word indexes our table.
        let i = unsafe { (*bd).aux } as usize;
        &self.maps[i]
    }

    /// Mark the object at `p` of `size` words, in an attached block; false
    /// if it already was. When several threads mark the same object, the
    /// one whose `fetch_or` sets the first bit gets true, and only it goes
    /// on to scan the object.
    #[inline]
    pub fn mark(&self, p: *const Word, size: usize) -> bool {
        let bd = BlockDesc::of(p);
        let first = word_index(p, bd);
        let map = self.map_of(bd);
        if map[first / 64].load(Ordering::Relaxed) & bit(first) != 0 {
            return false;
        }
        if map[first / 64].fetch_or(bit(first), Ordering::Relaxed) & bit(first) != 0 {
            return false;
        }
        let mut w = first + 1;
        // A large object's map ends with its first block.
        let end = (first + size).min(BLOCK_WORDS);
        while w < end {
            let upto = end.min((w / 64 + 1) * 64);
            let bits = if upto - w == 64 { u64::MAX } else { ((1u64 << (upto - w)) - 1) << (w % 64) };
            map[w / 64].fetch_or(bits, Ordering::Relaxed);
            w = upto;
        }
        true
    }

    /// Is the object at `p` (in an attached block) marked?
    #[inline]
    pub fn is_marked(&self, p: *const Word) -> bool {
        let bd = BlockDesc::of(p);
        let w = word_index(p, bd);
        self.map_of(bd)[w / 64].load(Ordering::Relaxed) & bit(w) != 0
    }

    /// Live words in `p`'s block before `p`.
    #[inline]
    pub fn live_words_before(&self, p: *const Word) -> usize {
        let bd = BlockDesc::of(p);
        let w = word_index(p, bd);
        let map = self.map_of(bd);
        let full: u32 = map[..w / 64].iter().map(|m| m.load(Ordering::Relaxed).count_ones()).sum();
        let partial = (map[w / 64].load(Ordering::Relaxed) & (bit(w) - 1)).count_ones();
        (full + partial) as usize
    }

    /// The first marked word at or after word `from` of block `bd`.
    pub fn next_marked(&self, bd: BlockPtr, from: usize) -> Option<usize> {
        self.next_with(bd, from, false)
    }

    /// The first unmarked word at or after word `from` of block `bd`.
    pub fn next_unmarked(&self, bd: BlockPtr, from: usize) -> Option<usize> {
        self.next_with(bd, from, true)
    }

    fn next_with(&self, bd: BlockPtr, from: usize, unmarked: bool) -> Option<usize> {
        let map = self.map_of(bd.0);
        let flip = if unmarked { !0 } else { 0 };
        next_set_bit(|i| map[i].load(Ordering::Relaxed) ^ flip, from)
    }

    /// The mark bits of block `bd`, copied out.
    pub fn bits(&self, bd: BlockPtr) -> LiveMap {
        let map = self.map_of(bd.0);
        std::array::from_fn(|i| map[i].load(Ordering::Relaxed))
    }

    /// The address of block `bd`'s bits, as a `BF_UNSWEPT` block's `aux`
    /// word holds it (See Note [Unswept blocks] in core's `block_walk`):
    /// valid while the bitmap lives and no block is attached to it.
    pub fn live_map_address(&self, bd: BlockPtr) -> u64 {
        // An atomic u64 has the layout of a u64, so the map reads as a
        // `LiveMap` once nobody marks any more.
        self.map_of(bd.0).as_ptr() as u64
    }

    /// Live words in block `bd`.
    pub fn live_words(&self, bd: BlockPtr) -> usize {
        self.map_of(bd.0).iter().map(|m| m.load(Ordering::Relaxed).count_ones() as usize).sum()
    }

    /// The free runs of block `bd` within its first `limit` words: maximal
    /// ranges of unmarked words, as word indices (See `free_runs_of`).
    pub fn free_runs(&self, bd: BlockPtr, limit: usize) -> Vec<std::ops::Range<usize>> {
        free_runs_of(&self.bits(bd), limit)
    }

    /// The marked objects of block `bd` as (address, size), in address
    /// order. Reads each object's header, so call it before anything in
    /// the block moves.
    pub fn marked_objects(&self, bd: BlockPtr, layout: Layout) -> Vec<(*mut Word, usize)> {
        // SAFETY: an attached block's descriptor is live while attached.
        let start = unsafe { bd.read() }.start;
        let mut objects = Vec::new();
        let mut w = 0;
        while let Some(first) = self.next_marked(bd, w) {
            let p = start.wrapping_add(first);
            // SAFETY: a marked word at an object boundary is a live
            // object's header (objects are marked whole and walked from
            // their starts).
            let info: &InfoTable = info_of_header(unsafe { *p });
            // SAFETY: as above.
            let size = unsafe { layout.size_of(p, info) };
            objects.push((p, size));
            w = first + size;
        }
        objects
    }
}

/// The free runs of a block whose mark bits are `bits`, within its first
/// `limit` words: maximal ranges of unmarked words, as word indices.
pub fn free_runs_of(bits: &LiveMap, limit: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut w = 0;
    while w < limit {
        let Some(start) = next_set_bit(|i| !bits[i], w).filter(|&s| s < limit) else { break };
        let end = next_set_bit(|i| bits[i], start).unwrap_or(BLOCK_WORDS).min(limit);
        runs.push(start..end);
        w = end;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::block_alloc::BlockAllocator;

    #[test]
    fn marks_count_and_find() {
        let mut ba = BlockAllocator::new();
        let bd = ba.alloc_block().unwrap();
        // SAFETY: a fresh block is ours.
        let start = unsafe { bd.read() }.start;
        let mut marks = MarkBitmap::new();
        // SAFETY: as above.
        unsafe { marks.attach(bd) };
        let (a, b) = (start.wrapping_add(3), start.wrapping_add(100));
        assert!(marks.mark(a, 3));
        assert!(!marks.mark(a, 3), "marking twice reports the second as old");
        assert!(marks.mark(b, 70));
        assert!(marks.is_marked(a) && marks.is_marked(b));
        assert_eq!(marks.live_words_before(start.wrapping_add(4)), 1);
        assert_eq!(marks.live_words_before(b), 3);
        assert_eq!(marks.live_words_before(start.wrapping_add(200)), 73);
        assert_eq!(marks.next_marked(bd, 0), Some(3));
        assert_eq!(marks.next_marked(bd, 6), Some(100));
        assert_eq!(marks.next_marked(bd, 170), None);
        assert_eq!(marks.next_unmarked(bd, 3), Some(6));
        assert_eq!(marks.live_words(bd), 73);
        assert_eq!(marks.free_runs(bd, BLOCK_WORDS), vec![0..3, 6..100, 170..BLOCK_WORDS]);
        assert_eq!(marks.free_runs(bd, 120), vec![0..3, 6..100]);
    }

    #[test]
    fn a_mark_across_map_words_sets_every_bit() {
        let mut ba = BlockAllocator::new();
        let bd = ba.alloc_block().unwrap();
        // SAFETY: a fresh block is ours.
        let start = unsafe { bd.read() }.start;
        let mut marks = MarkBitmap::new();
        // SAFETY: as above.
        unsafe { marks.attach(bd) };
        assert!(marks.mark(start.wrapping_add(60), 200));
        assert_eq!(marks.live_words(bd), 200);
        assert_eq!(marks.free_runs(bd, BLOCK_WORDS), vec![0..60, 260..BLOCK_WORDS]);
    }
}
