//! `gc-api N`: a program that uses all of the OCaml-style `Gc` API.
//!
//! It reads and changes the GC settings (`get`/`set`), registers
//! finalisers (`finalise`, `finalise_last`) on N boxed values of which it
//! drops every other one, runs explicit collections (`minor`, `major`,
//! `full_major`, `compact` where the collector can), counts major GCs with
//! an alarm, samples its own allocation with `Memprof` at rate 1 over a
//! known allocation, and ends with `print_stat`. The checksum folds in only
//! what the program determines (finalised values, samples, survivors), not
//! collector-dependent counters, so every collector must agree on it.

use crate::{mix, Param, Workload};
use gclab_core::gc::{self, memprof};
use gclab_core::{InfoTable, Mutator, StaticObject};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

static UNIT_INFO: InfoTable = InfoTable::static_constr("Unit", "()", "GcApi");
static UNIT: StaticObject = StaticObject::new(&UNIT_INFO);
static INT: InfoTable = InfoTable::constr("I#", "Int", "GcApi", 0, 1);
static CELL: InfoTable = InfoTable::constr("Cell", "List", "GcApi", 2, 0);

/// The registry entry.
pub const WORKLOAD: Workload = Workload {
    name: "gc-api",
    description: "uses the whole OCaml-style Gc API (stat, control, finalisers, alarms, Memprof)",
    params: &[Param::new("n", 10_000, 0, 100_000_000)],
    small: &[500],
    tiny: &[40],
    run,
    footprint: None,
    needs_collection: true,
};

fn run(m: &mut Mutator<'_>, args: &[usize], out: &mut dyn Write) -> u64 {
    let n = args[0].max(2);
    let mut sum = 0u64;

    // Settings: a bigger minor heap and a different space overhead.
    let mut c = gc::get(m);
    c.minor_heap_size = c.minor_heap_size.max(64 * 1024 / 8);
    c.space_overhead = 120;
    gc::set(m, c).expect("minor_heap_size and space_overhead are honoured");
    let bad = gc::Control { stack_limit: 1, ..gc::get(m) };
    assert!(gc::set(m, bad).is_err(), "stack_limit cannot be honoured");

    // An alarm counts major GCs.
    let majors = Arc::new(AtomicU64::new(0));
    let seen = majors.clone();
    let alarm = gc::create_alarm(m, Box::new(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    }));

    // N boxed values on a list; finalisers on all; every other one dropped.
    let finalised = Arc::new(Mutex::new(Vec::new()));
    let last_calls = Arc::new(AtomicU64::new(0));
    let unit = m.static_obj(&UNIT);
    let list = m.dup(unit);
    for i in 0..n {
        let base = m.depth();
        let v = m.alloc(&INT, &[], &[i]);
        let log = finalised.clone();
        gc::finalise(m, Box::new(move |m, v| log.lock().unwrap().push(m.word(v, 0))), v).expect("a heap value");
        let lasts = last_calls.clone();
        gc::finalise_last(m, Box::new(move |_| {
            lasts.fetch_add(1, Ordering::SeqCst);
        }), v)
        .expect("a heap value");
        if i % 2 == 0 {
            let cell = m.alloc(&CELL, &[v, list], &[]);
            m.set(list, cell);
        }
        m.truncate(base);
    }
    assert!(gc::finalise(m, Box::new(|_, _| {}), unit).is_err(), "static values cannot be finalised");
    gc::minor(m);
    gc::full_major(m);
    if gc::compact(m).is_ok() {
        gc::full_major(m);
    }
    let mut dead = finalised.lock().unwrap().clone();
    dead.sort_unstable();
    assert_eq!(dead.len(), n / 2, "every dropped value is finalised once");
    assert!(dead.iter().all(|v| v % 2 == 1), "only dropped values are finalised");
    assert_eq!(last_calls.load(Ordering::SeqCst) as usize, n / 2);
    sum = mix(sum, dead.iter().sum::<usize>() as u64);

    // The survivors are intact.
    let mut survivors = 0u64;
    let cell = m.dup(list);
    while !m.same(cell, unit) {
        let v = m.field(cell, 0);
        survivors += m.word(v, 0) as u64;
        m.follow(cell, 1);
        m.truncate(cell.index() + 1);
    }
    sum = mix(sum, survivors);

    // Memprof at rate 1 over exactly 1000 three-word objects.
    let samples = Arc::new(AtomicU64::new(0));
    let counted = samples.clone();
    let tracker = memprof::Tracker {
        alloc_minor: Box::new(move |info| {
            counted.fetch_add(info.n_samples, Ordering::SeqCst);
            None
        }),
        ..memprof::Tracker::null()
    };
    memprof::start(m, 1.0, tracker).expect("a valid rate");
    for i in 0..1000 {
        let base = m.depth();
        m.alloc(&CELL, &[unit, unit], &[]);
        let _ = i;
        m.truncate(base);
    }
    memprof::stop(m);
    let sampled = samples.load(Ordering::SeqCst);
    assert_eq!(sampled as usize, 1000 * m.layout().fixed_size(&CELL));
    sum = mix(sum, 1000);

    gc::delete_alarm(m, alarm);
    gc::delete_alarm(m, alarm);
    let _ = writeln!(out, "gc-api: {} values finalised, {} survivors' sum, {} major GCs seen by the alarm", dead.len(), survivors, majors.load(Ordering::SeqCst));
    let _ = gc::print_stat(m, out);
    sum
}
