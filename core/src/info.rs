//! Info tables: the static description every heap object's header points at.
//!
//! As in GHC, an object's first word is the address of a static `InfoTable`
//! that says what kind of closure it is, how many pointer and non-pointer
//! payload words it has, and what to call it in profiles (constructor name,
//! type name, module). Workloads declare their own constructors, functions
//! and thunks as `static` info tables; core declares the built-in kinds
//! (mutable variables and arrays, byte arrays, weak pointers, indirections).
//!
//! Info tables are at least 8-byte aligned, so a header word with its low bit
//! set cannot be one: that bit marks a forwarding pointer (See Note
//! [Forwarding pointers] in `object`).

use crate::constants::Word;
use std::fmt;

/// A thunk's code with its type erased: the info table sits below the
/// mutator, whose type the code's signature names. Only the mutator's
/// `InfoTable::thunk` makes one and only its `thunk_code` reads one, each
/// as the mutator's `ThunkCode` (See Note [Thunk code beside its info
/// table] in `mutator::thunk`).
#[derive(Clone, Copy)]
pub struct ErasedCode(pub(crate) fn());

impl fmt::Debug for ErasedCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<thunk code>")
    }
}

/// Magic number in every info table, checked by the sanity checker.
pub const INFO_MAGIC: u32 = 0x6763_6c62; // "gclb"

/// What kind of closure an object is. The variants the collectors treat
/// differently; constructors, functions and thunks differ only in name and
/// in what the mutator does with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ClosureType {
    /// A data constructor: `ptrs` pointers then `nptrs` words.
    Constr,
    /// A nullary constructor outside the heap (such as `Nil`): never copied.
    ConstrStatic,
    /// A function closure with its free variables.
    Fun,
    /// An unevaluated expression; updated to an `Ind` once evaluated.
    Thunk,
    /// An evaluated thunk pointing at its value; the GC removes it.
    Ind,
    /// A mutable reference with no young pointer recorded.
    MutVarClean,
    /// A mutable reference on its generation's mutable list.
    MutVarDirty,
    /// A mutable pointer array with no young pointer recorded.
    MutArrClean,
    /// A mutable pointer array on its generation's mutable list.
    MutArrDirty,
    /// An immutable (frozen) pointer array.
    Arr,
    /// An array of raw bytes: length in bytes, then the data.
    ArrWords,
    /// A weak pointer: key, value, finaliser, then link and finaliser id.
    Weak,
    /// A weak pointer whose key has died.
    DeadWeak,
    /// An evaluation stack: capacity and depth, then that many slots, of
    /// which the first `depth` are live pointers (GHC's STACK; See Note
    /// [Evaluation stacks] in `mutator::stack`).
    Stack,
    /// A thunk that selects field `InfoTable::selector` of the constructor
    /// its one pointer field evaluates to; the GC does the selection when
    /// that is already a constructor (GHC's THUNK_SELECTOR; See Note
    /// [Selector thunks] in the collectors' `selector`).
    Selector,
    /// A thunk under evaluation: its payload is dead (not traced), and a
    /// program that enters it again loops (GHC's BLACKHOLE).
    Blackhole,
    /// A constructor of one non-pointer word (a boxed `Char` or `Int`)
    /// whose info table names static copies of its small values: the GC
    /// points a slot at the static copy instead of copying the box
    /// (GHC's CHARLIKE and INTLIKE closures; See Note [Small boxes are
    /// shared] in the collectors' `evacuate`).
    BoxedWord,
}

impl ClosureType {
    /// Every variant, in declaration order (for profiles and tests).
    pub const ALL: [ClosureType; 17] = [
        ClosureType::Constr,
        ClosureType::ConstrStatic,
        ClosureType::Fun,
        ClosureType::Thunk,
        ClosureType::Ind,
        ClosureType::MutVarClean,
        ClosureType::MutVarDirty,
        ClosureType::MutArrClean,
        ClosureType::MutArrDirty,
        ClosureType::Arr,
        ClosureType::ArrWords,
        ClosureType::Weak,
        ClosureType::DeadWeak,
        ClosureType::Stack,
        ClosureType::Selector,
        ClosureType::Blackhole,
        ClosureType::BoxedWord,
    ];

    /// GHC's name for the closure type, as `-hT` profiles print it.
    pub fn ghc_name(self) -> &'static str {
        match self {
            ClosureType::Constr => "CONSTR",
            ClosureType::ConstrStatic => "CONSTR_NOCAF",
            ClosureType::Fun => "FUN",
            ClosureType::Thunk => "THUNK",
            ClosureType::Ind => "IND",
            ClosureType::MutVarClean => "MUT_VAR_CLEAN",
            ClosureType::MutVarDirty => "MUT_VAR_DIRTY",
            ClosureType::MutArrClean => "MUT_ARR_PTRS_CLEAN",
            ClosureType::MutArrDirty => "MUT_ARR_PTRS_DIRTY",
            ClosureType::Arr => "MUT_ARR_PTRS_FROZEN_CLEAN",
            ClosureType::ArrWords => "ARR_WORDS",
            ClosureType::Weak => "WEAK",
            ClosureType::DeadWeak => "DEAD_WEAK",
            ClosureType::Stack => "STACK",
            ClosureType::Selector => "THUNK_SELECTOR",
            ClosureType::Blackhole => "BLACKHOLE",
            ClosureType::BoxedWord => "CONSTR_0_1",
        }
    }

    /// Pointer arrays: length word, elements, card table.
    #[inline(always)]
    pub fn is_pointer_array(self) -> bool {
        matches!(self, ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Arr)
    }

    /// Arrays of either kind: pointer arrays and byte arrays, sized by
    /// their length word (`Layout::array_object_size`).
    #[inline(always)]
    pub fn is_array(self) -> bool {
        self.is_pointer_array() || self == ClosureType::ArrWords
    }

    /// Kinds laid out by their info table alone: `ptrs` pointers, then
    /// `nptrs` words (a thunk at least one). The collectors' fast paths
    /// test this first (See Note [The common object first] in the collectors' `scavenge`).
    /// A selector thunk is laid out so too, but is not here: evacuating
    /// one may select instead of copying (the uncommon path).
    #[inline(always)]
    pub fn has_fixed_layout(self) -> bool {
        matches!(self, ClosureType::Constr | ClosureType::Fun | ClosureType::Thunk | ClosureType::Blackhole | ClosureType::BoxedWord)
    }

    /// Fixed-layout kinds that evacuation copies as they are: all but a
    /// boxed word, which it may replace by a static copy (the uncommon
    /// path).
    #[inline(always)]
    pub fn is_copied_as_is(self) -> bool {
        matches!(self, ClosureType::Constr | ClosureType::Fun | ClosureType::Thunk | ClosureType::Blackhole)
    }

    /// Constructors in the heap: plain, or a boxed word.
    #[inline(always)]
    pub fn is_heap_constr(self) -> bool {
        matches!(self, ClosureType::Constr | ClosureType::BoxedWord)
    }

    /// Kinds never written after allocation: constructors, functions
    /// and frozen arrays (a thunk is updated, a byte array written). Two
    /// copies of such an object are as good as one, so a parallel GC may
    /// copy one without claiming it (See Note [Copying an immutable object
    /// twice] in the collectors' `evacuate`).
    #[inline(always)]
    pub const fn is_immutable(self) -> bool {
        matches!(self, ClosureType::Constr | ClosureType::Fun | ClosureType::Arr | ClosureType::BoxedWord)
    }

    /// Objects the mutator may write pointers into after allocation.
    pub fn is_mutable(self) -> bool {
        matches!(
            self,
            ClosureType::MutVarClean | ClosureType::MutVarDirty | ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Stack
        )
    }

    /// Thunks of every kind: unevaluated (plain or selector) or under
    /// evaluation.
    pub fn is_thunk(self) -> bool {
        matches!(self, ClosureType::Thunk | ClosureType::Selector | ClosureType::Blackhole)
    }
}

/// A static description of a family of objects.
#[derive(Debug)]
#[repr(C, align(8))]
pub struct InfoTable {
    /// Always `INFO_MAGIC`.
    pub magic: u32,
    /// What kind of closure.
    pub closure_type: ClosureType,
    /// `closure_type.is_immutable()`, worked out once here: a parallel
    /// GC's copy asks it of every object it copies, and the byte shares
    /// `closure_type`'s word (See `InfoTable::is_immutable`).
    immutable: bool,
    /// Pointer words at the start of the payload (fixed-layout kinds).
    pub ptrs: u32,
    /// Non-pointer words after them.
    pub nptrs: u32,
    /// Constructor or closure name (`-hd`).
    pub name: &'static str,
    /// Type name (`-hy`).
    pub type_name: &'static str,
    /// Module (`-hm`).
    pub module: &'static str,
    /// For thunks: the code that evaluates it (made and read by the
    /// mutator's `InfoTable::thunk` and `thunk_code`).
    pub(crate) entry: Option<ErasedCode>,
    /// A number the program that made the table keeps in it (an
    /// interpreter's code or constructor number; See `with_tag`), and for
    /// a selector thunk the field it selects.
    tag: u32,
    /// Payload words of a fixed-layout object, worked out once here:
    /// `ptrs + nptrs`, at least 1 for a thunk (See `InfoTable::thunk`).
    payload_words: u32,
    /// For a boxed word: the static copies of its small values.
    shared: Option<&'static SharedBoxes>,
}

impl InfoTable {
    pub(crate) const fn new(closure_type: ClosureType, ptrs: u32, nptrs: u32, name: &'static str, type_name: &'static str, module: &'static str) -> InfoTable {
        let payload = ptrs + nptrs;
        let payload_words = if matches!(closure_type, ClosureType::Thunk) && payload == 0 { 1 } else { payload };
        let immutable = closure_type.is_immutable();
        InfoTable { magic: INFO_MAGIC, closure_type, immutable, ptrs, nptrs, name, type_name, module, entry: None, tag: 0, payload_words, shared: None }
    }

    /// Is an object of this table never written after allocation
    /// (`ClosureType::is_immutable`)? One load and one test, where the
    /// kind's own test is a range check and a bit test on a mask: a
    /// parallel GC of binary-trees executes about 4 instructions fewer an
    /// object copied for it (callgrind; See Note [Offering work by the
    /// words scanned] in the collectors' `offer_point`). `closure_type` is
    /// a public field: a table whose kind was changed after `new` would
    /// answer for its old kind, which the debug build checks.
    #[inline(always)]
    pub fn is_immutable(&self) -> bool {
        debug_assert_eq!(self.immutable, self.closure_type.is_immutable(), "{}'s kind changed after its table was made", self.name);
        self.immutable
    }

    /// This table with `tag` kept in it: a program that makes its tables
    /// as it runs (an interpreter, one table per function or constructor
    /// of the program it runs) finds its own code or constructor number
    /// from an object's header.
    pub const fn with_tag(mut self, tag: u32) -> InfoTable {
        self.tag = tag;
        self
    }

    /// The number `with_tag` kept (0 if none).
    #[inline(always)]
    pub fn tag(&self) -> u32 {
        self.tag
    }

    /// A thunk that an interpreter evaluates (its code is found from the
    /// table's tag, not kept in it): `ptrs` free variables, `nptrs` words.
    pub const fn interpreted_thunk(name: &'static str, type_name: &'static str, module: &'static str, ptrs: u32, nptrs: u32) -> InfoTable {
        InfoTable::new(ClosureType::Thunk, ptrs, nptrs, name, type_name, module)
    }

    /// A selector thunk: field `field` of the constructor its one pointer
    /// field (the selectee) evaluates to.
    pub const fn selector(field: u32, module: &'static str) -> InfoTable {
        InfoTable::new(ClosureType::Selector, 1, 0, "sel", "THUNK_SELECTOR", module).with_tag(field)
    }

    /// The field a selector thunk selects.
    #[inline(always)]
    pub fn selector_field(&self) -> usize {
        self.tag as usize
    }

    /// A black hole over a thunk of `payload_words` payload words: the
    /// thunk's size, none of it traced.
    pub const fn blackhole(payload_words: u32) -> InfoTable {
        InfoTable::new(ClosureType::Blackhole, 0, payload_words, "BLACKHOLE", "BLACKHOLE", CORE)
    }

    /// Payload words of an object of this fixed-layout kind.
    #[inline(always)]
    pub fn payload_words(&self) -> usize {
        self.payload_words as usize
    }

    /// A data constructor with `ptrs` pointer fields and `nptrs` words.
    pub const fn constr(name: &'static str, type_name: &'static str, module: &'static str, ptrs: u32, nptrs: u32) -> InfoTable {
        InfoTable::new(ClosureType::Constr, ptrs, nptrs, name, type_name, module)
    }

    /// A nullary constructor that lives outside the heap (see `StaticObject`).
    pub const fn static_constr(name: &'static str, type_name: &'static str, module: &'static str) -> InfoTable {
        InfoTable::new(ClosureType::ConstrStatic, 0, 0, name, type_name, module)
    }

    /// `N` static constructor tables, tagged `first_tag`, `first_tag +
    /// 1`, ..: one per value of a range of boxed words, whose static
    /// copies (`StaticObject::each`) carry their value in their table's
    /// tag.
    pub const fn static_range<const N: usize>(name: &'static str, type_name: &'static str, module: &'static str, first_tag: u32) -> [InfoTable; N] {
        let mut tables = [const { InfoTable::static_constr("", "", "") }; N];
        let mut i = 0;
        while i < N {
            tables[i] = InfoTable::static_constr(name, type_name, module).with_tag(first_tag + i as u32);
            i += 1;
        }
        tables
    }

    /// A constructor of one non-pointer word whose values from
    /// `shared.min` on have static copies (See `ClosureType::BoxedWord`).
    pub const fn boxed_word(name: &'static str, type_name: &'static str, module: &'static str, shared: &'static SharedBoxes) -> InfoTable {
        let mut t = InfoTable::new(ClosureType::BoxedWord, 0, 1, name, type_name, module);
        t.shared = Some(shared);
        t
    }

    /// The static copy of a boxed word holding `value`, if it has one.
    #[inline(always)]
    pub fn shared_box(&self, value: Word) -> Option<&'static StaticObject> {
        self.shared?.get(value as i64)
    }

    /// A function closure capturing `ptrs` pointers and `nptrs` words.
    pub const fn fun(name: &'static str, module: &'static str, ptrs: u32, nptrs: u32) -> InfoTable {
        InfoTable::new(ClosureType::Fun, ptrs, nptrs, name, "->", module)
    }

    /// The header word that points at this table.
    #[inline(always)]
    pub fn header(&'static self) -> Word {
        self as *const InfoTable as Word
    }

    /// Objects outside the heap.
    #[inline(always)]
    pub fn is_static(&self) -> bool {
        self.closure_type == ClosureType::ConstrStatic
    }
}

const CORE: &str = "GHC.Prim";

/// An indirection left by an updated thunk.
pub static IND_INFO: InfoTable = InfoTable::new(ClosureType::Ind, 1, 0, "IND", "IND", CORE);
/// `MutVar#`, clean.
pub static MUT_VAR_CLEAN_INFO: InfoTable = InfoTable::new(ClosureType::MutVarClean, 1, 0, "MUT_VAR_CLEAN", "MutVar#", CORE);
/// `MutVar#`, dirty (on a mutable list).
pub static MUT_VAR_DIRTY_INFO: InfoTable = InfoTable::new(ClosureType::MutVarDirty, 1, 0, "MUT_VAR_DIRTY", "MutVar#", CORE);
/// `MutableArray#`, clean.
pub static MUT_ARR_CLEAN_INFO: InfoTable = InfoTable::new(ClosureType::MutArrClean, 0, 0, "MUT_ARR_PTRS_CLEAN", "MutableArray#", CORE);
/// `MutableArray#`, dirty.
pub static MUT_ARR_DIRTY_INFO: InfoTable = InfoTable::new(ClosureType::MutArrDirty, 0, 0, "MUT_ARR_PTRS_DIRTY", "MutableArray#", CORE);
/// `Array#` (frozen).
pub static ARR_INFO: InfoTable = InfoTable::new(ClosureType::Arr, 0, 0, "MUT_ARR_PTRS_FROZEN", "Array#", CORE);
/// `ByteArray#`.
pub static ARR_WORDS_INFO: InfoTable = InfoTable::new(ClosureType::ArrWords, 0, 0, "ARR_WORDS", "ByteArray#", CORE);
/// `STACK`, clean: no young pointer recorded (See Note [Evaluation
/// stacks] in `mutator::stack`).
pub static STACK_CLEAN_INFO: InfoTable = InfoTable::new(ClosureType::Stack, 0, 0, "STACK", "STACK", CORE);
/// `STACK`, dirty: on its generation's mutable list.
pub static STACK_DIRTY_INFO: InfoTable = InfoTable::new(ClosureType::Stack, 0, 0, "STACK", "STACK", CORE);
/// `Weak#`.
pub static WEAK_INFO: InfoTable = InfoTable::new(ClosureType::Weak, 3, 2, "WEAK", "Weak#", CORE);
/// A `Weak#` whose key died.
pub static DEAD_WEAK_INFO: InfoTable = InfoTable::new(ClosureType::DeadWeak, 3, 2, "DEAD_WEAK", "Weak#", CORE);

/// A nullary constructor outside the heap: one header word. Declare one as
/// `static NIL: StaticObject = StaticObject::new(&NIL_INFO);` with an info
/// table from `InfoTable::static_constr`.
#[derive(Debug)]
#[repr(C, align(8))]
pub struct StaticObject {
    header: &'static InfoTable,
}

impl StaticObject {
    /// A static object described by `info`, which must be a static constructor.
    pub const fn new(info: &'static InfoTable) -> StaticObject {
        assert!(matches!(info.closure_type, ClosureType::ConstrStatic), "static objects need a static_constr info table");
        StaticObject { header: info }
    }

    /// One static object for each of `tables` (See
    /// `InfoTable::static_range`).
    pub const fn each<const N: usize>(tables: &'static [InfoTable; N]) -> [StaticObject; N] {
        let mut objects = [const { StaticObject { header: &NULL_INFO } }; N];
        let mut i = 0;
        while i < N {
            objects[i] = StaticObject::new(&tables[i]);
            i += 1;
        }
        objects
    }

    /// The object's address, as stored in pointer fields.
    #[inline(always)]
    pub fn addr(&'static self) -> Word {
        self as *const StaticObject as Word
    }
}

/// The static copies of a range of a boxed word's values (GHC's
/// `stg_CHARLIKE_closure` and `stg_INTLIKE_closure` arrays): the copy of
/// value `v` is `boxes[v - min]`.
#[derive(Debug)]
pub struct SharedBoxes {
    min: i64,
    boxes: &'static [StaticObject],
}

impl SharedBoxes {
    /// Copies of the values `min`, `min + 1`, .. for each of `boxes`.
    pub const fn new(min: i64, boxes: &'static [StaticObject]) -> SharedBoxes {
        SharedBoxes { min, boxes }
    }

    /// The static copy of `value`, if it is in the range.
    #[inline(always)]
    pub fn get(&self, value: i64) -> Option<&'static StaticObject> {
        let i = usize::try_from(value.wrapping_sub(self.min)).ok()?;
        self.boxes.get(i)
    }
}

/// A static object that stands for "no object" (an empty weak key, a cleared
/// field): pointer fields are never null.
pub static NULL_INFO: InfoTable = InfoTable::static_constr("NULL", "NULL", CORE);
/// The object behind `NULL_INFO`.
pub static NULL_OBJECT: StaticObject = StaticObject::new(&NULL_INFO);

#[cfg(test)]
mod tests {
    use super::*;

    static TABLES: [InfoTable; 4] = InfoTable::static_range("I#", "Int", "T", 100);
    static OBJECTS: [StaticObject; 4] = StaticObject::each(&TABLES);
    static SHARED: SharedBoxes = SharedBoxes::new(-2, &OBJECTS);
    static BOX: InfoTable = InfoTable::boxed_word("I#", "Int", "T", &SHARED);

    #[test]
    fn a_boxed_word_names_the_static_copy_of_each_value_in_its_range() {
        for v in -2..=1i64 {
            let s = BOX.shared_box(v as Word).expect("in the range");
            assert_eq!(s.header.tag(), (100 + v + 2) as u32, "the copy of {v}");
            assert!(s.header.is_static());
        }
        for v in [-3, 2, i64::MIN, i64::MAX] {
            assert!(BOX.shared_box(v as Word).is_none(), "{v} is outside the range");
        }
        assert!(NULL_INFO.shared_box(0).is_none(), "a table that is not a boxed word shares nothing");
        assert_eq!(BOX.closure_type, ClosureType::BoxedWord);
        assert!(BOX.closure_type.has_fixed_layout() && !BOX.closure_type.is_copied_as_is());
        assert_eq!(BOX.payload_words(), 1);
    }

    #[test]
    fn a_table_answers_is_immutable_as_its_kind_does() {
        let mut immutable = 0;
        for kind in ClosureType::ALL {
            let table = InfoTable::new(kind, 1, 0, "x", "X", "T");
            assert_eq!(table.is_immutable(), kind.is_immutable(), "{kind:?}");
            immutable += usize::from(table.is_immutable());
        }
        assert_eq!(immutable, 4, "constructors, functions, frozen arrays and boxed words");
        assert!(BOX.is_immutable(), "a boxed word made by its own constructor");
        assert!(!InfoTable::blackhole(2).is_immutable(), "a black hole is updated");
    }
}
