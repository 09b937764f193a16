//! Partial collections (the collectors' `partial`, Note [Increments] in
//! `from_space`), through the `older-first` example collector
//! (`examples/older_first`), which is written outside gclab's crates with
//! no `unsafe`: it conforms on every workload under the stress settings,
//! really collects increments (fewer full collections than copying, the
//! same checksums), and weak pointers and finalisers whose objects lie in
//! an increment follow.

#[path = "../examples/older_first/collector.rs"]
mod collector;

use collector::{OlderFirst, OLDER_FIRST};
use gclab::conformance::{check_collector, run_with, STRESS_SETTINGS};
use gclab_core::{Handle, InfoTable, Mutator, Rts, StaticObject};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn older_first_conforms_under_stress() {
    let c = check_collector(&OLDER_FIRST, STRESS_SETTINGS).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.gcs > 10_000, "only {} GCs", c.gcs);
}

#[test]
fn increments_are_collected_instead_of_the_whole_generation() {
    let copying = gclab_collectors::by_name("copying").unwrap();
    for (workload, args) in [("binary-trees", &[14][..]), ("lru", &[10000, 100000, 64][..]), ("gcbench", &[14][..])] {
        let w = gclab_workloads::by_name(workload).unwrap();
        let full = run_with(copying, w, args, "-A64k --sanity=minor").unwrap();
        let partial = run_with(&OLDER_FIRST, w, args, "-A64k --sanity=minor").unwrap();
        assert_eq!(full.checksum, partial.checksum, "{workload}");
        assert!(partial.stats.major_gcs < full.stats.major_gcs, "{workload}: older-first made {} full collections, copying {}", partial.stats.major_gcs, full.stats.major_gcs);
        assert!(partial.stats.partial_gcs > 0 && full.stats.partial_gcs == 0, "{workload}: {} partial collections", partial.stats.partial_gcs);
        let text = gclab_core::report::summary(&partial.stats, 1);
        assert!(text.contains(&format!("{} partial collections", partial.stats.partial_gcs)), "{text}");
    }
}

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static BOX: InfoTable = InfoTable::constr("Box", "Box", "Test", 1, 1);

fn boxed(m: &mut Mutator<'_>, v: usize) -> Handle {
    let unit = m.static_obj(&UNIT);
    let b = m.alloc(&BOX, &[unit], &[v]);
    let base = b.index() - 1;
    m.ret(base, b)
}

/// Weak pointers promoted to the oldest generation, half of whose keys
/// then die, while the program allocates enough for the policy to ask
/// for major GCs, which older-first makes partial ones: a live key's weak
/// pointer still gives its key, a dead key's is finalised once, with its
/// value, whether it lay in an increment or not; the sanity checker runs
/// after every GC.
#[test]
fn weak_pointers_in_an_increment_are_judged_by_their_keys() {
    const N: usize = 600;
    for rts in ["-A8k -DS", "-A8k -G3 -DS"] {
        let finalised = Arc::new(AtomicUsize::new(0));
        let f = gclab::flags(rts).unwrap();
        let r = Rts::new(f, Box::new(OlderFirst::default())).unwrap();
        let seen = finalised.clone();
        r.run(move |m| {
            let mut keys = Vec::new();
            let mut weaks = Vec::new();
            for i in 0..N {
                let key = boxed(m, i);
                let value = boxed(m, 1000 + i);
                let seen = seen.clone();
                let fin: gclab_core::Finalizer = Box::new(move |m, v| {
                    assert_eq!(m.word(v, 0) % 2, 1, "only odd keys die");
                    seen.fetch_add(1, Ordering::SeqCst);
                });
                weaks.push(m.new_weak(key, value, Some(fin)));
                keys.push(key);
            }
            m.perform_gc(true);
            m.perform_gc(true);
            let unit = m.static_obj(&UNIT);
            for (i, &k) in keys.iter().enumerate() {
                if i % 2 == 1 {
                    m.set(k, unit);
                }
            }
            // Old data that lives a while, then dies, and young garbage:
            // the old generation fills and the policy asks for majors.
            let mut batch = m.depth();
            for round in 0..60 {
                for j in 0..400 {
                    let d = m.depth();
                    boxed(m, j);
                    if j % 4 != 0 {
                        m.truncate(d);
                    }
                }
                if round % 10 == 9 {
                    m.truncate(batch);
                    batch = m.depth();
                }
                let d = m.depth();
                for (i, &w) in weaks.iter().enumerate().step_by(37) {
                    if i % 2 == 0 {
                        let k = m.deref_weak(w).expect("a live key's weak pointer stays");
                        assert_eq!(m.word(k, 0), i);
                    }
                }
                m.truncate(d);
            }
            m.perform_gc(true);
            for (i, &w) in weaks.iter().enumerate() {
                assert_eq!(m.deref_weak(w).is_some(), i % 2 == 0, "weak {i}");
            }
        })
        .unwrap();
        let stats = r.finish().unwrap();
        assert!(stats.partial_gcs > 0, "{rts}: no partial GC happened");
        assert_eq!(finalised.load(Ordering::SeqCst), N / 2, "{rts}: each dead key's finaliser runs once");
    }
}

#[test]
fn the_examples_experiment_loads_with_its_registry() {
    let mut registry = gclab_collectors::Registry::builtin();
    registry.register(OLDER_FIRST).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/older_first/older-first.toml");
    let exp = gclab_experiments::experiment::Experiment::load(&path, &registry).unwrap_or_else(|e| panic!("{e}"));
    assert!(exp.runs().iter().any(|r| r.collector == "older-first"));
}
