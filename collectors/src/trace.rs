//! Tracing: find everything live and leave it where the collection wants
//! it, on one GC thread or on several (GHC's `GC.c` between
//! `prepare_collected_gen` and the end of `scavenge_until_all_done`, plus
//! `MarkWeak.c`).
//!
//! The sequence every tracing collector runs between preparing its
//! from-space and installing its to-space:
//!
//! 1. evacuate the roots (`roots`);
//! 2. scan the mutable lists of the generations not being collected;
//! 3. trace the weak pointers of those generations strongly;
//! 4. scavenge until nothing is left to scan;
//! 5. judge the weak pointers of the collected generations, scavenging
//!    what the surviving ones keep alive (`weak_ptrs`).
//!
//! Whether an object is copied (and to which space) or marked in place is
//! `evacuate`'s business, decided by the flags of the object's block and
//! the GC threads' to-spaces, so copying, compacting and mark-sweep
//! collections all trace with this one driver.
//!
//! With several GC threads (`trace_parallel`), steps 1-4 run on every
//! thread at once: each capability's roots and mutable lists go to one
//! thread (See Note [Roots by capability]), thread 0 also takes the stable
//! pointers and the weak pointers of uncollected generations, objects are
//! claimed by compare-and-swap (See Note [Claiming an object] in
//! `evacuate`), and full to-space blocks are stolen between threads when
//! balancing is on (`work_stealing`). Step 5 then runs on thread 0 alone:
//! weak pointers are few.
//!
//! Note [Roots by capability]
//! ----------------------------------------
//! Each capability's roots and mutable lists go, whole, to one GC thread:
//! the leader's capability to thread 0 (the leader itself), the next to
//! thread 1, and so on round the threads, as GHC gives each GC thread its
//! own capability's roots, which are warm in that core's cache. A first
//! version dealt all roots out in equal slices instead; a single-threaded
//! program's few roots then often landed on a pool thread, so that without
//! load balancing every minor GC waited for that thread to wake up while
//! the leader had nothing to do (lru, -N2 -qn2: minor GCs 1.45x slower than
//! with one GC thread, all the copying done by thread 1). Without load
//! balancing a thread's share is only its first choice: a share whose
//! thread is late goes to whichever thread reaches it first (See Note
//! [Late GC threads] in `gc_workers`).

use crate::evacuate::evacuate;
use crate::gc_thread::GcThread;
use crate::gc_workers::{Company, GcWorkers, Late};
use crate::roots::{capability_root_slots, evacuate_roots, scavenge_mut_lists, take_capability_mut_lists, take_mut_lists};
use crate::scavenge::scavenge_loop;
use crate::weak_ptrs::{process_weak_ptrs, trace_uncollected_weaks};
use crate::work_stealing::{scavenge_until_all_done, Team};
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::lock::Lock;
use gclab_core::stable_ptr::StablePtrTable;
use gclab_core::{GcOutcome, RtsFlags, ThreadWork};
use gclab_core::shim::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Trace everything live on one GC thread (See the module doc).
///
/// # Safety
/// The GC must hold the heap, the collected generations must be prepared
/// as from-space (or flagged to be marked in place), and every root and
/// heap slot must hold a valid object address.
// SAFETY: the caller's contract above; each step relies on nothing else.
pub unsafe fn trace_live(gct: &mut GcThread<'_>, gens: &mut [Generation], caps: &mut [Capability], stable: &mut StablePtrTable) {
    evacuate_roots(gct, caps, stable);
    let entries = take_mut_lists(caps, gct.collect_gen);
    scavenge_mut_lists(gct, &entries);
    trace_uncollected_weaks(gct, gens);
    scavenge_loop(gct);
    process_weak_ptrs(gct, gens, caps);
}

/// How many GC threads a collection of `0..=collect_gen` uses: `-qn`
/// (default `-N`) when `-qg` makes it parallel, else one.
pub fn gc_threads_for(flags: &RtsFlags, collect_gen: usize) -> usize {
    if flags.par_gc_gen.is_some_and(|g| collect_gen >= g) {
        flags.gc_threads()
    } else {
        1
    }
}

/// Does `-qb` ask for load balancing in a parallel collection of
/// `0..=collect_gen`?
pub fn balance_for(flags: &RtsFlags, collect_gen: usize) -> bool {
    flags.par_balance_gen().is_some_and(|g| collect_gen >= g)
}

/// The GC thread that takes capability `cap`'s roots (See Note [Roots by
/// capability]).
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

impl ThreadPart<'_> {
    /// Does this part start from anything?
    fn has_roots(&self) -> bool {
        !self.roots.is_empty() || !self.mut_entries.is_empty()
    }
}

/// One GC thread's roots and mutable-list entries.
type RootShare = (Vec<RootSlot>, Vec<(ObjPtr, usize)>);

/// Deal the roots and mutable-list entries out to `threads` GC threads
/// (See Note [Roots by capability]); the stable pointers go to thread 0.
fn deal_roots(caps: &mut [Capability], stable: &mut StablePtrTable, leader: usize, threads: usize, collect_gen: usize) -> Vec<RootShare> {
    let mut shares: Vec<RootShare> = (0..threads).map(|_| (Vec::new(), Vec::new())).collect();
    let n = caps.len();
    for (c, cap) in caps.iter_mut().enumerate() {
        let (roots, entries) = &mut shares[owner(c, leader, n, threads)];
        roots.extend(capability_root_slots(cap).into_iter().map(RootSlot));
        entries.extend(take_capability_mut_lists(cap, collect_gen));
    }
    shares[0].0.extend(stable.roots_mut().map(|r| RootSlot(r as *mut Word)));
    shares
}

/// Trace everything live with the GC threads of `workers`, each starting
/// from a fresh `GcThread` made by `make`; returns the threads (thread 0
/// first) for the collector to install. `leader` is the capability whose
/// mutator runs this GC; `balance` turns on work stealing.
///
/// # Safety
/// As for `trace_live`.
// SAFETY: the caller's contract; see the comment at the parallel section.
#[allow(clippy::too_many_arguments)]
pub unsafe fn trace_parallel<'h>(
    make: &dyn Fn() -> GcThread<'h>,
    gens: &mut [Generation],
    caps: &mut [Capability],
    stable: &mut StablePtrTable,
    leader: usize,
    workers: &GcWorkers,
    balance: bool,
) -> Vec<GcThread<'h>> {
    let threads = workers.threads();
    let first = make();
    let collect_gen = first.collect_gen;
    let shares = deal_roots(caps, stable, leader, threads, collect_gen);
    let (queues, stealers) = if balance { Team::deques(threads) } else { (Vec::new(), Vec::new()) };
    let mut queues = queues.into_iter();
    let idle = Arc::new(AtomicUsize::new(0));
    let mut first = Some(first);
    let parts: Vec<Lock<ThreadPart<'_>>> = shares
        .into_iter()
        .map(|(roots, mut_entries)| {
            let mut gct = first.take().unwrap_or_else(make);
            gct.todo_q = queues.next();
            gct.idle_threads = balance.then(|| idle.clone());
            Lock::new(ThreadPart { gct, roots, mut_entries })
        })
        .collect();
    let team = Team::new(stealers, &idle, workers.heartbeats());
    let gens_ro: &[Generation] = gens;
    // Thread `me` runs part `i`: its roots and mutable-list entries, and
    // everything copied into its to-space.
    let run_part = |i: usize, me: usize, company: Option<&Company>| {
        let mut part = parts[i].lock();
        let ThreadPart { gct, roots, mut_entries } = &mut *part;
        gct.parallel = true;
        gct.company = company.cloned();
        gct.poll_company();
        // SAFETY: the runtime gives the collector the heap exclusively and
        // the collector shares it among its threads: each root slot and
        // mutable-list entry is one part's, each part is one thread's,
        // each to-space block is one thread's at a time, from-space
        // objects are claimed atomically, and marks are set atomically.
        unsafe {
            gct.evac_gen = 0;
            for slot in roots.iter() {
                evacuate(gct, slot.0);
            }
            gct.poll_company();
            scavenge_mut_lists(gct, mut_entries);
            if i == 0 {
                trace_uncollected_weaks(gct, gens_ro);
            }
            team.beat(me);
            if balance {
                scavenge_until_all_done(gct, &team, i);
            } else {
                scavenge_loop(gct);
            }
        }
        gct.company = None;
    };
    // Without balancing, any thread may run any part (See Note [Late GC
    // threads] in `gc_workers`): its own first, then any left unclaimed.
    let ran_by: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(usize::MAX)).collect();
    let job = |me: usize, company: Option<&Company>| {
        if balance {
            return run_part(me, me, None);
        }
        for i in (me..threads).chain(0..me) {
            if ran_by[i].compare_exchange(usize::MAX, me, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                run_part(i, me, company);
            }
        }
    };
    let late = if balance { Late::Wait } else { Late::Cancel };
    // Without balancing a thread can only do parts, so only those whose
    // part has roots are woken (See Note [Waking only threads with work]).
    let has_roots: Vec<bool> = parts.iter().map(|p| p.lock().has_roots()).collect();
    if let Err(why) = workers.run(&job, &|| team.abort(), late, &|i| has_roots[i]) {
        panic!("parallel collector: {why}");
    }
    let mut threads: Vec<GcThread<'h>> = parts.into_iter().map(|p| p.into_inner().gct).collect();
    // Each part's work is counted to the thread that did it.
    for (i, by) in ran_by.iter().enumerate() {
        let me = by.load(Ordering::Relaxed);
        if me != i && me != usize::MAX {
            let work = std::mem::take(&mut threads[i].work);
            threads[me].work += work;
        }
    }
    // On this thread alone now: every GC thread is done.
    threads[0].parallel = false;
    process_weak_ptrs(&mut threads[0], gens, caps);
    threads
}

/// Trace on one thread, or on the threads of `workers` with or without
/// balancing (See `trace_live` and `trace_parallel`).
///
/// # Safety
/// As for `trace_live`.
// SAFETY: the caller's contract.
pub unsafe fn trace_with<'h>(
    make: &dyn Fn() -> GcThread<'h>,
    gens: &mut [Generation],
    caps: &mut [Capability],
    stable: &mut StablePtrTable,
    leader: usize,
    workers: Option<(&GcWorkers, bool)>,
) -> Vec<GcThread<'h>> {
    match workers {
        Some((w, balance)) if w.threads() > 1 => trace_parallel(make, gens, caps, stable, leader, w, balance),
        _ => {
            let mut gct = make();
            trace_live(&mut gct, gens, caps, stable);
            vec![gct]
        }
    }
}

/// What the GC threads of a collection of `0..=collected_gen` did, for
/// the runtime (the collector fills in what it did besides tracing).
pub fn outcome(collected_gen: usize, threads: &[GcThread<'_>]) -> GcOutcome {
    let work: Vec<ThreadWork> = threads.iter().map(|t| t.work).collect();
    GcOutcome {
        collected_gen,
        copied_words: work.iter().map(|w| w.copied_words).sum(),
        marked_words: work.iter().map(|w| w.marked_words).sum(),
        threads: work,
        ..GcOutcome::default()
    }
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
