//! Load balancing and termination for the GC threads of one parallel GC
//! (GHC's `scavenge_until_all_done` and `steal_todo_block`).
//!
//! The unit of work is a full to-space block with unscanned objects (or,
//! See Note [Sharing part-filled blocks], half of a long scan stack). A GC
//! thread pushes each block it fills onto its own crossbeam deque (when
//! balancing is on; See `GcThread::todo_q`), scans its own blocks newest
//! first, and when it has nothing left it steals the oldest block of
//! another thread's deque. A stolen block becomes the thief's: the thief
//! scans it, copying what it reaches into its own to-space, and installs
//! it at the end. The block being filled is never shared, so a thread's
//! allocation never contends with a thief.
//!
//! Invariant kept: `scavenge_until_all_done` returns only when every GC
//! thread is idle and no work is left anywhere (or the GC was aborted).
//!
//! Note [Termination of a parallel scavenge]
//! ----------------------------------------
//! A thread counts itself idle (`idle += 1`) only after its own scan found
//! nothing: its deque empty, its current block scanned, no large object or
//! marked object pending. Only a thread's owner pushes onto its deque, and
//! only while not idle; a thief uncounts itself (`idle -= 1`) *before* it
//! steals. So when `idle` reaches the number of threads, every deque is
//! empty and no thread holds a block, and no thread can find work again:
//! every thread may return. A thread that sees work while idle leaves the
//! idle count and tries to steal; if it loses the race it counts itself
//! idle again. Without balancing, deques are absent, "work elsewhere" is
//! never seen, and the same count simply waits for the slowest thread.

use crate::gc_thread::GcThread;
use crate::gc_thread::Work;
use crate::scavenge::{scavenge_loop, scavenge_stolen};
use crossbeam_deque::{Steal, Stealer, Worker};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Progress marks of the GC threads, read by the watchdog (See
/// `gc_workers`): a thread that is busy but stops beating is stalled.
#[derive(Debug)]
pub struct Heartbeats {
    beats: Vec<AtomicU64>,
    resting: Vec<AtomicBool>,
}

impl Heartbeats {
    /// Marks for `threads` threads, all resting.
    pub fn new(threads: usize) -> Heartbeats {
        Heartbeats { beats: (0..threads).map(|_| AtomicU64::new(0)).collect(), resting: (0..threads).map(|_| AtomicBool::new(true)).collect() }
    }

    /// Number of threads.
    pub fn len(&self) -> usize {
        self.beats.len()
    }

    /// Never empty (a team has at least one thread).
    pub fn is_empty(&self) -> bool {
        self.beats.is_empty()
    }

    /// Thread `i` made progress.
    #[inline]
    pub fn beat(&self, i: usize) {
        self.beats[i].fetch_add(1, Ordering::Relaxed);
    }

    /// Thread `i` waits for others (idle) or has finished: it cannot stall.
    pub fn set_resting(&self, i: usize, resting: bool) {
        self.resting[i].store(resting, Ordering::Relaxed);
        self.beat(i);
    }

    /// Thread `i`'s beat count, or None while it rests.
    pub fn busy_beat(&self, i: usize) -> Option<u64> {
        (!self.resting[i].load(Ordering::Relaxed)).then(|| self.beats[i].load(Ordering::Relaxed))
    }
}

/// What the GC threads of one parallel GC share.
pub struct Team<'a> {
    stealers: Vec<Stealer<Work>>,
    idle: &'a AtomicUsize,
    abort: AtomicBool,
    heartbeats: &'a Heartbeats,
}

impl<'a> Team<'a> {
    /// A team of `heartbeats.len()` threads counting idle ones in `idle`
    /// (zero; the threads' `GcThread::idle_threads`); `stealers` is empty
    /// when load balancing is off.
    pub fn new(stealers: Vec<Stealer<Work>>, idle: &'a AtomicUsize, heartbeats: &'a Heartbeats) -> Team<'a> {
        Team { stealers, idle, abort: AtomicBool::new(false), heartbeats }
    }

    /// A deque per thread, for load balancing: the workers (one per GC
    /// thread) and the stealers every thread may use.
    pub fn deques(threads: usize) -> (Vec<Worker<Work>>, Vec<Stealer<Work>>) {
        let workers: Vec<Worker<Work>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let stealers = workers.iter().map(Worker::stealer).collect();
        (workers, stealers)
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.heartbeats.len()
    }

    /// Thread `me` made progress.
    pub fn beat(&self, me: usize) {
        self.heartbeats.beat(me);
    }

    /// Stop every thread as soon as it looks up (a thread failed).
    pub fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
    }

    /// Was the GC aborted?
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }

    /// Take a work item from another thread's deque, trying each once.
    fn steal(&self, me: usize) -> Option<Work> {
        let n = self.stealers.len();
        for k in 1..n {
            let victim = &self.stealers[(me + k) % n];
            loop {
                match victim.steal() {
                    Steal::Success(work) => return Some(work),
                    Steal::Empty => break,
                    Steal::Retry => continue,
                }
            }
        }
        None
    }

    fn work_elsewhere(&self, me: usize) -> bool {
        self.stealers.iter().enumerate().any(|(i, s)| i != me && !s.is_empty())
    }
}

/// Scan, steal and wait until every thread of the team is done (See Note
/// [Termination of a parallel scavenge]).
///
/// # Safety
/// As for `scavenge_loop`; `gct` is thread `me`'s, and every other thread
/// of the team runs this too.
// SAFETY: the team's threads scan disjoint blocks (each block is owned by one thread at a time) and claim objects atomically.
pub unsafe fn scavenge_until_all_done(gct: &mut GcThread<'_>, team: &Team<'_>, me: usize) {
    loop {
        scavenge_loop(gct);
        team.beat(me);
        if team.aborted() {
            return;
        }
        if let Some(work) = team.steal(me) {
            scavenge_stolen(gct, work);
            continue;
        }
        if wait_idle(team, me) {
            return;
        }
    }
}

/// Count thread `me` idle until everyone is (true) or work shows up
/// elsewhere (false, uncounted again).
fn wait_idle(team: &Team<'_>, me: usize) -> bool {
    team.idle.fetch_add(1, Ordering::SeqCst);
    team.heartbeats.set_resting(me, true);
    let mut spins = 0u32;
    loop {
        if team.idle.load(Ordering::SeqCst) == team.threads() || team.aborted() {
            return true;
        }
        if team.work_elsewhere(me) {
            team.heartbeats.set_resting(me, false);
            team.idle.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}
