//! Liveness of a frame's slots at a case: which slots a case's
//! alternatives read, so that the scrutinee's frames may reuse the rest
//! (See Note [What a case keeps]).
//!
//! Invariant kept: a case's `keep` is at least one past every slot bound
//! before it that its alternatives, or the join points they jump to,
//! read, and at least the `keep` of every case whose scrutinee holds it.

use super::{free_vars, Frame, Lower};
use crate::ir::IrId;
use crate::term::{CasePat, JoinId, Local, Term};
use std::collections::BTreeSet;

// Note [What a case keeps]
// ----------------------------------------
// A case whose scrutinee is not yet a value leaves a continuation, and
// the scrutinee's evaluation opens its frames above what that
// continuation keeps. Keeping the case's whole frame, as the machine
// did, kept every slot the body had given out: `merge`'s 15 while a
// heap's thunk chain was forced, so fibheaps' deep recursion held 21
// words a level where GHC's code, whose case continuations save only
// the variables their alternatives use, holds about 7. Each case now
// records `keep`, one past the highest slot its alternatives read of
// those bound before it (their free variables', and those of the join
// points they jump to, counted when each join point is lowered): the
// slots above it are dead while the scrutinee runs, and its frames go
// there. An operand of a primitive keeps what the rest of the chain
// reads (the earlier operands' temporaries, the later operands'
// variables, the other atoms). A case lowered inside another's
// scrutinee keeps at least what that one keeps (`Frame::floor`), so
// the continuations of one frame keep more the higher they are, as
// the machine's stack needs. When the case resumes, its frame is
// restored to its full size, slots popped meanwhile holding nothing
// (`Machine::resume`); where the saving would be under `MIN_TRIM`
// slots the case keeps its whole frame and no refill is needed (a
// threshold of 4 cost twice the instructions of 8 for the same
// residencies; at 16, fibheaps' `merge`, 15 slots, was no longer
// trimmed).
// Maximum residency against GHC -O0's (`scripts/programs-vs-ghc`):
// fibheaps 1.97x to 0.92x, lru 2.82x to 1.00x, treejoin 1.88x to
// 1.00x, spellcheck 2.27x to 1.54x; fibheaps' MUT 0.79x and GC 0.83x
// (`scripts/ab -n 5`). The price is the refill: 2-3% more instructions
// (binary_trees 10 0.603G to 0.624G, lalr 10 0.675G to 0.690G,
// selector_leak 200000 1.136G to 1.172G); on the clock, with a threshold
// of 4, binary_trees 0.99x and selector_leak 1.01x (noise), lalr 16
// 1.05x. The alternative, liveness for every slot of every instruction
// (GHC's stack maps), would let a frame shrink anywhere, not only at a
// case, at the price of a map per continuation.

/// A case keeps its whole frame unless that keeps this many slots more
/// than its alternatives read (See Note [What a case keeps]).
pub(super) const MIN_TRIM: u32 = 8;

/// One past the highest slot of the locals `free` and of what the join
/// points `jumps` read (See Note [What a case keeps]).
pub(super) fn slots_top(f: &Frame, free: &BTreeSet<Local>, jumps: &[JoinId]) -> u32 {
    let vars = free.iter().filter_map(|x| f.slots.get(x)).map(|s| s + 1).max().unwrap_or(0);
    jumps.iter().filter_map(|j| f.joins.get(j)).map(|&(_, live)| live).fold(vars, u32::max)
}

/// The join points `t` jumps to (not into lambdas: a jump stays in its
/// code body).
fn jumps_in(t: &Term, out: &mut Vec<JoinId>) {
    match t {
        Term::Jump(j) => out.push(*j),
        Term::Local(_) | Term::Global(_) | Term::Str(_) | Term::Error(_) | Term::Lam(..) => {}
        Term::App(fun, args) => {
            jumps_in(fun, out);
            args.iter().for_each(|a| jumps_in(a, out));
        }
        Term::Let(bs, body) => {
            bs.iter().for_each(|(_, e)| jumps_in(e, out));
            jumps_in(body, out);
        }
        Term::Case(scrut, _, alts) => {
            jumps_in(scrut, out);
            alts.iter().for_each(|(_, rhs)| jumps_in(rhs, out));
        }
        Term::Con(_, args) | Term::Prim(_, args) => args.iter().for_each(|a| jumps_in(a, out)),
        Term::Sel(inner, _) => jumps_in(inner, out),
        Term::Join(_, code, body) => {
            jumps_in(code, out);
            jumps_in(body, out);
        }
    }
}

impl Lower<'_> {
    /// `lower` run for a scrutinee whose case keeps `keep` slots: every
    /// case inside keeps at least those (See Note [What a case keeps]).
    pub(super) fn under_floor(&mut self, f: &mut Frame, keep: u32, lower: impl FnOnce(&mut Self, &mut Frame) -> IrId) -> IrId {
        let floor = std::mem::replace(&mut f.floor, keep);
        let i = lower(self, f);
        f.floor = floor;
        i
    }

    /// One past the highest slot that `t` reads of those bound before it
    /// (its free variables', and those of the join points it jumps to):
    /// what must be kept for it while a scrutinee is evaluated before it
    /// (See Note [What a case keeps]).
    pub(super) fn live_top(&self, f: &Frame, t: &Term) -> u32 {
        let mut free = BTreeSet::new();
        free_vars(t, &mut Vec::new(), &mut free);
        let mut jumps = Vec::new();
        jumps_in(t, &mut jumps);
        slots_top(f, &free, &jumps)
    }

}

/// The locals a case's alternatives read that their patterns do not bind
/// (the case's binder among them, if named), and the join points they
/// jump to.
pub(super) fn alts_reads(alts: &[(CasePat, Term)]) -> (BTreeSet<Local>, Vec<JoinId>) {
    let (mut free, mut jumps, mut bound) = (BTreeSet::new(), Vec::new(), Vec::new());
    for (pat, rhs) in alts {
        if let CasePat::Con(_, fields) = pat {
            bound.extend(fields);
        }
        free_vars(rhs, &mut bound, &mut free);
        bound.clear();
        jumps_in(rhs, &mut jumps);
    }
    (free, jumps)
}

#[cfg(test)]
mod tests {
    use crate::ir::{Compiled, Ir, IrId};

    /// The cases reachable from `i` in one code body (a jump is its join
    /// point's code, already an id here), with `i` itself.
    fn within(c: &Compiled, i: IrId, out: &mut Vec<IrId>) {
        if out.contains(&i) {
            return;
        }
        out.push(i);
        match &c.ir[i as usize] {
            Ir::Case { scrut, alts, default, .. } => {
                within(c, *scrut, out);
                alts.iter().for_each(|a| within(c, a.2, out));
                if let Some(d) = default {
                    within(c, *d, out);
                }
            }
            Ir::Let(_, body, _) => within(c, *body, out),
            Ir::WordPrim { slow, .. } => within(c, *slow, out),
            Ir::CaseWordPrim { case, .. } => within(c, *case, out),
            _ => {}
        }
    }

    /// Every case inside another's scrutinee keeps at least what that one
    /// keeps, in every program of `programs/` and the library (the
    /// machine's stack needs it: See Note [What a case keeps]).
    #[test]
    fn a_case_inside_a_scrutinee_keeps_at_least_its_cases_slots() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "hs") {
                continue;
            }
            let c = crate::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for (i, ir) in c.ir.iter().enumerate() {
                let Ir::Case { scrut, keep, .. } = ir else { continue };
                let mut inside = Vec::new();
                within(&c, *scrut, &mut inside);
                for j in inside {
                    if let Ir::Case { keep: inner, .. } = &c.ir[j as usize] {
                        assert!(inner >= keep, "{}: case {j} keeps {inner} inside the scrutinee of case {i}, which keeps {keep}", path.display());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} nested cases checked");
    }
}
