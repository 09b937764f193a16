//! The GC threads of the parallel collector: a pool kept between GCs, a
//! way to run one job on all of them, and a watchdog.
//!
//! The threads are a rayon pool of `-qn` threads, made at the first
//! parallel GC and kept (a GC is too short to pay for spawning threads):
//! each GC is one `broadcast`, which runs the job once on every thread,
//! lending it the heap, and returns when all have finished. The mutator
//! that leads the GC waits meanwhile.
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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// `threads` GC threads; stalls are reported after `stall_timeout`.
    pub fn new(threads: usize, stall_timeout: Duration, fault: Option<Fault>) -> GcWorkers {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("gclab-gc-{i}"))
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
    /// `abort` is called when a thread panics, so that the others stop;
    /// the result names the first thread that panicked and its message.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync), abort: &(dyn Fn() + Sync)) -> Result<(), String> {
        let gc = self.watched.gc_number.fetch_add(1, Ordering::Relaxed) + 1;
        let last = self.threads() - 1;
        let fault = if gc == 1 { self.fault } else { None };
        for i in 0..self.threads() {
            self.watched.heartbeats.set_resting(i, false);
        }
        self.watched.gc_running.store(true, Ordering::SeqCst);
        let outcomes = self.pool.broadcast(|ctx| {
            let i = ctx.index();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                match fault {
                    Some(Fault::Panic) if i == last => panic!("injected fault (GCLAB_GC_FAULT=panic)"),
                    Some(Fault::Stall) if i == last => loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    },
                    _ => job(i),
                }
            }));
            if r.is_err() {
                abort();
            }
            self.watched.heartbeats.set_resting(i, true);
            r.map_err(|p| panic_message(&*p))
        });
        self.watched.gc_running.store(false, Ordering::SeqCst);
        match outcomes.into_iter().enumerate().find_map(|(i, r)| r.err().map(|m| (i, m))) {
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
