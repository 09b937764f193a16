//! The compiled form the machine runs: code bodies whose variables are
//! slots of a frame on the evaluation stack, every argument an atom, and
//! every allocation explicit (See Note [Frames on the heap stack] in
//! `machine`).

use crate::prim::Prim;
use crate::term::{ConId, Literal};

/// An instruction's index in `Compiled::ir`.
pub type IrId = u32;
/// A code body's index in `Compiled::codes`: also the tag of the info
/// table of every closure or thunk made from it.
pub type CodeId = u32;

/// A value the machine can name without evaluating anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Atom {
    /// Slot of the current frame.
    Slot(u32),
    /// A top-level value: its slot at the bottom of the stack.
    Global(u32),
}

/// An object a `Let` allocates.
#[derive(Debug, Clone)]
pub enum Alloc {
    Thunk(CodeId, Vec<Atom>),
    Fun(CodeId, Vec<Atom>),
    Con(ConId, Vec<Atom>),
    /// A selector thunk over the atom.
    Sel(Atom, u32),
    /// Another name for a value that exists.
    Alias(Atom),
    /// A nullary constructor: its static object, nothing allocated (as
    /// GHC's `[]` is a static closure, not a thunk of one).
    Static(ConId),
}

impl Alloc {
    /// The atoms that become the object's pointer fields (none for an alias).
    pub fn fields(&self) -> &[Atom] {
        match self {
            Alloc::Thunk(_, fv) | Alloc::Fun(_, fv) | Alloc::Con(_, fv) => fv,
            Alloc::Sel(a, _) => std::slice::from_ref(a),
            Alloc::Alias(_) | Alloc::Static(_) => &[],
        }
    }
}

/// An instruction: every one ends by returning a value or entering one.
/// Its tag is a byte of its own (`repr(u8)`): left to the compiler, the
/// tag hid in a vector's capacity and every dispatch decoded it first
/// (five more instructions a step).
#[derive(Debug, Clone)]
#[repr(u8)]
pub enum Ir {
    /// Evaluate the atom and return its value.
    Enter(Atom),
    /// Apply the atom's value to the arguments.
    App(Atom, Vec<Atom>),
    /// Call the top-level function whose code is `CodeId` with exactly its
    /// arity's arguments (See Note [Known calls] in `lower`).
    Call(CodeId, Vec<Atom>),
    /// Allocate (recursive bindings: fields may name each other), then go
    /// on. The flag: some field names its own binding or a later one (a
    /// knot to tie after the objects are made).
    Let(Vec<(u32, Alloc)>, IrId, bool),
    /// Evaluate the scrutinee in this frame, put its value in `bind`
    /// (none where no alternative names the value), and go on with the
    /// alternative for its constructor.
    /// `keep`: the frame's slots, from its base, that the alternatives
    /// read (one past the highest); the scrutinee's evaluation may reuse
    /// the rest (See Note [What a case keeps] in `lower::live`).
    Case { scrut: IrId, bind: Option<u32>, alts: Vec<(ConId, Vec<u32>, IrId)>, default: Option<IrId>, keep: u32 },
    /// Return a new constructor.
    Con(ConId, Vec<Atom>),
    /// A primitive over evaluated arguments.
    Prim(Prim, Vec<Atom>),
    /// A primitive with a word path (See Note [Primitives on words] in
    /// `machine::fast`) whose operands are variables, not yet known to
    /// be evaluated: done at once on the words when each operand is a
    /// word-sized number already, by the general primitive when each is
    /// some other value, else (a thunk among them) by `slow`, which
    /// evaluates them by cases first (See Note [Primitives on evaluated
    /// variables] in `lower`).
    WordPrim { prim: Prim, args: Vec<Atom>, slow: IrId },
    /// A case whose scrutinee is such a primitive: when the operands are
    /// word-sized numbers already, the case `case`'s alternative for the
    /// result is chosen at once, with no continuation; when they are
    /// other values, the general primitive returns to `case`; else
    /// `case` runs, its scrutinee evaluating them.
    CaseWordPrim { prim: Prim, args: Vec<Atom>, case: IrId },
    /// Evaluate `IrId` and convert its value with the primitive (`ToInt`,
    /// `ToWord64`, `ToDouble`, `ToInteger`: a signature's numeric result
    /// type), with no frame kept; a tail call under a conversion of the
    /// same kind adds none (See Note [Conversions keep tail calls] in
    /// `lower`).
    Coerce(Prim, IrId),
    /// Return the string literal `u32` as a list of `Char`.
    Str(u32),
    /// Stop the program with GHC's message.
    Error(String),
}

/// A code body: a function's (`arity > 0`) or a thunk's.
#[derive(Debug, Clone)]
pub struct Code {
    pub name: String,
    pub arity: u32,
    /// Free variables, kept in the closure and copied into the frame
    /// after the arguments.
    pub free: u32,
    /// Slots the frame needs in all: arguments, free variables, locals.
    pub frame: u32,
    pub body: IrId,
    /// A library function's body run by the machine itself, where it has
    /// one (See Note [Native library functions] in `machine::native`);
    /// `body` stays, for what the native leaves to it.
    pub native: Option<NativeBody>,
    /// A thunk whose body is only a call of a function with a native
    /// (`NativeBody::suspended`): that function's code, whose native an
    /// entry of the thunk runs at once in a frame laid out as the
    /// native's (its free variables are the arguments).
    pub native_call: Option<CodeId>,
}

/// The library functions the machine runs natively, each standing for
/// the definition of that name in `lib/Prelude.hs` or `lib/Library.hs`,
/// whose behaviour it keeps (See Note [Native library functions] in
/// `machine::native`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Native {
    /// `numFrom a`: `[a ..]` on numbers.
    NumFrom,
    /// `numFromTo a b`: `[a .. b]` on numbers.
    NumFromTo,
    /// `xs ++ ys`.
    Append,
    /// `map f xs`.
    Map,
    /// `filter p xs`.
    Filter,
    /// `lenAcc xs n`: `length`'s loop.
    LenAcc,
    /// `nth xs n`: `!!`'s loop.
    Nth,
    /// `take n xs`.
    Take,
    /// `drop n xs`.
    Drop,
    /// `zip xs ys`.
    Zip,
    /// `zipWith f xs ys`.
    ZipWith,
    /// `elemBy eq y xs`: `nub`'s test.
    ElemBy,
    /// `break p xs`.
    Break,
    /// `span p xs`.
    Span,
}

impl Native {
    /// Every native, with the library function it stands for and that
    /// function's arity.
    pub const ALL: [(Native, &'static str, u32); 14] = [
        (Native::NumFrom, "numFrom", 1),
        (Native::NumFromTo, "numFromTo", 2),
        (Native::Append, "++", 2),
        (Native::Map, "map", 2),
        (Native::Filter, "filter", 2),
        (Native::LenAcc, "lenAcc", 2),
        (Native::Nth, "nth", 2),
        (Native::Take, "take", 2),
        (Native::Drop, "drop", 2),
        (Native::Zip, "zip", 2),
        (Native::ZipWith, "zipWith", 3),
        (Native::ElemBy, "elemBy", 3),
        (Native::Break, "break", 2),
        (Native::Span, "span", 2),
    ];

    /// The frame slots the native needs beyond its arguments: the slots
    /// its body in `machine::native` names past them, and no more, since
    /// each is filled when its frame opens.
    pub fn scratch(self) -> u32 {
        match self {
            Native::LenAcc | Native::Drop => 0,
            Native::Nth | Native::ElemBy => 1,
            Native::NumFromTo | Native::Append | Native::Filter => 2,
            Native::NumFrom | Native::Map | Native::Take | Native::Zip => 3,
            Native::ZipWith => 4,
            Native::Break | Native::Span => 5,
        }
    }

    /// How many arguments the native applies its function argument to in
    /// a thunk it allocates (`map`'s `f x`, `zipWith`'s `f a b`), if it
    /// allocates such a thunk.
    pub fn applies(self) -> Option<u32> {
        match self {
            Native::Map => Some(1),
            Native::ZipWith => Some(2),
            _ => None,
        }
    }
}

/// A code body's native, and the code of a thunk that calls the same
/// function with the thunk's free variables as its arguments (the tail a
/// native leaves unevaluated: `xs ++ ys`'s `xs' ++ ys`).
#[derive(Debug, Clone, Copy)]
pub struct NativeBody {
    pub native: Native,
    pub suspended: CodeId,
    /// The code of a thunk that applies its first free variable to the
    /// rest (See `Native::applies`).
    pub applied: Option<CodeId>,
    /// The native's frame: the arguments and its scratch slots (the
    /// Haskell body's frame, `Code::frame`, is made when it runs).
    pub frame: u32,
}

/// A top-level value, as the machine sets it up before `main` runs.
#[derive(Debug, Clone)]
pub enum GlobalInit {
    /// A function without free variables.
    Fun(CodeId),
    /// A constant applicative form: a thunk updated once, kept as a root.
    Caf(CodeId),
    Literal(Literal),
    /// A nullary constructor.
    Con(ConId),
}

/// A whole program, compiled.
#[derive(Clone)]
pub struct Compiled {
    pub ir: Vec<Ir>,
    pub codes: Vec<Code>,
    pub globals: Vec<(String, GlobalInit)>,
    pub strings: Vec<String>,
    pub cons: Vec<crate::program::ConInfo>,
    pub main: u32,
}

impl Compiled {
    /// Run every library function from its Haskell definition: a
    /// reference the natives are compared with (`tests/lang_natives.rs`).
    /// The thunks made for the natives' calls run their bodies too.
    pub fn without_natives(mut self) -> Compiled {
        for code in &mut self.codes {
            code.native = None;
            code.native_call = None;
        }
        self
    }
}
