//! `large-arrays COUNT BYTES`: many large byte and pointer arrays.
//!
//! COUNT rounds; each allocates a byte array of BYTES bytes (a large object
//! when BYTES >= 3276) filled with a pattern, and a pointer array of
//! BYTES/8 elements pointing at small boxed integers. A window of the last
//! 16 of each is kept live in a ring (so large objects survive a few GCs,
//! get promoted by relinking, then die); every array is verified when it
//! leaves the ring and at the end.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NOTHING_INFO: InfoTable = InfoTable::static_constr("Nothing", "Maybe", "LargeArrays");
static NOTHING: StaticObject = StaticObject::new(&NOTHING_INFO);
static INT: InfoTable = InfoTable::constr("I#", "Int", "LargeArrays", 0, 1);

const WINDOW: usize = 16;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "large-arrays",
    description: "many large byte and pointer arrays (large objects, relinked, never copied)",
    params: &[Param::new("count", 4_000, 0, 1_000_000_000), Param::new("bytes", 65_536, 8, 1 << 30)],
    small: &[60, 8_192],
    tiny: &[20, 4096],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

fn pattern(round: usize, i: usize) -> u64 {
    (round as u64) << 32 | i as u64
}

fn verify(m: &mut Mutator<'_>, bytes: Handle, ptrs: Handle, round: usize) -> u64 {
    let words = m.byte_array_len(bytes) / 8;
    let mut sum = 0;
    for i in (0..words).step_by(61) {
        let v = m.byte_array_read(bytes, i);
        assert_eq!(v, pattern(round, i), "large-arrays: byte array of round {round} corrupted at word {i}");
        sum = mix(sum, v);
    }
    let n = m.array_len(ptrs);
    for i in (0..n).step_by(37) {
        let base = m.depth();
        let e = m.array_get(ptrs, i);
        let v = m.word(e, 0);
        assert_eq!(v, round * 1000 + i, "large-arrays: pointer array of round {round} corrupted at {i}");
        sum = mix(sum, v as u64);
        m.truncate(base);
    }
    sum
}

/// One round's byte array and pointer array, each `bytes` long, and the
/// boxed integers the pointer array holds (two words each), all live at
/// once.
fn footprint(args: &[usize]) -> u128 {
    let bytes = args[1].max(8) as u128;
    if args[0] == 0 {
        return 0;
    }
    bytes * 2 + bytes / 8 * 16
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let (count, bytes) = (args[0], args[1].max(8));
    let nothing = m.static_obj(&NOTHING);
    let ring_bytes = m.new_array(WINDOW, nothing);
    let ring_ptrs = m.new_array(WINDOW, nothing);
    let mut sum = 0;
    for round in 0..count {
        let slot = round % WINDOW;
        let base = m.depth();
        if round >= WINDOW {
            let (b, p) = (m.array_get(ring_bytes, slot), m.array_get(ring_ptrs, slot));
            sum = mix(sum, verify(m, b, p, round - WINDOW));
        }
        let b = m.new_byte_array(bytes);
        for i in 0..bytes / 8 {
            m.byte_array_write(b, i, pattern(round, i));
        }
        let n = bytes / 8;
        let p = m.new_array(n, nothing);
        for i in 0..n {
            let inner = m.depth();
            let e = m.alloc(&INT, &[], &[round * 1000 + i]);
            m.array_set(p, i, e);
            m.truncate(inner);
        }
        m.array_set(ring_bytes, slot, b);
        m.array_set(ring_ptrs, slot, p);
        m.truncate(base);
    }
    for round in count.saturating_sub(WINDOW)..count {
        let base = m.depth();
        let slot = round % WINDOW;
        let (b, p) = (m.array_get(ring_bytes, slot), m.array_get(ring_ptrs, slot));
        sum = mix(sum, verify(m, b, p, round));
        m.truncate(base);
    }
    let _ = writeln!(out, "large-arrays: {count} rounds of {bytes}-byte arrays verified");
    sum
}
