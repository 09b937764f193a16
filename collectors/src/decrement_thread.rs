//! Decrements beside the mutators: the thread that lowers the counts an
//! RC pause leaves to lower, finds the objects whose counts fall to zero
//! and zeroes them where they lie, while the mutators run (LXR's
//! concurrent decrements; See Note [Decrements beside the mutators]).
//!
//! Invariant kept: the thread touches only counts (atomic words of side
//! tables, which no one detaches while it runs) and the words of objects
//! found dead, which nothing else reads or writes; it is joined before
//! anything else reads either (the next pause, a walk of the heap between
//! GCs, the collector's end).

use crate::large_counts::is_large;
use crate::ref_count::{decrement, Tally};
use gclab_core::constants::Word;
use gclab_core::object::{info_of_header, load_header, Layout};
use std::collections::HashMap;
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
// and any census have read the heap) and joined at the start of the next
// pause, which then does what needs the world stopped: judging the
// blocks where objects died, freeing the empty ones and dead large
// objects, taking the dead off the mutable lists (`Lxr::settle`).
//
// The thread writes only counts and dead objects' words. Counts are
// atomic words of side tables, which only a pause attaches or detaches;
// the mutators' barrier sets and clears log bits in the same tables,
// never counts. Dead small objects are zeroed by the thread (the pause
// needs their sizes, so they are taken first); dead large objects are
// left whole for the pause, which frees their groups.
//
// A walk of the heap between GCs (`Gc.stat`, a sanity check the program
// asks for) joins the thread first (`Collector::world_stopped`). The
// alternative, `lxr:concurrent=0`, lowers at most `decrements=N` counts
// in each pause and keeps the rest for the next (See Note [Decrements
// wait] in `ref_count`).

/// What a decrement thread did: the objects it found dead, the
/// evaluation stacks it was lent (less the dead ones), its tally.
#[derive(Debug, Default)]
pub struct Lowered {
    /// Dead large objects, left whole.
    pub large: Vec<Word>,
    /// Dead small objects, zeroed, with their sizes in words.
    pub died: Vec<(Word, usize)>,
    /// The evaluation stacks of the space and their kept slots (See Note
    /// [Stacks are counted by difference] in `ref_count`).
    pub stacks: HashMap<usize, Vec<Word>>,
    /// The counts it lowered, and what it freed.
    pub tally: Tally,
}

/// The decrement thread of an `lxr` collector, if one is running.
#[derive(Debug, Default)]
pub struct DecrementThread {
    thread: Option<JoinHandle<Lowered>>,
}

impl DecrementThread {
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
        let thread = std::thread::Builder::new()
            .name("gclab-decrements".into())
            .spawn(move || {
                let (mut work, mut stacks, mut tally) = (work, stacks, Tally::default());
                // SAFETY: the caller's contract.
                let dead = unsafe { decrement(layout, &mut work, u64::MAX, &mut stacks, &mut tally) };
                // SAFETY: as above: the dead are this thread's alone.
                let (large, died) = unsafe { zero_dead(&dead, layout) };
                Lowered { large: large.into_iter().map(|p| p as Word).collect(), died: died.into_iter().map(|(p, n)| (p as Word, n)).collect(), stacks, tally }
            })
            .expect("start the decrement thread");
        self.thread = Some(thread);
    }

    /// Wait for the thread, if one runs, and take what it did.
    pub fn join(&mut self) -> Option<Lowered> {
        let thread = self.thread.take()?;
        Some(thread.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    }
}

impl Drop for DecrementThread {
    fn drop(&mut self) {
        // The heap outlives the collector (the runtime drops the collector
        // first), so the thread must be done before the collector goes.
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Zero the small objects of `dead` where they lie (walkers then see
/// free words, never an object whose fields point at freed memory);
/// the large ones, left whole, and the small ones with their sizes.
///
/// # Safety
/// Each object of `dead` is intact and nobody's: unreachable, and read by
/// nothing else until the caller is done.
// SAFETY: the caller's contract.
pub unsafe fn zero_dead(dead: &[*mut Word], layout: Layout) -> (Vec<*mut Word>, Vec<(*mut Word, usize)>) {
    let mut large = Vec::new();
    let mut died = Vec::with_capacity(dead.len());
    for &p in dead {
        // SAFETY: a dead object's block descriptor is live.
        if unsafe { is_large(p) } {
            large.push(p);
            continue;
        }
        // SAFETY: the caller's contract.
        let size = unsafe { layout.size_of(p, info_of_header(load_header(p))) };
        // SAFETY: as above: the object's words are nobody's now.
        unsafe { std::ptr::write_bytes(p, 0, size) };
        died.push((p, size));
    }
    (large, died)
}
