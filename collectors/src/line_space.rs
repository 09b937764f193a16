//! A space of line-marked blocks: Immix's mark-region space (Blackburn and
//! McKinley, PLDI 2008), the oldest generation of `immix`.
//!
//! Each block is cut into lines (See Note [Line size]). After a major GC
//! has marked the space's blocks in place, a line is *used* if any word of
//! it is marked (a live object lies on it) and *free* otherwise; runs of
//! free lines are *holes*. The sweep gives blocks with no used line back
//! to the block allocator, zeroes every dead word of the rest, and lists
//! those with a hole as *recyclable*, each with its map of used lines.
//! Promotion then bump-allocates into the holes, one after another, before
//! it cuts fresh blocks:
//!
//! - a GC thread's allocator fills the hole it holds with a bump pointer;
//!   an object that does not fit goes to the block's next hole (the rest
//!   of this one is given up), unless it is larger than a line: then it
//!   goes to the allocator's *overflow block*, a fresh block that only
//!   such medium objects fill, so that one medium object does not skip a
//!   run of holes small objects would have filled (Immix's overflow
//!   allocation), except when the hole is a short rest of a block cut in
//!   this GC (See Note [A medium object at a fresh block's end] in
//!   `line_alloc`);
//! - a block's *cursor* (its descriptor's `scan`) says how far allocation
//!   has gone through its holes since the sweep: everything before it
//!   counts as used. A block goes from GC to GC with its line map (on the
//!   recyclable list) and its cursor, and nothing else.
//!
//! Invariant kept: every word of a space block that is not inside an
//! object is zero, and the block's `free` is its end, so a block is a
//! valid linear walk at every moment (See Note [Slop is zeroed] in core's
//! `object`); and every free line at or after a recyclable block's cursor
//! holds only zero words (`LineSpace::check`, which the sanity checker
//! runs).
//!
//! Counts: `n_words` counts the objects placed (after a sweep, the marked
//! words); `n_free_words` counts the words of the holes ahead of the
//! cursors, so the space's fragmentation (`hole_bytes`) is the free lines
//! not yet reused. The rest of a hole given up, and dead words on used
//! lines, are slop until the next sweep.
//!
//! Note [Line size]
//! ----------------------------------------
//! Immix uses 32 KiB blocks of 256-byte lines: the line about a cache
//! line pair, many lines per block so that a block with a few live
//! objects still has long holes. gclab's block is 4 KiB, the unit of its
//! block allocator, descriptors and remembered blocks, and no object but
//! a large one spans two blocks; grouping eight of them into an Immix
//! block would change none of that (holes never cross a 4 KiB boundary,
//! since objects do not), so the choice left is the line. A line map is
//! one word per block, so a line is at least 64 bytes (64 lines).
//!
//! The default is that smallest line, 64 bytes, after measuring 64, 128
//! and 256 (`experiments/immix-lines.toml`, and alternated runs: the
//! figures are in `docs/immix.md`). On lru, the workload whose old data
//! dies scattered, the minimum heap was 13.5, 15.6 and 16.1 MiB: a
//! smaller line finds more of the dead space, and bounds what a
//! defragmentation must move more tightly (See Note [Choosing what to
//! evacuate] in `defrag`). On binary-trees and gcbench, whose old data
//! dies in whole blocks, the three are equal. GC times were equal within
//! this machine's noise (binary-trees 18, 5 alternated runs: medians
//! 1.47, 1.45, 1.47 s), so the cost Immix's paper weighs against small
//! lines, marking them, is absent here (See Note [Exact line marks]).
//!
//! Note [Exact line marks]
//! ----------------------------------------
//! Immix marks lines as it traces: for a small object (at most a line) it
//! marks only the line the object starts on, and when it looks for holes
//! it takes the line after every marked line as used too, since a small
//! object may spill into it ("conservative line marking"); objects larger
//! than a line mark every line they cover. That saves a second store per
//! object in the marking loop, at the price of a line per live run. In
//! gclab the major GC already marks every word of a live object in a
//! bitmap (compaction and sweeps need it: See `mark`), so the sweep reads
//! the used lines exactly off the bitmap, a few word tests per line, and
//! no line is presumed used: an object spanning lines marks all of them,
//! and a line is free exactly when nothing live touches it.

use crate::mark::{free_runs_of, MarkBitmap};
use gclab_core::bdescr::{BlockDesc, BlockPtr, LiveMap, BF_MARK_IN_PLACE};
use gclab_core::block_alloc::{BlockAllocator, BlockRuns};
use gclab_core::constants::{Word, BLOCK_WORDS, WORD_SIZE};
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;
use gclab_core::RegionSweep;
use std::collections::HashSet;

/// `Geometry::used_lines` for the default 64-byte line: each word of the
/// bitmap covers eight lines, one byte each. Folding a word's bytes onto
/// their lowest bits (`x | x >> 4`, then 2, then 1) leaves each byte's
/// bit 0 set if any of its bits was; the multiply gathers those eight bits
/// into the top byte (bit 8i lands on bit 56 + i, and no two partial
/// products share a bit, so nothing carries). Eight steps a word where a
/// loop over the lines takes one a line: the sweep of fibheaps and lru
/// called it for every block of every major GC, 3% of immix's GC
/// instructions on lru.
fn used_lines_of_eight_words(bits: &LiveMap) -> u64 {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut used = 0;
    for (i, &word) in bits.iter().enumerate() {
        let mut x = word;
        x |= x >> 4;
        x |= x >> 2;
        x |= x >> 1;
        let any = ((x & LOW_BITS).wrapping_mul(GATHER) >> 56) & 0xff;
        used |= any << (8 * i);
    }
    used
}

/// How a block is cut into lines (See Note [Line size]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    line_words: usize,
}

impl Geometry {
    /// Lines of `line_bytes` bytes: a power of two from 64 (a block's
    /// line map is one word) to half a block.
    pub fn new(line_bytes: usize) -> Result<Geometry, String> {
        let block_bytes = BLOCK_WORDS * WORD_SIZE;
        if !line_bytes.is_power_of_two() || line_bytes < 64 || line_bytes > block_bytes / 2 {
            return Err(format!("the line size must be a power of two from 64 to {} bytes, not {line_bytes}", block_bytes / 2));
        }
        Ok(Geometry { line_words: line_bytes / WORD_SIZE })
    }

    /// Words per line.
    pub fn line_words(&self) -> usize {
        self.line_words
    }

    /// Lines per block.
    pub fn lines(&self) -> usize {
        BLOCK_WORDS / self.line_words
    }

    /// The lines of a block that hold a marked word, as a line map (bit
    /// `l` for line `l`): See Note [Exact line marks].
    pub fn used_lines(&self, bits: &LiveMap) -> u64 {
        let n = self.line_words;
        if n == 8 {
            return used_lines_of_eight_words(bits);
        }
        let mut used = 0;
        for line in 0..self.lines() {
            let w = line * n;
            let any = if n >= 64 { bits[w / 64..(w + n) / 64].iter().any(|&b| b != 0) } else { (bits[w / 64] >> (w % 64)) & ((1 << n) - 1) != 0 };
            if any {
                used |= 1 << line;
            }
        }
        used
    }

    /// The first hole at or after word `from` of a block whose used lines
    /// are `used`, as a range of word indices.
    pub fn next_hole(&self, used: u64, from: usize) -> Option<std::ops::Range<usize>> {
        let lines = self.lines();
        let mut line = from / self.line_words;
        while line < lines && used & (1 << line) != 0 {
            line += 1;
        }
        if line >= lines {
            return None;
        }
        let start = from.max(line * self.line_words);
        let mut end = line;
        while end < lines && used & (1 << end) == 0 {
            end += 1;
        }
        Some(start..end * self.line_words)
    }

    /// The words of the holes at or after word `from`: what a block
    /// whose cursor is at `from` counts in its generation's free words.
    pub fn hole_words_from(&self, used: u64, from: usize) -> usize {
        self.holes_from(used, from).1
    }

    /// The holes at or after word `from`: how many, and their words (a
    /// hole that `from` falls inside counts from `from`).
    pub fn holes_from(&self, used: u64, from: usize) -> (usize, usize) {
        let (mut holes, mut words, mut at) = (0, 0, from);
        while let Some(h) = self.next_hole(used, at) {
            holes += 1;
            words += h.len();
            at = h.end;
        }
        (holes, words)
    }
}

/// A block with a hole at or after its cursor, and its used lines as the
/// last sweep found them (0 for a block cut fresh since).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recyclable {
    /// The block.
    pub bd: BlockPtr,
    /// Its used lines.
    pub used: u64,
}

/// A line-marked space for one generation.
pub struct LineSpace {
    pub(crate) gen: usize,
    pub(crate) geometry: Geometry,
    /// Blocks with a hole ahead of their cursor.
    pub(crate) recyclable: Lock<Vec<Recyclable>>,
    /// Object words placed, and hole words used up, in blocks kept in
    /// place since the last sweep, which counts them (See
    /// `take_kept_placements`).
    pub(crate) kept: Lock<(usize, usize)>,
    /// Every object the allocators placed since `record_placements`, when
    /// a collector asked for them (None: not recording).
    pub(crate) placements: Lock<Option<Vec<*mut Word>>>,
    /// The placements listed whose copies lost their claims
    /// (`SpaceAllocator::lost`), until `take_lost`.
    pub(crate) lost: Lock<Vec<*mut Word>>,
}

// SAFETY: the recyclable list names blocks the space owns; it is read and
// written under its lock, and the blocks' words only by the GC that holds
// the heap.
unsafe impl Sync for LineSpace {}
// SAFETY: as above.
unsafe impl Send for LineSpace {}

impl LineSpace {
    /// An empty space for generation `gen`.
    pub fn new(gen: usize, geometry: Geometry) -> LineSpace {
        LineSpace { gen, geometry, recyclable: Lock::new(Vec::new()), kept: Lock::new((0, 0)), placements: Lock::new(None), lost: Lock::new(Vec::new()) }
    }

    /// Its geometry.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The record of a sweep or judging of `blocks_swept` blocks of this
    /// space, nothing found yet.
    pub fn sweep_record(&self, blocks_swept: usize) -> RegionSweep {
        RegionSweep { line_bytes: (self.geometry.line_words * WORD_SIZE) as u32, blocks_swept: blocks_swept as u32, ..RegionSweep::default() }
    }

    /// The recyclable blocks, as they stand between GCs.
    pub fn recyclable(&self) -> Vec<Recyclable> {
        self.recyclable.lock().clone()
    }

    /// The object words placed, and the hole words used up, in blocks
    /// kept in place since the last sweep or call (objects marked black
    /// as they were placed), which the generation's counts leave out: a
    /// major GC's sweep counts them, but a collector whose marking spans
    /// several GCs (`concurrent-copying`) adds them to the counts after
    /// each, so they stay exact meanwhile; its sweep then recounts all.
    pub fn take_kept_placements(&self) -> (usize, usize) {
        std::mem::take(&mut *self.kept.lock())
    }

    /// Count what GCs placed in blocks kept in place since the last call
    /// into `gen`'s counts (See `take_kept_placements`): after each GC
    /// while a marking runs. Returns the object words.
    pub fn count_kept_placements(&self, gen: &mut Generation) -> usize {
        let (words, taken) = self.take_kept_placements();
        gen.n_words += words;
        gen.n_free_words -= taken;
        words
    }

    /// From now on, list every object the allocators place, until
    /// `take_placements`: a collector that must visit what a GC promoted
    /// into the space (`lxr` counts its fields).
    pub fn record_placements(&self) {
        *self.placements.lock() = Some(Vec::new());
    }

    /// The objects placed since `record_placements`, which stops listing
    /// them.
    pub fn take_placements(&self) -> Vec<*mut Word> {
        self.placements.lock().take().unwrap_or_default()
    }

    /// The objects placed since `record_placements` whose copies lost
    /// their claims to other GC threads': garbage, still listed among the
    /// placements (See Note [Copies that lost their claim] in `lxr`).
    pub fn take_lost(&self) -> Vec<*mut Word> {
        std::mem::take(&mut *self.lost.lock())
    }

    /// Take the recyclable list, to give back with `relist` (a GC that
    /// must not place anything in the space's holes).
    pub fn take_recyclable(&self) -> Vec<Recyclable> {
        std::mem::take(&mut *self.recyclable.lock())
    }

    /// Empty the recyclable list: its entries are stale (a sweep beside
    /// the mutators is about to judge every block again: `line_sweeper`),
    /// or every block is about to be evacuated (`immix::major`).
    pub fn drop_recyclable(&self) {
        self.recyclable.lock().clear();
    }

    /// List `blocks`, judged by a sweep beside the mutators.
    pub fn relist(&self, blocks: &mut Vec<Recyclable>) {
        self.recyclable.lock().append(blocks);
    }

    /// Take `blocks` off the recyclable list (they are about to be
    /// evacuated: nothing may be placed in them); the free words their
    /// holes held, which the generation counted. Both lists can hold
    /// thousands of blocks (fibheaps evacuates up to 10,000 of 15,000), so
    /// the test is a binary search, not a scan of `blocks` per entry (a
    /// scan took 3% of fibheaps' run at `-M` 2x its minimum heap).
    pub fn forget(&self, blocks: &[BlockPtr]) -> usize {
        let mut sorted = blocks.to_vec();
        sorted.sort_unstable();
        self.unlist(|bd| sorted.binary_search(&bd).is_ok())
    }

    /// Take the blocks `taken` names off the recyclable list; the words of
    /// their holes ahead of their cursors.
    fn unlist(&self, taken: impl Fn(BlockPtr) -> bool) -> usize {
        let g = self.geometry;
        let mut words = 0;
        self.recyclable.lock().retain(|r| {
            if !taken(r.bd) {
                return true;
            }
            // SAFETY: a listed block is the space's, whose descriptor the
            // GC holds.
            words += g.hole_words_from(r.used, unsafe { cursor_of(r.bd) });
            false
        });
        words
    }

    /// Judge the blocks `kept` (the space's blocks, attached to `marks` and
    /// flagged `BF_MARK_IN_PLACE`) into `gen`, whose block list holds only
    /// the blocks cut during this GC: free the blocks with nothing live,
    /// zero the dead words of the rest, count them, and list the ones with
    /// a hole as recyclable, their cursors at their start.
    ///
    /// # Safety
    /// The GC holds the heap; marking is complete and every allocator of
    /// this GC has finished.
    // SAFETY: writes the kept blocks' dead words and descriptors, which the GC holds (the caller's contract).
    pub unsafe fn sweep(&self, kept: Vec<BlockPtr>, marks: &MarkBitmap, blocks: &mut BlockAllocator, gen: &mut Generation) -> RegionSweep {
        let mut stats = self.sweep_record(kept.len());
        *self.kept.lock() = (0, 0);
        let mut list = self.recyclable.lock();
        // The kept blocks' entries are stale; the blocks cut in this GC
        // keep theirs.
        // SAFETY: listed blocks are the space's, which the GC holds.
        list.retain(|r| !unsafe { r.bd.read() }.has(BF_MARK_IN_PLACE));
        let mut empty = BlockRuns::new();
        for bd in kept {
            if marks.live_words(bd) == 0 {
                // SAFETY: a block with nothing live, of the heap's allocator.
                unsafe { empty.push(bd) };
                continue;
            }
            gen.blocks.push(bd);
            gen.n_blocks += 1;
            // SAFETY: the caller's contract.
            unsafe { self.judge(bd, marks, gen, &mut list, &mut stats) };
        }
        stats.blocks_freed += u32::try_from(empty.groups()).unwrap_or(u32::MAX);
        blocks.free_runs(empty);
        stats
    }

    /// Judge block `bd` of `gen` (in its block list, attached to `marks`,
    /// marked in place and with something live): zero its dead words,
    /// count its live words and the words of its free lines into `gen`,
    /// put its cursor at its start and list it in `list` if it has a hole.
    /// The block is left `BF_EVACUATED`, as old blocks are between GCs.
    ///
    /// # Safety
    /// As for `sweep`, for this block.
    // SAFETY: writes the block's dead words and descriptor, which the GC holds (the caller's contract).
    pub unsafe fn judge(&self, bd: BlockPtr, marks: &MarkBitmap, gen: &mut Generation, list: &mut Vec<Recyclable>, stats: &mut RegionSweep) {
        let g = self.geometry;
        let (bits, live) = (marks.bits(bd), marks.live_words(bd));
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        // SAFETY: the caller's contract: the GC holds the block.
        let used = unsafe { clear_dead_words(g, d, &bits) };
        d.end_marking_in_place(0);
        d.aux = 0;
        d.scan = d.start;
        gen.n_words += live;
        let free_lines = g.lines() - used.count_ones() as usize;
        gen.n_free_words += free_lines * g.line_words;
        if free_lines > 0 {
            list.push(Recyclable { bd, used });
            stats.blocks_recyclable += 1;
            stats.lines_free += free_lines as u32;
        }
    }

    /// Judge again blocks of `gen` (in its block list, judged before)
    /// whose objects a collector that frees objects one by one (`lxr`, by
    /// their counts) found dead since: each with the words of its objects
    /// still live. A block's holes ahead of its old cursor come off
    /// `gen.n_free_words`; then a block with nothing live is only
    /// unlisted, for the caller to free (returned), and any other has its
    /// dead words zeroed, its cursor put at its start and its holes counted
    /// and listed afresh. The objects' words are the caller's to count.
    /// Returns the empty blocks, and what the judging found (the empty
    /// blocks counted as freed, which the caller does).
    ///
    /// # Safety
    /// The GC holds the heap, no allocator of the space is running, and
    /// every live object of each block is marked in its map.
    // SAFETY: writes the blocks' dead words and descriptors, which the GC holds (the caller's contract).
    pub unsafe fn rejudge(&self, judged: &[(BlockPtr, LiveMap)], gen: &mut Generation) -> (Vec<BlockPtr>, RegionSweep) {
        let again: HashSet<BlockPtr> = judged.iter().map(|(bd, _)| *bd).collect();
        gen.n_free_words -= self.unlist(|bd| again.contains(&bd));
        // SAFETY: the caller's contract; the blocks are unlisted now.
        unsafe { self.judge_unlisted(judged, gen) }
    }

    /// `rejudge` for blocks that are on no recyclable list and count no
    /// free words (taken off the list and their holes' words taken back:
    /// `lxr`'s offered blocks), which spares the pass over the list.
    ///
    /// # Safety
    /// As for `rejudge`.
    // SAFETY: writes the blocks' dead words and descriptors, which the GC holds (the caller's contract).
    pub unsafe fn judge_unlisted(&self, judged: &[(BlockPtr, LiveMap)], gen: &mut Generation) -> (Vec<BlockPtr>, RegionSweep) {
        let g = self.geometry;
        let mut stats = self.sweep_record(judged.len());
        let mut list = self.recyclable.lock();
        let mut empty = Vec::new();
        for (bd, live) in judged {
            if live.iter().all(|&w| w == 0) {
                empty.push(*bd);
                stats.blocks_freed += 1;
                continue;
            }
            // SAFETY: the caller's contract.
            let d = unsafe { bd.get() };
            // SAFETY: as above: the dead words are nobody's.
            let used = unsafe { clear_dead_words(g, d, live) };
            d.scan = d.start;
            let free_lines = g.lines() - used.count_ones() as usize;
            gen.n_free_words += free_lines * g.line_words;
            if free_lines > 0 {
                list.push(Recyclable { bd: *bd, used });
                stats.blocks_recyclable += 1;
                stats.lines_free += free_lines as u32;
            }
        }
        (empty, stats)
    }

    /// Judge `blocks` as `judge` does, listing the recyclable ones on the
    /// space's own list (a GC that marked them in place without sweeping
    /// the space: StickyImmix's minor GCs).
    ///
    /// # Safety
    /// As for `judge`, for every block.
    // SAFETY: the caller's contract, for every block.
    pub unsafe fn judge_all(&self, blocks: &[BlockPtr], marks: &MarkBitmap, gen: &mut Generation) -> RegionSweep {
        let mut stats = self.sweep_record(blocks.len());
        let mut list = self.recyclable.lock();
        for &bd in blocks {
            // SAFETY: the caller's contract.
            unsafe { self.judge(bd, marks, gen, &mut list, &mut stats) };
        }
        stats
    }

    /// Take recyclable blocks off the list, fullest holes last, until
    /// their holes ahead of their cursors hold `words` words or the list
    /// is empty: the blocks and those holes (as word ranges of the block).
    /// What is taken is no longer the GC's to fill (a collector hands the
    /// holes to the mutators).
    ///
    /// # Safety
    /// The GC holds the heap (the blocks' descriptors are read).
    // SAFETY: reads listed blocks' descriptors, which the GC holds.
    pub unsafe fn take_holes(&self, words: usize) -> Vec<(Recyclable, Vec<std::ops::Range<usize>>)> {
        let g = self.geometry;
        let mut taken = Vec::new();
        let mut got = 0;
        let mut list = self.recyclable.lock();
        while got < words {
            let Some(r) = list.pop() else { break };
            // SAFETY: a listed block is the space's; the caller's contract.
            let cursor = unsafe { cursor_of(r.bd) };
            let mut holes = Vec::new();
            let mut at = cursor;
            while let Some(h) = g.next_hole(r.used, at) {
                got += h.len();
                at = h.end;
                holes.push(h);
            }
            taken.push((r, holes));
        }
        taken
    }

    /// The space's own invariants, for the sanity checker: every listed
    /// block belongs to `gen` and has a hole ahead of its cursor, and
    /// every free line ahead of a cursor holds only zero words.
    ///
    /// # Safety
    /// The world is stopped; `gen` is the space's generation.
    // SAFETY: reads the listed blocks' descriptors and hole words, which the stopped world leaves alone.
    pub unsafe fn check(&self, gen: &Generation) -> Vec<String> {
        let g = self.geometry;
        let mut problems = Vec::new();
        let own: std::collections::HashSet<BlockPtr> = gen.blocks.iter().copied().collect();
        for r in self.recyclable.lock().iter() {
            if !own.contains(&r.bd) {
                problems.push(format!("recyclable block {:p} is not in generation {}", r.bd.0, self.gen));
                continue;
            }
            // SAFETY: the caller's contract.
            let d = unsafe { r.bd.read() };
            let cursor = d.word_index(d.scan);
            if d.free != d.end() || cursor > BLOCK_WORDS {
                problems.push(format!("block {:p} of the line space: free {:p} is not its end, or its cursor {cursor} is out of the block", r.bd.0, d.free));
                continue;
            }
            let mut at = cursor;
            if g.next_hole(r.used, at).is_none() {
                problems.push(format!("recyclable block {:p} has no hole after its cursor (word {cursor})", r.bd.0));
            }
            while let Some(hole) = g.next_hole(r.used, at) {
                // SAFETY: the hole lies in the block.
                let word = |w: usize| unsafe { *d.start.add(w) };
                if let Some(w) = hole.clone().find(|&w| word(w) != 0) {
                    problems.push(format!("line {} of block {:p} is free in the line map but word {w} holds {:#x}", w / g.line_words, r.bd.0, word(w)));
                }
                at = hole.end;
            }
        }
        problems
    }
}

/// The words a block's mark bits `bits` mark live.
pub(crate) fn live_words(bits: &LiveMap) -> usize {
    bits.iter().map(|w| w.count_ones() as usize).sum()
}

/// Zero the dead words of block `d` (those its mark bits `bits` leave
/// unmarked) and return its used lines: the part of judging a block that
/// every sweep of a line space does, in a pause (`LineSpace::judge`) or
/// beside the mutators (`line_sweeper`).
///
/// # Safety
/// `d` is a space block whose dead words nobody reads or writes meanwhile.
// SAFETY: writes only the block's dead words (the caller's contract).
pub(crate) unsafe fn clear_dead_words(g: Geometry, d: &BlockDesc, bits: &LiveMap) -> u64 {
    for run in free_runs_of(bits, BLOCK_WORDS) {
        // SAFETY: the run lies in the block and holds dead words only,
        // which nothing reads.
        unsafe { std::ptr::write_bytes(d.start.add(run.start), 0, run.len()) };
    }
    g.used_lines(bits)
}

/// How far allocation has gone through a space block's holes, in words
/// from its start (for the defragmentation census).
///
/// # Safety
/// `bd` is a space block the caller may read.
pub unsafe fn cursor_of(bd: BlockPtr) -> usize {
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    d.word_index(d.scan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_used_exactly_where_marked_words_lie() {
        let g = Geometry::new(128).unwrap();
        assert_eq!((g.line_words(), g.lines()), (16, 32));
        let mut bits: LiveMap = [0; BLOCK_WORDS / 64];
        // An object on words 14..18 spans lines 0 and 1; one on word 40 is
        // on line 2.
        bits[0] |= 0b1111 << 14 | 1 << 40;
        assert_eq!(g.used_lines(&bits), 0b111);
        let wide = Geometry::new(1024).unwrap();
        assert_eq!(wide.used_lines(&bits), 0b1, "words 0..128 are line 0 of a 1 KiB geometry");
        bits[2] = 1;
        assert_eq!(wide.used_lines(&bits), 0b11, "word 128 starts line 1");
        assert!(Geometry::new(32).is_err() && Geometry::new(96).is_err() && Geometry::new(4096).is_err());
    }

    #[test]
    fn the_eight_word_lines_are_read_as_the_line_by_line_loop_reads_them() {
        // The general loop, for any line size.
        fn by_lines(n: usize, bits: &LiveMap) -> u64 {
            (0..BLOCK_WORDS / n).filter(|&l| (l * n..(l + 1) * n).any(|w| bits[w / 64] >> (w % 64) & 1 != 0)).fold(0, |m, l| m | 1 << l)
        }
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..2000 {
            let mut bits: LiveMap = [0; BLOCK_WORDS / 64];
            for b in &mut bits {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Sparse maps too: a single bit in a byte, bytes left empty.
                *b = if round % 2 == 0 { seed } else { seed & seed >> 3 & seed >> 11 };
            }
            assert_eq!(used_lines_of_eight_words(&bits), by_lines(8, &bits), "{bits:x?}");
        }
        let mut one: LiveMap = [0; BLOCK_WORDS / 64];
        one[7] = 1 << 63;
        assert_eq!(used_lines_of_eight_words(&one), 1 << 63, "the last word of the block is on the last line");
    }

    #[test]
    fn holes_are_runs_of_free_lines_from_the_cursor() {
        let g = Geometry::new(128).unwrap();
        let used: u64 = 0b1001 | 1 << 31; // lines 0, 3, 31
        assert_eq!(g.next_hole(used, 0), Some(16..48));
        assert_eq!(g.next_hole(used, 20), Some(20..48), "a cursor inside a free line starts the hole there");
        assert_eq!(g.next_hole(used, 48), Some(64..496));
        assert_eq!(g.next_hole(used, 496), None);
        assert_eq!(g.holes_from(used, 0), (2, 32 + 432));
        assert_eq!(g.holes_from(used, 20), (2, 28 + 432), "a hole the cursor is inside counts from the cursor");
        assert_eq!(g.holes_from(0, 0), (1, 512));
    }
}
