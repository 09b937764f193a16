//! The mark bitmap's unit tests: marks set and found, live words and free
//! runs counted, a snapshot's count, runs marked whole.

use super::*;
use gclab_core::block_alloc::BlockAllocator;

/// A fresh block attached to a fresh bitmap, with its first word (the
/// allocator owns the block's memory: keep it).
fn one_block_attached() -> (BlockAllocator, BlockPtr, *mut Word, MarkBitmap) {
    let mut ba = BlockAllocator::new();
    let bd = ba.alloc_block().unwrap();
    // SAFETY: a fresh block is ours.
    let start = unsafe { bd.read() }.start;
    let mut marks = MarkBitmap::new();
    // SAFETY: as above.
    unsafe { marks.attach(bd) };
    (ba, bd, start, marks)
}

#[test]
fn marks_count_and_find() {
    let (_ba, bd, start, marks) = one_block_attached();
    let (a, b) = (start.wrapping_add(3), start.wrapping_add(100));
    assert!(marks.mark(a, 3));
    assert!(!marks.mark(a, 3), "marking twice reports the second as old");
    assert!(marks.mark(b, 70));
    assert!(marks.is_marked(a) && marks.is_marked(b));
    assert_eq!(marks.live_words_before_in_chunk(start.wrapping_add(4)), (0, 1));
    assert_eq!(marks.live_words_before_in_chunk(b), (1, 0));
    assert_eq!(marks.live_words_before_in_chunk(start.wrapping_add(150)), (2, 22));
    let (offsets, live) = marks.chunk_offsets(bd);
    assert_eq!((offsets[1], offsets[2], offsets[3], offsets[7], live), (3, 31, 73, 73, 73));
    assert_eq!(marks.marked_runs(bd).collect::<Vec<_>>(), vec![3..6, 100..170]);
    assert_eq!(marks.next_marked(bd, 0), Some(3));
    assert_eq!(marks.next_marked(bd, 6), Some(100));
    assert_eq!(marks.next_marked(bd, 170), None);
    assert_eq!(marks.next_unmarked(bd, 3), Some(6));
    assert_eq!(marks.live_words(bd), 73);
    assert_eq!(marks.free_runs(bd, BLOCK_WORDS), vec![0..3, 6..100, 170..BLOCK_WORDS]);
    assert_eq!(marks.free_runs(bd, 120), vec![0..3, 6..100]);
}

#[test]
fn a_snapshot_counts_the_bits_it_sets_once() {
    let mut ba = BlockAllocator::new();
    let mut blocks: Vec<BlockPtr> = (0..3).map(|_| ba.alloc_block().unwrap()).collect();
    let large = ba.alloc_group(2).unwrap();
    // SAFETY: fresh blocks are ours.
    unsafe { large.get() }.insert_flags(BF_LARGE);
    blocks.push(large);
    // SAFETY: as above.
    let marks = unsafe { MarkBitmap::snapshot(&blocks) };
    // SAFETY: as above.
    let at = |i: usize, w: usize| unsafe { blocks[i].read() }.start.wrapping_add(w);
    // Small objects, one across map words, and a large object, whose
    // map ends with its first block; two threads mark each at once.
    let objects = [(at(0, 3), 3), (at(1, 60), 200), (at(2, BLOCK_WORDS - 10), 10), (at(3, 0), BLOCK_WORDS + 100)].map(|(p, size)| (p as usize, size));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| objects.iter().for_each(|&(p, size)| _ = marks.mark(p as *const Word, size)));
        }
    });
    let in_maps: usize = blocks.iter().map(|&bd| marks.live_words(bd)).sum();
    assert_eq!(marks.counted_words(), in_maps);
    assert_eq!(marks.counted_words(), 3 + 200 + 10 + BLOCK_WORDS);
}

#[test]
fn a_run_marked_whole_keeps_only_what_was_placed() {
    let (_ba, bd, start, marks) = one_block_attached();
    assert!(marks.mark(start.wrapping_add(2), 4));
    // A run of 3-word cells from word 40 to 220, across map words.
    marks.mark_words(start.wrapping_add(40), start.wrapping_add(220));
    for cell in (40..220).step_by(3) {
        assert!(!marks.mark(start.wrapping_add(cell), 3), "cell {cell} is marked before anything is placed in it");
    }
    // Given back after 25 cells.
    marks.unmark_words(start.wrapping_add(115), start.wrapping_add(220));
    assert_eq!(marks.free_runs(bd, BLOCK_WORDS), vec![0..2, 6..40, 115..BLOCK_WORDS]);
    marks.mark_words(start.wrapping_add(BLOCK_WORDS - 64), start.wrapping_add(BLOCK_WORDS));
    assert_eq!(marks.live_words(bd), 4 + 75 + 64, "a run may end at the block's end");
}

#[test]
fn a_mark_across_map_words_sets_every_bit() {
    let (_ba, bd, start, marks) = one_block_attached();
    assert!(marks.mark(start.wrapping_add(60), 200));
    assert_eq!(marks.live_words(bd), 200);
    assert_eq!(marks.free_runs(bd, BLOCK_WORDS), vec![0..60, 260..BLOCK_WORDS]);
}
