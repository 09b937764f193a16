//! How a program comes to run: a mutator is made for a capability on the
//! thread that will run it, holds the capability (See `sync`) until the
//! program returns or unwinds, and a heap exhaustion anywhere becomes the
//! run's `RunError` (See Note [Heap overflow unwinds] in `runtime`).

use super::{GcHooks, Mutator};
use crate::runtime::{install_quiet_hook, run_error, RunError, Runtime};

/// Run `program` as the mutator of capability 0 (it may spread work over
/// the other capabilities with `Mutator::par_map`), then the finalisers
/// and alarms its last GCs left. A heap overflow ends it with `Err`; any
/// other panic propagates.
pub fn run<R>(rt: &Runtime, hooks: &GcHooks, program: impl FnOnce(&mut Mutator<'_>) -> R) -> Result<R, RunError> {
    install_quiet_hook();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_on_capability(rt, hooks, 0, |m| {
            let r = program(m);
            m.run_gc_hooks();
            r
        })
    }));
    result.map_err(run_error)
}

/// Run `f` as the mutator of capability `cap_no`, on this thread, holding
/// the capability until it returns or unwinds. The caller makes sure that
/// no other thread runs that capability.
pub(crate) fn run_on_capability<'rt, R>(rt: &'rt Runtime, hooks: &'rt GcHooks, cap_no: usize, f: impl FnOnce(&mut Mutator<'rt>) -> R) -> R {
    struct Held<'r>(&'r Runtime);
    impl Drop for Held<'_> {
        fn drop(&mut self) {
            self.0.leave_capability(std::thread::panicking());
        }
    }
    // Held first: a failed acquire still counts this mutator as running,
    // and the guard's release balances it while unwinding.
    let _held = Held(rt);
    rt.acquire_capability();
    let mut m = Mutator::new(rt, hooks, cap_no);
    let r = f(&mut m);
    m.flush_allocation_pointer();
    r
}
