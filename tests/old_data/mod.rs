//! Old data that dies where it lies, for the tests of collectors that keep
//! their oldest generation in place (`mark_sweep.rs`, `immix.rs`).
//!
//! Each test crate uses a part of it.
#![allow(dead_code)]

use gclab_core::{Handle, InfoTable, Mutator, StaticObject};

/// A boxed Int: a header and one word.
pub static INT: InfoTable = InfoTable::constr("I#", "Int", "Test", 0, 1);
static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);

/// `n` Ints in an array (the Int at `i` holds `i`), promoted and marked
/// live by a major GC; then every Int for which `dies(i)` is dropped from
/// the array, where it lies. Returns the array.
pub fn old_ints(m: &mut Mutator<'_>, n: usize, dies: impl Fn(usize) -> bool) -> Handle {
    let unit = m.static_obj(&UNIT);
    let array = m.new_array(n, unit);
    for i in 0..n {
        let d = m.depth();
        let v = m.alloc(&INT, &[], &[i]);
        m.array_set(array, i, v);
        m.truncate(d);
    }
    m.perform_gc(true);
    for i in (0..n).filter(|&i| dies(i)) {
        m.array_set(array, i, unit);
    }
    array
}
