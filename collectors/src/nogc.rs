//! `nogc`: a baseline that never collects (MMTk's NoGC). Its mutator time
//! is the lower bound against which a collector's mutator overhead (the
//! barrier, the allocation path, cache effects of moving objects) is
//! measured.
//!
//! A "GC" still happens whenever a nursery fills: every used nursery block
//! is handed, as it is, to the oldest generation and replaced by a fresh
//! empty block, and the large objects and weak pointers the mutators made
//! go to the oldest generation too. Nothing is copied, marked or freed, so
//! the heap only grows, and a run under `-M` stops with GHC's heap
//! overflow once everything it ever allocated no longer fits. Objects
//! never die: weak pointers stay alive and finalisers never run (so the
//! `gc-api` workload, which checks that they do, cannot run under it).
//!
//! Every object ends each GC in the oldest generation, so no object is
//! younger than another and the remembered-set invariant holds with the
//! mutable lists left as they are (an entry stays valid: its object never
//! dies).

use crate::CollectorEntry;
use gclab_core::bdescr::{BF_EVACUATED, BF_NURSERY};
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "nogc",
    description: "no collection, nothing freed: the mutator-time baseline (every workload's default size fits, 1 GB at most, except gc-api, which needs finalisers to run)",
    flags: "",
    make: |params, flags| {
        params.finish(ENTRY.name, &[])?;
        if flags.generations < 2 {
            return Err(format!("the nogc baseline keeps everything in the oldest of two or more generations, not -G{}", flags.generations));
        }
        Ok(Box::new(NoGc))
    },
};

/// The collector that never collects.
#[derive(Debug, Default)]
pub struct NoGc;

impl Collector for NoGc {
    fn name(&self) -> &'static str {
        "nogc"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let heap = &mut *ctx.heap;
        let oldest = heap.gens.len() - 1;
        let mut fresh = heap.blocks.lock();
        for chunk in heap.nurseries.iter_mut() {
            for slot in chunk.iter_mut() {
                // SAFETY: the runtime gives the collector the heap
                // exclusively, the nurseries included (core's Note [Who
                // touches what]); the capabilities' current blocks were
                // retired before the GC, so `free` is each block's fill.
                let d = unsafe { slot.get() };
                if d.free == d.start {
                    continue;
                }
                d.set_flags(BF_EVACUATED);
                d.set_gen_no(oldest as u16);
                d.dest_no = oldest as u16;
                // SAFETY: as above; the block now belongs to the generation.
                unsafe { heap.gens[oldest].add_block(*slot) };
                let bd = fresh.alloc_block().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e));
                // SAFETY: a block fresh from the allocator is ours alone.
                unsafe { bd.get() }.set_flags(BF_NURSERY);
                *slot = bd;
            }
        }
        drop(fresh);
        for g in 0..oldest {
            let (young, old) = heap.gens.split_at_mut(oldest);
            let young = &mut young[g];
            for bd in young.large_objects.drain(..) {
                // SAFETY: as above.
                let d = unsafe { bd.get() };
                d.set_gen_no(oldest as u16);
                d.dest_no = oldest as u16;
                // SAFETY: as above.
                unsafe { old[0].add_large_object(bd) };
            }
            young.n_large_blocks = 0;
            young.n_large_words = 0;
            old[0].weak_ptrs.append(&mut young.weak_ptrs);
            debug_assert!(young.blocks.is_empty(), "nothing but large objects and weak pointers is ever young");
        }
        GcOutcome { collected_gen: req.collect_gen, in_place: true, threads: vec![Default::default()], ..GcOutcome::default() }
    }
}
