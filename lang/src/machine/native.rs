//! Native library functions: the machine's own bodies for the library's
//! hottest list functions, each keeping what its Haskell definition in
//! `lib/` does (which arguments it evaluates, in what order, what it
//! allocates and leaves unevaluated).
//!
//! Note [Native library functions]
//! ----------------------------------------
//! GHC runs a program's calls of `++`, `length`, `!!`, `zip`, `break` or
//! `[a .. b]` from its `base`, compiled with `-O2` whatever flags the
//! program has: a loop over an unboxed counter, a case on a register.
//! gclab-lang's library is Haskell too, interpreted: `length` took three
//! machine steps an element and allocated a boxed count each, `break`
//! seven, `++` four, so a program that is all list plumbing
//! (`selector_leak`) ran at 19 steps an element and 19x GHC `-O0`'s MUT.
//!
//! The functions of `Native::ALL` have a native body here as well. A
//! call (known or through a closure) opens the function's frame as for
//! its Haskell body and runs the native instead, in that one step; a
//! thunk of such a call that a native left unevaluated runs the native
//! when it is entered, with no step of its own (`Code::native_call`). A
//! native reads its arguments' slots, allocates through the frame (every
//! pointer in a slot the GC scans, as an instruction's are) and returns.
//! Where it needs an argument evaluated that is a thunk, or the value of
//! a function it was given (`elemBy`'s `eq x y`, `break`'s `p x`), it
//! pushes a continuation (`Cont::Native`, with one word of state: a
//! count, an index, which argument it waits for) and enters or applies
//! it; the value comes back to it in the return register, its frame
//! restored as a case's is (a test that is a comparison of two words is
//! made where it lies instead: See Note [Tests applied in place] in
//! `fast`). Where its arguments are not what it handles
//! (a `Double` range, an `Integer` that would overflow a word, `!!` past
//! the end) it runs the Haskell body in the same frame, which gives the
//! same value or GHC's error message. So laziness, black-holing and
//! `<<loop>>`, the selector thunks of `break` that the GC evaluates, and
//! the objects a heap profile counts stay as the definitions make them;
//! a native allocates a tail it leaves unevaluated as a thunk of a code
//! that calls the function again (`NativeBody::suspended`, named as the
//! definition's own thunk is). What changes: loops over an unboxed count
//! (`length`, `!!`) allocate no box an element, as GHC's `base` does not,
//! and `[a ..]` boxes `a + 1` when it makes the cell, not when the tail
//! is entered (the same bytes).
//!
//! `tests/lang_natives.rs` runs each native on the lazy corners of its
//! definition (infinite lists, `undefined` where the definition does not
//! look, runtime errors, `<<loop>>`) against the Haskell bodies
//! (`Compiled::without_natives`) and GHC's answers.
//!
//! What is not the same: a native waiting keeps its whole (small) frame
//! where a case keeps the slots its alternatives read, so what survives
//! a GC can differ a little. Bytes copied, against the definitions:
//! power 100 1.043x (`zipWith`), linear 1000 0.902x (`map`), lcss 500
//! 1.0006x, and equal on circsim, fibheaps, spellcheck, lalr and
//! constraints; bytes allocated are equal. Under `-G1`, where every GC
//! copies everything live, power copies less with the natives (0.936x),
//! so they do not keep more alive: what differs is which objects a young
//! GC finds alive and promotes, which was not traced further.
//!
//! Measured (`scripts/programs-vs-ghc -n 3`, MUT): `selector_leak`
//! 1,000,000 0.23 s to 0.155-0.162 s over four runs (1 step an
//! element; GHC `-O0`: 0.012-0.013 s), `lalr 16` 0.131 s to 0.095 s (GHC:
//! 0.010 s); `map`, `filter` and `zipWith`: circsim 5000 0.948x
//! (0.935-0.967, `scripts/ab -n 3`), power 100 1.007x (its machine steps
//! 65 to 29 million); the programs whose time is in their own code,
//! within noise. What a native cannot remove is the work of laziness
//! itself: `selector_leak` still enters, black-holes and updates four
//! thunks an element (docs/programs.md).
//!
//! The alternative, making the whole machine faster, is what the earlier
//! steps did (See Note [Primitives on evaluated variables] and Note
//! [Known calls] in `lower`); a step is about 12 ns, and a list function
//! that is a case, an allocation and a call per element cannot be made
//! one step an element by the compiler without compiling it, which is
//! what GHC's `base` is and what this does by hand.
//!
//! The small helpers every native calls for each element (`construct`,
//! `cons_of_head`, `suspend`, `wait`, `push_native`, `list`) are
//! inlined, as is the machine's `back_to_frame`: as calls, each saved
//! and restored the registers of a large caller. selector_leak 200,000
//! 764M to 706M instructions (cachegrind), binary_trees 12, circsim 1000
//! and lalr 10 0.96x, fibheaps, gcbench, lcss and hash 0.98x. Forcing
//! more in (`convert_to_int`, `word1_of`) moved code rather than work:
//! binary_trees 1.005x-1.021x.

use super::fast::{self, Word1};
use super::tables::INT_INFO;
use super::{Cont, Machine, Next, Res, RET};
use crate::desugar::builtin::{CONS, FALSE, NIL, TRUE, TUPLE2};
use crate::ir::{CodeId, Native};
use crate::prim::Prim;
use std::cmp::Ordering;

/// What a list argument is, looked at without evaluating it.
enum List {
    Thunk,
    Nil,
    Cons,
}

/// The word a native waiting for a function's result keeps (`elemBy`,
/// `filter`, `break`, `span`); waiting for a list argument, they keep
/// `WAIT_LIST`.
const WAIT_TEST: u64 = 1;
const WAIT_LIST: u64 = 0;

/// `resumed` if a native that also waits for tests came back with its
/// list argument's value (for `Machine::list_arg`), else None.
fn waited_for_list(resumed: Option<u64>) -> Option<u64> {
    resumed.filter(|&w| w == WAIT_LIST)
}

impl Machine<'_, '_> {
    /// Run the native body of code `c` in its frame (the current one):
    /// on its call (`resumed` None), or again with the value it waited
    /// for in the return register and the word it kept.
    pub(super) fn native(&mut self, c: CodeId, resumed: Option<u64>) -> Res<Next> {
        let body = self.code.codes[c as usize].native.expect("a code with a native body");
        let fp = self.fp;
        match body.native {
            Native::NumFrom => self.num_from(c, fp, None),
            Native::NumFromTo => self.num_from(c, fp, Some(fp + 1)),
            Native::Append => self.append(c, fp, resumed),
            Native::Map => self.map(c, fp, resumed),
            Native::Filter => self.filter(c, fp, resumed),
            Native::LenAcc => self.len_acc(c, fp, resumed),
            Native::Nth => self.nth(c, fp, resumed),
            Native::Take => self.take(c, fp, resumed),
            Native::Drop => self.drop(c, fp, resumed),
            Native::Zip => self.zip(c, fp, resumed),
            Native::ZipWith => self.zip_with(c, fp, resumed),
            Native::ElemBy => self.elem_by(c, fp, resumed),
            Native::Break => self.break_span(c, fp, resumed, true),
            Native::Span => self.break_span(c, fp, resumed, false),
        }
    }

    /// Leave the call to code `c`'s Haskell body, in the same frame
    /// grown to the body's size.
    fn definition(&mut self, c: CodeId) -> Res<Next> {
        let code = &self.code.codes[c as usize];
        let (frame, body) = (code.frame as usize, code.body);
        let top = self.fp + frame;
        if top > self.frame_top {
            self.reserve(top - self.frame_top)?;
            self.frame_top = top;
        }
        Ok(Next::Eval(body))
    }

    /// Evaluate the thunk in slot `s`, then come back to native `c`'s
    /// frame with `word`.
    #[inline(always)]
    fn wait(&mut self, c: CodeId, word: u64, s: usize) -> Res<Next> {
        self.push_native(c, word)?;
        self.enter(s)
    }

    /// Come back to native `c`'s frame with `word` when the value being
    /// computed is returned.
    #[inline(always)]
    fn push_native(&mut self, c: CodeId, word: u64) -> Res<()> {
        let k = Cont::Native { code: c, fp: self.fp, word };
        self.push(k, self.frame_top)
    }

    /// Apply the function in slot `f` to the values in `args`, then come
    /// back to native `c` with `word`.
    fn call_back(&mut self, c: CodeId, word: u64, f: usize, args: &[usize]) -> Res<Next> {
        self.push_native(c, word)?;
        let at = self.f.depth();
        for &a in args {
            let r = self.f.push_slot(a);
            self.grow(r)?;
        }
        self.f.copy(RET, f);
        self.apply(at, args.len())
    }

    /// The list in slot `s`, as it is.
    #[inline(always)]
    fn list(&self, s: usize) -> List {
        let info = self.f.info(s);
        if info.closure_type.is_thunk() {
            List::Thunk
        } else if info.tag() == NIL {
            List::Nil
        } else {
            List::Cons
        }
    }

    /// The list argument in slot `xs`, as it is; when the native is
    /// resumed, the value it waited for is taken into it first. (A
    /// version that also began the wait, its result holding the next
    /// step, made selector_leak's MUT 1.06-1.08x.)
    #[inline(always)]
    fn list_arg(&mut self, xs: usize, resumed: Option<u64>) -> List {
        if resumed.is_some() {
            self.f.copy(xs, RET);
        }
        self.list(xs)
    }

    /// Is the value in the return register `True`?
    fn returned_true(&self) -> bool {
        self.f.info(RET).tag() == TRUE
    }

    /// Slot `dst` := the constructor `con` of the values in `fields`.
    #[inline(always)]
    fn construct(&mut self, dst: usize, con: u32, fields: &[usize]) -> Res<()> {
        let r = self.f.alloc(dst, self.tables.cons[con as usize], fields, &[]);
        self.grow(r)
    }

    /// Slot `dst` := `x : rest`, `x` the head of the cell in slot `cell`
    /// (read into slot `x`), `rest` the value in slot `rest`.
    #[inline(always)]
    fn cons_of_head(&mut self, dst: usize, cell: usize, x: usize, rest: usize) -> Res<()> {
        self.f.field(x, cell, 0);
        self.construct(dst, CONS, &[x, rest])
    }

    /// The count a looping native keeps: when resumed, the word it kept
    /// (its list slot `xs` takes the value it waited for); when called,
    /// the `Int` in slot `n`, or a small `Integer` there too where
    /// `small`. None: a count it leaves to its definition.
    fn count(&mut self, resumed: Option<u64>, xs: usize, n: usize, small: bool) -> Option<i64> {
        if let Some(k) = resumed {
            self.f.copy(xs, RET);
            return Some(k as i64);
        }
        match self.word1(n)? {
            Word1::Int(k) => Some(k),
            Word1::Small(k) if small => Some(k),
            _ => None,
        }
    }

    /// Slot `dst` := a thunk applying the value in slot `fun_and_args[0]`
    /// to the values in the rest (code `c`'s `NativeBody::applied`).
    fn suspend_apply(&mut self, c: CodeId, dst: usize, fun_and_args: &[usize]) -> Res<()> {
        let body = self.code.codes[c as usize].native.expect("a code with a native body");
        self.thunk(body.applied.expect("a native that applies its function lazily"), dst, fun_and_args)
    }

    /// Slot `dst` := a thunk of code `c`'s function applied to `args`.
    #[inline(always)]
    fn suspend(&mut self, c: CodeId, dst: usize, args: &[usize]) -> Res<()> {
        let body = self.code.codes[c as usize].native.expect("a code with a native body");
        self.thunk(body.suspended, dst, args)
    }

    /// Slot `dst` := a thunk of code `code` whose free variables are the
    /// values in `free`.
    #[inline(always)]
    fn thunk(&mut self, code: CodeId, dst: usize, free: &[usize]) -> Res<()> {
        let r = self.f.alloc(dst, self.tables.thunks[code as usize], free, &[]);
        self.grow(r)
    }

    /// `numFrom a = a : numFrom (a + 1)`, and with `to`'s slot
    /// `numFromTo a b = if a > b then [] else a : numFromTo (a + 1) b`,
    /// on word-sized integers (the literal `1` is an `Integer`, taking
    /// `a`'s type as `prim::num` unifies them).
    fn num_from(&mut self, c: CodeId, fp: usize, to: Option<usize>) -> Res<Next> {
        let Some(a) = self.word1(fp) else { return self.definition(c) };
        if let Some(b) = to {
            let Some(order) = self.word1(b).and_then(|b| fast::compare(a, b)) else { return self.definition(c) };
            if order == Ordering::Greater {
                return self.ret_con(NIL);
            }
        }
        let Some((info, next)) = fast::arithmetic(Prim::Add, a, Word1::Small(1)) else { return self.definition(c) };
        let (succ, rest) = (fp + 2, fp + 3);
        self.set_word(succ, info, next as u64)?;
        match to {
            Some(b) => self.suspend(c, rest, &[succ, b])?,
            None => self.suspend(c, rest, &[succ])?,
        }
        self.construct(RET, CONS, &[fp, rest])?;
        Ok(Next::Return)
    }

    /// `[] ++ ys = ys; (x : xs) ++ ys = x : (xs ++ ys)`.
    fn append(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (xs, ys) = (fp, fp + 1);
        match self.list_arg(xs, resumed) {
            List::Thunk => self.wait(c, WAIT_LIST, xs),
            List::Nil => self.enter(ys),
            List::Cons => {
                let (x, rest) = (fp + 2, fp + 3);
                self.f.field(x, xs, 1);
                self.suspend(c, rest, &[x, ys])?;
                self.cons_of_head(RET, xs, x, rest)?;
                Ok(Next::Return)
            }
        }
    }

    /// `map _ [] = []; map f (x : xs) = f x : map f xs`.
    fn map(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (f, xs) = (fp, fp + 1);
        match self.list_arg(xs, resumed) {
            List::Thunk => self.wait(c, WAIT_LIST, xs),
            List::Nil => self.ret_con(NIL),
            List::Cons => {
                // In the definition's order: `f x`, then `map f xs`.
                let (x, fx, rest) = (fp + 2, fp + 3, fp + 4);
                self.f.field(x, xs, 0);
                self.suspend_apply(c, fx, &[f, x])?;
                self.f.field(x, xs, 1);
                self.suspend(c, rest, &[f, x])?;
                self.construct(RET, CONS, &[fx, rest])?;
                Ok(Next::Return)
            }
        }
    }

    /// `filter p (x : xs) = if p x then x : filter p xs else filter p
    /// xs`: the cells that fail the test are passed over in a loop.
    fn filter(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (p, xs, x) = (fp, fp + 1, fp + 2);
        if resumed == Some(WAIT_TEST) && self.returned_true() {
            return self.keep_head(c, fp);
        }
        match self.first_passing(c, resumed, [xs, x], p, &[x], NIL) {
            Some(next) => next,
            None => self.keep_head(c, fp),
        }
    }

    /// The first cell, from the one in slot `xs`, whose head (read into
    /// slot `x`) passes the test, the function in slot `f` applied to the
    /// values in `args`: None when found (the cell left in `xs`), else
    /// what the native does next (wait for a tail, return the nullary
    /// constructor `end` at the list's end, or apply the test, whose value
    /// comes back to it with `WAIT_TEST`). A test that came back false
    /// (`resumed`) moves past its cell first; one that came back true the
    /// caller has taken.
    fn first_passing(&mut self, c: CodeId, resumed: Option<u64>, [xs, x]: [usize; 2], f: usize, args: &[usize], end: u32) -> Option<Res<Next>> {
        if resumed == Some(WAIT_TEST) {
            self.f.field(xs, xs, 1);
        }
        let mut waited = waited_for_list(resumed);
        loop {
            match self.list_arg(xs, waited.take()) {
                List::Thunk => return Some(self.wait(c, WAIT_LIST, xs)),
                List::Nil => return Some(self.ret_con(end)),
                List::Cons => {
                    self.f.field(x, xs, 0);
                    // See Note [Tests applied in place] in `fast`.
                    match self.test_in_place(f, args) {
                        Some(TRUE) => return None,
                        Some(_) => self.f.field(xs, xs, 1),
                        None => return Some(self.call_back(c, WAIT_TEST, f, args)),
                    }
                }
            }
        }
    }

    /// `filter`'s cell for the head of the cell in slot `fp + 1`, which
    /// passed the test: `x : filter p xs`.
    fn keep_head(&mut self, c: CodeId, fp: usize) -> Res<Next> {
        let (p, xs, x, rest) = (fp, fp + 1, fp + 2, fp + 3);
        self.f.field(x, xs, 1);
        self.suspend(c, rest, &[p, x])?;
        self.cons_of_head(RET, xs, x, rest)?;
        Ok(Next::Return)
    }

    /// `lenAcc [] n = n; lenAcc (_ : xs) n = lenAcc xs (n + 1)` on an
    /// `Int` count kept unboxed, in the continuation's word while a
    /// tail is evaluated.
    fn len_acc(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let xs = fp;
        let Some(mut n) = self.count(resumed, xs, fp + 1, false) else { return self.definition(c) };
        loop {
            match self.list(xs) {
                List::Thunk => return self.wait(c, n as u64, xs),
                List::Nil => {
                    self.set_word(RET, &INT_INFO, n as u64)?;
                    return Ok(Next::Return);
                }
                List::Cons => {
                    self.f.field(xs, xs, 1);
                    n = n.wrapping_add(1);
                }
            }
        }
    }

    /// `nth (x : xs) n = if n == 0 then x else nth xs (n - 1)` on an
    /// index kept unboxed (an `Int`, or a small `Integer` where the
    /// program's numbers have no signature); `nth [] _` is the
    /// definition's error.
    fn nth(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let xs = fp;
        let Some(mut n) = self.count(resumed, xs, fp + 1, true) else { return self.definition(c) };
        loop {
            match self.list(xs) {
                List::Thunk => return self.wait(c, n as u64, xs),
                List::Nil => return self.definition(c),
                List::Cons if n == 0 => {
                    let x = fp + 2;
                    self.f.field(x, xs, 0);
                    return self.enter(x);
                }
                List::Cons => {
                    self.f.field(xs, xs, 1);
                    n -= 1;
                }
            }
        }
    }

    /// `take n xs = if n <= 0 then [] else case xs of [] -> []; (y : ys)
    /// -> y : take (n - 1) ys` on a word-sized `n`, the `n - 1` boxed
    /// with the cell (the definition's thunk of it, the same size).
    fn take(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (n, xs) = (fp, fp + 1);
        let Some(count) = self.word1(n) else { return self.definition(c) };
        let Some(positive) = fast::compare(count, Word1::Small(0)).map(|o| o == Ordering::Greater) else { return self.definition(c) };
        if !positive {
            return self.ret_con(NIL);
        }
        match self.list_arg(xs, resumed) {
            List::Thunk => self.wait(c, WAIT_LIST, xs),
            List::Nil => self.ret_con(NIL),
            List::Cons => {
                let Some((info, less)) = fast::arithmetic(Prim::Sub, count, Word1::Small(1)) else { return self.definition(c) };
                let (m, y, rest) = (fp + 2, fp + 3, fp + 4);
                self.set_word(m, info, less as u64)?;
                self.f.field(y, xs, 1);
                self.suspend(c, rest, &[m, y])?;
                self.cons_of_head(RET, xs, y, rest)?;
                Ok(Next::Return)
            }
        }
    }

    /// `drop n xs = if n <= 0 then xs else case xs of [] -> []; (_ : ys)
    /// -> drop (n - 1) ys` on a count kept unboxed, in the continuation's
    /// word while a tail is evaluated.
    fn drop(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let xs = fp + 1;
        let Some(mut n) = self.count(resumed, xs, fp, true) else { return self.definition(c) };
        loop {
            if n <= 0 {
                return self.enter(xs);
            }
            match self.list(xs) {
                List::Thunk => return self.wait(c, n as u64, xs),
                List::Nil => return self.ret_con(NIL),
                List::Cons => {
                    self.f.field(xs, xs, 1);
                    n -= 1;
                }
            }
        }
    }

    /// `zip (a : as) (b : bs) = (a, b) : zip as bs; zip _ _ = []`: the
    /// first list evaluated, the second only when the first is a cell.
    /// The word: which list is being evaluated.
    fn zip(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let lists = [fp, fp + 1];
        if let Some(next) = self.two_cells(c, lists, resumed) {
            return next;
        }
        let (a, b, rest) = (fp + 2, fp + 3, fp + 4);
        self.f.field(a, lists[0], 1);
        self.f.field(b, lists[1], 1);
        self.suspend(c, rest, &[a, b])?;
        self.f.field(a, lists[0], 0);
        self.f.field(b, lists[1], 0);
        self.construct(a, TUPLE2, &[a, b])?;
        self.construct(RET, CONS, &[a, rest])?;
        Ok(Next::Return)
    }

    /// `zipWith f (a : as) (b : bs) = f a b : zipWith f as bs; zipWith _
    /// _ _ = []`, the lists evaluated as `zip` evaluates them.
    fn zip_with(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (f, lists) = (fp, [fp + 1, fp + 2]);
        if let Some(next) = self.two_cells(c, lists, resumed) {
            return next;
        }
        // In the definition's order: `f a b`, then `zipWith f as bs`.
        let (a, b, fab, rest) = (fp + 3, fp + 4, fp + 5, fp + 6);
        self.f.field(a, lists[0], 0);
        self.f.field(b, lists[1], 0);
        self.suspend_apply(c, fab, &[f, a, b])?;
        self.f.field(a, lists[0], 1);
        self.f.field(b, lists[1], 1);
        self.suspend(c, rest, &[f, a, b])?;
        self.construct(RET, CONS, &[fab, rest])?;
        Ok(Next::Return)
    }

    /// `zip`'s and `zipWith`'s lists in slots `lists`: the first
    /// evaluated, the second only when the first is a cell (the word
    /// kept: which list is being evaluated). None when both are cells;
    /// else what the native does next (wait, or return `[]`).
    fn two_cells(&mut self, c: CodeId, lists: [usize; 2], resumed: Option<u64>) -> Option<Res<Next>> {
        if let Some(k) = resumed {
            self.f.copy(lists[k as usize], RET);
        }
        for (k, &l) in lists.iter().enumerate() {
            match self.list(l) {
                List::Thunk => return Some(self.wait(c, k as u64, l)),
                List::Nil => return Some(self.ret_con(NIL)),
                List::Cons => {}
            }
        }
        None
    }

    /// `elemBy _ _ [] = False; elemBy eq y (x : xs) = if eq x y then
    /// True else elemBy eq y xs`.
    fn elem_by(&mut self, c: CodeId, fp: usize, resumed: Option<u64>) -> Res<Next> {
        let (eq, y, xs, x) = (fp, fp + 1, fp + 2, fp + 3);
        if resumed == Some(WAIT_TEST) && self.returned_true() {
            return Ok(Next::Return);
        }
        match self.first_passing(c, resumed, [xs, x], eq, &[x, y], FALSE) {
            Some(next) => next,
            None => self.ret_con(TRUE),
        }
    }

    /// `break p` (`is_break`) and `span p`: the longest prefix whose
    /// elements fail (`break`) or pass (`span`) the test, and the rest:
    /// `break p (x : xs') = if p x then ([], x : xs') else (x : ys, zs)
    /// where (ys, zs) = break p xs'`, the pair's second half and the
    /// prefix's tail selector thunks over the pair of the rest.
    fn break_span(&mut self, c: CodeId, fp: usize, resumed: Option<u64>, is_break: bool) -> Res<Next> {
        let (p, xs) = (fp, fp + 1);
        if resumed == Some(WAIT_TEST) {
            return self.split(c, fp, self.returned_true() == is_break);
        }
        match self.list_arg(xs, resumed) {
            List::Thunk => self.wait(c, WAIT_LIST, xs),
            List::Nil => {
                let nil = fp + 2;
                self.set_con(nil, NIL);
                self.construct(RET, TUPLE2, &[nil, nil])?;
                Ok(Next::Return)
            }
            List::Cons => {
                let x = fp + 2;
                self.f.field(x, xs, 0);
                match self.test_in_place(p, &[x]) {
                    // See Note [Tests applied in place] in `fast`.
                    Some(con) => self.split(c, fp, (con == TRUE) == is_break),
                    None => self.call_back(c, WAIT_TEST, p, &[x]),
                }
            }
        }
    }

    /// `break`'s or `span`'s pair for the cell in slot `fp + 1`, its
    /// head tested: the split is here (`([], xs)`) or further on.
    fn split(&mut self, c: CodeId, fp: usize, here: bool) -> Res<Next> {
        let (p, xs) = (fp, fp + 1);
        let (x, pair, ys, zs, prefix) = (fp + 2, fp + 3, fp + 4, fp + 5, fp + 6);
        if here {
            self.set_con(x, NIL);
            self.construct(RET, TUPLE2, &[x, xs])?;
            return Ok(Next::Return);
        }
        self.f.field(x, xs, 1);
        self.suspend(c, pair, &[p, x])?;
        let (first, second) = (self.tables.selector(0), self.tables.selector(1));
        let r = self.f.alloc(ys, first, &[pair], &[]);
        self.grow(r)?;
        let r = self.f.alloc(zs, second, &[pair], &[]);
        self.grow(r)?;
        self.cons_of_head(prefix, xs, x, ys)?;
        self.construct(RET, TUPLE2, &[prefix, zs])?;
        Ok(Next::Return)
    }
}
