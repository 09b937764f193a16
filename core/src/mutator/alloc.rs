//! Allocation: the bump-pointer fast path and everything behind it
//! (moving through the nursery, chunks, large objects, forced GCs).
//!
//! Note [Allocation fast path]
//! ----------------------------------------
//! `alloc_words` is a bump of the capability's `hp` checked against
//! `hp_lim`, inlined into every allocation site; everything else (moving to
//! the next nursery block, taking a chunk, GC, large objects, forced GCs)
//! is in the cold `alloc_slow`. A capability without a current block has
//! a null `hp_lim` as well as a null `hp` (`Capability::retire_current_block`),
//! so the one limit test also sends it to the slow path: a bump of at least
//! one word from null lands above null. The fast path also tested `hp`
//! for null until this was relied on: dropping that test saved two
//! instructions an allocation, 1.9% of binary-trees 14's mutator
//! instructions (`scripts/ab --instructions`).
//!
//! Note [Forced GCs]
//! ----------------------------------------
//! `--gc-every=<n>` (a stress setting) forces a GC every n allocations. Rather than
//! count in the fast path, the capability's `hp_lim` is set to the start of
//! each block, so every allocation takes the slow path, which counts and
//! does the bump itself against the block's real end. Runs without `--gc-every`
//! pay nothing for it.


use super::*;

impl Mutator<'_> {
    // ---------------------------------------------------------------
    // Allocation

    /// Allocate `words` words (uninitialised) and return their address.
    /// See Note [Allocation fast path].
    #[inline(always)]
    pub(crate) fn alloc_words(&mut self, words: usize) -> *mut Word {
        match self.bump(words) {
            Some(p) => p,
            None => self.alloc_slow(words),
        }
    }

    /// The fast path alone: `words` words bumped from the current block,
    /// or None where the slow path (a safe point: a GC may run) is due.
    /// A caller that holds addresses across it knows nothing moved when
    /// it succeeds (See Note [Pinned frames] in `frame`).
    #[inline(always)]
    pub(crate) fn bump(&mut self, words: usize) -> Option<*mut Word> {
        debug_assert!(words > 0, "an object has a header");
        let cap = self.cap_mut();
        let p = cap.hp;
        let new_hp = p.wrapping_add(words);
        debug_assert!(!p.is_null() || cap.hp_lim.is_null(), "a capability without a block has no limit");
        if new_hp <= cap.hp_lim {
            cap.hp = new_hp;
            return Some(p);
        }
        None
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn alloc_slow(&mut self, words: usize) -> *mut Word {
        self.rt.safe_point();
        self.run_gc_hooks();
        if words >= LARGE_OBJECT_WORDS {
            return self.alloc_large(words);
        }
        if self.forced_gcs {
            let every = self.rt.flags().gc_every_allocs;
            let cap = self.cap_mut();
            cap.allocs_since_forced_gc += 1;
            if cap.allocs_since_forced_gc >= every {
                cap.allocs_since_forced_gc = 0;
                self.rt.collect(self.cap_no, GcReason::Forced, false);
            }
        }
        if self.cap().gc_wanted {
            self.rt.collect(self.cap_no, GcReason::LargeAllocation, false);
        }
        loop {
            let cap = self.cap_mut();
            let p = cap.hp;
            if !p.is_null() && p.wrapping_add(words) <= cap.block_end {
                self.sampler_account(p, words, false);
                self.cap_mut().hp = p.wrapping_add(words);
                self.refresh_limit();
                return p;
            }
            if cap.in_offered && words > self.rt.heap_ref().offered.medium_words() {
                if let Some(p) = self.alloc_overflow(words) {
                    return p;
                }
                self.rt.collect(self.cap_no, GcReason::HeapExhausted, false);
                continue;
            }
            if !self.next_nursery_block() {
                self.rt.collect(self.cap_no, GcReason::HeapExhausted, false);
            }
        }
    }

    /// Set the fast path's limit: the block's end, the block's start under
    /// `--gc-every`, or the next sampled word while a sampler runs (See
    /// Note [Sampling without a fast-path test] in `sampling`).
    pub(crate) fn refresh_limit(&mut self) {
        // SAFETY: as in `cap_mut`; `self.sampler` is a different field.
        let cap = unsafe { &mut *self.cap };
        cap.hp_lim = if self.forced_gcs { cap.hp } else { cap.block_end };
        if let Some(sampler) = self.sampler.as_mut() {
            sampler.base = cap.hp;
            if !cap.hp.is_null() {
                let room = (cap.block_end as usize - cap.hp as usize) / WORD_SIZE;
                let to_sample = sampler.countdown.saturating_sub(1).min(room as u64) as usize;
                cap.hp_lim = cap.hp_lim.min(cap.hp.wrapping_add(to_sample));
            }
        }
    }


    /// Move to the next region a collector offered, else to the next block
    /// of this capability's nursery chunk, or to a fresh chunk. False when
    /// the allocation area is used up.
    pub(crate) fn next_nursery_block(&mut self) -> bool {
        self.sampler_catch_up();
        let entered = self.enter_next_nursery_block();
        if entered {
            self.refresh_limit();
        }
        entered
    }

    fn enter_next_nursery_block(&mut self) -> bool {
        let heap = self.rt.heap_ref();
        let forced = self.forced_gcs;
        // SAFETY: as in `cap_mut`; `heap` is a different object.
        let cap = unsafe { &mut *self.cap };
        cap.retire_current_block();
        // A collector's offered regions come first (See Note [Allocation
        // regions] in `alloc_region`).
        if let Some(region) = heap.offered.take() {
            cap.hole_debt += region.words();
            if !pay_hole_debt(heap, cap) {
                return false;
            }
            // SAFETY: `take` hands each region to one capability.
            unsafe { cap.enter_region(region, forced) };
            return true;
        }
        match take_nursery_block(heap, cap) {
            Some(bd) => {
                // SAFETY: blocks of a chunk this capability took are its own.
                unsafe { cap.enter_block(bd, forced) };
                true
            }
            None => false,
        }
    }

    /// Allocate `words`, too many for the rest of the offered region the
    /// capability is in, into its overflow block, taking a nursery block
    /// for it if need be; None when the allocation area is used up (See
    /// Note [Objects that miss a hole] in `alloc_region`).
    fn alloc_overflow(&mut self, words: usize) -> Option<*mut Word> {
        let heap = self.rt.heap_ref();
        // SAFETY: as in `cap_mut`; `heap` is a different object.
        let cap = unsafe { &mut *self.cap };
        loop {
            if let Some(bd) = cap.overflow {
                // SAFETY: the overflow block is a nursery block this
                // capability took.
                let d = unsafe { bd.get() };
                let p = d.free;
                if p.wrapping_add(words) <= d.end() {
                    d.free = p.wrapping_add(words);
                    cap.retired_words += words as u64;
                    cap.retired_objects += cap.count_objects.is_some() as u64;
                    self.sampler_account(self.cap().hp, words, false);
                    self.refresh_limit();
                    return Some(p);
                }
            }
            cap.overflow = Some(take_nursery_block(heap, cap)?);
        }
    }

    /// A large object: a block group of its own, in generation 0.
    pub(crate) fn alloc_large(&mut self, words: usize) -> *mut Word {
        if words > crate::object::MAX_OBJECT_WORDS {
            self.too_big();
        }
        let flags = self.rt.flags();
        let bytes = words * WORD_SIZE;
        let blocks = bytes.div_ceil(crate::constants::BLOCK_SIZE);
        if flags.max_heap_blocks > 0 && blocks >= flags.max_heap_blocks {
            self.rt.fail_exhausted(HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: flags.max_heap_blocks * crate::constants::BLOCK_SIZE, set_by: crate::policy::SET_BY_MAX_HEAP }));
        }
        if self.cap().gc_wanted || self.forced_gcs {
            self.cap_mut().gc_wanted = false;
            self.rt.collect(self.cap_no, GcReason::LargeAllocation, false);
        }
        let bd = {
            let mut ba = self.rt.heap_ref().blocks.lock();
            ba.alloc_group(blocks).unwrap_or_else(|e| self.rt.fail_exhausted(HeapExhausted::OutOfMemory(e)))
        };
        // SAFETY: a group fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        d.insert_flags(BF_LARGE);
        d.set_gen_no(0);
        d.dest_no = 0;
        // SAFETY: the group has room for `words` words.
        d.free = unsafe { d.start.add(words) };
        let nursery_words = self.rt.heap_ref().nursery_blocks() * crate::constants::BLOCK_WORDS;
        self.sampler_account(self.cap().hp, words, true);
        self.refresh_limit();
        let cap = self.cap_mut();
        cap.new_large.push(bd);
        cap.new_large_words += words;
        if cap.new_large_words >= nursery_words {
            cap.gc_wanted = true;
        }
        d.start
    }

    /// An object bigger than any heap can hold was asked for: the heap is
    /// exhausted, as GHC's "heap overflow" under `-M`, else as the OS's
    /// refusal (See Note [Sizes a program asks for] in `object`).
    #[cold]
    pub(crate) fn too_big(&self) -> ! {
        let max = self.rt.flags().max_heap_blocks;
        let e = if max > 0 {
            HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: max * crate::constants::BLOCK_SIZE, set_by: crate::policy::SET_BY_MAX_HEAP })
        } else {
            HeapExhausted::OutOfMemory(crate::mblock::OutOfMemory { bytes: usize::MAX })
        };
        self.rt.fail_exhausted(e)
    }
}

/// Leave unused as many of `cap`'s nursery blocks as pay for the offered
/// words it took (See Note [The allocation area with offered regions] in
/// `alloc_region`); false when the allocation area is spent first.
fn pay_hole_debt(heap: &crate::heap::Heap, cap: &mut crate::capability::Capability) -> bool {
    while cap.hole_debt >= crate::constants::BLOCK_WORDS {
        if take_nursery_block(heap, cap).is_none() {
            return false;
        }
        cap.hole_debt -= crate::constants::BLOCK_WORDS;
    }
    true
}

/// The next unused block of `cap`'s nursery chunk, or of a fresh chunk;
/// None when the allocation area is used up.
fn take_nursery_block(heap: &crate::heap::Heap, cap: &mut crate::capability::Capability) -> Option<crate::bdescr::BlockPtr> {
    loop {
        let chunk = &heap.nurseries[cap.chunk];
        if cap.next_block < chunk.len() {
            let bd = chunk[cap.next_block];
            cap.next_block += 1;
            return Some(bd);
        }
        cap.chunk = heap.take_chunk()?;
        cap.next_block = 0;
    }
}
