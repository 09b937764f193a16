//! A thread that touches the pages of fresh megablocks before the heap
//! takes them, so that the kernel's first-touch faults are paid beside
//! the mutators instead of inside a GC (See Note [Touching fresh memory
//! off the pause]).
//!
//! Owns the touching thread and the megablocks it has finished, in the
//! order they were sent. Invariant kept: a megablock sent to the thread is
//! touched by it alone until `take` hands it out, and the thread is joined
//! before the pretoucher is dropped (the pool then unmaps what is left).
//!
//! Note [Touching fresh memory off the pause]
//! ----------------------------------------
//! A fresh anonymous mapping has no pages: the kernel allocates, zeroes
//! and charges each 4 KiB page when it is first written. A heap that grows
//! pays this where it first writes its new memory, which is a GC's copy
//! or promotion. Under `copying` most of it falls in major GCs (the
//! to-space of the whole old generation), but a collector that never
//! copies its old generation (`nonmoving`, `mark-sweep`, `immix`) grows it
//! by promotion, so its minor GCs pay for every megablock its old
//! generation adds. On lru 500000 4000000, `nonmoving` took 35,000 of
//! its 47,000 page faults in minor GCs, whose time fell from 0.122 s to
//! 0.075 s when the heap's megablocks were touched in advance (copying's
//! from 0.080 s to 0.057 s: it too promotes into fresh memory once the
//! megablocks its last major GC freed are used up); binary-trees 20's
//! from 1.30 s to 1.22 s, gcbench 18's from 0.083 s to 0.071 s.
//!
//! So the pool keeps a reserve of megablocks mapped ahead of the heap's
//! growth and hands them to this thread, which writes a zero to each of
//! their pages while the mutators run. When the heap needs a megablock beyond
//! its free pool, it takes a touched one from the reserve and asks for
//! another. The reserve starts at one megablock and doubles whenever the
//! heap has to map one that was not ready (it grew faster than the
//! reserve), up to a sixty-fourth of the heap's megablocks; when the heap
//! shrinks (the policy returns memory) it starts again at one. A reserve
//! megablock is resident but not the heap's: it does not count in
//! `mapped` (the heap's memory in use, as GHC's `-s` reports it) until it
//! is taken, so the peak RSS is where it shows. A cap of a sixteenth at
//! first gave the same minor GCs (nonmoving on lru, gcbench 18 and
//! binary-trees 20: 0.63-0.97x their time without the reserve either
//! way) but copying's peak RSS on lru 1.060x, 15 MB, the reserve full
//! through its major GCs' growth; at a sixty-fourth, 1.012x. Beside GHC
//! (`experiments/peers-peak-memory.toml`, binary-trees 16-21 at five
//! nursery sizes) the reserve costs 1.2-5.9 MB of peak RSS, 2.5% on the
//! grid's mean.
//! A run's statistics count the megablocks the heap took touched
//! (`mblocks_pretouched` in `--json` and sweep records), and `-v4`'s heap
//! line shows the reserve. The touching thread's CPU time counts in the process's total, in
//! neither MUT nor GC, as the returning thread's does (See Note
//! [Returning memory off the pause] in `mblock_threads::returner`).
//!
//! GHC has no such thread: its heap faults its fresh memory in where it
//! first writes it. HotSpot's `-XX:+AlwaysPreTouch` touches the whole heap
//! at start-up, which needs the heap's size in advance. `--no-pretouch`
//! (gclab) turns the reserve off, for a comparison with GHC's behaviour;
//! with `--huge-pages` it is off too (a huge page is populated whole at
//! its first touch, and pairs are mapped there).
//!
//! Note [How the touching thread touches]
//! ----------------------------------------
//! Measured on this 2-core machine under `concurrent-copying`, whose
//! copier runs beside the mutator (binary-trees 20, `-N1`, `--json`'s
//! pause figures, each variant against `--no-pretouch`, alternated):
//!
//! - The thread first had the kernel populate a megablock in one call
//!   (`MADV_POPULATE_WRITE`). The young GCs' CPU time fell from 1.26 s
//!   to 1.17-1.20 s, but their elapsed time exceeded their CPU time by
//!   0.02-0.05 s and their longest pause rose from 1.4-3.0 ms to
//!   2.7-4.7 ms (three runs each). That call holds the process's
//!   memory-map lock across the megablock's 256 faults, and a GC that
//!   maps a megablock meanwhile waits for it.
//! - The same thread under `SCHED_IDLE`, or at `nice` 19, so that it would
//!   take only a core nothing else wants: longest pauses of 2.7-8.0 and
//!   4.7-9.4 ms against 3.0-5.1 (five runs each). A thread of low
//!   priority preempted inside a fault holds up whoever needs what it
//!   holds, and waits long for a core to finish.
//! - Now it writes a zero to each page, one fault at a time, at the
//!   mutators' priority: longest pauses 3.7-5.4 ms against 3.0-5.1 (this
//!   machine's noise), p99 0.62-0.94 ms against 0.94-1.07, MMU at 10 ms
//!   0.054-0.092 against 0.041-0.046, young GCs 1.21-1.33 s in all
//!   against 1.29-1.43. With the reserve's final cap (a sixty-fourth),
//!   five runs each: longest 2.8-5.3 ms against 3.3-5.2, p99 0.68-0.88
//!   ms against 0.91-1.09, MMU at 10 ms 0.050-0.084 against 0.041-0.058.
//!
//! The heap never waits for the thread: `take` gives up rather than
//! block on the ready list, which the thread may have been preempted
//! holding, and a megablock the thread has not finished is one the heap
//! maps and faults in itself, as it did before.
//!
//! Note [When the reserve is topped up]
//! ----------------------------------------
//! A megablock taken from the reserve was at first replaced at once, and
//! most are taken inside GCs, so the thread touched the replacement
//! inside the GC too. Where the GC runs on one thread, that is a gain: the
//! thread faults pages in on the core the GC leaves idle, just ahead of
//! the GC's need. `-N2 -qn1` on binary-trees 20 (2-core machine, `scripts/ab
//! -n 3`): major GCs 0.786 s against 0.864 with `--no-pretouch`. But a
//! parallel GC with a thread on every core has no idle core to give, and
//! the touching thread then takes one from a GC thread. So the runtime
//! tops the reserve up as each GC ends (`BlockAllocator::gc_ending`,
//! from the driver), and a take inside a GC replaces what it took at once
//! only where the GC's threads are fewer than the machine's cores
//! (`MBlockPool::touch_in_gc`: at first the threads `-qn`, else `-N`,
//! asks for; after each GC, that GC's team, since `copying` runs one
//! thread whatever `-N` says). Measured the same way:
//! at `-qn2` the major GCs took 0.592 s against 0.594 replacing inside
//! the GC and 0.572 with `--no-pretouch`, inside this machine's noise;
//! copying at `-N1` 1.006x (0.98-1.02), its replacement still inside the
//! GC; with the team learnt from the last GC, `-qn2` 0.561 s against
//! `-qn1`'s 0.777, and copying at `-N2` (one GC thread) 1.002x the
//! binary that always replaced inside the GC. So `-qn2` over `-qn1` reads
//! 1.33-1.39x with the reserve and 1.51x without it on this machine: the
//! reserve speeds the one-thread GC up, and the parallel GC has no core
//! left for it.

use super::PoolThread;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, TryLockError};

/// The touching thread of one megablock pool.
#[derive(Debug)]
pub struct Pretoucher {
    /// Megablocks touched and not yet taken, oldest first.
    ready: Arc<Mutex<VecDeque<usize>>>,
    /// Megablocks sent and not yet taken (touched or not).
    outstanding: usize,
    /// Dropped last, so that every megablock sent is touched by then.
    thread: PoolThread<usize>,
}

impl Pretoucher {
    /// A thread that touches each megablock sent to it with `touch`; None
    /// if the OS will not start one (the heap then faults its fresh memory
    /// in itself, as it did before).
    pub fn start(touch: fn(usize)) -> Option<Pretoucher> {
        let ready = Arc::new(Mutex::new(VecDeque::new()));
        let done = ready.clone();
        let thread = PoolThread::start("gclab-pretouch", move |base: usize| {
            touch(base);
            done.lock().unwrap_or_else(|e| e.into_inner()).push_back(base);
        })?;
        Some(Pretoucher { ready, outstanding: 0, thread })
    }

    /// Hand the thread megablock `base`, mapped and used by no one, to touch.
    pub fn send(&mut self, base: usize) {
        self.outstanding += 1;
        self.thread.send(base);
    }

    /// The oldest megablock the thread has finished, if any; it is the
    /// caller's from now on. None too while the thread holds the list: it
    /// may have been preempted holding it, and the heap does not wait
    /// for it (See Note [How the touching thread touches]).
    pub fn take(&mut self) -> Option<usize> {
        let mut ready = match self.ready.try_lock() {
            Ok(ready) => ready,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let base = ready.pop_front()?;
        self.outstanding -= 1;
        Some(base)
    }

    /// Megablocks sent and not yet taken.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Megablocks touched and waiting to be taken.
    pub fn ready_count(&self) -> usize {
        self.ready.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static TOUCHED: AtomicUsize = AtomicUsize::new(0);

    fn slow_touch(base: usize) {
        std::thread::sleep(std::time::Duration::from_millis(10));
        TOUCHED.fetch_add(base, Ordering::SeqCst);
    }

    #[test]
    fn a_megablock_is_taken_only_once_touched_and_in_the_order_sent() {
        let mut p = Pretoucher::start(slow_touch).expect("a thread starts");
        p.send(1);
        p.send(2);
        assert_eq!(p.outstanding(), 2);
        let first = loop {
            if let Some(b) = p.take() {
                break b;
            }
            std::thread::yield_now();
        };
        assert_eq!(first, 1, "the oldest comes first");
        assert!(TOUCHED.load(Ordering::SeqCst) >= 1, "a taken megablock was touched");
        assert_eq!(p.outstanding(), 1);
        p.send(4);
        drop(p);
        assert_eq!(TOUCHED.load(Ordering::SeqCst), 7, "dropping the pretoucher waits for every megablock sent");
    }
}
