//! Side metadata: a bit per heap word, kept beside the heap for the blocks
//! a collector chooses, found from any address of such a block in two
//! loads, by the mutators' barrier as well as by the collector.
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

use crate::bdescr::{BlockDesc, BlockPtr};
use crate::constants::{Word, BLOCK_WORDS, WORD_SIZE};
use crate::heap::Heap;
use std::sync::atomic::{AtomicU64, Ordering};

/// One block's side bits: bit `i % 64` of entry `i / 64` for word `i`.
pub type SideBits = [AtomicU64; BLOCK_WORDS / 64];

/// The side table of the 4 KiB block holding `addr`, if a collector
/// attached one. `addr` must lie in the first megablock of its block group
/// (every address does but the far parts of an object over 1 MiB, whose
/// later megablocks have no descriptors: See `field_bits_of`).
#[inline(always)]
pub fn side_bits_of(addr: *const Word) -> Option<&'static SideBits> {
    let bd = BlockDesc::of_raw(addr as usize);
    // SAFETY: `addr` lies in a block the heap owns (a live object's field),
    // so its descriptor is live; `back` of an in-use block is null or a
    // table that its `SideTables` keeps alive while attached (See the
    // module's invariant).
    let table = unsafe { (*bd).back } as *const SideBits;
    // SAFETY: as above.
    (!table.is_null()).then(|| unsafe { &*table })
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

/// The side tables one collector attached, and a pool of spare ones.
/// Each table is boxed: its address hangs in a block descriptor, so it
/// must not move when the vectors grow.
#[derive(Debug, Default)]
#[allow(clippy::vec_box)]
pub struct SideTables {
    attached: Vec<(BlockPtr, Box<SideBits>)>,
    spare: Vec<Box<SideBits>>,
}

// SAFETY: the tables are plain atomics; the block pointers are addresses
// whose descriptors the owning collector touches only with the world stopped.
unsafe impl Send for SideTables {}
// SAFETY: as above.
unsafe impl Sync for SideTables {}

impl SideTables {
    /// No tables.
    pub fn new() -> SideTables {
        SideTables::default()
    }

    /// Attach a table with every bit set (or clear, `set` false) to the
    /// 4 KiB block `bd` (a single block, or any block of a group).
    ///
    /// # Safety
    /// The world is stopped, `bd` is in use, and no table is attached to
    /// it.
    // SAFETY: the caller's contract above.
    pub unsafe fn attach(&mut self, bd: BlockPtr, set: bool) {
        let table = self.spare.pop().unwrap_or_default();
        let fill = if set { u64::MAX } else { 0 };
        for w in table.iter() {
            w.store(fill, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract: the descriptor is live and ours.
        let d = unsafe { &mut *bd.0 };
        debug_assert!(d.back.is_null(), "a block has one side table at a time");
        d.back = &*table as *const SideBits as *mut BlockDesc;
        self.attached.push((bd, table));
    }

    /// Detach every table (before the blocks they cover may be freed or
    /// change hands), keeping them for reuse.
    ///
    /// # Safety
    /// The world is stopped and every block attached is still in use.
    // SAFETY: the caller's contract above.
    pub unsafe fn detach_all(&mut self) {
        for (bd, table) in self.attached.drain(..) {
            // SAFETY: the caller's contract.
            unsafe { (*bd.0).back = std::ptr::null_mut() };
            self.spare.push(table);
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
