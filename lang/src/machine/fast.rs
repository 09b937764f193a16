//! The primitives' fast path: arithmetic and comparison of two `Int`s
//! (or two small `Integer`s, or two `Char`s) and the conversion of one to
//! `Int`, read as words, without building `Num`s.
//!
//! Note [Primitives on words]
//! ----------------------------------------
//! Most primitive calls a program makes are `+`, `-`, `*` and the
//! comparisons on two `Int`s or two small `Integer`s (a loop counter, a
//! depth, a key). The general path reads each operand into a `Num` (an
//! enum that can hold a `BigInt`), unifies their types (See Note [Numbers
//! typed at run time] in `prim::num`) and matches on the pair: about 400
//! instructions a call on binary-trees. Here each operand's info table is
//! compared with the few tables of word-sized numbers, and the operation
//! done on the words; anything else (a `Double`, a `Word64`, a big
//! `Integer`, an overflow of a small `Integer`, a division by zero) falls
//! back to the general path, which gives the same answer and the same
//! errors. The results are allocated as the general path allocates them.
//! Measured on binary_trees 10 (valgrind's instruction count): 1.377G to
//! 1.292G for the arithmetic and comparisons, to 1.050G with the rest of
//! that session's changes, of which `ToInt` (every result of a function
//! whose signature says `Int`) 3%.
//!
//! Note [Tests applied in place]
//! ----------------------------------------
//! A native that applies a function it was given (`break`'s and
//! `span`'s `p x`, `filter`'s, `elemBy`'s `eq x y`) pushes its
//! continuation and applies the closure: a frame opened, its free
//! variables copied in, one machine step for the body, and a return
//! that pops the continuation. The functions such natives are given are
//! most often a section or a lambda whose whole body is a comparison
//! (`(== 0)`, `(> k)`, `\c -> c /= ' '`): an `Ir::WordPrim` on its
//! arguments, its free variables and top-level values. When those
//! operands are word-sized numbers already, the comparison is made on
//! them where they lie (the free variables read from the closure, as
//! the call would copy them into its frame) and its constructor returned
//! to the native's continuation, with no frame and no step; any other
//! operand (a thunk, a `Double`, a big `Integer`) leaves the call to
//! the machine, which gives the same answer. `break` and `span` then
//! split at once, and `filter` and `elemBy` go on to the next cell in
//! their loop, with no continuation pushed and popped. Which code bodies
//! are such comparisons is found once, when the program is loaded
//! (`Test::of`), so a native whose function is not one pays a look in a
//! table per element. This is what GHC's code for `break p` does with a
//! known comparison after inlining, but at run time: the call still goes
//! through the closure, and nothing is specialised. Measured on
//! `selector_leak` (one `(== 0)` an element): 837.3M to 764.4M
//! instructions at 200,000 elements (cachegrind; 808.6M with the
//! continuation still pushed and popped); MUT at 4,000,000 elements
//! 0.659 s to 0.590 s, fastest of seven alternated runs, against GHC
//! `-O0`'s 0.051 s (12.9x to 11.6x). Other programs within 0.5% in
//! instructions (binary_trees 12 1.003x, lalr 10 1.005x, circsim 1000
//! 0.990x, fibheaps 20000 0.998x: inlining moved by the change, not
//! work). The alternative, the same test at every `Ir::App` of the
//! machine, would cost every call of a function that is not such a
//! comparison its look in the table; not tried.

use super::tables::{static_char, static_int, CHAR_INFO, INTEGER_INFO, INT_INFO, PAP_BASE};
use super::prims::comparison_con;
use super::{Machine, Next, Res};
use crate::ir::{Atom, Code, Ir};
use gclab_core::ClosureType;
use gclab_core::InfoTable;
use crate::prim::Prim;
use std::cmp::Ordering;

/// A word-sized number as the fast path reads it.
#[derive(Clone, Copy)]
pub(super) enum Word1 {
    Int(i64),
    /// A small `Integer` (`IS`).
    Small(i64),
    Char(u32),
}

impl Machine<'_, '_> {
    /// The word-sized number in slot `s`, if it is one.
    pub(super) fn word1(&self, s: usize) -> Option<Word1> {
        let (info, w) = self.f.info_and_word(s);
        word1_of(info, w)
    }

    /// The constructor (a `Bool`, or an `Ordering`) that the function in
    /// slot `f` returns for the arguments in slots `args`, where it is a
    /// comparison of two word-sized numbers found at once (See Note
    /// [Tests applied in place]). None: apply it.
    pub(super) fn test_in_place(&self, f: usize, args: &[usize]) -> Option<u32> {
        let info = self.f.info(f);
        if info.closure_type != ClosureType::Fun || info.tag() >= PAP_BASE {
            return None;
        }
        let test = self.tests[info.tag() as usize].as_ref()?;
        if test.arity != args.len() {
            return None;
        }
        let x = self.operand(f, test, args, test.operands[0])?;
        let y = self.operand(f, test, args, test.operands[1])?;
        Some(comparison_con(test.prim, compare(x, y)?))
    }

    /// Operand `a` of `test`, the body of the function in slot `f`,
    /// called with the arguments in slots `args`, as a word-sized number,
    /// if it is one: an argument, a free variable (read from the closure,
    /// as the call would copy it into its frame), or a top-level value.
    fn operand(&self, f: usize, test: &Test, args: &[usize], a: Atom) -> Option<Word1> {
        match a {
            Atom::Slot(i) if (i as usize) < test.arity => self.word1(args[i as usize]),
            Atom::Slot(i) => {
                let (info, w) = self.f.field_info_and_word(f, i as usize - test.arity);
                word1_of(info, w)
            }
            Atom::Global(g) => self.word1(super::GLOBALS + g as usize),
        }
    }

    /// The primitive `p` on the slots `a`, if both operands are words
    /// this path knows (See Note [Primitives on words]).
    pub(super) fn prim_on_words(&mut self, p: Prim, a: &[Atom]) -> Option<Res<Next>> {
        if p == Prim::ToInt {
            return self.convert_to_int(self.slot(a[0]));
        }
        if !p.has_word_path() {
            return None;
        }
        let (x, y) = (self.word1(self.slot(a[0]))?, self.word1(self.slot(a[1]))?);
        match p {
            Prim::Eq | Prim::Ne | Prim::Lt | Prim::Le | Prim::Compare => {
                let o = compare(x, y)?;
                self.set_con(super::RET, comparison_con(p, o));
                Some(Ok(Next::Return))
            }
            _ => {
                let (info, r) = arithmetic(p, x, y)?;
                Some(self.set_word(super::RET, info, r as u64).map(|()| Next::Return))
            }
        }
    }

    /// The value in the return register converted with `p`, a
    /// conversion (See `Ir::Coerce`): an `Int` or a small `Integer` to
    /// `Int` on its word, the rest by the general primitive.
    #[inline(never)]
    pub(super) fn convert(&mut self, p: Prim) -> Res<Next> {
        if p == Prim::ToInt {
            if let Some(r) = self.convert_to_int(super::RET) {
                return r;
            }
        }
        self.prim(p, &[super::RET])
    }

    /// `fromIntegral` at `Int` (a signature's result type, See
    /// `desugar::bind`'s `coerce_result`) of a word: an `Int` is returned
    /// as it is, a small `Integer` boxed as an `Int`.
    fn convert_to_int(&mut self, s: usize) -> Option<Res<Next>> {
        match self.word1(s)? {
            Word1::Int(_) => {
                self.f.copy(super::RET, s);
                Some(Ok(Next::Return))
            }
            Word1::Small(v) => Some(self.set_word(super::RET, &INT_INFO, v as u64).map(|()| Next::Return)),
            Word1::Char(_) => None,
        }
    }
}

/// A function whose whole body is a comparison that may be made in
/// place (See Note [Tests applied in place]).
pub(super) struct Test {
    prim: Prim,
    arity: usize,
    /// Each an argument, a free variable or a top-level value.
    operands: [Atom; 2],
}

impl Test {
    /// The test code `code` is, if it is one: a function of no native
    /// body whose body is a comparison with a word path, on atoms that
    /// are its arguments, its free variables or top-level values.
    pub(super) fn of(code: &Code, ir: &[Ir]) -> Option<Test> {
        let Ir::WordPrim { prim, args, .. } = &ir[code.body as usize] else { return None };
        let comparison = matches!(prim, Prim::Eq | Prim::Ne | Prim::Lt | Prim::Le | Prim::Compare);
        let (arity, free) = (code.arity as usize, code.free as usize);
        let in_reach = |a: &Atom| match *a {
            Atom::Slot(i) => (i as usize) < arity + free,
            Atom::Global(_) => true,
        };
        if arity == 0 || code.native.is_some() || !comparison || args.len() != 2 || !args.iter().all(in_reach) {
            return None;
        }
        Some(Test { prim: *prim, arity, operands: [args[0], args[1]] })
    }
}

/// The word-sized number an object of `info` whose first word is `w` is,
/// if it is one.
fn word1_of(info: &'static InfoTable, w: Option<gclab_core::constants::Word>) -> Option<Word1> {
    if std::ptr::eq(info, &INT_INFO) {
        Some(Word1::Int(w? as i64))
    } else if std::ptr::eq(info, &INTEGER_INFO) {
        Some(Word1::Small(w? as i64))
    } else if std::ptr::eq(info, &CHAR_INFO) {
        Some(Word1::Char(w? as u32))
    } else if let Some(v) = static_int(info) {
        Some(Word1::Int(v))
    } else {
        static_char(info).map(Word1::Char)
    }
}

/// The two operands at one type: an `Int` and a small `Integer` meet at
/// `Int`, as `prim::num::unify` has them.
fn integers(x: Word1, y: Word1) -> Option<(i64, i64, bool)> {
    match (x, y) {
        (Word1::Small(a), Word1::Small(b)) => Some((a, b, false)),
        (Word1::Int(a) | Word1::Small(a), Word1::Int(b) | Word1::Small(b)) => Some((a, b, true)),
        _ => None,
    }
}

/// The order of two words of one type (None for an `Int` against a `Char`).
pub(super) fn compare(x: Word1, y: Word1) -> Option<Ordering> {
    match (x, y) {
        (Word1::Char(a), Word1::Char(b)) => Some(a.cmp(&b)),
        _ => integers(x, y).map(|(a, b, _)| a.cmp(&b)),
    }
}

/// `+ - * quot rem div mod` on two integers, with the table of the
/// result's type: an `Int` result wraps; a small `Integer` that would
/// overflow, a division by zero and `minBound` divided by -1 go to the
/// general path. Inlined, with the divisions a call (`division`): left
/// to the compiler, the whole was inlined or not as the code around it
/// changed, 2-3% of binary_trees' instructions either way.
#[inline(always)]
pub(super) fn arithmetic(p: Prim, x: Word1, y: Word1) -> Option<(&'static InfoTable, i64)> {
    let (a, b, int) = integers(x, y)?;
    let r = match p {
        Prim::Add if int => a.wrapping_add(b),
        Prim::Sub if int => a.wrapping_sub(b),
        Prim::Mul if int => a.wrapping_mul(b),
        Prim::Add => a.checked_add(b)?,
        Prim::Sub => a.checked_sub(b)?,
        Prim::Mul => a.checked_mul(b)?,
        _ => division(p, a, b)?,
    };
    Some((if int { &INT_INFO } else { &INTEGER_INFO }, r))
}

/// `quot rem div mod` on two integers; None for a division by zero and
/// `minBound` divided by -1.
#[inline(never)]
fn division(p: Prim, a: i64, b: i64) -> Option<i64> {
    if b == 0 || (a == i64::MIN && b == -1) {
        return None;
    }
    Some(match p {
        Prim::Quot => a / b,
        Prim::Rem => a % b,
        Prim::Div => num_integer::Integer::div_floor(&a, &b),
        _ => num_integer::Integer::mod_floor(&a, &b),
    })
}
