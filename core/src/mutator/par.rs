//! Parallel mutators: a program spreads work over the run's capabilities.
//!
//! A run starts with one mutator, on capability 0. `Mutator::par_map` runs
//! a task function over `0..tasks` on every capability at once: capability
//! 0 on the calling thread, each other one on an OS thread of its own with
//! a fresh `Mutator` (empty root stack, its own nursery or `-n` chunks),
//! handing out task numbers in order from a shared counter. It returns the
//! results in task order. With `-N1` the tasks simply run one after another
//! on the caller, so a parallel program does the serial program's work.
//!
//! Safe points: a mutator stops for another capability's GC at its next
//! allocation slow path (at least once per nursery block), at `poll`, or
//! while it waits in `safe_blocking`, which is how the caller waits for
//! the other capabilities' tasks to finish.
//!
//! Note [Sharing between capabilities]
//! ----------------------------------------
//! A `Handle` is an index into its own capability's root stack, so it
//! means nothing on another capability. Data crosses capabilities through
//! stable pointers, the global roots: the caller makes one
//! (`new_stable_ptr`) before `par_map`, a task reads it with
//! `deref_stable_ptr`, and any capability may read the object graph behind
//! it while others do too. Writes to an object that several capabilities
//! can reach must be ordered by the program (a lock taken through
//! `safe_blocking`): the write barrier keeps each capability's mutable list
//! separately, but two unordered writes to one field are a data race here
//! as in any language.

use super::run::run_on_capability;
use super::Mutator;
use crate::runtime::{unwind_failure, WorldFailed};
use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A task's outcome, or the payload it unwound with.
type Outcome<R> = Result<Vec<(usize, R)>, Box<dyn Any + Send>>;

impl<'rt> Mutator<'rt> {
    /// This mutator's capability number.
    pub fn capability_no(&self) -> usize {
        self.cap_no
    }

    /// The run's number of capabilities (`-N`).
    pub fn capabilities(&self) -> usize {
        self.rt.flags().capabilities
    }

    /// A safe point for loops that run long without allocating: stop here
    /// if another capability wants a GC.
    pub fn poll(&mut self) {
        self.rt.safe_point();
    }

    /// Run `f`, which may block (a lock, a join), with this capability
    /// released: other capabilities can collect meanwhile. `f` gets no heap
    /// access; handles stay valid (the GC updates them).
    pub fn safe_blocking<T>(&mut self, f: impl FnOnce() -> T) -> T {
        self.flush_allocation_pointer();
        self.rt.release_capability();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        self.rt.acquire_capability();
        r.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }

    /// Run `task(m, i)` for every `i` in `0..tasks`, spread over all
    /// capabilities (See the module doc); the results in task order. Only
    /// capability 0 may call it. If a task fails, the run fails (See Note
    /// [Failures stop every mutator] in `sync`) and the first real failure
    /// goes on unwinding here.
    pub fn par_map<R: Send>(&mut self, tasks: usize, task: impl Fn(&mut Mutator<'_>, usize) -> R + Sync) -> Vec<R> {
        assert_eq!(self.cap_no, 0, "par_map is called from capability 0's mutator");
        let caps = self.capabilities();
        let next = AtomicUsize::new(0);
        let (rt, hooks) = (self.rt, self.hooks);
        let run_tasks = |m: &mut Mutator<'_>| -> Vec<(usize, R)> {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks {
                    return done;
                }
                let base = m.depth();
                done.push((i, task(m, i)));
                m.truncate(base);
            }
        };
        if caps == 1 || tasks <= 1 {
            return run_tasks(self).into_iter().map(|(_, r)| r).collect();
        }
        let mut outcomes: Vec<Outcome<R>> = std::thread::scope(|scope| {
            let others: Vec<_> = (1..caps.min(tasks))
                .map(|c| {
                    let run_tasks = &run_tasks;
                    std::thread::Builder::new()
                        .name(format!("gclab-cap-{c}"))
                        .spawn_scoped(scope, move || run_on_capability(rt, hooks, c, run_tasks))
                        .expect("the OS refused a thread for a capability")
                })
                .collect();
            let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_tasks(self)));
            // Wait for the others with this capability released, so that
            // they can collect meanwhile.
            self.flush_allocation_pointer();
            rt.release_capability();
            let mut all = vec![mine];
            all.extend(others.into_iter().map(|h| h.join()));
            all
        });
        let back = rt.try_acquire_capability();
        if let Some(payload) = take_cause_of_failure(&mut outcomes) {
            std::panic::resume_unwind(payload);
        }
        if let Err(f) = back {
            unwind_failure(f);
        }
        let mut results: Vec<(usize, R)> = outcomes.into_iter().flat_map(|o| o.unwrap_or_default()).collect();
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }
}

/// The payload a failed `par_map` goes on unwinding with: the cause of the
/// failure rather than the echoes it left on the other capabilities (See
/// Note [Failures stop every mutator] in `sync`); None if every task ended.
fn take_cause_of_failure<R>(outcomes: &mut Vec<Outcome<R>>) -> Option<Box<dyn Any + Send>> {
    let first = outcomes.iter().position(Result::is_err)?;
    let cause = outcomes.iter().position(|o| matches!(o, Err(p) if !p.is::<WorldFailed>())).unwrap_or(first);
    outcomes.swap_remove(cause).err()
}
