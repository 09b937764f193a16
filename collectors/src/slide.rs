//! Sliding compaction: slide the marked objects of a generation's blocks
//! down to the start of those blocks, and fix every pointer to them.
//!
//! Three phases after marking (the objects were marked by `evacuate` and
//! scanned by `scavenge_loop` like any other live object):
//!
//! 1. **Plan** (`compaction_plan`). Walk the blocks in list order with a
//!    destination cursor; give each block a plan saying where its live
//!    words go (See Note [Compaction by counting]), or that it stays
//!    where it is, nearly all live (See Note [Blocks left in place] in
//!    `compaction_plan`). Only the mark bits are read: a block's live
//!    words are a popcount, and where they straddle a destination block
//!    the cut is found from the recorded object starts (Note [Object
//!    starts] in `mark`).
//! 2. **Update.** Visit every pointer slot that may point into the blocks
//!    being compacted, outside the blocks that will move, and replace
//!    each such pointer by the object's new address: the roots, the
//!    to-space copies, the large objects, and the blocks of the identity
//!    prefix (which keep their place) unless they point only into it (See
//!    Note [Blocks whose pointers stay put] in `reach`). The GC threads
//!    share this pass (See Note [Updating on several threads]).
//! 3. **Slide.** For each block after the prefix, in list order: fix the
//!    pointers of its marked objects (found from their recorded starts)
//!    where they lie, then move each run of marked words to its new
//!    address (a run is cut in two only where the block's split falls in
//!    it). The destination never overtakes the source (See Note [Sliding
//!    is safe] in `compaction_plan`), so a `memmove` per run suffices.
//!    Fixing a block just before it moves reads its objects once for both
//!    (See Note [Fixing a block as it slides]). A block that stays has its
//!    dead words zeroed instead. Blocks left empty are freed. The GC
//!    threads share the blocks (See Note [Sliding on several threads]).
//!
//! Note [Compaction by counting]
//! ----------------------------------------
//! An object never straddles blocks, so a block's live data may not fit in
//! the rest of the destination block: the plan then sends the first
//! `split` live words (whole objects) to `first` and the rest to the start
//! of the next destination block, `second`. A block's live data is at most
//! one block, so two destinations always suffice. Since the mark bitmap
//! marks every word of every live object, the new address of an object
//! `p` is `first + before(p)` or `second + before(p) - split`, where
//! `before(p)` is the number of marked words before `p` in its block. The
//! plan keeps, per block, the marked words before each of its eight
//! 64-word chunks (16 bytes, as the Compressor's offset table does per
//! page), so `before(p)` is that offset plus one popcount of `p`'s own
//! chunk; counting the chunks before `p` on every pointer (up to eight
//! popcounts) was 9% of binary-trees 20's run under `-c`.
//! No forwarding word is stored anywhere and no object header is
//! disturbed, unlike GHC's threading compactor (`rts/sm/Compact.c`),
//! which reverses pointer chains through the info pointers; counting is
//! simpler, costs 64 bytes of bitmap per block (128 with the object
//! starts), and leaves the heap walkable at every step (the sanity
//! checker's friend).
//!
//! What the phases cost (binary-trees 20, `-c`, 16-core machine, 3
//! alternated runs): major GCs 8.2 s when the plan walked every
//! straddling block's objects by their headers, the update read each
//! header twice (once to find the next object) and the slide moved object
//! by object; 3.4 s with the starts, the chunk offsets and runs. Copying's
//! major GCs take 1.4 s on the same run: marking alone costs about what
//! copying does (a depth-first mark with a scan stack against Cheney's
//! sequential scan; 1.0-1.5x copying's major GC by a profile), and the
//! update pass is a second visit of every live
//! object and every pointer. lru 500000 4000000: 0.17 s against copying's
//! 0.14 s. Then (2026-11-26, 2-core machine, binary-trees 20, timed per
//! phase in the pause): marking 1.24 s, plan 0.06, update 0.61, slide
//! 0.09; after the three changes below (Note [Fixing a pointer without
//! its target], Note [Counting with the popcount instruction] in
//! `popcount` and Note [Blocks whose pointers stay put] in `reach`) and a
//! short marking path (`evacuate_uncommon`'s first test), the update takes
//! 0.12 s, and the major GCs 1.23x copying's (5 alternated rounds,
//! 1.16-1.28), where they were 1.9x.
//!
//! Note [Updating on several threads]
//! ----------------------------------------
//! The update pass writes only the slots of the objects it visits, and
//! reads only the plan and the marks, which nothing changes while it
//! runs: so the objects may be shared out among GC threads as long as
//! each is visited once. They are cut into parts, each one to-space
//! block's copies, one large object, or one compacted block's marked
//! objects (`Part`), and each thread claims 16 parts at a time from a
//! shared counter until none is left, as `lxr`'s increments are raised
//! (`parallel_increments`); the roots and the GC's own lists of objects
//! stay with the caller. Each part's loop is compiled
//! with the popcount instruction behind one test per claim (See Note
//! [Counting with the popcount instruction] in `popcount`). With two
//! threads on binary-trees 20 (2-core machine) the pass takes 0.10-0.11
//! s where one thread took 0.15 s; the skipped blocks of the identity
//! prefix cost nothing either way.
//!
//! Note [Sliding on several threads]
//! ----------------------------------------
//! A block's live words go to one or two destination blocks at or before
//! it in the list (`BlockPlan::into`; Note [Sliding is safe] in `compaction_plan`), whose
//! address ranges the plan gives to no other block. Writing there is safe
//! once the objects that lived in those ranges have moved out, that is,
//! once those destination blocks have themselves been slid; nothing else
//! orders two blocks' slides. So the GC threads claim the blocks after the
//! identity prefix 8 at a time in list order, and each waits before a
//! block until its destinations are marked slid (`wait_until_slid`, a
//! release store after the move and an acquire load before the write).
//! A thread only ever waits for a block claimed before its own, by a
//! thread that is moving it, so the waits end; if a GC thread fails, the
//! others stop waiting (the job's `abort`). This is the dependency order
//! of the parallel sliding compactors (Abuaiadh et al., "An efficient
//! parallel heap compaction algorithm", OOPSLA 2004, whose blocks move
//! into earlier ones once those are evacuated), where the Compressor
//! copies into a fresh to-space to need none. The freeing of the emptied
//! blocks stays on the leader, which holds the block allocator.
//!
//! Measured on two cores (2026-11-27, the phase timed in the pause, sums
//! over a run's major GCs, two runs each): binary-trees 20 at `-N2` slid
//! in 0.064-0.087 s on one thread and 0.071-0.079 s on two, since a block
//! whose live words go a little way down waits for the chunk before it:
//! a destination not yet slid was met 63,700 times for 640,800 blocks
//! (10%), as often on either thread. (With chunks of 64 blocks the waits
//! fell to 11,300, but the pool thread, late to each GC, then slid 10% of
//! the blocks.) lru 500000 4000000: 0.021-0.024 s against 0.017-0.020. So
//! the slide does not shorten on two cores; what it saves is a phase on
//! the leader alone, which at more threads would bound the compaction's
//! speedup (not measured: no machine with more cores).
//!
//! Note [Fixing a block as it slides]
//! ----------------------------------------
//! The update pass used to fix every compacted block's objects, and the
//! slide then read the same live words again to move them: two passes
//! over the old generation's live data, each from memory, since a block's
//! words are long out of the cache when the other pass comes back to
//! them. A block's objects may be fixed at any time before they move:
//! fixing a slot reads only the plan, the marks and the target's block
//! descriptor, none of which the slide changes, and never the target
//! object itself (See Note [Fixing a pointer without its target]). So
//! the slide fixes each block just before it moves it, and the move
//! reads the words the fixing has just brought into the cache. It is safe
//! on several threads: until a block is marked slid, no other block
//! writes into it (the wait of Note [Sliding on several threads]), so its
//! objects are the claiming thread's to fix. The update pass keeps the
//! blocks of the identity prefix whose objects point past it: they do
//! not move, so the slide never visits them.
//! Measured (lru 500000 4000000 128, the phases timed in the pause and
//! summed over its four compactions, medians of 11 alternated rounds,
//! one binary with both ways): update 44.9 ms and slide 28.3 ms before,
//! 12.7 and 49.1 after, the two together 73.2 -> 61.8 ms (a second run of
//! 7 rounds: 65.9 -> 59.8); binary-trees 19 (5 rounds), whose settled
//! tree is mostly prefix, 47.9 -> 46.1 ms. The instructions do not
//! change (lru 200000 1000000 128, cachegrind: 1.001x the GC's, 0.992x
//! its first-level misses): what is saved is the second trip to memory.
//!
//! Note [Asking for the next block's objects]
//! ----------------------------------------
//! Once the slide fixes each block's objects before it moves them (Note
//! [Fixing a block as it slides]), the fixing's first read of each
//! object's header is where the slide waits for memory: `perf` put 39%
//! of its samples on that load in lru, and 28% on the `memmove`. The
//! processor's own prefetcher follows a stream only within a 4 KiB page,
//! which is one block, so it starts afresh at every block, and a block
//! whose live objects lie apart among dead ones gives it little to follow.
//! The slide knows where the next block's objects start (the recorded
//! starts: See Note [Object starts] in `mark`), so as it takes block `i`
//! it asks for the lines of block `i + 1` where an object starts: at most
//! 64 hints, and the time block `i` takes to fix and move hides them.
//! Measured (the phases timed in the pause, summed over the major GCs,
//! medians of alternated rounds, against the binary without it): lru
//! 500000 4000000 128's slide 52.0 -> 42.7 ms (13 rounds), 60.3 -> 47.7
//! (15), 48.0 -> 45.0 (11); binary-trees 19's, whose promoted blocks are
//! dense and which the processor's prefetcher serves well, 35.3 -> 37.0
//! (5), 36.2 -> 40.3 (9), 34.3 -> 35.0 (7): a loss of 2-4 ms in major
//! GCs of 550-630 ms. GC instructions (cachegrind) 1.002x on
//! binary-trees 17, 1.004x on lru 200000 1000000 128. Tried: asking for
//! every line that holds a live word, not only the starts (the same:
//! 42.4 ms against 42.7); only the first four start lines (lru the same,
//! binary-trees 38.0 against 33.3); only when the block is at most three
//! quarters live (lru 44.3, binary-trees 36.4 against 34.3): none
//! separates the two, so the plain form stays.
//!
//! Note [Fixing a pointer without its target]
//! ----------------------------------------
//! The update pass used to read every target's header to rule out a
//! static object before it read the target's block descriptor: a miss on
//! a far target (the right child of a tree node lies past the whole left
//! subtree), 30% of the pass's samples on binary-trees 20. It now tests
//! the address against the megablocks of the compacted blocks
//! (`MegablockSet`: no static object lies in a heap megablock) and then
//! reads only the descriptor, which is dense (64 bytes per 4 KiB block).
//! With the popcount instruction and the short path for the common
//! object: the update pass 0.61 -> 0.55 s, the major GCs 0.86x on
//! binary-trees 20 (3 alternated rounds, 0.80-0.89) and on binary-trees
//! 19 (5 rounds, 0.81-0.88). An earlier trial of the test alone on
//! binary-trees 19 measured 1.045x, slower. Tried and dropped: a table
//! from address to block number, which skips the descriptor too (no
//! change, 1.01x: the descriptors are in the cache).

use crate::compaction_plan::{self, BlockPlan};
use crate::gc_thread::GcThread;
use crate::gc_workers::{claim_chunk, claim_range, run_shared, Company, GcWorkers};
use crate::mark::{MarkBitmap, MAP_WORDS};
use crate::megablock_set::MegablockSet;
use crate::popcount;
use crate::prefetch_ring::prefetch;
use crate::reach::Reach;
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_MARK_IN_PLACE};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::capability::Capability;
use gclab_core::constants::{Word, WORD_SIZE};
use gclab_core::CompactionRecord;
use gclab_core::info::{ClosureType, InfoTable};
use gclab_core::object::{info_of_header, weak_field, Layout};
use gclab_core::stable_ptr::StablePtrTable;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What one GC thread takes at a time in the update pass: the objects it
/// fixes (See Note [Updating on several threads]).
#[derive(Debug, Clone, Copy)]
enum Part {
    /// The copies in a to-space block, from its start to its fill.
    Copies(*mut Word, *mut Word),
    /// A large object that survived.
    Large(*mut Word),
    /// The marked objects of compacted block number `.0`.
    Compacted(usize),
}

// SAFETY: a part names objects the GC holds; each is fixed by the one
// thread that claimed the part.
unsafe impl Send for Part {}
// SAFETY: as above; the list of parts is only read while it is shared.
unsafe impl Sync for Part {}

/// Parts a GC thread claims at once: few enough that the threads end
/// together, many enough that claiming is rare.
const PARTS_AT_ONCE: usize = 16;

/// Blocks a GC thread claims at once in the slide.
const BLOCKS_AT_ONCE: usize = 8;

/// Wait until block `d` has been slid, unless it is block `i` itself (a
/// block may slide into its own start: Note [Sliding is safe] in
/// `compaction_plan`). Gives up
/// if another GC thread failed, since it may never slide `d`.
fn wait_until_slid(slid: &[AtomicBool], d: usize, i: usize, failed: &AtomicBool) {
    assert!(d <= i, "block {i} slides into block {d}, past itself");
    let mut spins = 0u32;
    while d != i && !slid[d].load(Ordering::Acquire) {
        assert!(!failed.load(Ordering::Relaxed), "another GC thread failed while block {i} waited for block {d}");
        spins += 1;
        if spins.is_multiple_of(64) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Move `n` words from `from` down to `to` (at or below it: See Note
/// [Sliding is safe] in `compaction_plan`).
///
/// # Safety
/// Both ranges lie in blocks the GC holds.
// SAFETY: `ptr::copy` is a memmove, right for overlapping ranges.
unsafe fn move_words(from: *const Word, to: *mut Word, n: usize) {
    if !std::ptr::eq(to, from) {
        std::ptr::copy(from, to, n);
    }
}

/// The compaction of one list of blocks.
pub struct Compaction {
    blocks: Vec<BlockPtr>,
    plans: Vec<BlockPlan>,
    /// Where each destination block's objects end after the slide.
    ends: Vec<*mut Word>,
    /// The megablocks of `blocks` (See Note [Fixing a pointer without
    /// its target]).
    megablocks: MegablockSet,
    /// The identity prefix: the first `prefix` blocks' objects keep
    /// their addresses and hold no holes (See Note [Blocks whose pointers
    /// stay put] in `reach`).
    prefix: usize,
    /// The unmoved run: the first `unmoved` blocks' objects keep their
    /// addresses (See Note [Blocks whose pointers stay put] in `reach`).
    unmoved: usize,
    /// What the plan moves and leaves, for the GC's record; the slide
    /// adds the blocks it frees.
    record: CompactionRecord,
}

// SAFETY: the GC threads share a compaction only in the update pass and
// the slide, which read its plan and write none of it (what they write is
// the heap's words, each slot or block one thread's: See Notes [Updating
// on several threads] and [Sliding on several threads]); the addresses it
// holds are of blocks the GC holds.
unsafe impl Sync for Compaction {}

impl Compaction {
    /// Plan the compaction of `blocks` (single blocks, attached to
    /// `marks`, in this order), leaving in place each block with at most
    /// `dead_words` words not live (See Note [Blocks left in place] in
    /// `compaction_plan`).
    ///
    /// # Safety
    /// The GC holds the heap, and marking is complete.
    // SAFETY: reads the marks and recorded starts of blocks the GC holds, before anything moves; writes the flags of blocks it holds.
    pub unsafe fn plan(marks: &MarkBitmap, blocks: Vec<BlockPtr>, dead_words: usize) -> Compaction {
        // SAFETY: the caller's contract.
        let plan = unsafe { compaction_plan::plan(marks, &blocks, dead_words) };
        for (&bd, block_plan) in blocks.iter().zip(&plan.blocks) {
            if block_plan.stays {
                // Its objects keep their addresses: `fix` passes over a
                // pointer into it at the flags test.
                // SAFETY: the caller's contract.
                unsafe { bd.get() }.end_marking_in_place(0);
            }
        }
        let megablocks = MegablockSet::of(&blocks);
        let record = CompactionRecord {
            blocks: blocks.len() as u32,
            blocks_left_in_place: plan.left_in_place as u32,
            blocks_unmoved: plan.unmoved as u32,
            blocks_freed: 0,
            hole_bytes: (plan.hole_words * WORD_SIZE) as u64,
            slid_bytes: (plan.slid_words * WORD_SIZE) as u64,
        };
        Compaction { blocks, plans: plan.blocks, ends: plan.ends, megablocks, prefix: plan.prefix, unmoved: plan.unmoved, record }
    }

    /// Zero the dead words of block `i`, which stays, below its last live
    /// word (See Note [Blocks left in place] in `compaction_plan`).
    ///
    /// # Safety
    /// As for `slide`; block `i` is this thread's.
    // SAFETY: writes only the unmarked words of a block the GC holds, which no live object covers.
    unsafe fn zero_holes(&self, marks: &MarkBitmap, i: usize) {
        let d = self.blocks[i].read();
        for run in marks.free_runs(self.blocks[i], d.word_index(self.ends[i])) {
            std::ptr::write_bytes(d.start.add(run.start), 0, run.len());
        }
    }

    /// Move block `i`'s marked words to their destinations (See Note
    /// [Sliding is safe] in `compaction_plan`).
    ///
    /// # Safety
    /// As for `slide`; the blocks block `i`'s words go to have been slid.
    // SAFETY: the caller's contract.
    unsafe fn slide_block(&self, marks: &MarkBitmap, i: usize) {
        let (bd, plan) = (self.blocks[i], &self.plans[i]);
        let start = bd.read().start;
        let mut before = 0;
        for run in marks.marked_runs(bd) {
            // A run of live words is moved whole, unless the block's
            // split falls inside it.
            let mut from = start.add(run.start);
            let mut left = run.len();
            if before < plan.split && left > plan.split - before {
                let n = plan.split - before;
                move_words(from, plan.destination(before), n);
                from = from.add(n);
                left -= n;
                before += n;
            }
            move_words(from, plan.destination(before), left);
            before += left;
        }
    }

    /// Does the slide read block `i`'s objects, to fix or move them? Not
    /// when the block is left in place and its objects point only into
    /// the unmoved run, so that nothing in them changes (See Note [Blocks
    /// whose pointers stay put] in `reach`).
    #[inline]
    fn reads_objects(&self, reach: &Reach, i: usize) -> bool {
        !(self.plans[i].stays && reach.stays_below(i, self.unmoved))
    }

    /// Ask for the cache lines where block `i` has objects starting, a
    /// block before the slide fixes them (See Note [Asking for the next
    /// block's objects]).
    #[inline(always)]
    fn prefetch_objects(&self, marks: &MarkBitmap, i: usize) {
        // SAFETY: the block is one of this compaction's, which the GC holds.
        let start = unsafe { self.blocks[i].read() }.start;
        for chunk in 0..MAP_WORDS {
            let starts = marks.chunk_starts(i, chunk);
            for line in 0..8 {
                if (starts >> (line * 8)) & 0xff != 0 {
                    prefetch(start.wrapping_add(chunk * 64 + line * 8) as *const u8);
                }
            }
        }
    }

    /// The address the object at `p` will have; `p` is in the block being
    /// compacted whose `aux` word (its number in `blocks`) is `i`.
    #[inline(always)]
    fn forward(&self, marks: &MarkBitmap, p: *mut Word, i: usize) -> *mut Word {
        let plan = &self.plans[i];
        let (chunk, in_chunk) = marks.live_words_before_in_chunk_of(i, p);
        plan.destination(plan.chunk_offsets[chunk] as usize + in_chunk)
    }

    /// Fix one slot: if it points into a block being compacted, point it
    /// at the object's new address. The target itself is not read: See
    /// Note [Fixing a pointer without its target].
    ///
    /// # Safety
    /// `slot` holds a valid object address (heap or static).
    #[inline(always)]
    // SAFETY: reads the descriptor of a block in `self.megablocks` only, which the GC holds; the target object is not read.
    unsafe fn fix(&self, marks: &MarkBitmap, slot: *mut Word) {
        let p = *slot as *mut Word;
        if !self.megablocks.holds(p as usize) {
            return;
        }
        let d = &*BlockDesc::of(p);
        if d.flags & BF_MARK_IN_PLACE != 0 {
            *slot = self.forward(marks, p, d.aux as usize) as Word;
        }
    }

    /// Fix every pointer slot of the object at `p`, weak fields included;
    /// returns its size. The common object (See Note [The common object
    /// first] in `scavenge`) takes the short path.
    #[inline(always)]
    // SAFETY: walks the slots of a live object whose header is intact (the object has not moved yet).
    unsafe fn fix_object(&self, marks: &MarkBitmap, layout: Layout, p: *mut Word) -> usize {
        let info = info_of_header(*p);
        if info.closure_type.has_fixed_layout() {
            let fields = layout.payload(p);
            for k in 0..info.ptrs as usize {
                self.fix(marks, fields.add(k));
            }
            return layout.fixed_size(info);
        }
        if info.closure_type == ClosureType::ArrWords {
            // No pointers: See Note [A leaf is marked, not pushed] in `evacuate`.
            return layout.size_of(p, info);
        }
        self.fix_uncommon(marks, layout, p, info)
    }

    /// `fix_object` for the kinds of object without a fixed layout.
    #[inline(never)]
    // SAFETY: as for `fix_object`.
    unsafe fn fix_uncommon(&self, marks: &MarkBitmap, layout: Layout, p: *mut Word, info: &InfoTable) -> usize {
        let (slots, n) = layout.pointer_slots(p, info);
        for k in 0..n {
            self.fix(marks, slots.add(k));
        }
        if info.closure_type == ClosureType::Weak {
            for f in [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER] {
                self.fix(marks, layout.payload(p).add(f));
            }
        }
        layout.size_of(p, info)
    }

    /// Phase 2: fix every pointer into the compacted blocks: roots, stable
    /// pointers, every object copied to to-space, every large object,
    /// every marked object, and the GC's own lists of objects. The objects
    /// are shared out in parts among the GC threads `workers` gives (See
    /// Note [Updating on several threads]); the roots and lists are the
    /// caller's.
    ///
    /// # Safety
    /// Called once, after marking and weak processing, before `slide`.
    // SAFETY: every slot it visits lies in a live object or a root, and runs before any object moves.
    pub unsafe fn update_pointers(&self, threads: &mut [GcThread<'_>], caps: &mut [Capability], stable: &mut StablePtrTable, reach: &Reach, workers: Option<&GcWorkers>) {
        let layout = threads[0].layout;
        let marks = threads[0].marks.expect("a compaction marks into a bitmap");
        for cap in caps.iter_mut() {
            for r in cap.roots.iter_mut().chain(cap.pending_finalizers.iter_mut()).chain(cap.update_rem_set.iter_mut()) {
                self.fix(marks, r as *mut Word);
            }
        }
        for r in stable.roots_mut() {
            self.fix(marks, r as *mut Word);
        }
        let mut parts: Vec<Part> = Vec::new();
        for ts in threads.iter_mut().flat_map(|gct| gct.to.iter_mut()) {
            parts.extend(ts.done.iter().chain(ts.pending.iter()).map(|b| Part::Copies(b.read().start, b.read().free)));
            parts.extend(ts.current.map(|b| Part::Copies(b.read().start, ts.hp)));
            parts.extend(ts.large.iter().map(|b| Part::Large(b.read().start)));
            for obj in ts.weak_ptrs.iter_mut().chain(ts.mut_list.iter_mut()) {
                self.fix(marks, &mut obj.0 as *mut *mut Word as *mut Word);
            }
        }
        // A block of the identity prefix whose objects point only into the
        // unmoved run has nothing to fix; the blocks after the prefix are
        // fixed as they slide (See Note [Fixing a block as it slides]).
        parts.extend((0..self.prefix).filter(|&i| !reach.stays_below(i, self.unmoved)).map(Part::Compacted));
        let next = AtomicUsize::new(0);
        let job = |_thread: usize, _: Option<&Company>| {
            while let Some(chunk) = claim_chunk(&next, &parts, PARTS_AT_ONCE) {
                // SAFETY: the caller's contract; each part is one thread's.
                unsafe { self.fix_parts(marks, layout, chunk) };
            }
        };
        run_shared(workers, &job, &|| {}, "updating a compaction's pointers");
    }

    /// Fix the pointers of the objects of `parts`, compiled with the
    /// popcount instruction where the processor has it (See Note [Counting
    /// with the popcount instruction] in `popcount`).
    ///
    /// # Safety
    /// As for `update_pointers`; no other thread fixes these parts.
    // SAFETY: the caller's contract.
    unsafe fn fix_parts(&self, marks: &MarkBitmap, layout: Layout, parts: &[Part]) {
        #[cfg(target_arch = "x86_64")]
        if popcount::available() {
            // SAFETY: the caller's contract, and the processor has popcnt.
            return unsafe { self.fix_parts_popcnt(marks, layout, parts) };
        }
        self.fix_each_part(marks, layout, parts)
    }

    /// `fix_each_part` compiled with the popcount instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    // SAFETY: as for `fix_parts`; called only where the processor has popcnt.
    unsafe fn fix_parts_popcnt(&self, marks: &MarkBitmap, layout: Layout, parts: &[Part]) {
        self.fix_each_part(marks, layout, parts)
    }

    /// The body of `fix_parts`.
    #[inline(always)]
    // SAFETY: as for `fix_parts`.
    unsafe fn fix_each_part(&self, marks: &MarkBitmap, layout: Layout, parts: &[Part]) {
        for &part in parts {
            match part {
                Part::Copies(start, end) => {
                    let mut p = start;
                    while p < end {
                        p = p.add(self.fix_object(marks, layout, p));
                    }
                }
                Part::Large(p) => {
                    self.fix_object(marks, layout, p);
                }
                Part::Compacted(i) => self.fix_compacted_block(marks, layout, i),
            }
        }
    }

    /// Fix the pointers of the marked objects of compacted block `i`.
    #[inline(always)]
    // SAFETY: as for `fix_parts`: the block's recorded starts are its live objects.
    unsafe fn fix_compacted_block(&self, marks: &MarkBitmap, layout: Layout, i: usize) {
        let bd = self.blocks[i];
        let start = bd.read().start;
        assert_eq!(bd.read().aux as usize, i, "a compacted block's aux word is its number in the plan");
        // Each recorded object start, in address order (See Note [Object
        // starts] in `mark`).
        for chunk in 0..MAP_WORDS {
            let mut starts = marks.chunk_starts(i, chunk);
            while starts != 0 {
                let w = chunk * 64 + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                self.fix_object(marks, layout, start.add(w));
            }
        }
    }

    /// Phase 3: move every marked object to its new address, then return
    /// the blocks that are left, with their new fill levels, and the
    /// compaction's record. Empty blocks are freed. The blocks are shared
    /// out among the GC threads `workers` gives (See Note [Sliding on
    /// several threads]). `reach` is how far each block's objects point,
    /// by which a block left in place may need no fixing. `slow_leader`
    /// is a test's fault: GC thread 0 pauses before each block (See
    /// `Compacting::slow_leader`).
    ///
    /// # Safety
    /// Called once, after `update_pointers`.
    // SAFETY: memmove into addresses the plan proved are at or below the source (Note [Sliding is safe] in `compaction_plan`), after every pointer was fixed; a block's destinations are written only once their own objects have moved (Note [Sliding on several threads]).
    pub unsafe fn slide(self, marks: &MarkBitmap, layout: Layout, blocks: &mut BlockAllocator, reach: &Reach, workers: Option<&GcWorkers>, slow_leader: bool) -> (Vec<BlockPtr>, CompactionRecord) {
        // The identity prefix keeps its objects where they are.
        let slid: Vec<AtomicBool> = (0..self.blocks.len()).map(|i| AtomicBool::new(i < self.prefix)).collect();
        let (next, failed) = (AtomicUsize::new(self.prefix), AtomicBool::new(false));
        let job = |thread: usize, _: Option<&Company>| {
            while let Some(chunk) = claim_range(&next, self.blocks.len(), BLOCKS_AT_ONCE) {
                for i in chunk {
                    if slow_leader && thread == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    // See Note [Asking for the next block's objects].
                    if i + 1 < self.blocks.len() && self.reads_objects(reach, i + 1) {
                        self.prefetch_objects(marks, i + 1);
                    }
                    if self.reads_objects(reach, i) {
                        // SAFETY: the caller's contract; block `i` has not
                        // moved, and no other block writes into it before
                        // it is marked slid (See Note [Fixing a block as it
                        // slides]).
                        unsafe { self.fix_parts(marks, layout, &[Part::Compacted(i)]) };
                    }
                    if self.plans[i].stays {
                        // SAFETY: the caller's contract; block `i` is this
                        // thread's, and no block slides into it.
                        unsafe { self.zero_holes(marks, i) };
                    } else {
                        for d in self.plans[i].into {
                            wait_until_slid(&slid, d, i, &failed);
                        }
                        // SAFETY: the caller's contract; block `i`'s
                        // destinations hold nothing still to be moved.
                        unsafe { self.slide_block(marks, i) };
                    }
                    slid[i].store(true, Ordering::Release);
                }
            }
        };
        run_shared(workers, &job, &|| failed.store(true, Ordering::Relaxed), "sliding a compaction");
        let mut kept = Vec::new();
        for (i, bd) in self.blocks.into_iter().enumerate() {
            let d = bd.get();
            d.end_marking_in_place(0);
            if self.ends[i].is_null() || self.ends[i] == d.start {
                blocks.free_group(bd);
            } else {
                d.free = self.ends[i];
                kept.push(bd);
            }
        }
        let record = CompactionRecord { blocks_freed: (self.ends.len() - kept.len()) as u32, ..self.record };
        (kept, record)
    }
}
