//! The write barrier's extension point (core's Note [Extending the
//! barrier]): a collector turns a snapshot-at-the-beginning or an
//! insertion barrier on at a GC, the mutators' stores record overwritten
//! or stored values into their capability's update remembered set, the
//! recorded values survive GCs as roots, and the collector takes them at
//! its next GC; and the field-logging barrier (Note [The field-logging
//! barrier]) logs the first store into each old field whose side bit is
//! set. The collectors here are defined in the test, as a
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

/// Copying, with the field-logging barrier on from its first GC: after
/// every GC it covers every block of the old generation with side bits,
/// all set (every field of every old object unlogged), and at the next
/// GC, before anything moves, it takes the logs: for each entry, the
/// object's address, the field's index in the object's payload, whether
/// the old value was Nil, and the new value.
struct FieldLogger {
    tables: gclab_core::side_metadata::SideTables,
    logged: Arc<Mutex<Vec<Vec<Logged>>>>,
}

/// One logged field: (object, payload index, old value was Nil, new value).
type Logged = (usize, usize, bool, usize);

impl Collector for FieldLogger {
    fn name(&self) -> &'static str {
        "field-logger"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let hdr = ctx.heap.layout.hdr;
        let entries = ctx.caps.iter_mut().flat_map(|c| c.field_log.drain(..).collect::<Vec<_>>());
        let entries: Vec<Logged> = entries.map(|e| (e.obj as usize, (e.slot as usize - e.obj as usize) / 8 - hdr, e.old == NIL.addr(), e.new)).collect();
        self.logged.lock().unwrap().push(entries);
        // The tables come off before the copy frees any block they cover.
        self.tables.release(ctx.heap);
        let outcome = copy_collect(req, ctx, None);
        let old = ctx.heap.oldest();
        self.tables.cover_generation(ctx.heap, old, true);
        set_extension(ctx.caps, BarrierExtension::FieldLogging);
        outcome
    }
}

#[test]
fn field_logging_logs_the_first_store_into_each_old_field_with_both_values() {
    let logged = Arc::new(Mutex::new(Vec::new()));
    let flags = gclab::flags("-A1m -G2 -DS").unwrap();
    let rts = Rts::new(flags, Box::new(FieldLogger { tables: Default::default(), logged: logged.clone() })).unwrap();
    rts.run(|m| {
        let nil = m.static_obj(&NIL);
        let var = m.new_mut_var(nil);
        let arr = m.new_array(4, nil);
        // Survivors age once in generation 0: two GCs make them old.
        m.perform_gc(true);
        m.perform_gc(true);
        // Both are old now, every field unlogged. A young variable's
        // stores are never logged: its block has no side bits.
        let young = m.new_mut_var(nil);
        for round in 0..2usize {
            for i in 0..10usize {
                let base = m.depth();
                let b = m.alloc(&BOX, &[], &[round * 100 + i]);
                m.write_mut_var(var, b);
                m.array_set(arr, i % 4, b);
                m.write_mut_var(young, b);
                m.truncate(base);
            }
            m.perform_gc(false);
        }
    })
    .unwrap();
    let logged = logged.lock().unwrap().clone();
    assert_eq!(logged.len(), 4);
    assert!(logged[0].is_empty() && logged[1].is_empty(), "nothing was stored before GC 3: {logged:?}");
    // GC 3: the first round: the variable's field once (payload index 0,
    // over Nil) and each array element once (indices 1-4 after the
    // length, over Nil); the young variable's stores never.
    let first = &logged[2];
    assert_eq!(first.len(), 5, "{first:?}");
    assert!(first.iter().all(|e| e.2), "every first store overwrote Nil: {first:?}");
    let var_entry: Vec<&Logged> = first.iter().filter(|e| e.1 == 0).collect();
    let mut elements: Vec<&Logged> = first.iter().filter(|e| e.1 > 0).collect();
    elements.sort_by_key(|e| e.1);
    assert_eq!(var_entry.len(), 1);
    assert_eq!(elements.iter().map(|e| e.1).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert!(elements.iter().all(|e| e.0 == elements[0].0) && elements[0].0 != var_entry[0].0, "two objects: {first:?}");
    // The first store of the round put box 0 into the variable and into
    // element 0: the same new value; the others got boxes 1-3.
    assert_eq!(var_entry[0].3, elements[0].3);
    let news: std::collections::HashSet<usize> = elements.iter().map(|e| e.3).collect();
    assert_eq!(news.len(), 4);
    // GC 4: the bits were set again after GC 3, so each field is logged
    // once more, over what the first round left (not Nil).
    let second = &logged[3];
    assert_eq!(second.len(), 5, "{second:?}");
    assert!(second.iter().all(|e| !e.2), "{second:?}");
}
