//! The plan's unit tests: which blocks stay, where the others go, and
//! what the slide then makes of a hand-built generation.

use super::*;
use crate::reach::Reach;
use crate::slide::Compaction;
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::info::InfoTable;
use gclab_core::object::Layout;
use gclab_core::CompactionRecord;

/// An object of 50 words: its header and 49 words of data.
static CELL: InfoTable = InfoTable::constr("Cell", "T", "Test", 0, 49);
const CELL_WORDS: usize = 50;

/// A generation of blocks, each holding cells at the given word offsets
/// (the live ones marked, the dead ones not), attached to a compaction's
/// bitmap. Each cell's first data word is its tag, `block * 1000 + offset`.
struct Generation {
    ba: BlockAllocator,
    blocks: Vec<BlockPtr>,
    marks: MarkBitmap,
}

impl Generation {
    /// `cells[b]`: block b's cells, `(offset, live)`, in address order.
    fn new(cells: &[&[(usize, bool)]]) -> Generation {
        let mut ba = BlockAllocator::new();
        let blocks: Vec<BlockPtr> = cells.iter().map(|_| ba.alloc_block().unwrap()).collect();
        // SAFETY: fresh blocks are this test's; every cell lies inside its block.
        let marks = unsafe { MarkBitmap::keep_in_place_recording_starts(&blocks) };
        for (b, (&bd, block_cells)) in blocks.iter().zip(cells).enumerate() {
            // SAFETY: as above.
            unsafe {
                let d = bd.get();
                std::ptr::write_bytes(d.start, 0, BLOCK_WORDS);
                for &(offset, live) in block_cells.iter() {
                    let p = d.start.add(offset);
                    *p = CELL.header();
                    *p.add(1) = (b * 1000 + offset) as Word;
                    if live {
                        assert!(marks.mark(p, CELL_WORDS));
                    }
                }
                d.free = d.start.add(block_cells.last().map_or(0, |&(offset, _)| offset + CELL_WORDS));
            }
        }
        Generation { ba, blocks, marks }
    }

    fn start(&self, b: usize) -> *mut Word {
        // SAFETY: the block is this test's.
        unsafe { self.blocks[b].read() }.start
    }

    /// The tag of the cell at word `offset` of block `b`, 0 for a zero word.
    fn tag_at(&self, b: usize, offset: usize) -> Word {
        // SAFETY: as above.
        unsafe {
            let p = self.start(b).add(offset);
            if *p == 0 {
                0
            } else {
                *p.add(1)
            }
        }
    }
}

/// Cells from `from`, `n` of them, back to back, all live.
fn run(from: usize, n: usize) -> Vec<(usize, bool)> {
    (0..n).map(|k| (from + k * CELL_WORDS, true)).collect()
}

/// Block 0: two live cells at 200 (moves, to its own start); block 1: ten
/// live cells with a 12-word hole after the fifth (stays at 5%); block 2:
/// six live cells (moves into block 0); block 3: four live cells at 100,
/// two of which fit in block 0 and two go to the next block that moves,
/// block 2.
fn four_blocks() -> Generation {
    let nearly_full: Vec<(usize, bool)> = run(0, 5).into_iter().chain(run(262, 5)).collect();
    Generation::new(&[&run(200, 2), &nearly_full, &run(0, 6), &run(100, 4)])
}

#[test]
fn a_nearly_live_block_stays_and_the_cursor_skips_it() {
    let g = four_blocks();
    // SAFETY: the blocks are the test's and are marked.
    let plan = unsafe { plan(&g.marks, &g.blocks, dead_words_allowed(5)) };
    let stays: Vec<bool> = plan.blocks.iter().map(|p| p.stays).collect();
    assert_eq!(stays, [false, true, false, false], "only the block with 12 dead words of 512 stays");
    assert_eq!(plan.prefix, 0);
    assert_eq!(plan.blocks[0].destination(0), g.start(0), "block 0 slides to its own start");
    assert_eq!(plan.blocks[2].destination(0), g.start(0).wrapping_add(100), "block 2 follows block 0's cells");
    let b3 = &plan.blocks[3];
    assert_eq!((b3.split, b3.into), (100, [0, 2]), "block 3 is cut where block 0 is full, and goes on in block 2, not the block that stays");
    assert_eq!(b3.destination(100), g.start(2), "its third cell starts block 2 again");
    assert_eq!(plan.ends[1], g.start(1).wrapping_add(512));
    assert_eq!(plan.ends[0], g.start(0).wrapping_add(500));
    assert_eq!(plan.ends[2], g.start(2).wrapping_add(100));
    assert!(plan.ends[3].is_null(), "block 3 is left empty");
}

#[test]
fn with_no_dead_words_allowed_every_block_with_one_slides() {
    let g = four_blocks();
    // SAFETY: as above.
    let plan = unsafe { plan(&g.marks, &g.blocks, dead_words_allowed(0)) };
    assert!(plan.blocks.iter().all(|p| !p.stays), "no block stays");
    assert_eq!(plan.blocks[1].destination(0), g.start(0).wrapping_add(100), "block 1 slides down after block 0's cells");
}

#[test]
fn the_identity_prefix_is_the_leading_blocks_kept_without_holes() {
    // Two blocks live from their first word to 12 words short of their
    // end, a block with a hole of 12 words, then one like the first two.
    let short = run(0, 10);
    let holed: Vec<(usize, bool)> = run(0, 4).into_iter().chain(run(212, 6)).collect();
    let g = Generation::new(&[&short, &short, &holed, &short]);
    // SAFETY: as above.
    let plan = unsafe { plan(&g.marks, &g.blocks, dead_words_allowed(5)) };
    assert!(plan.blocks.iter().all(|p| p.stays), "every block is at least 95% live");
    assert_eq!(plan.prefix, 2, "the prefix ends at the first block with a hole");
    assert_eq!(plan.ends[2], g.start(2).wrapping_add(512), "the block with a hole ends at its last live word");
    assert_eq!(plan.ends[3], g.start(3).wrapping_add(500));
}

#[test]
fn the_slide_keeps_the_blocks_that_stay_and_zeroes_their_holes() {
    let mut g = four_blocks();
    // A dead cell in block 1's hole, which the slide must zero.
    // SAFETY: the word lies in block 1, a test block.
    unsafe { *g.start(1).add(250) = CELL.header() };
    let blocks = g.blocks.clone();
    // SAFETY: the generation is the test's, marked; nothing points into it,
    // so the update pass has nothing to fix.
    let (kept, record) = unsafe {
        let compaction = Compaction::plan(&g.marks, blocks, dead_words_allowed(5));
        compaction.slide(&g.marks, Layout::new(false), &mut g.ba, &Reach::new(4), None, false)
    };
    assert_eq!(kept, [g.blocks[0], g.blocks[1], g.blocks[2]], "block 3 is freed");
    let expected = CompactionRecord {
        blocks: 4,
        blocks_left_in_place: 1,
        // Block 0's cells slide to its start: no block keeps its objects'
        // addresses from the first on.
        blocks_unmoved: 0,
        blocks_freed: 1,
        hole_bytes: (12 * WORD_SIZE) as u64,
        // Blocks 0, 2 and 3: 2, 6 and 4 cells.
        slid_bytes: (12 * CELL_WORDS * WORD_SIZE) as u64,
    };
    assert_eq!(record, expected);
    let tags = |b: usize, n: usize| (0..n).map(|k| g.tag_at(b, k * CELL_WORDS)).collect::<Vec<_>>();
    assert_eq!(tags(0, 10), [200, 250, 2000, 2050, 2100, 2150, 2200, 2250, 3100, 3150], "blocks 0, 2 and 3's first cells slid into block 0");
    assert_eq!(tags(2, 2), [3200, 3250], "block 3's last two cells went to block 2, past block 1");
    for k in 0..5 {
        assert_eq!(g.tag_at(1, k * CELL_WORDS), (1000 + k * CELL_WORDS) as Word, "block 1's cells kept their places");
        assert_eq!(g.tag_at(1, 262 + k * CELL_WORDS), (1262 + k * CELL_WORDS) as Word);
    }
    // SAFETY: the words lie in block 1, which is kept.
    let hole: Vec<Word> = (250..262).map(|w| unsafe { *g.start(1).add(w) }).collect();
    assert_eq!(hole, [0; 12], "the dead cell's words in the hole are zeroed");
    // SAFETY: the kept blocks are the test's.
    let free: Vec<usize> = kept.iter().map(|&bd| unsafe { bd.read() }.used_words()).collect();
    assert_eq!(free, [500, 512, 100]);
}

#[test]
fn the_unmoved_run_takes_in_blocks_left_in_place_and_empty_ones() {
    // A block kept without holes, one kept with a hole, one that slides
    // onto itself (the first block that moves), one with no live cell,
    // one that slides down, and one kept again.
    let holed: Vec<(usize, bool)> = run(0, 4).into_iter().chain(run(212, 6)).collect();
    let dead = [(0, false), (50, false)];
    let g = Generation::new(&[&run(0, 10), &holed, &run(0, 3), &dead, &run(100, 2), &run(0, 10)]);
    // SAFETY: as above.
    let plan = unsafe { plan(&g.marks, &g.blocks, dead_words_allowed(5)) };
    let stays: Vec<bool> = plan.blocks.iter().map(|p| p.stays).collect();
    assert_eq!(stays, [true, true, false, false, false, true]);
    assert_eq!(plan.prefix, 1, "the prefix ends at the block with a hole");
    assert_eq!(plan.blocks[2].destination(0), g.start(2), "the first block that moves slides onto itself");
    assert_eq!(plan.unmoved, 4, "the unmoved run ends at the first block whose objects move");
    assert_eq!(plan.blocks[4].destination(0), g.start(2).wrapping_add(150), "the block after the empty one slides down after block 2's cells");
    assert_eq!((plan.left_in_place, plan.hole_words), (3, 12), "three blocks stay, one with a 12-word hole");
    assert_eq!(plan.slid_words, 2 * CELL_WORDS, "only block 4's cells move: block 2's slide onto themselves");
}
