//! Allocation regions: the memory a collector hands the mutators to
//! bump-allocate into, beside the runtime's nursery blocks.
//!
//! A region is a run of free words inside a block: `start..end` of block
//! `bd`. The runtime's own regions are its nursery blocks, whole; a
//! collector may offer more during a GC (`Heap::offer_regions`), such as
//! the holes (runs of free lines) of its old blocks. A capability that
//! runs out of room takes the next offered region before it takes a
//! nursery block, so the offered regions are used first, in the order the
//! collector listed them. See Note [Allocation regions].
//!
//! Invariant kept: between two GCs each offered region is handed to at most
//! one capability, its words are zero until the capability allocates into
//! them, and the words a capability takes are paid for by nursery blocks
//! it leaves unused, so that the allocation area stays `-A` (See Note [The
//! allocation area with offered regions]).
//!
//! Note [Allocation regions]
//! ----------------------------------------
//! Immix's mutators allocate into the holes of recycled blocks (Blackburn
//! and McKinley, PLDI 2008); StickyImmix and LXR keep doing so in their
//! generational forms, and their young objects are never copied unless a
//! collection chooses to. gclab's mutators used to allocate into nursery
//! blocks only, which the runtime owns, hands out whole and empties after
//! every GC, so no collector could hand them a hole.
//!
//! Now a collector lists, during a GC, the regions it offers; the list
//! holds for the next cycle of allocation. The runtime treats an offered
//! region as it treats a nursery block in every way but two. Its block
//! belongs to a collector's generation, so the capability leaves the
//! block's `free` alone when it moves on (a nursery block's `free` records
//! its fill for heap walks; an old block's is its end, and the rest of a
//! hole it leaves is still zero, so the block stays a linear walk: See
//! Note [Slop is zeroed] in `object`). And the words allocated there are
//! also counted apart (`Capability::hole_fills`, the statistics'
//! `mutator_hole_bytes`), so that a run says how much of its allocation
//! recycled memory.
//!
//! Such a block holds objects of two ages until the next GC: the old ones
//! its generation says, and the young ones allocated into its holes since
//! the last GC, which the collector that offered the holes must treat as
//! young (it knows which regions it offered; StickyImmix's sticky mark
//! bits tell old from young, See the collectors' `sticky_immix`). The
//! capabilities record the ranges they filled (`hole_fills`), from which
//! the sanity checker, run between GCs, takes each object's age; a heap
//! walk reads objects without asking their age.
//!
//! The fast path is unchanged: a region is entered as a nursery block is,
//! setting the capability's `hp`, `hp_lim` and `block_end`; a run whose
//! collector offers nothing pays one empty-list test on each block change.
//!
//! Note [The allocation area with offered regions]
//! ----------------------------------------
//! `-A` bounds what the mutators allocate between two GCs, holes and
//! nursery blocks together. The first version shrank the nursery by the
//! words offered; then a program whose objects mostly missed the holes
//! (lru's 136-byte values against 64-byte lines) found the holes wasted
//! and the nursery nearly gone, and collected every 22 KB under
//! `-A256k`. Now the nursery stays `-A` and each capability pays for the
//! regions it takes as it takes them: its `hole_debt` grows by a region's
//! words, and it leaves one nursery block unused for each `BLOCK_WORDS`
//! of debt at once (when none is left to leave, the area is spent and a
//! GC follows). So the allocation area is spent
//! by what the capabilities take, holes or blocks, in the order they need
//! them, and a GC comes when it is spent; the blocks left unused cost
//! address space and no work (the runtime empties nurseries by resetting
//! `free`). The price is that a hole a mutator gives up counts as spent.
//!
//! Note [Objects that miss a hole]
//! ----------------------------------------
//! A hole may be shorter than the next object. Immix moves a small object
//! on to the next hole, giving up the rest of this one, but sends an
//! object larger than a line to an *overflow block* instead, so that one
//! medium object does not cost a run of holes that small ones would fill.
//! The mutators do the same: a collector says, with its offer, how large
//! an object must be to go to overflow (`medium_words`: immix's line), and
//! such an object that misses the current region is bump-allocated in the
//! capability's overflow block, a nursery block it takes for the purpose,
//! while the region stays current for the objects that follow. The
//! overflow block's `free` is kept up to date, so heap walks and the
//! collector see its objects as any nursery block's.

use crate::bdescr::BlockPtr;
use crate::constants::{Word, WORD_SIZE};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A run of free words inside a block, offered to the mutators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// The block it lies in.
    pub bd: BlockPtr,
    /// Its first word.
    pub start: *mut Word,
    /// One past its last word.
    pub end: *mut Word,
}

// SAFETY: a region is addresses; which thread may write its words is the
// runtime's protocol (one capability at a time, See the module doc).
unsafe impl Send for Region {}
// SAFETY: as for Send.
unsafe impl Sync for Region {}

impl Region {
    /// Its length in words.
    pub fn words(&self) -> usize {
        (self.end as usize - self.start as usize) / WORD_SIZE
    }
}

/// The regions a collector offered at the last GC, taken in order by the
/// capabilities between GCs.
#[derive(Debug, Default)]
pub struct OfferedRegions {
    regions: Vec<Region>,
    /// Index of the next region no capability has taken.
    next: AtomicUsize,
    /// Objects of more words that miss a region go to an overflow block
    /// (See Note [Objects that miss a hole]).
    medium_words: usize,
}

impl OfferedRegions {
    /// Offer `regions` for the next cycle, in place of whatever was
    /// offered before; an object of more than `medium_words` words that
    /// does not fit the rest of a region goes to an overflow block (See
    /// Note [Objects that miss a hole]). Only while the world is stopped
    /// (`&mut self`).
    pub fn offer(&mut self, regions: Vec<Region>, medium_words: usize) {
        self.regions = regions;
        self.medium_words = medium_words;
        *self.next.get_mut() = 0;
    }

    /// Withdraw every region (the runtime does so before each GC, so a
    /// collector that offers nothing leaves nothing offered).
    pub fn clear(&mut self) {
        self.offer(Vec::new(), usize::MAX);
    }

    /// Objects of more words than this that miss a region go to an
    /// overflow block.
    #[inline]
    pub fn medium_words(&self) -> usize {
        self.medium_words
    }

    /// Take the next region no capability has taken, if any is left.
    #[inline]
    pub fn take(&self) -> Option<Region> {
        if self.regions.is_empty() {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.regions.get(i).copied()
    }

    /// The regions offered.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }
}
