//! Decrements beside the mutators: the thread that lowers the counts an
//! RC pause leaves to lower, finds the objects whose counts fall to zero
//! and zeroes them where they lie, while the mutators run (LXR's
//! concurrent decrements; See Note [Decrements beside the mutators]).
//!
//! Invariant kept: the thread touches only counts (atomic words of side
//! tables, which no one detaches while it runs) and the words of objects
//! found dead, which nothing else reads or writes; it is stopped and
//! joined before anything else reads either (the next pause, a walk of
//! the heap between GCs, the collector's end).

use crate::large_counts::is_large;
use crate::ref_count::{decrement, Tally};
use crate::lazy_lines::add_words_by_block;
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::Word;
use gclab_core::object::{info_of_header, load_header, Layout};
use gclab_core::stats::thread_cpu_seconds;
use gclab_core::ConcurrentPhase;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
// flag, the thread stops at its next check (every `lxr:batch=N`
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

/// The decrement thread of an `lxr` collector, if one is running.
#[derive(Debug)]
pub struct DecrementThread {
    thread: Option<JoinHandle<Lowered>>,
    stop: Arc<AtomicBool>,
    /// How many counts it lowers between two looks at `stop`.
    batch: u64,
}

impl DecrementThread {
    /// No thread yet; each will look at its stop flag every `batch`
    /// decrements.
    pub fn new(batch: u64) -> DecrementThread {
        DecrementThread { thread: None, stop: Arc::new(AtomicBool::new(false)), batch }
    }

    /// Start lowering `work` (values whose counts include them) beside the
    /// mutators; `stacks` are lent to it, as a dead stack's kept slots
    /// join the work.
    ///
    /// # Safety
    /// Every value of `work` is an object address (or 0) whose count
    /// includes it; until `join`, nothing but this thread reads or writes
    /// counts, attaches or detaches side tables, or reads the objects whose
    /// counts fall to zero.
    // SAFETY: the caller's contract.
    pub unsafe fn start(&mut self, layout: Layout, work: Vec<Word>, stacks: HashMap<usize, Vec<Word>>) {
        assert!(self.thread.is_none(), "one decrement thread at a time");
        self.stop.store(false, Ordering::Relaxed);
        let (stop, batch) = (Arc::clone(&self.stop), self.batch);
        let thread = std::thread::Builder::new()
            .name("gclab-decrements".into())
            .spawn(move || {
                let (started, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
                let (mut work, mut stacks, mut tally) = (work, stacks, Tally::default());
                let mut deaths = Deaths::default();
                while !work.is_empty() && !stop.load(Ordering::Relaxed) {
                    // SAFETY: the caller's contract.
                    let dead = unsafe { decrement(layout, &mut work, batch, &mut stacks, &mut tally) };
                    // SAFETY: as above: the dead are this thread's alone.
                    unsafe { deaths.add(&dead, layout) };
                }
                let phase = ConcurrentPhase { cpu: thread_cpu_seconds() - cpu, elapsed: started.elapsed().as_secs_f64() };
                Lowered { deaths, stacks, tally, left: work, phase }
            })
            .expect("start the decrement thread");
        self.thread = Some(thread);
    }

    /// Stop the thread, if one runs, and take what it did and what it
    /// left.
    pub fn join(&mut self) -> Option<Lowered> {
        let thread = self.thread.take()?;
        self.stop.store(true, Ordering::Relaxed);
        Some(thread.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    }
}

impl Drop for DecrementThread {
    fn drop(&mut self) {
        // The heap outlives the collector (the runtime drops the collector
        // first), so the thread must be done before the collector goes.
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
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
            // SAFETY: as above: the object's words are nobody's now.
            unsafe { std::ptr::write_bytes(p, 0, size) };
            small.push((p, size));
        }
        self.small += small.len() as u64;
        add_words_by_block(&mut self.blocks, small);
    }

    /// How many objects died.
    pub fn objects(&self) -> u64 {
        self.small + self.large.len() as u64
    }
}
