//! The heap sanity checker (GHC's `-DS`): every invariant the collectors
//! promise, checked by walking the whole heap.
//!
//! It checks, and reports every violation it finds (not just the first):
//! - the block allocator's own invariants (free lists, coalescing, counts);
//! - every block of every generation: a head descriptor, not free, of that
//!   generation, no GC-time flag left on it (`BF_CLAIM`), its objects
//!   tiling `[start, free)` exactly (zero words are slop, See Note [Slop is
//!   zeroed]; an unswept block's dead words are skipped, See Note [Unswept
//!   blocks] in `heap_walk`), each with a valid info table;
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
//! `W <= n_words` and `n_words + n_free_words <= W + Z`. For bump-allocated
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

use crate::bdescr::{BlockDesc, BlockPtr, BF_CLAIM, BF_EVACUATED, BF_FREE, BF_LARGE, BF_UNSWEPT};
use crate::heap_walk::walk_block;
use crate::block_alloc::BlockAllocator;
use crate::capability::Capability;
use crate::constants::{Word, BLOCK_SIZE, BLOCK_WORDS, MBLOCK_SIZE, WORD_SIZE};
use crate::generation::Generation;
use crate::heap::Heap;
use crate::info::{ClosureType, InfoTable, INFO_MAGIC};
use crate::object::{is_forwarded, weak_field, Layout, CARD_BITS};
use crate::stable_ptr::StablePtrTable;
use crate::flags::SanityMode;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Duration;

/// A run's sanity checks: the scope of each, how many, what they cost.
#[derive(Debug, Default)]
pub struct Checks {
    /// Checks run.
    pub checks: u64,
    /// Of those, whole-heap checks.
    pub whole_checks: u64,
    /// Minor checks since the last whole one.
    minor_in_a_row: u64,
    /// Their time.
    pub time: Duration,
    /// Of that, the whole-heap checks' time.
    pub whole_time: Duration,
    /// The blocks at the last check (See `SeenBlocks`).
    pub seen: SeenBlocks,
}

impl Checks {
    /// Count the check due after a GC of generations `0..=collected`
    /// (None: a change anywhere) of a heap whose oldest generation is
    /// `oldest`, and say its scope; None under `--sanity=off`.
    pub fn next_scope(&mut self, mode: SanityMode, collected: Option<usize>, oldest: usize) -> Option<Scope> {
        let scope = match (mode, collected) {
            (SanityMode::Off, _) => return None,
            (SanityMode::Minor { full_every }, Some(g)) if g < oldest && self.minor_in_a_row + 1 < full_every => Scope::Collected { oldest: g },
            _ => Scope::Whole,
        };
        self.checks += 1;
        if scope == Scope::Whole {
            self.whole_checks += 1;
            self.minor_in_a_row = 0;
        } else {
            self.minor_in_a_row += 1;
        }
        Some(scope)
    }

    /// Count `elapsed`, the time of a check of `scope`.
    pub fn took(&mut self, scope: Scope, elapsed: Duration) {
        self.time += elapsed;
        if scope == Scope::Whole {
            self.whole_time += elapsed;
        }
    }
}

/// How much of the heap one check covers (See Note [The minor sanity check]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every generation, every object.
    Whole,
    /// What a GC of generations `0..=oldest` can have changed.
    Collected {
        /// The oldest generation the GC collected.
        oldest: usize,
    },
}

/// The blocks of every generation at the last check, each with its fill
/// level: the minor check walks an older generation's blocks that are new
/// or refilled since (See Note [The minor sanity check]).
#[derive(Debug, Default)]
pub struct SeenBlocks {
    fill: AddrMap<(usize, u16)>,
}

impl SeenBlocks {
    /// Remember every block of every generation, its fill level and its
    /// generation.
    fn remember(&mut self, heap: &Heap) {
        self.fill.clear();
        for gen in &heap.gens {
            for &bd in gen.blocks.iter().chain(&gen.large_objects) {
                // SAFETY: the checker runs with the world stopped (See `check`).
                let d = unsafe { bd.read() };
                self.fill.insert(d.start as usize, (d.free as usize, d.gen_no));
            }
        }
    }

    /// Is the block unchanged since the last check: the same fill level
    /// in the same generation? (A large object promoted keeps its block
    /// and fill level, but its fields were scanned by the GC that
    /// promoted it: it counts as changed.)
    fn unchanged(&self, d: &BlockDesc) -> bool {
        self.fill.get(&(d.start as usize)) == Some(&(d.free as usize, d.gen_no))
    }
}

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
    /// Blocks not yet swept (See Note [Unswept blocks] in `heap_walk`).
    pub unswept_blocks: usize,
    /// Their words outside live objects: dead objects and free cells.
    pub unswept_words: usize,
}

/// Where the objects of one block start.
enum Starts {
    /// A walked block of generation `.0`: a bit per word.
    Walked(usize, Box<[u64; BLOCK_WORDS / 64]>),
    /// An unwalked block of an uncollected generation `.0` (a minor
    /// check), filled up to `.1`.
    Unwalked(usize, usize),
}

/// Maps and sets keyed by heap addresses, which need no defence against
/// chosen keys: one multiplication spreads them (the default SipHash took
/// a third of a check's time).
type AddrMap<V> = HashMap<usize, V, BuildHasherDefault<AddrHasher>>;
type AddrSet = HashSet<usize, BuildHasherDefault<AddrHasher>>;

#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ b as u64);
        }
    }

    fn write_usize(&mut self, addr: usize) {
        self.write_u64(addr as u64);
    }

    fn write_u64(&mut self, v: u64) {
        // Fibonacci hashing, folded: a product's high bits mix all of `v`
        // but its low bits only `v`'s low bits, which are zero for block
        // addresses, and the table takes its bucket from the low bits.
        let h = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

struct Walk<'a> {
    layout: Layout,
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
    errors: Vec<String>,
    report: SanityReport,
}

/// The heap's megablocks, for the walk's many "is this address in the
/// heap?" questions (the allocator answers from a B-tree of its mappings,
/// which took a fifth of a check's time).
struct Mappings(AddrSet);

impl Mappings {
    fn of(blocks: &BlockAllocator) -> Mappings {
        let bases = blocks.mblocks().mappings().flat_map(|(base, n)| (0..n).map(move |i| base + i * MBLOCK_SIZE));
        Mappings(bases.collect())
    }

    fn contains(&self, addr: usize) -> bool {
        self.0.contains(&(addr & !(MBLOCK_SIZE - 1)))
    }
}

fn valid_info(heap: &Mappings, header: Word) -> Option<&'static InfoTable> {
    if header == 0 || !header.is_multiple_of(8) || heap.contains(header) {
        return None;
    }
    // SAFETY: See Note [Checking info pointers].
    let info = unsafe { &*(header as *const InfoTable) };
    (info.magic == INFO_MAGIC).then_some(info)
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
    let blocks = heap.blocks.lock();
    let none_seen = SeenBlocks::default();
    let walked_whole = match scope {
        Scope::Whole => heap.gens.len(),
        Scope::Collected { oldest } => oldest + 1,
    };
    let mut w = Walk {
        layout: heap.layout,
        mappings: Mappings::of(&blocks),
        walked_whole,
        seen: seen.as_deref().unwrap_or(&none_seen),
        starts: AddrMap::with_capacity_and_hasher(blocks.used_blocks(), Default::default()),
        objects: Vec::new(),
        queued_old: AddrSet::default(),
        remembered: AddrSet::default(),
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

impl Walk<'_> {
    /// Note an object start of generation `gen`; `check_fields`: its
    /// fields are to be checked too.
    fn record(&mut self, p: usize, gen: usize, check_fields: bool) {
        let block = p & !(BLOCK_SIZE - 1);
        let word = (p - block) / WORD_SIZE;
        let entry = self.starts.entry(block).or_insert_with(|| Starts::Walked(gen, Box::new([0; BLOCK_WORDS / 64])));
        if let Starts::Walked(_, bits) = entry {
            bits[word / 64] |= 1 << (word % 64);
        }
        if check_fields {
            self.queue_fields(p, gen);
        }
    }

    /// Check the fields of the object at `p` (once).
    fn queue_fields(&mut self, p: usize, gen: usize) {
        if gen < self.walked_whole || self.queued_old.insert(p) {
            self.objects.push((p, gen));
        }
    }

    /// The generation of the object starting at `v`, if one does: one the
    /// walk recorded, or, in a minor check, one in an unwalked block of an
    /// uncollected generation whose header is a heap object's info table
    /// (See Note [The minor sanity check]).
    fn object_gen(&self, v: usize) -> Option<usize> {
        if !v.is_multiple_of(WORD_SIZE) {
            return None;
        }
        let block = v & !(BLOCK_SIZE - 1);
        match self.starts.get(&block)? {
            Starts::Walked(gen, bits) => {
                let word = (v - block) / WORD_SIZE;
                (bits[word / 64] & (1 << (word % 64)) != 0).then_some(*gen)
            }
            Starts::Unwalked(gen, free) => {
                if v >= *free {
                    return None;
                }
                // SAFETY: `v` lies below the fill level of a live block.
                let info = valid_info(&self.mappings, unsafe { *(v as *const Word) })?;
                (!info.is_static()).then_some(*gen)
            }
        }
    }

    fn collect_objects(&mut self, heap: &Heap, caps: &[Capability]) {
        for (g, gen) in heap.gens.iter().enumerate() {
            if g < self.walked_whole {
                self.walk_generation(g, gen, caps);
            } else {
                self.walk_changed_blocks(g, gen, caps);
            }
        }
        for chunk in &heap.nurseries {
            for &bd in chunk {
                self.walk_block(bd, 0, None, cap_hp(caps, bd));
            }
        }
        for cap in caps {
            for &bd in &cap.new_large {
                self.walk_large(bd, 0, true);
            }
        }
    }

    /// Walk every block and large object of generation `g`, and check its
    /// counts against what the walk found.
    fn walk_generation(&mut self, g: usize, gen: &Generation, caps: &[Capability]) {
        let (mut words, mut zeros) = (0, 0);
        let mut blocks = 0;
        for &bd in &gen.blocks {
            let (w, z) = self.walk_block(bd, g, Some(BF_EVACUATED), cap_hp(caps, bd));
            words += w;
            zeros += z;
            // SAFETY: the checker runs with the world stopped (See `check`).
            blocks += unsafe { bd.read() }.blocks as usize;
        }
        self.check_block_count(g, gen, blocks);
        if words > gen.n_words || gen.n_words + gen.n_free_words > words + zeros {
            self.errors.push(format!(
                "generation {g}: counts {} object words and {} free words, its blocks hold {words} object words and {zeros} zero words (See Note [Checking the word counts])",
                gen.n_words, gen.n_free_words
            ));
        }
        self.walk_large_objects(g, gen, true);
    }

    /// Of an uncollected generation `g` (a minor check), walk the blocks
    /// new or refilled since the last check, check every block's descriptor
    /// and the block count, and size every large object (See Note [The
    /// minor sanity check]).
    fn walk_changed_blocks(&mut self, g: usize, gen: &Generation, caps: &[Capability]) {
        let mut blocks = 0;
        for &bd in &gen.blocks {
            // SAFETY: the checker runs with the world stopped (See `check`).
            let d = unsafe { bd.read() };
            if self.seen.unchanged(d) {
                if self.check_head(bd, g, Some(BF_EVACUATED)).is_some() {
                    self.starts.insert(d.start as usize, Starts::Unwalked(g, d.free as usize));
                }
            } else {
                self.walk_block(bd, g, Some(BF_EVACUATED), cap_hp(caps, bd));
            }
            blocks += d.blocks as usize;
        }
        self.check_block_count(g, gen, blocks);
        self.walk_large_objects(g, gen, false);
    }

    fn check_block_count(&mut self, g: usize, gen: &Generation, blocks: usize) {
        if blocks != gen.n_blocks {
            self.errors.push(format!("generation {g}: counts {} blocks, its list holds {blocks}", gen.n_blocks));
        }
    }

    /// Walk generation `g`'s large objects and check their counts; their
    /// fields are checked if `all_fields`, else only those of new ones.
    fn walk_large_objects(&mut self, g: usize, gen: &Generation, all_fields: bool) {
        let (mut lwords, mut lblocks) = (0, 0);
        for &bd in &gen.large_objects {
            // SAFETY: the checker runs with the world stopped (See `check`).
            let d = unsafe { bd.read() };
            lwords += self.walk_large(bd, g, all_fields || !self.seen.unchanged(d));
            lblocks += d.blocks as usize;
        }
        if lwords != gen.n_large_words || lblocks != gen.n_large_blocks {
            self.errors.push(format!(
                "generation {g}: counts {} large words in {} blocks, its large objects hold {lwords} in {lblocks}",
                gen.n_large_words, gen.n_large_blocks
            ));
        }
        if !gen.old_blocks.is_empty() || !gen.old_large_objects.is_empty() {
            self.errors.push(format!("generation {g}: from-space left behind after GC"));
        }
    }

    /// Check that `bd` heads a live group of generation `gen` carrying
    /// `want_flag`; returns its descriptor if it is a live head.
    fn check_head(&mut self, bd: BlockPtr, gen: usize, want_flag: Option<u32>) -> Option<&'static BlockDesc> {
        // SAFETY: the checker runs with the world stopped (See `check`).
        let d = unsafe { bd.read() };
        let at = d.start;
        if d.blocks == 0 || d.has(BF_FREE) || BlockDesc::of(d.start) != bd.0 {
            self.errors.push(format!("block at {at:p} of generation {gen}: not a live group head"));
            return None;
        }
        if d.gen_no as usize != gen {
            self.errors.push(format!("block at {at:p}: in generation {gen}'s list but says generation {}", d.gen_no));
        }
        if let Some(flag) = want_flag {
            if !d.has(flag) {
                self.errors.push(format!("block at {at:p} of generation {gen}: lacks BF_EVACUATED"));
            }
        }
        if d.has(BF_CLAIM) {
            self.errors.push(format!("block at {at:p} of generation {gen}: BF_CLAIM left after GC"));
        }
        Some(d)
    }

    /// Walk the objects of one block; returns the words of its objects and
    /// its zero words.
    fn walk_block(&mut self, bd: BlockPtr, gen: usize, want_flag: Option<u32>, hp: Option<*mut Word>) -> (usize, usize) {
        let Some(d) = self.check_head(bd, gen, want_flag) else { return (0, 0) };
        let at = d.start;
        let end = hp.unwrap_or(d.free);
        if end > d.end() || end < d.start {
            self.errors.push(format!("block at {at:p}: free pointer outside the block"));
            return (0, 0);
        }
        if d.has(BF_UNSWEPT) && (d.blocks != 1 || d.aux == 0) {
            self.errors.push(format!("block at {at:p}: unswept, but not a single block with a live map (See Note [Unswept blocks])"));
            return (0, 0);
        }
        let mut words = 0;
        // SAFETY: the checker runs with the world stopped; `end` is the
        // block's fill level, checked above.
        let walk = unsafe {
            walk_block(d, end, |p| {
                let size = self.object_at(p, gen, true)?;
                words += size;
                Some(size)
            })
        };
        if walk.stopped_at > end {
            self.errors.push(format!("block at {at:p}: last object overruns the free pointer"));
        }
        if d.has(BF_UNSWEPT) {
            self.report.unswept_blocks += 1;
            self.report.unswept_words += walk.unswept_words;
        }
        // Unswept dead words are free space still to be cleared: they
        // count as zero words (See Note [Checking the word counts]).
        (words, walk.zero_words + walk.unswept_words)
    }

    fn walk_large(&mut self, bd: BlockPtr, gen: usize, check_fields: bool) -> usize {
        // SAFETY: the checker runs with the world stopped (See `check`).
        let d = unsafe { bd.read() };
        if !d.has(BF_LARGE) || d.gen_no as usize != gen || d.has(BF_FREE) {
            self.errors.push(format!("large object at {:p}: flags {:#x}, generation {} (expected {gen})", d.start, d.flags, d.gen_no));
        }
        let size = self.object_at(d.start, gen, check_fields).unwrap_or(0);
        if size > d.blocks as usize * crate::constants::BLOCK_WORDS {
            self.errors.push(format!("large object at {:p}: {size} words overrun its group", d.start));
        }
        size
    }

    /// Record the object at `p`; returns its size, or None if its header is bad.
    fn object_at(&mut self, p: *mut Word, gen: usize, check_fields: bool) -> Option<usize> {
        // SAFETY: callers pass addresses inside live blocks.
        let header = unsafe { *p };
        if is_forwarded(header) {
            self.errors.push(format!("object at {p:p} (generation {gen}): forwarding pointer left after GC"));
            return None;
        }
        let Some(info) = valid_info(&self.mappings, header) else {
            self.errors.push(format!("object at {p:p} (generation {gen}): header {header:#x} is not an info table"));
            return None;
        };
        if info.is_static() {
            self.errors.push(format!("object at {p:p}: a static constructor ({}) inside the heap", info.name));
        }
        // SAFETY: the header is a valid info table for this object.
        let size = unsafe { self.layout.size_of(p, info) };
        self.record(p as usize, gen, check_fields);
        self.report.objects += 1;
        self.report.words += size;
        self.report.words_without_profiling += size - (self.layout.hdr - 1);
        Some(size)
    }

    fn collect_remembered(&mut self, caps: &[Capability]) {
        for cap in caps {
            for (g, list) in cap.mut_lists.iter().enumerate() {
                for obj in list {
                    let addr = obj.0 as usize;
                    match self.object_gen(addr) {
                        Some(og) if og == g => {
                            self.remembered.insert(addr);
                            // The GC updated its fields: check them even
                            // where its block went unwalked.
                            if og >= self.walked_whole {
                                self.queue_fields(addr, og);
                            }
                        }
                        Some(og) => self.errors.push(format!("mutable list of generation {g} holds an object of generation {og} at {addr:#x}")),
                        None => self.errors.push(format!("mutable list of generation {g}: {addr:#x} is not an object")),
                    }
                }
            }
        }
    }

    fn check_pointer(&mut self, what: &dyn Fn() -> String, v: Word) -> Option<usize> {
        self.report.pointers += 1;
        if let Some(g) = self.object_gen(v) {
            return Some(g);
        }
        if self.mappings.contains(v) {
            self.errors.push(format!("{}: {v:#x} points into the heap but not at a live object", what()));
            return None;
        }
        // SAFETY: a non-heap pointer must be a static object; See Note
        // [Checking info pointers] for why reading it is tolerated.
        let ok = v != 0 && v.is_multiple_of(8) && valid_info(&self.mappings, unsafe { *(v as *const Word) }).map(|i| i.is_static()).unwrap_or(false);
        if !ok {
            self.errors.push(format!("{}: {v:#x} is neither a heap object nor a static object", what()));
        }
        None
    }

    fn check_fields(&mut self) {
        let objects = std::mem::take(&mut self.objects);
        for &(addr, gen) in &objects {
            let p = addr as *mut Word;
            // SAFETY: `p` is an object start recorded by the walk.
            let info = unsafe { valid_info(&self.mappings, *p) }.expect("recorded objects have valid headers");
            // SAFETY: as above.
            let (slots, n) = unsafe { self.layout.pointer_slots(p, info) };
            for i in 0..n {
                // SAFETY: pointer slots lie inside the object.
                let v = unsafe { *slots.add(i) };
                let target = self.check_pointer(&|| format!("field {i} of {} at {addr:#x} (generation {gen})", info.name), v);
                if let Some(tg) = target {
                    if tg < gen && !self.is_remembered(p, info, i) {
                        self.errors.push(format!(
                            "{} at {addr:#x} (generation {gen}) points to generation {tg} through field {i} but is not remembered",
                            info.name
                        ));
                    }
                }
            }
            if matches!(info.closure_type, ClosureType::Weak | ClosureType::DeadWeak) {
                for f in [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER] {
                    // SAFETY: weak objects have their three pointer-like fields.
                    let v = unsafe { *self.layout.payload(p).add(f) };
                    self.check_pointer(&|| format!("weak field {f} of WEAK at {addr:#x}"), v);
                }
            }
        }
    }

    /// Is this old-to-young pointer covered by the remembered set?
    fn is_remembered(&self, p: *mut Word, info: &InfoTable, field: usize) -> bool {
        if !self.remembered.contains(&(p as usize)) {
            return false;
        }
        if info.closure_type.is_pointer_array() && info.closure_type != ClosureType::Arr {
            // SAFETY: `p` is a pointer array; its cards follow its elements.
            unsafe {
                let n = *self.layout.payload(p);
                return *self.layout.card_table(p, n).add(field >> CARD_BITS) != 0;
            }
        }
        true
    }

    fn check_roots(&mut self, heap: &Heap, caps: &[Capability], stable: &StablePtrTable) {
        for cap in caps {
            for (i, &r) in cap.roots.iter().enumerate() {
                self.check_pointer(&|| format!("root {i} of capability {}", cap.no), r);
            }
            for &r in &cap.pending_finalizers {
                self.check_pointer(&|| format!("pending finaliser of capability {}", cap.no), r);
            }
            for &r in &cap.update_rem_set {
                self.check_pointer(&|| format!("update remembered set of capability {}", cap.no), r);
            }
            for w in &cap.new_weaks {
                self.check_pointer(&|| format!("new weak pointer of capability {}", cap.no), w.0 as Word);
            }
        }
        for (i, r) in stable.roots().enumerate() {
            self.check_pointer(&|| format!("stable pointer {i}"), r);
        }
        for (g, gen) in heap.gens.iter().enumerate() {
            for w in &gen.weak_ptrs {
                let addr = w.0 as usize;
                match self.object_gen(addr) {
                    Some(wg) if wg == g => {
                        // SAFETY: a recorded object.
                        let t = unsafe { valid_info(&self.mappings, *w.0) }.map(|i| i.closure_type);
                        if t != Some(ClosureType::Weak) {
                            self.errors.push(format!("weak list of generation {g}: {addr:#x} is not a live WEAK"));
                        }
                    }
                    Some(wg) => self.errors.push(format!("weak list of generation {g} holds a weak of generation {wg}")),
                    None => self.errors.push(format!("weak list of generation {g}: {addr:#x} is not an object")),
                }
            }
        }
    }
}

/// The allocation pointer of the capability whose current block is `bd`.
fn cap_hp(caps: &[Capability], bd: BlockPtr) -> Option<*mut Word> {
    caps.iter().find(|c| c.is_current(bd.0)).map(|c| c.hp)
}
