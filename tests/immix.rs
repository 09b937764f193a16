//! The `immix` collector: promotion fills the holes its sweeps find, its
//! line statistics add up, fragmented blocks are evacuated when asked and
//! not otherwise, every geometry and the defragmentation stress pass the
//! stress settings (with one GC thread and several), with `-G1` it
//! collects the whole heap at every GC (its mutators in the space's holes
//! too, with `holes`), and bad parameters and flags are refused by name.
//! (It is also in `COLLECTORS`, so the conformance, property, eventlog and
//! API tests run it like every other collector.)

use gclab::conformance::{assert_conforms, chosen, run_with, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::CollectorEntry;
use gclab_core::{RegionSweep, Rts};
use old_data::old_ints;

mod old_data;
use std::process::Command;

fn immix() -> &'static CollectorEntry {
    gclab_collectors::by_name("immix").expect("immix is built in")
}

/// The region sweeps of a run's major GCs, in order.
fn sweeps(records: &[gclab_core::stats::GcSummary]) -> Vec<RegionSweep> {
    records.iter().filter_map(|r| r.region.as_deref().copied()).collect()
}

#[test]
fn promotion_fills_the_holes_that_sweeps_found() {
    // lru replaces its entries all the time: each major GC finds dead
    // lines among live ones, and the promotions of the next minor GCs must
    // land in them before fresh blocks are cut.
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(immix(), w, &[4000, 100000, 64], "-A64k -O64k -DS").unwrap();
    let records = &r.stats.records;
    let majors = records.iter().filter(|g| g.gen == 1).count();
    assert!(majors >= 3, "only {majors} major GCs");
    let sweeps = sweeps(records);
    assert_eq!(sweeps.len(), majors, "a region sweep per major GC, none in minor GCs");
    assert!(sweeps.iter().all(|s| s.line_bytes == 64 && s.blocks_recyclable <= s.blocks_swept - s.blocks_freed));
    assert!(sweeps.iter().any(|s| s.lines_free > 0), "no sweep found a free line");
    let mut fills = 0;
    for pair in records.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if after.gen == 0 && before.hole_bytes > 0 && after.hole_bytes < before.hole_bytes {
            fills += 1;
        }
    }
    assert!(fills >= majors / 2, "minor GCs filled holes after only {fills} of {majors} major GCs");
    let free_line_bytes: u64 = sweeps.iter().map(|s| s.lines_free as u64 * 64).sum();
    assert_eq!(r.stats.reclaimed_line_bytes, free_line_bytes);
    assert_eq!(r.stats.region_sweeps, majors as u64);
}

/// 16-byte Ints of which every 16th lives: a 128-byte line holds eight, so
/// every other line of their blocks dies, and the next major GC finds
/// those blocks full of one-line holes (the tests that use it ask for
/// 128-byte lines).
fn scattered(i: usize) -> bool {
    !i.is_multiple_of(16)
}

/// Four major GCs over scattered old Ints with `params`; the region
/// sweeps of the last three.
fn fragment_and_collect(params: &str) -> Vec<RegionSweep> {
    let f = gclab::flags("-A64k -DS").unwrap();
    let collector = gclab::conformance::Chosen { entry: immix(), params }.make(&f).unwrap();
    let rts = Rts::new(f, collector).unwrap();
    const N: usize = 40_000;
    rts.run(|m| {
        let array = old_ints(m, N, scattered);
        for _ in 0..3 {
            m.perform_gc(true);
        }
        let sum: usize = (0..N).step_by(16).map(|i| m.view().get(array).array_get(i).word(0)).sum();
        assert_eq!(sum, (0..N).step_by(16).sum::<usize>(), "{params}: the survivors are intact");
    })
    .unwrap();
    assert_eq!(rts.sanity_checks(), rts.stats().gcs);
    let all = sweeps(&rts.stats().records);
    all[all.len() - 3..].to_vec()
}

#[test]
fn fragmented_blocks_are_evacuated_and_their_objects_kept() {
    // The first of the three sweeps finds the holes; the next major GC
    // evacuates the blocks that have them (headroom for all of them), so
    // the last one sweeps a handful of blocks.
    let [found, moved, after] = fragment_and_collect("line=128,defrag=always,headroom=100").try_into().unwrap();
    assert!(found.blocks_recyclable > 100 && found.lines_free > 100 * 14, "the sweep found {found:?}");
    assert_eq!(found.defrag_blocks, 0, "nothing was fragmented before");
    assert!(moved.defrag_blocks >= found.blocks_recyclable * 9 / 10, "only {} of {} fragmented blocks evacuated", moved.defrag_blocks, found.blocks_recyclable);
    // 40,000 / 16 Ints of 16 bytes live in them.
    let live = 40_000 / 16 * 16;
    assert!(moved.defrag_copied_bytes as usize >= live * 9 / 10 && moved.defrag_copied_bytes as usize <= live, "copied {} bytes out", moved.defrag_copied_bytes);
    assert!(after.blocks_swept * 5 < found.blocks_swept, "{} blocks before, {} after", found.blocks_swept, after.blocks_swept);
    // Without defragmentation the holes stay where they are.
    let [found, kept, after] = fragment_and_collect("line=128,defrag=never").try_into().unwrap();
    assert_eq!((kept.defrag_blocks, kept.defrag_copied_bytes, after.defrag_blocks), (0, 0, 0));
    // (A block or two more: what the major GCs promoted from the nursery.)
    let left = found.blocks_swept - found.blocks_freed;
    assert!((left..=left + 2).contains(&after.blocks_swept), "{left} blocks left, {} swept later", after.blocks_swept);
    // No headroom and nothing else free: the blocks' data has nowhere to go.
    let [_, none, _] = fragment_and_collect("line=128,defrag=always,headroom=0").try_into().unwrap();
    assert!(none.defrag_blocks < moved.defrag_blocks, "with no headroom, {} blocks evacuated", none.defrag_blocks);
}

#[test]
fn a_tight_maximum_heap_makes_every_major_gc_defragment() {
    // With -M1m lru's live data is past 30% of the maximum, so the policy
    // asks for compaction at every major GC: immix defragments, in a second
    // pass when it must (See Note [Defragmenting under -M]), under the
    // sanity checker; the result is the copying collector's.
    let sweeps = lru_sweeps("-A64k -M1m -DS");
    let defragmented = sweeps.iter().filter(|s| s.defrag_blocks > 0 && s.defrag_copied_bytes > 0).count();
    assert!(sweeps.len() >= 5 && defragmented >= sweeps.len() - 1, "{defragmented} of {} major GCs defragmented", sweeps.len());
    let never = run_with(chosen("immix:defrag=never"), gclab_workloads::by_name("lru").unwrap(), &LRU_ARGS, "-A64k -M1m");
    assert!(never.is_err(), "without defragmentation lru should not fit in 1 MB");
}

/// The arguments of lru in the tests of a tight maximum heap.
const LRU_ARGS: [usize; 3] = [4000, 100000, 64];

/// The sweeps of lru's major GCs under immix with `rts`, whose checksum
/// must be copying's.
fn lru_sweeps(rts: &str) -> Vec<RegionSweep> {
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(immix(), w, &LRU_ARGS, rts).unwrap();
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), w, &LRU_ARGS, "-A64k").unwrap();
    assert_eq!(r.checksum, copying.checksum);
    sweeps(&r.stats.records)
}

#[test]
fn a_heap_still_past_its_limit_gets_more_passes_before_it_overflows() {
    // lru 20000 200000 128 needed 5.95 MiB under immix while a tight major
    // GC stopped after its second pass; with the passes of Note [A last
    // resort before the overflow] it fits 5.41. At -M5800k (between) the
    // second pass leaves the heap past its limit and a third brings it
    // under: the run completes, under the sanity checker, with copying's
    // result, on one GC thread and on two.
    let w = gclab_workloads::by_name("lru").unwrap();
    let args = [20000, 200000, 128];
    let copying = run_with(gclab_collectors::by_name("copying").unwrap(), w, &args, "").unwrap();
    for rts in ["-M5800k -DS", "-M6800k -N2 -qn2 -DS"] {
        let r = run_with(immix(), w, &args, rts).unwrap_or_else(|e| panic!("{rts}: {e}"));
        assert_eq!(r.checksum, copying.checksum, "{rts}");
        assert!(sweeps(&r.stats.records).iter().any(|s| s.defrag_blocks > 0), "{rts}: no major GC defragmented");
    }
}

#[test]
fn a_tight_heap_with_room_for_a_copy_evacuates_the_whole_generation_in_one_pass() {
    // -c1 asks for compaction at every major GC once the old generation
    // passes 1% of -M, and 64 MB leaves room for a copy of everything: each
    // such GC evacuates every block of the space in one trace (See Note
    // [Evacuating a tight generation whole] in `defrag`), so nothing is
    // swept in place, under the sanity checker.
    let sweeps = lru_sweeps("-A64k -M64m -c1 -DS");
    let whole: Vec<&RegionSweep> = sweeps.iter().filter(|s| s.defrag_blocks > 0).collect();
    assert!(whole.len() >= 3, "{} of {} major GCs evacuated", whole.len(), sweeps.len());
    for s in &whole {
        assert_eq!((s.blocks_swept, s.blocks_recyclable), (0, 0), "a whole evacuation keeps no block in place: {s:?}");
        assert!(s.defrag_copied_bytes > 0, "{s:?}");
    }
    // The first major GC finds an old generation too small to ask for
    // compaction; every later one evacuates.
    assert!(sweeps.iter().skip(1).all(|s| s.defrag_blocks > 0), "{sweeps:?}");
}

/// Immix with the parameters the checks below stress it with.
const DEFRAG_STRESS: &str = "immix:defrag=always,headroom=50";
const LINE_128: &str = "immix:line=128";
const HOLES: &str = "immix:holes=100";
const LINE_256: &str = "immix:line=256,defrag=always";

#[test]
fn every_geometry_and_the_defragmentation_stress_pass_the_stress_settings() {
    // Defragmenting at every major GC with room to evacuate half the
    // space moves old objects all the time: every slot that points at one
    // must follow it, under the sanity checker after every GC.
    for entry in [DEFRAG_STRESS, LINE_128, LINE_256].map(chosen) {
        assert_conforms(entry, STRESS_SETTINGS, "");
    }
}

#[test]
fn with_one_generation_immix_collects_the_whole_heap_at_every_gc() {
    // See Note [One generation] in the collectors crate: no young
    // generation, so every GC marks the space in place, evacuates its
    // fragmented blocks (every time, with DEFRAG_STRESS) and copies the
    // allocation area's survivors into its holes.
    for entry in ["immix", DEFRAG_STRESS, HOLES].map(chosen) {
        assert_conforms(entry, ONE_GENERATION_SETTINGS, "");
    }
    // With holes=100 the mutators allocate into the space's holes too.
    let w = gclab_workloads::by_name("lru").unwrap();
    let r = run_with(chosen(HOLES), w, &[4000, 100000, 64], "-G1 -A64k -DS").unwrap();
    assert!(r.stats.mutator_hole_bytes > 0, "nothing was allocated into holes");
    let r = run_with(immix(), w, &[4000, 100000, 64], "-G1 -A64k").unwrap();
    assert_eq!(r.stats.mutator_hole_bytes, 0, "holes are offered only when asked for");
    let w = gclab_workloads::by_name("fibheaps").unwrap();
    let r = run_with(chosen(DEFRAG_STRESS), w, &[20000], "-G1 -A64k").unwrap();
    assert_eq!(r.stats.gens.len(), 1, "one generation");
    assert_eq!(r.stats.region_sweeps, r.stats.gcs, "every GC marks and sweeps the space");
    assert!(r.stats.defrag_gcs > 0 && r.stats.defrag_copied_bytes > 0, "whole-heap GCs defragment: {} of {} GCs, {} bytes", r.stats.defrag_gcs, r.stats.gcs, r.stats.defrag_copied_bytes);
    let o = gclab(&["run", "binary-trees", "12", "+RTS", "-w", "-G1", "-A64k", "-S"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(Gen:  0)  lines: "), "-S shows every GC's region sweep, each of generation 0:\n{err}");
}

#[test]
fn several_gc_threads_mark_evacuate_and_fill_holes_together() {
    const SETTINGS: &[&str] = &["-N2 -A8k -DS", "-N3 -qn3 -A8k -qb0 -DS", "-N4 -A8k -G3 -O8k -qb0 -DS", "-N4 --gc-every=7 -A8k -qb0 -DS"];
    for round in 0..2 {
        for entry in ["immix", DEFRAG_STRESS].map(chosen) {
            assert_conforms(entry, SETTINGS, &format!("round {round}: "));
        }
    }
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let r = run_with(immix(), w, &[14], "-N2 -A64k -qb0").unwrap();
    assert_eq!(r.stats.par_collections(), r.stats.gcs, "every GC is parallel with -N2");
    assert!(r.stats.gens[1].par_collections > 0, "the major GCs mark in parallel");
}

fn gclab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).output().unwrap()
}

#[test]
fn w_selects_immix_and_bad_parameters_are_refused_by_name() {
    let o = gclab(&["run", "binary-trees", "12", "+RTS", "-w", "-A64k", "-S"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(Gen:  1)  lines: "), "-S shows each major GC's region sweep:\n{err}");
    for (args, says) in [
        (&["run", "--collector", "immix:line=100", "binary-trees", "8"][..], "power of two from 64 to 2048 bytes, not 100"),
        (&["run", "--collector", "immix:defrag=sometimes", "binary-trees", "8"][..], "defrag must be auto, always or never, not `sometimes'"),
        (&["run", "--collector", "immix:headroom=101", "binary-trees", "8"][..], "headroom must be a percentage from 0 to 100, not `101'"),
        (&["run", "--collector", "immix:lines=128", "binary-trees", "8"][..], "no parameter `lines' (known: line, defrag, headroom, holes, order)"),
        (&["run", "--collector", "immix:holes=50", "binary-trees", "8"][..], "immix:holes=50 needs -G1"),
        (&["run", "binary-trees", "8", "+RTS", "-w", "-c"][..], "does not compact"),
        (&["run", "--collector", "copying", "binary-trees", "8", "+RTS", "-w"][..], "contradicts the RTS option `-w'"),
    ] {
        let o = gclab(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
