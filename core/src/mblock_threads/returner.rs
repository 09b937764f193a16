//! A thread that gives free megablocks' memory back to the OS while the
//! mutators run, so that a major GC's pause does not wait for it (See
//! Note [Returning memory off the pause]).
//!
//! Owns the returning thread and the count of batches it has finished.
//! Invariant kept: a batch's ranges are not touched by anyone else until
//! `wait_for` its ticket has returned, and the thread is joined, every
//! batch done, before the returner is dropped (the pool then unmaps).
//!
//! Note [Returning memory off the pause]
//! ----------------------------------------
//! Giving a megablock's pages back costs the kernel a walk of its 256
//! pages, about 45 us each (See Note [Returning memory lazily] in
//! `mblock`), and the policy returns them at the end of a major GC, when
//! every GC thread but the leader is done: fibheaps' last major GCs spent
//! 0.17-0.68 ms of their pauses returning 3-16 megablocks, up to a tenth
//! of a pause, on one core. GHC does the same in its pause
//! (`returnMemoryToOS`). The `madvise` calls need nothing from the heap
//! but the ranges, which no one uses while they are on the pool's
//! `decommitted` list, so the pool hands each return to this thread as a
//! batch with a ticket, and the GC ends at once. A decommitted megablock
//! is reused only after its batch is done (`wait_for`, in `alloc_one`):
//! a heap that grows again right after shrinking waits for the rest of
//! the return it would otherwise have paid in the pause. Only lazy
//! returns (`MADV_FREE`) go to the thread: `--disable-delayed-os-memory-return`
//! asks that the pages go at once, so that the RSS shows it, and they do.

use super::PoolThread;
use std::sync::{Arc, Condvar, Mutex};

/// Ranges (address, bytes) whose memory goes back in one batch.
pub type Batch = Vec<(usize, usize)>;

/// The returning thread of one megablock pool.
#[derive(Debug)]
pub struct Returner {
    finished: Arc<Finished>,
    sent: u64,
    /// Dropped last, so that every batch is done by then.
    thread: PoolThread<Batch>,
}

/// How many batches the thread has done.
#[derive(Debug, Default)]
struct Finished {
    count: Mutex<u64>,
    done: Condvar,
}

impl Returner {
    /// A returning thread that gives each range back with `give_back`;
    /// None if the OS will not start one (the caller then returns memory
    /// itself).
    pub fn start(give_back: fn(usize, usize)) -> Option<Returner> {
        let finished = Arc::new(Finished::default());
        let f = finished.clone();
        let thread = PoolThread::start("gclab-return", move |batch: Batch| {
            for (addr, bytes) in batch {
                give_back(addr, bytes);
            }
            *f.count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            f.done.notify_all();
        })?;
        Some(Returner { finished, sent: 0, thread })
    }

    /// Hand `batch` to the thread; its ticket, for `wait_for`.
    pub fn send(&mut self, batch: Batch) -> u64 {
        self.sent += 1;
        self.thread.send(batch);
        self.sent
    }

    /// Wait until the batch with `ticket` (and every one before it) is done.
    pub fn wait_for(&self, ticket: u64) {
        let mut count = self.finished.count.lock().unwrap_or_else(|e| e.into_inner());
        while *count < ticket {
            count = self.finished.done.wait(count).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static GIVEN: AtomicUsize = AtomicUsize::new(0);

    fn slow_give_back(_addr: usize, bytes: usize) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        GIVEN.fetch_add(bytes, Ordering::SeqCst);
    }

    #[test]
    fn a_ticket_waits_for_its_batch_and_a_drop_for_every_batch() {
        let mut r = Returner::start(slow_give_back).expect("a thread starts");
        let first = r.send(vec![(0x1000, 1), (0x2000, 2)]);
        let second = r.send(vec![(0x3000, 4)]);
        r.wait_for(first);
        assert!(GIVEN.load(Ordering::SeqCst) >= 3, "the first batch is done when its ticket returns");
        r.wait_for(second);
        assert_eq!(GIVEN.load(Ordering::SeqCst), 7);
        r.send(vec![(0x4000, 8)]);
        drop(r);
        assert_eq!(GIVEN.load(Ordering::SeqCst), 15, "dropping the returner waits for the batch still out");
    }
}
