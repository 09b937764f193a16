//! `compacting`: GHC's `-c`. Young generations are copied as by `copying`;
//! in a major collection the oldest generation is instead marked and
//! compacted in place (`slide`), so a major GC needs no to-space for the
//! oldest generation's data: roughly half the peak memory of copying when
//! the old generation dominates the heap.
//!
//! The policy (core's `policy`) decides when to compact: always with `-c`,
//! or with `-c<n>` once the oldest generation passes n% of `-M`. A GC it
//! does not ask to compact is an ordinary copying collection. Large objects
//! are never moved (they are relinked, as in copying). Weak and stable
//! pointers into the compacted blocks are fixed with every other pointer.

use crate::copying::copy_collect;
use crate::gc_thread::GcThread;
use crate::mark::MarkBitmap;
use crate::reach::Reach;
use crate::slide::Compaction;
use crate::trace::{outcome, trace_live};
use crate::{from_space, CollectorEntry};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "compacting",
    description: "copying for young generations; the oldest marked and compacted in place (GHC's -c)",
    flags: "-c",
    make: |params, _| params.finish(ENTRY.name, &[]).map(|()| Box::new(Compacting) as Box<dyn Collector>),
};

/// The compacting collector.
#[derive(Debug, Default)]
pub struct Compacting;

impl Collector for Compacting {
    fn name(&self) -> &'static str {
        "compacting"
    }

    fn can_compact(&self) -> bool {
        true
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        if req.compact_oldest && req.is_major(ctx.heap) && ctx.heap.gens.len() > 1 {
            compact_collect(req, ctx)
        } else {
            copy_collect(req, ctx, None)
        }
    }
}

/// A major collection that compacts the oldest generation in place.
fn compact_collect(req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let n = req.collect_gen;
    // The oldest generation's blocks stay where they are: take them out of
    // the generation before `prepare` makes the rest from-space.
    let in_place = std::mem::take(&mut gens[n].blocks);
    // SAFETY: the runtime gives the collector the heap exclusively
    // (core's Note [Who touches what]).
    let marks = unsafe { MarkBitmap::keep_in_place(&in_place) }.recording_starts().for_one_thread(true);
    // SAFETY: as above.
    let from = unsafe { from_space::prepare(gens, n, *layout) };
    let mut gct = GcThread::new(*layout, n, gens.len(), blocks);
    gct.marks = Some(&marks);
    gct.reach = Some(Reach::new(in_place.len()));
    // SAFETY: as in `copy_collect`: the collector holds the heap, and every
    // root and slot holds a valid object address; the compaction phases run
    // once each, in order, after tracing.
    let kept = unsafe {
        trace_live(&mut gct, gens, ctx.caps, ctx.stable_ptrs);
        let reach = gct.reach.take().expect("set above");
        let compaction = Compaction::plan(&marks, in_place);
        compaction.update_pointers(&mut gct, ctx.caps, ctx.stable_ptrs, &reach);
        let mut ba = blocks.lock();
        compaction.slide(&marks, &mut ba)
    };
    for bd in kept {
        // SAFETY: the compacted blocks are the GC's, now reinstalled.
        unsafe { gens[n].add_block(bd) };
    }
    let mut threads = [gct];
    // SAFETY: tracing and compaction are over.
    unsafe { from_space::install(from, gens, ctx.caps, blocks, &mut threads, n) };
    GcOutcome { in_place: true, compacted: true, ..outcome(n, &threads, 1) }
}
