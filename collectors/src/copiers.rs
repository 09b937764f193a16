//! The copiers of a copying-out cycle: `threads=N` copier threads, each
//! with a to-space of its own, sharing the cycle's work (`concurrent_copying`'s
//! `threads` parameter). The from-space blocks are dealt out in turn, and so
//! are the old blocks and large objects of the update pass.
//!
//! Invariant kept: a block is one copier's, so two copiers never walk,
//! copy from or update the same block. A copier still races for its
//! objects with the mutators (at the read barrier) and with the collector
//! (copying the roots in a pause), by `claim`'s protocol as any thread
//! does.

use crate::copier::{Copier, Job};
use crate::copy_out::ToSpace;
use gclab_core::bdescr::{BlockPtr, LiveMap, BF_COPYING_OUT};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::lock::Lock;
use gclab_core::object::Layout;
use gclab_core::SyncRequest;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

/// The copier threads of one cycle.
pub(crate) struct Copiers {
    team: Vec<Copier>,
}

/// `items` dealt out in turn into `n` hands.
fn deal<T>(items: Vec<T>, n: usize) -> Vec<Vec<T>> {
    let mut hands: Vec<Vec<T>> = (0..n).map(|_| Vec::new()).collect();
    for (i, item) in items.into_iter().enumerate() {
        hands[i % n].push(item);
    }
    hands
}

impl Copiers {
    /// `threads` copiers (at least one) for the from-space `blocks` (each
    /// with its object starts), copying into to-spaces of generation `gen`
    /// cut from `blocks_from`; parked until `resume`.
    ///
    /// # Safety
    /// `blocks_from` outlives the copiers (it is the heap's, and the
    /// runtime drops the collector first).
    // SAFETY: the caller's contract is `ToSpace::start`'s.
    pub(crate) unsafe fn start(blocks: Vec<(BlockPtr, LiveMap)>, threads: usize, gen: usize, blocks_from: &Lock<BlockAllocator>, layout: Layout, request: &SyncRequest) -> Copiers {
        let team = deal(blocks, threads.max(1))
            .into_iter()
            .map(|mine| {
                let mut to = ToSpace::new(gen);
                // SAFETY: the caller's contract.
                unsafe { to.start(blocks_from) };
                Copier::start(Job::Copy(mine), to, layout, request.clone())
            })
            .collect();
        Copiers { team }
    }

    /// Park every copier at its next checkpoint (all of them, whatever
    /// the first say); true if all are done.
    pub(crate) fn pause(&self) -> bool {
        let drained = self.team.iter().filter(|c| c.pause()).count();
        drained == self.team.len()
    }

    /// Let them go on (the world restarts).
    pub(crate) fn resume(&self) {
        self.team.iter().for_each(Copier::resume);
    }

    /// Stop them for good.
    pub(crate) fn stop(&mut self) {
        self.team.iter_mut().for_each(Copier::stop);
    }

    /// Hand them the update pass (they are drained): the old generation's
    /// `blocks`, from-space included, each copier taking every n-th, and
    /// its `large` objects dealt out; each copier with the from-space's
    /// blocks by start address (See Note [The update pass is handed the
    /// whole list] in `copier`).
    pub(crate) fn update(&self, from: HashSet<usize>, blocks: Vec<BlockPtr>, large: Vec<BlockPtr>) {
        let (n, blocks) = (self.team.len(), Arc::new(blocks));
        for (hand, (c, large)) in self.team.iter().zip(deal(large, n)).enumerate() {
            c.give(Job::Update { from: from.clone(), blocks: blocks.clone(), hand, hands: n, large });
        }
    }

    /// The places of the from-space blocks in the list their update pass
    /// was handed, in order (once it is done).
    pub(crate) fn places_of_the_from_space(&self) -> Vec<usize> {
        let mut places: Vec<usize> = self.team.iter().flat_map(|c| std::mem::take(&mut *c.shared.from_places.lock().expect("a copier's from-space places"))).collect();
        places.sort_unstable();
        places
    }

    /// Every copier's to-space.
    pub(crate) fn to_spaces(&self) -> impl Iterator<Item = MutexGuard<'_, ToSpace>> {
        self.team.iter().map(|c| c.shared.to.lock().expect("a copier's to-space"))
    }

    /// The first copier's to-space (the collector copies roots into it).
    pub(crate) fn first_to(&self) -> &Mutex<ToSpace> {
        &self.team[0].shared.to
    }

    /// Words they copied, fields they updated, and their threads' CPU
    /// seconds (once stopped).
    pub(crate) fn work(&self) -> (usize, usize, f64) {
        let words = self.team.iter().map(|c| c.shared.copied_words.load(Ordering::Relaxed)).sum();
        let updated = self.team.iter().map(|c| c.shared.updated.load(Ordering::Relaxed)).sum();
        (words, updated, self.team.iter().map(Copier::cpu_seconds).sum())
    }
}

/// Take the blocks at `places` (in order) out of `blocks`: the `n`
/// from-space blocks, whose places the update pass noted (See Note [The
/// update pass is handed the whole list] in `copier`).
pub(crate) fn take_out_places(blocks: &mut Vec<BlockPtr>, places: &[usize], n: usize) {
    assert_eq!(places.len(), n, "the update pass passed over every from-space block");
    let mut places = places.iter().peekable();
    let mut place = 0;
    blocks.retain(|&bd| {
        let here = places.next_if_eq(&&place).is_some();
        place += 1;
        // SAFETY: a block of the old generation, read with the world stopped.
        assert!(!here || unsafe { bd.read() }.has(BF_COPYING_OUT), "place {} of the old generation's list holds a from-space block", place - 1);
        !here
    });
}

/// `threads=N`: copier threads per cycle, 1 to 64.
pub(crate) fn parse_copier_threads(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if (1..=64).contains(&n) => Ok(n),
        _ => Err(format!("threads={v}: expected a number of copier threads from 1 to 64")),
    }
}

#[cfg(test)]
mod tests {
    use super::{deal, take_out_places};
    use gclab_core::bdescr::{BlockPtr, BF_COPYING_OUT};
    use gclab_core::block_alloc::BlockAllocator;

    /// Six fresh blocks, those at `from` flagged as a from-space.
    fn blocks(ba: &mut BlockAllocator, from: &[usize]) -> Vec<BlockPtr> {
        let blocks: Vec<BlockPtr> = (0..6).map(|_| ba.alloc_block().unwrap()).collect();
        for &i in from {
            // SAFETY: a fresh block is ours.
            unsafe { blocks[i].get() }.insert_flags(BF_COPYING_OUT);
        }
        blocks
    }

    #[test]
    fn the_from_space_is_taken_out_by_place() {
        let mut ba = BlockAllocator::new();
        let mut list = blocks(&mut ba, &[0, 3, 5]);
        let kept = vec![list[1], list[2], list[4]];
        take_out_places(&mut list, &[0, 3, 5], 3);
        assert_eq!(list, kept);
    }

    #[test]
    #[should_panic(expected = "place 2 of the old generation's list holds a from-space block")]
    fn a_place_that_moved_is_caught() {
        let mut ba = BlockAllocator::new();
        let mut list = blocks(&mut ba, &[3]);
        take_out_places(&mut list, &[2], 1);
    }

    #[test]
    fn dealing_gives_each_hand_its_turn() {
        assert_eq!(deal((0..7).collect(), 3), vec![vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
        assert_eq!(deal(vec![1, 2], 4), vec![vec![1], vec![2], vec![], vec![]]);
    }
}
