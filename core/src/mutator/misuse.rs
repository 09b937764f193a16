//! The panics of a misused mutator API: a stack slot above the stack's
//! depth, a field an object does not have, a thunk that is not one. Each
//! is a function of its own, never inlined, so that the test before it
//! is all that the hot path carries.
//!
//! Note [Panics out of line]
//! ----------------------------------------
//! Every slot an interpreter reads or writes through its `Frame` is
//! tested against the stack's depth, and every field against the
//! object's info table; a failed test panics with what was wrong. Written
//! as `assert!(i < depth, "... {i} ... {depth}")`, the compiler stored the
//! message's arguments (the slot and the depth) to the machine stack
//! before the test, on the hot path, so each of the 150-200 slot
//! accesses of an element of `selector_leak` paid two stores beside its
//! compare. With the panic a cold function taking its arguments in
//! registers, the test is a compare and a branch not taken. Measured with
//! cachegrind for the slot test alone: selector_leak 200,000 689.7M to
//! 667.2M instructions (0.967x), lalr 10 501.0M to 485.0M, binary_trees
//! 12 2,503M to 2,451M. The handle API's tests the same way (an array's
//! index, an object's fields, a checked type), the workloads' mutator
//! instructions (`scripts/ab --instructions`): fibheaps 20000 0.949x,
//! lru 20000 0.936x, mutable-graph 0.914x, gcbench 14 0.986x,
//! binary-trees 14 1.000x. The alternative, dropping the tests in release
//! builds, would make a wrong slot index in an interpreter undefined
//! behaviour instead of a panic that names it.

use crate::info::InfoTable;

/// Slot `i` read or written above the stack's depth.
#[cold]
#[inline(never)]
pub(super) fn slot_not_live(i: usize, depth: usize) -> ! {
    panic!("stack slot {i} is not live (depth {depth})")
}

/// Slots `from..to` named where the stack's depth is `depth`.
#[cold]
#[inline(never)]
pub(super) fn slots_not_live(from: usize, to: usize, depth: usize) -> ! {
    panic!("stack slots {from}..{to} are not live (depth {depth})")
}

/// Slots `from..from + n` slid down to `to`, where `to` is above `from`
/// or the slots are not all live.
#[cold]
#[inline(never)]
pub(super) fn bad_slide(from: usize, to: usize, n: usize, depth: usize) -> ! {
    panic!("sliding slots {from}..{} down to {to} (depth {depth})", from + n)
}

/// A thunk's frame of `frame` slots opened for its `free` free variables.
#[cold]
#[inline(never)]
pub(super) fn frame_smaller_than_free(frame: usize, free: usize) -> ! {
    panic!("a frame of {frame} slots for a thunk with {free} free variables")
}

/// A pop to `to`, above the stack's depth.
#[cold]
#[inline(never)]
pub(super) fn pop_above(to: usize, depth: usize) -> ! {
    panic!("popping to {to}, above the stack (depth {depth})")
}

/// Pointer field `i` of an object of `info`, which has fewer.
#[cold]
#[inline(never)]
pub(super) fn no_pointer_field(info: &InfoTable, i: usize) -> ! {
    panic!("{}: no pointer field {i}", info.name)
}

/// Non-pointer word `w` of an object of `info`, which has fewer.
#[cold]
#[inline(never)]
pub(super) fn no_word(info: &InfoTable, w: usize) -> ! {
    panic!("{}: no word {w}", info.name)
}

/// An object of `info` made with other numbers of fields than it has.
#[cold]
#[inline(never)]
pub(super) fn wrong_fields(info: &InfoTable) -> ! {
    panic!("{}: wrong number of fields", info.name)
}

/// An object of `info` treated as a thunk (with `free` free variables).
#[cold]
#[inline(never)]
pub(super) fn not_a_thunk(info: &InfoTable) -> ! {
    panic!("{}: not a thunk", info.name)
}

/// A thunk of `info` black-holed with a black hole of `words` payload words.
#[cold]
#[inline(never)]
pub(super) fn wrong_blackhole(info: &InfoTable, words: usize) -> ! {
    panic!("{}: a black hole of {words} payload words for a thunk of {}", info.name, info.payload_words().max(1))
}

/// Element `i` of an array of `n`.
#[cold]
#[inline(never)]
pub(super) fn index_out_of_bounds(i: usize, n: usize) -> ! {
    panic!("array index {i} out of bounds (length {n})")
}

/// Word `word` of a byte array of `len` bytes.
#[cold]
#[inline(never)]
pub(super) fn byte_word_out_of_bounds(word: usize, len: usize) -> ! {
    panic!("byte array word {word} out of bounds ({len} bytes)")
}

/// An object of `info` where `what` was expected.
#[cold]
#[inline(never)]
pub(super) fn wrong_type(what: &str, info: &InfoTable) -> ! {
    panic!("expected {what}, found {}", info.name)
}

/// The first `n` pointer fields of an object of `info`, which has fewer.
#[cold]
#[inline(never)]
pub(super) fn fewer_pointer_fields(info: &InfoTable, n: usize) -> ! {
    panic!("{}: fewer than {n} pointer fields", info.name)
}
