//! The allocation-region seam (core's Note [Allocation regions]) and the
//! collector that proves it, `sticky-immix`: mutators allocate into the
//! holes a collector offers, the allocation area stays `-A`, the
//! statistics count the bytes that went into holes, and a minor GC of
//! sticky marks neither loses an old-to-young pointer nor keeps a young
//! object alive because the barrier remembered it (the collectors' Note
//! [Young objects in old blocks]). The conformance suite
//! (`tests/workloads.rs`) runs sticky-immix under every stress setting
//! beside the other collectors.

use gclab::conformance::{assert_conforms, chosen, run_with, STRESS_SETTINGS};
use gclab_core::info::{InfoTable, NULL_OBJECT};
use gclab_core::{Mutator, Rts};

static BOX: InfoTable = InfoTable::constr("Box", "Box", "Regions", 0, 1);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Regions", 2, 0);

fn sticky() -> &'static gclab_collectors::CollectorEntry {
    gclab_collectors::by_name("sticky-immix").unwrap()
}

#[test]
fn mutators_allocate_into_the_holes_sticky_immix_offers() {
    let lru = gclab_workloads::by_name("lru").unwrap();
    let args = [20_000, 200_000, 64];
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), lru, &args, "-A256k").unwrap();
    let r = run_with(sticky(), lru, &args, "-A256k -G2").unwrap();
    assert_eq!(r.checksum, copying.checksum);
    let s = &r.stats;
    assert!(s.mutator_hole_bytes > s.allocated_bytes / 40, "lru's old data dies scattered, so a part of its allocation should recycle holes: {} of {} bytes", s.mutator_hole_bytes, s.allocated_bytes);
    assert!(s.mutator_hole_bytes < s.allocated_bytes);
    // What is young in the holes is marked where it lies, and what
    // survives in the nursery is copied once, straight into the old
    // generation, where immix ages it first: sticky-immix copies less.
    let immix = run_with(gclab_collectors::by_name("immix").unwrap(), lru, &args, "-A256k").unwrap();
    assert!(s.copied_bytes * 3 < immix.stats.copied_bytes * 2, "sticky-immix copied {} bytes, immix {}", s.copied_bytes, immix.stats.copied_bytes);
    // The allocation area is -A whether it is holes or nursery blocks: a
    // capability leaves nursery blocks unused for the holes it takes, so
    // GCs come as often as copying's (a little more: a hole given up
    // counts as spent).
    assert!(s.gcs >= copying.stats.gcs && s.gcs * 4 <= copying.stats.gcs * 5, "{} GCs under -A256k, copying's {}", s.gcs, copying.stats.gcs);
    // Other collectors offer nothing.
    assert_eq!(copying.stats.mutator_hole_bytes, 0);
}

/// With `young=copy` a minor GC copies the young survivors of the holes
/// out of them (the collectors' Note [Young objects copied out of holes]):
/// the same results, with more copied than when it marks them in place
/// (`young=mark`, the default), by at least what survived in holes.
#[test]
fn young_objects_copied_out_of_holes_give_the_same_results() {
    let lru = gclab_workloads::by_name("lru").unwrap();
    let args = [20_000, 200_000, 64];
    let marked = run_with(sticky(), lru, &args, "-A256k -G2").unwrap();
    let copied = run_with(chosen("sticky-immix:young=copy"), lru, &args, "-A256k -G2").unwrap();
    assert_eq!(copied.checksum, marked.checksum);
    let (m, c) = (&marked.stats, &copied.stats);
    assert!(c.mutator_hole_bytes > c.allocated_bytes / 40, "lru should still allocate into holes: {} of {} bytes", c.mutator_hole_bytes, c.allocated_bytes);
    assert!(c.copied_bytes > m.copied_bytes + c.mutator_hole_bytes / 100, "young=copy copied {} bytes, young=mark {}: the holes' survivors were not copied", c.copied_bytes, m.copied_bytes);
    assert_conforms(chosen("sticky-immix:young=copy"), STRESS_SETTINGS, "");
}

/// Run `program` under sticky-immix with the RTS flags `rts`.
fn run_sticky(rts: &str, program: impl FnOnce(&mut Mutator<'_>)) {
    let f = gclab::flags(rts).unwrap();
    let r = Rts::new(f.clone(), sticky().make(&f).unwrap()).unwrap();
    r.run(program).unwrap();
    r.finish().unwrap();
}

/// An old array of `n` boxes of which every other one dies in place after
/// they were promoted: the old blocks they lie in are half holes. Returns
/// the array, whose first `n / 2` elements are the survivors.
fn old_data_with_holes(m: &mut Mutator<'_>, n: usize) -> gclab_core::Handle {
    let null = m.static_obj(&NULL_OBJECT);
    let keep = m.new_array(n, null);
    for i in 0..n {
        let b = m.alloc(&BOX, &[], &[i]);
        m.array_set(keep, i, b);
        m.truncate(keep.index() + 1);
    }
    m.perform_gc(true);
    for i in 0..n / 2 {
        let b = m.array_get(keep, 2 * i);
        m.array_set(keep, i, b);
        m.truncate(keep.index() + 1);
    }
    for i in n / 2..n {
        m.array_set(keep, i, null);
    }
    m.perform_gc(true);
    keep
}

#[test]
fn a_young_object_the_barrier_remembered_in_an_old_block_dies_at_the_next_minor_gc() {
    run_sticky("-A64k -G2 -DS", |m: &mut Mutator<'_>| {
        old_data_with_holes(m, 40_000);
        let holes_before = m.stats().mutator_hole_bytes;
        // Young mutable variables in those holes, each written after it
        // was made (so the barrier remembers it: its block is old), then
        // dropped; a weak pointer watches what each one held.
        let mut weaks = Vec::new();
        for i in 0..200usize {
            let frame = m.depth();
            let null = m.static_obj(&NULL_OBJECT);
            let var = m.new_mut_var(null);
            let held = m.alloc(&BOX, &[], &[i]);
            m.write_mut_var(var, held);
            let w = m.new_weak(held, held, None);
            weaks.push(m.ret(frame, w));
        }
        m.perform_gc(false);
        assert!(m.stats().mutator_hole_bytes > holes_before, "the variables should have been allocated into holes");
        let alive = weaks.iter().filter(|&&w| m.deref_weak(w).is_some()).count();
        assert_eq!(alive, 0, "{alive} of 200 values held only by dead young variables survived a minor GC");
    });
}

#[test]
fn an_old_object_written_to_point_at_a_young_one_in_a_hole_keeps_it() {
    run_sticky("-A64k -G2 -DS", |m: &mut Mutator<'_>| {
        let keep = old_data_with_holes(m, 20_000);
        // The array is old; young boxes in holes are stored into it, and
        // only it holds them across several minor GCs.
        for round in 0..5usize {
            for i in 0..10_000usize {
                let b = m.alloc(&BOX, &[], &[round * 100_000 + i]);
                m.array_set(keep, i, b);
                m.truncate(keep.index() + 1);
            }
            m.perform_gc(false);
            for i in (0..10_000usize).step_by(97) {
                let b = m.array_get(keep, i);
                assert_eq!(m.word(b, 0), round * 100_000 + i);
                m.truncate(keep.index() + 1);
            }
        }
        assert!(m.stats().mutator_hole_bytes > 0);
    });
}

#[test]
fn the_sanity_checker_walks_a_block_a_mutator_is_filling_holes_of() {
    run_sticky("-A64k -G2", |m: &mut Mutator<'_>| {
        let keep = old_data_with_holes(m, 20_000);
        // Young boxes in holes, the current region left part filled, and
        // young pairs among them pointing at each other and at old boxes:
        // the checker must read every old object after the region too.
        let before = m.stats().mutator_hole_bytes;
        let mut prev = m.array_get(keep, 0);
        for i in 0..300usize {
            let b = m.alloc(&BOX, &[], &[i]);
            let old = m.array_get(keep, i);
            let pair = m.alloc(&PAIR, &[prev, old], &[]);
            let _ = b;
            prev = pair;
        }
        let report = m.check_heap().unwrap_or_else(|v| panic!("{} violations between GCs: {:?}", v.len(), &v[..v.len().min(5)]));
        assert!(report.objects > 10_000, "the walk saw only {} objects", report.objects);
        m.perform_gc(false);
        assert!(m.stats().mutator_hole_bytes > before, "the boxes should have been allocated into holes");
    });
}
