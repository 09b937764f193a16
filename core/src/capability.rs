//! Capabilities: the per-mutator-thread half of the runtime.
//!
//! A capability owns what its mutator touches on every allocation and
//! store, so that the fast paths take no lock: the bump pointer into its
//! current nursery block, its root stack (the handles of its mutator), its
//! mutable lists (one per generation: objects of that generation that may
//! point into a younger one), the large objects and weak pointers it made
//! since the last GC, and its allocation counters. Outside a GC only its own
//! mutator touches it; during a GC (every mutator stopped) the collector
//! does.

use crate::bdescr::{BlockDesc, BlockPtr};
use crate::alloc_region::Region;
use crate::constants::{Word, WORD_SIZE};
use crate::generation::ObjPtr;

/// What a collector adds to the generational barrier (See Note
/// [Extending the barrier]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum BarrierExtension {
    /// The remembered set only.
    #[default]
    None,
    /// Record every pointer a store overwrites (Yuasa's deletion barrier).
    SnapshotAtTheBeginning,
    /// Record every pointer a store writes (Dijkstra's insertion barrier).
    Insertion,
    /// Log the first store into each field whose side bit is set, with
    /// the object, the field and both values, clearing the bit (a
    /// field-logging barrier, as LXR's: See Note [The field-logging
    /// barrier] in `barrier`).
    FieldLogging,
}

/// One field the field-logging barrier logged: the first store into it
/// since its bit was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldLog {
    /// The object written.
    pub obj: *mut Word,
    /// The field.
    pub slot: *mut Word,
    /// What it held before the store.
    pub old: Word,
    /// What the store wrote (later stores are not logged: the field's
    /// current value is read where it is).
    pub new: Word,
}

/// One capability.
#[derive(Debug)]
pub struct Capability {
    /// Its number (0 .. -N).
    pub no: usize,
    /// Next free word in the current nursery block.
    pub hp: *mut Word,
    /// Allocation fails over to the slow path past this. Normally the end
    /// of the current block; the start of it under `--gc-every` (See Note [Forced
    /// GCs] in `mutator::alloc`).
    pub hp_lim: *mut Word,
    /// The real end of the current block.
    pub block_end: *mut Word,
    /// The current nursery block, or the block of the current offered
    /// region (None before the first allocation).
    pub current: Option<BlockPtr>,
    /// Where the current block or region began to be filled: the block's
    /// start, or the offered region's.
    pub region_start: *mut Word,
    /// The current region is one a collector offered (See Note
    /// [Allocation regions] in `alloc_region`), not a nursery block.
    pub in_offered: bool,
    /// The parts of offered regions filled since the last GC, as address
    /// ranges (the current region's is `region_start..hp`): the young
    /// objects that lie in old blocks, for the sanity checker, and the
    /// words allocated into holes (See Note [Allocation regions] in
    /// `alloc_region`); a part of `retired_words`.
    pub hole_fills: Vec<(usize, usize)>,
    /// Words of offered regions taken since the last GC and not yet paid
    /// for by leaving nursery blocks unused (See Note [The allocation
    /// area with offered regions] in `alloc_region`).
    pub hole_debt: usize,
    /// The nursery block that objects too big for the current offered
    /// region go to (Immix's overflow block), if one was taken since the
    /// last GC; its `free` is kept up to date.
    pub overflow: Option<BlockPtr>,
    /// Which nursery chunk it allocates from.
    pub chunk: usize,
    /// Index of the next unused block in that chunk.
    pub next_block: usize,
    /// The root stack: every handle of this capability's mutator is an
    /// index into it. The GC updates it in place.
    pub roots: Vec<Word>,
    /// Mutable list per generation: objects that may point to a younger
    /// generation (generation 0's stays empty: it is always collected).
    pub mut_lists: Vec<Vec<ObjPtr>>,
    /// Large objects allocated since the last GC (they belong to
    /// generation 0, and are moved to its list at the GC).
    pub new_large: Vec<BlockPtr>,
    /// Words of large objects allocated since the last GC.
    pub new_large_words: usize,
    /// Weak pointers made since the last GC.
    pub new_weaks: Vec<ObjPtr>,
    /// Dead weak pointers whose finalisers the mutator has yet to run
    /// (roots until then).
    pub pending_finalizers: Vec<Word>,
    /// Words allocated in nursery blocks already left behind since the last GC.
    pub retired_words: u64,
    /// With `--count-objects`, the heap's layout, for walking each block
    /// as it is retired; None otherwise.
    pub count_objects: Option<crate::object::Layout>,
    /// Objects in the blocks retired since the last GC (`--count-objects`).
    pub retired_objects: u64,
    /// Words allocated over the whole run (updated at every GC).
    pub total_allocated_words: u64,
    /// Allocations since the last forced GC (`--gc-every`).
    pub allocs_since_forced_gc: u64,
    /// Set when this capability asks for a GC at its next allocation.
    pub gc_wanted: bool,
    /// The cost-centre stack its mutator runs under (profiling).
    pub current_ccs: u32,
    /// What its collector adds to the write barrier now (See Note
    /// [Extending the barrier] in `barrier`); changed only while the world
    /// is stopped.
    pub barrier: BarrierExtension,
    /// Values the extended barrier recorded, for the collector to take at
    /// a sync; roots until then.
    pub update_rem_set: Vec<Word>,
    /// Fields the field-logging barrier logged since the collector last
    /// took them; not roots: the collector takes them at every GC and
    /// sync, before anything moves (See Note [The field-logging
    /// barrier] in `barrier`).
    pub field_log: Vec<FieldLog>,
}

// SAFETY: the raw pointers are into the nursery block this capability owns;
// the runtime's protocol gives one thread access at a time.
unsafe impl Send for Capability {}

impl Capability {
    /// A fresh capability with empty mutable lists for `generations`.
    pub fn new(no: usize, generations: usize, count_objects: Option<crate::object::Layout>) -> Capability {
        Capability {
            no,
            hp: std::ptr::null_mut(),
            hp_lim: std::ptr::null_mut(),
            block_end: std::ptr::null_mut(),
            current: None,
            region_start: std::ptr::null_mut(),
            in_offered: false,
            hole_fills: Vec::new(),
            hole_debt: 0,
            overflow: None,
            chunk: no,
            next_block: 0,
            roots: Vec::with_capacity(1024),
            mut_lists: (0..generations).map(|_| Vec::new()).collect(),
            new_large: Vec::new(),
            new_large_words: 0,
            new_weaks: Vec::new(),
            pending_finalizers: Vec::new(),
            retired_words: 0,
            count_objects,
            retired_objects: 0,
            total_allocated_words: 0,
            allocs_since_forced_gc: 0,
            gc_wanted: false,
            current_ccs: 0,
            barrier: BarrierExtension::None,
            update_rem_set: Vec::new(),
            field_log: Vec::new(),
        }
    }

    /// Close the current block or region: record a nursery block's fill
    /// level, and the words allocated in it.
    pub fn retire_current_block(&mut self) {
        if let Some(bd) = self.current.take() {
            let words = (self.hp as usize - self.region_start as usize) as u64 / WORD_SIZE as u64;
            self.retired_words += words;
            if self.in_offered {
                // An old block's `free` stays its end (See Note
                // [Allocation regions] in `alloc_region`).
                if words > 0 {
                    self.hole_fills.push((self.region_start as usize, self.hp as usize));
                }
                if let Some(layout) = self.count_objects {
                    self.retired_objects += count_objects_in(self.region_start, self.hp, layout);
                }
            } else {
                // SAFETY: the current nursery block is this capability's own.
                let d = unsafe { bd.get() };
                d.free = self.hp;
                if let Some(layout) = self.count_objects {
                    self.retired_objects += count_objects_in(d.start, d.free, layout);
                }
            }
        }
        self.in_offered = false;
        self.hp = std::ptr::null_mut();
        self.hp_lim = std::ptr::null_mut();
        self.block_end = std::ptr::null_mut();
    }

    /// Record the current block's fill level in its descriptor without
    /// leaving it (so that heap walks between GCs see its objects).
    pub fn retire_current_block_keeping_position(&mut self) {
        if self.in_offered {
            return;
        }
        if let Some(bd) = self.current {
            // SAFETY: the current nursery block is this capability's own.
            unsafe { bd.get() }.free = self.hp;
        }
    }

    /// Make `bd` (an empty nursery block) the current block.
    ///
    /// # Safety
    /// `bd` is a nursery block that no other capability uses.
    // SAFETY: the caller's contract above.
    pub unsafe fn enter_block(&mut self, bd: BlockPtr, forced_gcs: bool) {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.get() };
        self.enter(bd, d.free, d.end(), false, forced_gcs);
    }

    /// Make the offered region `region` the current one.
    ///
    /// # Safety
    /// `region` was offered for this cycle and taken by this capability
    /// alone (`OfferedRegions::take`).
    // SAFETY: the caller's contract above.
    pub unsafe fn enter_region(&mut self, region: Region, forced_gcs: bool) {
        self.enter(region.bd, region.start, region.end, true, forced_gcs);
    }

    fn enter(&mut self, bd: BlockPtr, start: *mut Word, end: *mut Word, offered: bool, forced_gcs: bool) {
        self.hp = start;
        self.region_start = start;
        self.block_end = end;
        self.hp_lim = if forced_gcs { self.hp } else { self.block_end };
        self.current = Some(bd);
        self.in_offered = offered;
    }

    /// What was allocated since the last GC (closing the current block's
    /// count), its words moved into the run's total. Called by the GC.
    pub fn take_allocation(&mut self) -> Allocated {
        self.retire_current_block();
        let words = self.retired_words + self.new_large_words as u64;
        let large_objects = if self.count_objects.is_some() { self.new_large.len() as u64 } else { 0 };
        let objects = self.retired_objects + large_objects;
        let hole_words = self.hole_fills.iter().map(|&(start, end)| ((end - start) / WORD_SIZE) as u64).sum();
        self.hole_debt = 0;
        self.hole_fills.clear();
        self.overflow = None;
        self.retired_words = 0;
        self.retired_objects = 0;
        self.new_large_words = 0;
        self.total_allocated_words += words;
        Allocated { words, objects, hole_words }
    }

    /// Words allocated so far in the run, the current cycle included.
    pub fn allocated_words_now(&self) -> u64 {
        let current = match self.current {
            Some(_) => (self.hp as usize - self.region_start as usize) as u64 / WORD_SIZE as u64,
            None => 0,
        };
        self.total_allocated_words + self.retired_words + self.new_large_words as u64 + current
    }

    /// Every address range of an offered region filled since the last GC,
    /// the current one's included: where young objects lie in old blocks.
    pub fn young_in_old_blocks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let current = (self.in_offered && self.hp > self.region_start).then_some((self.region_start as usize, self.hp as usize));
        self.hole_fills.iter().copied().chain(current)
    }

    /// Is `bd` the descriptor of the current nursery block, whose objects
    /// end at `hp` rather than at its `free`? (Not for the block of an
    /// offered region: its objects lie before and after the region, and
    /// the rest of the region is zero, so a walk reads it to its end: See
    /// Note [Allocation regions] in `alloc_region`.)
    pub fn is_current(&self, bd: *const BlockDesc) -> bool {
        !self.in_offered && self.current.map(|c| std::ptr::eq(c.0, bd)).unwrap_or(false)
    }
}

/// What a capability allocated between two GCs (`take_allocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocated {
    /// Words, in nursery blocks and large objects.
    pub words: u64,
    /// Objects, with `--count-objects` (0 without it): those of the
    /// retired nursery blocks and regions, and each large object.
    pub objects: u64,
    /// Of `words`, those allocated into regions a collector offered.
    pub hole_words: u64,
}

/// The objects in `from..to`, the part of a block or region this
/// capability has just filled.
fn count_objects_in(from: *mut Word, to: *mut Word, layout: crate::object::Layout) -> u64 {
    let mut objects = 0;
    let mut p = from;
    while p < to {
        // SAFETY: the capability's own allocations and zero slop words
        // (See Note [Slop is zeroed] in `object`) tile `from..to`, and
        // nobody else writes them.
        let header = unsafe { *p };
        if header == 0 {
            p = p.wrapping_add(1);
            continue;
        }
        objects += 1;
        // SAFETY: as above: `p` starts an object.
        p = p.wrapping_add(unsafe { layout.size_of(p, crate::object::info_of_header(header)) });
    }
    objects
}
