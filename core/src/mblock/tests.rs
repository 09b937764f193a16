//! The megablock pool's tests: alignment, reuse, returning memory, huge
//! pages and the reserve touched off the pause.

use super::*;

#[test]
fn megablocks_are_aligned_and_reused() {
    let mut pool = MBlockPool::new();
    let a = pool.alloc_one().unwrap();
    assert_eq!(a & MBLOCK_MASK, 0);
    assert!(pool.contains(a) && pool.contains(a + MBLOCK_SIZE - 1));
    assert!(!pool.contains(a + MBLOCK_SIZE));
    pool.free_group(a, 1);
    assert_eq!(pool.free_count(), 1);
    let b = pool.alloc_one().unwrap();
    assert_eq!(a, b, "a free megablock is reused before mapping a new one");
    assert_eq!(pool.mapped(), 1);
}

#[test]
fn groups_are_contiguous_and_unmapped_on_free() {
    let mut pool = MBlockPool::new();
    let g = pool.alloc_group(3).unwrap();
    assert_eq!(g & MBLOCK_MASK, 0);
    assert!(pool.contains(g + 3 * MBLOCK_SIZE - 1));
    // The memory is really there: write to its last byte.
    // SAFETY: the group is a live mapping of 3 MiB that we own.
    unsafe { *((g + 3 * MBLOCK_SIZE - 1) as *mut u8) = 7 };
    pool.free_group(g, 3);
    assert_eq!(pool.mapped(), 0);
    assert_eq!(pool.returned(), 3);
    assert_eq!(pool.peak(), 3);
}

#[test]
fn megablocks_mapped_one_after_another_lie_side_by_side_in_the_heaps_range() {
    let mut pool = MBlockPool::new();
    let bases: Vec<usize> = (0..8).map(|_| pool.alloc_one().unwrap()).collect();
    // Each is committed just past the last, inside the reservation (See
    // `address_space`), whatever other threads map meanwhile.
    assert!(bases.windows(2).all(|w| w[0] + MBLOCK_SIZE == w[1]), "{bases:x?}");
    let range = pool.heap_range().unwrap();
    assert!(bases.iter().all(|&b| range.holds(b) && range.holds(b + MBLOCK_SIZE - 1)));
    static STATIC_OBJECT: u64 = 0;
    assert!(!range.holds(&STATIC_OBJECT as *const u64 as usize));
    // A group freed goes back to the reservation, and a later group is
    // fitted into its addresses.
    let g = pool.alloc_group(3).unwrap();
    pool.free_group(g, 3);
    assert_eq!(pool.alloc_group(2).unwrap(), g);
}

#[test]
fn return_to_os_keeps_the_requested_number() {
    let mut pool = MBlockPool::new();
    let blocks: Vec<usize> = (0..5).map(|_| pool.alloc_one().unwrap()).collect();
    for b in blocks {
        pool.free_group(b, 1);
    }
    assert_eq!(pool.return_to_os(2), 3);
    assert_eq!(pool.free_count(), 2);
    assert_eq!(pool.mapped(), 2);
}

/// See Note [Returning memory lazily]: a returned megablock keeps its
/// address space, stops counting as memory in use, and is what the
/// next request gets, before any fresh mapping.
#[test]
fn a_returned_megablock_is_reused_before_fresh_address_space() {
    for mode in [MemoryReturn::Lazy, MemoryReturn::Eager] {
        let mut pool = MBlockPool::with_policy(MemoryPolicy { return_mode: mode, huge_pages: false, pretouch: false, gc_threads: 1, cores: 1 });
        let bases: Vec<usize> = (0..4).map(|_| pool.alloc_one().unwrap()).collect();
        let mappings = pool.mappings().count();
        for &b in &bases {
            pool.free_group(b, 1);
        }
        assert_eq!(pool.return_to_os(1), 3, "{mode:?}");
        assert_eq!((pool.free_count(), pool.decommitted_count(), pool.mapped(), pool.returned()), (1, 3, 1, 3), "{mode:?}");
        let returned: Vec<usize> = bases.iter().copied().filter(|&b| !pool.is_free(b)).collect();
        assert!(returned.iter().all(|&b| !pool.contains(b)), "{mode:?}: a decommitted megablock still counts as holding memory");
        let again: Vec<usize> = (0..4).map(|_| pool.alloc_one().unwrap()).collect();
        assert_eq!(pool.mappings().count(), mappings, "{mode:?}: a fresh mapping while decommitted megablocks were left");
        assert!(returned.iter().all(|b| again.contains(b)), "{mode:?}: {returned:x?} not reused in {again:x?}");
        assert_eq!((pool.mapped(), pool.peak(), pool.decommitted_count()), (4, 4, 0), "{mode:?}");
    }
}

/// `MemoryReturn::Eager` (`MADV_DONTNEED`) frees the pages at once:
/// the megablock reads as zeros when it comes back, where a lazily
/// returned one may still hold what it held.
#[test]
fn an_eagerly_returned_megablock_comes_back_zeroed() {
    let mut pool = MBlockPool::with_policy(MemoryPolicy { return_mode: MemoryReturn::Eager, huge_pages: false, pretouch: false, gc_threads: 1, cores: 1 });
    let base = pool.alloc_one().unwrap();
    let words = MBLOCK_SIZE / 8;
    // SAFETY: the megablock is mapped, ours, and nothing else uses it.
    let block = unsafe { std::slice::from_raw_parts_mut(base as *mut u64, words) };
    block.fill(0x5a5a_5a5a_5a5a_5a5a);
    pool.free_group(base, 1);
    assert_eq!(pool.return_to_os(0), 1);
    assert_eq!(pool.alloc_one().unwrap(), base);
    // SAFETY: as above: the megablock is ours again.
    let block = unsafe { std::slice::from_raw_parts(base as *const u64, words) };
    assert!(block.iter().all(|&w| w == 0), "the pages survived MADV_DONTNEED");
}

/// See Note [Huge pages for the heap]: fresh megablocks come in pairs
/// aligned to a huge page, the second into the free pool, and memory
/// goes back to the OS only in whole pairs, never half a huge page.
#[test]
fn huge_page_pairs_are_mapped_together_and_returned_together() {
    let mut pool = MBlockPool::with_policy(MemoryPolicy { return_mode: MemoryReturn::Eager, huge_pages: true, pretouch: false, gc_threads: 1, cores: 1 });
    let bases: Vec<usize> = (0..6).map(|_| pool.alloc_one().unwrap()).collect();
    assert_eq!(pool.mapped(), 6, "six megablocks are three pairs");
    let mut sorted = bases.clone();
    sorted.sort_unstable();
    for pair in sorted.chunks(2) {
        assert_eq!(pair[0] % HUGE_PAGE, 0, "a pair starts on a huge page: {sorted:x?}");
        assert_eq!(pair[1], pair[0] + MBLOCK_SIZE, "{sorted:x?}");
    }
    // Free all but the second half of the middle pair: two whole pairs
    // and one half are free.
    let kept = sorted[3];
    for &b in sorted.iter().filter(|&&b| b != kept) {
        pool.free_group(b, 1);
    }
    assert_eq!(pool.return_to_os(0), 4, "the lone half of a pair in use stays");
    assert!(pool.is_free(sorted[2]) && !pool.contains(sorted[0]) && !pool.contains(sorted[5]));
    assert!(pool.contains(sorted[2]) && pool.contains(kept));
    assert_eq!((pool.mapped(), pool.returned()), (2, 4));
    // A request for more than one half: the returned pairs come back
    // before any fresh address space.
    let mappings = pool.mappings().count();
    let again: Vec<usize> = (0..5).map(|_| pool.alloc_one().unwrap()).collect();
    assert_eq!(pool.mappings().count(), mappings, "{again:x?}");
}

/// How many of the pages of `bytes` at `base` hold memory now (`mincore`).
fn resident_pages(base: usize, bytes: usize) -> usize {
    let mut pages = vec![0u8; bytes / 4096];
    // SAFETY: `base..base + bytes` is a live mapping of the pool's, and
    // `pages` has one byte for each of its pages, as `mincore` writes.
    let rc = unsafe { libc::mincore(base as *mut libc::c_void, bytes, pages.as_mut_ptr()) };
    assert_eq!(rc, 0, "mincore failed");
    pages.iter().filter(|&&p| p & 1 != 0).count()
}

/// See Note [Touching fresh memory off the pause] in `mblock_threads::pretouch`:
/// once the heap has grown, the next megablock it takes beyond the free
/// pool has every page in memory before anyone writes it, and the
/// megablocks waiting in the reserve are not the heap's memory in use.
#[test]
fn the_heap_grows_into_megablocks_touched_ahead_of_it() {
    // A GC on every core: the reserve is topped up only as it ends.
    let mut pool = MBlockPool::with_policy(MemoryPolicy { pretouch: true, gc_threads: 1, cores: 1, ..MemoryPolicy::default() });
    let first = pool.alloc_one().unwrap();
    assert_eq!(resident_pages(first, MBLOCK_SIZE), 0, "nothing was ready for the first: it is mapped fresh");
    assert_eq!((pool.mapped(), pool.reserved()), (1, 0), "the reserve is topped up only as a GC ends");
    pool.top_up_reserve();
    assert_eq!((pool.mapped(), pool.reserved()), (1, RESERVE_START));
    let ready = || pool.pretoucher.as_ref().expect("the reserve's thread started").ready_count();
    while ready() < RESERVE_START {
        std::thread::yield_now();
    }
    let mappings = pool.mappings().count();
    let second = pool.alloc_one().unwrap();
    assert_eq!(resident_pages(second, MBLOCK_SIZE), MBLOCK_SIZE / 4096, "the megablock taken from the reserve was not touched");
    assert_eq!(pool.mappings().count(), mappings, "nothing is mapped in the GC's stead");
    pool.top_up_reserve();
    assert_eq!(pool.mappings().count(), mappings + 1, "the reserve mapped one more to replace the one taken");
    assert_eq!((pool.mapped(), pool.reserved()), (2, RESERVE_START), "the reserve counts apart from the heap");
    pool.free_group(second, 1);
    assert_eq!(pool.alloc_one().unwrap(), second, "the free pool still comes before the reserve");
}

#[test]
fn where_a_gc_leaves_a_core_idle_a_megablock_taken_is_replaced_at_once() {
    let mut pool = MBlockPool::with_policy(MemoryPolicy { pretouch: true, gc_threads: 1, cores: 2, ..MemoryPolicy::default() });
    pool.alloc_one().unwrap();
    assert_eq!(pool.reserved(), RESERVE_START, "the first take starts the reserve, inside the GC");
    while pool.pretoucher.as_ref().expect("started").ready_count() < RESERVE_START {
        std::thread::yield_now();
    }
    let mappings = pool.mappings().count();
    pool.alloc_one().unwrap();
    assert_eq!(pool.mappings().count(), mappings + 1, "the one taken was replaced without waiting for the GC's end");
    assert_eq!(pool.reserved(), RESERVE_START);
}

#[test]
fn a_gc_that_leaves_no_core_idle_has_its_takes_replaced_only_as_it_ends() {
    let mut pool = MBlockPool::with_policy(MemoryPolicy { pretouch: true, gc_threads: 1, cores: 2, ..MemoryPolicy::default() });
    pool.gc_team(2);
    pool.alloc_one().unwrap();
    assert_eq!(pool.reserved(), 0, "a GC on every core hands the thread nothing");
    pool.gc_team(1);
    pool.alloc_one().unwrap();
    assert_eq!(pool.reserved(), RESERVE_START, "a GC on one thread starts the reserve at once");
}
