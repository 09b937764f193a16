//! The info tables of a program's objects, made once when it is loaded
//! and kept for the run (leaked: an info table must outlive every object
//! that names it). Each table's tag says which constructor, code body or
//! number type it is (See `InfoTable::with_tag`).

use crate::ir::Compiled;
use gclab_core::{ClosureType, InfoTable, SharedBoxes, StaticObject};

/// Tags of the tables that are not constructors or code bodies.
pub const PAP_BASE: u32 = 1 << 30;
pub const NUM_BASE: u32 = 1 << 29;
pub const T_INT: u32 = NUM_BASE;
pub const T_WORD: u32 = NUM_BASE + 1;
pub const T_DOUBLE: u32 = NUM_BASE + 2;
pub const T_CHAR: u32 = NUM_BASE + 3;
pub const T_INTEGER: u32 = NUM_BASE + 4;
pub const T_BIGNAT_POS: u32 = NUM_BASE + 5;
pub const T_BIGNAT_NEG: u32 = NUM_BASE + 6;
/// Static `Int`s from `SMALL_INT_MIN` to `SMALL_INT_MAX` (GHC's INTLIKE
/// closures): tag `T_SMALL_INT + value - SMALL_INT_MIN`.
pub const T_SMALL_INT: u32 = NUM_BASE + 64;
pub const SMALL_INT_MIN: i64 = -16;
pub const SMALL_INT_MAX: i64 = 255;
const SMALL_INTS: usize = (SMALL_INT_MAX - SMALL_INT_MIN + 1) as usize;
/// Static `Char`s from 0 to `SMALL_CHAR_MAX` (GHC's CHARLIKE closures):
/// tag `T_SMALL_CHAR + value`.
pub const T_SMALL_CHAR: u32 = NUM_BASE + 512;
pub const SMALL_CHAR_MAX: u32 = 255;
const SMALL_CHARS: usize = SMALL_CHAR_MAX as usize + 1;

const BASE: &str = "GHC.Types";

// The static copies of small `Int`s and `Char`s, which the GC puts in
// place of heap boxes of the same values (See Note [Small boxes are
// shared] in the collectors' `evacuate`) and the machine returns for
// small results of its own (`ret_small`).
static INTLIKE_TABLES: [InfoTable; SMALL_INTS] = InfoTable::static_range("I#", "Int", BASE, T_SMALL_INT);
/// The static small `Int`s, from `SMALL_INT_MIN`.
static INTLIKE: [StaticObject; SMALL_INTS] = StaticObject::each(&INTLIKE_TABLES);
static INTLIKE_SHARED: SharedBoxes = SharedBoxes::new(SMALL_INT_MIN, &INTLIKE);
static CHARLIKE_TABLES: [InfoTable; SMALL_CHARS] = InfoTable::static_range("C#", "Char", BASE, T_SMALL_CHAR);
static CHARLIKE: [StaticObject; SMALL_CHARS] = StaticObject::each(&CHARLIKE_TABLES);
static CHARLIKE_SHARED: SharedBoxes = SharedBoxes::new(0, &CHARLIKE);

pub static INT_INFO: InfoTable = InfoTable::boxed_word("I#", "Int", BASE, &INTLIKE_SHARED).with_tag(T_INT);
pub static WORD_INFO: InfoTable = InfoTable::constr("W64#", "Word64", "GHC.Word", 0, 1).with_tag(T_WORD);
pub static DOUBLE_INFO: InfoTable = InfoTable::constr("D#", "Double", BASE, 0, 1).with_tag(T_DOUBLE);
pub static CHAR_INFO: InfoTable = InfoTable::boxed_word("C#", "Char", BASE, &CHARLIKE_SHARED).with_tag(T_CHAR);
/// `Integer` that fits a word (GHC 9's `IS`).
pub static INTEGER_INFO: InfoTable = InfoTable::constr("IS", "Integer", "GHC.Num.Integer", 0, 1).with_tag(T_INTEGER);
/// A larger `Integer`: its magnitude's 64-bit limbs in a byte array (GHC 9's `IP`, `IN`).
pub static BIG_POS_INFO: InfoTable = InfoTable::constr("IP", "Integer", "GHC.Num.Integer", 1, 0).with_tag(T_BIGNAT_POS);
pub static BIG_NEG_INFO: InfoTable = InfoTable::constr("IN", "Integer", "GHC.Num.Integer", 1, 0).with_tag(T_BIGNAT_NEG);

/// What a value is (the Prelude's `Kind`, in its constructors' order).
#[derive(Clone, Copy)]
pub enum Kind {
    Num,
    Con,
    Fun,
    Char,
    Other,
}

/// Every table a run of the program uses.
pub struct Tables {
    /// Per constructor: its table, and its static object if nullary.
    pub cons: Vec<&'static InfoTable>,
    pub nullary: Vec<Option<&'static StaticObject>>,
    /// Per code body: its function table and its thunk table.
    pub funs: Vec<&'static InfoTable>,
    pub thunks: Vec<&'static InfoTable>,
    paps: Vec<&'static InfoTable>,
    selectors: Vec<&'static InfoTable>,
    blackholes: Vec<&'static InfoTable>,
    /// The constructors of the Prelude's `Kind`.
    pub kinds: [u32; 5],
    /// The globals `eqCon`, `ltCon`, `leCon`, `cmpCon`, `neCon`.
    pub compare_globals: [u32; 5],
}

/// Is `info` the `k`th of the `count` static tables tagged from
/// `first_tag` (`InfoTable::static_range`)? `k` if so.
#[inline]
fn static_index(info: &InfoTable, first_tag: u32, count: usize) -> Option<u32> {
    let t = info.tag();
    (info.closure_type == ClosureType::ConstrStatic && (first_tag..first_tag + count as u32).contains(&t)).then(|| t - first_tag)
}

/// Is `info` one of the static small `Int`s? Its value if so.
#[inline]
pub fn static_int(info: &InfoTable) -> Option<i64> {
    static_index(info, T_SMALL_INT, SMALL_INTS).map(|k| i64::from(k) + SMALL_INT_MIN)
}

/// Is `info` one of the static small `Char`s? Its code point if so.
#[inline]
pub fn static_char(info: &InfoTable) -> Option<u32> {
    static_index(info, T_SMALL_CHAR, SMALL_CHARS)
}

/// Is `info` a `Char`'s, boxed in the heap or static?
pub fn is_char(info: &InfoTable) -> bool {
    std::ptr::eq(info, &CHAR_INFO) || static_char(info).is_some()
}

/// Every table and static object a program made, kept for the process's
/// life: an object on the heap names its table, and the heap may outlive
/// the machine (a census, a finaliser, the statistics at the end). Kept
/// here, they stay reachable, which is what a leak checker asks.
static KEPT: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

fn keep<T>(r: &'static T) -> &'static T {
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).push(r as *const T as usize);
    r
}

fn leak_str(s: &str) -> &'static str {
    let b: &'static str = Box::leak(s.to_string().into_boxed_str());
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).push(b.as_ptr() as usize);
    b
}

fn leak(t: InfoTable) -> &'static InfoTable {
    keep(Box::leak(Box::new(t)))
}

fn leak_static(o: StaticObject) -> &'static StaticObject {
    keep(Box::leak(Box::new(o)))
}

impl Tables {
    pub fn new(c: &Compiled) -> Tables {
        let mut cons = Vec::new();
        let mut nullary = Vec::new();
        for (id, con) in c.cons.iter().enumerate() {
            let (name, ty, module) = (leak_str(&con.name), leak_str(&con.type_name), leak_str(&con.module));
            if con.arity == 0 {
                let t = leak(InfoTable::static_constr(name, ty, module).with_tag(id as u32));
                cons.push(t);
                nullary.push(Some(leak_static(StaticObject::new(t))));
            } else {
                cons.push(leak(InfoTable::constr(name, ty, module, con.arity, 0).with_tag(id as u32)));
                nullary.push(None);
            }
        }
        let mut funs = Vec::new();
        let mut thunks = Vec::new();
        for (id, code) in c.codes.iter().enumerate() {
            let name = leak_str(&code.name);
            // A function with no free variables keeps one word (See `Machine::new`).
            let nptrs = u32::from(code.free == 0);
            funs.push(leak(InfoTable::fun(name, "Main", code.free, nptrs).with_tag(id as u32)));
            thunks.push(leak(InfoTable::interpreted_thunk(name, "thunk", "Main", code.free, 0).with_tag(id as u32)));
        }
        let find = |name: &str| c.cons.iter().position(|k| k.name == name && k.type_name == "Kind").expect("the Prelude defines Kind") as u32;
        let kinds = [find("KNum"), find("KCon"), find("KFun"), find("KChar"), find("KOther")];
        let global = |name: &str| c.globals.iter().position(|(n, _)| n == name).expect("the Prelude defines the comparisons") as u32;
        let compare_globals = [global("eqCon"), global("ltCon"), global("leCon"), global("cmpCon"), global("neCon")];
        Tables { cons, nullary, funs, thunks, paps: Vec::new(), selectors: Vec::new(), blackholes: Vec::new(), kinds, compare_globals }
    }

    /// A partial application of a function to `n` arguments: the function, then them.
    pub fn pap(&mut self, n: usize) -> &'static InfoTable {
        while self.paps.len() <= n {
            let k = self.paps.len() as u32;
            self.paps.push(leak(InfoTable::fun("PAP", "Main", 1 + k, 0).with_tag(PAP_BASE + k)));
        }
        self.paps[n]
    }

    pub fn selector(&mut self, field: u32) -> &'static InfoTable {
        while self.selectors.len() <= field as usize {
            let k = self.selectors.len() as u32;
            self.selectors.push(leak(InfoTable::selector(k, "Main")));
        }
        self.selectors[field as usize]
    }

    /// A black hole the size of a thunk of `words` payload words.
    pub fn blackhole(&mut self, words: usize) -> &'static InfoTable {
        while self.blackholes.len() <= words {
            let k = self.blackholes.len() as u32;
            self.blackholes.push(leak(InfoTable::blackhole(k)));
        }
        self.blackholes[words]
    }
}
