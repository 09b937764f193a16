//! `Lock<T>`: the runtime's mutex, which a panic does not poison.
//!
//! Note [Locks are not poisoned]
//! ----------------------------------------
//! A standard `Mutex` is poisoned when a thread panics while holding it,
//! and every later `lock()` returns an error. In gclab a panic anywhere
//! (a mutator, a GC thread, a failed sanity check) already fails the whole
//! run (See Note [Failures stop every mutator] in `sync`): the other
//! threads unwind at their next safe point, and what they still read
//! under a lock afterwards is statistics and error reports, which a
//! half-finished update cannot make worse than the failure itself. So the
//! runtime's locks hand out their guard whether or not a holder panicked,
//! and the code that takes them says so once, here, rather than at every
//! call site.

use crate::shim::{Condvar, Mutex, MutexGuard};

/// A mutex whose `lock` always succeeds (See Note [Locks are not poisoned]).
#[derive(Debug, Default)]
pub struct Lock<T>(Mutex<T>);

impl<T> Lock<T> {
    /// A lock holding `value`.
    #[cfg(not(loom))]
    pub const fn new(value: T) -> Lock<T> {
        Lock(Mutex::new(value))
    }

    /// A lock holding `value` (loom's mutexes are not made at compile time).
    #[cfg(loom)]
    pub fn new(value: T) -> Lock<T> {
        Lock(Mutex::new(value))
    }

    /// Take the lock, waiting for it.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value, for the lock's exclusive owner (no locking needed).
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// The value, taking the lock apart.
    pub fn into_inner(self) -> T {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The underlying mutex, for a `Condvar` to wait on.
    pub fn mutex(&self) -> &Mutex<T> {
        &self.0
    }
}

/// Wait on `cv` with `guard`'s lock released, as `Condvar::wait` does,
/// ignoring poison (See Note [Locks are not poisoned]).
pub fn wait<'a, T>(cv: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(guard).unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_holding_the_lock_does_not_poison_it() {
        let lock = std::sync::Arc::new(Lock::new(1));
        let l = lock.clone();
        let r = std::thread::spawn(move || {
            let _g = l.lock();
            panic!("holder panics");
        })
        .join();
        assert!(r.is_err());
        *lock.lock() += 1;
        assert_eq!(*lock.lock(), 2);
    }
}
