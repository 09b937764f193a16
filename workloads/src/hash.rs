//! `hash KEYS OPS`: a mutable hash table with chained buckets, the data
//! structure of nofib's gc/hash. OPS pseudo-random operations over KEYS
//! keys: half insert or replace (the value is the operation's number),
//! a quarter delete, a quarter look up. A bucket's chain is an immutable
//! list of entries; an insert or a deletion builds the chain anew up to
//! the key and stores the new chain into the bucket array. When the table
//! holds more than two entries per bucket it doubles, rehashing every
//! entry into a new array.
//!
//! What it stresses: the write barrier (young chains stored into an old
//! bucket array, over and over), a residency that grows and then holds
//! steady, and whole-table garbage at each doubling. The checksum folds
//! in every value looked up (and every miss), the final size, and a sum
//! over the final table that does not depend on the chains' order.

use crate::rng::Rng;
use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "Chain", "Hash");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
/// A chain's cell: the rest of the chain; the key and its value.
static ENTRY: InfoTable = InfoTable::constr("Entry", "Chain", "Hash", 1, 2);

/// Buckets of a new table.
const FIRST_BUCKETS: usize = 16;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "hash",
    description: "nofib hash: a chained hash table under inserts and deletes, old-to-young stores",
    params: &[Param::new("keys", 300_000, 1, 1_000_000_000), Param::new("ops", 5_000_000, 0, 1_000_000_000_000)],
    small: &[2_000, 20_000],
    tiny: &[300, 4_000],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// Live data: an entry of 4 words per key.
fn footprint(args: &[usize]) -> u128 {
    args[0].max(1) as u128 * 32
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (keys, ops) = (args[0].max(1), args[1]);
    let mut rng = Rng::new(11);
    let nil = m.static_obj(&NIL);
    let table = m.new_array(FIRST_BUCKETS, nil);
    m.set_heap_roots(&[("table", table)]); // for +RTS -ho
    let (mut size, mut sum, mut hits) = (0usize, 0u64, 0u64);
    for op in 0..ops {
        let base = m.depth();
        let key = rng.below(keys);
        let bucket = key & (m.array_len(table) - 1);
        let chain = m.array_get(table, bucket);
        let found = lookup(m, chain, key);
        match rng.below(4) {
            0 | 1 => {
                let rest = if found.is_some() { remove(m, chain, key) } else { chain };
                let entry = m.alloc(&ENTRY, &[rest], &[key, op]);
                m.array_set(table, bucket, entry);
                if found.is_none() {
                    size += 1;
                }
            }
            2 if found.is_some() => {
                let rest = remove(m, chain, key);
                m.array_set(table, bucket, rest);
                size -= 1;
            }
            2 => {}
            _ => {
                hits += found.is_some() as u64;
                sum = mix(sum, found.map_or(u64::MAX, |v| v as u64));
            }
        }
        m.truncate(base);
        if size > 2 * m.array_len(table) {
            grow(m, table, nil);
        }
    }
    let _ = writeln!(out, "hash: {ops} operations on {keys} keys: {size} entries in {} buckets, {hits} lookups found", m.array_len(table));
    mix(mix(sum, size as u64), table_sum(m, table))
}

/// The value of `key` in `chain`, if it is there.
fn lookup(m: &Mutator<'_>, chain: Handle, key: usize) -> Option<usize> {
    let mut cell = m.view().get(chain);
    while !cell.is_static() {
        if cell.word(0) == key {
            return Some(cell.word(1));
        }
        cell = cell.field(0);
    }
    None
}

/// `chain` without `key` (which it holds): the cells before the key are
/// copied, the ones after it shared.
fn remove(m: &mut Mutator<'_>, chain: Handle, key: usize) -> Handle {
    let base = m.depth();
    let rest = m.field(chain, 0);
    let (k, v) = (m.word(chain, 0), m.word(chain, 1));
    if k == key {
        return m.ret(base, rest);
    }
    let rest = remove(m, rest, key);
    m.alloc_ret(base, &ENTRY, &[rest], &[k, v])
}

/// Double the table: every entry consed, in chain order, onto its bucket
/// of a new array twice the size, which replaces the old one.
fn grow(m: &mut Mutator<'_>, table: Handle, nil: Handle) {
    let base = m.depth();
    let buckets = m.array_len(table);
    let bigger = m.new_array(2 * buckets, nil);
    for b in 0..buckets {
        let chain = m.array_get(table, b);
        while !m.is_static(chain) {
            let frame = m.depth();
            let (key, value) = (m.word(chain, 0), m.word(chain, 1));
            let to = key & (2 * buckets - 1);
            let old = m.array_get(bigger, to);
            let entry = m.alloc(&ENTRY, &[old], &[key, value]);
            m.array_set(bigger, to, entry);
            m.follow(chain, 0);
            m.truncate(frame);
        }
        m.truncate(base + 1);
    }
    m.set(table, bigger);
    m.truncate(base);
}

/// A sum over every entry that does not depend on the order of the chains.
fn table_sum(m: &Mutator<'_>, table: Handle) -> u64 {
    let t = m.view().get(table);
    let mut sum = 0u64;
    for b in 0..t.array_len() {
        let mut cell = t.array_get(b);
        while !cell.is_static() {
            sum = sum.wrapping_add((cell.word(0) as u64).wrapping_mul(31).wrapping_add(cell.word(1) as u64));
            cell = cell.field(0);
        }
    }
    sum
}
