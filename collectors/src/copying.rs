//! `copying`: GHC's default collector. Generational copying with aging:
//! the collected generations are evacuated from the roots, the mutable
//! lists of older generations and their weak pointers, then scanned
//! Cheney-style until everything reachable is in to-space; weak pointers
//! are judged; from-space is freed.
//!
//! The phases are the shared pieces (`from_space`, `evacuate`, `scavenge`,
//! `weak_ptrs`); `copy_collect` strings them together so that other
//! collectors (two-space, the young generations of compacting) can reuse
//! the whole sequence.

use crate::gc_thread::GcThread;
use crate::{from_space, weak_ptrs, CollectorEntry};
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "copying",
    description: "generational copying with aging, Cheney scan over to-space blocks (GHC's default)",
    flags: "",
    make: || Box::new(Copying),
};

/// The generational copying collector.
#[derive(Debug, Default)]
pub struct Copying;

impl Collector for Copying {
    fn name(&self) -> &'static str {
        "copying"
    }

    fn collect(&self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        copy_collect(req, ctx)
    }
}

/// One copying collection of generations `0..=req.collect_gen`, on one thread.
pub fn copy_collect(req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let n = req.collect_gen;
    from_space::prepare(gens, n);
    let mut gct = GcThread::new(*layout, n, gens.len(), blocks);
    // SAFETY: the runtime gives the collector the heap exclusively (core's
    // Note [Who touches what]); every root and heap slot holds a valid
    // object address, which is what tracing requires.
    unsafe { weak_ptrs::trace_live(&mut gct, gens, ctx.caps, ctx.stable_ptrs) };
    from_space::install(gens, ctx.caps, blocks, std::slice::from_mut(&mut gct), n);
    let work = gct.work;
    GcOutcome { collected_gen: n, copied_words: work.copied_words, threads: vec![work], compacted: false }
}
