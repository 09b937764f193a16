//! Block descriptors: the metadata of every 4 KiB block.
//!
//! Each megablock begins with an array of 256 descriptors, one per block, so
//! the descriptor of any heap address is `megablock base + block index * 64`:
//! two masks and a shift, no lookup (GHC's `Bdescr`). Only the head block of
//! a group carries the group's real description; every other block of the
//! group has `blocks == 0` and `link` pointing back at the head, so an
//! address anywhere in a group can still find it (See Note [Group tails]).
//!
//! Note [Group tails]
//! ----------------------------------------
//! Objects are only ever addressed at their start, and every object starts
//! in the head block of a single-block group or is a large object that
//! starts its group, so the collectors never need the tail link. Two other
//! parties do: the block allocator, which coalesces a freed group with the
//! free group before it by reading the descriptor just below it, and the
//! sanity checker, which resolves arbitrary addresses. So a group's tails
//! (for groups inside one megablock) point at the head; for a free group
//! the last tail is the one that matters.

//!
//! Note [Block summaries]
//! ----------------------------------------
//! `evacuate` reads, for every pointer into the heap, whether the block
//! it points into stays (`BF_EVACUATED`: an older generation, to-space)
//! and, if so, its generation; for the rest, whether the block is out of
//! the common path (marked in place, or large). Read from the
//! descriptors, that was a miss per old block a minor GC's survivors
//! point into, once the old generation's descriptors (16 KiB a megablock)
//! outgrow the caches: `perf` put 42.8% of mark-sweep's scan samples on
//! fibheaps (75 MiB of heap, 1.2 MB of descriptors) on that load.
//!
//! So each block also has a summary byte, in one array at the base of
//! the heap's reserved address space (`address_space`), a byte for every
//! block of the reservation: 19 KB, 300 consecutive cache lines, for that
//! heap. The GC threads find it from the heap's range, which they hold
//! already; a descriptor's setters find it through the first word of the
//! descriptor's megablock, which points at that megablock's 256 bytes of
//! the array (`attach_summaries`: that word belongs to the descriptors
//! of the descriptor blocks themselves, which are never used). The byte
//! is `SUMMARY_STAYS` and the generation in the low seven bits for a
//! block that stays, else `SUMMARY_UNCOMMON` for a block marked in place
//! or large, else zero. Every write of a descriptor's flags or
//! generation keeps it (`set_flags`, `insert_flags`, `remove_flags`,
//! `set_gen_no`, `store_flags`, `reset`), and the sanity checker checks
//! every live block's byte against its descriptor.
//!
//! Tried before (2026-11-30): the bytes in each megablock's unused first
//! descriptors, found by masking the address. Every megablock's bytes then
//! fell in the same four cache sets (megablocks are 1 MiB-aligned), and
//! the young path read the byte and then the flags: it saved first-level
//! misses only, and cost every young object 4% more GC instructions.
//! Here a young object's flags are not read at all on the common path:
//! the byte replaces them, and one test of it (zero: a block collected
//! the common way) sends a young object on, so the descriptor is read for
//! the copy's destination only, from the allocation area's few, cached
//! blocks. A first version tested the stays bit and then the uncommon
//! one on that path: 1.033x copying's GC instructions on binary-trees 16;
//! the one test, 1.009x.
//!
//! Measured (2026-11-30, later; `scripts/ab`, the binary before against after,
//! the targets' settings): fibheaps 400000 at `-M75056k`, mark-sweep's
//! minor GCs 0.733x (7 rounds, 0.60-0.77), its total 0.932x; copying's
//! minor GCs 0.864x, its GC 0.941x. lru 500000 4000000 128: copying's
//! minor GCs 0.864x; nonmoving's 1.008x (its marker and sweeper read
//! the descriptors on their own threads). binary-trees 20 under copying
//! (`-M202328k`): GC 1.015x (0.98-1.06), total 1.004x. gcbench 18:
//! minor GCs 1.040x under copying and 1.054x under nonmoving (spreads
//! 0.99-1.16). Cachegrind, GC instructions: 1.009x (binary-trees 16),
//! 1.029x (gcbench 16), 1.028x (lru 50000 1000000 128) under copying,
//! 1.018x under mark-sweep on fibheaps 100000, whose first-level misses
//! were 0.871x.

use crate::constants::{Word, BDESCR_SIZE, BLOCK_SHIFT, BLOCK_SIZE, MBLOCK_MASK};
use std::sync::atomic::{AtomicU8, Ordering};

/// A summary byte's mark of a block that stays (`BF_EVACUATED`); its low
/// seven bits are then the block's generation (See Note [Block
/// summaries]).
pub const SUMMARY_STAYS: u8 = 0x80;

/// A summary byte's mark of a block that does not stay but is out of
/// `evacuate`'s common path: marked in place or large.
pub const SUMMARY_UNCOMMON: u8 = 0x40;

/// The block is on a free list.
pub const BF_FREE: u32 = 1 << 0;
/// Objects in this block are not to be copied in the current GC: the block
/// is to-space, or belongs to a generation that is not being collected.
pub const BF_EVACUATED: u32 = 1 << 1;
/// The group holds one large object, which is never copied.
pub const BF_LARGE: u32 = 1 << 2;
/// A nursery block (allocation area).
pub const BF_NURSERY: u32 = 1 << 3;
/// The group is a megablock group (spans several megablocks).
pub const BF_MEGA: u32 = 1 << 4;
/// Objects in this block are marked where they lie, not copied, in the
/// current GC: the block belongs to a generation that a collector keeps in
/// place (compacting's oldest generation before it slides, mark-sweep's
/// old generation). The collector owns the block's `aux` word meanwhile.
pub const BF_MARK_IN_PLACE: u32 = 1 << 5;
/// The block's dead objects are not swept yet: its live objects are those
/// whose first word's bit is set in the `LiveMap` that `aux` points to,
/// and every other word is garbage that nobody may read (See Note
/// [Unswept blocks] in `block_walk`).
pub const BF_UNSWEPT: u32 = 1 << 6;
/// A weak pointer's key lives in this from-space block, so a parallel GC
/// claims every object it copies from here by compare-and-swap, immutable
/// ones included: a key must never be copied twice (See Note [Copying an
/// immutable object twice] in the collectors' `evacuate`). Set and cleared
/// by the collectors' `from_space`, for the length of one GC.
pub const BF_CLAIM: u32 = 1 << 7;
/// A concurrent copying collector is moving this old block's live objects
/// out while the mutators run: an object here may already be a forwarding
/// pointer to its copy, which the collector's read barrier hands the
/// mutators, and the sanity checker accepts (a pointer to it is a pointer
/// to the copy). Set and cleared by that collector, between GCs; the
/// block may lack `BF_EVACUATED` meanwhile (See the collectors'
/// `concurrent_copying`).
pub const BF_COPYING_OUT: u32 = 1 << 8;
/// A reference-counting collector will evacuate this old block at its
/// next pause: while its backup trace runs, the slots that point into the
/// block are remembered (See the collectors' `lxr::evacuation`). Set and
/// cleared by that collector, between GCs; the block is also on no list
/// that promotion allocates from.
pub const BF_EVACUATING: u32 = 1 << 9;

/// The live map of an unswept single block: one bit per word (bit `i % 64`
/// of entry `i / 64` for word `i`), set at least for each live object's
/// first word and for no word of a dead object.
pub type LiveMap = [u64; crate::constants::BLOCK_WORDS / 64];

/// The 64-word chunks that the words `words` of a block cover, each as
/// its index in a block's bitmap and the bits of those words in it: how a
/// run of words is set or cleared in a live map or a side table's bits.
pub fn word_runs(words: std::ops::Range<usize>) -> impl Iterator<Item = (usize, u64)> {
    let mut w = words.start;
    std::iter::from_fn(move || {
        if w >= words.end {
            return None;
        }
        let upto = words.end.min((w / 64 + 1) * 64);
        let n = upto - w;
        let ones = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let run = (w / 64, ones << (w % 64));
        w = upto;
        Some(run)
    })
}

/// The first bit at or after `from` that is set in a block's bitmap (one
/// bit per word, in `BLOCK_WORDS / 64` words that `word(i)` reads), if
/// any: the one search over a live map or a collector's mark bits.
#[inline]
pub fn next_set_bit(word: impl Fn(usize) -> u64, from: usize) -> Option<usize> {
    let words = crate::constants::BLOCK_WORDS / 64;
    let mut i = from / 64;
    if i >= words {
        return None;
    }
    let mut bits = word(i) & (!0u64 << (from % 64));
    loop {
        if bits != 0 {
            return Some(i * 64 + bits.trailing_zeros() as usize);
        }
        i += 1;
        if i == words {
            return None;
        }
        bits = word(i);
    }
}

/// One block's descriptor: exactly 64 bytes, laid out in the megablock's
/// first 16 KiB.
#[repr(C)]
#[derive(Debug)]
pub struct BlockDesc {
    /// First word of the block (of the group, for a head).
    pub start: *mut Word,
    /// First free word: objects lie in `[start, free)`.
    pub free: *mut Word,
    /// Next descriptor in whatever list holds this group; for a tail, the
    /// head (See Note [Group tails]).
    pub link: *mut BlockDesc,
    /// Previous descriptor in a doubly linked list (free lists).
    pub back: *mut BlockDesc,
    /// Cheney scan pointer while this block is to-space.
    pub scan: *mut Word,
    /// Blocks in the group (head only; 0 for a tail).
    pub blocks: u32,
    /// BF_* flags.
    pub flags: u32,
    /// Generation the objects in this block belong to.
    pub gen_no: u16,
    /// Generation the survivors of this block are copied to (aging).
    pub dest_no: u16,
    /// Index of the free-list bucket holding this group, while free.
    pub bucket: u16,
    /// A number the space that holds the block may keep in it for as long
    /// as the block is in use (a cell-cutting space keeps its size class
    /// here); 0 when the block is handed out.
    pub space_info: u16,
    /// A word for the collector holding the block during a GC (an index
    /// into its own per-block table, say). Between GCs it means nothing,
    /// except in a `BF_UNSWEPT` block: the address of its `LiveMap`.
    pub aux: u64,
}

const _: () = assert!(std::mem::size_of::<BlockDesc>() == BDESCR_SIZE);

impl BlockDesc {
    /// The descriptor that covers `addr` (not resolved to a group head).
    #[inline(always)]
    pub fn of_raw(addr: usize) -> *mut BlockDesc {
        let mblock = addr & !MBLOCK_MASK;
        let index = (addr & MBLOCK_MASK) >> BLOCK_SHIFT;
        (mblock + index * BDESCR_SIZE) as *mut BlockDesc
    }

    /// The descriptor of the block that holds the object at `addr`. Objects
    /// start in head blocks, so this is a head (See Note [Group tails]).
    #[inline(always)]
    pub fn of(addr: *const Word) -> *mut BlockDesc {
        BlockDesc::of_raw(addr as usize)
    }

    /// The first word of the block that `bd` (a descriptor inside a
    /// megablock's descriptor array) describes.
    #[inline(always)]
    pub fn block_start(bd: *const BlockDesc) -> *mut Word {
        let addr = bd as usize;
        let mblock = addr & !MBLOCK_MASK;
        let index = (addr & MBLOCK_MASK) / BDESCR_SIZE;
        (mblock + index * BLOCK_SIZE) as *mut Word
    }

    /// One past the last word of the group.
    #[inline(always)]
    pub fn end(&self) -> *mut Word {
        (self.start as usize + self.blocks as usize * BLOCK_SIZE) as *mut Word
    }

    /// The index of the word at `p` (in the group) from its start.
    #[inline(always)]
    pub fn word_index(&self, p: *const Word) -> usize {
        (p as usize - self.start as usize) / crate::constants::WORD_SIZE
    }

    /// Words in use: `free - start`.
    #[inline(always)]
    pub fn used_words(&self) -> usize {
        self.word_index(self.free)
    }

    /// Words still free: `end - free`.
    #[inline(always)]
    pub fn free_words(&self) -> usize {
        (self.end() as usize - self.free as usize) / crate::constants::WORD_SIZE
    }

    /// Is a flag set?
    #[inline(always)]
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    /// The live map of a `BF_UNSWEPT` block; None for any other block.
    ///
    /// # Safety
    /// The space that left the block unswept keeps the map alive and
    /// unchanged until it sweeps the block (See Note [Unswept blocks] in
    /// `heap_walk`); the caller reads it no longer than the descriptor.
    #[inline]
    // SAFETY: the caller's contract above.
    pub unsafe fn live_map(&self) -> Option<&LiveMap> {
        // SAFETY: the caller's contract.
        self.has(BF_UNSWEPT).then(|| unsafe { &*(self.aux as *const LiveMap) })
    }

    /// The flags of `bd`, read atomically: during a parallel GC a large
    /// object's descriptor is claimed by one GC thread while others read it.
    ///
    /// # Safety
    /// `bd` must be a block descriptor.
    #[inline(always)]
    // SAFETY: the caller's contract above.
    pub unsafe fn load_flags(bd: *const BlockDesc) -> u32 {
        // SAFETY: `flags` is an aligned u32 inside a live descriptor.
        unsafe { std::sync::atomic::AtomicU32::from_ptr(std::ptr::addr_of!((*bd).flags) as *mut u32).load(std::sync::atomic::Ordering::Acquire) }
    }

    /// Set the flags of `bd`, publishing the descriptor's other fields
    /// written before (release ordering; See `load_flags`).
    ///
    /// # Safety
    /// `bd` must be a block descriptor the caller may write.
    #[inline(always)]
    // SAFETY: the caller's contract above.
    pub unsafe fn store_flags(bd: *mut BlockDesc, flags: u32) {
        // SAFETY: as for `load_flags`.
        unsafe { std::sync::atomic::AtomicU32::from_ptr(std::ptr::addr_of_mut!((*bd).flags)).store(flags, std::sync::atomic::Ordering::Release) };
        // SAFETY: as above; the summary follows the flags.
        unsafe { (*bd).summarise() };
    }

    /// Point the descriptors of the megablock at `mblock` at its 256
    /// bytes of the block summaries, `slots` (See Note [Block
    /// summaries]): before any of its descriptors is written.
    ///
    /// # Safety
    /// `mblock` is a megablock of the heap, whose descriptor array its
    /// caller may write; `slots` are its summaries, committed.
    // SAFETY: the caller's contract above.
    pub unsafe fn attach_summaries(mblock: usize, slots: *mut u8) {
        debug_assert_eq!(mblock & MBLOCK_MASK, 0, "a megablock's base");
        // SAFETY: the megablock's first word lies in the descriptor of its
        // first descriptor block, which describes nothing.
        unsafe { *(mblock as *mut *mut u8) = slots };
    }

    /// What this descriptor's summary byte should hold.
    #[inline(always)]
    pub fn summary(&self) -> u8 {
        debug_assert!(self.gen_no < 128, "a generation number fits seven bits");
        if self.flags & BF_EVACUATED != 0 {
            SUMMARY_STAYS | self.gen_no as u8
        } else if self.flags & (BF_MARK_IN_PLACE | BF_LARGE) != 0 {
            SUMMARY_UNCOMMON
        } else {
            0
        }
    }

    /// Where this descriptor's summary byte lies: its megablock's slots
    /// (`attach_summaries`), at its block's index.
    #[inline(always)]
    fn summary_slot(&self) -> *mut u8 {
        let addr = self as *const BlockDesc as usize;
        // SAFETY: a descriptor lies in its megablock's descriptor array
        // (the type is neither `Clone` nor built outside it), whose first
        // word points at the megablock's summaries.
        let slots = unsafe { *((addr & !MBLOCK_MASK) as *const *mut u8) };
        debug_assert!(!slots.is_null(), "a megablock's summaries are attached before its descriptors are written");
        slots.wrapping_add((addr & MBLOCK_MASK) / BDESCR_SIZE)
    }

    /// Write this descriptor's summary byte from its flags and generation.
    #[inline(always)]
    fn summarise(&self) {
        // SAFETY: the slot lies in the summaries, committed for every
        // megablock of the heap; read by other GC threads, hence atomic.
        unsafe { AtomicU8::from_ptr(self.summary_slot()).store(self.summary(), Ordering::Release) }
    }

    /// Set the flags, keeping the summary byte.
    #[inline]
    pub fn set_flags(&mut self, flags: u32) {
        self.flags = flags;
        self.summarise();
    }

    /// Set `flags` in the flags, keeping the summary byte.
    #[inline]
    pub fn insert_flags(&mut self, flags: u32) {
        self.set_flags(self.flags | flags);
    }

    /// Clear `flags` from the flags, keeping the summary byte.
    #[inline]
    pub fn remove_flags(&mut self, flags: u32) {
        self.set_flags(self.flags & !flags);
    }

    /// The block's marking in place is over: its survivors stay where they
    /// are, so from now on the block is treated as one already evacuated
    /// (not copied from), with `also` set beside. Every collector that
    /// marks a block in place ends the marking this way, when it sweeps or
    /// keeps the block.
    #[inline]
    pub fn end_marking_in_place(&mut self, also: u32) {
        self.set_flags((self.flags & !BF_MARK_IN_PLACE) | BF_EVACUATED | also);
    }

    /// Set the generation, keeping the summary byte.
    #[inline]
    pub fn set_gen_no(&mut self, gen: u16) {
        self.gen_no = gen;
        self.summarise();
    }

    /// Reset every field: used when a group is carved out or handed out.
    pub fn reset(&mut self, start: *mut Word, blocks: u32) {
        self.start = start;
        self.free = start;
        self.link = std::ptr::null_mut();
        self.back = std::ptr::null_mut();
        self.scan = start;
        self.blocks = blocks;
        self.flags = 0;
        self.gen_no = 0;
        self.dest_no = 0;
        self.bucket = 0;
        self.space_info = 0;
        self.aux = 0;
        self.summarise();
    }
}

/// A descriptor pointer that may cross threads: the heap's lists hold these.
/// Which thread may touch the descriptor is the heap's protocol, not the
/// type's (GC threads own their to-space blocks; mutators their nurseries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockPtr(pub *mut BlockDesc);

// SAFETY: a BlockPtr is an address; access to the descriptor behind it is
// governed by the heap's ownership protocol described above.
unsafe impl Send for BlockPtr {}
// SAFETY: as for Send: sharing the address is harmless by itself.
unsafe impl Sync for BlockPtr {}

impl BlockPtr {
    /// The descriptor.
    ///
    /// # Safety
    /// `self` must name a live descriptor (one inside a megablock the heap
    /// owns), and the caller must hold that block under the heap's protocol
    /// (See Note [Who touches what] in `rts`): the GC holding the heap, a
    /// GC thread its own to-space block, a mutator its own nursery block.
    /// No other reference to the descriptor may be used while the result
    /// lives.
    #[inline(always)]
    // SAFETY: the caller's contract above.
    pub unsafe fn get(self) -> &'static mut BlockDesc {
        // SAFETY: the caller's contract above.
        unsafe { &mut *self.0 }
    }

    /// The descriptor, for reading.
    ///
    /// # Safety
    /// As for `get`, except that other readers may hold it too: nobody
    /// writes the descriptor while the result lives (the world is stopped
    /// for a heap walk, or the caller holds the block).
    #[inline(always)]
    // SAFETY: the caller's contract above.
    pub unsafe fn read(self) -> &'static BlockDesc {
        // SAFETY: the caller's contract above.
        unsafe { &*self.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::{FIRST_BLOCK, MBLOCK_SIZE};

    #[test]
    fn next_set_bit_finds_the_next_set_bit_or_none() {
        let mut map: LiveMap = [0; 8];
        assert_eq!(next_set_bit(|i| map[i], 0), None);
        map[0] = 1 << 5;
        map[3] = 1 << 63;
        assert_eq!(next_set_bit(|i| map[i], 0), Some(5));
        assert_eq!(next_set_bit(|i| map[i], 5), Some(5));
        assert_eq!(next_set_bit(|i| map[i], 6), Some(255));
        assert_eq!(next_set_bit(|i| map[i], 255), Some(255));
        assert_eq!(next_set_bit(|i| map[i], 256), None);
        assert_eq!(next_set_bit(|i| map[i], 512), None);
    }

    /// Every write of a descriptor's flags or generation keeps its block's
    /// summary byte (See Note [Block summaries]).
    #[test]
    fn a_descriptors_writes_keep_its_summary_byte() {
        let layout = std::alloc::Layout::from_size_align(MBLOCK_SIZE, MBLOCK_SIZE).unwrap();
        // SAFETY: a zeroed, megablock-aligned allocation of a megablock's
        // size, freed below; it stands in for a megablock of the heap.
        let mblock = unsafe { std::alloc::alloc_zeroed(layout) } as usize;
        assert_ne!(mblock, 0);
        let mut array = [0u8; crate::constants::BLOCKS_PER_MBLOCK_TOTAL];
        let slots = array.as_mut_ptr();
        // SAFETY: the stand-in's descriptors are this test's; the slots
        // outlive every write below.
        unsafe { BlockDesc::attach_summaries(mblock, slots) };
        for index in [FIRST_BLOCK, 100, 255] {
            let start = (mblock + index * BLOCK_SIZE) as *mut Word;
            // SAFETY: the descriptor lies in the allocation's descriptor array.
            let d = unsafe { &mut *BlockDesc::of_raw(start as usize) };
            d.reset(start, 1);
            // SAFETY: the slots are the array's.
            let summary = || unsafe { *slots.add(index) };
            assert_eq!(summary(), 0, "a reset block does not stay");
            d.set_gen_no(3);
            assert_eq!(summary(), 0, "a generation alone does not make a block stay");
            d.insert_flags(BF_LARGE);
            assert_eq!(summary(), SUMMARY_UNCOMMON, "a large object is out of the common path");
            d.insert_flags(BF_EVACUATED);
            assert_eq!(summary(), SUMMARY_STAYS | 3);
            d.set_gen_no(1);
            assert_eq!(summary(), SUMMARY_STAYS | 1);
            d.remove_flags(BF_LARGE);
            assert_eq!(summary(), SUMMARY_STAYS | 1);
            // SAFETY: the descriptor is this test's alone.
            unsafe { BlockDesc::store_flags(d, BF_MARK_IN_PLACE) };
            assert_eq!(summary(), SUMMARY_UNCOMMON, "store_flags keeps it too");
            d.end_marking_in_place(BF_LARGE);
            assert_eq!(d.flags, BF_EVACUATED | BF_LARGE, "the marking's flag swapped for evacuated, the extra kept");
            assert_eq!(summary(), SUMMARY_STAYS | 1, "a block whose marking ended stays");
            d.set_flags(BF_EVACUATED);
            assert_eq!(summary(), SUMMARY_STAYS | 1);
            d.reset(start, 1);
            assert_eq!(summary(), 0);
        }
        // SAFETY: allocated above with this layout.
        unsafe { std::alloc::dealloc(mblock as *mut u8, layout) };
    }

    #[test]
    fn address_to_descriptor_and_back() {
        let mblock = 7 * MBLOCK_SIZE;
        for index in [FIRST_BLOCK, 100, 255] {
            let addr = mblock + index * BLOCK_SIZE + 123 * 8;
            let bd = BlockDesc::of_raw(addr);
            assert_eq!(bd as usize, mblock + index * 64);
            assert_eq!(BlockDesc::block_start(bd) as usize, mblock + index * BLOCK_SIZE);
        }
    }
}
