//! The address sets and maps of a walk, and the test of a header word
//! (See Note [Checking info pointers]).

use crate::block_alloc::BlockAllocator;
use crate::constants::{Word, MBLOCK_SIZE};
use crate::info::{InfoTable, INFO_MAGIC};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Maps and sets keyed by heap addresses, which need no defence against
/// chosen keys: one multiplication spreads them (the default SipHash took
/// a third of a check's time).
pub(super) type AddrMap<V> = HashMap<usize, V, BuildHasherDefault<AddrHasher>>;
pub(super) type AddrSet = HashSet<usize, BuildHasherDefault<AddrHasher>>;

/// One multiplication of the address (See `AddrMap`).
#[derive(Default)]
pub(super) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ b as u64);
        }
    }

    fn write_usize(&mut self, addr: usize) {
        self.write_u64(addr as u64);
    }

    fn write_u64(&mut self, v: u64) {
        // Fibonacci hashing, folded: a product's high bits mix all of `v`
        // but its low bits only `v`'s low bits, which are zero for block
        // addresses, and the table takes its bucket from the low bits.
        let h = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// The heap's megablocks, for the walk's many "is this address in the
/// heap?" questions (the allocator answers from a B-tree of its mappings,
/// which took a fifth of a check's time).
pub(super) struct Mappings(AddrSet);

impl Mappings {
    pub(super) fn of(blocks: &BlockAllocator) -> Mappings {
        let bases = blocks.mblocks().mappings().flat_map(|(base, n)| (0..n).map(move |i| base + i * MBLOCK_SIZE));
        Mappings(bases.collect())
    }

    pub(super) fn contains(&self, addr: usize) -> bool {
        self.0.contains(&(addr & !(MBLOCK_SIZE - 1)))
    }
}

/// The info table a header word points at, if it is one.
pub(super) fn valid_info(heap: &Mappings, header: Word) -> Option<&'static InfoTable> {
    if header == 0 || !header.is_multiple_of(8) || heap.contains(header) {
        return None;
    }
    // SAFETY: See Note [Checking info pointers].
    let info = unsafe { &*(header as *const InfoTable) };
    (info.magic == INFO_MAGIC).then_some(info)
}

