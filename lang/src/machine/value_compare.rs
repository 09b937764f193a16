//! `==`, `/=`, `<`, `<=` and `compare` on two constructed values (lists,
//! tuples, derived data), walked by the machine over what is already
//! evaluated before the library's `eqCon`/`cmpCon` are called.
//!
//! Note [Comparing evaluated values]
//! ----------------------------------------
//! The library compares two constructors with `eqCon`, `neCon` and `cmpCon`,
//! interpreted: the constructors' indices, then their fields left to
//! right, each with `==` or `compare` again (a list's head, then its
//! tail). Per field that is some fifteen machine steps. Here the machine
//! walks the two values itself in the same order, depth first, with the
//! pairs still to compare kept on the evaluation stack: a pair of words
//! (See Note [Primitives on words]) is compared, a pair of constructors
//! is compared by index and replaced by its fields' pairs, the first
//! field's on top. A difference decides the answer; no pairs left means
//! equal. The first pair the walk cannot take (a thunk, a `Double`, a big
//! `Integer`, a function) stops it, and the library compares the two
//! values from the start. That gives the same answer, and evaluates the
//! same things: the library meets the same pairs in the same order, so a
//! difference the walk found comes before anything the library would
//! evaluate. The walk evaluates and allocates nothing; what it costs when
//! it stops is the prefix it walked, once more. GHC's `-O0` code calls
//! the compiled instances of its optimised `base`; this is the
//! machine's counterpart. Measured (valgrind's instruction count):
//! lalr 8, which compares items (tuples of numbers and lists), 1.040G to
//! 0.754G; spellcheck 500, whose words are compared as strings, 3.72G to
//! 2.11G (a walk of lists alone, which handed the library the remaining
//! tails, made it 1.84G, and keeping the last single pair for the
//! library to resume from did not help: 2.19G).
//! The alternative, a primitive that compares whole values after forcing
//! them, would evaluate where `==` stops early (`"a" ++ undefined ==
//! "b"` is `False`).

use super::fast::compare;
use super::prims::comparison_con;
use super::{Machine, Next, Res};
use crate::prim::Prim;
use std::cmp::Ordering;

/// Where the walk stopped.
enum Walk {
    /// The values compare so.
    Decided(Ordering),
    /// A pair the walk cannot take: the library compares the values.
    Library,
}

impl Machine<'_, '_> {
    /// The comparison `p` of the constructors in slots `a[0]` and `a[1]`.
    /// See Note [Comparing evaluated values].
    pub(super) fn compare_values(&mut self, p: Prim, a: &[usize]) -> Res<Next> {
        let base = self.reserve(2)?;
        self.f.copy(base, a[0]);
        self.f.copy(base + 1, a[1]);
        let walk = self.walk(base)?;
        self.f.pop_to(base);
        match walk {
            Walk::Decided(o) => {
                self.set_con(super::RET, comparison_con(p, o));
                Ok(Next::Return)
            }
            Walk::Library => self.compare_constructors(p, a),
        }
    }

    /// Compare the pairs of slots from `base` up, the top pair first,
    /// until one differs or none is left.
    fn walk(&mut self, base: usize) -> Res<Walk> {
        loop {
            let top = self.f.depth();
            if top == base {
                return Ok(Walk::Decided(Ordering::Equal));
            }
            let (x, y) = (top - 2, top - 1);
            if let (Some(u), Some(v)) = (self.word1(x), self.word1(y)) {
                match compare(u, v) {
                    Some(Ordering::Equal) => self.f.pop_to(x),
                    Some(o) => return Ok(Walk::Decided(o)),
                    None => return Ok(Walk::Library),
                }
                continue;
            }
            let (Some(cx), Some(cy)) = (self.constructor(x), self.constructor(y)) else {
                return Ok(Walk::Library);
            };
            if cx != cy {
                let index = |c: u32| self.code.cons[c as usize].index;
                return Ok(Walk::Decided(index(cx).cmp(&index(cy))));
            }
            self.fields_in_place_of(x)?;
        }
    }

    /// Replace the pair of constructors at `x`, `x + 1` (of one
    /// constructor) by the pairs of their fields, field 0's on top: the
    /// last field's pair takes the values' own slots (a list's tails), the
    /// others go above.
    fn fields_in_place_of(&mut self, x: usize) -> Res<()> {
        let n = self.f.info(x).ptrs as usize;
        if n == 0 {
            self.f.pop_to(x);
            return Ok(());
        }
        let above = self.reserve(2 * (n - 1))?;
        for k in 0..n - 1 {
            let pair = above + 2 * (n - 2 - k);
            self.f.field(pair, x, k);
            self.f.field(pair + 1, x + 1, k);
        }
        self.f.field(x, x, n - 1);
        self.f.field(x + 1, x + 1, n - 1);
        Ok(())
    }
}
