//! Workloads that misbehave on purpose, for testing the sweep runner's
//! crash isolation: one aborts the process, one never finishes, one grows
//! its live data until `-M` stops it. `gclab run` accepts them by name;
//! `gclab list` and the conformance checks leave them out.

use crate::Workload;
use gclab_core::{InfoTable, Mutator, StaticObject};
use std::io::Write;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "List", "Testing");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static CONS: InfoTable = InfoTable::constr("Cons", "List", "Testing", 1, 1);

/// The misbehaving workloads.
pub const TEST_WORKLOADS: &[Workload] = &[
    Workload { name: "crash", description: "(test) aborts the process after some allocation", params: &[], small: &[], tiny: &[], run: crash, footprint: None, needs_collection: false },
    Workload { name: "spin", description: "(test) allocates garbage forever", params: &[], small: &[], tiny: &[], run: spin, footprint: None, needs_collection: false },
    Workload { name: "grow", description: "(test) keeps everything it allocates, forever", params: &[], small: &[], tiny: &[], run: grow, footprint: None, needs_collection: false },
];

fn crash(m: &mut Mutator<'_>, _: &[usize], out: &mut dyn Write) -> u64 {
    let nil = m.static_obj(&NIL);
    for i in 0..1000 {
        m.alloc(&CONS, &[nil], &[i]);
        m.truncate(nil.index() + 1);
    }
    let _ = writeln!(out, "crash: aborting on purpose");
    let _ = out.flush();
    std::process::abort()
}

fn spin(m: &mut Mutator<'_>, _: &[usize], _: &mut dyn Write) -> u64 {
    let nil = m.static_obj(&NIL);
    let mut i = 0;
    loop {
        m.alloc(&CONS, &[nil], &[i]);
        m.truncate(nil.index() + 1);
        i += 1;
    }
}

/// Every capability grows a list of its own (with `-N`, the overflow can
/// come from any of them).
fn grow(m: &mut Mutator<'_>, _: &[usize], _: &mut dyn Write) -> u64 {
    let caps = m.capabilities();
    m.par_map(caps, |m, _| {
        let list = m.static_obj(&NIL);
        let mut i = 0;
        loop {
            let cell = m.alloc(&CONS, &[list], &[i]);
            m.set(list, cell);
            m.truncate(list.index() + 1);
            i += 1;
        }
    });
    unreachable!("grow only ends by running out of heap")
}
