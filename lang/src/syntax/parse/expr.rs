//! Expressions: infix chains, sections, `do`, `case`, `let`, lists,
//! ranges and comprehensions.

use super::super::ast::*;
use super::super::lex::Tok;
use super::super::layout::Next;
use super::super::lex::SyntaxError;
use super::{Parser, R};

impl Parser {
    // ---------------------------------------------------------------
    // Expressions

    pub(super) fn expr(&mut self) -> R<Expr> {
        self.nested(|p| p.expr_inner())
    }

    fn expr_inner(&mut self) -> R<Expr> {
        let e = self.infix_expr()?;
        if self.eat("::") {
            let t = self.type_()?;
            return Ok(Expr::Typed(Box::new(e), t));
        }
        Ok(e)
    }

    /// Is the next token an operator of an infix expression?
    pub(super) fn operator(&self) -> Option<String> {
        match self.tok() {
            Tok::VarSym(s) | Tok::ConSym(s) => Some(s.clone()),
            Tok::Key(":") => Some(":".into()),
            Tok::Key("`") => match self.r.ahead(1) {
                Tok::VarId(s) | Tok::ConId(s) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn take_operator(&mut self) -> R<(String, u32)> {
        let line = self.line();
        if self.eat("`") {
            let n = match self.bump() {
                Tok::VarId(s) | Tok::ConId(s) => s,
                t => return self.fail(format!("expected a name between backquotes, found {t}")),
            };
            self.expect("`")?;
            return Ok((n, line));
        }
        match self.bump() {
            Tok::VarSym(s) | Tok::ConSym(s) => Ok((s, line)),
            Tok::Key(":") => Ok((":".into(), line)),
            t => self.fail(format!("expected an operator, found {t}")),
        }
    }

    pub(super) fn infix_expr(&mut self) -> R<Expr> {
        let mut operands = vec![self.operand()?];
        let mut ops = Vec::new();
        while let Some(_op) = self.operator() {
            // `(e op)`: a left section ends at `)`.
            let save_is_section = self.section_end_after_operator();
            if save_is_section {
                break;
            }
            ops.push(self.take_operator()?);
            operands.push(self.operand()?);
        }
        Ok(if ops.is_empty() { operands.pop().unwrap() } else { Expr::Infix(operands, ops) })
    }

    /// Is the operator at the position followed by `)` (a left section)?
    pub(super) fn section_end_after_operator(&self) -> bool {
        let k = if self.tok() == &Tok::Key("`") { 3 } else { 1 };
        self.r.ahead(k) == &Tok::Key(")") && self.r.next_kind() == Next::Token
    }

    /// An operand of an infix expression: a negation, a lambda, `let`,
    /// `if`, `case`, `do`, or an application.
    pub(super) fn operand(&mut self) -> R<Expr> {
        let line = self.line();
        match self.tok().clone() {
            Tok::VarSym(s) if s == "-" => {
                self.bump();
                Ok(Expr::Neg(Box::new(self.operand()?), line))
            }
            Tok::Key("\\") => {
                self.bump();
                let mut pats = vec![self.apat()?];
                while !self.is("->") {
                    pats.push(self.apat()?);
                }
                self.expect("->")?;
                Ok(Expr::Lambda(pats, Box::new(self.expr()?), line))
            }
            Tok::Key("let") => {
                self.bump();
                let decls = self.decls()?;
                self.expect("in")?;
                Ok(Expr::Let(decls, Box::new(self.expr()?)))
            }
            Tok::Key("if") => {
                self.bump();
                let c = self.expr()?;
                self.eat(";");
                self.expect("then")?;
                let t = self.expr()?;
                self.eat(";");
                self.expect("else")?;
                let e = self.expr()?;
                Ok(Expr::If(Box::new(c), Box::new(t), Box::new(e)))
            }
            Tok::Key("case") => {
                self.bump();
                let scrut = self.expr()?;
                self.expect("of")?;
                let alts = self.block(|p| p.alt())?;
                Ok(Expr::Case(Box::new(scrut), alts, line))
            }
            Tok::Key("do") => {
                self.bump();
                let stmts = self.block(|p| p.stmt())?;
                if stmts.is_empty() {
                    return self.fail("an empty `do' block");
                }
                Ok(Expr::Do(stmts, line))
            }
            _ => self.application(),
        }
    }

    pub(super) fn alt(&mut self) -> R<Alt> {
        let line = self.line();
        let pat = self.pat()?;
        let rhs = self.rhs("->")?;
        let wheres = if self.eat("where") { self.decls()? } else { Vec::new() };
        Ok(Alt { pat, rhs, wheres, line })
    }

    /// A statement of `do` or a qualifier of a comprehension: `let`
    /// bindings (not a `let ... in` expression), a generator `p <- e`, or
    /// an expression (a guard).
    pub(super) fn stmt(&mut self) -> R<Stmt> {
        let line = self.line();
        if self.is("let") && !self.let_has_in() {
            self.bump();
            return Ok(Stmt::Let(self.decls()?));
        }
        if self.looks_like_bind() {
            let p = self.pat()?;
            self.expect("<-")?;
            return Ok(Stmt::Bind(p, self.expr()?, line));
        }
        Ok(Stmt::Expr(self.expr()?))
    }

    /// Is this `let` a `let ... in` expression (an `in` on the same line
    /// or before the statement ends)? A conservative look ahead on the line;
    /// an `in` that closes a `let` nested in the bindings (`let f n = let m
    /// = n * 2 in m + 1`) is that let's, not this one's.
    pub(super) fn let_has_in(&self) -> bool {
        let start = self.r.token().line;
        let mut nested = 0;
        let mut k = 1;
        loop {
            match self.r.ahead(k) {
                Tok::Key("let") => nested += 1,
                Tok::Key("in") if nested == 0 => return true,
                Tok::Key("in") => nested -= 1,
                Tok::Eof => return false,
                _ => {}
            }
            // Only the let's own line is looked at.
            if self.line_of_ahead(k) != start {
                return false;
            }
            k += 1;
        }
    }

    pub(super) fn line_of_ahead(&self, k: usize) -> u32 {
        self.r.line_ahead(k)
    }

    pub(super) fn application(&mut self) -> R<Expr> {
        let mut f = self.aexpr()?;
        while self.starts_aexpr() {
            let a = self.aexpr()?;
            f = Expr::App(Box::new(f), Box::new(a));
        }
        // A trailing lambda, `do`, `case`, `let` or `if` as the last argument
        // (BlockArguments) is not Haskell 2010: left to the operators.
        Ok(f)
    }

    pub(super) fn starts_aexpr(&self) -> bool {
        matches!(self.tok(), Tok::VarId(_) | Tok::ConId(_) | Tok::Integer(_) | Tok::Float(_) | Tok::Char(_) | Tok::Str(_) | Tok::Key("(" | "[" | "_"))
    }

    pub(super) fn aexpr(&mut self) -> R<Expr> {
        self.nested(|p| p.aexpr_inner())
    }

    fn aexpr_inner(&mut self) -> R<Expr> {
        let mut e = self.aexpr0()?;
        // Record construction and update bind tighter than application.
        while self.is("{") && self.r.next_kind() == Next::Token {
            let line = self.line();
            self.bump();
            let mut fields = Vec::new();
            while !self.is("}") {
                let f = self.var_id()?;
                let v = if self.eat("=") { self.expr()? } else { Expr::Var(f.clone(), line) };
                fields.push((f, v));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
            e = match e {
                Expr::Con(c, l) => Expr::RecordCon(c, fields, l),
                other => Expr::RecordUpdate(Box::new(other), fields, line),
            };
        }
        Ok(e)
    }

    pub(super) fn aexpr0(&mut self) -> R<Expr> {
        let line = self.line();
        match self.bump() {
            Tok::VarId(v) => Ok(Expr::Var(v, line)),
            Tok::ConId(c) => Ok(Expr::Con(c, line)),
            Tok::Integer(n) => Ok(Expr::Lit(Lit::Int(n), line)),
            Tok::Float(x) => Ok(Expr::Lit(Lit::Frac(x), line)),
            Tok::Char(c) => Ok(Expr::Lit(Lit::Char(c), line)),
            Tok::Str(s) => Ok(Expr::Lit(Lit::Str(s), line)),
            Tok::Key("_") => self.fail("a typed hole `_' is not an expression"),
            Tok::Key("(") => self.paren(line),
            Tok::Key("[") => self.bracket(),
            t => Err(SyntaxError { line, message: format!("expected an expression, found {t}") }),
        }
    }

    /// After `(`: unit, a tuple, a parenthesised expression, an operator
    /// as a function, a section, or a tuple constructor.
    pub(super) fn paren(&mut self, line: u32) -> R<Expr> {
        if self.eat(")") {
            return Ok(Expr::Con("()".into(), line));
        }
        if self.is(",") {
            let mut n = 1;
            while self.eat(",") {
                n += 1;
            }
            self.expect(")")?;
            return Ok(Expr::TupleCon(n));
        }
        // `(op)` or `(op e)` (a right section; `(- e)` is a negation).
        if let Some(op) = self.operator() {
            let is_minus = op == "-" && self.tok() != &Tok::Key("`");
            let k = if self.tok() == &Tok::Key("`") { 3 } else { 1 };
            if self.r.ahead(k) == &Tok::Key(")") {
                let (op, _) = self.take_operator()?;
                self.expect(")")?;
                return Ok(if op.starts_with(':') || op.chars().next().is_some_and(|c| c.is_uppercase()) { Expr::Con(op, line) } else { Expr::Var(op, line) });
            }
            if !is_minus {
                let (op, _) = self.take_operator()?;
                let e = self.infix_expr()?;
                self.expect(")")?;
                return Ok(Expr::RightSection(op, Box::new(e), line));
            }
        }
        let first = self.expr()?;
        if self.operator().is_some() {
            // `(e op)`: the operator is followed by `)`.
            let (op, _) = self.take_operator()?;
            self.expect(")")?;
            return Ok(Expr::LeftSection(Box::new(first), op, line));
        }
        if self.eat(")") {
            return Ok(first);
        }
        let mut es = vec![first];
        while self.eat(",") {
            es.push(self.expr()?);
        }
        self.expect(")")?;
        Ok(Expr::Tuple(es))
    }

    /// After `[`: a list, a range or a comprehension.
    pub(super) fn bracket(&mut self) -> R<Expr> {
        if self.eat("]") {
            return Ok(Expr::List(vec![]));
        }
        let first = self.expr()?;
        if self.eat("..") {
            let to = if self.is("]") { None } else { Some(Box::new(self.expr()?)) };
            self.expect("]")?;
            return Ok(Expr::Range(Box::new(first), None, to));
        }
        if self.eat("|") {
            let mut stmts = vec![self.stmt()?];
            while self.eat(",") {
                stmts.push(self.stmt()?);
            }
            self.expect("]")?;
            return Ok(Expr::Comp(Box::new(first), stmts));
        }
        let mut es = vec![first];
        if self.eat(",") {
            es.push(self.expr()?);
            if self.eat("..") {
                let to = if self.is("]") { None } else { Some(Box::new(self.expr()?)) };
                self.expect("]")?;
                let second = es.pop().unwrap();
                return Ok(Expr::Range(Box::new(es.pop().unwrap()), Some(Box::new(second)), to));
            }
            while self.eat(",") {
                es.push(self.expr()?);
            }
        }
        self.expect("]")?;
        Ok(Expr::List(es))
    }
}
