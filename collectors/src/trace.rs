//! Tracing: find everything live and leave it where the collection wants
//! it, on one GC thread or on several (GHC's `GC.c` between
//! `prepare_collected_gen` and the end of `scavenge_until_all_done`, plus
//! `MarkWeak.c`).
//!
//! The sequence every tracing collector runs between preparing its
//! from-space and installing its to-space:
//!
//! 1. evacuate the roots (`roots`), after a partial collection's
//!    remembered slots (See Note [Increments] in `from_space`);
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
//! claimed by compare-and-swap, immutable ones excepted (See Note
//! [Claiming an object] and Note [Copying an immutable object twice] in
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
//!
//! Note [A GC that wakes no one]
//! ----------------------------------------
//! Without balancing, a pool thread is woken only if its own share has
//! roots (See Note [Waking only threads with work] in `gc_workers`). When
//! no share but the leader's has any, as at every minor GC of a program
//! with one mutator, the leader does every share alone, so it traces as
//! the sequential collector does (`trace_live`), without dealing the
//! roots out or making the pool threads' `GcThread`s, gates and company
//! that nothing would use. The GC still counts as one of `-qn` threads in
//! which the pool threads did nothing, as before: `outcome` is told the
//! team's size. Measured with cachegrind on linear (`-N2`, 284 GCs that
//! relink large objects and copy nothing): the GCs at `-qn2` executed
//! 6.6% more instructions than at `-qn1` before, about 5,000 a GC, most of
//! them in `malloc` and `free`; after, 1.8% more.

use crate::evacuate::evacuate;
use crate::gc_thread::GcThread;
use crate::gc_workers::{Arrival, Company, GcWorkers};
use crate::roots::{capability_has_roots, capability_root_slots, evacuate_remembered, evacuate_roots, scavenge_and_empty_mut_lists, scavenge_mut_lists, take_capability_mut_lists, RememberedSlot};
use crate::scavenge::scavenge_loop;
use crate::weak_ptrs::{process_weak_ptrs, trace_uncollected_weaks};
use crate::parallel_scavenge::scavenge_until_all_done;
use crate::work_stealing::{Roster, Team};
use gclab_core::capability::Capability;
use gclab_core::constants::Word;
use gclab_core::generation::{Generation, ObjPtr};
use gclab_core::lock::Lock;
use gclab_core::stable_ptr::StablePtrTable;
use gclab_core::{GcOutcome, ThreadWork};
use gclab_core::shim::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Trace everything live on one GC thread (See the module doc).
///
/// # Safety
/// The GC must hold the heap, the collected generations must be prepared
/// as from-space (or flagged to be marked in place), and every root and
/// heap slot must hold a valid object address.
// SAFETY: the caller's contract above; each step relies on nothing else.
pub unsafe fn trace_live(gct: &mut GcThread<'_>, gens: &mut [Generation], caps: &mut [Capability], stable: &mut StablePtrTable) {
    evacuate_roots(gct, caps, stable);
    scavenge_and_empty_mut_lists(gct, caps);
    trace_uncollected_weaks(gct, gens);
    scavenge_loop(gct);
    process_weak_ptrs(gct, gens, caps);
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

/// One GC thread's roots and mutable-list entries.
type RootShare = (Vec<RootSlot>, Vec<(ObjPtr, usize)>);

/// Deal the roots and mutable-list entries out to `threads` GC threads
/// (See Note [Roots by capability]); the stable pointers go to thread 0.
fn deal_roots(caps: &mut [Capability], stable: &mut StablePtrTable, leader: usize, threads: usize, collect_gen: usize) -> Vec<Share> {
    let mut dealt: Vec<RootShare> = (0..threads).map(|_| (Vec::new(), Vec::new())).collect();
    let n = caps.len();
    for (c, cap) in caps.iter_mut().enumerate() {
        let (roots, entries) = &mut dealt[owner(c, leader, n, threads)];
        roots.extend(capability_root_slots(cap).map(RootSlot));
        entries.extend(take_capability_mut_lists(cap, collect_gen));
    }
    // Whether a share has roots is asked before the stable pointers join
    // the leader's: they alone wake no thread.
    let has_roots: Vec<bool> = dealt.iter().map(|(roots, entries)| !roots.is_empty() || !entries.is_empty()).collect();
    dealt[0].0.extend(stable.roots_mut().map(|r| RootSlot(r as *mut Word)));
    dealt.into_iter().zip(has_roots).map(|(start, has_roots)| Share { claimed: AtomicBool::new(false), has_roots, start: Lock::new(start) }).collect()
}

/// Would a GC without balancing wake a pool thread: does a capability
/// whose share is not the leader's have roots? (See Note [A GC that wakes
/// no one].)
fn pool_threads_have_roots(caps: &mut [Capability], leader: usize, threads: usize, collect_gen: usize) -> bool {
    let n = caps.len();
    caps.iter_mut().enumerate().any(|(c, cap)| owner(c, leader, n, threads) != 0 && capability_has_roots(cap, collect_gen))
}

/// A share of roots and mutable-list entries, and whether a GC thread has
/// claimed it (See Note [Late GC threads] in `gc_workers`).
struct Share {
    claimed: AtomicBool,
    /// Do its capabilities have roots (the stable pointers, which go to
    /// the leader's share, aside)? A thread without balancing is woken only
    /// for a share that has.
    has_roots: bool,
    /// The roots and entries, for the thread that claims the share.
    start: Lock<RootShare>,
}

impl Share {
    /// Claim it: true for the one thread that gets it.
    fn claim(&self) -> bool {
        !self.claimed.swap(true, Ordering::AcqRel)
    }
}

/// Trace everything live with the GC threads of `workers`, the leader
/// with `first` and each other from a fresh `GcThread` made by `make`;
/// returns the threads (thread 0 first) for the collector to install.
/// `leader` is the capability whose mutator runs this GC; `balance` turns
/// on work stealing.
///
/// # Safety
/// As for `trace_live`.
// SAFETY: the caller's contract; see the comment at the parallel section.
#[allow(clippy::too_many_arguments)]
pub unsafe fn trace_parallel<'h>(
    first: GcThread<'h>,
    make: &dyn Fn() -> GcThread<'h>,
    gens: &mut [Generation],
    caps: &mut [Capability],
    stable: &mut StablePtrTable,
    leader: usize,
    workers: &GcWorkers,
    balance: bool,
) -> Vec<GcThread<'h>> {
    let threads = workers.threads();
    let collect_gen = first.collect_gen;
    let shares = deal_roots(caps, stable, leader, threads, collect_gen);
    let (queues, stealers) = if balance { Team::deques(threads) } else { (Vec::new(), Vec::new()) };
    let mut queues = queues.into_iter();
    let roster = Arc::new(Roster::new());
    let mut first = Some(first);
    let gcts: Vec<Lock<GcThread<'_>>> = (0..threads)
        .map(|_| {
            let mut gct = first.take().unwrap_or_else(make);
            gct.parallel = true;
            gct.todo_q = queues.next();
            gct.roster = balance.then(|| roster.clone());
            Lock::new(gct)
        })
        .collect();
    let team = Team::new(stealers, &roster, workers.heartbeats());
    let gens_ro: &[Generation] = gens;
    // Evacuate share `i` into `gct`'s to-space.
    let evacuate_share = |gct: &mut GcThread<'_>, i: usize| {
        let share = shares[i].start.lock();
        let (roots, mut_entries) = &*share;
        // SAFETY: the runtime gives the collector the heap exclusively and
        // the collector shares it among its threads: each share of roots
        // and mutable-list entries is one thread's (claimed), each
        // to-space block is one thread's at a time, from-space objects are
        // claimed atomically (or by a thread alone), and marks are set
        // atomically.
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
        }
    };
    // Each thread takes its own share first, then any share left
    // unclaimed (See Note [Late GC threads] in `gc_workers`). In a
    // balanced team it takes them all before it scavenges, stealing, until
    // the team closes; without balancing it scavenges after each share, so
    // that a late thread finds its own share still there.
    let job = |me: usize, company: Option<&Company>| {
        if balance && me != 0 && !roster.join() {
            return; // the team finished without this thread
        }
        let came_in = Instant::now();
        let mut gct = gcts[me].lock();
        gct.company = company.cloned();
        gct.poll_company();
        let order = (me..threads).chain(0..me);
        // SAFETY: as in `evacuate_share`.
        unsafe {
            if balance {
                for i in order {
                    if shares[i].claim() {
                        evacuate_share(&mut gct, i);
                    }
                }
                team.beat(me);
                scavenge_until_all_done(&mut gct, &team, me);
            } else {
                for i in order {
                    if shares[i].claim() {
                        evacuate_share(&mut gct, i);
                        team.beat(me);
                        scavenge_loop(&mut gct);
                    }
                }
            }
        }
        gct.company = None;
        gct.work.active = Some((came_in, Instant::now()));
    };
    let arrival = if balance { Arrival::Open } else { Arrival::Admitted };
    // Without balancing a thread can only do shares, so only those whose
    // own share has roots are woken (See Note [Waking only threads with
    // work]).
    if let Err(why) = workers.run(&job, &|| team.abort(), arrival, &|i| shares[i].has_roots) {
        panic!("parallel collector: {why}");
    }
    let mut threads: Vec<GcThread<'h>> = gcts.into_iter().map(Lock::into_inner).collect();
    // On this thread alone now: every GC thread is done.
    threads[0].parallel = false;
    process_weak_ptrs(&mut threads[0], gens, caps);
    threads
}

/// Trace on one thread, or on the threads of `workers` with or without
/// balancing (See `trace_live` and `trace_parallel`); without balancing,
/// on the leader alone if no other thread would be woken (See Note [A GC
/// that wakes no one]).
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
    // SAFETY: the caller's contract.
    unsafe { trace_remembering(make, gens, caps, stable, &[], leader, workers) }
}

/// `trace_with` for a partial collection: `remembered` are the slots that
/// point into its increment from outside from-space (See Note
/// [Increments] in `from_space`).
///
/// # Safety
/// As for `trace_live`; each remembered slot is a field of a live object
/// outside from-space.
// SAFETY: the caller's contract.
pub unsafe fn trace_remembering<'h>(
    make: &dyn Fn() -> GcThread<'h>,
    gens: &mut [Generation],
    caps: &mut [Capability],
    stable: &mut StablePtrTable,
    remembered: &[RememberedSlot],
    leader: usize,
    workers: Option<(&GcWorkers, bool)>,
) -> Vec<GcThread<'h>> {
    let mut gct = make();
    gct.resume_part_filled(gens);
    // Before any root: See `evacuate_remembered`.
    evacuate_remembered(&mut gct, remembered);
    match workers {
        Some((w, balance)) if w.threads() > 1 && (balance || pool_threads_have_roots(caps, leader, w.threads(), gct.collect_gen)) => {
            trace_parallel(gct, make, gens, caps, stable, leader, w, balance)
        }
        _ => {
            let came_in = Instant::now();
            trace_live(&mut gct, gens, caps, stable);
            if workers.is_some() {
                gct.work.active = Some((came_in, Instant::now()));
            }
            vec![gct]
        }
    }
}

/// The GC threads a collection had: `-qn` with `workers`, else one. A
/// pool thread that was never woken is among them (See Note [A GC that
/// wakes no one]).
pub fn team_size(workers: Option<(&GcWorkers, bool)>) -> usize {
    workers.map_or(1, |(w, _)| w.threads())
}

/// What the GC threads of a collection of `0..=collected_gen` did, for
/// the runtime (the collector fills in what it did besides tracing); a
/// thread of the `team` that never ran did nothing.
pub fn outcome(collected_gen: usize, threads: &[GcThread<'_>], team: usize) -> GcOutcome {
    // One allocation of the team's size: growing a vector of the threads
    // that ran to it cost a `realloc` in every GC that woke no one.
    let len = team.max(threads.len());
    let mut work: Vec<ThreadWork> = Vec::with_capacity(len);
    work.extend(threads.iter().map(|t| t.work));
    work.resize(len, ThreadWork::default());
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
