//! Runs a space lends: the GC thread's side of `SpaceAllocator::place`.
//!
//! A generation kept in a space (`space`) places each promoted object
//! through the space's allocator. Where the space can, it lends the GC
//! thread a whole run of free words instead (a hole between live lines, a
//! fresh block's cells), which the thread fills by bumping a pointer and
//! scans behind that pointer, Cheney-style, as it fills and scans its own
//! to-space blocks. This module keeps, per generation and GC thread, the
//! runs lent and how far each is filled and scanned, and gives them back.
//!
//! Invariant kept: every object placed in a lent run lies in exactly one
//! of: a run's part behind its scan pointer (scanned), a claimed part
//! being scanned, a part on `unscanned` or on the thread's work queue
//! (`Work::Run`), or a run's part between its scan and fill pointers.
//! Claiming moves the scan pointer first, so no object is scanned twice.
//!
//! Note [Runs a space lends]
//! ----------------------------------------
//! Promotion into a space cost a call through the `SpaceAllocator` trait
//! object per object, the allocator's own bookkeeping per object (a
//! size class, a cursor, counters), and a push and a pop of the scan
//! stack, where copying's promotion is an inlined bump and a Cheney scan.
//! It made the minor GCs of the space collectors 1.5-1.7x copying's
//! (nonmoving on binary-trees 20 and lru) and immix slower than copying
//! in total time, with promoted trees laid out in the order a scan stack
//! pops them rather than the order a Cheney scan reaches them.
//!
//! Most of a space's free words come in runs: a fresh block, a hole of
//! several free lines, a stretch of free cells. So an allocator may lend
//! a run where it would place one object (`place`), and the GC thread places objects into it one after
//! another until it is full, then gives it back (`give_back`) with where
//! it stopped; the allocator counts what was placed in one step. A run of
//! any size (`Run::cell` 0: a line space's hole) becomes the ToSpace's
//! `hp` and `lim`, so `alloc_to`'s inlined bump, the one copying uses,
//! places into it. A run of cells takes objects of exactly its cell size
//! only, which the inlined bump cannot test for without slowing copying's
//! path: it lives here, one per object size up to `MAX_CELL_WORDS`, and
//! `alloc_to` bumps it, inlined too, where its first bump fails (a test
//! of the cells' length, which copying's empty list fails at once, then
//! the cell run's bump), the rest of the slow path a call
//! (`alloc_to_slow`). It had been a leaf of its own, out of line: a call
//! for every object promoted into cells, which cost nonmoving 5% of its
//! minor GCs' instructions (33M of 668M on binary-trees 16 at `-F100`).
//! Inlined (2026-11-28), GC instructions (`scripts/ab --instructions`):
//! nonmoving 0.956x on binary-trees 16 at `-F100`, 0.935x on gcbench
//! 16, 0.959x on lru 50000 300000 128; mark-sweep 0.965x on binary-trees
//! 16 and 0.966x on fibheaps 100000; copying 1.008x, 0.999x and 0.996x,
//! immix 1.004x (the code at every inlined `alloc_to` grew, not its
//! work). On the clock (`scripts/ab -n 5`, binary-trees 20): nonmoving's
//! minor GCs 0.935x (0.87-0.95), copying's GC time 1.009x (0.97-1.02,
//! this machine's noise). Before that, the leaf had been split from the
//! rest of the slow path, whose prologue saved six registers for every
//! object: 4.4% fewer GC instructions under `nonmoving:mark=sync` and
//! mark-sweep on binary-trees 17 at `-F100`, with copying at 1.000x. A
//! run of cells is lent only for
//! objects that fill their cells: every size up to 26 words, then 28, 30
//! and 32 (the cell sizes of Note [Size classes] in `size_classes`), since
//! the bump advances by the object's size: a 27-word object in a 28-word
//! cell would put the next object off its cell. Lending up to 16 words only left lru's values (18
//! words with 128 bytes of data) placed one by one: lending them cut
//! nonmoving's GC instructions on lru 50000 300000 128 by 12.1% and
//! mark-sweep's by 14.2% (cachegrind). (Tried: the run of the size
//! asked for last on the inlined bump, with a size test added to it. It
//! saved nonmoving 4.8% of its GC instructions and cost copying 1.7%, or
//! 2.5% with the test as a branch, on binary-trees 15 under cachegrind;
//! copying's path won.) Either way the objects of a run lie one after
//! another, so the thread scans them by walking the run, with no scan
//! stack: a scan pointer per run chases its fill pointer. A lost claim's
//! copy, taken back by rewinding the bump (`GcThread::unalloc_to`), is
//! zeroed there, since the space takes every word past the fill pointer
//! for a free, zero word.
//!
//! A space places the object alone (`Placement::Object`, scanned from the
//! scan stack as before) where a run would change what is placed or cost
//! more: a cell space's blocks marked in place in this GC's pause, whose
//! new objects are marked one by one as they are placed ("allocated
//! black"; a line space marks a kept block's run whole when it lends it,
//! See Note [Runs in a kept block] in `line_alloc`, and a young GC during
//! a concurrent marking does so in a cell space, See Note [Runs in a
//! snapshot block] in `cell_space`), and every object in a space that
//! records every placement (`lxr`). A line space's objects too big for
//! the hole at hand go to its overflow block, which it lends as a second
//! run beside the hole (See Note [The overflow block lent]).

// Note [An object placed among a lent run's cells]
// ----------------------------------------
// A cell space lends a run of cells for objects that fill their cells (a
// 28-word array in 28-word cells) and keeps its cursor at the run's start
// until the run comes back, since only then does it learn how far the
// thread filled it. An object that does not fill its class's cells (a
// 27-word array, in 28-word cells) is placed alone by the same allocator,
// from the same cursor: while a run of 28-word cells was lent, it went
// into the run's first cell, on top of the object the thread had put
// there, and the run's scan then read the cell's slop as a header (zero)
// and crashed. The property test of `tests/graph_model.rs` found it
// under mark-sweep (`[Pair, Pair, Array 25, Array 24, Pair, Pair, Pair]`),
// in one release run of its 256 programs in five to twenty. So
// `place_in_space` first gives back, with the full runs, the run among
// whose cells the space says it may place the object
// (`SpaceAllocator::shared_cells`): the space's cursor is then past
// everything the thread placed. Checking a run's cells against the
// cursor in the allocator instead would have put a test on every
// placement; this costs a look in the slow path only.

// Note [The overflow block lent]
// ----------------------------------------
// Immix sends an object larger than a line that misses the hole at hand
// to an overflow block, so that the hole stays for the small objects
// after it (See Note [A medium object at a fresh block's end] in
// `line_alloc`). The overflow block was not lent: each such object was
// placed alone, and placing it meant giving the hole back first (the
// allocator hands out nothing of a lent run), so the small object after
// it took the slow path again to have the hole's rest lent anew. On lru,
// whose 18-word values are medium at 64-byte lines and whose survivors
// are mostly values stored into old entries, that was 75 thousand
// objects placed alone in a run of generational immix at `-M25616k` and
// 172 thousand at `-G1 -M24640k`, each a call through the space's trait
// object and most a run given back and lent again. Now the space answers
// such an object with a run of its overflow block (`Placement::Overflow`,
// with the size above which objects go there), which the thread keeps
// beside the hole and fills by its own bump pointer in `place_in_space`:
// a medium object that misses the hole, or meets none lent, goes there
// while the run has room, and the hole stays lent. When the run is full
// the thread gives it back and asks again. Its objects are scanned as
// any run's (`LentRuns::claim`; copying depth first, from the scan
// stack). An object too big for the hole that meets no hole lent goes
// to the overflow run without asking the space whether the hole it holds
// could take it: the thread gave that hole back only when an object of
// that size missed it, so it could take only a smaller medium object.
// And the rule of Note [A medium object at a fresh block's end] is the
// allocator's, so it applies when the space is asked (no overflow run
// lent, or a full one), not to an object that the overflow run takes.
//
// Measured with cachegrind (`scripts/ab --instructions`, the binary
// before against after), the GCs themselves the same (the `-S` lines'
// sizes, the minimum heaps): GC instructions 0.901x on lru 50000 1000000
// 128 at `-G1 -M24640k`, 0.957x at `-M25616k`; no other workload has
// objects of more than a line that miss holes (fibheaps, gcbench and
// binary-trees placed 0 to 3 objects so). Dropping the fresh block's
// rule, now that an overflowed object costs no call, was tried: 1.030x
// to 1.099x the GC instructions on lru, so it stays.

use crate::gc_thread::{GcThread, ToSpace, Work, WORK_UNIT_WORDS};
use crate::space::{Placement, Run};
use gclab_core::constants::Word;

/// Runs of cells are kept for objects of up to this many words (of a
/// size that is a cell size: See `CellAllocator::lend`).
pub const MAX_CELL_WORDS: usize = 32;

/// Placed objects from `.0` up to `.1`, not yet scanned.
pub type Unscanned = (*mut Word, *mut Word);

/// A run lent beside the hole and filled by a bump pointer of its own: a
/// run of cells for objects of one size, or the overflow block's.
#[derive(Debug, Clone, Copy)]
struct BumpRun {
    run: Run,
    /// Where the next object goes.
    hp: *mut Word,
    /// Where the unscanned objects begin.
    scan: *mut Word,
}

/// The runs one generation's space has lent one GC thread (See the module
/// doc).
#[derive(Debug, Default)]
pub struct LentRuns {
    /// The run for objects of any size; its fill pointer and end are the
    /// ToSpace's `hp` and `lim`.
    hole: Option<Run>,
    /// Where the hole's unscanned objects begin.
    hole_scan: Option<*mut Word>,
    /// Runs of cells, by the words of their objects (empty until a space
    /// lends one).
    cells: Vec<Option<BumpRun>>,
    /// The overflow block's run, for objects of more than `overflow_above`
    /// words that miss the hole (See Note [The overflow block lent]).
    overflow: Option<BumpRun>,
    overflow_above: usize,
    /// Placed parts of runs given back, not yet scanned.
    unscanned: Vec<Unscanned>,
}

impl LentRuns {
    /// Place an object of `words` words in the run of cells of that size,
    /// if one is lent and has room.
    #[inline(always)]
    pub(crate) fn bump_cell(&mut self, words: usize) -> Option<*mut Word> {
        self.cells.get_mut(words)?.as_mut()?.bump(words)
    }

    /// Place an object of `words` words that missed the hole (or met none
    /// lent) in the overflow block's run, if one is lent, the object is of
    /// the size that goes there, and the run has room (See Note [The
    /// overflow block lent]).
    #[inline]
    fn bump_overflow(&mut self, words: usize) -> Option<*mut Word> {
        if words <= self.overflow_above {
            return None;
        }
        self.overflow.as_mut()?.bump(words)
    }

    /// Claim the next placed objects not yet scanned, of at least
    /// `min_words` words (a run's part: its scan pointer moves past them),
    /// with `hp` the hole's fill pointer.
    fn claim(&mut self, hp: *mut Word, min_words: usize) -> Option<Unscanned> {
        let long_enough = |(s, e): Unscanned| (e as usize - s as usize) / size_of::<Word>() >= min_words.max(1);
        if let Some(&part) = self.unscanned.last() {
            if long_enough(part) {
                return self.unscanned.pop();
            }
        }
        if let Some(scan) = self.hole_scan {
            if long_enough((scan, hp)) {
                self.hole_scan = Some(hp);
                return Some((scan, hp));
            }
        }
        for c in self.cells.iter_mut().flatten().chain(self.overflow.as_mut()) {
            if long_enough((c.scan, c.hp)) {
                let part = (c.scan, c.hp);
                c.scan = c.hp;
                return Some(part);
            }
        }
        None
    }

    /// Is every object placed in the runs scanned?
    fn all_scanned(&self, hp: *mut Word) -> bool {
        self.unscanned.is_empty() && self.hole_scan.is_none_or(|s| s >= hp) && self.cells.iter().flatten().chain(&self.overflow).all(|c| c.scan >= c.hp)
    }
}

impl BumpRun {
    /// A run just lent, with an object of `words` words placed at its start.
    fn lent_for(run: Run, words: usize) -> BumpRun {
        BumpRun { run, hp: run.start.wrapping_add(words), scan: run.start }
    }

    /// Place an object of `words` words, if the run has room.
    #[inline(always)]
    fn bump(&mut self, words: usize) -> Option<*mut Word> {
        let p = self.hp;
        let end = p.wrapping_add(words);
        if end > self.run.end {
            return None;
        }
        self.hp = end;
        Some(p)
    }
}

impl ToSpace<'_> {
    /// Give back the runs that cannot take an object of `words` words (the
    /// hole, which `alloc_to`'s bump found full, the run of cells of that
    /// size and, for an object the size of those it takes, the overflow
    /// block's run), and the run among whose cells the space may place it
    /// alone (See Note [An object placed among a lent run's cells]);
    /// returns their placed, unscanned parts.
    fn give_back_full(&mut self, words: usize) -> [Option<Unscanned>; 4] {
        let shared = self.space.as_ref().and_then(|s| s.shared_cells(words));
        let overflow = (words > self.lent.overflow_above).then(|| self.give_back_overflow()).flatten();
        [self.give_back_hole(), self.give_back_cells(words), shared.and_then(|cell| self.give_back_cells(cell)), overflow]
    }

    /// Give back the overflow block's run, if one is lent; returns its
    /// placed, unscanned part.
    fn give_back_overflow(&mut self) -> Option<Unscanned> {
        let o = self.lent.overflow.take()?;
        Some(self.give_back_bumped(o))
    }

    /// Give back the run of cells for `words`-word objects, if one is
    /// lent; returns its placed, unscanned part.
    fn give_back_cells(&mut self, words: usize) -> Option<Unscanned> {
        let c = self.lent.cells.get_mut(words).and_then(Option::take)?;
        Some(self.give_back_bumped(c))
    }

    /// Give back `r`, a run filled by its own bump pointer, taken off the
    /// lent runs; returns its placed, unscanned part.
    fn give_back_bumped(&mut self, r: BumpRun) -> Unscanned {
        self.space.as_mut().expect("runs are lent by a space").give_back(r.run, r.hp);
        (r.scan, r.hp)
    }

    /// Give back the hole, if one is lent; returns its placed, unscanned part.
    fn give_back_hole(&mut self) -> Option<Unscanned> {
        let run = self.lent.hole.take()?;
        let scan = self.lent.hole_scan.take().expect("a lent hole has a scan pointer");
        self.space.as_mut().expect("runs are lent by a space").give_back(run, self.hp);
        let part = (scan, self.hp);
        self.hp = std::ptr::null_mut();
        self.lim = std::ptr::null_mut();
        Some(part)
    }

    /// Take `run`, just lent, and place an object of `words` words at its
    /// start.
    fn take_run(&mut self, run: Run, words: usize) -> *mut Word {
        debug_assert!((run.end as usize - run.start as usize) / size_of::<Word>() >= words, "a lent run holds the object it was lent for");
        if run.cell == 0 {
            self.lent.hole = Some(run);
            self.lent.hole_scan = Some(run.start);
            self.hp = run.start.wrapping_add(words);
            self.lim = run.end;
        } else {
            debug_assert_eq!(run.cell, words, "a run of cells is lent for objects of its cell size");
            if self.lent.cells.len() <= words {
                self.lent.cells.resize(MAX_CELL_WORDS + 1, None);
            }
            self.lent.cells[words] = Some(BumpRun::lent_for(run, words));
        }
        run.start
    }

    /// Take `run` of the overflow block, just lent for objects of more
    /// than `above` words, and place an object of `words` words at its
    /// start.
    fn take_overflow(&mut self, run: Run, above: usize, words: usize) -> *mut Word {
        debug_assert!(self.lent.overflow.is_none(), "the overflow block's last run was given back first");
        self.lent.overflow = Some(BumpRun::lent_for(run, words));
        self.lent.overflow_above = above;
        run.start
    }

    /// The GC is over for this thread: give every run back to the space.
    /// Every object placed in them has been scanned.
    pub fn give_back_lent(&mut self) {
        debug_assert!(self.lent.all_scanned(self.hp), "every object placed in a lent run is scanned before the runs go back");
        self.give_back_hole();
        self.give_back_overflow();
        for words in 0..self.lent.cells.len() {
            self.give_back_cells(words);
        }
    }
}

impl GcThread<'_> {
    /// Room for `words` words in generation `gen`, which lives in a space,
    /// when no run of cells lent has room (`alloc_to` tried that: See Note
    /// [Runs a space lends]): give back the full runs, and the one the
    /// object may share (See Note [An object placed among a lent run's
    /// cells]), and take what the space places now, a run or the object
    /// alone (then scanned from the scan stack).
    #[inline(never)]
    pub(crate) fn place_in_space(&mut self, gen: usize, words: usize) -> *mut Word {
        let ts = &mut self.to[gen];
        if let Some(p) = ts.lent.bump_overflow(words) {
            return p;
        }
        for part in ts.give_back_full(words).into_iter().flatten() {
            self.queue_unscanned(gen, part);
        }
        let ts = &mut self.to[gen];
        let space = ts.space.as_mut().expect("place_in_space is for a generation kept in a space");
        match space.place(words) {
            Placement::Run(run) => ts.take_run(run, words),
            Placement::Overflow { run, above } => ts.take_overflow(run, above, words),
            Placement::Object(p) => {
                // Copying depth first, `copy` pushes every copy itself.
                if !self.depth_first {
                    self.scan_stack.push(p);
                }
                p
            }
        }
    }

    /// Placed objects of a run given back wait to be scanned: on the work
    /// queue if this thread balances and they are worth sharing, else on
    /// the generation's own list.
    fn queue_unscanned(&mut self, gen: usize, (start, end): Unscanned) {
        let words = (end as usize - start as usize) / size_of::<Word>();
        match &self.todo_q {
            _ if words == 0 => {}
            Some(q) if words >= WORK_UNIT_WORDS => q.push(Work::Run(start, end)),
            _ => self.to[gen].lent.unscanned.push((start, end)),
        }
    }

    /// Claim the next placed, unscanned objects of generation `gen`'s
    /// lent runs, of at least `min_words` words.
    pub(crate) fn claim_lent(&mut self, gen: usize, min_words: usize) -> Option<Unscanned> {
        let ts = &mut self.to[gen];
        ts.lent.claim(ts.hp, min_words)
    }

    /// Hand out, as work for an idle thread, the unscanned parts of the
    /// lent runs that hold at least `WORK_UNIT_WORDS` (See Note [Sharing
    /// part-filled blocks] in `gc_thread`).
    pub(crate) fn share_lent(&mut self) {
        let Some(q) = self.todo_q.as_ref() else { return };
        for ts in self.to.iter_mut().filter(|ts| ts.space.is_some()) {
            while let Some((start, end)) = ts.lent.claim(ts.hp, WORK_UNIT_WORDS) {
                q.push(Work::Run(start, end));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_space::{Geometry, LineSpace};
    use crate::space::Space;
    use gclab_core::block_alloc::BlockAllocator;
    use gclab_core::constants::{BLOCK_SIZE, BLOCK_WORDS};
    use gclab_core::generation::Generation;
    use gclab_core::lock::Lock;
    use gclab_core::object::Layout;

    fn block_of(p: *mut Word) -> usize {
        p as usize / BLOCK_SIZE
    }

    #[test]
    fn medium_objects_that_miss_the_hole_fill_the_overflow_run_while_the_hole_stays_lent() {
        // See Note [The overflow block lent].
        let blocks = Lock::new(BlockAllocator::new());
        let space = LineSpace::new(1, Geometry::new(64).unwrap());
        let mut gct = GcThread::new(Layout::new(false), 0, 2, &blocks);
        gct.to[1].space = Some(space.allocator(&blocks, None));
        // A fresh block, lent whole, filled by 4-word objects to 100 words
        // short of its end (more than an eighth of a block).
        let first = gct.alloc_to(1, 4);
        for _ in 1..(BLOCK_WORDS - 100) / 4 {
            gct.alloc_to(1, 4);
        }
        // A 120-word object misses the hole and opens the overflow run;
        // the small object after it goes on in the hole.
        let medium = gct.alloc_to(1, 120);
        let small = gct.alloc_to(1, 4);
        assert_ne!(block_of(medium), block_of(first));
        assert_eq!(small, first.wrapping_add(BLOCK_WORDS - 100), "the hole's rest");
        // The next three follow in the overflow run, the hole staying lent
        // beside it; the fifth does not fit its block, and a fresh
        // overflow run takes it.
        let more: Vec<*mut Word> = (0..3)
            .map(|_| {
                let p = gct.alloc_to(1, 120);
                assert!(gct.to[1].lent.hole.is_some() && gct.to[1].lent.overflow.is_some(), "two runs lent");
                p
            })
            .collect();
        assert_eq!(more, [1, 2, 3].map(|i| medium.wrapping_add(120 * i)));
        let fifth = gct.alloc_to(1, 120);
        assert!(block_of(fifth) != block_of(medium) && block_of(fifth) != block_of(first));
        assert_eq!(gct.alloc_to(1, 4), small.wrapping_add(4), "still the same hole");
        // Every object placed is handed out for scanning, those in the
        // overflow runs among them.
        let mut claimed = 0;
        while let Some((start, end)) = gct.claim_lent(1, 0) {
            claimed += (end as usize - start as usize) / size_of::<Word>();
        }
        assert_eq!(claimed, (BLOCK_WORDS - 100) + 4 + 5 * 120 + 4);
        gct.to[1].give_back_lent();
        let mut gen = Generation::new(1, usize::MAX);
        // SAFETY: the allocator's blocks are this test's alone, and every
        // run is back.
        unsafe { gct.to[1].space.as_mut().expect("set above").finish(&mut gen) };
    }
}
