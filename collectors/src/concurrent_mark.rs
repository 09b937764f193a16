//! Concurrent marking: a thread that marks the objects of a snapshot of
//! the old generation while the mutators run (the nonmoving collector's
//! mark, GHC's `NonMovingMark.c`).
//!
//! The snapshot is the set of blocks (and large objects) flagged
//! `BF_MARK_IN_PLACE` and attached to the cycle's `MarkBitmap` when the
//! cycle began, or by the marker before it marks anything (See Note [The
//! marker attaches its snapshot] in `attach`). Marking an object sets its
//! bits and pushes it on the mark stack; scanning it greys every field
//! that points into the snapshot.
//! Pointers anywhere else (young generations, blocks cut since the
//! snapshot, static objects) are not followed: what lies outside the
//! snapshot is not judged by this cycle (See Note [The snapshot] in
//! `nonmoving`).
//!
//! The marker owns nothing but its stack and the mark bits. Work reaches
//! it through `MarkQueue::push` (the roots of the snapshot, the values the
//! mutators' barrier recorded), and it stops at a checkpoint between
//! objects whenever the collector asks (`pause`): every sync and every
//! major GC runs with the marker parked (See Note [Pausing the marker]);
//! young GCs run beside it (See Note [The marker runs through young
//! GCs]). When it runs out of work it says so and asks for a sync, at
//! which the collector flushes the barrier's records and either lets it
//! go on or finishes the marking in the pause.
//!
//! The same loop marks synchronously (`drain`), for the collector's
//! synchronous mode and for the end of marking inside a sync.
//!
//! Note [Pausing the marker]
//! ----------------------------------------
//! A sync hands the marker what the barrier recorded and may finish the
//! marking itself, and a major GC during a marking drops or finishes it.
//! So each of those first pauses the marker: it
//! parks at its next checkpoint (every `CHECK_EVERY` fields, a few
//! microseconds of work, a large array taken in pieces: See Note [A large
//! object is scanned in pieces]), and resumes when the world restarts. The cost is
//! that wait at the start of each sync. (Its stack holds only snapshot
//! objects, which never move, so no GC has to fix it.)
//!
//! Note [The marker runs through young GCs]
//! ----------------------------------------
//! GHC lets minor GCs run while its mark thread marks; `nonmoving` and
//! `concurrent-copying` do too. Parked through every young GC, a marking
//! of `nonmoving`'s took 54-90 ms for 15-19 ms of the marker's CPU on
//! binary-trees 19 (2 cores), the old
//! generation grew all that time (the policy's major GCs collect only
//! the young generations while a cycle runs), and every young GC first
//! waited for the marker to reach a checkpoint. What a young GC changes
//! under a marker beside it, and what keeps each safe:
//!
//! - Fields of snapshot objects that the GC rewrites (a mutable-list
//!   entry's young pointers, pointed at their copies): the GC stores them
//!   with `store_field`, as a mutator does, and the marker loads them
//!   atomically. Either value will do: the old one is a young object,
//!   which this cycle does not judge, the new one a copy promoted now.
//! - Young objects, forwarded or freed under it, with their blocks and
//!   megablocks: the marker asks whether an address is in the snapshot
//!   from the address first (`MegablockSet`: the megablocks of the
//!   snapshot's blocks, which stay mapped until the sweep), and reads a
//!   descriptor only in those megablocks and a header only of a snapshot
//!   block's object. The world-stopped `in_snapshot` reads the header to
//!   rule out static objects; the marker must not. A field it loaded
//!   before the GC stored it may name a young block that the GC is
//!   freeing or cutting afresh, whose flags it may then read as they are
//!   written (`load_flags`, one aligned word): no block but the
//!   snapshot's has `BF_MARK_IN_PLACE` while a cycle runs, so either
//!   value gives the same answer.
//! - Copies the GC promotes into the snapshot's free cells or holes: they
//!   are marked before they are written (`CellAllocator::alloc` marks a
//!   cell as it hands it out, and a run lent in a snapshot block is
//!   marked whole when it is lent: See Note [Runs in a snapshot block] in
//!   `cell_space`; a line space places each object in a snapshot block
//!   alone and marks it then), and the marker tests an object's mark
//!   before it reads its header. It reaches a copy only through a field
//!   the GC stored after marking it, with release order, which its
//!   acquiring load pairs with: so it finds the copy marked and never
//!   reads a copy in the making.
//! - Cores: a young GC whose threads take every core parks the marker
//!   first, as before (`Marker::make_room`). Run beside a parallel young
//!   GC on two cores (`-N2`, two GC threads), the marker took a core
//!   from a GC thread that the others then waited for: binary-trees 20's
//!   p99 pause went from 1.8 to 4.1 ms under `concurrent-copying`, and
//!   from 3.4 to 4.4 ms under `nonmoving`.
//! - A snapshot's count of the bits set (See Note [Live words counted as
//!   they are marked] in `line_sweeper`): the GC's threads add to its
//!   shards with a locked add, the marker to a counter of its own.
//!   (`nonmoving` drops the count: `MarkBitmap::forget_count`.)
//! - CPU time: a GC's counts only its own threads' clocks, so the
//!   marker's time beside it is counted once, in the concurrent phase
//!   (See Note [A GC's CPU time] in the runtime's `driver`).
//!
//! Measured on binary-trees 19 under `nonmoving` (2 cores, 5 alternated
//! rounds against the marker parked): a marking now lasts 23 ms on
//! average, peak RSS 155 MiB against 318, young GCs 0.89x (0.67-0.92),
//! total 0.94x; the major GCs that begin cycles come more often (their
//! time 12 -> 26 ms in all), since cycles end sooner.

use crate::evacuating::SlotsInto;
use crate::gc_workers::gc_threads_for;
use crate::mark::MarkBitmap;
use crate::megablock_set::MegablockSet;
use gclab_core::bdescr::{BlockDesc, BF_MARK_IN_PLACE};
use gclab_core::constants::Word;
use gclab_core::object::{info_of_header, load_field, load_header, Layout};
use gclab_core::flags::machine_cores;
use gclab_core::{RtsFlags, SyncRequest};
use gclab_core::process_usage::thread_cpu_seconds;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use crate::parking::Parking;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

/// Fields (and objects, one each) the marker scans between two looks at
/// the collector's wishes.
const CHECK_EVERY: usize = 256;

// Note [A large object is scanned in pieces]
// ----------------------------------------
// Every GC and sync waits for the marker to park (See Note [Pausing the
// marker]), so the work between two checkpoints is added to a pause. A
// budget of objects let one object be any size: lru 500000's table is one
// array of half a million fields, and a pause that came while the marker
// scanned it waited 1-3 ms for it (a young GC that copies in 1 ms took 5),
// which made the marker's wait the longest part of the longest pauses of
// `nonmoving` and `concurrent-copying`. So the budget counts fields, and
// an object with more fields than the budget left is scanned in pieces:
// the marker keeps the one object it is part-way through (`Partial`) and
// goes on with it after the checkpoint, as GHC's nonmoving mark queue
// pushes an array's remaining chunk (`MARK_ARRAY`). The object is a
// snapshot object, which never moves or dies while the cycle runs, and
// its fields written meanwhile are the barrier's to record, as for any
// field the marker has not read yet. A stack's live slots may shrink or
// grow between two pieces (the values it pops are recorded by
// `barrier::pop_stack`, and those it pushes were reachable or are new),
// so the next piece takes the slots live then. Handed back part-scanned (the thread
// told to end), it is scanned again whole by the final drain: greying is
// idempotent. The budget stays small: at 4096 fields (about 1,400 tree
// nodes, each a likely cache miss) binary-trees 20's longest pause under
// `concurrent-copying` grew from 5.3 to 6.8 ms (medians of 5 alternated
// runs, 2-core machine); at 256 it reads 6.1 against 5.6, within the
// runs' spread (See Note [A thread parks only when it runs] in `parking`).

// Note [Objects that die under the marker]
// ----------------------------------------
// `lxr` frees objects by their counts while its backup trace marks (See
// Note [A concurrent backup trace] in `lxr::concurrent_trace`): an object
// of the snapshot whose count falls to zero is zeroed where it lies, one
// atomic store a word, by a decrement thread beside the marker, after
// what it held was handed to the marker (See Note [What dies under a
// backup trace] there). Its words are not reused while the marking runs
// (the snapshot's blocks are judged again only at its end), so the marker
// may read a header of zero, or fields of zero, and nothing else it did
// not expect: a zero header is no object (not marked, not scanned), a
// zero field no pointer. `nonmoving` and `concurrent-copying` never free
// a snapshot object while they mark.

/// A large object the marker is part-way through: its next field.
struct Partial {
    object: *mut Word,
    next: usize,
}

/// Work handed to the marker.
#[derive(Debug, Default)]
struct Incoming {
    /// Values to grey (any object addresses).
    grey: Vec<Word>,
    /// Objects already marked, to scan (the snapshot's grey set).
    marked: Vec<usize>,
}

impl Incoming {
    fn is_empty(&self) -> bool {
        self.grey.is_empty() && self.marked.is_empty()
    }
}

/// What a cycle marks: its bitmap, to which the snapshot's blocks are
/// attached, and the megablocks that hold those blocks.
pub struct Snapshot {
    /// The bitmap, every snapshot block attached.
    pub marks: MarkBitmap,
    /// The megablocks of the snapshot's blocks and large objects.
    pub megablocks: MegablockSet,
}

/// The marking state of one cycle, shared by the collector and the marker
/// thread.
pub struct MarkQueue {
    /// The cycle's mark bits (the snapshot's blocks are attached).
    pub marks: MarkBitmap,
    /// The megablocks of the snapshot's blocks (See Note [The marker runs
    /// through young GCs]), once every block is attached.
    megablocks: OnceLock<MegablockSet>,
    /// The snapshot's blocks not attached yet, where the marker attaches
    /// them itself (See Note [The marker attaches its snapshot] in `attach`).
    attaching: Mutex<Option<Attaching>>,
    layout: Layout,
    /// Work handed in by the collector, not yet taken.
    incoming: Mutex<Incoming>,
    parking: Parking,
    /// Words and objects marked so far (for statistics).
    marked_words: AtomicUsize,
    marked_objects: AtomicUsize,
    /// The marker thread's CPU seconds (an `f64`'s bits), written when it
    /// ends.
    cpu_seconds: AtomicU64,
    /// Where the slots it scans that point into blocks to be evacuated
    /// are recorded, if a collector asked (See `remembering`).
    remember: Option<Arc<SlotsInto>>,
}

impl std::fmt::Debug for MarkQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MarkQueue").field("marked_objects", &self.marked_objects()).finish_non_exhaustive()
    }
}

/// Add `n` to a count that one thread adds to at a time (the marker, or
/// the collector before it starts or once it is gone: the GCs that run
/// beside it add nothing here), with a plain load and store, as the
/// bitmap's own count does (See Note [Live words counted as they are
/// marked] in `line_sweeper`). Two locked adds per marked object cost
/// the marker a fifth of its time: nonmoving on binary-trees 20, its CPU
/// 1.52-1.66 s with them, 1.24-1.28 s without (three runs each); peak
/// RSS 0.88x, the markings ending sooner (`scripts/ab -n 5`).
#[inline(always)]
fn add_alone(count: &AtomicUsize, n: usize) {
    count.store(count.load(Ordering::Relaxed) + n, Ordering::Relaxed);
}

impl MarkQueue {
    /// A queue for a cycle that marks `snapshot`.
    pub fn new(snapshot: Snapshot, layout: Layout) -> MarkQueue {
        MarkQueue::with(snapshot.marks, OnceLock::from(snapshot.megablocks), None, layout)
    }

    fn with(marks: MarkBitmap, megablocks: OnceLock<MegablockSet>, attaching: Option<Attaching>, layout: Layout) -> MarkQueue {
        MarkQueue {
            marks,
            megablocks,
            attaching: Mutex::new(attaching),
            layout,
            incoming: Mutex::new(Incoming::default()),
            parking: Parking::new("marker"),
            marked_words: AtomicUsize::new(0),
            marked_objects: AtomicUsize::new(0),
            cpu_seconds: AtomicU64::new(0),
            remember: None,
        }
    }

    /// Record into `slots` each field it scans that points into a block
    /// of the snapshot flagged `BF_EVACUATING` (`lxr`'s evacuation: See
    /// `evacuating`).
    pub fn remembering(self, slots: Arc<SlotsInto>) -> MarkQueue {
        MarkQueue { remember: Some(slots), ..self }
    }

    /// Hand the marker objects to grey (any addresses: those outside the
    /// snapshot are dropped when taken).
    pub fn push(&self, objects: impl IntoIterator<Item = Word>) {
        self.incoming.lock().expect("mark queue").grey.extend(objects);
    }

    /// Hand the marker snapshot objects that are marked already but not
    /// scanned (what the major GC marked in place and deferred).
    pub fn push_marked(&self, objects: impl IntoIterator<Item = *mut Word>) {
        let mut incoming = self.incoming.lock().expect("mark queue");
        let before = incoming.marked.len();
        incoming.marked.extend(objects.into_iter().map(|p| p as usize));
        self.marked_objects.fetch_add(incoming.marked.len() - before, Ordering::Relaxed);
    }

    /// Give back objects marked and counted but not scanned.
    fn hand_back(&self, objects: Vec<*mut Word>) {
        self.incoming.lock().expect("mark queue").marked.extend(objects.into_iter().map(|p| p as usize));
    }

    /// The object layout it marks with.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Words marked so far.
    pub fn marked_words(&self) -> usize {
        self.marked_words.load(Ordering::Relaxed)
    }

    /// Objects marked so far.
    pub fn marked_objects(&self) -> usize {
        self.marked_objects.load(Ordering::Relaxed)
    }

    /// CPU seconds the marker thread used (once it has ended).
    pub fn marker_cpu_seconds(&self) -> f64 {
        f64::from_bits(self.cpu_seconds.load(Ordering::Acquire))
    }

    /// Grey `v`, a field's value: mark it if it is an unmarked snapshot
    /// object, and push it to be scanned. Reads nothing of an object
    /// outside the snapshot, nor the header of a marked one (See Note [The
    /// marker runs through young GCs]).
    ///
    /// # Safety
    /// `v` is zero (slop of a thunk updated under the marker) or was an
    /// object address when its field was loaded.
    // SAFETY: the caller's contract.
    unsafe fn grey(&self, v: Word, stack: &mut Vec<*mut Word>) {
        let p = v as *mut Word;
        // SAFETY: the caller's contract.
        if !unsafe { self.unmarked_in_snapshot(v) } {
            return;
        }
        // See Note [Objects that die under the marker].
        let header = load_header(p);
        if header == 0 {
            return;
        }
        let size = self.layout.size_of(p, info_of_header(header));
        if self.marks.mark_by_marker(p, size) {
            add_alone(&self.marked_words, size);
            add_alone(&self.marked_objects, 1);
            stack.push(p);
        }
    }

    /// Is `v` (zero, or an address that was an object's when it was read)
    /// an object of the snapshot not marked yet? Reads no header (See
    /// Note [The marker runs through young GCs]).
    ///
    /// # Safety
    /// As for `grey`.
    // SAFETY: the caller's contract: an address in a megablock of the
    // snapshot has a live block descriptor.
    #[inline(always)]
    pub unsafe fn unmarked_in_snapshot(&self, v: Word) -> bool {
        // SAFETY: as above; the set holds only the snapshot's megablocks.
        v != 0 && self.in_snapshot_megablocks(v) && unsafe { BlockDesc::load_flags(BlockDesc::of(v as *mut Word)) } & BF_MARK_IN_PLACE != 0 && !self.marks.is_marked(v as *const Word)
    }

    /// Does `v` lie in a megablock of the snapshot (none before every
    /// block is attached)? Reads nothing at `v`.
    #[inline(always)]
    fn in_snapshot_megablocks(&self, v: Word) -> bool {
        self.megablocks.get().is_some_and(|m| m.holds(v))
    }

    /// Scan a marked object: grey what its fields point to.
    ///
    /// # Safety
    /// `p` is a marked snapshot object.
    // SAFETY: the caller's contract: a snapshot object never moves or dies while the cycle runs.
    unsafe fn scan(&self, p: *mut Word, stack: &mut Vec<*mut Word>) {
        self.scan_fields(p, 0, usize::MAX, stack);
    }

    /// Scan at most `most` of a marked object's fields, from field
    /// `from`: the fields scanned, and the field after them if the object
    /// has more (See Note [A large object is scanned in pieces]).
    ///
    /// # Safety
    /// As for `scan`.
    // SAFETY: the caller's contract.
    unsafe fn scan_fields(&self, p: *mut Word, from: usize, most: usize, stack: &mut Vec<*mut Word>) -> (usize, Option<usize>) {
        let header = load_header(p);
        if header == 0 {
            // Zeroed since it was marked: See Note [Objects that die under
            // the marker].
            return (0, None);
        }
        let info = info_of_header(header);
        let (slots, n) = self.layout.pointer_slots(p, info);
        // A stack's live slots may have shrunk since the last piece.
        let from = from.min(n);
        let end = n.min(from.saturating_add(most));
        for i in from..end {
            let v = load_field(slots.add(i));
            if let Some(r) = self.remember.as_ref().filter(|_| self.in_snapshot_megablocks(v)) {
                // SAFETY: an address in a megablock of the snapshot.
                unsafe { r.note(p, slots.add(i), v) };
            }
            self.grey(v, stack);
        }
        (end - from, (end < n).then_some(end))
    }

    /// Scan about `CHECK_EVERY` fields' worth: the part-scanned object
    /// first, then objects off the stack. What is left of an object the
    /// budget ran out in is left in `partial`.
    ///
    /// # Safety
    /// As for `scan`: every object on the stack and in `partial` is a
    /// marked snapshot object.
    // SAFETY: the caller's contract.
    unsafe fn scan_some(&self, stack: &mut Vec<*mut Word>, partial: &mut Option<Partial>) {
        let mut budget = CHECK_EVERY;
        while budget > 0 {
            let (object, from) = match partial.take() {
                Some(Partial { object, next }) => (object, next),
                None => match stack.pop() {
                    Some(p) => (p, 0),
                    None => return,
                },
            };
            // An object costs one, fields or not.
            budget -= 1;
            let (scanned, rest) = self.scan_fields(object, from, budget, stack);
            budget -= scanned;
            if let Some(next) = rest {
                *partial = Some(Partial { object, next });
                return;
            }
        }
    }

    /// Take the objects handed in and grey them.
    ///
    /// # Safety
    /// Every address handed in is valid: the roots, and the barrier's
    /// records, are snapshot objects, which never move or die while the
    /// cycle runs (See Note [Recorded values are filtered in the pause]
    /// in `nonmoving`), or, inside a pause, objects the world-stopped
    /// caller just read.
    // SAFETY: the caller's contract.
    unsafe fn take_incoming(&self, stack: &mut Vec<*mut Word>) {
        let incoming = std::mem::take(&mut *self.incoming.lock().expect("mark queue"));
        stack.extend(incoming.marked.into_iter().map(|p| p as *mut Word));
        for v in incoming.grey {
            self.grey(v, stack);
        }
    }

    /// Mark until nothing is left: what was handed in, and everything
    /// reachable from it in the snapshot. On the collector's own thread,
    /// with the marker thread parked or gone.
    ///
    /// # Safety
    /// The world is stopped and the marker thread is gone, or is the
    /// caller (it marks with `mark_by_marker`, one thread at a time).
    // SAFETY: the caller's contract.
    pub unsafe fn drain(&self, stack: &mut Vec<*mut Word>) {
        loop {
            self.take_incoming(stack);
            if stack.is_empty() {
                return;
            }
            while let Some(p) = stack.pop() {
                self.scan(p, stack);
            }
        }
    }

    /// The marker thread's loop (See the module doc).
    fn run(&self, request: &SyncRequest) {
        // The snapshot's blocks first: See Note [The marker attaches its
        // snapshot].
        loop {
            if !self.checkpoint() {
                return;
            }
            if !self.attach_some() {
                break;
            }
        }
        let mut stack = Vec::new();
        let mut partial = None;
        loop {
            if !self.checkpoint() {
                // Told to end, perhaps between two batches: what it marked
                // and has not scanned yet goes back to the queue, for the
                // collector's final drain. (Dropped, those objects' fields
                // went unmarked: the snapshot check caught it about once in
                // a hundred `full_major`s on a loaded machine.)
                stack.extend(partial.map(|p: Partial| p.object));
                self.hand_back(stack);
                return;
            }
            // SAFETY: running between GCs, the marker reads only what Note
            // [Fields a concurrent marker reads] in core's `object` allows.
            unsafe {
                if stack.is_empty() && partial.is_none() {
                    self.take_incoming(&mut stack);
                }
                self.scan_some(&mut stack, &mut partial);
            }
            if stack.is_empty() && partial.is_none() && self.incoming.lock().expect("mark queue").is_empty() {
                self.drained(request);
            }
        }
    }

    /// Park while the collector wants it; false when told to end.
    fn checkpoint(&self) -> bool {
        self.parking.checkpoint()
    }

    /// Out of work: ask for a sync (unless the collector is already
    /// pausing the marker, which it then finds drained).
    fn drained(&self, request: &SyncRequest) {
        self.parking.drained(request);
    }

    /// Park the marker at its next checkpoint and wait until it is (See
    /// Note [Pausing the marker]). True if it had run out of work.
    pub fn pause(&self) -> bool {
        self.parking.pause()
    }

    /// Let the marker go on (with whatever was handed in meanwhile).
    pub fn resume(&self) {
        self.parking.go();
    }

    /// Hold the marker, before it starts, until `pause` and `resume` let
    /// it go: it does nothing meanwhile (a test's schedule: `lxr`'s
    /// `GCLAB_LXR_HOLD_MARKER`).
    pub fn hold(&self) {
        self.parking.ask_pause();
    }

    /// Wait until the marker has run out of work (a test's schedule, as
    /// `hold`).
    pub fn wait_drained(&self) {
        self.parking.wait_drained();
    }
}

/// Is the object at `p` in the snapshot (a block or large object flagged
/// `BF_MARK_IN_PLACE`)? Static objects, and objects in blocks cut since
/// the snapshot, are not.
///
/// # Safety
/// `p` is a valid object address whose header may be read (See Note
/// [Fields a concurrent marker reads] in core's `object`).
// SAFETY: the caller's contract; a heap object's descriptor is live.
pub unsafe fn in_snapshot(p: *const Word) -> bool {
    !info_of_header(load_header(p)).is_static() && BlockDesc::load_flags(BlockDesc::of(p)) & BF_MARK_IN_PLACE != 0
}

/// Does the object at `p` survive the marking in `marks`: outside the
/// snapshot, or marked?
///
/// # Safety
/// As for `in_snapshot`.
// SAFETY: the caller's contract.
pub unsafe fn survives(marks: &MarkBitmap, p: *const Word) -> bool {
    !in_snapshot(p) || marks.is_marked(p)
}

/// A marker thread working on a `MarkQueue`.
pub struct Marker {
    /// The cycle's queue and marks.
    pub queue: Arc<MarkQueue>,
    thread: Option<JoinHandle<()>>,
    /// The machine's cores (See `make_room`).
    cores: usize,
}

/// The marker parked for one young GC (`Marker::make_room`): it goes on
/// when this is dropped, after the GC.
pub struct ParkedForGc(Arc<MarkQueue>);

impl Drop for ParkedForGc {
    fn drop(&mut self) {
        self.0.resume();
    }
}

impl Marker {
    /// Start marking `queue` on a thread of its own; it asks for a sync
    /// through `request` when it runs out of work.
    pub fn start(queue: MarkQueue, request: SyncRequest) -> Marker {
        let queue = Arc::new(queue);
        let q = queue.clone();
        let thread = std::thread::Builder::new()
            .name("gclab-marker".into())
            .spawn(move || {
                let _gone = q.parking.enter();
                q.run(&request);
                q.cpu_seconds.store(thread_cpu_seconds().to_bits(), Ordering::Release);
            })
            .expect("start the marker thread");
        Marker { queue, thread: Some(thread), cores: machine_cores() }
    }

    /// `start`, the marker parked before it does anything, until the
    /// collector lets it go (`MarkQueue::resume`): a marker that attaches
    /// its snapshot waits for the world to restart (See Note [The marker
    /// attaches its snapshot]).
    pub fn start_held(queue: MarkQueue, request: SyncRequest) -> Marker {
        queue.parking.hold();
        Marker::start(queue, request)
    }

    /// Before a young GC of generations `0..=collect_gen` under `flags`:
    /// park the marker if the GC's threads take every core, so that no GC
    /// thread waits for a core it holds (See Note [The marker runs through
    /// young GCs]). The caller keeps what it returns until the GC is done.
    pub fn make_room(&self, flags: &RtsFlags, collect_gen: usize) -> Option<ParkedForGc> {
        if gc_threads_for(flags, collect_gen) < self.cores {
            return None;
        }
        self.queue.pause();
        Some(ParkedForGc(self.queue.clone()))
    }

    /// End the thread (parked or not) and give back the queue, whose
    /// marks the collector then owns alone.
    pub fn join(self) -> MarkQueue {
        let queue = self.queue.clone();
        // Dropping the marker ends and joins its thread.
        drop(self);
        Arc::try_unwrap(queue).unwrap_or_else(|_| panic!("the marker thread is joined, so the queue has one owner"))
    }

    fn end_thread(&mut self) {
        self.queue.parking.end(&mut self.thread);
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        self.end_thread();
    }
}

mod attach;
use attach::Attaching;
#[cfg(all(test, not(loom)))]
use attach::ATTACH_EVERY;

#[cfg(all(test, not(loom)))]
mod tests;
