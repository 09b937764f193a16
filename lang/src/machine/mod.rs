//! The eval/apply machine: runs compiled code on gclab's heap through the
//! `Mutator` API, with every value it holds in a STACK object the GC
//! scans.
//!
//! Note [Frames on the heap stack]
//! ----------------------------------------
//! A code body runs in a frame: consecutive slots of the evaluation stack
//! (a heap STACK object, See Note [Evaluation stacks] in core's
//! `mutator::stack`) holding its arguments, its free variables (copied
//! out of its closure on entry) and its locals. Slot 0 is the return
//! register: a value being returned is there. The slots above it hold
//! the program's top-level values (its CAFs, as GHC's static roots).
//!
//! What GHC keeps on its stack beside pointers (return addresses, frame
//! layouts) is kept here in a Rust vector of continuations, one per
//! pending case, update, application or selection, each naming the stack
//! depth its frame needs kept; they count against `+RTS -K` as GHC's
//! frames do (See `Machine::push`). So the GC sees every pointer the
//! computation holds, and a deep recursion grows the STACK object, not
//! Rust's stack.
//!
//! A call in tail position drops the caller's frame: its arguments slide
//! down to the depth the top continuation keeps. A thunk being evaluated
//! is black-holed (a second entry is `<<loop>>`) under an update
//! continuation that overwrites it with an indirection to its value.
//!
//! The cost against GHC's compiled code: an instruction is a match on an
//! arena entry, and a slot access a load from the pinned stack (See Note
//! [Pinned frames] in core's `mutator::frame`) with a test of its depth.
//! The alternative, walking the syntax tree on Rust's stack, would hide
//! the evaluation's pointers from the GC.

mod apply;
mod fast;
mod native;
mod value_compare;
mod prims;
pub mod tables;
mod values;

use crate::ir::{Alloc, Atom, CodeId, Compiled, GlobalInit, Ir, IrId};
use gclab_core::info::NULL_OBJECT;
use gclab_core::mutator::Frame;
use gclab_core::{ClosureType, Mutator};
use std::io::Write;
use tables::Tables;

/// Slot 0: the return register.
const RET: usize = 0;
/// The first top-level value's slot.
const GLOBALS: usize = 1;
/// What a pending continuation counts for against `+RTS -K`.
const CONT_BYTES: usize = 2 * gclab_core::constants::WORD_SIZE;

/// Why a program stopped other than by returning from `main`.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// A run-time error with GHC's message (`error`, a failed match...).
    Error(String),
    /// A thunk entered while under evaluation.
    Loop,
    /// The evaluation stack reached `+RTS -K`.
    StackOverflow(usize),
    /// `exitWith`.
    Exit(i32),
    /// Writing the program's output failed.
    Output(String),
}

/// A pending continuation: what to do with the value being returned.
#[derive(Debug, Clone, Copy)]
enum Cont {
    /// Choose an alternative of the case `ir` in the frame at `fp`, whose
    /// slots end at `top` (See Note [What a case keeps] in `lower::live`).
    Case { ir: IrId, fp: usize, top: usize },
    /// Overwrite the thunk in `slot` with the value.
    Update { slot: usize },
    /// Apply the value (a function) to the `n` arguments at `at`.
    Apply { at: usize, n: usize },
    /// Take field `field` of the value and evaluate it (a selector thunk).
    Select { field: usize },
    /// Convert the value with the primitive (See `Ir::Coerce`).
    Coerce(crate::prim::Prim),
    /// Go on with the native body of code `code` in its frame at `fp`,
    /// with the word it kept (See Note [Native library functions] in
    /// `native`).
    Native { code: CodeId, fp: usize, word: u64 },
}

impl Cont {
    /// The stack depth this continuation needs kept.
    fn keeps(&self) -> usize {
        match *self {
            Cont::Case { .. } | Cont::Native { .. } => unreachable!("a case's or a native's continuation keeps its frame: See `Machine::push_case`"),
            Cont::Update { slot } => slot + 1,
            Cont::Apply { at, n } => at + n,
            Cont::Select { .. } | Cont::Coerce(_) => 0,
        }
    }
}

/// The absolute slot of an atom in the frame at `fp`.
#[inline(always)]
fn slot_in(fp: usize, a: Atom) -> usize {
    match a {
        Atom::Slot(s) => fp + s as usize,
        Atom::Global(g) => GLOBALS + g as usize,
    }
}

/// What the machine does next.
enum Next {
    Eval(IrId),
    Return,
}

/// A running program.
pub struct Machine<'a, 'rt> {
    /// The evaluation stack, pinned (See Note [Pinned frames] in core's
    /// `mutator::frame`); the mutator is reached through it.
    f: Frame<'a, 'rt>,
    code: &'a Compiled,
    tables: Tables,
    /// The pending continuations, each with the stack depth it keeps (a
    /// selection keeps what the one below it keeps).
    conts: Vec<(Cont, usize)>,
    /// How many continuations `+RTS -K` allows (See `Machine::push`).
    max_conts: usize,
    fp: usize,
    frame_top: usize,
    bottom: usize,
    out: &'a mut dyn Write,
    args: Vec<String>,
    /// Instructions run (the machine's own counter, for `-s`-like reports).
    pub steps: u64,
    /// A buffer for the slots of a general primitive's atoms (kept, so
    /// that an instruction allocates nothing on Rust's heap; allocations
    /// name their fields' slots through `Frame::alloc_with`, with no
    /// list: 4-7% of the machine's instructions).
    scratch: Vec<usize>,
    /// Per code body, the comparison it is, if it is one (See Note
    /// [Tests applied in place] in `fast`).
    tests: Vec<Option<fast::Test>>,
}

type Res<T> = Result<T, Stop>;

impl<'a, 'rt> Machine<'a, 'rt> {
    /// Load the program: its stack, its top-level values.
    pub fn new(m: &'a mut Mutator<'rt>, code: &'a Compiled, out: &'a mut dyn Write, args: Vec<String>) -> Res<Machine<'a, 'rt>> {
        let tables = Tables::new(code);
        let st = m.new_stack(1024);
        let bottom = GLOBALS + code.globals.len();
        let max_conts = m.max_stack_words() * gclab_core::constants::WORD_SIZE / CONT_BYTES;
        let mut mach = Machine { f: m.frame(st), code, tables, conts: Vec::new(), max_conts, fp: bottom, frame_top: bottom, bottom, out, args, steps: 0, scratch: Vec::with_capacity(16), tests: code.codes.iter().map(|c| fast::Test::of(c, &code.ir)).collect() };
        mach.reserve(1)?;
        for (_, init) in &code.globals {
            mach.global(init)?;
        }
        Ok(mach)
    }

    #[inline(always)]
    fn grow<T>(&mut self, r: Result<T, gclab_core::mutator::StackOverflow>) -> Res<T> {
        r.map_err(|e| Stop::StackOverflow(e.bytes))
    }

    /// Push a fresh slot holding nothing.
    #[inline(always)]
    fn reserve(&mut self, n: usize) -> Res<usize> {
        let r = self.f.reserve(n, &NULL_OBJECT);
        self.grow(r)
    }

    fn global(&mut self, init: &GlobalInit) -> Res<()> {
        let depth = self.f.depth();
        match init {
            GlobalInit::Fun(c) => {
                let r = self.f.alloc(depth, self.tables.funs[*c as usize], &[], &[0]);
                self.grow(r)
            }
            GlobalInit::Caf(c) => {
                let r = self.f.alloc(depth, self.tables.thunks[*c as usize], &[], &[]);
                self.grow(r)
            }
            GlobalInit::Literal(lit) => {
                let s = self.reserve(1)?;
                self.literal(s, lit)
            }
            GlobalInit::Con(c) => {
                let obj = self.tables.nullary[*c as usize].expect("a nullary constructor is static");
                let r = self.f.reserve(1, obj);
                self.grow(r).map(|_| ())
            }
        }
    }

    /// Run `main`: apply it to the world and evaluate.
    pub fn run_main(&mut self) -> Res<()> {
        let main = GLOBALS + self.code.main as usize;
        self.f.copy(RET, main);
        let at = self.reserve(1)?;
        self.set_con(at, crate::desugar::builtin::UNIT);
        let first = self.apply(at, 1)?;
        self.run(first)?;
        self.out.flush().map_err(|e| Stop::Output(e.to_string()))
    }

    fn run(&mut self, mut next: Next) -> Res<()> {
        loop {
            next = match next {
                Next::Eval(i) => {
                    self.steps += 1;
                    self.step(i)?
                }
                Next::Return => match self.conts.pop() {
                    None => return Ok(()),
                    Some((k, _)) => self.resume(k)?,
                },
            };
        }
    }

    #[inline(always)]
    fn push_cont(&mut self, k: Cont) -> Res<()> {
        let keeps = match k {
            Cont::Select { .. } | Cont::Coerce(_) => self.protected(),
            _ => k.keeps(),
        };
        self.push(k, keeps)
    }

    /// Push a continuation that keeps the stack up to `keeps`. The
    /// continuations count against `+RTS -K` as GHC's frames on its stack
    /// do, each as two words (the size of GHC's update frame); a deeper
    /// evaluation is a stack overflow, not Rust's memory growing.
    #[inline(always)]
    fn push(&mut self, k: Cont, keeps: usize) -> Res<()> {
        if self.conts.len() == self.conts.capacity() {
            self.more_conts()?;
        }
        self.conts.push((k, keeps));
        Ok(())
    }

    /// Room for more continuations, up to what `-K` allows: the limit is
    /// tested only when the vector is full, which `push` tests anyway.
    #[cold]
    #[inline(never)]
    fn more_conts(&mut self) -> Res<()> {
        let n = self.conts.len();
        if n >= self.max_conts {
            return Err(Stop::StackOverflow(n * CONT_BYTES));
        }
        self.conts.reserve_exact(n.max(64).min(self.max_conts - n));
        Ok(())
    }

    /// Push the continuation of the case `ir` of the current frame, which
    /// keeps `keep` of its slots: those its alternatives read, and at
    /// least what a case of the same frame below it keeps (See Note [What
    /// a case keeps] in `lower::live`).
    #[inline(always)]
    fn push_case(&mut self, ir: IrId, keep: u32) -> Res<()> {
        let keeps = self.fp + keep as usize;
        debug_assert!(keeps >= self.protected(), "a case keeps what the one below it keeps");
        self.push(Cont::Case { ir, fp: self.fp, top: self.frame_top }, keeps)
    }

    /// The stack depth the pending continuations need kept: a call in
    /// tail position may put its frame here.
    fn protected(&self) -> usize {
        self.conts.last().map_or(self.bottom, |&(_, keeps)| keeps)
    }

    /// The absolute slots of atoms, in the scratch buffer (the caller
    /// gives it back).
    fn slots(&mut self, atoms: &[Atom]) -> Vec<usize> {
        let mut v = std::mem::take(&mut self.scratch);
        v.clear();
        v.extend(atoms.iter().map(|a| self.slot(*a)));
        v
    }

    /// The absolute slot of an atom.
    fn slot(&self, a: Atom) -> usize {
        slot_in(self.fp, a)
    }

    /// One instruction. Inlined into the loop: left to the compiler,
    /// it was called once `Call` made it larger (See Note [Known calls]
    /// in `lower`).
    #[inline(always)]
    fn step(&mut self, i: IrId) -> Res<Next> {
        match &self.code.ir[i as usize] {
            Ir::Enter(a) => {
                let s = self.slot(*a);
                self.enter(s)
            }
            Ir::App(f, args) => {
                let at = self.push_args(args)?;
                let fs = self.slot(*f);
                self.f.copy(RET, fs);
                self.apply(at, args.len())
            }
            Ir::Call(c, args) => {
                let at = self.push_args(args)?;
                self.call_known(*c, at, args.len())
            }
            Ir::Let(binds, body, knots) => {
                self.allocate(binds, *knots)?;
                Ok(Next::Eval(*body))
            }
            Ir::Case { scrut, keep, .. } => {
                // A scrutinee that is already a value needs no continuation.
                if let Ir::Enter(a) = self.code.ir[*scrut as usize] {
                    let s = self.slot(a);
                    if self.is_value(s) {
                        self.f.copy(RET, s);
                        return self.choose(i);
                    }
                    // A thunk: entered here, not by a step of its own.
                    self.push_case(i, *keep)?;
                    return self.enter(s);
                }
                self.push_case(i, *keep)?;
                Ok(Next::Eval(*scrut))
            }
            Ir::Con(c, args) => {
                if args.is_empty() {
                    self.set_con(RET, *c);
                } else {
                    let fp = self.fp;
                    let r = self.f.alloc_with(RET, self.tables.cons[*c as usize], args.len(), |k| slot_in(fp, args[k]), &[]);
                    self.grow(r)?;
                }
                Ok(Next::Return)
            }
            Ir::Prim(p, args) | Ir::WordPrim { prim: p, args, .. } | Ir::CaseWordPrim { prim: p, args, .. } => {
                // One call of the word path: a second one inlined made
                // every step dearer (binary_trees 10: 4% more instructions).
                if let Some(r) = self.prim_on_words(*p, args) {
                    let Ir::CaseWordPrim { case, .. } = self.code.ir[i as usize] else { return r };
                    r?;
                    return self.choose(case);
                }
                // Operands that are values but not words (tuples, lists)
                // go to the general primitive here; a thunk, to the cases.
                match self.code.ir[i as usize] {
                    Ir::WordPrim { slow: next, .. } | Ir::CaseWordPrim { case: next, .. } if !self.values(args) => return Ok(Next::Eval(next)),
                    Ir::CaseWordPrim { case, .. } => {
                        let Ir::Case { keep, .. } = self.code.ir[case as usize] else { unreachable!("a case") };
                        self.push_case(case, keep)?;
                    }
                    _ => {}
                }
                let slots = self.slots(args);
                let r = self.prim(*p, &slots);
                self.scratch = slots;
                r
            }
            Ir::Coerce(p, body) => {
                // See Note [Conversions keep tail calls] in `lower`.
                if !matches!(self.conts.last(), Some((Cont::Coerce(q), _)) if q == p) {
                    self.push_cont(Cont::Coerce(*p))?;
                }
                Ok(Next::Eval(*body))
            }
            Ir::Str(k) => {
                let code = self.code;
                self.string_to(RET, &code.strings[*k as usize])?;
                Ok(Next::Return)
            }
            Ir::Error(msg) => Err(Stop::Error(msg.clone())),
        }
    }

    /// Push a call's arguments; the first one's slot.
    #[inline(always)]
    fn push_args(&mut self, args: &[Atom]) -> Res<usize> {
        let at = self.f.depth();
        for a in args {
            let s = self.slot(*a);
            let r = self.f.push_slot(s);
            self.grow(r)?;
        }
        Ok(at)
    }

    /// Store the nullary constructor `c` into slot `s`.
    #[inline(always)]
    fn set_con(&mut self, s: usize, c: u32) {
        let obj = self.tables.nullary[c as usize].expect("a nullary constructor");
        self.f.set_static(s, obj);
    }

    /// Allocate a group of recursive bindings: each object with what its
    /// fields name now, then (where `knots` says some field names its own
    /// or a later binding) the fields that name the group's later (or
    /// own) slots written through the barrier.
    fn allocate(&mut self, binds: &[(u32, Alloc)], knots: bool) -> Res<()> {
        let fp = self.fp;
        // Is `slot` the slot of binding `k` or of one after it (not made yet)?
        let not_yet_made = |k: usize, slot: usize| binds[k..].iter().any(|(s, _)| fp + *s as usize == slot);
        for (k, (s, alloc)) in binds.iter().enumerate() {
            let dst = fp + *s as usize;
            let info = match alloc {
                Alloc::Alias(a) => {
                    let src = self.slot(*a);
                    self.f.copy(dst, src);
                    continue;
                }
                Alloc::Static(c) => {
                    self.set_con(dst, *c);
                    continue;
                }
                Alloc::Thunk(c, _) => self.tables.thunks[*c as usize],
                Alloc::Fun(c, _) => self.tables.funs[*c as usize],
                Alloc::Con(c, _) => self.tables.cons[*c as usize],
                Alloc::Sel(_, field) => self.tables.selector(*field),
            };
            let fields = alloc.fields();
            let words: &[usize] = if info.closure_type == ClosureType::Fun && fields.is_empty() { &[0] } else { &[] };
            // A field naming a binding not made yet holds nothing until the knot is tied.
            if knots {
                for a in fields {
                    let slot = slot_in(fp, *a);
                    if not_yet_made(k, slot) {
                        self.f.set_static(slot, &NULL_OBJECT);
                    }
                }
            }
            let r = self.f.alloc_with(dst, info, fields.len(), |j| slot_in(fp, fields[j]), words);
            self.grow(r)?;
        }
        if !knots {
            return Ok(());
        }
        // Tie the knots: fields that named a slot of the group not yet made.
        for (k, (s, alloc)) in binds.iter().enumerate() {
            for (field, a) in alloc.fields().iter().enumerate() {
                let src = self.slot(*a);
                if not_yet_made(k, src) {
                    self.f.set_field(fp + *s as usize, field, src);
                }
            }
        }
        Ok(())
    }

    /// Are the atoms' objects all values?
    fn values(&self, atoms: &[Atom]) -> bool {
        atoms.iter().all(|a| self.is_value(self.slot(*a)))
    }

    /// Is the object in slot `s` a value (not a thunk)?
    fn is_value(&self, s: usize) -> bool {
        !self.f.info(s).closure_type.is_thunk()
    }

    /// The case `i`, its scrutinee's value in the return register: bind
    /// it and its fields, go on with the matching alternative.
    #[inline(always)]
    fn choose(&mut self, i: IrId) -> Res<Next> {
        let Ir::Case { bind, alts, default, .. } = &self.code.ir[i as usize] else { unreachable!() };
        if let Some(b) = bind {
            self.f.copy(self.fp + *b as usize, RET);
        }
        if alts.is_empty() {
            return Ok(Next::Eval(default.expect("a case with no alternatives has a default")));
        }
        // The value stays in the return register while its fields are bound.
        let info = self.f.info(RET);
        let tag = info.tag();
        for (c, fields, rhs) in alts {
            if *c == tag && matches!(info.closure_type, ClosureType::Constr | ClosureType::ConstrStatic) {
                self.f.unpack(RET, self.fp, fields);
                return Ok(Next::Eval(*rhs));
            }
        }
        match default {
            Some(d) => Ok(Next::Eval(*d)),
            None => Err(Stop::Error(format!("a case met {} it has no alternative for", info.name))),
        }
    }

    /// The frame at `fp`, ending at `top`, again: slots the frames of
    /// the evaluation it waited for left above what it kept hold values
    /// it does not read before writing; slots popped meanwhile hold
    /// nothing.
    #[inline(always)]
    fn back_to_frame(&mut self, fp: usize, top: usize) -> Res<()> {
        let depth = self.f.depth();
        if depth >= top {
            self.f.pop_to(top);
        } else {
            self.reserve(top - depth)?;
        }
        self.fp = fp;
        self.frame_top = top;
        Ok(())
    }

    fn resume(&mut self, k: Cont) -> Res<Next> {
        match k {
            Cont::Case { ir, fp, top } => {
                self.back_to_frame(fp, top)?;
                self.choose(ir)
            }
            Cont::Native { code, fp, word } => {
                let native = self.code.codes[code as usize].native.expect("a code with a native body");
                let top = fp + native.frame as usize;
                self.back_to_frame(fp, top)?;
                self.native(code, Some(word))
            }
            Cont::Update { slot } => {
                self.f.update(slot, RET);
                self.f.pop_to(slot);
                Ok(Next::Return)
            }
            Cont::Apply { at, n } => {
                self.f.pop_to(at + n);
                self.apply(at, n)
            }
            Cont::Select { field } => {
                self.f.field(RET, RET, field);
                self.enter(RET)
            }
            Cont::Coerce(p) => self.convert(p),
        }
    }
}

pub use values::Value;
