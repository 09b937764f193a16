//! Lending a core: a thread that waits for another (a GC waiting for the
//! marker, the sweeper or the copier to park) moves that thread onto its
//! own core for the wait, so that a thread the kernel left queued behind
//! some other task on a busy core runs at once on the core the waiter
//! leaves idle (See Note [A waiting pause lends its core] in `parking`).
//!
//! Invariant kept: a borrower's CPU affinity is changed only between
//! `lend_this_core` and its `Loan`'s `give_back`, which sets it back to
//! what it was.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Condvar, MutexGuard};
use std::time::Duration;

/// How long a waiting thread waits before it lends its core (See Note [A
/// waiting pause lends its core] in `parking`).
pub const LEND_AFTER: Duration = Duration::from_micros(200);

/// Wait on `cv` (with `guard`, its mutex's) while `waiting` says so; once
/// the wait has lasted `LEND_AFTER`, lend this core to each of
/// `borrowers` (See Note [A waiting pause lends its core] in `parking`).
/// Returns the guard and the loans, which the caller gives back once it
/// knows the borrowers still run. A poisoned mutex panics, naming `what`
/// (the waited-for thread).
pub fn wait_lending<'a, 'b, T>(
    cv: &Condvar,
    guard: MutexGuard<'a, T>,
    borrowers: impl IntoIterator<Item = &'b Borrower>,
    what: &str,
    mut waiting: impl FnMut(&mut T) -> bool,
) -> (MutexGuard<'a, T>, Vec<Loan>) {
    let (mut guard, waited) = cv.wait_timeout_while(guard, LEND_AFTER, &mut waiting).unwrap_or_else(|_| panic!("{what}: a thread panicked holding the lock"));
    let loans = if waited.timed_out() { borrowers.into_iter().filter_map(Borrower::lend_this_core).collect() } else { Vec::new() };
    while waiting(&mut guard) {
        guard = cv.wait(guard).unwrap_or_else(|_| panic!("{what}: a thread panicked holding the lock"));
    }
    (guard, loans)
}

/// A thread that another may lend its core to, known by the kernel's id
/// for it (0 until the thread has said where it is).
#[derive(Debug, Default)]
pub struct Borrower {
    tid: AtomicI32,
}

/// A borrower moved onto the lender's core, with the affinity it had.
#[derive(Debug)]
pub struct Loan {
    tid: i32,
    #[cfg(target_os = "linux")]
    affinity: libc::cpu_set_t,
}

impl Borrower {
    /// Record the calling thread as the borrower.
    pub fn here(&self) {
        self.tid.store(current_tid(), Ordering::Release);
    }

    /// Restrict the borrower to the calling thread's core and return the
    /// loan that sets it back; `None` if the borrower has not started or
    /// the system refuses (the wait then simply goes on).
    ///
    /// The caller must know the borrower still runs (it holds a lock the
    /// borrower takes before it ends): a thread id is reused once its
    /// thread is gone, and the loan would move some other thread.
    pub fn lend_this_core(&self) -> Option<Loan> {
        let tid = self.tid.load(Ordering::Acquire);
        if tid == 0 {
            return None;
        }
        lend(tid)
    }
}

impl Loan {
    /// Give the borrower back the affinity it had. As for
    /// `lend_this_core`, the caller must know it still runs.
    pub fn give_back(self) {
        give_back(&self);
    }
}

#[cfg(target_os = "linux")]
fn current_tid() -> i32 {
    // SAFETY: gettid has no preconditions and cannot fail.
    unsafe { libc::gettid() }
}

#[cfg(target_os = "linux")]
fn lend(tid: i32) -> Option<Loan> {
    // SAFETY: sched_getcpu has no preconditions; it returns -1 on failure.
    let cpu = unsafe { libc::sched_getcpu() };
    if cpu < 0 {
        return None;
    }
    // SAFETY: cpu_set_t is a plain bit array, valid when zeroed.
    let mut affinity: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: the kernel writes at most `size` bytes into `affinity`, which we own.
    if unsafe { libc::sched_getaffinity(tid, size, &mut affinity) } != 0 {
        return None;
    }
    // SAFETY: as above, zeroed is a valid (empty) set.
    let mut here: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` is a CPU number the kernel gave, below CPU_SETSIZE.
    unsafe { libc::CPU_SET(cpu as usize, &mut here) };
    // SAFETY: reads `size` bytes of `here`, which we own.
    if unsafe { libc::sched_setaffinity(tid, size, &here) } != 0 {
        return None;
    }
    Some(Loan { tid, affinity })
}

#[cfg(target_os = "linux")]
fn give_back(loan: &Loan) {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: reads `size` bytes of the loan's saved set. A failure leaves
    // the borrower on one core, slower but correct, so it is not an error.
    unsafe { libc::sched_setaffinity(loan.tid, size, &loan.affinity) };
}

#[cfg(not(target_os = "linux"))]
fn current_tid() -> i32 {
    0
}

#[cfg(not(target_os = "linux"))]
fn lend(_tid: i32) -> Option<Loan> {
    None
}

#[cfg(not(target_os = "linux"))]
fn give_back(_loan: &Loan) {}

/// The calling thread's id, as `Borrower::here` records it (tests).
#[cfg(all(test, not(loom)))]
pub(crate) fn this_thread() -> i32 {
    current_tid()
}

/// The affinity of thread `tid` as a list of CPU numbers (tests).
#[cfg(all(test, not(loom), target_os = "linux"))]
pub(crate) fn affinity_of(tid: i32) -> Vec<usize> {
    // SAFETY: as in `lend`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as in `lend`.
    assert_eq!(unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) }, 0);
    // SAFETY: `set` is a valid set and every index below CPU_SETSIZE.
    (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
}

#[cfg(all(test, not(loom), target_os = "linux"))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_loan_moves_the_borrower_onto_the_lenders_core_and_gives_its_affinity_back() {
        let borrower = std::sync::Arc::new(Borrower::default());
        assert!(borrower.lend_this_core().is_none(), "a borrower that has not started is not moved");
        let (started, wait_started) = mpsc::channel();
        let (finish, wait_finish) = mpsc::channel::<()>();
        let b = borrower.clone();
        let t = std::thread::spawn(move || {
            b.here();
            started.send(current_tid()).unwrap();
            wait_finish.recv().unwrap();
        });
        let tid = wait_started.recv().unwrap();
        let before = affinity_of(tid);
        let loan = borrower.lend_this_core().expect("a running borrower can be moved");
        let lent = affinity_of(tid);
        assert_eq!(lent.len(), 1, "restricted to one core: {lent:?}");
        assert!(before.contains(&lent[0]), "the lender's core is one the borrower could use");
        loan.give_back();
        assert_eq!(affinity_of(tid), before);
        finish.send(()).unwrap();
        t.join().unwrap();
    }

    #[test]
    fn a_wait_that_lasts_lends_the_core_to_every_borrower_and_one_that_does_not_lends_nothing() {
        use std::sync::{Arc, Condvar, Mutex};
        let shared = Arc::new((Mutex::new(false), Condvar::new(), [Borrower::default(), Borrower::default()]));
        let (started, wait_started) = mpsc::channel();
        let (go, wait_go) = mpsc::channel::<std::time::Duration>();
        let mut wait_go = Some(wait_go);
        let (finish, wait_finish) = mpsc::channel::<()>();
        let wait_finish = Arc::new(Mutex::new(wait_finish));
        let workers: Vec<_> = (0..2)
            .map(|k| {
                let (s, started, wait_go, wait_finish) = (shared.clone(), started.clone(), wait_go.take(), wait_finish.clone());
                std::thread::spawn(move || {
                    s.2[k].here();
                    started.send(current_tid()).unwrap();
                    if let Some(wait_go) = wait_go {
                        // Once the waiter waits (it held the lock until
                        // then), work for `busy`, then say it is done.
                        let busy = wait_go.recv().unwrap();
                        while s.0.try_lock().is_err() {
                            std::hint::spin_loop();
                        }
                        let t = std::time::Instant::now();
                        while t.elapsed() < busy {
                            std::hint::spin_loop();
                        }
                        *s.0.lock().unwrap() = true;
                        s.1.notify_all();
                    }
                    // Alive until the test is done with its id.
                    let _ = wait_finish.lock().unwrap().recv();
                })
            })
            .collect();
        let tids: Vec<i32> = (0..2).map(|_| wait_started.recv().unwrap()).collect();
        let before: Vec<Vec<usize>> = tids.iter().map(|&t| affinity_of(t)).collect();
        let waiting = shared.0.lock().unwrap();
        go.send(LEND_AFTER * 50).unwrap();
        let (done, loans) = wait_lending(&shared.1, waiting, &shared.2, "test", |done| !*done);
        assert!(*done);
        drop(done);
        assert_eq!(loans.len(), 2, "the wait outlasted LEND_AFTER: both borrowers were lent the core");
        loans.into_iter().for_each(Loan::give_back);
        let after: Vec<Vec<usize>> = tids.iter().map(|&t| affinity_of(t)).collect();
        assert_eq!(after, before, "every loan is given back");
        let (done, loans) = wait_lending(&shared.1, shared.0.lock().unwrap(), &shared.2, "test", |done| !*done);
        drop(done);
        assert!(loans.is_empty(), "a wait that ends at once lends nothing");
        drop(finish);
        workers.into_iter().for_each(|w| w.join().unwrap());
    }
}
