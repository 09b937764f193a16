//! Patterns, with infix constructor chains kept flat for `fixity`.

use super::super::ast::*;
use super::super::lex::Tok;
use super::{Parser, R};

impl Parser {
    // ---------------------------------------------------------------
    // Patterns

    pub(super) fn starts_apat(&self) -> bool {
        match self.tok() {
            Tok::VarId(_) | Tok::ConId(_) | Tok::Integer(_) | Tok::Float(_) | Tok::Char(_) | Tok::Str(_) => true,
            Tok::Key("(" | "[" | "_" | "~") => true,
            Tok::VarSym(s) => s == "!",
            _ => false,
        }
    }

    pub(super) fn pat(&mut self) -> R<Pat> {
        self.nested(|p| p.pat_inner())
    }

    fn pat_inner(&mut self) -> R<Pat> {
        let first = self.pat10()?;
        self.pat_rest(first)
    }

    pub(super) fn pat_rest(&mut self, first: Pat) -> R<Pat> {
        let mut pats = vec![first];
        let mut ops = Vec::new();
        loop {
            match self.tok().clone() {
                Tok::ConSym(op) => {
                    let line = self.line();
                    self.bump();
                    ops.push((op, line));
                    pats.push(self.pat10()?);
                }
                Tok::Key(":") => {
                    let line = self.line();
                    self.bump();
                    ops.push((":".to_string(), line));
                    pats.push(self.pat10()?);
                }
                Tok::Key("`") if matches!(self.r.ahead(1), Tok::ConId(_)) => {
                    let line = self.line();
                    self.bump();
                    let c = self.con_id()?;
                    self.expect("`")?;
                    ops.push((c, line));
                    pats.push(self.pat10()?);
                }
                _ => break,
            }
        }
        Ok(if ops.is_empty() { pats.pop().unwrap() } else { Pat::Infix(pats, ops) })
    }

    pub(super) fn pat10(&mut self) -> R<Pat> {
        let line = self.line();
        match self.tok().clone() {
            Tok::ConId(c) if !matches!(self.r.ahead(1), Tok::Key("{")) => {
                self.bump();
                let mut args = Vec::new();
                while self.starts_apat() {
                    args.push(self.apat()?);
                }
                Ok(Pat::Con(c, args, line))
            }
            Tok::VarSym(s) if s == "-" => {
                self.bump();
                match self.bump() {
                    Tok::Integer(n) => Ok(Pat::NegLit(Lit::Int(n))),
                    Tok::Float(x) => Ok(Pat::NegLit(Lit::Frac(x))),
                    t => self.fail(format!("expected a number after `-' in a pattern, found {t}")),
                }
            }
            _ => self.apat(),
        }
    }

    pub(super) fn apat(&mut self) -> R<Pat> {
        self.nested(|p| p.apat_inner())
    }

    fn apat_inner(&mut self) -> R<Pat> {
        let line = self.line();
        match self.bump() {
            Tok::VarId(v) => {
                if self.eat("@") {
                    return Ok(Pat::As(v, Box::new(self.apat()?)));
                }
                Ok(Pat::Var(v))
            }
            Tok::Key("_") => Ok(Pat::Wild),
            Tok::ConId(c) => {
                if self.is("{") {
                    self.bump();
                    let mut fields = Vec::new();
                    while !self.is("}") {
                        let f = self.var_id()?;
                        let p = if self.eat("=") { self.pat()? } else { Pat::Var(f.clone()) };
                        fields.push((f, p));
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("}")?;
                    return Ok(Pat::Record(c, fields, line));
                }
                Ok(Pat::Con(c, vec![], line))
            }
            Tok::Integer(n) => Ok(Pat::Lit(Lit::Int(n))),
            Tok::Float(x) => Ok(Pat::Lit(Lit::Frac(x))),
            Tok::Char(c) => Ok(Pat::Lit(Lit::Char(c))),
            Tok::Str(s) => Ok(Pat::Lit(Lit::Str(s))),
            Tok::Key("~") => Ok(Pat::Lazy(Box::new(self.apat()?))),
            Tok::VarSym(s) if s == "!" => Ok(Pat::Bang(Box::new(self.apat()?))),
            Tok::Key("[") => {
                let mut ps = Vec::new();
                while !self.is("]") {
                    ps.push(self.pat()?);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect("]")?;
                Ok(Pat::List(ps))
            }
            Tok::Key("(") => {
                if self.eat(")") {
                    return Ok(Pat::Con("()".into(), vec![], line));
                }
                let mut ps = vec![self.pat()?];
                while self.eat(",") {
                    ps.push(self.pat()?);
                }
                self.expect(")")?;
                Ok(if ps.len() == 1 { ps.pop().unwrap() } else { Pat::Tuple(ps) })
            }
            t => self.fail(format!("expected a pattern, found {t}")),
        }
    }

}
