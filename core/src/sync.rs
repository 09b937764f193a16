//! Stopping the world: how several mutator threads agree that a GC may run.
//!
//! Every mutator thread holds its capability while it runs. A GC needs all
//! of them stopped at a safe point (an allocation slow path, a `poll`, or a
//! blocking call made through `Mutator::safe_blocking`), holding no raw
//! heap address. `WorldSync` counts the running mutators; the one that
//! wants a GC becomes the *leader*, raises `gc_pending`, and waits until
//! it is the only one running; the others notice the flag at their next
//! safe point, stop, and sleep until the GC's *epoch* ends. This is GHC's
//! `requestSync`/`acquireAllCapabilities` in miniature, with one mutex and
//! one condition variable (See Note [One global sync]).
//!
//! Invariant kept: while a `WorldStopped` guard lives, no other mutator
//! runs; `gc_pending` is true from the moment a leader is chosen until its
//! GC has ended.
//!
//! Note [One global sync]
//! ----------------------------------------
//! GHC lets a capability that loses the race for a sync give up its own GC
//! and join the winner's, since any GC empties every nursery. We do the
//! same: `stop_the_world` returns `None` to a mutator that had to stop for
//! another leader, and a mutator that only needed nursery space simply
//! retries its allocation. A mutator that needs a GC of its own (a forced
//! or explicit one) asks again.
//!
//! Note [Spinning for a safe point]
//! ----------------------------------------
//! The leader waits until the other mutators have stopped. A running
//! mutator stops at its next allocation slow path, within microseconds
//! as a rule, and the leader slept on the condition variable meanwhile,
//! to be woken by the last one: a wake-up that took tens of
//! microseconds on this machine, and now and then hundreds, at every GC
//! of a program with several mutators. binary-trees 19 at `-N2 -qn2`
//! waited 120 ms at its 1,760 GCs (median 29 us, 90th percentile 106 us)
//! beside 549 ms of GC pauses. So the leader first spins, for up to
//! `SAFEPOINT_SPIN`, watching a copy of the running count kept outside
//! the lock (`running_now`), and sleeps only if a mutator is still
//! running then (one in a long loop that does not allocate, like
//! binary-trees' `check`). The count it sleeps on is still the one under
//! the lock, so the spin changes when the leader looks, never what it
//! sees; the loom model, which cannot run a clock, leaves it out.
//!
//! Note [Failures stop every mutator]
//! ----------------------------------------
//! A GC may end by unwinding (heap overflow, a sanity-check failure, a
//! panicking GC thread), and a mutator may panic. Either way the heap can
//! no longer be trusted, so the failure is recorded here and every other
//! mutator unwinds at its next safe point instead of running on. A heap
//! overflow keeps its kind, so that the run still ends with GHC's "heap
//! overflow" error whichever capability hit it.

use crate::lock::Lock;
use crate::policy::HeapExhausted;
use crate::shim::{reintroduced, AtomicBool, AtomicUsize, Condvar, MutexGuard, Ordering, Race};

/// Why the run can no longer go on (See Note [Failures stop every mutator]).
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The heap is exhausted (`-M`, or the OS refused memory).
    Exhausted(HeapExhausted),
    /// A mutator or a GC panicked; the text says where.
    Panicked(String),
}

#[derive(Debug, Default)]
struct SyncState {
    /// Mutators running (not stopped at a safe point, not blocked).
    running: usize,
    /// Is a leader waiting for, or running, a GC?
    leader: bool,
    /// Bumped at the end of every stopped-world period.
    epoch: u64,
    /// Set once, when the run fails.
    failed: Option<Failure>,
}

/// The world's stop/go state. One per runtime.
#[derive(Debug, Default)]
pub struct WorldSync {
    state: Lock<SyncState>,
    changed: Condvar,
    gc_pending: AtomicBool,
    /// `SyncState::running` as last set, for the leader to spin on
    /// without the lock (See Note [Spinning for a safe point]).
    running_now: AtomicUsize,
}

/// How long a leader spins for the other mutators to stop before it
/// sleeps (See Note [Spinning for a safe point]).
#[cfg(not(loom))]
const SAFEPOINT_SPIN: std::time::Duration = std::time::Duration::from_micros(200);

/// Held by the leader while the world is stopped; dropping it lets the
/// mutators go (or, while unwinding, fails the run).
#[must_use]
pub struct WorldStopped<'s> {
    sync: &'s WorldSync,
    /// How long the leader waited for the other mutators to stop: the
    /// time to safepoint.
    pub time_to_safepoint: std::time::Duration,
}

impl WorldSync {
    fn lock(&self) -> MutexGuard<'_, SyncState> {
        self.state.lock()
    }

    /// Change the running count by `delta`, under the lock, and publish it
    /// to a spinning leader.
    fn add_running(&self, st: &mut SyncState, delta: isize) {
        st.running = st.running.checked_add_signed(delta).expect("the running count never goes below zero");
        self.running_now.store(st.running, Ordering::Release);
    }

    /// The leader, before it sleeps: spin while another mutator runs, for
    /// up to `SAFEPOINT_SPIN` (See Note [Spinning for a safe point]).
    #[cfg(not(loom))]
    fn spin_until_alone(&self) {
        crate::gc_help::spin_until(SAFEPOINT_SPIN, || self.running_now.load(Ordering::Acquire) <= 1);
    }

    /// Under loom, which has no clock, the leader does not spin.
    #[cfg(loom)]
    fn spin_until_alone(&self) {}

    /// Has a leader asked the world to stop? (A relaxed read: a safe point
    /// that misses a fresh request sees it at the next one.)
    #[inline(always)]
    pub fn gc_pending(&self) -> bool {
        self.gc_pending.load(Ordering::Relaxed)
    }

    /// A mutator starts running (or comes back from a blocking call): it
    /// waits out a GC in progress.
    pub fn acquire(&self) -> Result<(), Failure> {
        let mut st = self.lock();
        while st.leader && st.failed.is_none() {
            st = crate::lock::wait(&self.changed, st);
        }
        self.add_running(&mut st, 1);
        match &st.failed {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        }
    }

    /// A mutator stops running (it ends, or blocks outside the heap).
    pub fn release(&self) {
        let mut st = self.lock();
        self.add_running(&mut st, -1);
        self.changed.notify_all();
    }

    /// Stop here for another mutator's GC, if one is pending, and wait
    /// until it ends.
    pub fn safe_point(&self) -> Result<(), Failure> {
        self.safe_point_helping(|| ())
    }

    /// `safe_point`, calling `meanwhile` once stopped and before sleeping
    /// (See Note [Stopped mutators help the GC] in `gc_help`).
    pub fn safe_point_helping(&self, meanwhile: impl FnOnce()) -> Result<(), Failure> {
        if !self.gc_pending() {
            return Ok(());
        }
        let st = self.lock();
        if !st.leader && st.failed.is_none() {
            return Ok(()); // that GC is over already
        }
        self.stop_until_next_epoch(st, meanwhile)
    }

    /// Become the leader of a GC: returns the guard once every other mutator
    /// has stopped, or `None` after stopping for another leader's GC (See
    /// Note [One global sync]).
    pub fn stop_the_world(&self) -> Result<Option<WorldStopped<'_>>, Failure> {
        self.stop_the_world_helping(|| ())
    }

    /// `stop_the_world`, calling `meanwhile` if this mutator stops for
    /// another leader's GC, once stopped and before sleeping.
    pub fn stop_the_world_helping(&self, meanwhile: impl FnOnce()) -> Result<Option<WorldStopped<'_>>, Failure> {
        let mut st = self.lock();
        if let Some(f) = &st.failed {
            return Err(f.clone());
        }
        if st.leader {
            return self.stop_until_next_epoch(st, meanwhile).map(|()| None);
        }
        st.leader = true;
        self.gc_pending.store(true, Ordering::Relaxed);
        let asked = std::time::Instant::now();
        if st.running > 1 {
            drop(st);
            self.spin_until_alone();
            st = self.lock();
        }
        while st.running > 1 {
            st = crate::lock::wait(&self.changed, st);
        }
        Ok(Some(WorldStopped { sync: self, time_to_safepoint: asked.elapsed() }))
    }

    fn stop_until_next_epoch(&self, mut st: MutexGuard<'_, SyncState>, meanwhile: impl FnOnce()) -> Result<(), Failure> {
        let epoch = st.epoch;
        self.add_running(&mut st, -1);
        self.changed.notify_all();
        drop(st);
        meanwhile();
        let mut st = self.lock();
        // Wait for the end of this GC, and of any GC a new leader started
        // before this mutator woke: it is not counted as running until then.
        let next_gc_started = |st: &SyncState| st.leader && !reintroduced(Race::WokenMutatorRunsDuringNextGc);
        while (st.epoch == epoch || next_gc_started(&st)) && st.failed.is_none() {
            st = crate::lock::wait(&self.changed, st);
        }
        self.add_running(&mut st, 1);
        match &st.failed {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        }
    }

    /// Record that the run failed; every mutator stops at its next safe
    /// point. The first failure recorded is the one kept.
    pub fn fail(&self, f: Failure) {
        let mut st = self.lock();
        if st.failed.is_none() {
            st.failed = Some(f);
        }
        self.gc_pending.store(true, Ordering::Relaxed);
        self.changed.notify_all();
    }

    /// The failure, if the run failed.
    pub fn failure(&self) -> Option<Failure> {
        self.lock().failed.clone()
    }
}

impl WorldStopped<'_> {
    /// End the GC with a failure instead of letting the mutators go.
    pub fn fail(self, f: Failure) {
        self.sync.fail(f);
    }
}

impl Drop for WorldStopped<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.sync.fail(Failure::Panicked("a GC failed on another capability".into()));
        }
        let mut st = self.sync.lock();
        st.leader = false;
        st.epoch += 1;
        if st.failed.is_none() {
            self.sync.gc_pending.store(false, Ordering::Relaxed);
        }
        self.sync.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn a_lone_mutator_leads_at_once() {
        let s = WorldSync::default();
        s.acquire().unwrap();
        let w = s.stop_the_world().unwrap();
        assert!(w.is_some());
        assert!(s.gc_pending());
        drop(w);
        assert!(!s.gc_pending());
    }

    #[test]
    fn the_leader_waits_for_every_mutator_and_losers_join_its_gc() {
        // Four mutators each want 50 GCs; a counter that only the leader
        // touches while the world is stopped must never see a second
        // mutator inside.
        let s = Arc::new(WorldSync::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let led = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (s, inside, led) = (s.clone(), inside.clone(), led.clone());
                s.acquire().unwrap();
                std::thread::spawn(move || {
                    // Release even when an assertion fails, so that the
                    // test fails instead of hanging.
                    struct Released(Arc<WorldSync>);
                    impl Drop for Released {
                        fn drop(&mut self) {
                            self.0.release();
                        }
                    }
                    let _released = Released(s.clone());
                    for i in 0..200 {
                        if i % 3 == 0 {
                            s.safe_point().unwrap();
                        }
                        // Running: no GC may be in progress.
                        assert_eq!(inside.load(Ordering::SeqCst), 0, "a mutator runs during a GC");
                        std::thread::yield_now();
                        assert_eq!(inside.load(Ordering::SeqCst), 0, "a mutator runs during a GC");
                        if let Some(w) = s.stop_the_world().unwrap() {
                            assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two mutators in a stopped world");
                            std::thread::yield_now();
                            inside.fetch_sub(1, Ordering::SeqCst);
                            led.fetch_add(1, Ordering::SeqCst);
                            drop(w);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(led.load(Ordering::SeqCst) >= 50, "at least one mutator's worth of GCs ran");
    }

    #[test]
    fn a_failure_reaches_stopped_mutators() {
        let s = Arc::new(WorldSync::default());
        s.acquire().unwrap();
        s.acquire().unwrap();
        let s2 = s.clone();
        let leader = std::thread::spawn(move || {
            let w = s2.stop_the_world().unwrap().expect("the first to ask leads");
            w.fail(Failure::Panicked("boom".into()));
        });
        while !s.gc_pending() {
            std::thread::yield_now();
        }
        assert_eq!(s.safe_point().unwrap_err(), Failure::Panicked("boom".into()));
        leader.join().unwrap();
        assert!(s.stop_the_world().is_err(), "a failed run stays failed");
    }
}

/// The handshake under loom (See Note [Model checking with loom] in
/// `shim`): every interleaving, within the preemption bound, of two
/// mutators stopping, leading and failing. Each mutator owns a nursery
/// (a loom cell) that it writes while it runs, and a GC writes every
/// nursery; loom reports two unsynchronised writes to one nursery, so a
/// mutator running during a GC fails the model.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::shim::{explore, Race};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    type Nurseries = Arc<Vec<UnsafeCell<u64>>>;

    fn nurseries(n: usize) -> Nurseries {
        Arc::new((0..n).map(|_| UnsafeCell::new(0)).collect())
    }

    /// Mutator `me` allocates in its nursery.
    fn allocate(nurseries: &Nurseries, me: usize) {
        // SAFETY: none, on purpose: loom fails the model if another thread
        // touches this nursery meanwhile, which is what the tests look for.
        nurseries[me].with_mut(|n| unsafe { *n += 1 });
    }

    /// A GC empties every nursery.
    fn collect(nurseries: &Nurseries) {
        for n in nurseries.iter() {
            // SAFETY: as in `allocate`.
            n.with_mut(|n| unsafe { *n = 0 });
        }
    }

    /// Mutator 0 runs two GCs back to back while mutator 1 passes two
    /// safe points: mutator 1 stops for the first GC and must not wake
    /// into the second.
    fn back_to_back_gcs() {
        let s = Arc::new(WorldSync::default());
        let nurseries = nurseries(2);
        s.acquire().unwrap();
        s.acquire().unwrap();
        let other = {
            let (s, nurseries) = (s.clone(), nurseries.clone());
            loom::thread::spawn(move || {
                for _ in 0..2 {
                    s.safe_point().unwrap();
                    allocate(&nurseries, 1);
                }
                s.release();
            })
        };
        for _ in 0..2 {
            if let Some(world) = s.stop_the_world().unwrap() {
                collect(&nurseries);
                drop(world);
            }
            allocate(&nurseries, 0);
        }
        s.release();
        other.join().unwrap();
    }

    #[test]
    fn a_woken_mutator_never_runs_during_the_next_gc() {
        assert!(explore("back-to-back GCs", None, None, back_to_back_gcs) > 1);
    }

    #[test]
    #[should_panic(expected = "Causality violation")]
    fn loom_finds_a_woken_mutator_running_during_the_next_gc() {
        explore("back-to-back GCs, race put back", Some(Race::WokenMutatorRunsDuringNextGc), None, back_to_back_gcs);
    }

    #[test]
    fn one_leader_at_a_time_and_the_loser_joins_its_gc() {
        let runs = explore("two would-be leaders", None, None, || {
            let s = Arc::new(WorldSync::default());
            let nurseries = nurseries(2);
            let led = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
            s.acquire().unwrap();
            s.acquire().unwrap();
            let mutator = |me: usize| {
                let (s, nurseries, led) = (s.clone(), nurseries.clone(), led.clone());
                move || {
                    allocate(&nurseries, me);
                    if let Some(world) = s.stop_the_world().unwrap() {
                        led.fetch_add(1, Ordering::SeqCst);
                        collect(&nurseries);
                        drop(world);
                    }
                    allocate(&nurseries, me);
                    s.release();
                }
            };
            let other = loom::thread::spawn(mutator(1));
            mutator(0)();
            other.join().unwrap();
            let led = led.load(Ordering::SeqCst);
            assert!(led == 1 || led == 2, "{led} leaders");
        });
        assert!(runs > 1);
    }

    #[test]
    fn three_mutators_each_leading_or_joining_a_gc() {
        let runs = explore("three mutators", None, Some(3), || {
            let s = Arc::new(WorldSync::default());
            let nurseries = nurseries(3);
            for _ in 0..3 {
                s.acquire().unwrap();
            }
            let mutator = |me: usize| {
                let (s, nurseries) = (s.clone(), nurseries.clone());
                move || {
                    if let Some(world) = s.stop_the_world().unwrap() {
                        collect(&nurseries);
                        drop(world);
                    }
                    allocate(&nurseries, me);
                    s.safe_point().unwrap();
                    allocate(&nurseries, me);
                    s.release();
                }
            };
            let others: Vec<_> = (1..3).map(|me| loom::thread::spawn(mutator(me))).collect();
            mutator(0)();
            for t in others {
                t.join().unwrap();
            }
        });
        assert!(runs > 1);
    }

    #[test]
    fn a_failure_reaches_a_stopped_mutator_and_later_arrivals() {
        let runs = explore("a failing GC", None, None, || {
            let s = Arc::new(WorldSync::default());
            s.acquire().unwrap();
            s.acquire().unwrap();
            let other = {
                let s = s.clone();
                loom::thread::spawn(move || loop {
                    match s.safe_point() {
                        Ok(()) => crate::shim::yield_now(),
                        Err(f) => break f,
                    }
                })
            };
            let world = s.stop_the_world().unwrap().expect("the other mutator never leads");
            world.fail(Failure::Panicked("boom".into()));
            assert_eq!(other.join().unwrap(), Failure::Panicked("boom".into()));
            assert!(s.acquire().is_err(), "a mutator arriving after the failure is refused");
            assert!(s.stop_the_world().is_err(), "a failed run stays failed");
        });
        assert!(runs > 1);
    }
}
