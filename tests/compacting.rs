//! `compacting`'s blocks left in place (Note [Blocks left in place] in
//! the collectors' `compaction_plan`): whatever share of a block may be
//! dead for it to stay, from none to just under half, every workload
//! gives its checksum under the stress settings with the sanity checker
//! after every GC, which walks the holes the slide zeroed and checks that
//! no pointer leads into one.

use gclab::conformance::{assert_conforms, chosen, ONE_GENERATION_SETTINGS, STRESS_SETTINGS};
use gclab_collectors::Params;

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
        assert!(err.contains("dead must be the percentage of a block") && err.contains(&format!("`{bad}'")), "dead={bad}: {err}");
    }
}
