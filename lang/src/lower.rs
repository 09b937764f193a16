//! Lowering: desugared terms to the machine's code. Every lambda and
//! every thunk becomes a code body with a frame; its free variables are
//! found and copied into the closure it allocates; every argument that is
//! not a variable is allocated first (a thunk, a constructor, a function
//! or a selector thunk), so an application names only slots; every
//! primitive's strict argument is evaluated by a case first; every case
//! says which of its frame's slots it keeps (`live`).
//!
//! Note [Calls of primitive wrappers]
//! ----------------------------------------
//! The library's arithmetic and comparisons are functions that apply a
//! primitive (`a + b = primAdd a b`), as GHC's class methods are
//! functions of a dictionary. A saturated call of one is lowered to the
//! primitive itself: its arguments are evaluated by cases in the
//! caller's frame instead of being allocated as thunks and passed.
//! Measured on binary_trees 14 (with comparisons of constructors handed
//! to the library, the same change): MUT 3.97 s to 3.34 s, allocation
//! 587 MB to 436 MB (GHC `-O0`: 611 MB, MUT 0.10 s). The price: fewer
//! bytes allocated than `-O0`'s code allocates for such calls, which
//! passes thunks to the dictionary's `+` (the allocation ratios are in
//! docs/programs.md). The alternative, a call with thunk arguments, is
//! GHC `-O0`'s shape exactly and costs a thunk per operand. A wrapper
//! that passes its arguments in another order (`a > b = primLt b a`)
//! counts too, its arguments taken in the primitive's order: lru 5000,
//! whose balancing compares sizes with `>`, went from 3.63G to 3.28G
//! instructions and from 48.0 MB to 43.5 MB allocated.
//!
//! Note [Primitives on evaluated variables]
//! ----------------------------------------
//! A primitive's strict operands are evaluated by cases first, one
//! machine step each even when the operand is a value already (a loop
//! counter a bang has forced, a parameter a comparison has forced, an
//! updated thunk), and a case on the primitive's result (`if a > b`,
//! `let !n' = n + 1`) pushes a continuation that the primitive's result
//! pops. Where the primitive has a word path and its operands are
//! variables, it is lowered twice: `WordPrim`/`CaseWordPrim` try the
//! word path on the variables as they are, in one step with no
//! continuation (a case's alternative chosen at once). Measured
//! (`scripts/ab -n 7`, MUT): selector_leak 1000000 0.886x, lalr 16
//! 0.913x, binary_trees 14 0.983x (0.934-1.010); machine steps
//! selector_leak 35 to 26 an element, lalr 10 2.03 to 1.69 million. The
//! price is a failed try where the operand is a thunk (binary_trees'
//! `make d`, whose `d` is a lazy `d - 1`): 2.5% more instructions there,
//! though less time. When an operand is a value but not a word (`==` on
//! tuples, as `nub` calls it), the general primitive runs on the
//! variables as they are; only a thunk sends the machine to the cases
//! (lalr 10: 0.723G to 0.701G instructions, its `nub` of item pairs).
//! The alternative, a test in every case of whether its scrutinee is a
//! primitive, cost every case (5%).
//!
//! Note [Equations on one variable]
//! ----------------------------------------
//! Equations are matched in order, each failing to the next through a
//! join point (See `desugar::pattern`), so `[] ++ ys = ...; (x : xs) ++
//! ys = ...` is a case on the list whose default goes on to a second
//! case on the same list: a second step, and a second look at its
//! header. GHC's desugarer groups such equations into one case. Here
//! a case whose default is a case on the same variable is merged with
//! it: its alternatives, then the other's for constructors it lacks,
//! then the other's default (the other case stays, for the jumps from
//! deeper failures that reach it). Where both cases name their value,
//! they must name it with one slot, or they are left apart. A round of
//! a two-equation `len` on a list went from 17 machine steps to 16
//! (tests/lang_property.rs), selector_leak's 26 an element to 23 (and
//! to 20 with a case entering its thunk itself).
//!
//! Note [Known calls]
//! ----------------------------------------
//! Most applications in a program are of a top-level function to as many
//! arguments as its equations take (`make (d - 1)`, `xs ++ ys`). The
//! general application loads the function from its slot, looks at its
//! header (a thunk? a partial application?), compares its arity with
//! the arguments, and looks at the header again for its code. Such a
//! call is known when the program is compiled, as GHC's code generator
//! knows it: `Call` names the code and goes straight to its frame (a
//! top-level function has no free variables to copy). Applications of
//! anything else, or to another number of arguments, stay `App`.
//! Measured by instructions (valgrind), with the machine's step inlined
//! into its loop again (the new instruction had tipped the compiler into
//! calling it, 3% more): binary_trees 10 0.709G to 0.671G, lalr 10 0.797G
//! to 0.758G, selector_leak 200000 1.414G to 1.333G.
//!
//! Note [Conversions keep tail calls]
//! ----------------------------------------
//! A function whose signature gives a numeric result (`go :: Int -> Int
//! -> Int`) has its body wrapped in a conversion to that type, since
//! numbers are typed at run time (`desugar::bind`'s `coerce_result`). As
//! a case on the body, the conversion made every call in the body a call
//! with a continuation: a loop of ten million tail calls held ten million
//! continuations, 320 MB outside the heap and outside `-K`, where the
//! same loop without its signature ran in 8 MB. The conversion is its own
//! instruction (`Ir::Coerce`), which keeps no slot of its frame and
//! pushes its continuation only if the one on top is not already the
//! same conversion: converting twice is converting once, so a tail call
//! under a conversion to `Int` inside a function converting to `Int` (a
//! recursive loop, or mutual recursion) adds nothing, as GHC's tail call
//! adds no frame. Where the body has no call in tail position
//! (binary_trees' `check`, whose calls are operands of `+`) the case
//! stays, as nothing is saved there. The continuations now count against
//! `-K` (See `Machine::push`), tested only when their vector is full.
//! Measured: the loop above 320 MB to 8 MB, 1.18 s to 0.98 s;
//! binary_trees 12 2.696G to 2.603G instructions (valgrind), MUT on
//! binary_trees 14 1.019x (1.009-1.030, `scripts/ab -n 5`). The first
//! version, its conversion inlined into the machine's loop and the limit
//! tested at every push, ran 2.634G instructions there and took 10% more
//! MUT: the loop's code, not its work. The alternative, knowing from the
//! callee's signature that its result has the type already, would need
//! each callee's arity and misses local functions and mutual recursion.
//!
//! Slots are given out once per code body (a binder's slot is its own for
//! the whole body), so a join point's code and the alternatives that jump
//! to it agree on where every variable is.

use crate::ir::{Alloc, Atom, Code, CodeId, Compiled, GlobalInit, Ir, IrId};
use crate::program::{ConInfo, GlobalDef, Program};
use crate::term::{CasePat, ConId, JoinId, Local, Term};
use std::collections::{BTreeSet, HashMap, HashSet};

mod live;
mod natives;
use live::{alts_reads, slots_top, MIN_TRIM};

/// The frame of the code body being lowered.
struct Frame {
    slots: HashMap<Local, u32>,
    next: u32,
    /// Each join point in scope: its code, and the slots its code reads
    /// (one past the highest: See Note [What a case keeps] in `live`).
    joins: HashMap<JoinId, (IrId, u32)>,
    /// Locals known to be values where they are in scope (case binders).
    values: HashSet<Local>,
    /// The body's cases, whose `keep` is settled when its frame's size is
    /// known (See Note [What a case keeps] in `live`).
    cases: Vec<IrId>,
    /// The slots the cases whose scrutinee is being lowered keep: a case
    /// inside keeps at least as many.
    floor: u32,
}

impl Frame {
    fn bind(&mut self, x: Local) -> u32 {
        let s = self.next;
        self.next += 1;
        self.slots.insert(x, s);
        s
    }

    fn temp(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }
}

struct Lower<'p> {
    prog: &'p Program,
    ir: Vec<Ir>,
    codes: Vec<Code>,
    strings: Vec<String>,
}

/// Lower a desugared program.
pub fn lower(prog: Program) -> Compiled {
    let mut l = Lower { prog: &prog, ir: Vec::new(), codes: Vec::new(), strings: Vec::new() };
    let globals = lower_globals(&mut l, &prog);
    known_calls(&mut l.ir, &l.codes, &globals);
    natives::choose(&mut l.ir, &mut l.codes, &globals, prog.library_end);
    let (ir, codes, strings) = (l.ir, l.codes, l.strings);
    Compiled { ir, codes, globals, strings, cons: prog.cons, main: prog.main }
}

/// The function a constructor of some arity is as a value: its arguments,
/// and a body that evaluates its `!` fields (one case each) and builds it.
/// The arguments count down from the top of the locals; the cases'
/// binders come below all of them, so that none stands for an argument.
fn constructor_wrapper(c: ConId, info: &ConInfo) -> (Vec<Local>, Term) {
    let args: Vec<Local> = (0..info.arity).map(|k| u32::MAX - k).collect();
    let mut body = Term::Con(c, args.iter().map(|a| Term::Local(*a)).collect());
    for (k, (a, strict)) in args.iter().zip(&info.strict).enumerate() {
        if *strict {
            body = Term::Case(Box::new(Term::Local(*a)), u32::MAX - info.arity - k as u32, vec![(CasePat::Default, body)]);
        }
    }
    (args, body)
}

/// Each top-level value's code, in the order of `prog.globals`.
fn lower_globals(l: &mut Lower<'_>, prog: &Program) -> Vec<(String, GlobalInit)> {
    let mut globals = Vec::new();
    for (name, def) in &prog.globals {
        let init = match def {
            GlobalDef::Term(Term::Lam(args, body)) => GlobalInit::Fun(l.code(name, args, &[], body)),
            GlobalDef::Term(t) => GlobalInit::Caf(l.code(name, &[], &[], t)),
            GlobalDef::Literal(lit) => GlobalInit::Literal(lit.clone()),
            GlobalDef::Con(c) => {
                let info = &prog.cons[*c as usize];
                if info.arity == 0 {
                    GlobalInit::Con(*c)
                } else {
                    let (args, body) = constructor_wrapper(*c, info);
                    GlobalInit::Fun(l.code(&info.name, &args, &[], &body))
                }
            }
        };
        globals.push((name.clone(), init));
    }
    globals
}

/// Has `t` an application in tail position (See Note [Conversions keep
/// tail calls])?
fn tail_call_in(t: &Term) -> bool {
    match t {
        Term::App(..) => true,
        Term::Let(_, body) => tail_call_in(body),
        Term::Case(_, _, alts) => alts.iter().any(|(_, rhs)| tail_call_in(rhs)),
        Term::Join(_, code, body) => tail_call_in(code) || tail_call_in(body),
        _ => false,
    }
}

/// Are the terms all variables (locals or top-level values)?
fn variables<'t>(terms: impl IntoIterator<Item = &'t Term>) -> bool {
    terms.into_iter().all(|t| matches!(t, Term::Local(_) | Term::Global(_)))
}

/// Every application of a top-level function to exactly its arity's
/// arguments becomes a call of its code (See Note [Known calls]).
fn known_calls(ir: &mut [Ir], codes: &[Code], globals: &[(String, GlobalInit)]) {
    for i in ir.iter_mut() {
        let Ir::App(Atom::Global(g), args) = i else { continue };
        let GlobalInit::Fun(c) = globals[*g as usize].1 else { continue };
        if codes[c as usize].arity as usize == args.len() {
            *i = Ir::Call(c, std::mem::take(args));
        }
    }
}

impl Lower<'_> {
    fn emit(&mut self, i: Ir) -> IrId {
        self.ir.push(i);
        (self.ir.len() - 1) as IrId
    }

    /// A code body: arguments, then free variables, then locals.
    fn code(&mut self, name: &str, args: &[Local], free: &[Local], body: &Term) -> CodeId {
        let id = self.codes.len() as CodeId;
        self.codes.push(Code { name: name.to_string(), arity: args.len() as u32, free: free.len() as u32, frame: 0, body: 0, native: None, native_call: None });
        let mut f = Frame { slots: HashMap::new(), next: 0, joins: HashMap::new(), values: HashSet::new(), cases: Vec::new(), floor: 0 };
        for &a in args.iter().chain(free) {
            f.bind(a);
        }
        let b = self.tail(&mut f, body);
        let code = &mut self.codes[id as usize];
        code.frame = f.next;
        code.body = b;
        for &c in &f.cases {
            if let Ir::Case { keep, .. } = &mut self.ir[c as usize] {
                if f.next - *keep < MIN_TRIM {
                    *keep = f.next;
                }
            }
        }
        id
    }

    /// The instruction that evaluates `t` and returns its value.
    fn tail(&mut self, f: &mut Frame, t: &Term) -> IrId {
        match t {
            Term::Local(_) | Term::Global(_) => {
                let a = self.known_atom(f, t);
                self.emit(Ir::Enter(a))
            }
            Term::Str(s) => {
                self.strings.push(s.clone());
                let k = self.strings.len() as u32 - 1;
                self.emit(Ir::Str(k))
            }
            Term::App(fun, args) => {
                if let Some((p, order)) = self.primitive_wrapper(fun, args.len()) {
                    let args = order.iter().map(|&k| args[k].clone()).collect();
                    return self.tail(f, &Term::Prim(p, args));
                }
                let mut binds = Vec::new();
                let fa = self.atom(f, fun, &mut binds);
                let atoms = args.iter().map(|a| self.atom(f, a, &mut binds)).collect();
                let app = self.emit(Ir::App(fa, atoms));
                self.with_binds(binds, app)
            }
            Term::Con(c, args) => {
                let mut binds = Vec::new();
                let atoms = args.iter().map(|a| self.atom(f, a, &mut binds)).collect();
                let con = self.emit(Ir::Con(*c, atoms));
                self.with_binds(binds, con)
            }
            Term::Lam(..) | Term::Sel(..) => {
                let mut binds = Vec::new();
                let a = self.atom(f, t, &mut binds);
                let enter = self.emit(Ir::Enter(a));
                self.with_binds(binds, enter)
            }
            Term::Let(bs, body) => {
                let slots: Vec<u32> = bs.iter().map(|(x, _)| f.bind(*x)).collect();
                let mut binds = Vec::new();
                let mut statics = Vec::new();
                let mut aliases = Vec::new();
                for ((_, rhs), s) in bs.iter().zip(slots) {
                    let alloc = self.alloc(f, rhs, &mut binds);
                    match alloc {
                        Alloc::Alias(_) => aliases.push((s, alloc)),
                        // First: the group's other bindings may name it.
                        Alloc::Static(_) => statics.push((s, alloc)),
                        _ => binds.push((s, alloc)),
                    }
                }
                statics.append(&mut binds);
                let mut binds = statics;
                binds.extend(aliases);
                let b = self.tail(f, body);
                self.with_binds(binds, b)
            }
            Term::Case(scrut, bind, alts) => {
                // A scrutinee on words is tried once, by the case itself.
                let quick = self.word_prim_call(scrut);
                // What the alternatives read: the slots the case keeps (the
                // binder has no slot yet), and whether the binder is named.
                let (read, jumps) = alts_reads(alts);
                let keep = slots_top(f, &read, &jumps).max(f.floor);
                let s = self.under_floor(f, keep, |l, f| match &quick {
                    Some((p, args)) => l.prim(f, *p, args, false),
                    None => l.tail(f, scrut),
                });
                let quick = quick.map(|(p, args)| (p, args.iter().map(|a| self.known_atom(f, a)).collect()));
                let b = f.bind(*bind);
                f.values.insert(*bind);
                let mut calts = Vec::new();
                let mut default = None;
                for (pat, rhs) in alts {
                    match pat {
                        CasePat::Con(c, fields) => {
                            let slots = fields.iter().map(|x| f.bind(*x)).collect();
                            let r = self.tail(f, rhs);
                            calts.push((*c, slots, r));
                        }
                        CasePat::Default => default = Some(self.tail(f, rhs)),
                    }
                }
                let used = read.contains(bind);
                let case = self.case(Ir::Case { scrut: s, bind: used.then_some(b), alts: calts, default, keep });
                f.cases.push(case);
                match quick {
                    Some((prim, args)) => self.emit(Ir::CaseWordPrim { prim, args, case }),
                    None => case,
                }
            }
            Term::Prim(crate::prim::Prim::Seq, args) => {
                // `seq a b`: evaluate `a`, then `b` in tail position (not a
                // thunk for `b`, whose update frames would pile up).
                let keep = self.live_top(f, &args[1]).max(f.floor);
                let scrut = self.under_floor(f, keep, |l, f| l.tail(f, &args[0]));
                let then = self.tail(f, &args[1]);
                let case = self.emit(Ir::Case { scrut, bind: None, alts: Vec::new(), default: Some(then), keep });
                f.cases.push(case);
                case
            }
            // See Note [Conversions keep tail calls].
            Term::Prim(p, args) if p.is_conversion() && tail_call_in(&args[0]) => {
                let body = self.tail(f, &args[0]);
                self.emit(Ir::Coerce(*p, body))
            }
            Term::Prim(p, args) => self.prim(f, *p, args, true),
            Term::Join(j, code, body) => {
                let live = self.live_top(f, code);
                let c = self.tail(f, code);
                f.joins.insert(*j, (c, live));
                self.tail(f, body)
            }
            // A jump is its join point's code, named where the jump was:
            // the same frame goes on there, with no instruction between.
            Term::Jump(j) => f.joins.get(j).expect("a jump inside its join point's scope").0,
            Term::Error(m) => self.emit(Ir::Error(m.clone())),
        }
    }

    /// A case, merged with the case its default goes on to where that
    /// one examines the same variable (See Note [Equations on one
    /// variable]).
    fn case(&mut self, case: Ir) -> IrId {
        let Ir::Case { scrut, bind, mut alts, default, keep } = case else { unreachable!("a case") };
        if let (Ir::Enter(a), Some(d)) = (&self.ir[scrut as usize], default) {
            if let Ir::Case { scrut: s2, bind: b2, alts: alts2, default: d2, keep: k2 } = &self.ir[d as usize] {
                let same = matches!(self.ir[*s2 as usize], Ir::Enter(a2) if a2 == *a);
                if same && (bind.is_none() || b2.is_none() || bind == *b2) && !alts2.is_empty() {
                    let (b2, d2, keep) = (*b2, *d2, keep.max(*k2));
                    let more: Vec<_> = alts2.iter().filter(|(c, _, _)| !alts.iter().any(|(c1, _, _)| c1 == c)).cloned().collect();
                    alts.extend(more);
                    return self.emit(Ir::Case { scrut, bind: bind.or(b2), alts, default: d2, keep });
                }
            }
        }
        self.emit(Ir::Case { scrut, bind, alts, default, keep })
    }

    /// The primitive `p` on `args`, its strict arguments evaluated by
    /// cases first; `quick`: tried first on its operands as they are
    /// where it has a word path and they are variables (See Note
    /// [Primitives on evaluated variables]).
    fn prim(&mut self, f: &mut Frame, p: crate::prim::Prim, args: &[Term], quick: bool) -> IrId {
        let mut binds = Vec::new();
        let mut strict = Vec::new();
        let mut atoms = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if p.lazy_arg(i) {
                atoms.push(self.atom(f, a, &mut binds));
            } else if let Some(v) = self.value_atom(f, a) {
                atoms.push(v);
            } else {
                let s = f.temp();
                strict.push((s, a));
                atoms.push(Atom::Slot(s));
            }
        }
        let operands: Option<Vec<Atom>> = (quick && !strict.is_empty() && p.has_word_path() && variables(args)).then(|| args.iter().map(|a| self.known_atom(f, a)).collect());
        // After an operand is evaluated, the chain reads the temporaries
        // of the operands before it, what the operands after it read,
        // and the primitive's other atoms (See Note [What a case keeps]
        // in `live`).
        let top = |a: &Atom| match a {
            Atom::Slot(s) => s + 1,
            Atom::Global(_) => 0,
        };
        let others = atoms.iter().filter(|a| !strict.iter().any(|(s, _)| **a == Atom::Slot(*s))).map(top).max().unwrap_or(0);
        let mut i = self.emit(Ir::Prim(p, atoms));
        let mut later = 0;
        for k in (0..strict.len()).rev() {
            let (s, a) = strict[k];
            let before = strict[..k].iter().map(|(t, _)| t + 1).max().unwrap_or(0);
            let keep = f.floor.max(others).max(before).max(later);
            later = later.max(self.live_top(f, a));
            let scrut = self.under_floor(f, keep, |l, f| l.tail(f, a));
            i = self.emit(Ir::Case { scrut, bind: Some(s), alts: Vec::new(), default: Some(i), keep });
            f.cases.push(i);
        }
        let slow = self.with_binds(binds, i);
        match operands {
            Some(args) => self.emit(Ir::WordPrim { prim: p, args, slow }),
            None => slow,
        }
    }

    /// A call of a library function that only applies a primitive to
    /// its arguments (`a + b = primAdd a b`, or in another order: `a > b
    /// = primLt b a`) is the primitive itself, its arguments in the
    /// primitive's order (the order the library's body evaluates them
    /// in): the primitive and, for each of its arguments, which of the
    /// call's it is. See Note [Calls of primitive wrappers].
    fn primitive_wrapper(&self, fun: &Term, n: usize) -> Option<(crate::prim::Prim, Vec<usize>)> {
        let Term::Global(g) = fun else { return None };
        let GlobalDef::Term(Term::Lam(params, body)) = &self.prog.globals[*g as usize].1 else { return None };
        let Term::Prim(p, args) = &**body else { return None };
        if params.len() != n || args.len() != n {
            return None;
        }
        let order: Vec<usize> = args.iter().filter_map(|a| match a {
            Term::Local(y) => params.iter().position(|x| x == y),
            _ => None,
        }).collect();
        let each_once = order.len() == n && (0..n).all(|k| order.contains(&k));
        each_once.then_some((*p, order))
    }

    /// `t`, if it is a primitive with a word path applied to variables
    /// (directly or through a primitive wrapper): the primitive and its
    /// operands, in the primitive's order. See Note [Primitives on evaluated variables].
    fn word_prim_call(&self, t: &Term) -> Option<(crate::prim::Prim, Vec<Term>)> {
        let (p, args): (crate::prim::Prim, Vec<&Term>) = match t {
            Term::Prim(p, args) => (*p, args.iter().collect()),
            Term::App(fun, args) => {
                let (p, order) = self.primitive_wrapper(fun, args.len())?;
                (p, order.iter().map(|&k| &args[k]).collect())
            }
            _ => return None,
        };
        (p.has_word_path() && variables(args.iter().copied())).then(|| (p, args.into_iter().cloned().collect()))
    }

    /// `t`'s atom if `t` is known to be a value already (a literal, a
    /// nullary constructor, a case binder in scope): a primitive takes it
    /// without a case to evaluate it. Binary-trees' `d - 1` and `1 + ...`
    /// evaluated their literal operand with a case each, 4 of its 32
    /// machine steps a node.
    fn value_atom(&self, f: &Frame, t: &Term) -> Option<Atom> {
        let known = match t {
            Term::Global(g) => match &self.prog.globals[*g as usize].1 {
                GlobalDef::Literal(_) => true,
                GlobalDef::Con(c) => self.prog.cons[*c as usize].arity == 0,
                GlobalDef::Term(_) => false,
            },
            Term::Local(x) => f.values.contains(x),
            _ => false,
        };
        known.then(|| self.known_atom(f, t))
    }

    /// `body` after allocating `binds`; a `Let` straight after is one
    /// group with them (its objects made after theirs, one step for both).
    fn with_binds(&mut self, mut binds: Vec<(u32, Alloc)>, mut body: IrId) -> IrId {
        if binds.is_empty() {
            return body;
        }
        if let Ir::Let(inner, inner_body, _) = &self.ir[body as usize] {
            binds.extend(inner.iter().cloned());
            body = *inner_body;
        }
        let knots = binds.iter().enumerate().any(|(k, (_, alloc))| alloc.fields().iter().any(|a| binds[k..].iter().any(|(s, _)| *a == Atom::Slot(*s))));
        self.emit(Ir::Let(binds, body, knots))
    }

    /// A variable's atom.
    fn known_atom(&self, f: &Frame, t: &Term) -> Atom {
        match t {
            Term::Local(x) => Atom::Slot(*f.slots.get(x).unwrap_or_else(|| panic!("local {x} has a slot"))),
            Term::Global(g) => Atom::Global(*g),
            _ => unreachable!(),
        }
    }

    /// `t` as an atom, allocating it first (into `binds`) unless it is a variable.
    fn atom(&mut self, f: &mut Frame, t: &Term, binds: &mut Vec<(u32, Alloc)>) -> Atom {
        if let Term::Local(_) | Term::Global(_) = t {
            return self.known_atom(f, t);
        }
        let alloc = self.alloc(f, t, binds);
        let s = f.temp();
        binds.push((s, alloc));
        Atom::Slot(s)
    }

    /// The object `t` is, allocated lazily.
    fn alloc(&mut self, f: &mut Frame, t: &Term, binds: &mut Vec<(u32, Alloc)>) -> Alloc {
        match t {
            Term::Local(_) | Term::Global(_) => Alloc::Alias(self.known_atom(f, t)),
            Term::Lam(args, body) => {
                let free = self.free_of(f, t);
                let code = self.code(&format!("{}\\{}", self.owner(), args.len()), args, &free, body);
                Alloc::Fun(code, free.iter().map(|x| self.known_atom(f, &Term::Local(*x))).collect())
            }
            Term::Con(c, args) if args.is_empty() => Alloc::Static(*c),
            Term::Con(c, args) => {
                let atoms = args.iter().map(|a| self.atom(f, a, binds)).collect();
                Alloc::Con(*c, atoms)
            }
            Term::Sel(inner, i) => {
                let a = self.atom(f, inner, binds);
                Alloc::Sel(a, *i)
            }
            _ => {
                let free = self.free_of(f, t);
                let code = self.code(&format!("{}.thk", self.owner()), &[], &free, t);
                Alloc::Thunk(code, free.iter().map(|x| self.known_atom(f, &Term::Local(*x))).collect())
            }
        }
    }

    /// The name of the code body being lowered (for profiles).
    fn owner(&self) -> String {
        self.codes.last().map_or_else(String::new, |c| c.name.split(['\\', '.']).next().unwrap_or("").to_string())
    }

    /// The free locals of `t` that the frame has (in a fixed order).
    fn free_of(&self, f: &Frame, t: &Term) -> Vec<Local> {
        let mut out = BTreeSet::new();
        free_vars(t, &mut Vec::new(), &mut out);
        let _ = self.prog;
        out.into_iter().filter(|x| f.slots.contains_key(x)).collect()
    }
}

/// Locals used in `t` and not bound inside it.
fn free_vars(t: &Term, bound: &mut Vec<Local>, out: &mut BTreeSet<Local>) {
    match t {
        Term::Local(x) => {
            if !bound.contains(x) {
                out.insert(*x);
            }
        }
        Term::Global(_) | Term::Str(_) | Term::Jump(_) | Term::Error(_) => {}
        Term::App(fun, args) => {
            free_vars(fun, bound, out);
            args.iter().for_each(|a| free_vars(a, bound, out));
        }
        Term::Lam(args, body) => {
            let n = bound.len();
            bound.extend(args);
            free_vars(body, bound, out);
            bound.truncate(n);
        }
        Term::Let(bs, body) => {
            let n = bound.len();
            bound.extend(bs.iter().map(|(x, _)| *x));
            bs.iter().for_each(|(_, e)| free_vars(e, bound, out));
            free_vars(body, bound, out);
            bound.truncate(n);
        }
        Term::Case(scrut, b, alts) => {
            free_vars(scrut, bound, out);
            let n = bound.len();
            bound.push(*b);
            for (p, rhs) in alts {
                let m = bound.len();
                if let CasePat::Con(_, fields) = p {
                    bound.extend(fields);
                }
                free_vars(rhs, bound, out);
                bound.truncate(m);
            }
            bound.truncate(n);
        }
        Term::Con(_, args) | Term::Prim(_, args) => args.iter().for_each(|a| free_vars(a, bound, out)),
        Term::Sel(inner, _) => free_vars(inner, bound, out),
        Term::Join(_, code, body) => {
            free_vars(code, bound, out);
            free_vars(body, bound, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Atom, Compiled, Ir};
    use crate::program::ConInfo;
    use crate::term::Term;

    /// A constructor of 60 `!` fields: every case's binder differs from
    /// every argument. (The binders were once `u32::MAX - 100 - a` for
    /// argument `a`: a subtraction that wrapped below zero, a panic with
    /// overflow checks on, which the front end's fuzzer found, and from
    /// the forty-first field on the number of another field's argument.)
    #[test]
    fn a_wrappers_case_binders_are_not_its_arguments() {
        let info = ConInfo { name: "Wide".into(), type_name: "Wide".into(), module: "Main".into(), arity: 60, index: 0, siblings: vec![0], labels: Vec::new(), strict: vec![true; 60], infix_prec: None };
        let (args, mut body) = super::constructor_wrapper(0, &info);
        let mut binders = Vec::new();
        while let Term::Case(_, binder, mut alts) = body {
            binders.push(binder);
            body = alts.pop().expect("one alternative").1;
        }
        assert!(matches!(body, Term::Con(0, ref fields) if fields.len() == 60));
        assert_eq!(binders.len(), 60);
        assert!(binders.iter().all(|b| !args.contains(b)), "a case binder is an argument: {binders:?}");
    }

    fn compiled(body: &str) -> Compiled {
        crate::compile(&[("known.hs".to_string(), body.to_string())]).unwrap()
    }

    /// The code named `name` is called with `n` arguments by a `Call`
    /// somewhere in the program, or applied by an `App` of its global.
    fn calls(c: &Compiled, name: &str) -> (usize, usize) {
        let code = c.codes.iter().position(|k| k.name == name).unwrap() as u32;
        let global = c.globals.iter().position(|(n, _)| n == name).unwrap() as u32;
        let known = c.ir.iter().filter(|i| matches!(i, Ir::Call(k, _) if *k == code)).count();
        let general = c.ir.iter().filter(|i| matches!(i, Ir::App(Atom::Global(g), _) if *g == global)).count();
        (known, general)
    }

    /// A saturated application of a top-level function is a known call;
    /// a partial one and one with more arguments stay general (See Note
    /// [Known calls]).
    #[test]
    fn saturated_calls_of_top_level_functions_are_known() {
        let c = compiled(
            "add3 :: Int -> Int -> Int -> Int\nadd3 a b c = a + b + c\n\
             pick :: Int -> (Int -> Int)\npick k = if k > 0 then negate else id\n\
             main :: IO ()\nmain = do\n  print (add3 1 2 3)\n  print (map (add3 1 2) [4, 5])\n  print (pick 1 7)\n",
        );
        assert_eq!(calls(&c, "add3"), (1, 1), "the saturated call known, the partial one general");
        assert_eq!(calls(&c, "pick"), (0, 1), "an application to more than its arity is general");
    }
}
