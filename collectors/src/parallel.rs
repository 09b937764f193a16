//! `parallel`: generational copying with several GC threads (GHC's
//! parallel GC, `-N`, `-qn`, `-qg`, `-qb`).
//!
//! A parallel collection runs the copying collector's phases with `-qn`
//! GC threads, each with its own to-space (`GcThread`):
//!
//! 1. the leader makes the collected generations from-space;
//! 2. every thread evacuates the roots and the older generations' mutable
//!    list entries of its capabilities (See Note [Roots by capability]),
//!    thread 0 also the stable pointers and the weak pointers of
//!    uncollected generations; objects
//!    are claimed with a compare-and-swap on their header (See Note
//!    [Claiming an object] in `evacuate`);
//! 3. every thread scavenges until all are done, stealing full to-space
//!    blocks from each other when load balancing is on (`work_stealing`);
//! 4. thread 0 alone then judges the weak pointers (usually few), which
//!    may copy a little more;
//! 5. the leader frees from-space and installs every thread's to-space.
//!
//! `-qg<g>`: only collections of generation g or older are parallel; the
//! rest (and every collection with `-qg` alone, or one GC thread) run the
//! sequential `copy_collect`. `-qb<g>`: load balancing only in parallel
//! collections of generation g or older (GHC's default: the old generation
//! only, since stealing young objects moves them away from the cache of the
//! capability that will use them next).

use crate::copying::copy_collect;
use crate::evacuate::evacuate;
use crate::gc_thread::GcThread;
use crate::gc_workers::{stall_timeout_from_env, Fault, GcWorkers};
use crate::scavenge::scavenge_mut_list_entry;
use crate::weak_ptrs::{capability_root_slots, process_weak_ptrs, take_capability_mut_lists, trace_uncollected_weaks};
use crate::work_stealing::{scavenge_until_all_done, Team};
use crate::{from_space, CollectorEntry};
use gclab_core::constants::Word;
use gclab_core::generation::ObjPtr;
use gclab_core::heap::Heap;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest, RtsFlags};
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

/// The registry entry.
pub const ENTRY: CollectorEntry = CollectorEntry {
    name: "parallel",
    description: "copying with -qn GC threads, work stealing of to-space blocks (GHC's parallel GC; -N, -qg, -qb)",
    flags: "",
    make: || Box::new(Parallel::default()),
};

/// The parallel collector. Its GC threads are made at its first parallel
/// collection and kept.
pub struct Parallel {
    workers: Mutex<Option<GcWorkers>>,
    fault: Option<Fault>,
}

impl Default for Parallel {
    fn default() -> Parallel {
        Parallel { workers: Mutex::new(None), fault: Fault::from_env() }
    }
}

impl Collector for Parallel {
    fn name(&self) -> &'static str {
        "parallel"
    }

    fn collect(&self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let threads = ctx.flags.gc_threads();
        if threads == 1 || !parallel_for(ctx.flags, req.collect_gen) {
            return copy_collect(req, ctx);
        }
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        if workers.as_ref().map(GcWorkers::threads) != Some(threads) {
            *workers = Some(GcWorkers::new(threads, stall_timeout_from_env(), self.fault));
        }
        let workers = workers.as_ref().expect("made just above");
        let balance = ctx.flags.par_balance_gen().is_some_and(|g| req.collect_gen >= g);
        par_copy_collect(req, ctx, workers, balance)
    }
}

/// Is a collection of generations `0..=collect_gen` parallel under `-qg`?
pub fn parallel_for(flags: &RtsFlags, collect_gen: usize) -> bool {
    flags.par_gc_gen.is_some_and(|g| collect_gen >= g)
}

// Note [Roots by capability]
// ----------------------------------------
// Each capability's roots and mutable lists go, whole, to one GC thread:
// the leader's capability to thread 0 (the leader itself), the next to
// thread 1, and so on round the threads, as GHC gives each GC thread its
// own capability's roots, which are warm in that core's cache. A first
// version dealt all roots out in equal slices instead; a single-threaded
// program's few roots then often landed on a pool thread, so that without
// load balancing every minor GC waited for that thread to wake up while
// the leader had nothing to do (lru, -N2 -qn2: minor GCs 1.45x slower than
// with one GC thread, all the copying done by thread 1).

/// The GC thread that takes capability `cap`'s roots.
fn owner(cap: usize, leader: usize, caps: usize, threads: usize) -> usize {
    (cap + caps - leader) % caps % threads
}

/// A root slot handed to one GC thread.
struct RootSlot(*mut Word);

// SAFETY: each root slot is given to exactly one GC thread, which alone
// reads and updates it during the GC.
unsafe impl Send for RootSlot {}

/// One GC thread's part of a parallel collection.
struct ThreadPart<'h> {
    gct: GcThread<'h>,
    roots: Vec<RootSlot>,
    mut_entries: Vec<(ObjPtr, usize)>,
}

/// Deal the roots and mutable-list entries out to `threads` GC threads
/// (See Note [Roots by capability]); the stable pointers go to thread 0.
fn deal_roots(ctx: &mut GcContext<'_>, threads: usize, collect_gen: usize) -> Vec<(Vec<RootSlot>, Vec<(ObjPtr, usize)>)> {
    let mut shares: Vec<(Vec<RootSlot>, Vec<(ObjPtr, usize)>)> = (0..threads).map(|_| (Vec::new(), Vec::new())).collect();
    let caps = ctx.caps.len();
    for (c, cap) in ctx.caps.iter_mut().enumerate() {
        let (roots, entries) = &mut shares[owner(c, ctx.leader, caps, threads)];
        roots.extend(capability_root_slots(cap).into_iter().map(RootSlot));
        entries.extend(take_capability_mut_lists(cap, collect_gen));
    }
    shares[0].0.extend(ctx.stable_ptrs.roots_mut().map(|r| RootSlot(r as *mut Word)));
    shares
}

/// One parallel copying collection (See the module doc).
fn par_copy_collect(req: &GcRequest, ctx: &mut GcContext<'_>, workers: &GcWorkers, balance: bool) -> GcOutcome {
    let n = req.collect_gen;
    let threads = workers.threads();
    from_space::prepare(&mut ctx.heap.gens, n);
    let shares = deal_roots(ctx, threads, n);
    let Heap { layout, blocks, gens, .. } = &mut *ctx.heap;
    let (queues, stealers) = if balance { Team::deques(threads) } else { (Vec::new(), Vec::new()) };
    let mut queues = queues.into_iter();
    let idle = AtomicUsize::new(0);
    let parts: Vec<Mutex<ThreadPart<'_>>> = shares
        .into_iter()
        .map(|(roots, mut_entries)| {
            let mut gct = GcThread::new(*layout, n, gens.len(), blocks);
            gct.parallel = true;
            gct.todo_q = queues.next();
            gct.idle_threads = balance.then_some(&idle);
            Mutex::new(ThreadPart { gct, roots, mut_entries })
        })
        .collect();
    let team = Team::new(stealers, &idle, workers.heartbeats());
    let gens_ro: &[gclab_core::generation::Generation] = gens;
    let job = |i: usize| {
        let mut part = parts[i].lock().unwrap_or_else(|e| e.into_inner());
        let ThreadPart { gct, roots, mut_entries } = &mut *part;
        // SAFETY: the runtime gives the collector the heap exclusively and
        // the collector shares it among its threads: each root slot and
        // mutable-list entry is one thread's, each to-space block is one
        // thread's at a time, and from-space objects are claimed atomically.
        unsafe {
            gct.evac_gen = 0;
            for slot in roots.iter() {
                evacuate(gct, slot.0);
            }
            for &(obj, gen) in mut_entries.iter() {
                scavenge_mut_list_entry(gct, obj.0, gen);
            }
            if i == 0 {
                trace_uncollected_weaks(gct, gens_ro);
            }
            team.beat(i);
            scavenge_until_all_done(gct, &team, i);
        }
    };
    if let Err(why) = workers.run(&job, &|| team.abort()) {
        panic!("parallel collector: {why}");
    }
    let mut threads: Vec<GcThread<'_>> = parts.into_iter().map(|p| p.into_inner().unwrap_or_else(|e| e.into_inner()).gct).collect();
    // SAFETY: as above, now on this thread alone: every GC thread is done.
    unsafe { process_weak_ptrs(&mut threads[0], gens, ctx.caps) };
    from_space::install(gens, ctx.caps, blocks, &mut threads, n);
    let work: Vec<_> = threads.iter().map(|t| t.work).collect();
    GcOutcome { collected_gen: n, copied_words: work.iter().map(|w| w.copied_words).sum(), threads: work, compacted: false }
}

#[cfg(test)]
mod tests {
    use super::owner;

    #[test]
    fn the_leader_gets_thread_0_and_every_thread_some_capabilities() {
        assert_eq!(owner(2, 2, 4, 4), 0, "the leader's capability goes to thread 0");
        let threads: Vec<usize> = (0..4).map(|c| owner(c, 1, 4, 4)).collect();
        assert_eq!(threads, [3, 0, 1, 2]);
        let threads: Vec<usize> = (0..4).map(|c| owner(c, 0, 4, 2)).collect();
        assert_eq!(threads, [0, 1, 0, 1], "more capabilities than GC threads: round the threads");
    }
}
