//! Selector thunks evaluated by the GC: a selector whose selectee is
//! already a constructor is replaced by the field it selects, so that it
//! does not keep the rest of the selectee alive.
//!
//! Invariant kept: a slot that pointed at a selector thunk whose
//! selectee chain is all evaluated points, after `evacuate`, at the field
//! selected (evacuated in its turn), and the selector is neither copied
//! nor marked (See Note [Selector thunks]).

use crate::evacuate::evacuate;
use crate::gc_thread::GcThread;
use gclab_core::constants::Word;
use gclab_core::info::ClosureType;
use gclab_core::object::{forward_target, info_of_header, is_forwarded, load_header, store_field};

// Note [Selector thunks]
// ----------------------------------------
// A selector thunk (`fst p`, a field selector, each variable of a lazy
// pattern `let (a, b) = e`) keeps its whole selectee alive until it is
// evaluated, though it needs one field: the classic space leak of lazy
// programs (Wadler, "Fixing some space leaks with a garbage collector",
// 1987). As GHC's `eval_thunk_selector` does, evacuating a selector thunk
// whose selectee is already a constructor (through indirections and
// forwarding pointers) does the selection: the slot is pointed at the
// field, which is evacuated instead, and the selector is not copied or
// marked at all (every slot that points to it gets the same field, since
// the heap does not change during the GC). A chain of selectors whose
// selectees are all evaluated is followed to its end in a loop, not by
// recursion. Only the stop-the-world tracing of the shared `evacuate` does
// this, so every collector's young generations and every in-place marking
// that goes through `evacuate` do; a concurrent marker traces a selector
// as the thunk it is. A selector whose selectee is unevaluated is an
// ordinary thunk. Cost: one closure-type test on the uncommon path.

/// Do the selection of the selector thunk at `p` if its selectee is a
/// constructor (See Note [Selector thunks]): point `slot` at the field
/// and evacuate that; false if the selectee is not evaluated.
///
/// # Safety
/// As for `evacuate`; `p` is a selector thunk in a block being collected.
// SAFETY: the caller's contract above.
pub unsafe fn select(gct: &mut GcThread<'_>, slot: *mut Word, p: *mut Word) -> bool {
    let layout = gct.layout;
    let mut sel = p;
    let mut selected = None;
    loop {
        let field = info_of_header(load_header(sel)).selector_field();
        let Some(value) = constructor_field(layout, *layout.payload(sel) as *mut Word, field) else { break };
        selected = Some(value);
        // A selector selecting a selector: go on while each is ready.
        let next = value as *mut Word;
        let h = load_header(next);
        if is_forwarded(h) || info_of_header(h).closure_type != ClosureType::Selector {
            break;
        }
        sel = next;
    }
    let Some(value) = selected else { return false };
    store_field(slot, value);
    evacuate(gct, slot);
    true
}

/// Field `field` of the constructor that `q` is, through indirections and
/// forwarding pointers; None if `q` is not (yet) a constructor with that
/// field.
// SAFETY: `q` is a valid object address during a GC.
unsafe fn constructor_field(layout: gclab_core::object::Layout, mut q: *mut Word, field: usize) -> Option<Word> {
    loop {
        let h = load_header(q);
        if is_forwarded(h) {
            q = forward_target(h);
            continue;
        }
        let info = info_of_header(h);
        match info.closure_type {
            ClosureType::Ind => q = *layout.payload(q) as *mut Word,
            ClosureType::Constr if field < info.ptrs as usize => return Some(*layout.payload(q).add(field)),
            _ => return None,
        }
    }
}
