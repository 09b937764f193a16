//! The sanity checker's two modes (core's Note [The minor sanity check]):
//! `-DS` checks the whole heap after every GC; `--sanity=minor:k` checks
//! what a minor GC can have changed, and the whole heap at every k-th
//! check. Each is shown to catch a collector that breaks the heap, and
//! the minor mode to report what lies outside its scope at the next whole
//! check. (That neither reports a correct collector is what every
//! collector's conformance test shows, with `--sanity=minor:4` among its
//! stress settings.)

use gclab_collectors::copying::copy_collect;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, InfoTable, Rts, StaticObject};

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "T", "Test");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static BOX: InfoTable = InfoTable::constr("Box", "T", "Test", 0, 1);

/// Copying, with a defect in its minor GCs: it does not scavenge the
/// remembered set (the mutable lists of the generations it does not
/// collect), so old objects keep pointing at the young objects' old
/// addresses; it then puts the lists back, as if it had scanned them.
struct SkipsTheRememberedSet;

impl Collector for SkipsTheRememberedSet {
    fn name(&self) -> &'static str {
        "skips-the-remembered-set"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        if req.is_major(ctx.heap) {
            return copy_collect(req, ctx, None);
        }
        let kept: Vec<_> = ctx.caps.iter_mut().map(|c| std::mem::take(&mut c.mut_lists)).collect();
        for (cap, lists) in ctx.caps.iter_mut().zip(&kept) {
            cap.mut_lists = vec![Vec::new(); lists.len()];
        }
        let outcome = copy_collect(req, ctx, None);
        for (cap, lists) in ctx.caps.iter_mut().zip(kept) {
            for (list, old) in cap.mut_lists.iter_mut().zip(lists) {
                list.extend(old);
            }
        }
        outcome
    }
}

/// Make an old mutable variable, store a young box into it, call `fault`
/// (which may break the heap), then run up to `minor_gcs` minor GCs.
/// Returns the failed check's message, if one failed (a failed check
/// panics out of `run`, as an internal error), and the checks made (all,
/// whole).
fn old_to_young_store(rts_flags: &str, collector: Box<dyn Collector>, fault: fn(&mut gclab_core::Mutator<'_>), minor_gcs: usize) -> (Option<String>, u64, u64) {
    let rts = Rts::new(gclab::flags(rts_flags).unwrap(), collector).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rts.run(|m| {
        let nil = m.static_obj(&NIL);
        let var = m.new_mut_var(nil);
        // Two arrays, copied after the variable, fill its block: a minor GC
        // carries on filling the old generation's last block (See Note
        // [Resuming a part-filled block] in the collectors' `gc_thread`),
        // and a minor check walks a block whose fill level moved, which
        // must not be the variable's here.
        for _ in 0..2 {
            m.new_array(300, nil);
        }
        m.perform_gc(true);
        m.perform_gc(true);
        assert_eq!(m.generation_of(var), Some(1), "the variable should be old by now");
        let young = m.alloc(&BOX, &[], &[7]);
        m.write_mut_var(var, young);
        fault(m);
        for _ in 0..minor_gcs {
            m.perform_gc(false);
        }
    })));
    let error = match result {
        Ok(run) => run.err().map(|e| panic!("the run failed otherwise: {e}")),
        Err(payload) => Some(payload.downcast_ref::<String>().cloned().unwrap_or_default()),
    };
    (error, rts.sanity_checks(), rts.sanity_whole_checks())
}

/// The number of the GC a failed check names ("... after GC 6 (...").
fn failed_after_gc(error: &str) -> usize {
    let at = error.find("after GC ").unwrap_or_else(|| panic!("not a failed sanity check: {error}")) + "after GC ".len();
    error[at..].split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no GC number in: {error}"))
}

fn no_fault(_: &mut gclab_core::Mutator<'_>) {}

#[test]
fn both_modes_catch_a_minor_gc_that_skips_the_remembered_set() {
    for mode in ["-DS", "--sanity=minor:1000"] {
        let (error, checks, whole) = old_to_young_store(&format!("-A64k {mode}"), Box::new(SkipsTheRememberedSet), no_fault, 1);
        let error = error.unwrap_or_else(|| panic!("{mode}: the broken minor GC went unreported"));
        assert_eq!(failed_after_gc(&error), 3, "{mode}: {error}");
        assert!(error.contains("MUT_VAR") && error.contains("not at a live object"), "{mode}: {error}");
        // The two major GCs' checks are whole; the minor GC's only under -DS.
        assert_eq!((checks, whole), if mode == "-DS" { (3, 3) } else { (3, 2) }, "{mode}");
    }
}

#[test]
fn a_correct_collector_passes_both_modes() {
    for mode in ["-DS", "--sanity=minor:1000"] {
        let copying = gclab_collectors::by_name("copying").unwrap().make(&gclab::flags("").unwrap()).unwrap();
        let (error, checks, _) = old_to_young_store(&format!("-A64k {mode}"), copying, no_fault, 5);
        assert_eq!(error, None, "{mode}");
        assert_eq!(checks, 7, "{mode}");
    }
}

/// A write barrier that missed a store (an old object on no mutable list
/// points young) lies outside a minor check's scope (See Note [The minor
/// sanity check]): the next whole check reports it, at most k-1 GCs late.
#[test]
fn a_missed_write_barrier_is_reported_by_the_next_whole_check() {
    let forget = |m: &mut gclab_core::Mutator<'_>| m.debug_forget_remembered_set();
    let copying = || gclab_collectors::by_name("copying").unwrap().make(&gclab::flags("").unwrap()).unwrap();
    let (error, ..) = old_to_young_store("-A64k -DS", copying(), forget, 10);
    assert_eq!(failed_after_gc(&error.expect("-DS reports the stale pointer")), 3);
    for k in [2, 4, 7] {
        let (error, checks, whole) = old_to_young_store(&format!("-A64k --sanity=minor:{k}"), copying(), forget, 10);
        let error = error.unwrap_or_else(|| panic!("minor:{k}: the stale pointer went unreported"));
        // GCs 1 and 2 are major (whole checks); GC 3 is the first after the
        // fault, and the k-th check after GC 2 is whole.
        assert_eq!(failed_after_gc(&error), 2 + k, "minor:{k}: {error}");
        assert_eq!((checks, whole), (2 + k as u64, 3), "minor:{k}");
    }
}
