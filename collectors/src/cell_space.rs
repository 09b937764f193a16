//! A space of size-class cells: blocks cut into equal cells, objects
//! placed in free cells, dead objects swept back into free cells. The old
//! generation of a non-moving collector (`mark_sweep`).
//!
//! Each block of the space holds cells of one size class (its class is
//! kept in the descriptor's `space_info`, plus one). A cell is free when
//! its first word is zero, which no object's header can be, and a free
//! cell is zero throughout; an object smaller than its cell leaves the
//! rest of the cell zero. So a block stays a valid linear walk of objects
//! and zero slop at every moment (See Note [Slop is zeroed] in core's
//! `object`): the sanity checker, heap censuses and `Gc.stat` walk it as
//! they walk a copied block, and the space needs no free list in memory.
//!
//! Allocation: a GC thread's allocator keeps, per size class, the block it
//! is filling; a cursor in the block's descriptor (`scan`) moves cell by
//! cell to the next zero one. A block with no free cell left is dropped
//! from the space's list of partly free blocks; when a class has none, a
//! fresh block is cut (and zeroed). Several GC threads allocate at once,
//! each from blocks it took from the shared list under its lock.
//!
//! Sweeping: after a major GC has marked the live objects of the space's
//! blocks in a `MarkBitmap`, every cell whose first word is unmarked is
//! dead or free. Blocks with no live cell go back to the block allocator
//! at once; the dead cells of the rest are zeroed in the pause, or later
//! by allocation or a sweeper thread, as the space's `SweepMode` says
//! (See Note [When to sweep] in `sweep`), and then they are the space's
//! partly free blocks.
//!
//! The classes, and the class of an object, are `size_classes`'.

use crate::mark::MarkBitmap;
use crate::size_classes::{cells_per_block, class_of, CLASSES};
use crate::lent_runs::MAX_CELL_WORDS;
use crate::space::{Placement, Run, Space, SpaceAllocator};
use crate::sweep::{cell_is_live, clear_dead_cells, live_cells, SweepMode, Sweeps, Unswept};
use gclab_core::bdescr::{BlockPtr, BF_EVACUATED, BF_MARK_IN_PLACE, BF_UNSWEPT};
use gclab_core::block_alloc::{BlockAllocator, BlockRuns};
use gclab_core::constants::{Word, WORD_SIZE};
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;

/// A size-class cell space for one generation.
pub struct CellSpace {
    gen: usize,
    mode: SweepMode,
    /// Per class, swept blocks that may have a free cell past their cursor.
    partial: Lock<Vec<Vec<BlockPtr>>>,
    /// Blocks whose dead cells wait to be cleared.
    sweeps: Sweeps,
    /// This GC ends with a sweep of the space, which recounts its blocks.
    sweeping: bool,
    /// Object words placed in, and cell words taken from, blocks kept in
    /// place (`BF_MARK_IN_PLACE`) by GCs that do not sweep, since the last
    /// `take_kept_placements`: how a marking that spans GCs learns what
    /// its snapshot blocks hold now without walking them.
    kept_placements: Lock<(usize, usize)>,
}

impl CellSpace {
    /// An empty space for generation `gen` (its objects stay in `gen`),
    /// swept as `mode` says.
    pub fn new(gen: usize, mode: SweepMode) -> CellSpace {
        CellSpace { gen, mode, partial: Lock::new(vec![Vec::new(); CLASSES.len()]), sweeps: Sweeps::default(), sweeping: false, kept_placements: Lock::new((0, 0)) }
    }

    /// A GC starts. A major one (`marking`) will judge every block afresh,
    /// so blocks still unswept are forgotten (and the sweeper thread
    /// stopped); a minor one takes back the blocks the sweeper cleared.
    ///
    /// # Safety
    /// The GC holds the heap, before any allocator of this GC exists.
    // SAFETY: resets the descriptors of blocks the sweeper has finished, which the GC holds (the caller's contract).
    pub unsafe fn begin_gc(&mut self, marking: bool) {
        self.sweeping = marking;
        if marking {
            self.sweeps.forget();
            return;
        }
        // SAFETY: the caller's contract.
        let swept = unsafe { self.sweeps.take_swept() };
        let mut partial = self.partial.lock();
        for b in swept {
            partial[b.class].push(b.bd);
        }
    }

    /// Sweep every block the last major GC left unswept, now, and make
    /// them partly free blocks again (before a marking that spans several
    /// GCs, which needs no dead object left in the space).
    ///
    /// # Safety
    /// The world is stopped (a GC or a sync holds the heap).
    // SAFETY: clears dead cells and resets descriptors of the space's own blocks, under the caller's contract.
    pub unsafe fn finish_sweeping(&mut self) {
        // SAFETY: the caller's contract.
        let swept = unsafe { self.sweeps.finish() };
        let mut partial = self.partial.lock();
        for b in swept {
            partial[b.class].push(b.bd);
        }
    }

    /// The object words placed in, and the cell words taken from, blocks
    /// kept in place since the last `take_kept_placements`, by GCs that do
    /// not sweep.
    pub fn kept_placements(&self) -> (usize, usize) {
        *self.kept_placements.lock()
    }

    /// `kept_placements`, and count from zero again.
    pub fn take_kept_placements(&self) -> (usize, usize) {
        std::mem::take(&mut *self.kept_placements.lock())
    }

    /// The space's census by size, as GHC's nonmoving heap census reports
    /// it with `-ln`: per power-of-two cell size in bytes (each class
    /// counted under the smallest power of two that holds its cells, since
    /// the event carries log2 of the size), the blocks with a free cell,
    /// the full ones, and the cells in use. A block whose dead cells are
    /// not yet cleared counts by its live map.
    ///
    /// # Safety
    /// The world is stopped; `gen` holds the space's blocks.
    // SAFETY: reads the space's blocks' first cell words and live maps, which the stopped world leaves alone.
    pub unsafe fn census(&self, gen: &Generation) -> Vec<gclab_core::CollectorEvent> {
        use gclab_core::constants::WORD_SIZE;
        let bucket = |class: usize| (CLASSES[class] * WORD_SIZE).next_power_of_two().trailing_zeros() as usize;
        let mut rows = [(0u32, 0u32, 0u32); 64];
        for &bd in &gen.blocks {
            // SAFETY: the caller's contract.
            let d = unsafe { bd.read() };
            let class = d.space_info as usize - 1;
            let (size, cells) = (CLASSES[class], cells_per_block(class));
            // SAFETY: as above.
            let live = match unsafe { d.live_map() } {
                Some(map) => live_cells(map, size),
                // SAFETY: as above; a swept block's free cells are zero.
                None => (0..cells).filter(|&i| unsafe { *d.start.add(i * size) } != 0).count(),
            };
            let row = &mut rows[bucket(class)];
            if live < cells {
                row.0 += 1;
            } else {
                row.1 += 1;
            }
            row.2 += live as u32;
        }
        let used = (bucket(0)..=bucket(CLASSES.len() - 1)).map(|b| (b, rows[b]));
        used.map(|(b, (active, filled, live))| gclab_core::CollectorEvent::Census { log_cell_bytes: b as u8, active, filled, live }).collect()
    }

    /// The sanity check of a finished marking (`-DS`): each cell of the
    /// blocks `marked` (attached to `marks`) that the marks keep holds an
    /// object. A cell left marked with nothing in it (a run's unused cells:
    /// See Note [Runs in a snapshot block]) would be counted live by the
    /// sweep. Returns the violations.
    ///
    /// # Safety
    /// The world is stopped and marking is complete.
    // SAFETY: reads the first word of the marked blocks' cells, under the caller's contract.
    pub unsafe fn empty_marked_cells(&self, marked: &[BlockPtr], marks: &MarkBitmap) -> Vec<String> {
        let mut errors = Vec::new();
        for &bd in marked {
            // SAFETY: the caller's contract: a block of the space.
            let d = unsafe { bd.read() };
            let class = d.space_info as usize - 1;
            let bits = marks.bits(bd);
            for i in (0..cells_per_block(class)).filter(|&i| cell_is_live(&bits, CLASSES[class], i)) {
                let cell = d.start.wrapping_add(i * CLASSES[class]);
                // SAFETY: the cell lies inside the block.
                if unsafe { *cell } == 0 {
                    errors.push(format!("cell {i} of {}-word cells at {cell:p} is marked but holds no object", CLASSES[class]));
                }
            }
        }
        errors
    }

    /// Judge the blocks `marked` (the space's blocks, attached to `marks`
    /// and flagged `BF_MARK_IN_PLACE`) into `gen`, whose block list holds
    /// only the blocks the space cut during this GC: free the blocks with
    /// nothing live, count the live and free words of the rest, and clear
    /// their dead cells now or later (See Note [When to sweep] in `sweep`).
    /// Rebuilds the partly free lists.
    ///
    /// # Safety
    /// The GC holds the heap; marking is complete and every allocator of
    /// this GC has finished.
    // SAFETY: writes the marked blocks' dead cells and descriptors, which the GC holds (the caller's contract).
    pub unsafe fn sweep(&mut self, marked: Vec<BlockPtr>, marks: MarkBitmap, blocks: &mut BlockAllocator, gen: &mut Generation) {
        let mut partial = self.partial.lock();
        partial.iter_mut().for_each(Vec::clear);
        for &bd in &gen.blocks {
            // SAFETY: blocks the space cut in this GC, the GC's to hold.
            let d = unsafe { bd.read() };
            if d.scan < d.free {
                partial[d.space_info as usize - 1].push(bd);
            }
        }
        let (mut unswept, mut empty) = (Vec::new(), BlockRuns::new());
        for bd in marked {
            // SAFETY: the caller's contract.
            let d = unsafe { bd.get() };
            let live = marks.live_words(bd);
            if live == 0 {
                // SAFETY: a block with nothing live, of the heap's allocator.
                unsafe { empty.push(bd) };
                continue;
            }
            let class = d.space_info as usize - 1;
            let bits = marks.bits(bd);
            let map_address = marks.live_map_address(bd);
            let b = Unswept { bd, start: d.start, cell_words: CLASSES[class], cells: cells_per_block(class), class, map: &bits };
            let free_cells = b.cells - live_cells(&bits, b.cell_words);
            d.end_marking_in_place(0);
            d.scan = d.start;
            d.aux = 0;
            gen.blocks.push(bd);
            gen.n_blocks += 1;
            gen.n_words += live;
            gen.n_free_words += free_cells * b.cell_words;
            if free_cells == 0 {
                continue;
            }
            if self.mode == SweepMode::Eager {
                // SAFETY: the GC holds the block; `bits` is its map.
                unsafe { clear_dead_cells(&b) };
                partial[class].push(bd);
            } else {
                // See Note [Unswept blocks] in core's `block_walk`.
                d.insert_flags(BF_UNSWEPT);
                d.aux = map_address;
                unswept.push(Unswept { map: d.aux as *const _, ..b });
            }
        }
        drop(partial);
        blocks.free_runs(empty);
        if !unswept.is_empty() {
            self.sweeps.defer(unswept, marks, CLASSES.len(), self.mode);
        }
    }
}

impl Space for CellSpace {
    fn allocator<'a>(&'a self, blocks: &'a Lock<BlockAllocator>, marks: Option<&'a MarkBitmap>) -> Box<dyn SpaceAllocator + 'a> {
        Box::new(CellAllocator {
            space: self,
            blocks,
            marks,
            current: vec![None; CLASSES.len()],
            fresh: Vec::new(),
            counts: Counts::default(),
        })
    }
}

/// What one allocator placed, in blocks it cut (`fresh`) and in blocks
/// the space had before (`old`).
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    fresh_object_words: usize,
    fresh_cell_words: usize,
    fresh_taken_words: usize,
    old_object_words: usize,
    old_taken_words: usize,
    kept_object_words: usize,
    kept_taken_words: usize,
}

/// One GC thread's allocation into a `CellSpace`.
struct CellAllocator<'a> {
    space: &'a CellSpace,
    blocks: &'a Lock<BlockAllocator>,
    /// The major GC's bitmap: cells placed in marked blocks are marked
    /// live as they are handed out ("allocated black"), so that the sweep
    /// keeps them.
    marks: Option<&'a MarkBitmap>,
    /// Per class, the block being filled.
    current: Vec<Option<Filling>>,
    fresh: Vec<BlockPtr>,
    counts: Counts,
}

// SAFETY: the allocator's blocks are this GC thread's alone while it holds
// them (taken from the space's list under its lock, or cut fresh).
unsafe impl Send for CellAllocator<'_> {}

/// A block one class is filled from, with its cursor kept here while the
/// allocator holds it and written back to the descriptor's `scan` when
/// it is left (See Note [Placing in cells]).
#[derive(Debug, Clone, Copy)]
struct Filling {
    bd: BlockPtr,
    cursor: *mut Word,
    end: *mut Word,
    /// Cut by this allocator: every cell is free, none need testing.
    fresh: bool,
    /// Marked in place in this (major) GC: cells placed are marked live.
    marked: bool,
    /// Marked, and left alone by this GC (`BF_EVACUATED` too): a block of
    /// the snapshot of a concurrent marking, in a young GC. Runs may be
    /// lent here, marked whole: See Note [Runs in a snapshot block].
    snapshot: bool,
}

// Note [Runs in a snapshot block]
// ----------------------------------------
// An object placed in a block marked in place must be marked live, or the
// sweep takes it back ("allocated black"). The pause of a major GC asks
// whether objects there are marked (`is_alive` of a weak pointer's key)
// before its threads give their runs back, so a run there must be marked
// whole when it is lent. A line space does so (See Note [Runs in a kept
// block] in `line_alloc`); in a cell space it was slower under
// mark-sweep's breadth-first copying, whose runs are scanned by walking
// them, not through the marking's prefetch ring (that Note has the
// figures), so such a block lends no runs. A young GC during a concurrent
// marking (`nonmoving`) promotes into the holes of the snapshot's blocks,
// which it leaves alone (`BF_EVACUATED`, tested before the mark): nothing
// in that GC reads their marks. But the marker runs beside it and must
// find every object placed there marked before the object is written
// (See Note [The marker runs through young GCs] in `concurrent_mark`). So
// there a run is lent as in any older block, its cells all marked when
// it is lent (a `fetch_or` per 64 words), and the cells it left unused
// unmarked when it is given back; nothing can reach those meanwhile, and
// the sanity check at the end of a marking finds any left marked
// (`empty_marked_cells`). Lending runs there rather than placing each
// object alone (`alloc`) was measured when the marker was still parked
// through young GCs and a run's objects were marked when it was given
// back, under `nonmoving`, whose young GCs mostly run during a marking:
// gcbench 16 under cachegrind, GC instructions 0.986x; gcbench 18 on the
// clock, minor GCs 0.965x (7 alternated rounds, inside the noise). Small,
// since what nonmoving's minor GCs pay beyond copying's is mostly the
// fresh memory a marking's larger heap makes them touch
// (docs/performance.md, "Promotion into a space").

// Note [Placing in cells]
// ----------------------------------------
// Promotion into a cell space (mark-sweep's and nonmoving's old
// generation) places every object through `CellAllocator::alloc`, so its
// cost is per promoted object, where copying's is an inlined bump. It was
// 17% of binary-trees 18's cycles under `-xn` (perf): a binary search
// for the size class, and the block's descriptor read and written for
// its cursor, its end and its mark flag at every object. Now the first
// 16 classes (one word apart) are found by subtraction, and the block
// being filled keeps its cursor, end and flags in the allocator
// (`Filling`), written back to the descriptor only when the block is
// left; a block cut in this GC skips the test that a cell is free.
// Measured with cachegrind (`scripts/ab --instructions`): GC instructions
// 0.970x on binary-trees 15 under mark-sweep and on binary-trees 14 under
// `-xn`, the mutator's unchanged. What is left of the gap to copying's
// minor GCs is not here: under mark-sweep the allocator is now 1.5% of
// the run's instructions against `scavenge_block`'s 14%; the objects a
// minor GC promotes land in one block per size class, away from each
// other, and under `-xn` the marker thread shares the machine. The
// allocator now also lends a GC thread the rest of a fresh block's cells,
// or a stretch of free cells, for objects of up to 16 words (See Note
// [Runs a space lends] in `lent_runs`): the thread places them by bumping
// and scans them by walking, and the allocator counts them once per run
// (binary-trees 20 under `-xn`: 398 thousand runs of 170 cells on
// average, 1.6 thousand stretches in older blocks, and 0.7-1.6 thousand
// objects placed one by one where a run was declined).

// Note [A fresh block is zeroed when it is left]
// ----------------------------------------
// A cell space takes a zero word for a free cell (`next_free_cell` in an
// older block, the sweeps, the walks of the sanity checker and the
// censuses), so a block cut for a class was zeroed whole when it was
// taken, and then filled. Promotion fills most fresh blocks to their end
// in one GC, so the zeroing wrote every word twice: 3.5% of
// `nonmoving:mark=sync`'s minor-GC samples on binary-trees 19 (perf).
// Within the GC that cut it no one reads a fresh block's free words (its
// allocator takes every cell from the cursor on as free without looking,
// and the runs it lends are scanned only up to what was placed), so the
// words are zeroed when the allocator leaves the block: from the cursor
// to the block's end, which is nothing for a full block; the slop of a
// cell bigger than the object placed in it is zeroed as it is placed.
// Measured: the same GC instructions under cachegrind (binary-trees 15,
// `nonmoving:mark=sync` and `mark-sweep`) with 4.4% more first-level
// data cache misses, since the zeroing had brought the block into the
// cache that the copies then hit; on the clock, minor GCs 0.968x (median
// of 15 alternated runs of binary-trees 18, spread 0.69-1.08, inside
// this machine's noise). The gain is the write of the block saved, not
// its first touch.

impl Filling {
    /// The next free cell of the block, moving the cursor past it.
    #[inline(always)]
    fn next_free_cell(&mut self, size: usize) -> Option<*mut Word> {
        while self.cursor < self.end {
            let cell = self.cursor;
            self.cursor = cell.wrapping_add(size);
            // SAFETY: the cell lies inside the block, which is this
            // allocator's (See `Send` above).
            if self.fresh || unsafe { *cell } == 0 {
                return Some(cell);
            }
        }
        None
    }
}

impl CellAllocator<'_> {
    /// Start filling a block of `class` (See `take_block`).
    fn start_filling(&mut self, class: usize) -> Filling {
        let (bd, fresh) = self.take_block(class);
        // SAFETY: the block is this allocator's now.
        let d = unsafe { bd.read() };
        let marked = d.has(BF_MARK_IN_PLACE);
        Filling { bd, cursor: d.scan, end: d.free, fresh, marked, snapshot: marked && d.has(BF_EVACUATED) }
    }

    /// Leave the block class `class` was filled from, its cursor written
    /// back; returns it.
    fn leave(&mut self, class: usize) -> Option<BlockPtr> {
        let f = self.current[class].take()?;
        // SAFETY: the block is this allocator's until it is handed back.
        let d = unsafe { f.bd.get() };
        d.scan = f.cursor;
        if f.fresh {
            // See Note [A fresh block is zeroed when it is left].
            let left = (d.end() as usize - f.cursor as usize) / WORD_SIZE;
            // SAFETY: the words from the cursor to the block's end are its
            // free cells and its tail, which nothing has placed in.
            unsafe { std::ptr::write_bytes(f.cursor, 0, left) };
        }
        Some(f.bd)
    }

    /// Count an object of `words` words placed in a cell of `size` words
    /// of `f`'s block at `cell`, marking it live if the block is marked.
    #[inline(always)]
    fn placed(&mut self, f: Filling, cell: *mut Word, words: usize, size: usize) {
        self.count_placed(f.fresh, words, size);
        if f.marked {
            self.allocate_black(cell, words, size);
        }
    }

    /// Mark the object of `words` words placed in a cell of `size` words
    /// at `cell`, in a block marked in place, and count it kept.
    #[inline(always)]
    fn allocate_black(&mut self, cell: *mut Word, words: usize, size: usize) {
        let marks = self.marks.expect("a block is marked in place only while a bitmap is");
        marks.mark(cell, words);
        self.counts.kept_object_words += words;
        self.counts.kept_taken_words += size;
    }

    /// The free cells from the cursor of the block being filled for
    /// objects of exactly `words` words (up to `MAX_CELL_WORDS`): the rest
    /// of a block cut in this GC, or the free cells that follow each other
    /// at an older block's cursor; none in a block marked in place in this
    /// GC's pause, whose objects are allocated black one by one (See Notes
    /// [Runs a space lends] in `lent_runs` and [Runs in a snapshot
    /// block]).
    fn lend(&mut self, words: usize) -> Option<Run> {
        if words > MAX_CELL_WORDS {
            return None;
        }
        let class = class_of(words);
        if CLASSES[class] != words {
            // A run is filled by bumping the object's size: only objects
            // that fill their cells are lent runs (See Note [Runs a space
            // lends] in `lent_runs`).
            return None;
        }
        loop {
            if self.current[class].is_none() {
                self.current[class] = Some(self.start_filling(class));
            }
            let f = self.current[class].as_mut().expect("filled just above");
            if f.marked && !f.snapshot {
                return None;
            }
            if let Some(start) = f.next_free_cell(words) {
                f.cursor = start;
                let end = if f.fresh { f.end } else { free_cells_from(start, words, f.end) };
                if f.snapshot {
                    self.marks.expect("a snapshot block is marked").mark_words(start, end);
                }
                return Some(Run { start, end, cell: words });
            }
            self.leave(class);
        }
    }

    /// Count `object_words` of objects placed in `taken_words` of cells of
    /// a block cut in this GC (`fresh`) or of an older one.
    #[inline(always)]
    fn count_placed(&mut self, fresh: bool, object_words: usize, taken_words: usize) {
        if fresh {
            self.counts.fresh_object_words += object_words;
            self.counts.fresh_taken_words += taken_words;
        } else {
            self.counts.old_object_words += object_words;
            self.counts.old_taken_words += taken_words;
        }
    }

    /// A block of `class` to allocate from: a partly free one of the
    /// space's (swept now if it was not yet), or a fresh one (then true).
    fn take_block(&mut self, class: usize) -> (BlockPtr, bool) {
        if let Some(bd) = self.space.partial.lock()[class].pop() {
            return (bd, false);
        }
        // SAFETY: allocators live inside a GC, which holds the heap.
        if let Some(bd) = unsafe { self.space.sweeps.sweep_one(class) } {
            return (bd, false);
        }
        let bd = self.blocks.lock().alloc_block().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e));
        // SAFETY: a block fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        // Its words are not zeroed here: See Note [A fresh block is zeroed
        // when it is left].
        let size = CLASSES[class];
        d.set_flags(BF_EVACUATED);
        d.set_gen_no(self.space.gen as u16);
        d.dest_no = self.space.gen as u16;
        d.space_info = class as u16 + 1;
        d.scan = d.start;
        d.free = d.start.wrapping_add(cells_per_block(class) * size);
        self.fresh.push(bd);
        self.counts.fresh_cell_words += cells_per_block(class) * size;
        (bd, true)
    }
}

impl SpaceAllocator for CellAllocator<'_> {
    fn alloc(&mut self, words: usize) -> *mut Word {
        let class = class_of(words);
        let size = CLASSES[class];
        loop {
            if let Some(f) = self.current[class].as_mut() {
                if let Some(cell) = f.next_free_cell(size) {
                    let f = *f;
                    if f.fresh && words < size {
                        // The cell's slop (See Note [A fresh block is zeroed
                        // when it is left]).
                        // SAFETY: the cell's words past the object are inside it.
                        unsafe { std::ptr::write_bytes(cell.wrapping_add(words), 0, size - words) };
                    }
                    self.placed(f, cell, words, size);
                    return cell;
                }
                // Full: its cursor is at its end (a swept block's use
                // is recounted by the next sweep).
                self.leave(class);
            }
            let f = self.start_filling(class);
            self.current[class] = Some(f);
        }
    }

    /// A run of cells for objects of up to 16 words (See `lend`), else
    /// the object alone, as `alloc` places it.
    fn place(&mut self, words: usize) -> Placement {
        match self.lend(words) {
            Some(run) => Placement::Run(run),
            None => Placement::Object(self.alloc(words)),
        }
    }

    /// An object smaller than its class's cells is placed alone among
    /// them (See Note [An object placed among a lent run's cells] in
    /// `lent_runs`).
    fn shared_cells(&self, words: usize) -> Option<usize> {
        if words > MAX_CELL_WORDS {
            return None; // no run is lent for cells this size
        }
        let cell = CLASSES[class_of(words)];
        (cell != words).then_some(cell)
    }

    fn give_back(&mut self, run: Run, end: *mut Word) {
        let class = class_of(run.cell);
        let f = self.current[class].as_mut().expect("a run is lent from the block being filled");
        debug_assert!(f.cursor == run.start && end <= run.end, "the run given back starts at the cursor");
        f.cursor = end;
        let (fresh, marked) = (f.fresh, f.marked);
        let words = (end as usize - run.start as usize) / WORD_SIZE;
        self.count_placed(fresh, words, words);
        if marked {
            // A snapshot block's run, marked whole when it was lent: See
            // Note [Runs in a snapshot block].
            self.marks.expect("a snapshot block is marked").unmark_words(end, run.end);
            self.counts.kept_object_words += words;
            self.counts.kept_taken_words += words;
        }
    }

    // SAFETY: hands the allocator's blocks back to the space and the generation, which the GC holds.
    unsafe fn finish(&mut self, gen: &mut Generation) {
        let space = self.space;
        let mut partial = space.partial.lock();
        for class in 0..CLASSES.len() {
            if let Some(bd) = self.leave(class) {
                partial[class].push(bd);
            }
        }
        drop(partial);
        let c = self.counts;
        for bd in self.fresh.drain(..) {
            gen.blocks.push(bd);
            gen.n_blocks += 1;
        }
        gen.n_words += c.fresh_object_words;
        gen.n_free_words += c.fresh_cell_words - c.fresh_taken_words;
        if !self.space.sweeping {
            // No sweep follows: the space's older blocks keep their
            // counts, less what was placed in them. (A sweep recounts them.)
            gen.n_words += c.old_object_words;
            gen.n_free_words -= c.old_taken_words;
            let mut kept = self.space.kept_placements.lock();
            kept.0 += c.kept_object_words;
            kept.1 += c.kept_taken_words;
        }
    }
}

/// The end of the free cells of `size` words that follow each other from
/// the free cell at `start`, in a block whose cells end at `end`.
fn free_cells_from(start: *mut Word, size: usize, end: *mut Word) -> *mut Word {
    let mut p = start.wrapping_add(size);
    // SAFETY: cells before the block's end lie in the block, which the
    // allocator holds; a free cell's first word is zero.
    while p < end && unsafe { *p } == 0 {
        p = p.wrapping_add(size);
    }
    p
}
