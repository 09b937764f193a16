//! `thunks N`: lazily evaluated structures whose thunks are updated to
//! indirections, which the GC then removes.
//!
//! Two structures. A lazy stream `from 1`, whose tail is a thunk that
//! builds the next cell when forced, is consumed N elements deep while a
//! pointer to an early cell is kept, so evaluated tails (indirections)
//! survive GCs and must be short-cut. And a memo table of N thunks, where
//! thunk i computes `(t[i-1] + t[i-2]) mod p` from the table itself (a lazy
//! dynamic program), forced from the end so that evaluation recurses down
//! and updates every thunk; the table is then read again through the
//! indirections and the sums compared.

use crate::{mix, Param, Workload};
use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "Stream", "Thunks");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static INT: InfoTable = InfoTable::constr("I#", "Int", "Thunks", 0, 1);
static CONS: InfoTable = InfoTable::constr("Cons", "Stream", "Thunks", 2, 0);
static FROM: InfoTable = InfoTable::thunk("from", "Stream", "Thunks", 0, 1, from_entry);
static MEMO: InfoTable = InfoTable::thunk("memo", "Int", "Thunks", 1, 1, memo_entry);

const MODULUS: usize = 1_000_000_007;

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "thunks",
    description: "lazy streams and memo tables: thunks updated to indirections the GC removes",
    params: &[Param::new("n", 1_000_000, 2, 1_000_000_000)],
    small: &[3_000],
    tiny: &[400],
    run,
    footprint: Some(footprint),
    needs_collection: false,
};

/// `from k = k : from (k + 1)`
fn from_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let k = m.word(this, 0);
    let base = m.depth();
    let head = m.alloc(&INT, &[], &[k]);
    let tail = m.alloc(&FROM, &[], &[k + 1]);
    m.alloc_ret(base, &CONS, &[head, tail], &[])
}

/// `memo[i] = (memo[i-1] + memo[i-2]) mod p`, with memo[0] = 0, memo[1] = 1.
fn memo_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    let i = m.word(this, 0);
    let base = m.depth();
    let v = if i < 2 {
        i
    } else {
        let table = m.field(this, 0);
        let a = m.array_get(table, i - 1);
        let a = m.force(a);
        let b = m.array_get(table, i - 2);
        let b = m.force(b);
        (m.word(a, 0) + m.word(b, 0)) % MODULUS
    };
    m.alloc_ret(base, &INT, &[], &[v])
}

/// Live data: the stream's head stays live, so all `n` cells (a list
/// cell of 3 words, its number of 2, the thunk it was, updated, of 2).
fn footprint(args: &[usize]) -> u128 {
    args[0].max(2) as u128 * 56
}

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0].max(2);
    let mut sum = 0u64;

    // A lazy stream, consumed while its head stays live.
    let base = m.depth();
    let head = m.alloc(&FROM, &[], &[1]);
    let cell = m.force(head);
    let mut total = 0usize;
    for _ in 0..n {
        let x = m.field(cell, 0);
        total = total.wrapping_add(m.word(x, 0));
        let tail = m.field(cell, 1);
        let next = m.force(tail);
        m.set(cell, next);
        m.truncate(cell.index() + 1);
    }
    let mut again = 0usize;
    let c = m.force(head);
    for _ in 0..n.min(1000) {
        let x = m.field(c, 0);
        again = again.wrapping_add(m.word(x, 0));
        let t = m.field(c, 1);
        m.set(c, t);
        m.truncate(c.index() + 1);
    }
    let _ = writeln!(out, "stream: sum of first {n} = {total}; first {} again = {again}", n.min(1000));
    sum = mix(mix(sum, total as u64), again as u64);
    m.truncate(base);

    // A memo table of thunks, in chunks so evaluation recursion stays shallow.
    let base = m.depth();
    let nothing = m.static_obj(&NIL);
    let table = m.new_array(n, nothing);
    for i in 0..n {
        let inner = m.depth();
        let t = m.alloc(&MEMO, &[table], &[i]);
        m.array_set(table, i, t);
        m.truncate(inner);
    }
    let mut last = 0;
    for i in (0..n).step_by(256).chain(std::iter::once(n - 1)) {
        let inner = m.depth();
        let t = m.array_get(table, i);
        let v = m.force(t);
        last = m.word(v, 0);
        m.truncate(inner);
    }
    let mut check = 0u64;
    for i in 0..n {
        let inner = m.depth();
        let t = m.array_get(table, i);
        check = mix(check, m.word(t, 0) as u64);
        m.truncate(inner);
    }
    let _ = writeln!(out, "memo: fib({}) mod p = {last}", n - 1);
    m.truncate(base);
    let _ = nothing;
    mix(mix(sum, last as u64), check)
}
