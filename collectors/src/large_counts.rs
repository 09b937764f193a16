//! Large objects under reference counting (`lxr`): which ones are
//! counted, how their blocks are covered, and how a dead one is freed.
//!
//! A large object lies in a block group of its own, outside the line
//! space. When it becomes old (a pause finds it in the old generation's
//! large objects for the first time), every block of its group gets a
//! side table: the head's holds the object's count, and every block's
//! bits let the field-logging barrier log a store into any element (the
//! barrier finds a field's table through the field's own block: core's
//! Note [Side metadata]). From then on it is counted like any object of
//! the space: its fields count, its count may fall to zero, and then its
//! group is freed at once (a large object needs no line judging).
//!
//! Invariant kept: a large object is counted (in `LargeCounts`) exactly
//! when every block of its group has a table (a big one's head only, and
//! a shadow), from the pause that first found it old until a backup trace
//! or its death.
//!
//! Note [Objects past a megablock]
//! ----------------------------------------
//! Only a group's first megablock has block descriptors, so an element
//! past the first megablock of an object over 1 MiB has no table the
//! barrier could find: stores there cannot be logged. The first version
//! made such an object's fields roots at every pause, as evaluation
//! stacks' slots are; on hash (a table of a million elements, 8 MB) that
//! scan made the RC pauses 8x copying's young GCs.
//!
//! So such an object (a *big* one) is counted too, its stores found by
//! its card table instead of the barrier (Levanoni and Petrank's object
//! logging, by cards): it keeps a *shadow*, a copy of its pointer fields
//! as the counts last saw them. Its head block's table has its bits clear
//! (the barrier logs nothing in it) and its count. Before a pause's GC
//! clears the cards, the marked ones are taken (`take_marked_cards`); after
//! it, each element of a marked card that differs from its shadow raises
//! its new value's count and lowers its shadow value's, and the shadow
//! takes the new value (`reconcile`). The cost is a copy of the object's
//! fields, once, and a card's elements per card written.

use crate::ref_count::{counted, counted_value, Tally};
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_LARGE};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::{Word, BLOCKS_PER_MBLOCK, BLOCK_WORDS};
use gclab_core::generation::Generation;
use gclab_core::info::ClosureType;
use gclab_core::object::{info_of_header, load_header, Layout, CARD_BITS};
use gclab_core::side_metadata::SideTables;
use std::collections::{HashMap, HashSet};

/// The counted large objects, by the head of their group, and the big
/// ones' shadows (See Note [Objects past a megablock]).
#[derive(Debug, Default)]
pub struct LargeCounts {
    counted: HashSet<BlockPtr>,
    shadows: HashMap<BlockPtr, Vec<Word>>,
}

/// A card of a big object that the mutators marked: its object and index.
pub struct MarkedCard {
    head: BlockPtr,
    card: usize,
}

impl MarkedCard {
    /// The object's element slots, and the card's elements: `first..last`.
    ///
    /// # Safety
    /// The card's object is a counted large object, its group in use.
    // SAFETY: the caller's contract.
    unsafe fn elements(&self, layout: Layout) -> (*mut Word, usize, usize) {
        // SAFETY: a counted group is in use; it starts with its object.
        let p = unsafe { self.head.read() }.start;
        // SAFETY: as above.
        let (slots, n) = unsafe { layout.pointer_slots(p, info_of_header(load_header(p))) };
        let first = self.card << CARD_BITS;
        (slots, first, (first + (1 << CARD_BITS)).min(n))
    }
}

// SAFETY: the block pointers name the collector's own large objects,
// touched only with the world stopped.
unsafe impl Send for LargeCounts {}
// SAFETY: as above.
unsafe impl Sync for LargeCounts {}

/// Every block of the group headed by `bd`, if it lies in one megablock
/// (See Note [Objects past a megablock]).
///
/// # Safety
/// `bd` heads a large object's group in use.
// SAFETY: the caller's contract: the descriptor is live.
unsafe fn group_blocks(bd: BlockPtr) -> Option<Vec<BlockPtr>> {
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    let n = d.blocks as usize;
    (n <= BLOCKS_PER_MBLOCK).then(|| (0..n).map(|i| BlockPtr(BlockDesc::of(d.start.wrapping_add(i * BLOCK_WORDS)))).collect())
}

/// Is the object at `p` a large one?
///
/// # Safety
/// `p` is a live heap object.
// SAFETY: the caller's contract: its block's descriptor is live.
pub unsafe fn is_large(p: *mut Word) -> bool {
    // SAFETY: the caller's contract.
    unsafe { (*BlockDesc::of(p)).flags & BF_LARGE != 0 }
}

impl LargeCounts {
    /// Forget every counted large object (a backup trace, whose caller
    /// has released the tables).
    pub fn clear(&mut self) {
        self.counted.clear();
        self.shadows.clear();
    }

    /// Count the large objects of `old` not counted yet: cover their
    /// groups with tables (a big one's head only, its bits clear, and a
    /// shadow of its fields); their objects, whose fields the caller
    /// counts.
    ///
    /// # Safety
    /// The GC holds the heap; `old` is the old generation.
    // SAFETY: the caller's contract.
    pub unsafe fn adopt(&mut self, old: &Generation, tables: &mut SideTables, layout: Layout) -> Vec<*mut Word> {
        let mut adopted = Vec::new();
        for &bd in &old.large_objects {
            if self.counted.contains(&bd) {
                continue;
            }
            // SAFETY: the caller's contract: a live group.
            let p = unsafe { bd.read() }.start;
            // SAFETY: as above.
            match unsafe { group_blocks(bd) } {
                Some(blocks) => {
                    for b in blocks {
                        // SAFETY: the GC holds the heap; the group is in
                        // use, and a group not counted has no table.
                        unsafe { tables.attach(b, true) };
                    }
                }
                None => {
                    // SAFETY: as above.
                    unsafe { tables.attach(bd, false) };
                    // SAFETY: `p` is the group's live object.
                    let (slots, n) = unsafe { layout.pointer_slots(p, info_of_header(load_header(p))) };
                    // SAFETY: the slots lie in the object.
                    let fields = unsafe { std::slice::from_raw_parts(slots, n) };
                    // What the caller's count of the fields will count (See
                    // `counted_value`): a young object's address would go
                    // stale when it moves.
                    // SAFETY: a field holds an object address.
                    self.shadows.insert(bd, fields.iter().map(|&v| if unsafe { counted(v) }.is_some() { v } else { 0 }).collect());
                }
            }
            self.counted.insert(bd);
            adopted.push(p);
        }
        adopted
    }

    /// The cards of the big objects that the mutators marked since the
    /// last GC, taken before this GC clears them.
    ///
    /// # Safety
    /// The GC holds the heap and has not begun tracing.
    // SAFETY: the caller's contract.
    pub unsafe fn take_marked_cards(&self, layout: Layout) -> Vec<MarkedCard> {
        let mut marked = Vec::new();
        for (&head, shadow) in &self.shadows {
            // SAFETY: a counted group is in use; it starts with its object.
            let p = unsafe { head.read() }.start;
            // SAFETY: as above.
            let mutable = matches!(info_of_header(unsafe { load_header(p) }).closure_type, ClosureType::MutArrClean | ClosureType::MutArrDirty);
            if !mutable {
                continue;
            }
            let cards = layout.card_table(p, shadow.len());
            for card in 0..shadow.len().div_ceil(1 << CARD_BITS) {
                // SAFETY: the card table has a byte per card.
                if unsafe { *cards.add(card) } != 0 {
                    marked.push(MarkedCard { head, card });
                }
            }
        }
        marked
    }

    /// Bring the counts of the big objects' marked cards up to date (See
    /// Note [Objects past a megablock]): raise each changed element's new
    /// value; the old values, for the caller to lower.
    ///
    /// # Safety
    /// The GC holds the heap and is done moving objects; `marked` was
    /// taken in this pause.
    // SAFETY: the caller's contract.
    pub unsafe fn reconcile(&mut self, marked: &[MarkedCard], layout: Layout, tally: &mut Tally) -> Vec<Word> {
        let mut lowered = Vec::new();
        for m in marked {
            let Some(shadow) = self.shadows.get_mut(&m.head) else { continue };
            // SAFETY: the caller's contract: the card's object is counted.
            let (slots, first, last) = unsafe { m.elements(layout) };
            for (i, seen) in shadow[first..last].iter_mut().enumerate() {
                // SAFETY: `first + i` is an element of the object.
                let now = unsafe { *slots.add(first + i) };
                if now != *seen {
                    // SAFETY: an element holds an object address.
                    let counted = unsafe { counted_value(now, tally) };
                    lowered.push(std::mem::replace(seen, counted));
                }
            }
        }
        lowered
    }

    /// The values the shadows hold for the elements of the marked cards
    /// `marked` that changed since the last pause: what `reconcile` will
    /// lower. Not enough for a backup trace's marker (See `shadowed`);
    /// a test's fault hands it only these.
    ///
    /// # Safety
    /// The world is stopped; `marked` was taken since the last pause.
    // SAFETY: the caller's contract.
    pub unsafe fn overwritten(&self, marked: &[MarkedCard], layout: Layout) -> Vec<Word> {
        let mut old = Vec::new();
        for m in marked {
            let Some(shadow) = self.shadows.get(&m.head) else { continue };
            // SAFETY: the caller's contract: the card's object is counted.
            let (slots, first, last) = unsafe { m.elements(layout) };
            for (i, &seen) in shadow[first..last].iter().enumerate() {
                // SAFETY: `first + i` is an element of the object.
                if unsafe { *slots.add(first + i) } != seen && seen != 0 {
                    old.push(seen);
                }
            }
        }
        old
    }

    /// The values the shadows hold for every element of the marked cards
    /// `marked`, changed since the last pause or not: what each element
    /// held when that pause counted it, which no field log records. A
    /// backup trace's marker must see them all, at every pause and sync
    /// while it marks, since an element may have been written and then
    /// written back (See Note [Every value a written card held] in
    /// `lxr::concurrent_trace`). The shadows are left as they are, for
    /// the pause's `reconcile`.
    ///
    /// # Safety
    /// The world is stopped; `marked` was taken since the last pause, and
    /// its objects are counted.
    // SAFETY: the caller's contract.
    pub unsafe fn shadowed(&self, marked: &[MarkedCard]) -> Vec<Word> {
        let mut held = Vec::new();
        for m in marked {
            let Some(shadow) = self.shadows.get(&m.head) else { continue };
            let first = m.card << CARD_BITS;
            let last = (first + (1 << CARD_BITS)).min(shadow.len());
            held.extend(shadow[first..last].iter().copied().filter(|&v| v != 0));
        }
        held
    }

    /// Free the large objects `dead` (counted ones whose count fell to
    /// zero) out of `old`: detach their tables and give their groups back.
    ///
    /// # Safety
    /// The GC holds the heap; each object of `dead` heads a counted group
    /// of `old`, and nothing live points at it.
    // SAFETY: the caller's contract.
    pub unsafe fn free(&mut self, dead: &[*mut Word], old: &mut Generation, tables: &mut SideTables, blocks: &mut BlockAllocator) {
        // SAFETY: the caller's contract.
        for bd in unsafe { self.unlist(dead, old, tables) } {
            blocks.free_group(bd);
        }
    }

    /// Take the large objects `dead` out of `old` and of the counts, their
    /// tables detached, and give back their groups, still in use and
    /// intact, for the caller to free (at once, or once a marker that may
    /// read them has ended: See Note [A concurrent backup trace] in
    /// `lxr::concurrent_trace`).
    ///
    /// # Safety
    /// As for `free`.
    // SAFETY: the caller's contract.
    pub unsafe fn unlist(&mut self, dead: &[*mut Word], old: &mut Generation, tables: &mut SideTables) -> Vec<BlockPtr> {
        if dead.is_empty() {
            return Vec::new();
        }
        let heads: HashSet<BlockPtr> = dead.iter().map(|&p| BlockPtr(BlockDesc::of(p))).collect();
        old.large_objects.retain(|bd| !heads.contains(bd));
        let mut covered = HashSet::new();
        for &bd in &heads {
            self.counted.remove(&bd);
            // SAFETY: the caller's contract.
            let d = unsafe { bd.read() };
            old.n_large_blocks -= d.blocks as usize;
            old.n_large_words -= d.used_words();
            self.shadows.remove(&bd);
            // SAFETY: as above.
            covered.extend(unsafe { group_blocks(bd) }.unwrap_or_else(|| vec![bd]));
        }
        // SAFETY: the groups are in use until the caller frees them.
        unsafe { tables.detach(&covered) };
        heads.into_iter().collect()
    }

    /// Each element of the marked cards `marked`, with its object (for
    /// the slots recorded for `lxr`'s evacuation).
    ///
    /// # Safety
    /// As for `reconcile`, but the GC may not have begun.
    // SAFETY: the caller's contract.
    pub unsafe fn card_slots(&self, marked: &[MarkedCard], layout: Layout) -> Vec<(*mut Word, *mut Word)> {
        let mut slots = Vec::new();
        for m in marked.iter().filter(|m| self.shadows.contains_key(&m.head)) {
            // SAFETY: the caller's contract: the card's object is counted.
            let (elements, first, last) = unsafe { m.elements(layout) };
            // SAFETY: as above.
            let obj = unsafe { m.head.read() }.start;
            slots.extend((first..last).map(|i| (obj, elements.wrapping_add(i))));
        }
        slots
    }

    /// Give every shadow value `forward` of it (`lxr`'s evacuation moved
    /// some of the objects they name; 0 for one it freed).
    pub fn forward_shadows(&mut self, forward: impl Fn(Word) -> Word) {
        for v in self.shadows.values_mut().flatten() {
            *v = forward(*v);
        }
    }

    /// The counted large objects, for the sanity checker.
    pub fn objects(&self) -> Vec<*mut Word> {
        // SAFETY: a counted group is in use (the module's invariant).
        self.counted.iter().map(|bd| unsafe { bd.read() }.start).collect()
    }
}
