//! Sweeping a line space beside the mutators: after a concurrent marking
//! (`concurrent_copying`), the sync that ends it only counts the live
//! words, and a thread of the collector's judges the blocks while the
//! mutators run (See Note [Sweeping lines beside the mutators]).
//!
//! Invariant kept: from that sync until the sweeper has judged it, a
//! block of the snapshot is still attached to the marking's bitmap
//! (`BF_MARK_IN_PLACE`), or flagged `BF_UNSWEPT` with its `aux` word
//! pointing at its live map (core's Note [Unswept blocks]), and always the
//! latter when a walk of the heap reads it (See Note [Blocks flagged
//! unswept when a walk needs them]); it is on no recyclable list, so
//! nothing is placed in it; a block the sweeper finds empty keeps its
//! flags, untouched, until the sync that ends the sweep frees it.

use crate::copier::object_starts;
use crate::line_space::{clear_dead_words, live_words, Geometry, LineSpace, Recyclable};
use crate::mark::MarkBitmap;
use crate::prefetch_ring::prefetch_descriptor_ahead;
use crate::parking::Parking;
use gclab_core::bdescr::{BlockDesc, BlockPtr, LiveMap, BF_EVACUATED, BF_MARK_IN_PLACE, BF_UNSWEPT};
use gclab_core::block_alloc::{BlockAllocator, BlockRuns};
use gclab_core::constants::BLOCK_WORDS;
use gclab_core::generation::Generation;
use gclab_core::object::Layout;
use gclab_core::SyncRequest;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

// Note [Sweeping lines beside the mutators]
// ----------------------------------------
// A line space's sweep judges every block from its marks: the dead words
// zeroed, the used lines found, the block listed if it has a hole, freed
// if nothing in it lives. In a pause that is a pass over every block of
// the old generation: 2.5-3.5 ms on binary-trees 20 (60-90 thousand
// blocks), of which zeroing is a tenth; the rest is reading each block's
// descriptor and marks. So the sync that ends a concurrent marking does
// only what the mutators need before they run again:
//
// - the generation's words are counted from the marks (live words
//   exactly, so the checker's word counts hold throughout) and its free
//   words set to none, and the recyclable list is emptied: no GC places
//   anything in a block before the sweeper has judged it;
// - if a walk of the heap may come, every block of the snapshot is
//   flagged unswept (See Note [Blocks flagged unswept when a walk needs
//   them]).
//
// The sweeper then judges each block beside the mutators (writing only
// its dead words, which nobody reads, and its descriptor, which the
// mutators do not read), parking between blocks whenever the world stops.
// Each stop takes what it judged since (`settle`): the blocks with holes
// go on the space's list, their free words into the generation's count,
// before the GC of that stop places anything. A block cut during the
// marking is filled from its start and alive to its fill (See Note
// [Blocks cut during the marking] in `concurrent_copying`): it is judged
// by its fill alone. A block found empty stays flagged and unlisted until
// the sweep is done; the sync that ends it takes the empty blocks out of
// the generation and frees them (See Note [The sweep lists the blocks]).

// Note [Blocks flagged unswept when a walk needs them]
// ----------------------------------------
// Until the sweeper has judged a block of the snapshot, its dead objects
// lie in it whole, and their fields may point at young objects freed
// since (the marking's end dropped dead objects from the mutable lists).
// A walk of the heap (the sanity checker, a census, `Gc.stat`) must skip
// them, which it does for a block flagged `BF_UNSWEPT`, whose `aux` word
// is the address of its marks (core's Note [Unswept blocks]). Flagging
// every snapshot block so at the sync that ends the marking was a pass
// over the old generation's descriptors in that pause, 8 ns a block
// (See Note [Live words counted as they are marked] for what it no
// longer reads), and what it served was the walks, which most runs never
// make while a sweep runs. So the flags wait for a walk:
//
// - The blocks stay as the marking left them, attached to its bitmap
//   (`BF_MARK_IN_PLACE`, and `BF_EVACUATED`, which every GC tests first,
//   so young GCs leave them alone as before). The sweeper reads the marks
//   of such a block from the bitmap it shares, and of a block flagged
//   unswept from the address; either way it leaves the block plain old,
//   or, empty, untouched for the sync that frees it.
// - Where a walk may come before the sweep ends, the blocks are flagged
//   unswept: at the sync itself under `-DS` or a heap profile, whose walks
//   follow every GC or major GC; and, between GCs, when the world is
//   stopped for a walk the program asks for (`Collector::world_stopped`),
//   every block of the sweep's list still attached, with the sweeper
//   parked (`LineSweep::make_walkable`).
// - The live words no longer come from that pass either: they are the
//   marks' count plus the words of the blocks cut during the marking,
//   which follow the snapshot's in the generation's list (See Note [The
//   sweep lists the blocks]); under `-DS` both ways are counted and held
//   against each other.
//
// The sync that ends a marking then works in the roots (the last drain
// and the barrier's records), the old weak pointers and large objects,
// the blocks cut during the marking, and a copy of the block list for the
// sweeper (a `memcpy`, under 1 ns a block).

// Note [Unswept words are not slop]
// ----------------------------------------
// From the sync that ends a marking until the sweeper judges them, the
// old generation's dead words are neither live (`n_words` counts the
// marked words) nor free (`n_free_words` starts again from none), and the
// statistics took them for slop, the words a block holds but cannot use:
// `concurrent-copying` reported 250-380 MB of "maximum slop" on
// binary-trees 20, against 1-3 MB under `nonmoving` and `immix`, where a
// reader of `+RTS -s` would see fragmentation. So the generation counts
// them apart (`n_unswept_words`): all its blocks' words less the live ones
// when the sweep begins; each block the sweeper keeps takes off its words
// but the live ones (its marks, or its fill for a block cut during the
// marking), which are then free or slop; the sync that ends the sweep,
// which frees the empty blocks, leaves none. The sanity checker counts
// them with the free words: dead words of unswept blocks are zero words
// to its walk (See Note [Checking the word counts] in core's `sanity`).

// Note [Live words counted as they are marked]
// ----------------------------------------
// The generation's live words at the marking's end are the bits set in
// the snapshot's maps. Counted at the sync, block by block, that was a
// read of every block's 64-byte map: 22 ns a block, 2.5-5 ms of the sync
// at 110-225 thousand blocks on binary-trees 20 (2-core machine), the
// longest part of the longest pause `concurrent-copying` had at -N2.
// Read in one sequential pass (the maps lie in snapshot order) it was no
// cheaper: 13 ns a block, the memory's bandwidth. So a snapshot's bitmap
// counts as it marks (`MarkBitmap::counted_words`): whoever wins an
// object's first bit (the marker, a GC thread of the pause that begins
// the marking, a GC of the marking placing an object in a hole) adds the
// bits it set, into one of a few shards chosen by block so that GC
// threads marking side by side seldom share one. Only a winner sets new
// bits, and an object's words hold no bits before it is marked, so the
// count is the maps' popcount; less the bits of the snapshot's large
// objects (`sweep_large_objects` counts those, a handful of maps), it is
// the live words of the listed blocks. The flag pass then reads only the
// descriptors: 8 ns a block. Under `-DS` it also reads the maps, and
// checks that the two counts agree. A locked add per marked object cost
// the concurrent marker a fifth more CPU (nonmoving on binary-trees 19:
// 0.156-0.163 s against 0.108-0.144), and its slower markings 5-15% more
// memory; so the marker adds to a counter of its own with a plain load
// and store (`MarkBitmap::mark_by_marker`: one thread at a time adds
// there, the marker, or the collector while it is parked or gone), and
// costs what it did before (0.113-0.135 s; total 0.996x, peak RSS 1.03x
// within noise, 5 alternated rounds). The GCs that run beside it add to
// the shards.

// Note [The sweep lists the blocks]
// ----------------------------------------
// The sync that ends the sweep must take the empty blocks out of the
// generation's list. A pass over that list, reading each block's flag,
// took 0.5-1.7 ms of that sync on binary-trees 20 (40-106 thousand
// blocks). The sweeper already visits every block it was given, in the
// list's order, so it writes the list anew as it goes: the blocks with
// something live (`kept`) and, apart, the empty ones. Nothing is taken
// out of the generation's list while it is swept (a GC that would
// rearrange it, a major GC, abandons the sweep first), and the blocks
// cut since are appended, after the `listed` ones the sweeper got; so the
// sync puts the kept blocks in place of those, keeps the ones cut since,
// and frees the empty ones: work in what the sweep freed and what was
// cut during it, not in the heap. The two asserts in `finish` hold it to
// that. Measured the same way: 0.5-1.4 ms for 70-135 thousand blocks
// (before: 0.85-1.7 ms for 56-106 thousand), what was left being the
// freeing of each empty block (`free_group`), most of binary-trees'
// blocks at each cycle. So the sweeper gathers the empty blocks into runs
// of adjacent blocks as it finds them (core's `BlockRuns`, See Note
// [Freeing blocks by the run] in `block_alloc`), and the sync frees one
// group per run: 8,000-102,000 empty blocks in 236-2,222 runs, freed in
// 6-190 us where one by one they took 0.26-2.5 ms (binary-trees 20,
// timed in the sync).
//
// The sweeper's own copy of the list, made in the sync that begins the
// sweep, was a fresh allocation of 0.5-1.6 MB each time, whose pages
// faulted in during that pause: 0.2-0.7 ms at 60-210 thousand blocks
// (2-core machine, binary-trees 20 -N2). The list that the sweep's list
// replaces is handed back at its end (`SweepEnd::spare_list`) and the
// next sweep copies into it, pages already in: 0.08-0.27 ms.

// Note [What the from-space counted]
// ----------------------------------------
// `concurrent_copying` frees its from-space (blocks this sweep listed)
// without a recount of the old generation, so the words freed must be
// taken off its `n_words` exactly as the generation counted them. The
// object words a walk finds in the blocks when the cycle starts are not
// always that: a thunk updated in place
// since the count was made left zeroed slop that the count still holds
// (Note [Checking the word counts] in core's `sanity`). Taking off only
// the walked words left the slop counted for blocks that were gone, and
// the sanity checker found the generation counting more than its blocks
// hold, a few to 60 words, about once in 25 runs of `power 80 4` under
// `-A8k -G2 -F1` (a flake of the stress conformance test).
//
// - A cycle that starts in the pause of the major GC that swept (or in
//   the major GC that ended a cycle) starts before any mutator ran since
//   the sweep counted the marked words: the walk's words are the count.
// - A cycle that starts at the sync that ends a sweep beside the mutators
//   starts after mutators ran since the sync that began the sweep and
//   counted each block's marked words (`LineSweep::begin`). The sweeper
//   keeps that count for each block it gathers for a cycle
//   (`CopyOutCandidate::counted`), and holds those blocks off the
//   recyclable list, so nothing is placed in them before the cycle
//   starts: their count has not moved since (See Note [The sweep gathers
//   what a cycle copies out]).
//
// The alternative, taking slop off the counts as updates make it (a
// record per update of an old thunk, folded in at the next stop), was
// tried: `nonmoving` and `sticky-immix` take back what blocks counted at
// a snapshot, slop included, and then took it off twice.

// Note [The sweep gathers what a cycle copies out]
// ----------------------------------------
// The sync that ends a sweep starts a copying-out cycle (See Note [A
// copying-out cycle] in `concurrent_copying`) of the sparsest old blocks.
// Chosen there, that sync read every recyclable block's descriptor and
// line map (a census), looked each up in the sweep's counts, took the
// chosen ones off the list, and walked each for its object starts,
// which the copier needs (See Note [Walking a from-space beside the
// claimers] in `copier`): on lru 500000 4000000 128, 11,855 blocks,
// 10.5 ms (census 3.7, taking off 1.6, walks 4.7), the longest pause of
// the run at a third of copying's longest.
//
// The sweeper reads every block's marks and lines anyway. So it gathers
// the blocks a cycle may take (counted by the sweep, at least one free
// line, at most `live=PERCENT` of their lines used) as it judges them,
// walks each for its object starts there, beside the mutators, and holds
// them off the recyclable list until the sweep ends. The sync that ends
// it then checks that they pay for a cycle (See Note [A copying-out that
// pays for itself] in `defrag`), and either flags them from-space or puts
// them back on the list: work in the candidates, a few stores each.
// Measured on that lru run: the longest sync 0.7 ms, where it was 11.8.
//
// The walk beside the mutators is sound because nothing places objects in
// a block held off the list (promotion goes to listed holes and fresh
// blocks; mutators allocate in their nurseries), no cycle claims objects
// during a sweep (a copying-out never runs beside one), and the only
// change a mutator makes to an object's extent is an update that shrinks
// a thunk, zeroing the tail before it stores the new header (core's
// `barrier::update_thunk`): a walk that reads either header reaches the
// same next object. The price is that the candidates' holes wait for the
// sweep's end before a young GC may fill them, where they were listed at
// the next stop.

/// What the sweeper judged since the last `settle`, and the blocks it
/// gathered for a copying-out cycle (kept to the end).
#[derive(Debug, Default)]
struct Judged {
    recyclable: Vec<Recyclable>,
    free_words: usize,
    /// The words of the blocks kept that are not live: no longer unswept
    /// (See Note [Unswept words are not slop]).
    judged_words: usize,
    /// Blocks a copying-out cycle may take, held off the recyclable list
    /// (See Note [The sweep gathers what a cycle copies out]).
    candidates: Vec<CopyOutCandidate>,
    /// The blocks judged so far, in the generation's order, with something
    /// live, and those found empty, gathered into runs for freeing (See
    /// Note [The sweep lists the blocks]).
    kept: Vec<BlockPtr>,
    empty: BlockRuns,
}

/// What a finished sweep hands back.
pub(crate) struct SweepEnd {
    /// The words it freed.
    pub swept_words: usize,
    /// The blocks sparse enough for a copying-out cycle, on no list
    /// (See Note [The sweep gathers what a cycle copies out]).
    pub candidates: Vec<CopyOutCandidate>,
    /// The generation's list as the sweep found it, which the sweep's list
    /// replaced: the buffer for the next sweep's copy (See Note [The sweep
    /// lists the blocks]).
    pub spare_list: Vec<BlockPtr>,
}

/// State shared with the sweeper thread.
struct Shared {
    geometry: Geometry,
    parking: Parking,
    judged: Mutex<Judged>,
    /// The marking's bitmap, to which the blocks not flagged unswept are
    /// still attached (See Note [Blocks flagged unswept when a walk needs
    /// them]).
    marks: Arc<MarkBitmap>,
    /// Blocks with at most this many lines used are gathered for a
    /// copying-out cycle (See Note [The sweep gathers what a cycle copies
    /// out]).
    copy_out_lines: usize,
    layout: Layout,
}

/// A block that a sweep found sparse enough to copy out (See Note [The
/// sweep gathers what a cycle copies out]).
#[derive(Debug)]
pub(crate) struct CopyOutCandidate {
    pub bd: BlockPtr,
    /// Its used lines.
    pub used: u64,
    /// The words of its free lines, which the generation counts free.
    pub free_words: usize,
    /// Its object words as the sync that began the sweep counted them
    /// (See Note [What the from-space counted]).
    pub counted: usize,
    /// Its objects' first words, and their words, walked by the sweeper.
    pub starts: LiveMap,
    pub words: usize,
}

// SAFETY: the block is the generation's, handed from the sweeper to the
// collector with the world stopped.
unsafe impl Send for CopyOutCandidate {}

/// How a sweep begins (See `LineSweep::begin`).
pub(crate) struct SweepStart {
    /// The bits that the snapshot's large objects set in the marks.
    pub large_words: usize,
    /// A buffer for the sweeper's copy of the block list (the last
    /// sweep's `SweepEnd::spare_list`, or empty).
    pub spare_list: Vec<BlockPtr>,
    /// The snapshot's blocks: the first ones of the generation's list
    /// (those cut during the marking come after them).
    pub snapshot_blocks: usize,
    /// Count the live words from the maps too, and check that the counts
    /// agree (under `-DS`).
    pub check: bool,
    /// A walk of the heap may come before the sweep is done (the sanity
    /// checker, a census): flag the blocks unswept at once.
    pub walked: bool,
    /// Gather the blocks with at most this many lines used for a
    /// copying-out cycle (See Note [The sweep gathers what a cycle copies
    /// out]).
    pub copy_out_lines: usize,
    pub layout: Layout,
}

/// A sweep of a line space under way: its thread, and the marks that its
/// unswept blocks point at.
pub(crate) struct LineSweep {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// The generation's words before the marking's end, less its live words.
    dead_words: usize,
    /// How many of the generation's blocks the sweep judges: the first
    /// ones of its list (blocks cut since come after them).
    listed: usize,
}

// SAFETY: the blocks handed to the thread are the generation's, which no
// GC writes while the thread runs (it is parked whenever the world is
// stopped), and their dead words are nobody else's.
struct Blocks(Vec<BlockPtr>);
// SAFETY: as above.
unsafe impl Send for Blocks {}

/// Blocks judged between two checkpoints: a checkpoint takes a lock.
const BATCH: usize = 32;

impl LineSweep {
    /// At the sync that ends a marking: count the generation's live words,
    /// empty the space's list, and start the sweeper, parked until the
    /// world restarts (See Note [Sweeping lines beside the mutators]). The
    /// blocks of `old` that the marking judged (the first
    /// `start.snapshot_blocks`, attached to `marks`, a snapshot's bitmap,
    /// which counts what it marks) are flagged unswept only if a walk may
    /// come (See Note [Blocks flagged unswept when a walk needs them]).
    ///
    /// # Safety
    /// The world is stopped; marking is complete, and no block will be
    /// attached to `marks` again.
    // SAFETY: writes the descriptors of the generation's blocks, which the stopped world leaves to the collector.
    pub(crate) unsafe fn begin(old: &mut Generation, marks: MarkBitmap, start: SweepStart, space: &LineSpace, request: SyncRequest) -> LineSweep {
        // See Note [Live words counted as they are marked].
        let marked = marks.counted_words() - start.large_words;
        let (snapshot, cut_since) = old.blocks.split_at(start.snapshot_blocks);
        // SAFETY: the caller's contract.
        let live = marked + cut_since.iter().map(|bd| unsafe { bd.read() }.used_words()).sum::<usize>();
        if start.check {
            // SAFETY: as above.
            let attached = |bd: &BlockPtr| unsafe { bd.read() }.has(BF_MARK_IN_PLACE);
            assert!(snapshot.iter().all(attached) && !cut_since.iter().any(attached), "heap sanity check failed at the end of a marking: the snapshot's blocks are not the first {} of the old generation's", start.snapshot_blocks);
            let from_maps: usize = snapshot.iter().map(|&bd| marks.live_words(bd)).sum();
            assert!(from_maps == marked, "heap sanity check failed at the end of a marking: its bitmap counted {marked} marked words in the old generation's blocks, their maps hold {from_maps}");
        }
        if start.walked {
            // SAFETY: the caller's contract.
            unsafe { flag_unswept(snapshot, &marks) };
        }
        let dead_words = old.n_words.saturating_sub(live);
        (old.n_words, old.n_free_words) = (live, 0);
        // See Note [Unswept words are not slop].
        old.n_unswept_words = (old.n_blocks * BLOCK_WORDS).saturating_sub(live);
        space.drop_recyclable();
        let shared = Arc::new(Shared { geometry: space.geometry(), parking: Parking::new("line sweeper"), judged: Mutex::new(Judged::default()), marks: Arc::new(marks), copy_out_lines: start.copy_out_lines, layout: start.layout });
        shared.parking.hold();
        // See Note [The sweep lists the blocks].
        let mut list = start.spare_list;
        list.clear();
        list.extend_from_slice(&old.blocks);
        let (s, blocks) = (shared.clone(), Blocks(list));
        let thread = std::thread::Builder::new().name("gclab-line-sweeper".into()).spawn(move || {
            let blocks = blocks;
            let _gone = s.parking.enter();
            s.run(&blocks.0, &request);
        });
        LineSweep { shared, thread: Some(thread.expect("start the line sweeper")), dead_words, listed: old.blocks.len() }
    }

    /// Before a walk of the heap: flag unswept every block of `old` that
    /// the sweeper has left attached to the marks, not judged or found
    /// empty (See Note [Blocks flagged unswept when a walk needs them]).
    ///
    /// # Safety
    /// The world is stopped and the sweeper parked.
    // SAFETY: writes descriptors of the sweep's blocks, which the parked sweeper leaves alone.
    pub(crate) unsafe fn make_walkable(&self, old: &Generation) {
        // SAFETY: the caller's contract; the first `listed` blocks of the
        // list are the sweep's (See Note [The sweep lists the blocks]).
        unsafe { flag_unswept(&old.blocks[..self.listed], &self.shared.marks) };
    }

    /// Park the sweeper at its next checkpoint; true if every block is judged.
    pub(crate) fn pause(&self) -> bool {
        self.shared.parking.pause()
    }

    /// Let it go on (the world restarts).
    pub(crate) fn resume(&self) {
        self.shared.parking.resume();
    }

    /// Take what it judged since the last stop: list the blocks with holes
    /// and count their free words. Call with the sweeper parked, before
    /// the stop's GC places anything.
    pub(crate) fn settle(&self, space: &LineSpace, old: &mut Generation) {
        let mut judged = self.shared.judged.lock().expect("the line sweeper's results");
        old.n_free_words += std::mem::take(&mut judged.free_words);
        old.n_unswept_words = old.n_unswept_words.saturating_sub(std::mem::take(&mut judged.judged_words));
        space.relist(&mut judged.recyclable);
    }

    /// The sweep is done (drained and settled): take the empty blocks out
    /// of `old` and free them. Returns the words the sweep freed, and
    /// what it counted for each block it listed.
    ///
    /// # Safety
    /// The world is stopped; every block is judged.
    // SAFETY: frees blocks nothing points to: empty at the marking's end, and unlisted since.
    pub(crate) unsafe fn finish(mut self, old: &mut Generation, blocks: &mut BlockAllocator) -> SweepEnd {
        self.stop();
        let judged = std::mem::take(&mut *self.shared.judged.lock().expect("the line sweeper's results"));
        // See Note [The sweep lists the blocks].
        assert_eq!(judged.kept.len() + judged.empty.groups(), self.listed, "the sweep judged every block it was given");
        assert!(old.blocks.len() >= self.listed, "blocks are only added to the generation while it is swept");
        let cut_since = old.blocks.split_off(self.listed);
        let spare_list = std::mem::replace(&mut old.blocks, judged.kept);
        old.blocks.extend(cut_since);
        old.n_blocks -= judged.empty.groups();
        old.n_unswept_words = 0;
        blocks.free_runs(judged.empty);
        SweepEnd { swept_words: self.dead_words, candidates: judged.candidates, spare_list }
    }

    /// Stop the sweeper where it is (a major GC is about to mark afresh,
    /// clearing every block's flag, and to count `old` anew). Returns the
    /// marks that the blocks not yet judged still point at: keep them
    /// until that GC has re-attached every block.
    pub(crate) fn abandon(mut self, old: &mut Generation) -> Arc<MarkBitmap> {
        self.stop();
        old.n_unswept_words = 0;
        self.shared.marks.clone()
    }

    fn stop(&mut self) {
        self.shared.parking.end(&mut self.thread);
    }
}

impl Drop for LineSweep {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn run(&self, blocks: &[BlockPtr], request: &SyncRequest) {
        let mut judged = Judged::default();
        // Wait for the world to restart even with no block to judge:
        // `drained` from the parked state would be lost.
        if !self.parking.checkpoint() {
            return;
        }
        for batch in blocks.chunks(BATCH) {
            self.hand_over(&mut judged);
            if !self.parking.checkpoint() {
                return;
            }
            for &bd in batch {
                // SAFETY: a block of the sweep, which no GC writes while
                // this thread is between checkpoints.
                unsafe { self.judge(bd, &mut judged) };
            }
        }
        self.hand_over(&mut judged);
        self.parking.drained(request);
    }

    fn hand_over(&self, judged: &mut Judged) {
        let mut shared = self.judged.lock().expect("the line sweeper's results");
        shared.free_words += std::mem::take(&mut judged.free_words);
        shared.judged_words += std::mem::take(&mut judged.judged_words);
        shared.recyclable.append(&mut judged.recyclable);
        shared.candidates.append(&mut judged.candidates);
        shared.kept.append(&mut judged.kept);
        shared.empty.append(&mut judged.empty);
    }

    /// Judge block `bd`: zero its dead words, find its used lines, note
    /// its holes, and clear its flag; an empty block is left as it is.
    ///
    /// # Safety
    /// `bd` is a block of the sweep, this thread's until its next checkpoint.
    // SAFETY: writes only block `bd`, this thread's under the caller's contract.
    unsafe fn judge(&self, bd: BlockPtr, judged: &mut Judged) {
        let g = self.geometry;
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        let mut counted = None;
        let map: Option<LiveMap> = if d.has(BF_UNSWEPT) {
            // SAFETY: an unswept block's aux word is its live map, which
            // the sweep keeps alive (See Note [Unswept blocks] in core's
            // `block_walk`).
            Some(unsafe { *(d.aux as *const LiveMap) })
        } else if d.has(BF_MARK_IN_PLACE) {
            // See Note [Blocks flagged unswept when a walk needs them].
            Some(self.marks.bits(bd))
        } else {
            None
        };
        let (used, live) = if let Some(map) = map {
            if map.iter().all(|&w| w == 0) {
                // SAFETY: an empty block of the sweep, freed once, at its
                // end (See Note [The sweep lists the blocks]).
                unsafe { judged.empty.push(bd) };
                return;
            }
            let live = live_words(&map);
            counted = Some(live);
            // SAFETY: the block's dead words are nobody else's (the
            // caller's contract).
            let used = unsafe { clear_dead_words(g, d, &map) };
            d.aux = 0;
            // SAFETY: a live descriptor; the flags are read atomically.
            unsafe { BlockDesc::store_flags(d, (d.flags & !(BF_UNSWEPT | BF_MARK_IN_PLACE)) | BF_EVACUATED) };
            (used, live)
        } else {
            (g.used_lines(&filled(d.used_words())), d.used_words())
        };
        judged.kept.push(bd);
        // See Note [Unswept words are not slop].
        judged.judged_words += BLOCK_WORDS - live;
        d.scan = d.start;
        let free_lines = g.lines() - used.count_ones() as usize;
        if free_lines > 0 {
            let free_words = free_lines * g.line_words();
            judged.free_words += free_words;
            match counted {
                Some(counted) if g.lines() - free_lines <= self.copy_out_lines => {
                    // See Note [The sweep gathers what a cycle copies out].
                    // SAFETY: the block is this thread's (the caller's
                    // contract); objects and zero words tile it, and the
                    // mutators change an object's size only by zeroing
                    // its tail before its header.
                    let (starts, words) = unsafe { object_starts(bd, self.layout) };
                    judged.candidates.push(CopyOutCandidate { bd, used, free_words, counted, starts, words });
                }
                _ => judged.recyclable.push(Recyclable { bd, used }),
            }
        }
    }
}

/// Flag unswept each of `blocks` still attached to `marks` (flagged
/// `BF_MARK_IN_PLACE`), its `aux` word the address of its map (core's
/// Note [Unswept blocks]): a pass over their descriptors only, as Note
/// [Live words counted as they are marked] wants.
///
/// # Safety
/// The world is stopped, and nobody else writes the blocks' descriptors.
// SAFETY: writes the descriptors of `blocks`, under the caller's contract.
unsafe fn flag_unswept(blocks: &[BlockPtr], marks: &MarkBitmap) {
    for (i, &bd) in blocks.iter().enumerate() {
        // See Note [A pass over the descriptors prefetches] in `prefetch_ring`.
        prefetch_descriptor_ahead(blocks, i);
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        if d.has(BF_MARK_IN_PLACE) {
            d.aux = marks.live_map_address(bd);
            d.end_marking_in_place(BF_UNSWEPT);
        }
    }
}

/// The map of a block filled from its start to word `words`.
fn filled(words: usize) -> LiveMap {
    std::array::from_fn(|i| match words.saturating_sub(i * 64) {
        0 => 0,
        n if n >= 64 => !0,
        n => (1 << n) - 1,
    })
}
