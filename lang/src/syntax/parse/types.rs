//! Types: read so that signatures and constructor fields can be kept
//! (field strictness) or passed over (GHC type-checks the same file).

use super::super::ast::*;
use super::super::lex::Tok;
use super::{Parser, R};

impl Parser {
    // ---------------------------------------------------------------
    // Types

    pub(super) fn starts_atype(&self) -> bool {
        matches!(self.tok(), Tok::VarId(_) | Tok::ConId(_) | Tok::Key("(") | Tok::Key("["))
    }

    pub(super) fn type_(&mut self) -> R<Type> {
        self.nested(|p| p.type_inner())
    }

    fn type_inner(&mut self) -> R<Type> {
        let t = self.btype()?;
        if self.eat("=>") {
            // A context: read and dropped.
            return self.type_();
        }
        if self.eat("->") {
            return Ok(Type::Fun(Box::new(t), Box::new(self.type_()?)));
        }
        Ok(t)
    }

    pub(super) fn btype(&mut self) -> R<Type> {
        if self.tok() == &Tok::VarId("forall".into()) {
            while !self.is(".") && self.tok() != &Tok::VarSym(".".into()) {
                self.bump();
            }
            self.bump();
        }
        let head = self.atype()?;
        let mut args = Vec::new();
        while self.starts_atype() {
            args.push(self.atype()?);
        }
        Ok(match head {
            Type::Con(c, mut a) if !args.is_empty() => {
                a.extend(args);
                Type::Con(c, a)
            }
            t if args.is_empty() => t,
            // A type variable applied (`m a`): kept as its head.
            t => t,
        })
    }

    pub(super) fn atype(&mut self) -> R<Type> {
        match self.bump() {
            Tok::VarId(v) => Ok(Type::Var(v)),
            Tok::ConId(c) => Ok(Type::Con(c, vec![])),
            Tok::Key("[") => {
                if self.eat("]") {
                    return Ok(Type::Con("[]".into(), vec![]));
                }
                let t = self.type_()?;
                self.expect("]")?;
                Ok(Type::List(Box::new(t)))
            }
            Tok::Key("(") => {
                if self.eat(")") {
                    return Ok(Type::Tuple(vec![]));
                }
                if self.is("->") {
                    self.bump();
                    self.expect(")")?;
                    return Ok(Type::Con("->".into(), vec![]));
                }
                if self.is(",") {
                    while self.eat(",") {}
                    self.expect(")")?;
                    return Ok(Type::Con("(,)".into(), vec![]));
                }
                let mut ts = vec![self.type_()?];
                while self.eat(",") {
                    ts.push(self.type_()?);
                }
                self.expect(")")?;
                Ok(if ts.len() == 1 { ts.pop().unwrap() } else { Type::Tuple(ts) })
            }
            t => self.fail(format!("expected a type, found {t}")),
        }
    }

}
