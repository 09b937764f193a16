//! A GC thread's private state: its to-space blocks and its bookkeeping.
//!
//! Each GC thread copies into blocks of its own, one "todo" block per
//! generation (GHC's `gc_thread` and its `gen_workspace`s), so copying
//! takes no lock except when a block fills and a fresh one is needed. Full
//! blocks whose objects are not yet scanned wait on `pending`; scanned ones
//! on `done`. The bump pointer of the block being filled lives here, not
//! in its descriptor, to keep the copy loop's state in one cache line. A
//! block's Cheney scan pointer is its descriptor's `scan` field, so a
//! block can be scanned a piece at a time while it is still being filled.
//!
//! A generation kept in another space (See `space`) has no block of its
//! own here: its `ToSpace` holds that space's allocator instead, and its
//! bump region, when it has one, is a run of the space's free words that
//! the allocator lent (See Note [Runs a space lends] in `lent_runs`);
//! objects the allocator places one by one go on the scan stack.
//!
//! Also here: the mark bits of the blocks kept in place (shared by the GC
//! threads) and the scan stack, which holds the objects marked in place
//! or placed by a space, not yet scanned; the evacuation state (`evac_gen`, `eager_promotion`,
//! `failed_to_evac`, See Note [Eager promotion]), the large objects found
//! live, the weak pointers kept, the new mutable lists, and the counters
//! that become the thread's `ThreadWork`.
//!
//! Note [The block being scanned]
//! ----------------------------------------
//! A thread often scans the very block it is copying into (Cheney's scan
//! chasing the free pointer). When that block fills up, it must not be
//! queued as work: another thread could steal it and scan the same objects
//! while this one is still at it. It goes straight to `done` instead; the
//! scan in progress carries on to its new, final free pointer.
//!
//! Note [Sharing part-filled blocks]
//! ----------------------------------------
//! A thread mostly scans the block it is filling, so full blocks reach its
//! work queue rarely, and an idle thread could starve while the busy one
//! has plenty of unscanned objects. As GHC does (`WORK_UNIT_WORDS`), while
//! some thread is idle, a busy thread hands out its block being filled
//! once it holds at least `WORK_UNIT_WORDS` unscanned words (unless it is
//! scanning that very block), and carries on in a fresh block. The rest of
//! the shared block is left empty: some slop, for balance. Objects on the
//! scan stack (marked in place, or placed by a space) are shared too:
//! while some thread is idle, a thread whose scan stack holds two objects
//! or more hands out the older half of it, from the bottom, as one work
//! item (See Note [Sharing the bottom of the scan stack]).
//!
//! Note [Sharing the bottom of the scan stack]
//! ----------------------------------------
//! Marking in place is depth-first: the scan stack holds, for each level
//! of the path being followed, the siblings not yet scanned, so a deep
//! structure is marked with a short stack (binary-trees' trees, about one
//! entry a level), and the entries at the bottom are the roots of the
//! largest unmarked subtrees. Handing out the top half of a stack only
//! once it held 64 entries (as this did first) shared nothing of a tree:
//! the stack never grew that long, one thread marked the whole old
//! generation while the other spun for work, and mark-sweep's major GCs
//! took 1.33x their one-thread time at `-qn2` (binary-trees 20, 2 cores;
//! 0.9x speedup at 2 to 8 threads on a 16-core machine). The bottom half,
//! from two entries up, hands out the biggest pieces of work there are,
//! which is what stealing from the bottom of a deque does in a
//! work-stealing marker (Arora, Blumofe and Plaxton's deques; the
//! Flood et al. parallel collectors).
//!
//! Note [No false sharing]
//! ----------------------------------------
//! A GC thread writes its to-space bump pointers and its counters at every
//! object it copies. Kept in plain heap allocations made one after another
//! for each thread, two threads' hottest words could share a cache line,
//! which would then move between cores at every copy. `ToSpace` and
//! `GcThread` are aligned to 128 bytes (two lines, for the adjacent-line
//! prefetcher) to rule that out. On the 2-core development machine the
//! change measured within noise (binary-trees 20, -qn2 -qb0); it is a
//! precaution for machines with more cores.
//!
//! Note [Fresh blocks in batches]
//! ----------------------------------------
//! A GC thread needs a fresh to-space block for every 4 KiB it copies, and
//! the block allocator is one structure behind one lock. In a parallel GC
//! every thread fills blocks at the same pace, so taking them one at a
//! time made the lock, and the allocator's free lists with it, move
//! between cores about 12,000 times in a major GC of binary-trees 19 (50
//! MB copied). As GHC's `alloc_todo_block` does, a thread that shares the
//! heap takes `FRESH_BLOCK_BATCH` (16) blocks under one lock and uses them
//! one by one; the blocks left at the end of the GC go back when the
//! thread is dropped. A thread alone takes one at a time: its lock is
//! uncontended, and unused blocks would only map memory that the heap
//! never uses.
//! Measured on binary-trees 19 (`-N2 -qn2 -A1m`, three alternated runs):
//! major GCs took 0.195-0.198 s instead of 0.225-0.239 s, and 0.37 s of
//! CPU instead of 0.43 s; five rounds beside GHC 9.0 on the same program
//! read a major-GC speedup over `-qn1` of 1.71x (1.62-1.83) for gclab and
//! 1.68x (1.65-1.69) for GHC.
//!
//! Note [Resuming a part-filled block]
//! ----------------------------------------
//! A GC that promotes a little into a generation it does not collect
//! leaves that generation's last to-space block part-filled, and the next
//! GC used to start a fresh block there, so the generation gained a
//! block per GC whatever it gained in words. As GHC's
//! `init_uncollected_gen` does, the first GC thread now takes the last
//! block of each uncollected generation back as its block being filled
//! when at least `WORK_UNIT_WORDS` of it are free (`resume_part_filled`):
//! its objects stay where they are, its scan pointer starts at its old
//! fill level (the objects below were scanned by the GC that copied them,
//! and their pointers to younger generations are on mutable lists), and
//! the block goes back into the generation at the end of the GC with its
//! new fill level. Before this, power 1200 14's old generation held up to
//! 217 blocks for 55 blocks of objects, and the policy, which weighs a
//! generation's blocks against its limit, counted the empty space: at
//! binary-trees 21, whose stretch tree promotes about a megabyte at each
//! GC, one block too many brought the second major GC one minor GC early,
//! and from there every major GC fell sooner than GHC's (the first 7 at
//! GCs 3, 6, 12, .. 192 against GHC's 3, 7, 14, .. 225).
//!
//! Note [Eager promotion]
//! ----------------------------------------
//! When the scavenger scans an object that lives in generation g, the
//! objects it points to are copied to generation g at least (`evac_gen`),
//! even if their own age would put them younger: otherwise g would point
//! into a younger generation and the object would need a mutable-list
//! entry. If a child cannot be moved that far (it was already copied
//! younger, or it lives in a generation not being collected), the scan sets
//! `failed_to_evac` and the object goes on g's mutable list. Mutable
//! objects are scanned without eager promotion: they are likely to be
//! written again soon, so promoting what they point to now is often wasted
//! (GHC does the same).

use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_EVACUATED};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::mblock::address_space::HeapRange;
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::object::Layout;
use gclab_core::ThreadWork;
use crate::mark::MarkBitmap;
use crate::prefetch_ring::Judge;
use crate::reach::Reach;
use crate::space::SpaceAllocator;
use crate::lent_runs::LentRuns;
use crate::gc_workers::Company;
use crate::work_stealing::{Roster, Worker};
use gclab_core::constants::WORD_SIZE;
use gclab_core::shim::{reintroduced, Race};
use std::sync::Arc;
use gclab_core::lock::Lock;

/// Blocks a GC thread of a parallel GC takes from the block allocator at
/// once (See Note [Fresh blocks in batches]).
pub const FRESH_BLOCK_BATCH: usize = 16;

/// Unscanned words that make a part-filled block worth sharing.
pub const WORK_UNIT_WORDS: usize = 128;

/// Objects on the scan stack that make the older half of it worth sharing
/// (See Note [Sharing the bottom of the scan stack]).
pub const WORK_UNIT_OBJECTS: usize = 2;

/// May block `bd` be queued as work for other threads? Not while this
/// thread is scanning it (See Note [The block being scanned]).
#[inline(always)]
pub fn may_hand_out(bd: BlockPtr, scanning: Option<BlockPtr>) -> bool {
    scanning != Some(bd) || reintroduced(Race::HandOutBlockBeingScanned)
}

/// A unit of work on a GC thread's deque, which idle threads steal: a
/// to-space block with unscanned objects, or objects from a scan stack.
#[derive(Debug)]
pub enum Work {
    /// A to-space block; it becomes the thief's.
    Block(BlockPtr),
    /// Objects to scan.
    Objects(Vec<*mut Word>),
    /// Objects placed one after another in a run a space lent, from the
    /// first address up to the second (See `lent_runs`).
    Run(*mut Word, *mut Word),
}

// SAFETY: a work item is owned by one thread at a time (the deque hands
// it from the pusher to exactly one popper or thief); the objects and
// blocks it names are the GC's, scanned by whoever holds the item.
unsafe impl Send for Work {}

/// To-space of one generation, for one GC thread. Aligned to two cache
/// lines, so that the bump pointers of different GC threads, written at
/// every copy, never share a line (See Note [No false sharing]).
#[repr(align(128))]
pub struct ToSpace<'h> {
    /// Next free word of the block being filled (its descriptor's `free`
    /// is brought up to date only when the block is left: See
    /// `limit_of`).
    pub hp: *mut Word,
    /// End of the block being filled.
    pub lim: *mut Word,
    /// The block being filled.
    pub current: Option<BlockPtr>,
    /// Full blocks not yet completely scanned.
    pub pending: Vec<BlockPtr>,
    /// Full, scanned blocks.
    pub done: Vec<BlockPtr>,
    /// Large objects that survived into this generation.
    pub large: Vec<BlockPtr>,
    /// Weak pointers kept in this generation.
    pub weak_ptrs: Vec<ObjPtr>,
    /// Objects of this generation that point into a younger one.
    pub mut_list: Vec<ObjPtr>,
    /// The allocator of the generation's space, when it is not bump
    /// blocks (See `space`); `hp` and `lim` are then null or a lent run's.
    pub space: Option<Box<dyn SpaceAllocator + 'h>>,
    /// The runs `space` lent this thread (See `lent_runs`).
    pub lent: LentRuns,
}

impl Default for ToSpace<'_> {
    fn default() -> Self {
        ToSpace {
            hp: std::ptr::null_mut(),
            lim: std::ptr::null_mut(),
            current: None,
            pending: Vec::new(),
            done: Vec::new(),
            large: Vec::new(),
            weak_ptrs: Vec::new(),
            mut_list: Vec::new(),
            space: None,
            lent: LentRuns::default(),
        }
    }
}

/// A GC thread (aligned like `ToSpace`, for its counters).
#[repr(align(128))]
pub struct GcThread<'h> {
    /// Object layout.
    pub layout: Layout,
    /// Generations `0..=collect_gen` are being collected.
    pub collect_gen: usize,
    /// The oldest generation's number.
    pub oldest: usize,
    /// See Note [Eager promotion].
    pub evac_gen: usize,
    /// See Note [Eager promotion].
    pub eager_promotion: bool,
    /// See Note [Eager promotion].
    pub failed_to_evac: bool,
    /// To-space per generation.
    pub to: Vec<ToSpace<'h>>,
    /// Large objects evacuated but not yet scavenged.
    pub large_todo: Vec<BlockPtr>,
    /// Mark bits of the blocks kept in place in this GC (`BF_MARK_IN_PLACE`),
    /// shared by every GC thread; None when no block is.
    pub marks: Option<&'h MarkBitmap>,
    /// Objects marked in place or placed by a space, not yet scanned (See
    /// Note [Scanning what a space places] in `space`).
    pub scan_stack: Vec<*mut Word>,
    /// Copy depth first: every object copied goes on `scan_stack` and is
    /// scanned from there, fields last to first (See Note [Copying depth
    /// first] in `copy_order`). One GC thread only.
    pub depth_first: bool,
    /// Which samples of a marking say whether the prefetch ring is used
    /// (See Note [Judging a depth-first marking] in `prefetch_ring`).
    pub judge: Judge,
    /// How far the objects of each block being compacted point, recorded
    /// as they are marked; None unless a compaction asked (See Note
    /// [Blocks whose pointers stay put] in `reach`).
    pub reach: Option<Reach>,
    /// Objects marked in place whose scan is left to a concurrent marker
    /// (the nonmoving collector's snapshot: See Note [The snapshot] in
    /// `nonmoving`); None when this GC scans what it marks.
    pub deferred: Option<Vec<*mut Word>>,
    /// Every object of a generation not collected that this GC reached, for a concurrent marker that attaches its snapshot
    /// after the pause (See Note [The marker attaches its snapshot] in
    /// `concurrent_mark::attach`); None when nobody asks.
    pub old_reached: Option<Vec<*mut Word>>,
    /// An unmarked object in a block marked in place is young, not old
    /// and unmarked yet (sticky mark bits: See Note [Young objects in old
    /// blocks] in `scavenge`).
    pub sticky: bool,
    /// The block `scavenge_block` is scanning now, if any (See Note [The
    /// block being scanned]).
    pub scanning: Option<BlockPtr>,
    /// Full to-space blocks with unscanned objects that other GC threads
    /// may steal (a parallel GC with load balancing; See `work_stealing`).
    /// When None, such blocks wait on their generation's `pending` list.
    pub todo_q: Option<Worker<Work>>,
    /// Does this thread share from-space with other GC threads? Then
    /// objects are claimed by compare-and-swap (See Note [Claiming an
    /// object] in `evacuate`), except immutable ones outside the blocks of
    /// weak keys (See Note [Copying an immutable object twice]); alone, a
    /// plain store does.
    pub parallel: bool,
    /// The leader of a GC without balancing: the pool threads it lets in,
    /// and through them whether it is alone (`parallel`), checked between
    /// blocks (See Note [A GC thread alone claims nothing] in `gc_workers`).
    pub company: Option<Company>,
    /// The team's members and idle ones, when balancing: while any member
    /// is idle, part-filled blocks are shared too (See Note [Sharing
    /// part-filled blocks]).
    pub roster: Option<Arc<Roster>>,
    /// The heap's address range: a pointer outside it is a static object
    /// (See Note [The block before the object] in `evacuate`).
    pub heap: HeapRange,
    /// Where fresh blocks come from.
    blocks: &'h Lock<BlockAllocator>,
    /// Blocks taken from the allocator in a batch and not used yet; given
    /// back when the thread is dropped (See Note [Fresh blocks in batches]).
    fresh: Vec<BlockPtr>,
    /// Counters.
    pub work: ThreadWork,
}

/// The blocks of a batch not used by the end of the GC go back to the
/// allocator.
impl Drop for GcThread<'_> {
    fn drop(&mut self) {
        if self.fresh.is_empty() {
            return;
        }
        let mut ba = self.blocks.lock();
        for bd in self.fresh.drain(..) {
            ba.free_group(bd);
        }
    }
}

// SAFETY: a GcThread's raw pointers point into the to-space blocks it
// alone fills (and its mark stack into objects it alone scans); moving it to
// another thread moves that ownership with it. Parallel GCs hand each one
// to exactly one GC thread.
unsafe impl Send for GcThread<'_> {}

impl<'h> GcThread<'h> {
    /// A thread for a collection of `0..=collect_gen` in a heap of `gens`.
    pub fn new(layout: Layout, collect_gen: usize, gens: usize, blocks: &'h Lock<BlockAllocator>) -> GcThread<'h> {
        GcThread {
            layout,
            collect_gen,
            oldest: gens - 1,
            evac_gen: 0,
            eager_promotion: true,
            failed_to_evac: false,
            to: (0..gens).map(|_| ToSpace::default()).collect(),
            large_todo: Vec::new(),
            marks: None,
            scan_stack: Vec::new(),
            depth_first: false,
            judge: Judge::EverySample,
            reach: None,
            deferred: None,
            old_reached: None,
            sticky: false,
            todo_q: None,
            scanning: None,
            parallel: false,
            company: None,
            roster: None,
            heap: blocks.lock().heap_range().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e)),
            blocks,
            fresh: Vec::new(),
            work: ThreadWork::default(),
        }
    }

    /// The leader of a GC without balancing: let in the pool threads that
    /// have arrived, and learn whether it is alone (See Note [A GC thread
    /// alone claims nothing] in `gc_workers`).
    #[inline(always)]
    pub fn poll_company(&mut self) {
        if let Some(c) = &self.company {
            c.poll(&mut self.parallel);
        }
    }

    /// Take back, as the block being filled, the last block of each
    /// generation not collected by this GC that lives in bump blocks, if
    /// it has `WORK_UNIT_WORDS` free (See Note [Resuming a part-filled
    /// block]). Called on the first GC thread before tracing.
    ///
    /// # Safety
    /// The GC holds the heap: the generations' blocks are its to change.
    // SAFETY: the caller's contract: the descriptors read and written are the uncollected generations' blocks, which the GC holds.
    pub unsafe fn resume_part_filled(&mut self, gens: &mut [Generation]) {
        for (g, gen) in gens.iter_mut().enumerate().skip(self.collect_gen + 1) {
            let ts = &mut self.to[g];
            let Some(&bd) = gen.blocks.last() else { continue };
            // SAFETY: the caller's contract.
            let d = unsafe { bd.get() };
            let room = (d.end() as usize - d.free as usize) / WORD_SIZE;
            if ts.space.is_some() || ts.current.is_some() || d.blocks != 1 || d.flags != BF_EVACUATED || room <= WORK_UNIT_WORDS {
                continue;
            }
            gen.blocks.pop();
            gen.n_blocks -= 1;
            gen.n_words -= d.used_words();
            d.scan = d.free;
            ts.current = Some(bd);
            ts.hp = d.free;
            ts.lim = d.end();
        }
    }

    /// Room for `words` words in generation `gen`'s to-space.
    #[inline(always)]
    pub fn alloc_to(&mut self, gen: usize, words: usize) -> *mut Word {
        let ts = &mut self.to[gen];
        let p = ts.hp;
        let new_hp = p.wrapping_add(words);
        if new_hp <= ts.lim && !p.is_null() {
            ts.hp = new_hp;
            return p;
        }
        // A run of cells lent for objects of this size: See Note [Runs a
        // space lends] in `lent_runs`.
        if let Some(p) = ts.lent.bump_cell(words) {
            return p;
        }
        self.alloc_to_slow(gen, words)
    }

    /// Mark the object at `p` (of `size` words, in a block kept in place);
    /// the thread whose mark it is scans it later, unless it is a `leaf`,
    /// an object without pointer fields, which has nothing to scan (See
    /// Note [A leaf is marked, not pushed] in `evacuate`). See
    /// `MarkBitmap::mark`.
    #[inline(always)]
    pub fn mark_in_place(&mut self, p: *mut Word, size: usize, leaf: bool) {
        let marks = self.marks.expect("a block is marked in place only when the collector gave the GC a mark bitmap");
        // SAFETY: `p` lies in a block marked in place, whose descriptor's
        // aux word is its map's number (`MarkBitmap::attach`).
        let block = unsafe { (*BlockDesc::of(p)).aux } as usize;
        if let Some(reach) = self.reach.as_mut() {
            reach.points_to(block);
        }
        if !marks.mark_in(p, size, block) {
            return;
        }
        match self.deferred.as_mut() {
            Some(deferred) => deferred.push(p),
            None => {
                if !leaf {
                    self.scan_stack.push(p);
                }
                self.work.marked_words += size;
            }
        }
    }

    /// Where the objects of to-space block `bd` of generation `gen` end
    /// now: the bump pointer if it is the block being filled.
    #[inline(always)]
    pub fn limit_of(&self, gen: usize, bd: BlockPtr) -> *mut Word {
        let ts = &self.to[gen];
        if ts.current == Some(bd) {
            ts.hp
        } else {
            // SAFETY: `bd` is one of this thread's to-space blocks, which
            // only this thread touches during the GC.
            unsafe { bd.read() }.free
        }
    }

    /// A new run from the generation's space, or a fresh to-space block.
    #[cold]
    fn alloc_to_slow(&mut self, gen: usize, words: usize) -> *mut Word {
        if self.to[gen].space.is_some() {
            return self.place_in_space(gen, words);
        }
        let ts = &mut self.to[gen];
        if let Some(old) = ts.current.take() {
            // SAFETY: the block being filled is this thread's own.
            let d = unsafe { old.get() };
            d.free = ts.hp;
            if d.scan < d.free && may_hand_out(old, self.scanning) {
                match &self.todo_q {
                    Some(q) => q.push(Work::Block(old)),
                    None => ts.pending.push(old),
                }
            } else {
                ts.done.push(old);
            }
        }
        let bd = self.fresh_block();
        // SAFETY: a block fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        d.set_flags(BF_EVACUATED);
        d.set_gen_no(gen as u16);
        d.dest_no = (gen + 1).min(self.oldest) as u16;
        d.scan = d.start;
        let ts = &mut self.to[gen];
        ts.current = Some(bd);
        ts.hp = d.start.wrapping_add(words);
        ts.lim = d.end();
        d.start
    }

    /// An unused block for to-space: from this thread's batch, which a
    /// thread sharing the heap refills `FRESH_BLOCK_BATCH` blocks at a
    /// time (See Note [Fresh blocks in batches]).
    fn fresh_block(&mut self) -> BlockPtr {
        if let Some(bd) = self.fresh.pop() {
            return bd;
        }
        let batch = if self.parallel { FRESH_BLOCK_BATCH } else { 1 };
        let mut ba = self.blocks.lock();
        for _ in 0..batch {
            self.fresh.push(ba.alloc_block().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e)));
        }
        drop(ba);
        self.fresh.pop().expect("a batch holds a block")
    }

    /// If another GC thread is idle, hand out the blocks being filled that
    /// hold enough unscanned work, and half of a long scan stack (See Note
    /// [Sharing part-filled blocks]).
    #[inline]
    pub fn share_work(&mut self) {
        let Some(roster) = self.roster.as_deref() else { return };
        if roster.idle() > 0 && self.todo_q.is_some() {
            self.hand_out_work();
        }
    }

    /// `share_work` once a thread is idle: kept out of line, so that the
    /// scan loops that test for idle threads stay as small as they were
    /// (inlined, it grew `scavenge_block` by a tenth and made copying's GC
    /// execute 1.7% more instructions, binary-trees 17 under cachegrind).
    #[inline(never)]
    fn hand_out_work(&mut self) {
        let Some(q) = self.todo_q.as_ref() else { return };
        for ts in self.to.iter_mut() {
            let Some(bd) = ts.current else { continue };
            // SAFETY: the block being filled is this thread's own.
            let d = unsafe { bd.get() };
            if !may_hand_out(bd, self.scanning) || (ts.hp as usize - d.scan as usize) / WORD_SIZE < WORK_UNIT_WORDS {
                continue;
            }
            d.free = ts.hp;
            ts.current = None;
            ts.hp = std::ptr::null_mut();
            ts.lim = std::ptr::null_mut();
            q.push(Work::Block(bd));
        }
        if self.scan_stack.len() >= WORK_UNIT_OBJECTS {
            // See Note [Sharing the bottom of the scan stack].
            let older: Vec<*mut Word> = self.scan_stack.drain(..self.scan_stack.len() / 2).collect();
            q.push(Work::Objects(older));
        }
        self.share_lent();
    }

    /// Give back the last `words` words of generation `gen`'s to-space
    /// if they are the most recent allocation, at `to`. False if the block
    /// has been left since (the words then stay as garbage). In a run a
    /// space lent, the words given back are zeroed: the space takes every
    /// word past the run's fill pointer for free, and a free word of a
    /// space is zero (a stale copy there would be walked as an object).
    ///
    /// # Safety
    /// `to` is the address `alloc_to(gen, words)` returned to this thread
    /// in this GC, and nothing points to the copy made there.
    #[inline]
    // SAFETY: the caller's contract: the words are this thread's own copy, which nothing else reads.
    pub unsafe fn unalloc_to(&mut self, gen: usize, to: *mut Word, words: usize) -> bool {
        let ts = &mut self.to[gen];
        if ts.hp != to.wrapping_add(words) {
            return false;
        }
        ts.hp = to;
        if ts.space.is_some() {
            // SAFETY: the words are the copy just made at the end of this
            // thread's lent run, which no one else reads or writes.
            unsafe { std::ptr::write_bytes(to, 0, words) };
        }
        true
    }

    /// The copy at `to` in generation `gen`'s to-space lost its claim and
    /// could not be given back (`unalloc_to` said false): tell the space
    /// it was placed in, if any (`SpaceAllocator::lost`).
    pub fn lost_copy(&mut self, gen: usize, to: *mut Word) {
        if let Some(space) = self.to[gen].space.as_mut() {
            space.lost(to);
        }
    }

    /// The block allocator (its lock also guards large-object claims).
    pub fn blocks(&self) -> &'h Lock<BlockAllocator> {
        self.blocks
    }

    /// Generation an object evacuated from a block with `dest_no` goes to,
    /// given the current `evac_gen` (See Note [Eager promotion]).
    #[inline(always)]
    pub fn destination(&mut self, dest_no: usize) -> usize {
        if dest_no >= self.evac_gen {
            dest_no
        } else if self.eager_promotion {
            self.evac_gen
        } else {
            self.failed_to_evac = true;
            dest_no
        }
    }

    /// Every to-space block of generation `gen`, scanned or not.
    pub fn take_blocks(&mut self, gen: usize) -> Vec<BlockPtr> {
        let ts = &mut self.to[gen];
        if let Some(bd) = ts.current.take() {
            // SAFETY: the block being filled is this thread's own.
            unsafe { bd.get() }.free = ts.hp;
            ts.done.push(bd);
        }
        ts.hp = std::ptr::null_mut();
        ts.lim = std::ptr::null_mut();
        let mut all = std::mem::take(&mut ts.done);
        all.append(&mut ts.pending);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::constants::BLOCK_WORDS;

    #[test]
    fn a_thread_sharing_the_heap_takes_blocks_in_batches_and_gives_back_the_rest() {
        let blocks = Lock::new(BlockAllocator::new());
        let mut alone = GcThread::new(Layout::new(false), 0, 2, &blocks);
        alone.alloc_to(1, 3);
        assert_eq!(blocks.lock().used_blocks(), 1, "a thread alone takes one block at a time");
        let mut shared = GcThread::new(Layout::new(false), 0, 2, &blocks);
        shared.parallel = true;
        shared.alloc_to(1, 3);
        assert_eq!(blocks.lock().used_blocks(), 1 + FRESH_BLOCK_BATCH, "one batch, under one lock");
        for _ in 1..FRESH_BLOCK_BATCH {
            shared.alloc_to(1, BLOCK_WORDS);
        }
        assert_eq!(blocks.lock().used_blocks(), 1 + FRESH_BLOCK_BATCH, "the batch's blocks are used before another is taken");
        shared.alloc_to(1, BLOCK_WORDS);
        assert_eq!(blocks.lock().used_blocks(), 1 + 2 * FRESH_BLOCK_BATCH);
        drop(shared);
        assert_eq!(blocks.lock().used_blocks(), 1 + FRESH_BLOCK_BATCH + 1, "the blocks never used go back; the 17 filled stay, to-space's");
        drop(alone);
        assert_eq!(blocks.lock().used_blocks(), 1 + FRESH_BLOCK_BATCH + 1);
    }
}
