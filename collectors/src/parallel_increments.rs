//! Raising counts on the GC threads: the increments of an RC pause (the
//! fields of the objects it promoted, the fields the mutators wrote)
//! split among the collection's `-qn` threads, as LXR raises counts in
//! parallel in its pauses.
//!
//! Invariant kept: every object and every slot handed in is raised
//! exactly once, by whichever thread claims its chunk, whatever threads
//! come in; what the pause keeps of it (the tally, the weak pointers and
//! stacks met, each promoted object's size) is the same as one thread
//! doing it all.
//!
//! Note [Increments on several threads]
//! ----------------------------------------
//! A count is one atomic read-modify-write on the word of its side table
//! (core's Note [Side counts]), so two threads may raise counts of the
//! same object in any order, and an increment never needs to know what
//! another thread did: the increments of a pause are a bag of independent
//! updates. The work is cut into chunks of `CHUNK` objects or slots,
//! claimed from one counter. The leader (GC thread 0) claims until none
//! is left, so a pool thread that the OS wakes late (See Note [Late GC
//! threads] in `gc_workers`) finds nothing to do, and the pause never
//! waits for a thread that has not come in (`Arrival::Open`: the leader
//! cancels those not there when it is done).
//!
//! What a thread keeps of its own is merged after: its `Tally`, the weak
//! pointers it met (which get stuck counts), the stacks it promoted (whose
//! slots are counted as roots), and each promoted object's size, for the
//! lazy judging of lines. The decrements that follow stay on one thread
//! in the pause, or on the decrement thread beside the mutators: a
//! decrement that reaches zero frees and recurses, which needs the order
//! that LXR gets from a work list per thread with its own reclamation.
//!
//! Measured: see docs/lxr.md ("Increments on the GC threads").

use crate::gc_workers::{claim_chunk, run_shared, GcWorkers};
use crate::ref_count::{counted_fields, increment, Tally};
use gclab_core::constants::Word;
use gclab_core::info::ClosureType;
use gclab_core::object::{info_of_header, load_header, Layout};
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

/// Objects or slots a thread claims at a time: large enough that the
/// claims' counter is not a point of contention, small enough that two
/// threads share a pause of a few thousand promotions.
const CHUNK: usize = 256;

/// What an object that became old was, for what the pause does with it
/// beside raising its fields' counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OldKind {
    /// An evaluation stack: its slots are roots (See Note [Stacks are
    /// counted by difference] in `ref_count`).
    Stack,
    /// A weak pointer: its count sticks (See Note [What the counts
    /// count] in `ref_count`).
    Weak,
    /// Anything else.
    Other,
}

/// Raise the counts that the counted fields of `p` hold: `p` has just
/// become old. Its kind and its size in words.
///
/// # Safety
/// `p` is a live object of the space, whose block has a table; the GC
/// holds the heap.
// SAFETY: the caller's contract.
pub unsafe fn raise_fields(layout: Layout, p: *mut Word, tally: &mut Tally) -> (OldKind, usize) {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { load_header(p) });
    let kind = match info.closure_type {
        ClosureType::Stack => OldKind::Stack,
        ClosureType::Weak | ClosureType::DeadWeak => OldKind::Weak,
        _ => OldKind::Other,
    };
    // SAFETY: the caller's contract.
    let (slots, n) = unsafe { counted_fields(layout, p) };
    for k in 0..n {
        // SAFETY: the slot lies in the object; its value is an object.
        unsafe { increment(*slots.add(k), tally) };
    }
    // SAFETY: as above.
    (kind, unsafe { layout.size_of(p, info) })
}

/// What the threads raised, merged.
#[derive(Default)]
pub struct Raised {
    /// The counts raised, summed over the threads.
    pub tally: Tally,
    /// The weak pointers among the promoted objects.
    pub weaks: Vec<*mut Word>,
    /// The evaluation stacks among them.
    pub stacks: Vec<*mut Word>,
    /// Each promoted object with its size in words, in no order.
    pub sizes: Vec<(*mut Word, usize)>,
}

// SAFETY: a thread hands its part over once, when it is done with it;
// the addresses are the GC's, which holds the heap for the pause.
unsafe impl Send for Raised {}

impl Raised {
    fn absorb(&mut self, other: Raised) {
        self.tally.add(other.tally);
        self.weaks.extend(other.weaks);
        self.stacks.extend(other.stacks);
        self.sizes.extend(other.sizes);
    }
}

/// Addresses shared with the GC threads for the length of one pause.
struct Shared<'a> {
    promoted: &'a [*mut Word],
    slots: &'a [*mut Word],
}

// SAFETY: the addresses are of objects and fields that the GC holds for
// the pause; each is read (and its target's count raised atomically) by
// the one thread that claims its chunk.
unsafe impl Sync for Shared<'_> {}

impl<'a> Shared<'a> {
    /// The next chunk of promoted objects not yet claimed (through a
    /// method, so that a thread's job holds the `Shared`, which is `Sync`).
    fn promoted(&self, next: &AtomicUsize) -> Option<&'a [*mut Word]> {
        claim(next, self.promoted)
    }

    /// The next chunk of slots not yet claimed.
    fn slots(&self, next: &AtomicUsize) -> Option<&'a [*mut Word]> {
        claim(next, self.slots)
    }
}

/// Raise the counts of the fields of every object of `promoted` and of
/// the values in every slot of `slots`, on the GC threads `workers` gives
/// (the caller's alone if None). See Note [Increments on several
/// threads].
///
/// # Safety
/// The GC holds the heap and moves nothing meanwhile; every object of
/// `promoted` is live, old, in a block with a table; every slot holds an
/// object address.
// SAFETY: the caller's contract.
pub unsafe fn raise_all(workers: Option<&GcWorkers>, layout: Layout, promoted: &[*mut Word], slots: &[*mut Word]) -> Raised {
    let shared = Shared { promoted, slots };
    let claimed = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let parts: Mutex<Vec<Raised>> = Mutex::new(Vec::new());
    let job = |_thread: usize, _: Option<&crate::gc_workers::Company>| {
        let mut mine = Raised::default();
        while let Some(chunk) = shared.promoted(&claimed[0]) {
            for &p in chunk {
                // SAFETY: the caller's contract.
                let (kind, size) = unsafe { raise_fields(layout, p, &mut mine.tally) };
                match kind {
                    OldKind::Stack => mine.stacks.push(p),
                    OldKind::Weak => mine.weaks.push(p),
                    OldKind::Other => {}
                }
                mine.sizes.push((p, size));
            }
        }
        while let Some(chunk) = shared.slots(&claimed[1]) {
            for &slot in chunk {
                // SAFETY: the caller's contract: the slot holds an object.
                unsafe { increment(*slot, &mut mine.tally) };
            }
        }
        parts.lock().expect("no thread panics holding it").push(mine);
    };
    run_shared(workers, &job, &|| {}, "raising counts");
    let mut raised = Raised::default();
    for part in parts.into_inner().expect("no thread panicked holding it") {
        raised.absorb(part);
    }
    raised
}

/// The next chunk of `items` not yet claimed, if any.
fn claim<'a, T>(next: &AtomicUsize, items: &'a [T]) -> Option<&'a [T]> {
    claim_chunk(next, items, CHUNK)
}

#[cfg(test)]
mod tests {
    use super::claim;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn chunks_cover_the_items_once() {
        let items: Vec<usize> = (0..1000).collect();
        let next = AtomicUsize::new(0);
        let mut seen = Vec::new();
        while let Some(c) = claim(&next, &items) {
            assert!(c.len() <= super::CHUNK);
            seen.extend_from_slice(c);
        }
        assert_eq!(seen, items);
        assert!(claim(&next, &items).is_none(), "an exhausted counter stays exhausted");
    }
}
