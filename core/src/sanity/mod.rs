//! The heap sanity checker (GHC's `-DS`): every invariant the collectors
//! promise, checked by walking the whole heap.
//!
//! It checks, and reports every violation it finds (not just the first):
//! - the block allocator's own invariants (free lists, coalescing, counts);
//! - every block of every generation: a head descriptor, not free, of that
//!   generation, no GC-time flag left on it (`BF_CLAIM`), its objects
//!   tiling `[start, free)` exactly (zero words are slop, See Note [Slop is
//!   zeroed]; an unswept block's dead words are skipped, See Note [Unswept
//!   blocks] in `block_walk`), each with a valid info table;
//! - every large object: alone in its group, flagged large, of its generation;
//! - every pointer field, root, stable pointer, mutable-list entry and weak
//!   pointer: it is a static object or the start of a live heap object (so
//!   never into a free block, from-space, or the middle of an object), and
//!   no forwarding pointer is left anywhere;
//! - the remembered-set invariant: an object of generation g that points
//!   into a younger generation is on a mutable list of generation g, and,
//!   for a pointer array, the card of that element is marked (See Note
//!   [Card marking] in `barrier`); weak pointers' fields are exempt (See
//!   Note [Weak fields] in `object`);
//! - each generation's counts match what the walk found: its blocks
//!   exactly; its object words at least the objects walked, and with its
//!   free words at most the objects and zero words walked (See Note
//!   [Checking the word counts]).
//!
//! A check covers the whole heap (`Scope::Whole`, GHC's `-DS`) or only
//! what a GC of the young generations can have changed (`Scope::Collected`,
//! `--sanity=minor`): See Note [The minor sanity check].
//!
//! The checker is split by concern: this module holds the entry points
//! and the walk's state; `scope` which checks are due and what the minor
//! check remembers between them; `walk` the walk of blocks and objects
//! (where objects start, descriptors, counts); `fields` the pointers
//! (fields, roots, weak lists) and the remembered-set invariant; `addr`
//! the address sets the walk keeps; `observer` the checker as an observer
//! of GCs (`+RTS -DS`, `--sanity=minor`), counted as GC time.
//!
//! Note [The minor sanity check]
//! ----------------------------------------
//! A full check walks every object after every GC, so its cost grows with
//! the old generation while a minor GC's does not: binary-trees 16 at
//! `-A8k` spends minutes in it. A GC of generations `0..=g` can change only:
//! the objects of those generations; the objects it promoted, which land in
//! blocks of older generations; the fields of older objects on a mutable
//! list (which it updates to the new addresses); the roots, mutable lists
//! and weak lists. The other objects of older generations it does not touch.
//!
//! So the minor check walks generations `0..=g` as the full check does, and
//! of each older generation only the blocks that are new or whose fill
//! level moved since the last check (where a bump-allocating collector puts
//! what it promoted; `SeenBlocks` remembers the levels) and its new large
//! objects. It checks every field of those objects and of every object on
//! a mutable list, every root, and every block descriptor and count of the
//! older generations (a walk of their block lists, not of their words). A
//! pointer into an unwalked old block passes if it lands on a valid,
//! non-static, unforwarded info pointer in a live block of an uncollected
//! generation.
//!
//! What it cannot see, and the full check does: an interior word that
//! happens to hold an info pointer taken for an object start; an object
//! promoted into a hole of an old block whose fill level stays put (a
//! non-moving space), or into a block freed and refilled to the very level
//! it had, checked only through the pointers to it; a missed
//! write barrier (an old object off every mutable list pointing young);
//! damage to untouched old objects; the word counts of older generations.
//! Hence `--sanity=minor:k` also runs the full check at every k-th check,
//! and every major GC's check is full anyway (nothing is uncollected), so a
//! fault of that kind is reported at most k GCs late.
//!
//! Note [Checking the word counts]
//! ----------------------------------------
//! A generation counts the words of its objects (`n_words`) and the words
//! free for allocation inside its blocks (`n_free_words`, the holes of a
//! non-moving space); a linear walk sees object words W and zero words Z
//! (slop, holes, the unused ends of cells and blocks, and the dead words
//! of unswept blocks, which are holes not yet cleared). Objects only lose
//! words between GCs (a thunk updated in place leaves zeroed slop that the
//! count keeps until the generation is next collected), so the check is
//! `W <= n_words` and `n_words + n_free_words + n_unswept_words <= W + Z`
//! (the last, words a sweep beside the mutators has yet to judge, dead
//! words among Z). For bump-allocated
//! blocks both sides meet. A space that counted its holes as objects
//! (used words taken for live words) breaks the second inequality, since
//! the holes would count twice.
//!
//! Note [Checking info pointers]
//! ----------------------------------------
//! A header word is accepted as an info table if it is non-zero, 8-aligned,
//! not inside the heap and the table behind it carries `INFO_MAGIC`. The
//! last test reads memory outside the heap: a wild header can crash the
//! checker rather than be reported. That is acceptable for a debugging aid
//! (the run fails either way), and it avoids a registry of info tables.

mod addr;
mod fields;
mod observer;
mod scope;
mod walk;

pub use observer::SanityChecker;
pub use scope::{Checks, Scope, SeenBlocks};

use crate::capability::Capability;
use crate::heap::Heap;
use crate::object::Layout;
use crate::mblock::address_space::HeapRange;
use crate::stable_ptr::StablePtrTable;
use addr::{AddrMap, AddrSet, Mappings};
use walk::Starts;

/// What a clean check walked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SanityReport {
    /// Objects in the heap.
    pub objects: usize,
    /// Words of those objects (profiling header words included).
    pub words: usize,
    /// Words of those objects less their profiling header words: the live
    /// bytes GHC's profiles report, over 8.
    pub words_without_profiling: usize,
    /// Pointers checked.
    pub pointers: usize,
    /// Blocks not yet swept (See Note [Unswept blocks] in `block_walk`).
    pub unswept_blocks: usize,
    /// Their words outside live objects: dead objects and free cells.
    pub unswept_words: usize,
}

/// One check's walk: what it has seen so far, and what it found wrong.
struct Walk<'a> {
    layout: Layout,
    /// The heap's reserved range, through which the GC reads the block
    /// summaries (None before the heap has a megablock).
    range: Option<HeapRange>,
    mappings: Mappings,
    /// The generations walked whole: all, or those the GC collected.
    walked_whole: usize,
    seen: &'a SeenBlocks,
    /// Block start -> where its objects start. An object starts in its
    /// group's first block, so a pointer's block is the pointer rounded
    /// down to a block.
    starts: AddrMap<Starts>,
    /// Every object whose fields are to be checked (start, generation),
    /// in walk order: all of them for a whole-heap check.
    objects: Vec<(usize, usize)>,
    /// Of those, the ones in generations not walked whole (a minor check),
    /// so that a mutable list does not add them twice.
    queued_old: AddrSet,
    /// (object, generation) pairs on mutable lists.
    remembered: AddrSet,
    /// The address ranges of old blocks that mutators filled since the
    /// last GC (offered regions), sorted: their objects are young.
    young_ranges: Vec<(usize, usize)>,
    /// The objects found in those ranges: generation 0 wherever they lie.
    young_objects: AddrSet,
    errors: Vec<String>,
    report: SanityReport,
}

/// Check the whole heap; `Err` lists every violation found.
///
/// # Safety
/// The world is stopped: nobody allocates or collects while it runs.
// SAFETY: the caller's contract above.
pub unsafe fn check(heap: &Heap, caps: &[Capability], stable: &StablePtrTable) -> Result<SanityReport, Vec<String>> {
    // SAFETY: the caller's contract.
    unsafe { check_scope(heap, caps, stable, Scope::Whole, None) }
}

/// Check what `scope` covers; `Err` lists every violation found. The
/// report counts what was walked: the whole heap only for `Scope::Whole`.
/// `seen`, for a run under the minor mode: the blocks at the last check,
/// which a minor check compares with (without it every block counts as
/// new), replaced by this check's.
///
/// # Safety
/// As for `check`.
// SAFETY: reads every block and object of a heap nobody changes meanwhile (the caller's contract).
pub unsafe fn check_scope(heap: &Heap, caps: &[Capability], stable: &StablePtrTable, scope: Scope, seen: Option<&mut SeenBlocks>) -> Result<SanityReport, Vec<String>> {
    let mut blocks = heap.blocks.lock();
    let range = blocks.heap_range().ok();
    let none_seen = SeenBlocks::default();
    let walked_whole = match scope {
        Scope::Whole => heap.gens.len(),
        Scope::Collected { oldest } => oldest + 1,
    };
    let mut w = Walk {
        layout: heap.layout,
        range,
        mappings: Mappings::of(&blocks),
        walked_whole,
        seen: seen.as_deref().unwrap_or(&none_seen),
        starts: AddrMap::with_capacity_and_hasher(blocks.used_blocks(), Default::default()),
        objects: Vec::new(),
        queued_old: AddrSet::default(),
        remembered: AddrSet::default(),
        young_ranges: young_ranges(caps),
        young_objects: AddrSet::default(),
        errors: Vec::new(),
        report: SanityReport::default(),
    };
    if let Err(e) = blocks.check() {
        w.errors.push(format!("block allocator: {e}"));
    }
    w.collect_objects(heap, caps);
    w.collect_remembered(caps);
    w.check_fields();
    w.check_roots(heap, caps, stable);
    let (errors, report) = (w.errors, w.report);
    if let Some(seen) = seen {
        seen.remember(heap);
    }
    if errors.is_empty() {
        Ok(report)
    } else {
        Err(errors)
    }
}

/// Where the capabilities allocated into old blocks since the last GC
/// (See Note [Allocation regions] in `alloc_region`), sorted.
fn young_ranges(caps: &[Capability]) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = caps.iter().flat_map(Capability::young_in_old_blocks).collect();
    ranges.sort_unstable();
    ranges
}
