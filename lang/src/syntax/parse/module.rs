//! Modules, imports and `data`/`newtype` declarations.

use super::super::ast::*;
use super::super::lex::Tok;
use super::super::lex::SyntaxError;
use super::{Parser, Top, R};

impl Parser {
    // ---------------------------------------------------------------
    // Modules

    pub(super) fn module(&mut self) -> R<Module> {
        let (name, exports) = if self.eat("module") {
            let name = self.con_id()?;
            let exports = if self.is("(") { Some(self.name_list()?) } else { None };
            self.expect("where")?;
            (name, exports)
        } else {
            ("Main".to_string(), None)
        };
        let mut imports = Vec::new();
        let mut decls = Vec::new();
        let items = self.block(|p| {
            if p.is("import") {
                p.import().map(Top::Import)
            } else {
                p.top_decl().map(Top::Decls)
            }
        })?;
        for it in items {
            match it {
                Top::Import(i) => imports.push(i),
                Top::Decls(d) => decls.extend(d),
            }
        }
        if self.tok() != &Tok::Eof {
            return self.fail(format!("unexpected {} at the top level (check the indentation)", self.describe()));
        }
        Ok(Module { name, exports, imports, decls })
    }

    /// `(a, b, T(..), (+))`: the names, without their sub-lists.
    pub(super) fn name_list(&mut self) -> R<Vec<String>> {
        self.expect("(")?;
        let mut names = Vec::new();
        while !self.is(")") {
            match self.bump() {
                Tok::VarId(s) | Tok::ConId(s) => names.push(s),
                Tok::Key("(") => {
                    match self.bump() {
                        Tok::VarSym(s) | Tok::ConSym(s) => names.push(s),
                        Tok::Key("..") => {}
                        t => return self.fail(format!("unexpected {t} in a name list")),
                    }
                    // `T(..)` or `T(A, B)` or `(op)`.
                    while !self.eat(")") {
                        if let Tok::VarId(s) | Tok::ConId(s) = self.bump() {
                            names.push(s);
                        }
                    }
                }
                Tok::Key("module") => {
                    self.con_id()?;
                }
                Tok::Key(",") => {}
                t => return self.fail(format!("unexpected {t} in a name list")),
            }
            if self.is("(") {
                // A sub-list after a type: `T(..)`.
                self.bump();
                while !self.eat(")") {
                    if let Tok::VarId(s) | Tok::ConId(s) = self.bump() {
                        names.push(s);
                    }
                }
            }
        }
        self.expect(")")?;
        Ok(names)
    }

    pub(super) fn import(&mut self) -> R<Import> {
        let line = self.line();
        self.expect("import")?;
        let mut qualified = self.tok() == &Tok::VarId("qualified".into());
        if qualified {
            self.bump();
        }
        let module = self.con_id()?;
        if self.tok() == &Tok::VarId("qualified".into()) {
            self.bump();
            qualified = true;
        }
        let mut alias = None;
        if self.tok() == &Tok::VarId("as".into()) {
            self.bump();
            alias = Some(self.con_id()?);
        }
        let (mut only, mut hiding) = (None, Vec::new());
        if self.tok() == &Tok::VarId("hiding".into()) {
            self.bump();
            hiding = self.name_list()?;
        } else if self.is("(") {
            only = Some(self.name_list()?);
        }
        Ok(Import { module, qualified, alias, only, hiding, line })
    }

    pub(super) fn top_decl(&mut self) -> R<Vec<Decl>> {
        let line = self.line();
        match self.tok() {
            Tok::Key("data") => {
                self.bump();
                Ok(vec![self.data_decl(line, false)?])
            }
            Tok::Key("newtype") => {
                self.bump();
                Ok(vec![self.data_decl(line, true)?])
            }
            Tok::Key("type") => {
                self.skip_to_item_end();
                Ok(vec![Decl::TypeSyn { line }])
            }
            Tok::Key("class") | Tok::Key("instance") => {
                self.fail("type classes and instances of a program's own are outside gclab's Haskell subset (derive Eq, Ord and Show instead)")
            }
            Tok::Key("foreign") | Tok::Key("default") => self.fail(format!("{} declarations are outside gclab's Haskell subset", self.tok())),
            _ => self.decl(),
        }
    }

    /// Skip to the end of the current block item (a declaration that is read and ignored).
    pub(super) fn skip_to_item_end(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.tok() {
                Tok::Key(";" | "}v") if depth == 0 => return,
                Tok::Eof => return,
                Tok::Key("(" | "[" | "{") => depth += 1,
                Tok::Key(")" | "]" | "}") => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    pub(super) fn data_decl(&mut self, line: u32, newtype: bool) -> R<Decl> {
        let name = self.con_id()?;
        while let Tok::VarId(_) = self.tok() {
            self.bump();
        }
        let mut cons = Vec::new();
        if self.eat("=") {
            loop {
                cons.push(self.con_decl()?);
                if !self.eat("|") {
                    break;
                }
            }
        }
        let mut deriving = Vec::new();
        if self.eat("deriving") {
            if self.is("(") {
                deriving = self.name_list()?;
            } else {
                deriving.push(self.con_id()?);
            }
        }
        if newtype && (cons.len() != 1 || cons[0].fields.len() != 1) {
            return Err(SyntaxError { line, message: format!("newtype {name} must have one constructor with one field") });
        }
        Ok(Decl::Data { name, cons, deriving, newtype, line })
    }

    pub(super) fn con_decl(&mut self) -> R<ConDecl> {
        let line = self.line();
        // Infix constructor: `a :+: b`.
        if !matches!(self.tok(), Tok::ConId(_)) || matches!(self.r.ahead(1), Tok::ConSym(_)) {
            let left = self.field_type()?;
            let Tok::ConSym(name) = self.bump() else { return self.fail("expected a constructor") };
            let right = self.field_type()?;
            return Ok(ConDecl { name, fields: vec![left, right], labels: vec![], line });
        }
        let name = self.con_id()?;
        if self.eat("{") {
            let (mut fields, mut labels) = (Vec::new(), Vec::new());
            while !self.is("}") {
                let mut names = vec![self.var_id()?];
                while self.eat(",") {
                    names.push(self.var_id()?);
                }
                self.expect("::")?;
                let strict = self.eat_bang();
                let ty = self.type_()?;
                for n in names {
                    labels.push(n);
                    fields.push((ty.clone(), strict));
                }
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
            return Ok(ConDecl { name, fields, labels, line });
        }
        let mut fields = Vec::new();
        while self.starts_atype() || self.tok() == &Tok::VarSym("!".into()) {
            fields.push(self.field_type()?);
        }
        Ok(ConDecl { name, fields, labels: vec![], line })
    }

    pub(super) fn eat_bang(&mut self) -> bool {
        if self.tok() == &Tok::VarSym("!".into()) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn field_type(&mut self) -> R<(Type, bool)> {
        let strict = self.eat_bang();
        Ok((self.atype()?, strict))
    }

}
