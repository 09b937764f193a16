//! Promotion into a line space: each GC thread's `LineAllocator`
//! bump-allocates into the holes of the space's recyclable blocks, one
//! after another, before it cuts fresh blocks, and sends objects larger
//! than a line that miss a hole to an overflow block (Immix's overflow
//! allocation; See Note [A medium object at a fresh block's end] for the
//! exception). See `line_space` for the space and its holes.
//!
//! Invariant kept: every word an allocator leaves outside an object is
//! zero (a fresh block's unused rest is zeroed when the block is given
//! back), and an allocator holds its blocks alone until `finish`, which
//! counts what it placed and took into the generation and relists the
//! blocks with a hole left.

use crate::line_space::{LineSpace, Recyclable};
use crate::mark::MarkBitmap;
use crate::space::{Placement, Run, Space, SpaceAllocator};
use gclab_core::bdescr::{BlockPtr, BF_EVACUATED, BF_MARK_IN_PLACE};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::{Word, BLOCK_WORDS, WORD_SIZE};
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;

impl Space for LineSpace {
    fn allocator<'a>(&'a self, blocks: &'a Lock<BlockAllocator>, marks: Option<&'a MarkBitmap>) -> Box<dyn SpaceAllocator + 'a> {
        let placements = self.placements.lock().is_some().then(Vec::new);
        Box::new(LineAllocator { space: self, blocks, marks, hole: None, overflow: None, fresh: Vec::new(), retired: Vec::new(), counts: Counts::default(), placements, lost: Vec::new() })
    }
}

/// A fresh block's rest shorter than this is given up for a medium
/// object that does not fit it (See Note [A medium object at a fresh
/// block's end]).
const FRESH_REST_GIVEN_UP: usize = BLOCK_WORDS / 8;

// Note [A medium object at a fresh block's end]
// ----------------------------------------
// Immix sends an object larger than a line that does not fit the hole at
// hand to an overflow block, so that one medium object does not make the
// allocator skip a run of holes that small objects would fill. When the
// hole at hand is the rest of a block cut fresh in this GC there is no
// run of holes to skip: only that rest. Sent to the overflow block, each
// medium object was placed alone (`Placement::Object`: a call through
// the space's trait object, a push on the scan stack), never in a lent
// run, and after a defragmentation left no recyclable block that was
// every medium object that missed the end of a block: lru, whose 18-word
// values are medium at 64-byte lines, placed most of its promotion so.
// Now a fresh block's rest shorter than an eighth of a block is given up
// (zeroed, counted used until the next sweep finds its line free) and the
// object goes to the next block, in a run, as copying's to-space does
// with an object that misses a block's end. A longer rest still sends the
// object to the overflow block, so at most an eighth of a block is given
// up, and a hole in a recyclable block is never given up for one. On lru
// 50000 1000000 128 at -M40m (2x its minimum heap) immix's GC
// instructions fell from 1.63x copying's to 1.25x (`scripts/ab
// --instructions`), its GC time from 1.68x to 1.12x (medians of 21
// alternated rounds, each against copying), and its memory in use did not
// change (33.2 MiB peak RSS against 33.0). The overflow block is now lent
// as a run too (See Note [The overflow block lent] in `lent_runs`), and
// the rule still pays: without it lru's GC instructions were 1.03-1.10x.

/// Where a block an allocator holds comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Cut by this allocator in this GC: its words are not zero until
    /// objects or the allocator write them, and the allocator counts them.
    Fresh,
    /// The space's since an earlier GC, in a GC that does not mark it (a
    /// minor GC): what is placed in it is counted by the allocator.
    Old,
    /// Marked in place in this GC: what is placed in it is allocated
    /// black, and the sweep counts it.
    Kept,
}

/// A block an allocator holds, and the hole it is filling (`hp..lim`).
struct Held {
    bd: BlockPtr,
    used: u64,
    hp: *mut Word,
    lim: *mut Word,
    kind: Kind,
}

impl Held {
    fn bump(&mut self, words: usize) -> Option<*mut Word> {
        let p = self.hp;
        let end = p.wrapping_add(words);
        (end <= self.lim).then(|| {
            self.hp = end;
            p
        })
    }

    fn word_index(&self, p: *mut Word) -> usize {
        // SAFETY: the block is the allocator's (See `LineAllocator`).
        unsafe { self.bd.read() }.word_index(p)
    }

    /// Words left in the hole.
    fn left(&self) -> usize {
        (self.lim as usize - self.hp as usize) / WORD_SIZE
    }
}

/// What one allocator placed and took.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    /// Object words placed in blocks the sweep does not recount.
    object_words: usize,
    /// Words of the holes of blocks the space had before used up (objects
    /// and holes given up), outside blocks kept in place.
    old_taken_words: usize,
    /// Words of fresh blocks used up.
    fresh_taken_words: usize,
    /// Object words placed in blocks kept in place, and words of their
    /// holes used up (See `LineSpace::take_kept_placements`).
    kept_words: usize,
    kept_taken_words: usize,
}

/// One GC thread's allocation into a `LineSpace`.
struct LineAllocator<'a> {
    space: &'a LineSpace,
    blocks: &'a Lock<BlockAllocator>,
    /// The major GC's bitmap: objects placed in blocks kept in place are
    /// marked as they are placed ("allocated black"), so the sweep keeps
    /// them.
    marks: Option<&'a MarkBitmap>,
    /// The block whose holes small objects fill.
    hole: Option<Held>,
    /// The overflow block, for medium objects that do not fit `hole`.
    overflow: Option<Held>,
    /// Blocks cut in this GC.
    fresh: Vec<BlockPtr>,
    /// Blocks given back with a hole left, for the recyclable list.
    retired: Vec<Recyclable>,
    counts: Counts,
    /// The objects placed, when the space records them
    /// (`LineSpace::record_placements`).
    placements: Option<Vec<*mut Word>>,
    /// Those of them that lost their claims (`SpaceAllocator::lost`).
    lost: Vec<*mut Word>,
}

// SAFETY: the allocator's blocks are this GC thread's alone while it holds
// them (taken off the space's list under its lock, or cut fresh).
unsafe impl Send for LineAllocator<'_> {}

impl LineAllocator<'_> {
    /// An object of `words` was placed at `p` in a block of `kind`: mark
    /// it black in a kept block, else count it.
    fn placed(&mut self, p: *mut Word, words: usize, kind: Kind) -> *mut Word {
        if let Some(list) = self.placements.as_mut() {
            list.push(p);
        }
        if kind == Kind::Kept {
            self.marks.expect("a block is kept in place only in a major GC").mark(p, words);
        }
        self.count_placed(kind, words);
        p
    }

    /// Count `words` of objects placed, one after another, in a block of
    /// `kind`.
    fn count_placed(&mut self, kind: Kind, words: usize) {
        match kind {
            Kind::Kept => {
                self.counts.kept_words += words;
                self.counts.kept_taken_words += words;
            }
            Kind::Fresh => {
                self.counts.object_words += words;
                self.counts.fresh_taken_words += words;
            }
            Kind::Old => {
                self.counts.object_words += words;
                self.counts.old_taken_words += words;
            }
        }
    }

    /// The rest of `held`'s hole, `words` at `from`, is given up: count it,
    /// and zero it in a fresh block (the space keeps every word outside an
    /// object zero; an older block's holes already are).
    fn given_up(&mut self, held: &Held, from: *mut Word, words: usize) {
        match held.kind {
            Kind::Fresh => {
                // SAFETY: the words lie in the allocator's fresh block,
                // past every object placed in it.
                unsafe { std::ptr::write_bytes(from, 0, words) };
                self.counts.fresh_taken_words += words;
            }
            Kind::Old => self.counts.old_taken_words += words,
            Kind::Kept => self.counts.kept_taken_words += words,
        }
    }

    /// Move `held` to its block's next hole, giving up the rest of this
    /// one; false if the block has none.
    fn next_hole(&mut self, held: &mut Held) -> bool {
        let (from, left) = (held.hp, held.left());
        let at = held.word_index(held.lim);
        self.given_up(held, from, left);
        // SAFETY: the block is the allocator's.
        let start = unsafe { held.bd.read() }.start;
        match self.space.geometry.next_hole(held.used, at) {
            Some(h) => {
                held.hp = start.wrapping_add(h.start);
                held.lim = start.wrapping_add(h.end);
                true
            }
            None => {
                held.hp = held.lim;
                false
            }
        }
    }

    /// A block to fill: a recyclable one of the space's, at its cursor's
    /// hole, or else a fresh one.
    fn take_block(&mut self) -> Held {
        loop {
            let Some(r) = self.space.recyclable.lock().pop() else { break };
            // SAFETY: a listed block is the space's, and now ours alone.
            let d = unsafe { r.bd.read() };
            if let Some(h) = self.space.geometry.next_hole(r.used, d.word_index(d.scan)) {
                let (hp, lim) = (d.start.wrapping_add(h.start), d.start.wrapping_add(h.end));
                let kind = if d.has(BF_MARK_IN_PLACE) { Kind::Kept } else { Kind::Old };
                return Held { bd: r.bd, used: r.used, hp, lim, kind };
            }
        }
        self.cut_block()
    }

    fn cut_block(&mut self) -> Held {
        let bd = self.blocks.lock().alloc_block().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e));
        // SAFETY: a block fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        d.set_flags(BF_EVACUATED);
        d.set_gen_no(self.space.gen as u16);
        d.dest_no = self.space.gen as u16;
        d.scan = d.start;
        d.free = d.end();
        self.fresh.push(bd);
        Held { bd, used: 0, hp: d.start, lim: d.end(), kind: Kind::Fresh }
    }

    /// The allocator is done with `held`: its cursor moves to the hole's
    /// bump pointer, and it goes back on the recyclable list, when this
    /// allocator finishes, if a hole is left. (Not before: a block this
    /// allocator cut and another took in the same GC would be counted by
    /// both, the free words by one and their use by the other, and the
    /// generation's count could go below zero between their `finish`es.)
    fn retire(&mut self, held: Held) {
        // SAFETY: the block is the allocator's.
        let d = unsafe { held.bd.get() };
        if held.kind == Kind::Fresh {
            // The rest of a fresh block's hole is not used up, but it must
            // be zero.
            // SAFETY: as in `given_up`.
            unsafe { std::ptr::write_bytes(held.hp, 0, held.left()) };
        }
        d.scan = held.hp;
        let cursor = held.word_index(held.hp);
        if self.space.geometry.next_hole(held.used, cursor).is_some() {
            self.retired.push(Recyclable { bd: held.bd, used: held.used });
        }
    }

    /// A medium object that did not fit the current hole: into the
    /// overflow block.
    fn alloc_overflow(&mut self, words: usize) -> *mut Word {
        let p = self.overflow_with_room(words).bump(words).expect("the overflow block has room");
        self.placed(p, words, Kind::Fresh)
    }

    /// The overflow block, with room for `words` words: the one at hand,
    /// or (when that is full or there is none) a fresh one.
    fn overflow_with_room(&mut self, words: usize) -> &mut Held {
        if self.overflow.as_ref().is_some_and(|h| h.left() < words) {
            let full = self.overflow.take().expect("tested just above");
            self.retire(full);
        }
        if self.overflow.is_none() {
            self.overflow = Some(self.cut_block());
        }
        let held = self.overflow.as_mut().expect("an overflow block was just made sure of");
        debug_assert!(held.left() >= words, "an object smaller than a large one fits a fresh block");
        held
    }

    /// Place an object of `words` words in the hole at hand, which has
    /// room for it (`hole_with_room`).
    fn place_in_hole(&mut self, words: usize) -> *mut Word {
        let held = self.hole.as_mut().expect("a hole with room");
        let kind = held.kind;
        let p = held.bump(words).expect("a hole with room");
        self.placed(p, words, kind)
    }

    /// Make `hole` a hole with room for `words` words, moving on through
    /// holes and blocks as needed; false for an object larger than a line
    /// that the hole at hand cannot take (it goes to the overflow block).
    fn hole_with_room(&mut self, words: usize) -> bool {
        let line_words = self.space.geometry.line_words();
        loop {
            if let Some(held) = self.hole.as_mut() {
                if held.left() >= words {
                    return true;
                }
                // See Note [A medium object at a fresh block's end].
                if words > line_words && !(held.kind == Kind::Fresh && held.left() < FRESH_REST_GIVEN_UP) {
                    return false;
                }
                let mut held = self.hole.take().expect("held above");
                if self.next_hole(&mut held) {
                    self.hole = Some(held);
                    continue;
                }
                self.retire(held);
            }
            self.hole = Some(self.take_block());
        }
    }
}

// Note [Which run comes back]
// ----------------------------------------
// A thread may hold two runs of one line space at once, the hole's rest
// and the overflow block's (See Note [The overflow block lent] in
// `lent_runs`), and gives each back as a `Run` and where it stopped. The
// allocator told them apart by the start alone: the overflow block's if
// its bump pointer stood there. But a full overflow block's bump pointer
// stands at its end, and a fresh block cut just after it (the block
// allocator hands out neighbours) starts there: the hole lent from that
// block came back as the overflow block's. Its objects were then lent
// again from the hole's start and overwritten, and the overflow block's
// bump pointer left its block, so that retiring it zeroed from there to
// the end of the mapping. The property test of `tests/graph_model.rs`
// found it (immix and concurrent-copying; about one program in ten
// thousand, so CI's 2,000 under concurrent-copying met it in one run in
// about nine). A run is now the overflow block's only if its start and
// its end are that block's bump pointer and limit: a hole is never empty,
// so it cannot end where the overflow block does and start there too.

// Note [Runs in a kept block]
// ----------------------------------------
// A major GC promotes into the holes of blocks it is marking in place
// (`Kind::Kept`), and what it places there must be marked live or the
// sweep at its end frees it. Each object was placed alone and marked as
// it was placed, because the pause asks whether objects there are marked
// (`is_alive` of a weak pointer's key) before its threads give their runs
// back. With one generation every GC is such a GC, and every survivor of
// the allocation area went that way: on lru 50000 1000000 128 at `-G1
// -M24640k`, 334 thousand objects placed alone, each a call through the
// space's trait object, where the space lent 3,280 runs, all in fresh
// blocks. Now a kept block's hole is lent as any other, marked whole when
// it is lent (a locked `fetch_or` per 64 words, `MarkBitmap::mark_words`)
// and the part the thread left unused unmarked when it comes back. Every
// object the thread places in the run is then marked before it is
// written, so whatever asks meanwhile finds it live; the unused part
// holds no object, so no one asks about it, and the sweep runs after
// every run is back. A bitmap that counts what it marks (a concurrent
// marking's snapshot) still places object by object, since a range
// marked whole would be counted whole.
//
// Measured with cachegrind (`scripts/ab --instructions`, the binary
// before against after): GC instructions 0.860x on lru 50000 1000000 128
// at `-G1 -M24640k`, 0.895x on fibheaps 100000 at `-G1 -M20m`, 0.996x on
// gcbench 16 and 0.994x on binary-trees 16 at `-G1`, whose survivors
// mostly go to fresh blocks; 0.988x for generational immix on lru at
// `-M25616k`, whose major GCs promote little. On the clock (2-core,
// alternated rounds): whole-heap immix's GC time on that lru 0.859x
// (0.70-1.11, 9 rounds), on fibheaps 400000 at `-G1 -M80m` 0.954x
// (0.86-0.99, 7 rounds; 0.822x copying breadth first), the bytes copied
// and the memory in use unchanged. The same for a cell space's marked
// blocks (mark-sweep) cut its GC instructions on whole-heap lru to 0.837x
// but made its GCs on fibheaps 400000 at `-G1 -M80m` 1.37x slower
// (1.13-1.55, 7 rounds), with 1.106x the first-level misses on fibheaps
// 100000 at `-G1 -M20m`. mark-sweep copies breadth first: a run's objects
// are then scanned by walking the run in the order they were placed,
// where an object placed alone went on the scan stack and through the
// marking's prefetch ring. Copying depth first (`mark-sweep:order=depth`,
// whose copies go on the scan stack either way) the same change gave
// 0.957x the GC instructions, 1.016x the misses and 0.949x the GC time
// (0.81-1.21, 5 rounds). So a cell space still places objects alone in
// its marked blocks. (immix copies depth first by default; with
// `order=breadth` its line runs gave 0.822x the GC time on that
// fibheaps, 0.82-1.14, 5 rounds.)

impl SpaceAllocator for LineAllocator<'_> {
    fn alloc(&mut self, words: usize) -> *mut Word {
        if !self.hole_with_room(words) {
            return self.alloc_overflow(words);
        }
        self.place_in_hole(words)
    }

    /// The rest of the hole at hand, lent (in a block marked in place,
    /// marked whole: See Note [Runs in a kept block]), unless the space
    /// records every placement (See Note [Runs a space lends] in
    /// `lent_runs`) or a kept block's bitmap counts what it marks: then
    /// the object alone, as `alloc` places it.
    fn place(&mut self, words: usize) -> Placement {
        if !self.hole_with_room(words) {
            if self.placements.is_some() {
                return Placement::Object(self.alloc_overflow(words));
            }
            // See Note [The overflow block lent] in `lent_runs`.
            let held = self.overflow_with_room(words);
            let run = Run { start: held.hp, end: held.lim, cell: 0 };
            return Placement::Overflow { run, above: self.space.geometry.line_words() };
        }
        let held = self.hole.as_ref().expect("a hole with room");
        let marks = self.marks.filter(|_| held.kind == Kind::Kept);
        if self.placements.is_some() || marks.is_some_and(MarkBitmap::counts_as_it_marks) {
            return Placement::Object(self.place_in_hole(words));
        }
        if let Some(marks) = marks {
            marks.mark_words(held.hp, held.lim);
        }
        Placement::Run(Run { start: held.hp, end: held.lim, cell: 0 })
    }

    fn lost(&mut self, p: *mut Word) {
        if self.placements.is_some() {
            self.lost.push(p);
        }
    }

    /// The run given back is the overflow block's if it is that block's
    /// rest as it was lent, start and end: its start alone is not enough
    /// (See Note [Which run comes back]).
    fn give_back(&mut self, run: Run, end: *mut Word) {
        let words = (end as usize - run.start as usize) / WORD_SIZE;
        if let Some(held) = self.overflow.as_mut().filter(|h| (h.hp, h.lim) == (run.start, run.end)) {
            debug_assert!(end <= held.lim, "the run given back is the overflow block's rest");
            held.hp = end;
            self.count_placed(Kind::Fresh, words);
            return;
        }
        let held = self.hole.as_mut().expect("a run is lent from the hole at hand");
        debug_assert!(held.hp == run.start && end <= held.lim, "the run given back is the hole's rest");
        held.hp = end;
        let kind = held.kind;
        if kind == Kind::Kept {
            // See Note [Runs in a kept block].
            self.marks.expect("a kept block's run was marked when lent").unmark_words(end, run.end);
        }
        self.count_placed(kind, words);
    }

    // SAFETY: hands the allocator's blocks back to the space and the generation, which the GC holds.
    unsafe fn finish(&mut self, gen: &mut Generation) {
        for held in [self.hole.take(), self.overflow.take()].into_iter().flatten() {
            self.retire(held);
        }
        self.space.recyclable.lock().append(&mut self.retired);
        if let (Some(mine), Some(all)) = (self.placements.as_mut(), self.space.placements.lock().as_mut()) {
            all.append(mine);
        }
        self.space.lost.lock().append(&mut self.lost);
        let c = self.counts;
        for bd in self.fresh.drain(..) {
            gen.blocks.push(bd);
            gen.n_blocks += 1;
            gen.n_free_words += BLOCK_WORDS;
        }
        gen.n_words += c.object_words;
        gen.n_free_words -= c.fresh_taken_words + c.old_taken_words;
        let mut kept = self.space.kept.lock();
        kept.0 += c.kept_words;
        kept.1 += c.kept_taken_words;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_space::Geometry;
    use gclab_core::constants::BLOCK_SIZE;

    fn block_of(p: *mut Word) -> usize {
        p as usize / BLOCK_SIZE
    }

    #[test]
    fn a_kept_blocks_hole_is_lent_marked_and_its_unused_rest_unmarked_when_given_back() {
        // See Note [Runs in a kept block].
        let blocks = Lock::new(BlockAllocator::new());
        let space = LineSpace::new(1, Geometry::new(64).unwrap());
        let kept = |used: u64| {
            let bd = blocks.lock().alloc_block().unwrap();
            // SAFETY: a fresh block is this test's alone.
            let d = unsafe { bd.get() };
            d.scan = d.start;
            space.recyclable.lock().push(Recyclable { bd, used });
            (bd, d.start)
        };
        // Lines 0..4 used: the hole is words 32.. of the block.
        let (bd, start) = kept(0b1111);
        // SAFETY: the block is this test's alone.
        let marks = unsafe { MarkBitmap::keep_in_place(&[bd]) };
        let mut a = space.allocator(&blocks, Some(&marks));
        let Placement::Run(run) = a.place(6) else { panic!("a kept block's hole is lent") };
        assert_eq!((run.start, run.end), (start.wrapping_add(32), start.wrapping_add(BLOCK_WORDS)));
        assert_eq!(marks.marked_runs(bd).collect::<Vec<_>>(), vec![32..BLOCK_WORDS], "marked whole when lent");
        // The thread placed 10 words of objects there.
        a.give_back(run, run.start.wrapping_add(10));
        assert_eq!(marks.marked_runs(bd).collect::<Vec<_>>(), vec![32..42], "what it left unused is unmarked");
        let mut gen = Generation::new(1, usize::MAX);
        // SAFETY: the allocator's blocks are this test's alone.
        unsafe { a.finish(&mut gen) };
        // A snapshot's bitmap counts what it marks: there the object is
        // placed alone and marked as it is placed.
        let (bd, start) = kept(0b1111);
        // SAFETY: as above.
        let snapshot = unsafe { MarkBitmap::snapshot(&[bd]) };
        let mut a = space.allocator(&blocks, Some(&snapshot));
        let Placement::Object(p) = a.place(6) else { panic!("a counted bitmap's block lends no run") };
        assert_eq!(p, start.wrapping_add(32));
        assert_eq!(snapshot.marked_runs(bd).collect::<Vec<_>>(), vec![32..38]);
        assert_eq!(snapshot.counted_words(), 6);
        // SAFETY: as above.
        unsafe { a.finish(&mut gen) };
    }

    #[test]
    fn a_medium_object_skips_a_fresh_blocks_short_rest_and_overflows_a_long_one() {
        let blocks = Lock::new(BlockAllocator::new());
        let space = LineSpace::new(1, Geometry::new(64).unwrap());
        let mut a = space.allocator(&blocks, None);
        // A fresh block filled to 12 words short of its end.
        let first = a.alloc(4);
        for _ in 1..(BLOCK_WORDS - 12) / 4 {
            a.alloc(4);
        }
        // See Note [A medium object at a fresh block's end]: 12 words are
        // under an eighth of a block, so an 18-word object goes to the next
        // block, and the small object after it follows it there.
        let medium = a.alloc(18);
        let small = a.alloc(4);
        assert_ne!(block_of(medium), block_of(first));
        assert_eq!(small, medium.wrapping_add(18), "the rest of the first block was given up");
        // That block filled to 80 words short of its end: a rest of more
        // than an eighth sends a 100-word object to the overflow block,
        // and the small object after it fills the rest.
        for _ in 0..(BLOCK_WORDS - 22 - 80) / 4 {
            a.alloc(4);
        }
        let overflowed = a.alloc(100);
        let filler = a.alloc(4);
        assert_ne!(block_of(overflowed), block_of(medium));
        assert_eq!(block_of(filler), block_of(medium), "small objects keep filling the block at hand");
        let mut gen = Generation::new(1, usize::MAX);
        // SAFETY: the allocator's blocks are this test's alone.
        unsafe { a.finish(&mut gen) };
    }

    #[test]
    fn a_hole_that_starts_where_a_full_overflow_block_ends_comes_back_as_the_hole() {
        // See Note [Which run comes back].
        let blocks = Lock::new(BlockAllocator::new());
        let space = LineSpace::new(1, Geometry::new(64).unwrap());
        let mut a = space.allocator(&blocks, None);
        // A fresh block's hole, given back with 80 words left, more than
        // an eighth of a block: a 100-word object goes to the overflow
        // block, which the thread fills to its end.
        let Placement::Run(first) = a.place(4) else { panic!("a fresh block's hole is lent") };
        a.give_back(first, first.end.wrapping_sub(80));
        let Placement::Overflow { run: overflow, .. } = a.place(100) else { panic!("a medium object that misses the hole overflows") };
        a.give_back(overflow, overflow.end);
        // The first block's rest, filled; then a hole in the next fresh
        // block, which starts where the overflow block ends.
        let Placement::Run(rest) = a.place(4) else { panic!("the first block's rest is lent") };
        a.give_back(rest, rest.end);
        let Placement::Run(hole) = a.place(4) else { panic!("a fresh block's hole is lent") };
        assert_eq!(hole.start, overflow.end, "the blocks are neighbours, the case this test is for");
        a.give_back(hole, hole.start.wrapping_add(10));
        let Placement::Run(next) = a.place(4) else { panic!("the hole's rest is lent") };
        assert_eq!(next.start, hole.start.wrapping_add(10), "the hole's bump pointer moved past what the thread placed");
        let mut gen = Generation::new(1, usize::MAX);
        // SAFETY: the allocator's blocks are this test's alone.
        unsafe { a.finish(&mut gen) };
        assert_eq!(gen.n_words, 2 * BLOCK_WORDS + 10, "every word placed counted once: two blocks and the hole's 10");
    }
}
