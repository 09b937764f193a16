//! The heap sanity checker (GHC's `-DS`): every invariant the collectors
//! promise, checked by walking the whole heap.
//!
//! It checks, and reports every violation it finds (not just the first):
//! - the block allocator's own invariants (free lists, coalescing, counts);
//! - every block of every generation: a head descriptor, not free, of that
//!   generation, its objects tiling `[start, free)` exactly (zero words are
//!   slop, See Note [Slop is zeroed]; an unswept block's dead words are
//!   skipped, See Note [Unswept blocks] in `heap_walk`), each with a valid
//!   info table;
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

use crate::bdescr::{BlockDesc, BlockPtr, BF_EVACUATED, BF_FREE, BF_LARGE, BF_UNSWEPT};
use crate::heap_walk::walk_block;
use crate::block_alloc::BlockAllocator;
use crate::capability::Capability;
use crate::constants::{Word, BLOCK_SIZE, BLOCK_WORDS, WORD_SIZE};
use crate::heap::Heap;
use crate::info::{ClosureType, InfoTable, INFO_MAGIC};
use crate::object::{is_forwarded, weak_field, Layout, CARD_BITS};
use crate::stable_ptr::StablePtrTable;
use std::collections::{HashMap, HashSet};

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

struct Walk<'a> {
    layout: Layout,
    blocks: &'a BlockAllocator,
    /// Block start -> (its generation, a bit per word: object starts). An
    /// object starts in its group's first block, so a pointer's block is
    /// the pointer rounded down to a block.
    starts: HashMap<usize, (usize, Box<[u64; BLOCK_WORDS / 64]>)>,
    /// Every object (start, generation), in walk order.
    objects: Vec<(usize, usize)>,
    /// (object, generation) pairs on mutable lists.
    remembered: HashSet<usize>,
    errors: Vec<String>,
    report: SanityReport,
}

fn valid_info(blocks: &BlockAllocator, header: Word) -> Option<&'static InfoTable> {
    if header == 0 || !header.is_multiple_of(8) || blocks.owns(header) {
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
// SAFETY: reads every block and object of a heap nobody changes meanwhile (the caller's contract).
pub unsafe fn check(heap: &Heap, caps: &[Capability], stable: &StablePtrTable) -> Result<SanityReport, Vec<String>> {
    let blocks = heap.blocks.lock();
    let mut w = Walk { layout: heap.layout, blocks: &blocks, starts: HashMap::new(), objects: Vec::new(), remembered: HashSet::new(), errors: Vec::new(), report: SanityReport::default() };
    if let Err(e) = blocks.check() {
        w.errors.push(format!("block allocator: {e}"));
    }
    w.collect_objects(heap, caps);
    w.collect_remembered(caps);
    w.check_fields();
    w.check_roots(heap, caps, stable);
    if w.errors.is_empty() {
        Ok(w.report)
    } else {
        Err(w.errors)
    }
}

impl Walk<'_> {
    /// Note an object start of generation `gen`.
    fn record(&mut self, p: usize, gen: usize) {
        let block = p & !(BLOCK_SIZE - 1);
        let word = (p - block) / WORD_SIZE;
        let entry = self.starts.entry(block).or_insert_with(|| (gen, Box::new([0; BLOCK_WORDS / 64])));
        entry.1[word / 64] |= 1 << (word % 64);
        self.objects.push((p, gen));
    }

    /// The generation of the object starting at `v`, if one does.
    fn lookup(&self, v: usize) -> Option<usize> {
        if !v.is_multiple_of(WORD_SIZE) {
            return None;
        }
        let block = v & !(BLOCK_SIZE - 1);
        let (gen, bits) = self.starts.get(&block)?;
        let word = (v - block) / WORD_SIZE;
        (bits[word / 64] & (1 << (word % 64)) != 0).then_some(*gen)
    }

    fn collect_objects(&mut self, heap: &Heap, caps: &[Capability]) {
        for (g, gen) in heap.gens.iter().enumerate() {
            let (mut words, mut zeros) = (0, 0);
            let mut blocks = 0;
            for &bd in &gen.blocks {
                let (w, z) = self.walk_block(bd, g, Some(BF_EVACUATED), cap_hp(caps, bd));
                words += w;
                zeros += z;
                // SAFETY: the checker runs with the world stopped (See `check`).
                blocks += unsafe { bd.read() }.blocks as usize;
            }
            if blocks != gen.n_blocks {
                self.errors.push(format!("generation {g}: counts {} blocks, its list holds {blocks}", gen.n_blocks));
            }
            if words > gen.n_words || gen.n_words + gen.n_free_words > words + zeros {
                self.errors.push(format!(
                    "generation {g}: counts {} object words and {} free words, its blocks hold {words} object words and {zeros} zero words (See Note [Checking the word counts])",
                    gen.n_words, gen.n_free_words
                ));
            }
            let (mut lwords, mut lblocks) = (0, 0);
            for &bd in &gen.large_objects {
                lwords += self.walk_large(bd, g);
                // SAFETY: as above.
                lblocks += unsafe { bd.read() }.blocks as usize;
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
        for chunk in &heap.nurseries {
            for &bd in chunk {
                self.walk_block(bd, 0, None, cap_hp(caps, bd));
            }
        }
        for cap in caps {
            for &bd in &cap.new_large {
                self.walk_large(bd, 0);
            }
        }
    }

    /// Walk the objects of one block; returns the words of its objects and
    /// its zero words.
    fn walk_block(&mut self, bd: BlockPtr, gen: usize, want_flag: Option<u32>, hp: Option<*mut Word>) -> (usize, usize) {
        // SAFETY: the checker runs with the world stopped (See `check`).
        let d = unsafe { bd.read() };
        let at = d.start;
        if d.blocks == 0 || d.has(BF_FREE) || BlockDesc::of(d.start) != bd.0 {
            self.errors.push(format!("block at {at:p} of generation {gen}: not a live group head"));
            return (0, 0);
        }
        if d.gen_no as usize != gen {
            self.errors.push(format!("block at {at:p}: in generation {gen}'s list but says generation {}", d.gen_no));
        }
        if let Some(flag) = want_flag {
            if !d.has(flag) {
                self.errors.push(format!("block at {at:p} of generation {gen}: lacks BF_EVACUATED"));
            }
        }
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
                let size = self.object_at(p, gen)?;
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

    fn walk_large(&mut self, bd: BlockPtr, gen: usize) -> usize {
        // SAFETY: the checker runs with the world stopped (See `check`).
        let d = unsafe { bd.read() };
        if !d.has(BF_LARGE) || d.gen_no as usize != gen || d.has(BF_FREE) {
            self.errors.push(format!("large object at {:p}: flags {:#x}, generation {} (expected {gen})", d.start, d.flags, d.gen_no));
        }
        let size = self.object_at(d.start, gen).unwrap_or(0);
        if size > d.blocks as usize * crate::constants::BLOCK_WORDS {
            self.errors.push(format!("large object at {:p}: {size} words overrun its group", d.start));
        }
        size
    }

    /// Record the object at `p`; returns its size, or None if its header is bad.
    fn object_at(&mut self, p: *mut Word, gen: usize) -> Option<usize> {
        // SAFETY: callers pass addresses inside live blocks.
        let header = unsafe { *p };
        if is_forwarded(header) {
            self.errors.push(format!("object at {p:p} (generation {gen}): forwarding pointer left after GC"));
            return None;
        }
        let Some(info) = valid_info(self.blocks, header) else {
            self.errors.push(format!("object at {p:p} (generation {gen}): header {header:#x} is not an info table"));
            return None;
        };
        if info.is_static() {
            self.errors.push(format!("object at {p:p}: a static constructor ({}) inside the heap", info.name));
        }
        // SAFETY: the header is a valid info table for this object.
        let size = unsafe { self.layout.size_of(p, info) };
        self.record(p as usize, gen);
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
                    match self.lookup(addr) {
                        Some(og) if og == g => {
                            self.remembered.insert(addr);
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
        if let Some(g) = self.lookup(v) {
            return Some(g);
        }
        if self.blocks.owns(v) {
            self.errors.push(format!("{}: {v:#x} points into the heap but not at a live object", what()));
            return None;
        }
        // SAFETY: a non-heap pointer must be a static object; See Note
        // [Checking info pointers] for why reading it is tolerated.
        let ok = v != 0 && v.is_multiple_of(8) && valid_info(self.blocks, unsafe { *(v as *const Word) }).map(|i| i.is_static()).unwrap_or(false);
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
            let info = unsafe { valid_info(self.blocks, *p) }.expect("recorded objects have valid headers");
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
                match self.lookup(addr) {
                    Some(wg) if wg == g => {
                        // SAFETY: a recorded object.
                        let t = unsafe { valid_info(self.blocks, *w.0) }.map(|i| i.closure_type);
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
