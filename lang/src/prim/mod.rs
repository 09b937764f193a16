//! Primitive operations: what the library modules (`lang/lib`) are built
//! on. A primitive is named `prim<Name>` in a library module; it is
//! strict in its arguments except those `lazy_args` names (a value stored
//! into a reference or an array is stored as it is, thunk or not).

pub mod num;
pub mod show;

/// A primitive operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    // Arithmetic on Int, Integer, Word64 and Double (See Note [Numbers typed at run time]).
    Add,
    Sub,
    Mul,
    Negate,
    Abs,
    Signum,
    Quot,
    Rem,
    Div,
    Mod,
    Divide,
    Eq,
    /// `/=`: GHC's optimised `base` compares without a thunk for `==`.
    Ne,
    Lt,
    Le,
    Compare,
    ToInt,
    ToInteger,
    ToDouble,
    ToWord64,
    Truncate,
    Round,
    Floor,
    Ceiling,
    Float(FloatFn),
    Pow,
    And,
    Or,
    Xor,
    ShiftL,
    ShiftR,
    Complement,
    PopCount,
    // Characters.
    Ord,
    Chr,
    CharIs(CharClass),
    ToUpper,
    ToLower,
    // Numbers and strings.
    Show,
    ShowInString,
    Read,
    /// Is the number a `Double` (the `Fractional` instances' enumerations)?
    IsFrac,
    // The structure of constructors (derived Eq, Ord, Show, Enum).
    Kind,
    SameCon,
    Arity,
    Field,
    ConIndex,
    ConCount,
    ConAt,
    ConName,
    ConPrec,
    Label,
    // Evaluation.
    Seq,
    // References and arrays.
    NewRef,
    /// A reference's contents for IO: `IORes` of them, unevaluated.
    ReadRef,
    WriteRef,
    NewArr,
    ReadArr,
    /// An element for IO: `IORes` of it, unevaluated.
    ReadArrIO,
    WriteArr,
    ArrLen,
    Freeze,
    CopyArr,
    // Input and output.
    PutChar,
    GetArgs,
    Error,
    PerformGc,
}

/// The floating functions of one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFn {
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Atan,
}

/// Character classes of `Data.Char`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharClass {
    Digit,
    Space,
    Alpha,
    Upper,
    Lower,
    AlphaNum,
}

/// Every primitive by its library name (without `prim`), with its arity.
const TABLE: &[(&str, Prim, u32)] = &[
    ("Add", Prim::Add, 2),
    ("Sub", Prim::Sub, 2),
    ("Mul", Prim::Mul, 2),
    ("Negate", Prim::Negate, 1),
    ("Abs", Prim::Abs, 1),
    ("Signum", Prim::Signum, 1),
    ("Quot", Prim::Quot, 2),
    ("Rem", Prim::Rem, 2),
    ("Div", Prim::Div, 2),
    ("Mod", Prim::Mod, 2),
    ("Divide", Prim::Divide, 2),
    ("Eq", Prim::Eq, 2),
    ("Ne", Prim::Ne, 2),
    ("Lt", Prim::Lt, 2),
    ("Le", Prim::Le, 2),
    ("Compare", Prim::Compare, 2),
    ("ToInt", Prim::ToInt, 1),
    ("ToInteger", Prim::ToInteger, 1),
    ("ToDouble", Prim::ToDouble, 1),
    ("ToWord64", Prim::ToWord64, 1),
    ("Truncate", Prim::Truncate, 1),
    ("Round", Prim::Round, 1),
    ("Floor", Prim::Floor, 1),
    ("Ceiling", Prim::Ceiling, 1),
    ("Sqrt", Prim::Float(FloatFn::Sqrt), 1),
    ("Exp", Prim::Float(FloatFn::Exp), 1),
    ("Log", Prim::Float(FloatFn::Log), 1),
    ("Sin", Prim::Float(FloatFn::Sin), 1),
    ("Cos", Prim::Float(FloatFn::Cos), 1),
    ("Tan", Prim::Float(FloatFn::Tan), 1),
    ("Atan", Prim::Float(FloatFn::Atan), 1),
    ("Pow", Prim::Pow, 2),
    ("And", Prim::And, 2),
    ("Or", Prim::Or, 2),
    ("Xor", Prim::Xor, 2),
    ("ShiftL", Prim::ShiftL, 2),
    ("ShiftR", Prim::ShiftR, 2),
    ("Complement", Prim::Complement, 1),
    ("PopCount", Prim::PopCount, 1),
    ("Ord", Prim::Ord, 1),
    ("Chr", Prim::Chr, 1),
    ("IsDigit", Prim::CharIs(CharClass::Digit), 1),
    ("IsSpace", Prim::CharIs(CharClass::Space), 1),
    ("IsAlpha", Prim::CharIs(CharClass::Alpha), 1),
    ("IsUpper", Prim::CharIs(CharClass::Upper), 1),
    ("IsLower", Prim::CharIs(CharClass::Lower), 1),
    ("IsAlphaNum", Prim::CharIs(CharClass::AlphaNum), 1),
    ("ToUpper", Prim::ToUpper, 1),
    ("ToLower", Prim::ToLower, 1),
    ("Show", Prim::Show, 1),
    ("ShowInString", Prim::ShowInString, 1),
    ("Read", Prim::Read, 1),
    ("IsFrac", Prim::IsFrac, 1),
    ("Kind", Prim::Kind, 1),
    ("SameCon", Prim::SameCon, 2),
    ("Arity", Prim::Arity, 1),
    ("Field", Prim::Field, 2),
    ("ConIndex", Prim::ConIndex, 1),
    ("ConCount", Prim::ConCount, 1),
    ("ConAt", Prim::ConAt, 2),
    ("ConName", Prim::ConName, 1),
    ("ConPrec", Prim::ConPrec, 1),
    ("Label", Prim::Label, 2),
    ("Seq", Prim::Seq, 2),
    ("NewRef", Prim::NewRef, 1),
    ("ReadRef", Prim::ReadRef, 1),
    ("WriteRef", Prim::WriteRef, 2),
    ("NewArr", Prim::NewArr, 2),
    ("ReadArr", Prim::ReadArr, 2),
    ("ReadArrIO", Prim::ReadArrIO, 2),
    ("WriteArr", Prim::WriteArr, 3),
    ("ArrLen", Prim::ArrLen, 1),
    ("Freeze", Prim::Freeze, 1),
    ("CopyArr", Prim::CopyArr, 1),
    ("PutChar", Prim::PutChar, 1),
    ("GetArgs", Prim::GetArgs, 1),
    ("Error", Prim::Error, 1),
    ("PerformGc", Prim::PerformGc, 1),
];

impl Prim {
    /// The primitive a library module calls `prim<name>`.
    pub fn named(name: &str) -> Option<(Prim, u32)> {
        let short = name.strip_prefix("prim")?;
        TABLE.iter().find(|(n, _, _)| *n == short).map(|&(_, p, a)| (p, a))
    }

    /// Has the machine a path on two word-sized numbers for this
    /// primitive (See Note [Primitives on words] in `machine::fast`)?
    pub fn has_word_path(self) -> bool {
        matches!(self, Prim::Add | Prim::Sub | Prim::Mul | Prim::Quot | Prim::Rem | Prim::Div | Prim::Mod | Prim::Eq | Prim::Ne | Prim::Lt | Prim::Le | Prim::Compare | Prim::ToInt)
    }

    /// Is it the conversion to a numeric type that a signature's result
    /// type asks for (`desugar::bind`'s `coerce_result`)? Converting
    /// twice is converting once.
    pub fn is_conversion(self) -> bool {
        matches!(self, Prim::ToInt | Prim::ToWord64 | Prim::ToDouble | Prim::ToInteger)
    }

    /// Is argument `i` passed as it is, unevaluated?
    pub fn lazy_arg(self, i: usize) -> bool {
        matches!((self, i), (Prim::Seq, 1) | (Prim::NewRef, 0) | (Prim::WriteRef, 1) | (Prim::NewArr, 1) | (Prim::WriteArr, 2))
    }
}
