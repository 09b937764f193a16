//! The GC threads of the parallel collector: a pool kept between GCs, a
//! way to run one job on all of them, and a watchdog.
//!
//! The threads are the leader (the mutator thread that asked for the GC)
//! and a rayon pool of `-qn` - 1 threads, made at the first parallel GC and
//! kept (a GC is too short to pay for spawning threads): each GC spawns the
//! job once per pool thread in a rayon scope, which lends them the heap,
//! and runs it as thread 0 on the leader.
//!
//! Note [The leader is GC thread 0]
//! ----------------------------------------
//! A first version broadcast the job to a pool of `-qn` threads while the
//! leader slept. Every GC then paid a wake-up of every GC thread and one of
//! the leader at the end, some 50-200 us each on this machine after the
//! mutator has run for a millisecond: a visible share of a minor GC. Now
//! the leader works as thread 0 from the first instant, and at the end it
//! spins for the others, which stop within microseconds of it (termination
//! is collective), instead of sleeping on a latch. Each pool thread takes
//! one job: a job does not return before every thread of its team has
//! started and finished, and rayon wakes a sleeping pool thread for every
//! job queued, so the jobs cannot pile up on one thread.
//!
//! Note [A failing GC thread]
//! ----------------------------------------
//! A GC thread that panics or stops making progress must not hang the
//! process. A panic is caught on the thread itself: it aborts the team
//! (the other threads stop looking for work, See `work_stealing`) and the
//! leader then fails the run with the thread's message. A stalled thread
//! cannot be caught from outside: the watchdog thread, which watches the
//! heartbeats of the busy GC threads, ends the process with a message and
//! GHC's internal-error exit code (254) once a busy thread has not beaten
//! for the stall timeout (60 s, or `GCLAB_GC_STALL_SECONDS`). Nothing
//! short of that is safe, since the stalled thread still holds the heap.
//! For tests, `GCLAB_GC_FAULT=panic` or `=stall` makes the last GC thread
//! of the first parallel GC panic or stall.

use crate::work_stealing::Heartbeats;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use gclab_core::lock::Lock;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exit code of a GC that cannot finish (GHC's `EXIT_INTERNAL_ERROR`).
pub const EXIT_INTERNAL_ERROR: i32 = 254;

/// An injected fault, for the tests of Note [A failing GC thread].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The last GC thread panics.
    Panic,
    /// The last GC thread sleeps for ever.
    Stall,
}

impl Fault {
    /// The fault `GCLAB_GC_FAULT` asks for, if any.
    pub fn from_env() -> Option<Fault> {
        match std::env::var("GCLAB_GC_FAULT").ok()?.as_str() {
            "panic" => Some(Fault::Panic),
            "stall" => Some(Fault::Stall),
            _ => None,
        }
    }
}

/// What the watchdog watches.
struct Watched {
    heartbeats: Heartbeats,
    gc_running: AtomicBool,
    gc_number: AtomicU64,
    shutdown: AtomicBool,
}

/// A pool of GC threads and its watchdog.
pub struct GcWorkers {
    pool: rayon::ThreadPool,
    watched: Arc<Watched>,
    fault: Option<Fault>,
}

impl GcWorkers {
    /// `threads` GC threads (the caller and `threads - 1` in the pool);
    /// stalls are reported after `stall_timeout`.
    pub fn new(threads: usize, stall_timeout: Duration, fault: Option<Fault>) -> GcWorkers {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.saturating_sub(1).max(1))
            .thread_name(|i| format!("gclab-gc-{}", i + 1))
            .build()
            .unwrap_or_else(|e| panic!("cannot start {threads} GC threads: {e}"));
        let watched = Arc::new(Watched {
            heartbeats: Heartbeats::new(threads),
            gc_running: AtomicBool::new(false),
            gc_number: AtomicU64::new(0),
            shutdown: AtomicBool::new(false),
        });
        let w = watched.clone();
        std::thread::Builder::new()
            .name("gclab-gc-watchdog".into())
            .spawn(move || watchdog(&w, stall_timeout))
            .expect("the OS refused the GC watchdog thread");
        GcWorkers { pool, watched, fault }
    }

    /// Number of GC threads.
    pub fn threads(&self) -> usize {
        self.watched.heartbeats.len()
    }

    /// The heartbeats the threads of a GC mark.
    pub fn heartbeats(&self) -> &Heartbeats {
        &self.watched.heartbeats
    }

    /// Run `job(i)` on GC thread `i`, for every thread, and wait for all.
    /// Thread 0 is the caller (See Note [The leader is GC thread 0]).
    /// `abort` is called when a thread panics, so that the others stop;
    /// the result names the first thread that panicked and its message.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync), abort: &(dyn Fn() + Sync)) -> Result<(), String> {
        let gc = self.watched.gc_number.fetch_add(1, Ordering::Relaxed) + 1;
        let threads = self.threads();
        let fault = if gc == 1 { self.fault } else { None };
        for i in 0..threads {
            self.watched.heartbeats.set_resting(i, false);
        }
        self.watched.gc_running.store(true, Ordering::SeqCst);
        let finished = AtomicUsize::new(0);
        let failures: Lock<Vec<(usize, String)>> = Lock::new(Vec::new());
        let one = |i: usize| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match fault {
                Some(Fault::Panic) if i == threads - 1 => panic!("injected fault (GCLAB_GC_FAULT=panic)"),
                Some(Fault::Stall) if i == threads - 1 => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
                _ => job(i),
            }));
            if let Err(p) = r {
                abort();
                failures.lock().push((i, panic_message(&*p)));
            }
            self.watched.heartbeats.set_resting(i, true);
            finished.fetch_add(1, Ordering::Release);
        };
        self.pool.in_place_scope(|scope| {
            for i in 1..threads {
                let one = &one;
                scope.spawn(move |_| one(i));
            }
            one(0);
            // The others end within microseconds of thread 0 (they stop
            // together); spinning here spares the leader a sleep and a
            // wake-up at the end of every GC.
            let mut spins = 0u32;
            while finished.load(Ordering::Acquire) < threads {
                spins += 1;
                if spins < 1000 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        });
        self.watched.gc_running.store(false, Ordering::SeqCst);
        let mut failures = failures.into_inner();
        failures.sort();
        match failures.into_iter().next() {
            Some((i, msg)) => Err(format!("GC thread {i} panicked in parallel GC {gc}: {msg}")),
            None => Ok(()),
        }
    }
}

impl Drop for GcWorkers {
    fn drop(&mut self) {
        self.watched.shutdown.store(true, Ordering::SeqCst);
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "(no message)".into())
}

/// Watch the busy GC threads' heartbeats; end the process if one stalls
/// (See Note [A failing GC thread]).
fn watchdog(w: &Watched, timeout: Duration) {
    let n = w.heartbeats.len();
    let mut last: Vec<(Option<u64>, Instant)> = vec![(None, Instant::now()); n];
    let tick = (timeout / 10).clamp(Duration::from_millis(10), Duration::from_millis(500));
    while !w.shutdown.load(Ordering::SeqCst) {
        std::thread::sleep(tick);
        let running = w.gc_running.load(Ordering::SeqCst);
        for (i, seen) in last.iter_mut().enumerate() {
            let now = if running { w.heartbeats.busy_beat(i) } else { None };
            if now.is_none() || now != seen.0 {
                *seen = (now, Instant::now());
            } else if seen.1.elapsed() >= timeout {
                eprintln!(
                    "gclab: internal error: GC thread {i} made no progress for {:.1} s in parallel GC {}; the heap cannot be trusted, so the run stops here",
                    seen.1.elapsed().as_secs_f64(),
                    w.gc_number.load(Ordering::Relaxed)
                );
                std::process::exit(EXIT_INTERNAL_ERROR);
            }
        }
    }
}

/// The stall timeout: `GCLAB_GC_STALL_SECONDS`, else 60 s.
pub fn stall_timeout_from_env() -> Duration {
    let secs = std::env::var("GCLAB_GC_STALL_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).filter(|s| *s > 0.0).unwrap_or(60.0);
    Duration::from_secs_f64(secs)
}

/// The GC threads a collector keeps between GCs: made at its first
/// parallel collection, remade if `-qn` changes (through `Gc.set`).
pub struct GcThreadPool {
    workers: Option<GcWorkers>,
    fault: Option<Fault>,
}

impl Default for GcThreadPool {
    fn default() -> GcThreadPool {
        GcThreadPool { workers: None, fault: Fault::from_env() }
    }
}

impl GcThreadPool {
    /// The workers and the balancing choice for a collection of
    /// `0..=collect_gen` under `flags` (`-qn`, `-qg`, `-qb`), or None when
    /// it runs on one thread.
    pub fn for_collection(&mut self, flags: &gclab_core::RtsFlags, collect_gen: usize) -> Option<(&GcWorkers, bool)> {
        let threads = crate::trace::gc_threads_for(flags, collect_gen);
        if threads == 1 {
            return None;
        }
        if self.workers.as_ref().map(GcWorkers::threads) != Some(threads) {
            self.workers = Some(GcWorkers::new(threads, stall_timeout_from_env(), self.fault));
        }
        let workers = self.workers.as_ref().expect("made just above");
        Some((workers, crate::trace::balance_for(flags, collect_gen)))
    }
}
