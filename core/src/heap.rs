//! The heap: what every collector shares.
//!
//! `Heap` gathers the block allocator, the generations and the nurseries.
//! The block allocator is behind a lock because mutators take blocks from
//! it between GCs (large objects); the generations and nurseries change only
//! during a GC, when every mutator is stopped and the collector holds the
//! heap exclusively.
//!
//! Nurseries: the allocation area is a list of nursery *chunks*. Without
//! `-n` there is one chunk of `-A` blocks per capability; with `-n` the
//! `-A x -N` blocks are cut into chunks of `-n` blocks, and a capability that
//! fills its chunk takes the next unused one, until none is left and a GC
//! follows (See the `-n` entry of GHC's user's guide).

use crate::alloc_region::OfferedRegions;
use crate::bdescr::{BlockPtr, BF_NURSERY};
use crate::block_alloc::BlockAllocator;
use crate::constants::Word;
use crate::flags::RtsFlags;
use crate::generation::Generation;
use crate::mblock::{MemoryPolicy, OutOfMemory};
use crate::object::Layout;
use std::sync::atomic::{AtomicUsize, Ordering};
use crate::lock::Lock;

/// The shared heap.
#[derive(Debug)]
pub struct Heap {
    /// Object layout of this run (profiling header or not).
    pub layout: Layout,
    /// Blocks and megablocks.
    pub blocks: Lock<BlockAllocator>,
    /// Generations, youngest first.
    pub gens: Vec<Generation>,
    /// Nursery chunks (See the module doc).
    pub nurseries: Vec<Vec<BlockPtr>>,
    /// Index of the next chunk no capability has taken yet (mutators take
    /// chunks concurrently between GCs).
    pub next_chunk: AtomicUsize,
    /// Blocks in one nursery chunk.
    pub chunk_blocks: usize,
    /// Regions a collector offered the mutators at the last GC, taken
    /// before nursery blocks (See Note [Allocation regions] in
    /// `alloc_region`).
    pub offered: OfferedRegions,
    /// The heap traversal's flip bit (See Note [Traversal flip bit] in
    /// heap-traverse): new objects get it in their traversal word, so they
    /// read as not yet visited by the next traversal.
    pub traversal_flip: std::sync::atomic::AtomicBool,
}

impl Heap {
    /// An empty heap laid out as `flags` say, with nurseries for `caps`
    /// capabilities.
    pub fn new(flags: &RtsFlags, caps: usize) -> Result<Heap, OutOfMemory> {
        let layout = Layout::new(flags.profiling_header);
        // GHC's initGeneration starts every limit at 0: the first GC after
        // anything is promoted collects generation 1 too, and sets the real
        // limits (`policy::resize_generations`).
        let gens = (0..flags.generations).map(|g| Generation::new(g, 0)).collect();
        let mut heap = Heap {
            layout,
            blocks: Lock::new(BlockAllocator::with_policy(MemoryPolicy { return_mode: flags.memory_return, huge_pages: flags.huge_pages, pretouch: flags.pretouch, gc_threads: flags.gc_threads(), cores: crate::flags::machine_cores() })),
            gens,
            nurseries: Vec::new(),
            next_chunk: AtomicUsize::new(0),
            chunk_blocks: 0,
            offered: OfferedRegions::default(),
            traversal_flip: std::sync::atomic::AtomicBool::new(false),
        };
        heap.resize_nurseries(flags.alloc_area_blocks * caps, flags.chunk_blocks, caps)?;
        Ok(heap)
    }

    /// The block allocator, for the exclusive holder of the heap (the GC).
    pub fn blocks_mut(&mut self) -> &mut BlockAllocator {
        self.blocks.get_mut()
    }

    /// The oldest generation's number.
    pub fn oldest(&self) -> usize {
        self.gens.len() - 1
    }

    /// Blocks in all nurseries.
    pub fn nursery_blocks(&self) -> usize {
        self.nurseries.iter().map(Vec::len).sum()
    }

    /// Re-cut the allocation area into `total` blocks: one chunk per
    /// capability, or chunks of `chunk` blocks when `chunk` is non-zero.
    /// Existing nursery blocks are reused; surplus ones freed.
    pub fn resize_nurseries(&mut self, total: usize, chunk: usize, caps: usize) -> Result<(), OutOfMemory> {
        let mut pool: Vec<BlockPtr> = self.nurseries.drain(..).flatten().collect();
        let (chunks, per_chunk) = if chunk == 0 {
            (caps, total.div_ceil(caps).max(1))
        } else {
            (total.div_ceil(chunk).max(caps), chunk)
        };
        let blocks = self.blocks.get_mut();
        while pool.len() > chunks * per_chunk {
            blocks.free_group(pool.pop().expect("pool is non-empty"));
        }
        while pool.len() < chunks * per_chunk {
            let bd = blocks.alloc_block()?;
            // SAFETY: a block fresh from the allocator is ours alone.
            let d = unsafe { bd.get() };
            d.set_flags(BF_NURSERY);
            pool.push(bd);
        }
        self.nurseries = pool.chunks(per_chunk).map(<[BlockPtr]>::to_vec).collect();
        self.chunk_blocks = per_chunk;
        self.reset_nurseries(caps);
        Ok(())
    }

    /// Empty every nursery block and hand capability `i` chunk `i`.
    pub fn reset_nurseries(&mut self, caps: usize) {
        for chunk in &self.nurseries {
            for bd in chunk {
                // SAFETY: `&mut self` holds the heap, and with it every
                // nursery block (the mutators are stopped or not started).
                let d = unsafe { bd.get() };
                d.free = d.start;
                d.set_flags(BF_NURSERY);
                d.set_gen_no(0);
                d.dest_no = 0;
            }
        }
        *self.next_chunk.get_mut() = caps;
    }

    /// Take the next unused nursery chunk, if any is left.
    pub fn take_chunk(&self) -> Option<usize> {
        let c = self.next_chunk.fetch_add(1, Ordering::Relaxed);
        (c < self.nurseries.len()).then_some(c)
    }

    /// Bytes of live data in every generation (exact right after a major GC).
    pub fn live_bytes(&self) -> usize {
        self.gens.iter().map(Generation::live_bytes).sum()
    }

    /// Blocks the generations occupy.
    pub fn generation_blocks(&self) -> usize {
        self.gens.iter().map(Generation::occupied_blocks).sum()
    }

    /// Blocks in use: the generations' and the nurseries'. What the
    /// policy judges `-M` by after a GC.
    pub fn blocks_in_use(&self) -> usize {
        self.generation_blocks() + self.nursery_blocks()
    }

    /// Words of large objects in all generations.
    pub fn large_object_words(&self) -> usize {
        self.gens.iter().map(|g| g.n_large_words).sum()
    }

    /// Bytes of slop: block space the generations hold beyond their objects
    /// and their free holes.
    pub fn slop_bytes(&self) -> usize {
        let used: usize = self.gens.iter().map(Generation::used_words).sum();
        let words: usize = self.gens.iter().map(|g| g.n_words + g.n_unswept_words).sum();
        used.saturating_sub(words) * std::mem::size_of::<Word>()
    }

    /// Bytes free for allocation inside partly used generation blocks (the
    /// holes of non-moving spaces): their fragmentation.
    pub fn hole_bytes(&self) -> usize {
        self.gens.iter().map(|g| g.n_free_words).sum::<usize>() * std::mem::size_of::<Word>()
    }
}
