//! Holes offered to the mutators: the recyclable blocks of a line space
//! whose holes a collector hands the mutators after a GC (`sticky_immix`,
//! `lxr`, and whole-heap `immix`), each with its sticky marks, and how the
//! next GC takes them back to mark the young objects allocated there
//! where they lie (or, for a major GC, forgets them).
//!
//! Invariant kept: between two GCs an offered block is off the space's
//! recyclable list (promotion never places into it), and its marks, taken
//! when it was offered, cover exactly the objects it held then, all old
//! (See Note [Marks that stick]); every young object in it lies in one of
//! the holes offered.

use crate::line_space::LineSpace;
use crate::mark::MarkBitmap;
use gclab_core::alloc_region::Region;
use gclab_core::bdescr::{word_runs, BlockPtr, LiveMap, BF_EVACUATED, BF_MARK_IN_PLACE};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::heap::Heap;
use gclab_core::object::{info_of_header, Layout};
use gclab_core::GcContext;
use std::collections::HashSet;
use std::ops::Range;

// Note [Marks that stick]
// ----------------------------------------
// In a sticky-mark-bits collector a mark, once set, says "old" until the
// next major GC clears it, so a minor GC marks only what is unmarked: the
// young. MMTk keeps the bits of every block in side metadata for the
// whole run. Here only the blocks whose holes are offered can hold young
// objects (besides the nursery), and right after a GC every object in
// them is old: a block's sticky marks are exactly its objects. So the
// marks are taken when a block is offered, by walking it (at most 512
// words, and only the blocks offered, about `-A` of holes), and are kept
// with the offer until the next GC, which marks into a bitmap that starts
// from them (`MarkBitmap::attach_with`): old objects read as marked, and
// are neither scanned nor judged dead. A minor GC then costs what is young
// and what the remembered set names, not the old generation's size. The
// alternative, a persistent bitmap over every block of the space, would
// save the walk and cost 64 bytes for each block and its upkeep through
// `immix`'s major GCs, which mark into a fresh bitmap of their own.
//
// An old object may shrink while it is offered: a thunk updated in place
// keeps two words and zeroes the rest (core's Note [Slop is zeroed]). Its
// sticky marks still cover the old size, and a line judged by them would
// count that slop as live words, which the next offer's walk no longer
// sees: the generation's word count would creep up by the slop at every
// offer (a sanity check caught it: 25 words counted, 24 in the blocks).
// So the next GC first drops from the marks every marked zero word that
// lies where an object would start (`drop_slop`): only slop is zero there.
//
// A collector that keeps its generation's word counts itself (`lxr`)
// needs no walk: an offered block's old objects all lie outside its holes
// and its young ones inside, so every word outside the holes can read as
// marked (`OfferedHoles::outside_holes`). The walk cost lxr 13% of
// fibheaps' run when it offered a quarter of `-A` (two walks of each
// block, to take the marks and to drop the slop).

/// A block whose holes were offered to the mutators at the last GC.
pub(crate) struct Offered {
    pub bd: BlockPtr,
    /// The marks of its objects when it was offered, all of them old, if
    /// they were walked (See Note [Marks that stick]).
    pub marks: LiveMap,
    /// The holes offered, as word ranges of the block.
    pub holes: Vec<Range<usize>>,
}

impl Offered {
    /// The words of the holes offered, which the generation counts free.
    pub fn free_words(&self) -> usize {
        self.holes.iter().map(|h| h.len()).sum()
    }

    /// Every word of the block outside the holes offered, as a map.
    pub fn outside_holes(&self) -> LiveMap {
        let mut bits: LiveMap = [u64::MAX; BLOCK_WORDS / 64];
        for (i, mask) in self.holes.iter().flat_map(|h| word_runs(h.clone())) {
            bits[i] &= !mask;
        }
        bits
    }
}

/// The blocks whose holes are offered until the next GC, how much of
/// `-A` a GC offers, and how their old objects' marks are taken.
pub(crate) struct OfferedHoles {
    percent: usize,
    /// Whether `percent` is of the allocation area as the policy sized
    /// it (with one generation, `-F` times the live data), not of `-A`.
    of_allocation_area: bool,
    /// Whether the marks are the objects found by a walk of each block
    /// (or every word outside the holes: See Note [Marks that stick]).
    walk: bool,
    blocks: Vec<Offered>,
    offered: HashSet<BlockPtr>,
}

impl OfferedHoles {
    /// Offer up to `percent` of `-A` as holes at each GC (0: none), each
    /// block with the marks of the objects a walk finds in it.
    pub fn walked(percent: usize) -> OfferedHoles {
        OfferedHoles { percent, of_allocation_area: false, walk: true, blocks: Vec::new(), offered: HashSet::new() }
    }

    /// Offer up to `percent` of the allocation area as holes at each GC,
    /// with no marks taken: for a collector whose every GC is a major GC
    /// (whole-heap `immix`), which judges every block afresh.
    pub fn of_allocation_area(percent: usize) -> OfferedHoles {
        OfferedHoles { walk: false, of_allocation_area: true, ..OfferedHoles::walked(percent) }
    }

    /// Whether any holes are offered at all.
    pub fn any(&self) -> bool {
        self.percent > 0
    }

    /// Offer up to `percent` of `-A` as holes at each GC, each block with
    /// every word outside its holes marked.
    pub fn outside_holes(percent: usize) -> OfferedHoles {
        OfferedHoles { walk: false, ..OfferedHoles::walked(percent) }
    }

    /// Whether the holes of block `bd` are offered now.
    pub fn contains(&self, bd: BlockPtr) -> bool {
        self.offered.contains(&bd)
    }

    /// Forget the offer: a major GC judges every block afresh, the offered
    /// ones with their young objects included.
    pub fn forget(&mut self) {
        self.blocks.clear();
        self.offered.clear();
    }

    /// Offer the mutators the holes of recyclable blocks of `space`, up to
    /// the share of `-A` this offers, each block with its sticky marks if
    /// they are walked (See Note [Marks that stick]). An object larger
    /// than a line that misses a hole goes to an overflow block, as
    /// immix's own allocator sends it.
    ///
    /// # Safety
    /// The GC holds the heap; nothing is offered now (`take` or `forget`
    /// came first).
    // SAFETY: reads the space's blocks, which the GC holds (the caller's contract).
    pub unsafe fn offer(&mut self, space: &LineSpace, ctx: &mut GcContext<'_>) {
        debug_assert!(self.blocks.is_empty(), "the last offer was taken back");
        let layout = ctx.heap.layout;
        let area = if self.of_allocation_area { ctx.heap.nursery_blocks() } else { ctx.flags.alloc_area_blocks * ctx.caps.len() };
        let wanted = area * BLOCK_WORDS * self.percent / 100;
        let mut regions = Vec::new();
        // SAFETY: the caller's contract.
        for (r, holes) in unsafe { space.take_holes(wanted) } {
            // SAFETY: as above.
            let d = unsafe { r.bd.read() };
            for h in &holes {
                regions.push(Region { bd: r.bd, start: d.start.wrapping_add(h.start), end: d.start.wrapping_add(h.end) });
            }
            // SAFETY: as above.
            let marks = if self.walk { unsafe { object_marks(r.bd, layout) } } else { [0; BLOCK_WORDS / 64] };
            self.offered.insert(r.bd);
            self.blocks.push(Offered { bd: r.bd, marks, holes });
        }
        ctx.heap.offered.offer(regions, space.geometry().line_words());
    }

    /// Take the offered blocks back for a minor GC that marks their young
    /// objects in place: each is flagged marked-in-place and attached to
    /// `marks` with its sticky marks (the walked ones less the slop its old
    /// objects left since, or every word outside its holes: See Note
    /// [Marks that stick]). Returns them, for the caller to take their
    /// words back from the generation's counts and to judge them when the
    /// GC is done.
    ///
    /// # Safety
    /// The GC holds the heap; the blocks' objects and zero words tile them.
    // SAFETY: the caller's contract covers the descriptors and the walks.
    pub unsafe fn take(&mut self, marks: &mut MarkBitmap, layout: Layout) -> Vec<Offered> {
        self.offered.clear();
        let taken = std::mem::take(&mut self.blocks);
        for o in &taken {
            // SAFETY: the caller's contract: the block is the space's.
            let d = unsafe { o.bd.get() };
            d.set_flags((d.flags & !BF_EVACUATED) | BF_MARK_IN_PLACE);
            // SAFETY: as above.
            let sticky = if self.walk { unsafe { drop_slop(o.bd, o.marks, layout) } } else { o.outside_holes() };
            // SAFETY: as above.
            unsafe { marks.attach_with(o.bd, &sticky) };
        }
        taken
    }

    /// The offer's invariants, for the sanity checker right after the GC
    /// that made it: every region lies in a block of the old generation,
    /// and nothing is in it yet.
    pub fn check(heap: &Heap) -> Vec<String> {
        let mut problems = Vec::new();
        let old: HashSet<BlockPtr> = heap.gens[heap.oldest()].blocks.iter().copied().collect();
        for r in heap.offered.regions() {
            if !old.contains(&r.bd) {
                problems.push(format!("offered region {:p}..{:p} is in block {:p}, not in the old generation", r.start, r.end, r.bd.0));
            }
            // SAFETY: the sanity checker runs with the world stopped,
            // right after the GC that offered the region: nothing is in it.
            let words = unsafe { std::slice::from_raw_parts(r.start, r.words()) };
            if let Some(w) = words.iter().position(|&w| w != 0) {
                problems.push(format!("offered region {:p}..{:p} is not empty: word {w} holds {:#x}", r.start, r.end, words[w]));
            }
        }
        problems
    }
}

/// The objects the mutators allocated into the holes of `o`, in address
/// order: bump-allocated from each hole's start, the rest of the hole
/// still zero.
///
/// # Safety
/// The GC holds the heap; `o` was offered at the last GC and its objects
/// are not yet judged.
// SAFETY: the caller's contract covers the reads of the holes' words.
pub(crate) unsafe fn young_in(o: &Offered, layout: Layout) -> Vec<(*mut Word, usize)> {
    // SAFETY: the caller's contract.
    let start = unsafe { o.bd.read() }.start;
    let mut found = Vec::new();
    for h in &o.holes {
        let mut w = h.start;
        while w < h.end {
            let p = start.wrapping_add(w);
            // SAFETY: `p` lies in a hole: an object's header or a zero word.
            let header = unsafe { *p };
            if header == 0 {
                w += 1;
                continue;
            }
            // SAFETY: a non-zero word where an object starts is its header.
            let size = unsafe { layout.size_of(p, info_of_header(header)) };
            found.push((p, size));
            w += size;
        }
    }
    found
}

/// Every word of every object in space block `bd`, as a mark bitmap.
///
/// # Safety
/// The GC holds the heap; the block's objects and zero words tile it (a
/// line-space block: See `line_space`).
// SAFETY: the caller's contract covers the walk.
unsafe fn object_marks(bd: BlockPtr, layout: Layout) -> LiveMap {
    let mut bits: LiveMap = [0; BLOCK_WORDS / 64];
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    let walk = |p: *mut Word| {
        // SAFETY: `p` starts an object of the block (the caller's contract).
        let size = unsafe { layout.size_of(p, info_of_header(*p)) };
        let first = d.word_index(p);
        for w in first..(first + size).min(BLOCK_WORDS) {
            bits[w / 64] |= 1 << (w % 64);
        }
        Some(size)
    };
    // SAFETY: as above.
    unsafe { gclab_core::block_walk::walk_block(d, d.free, walk) };
    bits
}

/// `marks` (a block's sticky marks, taken by `object_marks` when it was
/// offered) less the words its old objects zeroed since: slop, when one
/// was updated in place, or the whole object, when it died (See Note
/// [Marks that stick]). Walks each marked run object by object: a marked
/// run starts at an object, and a zero word where the next object would
/// start is slop.
///
/// # Safety
/// The GC holds the heap; `bd` is a line-space block whose objects and
/// zero words tile it.
// SAFETY: the caller's contract covers the reads of the block's words.
unsafe fn drop_slop(bd: BlockPtr, mut marks: LiveMap, layout: Layout) -> LiveMap {
    // SAFETY: the caller's contract.
    let start = unsafe { bd.read() }.start;
    let marked = |m: &LiveMap, w: usize| m[w / 64] & (1 << (w % 64)) != 0;
    let mut w = 0;
    while w < BLOCK_WORDS {
        if !marked(&marks, w) {
            w += 1;
            continue;
        }
        // SAFETY: `w` is in the block (the caller's contract).
        let p = unsafe { start.add(w) };
        // SAFETY: as above; `p` starts an object or is slop.
        let header = unsafe { *p };
        if header == 0 {
            marks[w / 64] &= !(1 << (w % 64));
            w += 1;
        } else {
            // SAFETY: a non-zero word where an object starts is its header.
            w += unsafe { layout.size_of(p, info_of_header(header)) };
        }
    }
    marks
}
