//! Decrements beside the mutators: the threads (one unless `lxr:dthreads`
//! says more) that lower the counts an RC pause leaves to lower, find the
//! objects whose counts fall to zero and zero them where they lie, while
//! the mutators run (LXR's concurrent decrements; See Note [Decrements
//! beside the mutators] and Note [Decrements on several threads]).
//!
//! Invariant kept: the threads touch only counts (atomic words of side
//! tables, which no one detaches while they run) and the words of objects
//! found dead, each by the one thread that took its count to zero, which
//! nothing else reads or writes; they are stopped and joined before
//! anything else reads either (the next pause, a walk of the heap between
//! GCs, the collector's end).

use crate::large_counts::is_large;
use crate::concurrent_mark::MarkQueue;
use crate::ref_count::{counted, counted_fields, decrement, Tally};
use crate::lazy_lines::add_words_by_block;
use crate::lend_core::{wait_lending, Borrower, Loan};
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::Word;
use gclab_core::object::{info_of_header, load_header, Layout};
use gclab_core::process_usage::thread_cpu_seconds;
use gclab_core::ConcurrentPhase;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

// Note [Decrements beside the mutators]
// ----------------------------------------
// An RC pause must raise counts (a young object promoted, a field
// logged) before the mutators run again, but lowering them can wait:
// an object whose count is above zero only because a decrement is
// pending is unreachable if that decrement was its last reference, and
// stays so, since the mutators can reach only what the pause counted
// (their roots, the young objects' references, the fields of live old
// objects). So the pause hands the decrements to a thread of the
// collector, started when the world restarts (after the sanity checker
// and any census have read the heap) and stopped at the start of the next
// pause, which then does what needs the world stopped: judging the
// blocks where objects died, freeing the empty ones and dead large
// objects, taking the dead off the mutable lists (`Lxr::settle`).
//
// The thread writes only counts and dead objects' words. Counts are
// atomic words of side tables, which only a pause attaches or detaches;
// the mutators' barrier sets and clears log bits in the same tables,
// never counts. The thread zeroes dead small objects as it finds them
// and adds their words up by block (`Deaths`: the pause needs only the
// totals); dead large objects are left whole for the pause, which frees
// their groups.
//
// The next pause does not wait for the thread to finish: it raises a
// flag (and lends the threads its core if they are slow to come: See
// Note [A waiting pause lends its core] in `parking`), the thread stops
// at its next check (every `lxr:batch=N`
// decrements, 4096 by default) and hands back what it had not lowered, which waits for
// the next thread, on top of the next pause's work (safe for the reason
// of Note [Decrements wait] in `ref_count`: a count with a decrement
// pending is above zero, so the object stays). Without the flag a pause
// that came while a big structure was being lowered waited for all of
// it: binary-trees 20's longest RC pause was 194 to 220 ms, against 10
// to 13 ms with the decrements in the pauses (`concurrent=0`, at most
// `decrements=N` counts a pause); with the flag, 6.5 to 11 ms over the
// sweep of `experiments/lxr.toml` (8.2 to 10.9 in the pauses). The work
// that waits must hold only counted values (See `ref_count::decrement`):
// a young one would be moved by the next pause's minor GC.
//
// The cost: the thread runs only between pauses, so a run whose pauses
// take most of its time leaves it behind, and the decrements that wait
// keep their garbage until they are done or a backup trace drops them.
// binary-trees 20 (pauses 70% of the run) held 197 MiB where
// `concurrent=0` holds 100, and ran 10 backup traces against 6. Under
// `help=1` a pause that finds the last thread stopped with work left
// lowers up to `decrements=N` counts itself before it hands the rest on:
// binary-trees 20 then holds 101 MiB with 6 backup traces (three runs:
// total 9.1 to 9.4 s, against the sweep's 10.3 without help and 8.6
// under `concurrent=0`), but the pauses that help are as long as
// `concurrent=0`'s (hash's longest minor pause 49 to 51 ms, against 34
// without help; fibheaps 16 to 18 against 10).
// LXR's aim is short pauses, so help is off by default.
//
// A walk of the heap between GCs (`Gc.stat`, a sanity check the program
// asks for) stops the thread too (`Collector::world_stopped`).

/// What a decrement thread did: the objects it found dead, the
/// evaluation stacks it was lent (less the dead ones), its tally, and
/// the work it was stopped before.
#[derive(Debug, Default)]
pub struct Lowered {
    /// The objects it found dead.
    pub deaths: Deaths,
    /// The evaluation stacks of the space and their kept slots (See Note
    /// [Stacks are counted by difference] in `ref_count`).
    pub stacks: HashMap<usize, Vec<Word>>,
    /// The counts it lowered, and what it freed.
    pub tally: Tally,
    /// Values it was stopped before lowering (See Note [Decrements
    /// beside the mutators]).
    pub left: Vec<Word>,
    /// Its CPU and wall-clock time.
    pub phase: ConcurrentPhase,
}

// Note [Decrements on several threads]
// ----------------------------------------
// LXR lowers its counts on all of its GC threads; one thread beside the
// mutators falls behind wherever the pauses take much of the run (See
// Note [Decrements beside the mutators]). With `lxr:dthreads=N` the
// decrements are lowered by N threads at once. What makes that safe:
//
// - A count is lowered by one atomic compare-and-swap that fails on a
//   stuck or zero count (`SideTable::decrement`), so of the threads that
//   lower one object's count exactly one takes it to zero, and only that
//   one reads the dead object's fields, pushes them, and zeroes its
//   words. (The single thread used to read the count first and lower it
//   after: two steps, which two threads could both see reach zero.)
// - The dead stacks' kept slots are behind a lock, taken only when a
//   dead object has no counted fields.
// - Each thread keeps its own tally and deaths, added up when they are
//   joined; the pause reclaims them as it did one thread's.
//
// Work is shared in packets: the initial work is dealt out in equal
// parts, and a thread that finds another waiting, when it looks at the
// stop flag, gives half of its work to a shared pool (if it has at
// least `MIN_SHARED_WORK` values). A thread that runs out takes a packet
// from the pool, or waits; when every thread waits and the pool is
// empty, the work is done. The stop flag of the next pause ends every
// thread at its next check; what each had left, and what the pool held,
// wait for the next threads.
//
// The threads are started once, at the first pause that hands work on,
// and kept for the collector's life: each pause's end hands them a
// round of work (a lock and a wake-up), and the next pause's start
// collects what each did. Started anew at every pause, as the one thread
// was, N threads would cost N thread starts a pause, and binary-trees 20
// has about 7,000 pauses. (Measured on sixteen cores both ways, in
// docs/lxr.md: the decrements' elapsed time falls with more threads
// either way; whether the totals do is within those runs' noise.)

// Note [Work that waits is not copied]
// ----------------------------------------
// When the threads fall behind, what they had not lowered waits for the
// next round (See Note [Decrements beside the mutators]): on
// `large-arrays 100 2000000`, whose dead pointer arrays hand over 250,000
// elements each, millions of values. That work used to be copied three or
// four times a pause: each thread's leftovers appended into one list at
// the join, that list appended to the pause's own decrements, and a
// packet handed between threads drained from the front, moving the rest
// down. `memmove` was then the largest entry of the run's profile (24%),
// and the run took 12.4 s against copying's 0.9 s. Now lists are joined
// by copying the shorter into the longer (`gather`: the order of the
// decrements does not matter, Note [Decrements wait] in `ref_count`), and
// a packet is the older half with the newer half copied out: the same
// run 5.9 s (medians of 3 alternated rounds, 2-core machine), its longest
// pause 73.5 to 32.6 ms; binary-trees 20 and hash unchanged. What is
// still copied is the split of the work between the threads at the start
// of a round (half of it, with two threads).

/// The decrement threads of an `lxr` collector, kept from pause to pause
/// once the first round starts them.
#[derive(Debug)]
pub struct DecrementThread {
    threads: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
    /// How many counts a thread lowers between two looks at `stop`.
    batch: u64,
    /// A round was handed out and not yet joined.
    running: bool,
}

/// What the decrement threads share.
#[derive(Debug, Default)]
struct Shared {
    /// How many threads lower the counts.
    threads: usize,
    /// The round under way is to end (the next pause has come).
    stop: AtomicBool,
    /// Threads waiting for work, for a thread with much to hand some out.
    waiting: AtomicUsize,
    pool: Mutex<Pool>,
    /// Wakes the threads that wait for a round: one handed out, or the
    /// collector's end.
    round_start: Condvar,
    /// Wakes the threads that wait for a packet: one handed over, the
    /// work done, or the round stopped.
    wake: Condvar,
    /// Wakes the joining pause: a thread finished its round.
    finished: Condvar,
    /// The threads, for a joining pause to lend its core to (See Note [A
    /// waiting pause lends its core] in `parking`).
    borrowers: Vec<Borrower>,
    /// The evaluation stacks of the space and their kept slots.
    stacks: Mutex<HashMap<usize, Vec<Word>>>,
}

/// A round's work and results, and the packets handed between threads.
#[derive(Debug, Default)]
struct Pool {
    /// Counts the rounds handed out; a thread waits for the next one.
    round: u64,
    /// The round's object layout, when it was handed out, and each
    /// thread's part of its work.
    layout: Option<Layout>,
    started: Option<std::time::Instant>,
    /// A backup trace's marker, which is handed what the objects that die
    /// in the round held (See Note [What dies under a backup trace] in
    /// `lxr::concurrent_trace`).
    marker: Option<Arc<MarkQueue>>,
    parts: Vec<Vec<Word>>,
    packets: Vec<Vec<Word>>,
    /// Threads with no work, waiting for a packet.
    idle: usize,
    /// All threads were idle with no packet left: the work is done.
    done: bool,
    /// What the threads that finished the round did.
    results: Vec<Lowered>,
    /// The collector is going: the threads end.
    quit: bool,
}

impl DecrementThread {
    /// No threads yet; `count` of them will lower the counts, each looking
    /// at its stop flag every `batch` decrements.
    pub fn new(batch: u64, count: usize) -> DecrementThread {
        assert!(count > 0, "at least one decrement thread");
        let borrowers = (0..count).map(|_| Borrower::default()).collect();
        DecrementThread { threads: Vec::new(), shared: Arc::new(Shared { threads: count, borrowers, ..Shared::default() }), batch, running: false }
    }

    /// Start lowering `work` (values whose counts include them) beside the
    /// mutators; `stacks` are lent to the threads, as a dead stack's kept
    /// slots join the work.
    ///
    /// # Safety
    /// Every value of `work` is an object address (or 0) whose count
    /// includes it; until `join`, nothing but these threads reads or
    /// writes counts, attaches or detaches side tables, or reads the
    /// objects whose counts fall to zero.
    // SAFETY: the caller's contract.
    pub unsafe fn start(&mut self, layout: Layout, mut work: Vec<Word>, stacks: HashMap<usize, Vec<Word>>, marker: Option<Arc<MarkQueue>>) {
        assert!(!self.running, "one round of decrements at a time");
        if self.threads.is_empty() {
            self.spawn();
        }
        let n = self.shared.threads;
        *self.shared.stacks.lock().unwrap_or_else(|e| e.into_inner()) = stacks;
        self.shared.stop.store(false, Ordering::Relaxed);
        // The tails are split off, so that one thread takes the work as it
        // is, with no copy.
        let share = work.len().div_ceil(n);
        let mut parts: Vec<Vec<Word>> = (1..n).map(|_| work.split_off(work.len().saturating_sub(share))).collect();
        parts.push(work);
        let mut pool = self.shared.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.round += 1;
        (pool.layout, pool.started, pool.parts, pool.done, pool.marker) = (Some(layout), Some(std::time::Instant::now()), parts, false, marker);
        self.shared.round_start.notify_all();
        self.running = true;
    }

    /// Start the threads, which wait for rounds.
    fn spawn(&mut self) {
        for k in 0..self.shared.threads {
            let (shared, batch) = (Arc::clone(&self.shared), self.batch);
            let thread = std::thread::Builder::new()
                .name(format!("gclab-decrements-{k}"))
                // SAFETY: each round is handed out by `start`, under its
                // caller's contract (See Note [Decrements on several
                // threads]).
                .spawn(move || unsafe { serve(k, batch, &shared) })
                .expect("start a decrement thread");
            self.threads.push(thread);
        }
    }

    /// Stop the round, if one runs, and take what the threads did and
    /// what they left.
    pub fn join(&mut self) -> Option<Lowered> {
        if !self.running {
            return None;
        }
        self.running = false;
        self.shared.stop.store(true, Ordering::Relaxed);
        let pool = self.shared.pool.lock().unwrap_or_else(|e| e.into_inner());
        self.shared.wake.notify_all();
        // A thread that the kernel left queued on a busy core would hold
        // the pause for its slice: See Note [A waiting pause lends its
        // core] in `parking`. The threads run until the collector goes, so
        // their ids are theirs while a round is joined.
        let threads = self.shared.threads;
        let (mut pool, loans) = wait_lending(&self.shared.finished, pool, &self.shared.borrowers, "a decrement thread", |p| p.results.len() < threads);
        loans.into_iter().for_each(Loan::give_back);
        let mut all = Lowered::default();
        for one in pool.results.drain(..) {
            all.deaths.take(one.deaths);
            all.tally.add(one.tally);
            gather(&mut all.left, one.left);
            // CPU is every thread's; wall-clock time, the last one's.
            all.phase.cpu += one.phase.cpu;
            all.phase.elapsed = all.phase.elapsed.max(one.phase.elapsed);
        }
        for packet in pool.packets.drain(..) {
            gather(&mut all.left, packet);
        }
        pool.marker = None;
        drop(pool);
        all.stacks = std::mem::take(&mut *self.shared.stacks.lock().unwrap_or_else(|e| e.into_inner()));
        Some(all)
    }
}

impl Drop for DecrementThread {
    fn drop(&mut self) {
        // The heap outlives the collector (the runtime drops the collector
        // first), so the threads must be done before the collector goes.
        self.join();
        self.shared.pool.lock().unwrap_or_else(|e| e.into_inner()).quit = true;
        self.shared.round_start.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Decrement thread number `k`'s life: wait for a round, lower its part,
/// hand in what it did; until the collector goes.
///
/// # Safety
/// Each round is handed out under `DecrementThread::start`'s contract.
// SAFETY: the caller's contract.
unsafe fn serve(k: usize, batch: u64, shared: &Shared) {
    shared.borrowers[k].here();
    let mut seen = 0;
    loop {
        let (layout, part, started, marker) = {
            let mut pool = shared.pool.lock().unwrap_or_else(|e| e.into_inner());
            while pool.round == seen && !pool.quit {
                pool = shared.round_start.wait(pool).unwrap_or_else(|e| e.into_inner());
            }
            if pool.quit {
                return;
            }
            seen = pool.round;
            let part = pool.parts.pop().unwrap_or_default();
            (pool.layout.expect("a round has a layout"), part, pool.started.expect("a round has a start"), pool.marker.clone())
        };
        // SAFETY: the round's contract.
        let one = unsafe { lower(layout, part, batch, shared, started, marker.as_deref()) };
        // Before the result is handed in: the collector then owns the
        // marker's queue alone once it has joined the round.
        drop(marker);
        let mut pool = shared.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.results.push(one);
        shared.finished.notify_one();
    }
}

/// One decrement thread's run: lower `work`, and packets from the pool,
/// until all the work is done or the stop flag is raised (See Note
/// [Decrements on several threads]); its wall-clock time runs from
/// `started`, when the threads were started.
///
/// # Safety
/// As for `DecrementThread::start`.
// SAFETY: the caller's contract.
unsafe fn lower(layout: Layout, mut work: Vec<Word>, batch: u64, shared: &Shared, started: std::time::Instant, marker: Option<&MarkQueue>) -> Lowered {
    let cpu = thread_cpu_seconds();
    let (mut tally, mut deaths) = (Tally::default(), Deaths::default());
    let mut dead_stack = |v: usize| shared.stacks.lock().unwrap_or_else(|e| e.into_inner()).remove(&v);
    loop {
        while !work.is_empty() && !shared.stop.load(Ordering::Relaxed) {
            // SAFETY: the caller's contract.
            let dead = unsafe { decrement_under(marker, layout, &mut work, batch, &mut dead_stack, &mut tally) };
            // SAFETY: as above: the dead are this thread's alone.
            unsafe { deaths.add(&dead, layout) };
            if work.len() >= MIN_SHARED_WORK && shared.waiting.load(Ordering::Relaxed) > 0 {
                give_half(&mut work, shared);
            }
        }
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        match take_packet(shared) {
            Some(packet) => work = packet,
            None => break,
        }
    }
    let phase = ConcurrentPhase { cpu: thread_cpu_seconds() - cpu, elapsed: started.elapsed().as_secs_f64() };
    Lowered { deaths, stacks: HashMap::new(), tally, left: work, phase }
}

/// Add the values of `more` to the work `into`, copying the shorter of the
/// two: the work left waiting can be millions of values (a dead array's
/// elements, when the threads fall behind), and copying it at every pause
/// and every join was most of `large-arrays`' run (See Note [Work that
/// waits is not copied]). The order of the values does not matter: each is
/// a decrement its count includes (Note [Decrements wait] in `ref_count`).
pub fn gather(into: &mut Vec<Word>, mut more: Vec<Word>) {
    if more.len() > into.len() {
        std::mem::swap(into, &mut more);
    }
    into.append(&mut more);
}

/// A thread with at least this much work hands half of it to one that
/// waits: the work is a depth-first stack, so a dying tree of any size
/// leaves only about two values a level on it, and its older half holds
/// the biggest subtrees (binary-trees 20's: never 2 batches long).
const MIN_SHARED_WORK: usize = 16;

/// Hand the older half of `work` to the pool, for a waiting thread (the
/// newer half copied out, rather than the older drained and the rest
/// moved down).
fn give_half(work: &mut Vec<Word>, shared: &Shared) {
    let newer = work.split_off(work.len() / 2);
    let half = std::mem::replace(work, newer);
    let mut pool = shared.pool.lock().unwrap_or_else(|e| e.into_inner());
    pool.packets.push(half);
    shared.wake.notify_one();
}

/// A packet from the pool, waiting for one while other threads work;
/// None once every thread waits with the pool empty, or the stop flag is
/// raised.
fn take_packet(shared: &Shared) -> Option<Vec<Word>> {
    let mut pool = shared.pool.lock().unwrap_or_else(|e| e.into_inner());
    pool.idle += 1;
    shared.waiting.fetch_add(1, Ordering::Relaxed);
    let packet = loop {
        if let Some(p) = pool.packets.pop() {
            break Some(p);
        }
        if pool.done || shared.stop.load(Ordering::Relaxed) {
            break None;
        }
        if pool.idle == shared.threads {
            pool.done = true;
            shared.wake.notify_all();
            break None;
        }
        pool = shared.wake.wait(pool).unwrap_or_else(|e| e.into_inner());
    };
    pool.idle -= 1;
    shared.waiting.fetch_sub(1, Ordering::Relaxed);
    packet
}

/// Objects whose counts fell to zero, ready to be reclaimed: the large
/// ones left whole (their groups are freed in a pause), the small ones
/// zeroed where they lie (walkers then see free words, never an object
/// whose fields point at freed memory) and their words added up by block
/// (the pause judges the blocks again: See Note [Lines are reclaimed
/// lazily] in `lazy_lines`).
#[derive(Debug, Default)]
pub struct Deaths {
    /// The large objects.
    pub large: Vec<Word>,
    /// Each block's words of small objects.
    pub blocks: HashMap<BlockPtr, usize>,
    /// How many small objects.
    pub small: u64,
}

impl Deaths {
    /// Take in the objects `dead`: zero the small ones where they lie.
    /// Done as they are found, so that a thread asked to stop has at most
    /// one batch to zero.
    ///
    /// # Safety
    /// Each object of `dead` is intact and nobody's: unreachable, and read
    /// by nothing else until the caller is done.
    // SAFETY: the caller's contract.
    pub unsafe fn add(&mut self, dead: &[*mut Word], layout: Layout) {
        let mut small = Vec::with_capacity(dead.len());
        for &p in dead {
            // SAFETY: a dead object's block descriptor is live.
            if unsafe { is_large(p) } {
                self.large.push(p as Word);
                continue;
            }
            // SAFETY: the caller's contract.
            let size = unsafe { layout.size_of(p, info_of_header(load_header(p))) };
            // SAFETY: as above: the object's words are nobody's now but a
            // backup trace's marker's, which reads them atomically.
            unsafe { zero_under_marker(p, size) };
            small.push((p, size));
        }
        self.small += small.len() as u64;
        add_words_by_block(&mut self.blocks, small);
    }

    /// Take in what another thread found dead.
    pub fn take(&mut self, other: Deaths) {
        self.large.extend(other.large);
        for (bd, words) in other.blocks {
            *self.blocks.entry(bd).or_insert(0) += words;
        }
        self.small += other.small;
    }

    /// How many objects died.
    pub fn objects(&self) -> u64 {
        self.small + self.large.len() as u64
    }
}

/// `ref_count::decrement`, handing `marker` (a backup trace's, if one
/// runs) what the objects found dead held, before they are zeroed (See
/// Note [What dies under a backup trace] in `lxr::concurrent_trace`).
///
/// # Safety
/// As for `decrement`.
// SAFETY: the caller's contract.
pub unsafe fn decrement_under(marker: Option<&MarkQueue>, layout: Layout, work: &mut Vec<Word>, budget: u64, dead_stack: &mut dyn FnMut(usize) -> Option<Vec<Word>>, tally: &mut Tally) -> Vec<*mut Word> {
    let Some(queue) = marker else {
        // SAFETY: the caller's contract.
        return unsafe { decrement(layout, work, budget, dead_stack, tally) };
    };
    let mut greying_stack = |v: usize| {
        let kept = dead_stack(v);
        if let Some(values) = &kept {
            queue.push(values.iter().copied());
        }
        kept
    };
    // SAFETY: the caller's contract.
    let dead = unsafe { decrement(layout, work, budget, &mut greying_stack, tally) };
    // What the dead held that is counted, before `Deaths::add` zeroes them.
    let held = dead.iter().flat_map(|&p| {
        // SAFETY: a dead object is intact until it is zeroed.
        let (slots, n) = unsafe { counted_fields(layout, p) };
        // SAFETY: the slots lie in the object.
        (0..n).map(move |k| unsafe { *slots.add(k) })
    });
    // SAFETY: a counted field holds an object address.
    queue.push(held.filter(|&v| unsafe { counted(v) }.is_some()));
    dead
}

/// Zero the `size` words of the dead object at `p`, its header first, one
/// atomic store a word: a concurrent backup trace's marker may be reading
/// it (See Note [Objects that die under the marker] in `concurrent_mark`).
///
/// # Safety
/// The object is dead: nothing but a marker reads it, and nothing writes it.
// SAFETY: the caller's contract; each word is an aligned word of the object.
pub unsafe fn zero_under_marker(p: *mut Word, size: usize) {
    for i in 0..size {
        // SAFETY: the caller's contract.
        unsafe { AtomicUsize::from_ptr(p.add(i)).store(0, Ordering::Relaxed) };
    }
}
