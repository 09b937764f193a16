//! Load balancing and termination for the GC threads of one parallel GC
//! (GHC's `scavenge_until_all_done` and `steal_todo_block`): the protocol,
//! generic in its unit of work; `parallel_scavenge` runs it with the GC
//! threads' blocks.
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
//! Invariant kept: `until_all_done` returns only when every GC
//! thread is idle and no work is left anywhere (or the GC was aborted).
//!
//! Note [Termination of a parallel scavenge]
//! ----------------------------------------
//! A thread counts itself idle (`idle += 1`) only after its own scan found
//! nothing: its deque empty, its current block scanned, no large object or
//! marked object pending. Only a thread's owner pushes onto its deque, and
//! only while not idle; a thief uncounts itself (`idle -= 1`) *before* it
//! steals. So when `idle` reaches the number of members, every deque is
//! empty and no thread holds a block, and no thread can find work again:
//! the team closes and every thread may return. A thread that sees work
//! while idle leaves the idle count and tries to steal; if it loses the
//! race it counts itself idle again.
//!
//! Note [Joining a team late]
//! ----------------------------------------
//! A team does not wait for its pool threads to wake up (See Note [Late GC
//! threads] in `gc_workers`): its leader is a member from the start, and
//! a pool thread joins when it arrives, if the team is still open. The
//! members, the idle count and a closed bit share one word (`Roster`), so
//! that closing is one compare-and-swap that succeeds only if no one has
//! joined or left the idle count since the last look: a latecomer either
//! joined before the close (and the team cannot close until it is idle in
//! turn) or finds the team closed and returns without touching the heap.
//! Every share of roots is claimed, and evacuated, by a member before that
//! member goes idle, so when the team closes nothing is left behind. A GC
//! shorter than a wake-up is then done by its leader alone, as it would be
//! with one GC thread.
//!
//! The protocol (`until_all_done`) is generic in its unit of work, so that
//! loom can run it with a model of the GC threads' blocks; under `--cfg
//! loom` its deques are a mutex around a `VecDeque` (crossbeam's atomics
//! are invisible to loom), which keeps their contract: the owner pushes and
//! pops at one end, thieves steal at the other (See Note [Model checking
//! with loom] in core's `shim`).

#[cfg(not(loom))]
pub use crossbeam_deque::{Steal, Stealer, Worker};
use gclab_core::shim::{spin_loop, yield_now, AtomicBool, AtomicU64, Ordering};
#[cfg(loom)]
pub use model_deque::{Steal, Stealer, Worker};

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

/// Who is in a team and who of them is idle, in one word, so that the
/// team can close when all its members are idle, shutting out latecomers
/// in the same step (See Note [Joining a team late]).
#[derive(Debug)]
pub struct Roster(AtomicU64);

/// The roster's fields: idle members in the low half, members above,
/// and the top bit once the team has closed.
const IDLE: u64 = (1 << 32) - 1;
const MEMBER: u64 = 1 << 32;
const CLOSED: u64 = 1 << 63;

impl Roster {
    /// A team whose one member so far is its leader, GC thread 0.
    pub fn new() -> Roster {
        Roster(AtomicU64::new(MEMBER))
    }

    /// A latecomer asks to join: true if the team has not closed.
    pub fn join(&self) -> bool {
        let mut s = self.0.load(Ordering::SeqCst);
        loop {
            if s & CLOSED != 0 {
                return false;
            }
            match self.0.compare_exchange(s, s + MEMBER, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Members idle now.
    pub fn idle(&self) -> usize {
        (self.0.load(Ordering::Relaxed) & IDLE) as usize
    }

    /// Members so far.
    pub fn members(&self) -> usize {
        ((self.0.load(Ordering::SeqCst) & !CLOSED) >> 32) as usize
    }

    fn go_idle(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    fn go_busy(&self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }

    /// Has the team closed? If every member is idle, close it now.
    fn all_idle_then_close(&self) -> bool {
        let mut s = self.0.load(Ordering::SeqCst);
        loop {
            if s & CLOSED != 0 {
                return true;
            }
            if s & IDLE != (s >> 32) {
                return false;
            }
            match self.0.compare_exchange(s, s | CLOSED, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }
}

impl Default for Roster {
    fn default() -> Roster {
        Roster::new()
    }
}

/// What the GC threads of one parallel GC share; `W`, the unit of work.
pub struct Team<'a, W> {
    stealers: Vec<Stealer<W>>,
    roster: &'a Roster,
    abort: AtomicBool,
    heartbeats: &'a Heartbeats,
}

impl<'a, W> Team<'a, W> {
    /// A team of at most `heartbeats.len()` threads, whose members and
    /// idle ones `roster` counts (the threads' `GcThread::roster`);
    /// `stealers` is empty when load balancing is off.
    pub fn new(stealers: Vec<Stealer<W>>, roster: &'a Roster, heartbeats: &'a Heartbeats) -> Team<'a, W> {
        Team { stealers, roster, abort: AtomicBool::new(false), heartbeats }
    }

    /// A deque per thread, for load balancing: the workers (one per GC
    /// thread) and the stealers every thread may use.
    pub fn deques(threads: usize) -> (Vec<Worker<W>>, Vec<Stealer<W>>) {
        let workers: Vec<Worker<W>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let stealers = workers.iter().map(Worker::stealer).collect();
        (workers, stealers)
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
    fn steal(&self, me: usize) -> Option<W> {
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

/// The protocol of `parallel_scavenge::scavenge_until_all_done`, for any unit of work: thread
/// `me` calls `scan(None)` to scan what it holds, `scan(Some(w))` for what
/// it stole, until every thread is idle and no work is left (See Note
/// [Termination of a parallel scavenge]).
pub fn until_all_done<W>(team: &Team<'_, W>, me: usize, mut scan: impl FnMut(Option<W>)) {
    loop {
        scan(None);
        team.beat(me);
        if team.aborted() {
            return;
        }
        if let Some(work) = team.steal(me) {
            scan(Some(work));
            continue;
        }
        if wait_idle(team, me) {
            return;
        }
    }
}

/// Count thread `me` idle until every member is, closing the team (true),
/// or work shows up elsewhere (false, uncounted again).
fn wait_idle<W>(team: &Team<'_, W>, me: usize) -> bool {
    team.roster.go_idle();
    team.heartbeats.set_resting(me, true);
    let mut spins = 0u32;
    loop {
        if team.roster.all_idle_then_close() || team.aborted() {
            return true;
        }
        if team.work_elsewhere(me) {
            team.heartbeats.set_resting(me, false);
            team.roster.go_busy();
            return false;
        }
        spins += 1;
        if spins < 64 {
            spin_loop();
        } else {
            yield_now();
        }
    }
}

/// The deques under loom: a loom mutex around a `VecDeque`, with
/// crossbeam's interface and contract (the owner pushes and pops the
/// newest item, a thief steals the oldest).
#[cfg(loom)]
mod model_deque {
    use loom::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    /// The owner's end.
    pub struct Worker<W>(Arc<Mutex<VecDeque<W>>>);
    /// A thief's end.
    pub struct Stealer<W>(Arc<Mutex<VecDeque<W>>>);

    /// The result of a steal (crossbeam's; `Retry` never happens here).
    pub enum Steal<W> {
        /// The deque was empty.
        Empty,
        /// The oldest item.
        Success(W),
        /// Lost a race; try again.
        Retry,
    }

    impl<W> Worker<W> {
        /// An empty deque.
        pub fn new_lifo() -> Worker<W> {
            Worker(Arc::new(Mutex::new(VecDeque::new())))
        }

        /// A thief's end of this deque.
        pub fn stealer(&self) -> Stealer<W> {
            Stealer(self.0.clone())
        }

        /// Add the newest item.
        pub fn push(&self, w: W) {
            self.0.lock().unwrap().push_back(w);
        }

        /// Take the newest item.
        pub fn pop(&self) -> Option<W> {
            self.0.lock().unwrap().pop_back()
        }
    }

    impl<W> Clone for Stealer<W> {
        fn clone(&self) -> Stealer<W> {
            Stealer(self.0.clone())
        }
    }

    impl<W> Stealer<W> {
        /// Take the oldest item.
        pub fn steal(&self) -> Steal<W> {
            match self.0.lock().unwrap().pop_front() {
                Some(w) => Steal::Success(w),
                None => Steal::Empty,
            }
        }

        /// Is the deque empty (a moment ago)?
        pub fn is_empty(&self) -> bool {
            self.0.lock().unwrap().is_empty()
        }
    }
}
