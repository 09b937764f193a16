//! The sanity checker as an observer of the runtime (`+RTS -DS`,
//! `--sanity=minor[:k]`): after each GC and each collector's sync, the
//! check its mode asks for (See Note [The minor sanity check]), then the
//! collector's own invariants (a space's free lines); both inside the
//! GC's time, so they count as GC time. A violation fails the run with a
//! panic that names what ran and lists the first twenty violations.

use super::{check_scope, Checks, Scope};
use crate::flags::SanityMode;
use crate::lock::Lock;
use crate::observe::{Collected, GcObserver};
use std::sync::Arc;
use std::time::Instant;

/// Checks the heap after every GC and sync, as its mode says.
pub struct SanityChecker {
    mode: SanityMode,
    checks: Arc<Lock<Checks>>,
}

impl SanityChecker {
    /// A checker in `mode` (`--sanity=off` checks nothing).
    pub fn new(mode: SanityMode) -> SanityChecker {
        SanityChecker { mode, checks: Arc::new(Lock::new(Checks::default())) }
    }

    /// Its counts, to read while and after the run goes on.
    pub fn checks(&self) -> Arc<Lock<Checks>> {
        self.checks.clone()
    }
}

impl GcObserver for SanityChecker {
    fn collected(&mut self, c: &Collected<'_>) {
        let mut checks = self.checks.lock();
        let Some(scope) = checks.next_scope(self.mode, c.collected, c.heap.oldest()) else { return };
        let start = Instant::now();
        // Only the minor mode compares with the blocks seen last time.
        let seen = matches!(self.mode, SanityMode::Minor { .. }).then_some(&mut checks.seen);
        // SAFETY: observers are shown a collection with the world stopped.
        let mut checked = unsafe { check_scope(c.heap, c.caps, c.stable_ptrs, scope, seen) };
        let own = c.collector.check_heap(c.heap);
        if !own.is_empty() {
            checked = Err(checked.err().unwrap_or_default().into_iter().chain(own).collect());
        }
        checks.took(scope, start.elapsed());
        drop(checks);
        if let Err(violations) = checked {
            let kind = if scope == Scope::Whole { "" } else { " (a minor check: See Note [The minor sanity check])" };
            panic!(
                "heap sanity check failed after {}{kind}: {} violation(s):\n  {}",
                (c.what)(),
                violations.len(),
                violations.iter().take(20).cloned().collect::<Vec<_>>().join("\n  ")
            );
        }
    }
}
