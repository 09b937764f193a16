//! Stopped mutators help the GC: the board on which a parallel collector
//! posts work that a mutator thread stopped for the GC can do.
//!
//! Owns `HelpBoard`: at most one job posted at a time, a count of posts,
//! so that a stopped thread sees a post made after it stopped, a count
//! of the pools that may post, without which no stopped thread waits, and
//! the CPU time that threads other than a GC's leader spent on its parts
//! (See Note [A GC's CPU time] in `runtime::driver`).
//!
//! Note [Stopped mutators help the GC]
//! ----------------------------------------
//! GHC's GC threads are its capabilities' own OS threads: a capability
//! that stops for a GC is already awake, and it joins the GC as one of its
//! threads at once. gclab's GC threads are a pool of their own (the
//! collectors' `gc_workers`), asleep between GCs, and a pool thread joins
//! a GC only once the OS has woken it: 50-250 us on this machine, and now
//! and then milliseconds (gcbench 18 at `-N2 -qn2`: thread 1 came into
//! its major GCs 52 to 2,824 us after they began, in GCs of 1.3-7 ms).
//! Meanwhile the mutator threads stopped for the GC sat on a condition
//! variable, on cores the GC could have used.
//!
//! So a parallel collector posts its job here for the duration of the GC
//! (`post`, `withdraw`), and a mutator thread that stops for a GC first
//! waits for a post, spinning, for up to `SPIN_FOR` (`help_while_stopped`)
//! and does the job of a pool thread that has not come in yet, before it
//! sleeps as before. The pool thread, when it comes, finds its part taken
//! and returns: which thread does a part is settled by the same gate that
//! lets a late pool thread in (See Note [Late GC threads] in the
//! collectors' `gc_workers`). The spin is bounded because a GC may post
//! nothing (a sequential collection), and a stopped thread that spun
//! through a whole GC would take a core from the collector's own threads;
//! and a stopped thread waits at all only while some pool of GC threads
//! may post (`arm`), so that a run without parallel GCs spins never.
//! A mutator that is not running (blocked, or a capability with no work)
//! is asleep already and does not help: the pool threads are still needed.

use crate::lock::Lock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Work a stopped mutator thread can do for the GC in progress.
pub type HelpJob = Arc<dyn Fn() + Send + Sync>;

/// How long a stopped mutator thread waits for a job before it sleeps,
/// counted from when it stopped or last helped: longer than the leader
/// takes, on this machine, to wake and reach its parallel phase.
pub const SPIN_FOR: Duration = Duration::from_millis(1);

/// The job posted for the GC in progress, if any.
#[derive(Default)]
pub struct HelpBoard {
    job: Lock<Option<HelpJob>>,
    posts: AtomicU64,
    /// Pools of GC threads that may post (See `arm`).
    posters: AtomicU64,
    /// CPU nanoseconds that threads other than the leaders spent on GC
    /// parts, so far.
    helper_cpu_nanos: AtomicU64,
}

impl std::fmt::Debug for HelpBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HelpBoard").field("posts", &self.posts.load(Ordering::Relaxed)).finish()
    }
}

impl HelpBoard {
    /// A pool of GC threads that may post jobs now exists: stopped
    /// threads wait for them from now on, until the pool `disarm`s.
    pub fn arm(&self) {
        self.posters.fetch_add(1, Ordering::Relaxed);
    }

    /// A pool that `arm`ed the board is gone.
    pub fn disarm(&self) {
        self.posters.fetch_sub(1, Ordering::Relaxed);
    }

    /// Post `job` for stopped mutator threads to do, replacing any other.
    pub fn post(&self, job: HelpJob) {
        *self.job.lock() = Some(job);
        self.posts.fetch_add(1, Ordering::Release);
    }

    /// Take the job down (the GC's parallel phase is over).
    pub fn withdraw(&self) {
        *self.job.lock() = None;
    }

    /// Posts so far.
    pub fn posts(&self) -> u64 {
        self.posts.load(Ordering::Acquire)
    }

    /// A thread other than the GC's leader spent `seconds` of its CPU
    /// time on a part of the GC.
    pub fn count_helper_cpu(&self, seconds: f64) {
        self.helper_cpu_nanos.fetch_add((seconds.max(0.0) * 1e9) as u64, Ordering::Relaxed);
    }

    /// The CPU seconds that threads other than the leaders spent on GC
    /// parts so far (`count_helper_cpu`).
    pub fn helper_cpu_seconds(&self) -> f64 {
        self.helper_cpu_nanos.load(Ordering::Relaxed) as f64 * 1e-9
    }

    /// The job posted now, if any.
    pub fn job(&self) -> Option<HelpJob> {
        self.job.lock().clone()
    }

    /// On a mutator thread just stopped for a GC: while `stopped()` holds,
    /// do each job posted after `seen` posts, waiting up to `SPIN_FOR`
    /// for the next (See Note [Stopped mutators help the GC]).
    pub fn help_while_stopped(&self, mut seen: u64, stopped: impl Fn() -> bool) {
        if self.posters.load(Ordering::Relaxed) == 0 {
            return;
        }
        loop {
            let posted = spin_until(SPIN_FOR, || !stopped() || self.posts() != seen);
            if !posted || !stopped() {
                return;
            }
            seen = self.posts();
            if let Some(job) = self.job() {
                job();
            }
        }
    }
}

/// Spin until `done()` holds, for up to `budget`, yielding the core now
/// and then; whether `done()` held. For a wait that is usually over within
/// microseconds, where sleeping would cost a wake-up (See Note [Stopped
/// mutators help the GC], and Note [Spinning for a safe point] in `sync`).
pub fn spin_until(budget: Duration, done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= budget {
            return false;
        }
        spins += 1;
        if spins.is_multiple_of(64) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_stopped_thread_does_a_job_posted_after_it_stopped_and_not_one_before() {
        let board = Arc::new(HelpBoard::default());
        board.arm();
        let done = Arc::new(AtomicUsize::new(0));
        let d = done.clone();
        board.post(Arc::new(move || {
            d.fetch_add(1, Ordering::SeqCst);
        }));
        let seen = board.posts();
        let b = board.clone();
        let d = done.clone();
        // Waits again after each spin, in case this machine is slow to post.
        let helper = std::thread::spawn(move || {
            while d.load(Ordering::SeqCst) < 2 {
                b.help_while_stopped(seen, || d.load(Ordering::SeqCst) < 2);
            }
        });
        std::thread::sleep(Duration::from_micros(100));
        assert_eq!(done.load(Ordering::SeqCst), 0, "the job posted before the thread stopped is not done");
        let d = done.clone();
        board.post(Arc::new(move || {
            d.fetch_add(2, Ordering::SeqCst);
        }));
        helper.join().unwrap();
        assert_eq!(done.load(Ordering::SeqCst), 2, "the job posted after it stopped is done once");
    }

    #[test]
    fn a_thread_no_longer_stopped_or_with_no_pool_does_no_job() {
        let board = HelpBoard::default();
        let seen = board.posts();
        let done = Arc::new(AtomicUsize::new(0));
        let d = done.clone();
        board.post(Arc::new(move || {
            d.fetch_add(1, Ordering::SeqCst);
        }));
        board.help_while_stopped(seen, || true);
        assert_eq!(done.load(Ordering::SeqCst), 0, "no pool armed the board: the thread does not wait");
        board.arm();
        board.help_while_stopped(seen, || false);
        assert_eq!(done.load(Ordering::SeqCst), 0, "the GC was over: the job is not done");
        board.help_while_stopped(seen, || true);
        assert_eq!(done.load(Ordering::SeqCst), 1, "while stopped, the job posted is done");
    }
}
