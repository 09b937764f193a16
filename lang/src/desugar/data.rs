//! `data` and `newtype` declarations: constructors numbered for the
//! machine, their strict fields, record labels and the field selectors.
//! Derived instances need no code: `Eq`, `Ord`, `Show` and `Enum` work on
//! any constructor through the structure primitives (See `lib/Prelude.hs`).
//!
//! A newtype's constructor is erased, as GHC erases it: applying it is
//! the identity and matching it matches its field's pattern against the
//! same value, without evaluating anything.

use super::{Desugarer, R};
use crate::program::GlobalDef;
use crate::syntax::ast::Decl;
use crate::term::{CasePat, Term};

impl Desugarer {
    pub(super) fn data_decl(&mut self, d: &Decl) -> R<()> {
        let Decl::Data { name, cons, line, newtype, .. } = d else { return Ok(()) };
        
        if *newtype {
            let c = &cons[0];
            self.newtypes.insert(c.name.clone());
            if let Some(label) = c.labels.first() {
                let x = self.fresh();
                self.declare_global(label, GlobalDef::Term(Term::Lam(vec![x], Box::new(Term::Local(x)))));
            }
            return Ok(());
        }
        let mut ids = Vec::new();
        for (index, c) in cons.iter().enumerate() {
            if self.con_names.contains_key(&c.name) && !self.library {
                return Err((c.line, format!("constructor `{}' is defined twice", c.name)));
            }
            let id = self.add_con(&c.name, name, c.fields.len() as u32, index as u32, &c.labels);
            let info = &mut self.cons[id as usize];
            info.strict = c.fields.iter().map(|(_, strict)| *strict).collect();
            if c.name.starts_with(':') {
                info.infix_prec = Some(self.fix.of(&c.name).1);
            }
            ids.push(id);
        }
        self.set_siblings(&ids);
        let _ = line;
        for label in cons.iter().flat_map(|c| c.labels.iter()) {
            if self.labels.contains_key(label) {
                continue;
            }
            let places: Vec<_> = ids.iter().zip(cons).filter_map(|(&id, c)| c.labels.iter().position(|l| l == label).map(|i| (id, i))).collect();
            self.labels.insert(label.clone(), places.clone());
            let x = self.fresh();
            let b = self.fresh();
            let mut alts = Vec::new();
            for (id, i) in places {
                let fields: Vec<_> = (0..self.cons[id as usize].arity).map(|_| self.fresh()).collect();
                let pick = Term::Local(fields[i]);
                alts.push((CasePat::Con(id, fields), pick));
            }
            if alts.len() < ids.len() {
                alts.push((CasePat::Default, Term::Error(format!("No match in record selector {label}"))));
            }
            let body = Term::Case(Box::new(Term::Local(x)), b, alts);
            self.declare_global(label, GlobalDef::Term(Term::Lam(vec![x], Box::new(body))));
        }
        Ok(())
    }
}
