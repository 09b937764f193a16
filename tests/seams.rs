//! The heap objects an interpreter of a lazy language needs, under every
//! collector and the stress settings, with the sanity checker after every
//! GC: evaluation stacks (values kept only in a STACK survive and move
//! with their objects; the dirty-stack barrier keeps old stacks' young
//! pointers), black holes and updates, and selector thunks (the GC
//! selects when the selectee is evaluated, so the rest of the selectee
//! dies: a weak pointer to it says so).

use gclab_core::info::{InfoTable, NULL_OBJECT};
use gclab_core::{Mutator, Rts};

static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Seams", 2, 0);
static BOX: InfoTable = InfoTable::constr("Box", "Box", "Seams", 0, 1);
static THUNK: InfoTable = InfoTable::interpreted_thunk("t", "Box", "Seams", 1, 0);
static THUNK_BH: InfoTable = InfoTable::blackhole(1);
static FST: InfoTable = InfoTable::selector(0, "Seams");

const SETTINGS: &[&str] = &["-A8k -DS", "--gc-every=1 -A8k -DS", "-A8k -G3 -O8k -F1 -DS", "-A8k -G3 --sanity=minor:4"];

fn each_collector(program: impl Fn(&mut Mutator<'_>) + Copy) {
    for entry in gclab_collectors::COLLECTORS {
        for setting in SETTINGS {
            let rts = format!("{setting} {}", entry.flags);
            let f = gclab::flags(&rts).unwrap();
            let r = Rts::new(f.clone(), entry.make(&f).unwrap()).unwrap();
            r.run(program).unwrap_or_else(|e| panic!("{} +RTS {rts}: {e}", entry.name));
            let stats = r.finish().unwrap();
            assert!(stats.gcs > 0, "{} +RTS {rts}: no GC", entry.name);
        }
    }
}

/// A boxed word.
fn boxed(m: &mut Mutator<'_>, v: usize) -> gclab_core::Handle {
    m.alloc(&BOX, &[], &[v])
}

#[test]
fn values_kept_only_on_an_evaluation_stack_survive_every_collector() {
    each_collector(|m| {
        let base = m.depth();
        let st = m.new_stack(4);
        // Push far past the first capacity (the stack grows), with garbage
        // between, and GCs forced along the way.
        for i in 0..3000usize {
            let b = boxed(m, i);
            m.stack_push(st, b).unwrap();
            m.truncate(st.index() + 1);
            boxed(m, usize::MAX);
            m.truncate(st.index() + 1);
            if i % 500 == 0 {
                m.perform_gc(i % 1000 == 0);
            }
        }
        assert_eq!(m.stack_depth(st), 3000);
        // Pairs of slots, made from the stack alone.
        for i in 0..1000usize {
            m.stack_alloc(st, i, &PAIR, &[i, 2999 - i], &[]).unwrap();
        }
        m.perform_gc(true);
        for i in 0..1000usize {
            m.stack_field(st, 2999, i, 1);
            assert_eq!(m.stack_word(st, 2999, 0), 2999 - i);
        }
        for i in 1000..2999usize {
            assert_eq!(m.stack_word(st, i, 0), i);
        }
        m.stack_pop_to(st, 10);
        m.perform_gc(true);
        assert_eq!(m.stack_depth(st), 10);
        m.truncate(base);
    });
}

#[test]
fn a_thunk_is_black_holed_then_updated_under_every_collector() {
    each_collector(|m| {
        let base = m.depth();
        let st = m.new_stack(8);
        let seed = boxed(m, 7);
        m.stack_push(st, seed).unwrap();
        m.stack_alloc(st, 1, &THUNK, &[0], &[]).unwrap();
        assert_eq!(m.stack_info(st, 1).closure_type, gclab_core::info::ClosureType::Thunk);
        m.stack_blackhole(st, 1, &THUNK_BH);
        assert_eq!(m.stack_info(st, 1).closure_type, gclab_core::info::ClosureType::Blackhole);
        m.perform_gc(false);
        let v = boxed(m, 42);
        m.stack_push(st, v).unwrap();
        m.stack_update(st, 1, 2);
        m.perform_gc(true);
        // Through the indirection, the value.
        assert_eq!(m.stack_word(st, 1, 0), 42);
        m.truncate(base);
    });
}

#[test]
fn the_gc_selects_from_an_evaluated_selectee_and_the_rest_of_it_dies() {
    each_collector(|m| {
        let base = m.depth();
        let st = m.new_stack(8);
        let keep = boxed(m, 1);
        let big = m.new_byte_array(64 << 10);
        let weak = m.new_weak(big, big, None);
        let pair = m.alloc(&PAIR, &[keep, big], &[]);
        m.stack_push(st, pair).unwrap();
        m.stack_alloc(st, 1, &FST, &[0], &[]).unwrap();
        // Only the selector now holds the pair.
        m.stack_copy(st, 0, 1);
        m.stack_pop_to(st, 1);
        let nil = m.static_obj(&NULL_OBJECT);
        for h in [keep, big, pair] {
            m.set(h, nil);
        }
        m.perform_gc(true);
        m.perform_gc(true);
        assert_eq!(m.stack_word(st, 0, 0), 1, "the slot holds the selected field");
        assert!(m.deref_weak(weak).is_none(), "the selectee's other field died with the selection");
        m.truncate(base);
    });
}

/// A frame pinned for a long stretch (as the interpreter pins its stack
/// for a whole run; See Note [Pinned frames] in core's `mutator::frame`)
/// follows its stack through GCs run by its own allocations and by the
/// mutator it lends, and its plain stores keep the dirty-stack rule: the
/// stack, old and clean after a major GC, takes young values and the
/// minor GCs after keep them (the sanity checker runs after each).
#[test]
fn a_pinned_frame_follows_its_stack_through_gcs() {
    each_collector(|m| {
        let base = m.depth();
        let st = m.new_stack(4);
        let mut f = m.frame(st);
        for i in 0..2000usize {
            let d = f.depth();
            f.alloc(d, &BOX, &[], &[i]).unwrap();
            if i % 400 == 0 {
                f.mutator().perform_gc(i % 800 == 0);
            }
        }
        f.mutator().perform_gc(true);
        // Old and clean now: overwrite slots with young values, plainly
        // after the first store, then pairs of them.
        for i in 0..1000usize {
            f.alloc(i, &BOX, &[], &[i + 10_000]).unwrap();
        }
        for i in 0..500usize {
            f.alloc(i, &PAIR, &[1000 + i, 500 + i], &[]).unwrap();
        }
        f.mutator().perform_gc(false);
        for i in 0..500usize {
            let top = f.depth() - 1;
            f.field(top, i, 0);
            assert_eq!(f.word(top, 0), 1000 + i);
            f.field(top, i, 1);
            assert_eq!(f.word(top, 0), 10_500 + i);
        }
        for i in 1000..1999usize {
            assert_eq!(f.word(i, 0), i);
        }
        f.pop_to(0);
        m.truncate(base);
    });
}
