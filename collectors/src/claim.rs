//! The claim protocol of a concurrent copier: copy an object, then claim
//! it by installing the forwarding pointer with one compare-and-swap on
//! its header; the loser undoes its copy and takes the winner's (See Note
//! [Copying out while the mutators run] in `copy_out`).
//!
//! Invariant kept: an object is claimed once. Every thread that copies it,
//! and every thread that finds it forwarded, ends with the one copy whose
//! forwarding pointer the header holds, and sees that copy whole (the
//! claim is a release, every header load an acquire).
//!
//! The protocol is written over a `HeaderCell`, so that the same function
//! runs on the heap's header words (`copy_out`) and, under loom, on a
//! model's atomics (See Note [Model checking the claim]).

use gclab_core::constants::Word;
use gclab_core::object::{forward_target, forwarding_header, is_forwarded};
use gclab_core::shim::{reintroduced, Race};

/// An object's header word, as the claim protocol reads and writes it.
pub trait HeaderCell {
    /// Its value, with acquire ordering: a forwarding pointer read makes
    /// the copy behind it visible.
    fn load(&self) -> Word;
    /// Replace `expected` by `new` (acquire and release), or say what it
    /// holds instead.
    fn claim(&self, expected: Word, new: Word) -> Result<(), Word>;
    /// Overwrite it (release), whatever it holds: only the bad variant
    /// `Race::ClaimByPlainStore` uses this.
    fn store(&self, new: Word);
}

/// Claim the object whose header is `cell`: if it is forwarded, its copy;
/// otherwise `copy(header)` makes a whole copy and returns its address,
/// and the compare-and-swap decides whose copy stays; a loser calls
/// `undo` on its own. Returns the copy to use, and whether this call's
/// copy is it.
pub fn copy_then_claim(cell: &impl HeaderCell, copy: impl FnOnce(Word) -> Word, undo: impl FnOnce(Word)) -> (Word, bool) {
    let header = cell.load();
    if is_forwarded(header) {
        return (forward_target(header) as Word, false);
    }
    let q = copy(header);
    let new = forwarding_header(q as *mut Word);
    if reintroduced(Race::ClaimByPlainStore) {
        cell.store(new);
        return (q, true);
    }
    match cell.claim(header, new) {
        Ok(()) => (q, true),
        Err(_) if reintroduced(Race::LoserKeepsItsCopy) => (q, false),
        Err(winner) => {
            undo(q);
            (forward_target(winner) as Word, false)
        }
    }
}

// Note [Model checking the claim]
// ----------------------------------------
// The model (`loom_tests`) is the smallest race the protocol must win: a
// from-space object with one field, the copying thread copying it, and a
// mutator that loads it through the read barrier (copying it itself if
// nobody has) and then writes its field. Each thread copies into a copy
// of its own; a copy's words are loom cells, written before the claim and
// read by the other thread only after it has seen the forwarding pointer,
// so a claim that did not publish the copy (a relaxed compare-and-swap)
// is a causality violation to loom. In every interleaving the header must
// end forwarded to the copy the mutator wrote, and that copy's field must
// hold the mutator's value: no write is lost. Three bad variants are put
// back and must be found: a claim by plain store (both threads think they
// won, and the copier's forwarding pointer can replace the mutator's), a
// loser that keeps its own copy (the mutator writes a copy nobody else
// will see), and a mutator that writes the from-space object without the
// barrier (loom sees the write race the copier's read).

#[cfg(all(test, loom))]
mod loom_tests {
    use super::{copy_then_claim, HeaderCell};
    use gclab_core::constants::Word;
    use gclab_core::object::{forward_target, is_forwarded};
    use gclab_core::shim::{explore, Race};
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::atomic::Ordering::{AcqRel, Acquire, Release};
    use loom::sync::Arc;

    /// The object's info word (any even value but zero).
    const INFO: Word = 0x40;
    const OLD: Word = 1;
    const NEW: Word = 2;

    impl HeaderCell for AtomicUsize {
        fn load(&self) -> Word {
            AtomicUsize::load(self, Acquire)
        }
        fn claim(&self, expected: Word, new: Word) -> Result<(), Word> {
            self.compare_exchange(expected, new, AcqRel, Acquire).map(|_| ())
        }
        fn store(&self, new: Word) {
            AtomicUsize::store(self, new, Release);
        }
    }

    /// An object: its header and one field.
    struct Object {
        header: AtomicUsize,
        field: UnsafeCell<Word>,
    }

    impl Object {
        fn new(header: Word, field: Word) -> Object {
            Object { header: AtomicUsize::new(header), field: UnsafeCell::new(field) }
        }
        fn read(&self) -> Word {
            // SAFETY: none, on purpose: loom fails the model if a write
            // races this read, which is what the tests look for.
            self.field.with(|f| unsafe { *f })
        }
        fn write(&self, v: Word) {
            // SAFETY: as for `read`.
            self.field.with_mut(|f| unsafe { *f = v });
        }
    }

    /// The from-space object and each thread's copy (0: the copier's, 1:
    /// the mutator's), addressed as 16 and 32 (aligned, so that the
    /// forwarding bit is free).
    struct Heap {
        from: Object,
        copies: [Object; 2],
    }

    impl Heap {
        fn copy_of(&self, addr: Word) -> &Object {
            &self.copies[addr / 16 - 1]
        }
        /// Thread `me` loads the from-space object: its copy, made by
        /// `me` if nobody had.
        fn resolve(&self, me: usize) -> &Object {
            let copy = |header: Word| {
                let mine = &self.copies[me];
                mine.write(self.from.read());
                mine.header.store(header, Release);
                16 * (me + 1)
            };
            let (q, _) = copy_then_claim(&self.from.header, copy, |q| self.copy_of(q).write(0));
            self.copy_of(q)
        }
    }

    fn claim_race(barrier: bool) {
        let heap = Arc::new(Heap { from: Object::new(INFO, OLD), copies: [Object::new(0, 0), Object::new(0, 0)] });
        let copier = {
            let heap = heap.clone();
            loom::thread::spawn(move || {
                heap.resolve(0);
            })
        };
        let written = if barrier {
            let copy = heap.resolve(1);
            copy.write(NEW);
            Some(copy as *const Object as usize)
        } else {
            heap.from.write(NEW);
            None
        };
        copier.join().unwrap();
        let header = heap.from.header.load(Acquire);
        assert!(is_forwarded(header), "the object was claimed");
        let winner = heap.copy_of(forward_target(header) as Word);
        if let Some(w) = written {
            assert_eq!(w, winner as *const Object as usize, "the mutator wrote a copy the header does not lead to");
        }
        assert_eq!(winner.read(), NEW, "the mutator's write was lost");
    }

    #[test]
    fn a_claimed_object_keeps_every_write() {
        assert!(explore("copier and mutator claim", None, None, || claim_race(true)) > 1);
    }

    #[test]
    #[should_panic(expected = "the mutator wrote a copy the header does not lead to")]
    fn loom_finds_a_claim_by_plain_store() {
        explore("claim by plain store", Some(Race::ClaimByPlainStore), None, || claim_race(true));
    }

    #[test]
    #[should_panic(expected = "the mutator wrote a copy the header does not lead to")]
    fn loom_finds_a_loser_that_keeps_its_copy() {
        explore("loser keeps its copy", Some(Race::LoserKeepsItsCopy), None, || claim_race(true));
    }

    #[test]
    #[should_panic(expected = "Causality violation")]
    fn loom_finds_a_write_without_the_read_barrier() {
        explore("write without the barrier", None, None, || claim_race(false));
    }

}
