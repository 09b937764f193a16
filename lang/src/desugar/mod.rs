//! The front end's middle: from the parsed modules (the library's and the
//! program's) to a `Program` of desugared top-level values. Names are
//! resolved here (a local gets a unique number; an unbound name is an
//! error naming it and its line), infix chains get their fixities,
//! patterns become `Case`s over one value at a time with failure as a
//! jump to the next equation, and `do`, comprehensions, ranges, sections
//! and records become applications of library functions and
//! constructors.

mod bind;
mod data;
mod expr;
pub mod fixity;
mod pattern;

use crate::program::{ConInfo, GlobalDef, Program};
use crate::syntax::ast::{Decl, Module};
use crate::term::{ConId, GlobalId, JoinId, Literal, Local, Term};
use fixity::Fixities;
use std::collections::HashMap;
use std::fmt;

/// An error in a program the front end refuses: the file, the line and
/// what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for FrontError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for FrontError {}

pub(crate) type R<T> = Result<T, (u32, String)>;

/// A scope of local names.
pub(crate) type Env = HashMap<String, Local>;

/// The built-in constructors, numbered first (the machine and the
/// primitives name them).
pub mod builtin {
    use crate::term::ConId;
    pub const UNIT: ConId = 0;
    pub const NIL: ConId = 1;
    pub const CONS: ConId = 2;
    pub const FALSE: ConId = 3;
    pub const TRUE: ConId = 4;
    pub const LT: ConId = 5;
    pub const EQ: ConId = 6;
    pub const GT: ConId = 7;
    /// The result of an IO action: `IORes value` (See `lib/Prelude.hs`).
    pub const IORES: ConId = 8;
    /// `(,)` is `TUPLE2`, `(,,)` the next, up to seven components.
    pub const TUPLE2: ConId = 9;
    pub const MAX_TUPLE: usize = 7;
}

/// One module to desugar, with whether it is part of the library (a
/// library module may call primitives).
pub struct Source<'a> {
    pub file: &'a str,
    pub module: &'a Module,
    pub library: bool,
}

/// The desugarer's state across modules.
pub(crate) struct Desugarer {
    pub cons: Vec<ConInfo>,
    pub con_names: HashMap<String, ConId>,
    /// Newtype constructors: erased (See `data`).
    pub newtypes: std::collections::HashSet<String>,
    /// Record labels: the constructors that have each, and where.
    pub labels: HashMap<String, Vec<(ConId, usize)>>,
    pub globals: Vec<(String, GlobalDef)>,
    /// Top-level names the library sees, and the program.
    lib_scope: HashMap<String, GlobalId>,
    prog_scope: HashMap<String, GlobalId>,
    pub library: bool,
    /// Each distinct literal's global, by `literal_key`.
    literals: HashMap<String, GlobalId>,
    con_funs: HashMap<ConId, GlobalId>,
    pub fix: Fixities,
    next_local: u32,
    next_join: JoinId,
    /// Numeric types of top-level and local signatures, by name.
    pub sigs: HashMap<String, crate::syntax::ast::Type>,
}

/// Desugar the modules, library first, into one program whose entry is
/// the last module's `main`.
pub fn desugar(sources: &[Source<'_>]) -> Result<Program, FrontError> {
    let mut d = Desugarer::new();
    let mut main = None;
    let mut library_end = None;
    for src in sources {
        d.library = src.library;
        if !src.library && library_end.is_none() {
            library_end = Some(d.globals.len() as GlobalId);
        }
        let err = |(line, message): (u32, String)| FrontError { file: src.file.to_string(), line, message };
        d.module(src.module).map_err(err)?;
        if !src.library {
            main = d.prog_scope.get("main").copied();
        }
    }
    let file = sources.last().map_or("", |s| s.file).to_string();
    let main = main.ok_or(FrontError { file, line: 1, message: "the program has no `main'".into() })?;
    let library_end = library_end.unwrap_or(d.globals.len() as GlobalId);
    Ok(Program { cons: d.cons, globals: d.globals, main, library_end, next_local: d.next_local })
}

impl Desugarer {
    fn new() -> Desugarer {
        let mut d = Desugarer {
            cons: Vec::new(),
            con_names: HashMap::new(),
            newtypes: Default::default(),
            labels: HashMap::new(),
            globals: Vec::new(),
            lib_scope: HashMap::new(),
            prog_scope: HashMap::new(),
            library: true,
            literals: HashMap::new(),
            con_funs: HashMap::new(),
            fix: Fixities::default(),
            next_local: 0,
            next_join: 0,
            sigs: HashMap::new(),
        };
        d.builtins();
        d
    }

    fn builtins(&mut self) {
        self.add_con("()", "()", 0, 0, &[]);
        self.add_con("[]", "[]", 0, 0, &[]);
        self.add_con(":", "[]", 2, 1, &[]);
        self.add_con("False", "Bool", 0, 0, &[]);
        self.add_con("True", "Bool", 0, 1, &[]);
        self.add_con("LT", "Ordering", 0, 0, &[]);
        self.add_con("EQ", "Ordering", 0, 1, &[]);
        self.add_con("GT", "Ordering", 0, 2, &[]);
        self.add_con("IORes", "IORes", 1, 0, &[]);
        for k in 2..=builtin::MAX_TUPLE {
            let name = format!("({})", ",".repeat(k - 1));
            self.add_con(&name, &name, k as u32, 0, &[]);
        }
        self.set_siblings(&[builtin::NIL, builtin::CONS]);
        self.set_siblings(&[builtin::FALSE, builtin::TRUE]);
        self.set_siblings(&[builtin::LT, builtin::EQ, builtin::GT]);
        self.cons[builtin::CONS as usize].infix_prec = Some(5);
        self.fix.declare(":", crate::syntax::ast::Assoc::Right, 5);
    }

    pub fn add_con(&mut self, name: &str, ty: &str, arity: u32, index: u32, labels: &[String]) -> ConId {
        let id = self.cons.len() as ConId;
        let module = if self.library { "Prelude" } else { "Main" };
        self.cons.push(ConInfo {
            name: name.to_string(),
            type_name: ty.to_string(),
            module: module.to_string(),
            arity,
            index,
            siblings: vec![id],
            labels: labels.to_vec(),
            strict: vec![false; arity as usize],
            infix_prec: None,
        });
        self.con_names.insert(name.to_string(), id);
        id
    }

    pub fn set_siblings(&mut self, ids: &[ConId]) {
        for &c in ids {
            self.cons[c as usize].siblings = ids.to_vec();
        }
    }

    pub fn fresh(&mut self) -> Local {
        self.next_local += 1;
        self.next_local
    }

    pub fn fresh_join(&mut self) -> JoinId {
        self.next_join += 1;
        self.next_join
    }

    fn scope(&self) -> &HashMap<String, GlobalId> {
        if self.library {
            &self.lib_scope
        } else {
            &self.prog_scope
        }
    }

    /// A new top-level value named `name` in the current scope.
    pub fn declare_global(&mut self, name: &str, def: GlobalDef) -> GlobalId {
        let id = self.globals.len() as GlobalId;
        self.globals.push((name.to_string(), def));
        self.prog_scope.insert(name.to_string(), id);
        if self.library {
            self.lib_scope.insert(name.to_string(), id);
        }
        id
    }

    pub fn global(&self, name: &str) -> Option<GlobalId> {
        let s = self.scope();
        s.get(name).or_else(|| s.get(unqualified(name))).copied()
    }

    /// A library function the desugaring calls (`>>=`, `enumFromTo`...).
    pub fn lib(&self, name: &str) -> Term {
        Term::Global(*self.lib_scope.get(name).unwrap_or_else(|| panic!("the library defines {name}")))
    }

    /// The global holding literal `lit` (one per distinct literal).
    pub fn literal(&mut self, lit: Literal) -> Term {
        let key = literal_key(&lit);
        if let Some(g) = self.literals.get(&key) {
            return Term::Global(*g);
        }
        let id = self.globals.len() as GlobalId;
        self.globals.push((format!("lit{id}"), GlobalDef::Literal(lit)));
        self.literals.insert(key, id);
        Term::Global(id)
    }

    /// The constructor `c` as a value: itself if nullary, else a function
    /// of its fields.
    pub fn con_value(&mut self, c: ConId) -> Term {
        if self.cons[c as usize].arity == 0 {
            return Term::Con(c, Vec::new());
        }
        if let Some(g) = self.con_funs.get(&c) {
            return Term::Global(*g);
        }
        let id = self.globals.len() as GlobalId;
        self.globals.push((self.cons[c as usize].name.clone(), GlobalDef::Con(c)));
        self.con_funs.insert(c, id);
        Term::Global(id)
    }

    pub fn con(&self, name: &str) -> Option<ConId> {
        self.con_names.get(name).or_else(|| self.con_names.get(unqualified(name))).copied()
    }

    fn module(&mut self, m: &Module) -> R<()> {
        self.sigs.clear();
        for d in &m.decls {
            if let Decl::Fixity { assoc, prec, ops, .. } = d {
                for op in ops {
                    self.fix.declare(op, *assoc, *prec);
                }
            }
        }
        for d in &m.decls {
            if let Decl::Data { .. } = d {
                self.data_decl(d)?;
            }
        }
        self.top_decls(&m.decls)
    }
}

/// `M.x` is `x`: modules share one namespace (See the crate doc).
pub(crate) fn unqualified(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() && name[..i].chars().next().is_some_and(char::is_uppercase) && !name[..i].contains(|c: char| !c.is_alphanumeric() && c != '.' && c != '_') => &name[i + 1..],
        _ => name,
    }
}

/// A literal's identity as text: its type and value (a `Double` by its
/// bits, so that `0.0` and `-0.0` stay apart).
fn literal_key(lit: &Literal) -> String {
    match lit {
        Literal::Integer(x) => format!("Integer {x}"),
        Literal::Int(x) => format!("Int {x}"),
        Literal::Word(x) => format!("Word {x}"),
        Literal::Double(x) => format!("Double {:x}", x.to_bits()),
        Literal::Char(c) => format!("Char {}", *c as u32),
    }
}
