//! The synchronisation primitives of the code that loom model-checks: the
//! standard library's in a normal build, loom's under `--cfg loom`.
//!
//! The stop-the-world handshake (`sync`, over `lock`) and the parallel
//! scavenge's termination and work sharing (`work_stealing` and
//! `gc_thread` in the collectors) take their mutexes, condition variables,
//! atomics, yields and spin hints from here, so that loom can run the same
//! code under its scheduler and explore every interleaving of it within
//! its bounds (See Note [Model checking with loom]).
//!
//! Note [Model checking with loom]
//! ----------------------------------------
//! Loom replaces threads, atomics and locks with its own, runs a test's
//! threads one at a time, and reruns the test once per distinct schedule
//! (interleaving of their synchronising operations), up to a bound on
//! preemptions; it also reports any two unsynchronised accesses to a
//! `loom::cell::UnsafeCell`. The `-DS` stress runs found two races by
//! luck, after many runs; loom finds each in its first second, on
//! purpose: the loom tests can put each race back (`reintroduce`) and
//! expect loom to fail. The races:
//! - `WokenMutatorRunsDuringNextGc`: a mutator stopped for one GC woke when
//!   that GC's epoch ended, although a new leader had already started the
//!   next GC, and ran during it (See `WorldSync::stop_until_next_epoch`).
//! - `HandOutBlockBeingScanned`: a GC thread queued as work the block it
//!   was still scanning, so a thief scanned the same objects at once (See
//!   Note [The block being scanned] in the collectors' `gc_thread`).
//!
//! A loom build (`RUSTFLAGS="--cfg loom"`, in its own target directory) is
//! only for the loom tests: everything else would call loom's primitives
//! outside a model, which loom refuses.

#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
#[cfg(not(loom))]
pub use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
#[cfg(loom)]
pub use loom::sync::{Condvar, Mutex, MutexGuard};

pub use std::sync::atomic::Ordering;

/// Let another thread run (a spin-wait's back-off).
#[inline]
pub fn yield_now() {
    #[cfg(not(loom))]
    std::thread::yield_now();
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// A spin-wait's pause.
#[inline]
pub fn spin_loop() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::hint::spin_loop();
}

/// A race fixed once, which a loom test may put back to show that loom
/// finds it (See Note [Model checking with loom]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Race {
    /// A mutator woken at the end of one GC runs during the next.
    WokenMutatorRunsDuringNextGc,
    /// A GC thread queues the block it is scanning as work.
    HandOutBlockBeingScanned,
    /// A concurrent copier claims an object by a plain store of the
    /// forwarding pointer instead of a compare-and-swap.
    ClaimByPlainStore,
    /// A thread that loses a claim goes on with its own copy.
    LoserKeepsItsCopy,
}

/// Is `race` put back? Never, outside loom builds.
#[cfg(not(loom))]
#[inline(always)]
pub fn reintroduced(_race: Race) -> bool {
    false
}

#[cfg(loom)]
std::thread_local! {
    static REINTRODUCED: std::cell::Cell<Option<Race>> = const { std::cell::Cell::new(None) };
}

/// Is `race` put back (by this test)? Loom runs a model's threads on the
/// test's own OS thread, so a thread-local switch is the test's alone.
#[cfg(loom)]
pub fn reintroduced(race: Race) -> bool {
    REINTRODUCED.with(|r| r.get() == Some(race))
}

/// Put `race` back (None: none) for the models this thread runs next.
#[cfg(loom)]
pub fn reintroduce(race: Option<Race>) {
    REINTRODUCED.with(|r| r.set(race));
}

/// Run `model` under loom with `race` put back (or none): every
/// interleaving, or those with at most `preemptions` preemptions. Returns
/// the number of interleavings explored, printed with the time taken (run
/// the tests with `--nocapture` to see them).
#[cfg(loom)]
pub fn explore(name: &str, race: Option<Race>, preemptions: Option<usize>, model: impl Fn() + Sync + Send + 'static) -> usize {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    reintroduce(race);
    let started = std::time::Instant::now();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    builder.check(move || {
        counted.fetch_add(1, Ordering::Relaxed);
        model()
    });
    reintroduce(None);
    let runs = runs.load(Ordering::Relaxed);
    eprintln!("loom {name}: {runs} interleavings in {:.2} s", started.elapsed().as_secs_f64());
    runs
}
