//! The walk of blocks and objects: every block of the generations the
//! check covers (descriptors, fill levels, the objects tiling it, the
//! generations' counts), the older generations' changed blocks in a minor
//! check, and where each object starts, for the pointer checks.

use super::addr::valid_info;
use super::Walk;
use crate::bdescr::{BlockDesc, BlockPtr, BF_CLAIM, BF_COPYING_OUT, BF_EVACUATED, BF_FREE, BF_LARGE, BF_UNSWEPT};
use crate::block_walk::walk_block;
use crate::capability::Capability;
use crate::constants::{Word, BLOCK_SIZE, BLOCK_WORDS, WORD_SIZE};
use crate::generation::Generation;
use crate::heap::Heap;
use crate::object::is_forwarded;

/// Where the objects of one block start.
pub(super) enum Starts {
    /// A walked block of generation `.0`: a bit per word.
    Walked(usize, Box<[u64; BLOCK_WORDS / 64]>),
    /// An unwalked block of an uncollected generation `.0` (a minor
    /// check), filled up to `.1`.
    Unwalked(usize, usize),
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
    pub(super) fn queue_fields(&mut self, p: usize, gen: usize) {
        if gen < self.walked_whole || self.queued_old.insert(p) {
            self.objects.push((p, gen));
        }
    }

    /// The generation of the object starting at `v`, if one does: one the
    /// walk recorded, or, in a minor check, one in an unwalked block of an
    /// uncollected generation whose header is a heap object's info table
    /// (See Note [The minor sanity check]).
    pub(super) fn object_gen(&self, v: usize) -> Option<usize> {
        if !v.is_multiple_of(WORD_SIZE) {
            return None;
        }
        if !self.young_objects.is_empty() && self.young_objects.contains(&v) {
            return Some(0);
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
                let header = unsafe { *(v as *const Word) };
                if is_forwarded(header) && self.copied_out(v as *mut Word) {
                    // Its copy is the object (See `BF_COPYING_OUT`).
                    return Some(*gen);
                }
                let info = valid_info(&self.mappings, header)?;
                (!info.is_static()).then_some(*gen)
            }
        }
    }

    pub(super) fn collect_objects(&mut self, heap: &Heap, caps: &[Capability]) {
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
        if words > gen.n_words || gen.n_words + gen.n_free_words + gen.n_unswept_words > words + zeros {
            self.errors.push(format!(
                "generation {g}: counts {} object words, {} free words and {} unswept words, its blocks hold {words} object words and {zeros} zero words (See Note [Checking the word counts])",
                gen.n_words, gen.n_free_words, gen.n_unswept_words
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
        // The byte as `evacuate` reads it, through the heap's range: it is
        // where the descriptor's setters wrote it only if its megablock's
        // summaries are attached right.
        // SAFETY: `d.start` lies in the live head block checked above.
        let summary = self.range.map(|r| unsafe { r.summary(d.start as usize) });
        if let Some(summary) = summary.filter(|&s| s != d.summary()) {
            self.errors.push(format!("block at {at:p}: summary byte {summary:#x}, its descriptor says {:#x} (See Note [Block summaries])", d.summary()));
        }
        if let Some(flag) = want_flag {
            // A block being copied out concurrently may be from-space for
            // the GCs of its copying's second half (See `BF_COPYING_OUT`).
            if !d.has(flag) && !d.has(BF_COPYING_OUT) {
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
        let (mut words, mut young_words) = (0, 0);
        // SAFETY: the checker runs with the world stopped; `end` is the
        // block's fill level, checked above.
        let walk = unsafe {
            walk_block(d, end, |p| {
                if gen > 0 && self.is_young(p as usize) {
                    // A young object in a hole a mutator filled: its
                    // words were the generation's free words.
                    let size = self.object_at(p, gen, false)?;
                    self.young_objects.insert(p as usize);
                    self.queue_fields(p as usize, 0);
                    young_words += size;
                    return Some(size);
                }
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
        // Unswept dead words are free space still to be cleared, and young
        // objects in filled holes were free space: they count as zero
        // words (See Note [Checking the word counts]).
        (words, walk.zero_words + walk.unswept_words + young_words)
    }

    /// Does `p` lie in a block being copied out concurrently?
    fn copied_out(&self, p: *mut Word) -> bool {
        // SAFETY: callers pass addresses inside live blocks.
        unsafe { BlockDesc::load_flags(BlockDesc::of(p)) & BF_COPYING_OUT != 0 }
    }

    /// Does `p` lie where a mutator allocated into an old block since the
    /// last GC (See Note [Allocation regions] in `alloc_region`)?
    fn is_young(&self, p: usize) -> bool {
        let i = self.young_ranges.partition_point(|&(start, _)| start <= p);
        i > 0 && p < self.young_ranges[i - 1].1
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
        if is_forwarded(header) && self.copied_out(p) {
            // Its copy is the object (See `BF_COPYING_OUT`): a pointer here
            // is valid, and its fields are checked where the copy lies.
            // SAFETY: a forwarding pointer left between GCs leads to the
            // copy, a whole object.
            let to = crate::object::forward_target(header);
            valid_info(&self.mappings, unsafe { *to })?;
            // SAFETY: as above.
            let size = unsafe { crate::object::copied_out_size(p, self.layout) };
            self.record(p as usize, gen, false);
            self.report.words += size;
            return Some(size);
        }
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
}

/// The allocation pointer of the capability whose current block is `bd`.
fn cap_hp(caps: &[Capability], bd: BlockPtr) -> Option<*mut Word> {
    caps.iter().find(|c| c.is_current(bd.0)).map(|c| c.hp)
}
