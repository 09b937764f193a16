//! Parking: how a collector's own thread (the nonmoving marker, the
//! concurrent copier) stops between two pieces of work whenever the
//! collector asks, and says when it ran out of work (See Note [Pausing the
//! marker] in `concurrent_mark`).
//!
//! Invariant kept: once `pause` returns, the thread is at a checkpoint
//! (or drained, or gone) and stays there until `resume` or `go`; it never
//! holds a piece of work across a checkpoint that the collector could
//! invalidate.
//!
//! Note [A thread parks only when it runs]
//! ----------------------------------------
//! A pause waits for the thread to reach its next checkpoint, so it waits
//! as long as the thread is off its core, however little work is left
//! before the checkpoint. On the 2-core development machine, with the
//! mutator and a collector thread both busy, the kernel gives a third
//! task (a daemon of the machine's) a slice of one core now and then:
//! two spinning threads of a test program saw 2-45 gaps each of over 0.5 ms
//! in 3 s, the longest 4-6 ms, where one thread alone saw none over 0.1
//! ms. With a young GC every millisecond, the next GC after such a gap
//! waits for it: measured inside `pause`, the marker's, sweeper's and
//! copier's waits on binary-trees 20 were 0.5-2.9 ms, while each had done
//! 0.03-0.09 ms of CPU work since its last checkpoint. So the longest
//! pause of a concurrent collector on two cores (binary-trees 20: 4-8 ms)
//! measures the machine's scheduler as much as the collector. (Not only
//! the scheduler: on a 16-core machine the longest pauses were still 5-9
//! ms, the snapshots that begin a marking; See Note [Mark maps from
//! zeroed memory] in `mark`.) A pause
//! that did not wait (a young GC that runs beside a marker between
//! checkpoints, as GHC's nonmoving collector's do) would need the marker
//! to read no header of an object a GC may move or free; it reads one
//! for every field it greys (`in_snapshot`), so it is not done.
//!
//! Note [A waiting pause lends its core]
//! -------------------------------------
//! Most of those waits were not the thread's work. Timed in `pause`, with
//! the thread's own scheduler counts (`/proc/<pid>/task/<tid>/schedstat`)
//! read before and after: the line sweeper's longest wait in one run of
//! binary-trees 20 under `concurrent-copying` was 4.07 ms, of which it ran
//! 0.26 ms and sat runnable, queued behind another task on the other
//! core, 3.97 ms; meanwhile the waiting GC thread's own core was idle.
//! Linux does not pull such a thread onto a core that has just gone idle
//! when that core was busy moments before (the `sched_migration_cost`
//! rule), so the wait lasted the other task's whole slice.
//!
//! So a pause that has waited `LEND_AFTER` moves the thread onto the
//! waiter's core (`lend_core`: its CPU affinity narrowed to that one
//! core), where it runs as soon as the waiter blocks, and sets its
//! affinity back once it has parked. Lending only after a wait keeps the
//! common pause (the thread running, its checkpoint 0.05-0.2 ms away) as
//! it was: moving a running thread costs a migration. Measured the same
//! way, 12 runs of each build alternated: without lending, 9 waits over
//! 0.5 ms (0.62-3.82 ms, the sweeper queued for all but 0.01-0.02 ms of
//! each); with it, none over 0.5 ms, and the pauses that lent (none to
//! two a run) waited 0.32-0.33 ms. GHC's RTS, whose GC threads wait for
//! each other in the same way, pins threads to cores only on request
//! (`+RTS -qa`). The alternative that needs no scheduler at all, a pause
//! that does not wait, is the one above.
//!
//! What this leaves of the longest pauses on two cores is the GC thread's
//! own slice: the pauses of 2.6-5.6 ms that remain (early in a run, a few
//! a run or none) are the GC thread itself preempted, 1.6-4.7 ms of run
//! delay in one or two involuntary switches, while no thread of the
//! program ran. Nothing the program does can lend a core to itself.
//!
//! The loan is made and given back under the phase lock, while the
//! thread is known to run (it cannot pass `ExitGuard`, which takes the
//! lock): a thread id is reused once its thread has ended.
//!
//! `lxr`'s pauses wait the same way for its decrement threads to stop
//! (`DecrementThread::join`), and lend their core the same way (the wait
//! is `lend_core::wait_lending`, which both use). Timed inside the join,
//! binary-trees 20 under `lxr` on this machine, two runs each: joins that
//! waited over 0.3 ms took 14-23 ms in all, the longest 3.3-3.4 ms;
//! lending, 7-9 ms in all, the longest 1.1-2.6 ms. The longest RC pauses
//! (6-9 ms, `--json`'s `pause_max`) are their own work and did not move.

use crate::lend_core::{wait_lending, Borrower};
use gclab_core::SyncRequest;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Where the thread is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Working.
    Running,
    /// The collector wants it parked.
    PauseAsked,
    /// Parked at a checkpoint, for a GC or a sync.
    Paused,
    /// Out of work; a sync is asked for.
    Drained,
    /// Told to end.
    Stopping,
    /// The thread has ended (it finished, or it panicked): nothing will
    /// answer a pause any more, so one returns at once, as from a drained
    /// thread, and the collector's join then passes a panic on.
    Gone,
}

/// The parking state one collector thread shares with its collector.
#[derive(Debug)]
pub struct Parking {
    phase: Mutex<Phase>,
    wake: Condvar,
    /// Whose words go in panics' messages.
    what: &'static str,
    /// The thread, for a pause to lend its core to.
    borrower: Borrower,
    /// Pauses that lent their core.
    loans: AtomicUsize,
}

impl Parking {
    /// A running thread's parking state; `what` names the thread.
    pub fn new(what: &'static str) -> Parking {
        Parking { phase: Mutex::new(Phase::Running), wake: Condvar::new(), what, borrower: Borrower::default(), loans: AtomicUsize::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|_| panic!("{} phase", self.what))
    }

    /// The thread, between two pieces of work: park while the collector
    /// wants it; false when told to end.
    pub fn checkpoint(&self) -> bool {
        let mut phase = self.lock();
        loop {
            match *phase {
                Phase::Running => return true,
                Phase::Stopping | Phase::Gone => return false,
                Phase::PauseAsked => {
                    *phase = Phase::Paused;
                    self.wake.notify_all();
                }
                Phase::Paused | Phase::Drained => {}
            }
            phase = self.wake.wait(phase).unwrap_or_else(|_| panic!("{} phase", self.what));
        }
    }

    /// The thread ran out of work: ask for a sync through `request`
    /// (unless the collector is already pausing it, which it then finds
    /// drained).
    pub fn drained(&self, request: &SyncRequest) {
        let mut phase = self.lock();
        if matches!(*phase, Phase::Running | Phase::PauseAsked) {
            *phase = Phase::Drained;
            self.wake.notify_all();
            request.request();
        }
    }

    /// Park the thread at its next checkpoint and wait until it is, lending
    /// it this core if it is slow to come (See Note [A waiting pause lends
    /// its core]). True if it had run out of work.
    pub fn pause(&self) -> bool {
        let mut phase = self.lock();
        if *phase == Phase::Running {
            *phase = Phase::PauseAsked;
            self.wake.notify_all();
        }
        let (phase, loans) = wait_lending(&self.wake, phase, [&self.borrower], self.what, |p| *p == Phase::PauseAsked);
        for loan in loans {
            self.loans.fetch_add(1, Ordering::Relaxed);
            if *phase != Phase::Gone {
                loan.give_back();
            }
        }
        matches!(*phase, Phase::Drained | Phase::Gone)
    }

    /// How many pauses have lent the thread their core.
    pub fn loans(&self) -> usize {
        self.loans.load(Ordering::Relaxed)
    }

    /// Wait until the thread has run out of work (or ended): a test's
    /// schedule, which needs the thread to have read everything it will
    /// before the test goes on.
    pub fn wait_drained(&self) {
        let mut phase = self.lock();
        while !matches!(*phase, Phase::Drained | Phase::Gone) {
            phase = self.wake.wait(phase).unwrap_or_else(|_| panic!("{} phase", self.what));
        }
    }

    /// Ask the thread to park at its next checkpoint, without waiting for
    /// it (before it starts: it then parks before any work).
    pub fn ask_pause(&self) {
        let mut phase = self.lock();
        if *phase == Phase::Running {
            *phase = Phase::PauseAsked;
        }
    }

    /// Let a parked thread go on; a drained one stays drained.
    pub fn resume(&self) {
        let mut phase = self.lock();
        if *phase == Phase::Paused {
            *phase = Phase::Running;
            self.wake.notify_all();
        }
    }

    /// Let a parked or drained thread go on (with work handed in since).
    pub fn go(&self) {
        let mut phase = self.lock();
        if matches!(*phase, Phase::Paused | Phase::Drained) {
            *phase = Phase::Running;
            self.wake.notify_all();
        }
    }

    /// A drained thread has new work, to start on `resume`.
    pub fn hold(&self) {
        let mut phase = self.lock();
        if *phase != Phase::Gone {
            *phase = Phase::Paused;
        }
    }

    /// Tell the thread to end at its next checkpoint.
    pub fn stop(&self) {
        let mut phase = self.lock();
        if *phase != Phase::Gone {
            *phase = Phase::Stopping;
        }
        self.wake.notify_all();
    }

    /// End the thread, if it still runs: tell it to end, join it, and
    /// pass on its panic if it panicked. `thread` is left empty, so a
    /// second call (a collector's `Drop` after an explicit end) does
    /// nothing.
    pub fn end(&self, thread: &mut Option<std::thread::JoinHandle<()>>) {
        if let Some(t) = thread.take() {
            self.stop();
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }

    /// A guard for the thread's body, taken first thing in it: it records
    /// the calling thread as the one a pause lends its core to, and when
    /// it drops (the body returned, or unwound from a panic) the thread is
    /// gone (See `Phase::Gone`).
    pub fn enter(&self) -> ExitGuard<'_> {
        self.borrower.here();
        ExitGuard(self)
    }
}

/// Marks its `Parking` gone when dropped (See `Parking::enter`).
pub struct ExitGuard<'a>(&'a Parking);

impl Drop for ExitGuard<'_> {
    fn drop(&mut self) {
        // A poisoned lock (a panic while it was held) still holds the phase.
        let mut phase = self.0.phase.lock().unwrap_or_else(|p| p.into_inner());
        *phase = Phase::Gone;
        self.0.wake.notify_all();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Parking;
    use std::sync::Arc;

    #[test]
    fn a_thread_that_panics_never_leaves_a_pause_waiting() {
        let parking = Arc::new(Parking::new("test thread"));
        let p = parking.clone();
        let t = std::thread::spawn(move || {
            let _gone = p.enter();
            panic!("the thread's work failed");
        });
        // Whether the panic comes before or after the pause asks, the
        // pause returns, as from a drained thread.
        assert!(parking.pause());
        parking.hold();
        parking.resume();
        assert!(parking.pause(), "a gone thread stays gone");
        parking.stop();
        assert!(t.join().is_err(), "the panic reaches the join");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pause_that_waits_lends_the_thread_its_core_and_gives_it_back() {
        use crate::lend_core::{affinity_of, this_thread};
        use super::Phase;
        use std::time::Instant;
        let parking = Arc::new(Parking::new("test thread"));
        let p = parking.clone();
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            let _gone = p.enter();
            tid_tx.send(this_thread()).unwrap();
            // A piece of work that outlasts the pause's patience many times
            // over, counted from when the pause has asked (a loaded machine
            // may keep the pausing thread off its core for a while).
            while *p.lock() != Phase::PauseAsked {
                std::hint::spin_loop();
            }
            let asked_at = Instant::now();
            while asked_at.elapsed() < crate::lend_core::LEND_AFTER * 250 {
                std::hint::spin_loop();
            }
            while p.checkpoint() {}
        });
        let tid = tid_rx.recv().unwrap();
        let before = affinity_of(tid);
        assert!(!parking.pause(), "parked at its checkpoint, not drained");
        assert_eq!(parking.loans(), 1, "the pause waited past LEND_AFTER, so it lent its core");
        assert_eq!(affinity_of(tid), before, "the loan is given back once the thread parks");
        parking.stop();
        t.join().unwrap();
    }
}
