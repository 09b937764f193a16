//! Expressions: names resolved, infix chains resolved, saturated
//! constructor and primitive applications made direct, and the sugar
//! (`do`, comprehensions, ranges, sections, records, `if`) turned into
//! applications and cases.

use super::builtin;
use super::pattern::{irrefutable, wrap};
use super::{Desugarer, Env, R};
use crate::prim::Prim;
use crate::syntax::ast::{Alt, Expr, Lit, Pat, Stmt};
use crate::term::{CasePat, Literal, Term};

impl Desugarer {
    pub(super) fn expr(&mut self, e: &Expr, env: &Env) -> R<Term> {
        match e {
            Expr::Var(..) | Expr::Con(..) | Expr::App(..) => self.application(e, env),
            Expr::Lit(lit, _) => Ok(self.lit(lit, false)),
            Expr::Infix(operands, ops) => {
                let tree = self
                    .fix
                    .resolve(operands.clone(), ops, &mut |op, line, l, r| {
                        let f = if op.starts_with(':') || op.chars().next().is_some_and(char::is_uppercase) { Expr::Con(op.to_string(), line) } else { Expr::Var(op.to_string(), line) };
                        Expr::App(Box::new(Expr::App(Box::new(f), Box::new(l))), Box::new(r))
                    })
                    .map_err(|(m, l)| (l, m))?;
                self.expr(&tree, env)
            }
            Expr::Neg(inner, _) => match &**inner {
                Expr::Lit(lit, _) => Ok(self.lit(lit, true)),
                _ => Ok(Term::App(Box::new(self.lib("negate")), vec![self.expr(inner, env)?])),
            },
            Expr::Lambda(pats, body, _) => self.lambda(pats, body, env),
            Expr::Let(decls, body) => self.let_in(decls, env, |d, inner| d.expr(body, inner)),
            Expr::If(c, t, f) => {
                let c = self.expr(c, env)?;
                let b = self.fresh();
                let alts = vec![(CasePat::Con(builtin::TRUE, Vec::new()), self.expr(t, env)?), (CasePat::Default, self.expr(f, env)?)];
                Ok(Term::Case(Box::new(c), b, alts))
            }
            Expr::Case(scrut, alts, line) => self.case(scrut, alts, *line, env),
            Expr::Do(stmts, line) => self.do_block(stmts, *line, env),
            Expr::Tuple(es) if es.is_empty() => Ok(Term::Con(builtin::UNIT, Vec::new())),
            Expr::Tuple(es) => {
                if es.len() > builtin::MAX_TUPLE {
                    return Err((e.line(), format!("a tuple of {} components (at most {})", es.len(), builtin::MAX_TUPLE)));
                }
                let args = es.iter().map(|x| self.expr(x, env)).collect::<R<Vec<_>>>()?;
                Ok(Term::Con(builtin::TUPLE2 + es.len() as u32 - 2, args))
            }
            Expr::TupleCon(k) => Ok(self.con_value(builtin::TUPLE2 + *k as u32 - 2)),
            Expr::List(es) => {
                let mut t = Term::Con(builtin::NIL, Vec::new());
                for x in es.iter().rev() {
                    t = Term::Con(builtin::CONS, vec![self.expr(x, env)?, t]);
                }
                Ok(t)
            }
            Expr::Range(from, then, to) => {
                let (name, args): (&str, Vec<&Expr>) = match (then, to) {
                    (None, None) => ("enumFrom", vec![from]),
                    (Some(t), None) => ("enumFromThen", vec![from, t]),
                    (None, Some(u)) => ("enumFromTo", vec![from, u]),
                    (Some(t), Some(u)) => ("enumFromThenTo", vec![from, t, u]),
                };
                let args = args.into_iter().map(|x| self.expr(x, env)).collect::<R<Vec<_>>>()?;
                Ok(Term::App(Box::new(self.lib(name)), args))
            }
            Expr::Comp(head, quals) => self.comprehension(head, quals, Term::Con(builtin::NIL, Vec::new()), env),
            Expr::LeftSection(x, op, line) => {
                let f = self.operator(op, *line, env)?;
                Ok(Term::App(Box::new(f), vec![self.expr(x, env)?]))
            }
            Expr::RightSection(op, x, line) => {
                let f = self.operator(op, *line, env)?;
                let arg = self.expr(x, env)?;
                let (v, a) = (self.fresh(), self.fresh());
                let body = Term::App(Box::new(f), vec![Term::Local(a), Term::Local(v)]);
                Ok(Term::Let(vec![(v, arg)], Box::new(Term::Lam(vec![a], Box::new(body)))))
            }
            Expr::RecordCon(name, fields, line) => self.record_con(name, fields, *line, env),
            Expr::RecordUpdate(x, fields, line) => self.record_update(x, fields, *line, env),
            Expr::Typed(x, ty) if mentions(ty, &["UArray", "IOUArray", "STUArray"]) => {
                let t = self.expr(x, env)?;
                Ok(Term::App(Box::new(self.lib("unboxedArray")), vec![t]))
            }
            Expr::Typed(x, ty) => {
                let t = self.expr(x, env)?;
                Ok(match super::bind::numeric_prim(ty) {
                    Some(p) => Term::Prim(p, vec![t]),
                    None => t,
                })
            }
        }
    }

    fn lit(&mut self, lit: &Lit, negative: bool) -> Term {
        match lit {
            Lit::Int(n) => self.literal(Literal::Integer(if negative { -n.clone() } else { n.clone() })),
            Lit::Frac(x) => self.literal(Literal::Double(if negative { -x } else { *x })),
            Lit::Char(c) => self.literal(Literal::Char(*c)),
            Lit::Str(s) => Term::Str(s.clone()),
        }
    }

    /// A variable: local, top-level, or (in the library) a primitive.
    fn var(&mut self, name: &str, line: u32, env: &Env) -> R<Term> {
        if let Some(l) = env.get(name) {
            return Ok(Term::Local(*l));
        }
        if let Some(g) = self.global(name) {
            return Ok(Term::Global(g));
        }
        if self.library {
            if let Some((p, arity)) = Prim::named(name) {
                let args: Vec<_> = (0..arity).map(|_| self.fresh()).collect();
                let body = Term::Prim(p, args.iter().map(|a| Term::Local(*a)).collect());
                return Ok(Term::Lam(args, Box::new(body)));
            }
        }
        Err((line, format!("Variable not in scope: {name}")))
    }

    fn operator(&mut self, op: &str, line: u32, env: &Env) -> R<Term> {
        if op.starts_with(':') || op.chars().next().is_some_and(char::is_uppercase) {
            self.constructor(op, line)
        } else {
            self.var(op, line, env)
        }
    }

    fn constructor(&mut self, name: &str, line: u32) -> R<Term> {
        if self.newtypes.contains(super::unqualified(name)) {
            let x = self.fresh();
            return Ok(Term::Lam(vec![x], Box::new(Term::Local(x))));
        }
        match name {
            "()" => return Ok(Term::Con(builtin::UNIT, Vec::new())),
            "[]" => return Ok(Term::Con(builtin::NIL, Vec::new())),
            _ => {}
        }
        let c = self.con(name).ok_or((line, format!("Data constructor not in scope: {name}")))?;
        Ok(self.con_value(c))
    }

    /// `f a b ...`: a saturated constructor or primitive directly, else
    /// an application.
    fn application(&mut self, e: &Expr, env: &Env) -> R<Term> {
        let mut args = Vec::new();
        let mut head = e;
        while let Expr::App(f, a) = head {
            args.push(&**a);
            head = f;
        }
        args.reverse();
        let mut targs = args.iter().map(|a| self.expr(a, env)).collect::<R<Vec<_>>>()?;
        if let Expr::Var(name, _) = head {
            self.type_literals(name, &args, &mut targs);
        }
        match head {
            Expr::Con(name, line) if !self.newtypes.contains(super::unqualified(name)) && name != "()" && name != "[]" => {
                let c = self.con(name).ok_or((*line, format!("Data constructor not in scope: {name}")))?;
                let arity = self.cons[c as usize].arity as usize;
                if targs.len() == arity {
                    return Ok(self.construct(c, targs));
                }
                if targs.len() > arity {
                    return Err((*line, format!("The constructor `{name}' should have {arity} arguments, but has been given {}", targs.len())));
                }
            }
            Expr::Con(name, line) if self.newtypes.contains(super::unqualified(name)) && !targs.is_empty() => {
                let first = targs.remove(0);
                let _ = line;
                return Ok(if targs.is_empty() { first } else { Term::App(Box::new(first), targs) });
            }
            Expr::Var(name, _) if self.library && !env.contains_key(name) && self.global(name).is_none() => {
                if let Some((p, arity)) = Prim::named(name) {
                    if targs.len() == arity as usize {
                        return Ok(Term::Prim(p, targs));
                    }
                }
            }
            _ => {}
        }
        let f = match head {
            Expr::Var(name, line) => self.var(name, *line, env)?,
            Expr::Con(name, line) => self.constructor(name, *line)?,
            other => self.expr(other, env)?,
        };
        Ok(if targs.is_empty() { f } else { Term::App(Box::new(f), targs) })
    }

    /// Integer literals passed where the function's signature names a
    /// numeric type take that type (See Note [Numbers typed at run time]).
    fn type_literals(&mut self, name: &str, args: &[&Expr], targs: &mut [Term]) {
        let Some(mut ty) = self.sigs.get(name).cloned() else { return };
        for (a, t) in args.iter().zip(targs.iter_mut()) {
            let crate::syntax::ast::Type::Fun(arg, rest) = ty else { return };
            let literal = match a {
                Expr::Lit(Lit::Int(n), _) => Some(n.clone()),
                Expr::Neg(inner, _) => match &**inner {
                    Expr::Lit(Lit::Int(n), _) => Some(-n.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(n) = literal {
                if let Some(typed) = typed_literal(&arg, &n) {
                    *t = self.literal(typed);
                }
            }
            ty = *rest;
        }
    }

    /// A saturated constructor, its strict fields evaluated first.
    pub(super) fn construct(&mut self, c: u32, args: Vec<Term>) -> Term {
        let strict = self.cons[c as usize].strict.clone();
        if !strict.iter().any(|s| *s) {
            return Term::Con(c, args);
        }
        let mut binds = Vec::new();
        let mut fields = Vec::new();
        for (a, s) in args.into_iter().zip(strict) {
            if s {
                let x = self.fresh();
                binds.push((x, a));
                fields.push(Term::Local(x));
            } else {
                fields.push(a);
            }
        }
        let mut t = Term::Con(c, fields);
        for (x, a) in binds.into_iter().rev() {
            t = Term::Case(Box::new(a), x, vec![(CasePat::Default, t)]);
        }
        t
    }

    fn lambda(&mut self, pats: &[Pat], body: &Expr, env: &Env) -> R<Term> {
        let args: Vec<_> = pats.iter().map(|_| self.fresh()).collect();
        let mut env2 = env.clone();
        let mut steps = Vec::new();
        for (a, p) in args.iter().zip(pats) {
            self.pat_steps(*a, p, &mut env2, &mut steps)?;
        }
        let b = self.expr(body, &env2)?;
        let fail = Term::Error("Non-exhaustive patterns in lambda".into());
        Ok(Term::Lam(args, Box::new(wrap(steps, b, &fail, self))))
    }

    fn case(&mut self, scrut: &Expr, alts: &[Alt], line: u32, env: &Env) -> R<Term> {
        let v = self.expr(scrut, env)?;
        let s = self.fresh();
        let mut t = Term::Error(format!("Non-exhaustive patterns in case at line {line}"));
        for alt in alts.iter().rev() {
            let (fail, join) = self.failure(&t);
            let mut env2 = env.clone();
            let mut steps = Vec::new();
            self.pat_steps(s, &alt.pat, &mut env2, &mut steps)?;
            let rhs = self.rhs_with_wheres(&alt.rhs, &alt.wheres, &env2, &fail)?;
            let code = wrap(steps, rhs, &fail, self);
            t = match join {
                Some(j) if !irrefutable(&alt.pat) || matches!(alt.rhs, crate::syntax::ast::Rhs::Guarded(_)) => Term::Join(j, Box::new(t), Box::new(code)),
                _ => code,
            };
        }
        // `case e of x -> ...` does not evaluate `e`; any other does.
        if alts.first().is_some_and(|a| irrefutable(&a.pat)) {
            return Ok(Term::Let(vec![(s, v)], Box::new(t)));
        }
        Ok(Term::Case(Box::new(v), s, vec![(CasePat::Default, t)]))
    }

    /// `do`: IO's `>>=` and `>>` (See `lib/Prelude.hs`).
    fn do_block(&mut self, stmts: &[Stmt], line: u32, env: &Env) -> R<Term> {
        let Some((first, rest)) = stmts.split_first() else { return Err((line, "an empty `do' block".into())) };
        match first {
            Stmt::Expr(e) if rest.is_empty() => self.expr(e, env),
            Stmt::Expr(e) => {
                let a = self.expr(e, env)?;
                let b = self.do_block(rest, line, env)?;
                Ok(Term::App(Box::new(self.lib(">>")), vec![a, b]))
            }
            Stmt::Bind(p, e, l) => {
                if rest.is_empty() {
                    return Err((*l, "The last statement in a 'do' block must be an expression".into()));
                }
                let m = self.expr(e, env)?;
                let x = self.fresh();
                let mut env2 = env.clone();
                let mut steps = Vec::new();
                self.pat_steps(x, p, &mut env2, &mut steps)?;
                let k = self.do_block(rest, line, &env2)?;
                let fail = Term::Error(format!("Pattern match failure in do expression at line {l}"));
                let k = Term::Lam(vec![x], Box::new(wrap(steps, k, &fail, self)));
                Ok(Term::App(Box::new(self.lib(">>=")), vec![m, k]))
            }
            Stmt::Let(decls) => {
                if rest.is_empty() {
                    return Err((line, "The last statement in a 'do' block must be an expression".into()));
                }
                self.let_in(decls, env, |d, inner| d.do_block(rest, line, inner))
            }
        }
    }

    /// `[e | quals] ++ tail` by Wadler's translation: one local function
    /// per generator, no intermediate lists.
    fn comprehension(&mut self, head: &Expr, quals: &[Stmt], tail: Term, env: &Env) -> R<Term> {
        let Some((q, rest)) = quals.split_first() else {
            return Ok(Term::Con(builtin::CONS, vec![self.expr(head, env)?, tail]));
        };
        match q {
            Stmt::Expr(c) => {
                let c = self.expr(c, env)?;
                let t = self.fresh();
                let inner = self.comprehension(head, rest, Term::Local(t), env)?;
                let b = self.fresh();
                let case = Term::Case(Box::new(c), b, vec![(CasePat::Con(builtin::TRUE, Vec::new()), inner), (CasePat::Default, Term::Local(t))]);
                Ok(Term::Let(vec![(t, tail)], Box::new(case)))
            }
            Stmt::Let(decls) => {
                self.let_in(decls, env, |d, inner| d.comprehension(head, rest, tail, inner))
            }
            Stmt::Bind(p, list, _) => {
                // h [] = tail; h (p : us) = [e | rest] ++ h us; h (_ : us) = h us
                let l = self.expr(list, env)?;
                let (h, xs, x, us, t) = (self.fresh(), self.fresh(), self.fresh(), self.fresh(), self.fresh());
                let again = Term::App(Box::new(Term::Local(h)), vec![Term::Local(us)]);
                let mut env2 = env.clone();
                let mut steps = Vec::new();
                self.pat_steps(x, p, &mut env2, &mut steps)?;
                let body = self.comprehension(head, rest, again.clone(), &env2)?;
                let matched = wrap(steps, body, &again, self);
                let b = self.fresh();
                let cases = vec![(CasePat::Con(builtin::NIL, Vec::new()), Term::Local(t)), (CasePat::Con(builtin::CONS, vec![x, us]), matched)];
                let hbody = Term::Lam(vec![xs], Box::new(Term::Case(Box::new(Term::Local(xs)), b, cases)));
                Ok(Term::Let(vec![(t, tail), (h, hbody)], Box::new(Term::App(Box::new(Term::Local(h)), vec![l]))))
            }
        }
    }

    fn record_con(&mut self, name: &str, fields: &[(String, Expr)], line: u32, env: &Env) -> R<Term> {
        if self.newtypes.contains(super::unqualified(name)) {
            return match fields {
                [(_, e)] => self.expr(e, env),
                _ => Err((line, format!("the newtype {name} has one field"))),
            };
        }
        let c = self.con(name).ok_or((line, format!("Data constructor not in scope: {name}")))?;
        let info = self.cons[c as usize].clone();
        let mut args: Vec<Option<Term>> = vec![None; info.arity as usize];
        for (label, e) in fields {
            let i = info.labels.iter().position(|l| l == label).ok_or((line, format!("Constructor `{name}' does not have field `{label}'")))?;
            args[i] = Some(self.expr(e, env)?);
        }
        let args = args.into_iter().enumerate().map(|(i, a)| a.unwrap_or_else(|| Term::Error(format!("Missing field in record construction {}", info.labels.get(i).cloned().unwrap_or_default())))).collect();
        Ok(self.construct(c, args))
    }

    fn record_update(&mut self, x: &Expr, fields: &[(String, Expr)], line: u32, env: &Env) -> R<Term> {
        let v = self.expr(x, env)?;
        let mut values = Vec::new();
        let mut binds = Vec::new();
        for (label, e) in fields {
            let t = self.fresh();
            binds.push((t, self.expr(e, env)?));
            values.push((label.clone(), t));
        }
        let first = &fields.first().ok_or((line, "an empty record update".to_string()))?.0;
        let places = self.labels.get(first).cloned().ok_or((line, format!("`{first}' is not a record selector")))?;
        let b = self.fresh();
        let mut alts = Vec::new();
        for (c, _) in places {
            let info = self.cons[c as usize].clone();
            if !values.iter().all(|(l, _)| info.labels.contains(l)) {
                continue;
            }
            let locals: Vec<_> = (0..info.arity).map(|_| self.fresh()).collect();
            let args = locals.iter().enumerate().map(|(i, l)| match values.iter().find(|(lab, _)| *lab == info.labels[i]) {
                Some((_, t)) => Term::Local(*t),
                None => Term::Local(*l),
            });
            let args: Vec<_> = args.collect();
            let built = self.construct(c, args);
            alts.push((CasePat::Con(c, locals), built));
        }
        alts.push((CasePat::Default, Term::Error("No match in record update".into())));
        Ok(Term::Let(binds, Box::new(Term::Case(Box::new(v), b, alts))))
    }
}

/// Does the type name one of `names`?
fn mentions(ty: &crate::syntax::ast::Type, names: &[&str]) -> bool {
    use crate::syntax::ast::Type;
    match ty {
        Type::Var(_) => false,
        Type::Con(n, args) => names.contains(&super::unqualified(n)) || args.iter().any(|a| mentions(a, names)),
        Type::Fun(a, b) => mentions(a, names) || mentions(b, names),
        Type::List(a) => mentions(a, names),
        Type::Tuple(ts) => ts.iter().any(|a| mentions(a, names)),
    }
}

/// An integer literal at a numeric type named by a signature.
fn typed_literal(ty: &crate::syntax::ast::Type, n: &num_bigint::BigInt) -> Option<Literal> {
    use crate::prim::Prim;
    let big = crate::prim::num::Num::Integer(n.clone());
    Some(match super::bind::numeric_prim(ty)? {
        Prim::ToInt => Literal::Int(crate::prim::num::wrap_i64(n)),
        Prim::ToWord64 => Literal::Word(crate::prim::num::wrap_i64(n) as u64),
        Prim::ToDouble => Literal::Double(crate::prim::num::to_f64(&big).ok()?),
        _ => return None,
    })
}
