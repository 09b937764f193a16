//! The OCaml-style `Gc` API, each function against its documented meaning
//! (seed 004), under every registered collector with the sanity checker on.

use gclab::flags;
use gclab_collectors::COLLECTORS;
use gclab_core::gc::{self, memprof, GcError};
use gclab_core::{Handle, InfoTable, Mutator, Rts, StaticObject};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "Test");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static INT: InfoTable = InfoTable::constr("I#", "Int", "Test", 0, 1);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 0);

/// Run `body` under every registered collector (with its required flags,
/// `-A64k` and `-DS`), passing the collector's name.
fn under_every_collector(body: impl Fn(&mut Mutator<'_>, &str)) {
    for entry in COLLECTORS {
        let f = flags(&format!("-A64k -DS {}", entry.flags)).unwrap();
        let rts = Rts::new(f.clone(), entry.make(&f).unwrap()).unwrap();
        rts.run(|m| body(m, entry.name)).unwrap();
        let s = rts.stats();
        assert_eq!(rts.sanity_checks(), s.gcs + s.collector_syncs, "{}: a GC or sync went unchecked", entry.name);
    }
}

fn int(m: &mut Mutator<'_>, v: usize) -> Handle {
    m.alloc(&INT, &[], &[v])
}

#[test]
fn counters_grow_by_exactly_the_words_allocated() {
    under_every_collector(|m, name| {
        let (minor0, promoted0, major0) = gc::counters(m);
        let base = m.depth();
        for i in 0..10_000 {
            let d = m.depth();
            int(m, i);
            m.truncate(d);
        }
        m.truncate(base);
        let (minor1, promoted1, major1) = gc::counters(m);
        let words = 10_000.0 * m.layout().fixed_size(&INT) as f64;
        assert_eq!(minor1 - minor0, words, "{name}: minor_words");
        assert_eq!(gc::minor_words(m), minor1);
        assert_eq!(major1 - promoted1, major0 - promoted0, "{name}: major_words = promoted_words");
        assert_eq!(gc::allocated_bytes(m), minor1 * 8.0, "{name}: allocated_bytes");
    });
}

#[test]
fn minor_adds_one_collection_and_promotion_is_counted() {
    under_every_collector(|m, name| {
        let before = gc::quick_stat(m);
        gc::minor(m);
        let after = gc::quick_stat(m);
        assert_eq!(after.minor_collections, before.minor_collections + 1, "{name}");
        // Something long-lived gets promoted (unless there is one generation).
        let keep = m.depth();
        for i in 0..2000 {
            let v = int(m, i);
            let _ = v;
        }
        gc::full_major(m);
        let s = gc::quick_stat(m);
        if name != "two-space" {
            assert!(s.promoted_words >= 2000.0 * 2.0, "{name}: promoted {}", s.promoted_words);
        }
        assert_eq!(s.forced_major_collections, 2, "{name}: full_major is two forced major GCs");
        m.truncate(keep);
    });
}

#[test]
fn full_major_leaves_live_words_as_the_sanity_checker_counts() {
    under_every_collector(|m, name| {
        let base = m.depth();
        let unit = m.static_obj(&UNIT);
        let list = m.dup(unit);
        for i in 0..5000 {
            let v = int(m, i);
            let cell = m.alloc(&PAIR, &[v, list], &[]);
            m.set(list, cell);
            m.truncate(list.index() + 1);
            if i % 3 == 0 {
                int(m, i); // garbage
                m.truncate(list.index() + 1);
            }
        }
        gc::full_major(m);
        let s = gc::stat(m);
        let report = m.check_heap().unwrap();
        assert_eq!(s.live_words as usize, report.words, "{name}: live_words");
        assert_eq!(s.live_blocks as usize, report.objects, "{name}: live_blocks");
        assert!(s.live_words >= 5000 * 5, "{name}: the list is live");
        let q = gc::quick_stat(m);
        assert_eq!((q.live_words, q.live_blocks, q.free_words, q.free_blocks, q.fragments), (0, 0, 0, 0, 0), "{name}: quick_stat does not walk");
        assert_eq!(q.minor_collections, s.minor_collections);
        assert!(s.heap_chunks >= 1 && s.top_heap_words >= s.heap_words);
        let mut text = Vec::new();
        gc::print_stat(m, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains(&format!("live_words:     {}", s.live_words)), "{text}");
        m.truncate(base);
    });
}

#[test]
fn finalisers_of_values_dying_together_run_in_reverse_order() {
    under_every_collector(|m, name| {
        let order = Arc::new(Mutex::new(Vec::new()));
        let base = m.depth();
        for i in 1..=3 {
            let v = int(m, i);
            let log = order.clone();
            gc::finalise(m, Box::new(move |m, v| log.lock().unwrap().push(m.word(v, 0))), v).unwrap();
        }
        m.truncate(base);
        gc::full_major(m);
        assert_eq!(*order.lock().unwrap(), vec![3, 2, 1], "{name}: reverse order of finalise calls");
    });
}

#[test]
fn finalise_last_runs_after_finalise_and_after_weak_pointers_are_cleared() {
    under_every_collector(|m, name| {
        let events = Arc::new(Mutex::new(Vec::<String>::new()));
        let base = m.depth();
        let v = int(m, 5);
        let weak = m.new_weak(v, v, None);
        let weak_sp = m.new_stable_ptr(weak);
        let log = events.clone();
        gc::finalise_last(m, Box::new(move |m| {
            let w = m.deref_stable_ptr(weak_sp);
            let cleared = m.deref_weak(w).is_none();
            log.lock().unwrap().push(format!("last weak_cleared={cleared}"));
        }), v)
        .unwrap();
        let log = events.clone();
        gc::finalise(m, Box::new(move |m, v| log.lock().unwrap().push(format!("finalise {}", m.word(v, 0)))), v).unwrap();
        m.truncate(base);
        gc::full_major(m);
        assert_eq!(*events.lock().unwrap(), vec!["finalise 5".to_string(), "last weak_cleared=true".to_string()], "{name}");
    });
}

#[test]
fn finalising_a_static_value_is_invalid_argument() {
    under_every_collector(|m, _| {
        let unit = m.static_obj(&UNIT);
        assert!(matches!(gc::finalise(m, Box::new(|_, _| {}), unit), Err(GcError::InvalidArgument(_))));
        assert!(matches!(gc::finalise_last(m, Box::new(|_| {}), unit), Err(GcError::InvalidArgument(_))));
    });
}

#[test]
fn alarms_run_once_per_major_gc_and_never_after_delete() {
    under_every_collector(|m, name| {
        let calls = Arc::new(AtomicU64::new(0));
        let c = calls.clone();
        let alarm = gc::create_alarm(m, Box::new(move |_| {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        let majors0 = gc::quick_stat(m).major_collections;
        gc::major(m);
        gc::major(m);
        gc::full_major(m);
        let majors = gc::quick_stat(m).major_collections - majors0;
        assert_eq!(calls.load(Ordering::SeqCst), majors, "{name}: once per major GC");
        assert_eq!(majors, 4);
        gc::delete_alarm(m, alarm);
        gc::delete_alarm(m, alarm); // idempotent
        gc::full_major(m);
        assert_eq!(calls.load(Ordering::SeqCst), 4, "{name}: called after delete");
    });
}

#[test]
fn control_maps_onto_rts_settings_and_refuses_what_it_cannot_honour() {
    under_every_collector(|m, name| {
        let c = gc::get(m);
        assert_eq!(c.minor_heap_size, 64 * 1024 / 8, "{name}: -A64k in words");
        assert_eq!(c.space_overhead, 100, "{name}: -F2");
        let before = gc::quick_stat(m).minor_collections;
        gc::set(m, gc::Control { minor_heap_size: 32 * 1024, space_overhead: 50, ..c }).unwrap();
        assert_eq!(gc::quick_stat(m).minor_collections, before + 1, "{name}: changing minor_heap_size collects");
        assert_eq!(m.runtime().flags().alloc_area_blocks, 64, "{name}: 32k words = 256 KiB = 64 blocks");
        assert_eq!(m.runtime().flags().old_gen_factor, 1.5);
        let c = gc::get(m);
        for bad in [
            gc::Control { stack_limit: 5, ..c },
            gc::Control { major_heap_increment: 1, ..c },
            gc::Control { window_size: 3, ..c },
            gc::Control { custom_minor_ratio: 1, ..c },
            gc::Control { allocation_policy: 7, ..c },
            gc::Control { verbose: 0x800, ..c },
            gc::Control { minor_heap_size: 1, ..c },
        ] {
            let e = gc::set(m, bad).unwrap_err();
            assert!(matches!(e, GcError::Unsupported { .. }), "{name}: {e}");
        }
        assert!(gc::set(m, gc::Control { allocation_policy: 0, ..c }).is_ok(), "allocation_policy is accepted");
        let compact_every_major = gc::Control { max_overhead: 0, ..c };
        match (name, gc::set(m, compact_every_major)) {
            ("compacting", Ok(())) => {
                let before = gc::quick_stat(m).compactions;
                gc::major(m);
                assert_eq!(gc::quick_stat(m).compactions, before + 1, "max_overhead 0 compacts at every major GC");
                gc::set(m, gc::Control { max_overhead: 1_000_000, ..gc::get(m) }).unwrap();
                gc::major(m);
                assert_eq!(gc::quick_stat(m).compactions, before + 1, "max_overhead 1000000 never compacts");
            }
            ("compacting", Err(e)) => panic!("compacting refused max_overhead 0: {e}"),
            (_, r) => assert!(matches!(r, Err(GcError::Unsupported { field: "max_overhead", .. })), "{name}: {r:?}"),
        }
    });
}

#[test]
fn compact_uses_the_compacting_collector_or_says_it_cannot() {
    under_every_collector(|m, name| {
        let before = gc::quick_stat(m).compactions;
        match gc::compact(m) {
            Ok(()) => {
                assert_eq!(name, "compacting");
                assert_eq!(gc::quick_stat(m).compactions, before + 1);
            }
            Err(e) => {
                assert_ne!(name, "compacting");
                assert!(e.to_string().contains("does not compact"), "{e}");
            }
        }
    });
}

fn sample_run(m: &mut Mutator<'_>, rate: f64, objects: usize) -> (u64, u64) {
    let samples = Arc::new(AtomicU64::new(0));
    let calls = Arc::new(AtomicU64::new(0));
    let (s, c) = (samples.clone(), calls.clone());
    let tracker = memprof::Tracker {
        alloc_minor: Box::new(move |info| {
            s.fetch_add(info.n_samples, Ordering::SeqCst);
            c.fetch_add(1, Ordering::SeqCst);
            None
        }),
        ..memprof::Tracker::null()
    };
    memprof::start(m, rate, tracker).unwrap();
    for i in 0..objects {
        let d = m.depth();
        int(m, i);
        m.truncate(d);
    }
    memprof::stop(m);
    (samples.load(Ordering::SeqCst), calls.load(Ordering::SeqCst))
}

#[test]
fn memprof_samples_at_its_rate() {
    under_every_collector(|m, name| {
        let size = m.layout().fixed_size(&INT) as u64;
        assert_eq!(sample_run(m, 1.0, 5000), (5000 * size, 5000), "{name}: rate 1 sees every allocation and word");
        assert_eq!(sample_run(m, 0.0, 5000), (0, 0), "{name}: rate 0 sees none");
        // 10^6 words at rate 0.01: 10^4 expected, standard deviation ~99.5;
        // the tolerance is 5%, five standard deviations.
        let objects = 1_000_000 / size as usize;
        let (samples, _) = sample_run(m, 0.01, objects);
        assert!((9_500..=10_500).contains(&samples), "{name}: {samples} samples of 10^6 words at rate 0.01");
        assert!(memprof::start(m, 1.5, memprof::Tracker::null()).is_err());
    });
}

/// A tracker that tracks every sampled block and logs every callback.
fn logging_tracker(events: &Arc<Mutex<Vec<String>>>) -> memprof::Tracker {
    let (a, p, dm, dj) = (events.clone(), events.clone(), events.clone(), events.clone());
    memprof::Tracker {
        alloc_minor: Box::new(move |_| {
            a.lock().unwrap().push("alloc".into());
            Some(0)
        }),
        alloc_major: Box::new(|_| None),
        promote: Box::new(move |d| {
            p.lock().unwrap().push("promote".into());
            Some(d)
        }),
        dealloc_minor: Box::new(move |_| dm.lock().unwrap().push("dealloc_minor".into())),
        dealloc_major: Box::new(move |_| dj.lock().unwrap().push("dealloc_major".into())),
    }
}

#[test]
fn memprof_tracks_promotion_and_deallocation() {
    under_every_collector(|m, name| {
        let events = Arc::new(Mutex::new(Vec::<String>::new()));
        let base = m.depth();
        // Stopping forgets tracked blocks: a block tracked, then dropped
        // after stop, is never reported dead.
        memprof::start(m, 1.0, logging_tracker(&events)).unwrap();
        let d = m.depth();
        int(m, 2);
        m.truncate(d);
        memprof::stop(m);
        gc::full_major(m);
        assert_eq!(*events.lock().unwrap(), vec!["alloc".to_string()], "{name}: nothing reported after stop");
        events.lock().unwrap().clear();
        // Tracked: one survivor, one dropped.
        memprof::start(m, 1.0, logging_tracker(&events)).unwrap();
        let survivor = int(m, 3);
        let d = m.depth();
        int(m, 4);
        m.truncate(d);
        gc::full_major(m);
        gc::full_major(m);
        let e = events.lock().unwrap().clone();
        assert_eq!(e.iter().filter(|x| *x == "alloc").count(), 2, "{name}: {e:?}");
        assert!(e.contains(&"dealloc_minor".to_string()), "{name}: the dropped block's death is reported: {e:?}");
        if name != "two-space" {
            assert!(e.contains(&"promote".to_string()), "{name}: the survivor's promotion is reported: {e:?}");
        }
        assert!(!e.contains(&"dealloc_major".to_string()), "{name}: the survivor is still alive: {e:?}");
        let _ = survivor;
        memprof::stop(m);
        m.truncate(base);
    });
}
