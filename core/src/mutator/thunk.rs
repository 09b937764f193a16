//! Thunks: the code that evaluates one, kept beside its info table, and
//! `force`, which runs it and updates the thunk with its value.
//!
//! Note [Thunk code beside its info table]
//! ----------------------------------------
//! GHC places a closure's entry code right after its info table ("tables
//! next to code"), so the header word finds both. gclab's thunks are Rust
//! functions of the mutator (`ThunkCode`), and the info table keeps one in
//! its `entry` field. Info tables sit at the bottom of core, below the
//! mutator whose type that signature names, so the field holds the
//! function with its type erased (`info::ErasedCode`), and the two ends
//! that know the type live here: `InfoTable::thunk` erases it, and
//! `thunk_code` restores it. The field is private to core, so no other
//! code can put a function of another type there; a transmute between two
//! function pointer types is sound when the function is called only as
//! the type it was made with. The alternative, an `info -> mutator` import
//! for the type alone, was the one edge that tied the object model into
//! the mutator's circle of modules.

use super::*;
use crate::info::ErasedCode;

/// The code of a thunk: computes its value from the thunk's payload. The
/// mutator then overwrites the thunk with an indirection to the result.
pub type ThunkCode = for<'a, 'b> fn(&'b mut Mutator<'a>, Handle) -> Handle;

impl InfoTable {
    /// A thunk whose value `entry` computes from its `ptrs` + `nptrs` free
    /// variables. A thunk has at least one payload word, so that it can be
    /// overwritten by an indirection.
    pub const fn thunk(name: &'static str, type_name: &'static str, module: &'static str, ptrs: u32, nptrs: u32, entry: ThunkCode) -> InfoTable {
        let mut it = InfoTable::new(ClosureType::Thunk, ptrs, nptrs, name, type_name, module);
        // SAFETY: function pointers of any signature have one size; the
        // erased pointer is called only after `thunk_code` has given it
        // back this type (See Note [Thunk code beside its info table]).
        it.entry = Some(ErasedCode(unsafe { std::mem::transmute::<ThunkCode, fn()>(entry) }));
        it
    }

    /// The code of a thunk's info table (None for other kinds).
    pub fn thunk_code(&self) -> Option<ThunkCode> {
        // SAFETY: only `InfoTable::thunk` sets `entry`, from a `ThunkCode`
        // (See Note [Thunk code beside its info table]).
        self.entry.map(|code| unsafe { std::mem::transmute::<fn(), ThunkCode>(code.0) })
    }
}

impl Mutator<'_> {
    /// Evaluate `h` if it is a thunk, updating the thunk with an
    /// indirection to its value; returns a handle to the value.
    pub fn force(&mut self, h: Handle) -> Handle {
        let info = self.info(h);
        if info.closure_type != ClosureType::Thunk {
            return self.dup(h);
        }
        let entry = info.thunk_code().expect("thunk info tables have code");
        let value = entry(self, h);
        let thunk = self.obj(h);
        // SAFETY: `thunk` is a valid object; it is still the thunk unless
        // the entry code forced it itself (then it is already an IND and
        // `obj` went through it).
        unsafe {
            let info = info_of_header(*thunk);
            if info.closure_type == ClosureType::Thunk {
                let size = self.layout.fixed_size(info);
                let v = self.root(value);
                let layout = self.layout;
                self.access.before_write(thunk);
                barrier::update_thunk(self.cap_mut(), layout, thunk, size, v);
            }
        }
        value
    }
}
