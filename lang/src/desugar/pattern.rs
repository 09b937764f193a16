//! Pattern matching: a pattern over one local becomes a list of steps
//! (test a constructor, compare a literal, force, bind lazily), and the
//! steps wrap a success term with a failure term at each test. Equations
//! are tried in order, each failing to the next through a join point
//! (See `bind::function`), so a match costs what GHC's `-O0` code costs:
//! one test per constructor pattern, no allocation.
//!
//! A lazy pattern `~p`, and a pattern binding in `let` or `where`, binds
//! each variable to a thunk that matches when forced; where the pattern
//! is one constructor over variables, the thunk is a selector thunk,
//! which the GC may evaluate (See Note [Selector thunks] in the
//! collectors' `selector`).

use super::builtin;
use super::{Desugarer, Env, R};
use crate::prim::Prim;
use crate::syntax::ast::{Lit, Pat};
use crate::term::{CasePat, ConId, Local, Term};

/// One step of a match.
pub(crate) enum Step {
    /// The local must evaluate to this constructor; bind its fields.
    Con(Local, ConId, Vec<Local>),
    /// The local must equal the literal.
    Lit(Local, Term),
    /// Evaluate the local (a bang pattern).
    Force(Local),
    /// Bind a local lazily.
    Let(Local, Term),
}

impl Desugarer {
    /// Steps matching `pat` against the value in `s`, binding its
    /// variables in `env`.
    pub(super) fn pat_steps(&mut self, s: Local, pat: &Pat, env: &mut Env, steps: &mut Vec<Step>) -> R<()> {
        match pat {
            Pat::Var(x) => {
                env.insert(x.clone(), s);
            }
            Pat::Wild => {}
            Pat::Lit(Lit::Str(text)) => {
                let chars: Vec<Pat> = text.chars().map(|c| Pat::Lit(Lit::Char(c))).collect();
                self.pat_steps(s, &Pat::List(chars), env, steps)?;
            }
            Pat::Lit(lit) => {
                let l = self.lit_term(lit, false);
                steps.push(Step::Lit(s, l));
            }
            Pat::NegLit(lit) => {
                let l = self.lit_term(lit, true);
                steps.push(Step::Lit(s, l));
            }
            Pat::Con(name, args, line) => self.con_steps(s, name, args, *line, env, steps)?,
            Pat::Tuple(ps) if ps.is_empty() => steps.push(Step::Con(s, builtin::UNIT, Vec::new())),
            Pat::Tuple(ps) => {
                if ps.len() > builtin::MAX_TUPLE {
                    return Err((0, format!("a tuple of {} components (at most {})", ps.len(), builtin::MAX_TUPLE)));
                }
                let c = builtin::TUPLE2 + ps.len() as u32 - 2;
                self.fields_steps(s, c, ps, env, steps)?;
            }
            Pat::List(ps) => {
                let mut rest = Pat::Con("[]".into(), Vec::new(), 0);
                for p in ps.iter().rev() {
                    rest = Pat::Con(":".into(), vec![p.clone(), rest], 0);
                }
                self.pat_steps(s, &rest, env, steps)?;
            }
            Pat::As(x, p) => {
                env.insert(x.clone(), s);
                self.pat_steps(s, p, env, steps)?;
            }
            Pat::Bang(p) => {
                steps.push(Step::Force(s));
                self.pat_steps(s, p, env, steps)?;
            }
            Pat::Lazy(p) => self.lazy_steps(s, p, env, steps)?,
            Pat::Record(name, fields, line) => {
                let c = self.con(name).ok_or((*line, format!("Data constructor not in scope: {name}")))?;
                let mut ps = vec![Pat::Wild; self.cons[c as usize].arity as usize];
                for (label, p) in fields {
                    let i = self.cons[c as usize].labels.iter().position(|l| l == label).ok_or((*line, format!("Constructor `{name}' does not have field `{label}'")))?;
                    ps[i] = p.clone();
                }
                self.fields_steps(s, c, &ps, env, steps)?;
            }
            Pat::Infix(operands, ops) => {
                let tree = self.fix.resolve(operands.clone(), ops, &mut |op, line, l, r| Pat::Con(op.to_string(), vec![l, r], line)).map_err(|(m, l)| (l, m))?;
                self.pat_steps(s, &tree, env, steps)?;
            }
        }
        Ok(())
    }

    fn con_steps(&mut self, s: Local, name: &str, args: &[Pat], line: u32, env: &mut Env, steps: &mut Vec<Step>) -> R<()> {
        if self.newtypes.contains(super::unqualified(name)) {
            // See the module doc of `data`: the field's pattern, lazily.
            return match args {
                [p] => self.pat_steps(s, p, env, steps),
                _ => Err((line, format!("the newtype constructor {name} takes one field"))),
            };
        }
        let c = self.con(name).ok_or((line, format!("Data constructor not in scope: {name}")))?;
        let arity = self.cons[c as usize].arity as usize;
        if args.len() != arity {
            return Err((line, format!("The constructor `{name}' should have {arity} arguments, but has been given {}", args.len())));
        }
        self.fields_steps(s, c, args, env, steps)
    }

    fn fields_steps(&mut self, s: Local, c: ConId, args: &[Pat], env: &mut Env, steps: &mut Vec<Step>) -> R<()> {
        let fields: Vec<Local> = args.iter().map(|_| self.fresh()).collect();
        steps.push(Step::Con(s, c, fields.clone()));
        for (f, p) in fields.into_iter().zip(args) {
            self.pat_steps(f, p, env, steps)?;
        }
        Ok(())
    }

    /// `~p` over `s`: each variable of `p` a thunk that matches `p` when
    /// forced (a selector thunk where `p` is a constructor of variables).
    pub(super) fn lazy_steps(&mut self, s: Local, p: &Pat, env: &mut Env, steps: &mut Vec<Step>) -> R<()> {
        match p {
            Pat::Var(_) | Pat::Wild => return self.pat_steps(s, p, env, steps),
            Pat::Lazy(q) | Pat::Bang(q) => return self.lazy_steps(s, q, env, steps),
            _ => {}
        }
        if let Some((_c, vars)) = self.selectable(p) {
            for (i, v) in vars.into_iter().enumerate() {
                if let Some(v) = v {
                    let x = self.fresh();
                    steps.push(Step::Let(x, Term::Sel(Box::new(Term::Local(s)), i as u32)));
                    env.insert(v, x);
                }
            }
            return Ok(());
        }
        // Each variable its own thunk matching the whole pattern (its own
        // fresh locals: a thunk's body is lowered on its own).
        let fail = Term::Error("Irrefutable pattern failed".into());
        let mut names = Vec::new();
        super::bind::pat_vars(p, &mut names);
        for name in names {
            let mut own_env = Env::new();
            let mut own_steps = Vec::new();
            self.pat_steps(s, p, &mut own_env, &mut own_steps)?;
            let body = wrap(own_steps, Term::Local(own_env[&name]), &fail, self);
            let x = self.fresh();
            steps.push(Step::Let(x, body));
            env.insert(name, x);
        }
        Ok(())
    }

    /// A pattern of one (non-newtype) constructor over variables and
    /// wildcards: the constructor and each field's variable.
    fn selectable(&self, p: &Pat) -> Option<(ConId, Vec<Option<String>>)> {
        let (c, args) = match p {
            Pat::Tuple(ps) if ps.len() >= 2 && ps.len() <= builtin::MAX_TUPLE => (builtin::TUPLE2 + ps.len() as u32 - 2, ps),
            Pat::Con(name, ps, _) if !self.newtypes.contains(name.as_str()) => (self.con(name)?, ps),
            _ => return None,
        };
        if self.cons[c as usize].siblings.len() != 1 {
            return None;
        }
        let vars = args
            .iter()
            .map(|a| match a {
                Pat::Var(v) => Some(Some(v.clone())),
                Pat::Wild => Some(None),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some((c, vars))
    }

    /// A literal pattern's value to compare with.
    fn lit_term(&mut self, lit: &Lit, negative: bool) -> Term {
        use crate::term::Literal;
        let l = match lit {
            Lit::Int(n) => Literal::Integer(if negative { -n.clone() } else { n.clone() }),
            Lit::Frac(x) => Literal::Double(if negative { -x } else { *x }),
            Lit::Char(c) => Literal::Char(*c),
            Lit::Str(_) => unreachable!("string patterns are lists of characters"),
        };
        self.literal(l)
    }
}

/// The steps around `success`, each test failing to `fail`.
pub(crate) fn wrap(steps: Vec<Step>, success: Term, fail: &Term, d: &mut Desugarer) -> Term {
    let mut t = success;
    for step in steps.into_iter().rev() {
        t = match step {
            Step::Con(s, c, fields) => {
                let b = d.fresh();
                // A default even for a type of one constructor: the
                // library's run-time dispatch matches any value.
                let alts = vec![(CasePat::Con(c, fields), t), (CasePat::Default, fail.clone())];
                Term::Case(Box::new(Term::Local(s)), b, alts)
            }
            Step::Lit(s, l) => {
                let b = d.fresh();
                let test = Term::Prim(Prim::Eq, vec![Term::Local(s), l]);
                Term::Case(Box::new(test), b, vec![(CasePat::Con(builtin::TRUE, Vec::new()), t), (CasePat::Default, fail.clone())])
            }
            Step::Force(s) => {
                let b = d.fresh();
                Term::Case(Box::new(Term::Local(s)), b, vec![(CasePat::Default, t)])
            }
            Step::Let(x, e) => Term::Let(vec![(x, e)], Box::new(t)),
        };
    }
    t
}

/// Does matching `p` never fail (so no join point is needed after it)?
pub(crate) fn irrefutable(p: &Pat) -> bool {
    match p {
        Pat::Var(_) | Pat::Wild | Pat::Lazy(_) => true,
        Pat::Bang(q) | Pat::As(_, q) => irrefutable(q),
        _ => false,
    }
}
