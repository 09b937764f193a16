//! The read and write hooks (Note [Access hooks] in `access_hooks`): a
//! collector's read hook sees every reference a mutator loads and what it
//! returns is what the mutator uses; its pre-write hook sees every object
//! before a mutator writes it, byte arrays included. Built only with the
//! `access-hooks` feature (`scripts/test` runs
//! `cargo test -p gclab-core --features access-hooks --test access_hooks`).
#![cfg(feature = "access-hooks")]

use gclab_core::access_hooks::{AccessBarrier, AccessHooks, Installed};
use std::sync::Arc;
use gclab_core::constants::Word;
use gclab_core::info::{InfoTable, StaticObject};
use gclab_core::object::{is_forwarded, load_header};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, Mutator, Rts, RtsFlags};
use std::sync::atomic::{AtomicUsize, Ordering};

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "T", "Hooks");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static BOX: InfoTable = InfoTable::constr("Box", "T", "Hooks", 0, 1);

static LOADS: AtomicUsize = AtomicUsize::new(0);
static BAD_LOADS: AtomicUsize = AtomicUsize::new(0);
static WRITES: AtomicUsize = AtomicUsize::new(0);
/// The read hook hands out `TO` for `FROM` (a to-space copy, as a
/// concurrent copying collector's would).
static FROM: AtomicUsize = AtomicUsize::new(0);
static TO: AtomicUsize = AtomicUsize::new(0);

/// The test's barrier: it counts what it sees in the statics above.
struct Counting;

impl AccessBarrier for Counting {
    fn on_read(&self, p: Word) -> Word {
        read(p)
    }
    fn before_write(&self, obj: *mut Word) {
        pre_write(obj)
    }
}

/// A checking read barrier: every loaded reference must be an object (a
/// valid header that is not a forwarding pointer); `FROM` becomes `TO`.
fn read(p: Word) -> Word {
    LOADS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the runtime calls the hook with a reference it has just
    // loaded from a root or a live object's field, whose header may be
    // read; a forwarded or zero header would be a reference to no object.
    let header = unsafe { load_header(p as *const Word) };
    if header == 0 || is_forwarded(header) {
        BAD_LOADS.fetch_add(1, Ordering::Relaxed);
    }
    if p == FROM.load(Ordering::Relaxed) {
        return TO.load(Ordering::Relaxed);
    }
    p
}

fn pre_write(_obj: *mut Word) {
    WRITES.fetch_add(1, Ordering::Relaxed);
}

/// A collector that only installs the hooks: the test allocates far less
/// than `-A`, so it never collects.
struct HooksOnly;

impl Collector for HooksOnly {
    fn name(&self) -> &'static str {
        "hooks-only"
    }
    fn collect(&mut self, _req: &GcRequest, _ctx: &mut GcContext<'_>) -> GcOutcome {
        panic!("the test allocates less than -A: no GC should happen");
    }
    fn access_hooks(&self) -> AccessHooks {
        AccessHooks::new(Arc::new(Counting))
    }
}

#[test]
fn the_read_hook_sees_every_load_and_the_pre_write_hook_every_write() {
    assert!(Installed::compiled_in());
    let mut flags = RtsFlags::default();
    flags.parse(&["-A64m".to_string()]).unwrap();
    let rts = Rts::new(flags, Box::new(HooksOnly)).unwrap();
    rts.run(|m: &mut Mutator<'_>| {
        let nil = m.static_obj(&NIL);
        let a = m.alloc(&BOX, &[], &[1]);
        let b = m.alloc(&BOX, &[], &[2]);
        let var = m.new_mut_var(a);
        let arr = m.new_array(3, nil);
        let bytes = m.new_byte_array(64);
        let (writes, loads) = (WRITES.load(Ordering::Relaxed), LOADS.load(Ordering::Relaxed));
        // Every write is seen once, byte arrays' too.
        for i in 0..3 {
            m.array_set(arr, i, b);
        }
        m.write_mut_var(var, a);
        for i in 0..8 {
            m.byte_array_write(bytes, i, i as u64);
        }
        assert_eq!(WRITES.load(Ordering::Relaxed) - writes, 3 + 1 + 8);
        // Loads: through the mutator and through a view.
        let got = m.read_mut_var(var);
        assert_eq!(m.word(got, 0), 1);
        let e = m.array_get(arr, 2);
        assert_eq!(m.word(e, 0), 2);
        let view = m.view();
        assert_eq!(view.get(var).field(0).word(0), 1);
        assert!(LOADS.load(Ordering::Relaxed) - loads >= 5, "the loads were not all seen");
        // A weak pointer's key is a load too.
        let w = m.new_weak(a, a, None);
        let loads = LOADS.load(Ordering::Relaxed);
        let key = m.deref_weak(w).expect("a is alive");
        assert_eq!(m.word(key, 0), 1);
        assert!(LOADS.load(Ordering::Relaxed) > loads, "deref_weak's key was not seen");
        let view = m.view();
        // What the hook returns is what the mutator uses: `a` reads as `b`.
        let (pa, pb) = (view.get(a).addr(), view.get(b).addr());
        FROM.store(pa, Ordering::Relaxed);
        TO.store(pb, Ordering::Relaxed);
        let got = m.read_mut_var(var);
        assert_eq!(m.word(got, 0), 2, "the read hook's answer was not used");
        FROM.store(0, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(BAD_LOADS.load(Ordering::Relaxed), 0, "a loaded reference was not an object");
    rts.finish().unwrap();
}
