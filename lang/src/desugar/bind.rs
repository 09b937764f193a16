//! Declarations: a group of bindings (top level, `let`, `where`) becomes
//! recursive bindings; a function's equations become one lambda that
//! tries them in order; guards and `where` become cases and lets around
//! the right-hand side.
//!
//! A signature whose result (after the function's arguments) is `Int`,
//! `Word64`, `Double` or `Integer` converts the value the function
//! returns to that type (See Note [Numbers typed at run time] in
//! `prim::num`): the function's result is evaluated when it returns
//! anyway, so this changes no strictness.

use super::pattern::{irrefutable, wrap};
use super::{Desugarer, Env, R};
use crate::prim::Prim;
use crate::program::GlobalDef;
use crate::syntax::ast::{Decl, Guard, Pat, Rhs, Type};
use crate::term::{CasePat, Local, Term};

/// A function's equations or a pattern binding, gathered from a group.
enum Binding<'a> {
    Fun(String, Vec<&'a Decl>),
    Pat(&'a Decl),
}

fn gather(decls: &[Decl]) -> R<Vec<Binding<'_>>> {
    let mut out: Vec<Binding<'_>> = Vec::new();
    for d in decls {
        match d {
            Decl::Fun { name, line, .. } => {
                if let Some(Binding::Fun(prev, eqs)) = out.last_mut() {
                    if prev == name {
                        eqs.push(d);
                        continue;
                    }
                }
                if out.iter().any(|b| matches!(b, Binding::Fun(n, _) if n == name)) {
                    return Err((*line, format!("Multiple declarations of `{name}'")));
                }
                out.push(Binding::Fun(name.clone(), vec![d]));
            }
            Decl::Pat { .. } => out.push(Binding::Pat(d)),
            _ => {}
        }
    }
    Ok(out)
}

/// The variables a pattern binds, in order.
pub(crate) fn pat_vars(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Var(x) => out.push(x.clone()),
        Pat::As(x, q) => {
            out.push(x.clone());
            pat_vars(q, out);
        }
        Pat::Con(_, ps, _) | Pat::Tuple(ps) | Pat::List(ps) | Pat::Infix(ps, _) => ps.iter().for_each(|q| pat_vars(q, out)),
        Pat::Lazy(q) | Pat::Bang(q) => pat_vars(q, out),
        Pat::Record(_, fs, _) => fs.iter().for_each(|(_, q)| pat_vars(q, out)),
        Pat::Wild | Pat::Lit(_) | Pat::NegLit(_) => {}
    }
}

impl Desugarer {
    /// The top-level declarations of a module: globals.
    pub(super) fn top_decls(&mut self, decls: &[Decl]) -> R<()> {
        self.collect_sigs(decls);
        let bindings = gather(decls)?;
        // Declare every name first: the bodies may refer to any of them.
        let mut ids = Vec::new();
        for b in &bindings {
            match b {
                Binding::Fun(name, _) => ids.push(vec![self.declare_global(name, GlobalDef::Term(Term::Error(String::new())))]),
                Binding::Pat(Decl::Pat { pat, .. }) => {
                    let whole = self.declare_global("pattern", GlobalDef::Term(Term::Error(String::new())));
                    let mut names = Vec::new();
                    pat_vars(pat, &mut names);
                    let mut g = vec![whole];
                    for n in names {
                        g.push(self.declare_global(&n, GlobalDef::Term(Term::Error(String::new()))));
                    }
                    ids.push(g);
                }
                Binding::Pat(_) => unreachable!(),
            }
        }
        let env = Env::new();
        for (b, gs) in bindings.iter().zip(ids) {
            match b {
                Binding::Fun(name, eqs) => {
                    let t = self.function(name, eqs, &env)?;
                    self.globals[gs[0] as usize].1 = GlobalDef::Term(t);
                }
                Binding::Pat(Decl::Pat { pat, rhs, wheres, line }) => {
                    let whole = self.rhs_with_wheres(rhs, wheres, &env, &Term::Error(format!("Non-exhaustive guards in pattern binding at line {line}")))?;
                    self.globals[gs[0] as usize].1 = GlobalDef::Term(whole);
                    // Each variable: a CAF that matches the whole value.
                    let mut names = Vec::new();
                    pat_vars(pat, &mut names);
                    for (k, name) in names.iter().enumerate() {
                        let s = self.fresh();
                        let mut env2 = Env::new();
                        let mut steps = Vec::new();
                        self.pat_steps(s, pat, &mut env2, &mut steps)?;
                        let body = wrap(steps, Term::Local(env2[name]), &Term::Error("Irrefutable pattern failed".into()), self);
                        let t = Term::Let(vec![(s, Term::Global(gs[0]))], Box::new(body));
                        self.globals[gs[k + 1] as usize].1 = GlobalDef::Term(t);
                    }
                }
                Binding::Pat(_) => unreachable!(),
            }
        }
        Ok(())
    }

    fn collect_sigs(&mut self, decls: &[Decl]) {
        for d in decls {
            if let Decl::Sig { names, ty, .. } = d {
                for n in names {
                    self.sigs.insert(n.clone(), ty.clone());
                }
            }
        }
    }

    /// A local group (`let`, `where`): the scope it makes and its
    /// recursive bindings.
    pub(super) fn local_group(&mut self, decls: &[Decl], env: &Env) -> R<(Env, Vec<(Local, Term)>)> {
        // A local name's signature is its own group's, not an outer one's.
        let outer_sigs = self.sigs.clone();
        for d in decls {
            if let Decl::Fun { name, .. } = d {
                self.sigs.remove(name);
            }
        }
        self.collect_sigs(decls);
        let result = self.local_bindings(decls, env);
        self.sigs = outer_sigs;
        result
    }

    /// `let decls in body` (an expression's, a `do` block's or a list
    /// comprehension's), `body` desugared in the group's scope. A banged
    /// variable (`let !x = e`) is evaluated before the body, as GHC's
    /// desugarer has it at every optimisation level: alone in its group,
    /// it becomes `case e of x -> body` (no thunk is made for it);
    /// otherwise the group is made and the variable forced before the
    /// body. Other banged patterns bind lazily, as before.
    pub(super) fn let_in(&mut self, decls: &[Decl], env: &Env, body: impl FnOnce(&mut Self, &Env) -> R<Term>) -> R<Term> {
        let bound: Vec<&Decl> = decls.iter().filter(|d| !matches!(d, Decl::Sig { .. })).collect();
        if let [Decl::Pat { pat: Pat::Bang(q), rhs, wheres, line }] = bound.as_slice() {
            if let (Pat::Var(x), true) = (&**q, bound.len() == decls.len()) {
                let e = self.rhs_with_wheres(rhs, wheres, env, &Term::Error(format!("Non-exhaustive guards in pattern binding at line {line}")))?;
                let local = self.fresh();
                let mut inner = env.clone();
                inner.insert(x.clone(), local);
                let body = body(self, &inner)?;
                return Ok(Term::Case(Box::new(e), local, vec![(CasePat::Default, body)]));
            }
        }
        let (inner, binds) = self.local_group(decls, env)?;
        let mut body = body(self, &inner)?;
        for d in decls {
            if let Decl::Pat { pat: Pat::Bang(q), .. } = d {
                if let Pat::Var(x) = &**q {
                    body = Term::Case(Box::new(Term::Local(inner[x])), self.fresh(), vec![(CasePat::Default, body)]);
                }
            }
        }
        Ok(Term::Let(binds, Box::new(body)))
    }

    fn local_bindings(&mut self, decls: &[Decl], env: &Env) -> R<(Env, Vec<(Local, Term)>)> {
        let bindings = gather(decls)?;
        let mut inner = env.clone();
        let mut funs = Vec::new();
        let mut pats = Vec::new();
        for b in &bindings {
            match b {
                Binding::Fun(name, eqs) => {
                    let x = self.fresh();
                    inner.insert(name.clone(), x);
                    funs.push((x, name.clone(), eqs.clone()));
                }
                Binding::Pat(d) => {
                    let Decl::Pat { pat, .. } = d else { unreachable!() };
                    let whole = self.fresh();
                    let mut steps = Vec::new();
                    self.lazy_steps(whole, pat, &mut inner, &mut steps)?;
                    pats.push((whole, *d, steps));
                }
            }
        }
        let mut out = Vec::new();
        for (x, name, eqs) in funs {
            out.push((x, self.function(&name, &eqs, &inner)?));
        }
        for (whole, d, steps) in pats {
            let Decl::Pat { rhs, wheres, line, .. } = d else { unreachable!() };
            let t = self.rhs_with_wheres(rhs, wheres, &inner, &Term::Error(format!("Non-exhaustive guards in pattern binding at line {line}")))?;
            out.push((whole, t));
            for s in steps {
                if let super::pattern::Step::Let(x, t) = s {
                    out.push((x, t));
                }
            }
        }
        Ok((inner, out))
    }

    /// A function's equations (or a variable's one): a lambda trying them
    /// in order, each failing to the next.
    pub(super) fn function(&mut self, name: &str, eqs: &[&Decl], env: &Env) -> R<Term> {
        let arity = match eqs[0] {
            Decl::Fun { pats, .. } => pats.len(),
            _ => unreachable!(),
        };
        let args: Vec<Local> = (0..arity).map(|_| self.fresh()).collect();
        let mut body = Term::Error(format!("Non-exhaustive patterns in function {name}"));
        for eq in eqs.iter().rev() {
            let Decl::Fun { pats, rhs, wheres, line, .. } = eq else { unreachable!() };
            if pats.len() != arity {
                return Err((*line, format!("Equations for `{name}' have different numbers of arguments")));
            }
            let (fail, join) = self.failure(&body);
            let mut env2 = env.clone();
            let mut steps = Vec::new();
            for (a, p) in args.iter().zip(pats) {
                self.pat_steps(*a, p, &mut env2, &mut steps)?;
            }
            let rhs_t = self.rhs_with_wheres(rhs, wheres, &env2, &fail)?;
            let clause = wrap(steps, rhs_t, &fail, self);
            body = match join {
                Some(j) if pats.iter().all(irrefutable) && !matches!(rhs, Rhs::Guarded(_)) => {
                    let _ = j;
                    clause
                }
                Some(j) => Term::Join(j, Box::new(body), Box::new(clause)),
                None => clause,
            };
        }
        let body = self.coerce_result(name, arity, body);
        Ok(if arity == 0 { body } else { Term::Lam(args, Box::new(body)) })
    }

    /// What a failing test continues with: the next alternative's term
    /// itself if it is an error, else a jump to a join point for it.
    pub(super) fn failure(&mut self, next: &Term) -> (Term, Option<u32>) {
        if let Term::Error(_) | Term::Jump(_) = next {
            return (next.clone(), None);
        }
        let j = self.fresh_join();
        (Term::Jump(j), Some(j))
    }

    pub(super) fn rhs_with_wheres(&mut self, rhs: &Rhs, wheres: &[Decl], env: &Env, fail: &Term) -> R<Term> {
        if wheres.is_empty() {
            return self.rhs(rhs, env, fail);
        }
        let (inner, binds) = self.local_group(wheres, env)?;
        let body = self.rhs(rhs, &inner, fail)?;
        Ok(Term::Let(binds, Box::new(body)))
    }

    fn rhs(&mut self, rhs: &Rhs, env: &Env, fail: &Term) -> R<Term> {
        match rhs {
            Rhs::Plain(e) => self.expr(e, env),
            Rhs::Guarded(alts) => {
                let mut t = fail.clone();
                for (guards, e) in alts.iter().rev() {
                    let (f, join) = self.failure(&t);
                    let code = self.guards(guards, e, env, &f)?;
                    t = match join {
                        Some(j) => Term::Join(j, Box::new(t), Box::new(code)),
                        None => code,
                    };
                }
                Ok(t)
            }
        }
    }

    fn guards(&mut self, guards: &[Guard], e: &crate::syntax::ast::Expr, env: &Env, fail: &Term) -> R<Term> {
        let Some((g, rest)) = guards.split_first() else { return self.expr(e, env) };
        match g {
            Guard::Bool(c) => {
                if matches!(c, crate::syntax::ast::Expr::Var(v, _) if v == "otherwise") || matches!(c, crate::syntax::ast::Expr::Con(v, _) if v == "True") {
                    return self.guards(rest, e, env, fail);
                }
                let test = self.expr(c, env)?;
                let inner = self.guards(rest, e, env, fail)?;
                let b = self.fresh();
                Ok(Term::Case(Box::new(test), b, vec![(CasePat::Con(super::builtin::TRUE, Vec::new()), inner), (CasePat::Default, fail.clone())]))
            }
            Guard::Bind(p, scrut) => {
                let v = self.expr(scrut, env)?;
                let s = self.fresh();
                let mut env2 = env.clone();
                let mut steps = Vec::new();
                self.pat_steps(s, p, &mut env2, &mut steps)?;
                let inner = self.guards(rest, e, &env2, fail)?;
                Ok(Term::Let(vec![(s, v)], Box::new(wrap(steps, inner, fail, self))))
            }
            Guard::Let(decls) => {
                let (inner_env, binds) = self.local_group(decls, env)?;
                let inner = self.guards(rest, e, &inner_env, fail)?;
                Ok(Term::Let(binds, Box::new(inner)))
            }
        }
    }

    /// Convert a function's result to its signature's numeric type.
    fn coerce_result(&mut self, name: &str, arity: usize, body: Term) -> Term {
        let Some(mut ty) = self.sigs.get(name) else { return body };
        for _ in 0..arity {
            match ty {
                Type::Fun(_, r) => ty = r,
                _ => return body,
            }
        }
        match numeric_prim(ty) {
            Some(p) => Term::Prim(p, vec![body]),
            None => body,
        }
    }
}

/// The conversion to a concrete numeric type, if `ty` is one.
pub(crate) fn numeric_prim(ty: &Type) -> Option<Prim> {
    match ty {
        Type::Con(n, args) if args.is_empty() => match super::unqualified(n) {
            "Int" => Some(Prim::ToInt),
            "Word64" | "Word" => Some(Prim::ToWord64),
            "Double" | "Float" => Some(Prim::ToDouble),
            "Integer" => Some(Prim::ToInteger),
            _ => None,
        },
        _ => None,
    }
}
