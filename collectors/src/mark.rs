//! Mark bitmaps: which words of the blocks kept in place are live.
//!
//! One bit per word of each block, 512 bits (64 bytes) a block, in a side
//! table that the block's descriptor points into through its `aux` word
//! while the block is flagged `BF_MARK_IN_PLACE`. Marking an object sets
//! the bits of *all* its words, not only its first: then the number of
//! live words before any address in a block is a popcount, which is what
//! compaction needs to compute forwarding addresses without storing them
//! anywhere (See Note [Compaction by counting] in `slide`), and what a
//! sweep needs to count live words without reading a header. An object is
//! marked when the bit of its first word is set.
//!
//! A large object's group may be attached too (the nonmoving collector
//! marks old large objects this way): its map covers the group's first
//! block only, and only the object's first bit means anything.
//!
//! Blocks are attached before the GC's threads start, and the bits are
//! atomic, so several GC threads mark into one bitmap: the thread whose
//! `fetch_or` sets an object's first bit owns its scan (See `mark`).

use crate::prefetch_ring::prefetch_descriptor_ahead;
use gclab_core::bdescr::{next_set_bit, BlockDesc, BlockPtr, LiveMap, BF_EVACUATED, BF_LARGE, BF_MARK_IN_PLACE, BF_UNSWEPT};
use gclab_core::constants::{Word, BLOCK_SIZE, BLOCK_WORDS, WORD_SIZE};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Words of mark bits per block: one per 64-word chunk.
pub const MAP_WORDS: usize = BLOCK_WORDS / 64;

type Map = [AtomicU64; MAP_WORDS];

/// The mark bits of a set of single blocks.
#[derive(Debug, Default)]
pub struct MarkBitmap {
    /// Each attached block's marks, at its `aux` word's index; where
    /// object starts are recorded, at twice that index, its starts map
    /// just after it (See Note [Object starts]).
    maps: Vec<Map>,
    /// Object starts are recorded (`keep_in_place_recording_starts`): a
    /// second map per block with the bit of each marked object's first
    /// word only.
    recording: bool,
    /// Only one thread marks (See Note [One thread marks]).
    one_thread: bool,
    /// Objects unmarked in an attached block are young, and are copied
    /// rather than marked (See `copying_the_unmarked`).
    copy_unmarked: bool,
    /// Where counted (a snapshot's bitmap), the bits set so far, in shards
    /// by block so that GC threads marking side by side seldom add to the
    /// same one (See Note [Live words counted as they are marked] in
    /// `line_sweeper`).
    counted: Option<Box<Count>>,
}

/// A counted bitmap's count of the bits it has set.
#[derive(Debug, Default)]
struct Count {
    /// What the concurrent marker set (`mark_by_marker`): one thread adds
    /// to it at a time, the marker or, while it is parked or gone, the
    /// collector marking in its place, so it adds with a plain load and
    /// store, as `set_bits` sets bits for a thread alone (See Note [One
    /// thread marks]).
    marker: AtomicUsize,
    /// What every other thread set, each adding with a locked add.
    shards: [Shard; SHARDS],
}

/// One shard of a count, on a cache line of its own.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Shard(AtomicUsize);

/// Shards of a count.
const SHARDS: usize = 8;

impl Count {
    /// Add `words` set in the block whose map is number `i`.
    #[inline(always)]
    fn add(&self, i: usize, words: usize) {
        self.shards[i % SHARDS].0.fetch_add(words, Ordering::Relaxed);
    }

    /// Add `words` that the marker set.
    #[inline(always)]
    fn add_by_marker(&self, words: usize) {
        self.marker.store(self.marker.load(Ordering::Relaxed) + words, Ordering::Relaxed);
    }
}

// Note [One thread marks]
// ----------------------------------------
// Several GC threads mark into one bitmap with `fetch_or`, a locked
// read-modify-write of 20 cycles or so; a GC of one thread needs none of
// it, and a bitmap told so (`for_one_thread`) sets its bits with a plain
// load and store. On binary-trees 20 under `-c` the locked operations
// were a third of the marking's samples.

// Note [Mark maps from zeroed memory]
// ----------------------------------------
// A major GC gives every block it marks in place a cleared map of 64
// bytes: 7.5 MB for binary-trees 20's old generation of 120,000 blocks.
// Pushed one by one into a fresh vector, those zeros were written in the
// pause, and each of the vector's 1,900 pages faulted in there: the
// snapshot that begins a concurrent marking took 4-7 ms of a 5-9 ms
// pause, the longest pause of `nonmoving` and `concurrent-copying` on
// binary-trees 20 (a stop-the-world major GC marks in the same pause, so
// for it this only moves the faults). The maps are now one
// zeroed allocation (`calloc`): memory freshly mapped is zero already,
// and its pages fault in when the marking first touches them, mostly in
// the marker's thread beside the mutators; memory the allocator reuses
// it clears with one `memset`, whose pages are already in. Either way
// the snapshot of 70,000-100,000 blocks now takes 0.7-1.9 ms. The block
// descriptors are still flagged one by one (a store each, in list
// order), the part that grows with the heap: in the pause for
// `nonmoving` and `lxr`, by the marker beside the mutators for
// `concurrent-copying` (See Note [The marker attaches its snapshot] in
// `concurrent_mark::attach`).

// Note [Object starts]
// ----------------------------------------
// The mark bits say which words are live, not where one object ends and
// the next begins: two live objects side by side are one run of set
// bits. A compaction needs the boundaries twice, to choose where a
// block's live words are cut between two destination blocks, and to
// visit every live object when it fixes their pointers; read from the
// headers, each boundary costs a header read and a size computation that
// the next step waits on (the plan's walk of each block whose live words
// straddle a destination block was 9% of binary-trees 20's run under
// `-c`). So a compaction's bitmap also records each marked object's first
// word in a second map (as MMTk's mark-compact keeps a valid-object bit):
// one more bit set per marked object. The collectors that only sweep do
// not ask for it and pay one untaken branch.
//
// A block's two maps lie side by side, 128 contiguous bytes (the marks at
// twice the block's index, its starts after them), where they were two
// tables of their own: marking an object touched two cache lines half
// the bitmap apart, and now touches neighbours, which the processor's
// next-line prefetch brings in together. Major GCs of binary-trees 20
// under `-c`: 0.951x (0.888-0.956, `scripts/ab -n 5`, 2-core machine),
// 1.36x copying's (1.32-1.41) where they had been 1.43x. Aligning each
// map to a cache line of its own changed nothing measurable (1.018x,
// 0.98-1.03).

/// Make `d`'s `aux` word the index `i` of its map in a bitmap.
fn index_block(d: &mut BlockDesc, i: usize) {
    assert!(d.blocks == 1 || d.has(BF_LARGE), "mark bitmaps cover single blocks and large objects");
    d.aux = i as u64;
}

/// Flag each of `blocks` `BF_MARK_IN_PLACE`, without the flags `clear`,
/// and make its `aux` word its map's number, `first` for the first: one
/// pass over their descriptors (See Note [A pass over the descriptors
/// prefetches] in `prefetch_ring`). The flags are stored atomically, for
/// readers that load them so beside the writer (the marker attaching a
/// snapshot: See Note [The marker attaches its snapshot] in
/// `concurrent_mark::attach`).
///
/// # Safety
/// Nobody else writes the blocks' descriptors meanwhile.
// SAFETY: writes the descriptors of `blocks`, the caller's under its contract.
unsafe fn flag_blocks(blocks: &[BlockPtr], first: usize, clear: u32) {
    for (i, &bd) in blocks.iter().enumerate() {
        prefetch_descriptor_ahead(blocks, i);
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        // SAFETY: a live descriptor (the caller's contract).
        unsafe { BlockDesc::store_flags(d, (d.flags & !clear) | BF_MARK_IN_PLACE) };
        index_block(d, first + i);
    }
}

/// `n` cleared maps, from zeroed memory: See Note [Mark maps from zeroed
/// memory].
fn cleared_maps(n: usize) -> Vec<Map> {
    let maps = Box::<[Map]>::new_zeroed_slice(n);
    // SAFETY: a `Map` is atomic words, for which all-zero bits are 0.
    unsafe { maps.assume_init() }.into_vec()
}

#[inline(always)]
fn word_index(p: *const Word, bd: *const BlockDesc) -> usize {
    // SAFETY: callers pass an address inside the block `bd` describes,
    // which is attached (so its descriptor is live and ours to read).
    unsafe { &*bd }.word_index(p)
}

/// The word number of `p` in its block, from its address alone: an
/// attached single block (and a large object's group) starts at a
/// multiple of the block size.
#[inline(always)]
fn word_in_block(p: *const Word) -> usize {
    (p as usize % BLOCK_SIZE) / WORD_SIZE
}

#[inline(always)]
fn bit(w: usize) -> u64 {
    1 << (w % 64)
}

/// The bits of words `from..to`, all in one 64-word chunk (`to` may be the
/// chunk's end).
#[inline(always)]
fn bits_between(from: usize, to: usize) -> u64 {
    debug_assert!(from < to, "a run of at least one word");
    (u64::MAX >> (64 - (to - from))) << (from % 64)
}

impl MarkBitmap {
    /// An empty table.
    pub fn new() -> MarkBitmap {
        MarkBitmap::default()
    }

    /// Give block `bd` (a single block, or a large object's group) a
    /// cleared bitmap.
    ///
    /// # Safety
    /// The caller holds `bd` for this GC: its `aux` word becomes the index
    /// of the block's map, and stays so until the GC ends.
    // SAFETY: writes `bd`'s descriptor, which the caller holds for this GC.
    pub unsafe fn attach(&mut self, bd: BlockPtr) {
        // SAFETY: the caller's contract.
        index_block(unsafe { bd.get() }, self.maps.len() >> self.recording as usize);
        self.maps.push(Default::default());
        if self.recording {
            self.maps.push(Default::default());
        }
    }

    /// The same bitmap, told whether one thread alone marks into it (See
    /// Note [One thread marks]).
    pub fn for_one_thread(mut self, alone: bool) -> MarkBitmap {
        self.one_thread = alone;
        self
    }

    /// The same bitmap, telling the GC whether to copy out the objects of
    /// its blocks that are unmarked when the GC reaches them instead of
    /// marking them: the young objects of a sticky-mark-bits minor GC,
    /// whose blocks start from their old objects' marks (See Note [Young
    /// objects copied out of holes] in `sticky_immix`).
    pub fn copying_the_unmarked(mut self, copy: bool) -> MarkBitmap {
        self.copy_unmarked = copy;
        self
    }

    /// Is the object at `p`, in an attached block, to be copied out rather
    /// than marked (See `copying_the_unmarked`)?
    #[inline]
    pub fn copies(&self, p: *const Word) -> bool {
        self.copy_unmarked && !self.is_marked(p)
    }

    /// Give block `bd` (a single block) a bitmap holding `bits`: the marks
    /// an earlier GC left it (sticky mark bits, See Note [Young objects in
    /// old blocks] in `scavenge`), so that what they mark reads as marked
    /// already.
    ///
    /// # Safety
    /// As for `attach`.
    // SAFETY: as for `attach`, the caller's contract.
    pub unsafe fn attach_with(&mut self, bd: BlockPtr, bits: &LiveMap) {
        // SAFETY: the caller's contract.
        unsafe { self.attach(bd) };
        // The map `attach` just gave the block.
        let map = self.map_of(bd.0);
        for (word, &b) in map.iter().zip(bits) {
            word.store(b, Ordering::Relaxed);
        }
    }

    /// A bitmap for `blocks`, each flagged `BF_MARK_IN_PLACE` (no longer
    /// `BF_EVACUATED`): `evacuate` will mark their objects where they lie.
    /// The caller has taken the blocks out of their generation, so that
    /// `from_space::prepare` does not make them from-space. A block left
    /// unswept by the last major GC is judged afresh by this one's marks:
    /// its old dead words are simply unmarked.
    ///
    /// # Safety
    /// As for `attach`, for every block.
    // SAFETY: the caller holds every block for this GC.
    pub unsafe fn keep_in_place(blocks: &[BlockPtr]) -> MarkBitmap {
        // SAFETY: the caller's contract.
        unsafe { MarkBitmap::flag_and_attach(blocks, BF_EVACUATED | BF_UNSWEPT, false) }
    }

    /// `keep_in_place`, recording each marked object's first word too
    /// (See Note [Object starts]): a compaction's bitmap.
    ///
    /// # Safety
    /// As for `attach`, for every block.
    // SAFETY: the caller holds every block for this GC.
    pub unsafe fn keep_in_place_recording_starts(blocks: &[BlockPtr]) -> MarkBitmap {
        // SAFETY: the caller's contract.
        unsafe { MarkBitmap::flag_and_attach(blocks, BF_EVACUATED | BF_UNSWEPT, true) }
    }

    /// A bitmap for a concurrent marking's snapshot, `blocks`: as
    /// `keep_in_place`, but a block's `BF_UNSWEPT` stays, and the bitmap
    /// counts the bits it sets (`counted_words`).
    ///
    /// # Safety
    /// As for `attach`, for every block.
    // SAFETY: the caller holds every block for this GC.
    pub unsafe fn snapshot(blocks: &[BlockPtr]) -> MarkBitmap {
        // SAFETY: the caller's contract.
        unsafe { flag_blocks(blocks, 0, BF_EVACUATED) };
        MarkBitmap::snapshot_unattached(blocks.len())
    }

    /// A bitmap for a concurrent marking's snapshot of `n` blocks (and
    /// large objects), none attached yet: the marker attaches them beside
    /// the mutators (`attach_snapshot_blocks`; See Note [The marker
    /// attaches its snapshot] in `concurrent_mark::attach`). It counts the bits it
    /// sets, as `snapshot`'s does.
    pub fn snapshot_unattached(n: usize) -> MarkBitmap {
        MarkBitmap { counted: Some(Box::default()), ..MarkBitmap::unattached(n, false) }
    }

    /// Cleared maps for `n` blocks (and a starts map beside each where
    /// `recording`), from zeroed memory (See Note [Mark maps from zeroed
    /// memory]); no block attached yet.
    fn unattached(n: usize, recording: bool) -> MarkBitmap {
        MarkBitmap { maps: cleared_maps(n << recording as usize), recording, one_thread: false, copy_unmarked: false, counted: None }
    }

    /// Attach `blocks`, numbers `first..` of a `snapshot_unattached`
    /// bitmap's list, to their maps: each is flagged `BF_MARK_IN_PLACE`
    /// beside the flags it has (`BF_EVACUATED` stays, so GCs leave its
    /// objects where they are), and its `aux` word becomes its map's
    /// number.
    ///
    /// # Safety
    /// Nobody else writes the blocks' descriptors meanwhile, and nothing
    /// reads their `aux` words until the whole list is attached; the
    /// flags are stored atomically, for readers that load them so.
    // SAFETY: writes the descriptors of `blocks`, the caller's under its contract.
    pub unsafe fn attach_snapshot_blocks(&self, blocks: &[BlockPtr], first: usize) {
        assert!(first + blocks.len() <= self.maps.len(), "a snapshot's blocks fit its bitmap");
        // SAFETY: the caller's contract.
        unsafe { flag_blocks(blocks, first, 0) };
    }

    /// Flag each of `blocks` `BF_MARK_IN_PLACE`, without the flags
    /// `clear`, and give it a cleared map (and a starts map beside it
    /// where `recording`): See Note [Mark maps from zeroed memory].
    ///
    /// # Safety
    /// As for `attach`, for every block.
    // SAFETY: the caller holds every block for this GC.
    unsafe fn flag_and_attach(blocks: &[BlockPtr], clear: u32, recording: bool) -> MarkBitmap {
        // SAFETY: the caller's contract.
        unsafe { flag_blocks(blocks, 0, clear) };
        MarkBitmap::unattached(blocks.len(), recording)
    }

    #[inline(always)]
    fn map_of(&self, bd: *const BlockDesc) -> &Map {
        // SAFETY: `bd` was attached, so its aux word indexes our table.
        let i = unsafe { (*bd).aux } as usize;
        self.marks_at(i)
    }

    /// The marks of the block whose map is number `i`.
    #[inline(always)]
    fn marks_at(&self, i: usize) -> &Map {
        &self.maps[i << self.recording as usize]
    }

    /// The marks of the block whose map is number `i`, and its recorded
    /// object starts where this bitmap records them: one bounds check for
    /// both, on the marking's path (See Note [A marking's common object
    /// inline] in `evacuate`).
    #[inline(always)]
    fn maps_at(&self, i: usize) -> (&Map, Option<&Map>) {
        if !self.recording {
            return (&self.maps[i], None);
        }
        let [marks, starts] = &self.maps[2 * i..2 * i + 2] else { unreachable!("a range of two maps") };
        (marks, Some(starts))
    }

    /// The recorded object starts of the block whose map is number `i`.
    #[inline(always)]
    fn starts_at(&self, i: usize) -> &Map {
        self.maps_at(i).1.expect("this bitmap records object starts (keep_in_place_recording_starts)")
    }

    /// Mark the object at `p` of `size` words, in an attached block; false
    /// if it already was. When several threads mark the same object, the
    /// one whose `fetch_or` sets the first bit gets true, and only it goes
    /// on to scan the object. The first bit is set with the rest of the
    /// object's bits in its 64-word chunk, in one atomic step (a thread
    /// that loses sets the same bits again, which changes nothing).
    #[inline]
    pub fn mark(&self, p: *const Word, size: usize) -> bool {
        // SAFETY: `p`'s block is attached, so its aux word indexes our table.
        self.mark_in(p, size, unsafe { (*BlockDesc::of(p)).aux } as usize)
    }

    /// `mark` for an object of the block whose map is number `i` (its
    /// `aux` word, which the caller has read).
    #[inline(always)]
    pub fn mark_in(&self, p: *const Word, size: usize, i: usize) -> bool {
        let Some(words) = self.set_object_bits(p, size, i) else { return false };
        if let Some(count) = &self.counted {
            count.add(i, words);
        }
        true
    }

    /// `mark`, by the concurrent marker (or the collector marking in its
    /// place while it is parked or gone): its count has a counter of its
    /// own, added to without a locked instruction (See Note [Live words
    /// counted as they are marked] in `line_sweeper`).
    #[inline]
    pub fn mark_by_marker(&self, p: *const Word, size: usize) -> bool {
        // SAFETY: `p`'s block is attached, so its aux word indexes our table.
        let i = unsafe { (*BlockDesc::of(p)).aux } as usize;
        let Some(words) = self.set_object_bits(p, size, i) else { return false };
        if let Some(count) = &self.counted {
            count.add_by_marker(words);
        }
        true
    }

    /// Set the bits of the object at `p` of `size` words, in the block
    /// whose map is number `i`, unless its first bit is set already;
    /// returns the bits it set, or None if another thread won.
    #[inline(always)]
    fn set_object_bits(&self, p: *const Word, size: usize, i: usize) -> Option<usize> {
        let first = word_in_block(p);
        let (map, starts) = self.maps_at(i);
        if map[first / 64].load(Ordering::Relaxed) & bit(first) != 0 {
            return None;
        }
        // The object's words in its first chunk: all of them, for nearly
        // every object, which then needs nothing more.
        let in_chunk = size.min(64 - first % 64);
        if self.set_bits(&map[first / 64], bits_between(first, first + in_chunk)) & bit(first) != 0 {
            return None;
        }
        if let Some(starts) = starts {
            self.set_bits(&starts[first / 64], bit(first));
        }
        if in_chunk == size {
            return Some(size);
        }
        // A large object's map ends with its first block.
        let end = (first + size).min(BLOCK_WORDS);
        let mut w = first + in_chunk;
        while w < end {
            let upto = end.min((w / 64 + 1) * 64);
            self.set_bits(&map[w / 64], bits_between(w, upto));
            w = upto;
        }
        Some(end - first)
    }

    /// Drop a snapshot bitmap's count, for a collector that does not read
    /// it (`nonmoving`, whose sweep counts its cells), so that its GCs mark
    /// without a locked add, and may mark a run whole (`mark_words`).
    pub fn forget_count(&mut self) {
        self.counted = None;
    }

    /// Set the bits of words `from..to` of one attached block, before
    /// anything is placed there: each object placed in them is then
    /// marked before it is written (a run lent in a snapshot block: See
    /// Note [Runs in a snapshot block] in `cell_space`). Not for a
    /// counted bitmap.
    pub fn mark_words(&self, from: *const Word, to: *const Word) {
        self.change_words(from, to, true);
    }

    /// Clear the bits of words `from..to` of one attached block again
    /// (what such a run left unused).
    pub fn unmark_words(&self, from: *const Word, to: *const Word) {
        self.change_words(from, to, false);
    }

    fn change_words(&self, from: *const Word, to: *const Word, set: bool) {
        assert!(self.counted.is_none(), "a counted bitmap counts objects as they are marked");
        if from >= to {
            return;
        }
        let bd = BlockDesc::of(from);
        let map = self.map_of(bd);
        let w = word_index(from, bd);
        let end = w + (to as usize - from as usize) / WORD_SIZE;
        debug_assert!(end <= BLOCK_WORDS, "the words lie in one block");
        gclab_core::side_metadata::set_bits_between(map, w..end, set);
    }

    /// Does this bitmap count the bits it sets (a snapshot's)? Such a one
    /// marks object by object (`mark_words` is not for it).
    pub fn counts_as_it_marks(&self) -> bool {
        self.counted.is_some()
    }

    /// A counted bitmap's count (a snapshot's).
    fn count(&self) -> &Count {
        self.counted.as_ref().expect("a snapshot's bitmap counts the bits it sets")
    }

    /// Of `counted_words`, what the concurrent marker set (or the
    /// collector marking in its place: `mark_by_marker`).
    pub fn marker_words(&self) -> usize {
        self.count().marker.load(Ordering::Relaxed)
    }

    /// The bits a counted bitmap (a snapshot's) has set: the live words
    /// of its blocks, and of the first blocks of its large objects (See
    /// Note [Live words counted as they are marked] in `line_sweeper`).
    pub fn counted_words(&self) -> usize {
        self.marker_words() + self.count().shards.iter().map(|shard| shard.0.load(Ordering::Relaxed)).sum::<usize>()
    }

    /// Set `bits` in `word`, returning what it held: an atomic `fetch_or`,
    /// or where one thread marks alone a load and a store (See Note [One
    /// thread marks]).
    #[inline(always)]
    fn set_bits(&self, word: &AtomicU64, bits: u64) -> u64 {
        if self.one_thread {
            let old = word.load(Ordering::Relaxed);
            word.store(old | bits, Ordering::Relaxed);
            old
        } else {
            word.fetch_or(bits, Ordering::Relaxed)
        }
    }

    /// Is the object at `p` (in an attached block) marked?
    #[inline]
    pub fn is_marked(&self, p: *const Word) -> bool {
        let bd = BlockDesc::of(p);
        let w = word_index(p, bd);
        self.map_of(bd)[w / 64].load(Ordering::Relaxed) & bit(w) != 0
    }

    /// For each 64-word chunk of block `bd`, the live words of the block
    /// before it, and the block's live words in all: what a compaction
    /// keeps per block so that the live words before any address cost one
    /// popcount (See Note [Compaction by counting] in `slide`).
    #[inline]
    pub fn chunk_offsets(&self, bd: BlockPtr) -> ([u16; MAP_WORDS], usize) {
        let map = self.map_of(bd.0);
        let mut offsets = [0u16; MAP_WORDS];
        let mut live = 0;
        for (offset, bits) in offsets.iter_mut().zip(map) {
            *offset = live as u16;
            live += bits.load(Ordering::Relaxed).count_ones() as usize;
        }
        (offsets, live)
    }

    /// The chunk of `p`'s block that holds `p` (as an index into
    /// `chunk_offsets`), and the live words of that chunk before `p`.
    #[inline]
    pub fn live_words_before_in_chunk(&self, p: *const Word) -> (usize, usize) {
        // SAFETY: `p`'s block is attached, so its aux word indexes our table.
        self.live_words_before_in_chunk_of(unsafe { (*BlockDesc::of(p)).aux } as usize, p)
    }

    /// `live_words_before_in_chunk` for `p` in the single block whose map
    /// is number `i` (its `aux` word, which the caller has read): a
    /// compaction's hot loop reads the number once per pointer.
    #[inline(always)]
    pub fn live_words_before_in_chunk_of(&self, i: usize, p: *const Word) -> (usize, usize) {
        let w = word_in_block(p);
        let bits = self.marks_at(i)[w / 64].load(Ordering::Relaxed);
        (w / 64, (bits & (bit(w) - 1)).count_ones() as usize)
    }

    /// The recorded object starts of chunk `chunk` of the block whose
    /// `aux` word is `i` (See Note [Object starts]).
    #[inline(always)]
    pub fn chunk_starts(&self, i: usize, chunk: usize) -> u64 {
        self.starts_at(i)[chunk % MAP_WORDS].load(Ordering::Relaxed)
    }

    /// The first marked word at or after word `from` of block `bd`.
    pub fn next_marked(&self, bd: BlockPtr, from: usize) -> Option<usize> {
        self.next_with(bd, from, false)
    }

    /// The first unmarked word at or after word `from` of block `bd`.
    pub fn next_unmarked(&self, bd: BlockPtr, from: usize) -> Option<usize> {
        self.next_with(bd, from, true)
    }

    fn next_with(&self, bd: BlockPtr, from: usize, unmarked: bool) -> Option<usize> {
        let map = self.map_of(bd.0);
        let flip = if unmarked { !0 } else { 0 };
        next_set_bit(|i| map[i].load(Ordering::Relaxed) ^ flip, from)
    }

    /// The mark bits of block `bd`, copied out.
    pub fn bits(&self, bd: BlockPtr) -> LiveMap {
        let map = self.map_of(bd.0);
        std::array::from_fn(|i| map[i].load(Ordering::Relaxed))
    }

    /// The address of block `bd`'s bits, as a `BF_UNSWEPT` block's `aux`
    /// word holds it (See Note [Unswept blocks] in core's `block_walk`):
    /// valid while the bitmap lives and no block is attached to it.
    pub fn live_map_address(&self, bd: BlockPtr) -> u64 {
        // An atomic u64 has the layout of a u64, so the map reads as a
        // `LiveMap` once nobody marks any more.
        self.map_of(bd.0).as_ptr() as u64
    }

    /// Live words in block `bd`.
    pub fn live_words(&self, bd: BlockPtr) -> usize {
        self.map_of(bd.0).iter().map(|m| m.load(Ordering::Relaxed).count_ones() as usize).sum()
    }

    /// The free runs of block `bd` within its first `limit` words: maximal
    /// ranges of unmarked words, as word indices (See `free_runs_of`).
    pub fn free_runs(&self, bd: BlockPtr, limit: usize) -> Vec<std::ops::Range<usize>> {
        free_runs_of(&self.bits(bd), limit)
    }

    /// The recorded object starts of block `bd` (See Note [Object starts]).
    fn starts_of(&self, bd: BlockPtr) -> &Map {
        // SAFETY: `bd` was attached, so its aux word indexes our tables.
        self.starts_at(unsafe { bd.read() }.aux as usize)
    }

    /// The first word of the marked object that holds block `bd`'s word
    /// `w` (a marked word), from the recorded starts.
    pub fn object_holding(&self, bd: BlockPtr, w: usize) -> usize {
        let starts = self.starts_of(bd);
        let mut i = w / 64;
        let mut bits = starts[i].load(Ordering::Relaxed) & (u64::MAX >> (63 - w % 64));
        while bits == 0 {
            assert!(i > 0, "a marked word belongs to a marked object");
            i -= 1;
            bits = starts[i].load(Ordering::Relaxed);
        }
        i * 64 + 63 - bits.leading_zeros() as usize
    }

    /// Block `bd`'s marked word that has `rank` marked words before it,
    /// given the block's `chunk_offsets`; None if it has no more.
    pub fn marked_word_with_rank(&self, bd: BlockPtr, offsets: &[u16; MAP_WORDS], rank: usize) -> Option<usize> {
        let map = self.map_of(bd.0);
        let chunk = offsets.iter().rposition(|&o| o as usize <= rank)?;
        let mut bits = map[chunk].load(Ordering::Relaxed);
        for _ in 0..rank - offsets[chunk] as usize {
            bits &= bits.wrapping_sub(1);
        }
        (bits != 0).then(|| chunk * 64 + bits.trailing_zeros() as usize)
    }

    /// The maximal runs of marked words of block `bd`, as word indices, in
    /// address order: every word of a live object is marked, so these are
    /// the block's live words, read without a header.
    pub fn marked_runs(&self, bd: BlockPtr) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let mut from = 0;
        std::iter::from_fn(move || {
            let start = self.next_marked(bd, from)?;
            let end = self.next_unmarked(bd, start).unwrap_or(BLOCK_WORDS);
            from = end;
            Some(start..end)
        })
    }
}

/// The free runs of a block whose mark bits are `bits`, within its first
/// `limit` words: maximal ranges of unmarked words, as word indices.
pub fn free_runs_of(bits: &LiveMap, limit: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut w = 0;
    while w < limit {
        let Some(start) = next_set_bit(|i| !bits[i], w).filter(|&s| s < limit) else { break };
        let end = next_set_bit(|i| bits[i], start).unwrap_or(BLOCK_WORDS).min(limit);
        runs.push(start..end);
        w = end;
    }
    runs
}

#[cfg(test)]
mod tests;
