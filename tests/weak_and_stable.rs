//! Weak pointers, finalisers and stable pointers, and the sanity checker's
//! power to notice a broken invariant.

use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static BOX: InfoTable = InfoTable::constr("Box", "Box", "Test", 1, 1);

fn with_rts(rts_flags: &str, collector: &str, body: impl FnOnce(&mut Mutator<'_>)) {
    let rts = gclab::runtime(rts_flags, collector).unwrap();
    rts.run(body).unwrap();
}

fn boxed(m: &mut Mutator<'_>, v: usize) -> Handle {
    let unit = m.static_obj(&UNIT);
    let b = m.alloc(&BOX, &[unit], &[v]);
    let base = b.index() - 1;
    m.ret(base, b)
}

const CONFIGS: [(&str, &str); 5] = [
    ("-A8k -DS", "copying"),
    ("-A8k -G3 -DS", "copying"),
    ("-A8k -G1 -DS", "two-space"),
    ("-A8k -c -DS", "compacting"),
    ("-A8k -c -G3 -DS", "compacting"),
];

#[test]
fn weak_pointer_lives_while_its_key_does_then_finalises_once() {
    for (f, c) in CONFIGS {
        let ran = Arc::new(AtomicU64::new(0));
        let seen = ran.clone();
        with_rts(f, c, move |m| {
            let key = boxed(m, 7);
            let value = boxed(m, 99);
            let fin: gclab_core::Finalizer = Box::new(move |m, v| {
                seen.store(m.word(v, 0) as u64, Ordering::SeqCst);
            });
            let weak = m.new_weak(key, value, Some(fin));
            m.perform_gc(false);
            m.perform_gc(true);
            let k = m.deref_weak(weak).expect("key still reachable");
            assert_eq!(m.word(k, 0), 7);
            assert_eq!(ran.load(Ordering::SeqCst), 0, "finaliser ran while the key was alive");
            // Drop every handle to the key and the value.
            let unit = m.static_obj(&UNIT);
            m.set(key, unit);
            m.set(value, unit);
            m.set(k, unit);
            m.perform_gc(true);
            assert!(m.deref_weak(weak).is_none(), "{f}: weak still alive after its key died");
            assert_eq!(ran.load(Ordering::SeqCst), 99, "{f}: finaliser did not run with the value");
            m.perform_gc(true);
            assert_eq!(ran.load(Ordering::SeqCst), 99);
        });
    }
}

#[test]
fn a_weak_pointer_does_not_keep_its_key_alive_even_from_an_old_generation() {
    for (f, c) in CONFIGS {
        with_rts(f, c, |m| {
            let key = boxed(m, 1);
            let weak = m.new_weak(key, key, None);
            m.perform_gc(true); // promote both
            m.perform_gc(true);
            let unit = m.static_obj(&UNIT);
            m.set(key, unit);
            m.perform_gc(true);
            assert!(m.deref_weak(weak).is_none(), "{f}: the weak pointer kept its key alive");
        });
    }
}

#[test]
fn stable_pointers_are_roots_and_follow_moves() {
    for (f, c) in CONFIGS {
        with_rts(f, c, |m| {
            let base = m.depth();
            let b = boxed(m, 12345);
            let sp = m.new_stable_ptr(b);
            m.truncate(base);
            for i in 0..2000 {
                let d = m.depth();
                boxed(m, i); // garbage to force GCs
                m.truncate(d);
            }
            m.perform_gc(true);
            let again = m.deref_stable_ptr(sp);
            assert_eq!(m.word(again, 0), 12345, "{f}: stable pointer lost its object");
            m.free_stable_ptr(sp);
            m.perform_gc(true);
        });
    }
}

#[test]
fn the_sanity_checker_notices_a_forgotten_remembered_set() {
    with_rts("-A8k", "copying", |m| {
        let unit = m.static_obj(&UNIT);
        let var = m.new_mut_var(unit);
        m.perform_gc(true);
        m.perform_gc(true);
        assert_eq!(m.generation_of(var), Some(1), "the variable should be old by now");
        let young = boxed(m, 5);
        m.write_mut_var(var, young);
        m.check_heap().expect("the write barrier recorded the old-to-young store");
        m.debug_forget_remembered_set();
        let errors = m.check_heap().expect_err("an unrecorded old-to-young pointer must be reported");
        assert!(errors.iter().any(|e| e.contains("not remembered")), "{errors:?}");
    });
}

#[test]
fn card_marks_cover_old_to_young_array_stores() {
    with_rts("-A8k -DS", "copying", |m| {
        let unit = m.static_obj(&UNIT);
        let arr = m.new_array(5000, unit);
        assert!(m.is_large(arr));
        m.perform_gc(true);
        m.perform_gc(true);
        assert_eq!(m.generation_of(arr), Some(1));
        for i in (0..5000).step_by(700) {
            let d = m.depth();
            let y = boxed(m, i);
            m.array_set(arr, i, y);
            m.truncate(d);
        }
        m.perform_gc(false);
        for i in (0..5000).step_by(700) {
            let d = m.depth();
            let e = m.array_get(arr, i);
            assert_eq!(m.word(e, 0), i);
            m.truncate(d);
        }
    });
}

/// A compaction leaves alone the blocks that keep their place and whose
/// objects point only into such blocks (Note [Blocks whose pointers stay
/// put] in the collectors' `reach`). Here a weak pointer sits in the first
/// old block, which stays put, and its key moves down into that block's
/// tail when the garbage between them dies: the weak pointer must follow
/// its key. (The block is visited because a weak pointer's block always
/// is; with that rule taken out this test still passed, so the weak's
/// key is fixed by another path too, not found; the graph-model test is
/// the one that fails when the recorded reach is ignored.)
#[test]
fn a_weak_pointer_in_a_block_that_stays_put_follows_its_moving_key() {
    with_rts("-A4m -c -DS", "compacting", |m| {
        let fillers: Vec<Handle> = (0..20).map(|i| boxed(m, i)).collect();
        let key = boxed(m, 7);
        let value = boxed(m, 99);
        let weak = m.new_weak(key, value, None);
        let garbage: Vec<Handle> = (0..2000).map(|i| boxed(m, i)).collect();
        // The key and the value, copied after the garbage.
        let (key_late, value_late) = (boxed(m, 0), boxed(m, 0));
        m.set(key_late, key);
        m.set(value_late, value);
        let unit = m.static_obj(&UNIT);
        m.set(key, unit);
        m.set(value, unit);
        // Everything reaches the old generation, in this order.
        for _ in 0..3 {
            m.perform_gc(true);
        }
        for g in garbage {
            m.set(g, unit);
        }
        for _ in 0..3 {
            m.perform_gc(true);
            let k = m.deref_weak(weak).expect("the key is still reachable");
            assert!(m.same(k, key_late), "the weak pointer's key is the key itself, where it moved");
            assert_eq!(m.word(k, 0), 7, "the weak pointer's key after a compaction");
        }
        assert_eq!(fillers.len(), 20);
    });
}
