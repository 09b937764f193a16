//! `compacting`'s blocks left in place (Note [Blocks left in place] in
//! the collectors' `compaction_plan`): whatever share of a block may be
//! dead for it to stay, from none to just under half, every workload
//! gives its checksum under the stress settings with the sanity checker
//! after every GC, which walks the holes the slide zeroed and checks that
//! no pointer leads into one; and each compaction's record says what it
//! left in place and what it slid.

use gclab::conformance::{assert_conforms, chosen, run_with, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::Params;
use gclab_core::constants::BLOCK_SIZE;
use gclab_core::stats::Stats;
use gclab_core::CompactionRecord;

#[test]
fn no_block_left_in_place_conforms() {
    assert_conforms(chosen("compacting:dead=0"), STRESS_SETTINGS, "");
    assert_conforms(chosen("compacting:dead=0"), ONE_GENERATION_SETTINGS, "");
}

#[test]
fn blocks_nearly_half_dead_left_in_place_conform() {
    assert_conforms(chosen("compacting:dead=49"), STRESS_SETTINGS, "");
    assert_conforms(chosen("compacting:dead=49"), ONE_GENERATION_SETTINGS, "");
}

#[test]
fn a_bad_dead_share_is_refused_by_name() {
    let f = gclab::flags("").unwrap();
    let make = gclab_collectors::by_name("compacting").unwrap().make;
    for bad in ["50", "100", "-1", "five"] {
        let err = make(Params::parse(&format!("dead={bad}")).unwrap(), &f).err().expect("refused");
        assert!(err.contains("dead must be a percentage of a block (its words that may be dead for it to stay in place) from 0 to 49") && err.contains(&format!("`{bad}'")), "dead={bad}: {err}");
    }
}

/// lru's compactions under `spec` (lru replaces its entries all the
/// time, so its old generation is mostly live blocks with a few dead
/// entries), with the run's statistics; its checksum must be copying's.
fn lru_compactions(spec: &str) -> (Vec<CompactionRecord>, Stats) {
    let w = gclab_workloads::by_name("lru").unwrap();
    let args = [20000, 200000, 128];
    let r = run_with(chosen(spec), w, &args, "-A256k -c -DS").unwrap();
    let copying = run_with(chosen("copying"), w, &args, "-A256k").unwrap();
    assert_eq!(r.checksum, copying.checksum, "{spec}");
    let records = r.stats.records.iter().filter_map(|g| g.compaction.as_deref().copied()).collect();
    (records, r.stats)
}

/// The records' own sums and bounds agree with the run's totals.
fn assert_consistent(spec: &str, records: &[CompactionRecord], stats: &Stats) {
    assert_eq!(records.len() as u64, stats.gens[1].compactions, "{spec}: a record per compaction");
    assert!(records.len() >= 3, "{spec}: only {} compactions", records.len());
    for c in records {
        assert!(c.blocks_left_in_place <= c.blocks && c.blocks_unmoved <= c.blocks, "{spec}: {c:?}");
        assert!(c.blocks_freed <= c.blocks - c.blocks_left_in_place, "{spec}: a block left in place holds live words, so is never freed: {c:?}");
    }
    let sum = |f: fn(&CompactionRecord) -> u64| records.iter().map(f).sum::<u64>();
    assert_eq!(sum(|c| c.blocks as u64), stats.compacted_blocks, "{spec}");
    assert_eq!(sum(|c| c.blocks_left_in_place as u64), stats.blocks_left_in_place, "{spec}");
    assert_eq!(sum(|c| c.hole_bytes), stats.compaction_hole_bytes, "{spec}");
    assert_eq!(sum(|c| c.slid_bytes), stats.compaction_slid_bytes, "{spec}");
    assert_eq!(sum(|c| c.blocks_freed as u64 * BLOCK_SIZE as u64), stats.compaction_freed_bytes, "{spec}");
}

#[test]
fn each_compaction_records_what_it_left_in_place_and_slid() {
    let (none, none_stats) = lru_compactions("compacting:dead=0");
    let (some, some_stats) = lru_compactions("compacting");
    let (most, most_stats) = lru_compactions("compacting:dead=49");
    assert_consistent("dead=0", &none, &none_stats);
    assert_consistent("dead=5", &some, &some_stats);
    assert_consistent("dead=49", &most, &most_stats);
    // Only a block without a dead word stays at dead=0, and lru's blocks
    // all end short of their ends (its 18-word entries do not divide a
    // block), so none stays.
    assert!(none.iter().all(|c| c.blocks_left_in_place == 0 && c.hole_bytes == 0), "dead=0 leaves nothing in place: {none:?}");
    assert!(none_stats.compaction_slid_bytes > 0, "dead=0 slides lru's blocks");
    assert!(some_stats.blocks_left_in_place > 0, "lru's nearly live blocks stay at dead=5: {some:?}");
    assert!(
        some_stats.compaction_slid_bytes < none_stats.compaction_slid_bytes / 2,
        "leaving its nearly live blocks in place, dead=5 slides less than half of what dead=0 slides: {} against {}",
        some_stats.compaction_slid_bytes,
        none_stats.compaction_slid_bytes
    );
    assert!(most_stats.compaction_hole_bytes > 0, "dead=49 leaves blocks with dead entries, as holes: {most:?}");
    assert!(most_stats.blocks_left_in_place >= some_stats.blocks_left_in_place, "a larger share leaves at least as much in place");
}
