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
//! Note [Failures stop every mutator]
//! ----------------------------------------
//! A GC may end by unwinding (heap overflow, a sanity-check failure, a
//! panicking GC thread), and a mutator may panic. Either way the heap can
//! no longer be trusted, so the failure is recorded here and every other
//! mutator unwinds at its next safe point instead of running on. A heap
//! overflow keeps its kind, so that the run still ends with GHC's "heap
//! overflow" error whichever capability hit it.

use crate::policy::HeapExhausted;
use std::sync::atomic::{AtomicBool, Ordering};
use crate::lock::Lock;
use std::sync::{Condvar, MutexGuard};

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
}

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
        st.running += 1;
        match &st.failed {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        }
    }

    /// A mutator stops running (it ends, or blocks outside the heap).
    pub fn release(&self) {
        let mut st = self.lock();
        st.running -= 1;
        self.changed.notify_all();
    }

    /// Stop here for another mutator's GC, if one is pending, and wait
    /// until it ends.
    pub fn safe_point(&self) -> Result<(), Failure> {
        if !self.gc_pending() {
            return Ok(());
        }
        let st = self.lock();
        if !st.leader && st.failed.is_none() {
            return Ok(()); // that GC is over already
        }
        self.stop_until_next_epoch(st)
    }

    /// Become the leader of a GC: returns the guard once every other mutator
    /// has stopped, or `None` after stopping for another leader's GC (See
    /// Note [One global sync]).
    pub fn stop_the_world(&self) -> Result<Option<WorldStopped<'_>>, Failure> {
        let mut st = self.lock();
        if let Some(f) = &st.failed {
            return Err(f.clone());
        }
        if st.leader {
            return self.stop_until_next_epoch(st).map(|()| None);
        }
        st.leader = true;
        self.gc_pending.store(true, Ordering::Relaxed);
        let asked = std::time::Instant::now();
        while st.running > 1 {
            st = crate::lock::wait(&self.changed, st);
        }
        Ok(Some(WorldStopped { sync: self, time_to_safepoint: asked.elapsed() }))
    }

    fn stop_until_next_epoch(&self, mut st: MutexGuard<'_, SyncState>) -> Result<(), Failure> {
        let epoch = st.epoch;
        st.running -= 1;
        self.changed.notify_all();
        // Wait for the end of this GC, and of any GC a new leader started
        // before this mutator woke: it is not counted as running until then.
        while (st.epoch == epoch || st.leader) && st.failed.is_none() {
            st = crate::lock::wait(&self.changed, st);
        }
        st.running += 1;
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
