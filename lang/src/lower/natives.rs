//! Choosing the natives: each library function that `Native::ALL` names
//! gets its native body, and a thunk code for the calls of it that its
//! native leaves unevaluated, entered straight into the native (and, for
//! `map` and `zipWith`, a thunk code applying a function to its
//! arguments) (See Note [Native library functions] in
//! `machine::native`). Only the library's own definitions are chosen: a
//! program's function of the same name is its own.

use crate::ir::{Atom, Code, CodeId, GlobalInit, Ir, Native, NativeBody};
use crate::term::GlobalId;

/// Give the library's functions their natives. `library_end`: the
/// library's top-level values are those numbered below it.
pub(super) fn choose(ir: &mut Vec<Ir>, codes: &mut Vec<Code>, globals: &[(String, GlobalInit)], library_end: GlobalId) {
    let mut chosen = 0;
    for (name, init) in &globals[..library_end as usize] {
        let GlobalInit::Fun(c) = *init else { continue };
        let Some(&(native, _, arity)) = Native::ALL.iter().find(|(_, n, a)| n == name && *a == codes[c as usize].arity) else { continue };
        // The suspended call: a thunk whose free variables are the arguments.
        let frame = arity + native.scratch();
        let call = Ir::Call(c, (0..arity).map(Atom::Slot).collect());
        let suspended = thunk_code(ir, codes, name, arity, frame, call, Some(c));
        // The application: a thunk of the function and its arguments.
        let applied = native.applies().map(|k| thunk_code(ir, codes, name, k + 1, k + 1, Ir::App(Atom::Slot(0), (1..=k).map(Atom::Slot).collect()), None));
        codes[c as usize].native = Some(NativeBody { native, suspended, applied, frame });
        chosen += 1;
    }
    debug_assert_eq!(chosen, Native::ALL.len(), "the library defines every function a native stands for");
}

/// A thunk code named as `name`'s own thunks are, of `free` free
/// variables in a frame of `frame` slots, whose body is `body`.
fn thunk_code(ir: &mut Vec<Ir>, codes: &mut Vec<Code>, name: &str, free: u32, frame: u32, body: Ir, native_call: Option<CodeId>) -> CodeId {
    ir.push(body);
    let body = (ir.len() - 1) as u32;
    codes.push(Code { name: format!("{name}.thk"), arity: 0, free, frame, body, native: None, native_call });
    (codes.len() - 1) as CodeId
}
