//! `lxr`'s mature evacuation: the most fragmented blocks of the counted
//! space, chosen when a backup trace begins, moved out at the first RC
//! pause after it ends (LXR's "opportunistic evacuation" of mature
//! objects), with the slots that point into them remembered meanwhile.
//!
//! Invariant kept: from its choice to its evacuation, a block flagged
//! `BF_EVACUATING` is on no list promotion or the mutators allocate from,
//! and every pointer field of a live old object outside the chosen blocks
//! that points into one was recorded (by the marker, or a pause) or is
//! looked at again by the evacuating pause (a logged field, a stack slot,
//! an element of a written card).
//!
//! Note [Evacuating in an RC pause]
//! ----------------------------------------
//! Counts free objects where they lie, so a space judged only by counts
//! fragments: a block holding a few live objects keeps its lines, and
//! the holes between them are too short or too many for what promotion
//! brings. Only a backup trace in a pause (`trace=pause`, or a major GC
//! the program asks for) defragmented, as `immix`'s major GC does; the
//! trace beside the mutators never moved anything. LXR moves mature
//! objects in its RC pauses instead, from blocks chosen at the start of a
//! trace, using the trace to learn who points into them. Here:
//!
//! - **Choose.** When a trace begins, the blocks whose live words by
//!   count (`LazyLines`) are a quarter of the block or less are ranked,
//!   the sparsest first, and taken while their live words fit the room
//!   the copies may have: the headroom (`headroom` percent of the space's
//!   blocks, as `immix`'s) and half the free words. (`immix`'s ranking by
//!   holes needs each block's lines judged, and here most blocks wait to
//!   be judged: See Note [Lines are reclaimed lazily] in `lazy_lines`.)
//!   `defrag=never` turns this off. The chosen ones are flagged
//!   `BF_EVACUATING` and taken off the recyclable list: nothing is placed
//!   in them again.
//! - **Remember.** The marker records each field it scans that points
//!   into a chosen block (`evacuating::SlotsInto`). What it does not scan
//!   is recorded by the pauses while it marks: the fields of the objects
//!   each pause promotes (placed in the space, young in holes, or large:
//!   all allocated black, outside the snapshot), the logged fields (their
//!   new values) and the elements of written cards. A large object never
//!   moves, but one young when the trace began is promoted where it lies
//!   and scanned by nobody: before its fields were recorded, 11 runs in
//!   300 of `large-arrays` under `lxr:holes=25` and a stress setting, on
//!   a loaded 2-core machine, left such an array pointing into a block
//!   just freed.
//!   What changes after the last pause of the trace is read again by the
//!   evacuating pause itself: that pause's logged fields and written
//!   cards, and every slot of every old evaluation stack (stacks are not
//!   barriered).
//! - **Sweep.** The sweep that ends the trace zeroes the chosen blocks'
//!   unmarked words (so they stay a walk of objects and zero words) but
//!   does not judge their lines free.
//! - **Move.** The next RC pause's minor GC takes the chosen blocks as an
//!   increment (See Note [Increments] in `from_space`): it copies what it
//!   reaches in them into the space, from the roots, the young objects,
//!   the mutable lists and the remembered slots. A slot is used only if it
//!   is still a pointer field of a live counted object outside the chosen
//!   blocks (its object's count is not zero: counts sit at objects' first
//!   words, so a recorded object since freed, or its words reused, fails)
//!   and still points at a live object of a chosen block. Before the
//!   blocks are freed, each moved object's count goes to its copy, which
//!   is then not counted again as a promoted object (its fields were
//!   counted where it lay); every address `lxr` keeps between pauses (the
//!   root buffer, the decrements waiting, the stacks and their kept
//!   slots, the big objects' shadows, this pause's logs) is forwarded, and
//!   one that names an object left behind (dead, with a decrement still
//!   pending) is dropped: what that object held stays counted, too high,
//!   until a trace frees it, never too low.
//!
//! A major GC in a pause (`trace=pause`, a major GC the program asks for
//! or `-M` forces) drops a pending evacuation: it judges every block
//! itself, and defragments by its own rule.

use super::Lxr;
use crate::defrag::DefragMode;
use crate::evacuating::{in_evacuating_block, SlotsInto};
use crate::line_space::{clear_dead_words, Geometry};
use crate::ref_count::{counted, counted_fields};
use crate::roots::RememberedSlot;
use crate::space_trace::Evacuate;
use crate::large_counts::MarkedCard;
use gclab_core::bdescr::{BlockDesc, BlockPtr, LiveMap, BF_EVACUATING};
use gclab_core::capability::FieldLog;
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::object::{forward_target, info_of_header, is_forwarded, load_header, Layout};
use gclab_core::side_metadata::side_table_of;
use gclab_core::{GcContext, GcOutcome, RegionSweep};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

/// Blocks chosen for evacuation, and the slots recorded into them (See
/// Note [Evacuating in an RC pause]).
pub(super) struct Evacuation {
    /// The blocks, sorted.
    blocks: Vec<BlockPtr>,
    /// What the marker and the pauses recorded.
    slots: Arc<SlotsInto>,
    /// The trace that chose them has ended: the next pause moves them.
    ready: bool,
}

impl Evacuation {
    /// Is `bd` one of the chosen blocks?
    fn holds(&self, bd: BlockPtr) -> bool {
        self.blocks.binary_search(&bd).is_ok()
    }
}

/// One object an evacuation moved.
#[derive(Debug, Clone, Copy)]
struct MovedObject {
    old: usize,
    new: usize,
    words: usize,
    count: u8,
}

/// What an evacuation moved, and from where.
#[derive(Debug, Default)]
pub(super) struct Moved {
    /// The blocks evacuated, sorted.
    blocks: Vec<BlockPtr>,
    /// The objects moved, by old address.
    objects: Vec<MovedObject>,
}

impl Moved {
    fn in_evacuated_block(&self, v: usize) -> bool {
        v != 0 && self.blocks.binary_search(&BlockPtr(BlockDesc::of_raw(v))).is_ok()
    }

    /// Where the object at `v` is now; None if it was left behind (dead).
    pub(super) fn value(&self, v: Word) -> Option<Word> {
        if !self.in_evacuated_block(v) {
            return Some(v);
        }
        let i = self.objects.binary_search_by_key(&v, |m| m.old).ok()?;
        Some(self.objects[i].new)
    }

    /// Forward each of `values`, dropping those left behind.
    pub(super) fn values(&self, values: &mut Vec<Word>) {
        values.retain_mut(|v| self.value(*v).map(|n| *v = n).is_some());
    }

    /// `value`, with 0 for an object left behind.
    pub(super) fn value_or_zero(&self, v: Word) -> Word {
        self.value(v).unwrap_or(0)
    }

    /// Where the field at `s` is now; None if its object was left behind.
    pub(super) fn slot(&self, s: *mut Word) -> Option<*mut Word> {
        let s = s as usize;
        if !self.in_evacuated_block(s) {
            return Some(s as *mut Word);
        }
        let i = self.objects.partition_point(|m| m.old <= s).checked_sub(1)?;
        let m = self.objects[i];
        (s < m.old + m.words * size_of::<Word>()).then(|| (m.new + (s - m.old)) as *mut Word)
    }

    /// Did this pause move nothing?
    pub(super) fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// This pause's field logs, forwarded; those of objects left behind
    /// dropped.
    pub(super) fn logs<'a>(&self, logs: &'a [FieldLog]) -> Cow<'a, [FieldLog]> {
        if self.is_empty() {
            return Cow::Borrowed(logs);
        }
        logs.iter().filter_map(|e| Some(FieldLog { obj: self.value(e.obj as Word)? as *mut Word, slot: self.slot(e.slot)?, ..*e })).collect()
    }

    /// A pause's addresses taken before its GC, forwarded: the logged old
    /// values `lowered` (those left behind dropped) and the old objects'
    /// fields `uncounted`.
    pub(super) fn forward_pause(&self, lowered: &mut Vec<Word>, uncounted: &mut Vec<*mut Word>) {
        if self.is_empty() {
            return;
        }
        self.values(lowered);
        uncounted.retain_mut(|s| self.slot(*s).map(|n| *s = n).is_some());
    }

    /// The copies' addresses.
    pub(super) fn copies(&self) -> HashSet<*mut Word> {
        self.objects.iter().map(|m| m.new as *mut Word).collect()
    }

    /// Each copy, with its words.
    pub(super) fn copy_sizes(&self) -> impl Iterator<Item = (*mut Word, usize)> + '_ {
        self.objects.iter().map(|m| (m.new as *mut Word, m.words))
    }

    /// Give each copy its object's count.
    pub(super) fn set_counts(&self) {
        for m in &self.objects {
            let t = side_table_of(m.new as *const Word).expect("a copy lies in a counted block");
            t.set_count(m.new as *const Word, m.count);
        }
    }

    /// The statistics of the evacuation, into the pause's record.
    pub(super) fn record(&self, into: &mut RegionSweep) {
        into.defrag_blocks += self.blocks.len() as u32;
        into.defrag_copied_bytes += self.objects.iter().map(|m| (m.words * size_of::<Word>()) as u64).sum::<u64>();
    }
}

/// The most live words (by count) a block may hold to be evacuated: a
/// quarter of it (See Note [Evacuating in an RC pause]).
const MOST_LIVE_WORDS: usize = BLOCK_WORDS / 4;

impl Lxr {
    /// A backup trace begins: choose the blocks to evacuate after it (See
    /// Note [Evacuating in an RC pause]); the record for its marker, if any
    /// were chosen.
    ///
    /// # Safety
    /// The GC holds the heap; no evacuation is pending.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn choose_evacuation(&mut self, ctx: &mut GcContext<'_>) -> Option<Arc<SlotsInto>> {
        debug_assert!(self.evacuation.is_none(), "one evacuation at a time");
        let (mode, headroom_percent) = self.immix.defrag_settings();
        if mode == DefragMode::Never {
            return None;
        }
        let oldest = ctx.heap.oldest();
        let gen = &mut ctx.heap.gens[oldest];
        let sparse = |bd: BlockPtr| {
            let live = self.lines.counted_words(bd);
            (live <= MOST_LIVE_WORDS && !self.holes.contains(bd)).then_some((live, bd))
        };
        let mut ranked: Vec<(usize, BlockPtr)> = gen.blocks.iter().filter_map(|&bd| sparse(bd)).collect();
        ranked.sort_unstable();
        // What the copies may take: the headroom, and half the free words
        // (promotion takes the rest).
        let mut room = headroom_percent * gen.n_blocks * BLOCK_WORDS / 100 + gen.n_free_words / 2;
        let mut blocks: Vec<BlockPtr> = Vec::new();
        for (live, bd) in ranked {
            if live > room {
                break;
            }
            room -= live;
            blocks.push(bd);
        }
        if blocks.is_empty() {
            return None;
        }
        blocks.sort_unstable();
        gen.n_free_words -= self.immix.parts(oldest).0.forget(&blocks);
        for &bd in &blocks {
            // SAFETY: the caller's contract.
            unsafe { bd.get() }.insert_flags(BF_EVACUATING);
        }
        let slots = Arc::new(SlotsInto::default());
        self.evacuation = Some(Evacuation { blocks, slots: Arc::clone(&slots), ready: false });
        Some(slots)
    }

    /// In an RC pause while the trace that chose the blocks marks: record
    /// what the marker will not scan (See Note [Evacuating in an RC
    /// pause]): the fields of the objects `promoted` (placed in the
    /// space, or large objects just old), the fields logged (as they are
    /// now) and the elements of the written cards.
    ///
    /// # Safety
    /// The pause's GC is over; `promoted` are live old objects, each
    /// logged object is live and old, and `cards` were taken in this pause.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn record_for_evacuation(&self, promoted: impl Iterator<Item = *mut Word>, logs: &[FieldLog], cards: &[MarkedCard], layout: Layout) {
        let Some(e) = self.evacuation.as_ref().filter(|e| !e.ready) else { return };
        // SAFETY: the caller's contract: each slot holds an object address
        // (or 0), counted ones in blocks of the heap.
        let note = |obj: *mut Word, slot: *mut Word| unsafe {
            let v = *slot;
            if counted(v).is_some() {
                e.slots.note(obj, slot, v);
            }
        };
        for p in promoted {
            // SAFETY: the caller's contract.
            let (slots, n) = unsafe { counted_fields(layout, p) };
            (0..n).for_each(|i| note(p, slots.wrapping_add(i)));
        }
        // SAFETY: the caller's contract (See Note [A shrunk object's
        // logged fields] in `lxr`).
        logs.iter().filter(|e| unsafe { super::still_inside(layout, e.obj, e.slot) }).for_each(|e| note(e.obj, e.slot));
        // SAFETY: the caller's contract.
        unsafe { self.large.card_slots(cards, layout) }.into_iter().for_each(|(obj, slot)| note(obj, slot));
    }

    /// The trace that chose the blocks has ended in a sweep: of the blocks
    /// `judged` by their marks, take the chosen ones out (they are not
    /// judged free line by line, only their unmarked words zeroed) and
    /// make the evacuation ready for the next pause.
    ///
    /// # Safety
    /// The world is stopped; the maps are the trace's complete marks.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn keep_chosen_blocks(&mut self, judged: &mut Vec<(BlockPtr, LiveMap)>, g: Geometry) {
        let Some(e) = self.evacuation.as_mut() else { return };
        judged.retain(|(bd, bits)| {
            if !e.holds(*bd) {
                return true;
            }
            // SAFETY: the caller's contract: a block of the space whose
            // unmarked words nothing reads.
            unsafe { clear_dead_words(g, bd.read(), bits) };
            false
        });
        e.ready = true;
    }

    /// Drop a pending evacuation (a major GC in a pause judges every block
    /// itself).
    pub(super) fn drop_evacuation(&mut self) {
        for bd in self.evacuation.take().map(|e| e.blocks).unwrap_or_default() {
            // SAFETY: a block of the space, still in use (a chosen block is
            // freed only by its evacuation).
            unsafe { bd.get() }.remove_flags(BF_EVACUATING);
        }
    }

    /// Is an evacuation ready for this pause?
    pub(super) fn evacuates_now(&self) -> bool {
        self.evacuation.as_ref().is_some_and(|e| e.ready)
    }

    /// The young GC of an evacuating pause: generations `0..=n` copied,
    /// the chosen blocks evacuated (See Note [Evacuating in an RC pause]);
    /// `logs` and `cards` are this pause's, `holes` the blocks whose
    /// young objects are marked where they lie. Returns what moved.
    ///
    /// # Safety
    /// The GC holds the heap, before the pause's minor GC; the logs were
    /// taken before it, the cards too.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn young_gc_evacuating(&mut self, n: usize, ctx: &mut GcContext<'_>, logs: &[FieldLog], cards: &[MarkedCard], holes: Option<&crate::mark::MarkBitmap>) -> (GcOutcome, Moved) {
        let e = self.evacuation.take().expect("an evacuation is ready");
        let oldest = ctx.heap.oldest();
        let layout = ctx.heap.layout;
        let gen = &mut ctx.heap.gens[oldest];
        // The chosen blocks still in the space (a block whose objects all
        // died since has been freed).
        let mut taken: Vec<BlockPtr> = gen.blocks.iter().copied().filter(|&bd| e.holds(bd)).collect();
        taken.sort_unstable();
        let in_space: HashSet<BlockPtr> = gen.blocks.iter().chain(gen.large_objects.iter()).copied().collect();
        // SAFETY: the caller's contract.
        let mut remembered = unsafe { self.remembered_slots(&e, logs, cards, &in_space, layout, oldest) };
        if self.faults.lose_remembered {
            remembered.clear();
        }
        // `take_increment` takes each block's used words off the
        // generation's count; the space counts the words of its live
        // objects there.
        for &bd in &taken {
            // SAFETY: a block of the space.
            let used = unsafe { bd.read() }.used_words();
            gen.n_words = gen.n_words + used - self.lines.counted_words(bd);
        }
        let mut moved = Moved { blocks: taken.clone(), objects: Vec::new() };
        let (tables, lines) = (&mut self.tables, &mut self.lines);
        let mut before_freeing = || {
            // SAFETY: tracing is over; the blocks are from-space, their
            // tables attached, each moved object a forwarding header.
            moved.objects = unsafe { moved_objects(&taken, layout) };
            // SAFETY: the blocks are still in use, freed just after this.
            unsafe { tables.detach(&taken) };
            for &bd in &taken {
                lines.forget(bd);
                // SAFETY: as above.
                unsafe { bd.get() }.remove_flags(BF_EVACUATING);
            }
        };
        let takes = |bd: BlockPtr| e.holds(bd);
        let evacuate = Evacuate { takes: &takes, remembered: &remembered, before_freeing: &mut before_freeing };
        let outcome = self.immix.collect_young(n, ctx, None, holes, Some(evacuate));
        self.forward_kept(&moved);
        (outcome, moved)
    }

    /// The slots of the evacuating pause (See Note [Evacuating in an RC
    /// pause]): those recorded, this pause's logged fields and written
    /// cards and the old stacks' slots, each kept only if it is still a
    /// pointer field of a live object of `in_space` (the space's blocks and
    /// large objects), outside the chosen blocks, that points at a live
    /// object of one.
    ///
    /// # Safety
    /// As for `young_gc_evacuating`.
    // SAFETY: the caller's contract.
    unsafe fn remembered_slots(&self, e: &Evacuation, logs: &[FieldLog], cards: &[MarkedCard], in_space: &HashSet<BlockPtr>, layout: Layout, oldest: usize) -> Vec<RememberedSlot> {
        let mut pairs = e.slots.take();
        pairs.extend(logs.iter().map(|l| (l.obj as usize, l.slot as usize)));
        // SAFETY: the caller's contract.
        pairs.extend(unsafe { self.large.card_slots(cards, layout) }.into_iter().map(|(o, s)| (o as usize, s as usize)));
        for &stack in self.stacks.keys() {
            // SAFETY: a stack of the space is live.
            let (slots, n) = unsafe { layout.pointer_slots(stack as *mut Word, info_of_header(load_header(stack as *const Word))) };
            pairs.extend((0..n).map(|i| (stack, slots.wrapping_add(i) as usize)));
        }
        pairs.sort_unstable_by_key(|&(_, s)| s);
        pairs.dedup_by_key(|&mut (_, s)| s);
        let live = |p: usize| {
            let bd = BlockPtr(BlockDesc::of_raw(p));
            in_space.contains(&bd) && side_table_of(p as *const Word).is_some_and(|t| t.count(p as *const Word) > 0)
        };
        let mut kept = Vec::new();
        for (obj, slot) in pairs {
            if e.holds(BlockPtr(BlockDesc::of_raw(obj))) || !live(obj) {
                continue;
            }
            // SAFETY: a counted word starts a live object of the space.
            let (slots, n) = unsafe { layout.pointer_slots(obj as *mut Word, info_of_header(load_header(obj as *const Word))) };
            let (first, end) = (slots as usize, slots as usize + n * size_of::<Word>());
            if slot < first || slot >= end {
                continue;
            }
            // SAFETY: a pointer field of a live object holds an object
            // address (or 0), and a counted one lies in the heap.
            let v = unsafe { *(slot as *const Word) };
            if unsafe { counted(v) }.is_none() || !unsafe { in_evacuating_block(v) } || !live(v) {
                continue;
            }
            // SAFETY: as the checks above establish; only this GC writes it.
            kept.push(unsafe { RememberedSlot::new(obj as *mut Word, slot as *mut Word, oldest) });
        }
        kept
    }

    /// Forward every address kept between pauses into the evacuated
    /// blocks: the root buffer, the decrements waiting, the stacks (their
    /// own addresses and kept slots) and the big objects' shadows.
    fn forward_kept(&mut self, moved: &Moved) {
        moved.values(&mut self.roots);
        moved.values(&mut self.decrements.waiting);
        let stacks = std::mem::take(&mut self.stacks);
        for (stack, mut kept) in stacks {
            kept.iter_mut().for_each(|v| *v = moved.value_or_zero(*v));
            match moved.value(stack as Word) {
                Some(s) => {
                    self.stacks.insert(s, kept);
                }
                // A stack left behind is dead: what its slots held waits
                // to be lowered.
                None => self.decrements.waiting.extend(kept.into_iter().filter(|&v| v != 0)),
            }
        }
        self.large.forward_shadows(|v| moved.value_or_zero(v));
    }
}

/// The objects of the evacuated blocks `blocks` that a GC moved: each
/// counted object (a live one, or a dead one whose decrement waits) that
/// is now a forwarding header, with its count.
///
/// # Safety
/// Tracing is over and the blocks are still from-space, their side tables
/// attached.
// SAFETY: the caller's contract.
unsafe fn moved_objects(blocks: &[BlockPtr], layout: Layout) -> Vec<MovedObject> {
    let mut moved = Vec::new();
    for &bd in blocks {
        // SAFETY: the caller's contract.
        let start = unsafe { bd.read() }.start;
        let t = side_table_of(start).expect("a block of the space has a side table");
        t.for_each_counted(|first| {
            let p = start.wrapping_add(first);
            // SAFETY: a counted word starts an object of the block.
            let header = unsafe { load_header(p) };
            if is_forwarded(header) {
                let new = forward_target(header);
                // SAFETY: the copy is a whole object.
                let words = unsafe { layout.size_of(new, info_of_header(load_header(new))) };
                moved.push(MovedObject { old: p as usize, new: new as usize, words, count: t.count(p) });
            }
        });
    }
    moved.sort_unstable_by_key(|m| m.old);
    moved
}
