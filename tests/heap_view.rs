//! The read-only heap view (`HeapView`, `ObjRef`) checks every index
//! against the object's info table or length: a wrong index is a panic
//! that names it, never a read outside the object.

use gclab::flags;
use gclab_core::{InfoTable, Mutator, Rts, StaticObject};
use std::panic::{catch_unwind, AssertUnwindSafe};

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 1);

fn with_mutator(body: impl FnOnce(&mut Mutator<'_>)) {
    let f = flags("-A8k").unwrap();
    let rts = Rts::new(f.clone(), gclab_collectors::by_name("copying").unwrap().make(&f).unwrap()).unwrap();
    rts.run(body).unwrap();
}

/// The message of the panic `f` raises (None if it returns).
fn panic_message(f: impl FnOnce()) -> Option<String> {
    let err = catch_unwind(AssertUnwindSafe(f)).err()?;
    err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
}

#[test]
fn fields_and_words_inside_the_object_are_read() {
    with_mutator(|m| {
        let unit = m.static_obj(&UNIT);
        let inner = m.alloc(&PAIR, &[unit, unit], &[7]);
        let outer = m.alloc(&PAIR, &[inner, unit], &[8]);
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
