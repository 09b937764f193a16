//! `lxr`'s backup trace beside the mutators: LXR's snapshot-at-the-
//! beginning trace of the counted space, run by a marker thread while the
//! mutators and the RC pauses go on, and the sweep that ends it, freeing
//! what it did not reach (cycles, objects whose counts stuck) and lowering
//! the counts those objects held.
//!
//! Invariant kept while a trace runs: nothing in the snapshot's blocks is
//! reused, so every address the marker loads names an object of the
//! snapshot, a zeroed dead one, or something outside the snapshot that it
//! does not follow (See Note [A concurrent backup trace]).
//!
//! Note [A concurrent backup trace]
//! ----------------------------------------
//! LXR finds what counts cannot free (garbage cycles, objects whose few
//! bits of count stuck) with a trace that runs beside the mutators, where
//! `trace=pause` runs `immix`'s major GC and rebuilds every count after it
//! (See Note [The backup trace recounts] in `lxr`), a pause as long as a
//! major GC's. Here, with `trace=concurrent` (the default):
//!
//! - **Begin.** A major GC the policy asks for is an RC pause, after which
//!   every block and large object of the counted space is the snapshot
//!   (flagged `BF_MARK_IN_PLACE` and attached to a bitmap, as
//!   `nonmoving`'s), and the root buffer is greyed: the runtime's roots,
//!   the young objects' references into the space (`count_young` counts
//!   every young object's, the dead ones' too) and the evaluation stacks'
//!   slots. The buffer already holds exactly what points into the space
//!   from outside it, so the beginning costs no walk of the roots.
//! - **The barrier.** The field-logging barrier is already a deletion
//!   barrier: each field's first store per epoch logs the value the field
//!   held when the epoch began, so the first store to a field since the
//!   snapshot logs its snapshot value. Each RC pause greys the counted old
//!   values of its log, and each sync greys the log's, keeping it for the
//!   next pause to count, and the values a big object's shadow holds
//!   for every element of its marked cards (stores past a megablock are
//!   found by cards, not logged: See Note [Every value a written card
//!   held]).
//!   Stacks are not barriered: their
//!   slots at the snapshot were greyed, and what they gain later was
//!   reachable then or is new.
//! - **RC pauses go on.** What a pause promotes into a snapshot block's
//!   hole is marked as it is placed (allocated black); what it promotes
//!   elsewhere lies outside the snapshot and is not judged. Counts still
//!   free objects, and what a freed object held is handed to the marker
//!   first (See Note [What dies under a backup trace]); a small one is
//!   then zeroed where it lies, one atomic store a word, which the marker
//!   tolerates (See Note [Objects that die under the marker] in
//!   `concurrent_mark`); but no block of the snapshot is judged again
//!   (its lines reused) and no large object of it freed until the sweep,
//!   so the marker never reads memory given to another object.
//! - **End.** When the marker runs out of work it asks for a sync, which
//!   hands it the logs and lets it go on, or finishes the marking (the old
//!   weak pointers judged as `nonmoving` judges them) and sweeps, with the
//!   decrement thread stopped. The sweep reads only the bitmap: every
//!   unmarked word of a snapshot block is garbage, so the block's counts
//!   are kept for its marked words only (`SideTable::keep_counts_of`) and
//!   the block is judged again by its marks (`LineSpace::rejudge`, which
//!   zeroes the rest); an unmarked large object is freed. Decrements still
//!   pending on an object the sweep frees are dropped: it is gone.
//!
//! What the sweep does not do is lower the counts the garbage held: an
//! unmarked object was unreachable when the marking began (the trace is
//! exact for the snapshot), but it may point at an object that survives,
//! whose count it raised and nothing will lower. That count stays too
//! high, which only keeps its object until it is unmarked at a later
//! trace: never a count below its references, which would free a live
//! object. Lowering them needs every garbage object's fields read, and
//! binary-trees 20's last sweeps found 5.5 and 12.6 million unmarked
//! objects (dead trees whose decrements the thread had not reached): the
//! sweep that lowered them took 240 and 556 ms, the sync that sweeps by
//! the bitmap 31 ms. Its garbage pointed at 691 survivors in all. A
//! reachable object never points at an unmarked one (checked under `-DS`
//! at the sync: core's snapshot check, as `nonmoving`'s), so nothing the
//! mutators or the counts will read lies in the words freed. The marks say
//! more than is live (an object reachable at the snapshot that died since
//! and was zeroed keeps its bits), so the judged lines may hold a few dead
//! words; the next judging of the block, by counts, finds them (See Note
//! [Lines are reclaimed lazily] in `lazy_lines`).
//!
//! Note [What dies under a backup trace]
//! ----------------------------------------
//! An object that counts free while the trace runs may still be on the
//! only path the snapshot had to a live object: a bucket's old chain head
//! is overwritten (its old value logged and greyed at the next pause), the
//! pause's decrements take the head's count to zero, and the head is
//! zeroed before the marker gets to it; the rest of the old chain, shared
//! by the new one, is now reached only through new objects, which the
//! trace does not scan. Freeing an object deletes all its fields at once,
//! and a snapshot-at-the-beginning trace must see every deleted value, so
//! the decrements hand the marker what each object they free held (its
//! counted fields, or a dead stack's kept slots) before zeroing it
//! (`decrement_thread::decrement_under`), as LXR's decrements do while its
//! trace runs. Found by the `-DS` check at the end of the marking (hash
//! under `age=0` with a slow marker: an entry reachable from a live new
//! one, unmarked); the cost is a push per field of each freed object,
//! only while a trace runs.
//!
//! Note [Every value a written card held]
//! ----------------------------------------
//! A big object's stores are found by its cards, and what an element held
//! before them by its shadow, the values the last pause counted (See Note
//! [Objects past a megablock] in `large_counts`). For the counts only the
//! net change matters, so a pause lowers and raises only the elements
//! that differ from their shadows. For the marker that is not enough: an
//! element may be written and then written back within one epoch, and a
//! marker that read it in between saw neither its snapshot value nor a
//! path to it. `hash` does exactly this: a bucket's head entry `C` is
//! pushed down by an insert (the bucket holds a new young entry whose
//! tail is `C`), the marker scans the bucket array and skips the young
//! entry, and a deletion of the new key stores `C` back. The shadow still
//! equals the element, nothing greys `C`, and the sweep frees it under
//! the live table: the segfault in about one `hash 1000000 5000000` run
//! in forty under `trace=concurrent`, found by the end-of-marking check
//! showing the marker had read the young entry at the element it missed.
//!
//! So while a trace marks, each pause (before `reconcile` takes the new
//! values) and each sync hands the marker the shadow value of every
//! element of every marked card, changed or not, less what it has marked
//! already (`LargeCounts::shadowed`). That covers every snapshot value:
//! an element's first store since the snapshot marks its card, and its
//! shadow then still holds what the snapshot held (no store, no change
//! to the shadow). It is LXR's field-logging barrier at the grain of a
//! card: a logged field's old value is greyed whether or not the field
//! was written back. The cost is a card's 128 shadow values for each
//! marked card at each pause and sync of a marking, most of them marked
//! already and dropped before they reach the marker (measured in
//! docs/lxr.md). The alternative, a shadow of the snapshot itself taken
//! when the marking begins, would cost a copy of every big object per
//! trace and still need this test to find the elements written.
//!
//! Note [The snapshot's words]
//! ----------------------------------------
//! A generation's `n_words` may exceed the words its objects hold: a thunk
//! updated in place leaves zeroed slop that the count keeps until the
//! generation is next collected (core's Note [Checking the word counts]),
//! and the counted space is collected only by backup traces. The sweep
//! judges the snapshot's lines by their marks, so it must also count those
//! blocks by their marks: what the generation counted in them (followed
//! from the snapshot's beginning: `Marking::snapshot_words`) is replaced
//! by the words marked, which cover every live object and no free line.
//! Subtracting only the unreached objects' words left the slop counted on
//! lines the judging had made free (power.hs counted 1,006 words twice).
//!
//! The alternative, tracing in the pause and recounting (`trace=pause`),
//! frees the same objects and mends leaked counts too (a count too high
//! stays high here until its object is unmarked at some trace); it is what
//! a major GC the program asks for, or the heap's limit forces (`-M`),
//! still does, dropping a marking that runs.

use super::entry::{Faults, HoldMarker};
use super::Lxr;
use crate::concurrent_mark::{survives, MarkQueue, Marker, ParkedForGc, Snapshot};
use crate::large_counts::{LargeCounts, MarkedCard};
use crate::mark::MarkBitmap;
use crate::megablock_set::MegablockSet;
use crate::nonmoving::{block_in_snapshot as in_snapshot, forget_dead_mut_list_entries, judge_weaks, marking_goes_on_with};
use crate::ref_count::counted;
use crate::snapshot_check::snapshot_violations;
use gclab_core::bdescr::{BlockPtr, LiveMap, BF_EVACUATED, BF_MARK_IN_PLACE};
use gclab_core::capability::FieldLog;
use gclab_core::constants::Word;
use gclab_core::object::{load_header, Layout};
use gclab_core::side_metadata::side_table_of;
use gclab_core::{CollectorEvent, ConcurrentPhase, GcContext, RtsFlags};
use std::sync::Arc;
use std::time::Instant;

/// A backup trace under way.
pub(super) struct Marking {
    marker: Marker,
    started: Instant,
    /// Its syncs so far.
    syncs: usize,
    /// The words of objects the old generation counts in the snapshot's
    /// blocks: its count when the marking began, plus what pauses placed
    /// in them since, less what died in them (See Note [The snapshot's
    /// words]).
    pub(super) snapshot_words: usize,
    /// Large objects of the snapshot whose counts fell to zero while it
    /// marks: out of the generation and the counts, their groups kept
    /// until the marking ends, since the marker may be reading them.
    pub(super) dead_large: Vec<BlockPtr>,
    /// Test-only (See `entry::Faults`): until when the marker is held
    /// (`No` once it is let go), and the faults.
    held: HoldMarker,
    faults: Faults,
}

impl Marking {
    /// The bitmap that what the RC pauses promote into the snapshot is
    /// marked in.
    pub(super) fn marks(&self) -> &MarkBitmap {
        &self.marker.queue.marks
    }

    /// The marker's queue, for the decrement threads (See Note [What dies
    /// under a backup trace]).
    pub(super) fn queue(&self) -> Arc<MarkQueue> {
        Arc::clone(&self.marker.queue)
    }

    /// Hand the marker `values` (object addresses, or 0), the snapshot
    /// values the mutators overwrote, to grey; and let a marker held until
    /// this pause go (an RC pause calls it: See `entry::Faults`).
    pub(super) fn grey_deleted(&mut self, values: impl IntoIterator<Item = Word>) {
        if !self.faults.lose_deletions {
            self.marker.queue.push(values);
        }
        self.let_go(HoldMarker::UntilPause);
    }

    /// The values the shadows of the big objects' marked cards `cards`
    /// hold that the marker has not marked yet (See Note [Every value a
    /// written card held]).
    ///
    /// # Safety
    /// The world is stopped; `cards` were taken since the last pause.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn unmarked_shadows(&self, large: &LargeCounts, cards: &[MarkedCard], layout: Layout) -> Vec<Word> {
        // SAFETY: the caller's contract.
        unsafe { unmarked_shadows(&self.marker.queue, large, cards, layout, self.faults) }
    }

    /// Let the marker go if it is held until `until` (a test's schedule:
    /// See `entry::Faults`).
    pub(super) fn let_go(&mut self, until: HoldMarker) {
        if self.held == until && until != HoldMarker::No {
            self.held = HoldMarker::No;
            self.marker.queue.pause();
            self.marker.queue.resume();
            if until == HoldMarker::UntilStop {
                self.marker.queue.wait_drained();
            }
        }
    }

    /// Park the marker for a GC of `0..=n` if its threads take every core
    /// (See `Marker::make_room`).
    pub(super) fn make_room(&self, flags: &RtsFlags, n: usize) -> Option<ParkedForGc> {
        self.marker.make_room(flags, n)
    }
}

impl Lxr {
    /// Begin a backup trace at the end of an RC pause (See Note [A
    /// concurrent backup trace]): snapshot the space and grey the root
    /// buffer.
    ///
    /// # Safety
    /// The GC holds the heap; the pause has counted the roots; no marking
    /// runs.
    // SAFETY: the caller's contract.
    pub(super) unsafe fn begin_marking(&mut self, ctx: &mut GcContext<'_>) {
        // SAFETY: the caller's contract; an evacuation pending was done by
        // this pause.
        let remember = unsafe { self.choose_evacuation(ctx) };
        let old = &ctx.heap.gens[ctx.heap.oldest()];
        let snapshot_words = old.n_words;
        let snapshot: Vec<BlockPtr> = old.blocks.iter().chain(&old.large_objects).copied().collect();
        // SAFETY: the caller's contract.
        let mut marks = unsafe { MarkBitmap::snapshot(&snapshot) };
        marks.forget_count();
        for &bd in &snapshot {
            // Minor GCs leave the space where it is (`snapshot` took the
            // flag off, as a major GC's marking wants it).
            // SAFETY: as above.
            unsafe { bd.get() }.insert_flags(BF_EVACUATED);
        }
        let megablocks = MegablockSet::of(&snapshot);
        let queue = MarkQueue::new(Snapshot { marks, megablocks }, ctx.heap.layout);
        let queue = match remember {
            Some(slots) => queue.remembering(slots),
            None => queue,
        };
        queue.push(self.roots.iter().chain(self.stacks.values().flatten()).copied());
        if self.faults.hold_marker != HoldMarker::No {
            queue.hold();
        }
        self.events.push(CollectorEvent::MarkBegin);
        let marker = Marker::start(queue, ctx.sync_request.clone());
        let (held, faults) = (self.faults.hold_marker, self.faults);
        self.marking = Some(Marking { marker, started: Instant::now(), syncs: 0, snapshot_words, dead_large: Vec::new(), held, faults });
    }

    /// A sync during a marking: hand the marker the logs and let it go on,
    /// or end the marking and sweep (See Note [A concurrent backup trace]).
    /// `since`: how many of the logs kept were kept before this sync. The
    /// decrement thread is stopped.
    pub(super) fn marking_sync(&mut self, ctx: &mut GcContext<'_>, since: usize) {
        let Some(m) = self.marking.as_mut() else { return };
        let (logs, large, layout) = (&self.synced_logs, &self.large, ctx.heap.layout);
        // All the logs kept (a stop between GCs kept some too), but only
        // this sync's count as recorded.
        let faults = m.faults;
        // SAFETY: the world is stopped (a sync); the cards were marked
        // since the last pause, which cleared them.
        let cards = unsafe { large.take_marked_cards(layout) };
        // SAFETY: as above.
        let shadows = |queue: &MarkQueue| unsafe { unmarked_shadows(queue, large, &cards, layout, faults) };
        if marking_goes_on_with(&m.marker, &mut m.syncs, |queue| if faults.lose_deletions { 0 } else { grey_logged(queue, logs) - since + grey_all(queue, shadows(queue)) }) {
            return;
        }
        // SAFETY: the world is stopped, the collector held and the
        // decrement thread stopped (the caller's).
        unsafe { self.finish_marking(ctx) };
    }

    /// Drop the running marking before a backup trace in a pause: free
    /// the large objects that died meanwhile and make the snapshot plain
    /// blocks again (nothing else was freed).
    pub(super) fn drop_marking(&mut self, ctx: &mut GcContext<'_>) {
        let Some(m) = self.marking.take() else { return };
        drop(m.marker.join());
        let old = &ctx.heap.gens[ctx.heap.oldest()];
        for &bd in old.blocks.iter().chain(&old.large_objects) {
            unflag(bd);
        }
        let mut blocks = ctx.heap.blocks.lock();
        for bd in m.dead_large {
            blocks.free_group(bd);
        }
        self.events.push(CollectorEvent::MarkEnd { marked_objects: 0, marked_words: 0, concurrent: None });
    }

    /// End the marking in a sync: mark what is left, judge the old weak
    /// pointers, check the snapshot under `-DS`, and sweep.
    ///
    /// # Safety
    /// The world is stopped, the collector held and its decrement thread
    /// stopped.
    // SAFETY: the caller's contract.
    unsafe fn finish_marking(&mut self, ctx: &mut GcContext<'_>) {
        let m = self.marking.take().expect("a marking runs");
        // The sync that ends it handed it the logs and shadows just now.
        let queue = m.marker.join();
        let concurrent = ConcurrentPhase { cpu: queue.marker_cpu_seconds(), elapsed: m.started.elapsed().as_secs_f64() };
        let oldest = ctx.heap.oldest();
        let mut stack = Vec::new();
        // SAFETY: the caller's contract; the marker thread is gone.
        unsafe {
            queue.drain(&mut stack);
            judge_weaks(&queue, &mut ctx.heap.gens[oldest].weak_ptrs, ctx.caps, &mut stack);
        }
        let marked_objects = u32::try_from(queue.marked_objects()).unwrap_or(u32::MAX);
        self.events.push(CollectorEvent::MarkEnd { marked_objects, marked_words: queue.marked_words(), concurrent: Some(concurrent) });
        let marks = queue.marks;
        forget_dead_mut_list_entries(ctx.caps, oldest, &marks);
        if ctx.flags.sanity.is_on() {
            // SAFETY: the world is stopped and nothing is swept yet.
            let violations = unsafe { snapshot_violations(&marks, ctx, false) };
            assert!(violations.is_empty(), "heap sanity check failed at the end of an lxr backup trace: {} violation(s):\n  {}", violations.len(), violations.iter().take(20).cloned().collect::<Vec<_>>().join("\n  "));
        }
        // SAFETY: the caller's contract; the marking is complete.
        unsafe { self.sweep(&marks, m.snapshot_words, m.dead_large, ctx) };
    }

    /// Free what the marking did not reach (See Note [A concurrent backup
    /// trace]), and judge every block of the snapshot again by its marks.
    ///
    /// # Safety
    /// The world is stopped, the decrement thread stopped, and `marks` the
    /// complete marks of the snapshot.
    // SAFETY: the caller's contract.
    unsafe fn sweep(&mut self, marks: &MarkBitmap, snapshot_words: usize, dead_large: Vec<BlockPtr>, ctx: &mut GcContext<'_>) {
        let oldest = ctx.heap.oldest();
        let old = &ctx.heap.gens[oldest];
        let blocks: Vec<BlockPtr> = old.blocks.iter().copied().filter(|&bd| in_snapshot(bd)).collect();
        // SAFETY: a large object of the snapshot heads its group.
        let unreached_large: Vec<*mut Word> = old.large_objects.iter().filter(|&&bd| in_snapshot(bd)).map(|&bd| unsafe { bd.read() }.start).filter(|&p| !marks.is_marked(p)).collect();
        self.events.push(CollectorEvent::SweepBegin);
        // What waits to be lowered on an object freed now is dropped: it
        // is gone, and its words may soon be another's. (Pending values
        // are counted objects, intact or zeroed.)
        // SAFETY: as above.
        let gone = |v: Word| unsafe { v != 0 && (load_header(v as *const Word) == 0 || !survives(marks, v as *const Word)) };
        self.decrements.waiting.retain(|&v| !gone(v));
        self.stacks.retain(|&stack, _| !gone(stack as Word));
        let mut judged: Vec<(BlockPtr, LiveMap)> = blocks.iter().map(|&bd| (bd, marks.bits(bd))).collect();
        for (bd, bits) in &judged {
            // SAFETY: a block of the space, with its table.
            if let Some(t) = side_table_of(unsafe { bd.read() }.start) {
                t.keep_counts_of(bits);
            }
        }
        for &bd in old.blocks.iter().chain(&old.large_objects) {
            unflag(bd);
        }
        // SAFETY: the world is stopped; the mutable lists hold live old
        // objects, zeroed ones, or the large ones freed here.
        unsafe { crate::rc_aging::forget_dead(ctx.caps, oldest, &unreached_large) };
        let gclab_core::heap::Heap { gens, blocks: allocator, .. } = &mut *ctx.heap;
        let gen = &mut gens[oldest];
        // The snapshot blocks' words: their marked ones now (See Note
        // [The snapshot's words]).
        let marked: usize = judged.iter().map(|(_, bits)| live_words(bits)).sum();
        gen.n_words = gen.n_words - snapshot_words + marked;
        let mut allocator = allocator.lock();
        // SAFETY: the caller's contract: these large objects are dead.
        unsafe { self.large.free(&unreached_large, gen, &mut self.tables, &mut allocator) };
        for bd in dead_large {
            allocator.free_group(bd);
        }
        for &(bd, bits) in &judged {
            self.lines.recounted(bd, live_words(&bits));
        }
        let geometry = self.immix.parts(oldest).0.geometry();
        // SAFETY: the caller's contract: the marks are complete.
        unsafe { self.keep_chosen_blocks(&mut judged, geometry) };
        let (space, _) = self.immix.parts(oldest);
        // SAFETY: the caller's contract; no allocator runs now, and every
        // live object of the blocks is marked. The judging zeroes the
        // unreached objects' words.
        let (empty, _) = unsafe { space.rejudge(&judged, gen) };
        // SAFETY: as above.
        unsafe { self.free_empty(empty, gen, &mut allocator) };
        self.events.push(CollectorEvent::SweepEnd { swept_words: snapshot_words.saturating_sub(marked) });
    }
}

/// The words marked in a block's bits.
fn live_words(bits: &LiveMap) -> usize {
    bits.iter().map(|w| w.count_ones() as usize).sum()
}

/// Take block (or large object) `bd` out of the snapshot.
fn unflag(bd: BlockPtr) {
    // SAFETY: a block of the space, whose descriptor the GC holds.
    let d = unsafe { bd.get() };
    if d.has(BF_MARK_IN_PLACE) {
        d.remove_flags(BF_MARK_IN_PLACE);
        d.aux = 0;
    }
}

/// The values the shadows of the big objects' marked cards `cards` hold
/// that `queue`'s marker has not marked yet (See Note [Every value a
/// written card held]).
///
/// # Safety
/// The world is stopped; `cards` were taken since the last pause.
// SAFETY: the caller's contract.
unsafe fn unmarked_shadows(queue: &MarkQueue, large: &LargeCounts, cards: &[MarkedCard], layout: Layout, faults: Faults) -> Vec<Word> {
    // SAFETY: the caller's contract.
    let mut held = unsafe { if faults.net_shadows { large.overwritten(cards, layout) } else { large.shadowed(cards) } };
    // SAFETY: a shadow holds counted values: objects of the space, live
    // or zeroed, whose blocks are in use while the marking runs.
    held.retain(|&v| unsafe { queue.unmarked_in_snapshot(v) });
    held
}

/// Hand the marker `values`; how many.
fn grey_all(queue: &MarkQueue, values: Vec<Word>) -> usize {
    let n = values.len();
    queue.push(values);
    n
}

/// Hand the marker the counted old values of the field logs taken at the
/// syncs of this epoch (the first store per field: See Note [A concurrent
/// backup trace]), which stay for the next RC pause; how many.
fn grey_logged(queue: &MarkQueue, logs: &[FieldLog]) -> usize {
    // SAFETY: the world is stopped; a logged old value was an object
    // address when the epoch began, and nothing moved it since (no GC
    // ran), or it is a young object's, which `counted` rules out.
    queue.push(logs.iter().map(|e| e.old).filter(|&v| unsafe { counted(v) }.is_some()));
    logs.len()
}
