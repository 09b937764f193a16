//! `compacting`: GHC's `-c`. Young generations are copied as by `copying`;
//! in a major collection the oldest generation is instead marked and
//! compacted in place (`compact`), so a major GC needs no to-space for the
//! oldest generation's data: roughly half the peak memory of copying when
//! the old generation dominates the heap.
//!
//! The policy (core's `policy`) decides when to compact: always with `-c`,
//! or with `-c<n>` once the oldest generation passes n% of `-M`. A GC it
//! does not ask to compact is an ordinary copying collection. Large objects
//! are never moved (they are relinked, as in copying). Weak and stable
//! pointers into the compacted blocks are fixed with every other pointer.

use crate::compact::Compaction;
use crate::copying::copy_collect;
use crate::gc_thread::GcThread;
use crate::{from_space, weak_ptrs, CollectorEntry};
use gclab_core::bdescr::{BF_COMPACTING, BF_EVACUATED};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "compacting",
    description: "copying for young generations; the oldest marked and compacted in place (GHC's -c)",
    flags: "-c",
    make: || Box::new(Compacting),
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

    fn collect(&self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        if req.compact_oldest && req.is_major(ctx.heap) && ctx.heap.gens.len() > 1 {
            compact_collect(req, ctx)
        } else {
            copy_collect(req, ctx)
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
    from_space::prepare(gens, n);
    let mut gct = GcThread::new(*layout, n, gens.len(), blocks);
    for &bd in &in_place {
        let d = bd.get();
        d.flags = (d.flags & !BF_EVACUATED) | BF_COMPACTING;
        gct.marks.attach(bd);
    }
    // SAFETY: as in `copy_collect`: the collector holds the heap, and every
    // root and slot holds a valid object address; the compaction phases run
    // once each, in order, after tracing.
    let kept = unsafe {
        weak_ptrs::trace_live(&mut gct, gens, ctx.caps, ctx.stable_ptrs);
        let compaction = Compaction::plan(&mut gct, in_place);
        compaction.update_pointers(&mut gct, ctx.caps, ctx.stable_ptrs);
        let mut ba = blocks.lock().unwrap_or_else(|e| e.into_inner());
        compaction.slide(&mut gct, &mut ba)
    };
    for bd in kept {
        gens[n].add_block(bd);
    }
    from_space::install(gens, ctx.caps, blocks, std::slice::from_mut(&mut gct), n);
    let work = gct.work;
    GcOutcome { collected_gen: n, copied_words: work.copied_words, threads: vec![work], compacted: true }
}
