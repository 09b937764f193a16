//! The stable pointer table: global roots that foreign code can hold.
//!
//! A stable pointer is an index into this table; the entry holds the heap
//! address of its object and is updated by every GC that moves it. Entries
//! are roots. Freed entries go on a free list and are reused. The table is
//! behind a lock in the runtime, since any capability may make or free one.

use crate::constants::Word;

/// A stable pointer: an index into the table, valid until freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StablePtr(pub u32);

/// The table.
#[derive(Debug, Default)]
pub struct StablePtrTable {
    entries: Vec<Word>,
    free: Vec<u32>,
}

/// The value of a free entry.
const FREE_ENTRY: Word = 0;

impl StablePtrTable {
    /// An empty table.
    pub fn new() -> StablePtrTable {
        StablePtrTable::default()
    }

    /// Register `addr` and return its stable pointer.
    pub fn insert(&mut self, addr: Word) -> StablePtr {
        debug_assert!(addr != FREE_ENTRY);
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = addr;
                StablePtr(i)
            }
            None => {
                self.entries.push(addr);
                StablePtr((self.entries.len() - 1) as u32)
            }
        }
    }

    /// The address a live stable pointer refers to.
    pub fn get(&self, sp: StablePtr) -> Word {
        let addr = self.entries[sp.0 as usize];
        assert!(addr != FREE_ENTRY, "use of a freed stable pointer");
        addr
    }

    /// Free a stable pointer: its object is no longer a root.
    pub fn free(&mut self, sp: StablePtr) {
        let slot = &mut self.entries[sp.0 as usize];
        assert!(*slot != FREE_ENTRY, "double free of a stable pointer");
        *slot = FREE_ENTRY;
        self.free.push(sp.0);
    }

    /// Live entries, as slots the GC can update in place.
    pub fn roots_mut(&mut self) -> impl Iterator<Item = &mut Word> {
        self.entries.iter_mut().filter(|e| **e != FREE_ENTRY)
    }

    /// Live entries.
    pub fn roots(&self) -> impl Iterator<Item = Word> + '_ {
        self.entries.iter().copied().filter(|&e| e != FREE_ENTRY)
    }

    /// Live entries count.
    pub fn len(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    /// No live entries?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_free_reuse() {
        let mut t = StablePtrTable::new();
        let a = t.insert(0x1000);
        let b = t.insert(0x2000);
        assert_eq!(t.get(a), 0x1000);
        t.free(a);
        assert_eq!(t.len(), 1);
        let c = t.insert(0x3000);
        assert_eq!(c, a, "freed entries are reused");
        assert_eq!(t.roots().collect::<Vec<_>>(), vec![0x3000, 0x2000]);
        assert_eq!(t.get(b), 0x2000);
    }
}
