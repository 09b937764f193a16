//! `lru CAPACITY OPS VALUE_BYTES`: a high-residency cache under steady churn.
//!
//! A cache of CAPACITY entries over 4 x CAPACITY keys, accessed OPS times
//! with a skewed key distribution. A miss builds a value (a byte array of
//! VALUE_BYTES filled from its key, wrapped in an entry record) and evicts a
//! victim chosen by the clock algorithm (second chance, an LRU
//! approximation). The cache itself is a large mutable array of entries,
//! so evictions store young entries into an old array (write barrier, card
//! marks); evicted entries are old data that dies, which exercises the old
//! generation. Each operation also allocates a little short-lived garbage.
//! The checksum folds in every value read, verified against its key.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{InfoTable, Mutator, StaticObject};
use std::io::Write;

static EMPTY_INFO: InfoTable = InfoTable::static_constr("Empty", "Slot", "Lru");
static EMPTY: StaticObject = StaticObject::new(&EMPTY_INFO);
static ENTRY: InfoTable = InfoTable::constr("Entry", "Entry", "Lru", 1, 1);
static REQUEST: InfoTable = InfoTable::constr("Request", "Request", "Lru", 0, 2);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "lru",
    description: "high-residency clock-LRU cache under churn: old data that dies, old-to-young stores",
    params: &[Param::new("capacity", 50_000, 1, 1_000_000_000), Param::new("ops", 1_000_000, 0, 1_000_000_000_000), Param::new("value-bytes", 128, 8, 1 << 30)],
    small: &[500, 5_000, 64],
    tiny: &[60, 600, 32],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

fn value_word(key: usize, i: usize) -> u64 {
    (key as u64).wrapping_mul(0x9e37_79b9).wrapping_add(i as u64)
}

/// The slot array and the `referenced` bytes (a word each per slot) and
/// the key index (4 words per slot), made first and live to the end, and
/// the first value stored (how many more are live at once depends on the
/// hit rate, so they are not counted).
fn footprint(args: &[usize]) -> u128 {
    let value = if args[1] > 0 { args[2].max(8) as u128 + 16 } else { 0 };
    args[0].max(1) as u128 * 48 + value
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (capacity, ops, value_bytes) = (args[0].max(1), args[1], args[2].max(8));
    let keys = capacity * 4;
    let words = value_bytes / 8;
    let mut rng = Rng::new(42);
    let empty = m.static_obj(&EMPTY);
    let slots = m.new_array(capacity, empty);
    let slot_of = m.new_byte_array(keys * 8); // key -> slot + 1, 0 when absent
    let referenced = m.new_byte_array(capacity * 8);
    m.set_heap_roots(&[("cache", slots), ("key-index", slot_of)]); // for +RTS -ho
    let mut hand = 0;
    let (mut hits, mut misses, mut sum) = (0u64, 0u64, 0u64);

    for op in 0..ops {
        let base = m.depth();
        let hot = rng.below(4) != 0;
        let key = if hot { rng.below(keys / 8 + 1) } else { rng.below(keys) };
        m.alloc(&REQUEST, &[], &[key, op]); // short-lived garbage
        let slot = m.byte_array_read(slot_of, key) as usize;
        if slot != 0 {
            hits += 1;
            m.byte_array_write(referenced, slot - 1, 1);
            let entry = m.array_get(slots, slot - 1);
            assert_eq!(m.word(entry, 0), key, "lru: entry in slot {} lost its key", slot - 1);
            let value = m.field(entry, 0);
            let probe = op % words;
            let v = m.byte_array_read(value, probe);
            assert_eq!(v, value_word(key, probe), "lru: value of key {key} corrupted");
            sum = mix(sum, v);
        } else {
            misses += 1;
            let value = m.new_byte_array(value_bytes);
            for i in 0..words {
                m.byte_array_write(value, i, value_word(key, i));
            }
            let entry = m.alloc(&ENTRY, &[value], &[key]);
            while m.byte_array_read(referenced, hand) != 0 {
                m.byte_array_write(referenced, hand, 0);
                hand = (hand + 1) % capacity;
            }
            let victim = m.array_get(slots, hand);
            if !m.same(victim, empty) {
                let old_key = m.word(victim, 0);
                m.byte_array_write(slot_of, old_key, 0);
            }
            m.array_set(slots, hand, entry);
            m.byte_array_write(slot_of, key, (hand + 1) as u64);
            hand = (hand + 1) % capacity;
        }
        m.truncate(base);
    }
    let mut resident = 0u64;
    for i in 0..capacity {
        let base = m.depth();
        let e = m.array_get(slots, i);
        if !m.same(e, empty) {
            let key = m.word(e, 0);
            let value = m.field(e, 0);
            assert_eq!(m.byte_array_read(value, words - 1), value_word(key, words - 1));
            resident = mix(resident, key as u64);
        }
        m.truncate(base);
    }
    let _ = writeln!(out, "lru: capacity {capacity}, {ops} ops: {hits} hits, {misses} misses");
    mix(mix(mix(sum, hits), misses), resident)
}
