//! The stable pointer table: global roots that foreign code can hold, and
//! the way data crosses capabilities (See Note [Sharing between
//! capabilities] in `mutator::par`).
//!
//! A stable pointer is an index into this table; the entry holds the heap
//! address of its object and is updated by every GC that moves it. Entries
//! are roots. Freed entries go on a free list and are reused.
//!
//! Invariant kept: the table that `entries` points at holds every entry
//! handed out and not freed; a table it pointed at before is never written
//! again, and is freed only once no thread can still be reading it (See
//! Note [Reading stable pointers without a lock]).
//!
//! Note [Reading stable pointers without a lock]
//! ----------------------------------------
//! Any capability may make, read or free a stable pointer at any time, and
//! a parallel program reads the same few over and over from every
//! capability (its shared data: gcbench's tree and array, a task queue).
//! Behind one mutex, every read took the lock, and capabilities reading
//! side by side passed its cache line back and forth. So reads take no
//! lock: the entries are atomic words in a table that is only ever
//! replaced whole. Making and freeing still serialise on a lock of their
//! own (`writer`). A full table is grown by the writer: it copies the
//! entries into a table twice the size and swaps the pointer; a reader
//! that loaded the old pointer just before reads the same value there,
//! since every entry it may read (one it was handed, so one made before
//! it could know it) was copied, and the old table is never written after.
//!
//! What the epoch protects: the old table's memory. A reader may be
//! between loading the pointer and loading its entry while the writer
//! swaps, so the writer cannot free the old table then; it retires it to
//! crossbeam-epoch (`defer_destroy`), and a reader pins the epoch for the
//! two loads. The table is freed once every thread pinned at the swap has
//! unpinned, without a stop of the world. A reader never holds a pin
//! across a safe point, so a GC never waits for one.
//!
//! The GCs write the entries with the world stopped, when no thread is
//! inside any of these calls, and only in the current table: a table
//! retired earlier is never read again, since every read after the swap
//! loads the new pointer.
//!
//! The alternative, GHC's: its `deRefStablePtr` reads without a lock too,
//! and `enlargeStablePtrTable` keeps each outgrown table on a list that
//! the next GC frees, the GC's stop of the world standing for the grace
//! period. That keeps the old tables for a whole mutator run, and makes
//! freeing them a GC's business; here they go as soon as their readers
//! are gone.
//!
//! Measured with `cargo bench --bench stable_ptr` (2-core machine), a
//! read of one's own pointer in a loop: 7.4 ns from one thread and 7.9 ns
//! from each of two side by side, where the table behind one mutex took
//! 9.9 ns and 59 ns (the lock's line passed between the cores). No
//! workload reads stable pointers in its inner loop, so none of their
//! figures moves.

use crate::constants::Word;
use crate::lock::Lock;
use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A stable pointer: an index into the table, valid until freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StablePtr(pub u32);

/// The value of a free entry.
const FREE_ENTRY: Word = 0;

/// Entries of a new table.
const FIRST_SIZE: usize = 32;

/// One table of entries, replaced whole when it is full.
struct Entries(Box<[AtomicUsize]>);

impl Entries {
    fn all_free(n: usize) -> Entries {
        Entries((0..n).map(|_| AtomicUsize::new(FREE_ENTRY)).collect())
    }
}

/// What only the writers (making and freeing) touch.
#[derive(Debug, Default)]
struct Writer {
    /// Freed entries, to reuse.
    free: Vec<u32>,
    /// Entries ever handed out: those past it have never been used.
    used: usize,
}

/// The table.
pub struct StablePtrTable {
    /// The current table (See Note [Reading stable pointers without a lock]).
    entries: Atomic<Entries>,
    writer: Lock<Writer>,
}

impl std::fmt::Debug for StablePtrTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StablePtrTable").field("live", &self.len()).finish_non_exhaustive()
    }
}

impl Default for StablePtrTable {
    fn default() -> StablePtrTable {
        StablePtrTable::new()
    }
}

impl StablePtrTable {
    /// An empty table.
    pub fn new() -> StablePtrTable {
        StablePtrTable { entries: Atomic::new(Entries::all_free(FIRST_SIZE)), writer: Lock::new(Writer::default()) }
    }

    /// The current table, read under `guard`.
    fn current<'g>(&self, guard: &'g Guard) -> &'g Entries {
        let table = self.entries.load(Ordering::Acquire, guard);
        // SAFETY: `entries` is never null (made in `new`, replaced only by
        // a new table), and a table retired while `guard` is pinned is
        // freed only after it unpins.
        unsafe { table.deref() }
    }

    /// Register `addr` and return its stable pointer.
    pub fn insert(&self, addr: Word) -> StablePtr {
        assert!(addr != FREE_ENTRY, "a stable pointer to the null address");
        let mut w = self.writer.lock();
        let i = w.free.pop().map(|i| i as usize).unwrap_or_else(|| {
            w.used += 1;
            w.used - 1
        });
        let guard = epoch::pin();
        let mut table = self.current(&guard);
        if i >= table.0.len() {
            table = self.grow(&guard);
        }
        table.0[i].store(addr, Ordering::Release);
        StablePtr(u32::try_from(i).expect("more than 2^32 stable pointers"))
    }

    /// Replace the full current table by one twice its size holding the
    /// same entries, retire the old one, and return the new one (See Note
    /// [Reading stable pointers without a lock]). The caller holds the
    /// writers' lock.
    fn grow<'g>(&self, guard: &'g Guard) -> &'g Entries {
        let old = self.entries.load(Ordering::Acquire, guard);
        // SAFETY: as in `current`.
        let old_entries = unsafe { old.deref() };
        let bigger = Entries::all_free(old_entries.0.len() * 2);
        for (new, e) in bigger.0.iter().zip(old_entries.0.iter()) {
            new.store(e.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let new = Owned::new(bigger).into_shared(guard);
        self.entries.store(new, Ordering::Release);
        // SAFETY: `old` is no longer reachable from `entries`, so only
        // threads pinned now can hold it; the epoch frees it after them.
        unsafe { guard.defer_destroy(old) };
        // SAFETY: made just now; only a later `grow`, under the writers'
        // lock, retires it, and then only after `guard` unpins.
        unsafe { new.deref() }
    }

    /// The address a live stable pointer refers to: no lock, two loads
    /// under a pinned epoch.
    pub fn get(&self, sp: StablePtr) -> Word {
        let guard = epoch::pin();
        let addr = self.current(&guard).0.get(sp.0 as usize).map_or(FREE_ENTRY, |e| e.load(Ordering::Acquire));
        assert!(addr != FREE_ENTRY, "use of a freed stable pointer");
        addr
    }

    /// Free a stable pointer: its object is no longer a root.
    pub fn free(&self, sp: StablePtr) {
        let mut w = self.writer.lock();
        let guard = epoch::pin();
        let old = self.current(&guard).0.get(sp.0 as usize).map_or(FREE_ENTRY, |e| e.swap(FREE_ENTRY, Ordering::AcqRel));
        assert!(old != FREE_ENTRY, "double free of a stable pointer");
        w.free.push(sp.0);
    }

    /// Live entries, as slots the GC can update in place: with the world
    /// stopped, which `&mut` stands for (See Note [Reading stable pointers
    /// without a lock]).
    pub fn roots_mut(&mut self) -> impl Iterator<Item = &mut Word> {
        // SAFETY: `&mut self`: no other thread is inside a call on the
        // table, so the current table is this borrow's alone.
        let table = unsafe { self.entries.load(Ordering::Relaxed, epoch::unprotected()).deref_mut() };
        table.0.iter_mut().map(AtomicUsize::get_mut).filter(|e| **e != FREE_ENTRY)
    }

    /// Live entries, in table order.
    pub fn roots(&self) -> Vec<Word> {
        let guard = epoch::pin();
        self.current(&guard).0.iter().map(|e| e.load(Ordering::Acquire)).filter(|&e| e != FREE_ENTRY).collect()
    }

    /// Live entries count.
    pub fn len(&self) -> usize {
        let w = self.writer.lock();
        w.used - w.free.len()
    }

    /// No live entries?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for StablePtrTable {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: nobody else holds the table; the ones it
        // retired are the epoch's to free.
        let table = unsafe { self.entries.load(Ordering::Relaxed, epoch::unprotected()) };
        // SAFETY: as above: the current table is owned by this one.
        drop(unsafe { table.into_owned() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Readers on several threads while a writer grows the table: the
    // integration test `stable_pointer_readers_and_a_growing_writer` (in
    // `tests/valgrind.rs`, which also runs it under memcheck).

    #[test]
    fn insert_free_reuse() {
        let t = StablePtrTable::new();
        let a = t.insert(0x1000);
        let b = t.insert(0x2000);
        assert_eq!(t.get(a), 0x1000);
        t.free(a);
        assert_eq!(t.len(), 1);
        let c = t.insert(0x3000);
        assert_eq!(c, a, "freed entries are reused");
        assert_eq!(t.roots(), vec![0x3000, 0x2000]);
        assert_eq!(t.get(b), 0x2000);
    }

    #[test]
    fn growing_keeps_every_entry_and_the_gc_updates_the_current_table() {
        let mut t = StablePtrTable::new();
        let sps: Vec<StablePtr> = (1..=1000).map(|i| t.insert(i * 8)).collect();
        for (i, &sp) in sps.iter().enumerate() {
            assert_eq!(t.get(sp), (i + 1) * 8);
        }
        for r in t.roots_mut() {
            *r += 1;
        }
        assert_eq!(t.get(sps[999]), 8001, "a GC's update is what readers see");
        assert_eq!(t.len(), 1000);
    }

    #[test]
    #[should_panic(expected = "use of a freed stable pointer")]
    fn a_freed_pointer_is_not_read() {
        let t = StablePtrTable::new();
        let a = t.insert(0x1000);
        t.free(a);
        t.get(a);
    }
}
