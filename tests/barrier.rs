//! The write barrier's extension point (core's Note [Extending the
//! barrier]): a collector turns a snapshot-at-the-beginning or an
//! insertion barrier on at a GC, the mutators' stores record overwritten
//! or stored values into their capability's update remembered set, the
//! recorded values survive GCs as roots, and the collector takes them at
//! its next GC. The collector here is defined in the test, as a
//! researcher's would be: copying, plus the barrier it is given.

use gclab_collectors::copying::copy_collect;
use gclab_core::barrier::{set_extension, BarrierExtension};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, InfoTable, Rts, StaticObject};
use std::sync::{Arc, Mutex};

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "T", "Test");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static BOX: InfoTable = InfoTable::constr("Box", "T", "Test", 0, 1);

/// Copying, with `extension` switched on from its first GC on; at each
/// major GC it takes what the barrier recorded and counts it (minor GCs
/// leave it: the values are roots meanwhile, moved with their objects).
struct Recording {
    extension: BarrierExtension,
    taken: Arc<Mutex<Vec<usize>>>,
}

impl Collector for Recording {
    fn name(&self) -> &'static str {
        "recording"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let outcome = copy_collect(req, ctx, None);
        // After the copy, so the values are the objects' new addresses.
        let major = req.is_major(ctx.heap);
        let recorded: usize = ctx.caps.iter_mut().map(|c| if major { std::mem::take(&mut c.update_rem_set).len() } else { 0 }).sum();
        self.taken.lock().unwrap().push(recorded);
        set_extension(ctx.caps, self.extension);
        outcome
    }
}

/// Make a mutable variable, collect (the barrier goes on), store into it
/// `stores` boxes, collect twice more (a minor GC moves the recorded
/// objects, and the sanity checker checks the recorded values after it;
/// the major GC takes them); returns what the collector took at each GC.
fn run(extension: BarrierExtension, stores: usize) -> Vec<usize> {
    let taken = Arc::new(Mutex::new(Vec::new()));
    let flags = gclab::flags("-A1m -DS").unwrap();
    let rts = Rts::new(flags, Box::new(Recording { extension, taken: taken.clone() })).unwrap();
    rts.run(|m| {
        let nil = m.static_obj(&NIL);
        let var = m.new_mut_var(nil);
        let arr = m.new_array(4, nil);
        m.perform_gc(false);
        for i in 0..stores {
            let base = m.depth();
            let b = m.alloc(&BOX, &[], &[i]);
            m.write_mut_var(var, b);
            m.array_set(arr, i % 4, b);
            m.truncate(base);
        }
        m.perform_gc(false);
        m.perform_gc(true);
    })
    .unwrap();
    let v = taken.lock().unwrap().clone();
    v
}

#[test]
fn snapshot_at_the_beginning_records_every_overwritten_heap_pointer() {
    // Each round overwrites the variable (Nil the first time, a box
    // after) and an array element (Nil for the first four rounds).
    let taken = run(BarrierExtension::SnapshotAtTheBeginning, 10);
    assert_eq!(taken, vec![0, 0, 9 + 6], "static Nil is never recorded");
}

#[test]
fn insertion_records_every_stored_pointer() {
    let taken = run(BarrierExtension::Insertion, 10);
    assert_eq!(taken, vec![0, 0, 20]);
}

#[test]
fn without_an_extension_nothing_is_recorded() {
    assert_eq!(run(BarrierExtension::None, 10), vec![0, 0, 0]);
}
