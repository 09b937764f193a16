//! The block allocator: groups of contiguous blocks carved out of megablocks.
//!
//! Free groups sit on doubly linked free lists bucketed by size: bucket `k`
//! holds groups of `2^k ..= 2^(k+1) - 1` blocks. Allocation takes the first
//! group that fits from the smallest bucket that can hold the request and
//! splits off the rest; freeing coalesces with both neighbours in the same
//! megablock, and a megablock whose 252 blocks are all free again goes back
//! to the megablock pool (and from there, by `release`, to the OS).
//! Requests above one megablock's worth get a megablock group of their own.
//!
//! Invariants kept (and checked by `check`): the groups of every megablock
//! in use tile its data blocks; every free group is on the bucket its size
//! names, with `BF_FREE` on its head and its last descriptor linking back to
//! the head; no two free groups are adjacent; the block counts add up.

use crate::bdescr::{BlockDesc, BlockPtr, BF_FREE, BF_MEGA};
use crate::constants::*;
use crate::mblock::address_space::HeapRange;
use crate::mblock::{MBlockPool, MemoryPolicy, OutOfMemory};

// Note [Freeing blocks by the run]
// ----------------------------------------
// A sweep that frees the empty blocks of an old generation called
// `free_group` once per block: a coalescing with each neighbour and a
// free-list insertion, each touching descriptors that may not be in the
// cache. Blocks die together: a space cuts its blocks from fresh
// megablocks one after another and lists them in that order, so the
// empty ones a sweep finds come in long stretches of adjacent blocks.
// `BlockRuns` gathers the groups as they are found into
// runs of adjacent groups (each new group extends the last run at either
// end, or starts a new one), reading only the group's own descriptor and
// writing none, so a collector thread can gather them beside the
// mutators while the blocks still lie on the generation's list.
// `free_runs` then makes each run one group (its first descriptor's
// count) and frees that: one coalescing per run. The run's inner
// descriptors keep what they held, as the inner descriptors of groups
// coalesced by `free_group` always have (See Note [Group tails] in
// `bdescr`). Only the last run is looked at, so blocks that come out of
// order start runs of their own: correct, just less gathered.
//
// Measured (2-core machine, temporary timers in the pause): the sync
// that ends `concurrent-copying`'s sweep on binary-trees 20 freed 8,000
// to 102,000 empty blocks in 0.26-2.5 ms one by one; gathered, they made
// 236-2,222 runs (35-46 blocks a run) and took 6-190 us. The sweeps in a
// pause (mark-sweep, immix, nonmoving) gather the 475,000 blocks they
// free over a run of binary-trees 20 into 10,600 runs; their major GCs'
// time did not move (mark-sweep 1.014x, `nonmoving:mark=sync` 1.004x,
// 0.99-1.03, `scripts/ab -n 5`), since a sweep that has just read each
// block's descriptor frees it from the cache, but core's instructions
// fell 2%. Not used where blocks come back in the order a free list
// handed them out: a copying GC's from-space (binary-trees 20: 1.66
// million blocks in 1.15 million runs) and a compaction's emptied blocks
// (0.68 runs a block), where gathering costs more than it saves; nor
// for a copying-out cycle's from-space, its sparsest blocks, seldom
// neighbours.

/// Buckets: groups of 1 block up to 252 blocks fall in buckets 0..=7.
const NUM_BUCKETS: usize = 8;

/// The heap's block allocator.
#[derive(Debug)]
pub struct BlockAllocator {
    mblocks: MBlockPool,
    buckets: [*mut BlockDesc; NUM_BUCKETS],
    free_blocks: usize,
    used_blocks: usize,
    peak_used_blocks: usize,
}

// SAFETY: the allocator owns its megablocks and the free lists threaded
// through their descriptors; moving it to another thread moves all of that.
unsafe impl Send for BlockAllocator {}

impl Default for BlockAllocator {
    fn default() -> Self {
        BlockAllocator::new()
    }
}

fn bucket_of(blocks: usize) -> usize {
    debug_assert!(blocks >= 1);
    (usize::BITS - 1 - blocks.leading_zeros()) as usize
}

fn desc_at(mblock: usize, index: usize) -> *mut BlockDesc {
    (mblock + index * BDESCR_SIZE) as *mut BlockDesc
}

fn index_of(bd: *const BlockDesc) -> usize {
    (bd as usize & MBLOCK_MASK) / BDESCR_SIZE
}

fn mblock_of(bd: *const BlockDesc) -> usize {
    bd as usize & !MBLOCK_MASK
}

impl BlockAllocator {
    /// An allocator holding no memory yet.
    pub fn new() -> BlockAllocator {
        BlockAllocator::with_policy(MemoryPolicy::default())
    }

    /// An allocator holding no memory yet, whose megablocks are mapped and
    /// given back as `policy` says (See Notes [Returning memory lazily] and
    /// [Huge pages for the heap] in `mblock`).
    pub fn with_policy(policy: MemoryPolicy) -> BlockAllocator {
        BlockAllocator {
            mblocks: MBlockPool::with_policy(policy),
            buckets: [std::ptr::null_mut(); NUM_BUCKETS],
            free_blocks: 0,
            used_blocks: 0,
            peak_used_blocks: 0,
        }
    }

    /// A group of `n` contiguous blocks, described by its head.
    pub fn alloc_group(&mut self, n: usize) -> Result<BlockPtr, OutOfMemory> {
        assert!(n >= 1, "a block group has at least one block");
        if n > BLOCKS_PER_MBLOCK {
            return self.alloc_mega_group(n);
        }
        let bd = match self.take_free(n) {
            Some(bd) => bd,
            None => self.fresh_mblock()?,
        };
        // SAFETY: `bd` heads a free group of at least `n` blocks that we just
        // unlinked; nobody else refers to it.
        unsafe {
            let have = (*bd).blocks as usize;
            if have > n {
                let rest = desc_at(mblock_of(bd), index_of(bd) + n);
                self.insert_free(rest, have - n);
            }
            self.init_group(bd, n);
        }
        self.note_used(n as isize);
        Ok(BlockPtr(bd))
    }

    /// One block.
    #[inline]
    pub fn alloc_block(&mut self) -> Result<BlockPtr, OutOfMemory> {
        self.alloc_group(1)
    }

    /// Return a group to the free lists, coalescing with its neighbours.
    pub fn free_group(&mut self, group: BlockPtr) {
        let mut bd = group.0;
        // SAFETY: `group` heads a group the caller allocated from us and no
        // longer uses; its neighbours' descriptors lie in the same megablock.
        unsafe {
            debug_assert!(!(*bd).has(BF_FREE), "double free of a block group");
            let blocks = (*bd).blocks as usize;
            if (*bd).has(BF_MEGA) {
                self.note_used(-(blocks as isize));
                let mblocks = mblocks_for_blocks(blocks);
                self.mblocks.free_group(mblock_of(bd), mblocks);
                return;
            }
            self.note_used(-(blocks as isize));
            let mut size = blocks;
            // Coalesce with the group after us.
            let next_index = index_of(bd) + size;
            if next_index < BLOCKS_PER_MBLOCK_TOTAL {
                let next = desc_at(mblock_of(bd), next_index);
                if (*next).has(BF_FREE) {
                    size += (*next).blocks as usize;
                    self.unlink_free(next);
                }
            }
            // Coalesce with the group before us (found through its last
            // descriptor: See Note [Group tails] in bdescr).
            if index_of(bd) > FIRST_BLOCK {
                let before = desc_at(mblock_of(bd), index_of(bd) - 1);
                let head = if (*before).blocks == 0 { (*before).link } else { before };
                if (*head).has(BF_FREE) {
                    size += (*head).blocks as usize;
                    self.unlink_free(head);
                    bd = head;
                }
            }
            if size == BLOCKS_PER_MBLOCK {
                self.mblocks.free_group(mblock_of(bd), 1);
            } else {
                self.insert_free(bd, size);
            }
        }
    }

    /// Free `groups` (each heads a group the caller allocated from us and
    /// no longer uses, given once), gathered into runs first: for a
    /// generation's worth of blocks, cheaper than `free_group` on each
    /// (See Note [Freeing blocks by the run]).
    pub fn free_all(&mut self, groups: impl IntoIterator<Item = BlockPtr>) {
        let mut runs = BlockRuns::new();
        for group in groups {
            // SAFETY: this function's contract is `push`'s.
            unsafe { runs.push(group) };
        }
        self.free_runs(runs);
    }

    /// Free every run of `runs`: one group, and one coalescing, per run
    /// (See Note [Freeing blocks by the run]).
    pub fn free_runs(&mut self, runs: BlockRuns) {
        for (first, blocks) in runs.runs {
            // SAFETY: `BlockRuns::push`'s contract: a run is whole groups
            // of ours, adjacent in one megablock, none used any more, so
            // its first descriptor may head them all.
            unsafe { (*first.0).blocks = blocks as u32 };
            self.free_group(first);
        }
    }

    /// A GC that ran on `team` threads is ending: top up the megablock
    /// pool's reserve of touched megablocks, and let the next GC replace
    /// what it takes at once if this one left a core idle (See Note [When
    /// the reserve is topped up] in core's `mblock_threads::pretouch`).
    pub fn gc_ending(&mut self, team: usize) {
        self.mblocks.gc_team(team);
        self.mblocks.top_up_reserve();
    }

    /// Hand free megablocks back to the OS, keeping `keep` for reuse.
    pub fn release(&mut self, keep: usize) -> usize {
        self.mblocks.return_to_os(keep)
    }

    /// Blocks handed out and not yet freed.
    pub fn used_blocks(&self) -> usize {
        self.used_blocks
    }

    /// The most blocks handed out at once.
    pub fn peak_used_blocks(&self) -> usize {
        self.peak_used_blocks
    }

    /// Blocks on the free lists (not counting whole free megablocks).
    pub fn free_blocks(&self) -> usize {
        self.free_blocks
    }

    /// Sizes in blocks of every free group, whole free megablocks included
    /// (252 blocks each).
    pub fn free_group_sizes(&self) -> Vec<usize> {
        let mut sizes = Vec::new();
        for &first in &self.buckets {
            let mut bd = first;
            while !bd.is_null() {
                // SAFETY: free-list entries are live descriptors we own.
                unsafe {
                    sizes.push((*bd).blocks as usize);
                    bd = (*bd).link;
                }
            }
        }
        sizes.extend(std::iter::repeat_n(BLOCKS_PER_MBLOCK, self.mblocks.free_count()));
        sizes
    }

    /// The megablock pool underneath.
    pub fn mblocks(&self) -> &MBlockPool {
        &self.mblocks
    }

    /// The range of addresses every block of this allocator lies in, now
    /// and later (See `mblock::address_space`).
    pub fn heap_range(&mut self) -> Result<HeapRange, OutOfMemory> {
        self.mblocks.heap_range()
    }

    /// Is `addr` inside memory this allocator owns?
    pub fn owns(&self, addr: usize) -> bool {
        self.mblocks.contains(addr)
    }

    /// Check every invariant in the module doc; `Err` names the first broken.
    pub fn check(&self) -> Result<(), String> {
        let mut counted = 0;
        for (k, &first) in self.buckets.iter().enumerate() {
            let mut bd = first;
            let mut prev: *mut BlockDesc = std::ptr::null_mut();
            while !bd.is_null() {
                // SAFETY: free-list entries are descriptors in megablocks we own.
                let d = unsafe { &*bd };
                let n = d.blocks as usize;
                if !d.has(BF_FREE) {
                    return Err(format!("free list {k}: group at {:p} lacks BF_FREE", d.start));
                }
                if bucket_of(n) != k || d.bucket as usize != k {
                    return Err(format!("group of {n} blocks on free list {k}"));
                }
                if d.back != prev {
                    return Err(format!("free list {k}: broken back link at {:p}", d.start));
                }
                if n > 1 {
                    let last = desc_at(mblock_of(bd), index_of(bd) + n - 1);
                    // SAFETY: the group's last descriptor is in the same megablock.
                    if unsafe { (*last).link } != bd {
                        return Err(format!("free group at {:p}: last block does not link to head", d.start));
                    }
                }
                let next_index = index_of(bd) + n;
                if next_index < BLOCKS_PER_MBLOCK_TOTAL {
                    // SAFETY: as above.
                    if unsafe { (*desc_at(mblock_of(bd), next_index)).has(BF_FREE) } {
                        return Err(format!("free group at {:p} not coalesced with its successor", d.start));
                    }
                }
                if !self.mblocks.contains(d.start as usize) {
                    return Err(format!("free group at {:p} outside our megablocks", d.start));
                }
                counted += n;
                prev = bd;
                bd = d.link;
            }
        }
        if counted != self.free_blocks {
            return Err(format!("free lists hold {counted} blocks, counter says {}", self.free_blocks));
        }
        Ok(())
    }

    fn note_used(&mut self, delta: isize) {
        self.used_blocks = (self.used_blocks as isize + delta) as usize;
        self.peak_used_blocks = self.peak_used_blocks.max(self.used_blocks);
    }

    fn alloc_mega_group(&mut self, n: usize) -> Result<BlockPtr, OutOfMemory> {
        let mblocks = mblocks_for_blocks(n);
        let base = self.mblocks.alloc_group(mblocks)?;
        self.attach_summaries(base)?;
        let bd = desc_at(base, FIRST_BLOCK);
        let blocks = mblock_group_blocks(mblocks);
        // SAFETY: the first megablock of a fresh mapping; its descriptor
        // array is ours to write.
        unsafe {
            (*bd).reset(BlockDesc::block_start(bd), blocks as u32);
            (*bd).set_flags(BF_MEGA);
            // The first megablock's other descriptors are tails: no side
            // table hangs from them (See `init_group`).
            for i in FIRST_BLOCK + 1..crate::constants::BLOCKS_PER_MBLOCK_TOTAL {
                (*desc_at(base, i)).back = std::ptr::null_mut();
            }
        }
        self.note_used(blocks as isize);
        Ok(BlockPtr(bd))
    }

    /// Point the descriptors of the megablock at `base`, just taken from
    /// the pool, at its block summaries (See Note [Block summaries] in
    /// `bdescr`): a reused megablock may hold zeros there.
    fn attach_summaries(&mut self, base: usize) -> Result<(), OutOfMemory> {
        let slots = self.mblocks.heap_range()?.summary_slot(base);
        // SAFETY: a megablock the pool just handed us, in the heap's range,
        // whose summaries `AddressSpace::take` committed.
        unsafe { BlockDesc::attach_summaries(base, slots) };
        Ok(())
    }

    /// A fresh megablock as one free group of 252 blocks, not on any list.
    fn fresh_mblock(&mut self) -> Result<*mut BlockDesc, OutOfMemory> {
        let base = self.mblocks.alloc_one()?;
        self.attach_summaries(base)?;
        let bd = desc_at(base, FIRST_BLOCK);
        // SAFETY: a megablock we own and nobody uses; we write its head
        // descriptor only (the group is about to be split or handed out).
        unsafe {
            (*bd).reset(BlockDesc::block_start(bd), BLOCKS_PER_MBLOCK as u32);
        }
        Ok(bd)
    }

    /// Unlink and return the first free group of at least `n` blocks.
    fn take_free(&mut self, n: usize) -> Option<*mut BlockDesc> {
        for k in bucket_of(n)..NUM_BUCKETS {
            let mut bd = self.buckets[k];
            while !bd.is_null() {
                // SAFETY: free-list entries are live descriptors we own.
                let size = unsafe { (*bd).blocks as usize };
                if size >= n {
                    // SAFETY: as above.
                    unsafe { self.unlink_free(bd) };
                    return Some(bd);
                }
                // SAFETY: as above.
                bd = unsafe { (*bd).link };
            }
        }
        None
    }

    /// Make `bd` the head of a free group of `n` blocks and push it on its bucket.
    // SAFETY: `bd` is a descriptor of ours heading `n` blocks no one uses; we rewrite its head and last descriptor.
    unsafe fn insert_free(&mut self, bd: *mut BlockDesc, n: usize) {
        let k = bucket_of(n);
        (*bd).reset(BlockDesc::block_start(bd), n as u32);
        (*bd).set_flags(BF_FREE);
        (*bd).bucket = k as u16;
        if n > 1 {
            let last = desc_at(mblock_of(bd), index_of(bd) + n - 1);
            (*last).blocks = 0;
            (*last).set_flags(0);
            (*last).link = bd;
        }
        (*bd).link = self.buckets[k];
        if !self.buckets[k].is_null() {
            (*self.buckets[k]).back = bd;
        }
        self.buckets[k] = bd;
        self.free_blocks += n;
    }

    // SAFETY: `bd` is on free list `bd.bucket`, with valid neighbours.
    unsafe fn unlink_free(&mut self, bd: *mut BlockDesc) {
        let k = (*bd).bucket as usize;
        let (prev, next) = ((*bd).back, (*bd).link);
        if prev.is_null() {
            self.buckets[k] = next;
        } else {
            (*prev).link = next;
        }
        if !next.is_null() {
            (*next).back = prev;
        }
        (*bd).remove_flags(BF_FREE);
        self.free_blocks -= (*bd).blocks as usize;
    }

    /// Describe a freshly carved group of `n` blocks: head and tails.
    // SAFETY: `bd` heads `n` blocks inside one megablock of ours that we just took off the free lists.
    unsafe fn init_group(&mut self, bd: *mut BlockDesc, n: usize) {
        (*bd).reset(BlockDesc::block_start(bd), n as u32);
        for i in 1..n {
            let tail = desc_at(mblock_of(bd), index_of(bd) + i);
            (*tail).blocks = 0;
            (*tail).set_flags(0);
            (*tail).link = bd;
            // A tail may have been a free group's head, whose `back` was a
            // free-list link: side metadata reads `back` of the block of
            // any field (See Note [Side metadata] in `side_metadata`).
            (*tail).back = std::ptr::null_mut();
        }
    }
}

/// Groups to be freed together, gathered into runs of adjacent groups as
/// they come (See Note [Freeing blocks by the run]).
///
/// Invariant kept: each run is whole groups, adjacent, inside one
/// megablock; a megablock group is a run by itself.
#[derive(Debug, Default)]
pub struct BlockRuns {
    /// Each run: its first group's head, and its blocks.
    runs: Vec<(BlockPtr, usize)>,
    /// The groups pushed.
    groups: usize,
}

impl BlockRuns {
    /// No group yet.
    pub fn new() -> BlockRuns {
        BlockRuns::default()
    }

    /// Add `group`, to be freed with the others: it extends the last run
    /// if it lies just after or just before it, else starts a run.
    /// Reads the group's head descriptor and writes none.
    ///
    /// # Safety
    /// `group` heads a group of the allocator these runs will be freed
    /// to, pushed once, and nobody uses it from `free_runs` on.
    // SAFETY: reads the head descriptor of `group`, live under the caller's contract.
    pub unsafe fn push(&mut self, group: BlockPtr) {
        // SAFETY: the caller's contract: `group` heads a live group.
        let n = unsafe { (*group.0).blocks } as usize;
        self.groups += 1;
        self.add_run(group, n);
    }

    /// Move `other`'s runs after these, its first joined to our last if
    /// they are adjacent.
    pub fn append(&mut self, other: &mut BlockRuns) {
        let mut runs = std::mem::take(&mut other.runs).into_iter();
        if let Some((first, blocks)) = runs.next() {
            self.add_run(first, blocks);
        }
        self.runs.extend(runs);
        self.groups += std::mem::take(&mut other.groups);
    }

    /// Put the run of `n` blocks from `first` at the end: joined to the
    /// last run if it lies just after or just before it in the same
    /// megablock, neither being a megablock group.
    fn add_run(&mut self, first: BlockPtr, n: usize) {
        let (bd, mega) = (first.0, is_mega(first));
        if let Some((last_first, blocks)) = self.runs.last_mut() {
            let f = last_first.0;
            let joinable = !mega && !is_mega(*last_first) && mblock_of(f) == mblock_of(bd);
            if joinable && index_of(bd) == index_of(f) + *blocks {
                *blocks += n;
                return;
            }
            if joinable && index_of(bd) + n == index_of(f) {
                *last_first = first;
                *blocks += n;
                return;
            }
        }
        self.runs.push((first, n));
    }

    /// The groups pushed.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// Their blocks.
    pub fn blocks(&self) -> usize {
        self.runs.iter().map(|&(_, blocks)| blocks).sum()
    }

    /// The runs they make.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

/// Is the run starting at `first` a megablock group? (Its head was pushed
/// under `BlockRuns::push`'s contract, so it is a live descriptor.)
fn is_mega(first: BlockPtr) -> bool {
    // SAFETY: `BlockRuns::push`'s contract keeps the group live until it is freed.
    unsafe { (*first.0).has(BF_MEGA) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary byte a block's setters write is the one the GC reads
    /// through the heap's range, in a megablock of single blocks and in a
    /// megablock group (See Note [Block summaries] in `bdescr`).
    #[test]
    fn a_blocks_summary_is_read_through_the_heaps_range() {
        use crate::bdescr::{BF_EVACUATED, BF_LARGE, SUMMARY_STAYS, SUMMARY_UNCOMMON};
        let mut ba = BlockAllocator::new();
        let range = ba.heap_range().unwrap();
        let one = ba.alloc_block().unwrap();
        let mega = ba.alloc_group(2 * BLOCKS_PER_MBLOCK).unwrap();
        for (bd, flags, want) in [(one, BF_EVACUATED, SUMMARY_STAYS | 2), (mega, BF_LARGE, SUMMARY_UNCOMMON)] {
            // SAFETY: the groups are this test's alone.
            let d = unsafe { bd.get() };
            d.set_gen_no(2);
            d.insert_flags(flags);
            assert!(range.holds(d.start as usize));
            // SAFETY: the block lies in a megablock the allocator took.
            assert_eq!(unsafe { range.summary(d.start as usize) }, want);
            d.remove_flags(flags);
            // SAFETY: as above.
            assert_eq!(unsafe { range.summary(d.start as usize) }, 0);
        }
    }

    #[test]
    fn alloc_free_coalesce_round_trip() {
        let mut ba = BlockAllocator::new();
        let groups: Vec<BlockPtr> = [1, 2, 3, 5, 8, 13, 1, 1].iter().map(|&n| ba.alloc_group(n).unwrap()).collect();
        assert_eq!(ba.used_blocks(), 34);
        ba.check().unwrap();
        // Free every other group, then the rest: the megablock must come back whole.
        for g in groups.iter().step_by(2) {
            ba.free_group(*g);
            ba.check().unwrap();
        }
        for g in groups.iter().skip(1).step_by(2) {
            ba.free_group(*g);
            ba.check().unwrap();
        }
        assert_eq!(ba.used_blocks(), 0);
        assert_eq!(ba.free_blocks(), 0, "fully coalesced back into a free megablock");
        assert_eq!(ba.mblocks().free_count(), 1);
    }

    #[test]
    fn descriptor_lookup_finds_group_head() {
        let mut ba = BlockAllocator::new();
        let g = ba.alloc_group(4).unwrap();
        // SAFETY: a group fresh from the allocator is ours.
        let d = unsafe { g.read() };
        assert_eq!(d.blocks, 4);
        assert_eq!(BlockDesc::of(d.start), g.0);
        // A word in the third block of the group maps to a tail linking to the head.
        let inside = d.start as usize + 2 * BLOCK_SIZE + 16;
        let tail = BlockDesc::of_raw(inside);
        // SAFETY: the tail descriptor is in a megablock the allocator owns.
        unsafe {
            assert_eq!((*tail).blocks, 0);
            assert_eq!((*tail).link, g.0);
        }
    }

    /// Every block of a megablock, freed by the run in allocation order,
    /// in reverse, and in two interleaved halves, gives the megablock
    /// back whole; a block left in use between two runs is not freed
    /// with them, and coalesces with both when it is freed.
    #[test]
    fn runs_free_adjacent_groups_as_one() {
        for order in ["forward", "reverse", "halves"] {
            let mut ba = BlockAllocator::new();
            let mut blocks: Vec<BlockPtr> = (0..BLOCKS_PER_MBLOCK).map(|_| ba.alloc_block().unwrap()).collect();
            assert_eq!(ba.mblocks().mapped(), 1);
            match order {
                "reverse" => blocks.reverse(),
                "halves" => {
                    let (evens, odds): (Vec<_>, Vec<_>) = blocks.iter().enumerate().partition(|(i, _)| i % 2 == 0);
                    blocks = evens.into_iter().chain(odds).map(|(_, b)| *b).collect();
                }
                _ => {}
            }
            let mut runs = BlockRuns::new();
            for &bd in &blocks {
                // SAFETY: groups of this allocator, pushed once, unused since.
                unsafe { runs.push(bd) };
            }
            let expected_runs = if order == "halves" { BLOCKS_PER_MBLOCK } else { 1 };
            assert_eq!((runs.groups(), runs.blocks(), runs.runs()), (BLOCKS_PER_MBLOCK, BLOCKS_PER_MBLOCK, expected_runs), "{order}");
            ba.free_runs(runs);
            ba.check().unwrap();
            assert_eq!((ba.used_blocks(), ba.mblocks().mapped(), ba.mblocks().free_count()), (0, 1, 1), "{order}: the megablock is free whole");
        }
        let mut ba = BlockAllocator::new();
        let groups: Vec<BlockPtr> = [1, 3, 1, 2, 1, 1].iter().map(|&n| ba.alloc_group(n).unwrap()).collect();
        let mut runs = BlockRuns::new();
        for &g in groups.iter().take(3).chain(groups.iter().skip(4)) {
            // SAFETY: as above; groups[3] stays in use.
            unsafe { runs.push(g) };
        }
        assert_eq!((runs.groups(), runs.blocks(), runs.runs()), (5, 7, 2));
        let mut whole = BlockRuns::new();
        let mut more = BlockRuns::new();
        // SAFETY: as above: a group pushed once.
        unsafe { more.push(ba.alloc_block().unwrap()) };
        whole.append(&mut runs);
        whole.append(&mut more);
        assert_eq!((whole.groups(), whole.blocks(), whole.runs(), more.groups()), (6, 8, 2, 0), "a run appended joins the last run it adjoins");
        let runs = whole;
        ba.free_runs(runs);
        ba.check().unwrap();
        assert_eq!(ba.used_blocks(), 2, "the group between the runs is still in use");
        ba.free_group(groups[3]);
        ba.check().unwrap();
        assert_eq!((ba.used_blocks(), ba.mblocks().free_count()), (0, 1), "it coalesced with the runs on both sides");
    }

    #[test]
    fn split_reuses_freed_space_first_fit() {
        let mut ba = BlockAllocator::new();
        let a = ba.alloc_group(10).unwrap();
        let _b = ba.alloc_group(1).unwrap();
        ba.free_group(a);
        let c = ba.alloc_group(3).unwrap();
        // SAFETY: both are live groups of this test's allocator (`a`'s
        // descriptor is still the head of the hole `c` was cut from).
        assert_eq!(unsafe { c.read() }.start, unsafe { a.read() }.start, "the freed 10-block hole is reused");
        assert_eq!(ba.mblocks().mapped(), 1);
        ba.check().unwrap();
    }

    #[test]
    fn mega_groups_for_huge_requests() {
        let mut ba = BlockAllocator::new();
        let g = ba.alloc_group(600).unwrap();
        // SAFETY: a group fresh from the allocator is ours.
        let d = unsafe { g.read() };
        assert!(d.blocks as usize >= 600);
        assert!(d.has(BF_MEGA));
        assert_eq!(ba.mblocks().mapped(), 3);
        ba.free_group(g);
        assert_eq!(ba.mblocks().mapped(), 0);
        assert_eq!(ba.used_blocks(), 0);
    }

    #[test]
    fn fills_many_megablocks_and_releases_them() {
        let mut ba = BlockAllocator::new();
        let blocks: Vec<BlockPtr> = (0..1000).map(|_| ba.alloc_block().unwrap()).collect();
        assert_eq!(ba.mblocks().mapped(), 4); // ceil(1000 / 252)
        for b in blocks {
            ba.free_group(b);
        }
        ba.check().unwrap();
        assert_eq!(ba.mblocks().free_count(), 4);
        assert_eq!(ba.release(1), 3);
        assert_eq!(ba.mblocks().mapped(), 1);
    }
}
