//! The parallel scavenge: every GC thread of a team scans its own work,
//! steals others' and waits, until no work is left anywhere (GHC's
//! `scavenge_until_all_done`). The protocol is `work_stealing`'s; this
//! module runs it with the GC threads' to-space blocks and scan stacks.

use crate::gc_thread::{GcThread, Work};
use crate::scavenge::{scavenge_loop, scavenge_stolen};
use crate::work_stealing::{until_all_done, Team};

/// Scan, steal and wait until every thread of the team is done (See Note
/// [Termination of a parallel scavenge]).
///
/// # Safety
/// As for `scavenge_loop`; `gct` is thread `me`'s, and every other thread
/// of the team runs this too.
// SAFETY: the team's threads scan disjoint blocks (each block is owned by one thread at a time) and claim objects atomically.
pub unsafe fn scavenge_until_all_done(gct: &mut GcThread<'_>, team: &Team<'_, Work>, me: usize) {
    until_all_done(team, me, |stolen| match stolen {
        // SAFETY: the caller's contract.
        None => unsafe { scavenge_loop(gct) },
        // SAFETY: a stolen item is this thread's alone.
        Some(work) => unsafe { scavenge_stolen(gct, work) },
    });
}

/// The termination protocol and the hand-out rule under loom (See Note
/// [Model checking with loom] in core's `shim`). GC thread 0
/// scans the block it is filling (X) when X fills up, starts a fresh block
/// (Y) that fills up in turn, and finishes scanning X; thread 1 joins the
/// team late, if it is still open (See Note [Joining a team late]), with
/// nothing, and steals. Each block's scan state is a loom cell, so two
/// threads scanning one block at once fail the model. Every interleaving
/// must end with both threads returned, the team closed with every member
/// idle, no work left anywhere, and Y scanned exactly once.
#[cfg(all(test, loom))]
mod loom_tests {
    use crate::gc_thread::may_hand_out;
    use crate::work_stealing::{until_all_done, Heartbeats, Roster, Stealer, Team};
    use gclab_core::bdescr::{BlockDesc, BlockPtr};
    use gclab_core::shim::{explore, Race};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    const X: usize = 0;
    const Y: usize = 1;

    /// A block's stand-in, for the hand-out rule (never dereferenced).
    fn block(i: usize) -> BlockPtr {
        BlockPtr(((i + 1) << 12) as *mut BlockDesc)
    }

    /// Scan one step of block `b`: a write to its scan state.
    fn scan_step(blocks: &[UnsafeCell<u32>; 2], b: usize) {
        // SAFETY: none, on purpose: loom fails the model if another thread
        // scans this block meanwhile, which is what the tests look for.
        blocks[b].with_mut(|n| unsafe { *n += 1 });
    }

    /// The scan steps block `b` has had, once every thread is done.
    fn steps(blocks: &[UnsafeCell<u32>; 2], b: usize) -> u32 {
        // SAFETY: every other thread has been joined.
        blocks[b].with(|n| unsafe { *n })
    }

    /// Thread 0 as above, and `threads - 1` thieves. (Two thieves make
    /// a model loom cannot finish: among its schedules are unfair ones in
    /// which the idle thieves, spinning in `wait_idle`, yield to each other
    /// forever while thread 0 never runs; they exceed any branch bound.)
    fn gc_threads(threads: usize) {
        let blocks = Arc::new([UnsafeCell::new(0u32), UnsafeCell::new(0u32)]);
        let (workers, stealers) = Team::<usize>::deques(threads);
        let roster = Arc::new(Roster::new());
        let heartbeats = Arc::new(Heartbeats::new(threads));
        let mut workers = workers.into_iter();
        let mine = workers.next().expect("a deque per thread");
        let thieves: Vec<_> = workers
            .enumerate()
            .map(|(i, theirs)| {
                let (blocks, stealers, roster, heartbeats) = (blocks.clone(), stealers.clone(), roster.clone(), heartbeats.clone());
                loom::thread::spawn(move || {
                    if !roster.join() {
                        return; // too late: thread 0 did everything
                    }
                    let team = Team::new(stealers, &roster, &heartbeats);
                    until_all_done(&team, i + 1, |stolen| match stolen {
                        Some(b) => scan_step(&blocks, b),
                        None => {
                            while let Some(b) = theirs.pop() {
                                scan_step(&blocks, b);
                            }
                        }
                    });
                })
            })
            .collect();
        let team = Team::new(stealers.clone(), &roster, &heartbeats);
        let mut first = true;
        until_all_done(&team, 0, |stolen| {
            if let Some(b) = stolen {
                return scan_step(&blocks, b);
            }
            if std::mem::take(&mut first) {
                let scanning = Some(block(X));
                scan_step(&blocks, X);
                // X is full: queue it, unless it is the block being scanned.
                if may_hand_out(block(X), scanning) {
                    mine.push(X);
                }
                scan_step(&blocks, Y); // copying into the fresh block Y
                if may_hand_out(block(Y), scanning) {
                    mine.push(Y);
                }
                scan_step(&blocks, X); // the scan of X carries on
            }
            // As `scavenge_loop`, own work until none is left.
            while let Some(b) = mine.pop() {
                scan_step(&blocks, b);
            }
        });
        for thief in thieves {
            thief.join().unwrap();
        }
        assert!(stealers.iter().all(Stealer::is_empty), "a thread returned with work left");
        assert_eq!(roster.idle(), roster.members(), "a thread returned before every member was idle");
        assert!(!roster.join(), "the team closed");
        assert_eq!(steps(&blocks, Y), 2, "Y filled once and scanned once");
    }

    #[test]
    fn the_parallel_scavenge_ends_once_with_every_block_scanned_once() {
        assert!(explore("two GC threads", None, None, || gc_threads(2)) > 1);
    }


    #[test]
    #[should_panic(expected = "Causality violation")]
    fn loom_finds_a_block_handed_out_while_being_scanned() {
        explore("two GC threads, race put back", Some(Race::HandOutBlockBeingScanned), None, || gc_threads(2));
    }
}
