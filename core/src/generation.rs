//! Generations: where objects live once they survive their first GC.
//!
//! A generation owns the block groups of its objects, its large objects
//! (each in a group of its own, moved between generations by relinking) and
//! its weak pointers. Between collections `blocks` holds every object of the
//! generation; during a collection of it the collector moves that list to
//! `old_blocks` (from-space) and builds a new one.
//!
//! Aging: survivors of a nursery block are copied to generation 0's blocks,
//! and survivors of generation g's blocks to g+1 (the oldest to itself), so
//! an object is copied at least twice before reaching generation 1. Each
//! block says where its survivors go in its `dest_no` (GHC's scheme).

use crate::bdescr::BlockPtr;
use crate::constants::{Word, BLOCK_SIZE, WORD_SIZE};

/// A heap object's address, as held in the heap's own lists (weak lists,
/// mutable lists). Plain data: the lists' owner decides who may read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjPtr(pub *mut Word);

// SAFETY: an ObjPtr is an address; the heap's stop-the-world protocol
// decides who dereferences it.
unsafe impl Send for ObjPtr {}
// SAFETY: as for Send.
unsafe impl Sync for ObjPtr {}

/// One generation.
#[derive(Debug, Default)]
pub struct Generation {
    /// Its number: 0 is the youngest.
    pub no: usize,
    /// Block groups holding its (small) objects.
    pub blocks: Vec<BlockPtr>,
    /// Blocks in `blocks` (kept by whoever changes the list, checked by
    /// the sanity checker), so the policy need not walk the list.
    pub n_blocks: usize,
    /// Words of objects in `blocks`: the live data after a GC of it (words
    /// copied or marked), plus what was promoted since. A thunk updated in
    /// place leaves part of its words as zeroed slop, still counted here
    /// until the next GC of the generation. Never counts free space.
    pub n_words: usize,
    /// Words inside `blocks` that are free for allocation: the holes that a
    /// non-moving space leaves between live objects (0 for bump-allocated
    /// blocks, whose free space lies past their fill level). Used words
    /// are `n_blocks` x block words less these (See `used_words`).
    pub n_free_words: usize,
    /// Words inside `blocks` that a sweep beside the mutators has not
    /// judged yet: neither live (`n_words`) nor yet free (`n_free_words`),
    /// so not slop either (0 but while such a sweep runs).
    pub n_unswept_words: usize,
    /// Its large objects, one group each.
    pub large_objects: Vec<BlockPtr>,
    /// Blocks in `large_objects`.
    pub n_large_blocks: usize,
    /// Words of the large objects themselves.
    pub n_large_words: usize,
    /// Its weak pointers.
    pub weak_ptrs: Vec<ObjPtr>,
    /// Collect this generation when it holds more blocks than this.
    pub max_blocks: usize,
    /// Words a concurrent collector last found live here, when its marking
    /// ends after the major GC that started it (GHC's `live_estimate`): the
    /// policy sizes the generation from it, since at that GC the
    /// generation still held its dead objects.
    pub live_estimate: Option<usize>,
    /// Collections of this generation (as the oldest collected).
    pub collections: u64,
    /// Of which parallel.
    pub par_collections: u64,
    /// Set by the policy: compact this generation rather than copy it.
    pub compact: bool,
    /// From-space during a collection of this generation.
    pub old_blocks: Vec<BlockPtr>,
    /// Large objects not yet found live during a collection.
    pub old_large_objects: Vec<BlockPtr>,
    /// Weak pointers not yet judged during a collection.
    pub old_weak_ptrs: Vec<ObjPtr>,
}

impl Generation {
    /// An empty generation number `no`.
    pub fn new(no: usize, max_blocks: usize) -> Generation {
        Generation { no, max_blocks, ..Generation::default() }
    }

    /// Take a block group of objects into this generation, with its counts.
    ///
    /// # Safety
    /// `bd` heads a live block group that the caller holds (See
    /// `BlockPtr::get`).
    pub unsafe fn add_block(&mut self, bd: BlockPtr) {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        self.n_blocks += d.blocks as usize;
        self.n_words += d.used_words();
        self.blocks.push(bd);
    }

    /// Take a large object's group into this generation, with its counts.
    ///
    /// # Safety
    /// As for `add_block`.
    pub unsafe fn add_large_object(&mut self, bd: BlockPtr) {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        self.n_large_blocks += d.blocks as usize;
        self.n_large_words += d.used_words();
        self.large_objects.push(bd);
    }

    /// Blocks it occupies, large objects included: what the policy weighs
    /// against `max_blocks`.
    pub fn occupied_blocks(&self) -> usize {
        self.n_blocks + self.n_large_blocks
    }

    /// Blocks it fills: `occupied_blocks` less the holes a non-moving
    /// space leaves between live objects (`n_free_words`), which promotion
    /// fills before the space takes a new block: what the policy weighs
    /// against `max_blocks` (See Note [Filled, not occupied] in
    /// `policy`). The same as `occupied_blocks` for bump-allocated blocks.
    pub fn filled_blocks(&self) -> usize {
        self.occupied_blocks().saturating_sub(self.n_free_words / (BLOCK_SIZE / WORD_SIZE))
    }

    /// Bytes of live data it holds (exact after it was collected).
    pub fn live_bytes(&self) -> usize {
        (self.n_words + self.n_large_words) * WORD_SIZE
    }

    /// Bytes of block space it holds.
    pub fn occupied_bytes(&self) -> usize {
        self.occupied_blocks() * BLOCK_SIZE
    }

    /// Words of its (small-object) blocks not free for allocation: objects,
    /// slop and the space an object's cell or block leaves unused.
    pub fn used_words(&self) -> usize {
        (self.n_blocks * BLOCK_SIZE / WORD_SIZE).saturating_sub(self.n_free_words)
    }
}
