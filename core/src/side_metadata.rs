//! Side metadata: a bit per heap word, and if a collector asks, a count
//! of a few bits per word, kept beside the heap for the blocks a collector
//! chooses, found from any address of such a block in two loads, by the
//! mutators' barrier as well as by the collector.
//!
//! A collector that needs per-object or per-field state that outlives a
//! GC (a log bit per field, a reference count's overflow bit, a mark that
//! sticks) owns a `SideTables` and attaches a table to each 4 KiB block it
//! wants covered; `side_bits_of(addr)` then gives the table of the block
//! holding `addr`, or None for a block that has none (nursery blocks,
//! blocks of other spaces). See Note [Side metadata].
//!
//! Invariant kept: a block's descriptor points at a table only between
//! `attach` and `detach` by the `SideTables` that attached it, and the
//! table lives as long as that `SideTables`; a block is detached before
//! it is freed.
//!
//! Note [Side metadata]
//! ----------------------------------------
//! MMTk keeps side metadata in address ranges mapped at a fixed offset
//! from the heap, so an object's bits are an add and a shift away. gclab's
//! megablocks come from the OS wherever it puts them, so there is no heap
//! range to offset from; but every address already finds its block
//! descriptor by masking (`BlockDesc::of_raw`), and a descriptor's `back`
//! word is used only while its block is free (the block allocator's
//! doubly linked free lists). So an in-use block's `back` points at its
//! side table, if a collector attached one: a load of the descriptor word
//! and a load of the bits, with no lookup and no hash map (the first
//! LXR attempt kept counts in address-keyed hash maps and its major GCs
//! took 41 s against mark-sweep's 6.5 s on fibheaps). A table covers one
//! 4 KiB block, 512 words, in 64 bytes; a large object's group gets one
//! table per block it wants covered (each block's own descriptor, tails
//! included, is where its table hangs). A block the allocator hands out
//! has `back` null (`BlockDesc::reset`), so nothing is covered until a
//! collector says so.
//!
//! Note [Side counts]
//! ----------------------------------------
//! Reference counting in the LXR manner keeps a count of two to four bits
//! per object that saturates: a count that reaches its largest value is
//! stuck there, and only a backup trace can tell whether its object died.
//! `SideTables::with_counts(bits)` gives every table it attaches a count
//! of `bits` bits (1, 2, 4 or 8) per word beside the bit per word, packed
//! in 64-bit words (4 bits a word: 256 bytes a block, 6.3% of it); an
//! object's count is the count of its first word. `SideTable::increment`
//! and `decrement` are single atomic read-modify-writes on the word that
//! holds the count, so RC work may be split among GC threads or done
//! beside the mutators; a stuck count neither rises nor falls, and a
//! count at zero does not fall. The counts hang from the same table as the
//! bits (one `back` pointer per block), so a collector with counts pays
//! the same two loads to find them, and one without pays nothing for them.

use crate::bdescr::{BlockDesc, BlockPtr};
use crate::constants::{Word, BLOCK_WORDS, WORD_SIZE};
use crate::heap::Heap;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// One block's side bits: bit `i % 64` of entry `i / 64` for word `i`.
pub type SideBits = [AtomicU64; BLOCK_WORDS / 64];

/// One block's side table: a bit per word, and counts if its
/// `SideTables` has them (See Note [Side counts]).
#[derive(Debug)]
#[repr(C)]
pub struct SideTable {
    /// A bit per word (first, so that the barrier's two loads reach it).
    pub bits: SideBits,
    /// `count_bits` bits per word, packed; empty without counts.
    counts: Box<[AtomicU64]>,
    count_bits: u32,
}

impl SideTable {
    fn new(count_bits: u32) -> SideTable {
        let words = if count_bits == 0 { 0 } else { BLOCK_WORDS * count_bits as usize / 64 };
        SideTable { bits: std::array::from_fn(|_| AtomicU64::new(0)), counts: (0..words).map(|_| AtomicU64::new(0)).collect(), count_bits }
    }

    /// The largest count, at which a count sticks.
    pub fn stuck(&self) -> u8 {
        ((1u32 << self.count_bits) - 1) as u8
    }

    /// The word holding the count of the word at `addr`, and the count's
    /// shift in it.
    #[inline(always)]
    fn count_slot(&self, addr: *const Word) -> (&AtomicU64, u32) {
        assert!(self.count_bits > 0, "these side tables have no counts (SideTables::with_counts)");
        // Counts are 1, 2, 4 or 8 bits, so none straddles two words.
        let bit = word_in_block(addr) * self.count_bits as usize;
        (&self.counts[bit / 64], (bit % 64) as u32)
    }

    /// The count of the word at `addr`.
    #[inline(always)]
    pub fn count(&self, addr: *const Word) -> u8 {
        let (word, shift) = self.count_slot(addr);
        ((word.load(Ordering::Relaxed) >> shift) & self.stuck() as u64) as u8
    }

    /// Add one to the count of the word at `addr`, unless it is stuck;
    /// returns the count after.
    #[inline(always)]
    pub fn increment(&self, addr: *const Word) -> u8 {
        let (word, shift) = self.count_slot(addr);
        let max = self.stuck() as u64;
        match word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| ((v >> shift) & max != max).then(|| v + (1 << shift))) {
            Ok(old) => ((old >> shift) & max) as u8 + 1,
            Err(_) => max as u8,
        }
    }

    /// Take one from the count of the word at `addr`, unless it is stuck
    /// or zero: `Ok` with the count after, or `Err` with the count (stuck
    /// or zero) left as it was. Of several threads lowering one count,
    /// exactly one sees `Ok(0)`.
    #[inline(always)]
    pub fn decrement(&self, addr: *const Word) -> Result<u8, u8> {
        let (word, shift) = self.count_slot(addr);
        let max = self.stuck() as u64;
        match word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
            let c = (v >> shift) & max;
            (c != max && c != 0).then(|| v - (1 << shift))
        }) {
            Ok(old) => Ok(((old >> shift) & max) as u8 - 1),
            Err(v) => Err(((v >> shift) & max) as u8),
        }
    }

    /// Set the count of the word at `addr` to `n` (at most `stuck`): a
    /// backup trace unsticking a count, or a collector resetting one.
    pub fn set_count(&self, addr: *const Word, n: u8) {
        let (word, shift) = self.count_slot(addr);
        let max = self.stuck() as u64;
        let n = (n as u64).min(max);
        let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some((v & !(max << shift)) | (n << shift)));
    }

    /// Zero the count of every word of the block whose bit in `live` is
    /// clear: the objects a sweep found dead. The caller has the table
    /// alone (the world stopped, and no thread of its collector lowering
    /// counts), so each word of counts is read once and written once if
    /// it changes, not lowered one atomic step per count: a sweep after a
    /// backup trace may clear millions of counts of garbage, and those
    /// steps were most of `lxr`'s longest sync (binary-trees 20: 10 ms
    /// of the 14 ms sweep of 24,000 blocks; See docs/lxr.md).
    pub fn keep_counts_of(&self, live: &[u64; BLOCK_WORDS / 64]) {
        let bits = self.count_bits as usize;
        let (field, per) = (self.stuck() as u64, 64 / bits);
        let all = if per == 64 { u64::MAX } else { (1 << per) - 1 };
        for (i, word) in self.counts.iter().enumerate() {
            let counts = word.load(Ordering::Relaxed);
            // The marks of the words whose counts this word holds.
            let first = i * per;
            let marks = (live[first / 64] >> (first % 64)) & all;
            if counts == 0 || marks == all {
                continue;
            }
            let dead = counts_in(counts, bits, field).filter(|&at| marks & (1 << at) == 0);
            let kept = dead.fold(counts, |kept, at| kept & !(field << (at * bits)));
            if kept != counts {
                word.store(kept, Ordering::Relaxed);
            }
        }
    }

    /// Call `f` with the index of every word of the block whose count is
    /// not zero, in order: a collector that keeps counts at object
    /// starts finds its counted objects without walking the dead ones.
    pub fn for_each_counted(&self, mut f: impl FnMut(usize)) {
        let bits = self.count_bits as usize;
        let max = self.stuck() as u64;
        for (i, word) in self.counts.iter().enumerate() {
            for at in counts_in(word.load(Ordering::Relaxed), bits, max) {
                f((i * 64) / bits + at);
            }
        }
    }

    /// Fill the bits with ones (or zeros) and zero the counts.
    fn reset(&self, set: bool) {
        let fill = if set { u64::MAX } else { 0 };
        for w in self.bits.iter() {
            w.store(fill, Ordering::Relaxed);
        }
        for w in self.counts.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }
}

/// The side table of the 4 KiB block holding `addr`, if a collector
/// attached one. `addr` must lie in the first megablock of its block group
/// (every address does but the far parts of an object over 1 MiB, whose
/// later megablocks have no descriptors: See `field_bits_of`).
#[inline(always)]
pub fn side_table_of(addr: *const Word) -> Option<&'static SideTable> {
    let bd = BlockDesc::of_raw(addr as usize);
    // SAFETY: `addr` lies in a block the heap owns (a live object's field),
    // so its descriptor is live; `back` of an in-use block is null or a
    // table that its `SideTables` keeps alive while attached (See the
    // module's invariant).
    let table = unsafe { (*bd).back } as *const SideTable;
    // SAFETY: as above.
    (!table.is_null()).then(|| unsafe { &*table })
}

/// The side bits of the 4 KiB block holding `addr` (See `side_table_of`).
#[inline(always)]
pub fn side_bits_of(addr: *const Word) -> Option<&'static SideBits> {
    side_table_of(addr).map(|t| &t.bits)
}

/// The side table covering field `slot` of the object at `obj`: None for
/// a field of an object over 1 MiB that lies past its first megablock,
/// which no table covers.
#[inline(always)]
pub fn field_bits_of(obj: *const Word, slot: *const Word) -> Option<&'static SideBits> {
    let mask = !crate::constants::MBLOCK_MASK;
    if (obj as usize & mask) != (slot as usize & mask) {
        return None;
    }
    side_bits_of(slot)
}

/// The index of the word at `addr` in its 4 KiB block.
#[inline(always)]
pub fn word_in_block(addr: *const Word) -> usize {
    (addr as usize & (crate::constants::BLOCK_SIZE - 1)) / WORD_SIZE
}

/// Test and clear the bit of the word at `addr` in `bits`: true if this
/// call cleared it (one thread wins when several race).
#[inline(always)]
pub fn take_bit(bits: &SideBits, addr: *const Word) -> bool {
    let w = word_in_block(addr);
    let mask = 1u64 << (w % 64);
    bits[w / 64].load(Ordering::Relaxed) & mask != 0 && bits[w / 64].fetch_and(!mask, Ordering::Relaxed) & mask != 0
}

/// Whether the bit of the word at `addr` in `bits` is set.
#[inline(always)]
pub fn test_bit(bits: &SideBits, addr: *const Word) -> bool {
    let w = word_in_block(addr);
    bits[w / 64].load(Ordering::Relaxed) & (1u64 << (w % 64)) != 0
}

/// Set the bit of the word at `addr` in `bits` (a collector asking for
/// the next store into a field to be logged again).
#[inline(always)]
pub fn set_bit(bits: &SideBits, addr: *const Word) {
    let w = word_in_block(addr);
    bits[w / 64].fetch_or(1u64 << (w % 64), Ordering::Relaxed);
}

/// Set (`value` true) or clear the bits of the words `words` (indices in
/// their block) in `bits`: a collector asking for a run of fields to be
/// logged, or for a run not to be (the holes it hands the mutators); a
/// mark bitmap's run of words (`MarkBitmap::mark_words`).
pub fn set_bits_between(bits: &SideBits, words: std::ops::Range<usize>, value: bool) {
    for (i, mask) in crate::bdescr::word_runs(words) {
        if value {
            bits[i].fetch_or(mask, Ordering::Relaxed);
        } else {
            bits[i].fetch_and(!mask, Ordering::Relaxed);
        }
    }
}

/// The places (`0..64 / bits`) of the counts that are not zero in `word`,
/// a word of counts of `bits` bits each (`field` is one count's mask), in
/// order.
fn counts_in(word: u64, bits: usize, field: u64) -> impl Iterator<Item = usize> {
    let mut rest = word;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let at = rest.trailing_zeros() as usize / bits;
            rest &= !(field << (at * bits));
            at
        })
    })
}

/// The side tables one collector attached, and a pool of spare ones.
/// Each table is boxed: its address hangs in a block descriptor, so it
/// must not move when the map or the pool grows.
#[derive(Debug, Default)]
#[allow(clippy::vec_box)]
pub struct SideTables {
    /// By block, so that freeing a few blocks of a large space detaches
    /// their tables without a pass over every table (`lxr` frees blocks at
    /// every pause: a partition of the whole list took 7% of binary-trees
    /// 20's run).
    attached: HashMap<BlockPtr, Box<SideTable>>,
    spare: Vec<Box<SideTable>>,
    /// Bits of each table's count per word (0: no counts).
    count_bits: u32,
}

// SAFETY: the tables are plain atomics; the block pointers are addresses
// whose descriptors the owning collector touches only with the world stopped.
unsafe impl Send for SideTables {}
// SAFETY: as above.
unsafe impl Sync for SideTables {}

impl SideTables {
    /// No tables yet; each will hold a bit per word.
    pub fn new() -> SideTables {
        SideTables::default()
    }

    /// No tables yet; each will hold a bit per word and a count of
    /// `bits` bits per word (1, 2, 4 or 8: See Note [Side counts]).
    pub fn with_counts(bits: u32) -> SideTables {
        assert!([1, 2, 4, 8].contains(&bits), "a side count has 1, 2, 4 or 8 bits, not {bits}");
        SideTables { count_bits: bits, ..SideTables::default() }
    }

    /// Attach a table with every bit set (or clear, `set` false) to the
    /// 4 KiB block `bd` (a single block, or any block of a group).
    ///
    /// # Safety
    /// The world is stopped, `bd` is in use, and no table is attached to
    /// it.
    // SAFETY: the caller's contract above.
    pub unsafe fn attach(&mut self, bd: BlockPtr, set: bool) {
        let table = self.spare.pop().unwrap_or_else(|| Box::new(SideTable::new(self.count_bits)));
        table.reset(set);
        // SAFETY: the caller's contract: the descriptor is live and ours.
        let d = unsafe { &mut *bd.0 };
        debug_assert!(d.back.is_null(), "a block has one side table at a time");
        d.back = &*table as *const SideTable as *mut BlockDesc;
        self.attached.insert(bd, table);
    }

    /// Detach every table (before the blocks they cover may be freed or
    /// change hands), keeping them for reuse.
    ///
    /// # Safety
    /// The world is stopped and every block attached is still in use.
    // SAFETY: the caller's contract above.
    pub unsafe fn detach_all(&mut self) {
        for (bd, table) in self.attached.drain() {
            // SAFETY: the caller's contract.
            unsafe { (*bd.0).back = std::ptr::null_mut() };
            self.spare.push(table);
        }
    }

    /// Detach the tables of `blocks` (about to be freed), keeping them
    /// for reuse; a block without one is passed over.
    ///
    /// # Safety
    /// The world is stopped and every block attached is still in use.
    // SAFETY: the caller's contract above.
    pub unsafe fn detach<'a>(&mut self, blocks: impl IntoIterator<Item = &'a BlockPtr>) {
        for bd in blocks {
            if let Some(table) = self.attached.remove(bd) {
                // SAFETY: the caller's contract.
                unsafe { (*bd.0).back = std::ptr::null_mut() };
                self.spare.push(table);
            }
        }
    }

    /// Cover every block of generation `g` (its single blocks, and the
    /// first block of each large object) with a table, each bit `set`;
    /// `&mut Heap` is the GC's hold on the heap.
    pub fn cover_generation(&mut self, heap: &mut Heap, g: usize, set: bool) {
        let gen = &heap.gens[g];
        for &bd in gen.blocks.iter().chain(gen.large_objects.iter()) {
            // SAFETY: the GC holds the heap, so the world is stopped; the
            // block is in use; a block gets a table only from this call
            // or `attach`, and `release` takes every one off.
            if unsafe { (*bd.0).back.is_null() } {
                // SAFETY: as above.
                unsafe { self.attach(bd, set) };
            }
        }
    }

    /// Take every table off its block (at a GC, before the blocks may be
    /// freed), keeping the tables for reuse; `&mut Heap` is the GC's hold
    /// on the heap.
    pub fn release(&mut self, _heap: &mut Heap) {
        // SAFETY: the GC holds the heap, so the world is stopped, and the
        // blocks attached are still in use: only the GC frees blocks, and
        // it has not begun.
        unsafe { self.detach_all() };
    }

    /// How many blocks have a table now.
    pub fn attached(&self) -> usize {
        self.attached.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::RtsFlags;

    /// A word address at index `w` of a (fake, 4 KiB-aligned) block.
    fn word(w: usize) -> *const Word {
        (0x7000_0000_0000usize + w * WORD_SIZE) as *const Word
    }

    #[test]
    fn of_threads_lowering_one_count_exactly_one_takes_it_to_zero() {
        // Each of 8 threads lowers the count of word 9 once, from 8, and a
        // neighbour's once, from 15 (stuck at 4 bits): exactly one thread
        // sees the count reach zero, and the stuck count never falls.
        // lxr's decrement threads rely on it (See Note [Decrements on
        // several threads] in the collectors' `decrement_thread`).
        let t = SideTable::new(4);
        for round in 0..200 {
            t.set_count(word(9), 8);
            t.set_count(word(10), 15);
            let zeros = std::sync::atomic::AtomicUsize::new(0);
            std::thread::scope(|s| {
                for _ in 0..8 {
                    s.spawn(|| {
                        if t.decrement(word(9)) == Ok(0) {
                            zeros.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        assert_eq!(t.decrement(word(10)), Err(15), "a stuck count does not fall");
                    });
                }
            });
            assert_eq!(zeros.into_inner(), 1, "round {round}: one thread takes the count to zero");
            assert_eq!(t.decrement(word(9)), Err(0), "round {round}: eight lowerings of eight leave zero");
        }
    }

    #[test]
    fn a_run_of_bits_is_set_and_cleared_exactly() {
        // Runs within one word of bits, across words, a whole word, and to
        // the block's end: each word of the run changes, and no other.
        for run in [5..9, 60..70, 64..128, 0..BLOCK_WORDS, BLOCK_WORDS - 3..BLOCK_WORDS, 7..7] {
            let t = SideTable::new(2);
            t.reset(false);
            set_bits_between(&t.bits, run.clone(), true);
            for w in 0..BLOCK_WORDS {
                assert_eq!(test_bit(&t.bits, word(w)), run.contains(&w), "run {run:?} set: word {w}");
            }
            t.reset(true);
            set_bits_between(&t.bits, run.clone(), false);
            for w in 0..BLOCK_WORDS {
                assert_eq!(test_bit(&t.bits, word(w)), !run.contains(&w), "run {run:?} cleared: word {w}");
            }
        }
    }

    #[test]
    fn counts_saturate_stick_and_keep_to_their_word() {
        for bits in [1u32, 2, 4, 8] {
            let t = SideTable::new(bits);
            let max = t.stuck();
            assert_eq!(max as u32, (1 << bits) - 1);
            for i in 1..=max {
                assert_eq!(t.increment(word(7)), i);
            }
            assert_eq!(t.increment(word(7)), max, "{bits} bits: stuck");
            assert_eq!(t.decrement(word(7)), Err(max), "{bits} bits: a stuck count does not fall");
            assert_eq!((t.count(word(6)), t.count(word(8))), (0, 0), "{bits} bits: neighbours untouched");
            // A backup trace unsticks it (one bit has no count below stuck).
            t.set_count(word(7), max - 1);
            assert_eq!(t.decrement(word(7)), if max > 1 { Ok(max - 2) } else { Err(0) });
            t.set_count(word(7), 0);
            assert_eq!(t.decrement(word(7)), Err(0), "{bits} bits: zero does not fall");
            assert_eq!(t.increment(word(BLOCK_WORDS - 1)), 1, "{bits} bits: the last word has a count");
        }
    }

    #[test]
    fn the_counted_words_are_found_in_order() {
        for bits in [1u32, 2, 4, 8] {
            let t = SideTable::new(bits);
            let words = [0, 3, 15, 16, 63, 64, 200, BLOCK_WORDS - 1];
            for &w in &words {
                t.increment(word(w));
            }
            t.set_count(word(200), t.stuck());
            let mut found = Vec::new();
            t.for_each_counted(|w| found.push(w));
            assert_eq!(found, words, "{bits} bits");
        }
    }

    #[test]
    fn a_sweep_keeps_the_counts_of_live_words_only() {
        for bits in [1u32, 2, 4, 8] {
            let t = SideTable::new(bits);
            // Counts mixed with dead ones in a word of counts, alone in
            // one all dead (400), and in a run all live (130, 140).
            let words = [0, 3, 15, 16, 63, 64, 130, 140, 200, 400, BLOCK_WORDS - 1];
            for &w in &words {
                t.increment(word(w));
                t.increment(word(w));
            }
            t.set_count(word(64), t.stuck());
            let mut live = [0u64; BLOCK_WORDS / 64];
            for w in [3, 64, BLOCK_WORDS - 1].into_iter().chain(128..192) {
                live[w / 64] |= 1 << (w % 64);
            }
            t.keep_counts_of(&live);
            let mut found = Vec::new();
            t.for_each_counted(|w| found.push((w, t.count(word(w)))));
            let two = 2.min(t.stuck());
            assert_eq!(found, [(3, two), (64, t.stuck()), (130, two), (140, two), (BLOCK_WORDS - 1, two)], "{bits} bits");
        }
    }

    #[test]
    fn counts_are_exact_when_threads_race() {
        let t = SideTable::new(8);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        t.increment(word(3));
                        t.increment(word(4));
                    }
                });
            }
        });
        assert_eq!((t.count(word(3)), t.count(word(4))), (200, 200));
    }

    #[test]
    fn a_blocks_table_is_found_from_its_addresses_with_counts_reset() {
        let f = RtsFlags::default();
        let heap = Heap::new(&f, 1).unwrap();
        let bd = heap.blocks.lock().alloc_block().unwrap();
        let mut tables = SideTables::with_counts(2);
        // SAFETY: the block is this test's alone, in use, with no table.
        unsafe { tables.attach(bd, true) };
        // SAFETY: the block is in use.
        let start = unsafe { bd.read() }.start;
        // SAFETY: a word inside the block.
        let inside = unsafe { start.add(100) };
        let t = side_table_of(inside).expect("attached");
        assert!(test_bit(&t.bits, inside), "attached with its bits set");
        assert!(take_bit(&t.bits, inside) && !take_bit(&t.bits, inside), "the bit was set, and taken once");
        assert!(!test_bit(&t.bits, inside), "taken");
        assert_eq!(t.increment(inside), 1);
        // SAFETY: the world is this test's.
        unsafe { tables.detach_all() };
        assert!(side_table_of(inside).is_none());
        // SAFETY: as above.
        unsafe { tables.attach(bd, false) };
        let t = side_table_of(inside).expect("attached again, from the pool");
        assert_eq!((t.count(inside), take_bit(&t.bits, inside)), (0, false), "a reused table starts afresh");
        // SAFETY: as above.
        unsafe { tables.detach_all() };
    }
}
