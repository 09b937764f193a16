//! The `mark-sweep` collector: its old generation never moves, reuses the
//! cells its sweeps free, keeps live and free words apart, runs with
//! several capabilities and GC threads (marking in parallel), sweeps
//! eagerly, lazily or concurrently as asked, collects the whole heap at
//! every GC with `-G1`, and refuses what it cannot do. (It is also in
//! `COLLECTORS`, so the conformance, property and API tests run it like
//! every other collector; its lazy and concurrent modes run the
//! conformance stress settings here.)

use gclab::conformance::{assert_conforms, chosen, run_with, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_core::{Mutator, Rts};
use old_data::{old_ints, INT};

mod old_data;

fn mark_sweep() -> &'static gclab_collectors::CollectorEntry {
    gclab_collectors::by_name("mark-sweep").expect("mark-sweep is built in")
}

#[test]
fn promotion_fills_the_cells_that_sweeps_freed() {
    // lru replaces its entries all the time: each major GC sweeps dead
    // entries into free cells, and the promotions of the next minor GCs
    // must land in them. If reuse stopped, free cells would only ever
    // grow between major GCs and the old generation would cut fresh blocks.
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(mark_sweep(), w, &[4000, 100000, 64], "-A64k -O64k -DS").unwrap();
    let records = &r.stats.records;
    let majors = records.iter().filter(|g| g.gen == 1).count();
    assert!(majors >= 3, "only {majors} major GCs");
    assert!(r.stats.swept_bytes > 0, "the sweeps freed nothing");
    assert!(r.stats.marked_bytes > 0, "nothing was marked in place");
    let mut fills = 0;
    for pair in records.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        assert!(after.live_bytes > 0);
        if after.gen == 0 && before.hole_bytes > 0 && after.hole_bytes < before.hole_bytes {
            fills += 1;
        }
    }
    assert!(fills >= majors / 2, "minor GCs filled free cells after only {fills} of {majors} major GCs");
    assert_eq!(r.stats.gens[1].compactions, 0, "mark-sweep never compacts");
}

#[test]
fn live_and_free_words_are_kept_apart() {
    // After a major GC the residency is the marked data, not the blocks'
    // used words: a full major GC of a heap with much dead old data.
    let w = gclab_workloads::by_name("lru").unwrap();
    let ms = run_with(mark_sweep(), w, &[4000, 60000, 64], "-A64k -DS").unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), w, &[4000, 60000, 64], "-A64k -DS").unwrap();
    assert_eq!(ms.checksum, copying.checksum);
    let (a, b) = (ms.stats.max_live_bytes as f64, copying.stats.max_live_bytes as f64);
    assert!(a < 1.25 * b && a > 0.75 * b, "maximum residency {a} under mark-sweep, {b} under copying: holes counted as live?");
    assert!(ms.stats.max_hole_bytes > 0, "a sweeping collector reports its free cells");
    assert_eq!(copying.stats.max_hole_bytes, 0, "bump blocks have no holes");
}

#[test]
fn several_capabilities_and_gc_threads_mark_one_bitmap() {
    const SETTINGS: &[&str] = &["-N2 -A8k -DS", "-N3 -qn3 -A8k -qb0 -DS", "-N4 -A8k -G3 -O8k -qb0 -DS", "-N4 --gc-every=7 -A8k -qb0 -DS"];
    for round in 0..3 {
        assert_conforms(mark_sweep(), SETTINGS, &format!("round {round}: "));
    }
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(mark_sweep(), w, &[14], "-N2 -A64k -qb0").unwrap();
    assert_eq!(r.stats.par_collections(), r.stats.gcs, "every GC is parallel with -N2");
    assert!(r.stats.gens[1].par_collections > 0, "the major GCs mark in parallel");
}

#[test]
fn with_one_generation_mark_sweep_collects_the_whole_heap_at_every_gc() {
    // See Note [One generation] in the collectors crate: every GC marks
    // the cells in place and copies the allocation area's survivors into
    // cells, swept in the pause, lazily or beside the mutators.
    for entry in ["mark-sweep", "mark-sweep:sweep=lazy", "mark-sweep:sweep=concurrent"].map(chosen) {
        assert_conforms(entry, ONE_GENERATION_SETTINGS, "");
    }
    // A GC every 7 allocations: each GC promotes a few objects, which must
    // go into the cells the last GC's sweep freed, whenever that sweep
    // runs (See Note [Sweeping with one generation]). Without that, lazy
    // sweeping's space grew to 29 MiB here, against eager's 1.
    let w = gclab_workloads::by_name("lru").unwrap();
    let eager = run_with(mark_sweep(), w, &[2000, 60000, 64], "-G1 --gc-every=7 -A8k").unwrap();
    for entry in ["mark-sweep:sweep=lazy", "mark-sweep:sweep=concurrent"].map(chosen) {
        let r = run_with(entry, w, &[2000, 60000, 64], "-G1 --gc-every=7 -A8k").unwrap();
        let (mem, eager_mem) = (r.stats.max_mem_in_use_bytes, eager.stats.max_mem_in_use_bytes);
        assert!(mem <= 2 * eager_mem, "{}: {mem} bytes in use at the peak, eager sweeping {eager_mem}", entry.name());
    }
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(mark_sweep(), w, &[14], "-G1 -A64k").unwrap();
    assert_eq!(r.stats.gens.len(), 1, "one generation");
    assert!(r.stats.gcs > 1 && r.stats.swept_bytes > 0, "every GC sweeps: {} GCs, {} bytes swept", r.stats.gcs, r.stats.swept_bytes);
}

#[test]
fn bad_parameters_are_refused_with_the_reason() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["run", "--collector", "mark-sweep:sweep=later", "binary-trees", "8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sweep=later: expected eager, lazy or concurrent"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab"))
        .args(["run", "--collector", "mark-sweep:swept=lazy", "binary-trees", "8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no parameter `swept' (known: sweep, order)"));
}

#[test]
fn lazy_and_concurrent_sweeps_pass_the_stress_settings() {
    // Unswept blocks hold dead objects whose fields dangle: every walk of
    // the heap (the sanity checker after each GC, under every stress
    // setting) must skip them, and promotion must clear them before use.
    for entry in ["mark-sweep:sweep=lazy", "mark-sweep:sweep=concurrent"].map(chosen) {
        assert_conforms(entry, STRESS_SETTINGS, "");
    }
}

/// The unswept blocks and their dead or free words, as the sanity
/// checker's walk finds them.
fn unswept(m: &mut Mutator<'_>) -> (usize, usize) {
    let r = m.check_heap().unwrap_or_else(|e| panic!("{e:?}"));
    (r.unswept_blocks, r.unswept_words)
}

/// Promote `n` new Ints, kept on the root stack.
fn promote_ints(m: &mut Mutator<'_>, n: usize) {
    for i in 0..n {
        m.alloc(&INT, &[], &[i]);
    }
    m.perform_gc(false);
}

#[test]
fn each_sweep_mode_clears_dead_cells_when_it_says() {
    for mode in ["eager", "lazy", "concurrent"] {
        let f = gclab::flags("-A64k -DS").unwrap();
        let collector = gclab::conformance::Chosen { entry: mark_sweep(), params: &format!("sweep={mode}") }.make(&f).unwrap();
        let rts = Rts::new(f, collector).unwrap();
        rts.run(|m| {
            let array = old_ints(m, 20_000, |i| i.is_multiple_of(2));
            m.perform_gc(true);
            let (blocks, words) = unswept(m);
            if mode == "eager" {
                assert_eq!((blocks, words), (0, 0), "eager: the major GC sweeps every block");
            } else {
                assert!(blocks > 20 && words >= 10_000, "{mode}: the major GC left {blocks} blocks ({words} words) unswept");
            }
            if mode == "lazy" {
                // Minor GCs that promote nothing leave the blocks as they are.
                m.perform_gc(false);
                assert_eq!(unswept(m).0, blocks, "lazy: nothing is swept without allocation");
                // Promotion sweeps the blocks it fills.
                promote_ints(m, 6_000);
                let (after, _) = unswept(m);
                assert!(after < blocks, "lazy: promoting 6000 Ints swept none of {blocks} blocks");
            }
            if mode == "concurrent" {
                // The sweeper thread clears the blocks while this mutator
                // waits; the next GC takes them back.
                let start = std::time::Instant::now();
                while unswept(m).0 > 0 {
                    assert!(start.elapsed().as_secs() < 60, "concurrent: the sweeper never finished");
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    m.perform_gc(false);
                }
            }
            // The survivors are intact, whatever swept around them.
            let sum: usize = (1..20_000).step_by(2).map(|i| m.view().get(array).array_get(i).word(0)).sum();
            assert_eq!(sum, (1..20_000).step_by(2).sum::<usize>(), "{mode}");
        })
        .unwrap();
        assert_eq!(rts.sanity_checks(), rts.stats().gcs, "{mode}");
    }
}

#[test]
fn a_scattered_marking_prefetches_and_stays_correct() {
    // fibheaps' nodes die scattered among live ones, so its major GCs pop
    // objects far apart and go through the prefetch ring (See Note [When
    // the marking prefetches] in the collectors' `prefetch_ring`), which
    // reorders the marking: every GC is sanity-checked, and the checksum
    // must be copying's.
    let w = gclab_workloads::by_name("fibheaps").unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), w, &[100000], "").unwrap();
    for name in ["mark-sweep", "immix"] {
        let entry = gclab_collectors::by_name(name).unwrap();
        let r = run_with(entry, w, &[100000], &format!("-DS {}", entry.flags)).unwrap();
        assert_eq!(r.checksum, copying.checksum, "{name}");
        assert!(r.stats.prefetched_objects > 1000, "{name}: only {} objects went through the ring", r.stats.prefetched_objects);
    }
    // lru's entries lie side by side, each far from its value: the
    // samples judge the marking by the first child too, and turn the ring
    // on, though the next object on the stack is near.
    let lru = gclab_workloads::by_name("lru").unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), lru, &[20000, 100000, 128], "").unwrap();
    let r = run_with(mark_sweep(), lru, &[20000, 100000, 128], "-DS").unwrap();
    assert_eq!(r.checksum, copying.checksum, "lru");
    assert!(r.stats.prefetched_objects > 1000, "lru: only {} objects went through the ring", r.stats.prefetched_objects);
    // A tree laid out as its marking visits it seldom turns the ring on:
    // a node is three words, so its marking scans a node per 24 bytes.
    let trees = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(mark_sweep(), trees, &[14], "-A64k").unwrap();
    let scanned = r.stats.marked_bytes / 24;
    assert!(r.stats.major_gcs > 0 && scanned > 0, "no marking happened");
    assert!(r.stats.prefetched_objects * 10 < scanned, "{} of about {scanned} objects went through the ring", r.stats.prefetched_objects);
}

/// A constructor of one pointer: the box of a byte array.
static BOX: gclab_core::InfoTable = gclab_core::InfoTable::constr("Box", "Box", "Test", 1, 0);
static EMPTY_INFO: gclab_core::InfoTable = gclab_core::InfoTable::static_constr("Empty", "Empty", "Test");
static EMPTY: gclab_core::StaticObject = gclab_core::StaticObject::new(&EMPTY_INFO);

#[test]
fn a_marking_in_place_scans_no_leaf() {
    // Old boxes, each holding a byte array: a major GC that marks them in
    // place must scan every box, and no byte array, which has no pointer
    // to follow (See Note [A leaf is marked, not pushed] in the
    // collectors' `evacuate`). The arrays' bytes are intact after it.
    const N: usize = 5_000;
    for name in ["mark-sweep", "immix", "compacting"] {
        let entry = gclab_collectors::by_name(name).unwrap();
        let f = gclab::flags(&format!("-A64k -DS {}", entry.flags)).unwrap();
        let collector = entry.make(&f).unwrap();
        let rts = Rts::new(f, collector).unwrap();
        rts.run(|m| {
            let unit = m.static_obj(&EMPTY);
            let boxes = m.new_array(N, unit);
            for i in 0..N {
                let d = m.depth();
                let bytes = m.new_byte_array(32);
                m.byte_array_write(bytes, 3, i as u64);
                let b = m.alloc(&BOX, &[bytes], &[]);
                m.array_set(boxes, i, b);
                m.truncate(d);
            }
            m.perform_gc(true);
            // The second major GC finds nothing young: it scans only what
            // it marks in place.
            let before = m.stats();
            m.perform_gc(true);
            let after = m.stats();
            let scanned = (after.scanned_objects - before.scanned_objects) as usize;
            assert!(after.marked_bytes > before.marked_bytes, "{name}: the major GC marked nothing in place");
            assert!((N..N + N / 4).contains(&scanned), "{name}: the major GC scanned {scanned} objects for {N} boxes of {N} byte arrays");
            for i in (0..N).step_by(97) {
                let b = m.array_get(boxes, i);
                let bytes = m.field(b, 0);
                assert_eq!(m.byte_array_read(bytes, 3), i as u64, "{name}: byte array {i}");
            }
        })
        .unwrap();
        assert_eq!(rts.sanity_checks(), rts.stats().gcs, "{name}");
    }
}
