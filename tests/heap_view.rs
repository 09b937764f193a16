//! The read-only heap view (`HeapView`, `ObjRef`) checks every index
//! against the object's info table or length: a wrong index is a panic
//! that names it, never a read outside the object.

use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::panic::{catch_unwind, AssertUnwindSafe};

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 1);

fn with_mutator(body: impl FnOnce(&mut Mutator<'_>)) {
    let rts = gclab::runtime("-A8k", "copying").unwrap();
    rts.run(body).unwrap();
}

/// The message of the panic `f` raises (None if it returns).
fn panic_message(f: impl FnOnce()) -> Option<String> {
    let err = catch_unwind(AssertUnwindSafe(f)).err()?;
    err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
}

/// A Pair holding 7 inside a Pair holding 8, each with Unit as its other
/// field: (inner, outer).
fn nested_pairs(m: &mut Mutator<'_>) -> (Handle, Handle) {
    let unit = m.static_obj(&UNIT);
    let inner = m.alloc(&PAIR, &[unit, unit], &[7]);
    let outer = m.alloc(&PAIR, &[inner, unit], &[8]);
    (inner, outer)
}

#[test]
fn fields_and_words_inside_the_object_are_read() {
    with_mutator(|m| {
        let (inner, outer) = nested_pairs(m);
        let view = m.view();
        let o = view.get(outer);
        assert_eq!(o.word(0), 8);
        assert_eq!(o.field(0).word(0), 7);
        assert!(o.field(1).is_static());
        assert!(o.field(0).field(1).is_static());
        assert!(o.field(0).same(view.get(inner)));
    });
}

#[test]
fn an_index_past_the_fields_is_refused_by_name() {
    with_mutator(|m| {
        let unit = m.static_obj(&UNIT);
        let pair = m.alloc(&PAIR, &[unit, unit], &[1]);
        let view = m.view();
        let p = view.get(pair);
        let msg = panic_message(|| {
            p.field(2);
        });
        assert_eq!(msg.as_deref(), Some("Pair: no pointer field 2"));
        let msg = panic_message(|| {
            p.word(1);
        });
        assert!(msg.is_some(), "word 1 of a Pair with one word must be refused");
        let msg = panic_message(|| {
            p.array_len();
        });
        assert!(msg.is_some(), "a Pair is not an array");
    });
}

#[test]
fn fields_gives_the_first_pointer_fields_and_refuses_more_than_there_are() {
    with_mutator(|m| {
        let (inner, outer) = nested_pairs(m);
        let view = m.view();
        let o = view.get(outer);
        let [first, second] = o.fields();
        assert!(first.same(view.get(inner)) && first.word(0) == 7);
        assert!(second.is_static());
        let [only] = o.fields::<1>();
        assert!(only.same(first));
        let msg = panic_message(|| {
            o.fields::<3>();
        });
        assert_eq!(msg.as_deref(), Some("Pair: fewer than 3 pointer fields"));
    });
}

#[test]
fn a_frame_returns_its_result_in_its_first_slot_or_pushes_it_when_empty() {
    with_mutator(|m| {
        let unit = m.static_obj(&UNIT);
        let below = m.depth();
        // A frame holding handles: the result takes the frame's first slot.
        let base = m.depth();
        let a = m.alloc(&PAIR, &[unit, unit], &[1]);
        let b = m.alloc(&PAIR, &[a, unit], &[2]);
        let r = m.alloc_ret(base, &PAIR, &[b, a], &[3]);
        assert_eq!((m.depth(), r.index()), (base + 1, base));
        assert_eq!(m.view().get(r).field(0).word(0), 2);
        // An empty frame: the result is pushed.
        let base = m.depth();
        let r2 = m.alloc_ret(base, &PAIR, &[r, unit], &[4]);
        assert_eq!((m.depth(), r2.index()), (base + 1, base));
        // `ret` of a handle from below an empty frame pushes it too.
        let base = m.depth();
        let again = m.ret(base, r);
        assert_eq!(m.depth(), base + 1);
        assert!(m.view().get(again).same(m.view().get(r)));
        m.truncate(below);
    });
}

#[test]
fn follow_steps_a_handle_to_its_field_in_place_and_refuses_a_field_past_the_end() {
    with_mutator(|m| {
        let (inner, outer) = nested_pairs(m);
        let h = m.dup(outer);
        m.perform_gc(false); // the handles are roots: they follow the moved objects
        let depth = m.depth();
        m.follow(h, 0);
        assert_eq!(m.depth(), depth, "no new slot");
        assert!(m.same(h, inner) && m.word(h, 0) == 7);
        assert_eq!(m.word(outer, 0), 8, "the other handles are untouched");
        m.follow(h, 1);
        assert!(m.is_static(h));
        let h = m.dup(outer);
        let msg = panic_message(|| m.follow(h, 2));
        assert_eq!(msg.as_deref(), Some("Pair: no pointer field 2"));
    });
}

#[test]
fn alloc_into_puts_the_new_object_in_its_handles_slot_after_reading_the_fields() {
    with_mutator(|m| {
        let unit = m.static_obj(&UNIT);
        let list = m.dup(unit);
        let depth = m.depth();
        for i in 0..1000 {
            // `list` is both a field of the new cell and where it goes.
            m.alloc_into(list, &PAIR, &[list, unit], &[i]);
        }
        assert_eq!(m.depth(), depth, "no new slot");
        let (mut cell, mut expect, mut cells) = (m.view().get(list), 999, 0);
        while !cell.is_static() {
            assert_eq!(cell.word(0), expect);
            (cell, expect, cells) = (cell.field(0), expect.wrapping_sub(1), cells + 1);
        }
        assert_eq!(cells, 1000, "every cell points at the one made before it");
    });
}
