//! The stop-the-world handshake as the mutators see it: holding a
//! capability, safe points, stopping the world to lead a GC or a walk, and
//! how a failure anywhere unwinds every mutator (`sync` keeps the state;
//! this module is what a mutator calls).
//!
//! Note [Heap overflow unwinds]
//! ----------------------------------------
//! GHC throws a `HeapOverflow` exception to the program when `-M` cannot be
//! respected. A mutator here is plain Rust code that calls `alloc` without
//! checking a result, so the runtime unwinds out of the allocation with a
//! private payload type, and the mutator's `run` catches exactly that
//! payload and returns `RunError::HeapOverflow` (`run_error`). A panic hook
//! keeps the payload from being printed as a panic; any other panic passes
//! through untouched.

use super::{RunError, Runtime};
use crate::capability::Capability;
use crate::heap::Heap;
use crate::mblock::OutOfMemory;
use crate::policy::HeapExhausted;
use crate::sync::{Failure, WorldStopped};
use std::sync::Once;

/// The unwinding payload of Note [Heap overflow unwinds].
struct HeapExhaustedUnwind(HeapExhausted);

/// The unwinding payload of a mutator stopped because another capability
/// failed (See Note [Failures stop every mutator] in `sync`): never the
/// cause of a failure, only its echo.
pub struct WorldFailed(pub(crate) String);

impl Runtime {
    /// Start running a mutator (or come back from a blocking call),
    /// unwinding if the run has failed meanwhile.
    pub(crate) fn acquire_capability(&self) {
        if let Err(f) = self.try_acquire_capability() {
            unwind_failure(f);
        }
    }

    /// `acquire_capability`, handing back the failure instead of
    /// unwinding; either way the mutator counts as running afterwards.
    pub(crate) fn try_acquire_capability(&self) -> Result<(), Failure> {
        self.sync.acquire()
    }

    /// Stop running a mutator for a blocking call (See `Mutator::safe_blocking`).
    pub(crate) fn release_capability(&self) {
        self.sync.release();
    }

    /// A mutator that held a capability is leaving it, unwinding when
    /// `failed`: the run fails on every other capability too.
    pub(crate) fn leave_capability(&self, failed: bool) {
        if failed {
            self.sync.fail(Failure::Panicked("a mutator failed on another capability".into()));
        }
        self.sync.release();
    }

    /// A safe point: stop here if another capability wants a GC, or lead
    /// the sync the collector asked for (See Note [Concurrent phases] in
    /// `collector`).
    #[inline(always)]
    pub(crate) fn safe_point(&self) {
        if self.sync.gc_pending() {
            self.stop_for_gc();
        }
        if self.sync_request.is_requested() {
            self.collector_sync();
        }
    }

    #[cold]
    fn stop_for_gc(&self) {
        if let Err(f) = self.sync.safe_point_helping(self.help_once_stopped()) {
            unwind_failure(f);
        }
    }

    /// What a mutator thread does once stopped for a GC and before it
    /// sleeps: the work the collector posts for it, if any (See Note
    /// [Stopped mutators help the GC] in `gc_help`). Called before the
    /// thread stops, so that it counts the posts made so far before the
    /// leader, which posts only once every mutator has stopped, can post.
    fn help_once_stopped(&self) -> impl FnOnce() + '_ {
        let seen = self.help.posts();
        move || self.help.help_while_stopped(seen, || self.sync.gc_pending())
    }

    /// Lead a stopped world, asking again until this mutator leads (See
    /// Note [One global sync] in `sync`).
    pub(super) fn stop_the_world(&self) -> WorldStopped<'_> {
        loop {
            match self.sync.stop_the_world_helping(self.help_once_stopped()) {
                Ok(Some(world)) => return world,
                Ok(None) => continue,
                Err(f) => unwind_failure(f),
            }
        }
    }

    /// Walk the heap between GCs: `f` sees the heap and every capability
    /// with the world stopped (other capabilities may be running) and every
    /// nursery block's fill level up to date.
    pub(crate) fn with_world_stopped<R>(&self, f: impl FnOnce(&Heap, &[Capability]) -> R) -> R {
        let _world = self.stop_the_world();
        // SAFETY: the world is stopped.
        for cap in unsafe { self.caps_mut() }.iter_mut() {
            cap.retire_current_block_keeping_position();
        }
        self.with_gc_context(0, |collector, ctx| collector.world_stopped(ctx));
        let r = f(self.heap_ref(), self.caps_ref());
        self.collector.lock().world_restarts();
        r
    }

    /// A heap exhaustion found by a mutator: fail the run on every
    /// capability, and unwind this one.
    pub(crate) fn fail_exhausted(&self, e: HeapExhausted) -> ! {
        self.sync.fail(Failure::Exhausted(e));
        exhausted(e)
    }
}

/// Unwind a mutator because the run failed (See Note [Failures stop
/// every mutator] in `sync`): a heap exhaustion keeps its payload.
pub(crate) fn unwind_failure(f: Failure) -> ! {
    match f {
        Failure::Exhausted(e) => exhausted(e),
        Failure::Panicked(why) => std::panic::panic_any(WorldFailed(why)),
    }
}

/// Unwind with a heap-exhausted payload (See Note [Heap overflow unwinds]).
pub(crate) fn exhausted(e: HeapExhausted) -> ! {
    std::panic::panic_any(HeapExhaustedUnwind(e))
}

/// The OS refused memory during a GC: end the run with
/// `RunError::OutOfMemory` (the heap is not consistent afterwards, but
/// nothing but the statistics is read after it).
pub fn out_of_memory(e: OutOfMemory) -> ! {
    exhausted(HeapExhausted::OutOfMemory(e))
}

/// The error a run's unwinding payload stands for; panics that are not a
/// heap exhaustion go on unwinding (See Note [Heap overflow unwinds]).
pub fn run_error(payload: Box<dyn std::any::Any + Send>) -> RunError {
    match payload.downcast::<HeapExhaustedUnwind>() {
        Ok(e) => match e.0 {
            HeapExhausted::Overflow(o) => RunError::HeapOverflow { max_heap_bytes: o.max_heap_bytes, set_by: o.set_by },
            HeapExhausted::OutOfMemory(o) => RunError::OutOfMemory { bytes: o.bytes },
        },
        Err(other) => match other.downcast::<WorldFailed>() {
            // Only an echo reached capability 0: say what it echoes.
            Ok(echo) => panic!("gclab: the run failed: {}", echo.0),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Keep heap-overflow unwinds and their echoes out of the panic output
/// (Note [Heap overflow unwinds]); installed once, before the first run.
pub(crate) fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = info.payload().downcast_ref::<HeapExhaustedUnwind>().is_some() || info.payload().downcast_ref::<WorldFailed>().is_some();
            if !quiet {
                previous(info);
            }
        }));
    });
}
