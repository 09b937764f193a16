//! Defragmentation: which blocks of a line space a major GC evacuates
//! instead of marking in place (Immix's opportunistic defragmentation).
//!
//! A line space reuses holes but never moves what it keeps, so a block
//! with a few live objects scattered across it stays, its holes too short
//! or too many for the objects promotion brings. Before a major GC marks
//! the space, `choose` picks the most fragmented recyclable blocks; the
//! collector leaves them in the generation, so they become from-space and
//! `evacuate` copies their live objects into the space's holes and fresh
//! blocks (and fixes every slot that points at them, as it does for any
//! copied object); they are freed when the GC ends.
//!
//! Note [Choosing what to evacuate]
//! ----------------------------------------
//! *When.* As in the paper, a major GC defragments (`defrag=auto`) when
//! the last sweep left recyclable blocks that promotion has not touched
//! since: holes nobody needed, the sign that free space is scattered in
//! pieces allocation does not reach. `defrag=always` defragments every
//! major GC, `defrag=never` none.
//!
//! *What.* Blocks are ranked by their holes ahead of the cursor: more
//! holes, more fragmented. Two histograms by hole count h give, for the
//! blocks with h holes, the lines they use (`required[h]`, what evacuating
//! them would copy) and their free lines (`available[h]`, room that
//! evacuating others could fill). Start with everything available: every
//! recyclable block's free lines plus the headroom (`headroom` percent of
//! the space's blocks, 2 by default as in MMTk, to be cut fresh). Then,
//! from the most holes down, take the blocks with h holes as candidates:
//! what they need joins `required`, their free lines leave `available`
//! (nothing is placed in a block being evacuated). Stop before `required`
//! would pass `available`. Blocks with one hole are never candidates: a
//! single hole is a block partly full, not fragmented (MMTk's minimum is
//! two holes too).
//!
//! *Why used lines, not live ones.* Immix estimates what a candidate needs
//! from the last GC's marks and, if the estimate was short, stops copying
//! and marks the rest of the candidates in place. Here a candidate is
//! from-space, freed whole at the end, so every live object in it must
//! move; whether an object stays or goes cannot be decided per object
//! without a claim that both a copying and a marking GC thread respect
//! (`evacuate` claims headers to copy and mark bits to mark; a thread that
//! marks while another forwards would scan a forwarded object). So the
//! plan uses an upper bound instead: a block's used lines (the lines live
//! at the last sweep plus everything before its cursor) hold all its live
//! objects. What can still overrun the plan is the holes' own
//! fragmentation (an object does not fit the end of a hole): the
//! allocator then cuts fresh blocks beyond the headroom, which `-M` may
//! refuse as any heap growth.

use crate::line_space::{cursor_of, LineSpace};
use gclab_core::bdescr::BlockPtr;
use gclab_core::constants::BLOCK_WORDS;

/// When a major GC defragments (`immix:defrag=auto|always|never`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefragMode {
    /// When the last sweep's recyclable blocks went unused (See Note
    /// [Choosing what to evacuate]).
    #[default]
    Auto,
    /// Every major GC.
    Always,
    /// Never: the space only marks in place.
    Never,
}

impl DefragMode {
    /// Parse a collector parameter's value.
    pub fn parse(v: &str) -> Result<DefragMode, String> {
        match v {
            "auto" => Ok(DefragMode::Auto),
            "always" => Ok(DefragMode::Always),
            "never" => Ok(DefragMode::Never),
            _ => Err(format!("defrag must be auto, always or never, not `{v}'")),
        }
    }
}

// Note [Evacuating a tight generation whole]
// ----------------------------------------
// Under `-M`, once the policy asks for compaction (See Note
// [Defragmenting under -M] in `immix`), a major GC whose last sweep left
// no holes to judge runs twice in one pause: a marking that finds the
// holes, then a second trace that evacuates the blocks it chose. A heap
// that a defragmentation left dense has no holes, so every tight major GC
// after one paid for two traces: on fibheaps 400000 at `-M84m` (2x its
// minimum heap) the second pass evacuated 6,900-10,600 of 7,300-11,900
// blocks in each of three major GCs, and immix's major GCs took 1.73x
// copying's (0.372 s against 0.215; the first pass alone 27-62 ms of
// each 68-150 ms pause). When the room left under `-M` (the headroom, if
// that is larger, as for any defragmentation) holds a copy of
// everything the GC could place (every generation's words and the whole
// allocation area: an upper bound, since it counts the dead too), the
// major GC evacuates every block of the space instead, in one trace: a
// copying GC into fresh blocks of the space, which leaves the old
// generation compacted in the trace's order, as the second pass would
// have left most of it. When the bound does not fit, the two passes run
// as before. The bound allows one word in sixteen for the slop at block
// ends (an object never spans two blocks), so a heap whose live data
// really is its bound cannot push the GC past `-M`: the blocks cut
// beyond the room would be judged by the overflow check, as any growth.
// This departs from the paper's Immix, which never evacuates a block its
// last sweep found dense; but with no sweep's view of the blocks (the
// case in which gclab runs the second pass at all), evacuating the whole
// generation is nearly the trace the second pass would make, less the
// first pass, and it is bounded by the room as the second pass is.

/// Does a copy of `words` fit in `room` blocks, with an allowance for
/// the slop at block ends (See Note [Evacuating a tight generation
/// whole])?
pub fn whole_evacuation_fits(words: usize, room: usize) -> bool {
    let with_slop = words + words / 16;
    with_slop.div_ceil(BLOCK_WORDS) <= room
}

/// Fewest holes that make a block a candidate.
pub const MIN_HOLES: usize = 2;

/// A recyclable block as allocation left it: its holes ahead of the
/// cursor, and its lines free there and used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHoles {
    /// The block.
    pub bd: BlockPtr,
    /// Its line map (See `Recyclable`).
    pub used: u64,
    /// Holes ahead of its cursor.
    pub holes: usize,
    /// Their free lines (a line the cursor is inside counts whole).
    pub free_lines: usize,
    /// Their words, exactly: what the generation counts free for them.
    pub free_words: usize,
    /// The other lines: live at the last sweep, or filled since.
    pub used_lines: usize,
    /// Nothing was placed in it since the last sweep.
    pub untouched: bool,
}

// Note [A copying-out that pays for itself]
// ----------------------------------------
// A copying-out cycle of `concurrent_copying` frees its from-space, the
// sparse blocks' free lines (See Note [A copying-out cycle] there). Its
// cost does not follow the from-space: its update pass reads every field
// of every other old block and large object, and while the cycle runs no
// marking can start, so the old generation grows the whole time. Taking
// every sparse block there was, binary-trees 20 ran 2-6 cycles a run that
// copied 4-11 KB each (a handful of blocks of a 300-400 MB generation):
// the concurrent phases took 1.28-1.47 s where the markings alone took
// 0.68-0.70 s, and the memory in use was 384-492 MiB at -N1 and 577 MiB
// at -N2, against 368 and 435 MiB with no copying out (`live=0`). So a
// cycle starts only if the free words it would reclaim (the candidates'
// unused lines) are at least `gain=PERCENT` of the old generation's
// words, 1 by default: at most a hundred words read for each word freed.
// `gain=0` takes any sparse block, as before. Measured (`scripts/ab -n
// 4`, the default over `gain=0`, 2-core machine): binary-trees 20 total
// 0.963x (0.95-1.01) and peak RSS 0.908x (0.80-1.06) at -N1; at -N2 total
// 0.969x and peak RSS 1.035x (0.90-1.29: its memory is not the cycles').
// Programs that fragment still copy out, in fewer and larger cycles
// (`-A64k -F1.2`): hash 21 cycles copying 3.8 MB where it ran 45 copying
// 1.5 MB, power 882 and 10.9 MB where 898 and 8.0 MB, fibheaps 11 and
// 0.47 MB alike, each in the same memory or less. Shenandoah makes the same
// judgement by its collection set (it skips evacuation and the update of
// references when the garbage is free at once, regions wholly dead);
// ZGC folds the update into the next marking instead (its remap), which
// makes a small relocation cheap; here the update pass is a cycle's own.

/// The recyclable blocks of `space` that a copying-out cycle would take:
/// those with at most `most_used` lines used that `counted` accepts,
/// provided that together they free at least `gain_percent` of
/// `old_words` (See Note [A copying-out that pays for itself]); none
/// otherwise.
///
/// # Safety
/// As for `census`.
// SAFETY: the caller's contract, which `census` needs.
pub unsafe fn copy_out_choice(space: &LineSpace, most_used: usize, gain_percent: usize, old_words: usize) -> Vec<BlockHoles> {
    let g = space.geometry();
    // SAFETY: the caller's contract.
    let from: Vec<BlockHoles> = unsafe { census(space) }.into_iter().filter(|b| b.used_lines <= most_used).collect();
    let freed: usize = from.iter().map(|b| (g.lines() - b.used_lines) * g.line_words()).sum();
    if !pays_for_itself(freed, gain_percent, old_words) {
        return Vec::new();
    }
    from
}

/// Does a copying-out cycle that frees `freed` words pay for itself in an
/// old generation of `old_words` (See Note [A copying-out that pays for
/// itself])?
pub fn pays_for_itself(freed: usize, gain_percent: usize, old_words: usize) -> bool {
    freed * 100 >= gain_percent * old_words
}

/// The recyclable blocks of `space`, as `choose` ranks them.
///
/// # Safety
/// The world is stopped: nobody allocates into the space.
// SAFETY: reads the recyclable blocks' descriptors, which the stopped world leaves alone.
pub unsafe fn census(space: &LineSpace) -> Vec<BlockHoles> {
    let g = space.geometry();
    let mut out = Vec::new();
    for r in space.recyclable() {
        // SAFETY: the caller's contract.
        let cursor = unsafe { cursor_of(r.bd) };
        let (holes, free_words) = g.holes_from(r.used, cursor);
        let free_lines = free_words.div_ceil(g.line_words());
        out.push(BlockHoles { bd: r.bd, used: r.used, holes, free_lines, free_words, used_lines: g.lines() - free_lines, untouched: cursor == 0 });
    }
    out
}

/// Should this major GC defragment, given the census?
pub fn wanted(mode: DefragMode, blocks: &[BlockHoles]) -> bool {
    match mode {
        DefragMode::Always => true,
        DefragMode::Never => false,
        DefragMode::Auto => blocks.iter().any(|b| b.untouched),
    }
}

/// An evacuation plan being made, in lines: what the candidates taken so
/// far need, and the room their copies may go to.
struct Plan {
    needed: usize,
    room: usize,
}

impl Plan {
    /// Take candidates whose used lines are `required` and whose free
    /// lines (room no longer) are `available`, if their copies still fit.
    fn take(&mut self, required: usize, available: usize) -> bool {
        let (needed, room) = (self.needed + required, self.room - available);
        if needed > room {
            return false;
        }
        (self.needed, self.room) = (needed, room);
        true
    }
}

/// The blocks to evacuate, given the recyclable blocks and the headroom
/// in lines (See Note [Choosing what to evacuate]).
pub fn choose(blocks: &[BlockHoles], headroom_lines: usize) -> Vec<BlockPtr> {
    let most = blocks.iter().map(|b| b.holes).max().unwrap_or(0);
    let mut required = vec![0; most + 1];
    let mut available = vec![0; most + 1];
    for b in blocks {
        required[b.holes] += b.used_lines;
        available[b.holes] += b.free_lines;
    }
    let mut plan = Plan { needed: 0, room: headroom_lines + available.iter().sum::<usize>() };
    let mut threshold = most + 1;
    for h in (MIN_HOLES..=most).rev() {
        if !plan.take(required[h], available[h]) {
            break;
        }
        threshold = h;
    }
    let mut chosen: Vec<BlockPtr> = blocks.iter().filter(|b| b.holes >= threshold).map(|b| b.bd).collect();
    // See Note [The bucket that does not fit whole].
    let partial = threshold - 1;
    if partial >= MIN_HOLES {
        let mut rest: Vec<&BlockHoles> = blocks.iter().filter(|b| b.holes == partial).collect();
        rest.sort_by_key(|b| b.used_lines);
        for b in rest {
            if !plan.take(b.used_lines, b.free_lines) {
                break;
            }
            chosen.push(b.bd);
        }
    }
    chosen
}

// Note [The bucket that does not fit whole]
// ----------------------------------------
// The paper's histogram takes whole buckets: every block with h holes or
// none of them. A bucket is often large (on lru 50000 1000000 128 most of
// the old generation's blocks have a few holes each, scattered by random
// evictions), so the first bucket that does not fit whole can leave most
// of the room unused: at `-M14180k` the fifth major GC evacuated 223
// blocks where the free lines and the headroom had room for about 480,
// and the heap stood 64 blocks past its limit after it. So the bucket
// that stops the loop gives what still fits, its blocks with the fewest
// used lines first. Each block taken costs the room exactly one block of
// lines (its used lines must go somewhere, its free lines stop being
// somewhere), so the count that fits is the same in any order; the
// emptiest blocks free the most for the lines they copy. MMTk's
// `defrag_spill_threshold` takes whole buckets too.

#[cfg(test)]
mod tests {
    use super::*;

    fn block(i: usize, holes: usize, free_lines: usize) -> BlockHoles {
        let used_lines = 32 - free_lines;
        BlockHoles { bd: BlockPtr((i * 64) as *mut _), used: (1u64 << used_lines) - 1, holes, free_lines, free_words: free_lines * 16, used_lines, untouched: true }
    }

    #[test]
    fn a_cycle_pays_for_itself_from_its_share_of_the_old_generation() {
        assert!(pays_for_itself(100, 1, 10_000), "1% of the old generation freed, at gain=1");
        assert!(!pays_for_itself(99, 1, 10_000), "just under 1%");
        assert!(pays_for_itself(0, 0, 10_000), "gain=0 takes any sparse block");
    }

    #[test]
    fn the_most_fragmented_blocks_go_first_while_their_data_fits() {
        // Four blocks of 32 lines: two with 6 holes (8 lines used each),
        // one with 3 holes (20 used), one with 1 hole (30 used).
        let blocks = [block(1, 6, 24), block(2, 6, 24), block(3, 3, 12), block(4, 1, 2)];
        // No headroom: the 6-hole blocks need 16 lines, and the others
        // have 14 free: the bucket does not fit whole, but one of its
        // blocks does (8 lines into the other three blocks' 38). See
        // Note [The bucket that does not fit whole].
        assert_eq!(choose(&blocks, 0), vec![blocks[0].bd]);
        // Nor any of it when the other blocks are full.
        let full = [block(1, 6, 24), block(3, 1, 0)];
        assert!(choose(&full, 0).is_empty());
        // Of a bucket taken in part, the emptiest blocks go first.
        let mixed = [block(1, 4, 20), block(2, 4, 26), block(3, 1, 10)];
        assert_eq!(choose(&mixed, 0), vec![mixed[1].bd], "6 lines used before 12");
        // 2 lines of headroom make it fit; the 3-hole block would then need
        // 20 more with only 2 left.
        let chosen = choose(&blocks, 2);
        assert_eq!(chosen, vec![blocks[0].bd, blocks[1].bd]);
        // Plenty of headroom: every block with two holes or more, never
        // the one-hole block.
        assert_eq!(choose(&blocks, 1000).len(), 3);
    }

    #[test]
    fn a_whole_evacuation_needs_room_for_every_word_and_its_slop() {
        // 16 blocks of words need 17 blocks with one word in sixteen of slop.
        assert!(whole_evacuation_fits(16 * BLOCK_WORDS, 17));
        assert!(!whole_evacuation_fits(16 * BLOCK_WORDS, 16));
        assert!(whole_evacuation_fits(0, 0), "nothing to place fits anywhere");
        assert!(!whole_evacuation_fits(1, 0));
    }

    #[test]
    fn auto_defragments_when_a_recyclable_block_went_unused() {
        let mut blocks = [block(1, 3, 10)];
        assert!(wanted(DefragMode::Auto, &blocks));
        blocks[0].untouched = false;
        assert!(!wanted(DefragMode::Auto, &blocks) && wanted(DefragMode::Always, &blocks) && !wanted(DefragMode::Never, &blocks));
    }
}
