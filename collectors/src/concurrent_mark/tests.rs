//! The marker's unit tests: large objects scanned in pieces, headers it
//! must not read, stacks that shrink under it.

use super::*;
use gclab_core::bdescr::{BlockPtr, BF_EVACUATED};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::BLOCK_WORDS;
use gclab_core::info::{InfoTable, MUT_ARR_DIRTY_INFO, STACK_CLEAN_INFO};
use gclab_core::object::forwarding_header;

static LEAF: InfoTable = InfoTable::constr("Leaf", "Tree", "Test", 0, 1);

/// A zeroed object of `words` words with `info`'s header, in a block
/// group of its own, with the words after the header set to `payload`.
fn large_object(ba: &mut BlockAllocator, info: &'static InfoTable, words: usize, payload: &[Word]) -> *mut Word {
    let group = ba.alloc_group(words.div_ceil(BLOCK_WORDS)).unwrap();
    // SAFETY: a fresh group is ours, and the object's words lie inside it.
    unsafe {
        let p = group.read().start;
        std::ptr::write_bytes(p, 0, words);
        *p = info.header();
        std::ptr::copy_nonoverlapping(payload.as_ptr(), p.add(1), payload.len());
        p
    }
}

#[test]
fn a_large_array_is_scanned_in_pieces() {
    let layout = Layout::new(false);
    let n = 3 * CHECK_EVERY;
    let mut ba = BlockAllocator::new();
    let array = large_object(&mut ba, &MUT_ARR_DIRTY_INFO, layout.array_size(n), &[n]);
    let leaf_block = ba.alloc_block().unwrap();
    let mut marks = MarkBitmap::new();
    // SAFETY: a fresh block is ours and the leaf lies inside it; the
    // array's last field lies inside the array.
    let leaf = unsafe {
        marks.attach(leaf_block);
        BlockDesc::store_flags(leaf_block.0, BF_MARK_IN_PLACE);
        let leaf = leaf_block.read().start;
        *leaf = LEAF.header();
        // Only the last field leads anywhere.
        *array.add(2 + n - 1) = leaf as Word;
        leaf
    };
    let queue = MarkQueue::new(Snapshot { marks, megablocks: MegablockSet::of(&[leaf_block]) }, layout);
    let (mut stack, mut partial) = (vec![array], None);
    let mut pieces = 0;
    loop {
        // SAFETY: the array and the leaf are as built above, and nothing
        // else runs.
        unsafe { queue.scan_some(&mut stack, &mut partial) };
        pieces += 1;
        match &partial {
            Some(p) => {
                assert_eq!(p.next, pieces * (CHECK_EVERY - 1), "each piece is the budget less the object's own one");
                assert!(!queue.marks.is_marked(leaf), "the last field is not reached before the last piece");
            }
            None => break,
        }
    }
    assert_eq!(pieces, 4, "{n} fields at {} a piece", CHECK_EVERY - 1);
    assert!(queue.marks.is_marked(leaf) && stack.is_empty(), "the last piece greys the leaf, and the budget left scans it");
}

static NODE: InfoTable = InfoTable::constr("Node", "Tree", "Test", 3, 0);

/// See Note [The marker runs through young GCs]: what a young GC
/// leaves under a marker beside it.
#[test]
fn the_marker_reads_no_header_outside_the_snapshot_nor_of_a_marked_object() {
    let layout = Layout::new(false);
    let mut ba = BlockAllocator::new();
    let (snapshot_block, young_block) = (ba.alloc_block().unwrap(), ba.alloc_block().unwrap());
    let mut marks = MarkBitmap::new();
    // Words outside every heap megablock, where a static object lies.
    let outside: Box<[Word; 4]> = Box::new([0; 4]);
    // SAFETY: fresh blocks are ours, and every object built lies inside
    // its block; nothing else runs.
    unsafe {
        marks.attach(snapshot_block);
        BlockDesc::store_flags(snapshot_block.0, BF_MARK_IN_PLACE);
        let (s, y) = (snapshot_block.read().start, young_block.read().start);
        // A young object the GC has copied: its header forwards to a
        // copy that is not there to read.
        *y = forwarding_header(16 as *mut Word);
        // A copy being promoted into the snapshot's free cells: marked,
        // its header not written yet.
        let copy = s.add(8);
        assert!(marks.mark(copy, 2));
        *s = NODE.header();
        for (i, field) in [y as Word, outside.as_ptr() as Word, copy as Word].into_iter().enumerate() {
            *s.add(1 + i) = field;
        }
        let queue = MarkQueue::new(Snapshot { marks, megablocks: MegablockSet::of(&[snapshot_block]) }, layout);
        let mut stack = Vec::new();
        queue.scan(s, &mut stack);
        assert!(stack.is_empty() && queue.marked_objects() == 0, "none of the three is greyed");
        assert!(queue.marks.is_marked(copy));
    }
}

#[test]
fn a_stack_that_shrank_between_two_pieces_ends_at_its_depth() {
    let layout = Layout::new(false);
    let capacity = 3 * CHECK_EVERY;
    let mut ba = BlockAllocator::new();
    // Full: its depth is its capacity.
    let stack_object = large_object(&mut ba, &STACK_CLEAN_INFO, layout.stack_size(capacity), &[capacity, capacity]);
    let queue = MarkQueue::new(Snapshot { marks: MarkBitmap::new(), megablocks: MegablockSet::default() }, layout);
    let (mut stack, mut partial) = (vec![stack_object], None);
    // SAFETY: the stack is as built above, and nothing else runs.
    unsafe { queue.scan_some(&mut stack, &mut partial) };
    assert_eq!(partial.as_ref().map(|p| p.next), Some(CHECK_EVERY - 1));
    // The program pops to 10 slots before the next piece.
    // SAFETY: as above.
    unsafe {
        *stack_object.add(2) = 10;
        assert_eq!(queue.scan_fields(stack_object, CHECK_EVERY - 1, CHECK_EVERY, &mut Vec::new()), (0, None), "no slot past the depth is scanned");
        queue.scan_some(&mut stack, &mut partial);
    }
    assert!(partial.is_none() && stack.is_empty(), "nothing is left past the depth");
}

/// Blocks for a snapshot the marker attaches: `n` fresh blocks flagged as
/// old blocks are (`BF_EVACUATED`), each holding one leaf at its start.
fn old_blocks(ba: &mut BlockAllocator, n: usize) -> Vec<BlockPtr> {
    let blocks: Vec<BlockPtr> = (0..n).map(|_| ba.alloc_block().unwrap()).collect();
    for &bd in &blocks {
        // SAFETY: fresh blocks are ours; the leaf lies inside the block.
        unsafe {
            BlockDesc::store_flags(bd.0, BF_EVACUATED);
            *bd.read().start = LEAF.header();
        }
    }
    blocks
}

/// Are exactly the blocks `attached` flagged `BF_MARK_IN_PLACE` (each
/// keeping `BF_EVACUATED`), each with its place in the list as its map's
/// number?
fn attached_are(blocks: &[BlockPtr], attached: usize) -> bool {
    blocks.iter().enumerate().all(|(i, &bd)| {
        // SAFETY: the test's blocks, which no thread writes meanwhile.
        let d = unsafe { bd.read() };
        let flags = d.flags;
        let want = if i < attached { BF_EVACUATED | BF_MARK_IN_PLACE } else { BF_EVACUATED };
        flags == want && (i >= attached || d.aux == i as u64)
    })
}

/// See Note [The marker attaches its snapshot]: a held marker attaches
/// nothing; let go, it attaches every block (in several batches) before
/// it greys what it was handed; and `finish_attaching` attaches whatever
/// the marker has not, wherever the marker is.
#[test]
fn the_marker_attaches_its_snapshot_before_it_marks_and_a_pause_finishes_what_it_left() {
    let layout = Layout::new(false);
    let mut ba = BlockAllocator::new();
    let blocks = old_blocks(&mut ba, 2 * ATTACH_EVERY + 5);
    // SAFETY: the last block's leaf, built above.
    let leaf = unsafe { blocks.last().unwrap().read().start };
    let queue = MarkQueue::attaching(blocks.clone(), layout);
    queue.push([leaf as Word]);
    let request = SyncRequest::default();
    let marker = Marker::start_held(queue, request.clone());
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(attached_are(&blocks, 0) && marker.queue.is_attaching(), "a held marker attaches nothing");
    // SAFETY: a held marker reads nothing.
    assert!(!unsafe { marker.queue.unmarked_in_snapshot(leaf as Word) }, "nothing is in the snapshot before it is attached");
    marker.queue.resume();
    marker.queue.wait_drained();
    assert!(request.take(), "the marker asks for a sync once it has run out of work");
    assert!(attached_are(&blocks, blocks.len()) && !marker.queue.is_attaching(), "every block attached, in list order");
    assert!(marker.queue.marks.is_marked(leaf), "then it greyed what it was handed");
    drop(marker.join());

    let more = old_blocks(&mut ba, ATTACH_EVERY + 1);
    let marker = Marker::start_held(MarkQueue::attaching(more.clone(), layout), SyncRequest::default());
    marker.queue.finish_attaching();
    assert!(attached_are(&more, more.len()) && !marker.queue.is_attaching(), "a pause attaches the whole list for a marker that has not started");
    // SAFETY: an attached block's object, not marked.
    assert!(unsafe { marker.queue.unmarked_in_snapshot(more[0].read().start as Word) }, "its blocks are in the snapshot, their megablocks found");
    drop(marker.join());
}
