//! Observing a GC: how statistics, the `-S` table and verbose messages,
//! and the eventlog learn what each collection did.
//!
//! The GC driver (`Rts::collect_stopped`) collects, resizes, checks and
//! times a collection, then hands one `GcEnd` to every observer in turn.
//! An observer reads it and updates what it owns; none of them is called
//! from inside the driver's own steps, and a new kind of output is one
//! more observer, not another branch in the driver.

use crate::capability::Capability;
use crate::collector::{GcOutcome, GcRequest};
use crate::heap::Heap;
use crate::stats::GcRecord;
use std::time::Instant;

/// What observers see of one finished GC.
pub struct GcEnd<'a> {
    /// What was collected (`collect_gen` is what the collector did).
    pub req: &'a GcRequest,
    /// What the collector said it did.
    pub outcome: &'a GcOutcome,
    /// The GC's statistics record (the `-S` line, the JSON record entry).
    pub record: &'a GcRecord,
    /// Was the oldest generation collected?
    pub major: bool,
    /// Did the program ask for this major GC (`Gc.full_major` and kin)?
    pub forced_major: bool,
    /// When the GC started and ended (the record's own clock).
    pub start: Instant,
    /// See `start`.
    pub end: Instant,
    /// The heap after the GC.
    pub heap: &'a Heap,
    /// Every capability after the GC.
    pub caps: &'a [Capability],
    /// OCaml's verbose bits in force (See `gc::Control::verbose`).
    pub verbose: u32,
}

/// Something that learns of every GC.
pub trait GcObserver {
    /// A GC has ended.
    fn gc_end(&mut self, gc: &GcEnd<'_>);
}
