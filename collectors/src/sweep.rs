//! Sweeping a cell space: when the dead cells of the blocks a major GC
//! marked are cleared, and by whom (See Note [When to sweep]).
//!
//! A major GC judges each marked block at once (free if nothing in it
//! lives; its live and free words counted), but clearing its dead cells
//! may wait: in `Lazy` and `Concurrent` mode the block is flagged
//! `BF_UNSWEPT`, its live map stays with the space, and it waits in this
//! module's queue (See Note [Unswept blocks] in core's `block_walk` for
//! what that promises the rest of the runtime). A queued block is cleared
//! by the first allocator that wants a block of its size class, during a
//! later GC, or, in `Concurrent` mode, by the space's sweeper thread while
//! the mutators run. The sweeper writes only dead cells and hands the
//! block back through the queue; its descriptor is reset when the world is
//! next stopped for a GC (`take_swept`).
//!
//! Note [When to sweep]
//! ----------------------------------------
//! Eagerly (the default): every marked block is cleared inside the major
//! GC's pause, so the pause grows with the old generation's dead data
//! (one pass over each block's cells, a write per dead cell). Lazily: the
//! pause only counts each block's live cells from its mark bits (64 bytes
//! a block), and each dead cell is cleared when promotion next needs a
//! block of its class, so the clearing moves into the minor GCs that
//! fill the holes, and blocks never reused are never cleared (the next
//! major GC re-judges them with fresh marks: an old dead object is just
//! unmarked again). Concurrently: as lazily, plus a thread that clears the
//! queued blocks while the mutators run, so the minor GCs find most blocks
//! already cleared. It is stopped and joined before a major GC (the marks
//! it reads are about to be replaced) and when the space is dropped
//! (before the heap: See the field order of core's `Rts`).
//!
//! What each mode costs shows in `-S`: the major GCs' times (eager), the
//! minor GCs after a major one (lazy), or neither (concurrent, on a core
//! the mutators do not use).

use crate::mark::MarkBitmap;
use gclab_core::bdescr::{BlockPtr, LiveMap, BF_UNSWEPT};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::lock::Lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// When a space clears the dead cells a major GC found (See Note [When to
/// sweep]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SweepMode {
    /// In the major GC's pause.
    #[default]
    Eager,
    /// When promotion next takes the block.
    Lazy,
    /// On the space's own thread, beside the mutators; lazily for blocks
    /// the thread has not reached.
    Concurrent,
}

impl SweepMode {
    /// Parse a collector parameter's value: `eager`, `lazy`, `concurrent`.
    pub fn parse(text: &str) -> Result<SweepMode, String> {
        match text {
            "eager" => Ok(SweepMode::Eager),
            "lazy" => Ok(SweepMode::Lazy),
            "concurrent" => Ok(SweepMode::Concurrent),
            _ => Err(format!("sweep={text}: expected eager, lazy or concurrent")),
        }
    }
}

/// A marked block whose dead cells wait to be cleared.
#[derive(Debug, Clone, Copy)]
pub struct Unswept {
    /// The block.
    pub bd: BlockPtr,
    /// Its first word.
    pub start: *mut Word,
    /// Its cells' size in words.
    pub cell_words: usize,
    /// Cells in the block.
    pub cells: usize,
    /// Its size class (the space's index).
    pub class: usize,
    /// Its live map, in the bitmap the queue keeps.
    pub map: *const LiveMap,
}

// SAFETY: an `Unswept` is handed from thread to thread only through the
// queue's lock; whoever took it from the queue is the only one to write
// the block's dead cells (See Note [Unswept blocks] in core's `block_walk`).
unsafe impl Send for Unswept {}

/// The queue of unswept blocks.
#[derive(Debug, Default)]
struct Queue {
    /// Per size class, blocks nobody has cleared.
    todo: Vec<Vec<Unswept>>,
    /// Blocks the sweeper thread cleared, still flagged `BF_UNSWEPT`.
    swept: Vec<Unswept>,
}

/// The unswept blocks of one space, their marks and its sweeper thread.
#[derive(Debug, Default)]
pub struct Sweeps {
    queue: Arc<Lock<Queue>>,
    /// The bitmap of the major GC that left the blocks unswept (the live
    /// maps their `aux` words point at).
    marks: Option<MarkBitmap>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sweeps {
    /// Queue `blocks` (flagged `BF_UNSWEPT`, their maps in `marks`), and in
    /// `Concurrent` mode start the sweeper thread on them.
    pub fn defer(&mut self, blocks: Vec<Unswept>, marks: MarkBitmap, classes: usize, mode: SweepMode) {
        debug_assert!(self.thread.is_none() && self.marks.is_none(), "a new cycle starts with `forget`");
        let mut todo = vec![Vec::new(); classes];
        for b in blocks {
            todo[b.class].push(b);
        }
        *self.queue.lock() = Queue { todo, swept: Vec::new() };
        self.marks = Some(marks);
        if mode == SweepMode::Concurrent {
            let (queue, stop) = (self.queue.clone(), self.stop.clone());
            self.stop.store(false, Ordering::Relaxed);
            self.thread = Some(std::thread::Builder::new().name("gclab-sweeper".into()).spawn(move || sweeper(&queue, &stop)).expect("start the sweeper thread"));
        }
    }

    /// A major GC is about to mark afresh: stop the sweeper thread, drop
    /// the queue and the marks. The caller re-marks every block, clearing
    /// `BF_UNSWEPT` (`MarkBitmap::keep_in_place`).
    pub fn forget(&mut self) {
        self.stop_thread();
        *self.queue.lock() = Queue::default();
        self.marks = None;
    }

    /// Clear every queued block now (after stopping the sweeper thread)
    /// and reset the descriptors of all the blocks of the last major GC:
    /// the space is swept through. Returns them, for the space's lists.
    ///
    /// # Safety
    /// As for `take_swept`.
    // SAFETY: clears the queued blocks' dead cells and resets their descriptors, under the caller's contract.
    pub unsafe fn finish(&mut self) -> Vec<Unswept> {
        self.stop_thread();
        let queue = std::mem::take(&mut *self.queue.lock());
        let mut done = queue.swept;
        for b in queue.todo.into_iter().flatten() {
            // SAFETY: the thread is stopped: the queued blocks are ours.
            unsafe { clear_dead_cells(&b) };
            done.push(b);
        }
        for b in &done {
            // SAFETY: the caller's contract; every block is cleared.
            unsafe { mark_swept(b) };
        }
        self.marks = None;
        done
    }

    fn stop_thread(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop.store(true, Ordering::Release);
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }

    /// The blocks the sweeper thread has cleared since the last call,
    /// their descriptors reset: they are ordinary swept blocks again.
    ///
    /// # Safety
    /// The world is stopped (a GC holds the heap), so that no walk sees a
    /// descriptor change (See Note [Unswept blocks] in core's `block_walk`).
    // SAFETY: resets descriptors of blocks the sweeper is done with, the world stopped (the caller's contract).
    pub unsafe fn take_swept(&self) -> Vec<Unswept> {
        let swept = std::mem::take(&mut self.queue.lock().swept);
        for b in &swept {
            // SAFETY: the caller's contract; the sweeper is done with it.
            unsafe { mark_swept(b) };
        }
        swept
    }

    /// Clear a queued block of `class` now, for an allocator that wants
    /// one, and reset its descriptor; None if none is queued.
    ///
    /// # Safety
    /// As for `take_swept`.
    // SAFETY: clears a block taken off the queue, so no sweeper holds it, under the caller's contract.
    pub unsafe fn sweep_one(&self, class: usize) -> Option<BlockPtr> {
        let b = self.queue.lock().todo.get_mut(class)?.pop()?;
        // SAFETY: taken from the queue, the block's dead cells are ours;
        // the world is stopped for its descriptor (the caller's contract).
        unsafe {
            clear_dead_cells(&b);
            mark_swept(&b);
        }
        Some(b.bd)
    }
}

impl Drop for Sweeps {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// The sweeper thread: clear queued blocks until none is left or it is
/// told to stop.
fn sweeper(queue: &Lock<Queue>, stop: &AtomicBool) {
    while !stop.load(Ordering::Acquire) {
        let Some(b) = queue.lock().todo.iter_mut().find_map(Vec::pop) else { return };
        // SAFETY: taken from the queue, the block's dead cells are this
        // thread's alone (See Note [Unswept blocks] in core's `block_walk`),
        // and its map lives until the thread is joined (`forget`, drop).
        unsafe { clear_dead_cells(&b) };
        queue.lock().swept.push(b);
    }
}

/// Is cell `i` of a block of `cell_words`-word cells live (the bit of its
/// first word set in the block's live map)?
pub fn cell_is_live(map: &LiveMap, cell_words: usize, i: usize) -> bool {
    let w = i * cell_words;
    map[w / 64] & (1 << (w % 64)) != 0
}

/// Live cells of a block of `cell_words`-word cells, by its mark bits:
/// the live map against the map of its cells' first words, one popcount
/// per map word (a block's 512 bits are 8 words, whatever its cell size;
/// counting cell by cell cost a pass over up to 512 cells per block, which
/// made the pause of a nonmoving sync grow with the old generation).
pub fn live_cells(map: &LiveMap, cell_words: usize) -> usize {
    let starts = &cell_starts()[cell_words];
    map.iter().zip(starts).map(|(m, s)| (m & s).count_ones() as usize).sum()
}

/// For each cell size in words, the map of the first words of a block's
/// cells (as many cells as fit the block).
fn cell_starts() -> &'static [LiveMap] {
    static STARTS: std::sync::OnceLock<Vec<LiveMap>> = std::sync::OnceLock::new();
    STARTS.get_or_init(|| {
        (0..=BLOCK_WORDS)
            .map(|size| {
                let mut map = [0u64; BLOCK_WORDS / 64];
                for w in (0..BLOCK_WORDS / size.max(1) * size).step_by(size.max(1)) {
                    map[w / 64] |= 1 << (w % 64);
                }
                map
            })
            .collect()
    })
}

/// Zero every dead cell of `b`: a cell whose first word is unmarked and
/// not already zero (a free cell is zero throughout).
///
/// # Safety
/// The caller alone writes the block's dead cells, and `b.map` is live.
// SAFETY: writes only `b`'s dead cells, the caller's alone, reading its live map (the caller's contract).
pub unsafe fn clear_dead_cells(b: &Unswept) {
    // SAFETY: the caller's contract.
    let map = unsafe { &*b.map };
    // See Note [Finding the dead cells by their map].
    let starts = &cell_starts()[b.cell_words];
    for (k, (&live, &first)) in map.iter().zip(starts).enumerate() {
        let mut dead = first & !live;
        while dead != 0 {
            let cell = b.start.wrapping_add(k * 64 + dead.trailing_zeros() as usize);
            dead &= dead - 1;
            // SAFETY: the cell lies in the block and is dead or free: nobody
            // else reads or writes it.
            unsafe {
                if *cell != 0 {
                    std::ptr::write_bytes(cell, 0, b.cell_words);
                }
            }
        }
    }
}

// Note [Finding the dead cells by their map]
// ----------------------------------------
// A sweep zeroes a block's dead cells (a free cell is zero throughout).
// It looped over every cell and tested its first word's mark bit: on
// fibheaps 400000 at -M84m under mark-sweep, 174 M instructions (7% of
// its GC's) for cells of three and four words, most of them live. Now the
// dead cells' first words come a map word at a time (the map of the
// block's cell starts less the live map), so a live cell costs nothing:
// the sweep fell to about 100 M, mark-sweep's GC instructions to 0.976x
// (`scripts/ab --instructions`). Tried and not kept: zeroing runs of
// consecutive dead cells at once, free ones with them, without reading
// their first words. It wrote over free cells that were zero already:
// 1.6% more instructions than this with the `memset`s counted, and three
// times the simulated first-level misses outside the GC's own functions.

/// Reset a cleared block's descriptor: no longer unswept, its allocation
/// cursor at its start.
///
/// # Safety
/// The world is stopped and the block is cleared.
// SAFETY: writes a cleared block's descriptor with the world stopped (the caller's contract).
unsafe fn mark_swept(b: &Unswept) {
    // SAFETY: the caller's contract.
    let d = unsafe { b.bd.get() };
    d.remove_flags(BF_UNSWEPT);
    d.aux = 0;
    d.scan = d.start;
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::block_alloc::BlockAllocator;

    #[test]
    fn clearing_zeroes_every_dead_cell_and_leaves_the_live_ones() {
        let mut ba = BlockAllocator::new();
        let bd = ba.alloc_block().unwrap();
        // SAFETY: a block fresh from the allocator is this test's alone.
        let start = unsafe { bd.read() }.start;
        for cell_words in [3, 4, 7, 32, 170] {
            let cells = BLOCK_WORDS / cell_words;
            let mut map: LiveMap = [0; BLOCK_WORDS / 64];
            for i in 0..BLOCK_WORDS {
                // SAFETY: the block is this test's.
                unsafe { start.add(i).write(i as Word + 1) };
            }
            // Every third cell live, marked over its words; the cell after
            // each live one already free (zero), as a swept block has them.
            for i in (0..cells).step_by(3) {
                for w in i * cell_words..(i + 1) * cell_words {
                    map[w / 64] |= 1 << (w % 64);
                }
                if i + 1 < cells {
                    // SAFETY: as above.
                    unsafe { std::ptr::write_bytes(start.add((i + 1) * cell_words), 0, cell_words) };
                }
            }
            let b = Unswept { bd, start, cell_words, cells, class: 0, map: &map };
            // SAFETY: the block is this test's, `map` its live map.
            unsafe { clear_dead_cells(&b) };
            for i in 0..cells {
                for w in i * cell_words..(i + 1) * cell_words {
                    // SAFETY: as above.
                    let v = unsafe { start.add(w).read() };
                    let want = if i % 3 == 0 { w as Word + 1 } else { 0 };
                    assert_eq!(v, want, "cell {i} of {cell_words} words, word {w}");
                }
            }
            // The block's end past its last cell is not a cell: left alone.
            for w in cells * cell_words..BLOCK_WORDS {
                // SAFETY: as above.
                assert_eq!(unsafe { start.add(w).read() }, w as Word + 1);
            }
        }
    }
}
