//! Lines reclaimed lazily: `lxr`'s account of the words each block of its
//! counted space holds and of the words that died in it since it was
//! last judged, which decides when a block is judged again line by line
//! (when promotion will need its lines), freed whole with no walk, or
//! left as it is (See Note [Lines are reclaimed lazily]).
//!
//! Invariant kept: a block's counted words are the words of the objects
//! placed in it (by promotion or the recount after a backup trace) less
//! those that died since, so a block whose counted words reach zero holds
//! no live object.

use crate::ref_count::live_by_count;
use gclab_core::bdescr::{BlockDesc, BlockPtr, LiveMap};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::generation::Generation;
use gclab_core::object::Layout;
use std::collections::HashMap;

// Note [Lines are reclaimed lazily]
// ----------------------------------------
// An object whose count falls to zero is zeroed where it lies at once
// (walkers then see slop, never a dead object whose fields may point at
// freed memory), but its lines become holes only when its block is
// judged again (`LineSpace::rejudge`, which finds the block's live
// objects from its counts). Judging every block with a death at every
// pause was 41% of fibheaps' run: its deaths are scattered over the whole
// old generation, so each pause walked most of it. A block is freed at
// once, with no walk, when its counted words reach zero; any other waits,
// its dead words zero words that no hole offers: free in the block but
// not counted free (`n_free_words`), which the sanity checker's
// inequalities allow. LXR reclaims lines when its allocator comes to a
// block. Here the allocator is promotion, in the pauses, which takes the
// space's recyclable blocks and cuts fresh ones when they run out; so a
// pause first judges the blocks with the most dead words, only as many as
// it takes for the generation's free words to reach what promotion may
// want (`judge_dirty`, twice the allocation area), and only blocks with a
// quarter of their words dead (`WORTH_JUDGING`). The first version judged
// every block once a quarter of it had died: fibheaps 400000 then judged
// 222 blocks at each pause, while its recyclable blocks held some
// 1,000,000 free words against the 70,000 a pause copies, and the judging
// (the walk of the counts) was about 9% of its run. Judging on demand
// with no floor was worse for hash, whose free words are always short:
// every pause judged every block with a death, 244 of them.

/// The dead words a block gathers before judging it is worth its walk.
const WORTH_JUDGING: usize = BLOCK_WORDS / 4;

/// Each counted block's words, and its dead words not yet judged.
#[derive(Debug, Default)]
pub struct LazyLines {
    /// The words each space block counts in the generation's `n_words`.
    counted: HashMap<BlockPtr, usize>,
    /// The dead words zeroed in each block since it was last judged.
    unjudged: HashMap<BlockPtr, usize>,
}

impl LazyLines {
    /// Objects (each an address and its size in words) placed in the
    /// space's blocks.
    pub fn placed(&mut self, objects: impl IntoIterator<Item = (*mut Word, usize)>) {
        add_words_by_block(&mut self.counted, objects);
    }

    /// Block `bd` holds `words` of live objects, walked after a backup
    /// trace.
    pub fn recounted(&mut self, bd: BlockPtr, words: usize) {
        self.counted.insert(bd, words);
        self.unjudged.remove(&bd);
    }

    /// The words block `bd` counts in the generation's `n_words`.
    pub fn counted_words(&self, bd: BlockPtr) -> usize {
        self.counted.get(&bd).copied().unwrap_or(0)
    }

    /// `words` of block `bd` died: taken off its words, and waiting to be
    /// judged. All of `died` for a block whose holes the mutators fill,
    /// which is neither freed nor judged now, since judging is by counts
    /// and its young objects have none yet (See Note [Young objects in
    /// holes] in `lxr::young_in_holes`).
    pub fn died_offered(&mut self, bd: BlockPtr, words: usize) {
        let counted = self.counted.entry(bd).or_default();
        *counted = counted.saturating_sub(words);
        *self.unjudged.entry(bd).or_default() += words;
    }

    /// `words` of block `bd` died: the block, with an all-clear live map,
    /// if nothing lives in it any more (to be freed now, with no walk);
    /// None if it waits to be judged (See `judge_dirty`).
    pub fn died(&mut self, bd: BlockPtr, words: usize) -> Option<(BlockPtr, LiveMap)> {
        self.died_offered(bd, words);
        if self.counted_words(bd) > 0 {
            return None;
        }
        self.unjudged.remove(&bd);
        Some((bd, [0; BLOCK_WORDS / 64]))
    }

    /// The blocks to judge again now, each with its live map by counts:
    /// of those with a quarter of their words dead or more, the most dead
    /// first, until their dead words reach `want` (See Note [Lines are
    /// reclaimed lazily]), passing over those `skip` names (blocks whose
    /// holes the mutators fill).
    ///
    /// # Safety
    /// The GC holds the heap; every block with dead words is a block of
    /// the space `gen` with a side table, whose counts are up to date and
    /// whose objects and zero words tile it.
    // SAFETY: the caller's contract covers the walks.
    pub unsafe fn judge_dirty(&mut self, want: usize, skip: impl Fn(BlockPtr) -> bool, gen: &mut Generation, layout: Layout) -> Vec<(BlockPtr, LiveMap)> {
        let mut dirty: Vec<(usize, BlockPtr)> = self.unjudged.iter().filter(|(&bd, &w)| w >= WORTH_JUDGING && !skip(bd)).map(|(&bd, &w)| (w, bd)).collect();
        dirty.sort_unstable_by_key(|&(dead, _)| std::cmp::Reverse(dead));
        let mut judged = Vec::new();
        let mut got = 0;
        for (dead, bd) in dirty {
            if got >= want {
                break;
            }
            got += dead;
            self.unjudged.remove(&bd);
            // SAFETY: the caller's contract.
            let (live, live_words) = unsafe { live_by_count(bd, layout) };
            let counted = self.counted.entry(bd).or_default();
            // What shrank in place (a thunk updated) is slop: drop it.
            gen.n_words -= counted.saturating_sub(live_words);
            *counted = live_words;
            judged.push((bd, live));
        }
        judged
    }

    /// Block `bd` was freed.
    pub fn forget(&mut self, bd: BlockPtr) {
        self.counted.remove(&bd);
        self.unjudged.remove(&bd);
    }

    /// Forget every block (a backup trace recounts them).
    pub fn clear(&mut self) {
        self.counted.clear();
        self.unjudged.clear();
    }
}

/// Add the words of `objects` (each an object and its size) to their
/// blocks' entries of `by_block`. Objects come in runs of one block
/// (promoted together, or dying as a structure together): one map update
/// per run.
pub fn add_words_by_block(by_block: &mut HashMap<BlockPtr, usize>, objects: impl IntoIterator<Item = (*mut Word, usize)>) {
    let mut run: Option<(BlockPtr, usize)> = None;
    for (p, words) in objects {
        let bd = BlockPtr(BlockDesc::of(p));
        match &mut run {
            Some((b, w)) if *b == bd => *w += words,
            _ => {
                if let Some((b, w)) = run.replace((bd, words)) {
                    *by_block.entry(b).or_default() += w;
                }
            }
        }
    }
    if let Some((b, w)) = run {
        *by_block.entry(b).or_default() += w;
    }
}
