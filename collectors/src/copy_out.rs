//! Copying objects out of a from-space while the mutators run: the copy
//! of one object (by `claim`'s protocol), the to-space that copies go to,
//! and the read barrier that hands mutators the copies (the mechanism of
//! `concurrent_copying`).
//!
//! The from-space is a set of old blocks flagged `BF_COPYING_OUT`. An
//! object there is copied at most once, by whichever thread gets to it
//! first: the collector's copying thread, a mutator whose load found it
//! (`CopyBarrier::on_read`), or a stop-the-world GC meanwhile, whose
//! `evacuate` follows the same forwarding pointers.
//!
//! Invariant kept: while the barrier is active, a mutator never holds or
//! writes a from-space object; it holds only to-space copies or objects
//! outside the from-space (See Note [Copying out while the mutators run]).
//!
//! Note [Copying out while the mutators run]
//! ----------------------------------------
//! Baker's to-space invariant: once copying out starts, the roots are
//! copied (the start is a pause, bounded by the roots), and every
//! reference a mutator loads passes the read barrier, which copies a
//! from-space object before handing it out. Every mutator operation on an
//! object first resolves its handle through that same load (`deref_ind`),
//! so a mutator reads and writes copies only, and the values it stores
//! are copies too. So nobody writes a from-space object while it is being
//! copied out, and a copy needs no lock on the object: a thread copies the
//! words, then installs a forwarding pointer with one compare-and-swap on
//! the header; a thread that loses the race zeroes its copy (a run of
//! slop in its to-space block) and takes the winner's. No thread ever
//! waits for another, which matters when the copying thread and a
//! mutator share a core: a claim word that a descheduled copier held
//! ("busy") would stall the mutator for a time slice.
//!
//! The alternatives: a Brooks indirection word in every object (Shenandoah
//! before 2.0) costs a word per object in every collector's heap, and a
//! load barrier that heals the slot it loaded from (ZGC, Shenandoah 2.0)
//! needs the slot, which gclab's hook (`AccessBarrier::on_read`) does not
//! carry: the pointers left in the heap are fixed by the update pass of
//! `concurrent_copying` instead. A barrier that waits for the collector to
//! copy (no mutator copies) is simpler but makes a mutator's latency the
//! copying thread's scheduling.
//!
//! The claim is model-checked with loom, its bad variants put back (See
//! Note [Model checking the claim] in `claim`).

// Note [A loser zeroes the words it took]
// ----------------------------------------
// A thread that loses the claim zeroes its copy, which becomes slop in
// its to-space block. The winner, right after its claim, stores the
// object's size into the from-space object's first payload word (See
// Note [Forwarded objects keep their size] in core's `object`). A loser
// reads the header and sizes the object before that, but may copy the
// payload after it: its copy then carries the size where the object had
// its own first word. For a byte array that word is its length in bytes,
// so the copy reads as a few words long while the loser took the words
// of the whole array. The loser used to zero as many words as its copy
// read as, and left the rest of what it took (the array's bytes) in the
// block, where every linear walk of the to-space read it as objects:
// `lru 10000` under `-A8k -G2 -O8k -F1 -DS` failed the sanity check
// ("forwarding pointer left", "not an info table") or crashed in 8 runs
// of 40. So the loser zeroes the words it took, as it sized them before
// copying.

use gclab_core::access_hooks::AccessBarrier;
use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_COPYING_OUT, BF_EVACUATED};
use gclab_core::block_alloc::BlockAllocator;
use gclab_core::constants::{Word, WORD_SIZE};
use gclab_core::generation::Generation;
use gclab_core::lock::Lock;
use crate::claim::{copy_then_claim, HeaderCell};
use gclab_core::info::IND_INFO;
use gclab_core::object::{claim_header, copied_out_size, forward_target, info_of_header, is_forwarded, load_header, store_field, store_header, weak_field, Layout};
use gclab_core::GcContext;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Bump-allocated blocks of the old generation that copies go to: one
/// per copying thread (the collector's), and one that the mutators share.
pub struct ToSpace {
    /// The heap's block allocator (set when copying out starts).
    blocks: *const Lock<BlockAllocator>,
    /// The old generation, whose blocks these become.
    gen: u16,
    /// Every block cut, the one being filled last.
    pub(crate) cut: Vec<BlockPtr>,
    /// How many of `cut` the generation's list holds already.
    listed: usize,
    /// Words of the copies that won, and how many of them the
    /// generation's count holds already.
    pub(crate) copied_words: usize,
    settled_words: usize,
}

// SAFETY: the blocks a to-space cut are its own (no GC and no other
// copier writes them), and the block allocator behind the pointer is
// behind its lock and outlives the collector (See `ToSpace::start`).
unsafe impl Send for ToSpace {}

impl ToSpace {
    /// An empty to-space for generation `gen`.
    pub fn new(gen: usize) -> ToSpace {
        ToSpace { blocks: std::ptr::null(), gen: gen as u16, cut: Vec::new(), listed: 0, copied_words: 0, settled_words: 0 }
    }

    /// Start copying out, cutting blocks from `blocks`.
    ///
    /// # Safety
    /// `blocks` outlives every allocation (it is the heap's, and the
    /// runtime drops the collector first).
    // SAFETY: only records the pointer; the caller's contract keeps it valid.
    pub unsafe fn start(&mut self, blocks: &Lock<BlockAllocator>) {
        self.blocks = blocks;
    }

    /// Room for `words` words.
    ///
    /// # Safety
    /// `start` was called; `words` fits in a block.
    // SAFETY: bumps in a block this to-space cut, which is its alone.
    unsafe fn alloc(&mut self, words: usize) -> *mut Word {
        if let Some(&bd) = self.cut.last() {
            // SAFETY: the block is this to-space's (See `ToSpace`).
            let d = unsafe { bd.get() };
            if d.free.wrapping_add(words) <= d.end() {
                let p = d.free;
                d.free = p.wrapping_add(words);
                return p;
            }
        }
        // SAFETY: the contract of `start`.
        let bd = unsafe { &*self.blocks }.lock().alloc_block().unwrap_or_else(|e| gclab_core::runtime::out_of_memory(e));
        // SAFETY: a block fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        d.set_flags(BF_EVACUATED);
        d.set_gen_no(self.gen);
        d.dest_no = self.gen;
        d.scan = d.start;
        d.free = d.start.wrapping_add(words);
        self.cut.push(bd);
        d.start
    }

    /// Give `gen` the blocks cut and the words copied since the last
    /// settlement, so that its lists and counts hold every copy (the
    /// sanity checker walks them). With the world stopped.
    pub fn settle(&mut self, gen: &mut Generation) {
        for &bd in &self.cut[self.listed..] {
            gen.blocks.push(bd);
            gen.n_blocks += 1;
        }
        self.listed = self.cut.len();
        gen.n_words += self.copied_words - self.settled_words;
        self.settled_words = self.copied_words;
    }

    /// Copying out is over: the blocks become ordinary blocks of the line
    /// space (their unused ends zeroed, their fill at their ends, as a
    /// line-space block's is), judged by the next major GC's sweep. The
    /// caller settled first.
    pub fn finish(&mut self) {
        for bd in self.cut.drain(..) {
            // SAFETY: the block is this to-space's until now.
            let d = unsafe { bd.get() };
            let used = d.word_index(d.free);
            // SAFETY: the words past the fill lie in the block and hold nothing.
            unsafe { std::ptr::write_bytes(d.free, 0, d.word_index(d.end()) - used) };
            d.free = d.end();
        }
        self.listed = 0;
        self.copied_words = 0;
        self.settled_words = 0;
    }
}

/// Is `p` (a valid object address) a heap object in a block being copied
/// out?
///
/// # Safety
/// `p` is a valid object address whose header may be read.
#[inline]
// SAFETY: the caller's contract; a heap object's descriptor is live.
pub unsafe fn in_from_space(p: *const Word) -> bool {
    let header = load_header(p);
    if is_forwarded(header) {
        return true;
    }
    !info_of_header(header).is_static() && BlockDesc::load_flags(BlockDesc::of(p)) & BF_COPYING_OUT != 0
}

/// The copy of the from-space object `p`: the one a thread made already,
/// or one made now into `to` (See Note [Copying out while the mutators
/// run]). Returns the copy, and its words if this call made it.
///
/// # Safety
/// `p` is a live object in a block being copied out, which nobody writes
/// but claimers; `to` was started.
// SAFETY: the caller's contract; see the Note for why copying before claiming is sound.
pub unsafe fn copy_out(p: *mut Word, layout: Layout, to: &mut ToSpace) -> (*mut Word, Option<usize>) {
    let size = Cell::new(0);
    let mut indirection = false;
    let copy = |header: Word| {
        indirection = header == IND_INFO.header();
        size.set(layout.size_of(p, info_of_header(header)));
        let q = to.alloc(size.get());
        std::ptr::copy_nonoverlapping(p.add(1), q.add(1), size.get() - 1);
        *q = header;
        q as Word
    };
    // The loser's copy is its own: nobody else saw it. It zeroes the words
    // it took, not the size its copy reads as (See Note [A loser zeroes
    // the words it took]).
    let undo = |q: Word| std::ptr::write_bytes(q as *mut Word, 0, size.get());
    let (q, made) = copy_then_claim(&HeapHeader(p), copy, undo);
    if !made {
        return (q as *mut Word, None);
    }
    let size = size.get();
    if size > layout.hdr && !indirection {
        // See Note [Forwarded objects keep their size] in core's `object`.
        store_field(p.add(layout.hdr), size);
    }
    to.copied_words += size;
    (q as *mut Word, Some(size))
}

/// The header word of a heap object, for the claim protocol.
struct HeapHeader(*mut Word);

impl HeaderCell for HeapHeader {
    fn load(&self) -> Word {
        // SAFETY: the pointer is an object's (`copy_out`'s contract).
        unsafe { load_header(self.0) }
    }
    fn claim(&self, expected: Word, new: Word) -> Result<(), Word> {
        // SAFETY: as above.
        unsafe { claim_header(self.0, expected, new) }
    }
    fn store(&self, new: Word) {
        // SAFETY: as above.
        unsafe { store_header(self.0, new) }
    }
}

/// What the mutators' copying did, for the statistics.
#[derive(Debug, Default)]
pub struct BarrierCounts {
    /// Loads that found a from-space object (the barrier's slow path).
    pub slow_paths: AtomicUsize,
    /// Objects a mutator copied itself.
    pub copies: AtomicUsize,
    /// Bytes of those copies.
    pub copied_bytes: AtomicUsize,
}

/// The read barrier of a concurrent copier: off between copyings (one
/// relaxed load and a branch per reference loaded); on, it hands out the
/// copy of every from-space object, copying it into the mutators' shared
/// to-space if nobody has.
pub struct CopyBarrier {
    active: AtomicBool,
    layout: Layout,
    /// The mutators' to-space.
    pub to: Mutex<ToSpace>,
    /// What the mutators' copying did.
    pub counts: BarrierCounts,
}

impl CopyBarrier {
    /// A barrier, off, whose copies go to generation `gen`.
    pub fn new(layout: Layout, gen: usize) -> CopyBarrier {
        CopyBarrier { active: AtomicBool::new(false), layout, to: Mutex::new(ToSpace::new(gen)), counts: BarrierCounts::default() }
    }

    /// Turn it on or off: with the world stopped, so that every mutator
    /// sees the change when it restarts.
    pub fn set_active(&self, on: bool) {
        self.active.store(on, Ordering::Release);
    }

    /// Is it on?
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    #[cold]
    fn slow(&self, p: Word) -> Word {
        let obj = p as *mut Word;
        // SAFETY: the runtime calls the hook with a reference just loaded,
        // a valid object.
        if !unsafe { in_from_space(obj) } {
            return p;
        }
        self.counts.slow_paths.fetch_add(1, Ordering::Relaxed);
        let mut to = self.to.lock().expect("the mutators' to-space");
        // SAFETY: a live from-space object (the mutator reached it), and
        // the to-space was started with the copying.
        let (q, made) = unsafe { copy_out(obj, self.layout, &mut to) };
        if let Some(words) = made {
            self.counts.copies.fetch_add(1, Ordering::Relaxed);
            self.counts.copied_bytes.fetch_add(words * WORD_SIZE, Ordering::Relaxed);
        }
        q as Word
    }
}

impl AccessBarrier for CopyBarrier {
    #[inline]
    fn on_read(&self, p: Word) -> Word {
        if !self.active.load(Ordering::Relaxed) {
            return p;
        }
        self.slow(p)
    }
}

/// When a major GC takes a running cycle's from-space over (See Note [A
/// copying-out cycle] in `concurrent_copying`): point every weak pointer's
/// fields that lead to a copied from-space object at the copy first: the GC
/// judges a key alive by where it lies, and an indirection to a copy
/// (See `indirect_to_copy`) would read as a dead key.
///
/// # Safety
/// The world is stopped; the weak lists hold live WEAKs (copies, after
/// `fix_roots`).
// SAFETY: the caller's contract: the fields are valid object addresses.
pub(crate) unsafe fn point_weaks_at_copies(ctx: &mut GcContext<'_>) {
    let layout = ctx.heap.layout;
    let weaks = ctx.heap.gens.iter().flat_map(|g| g.weak_ptrs.iter()).chain(ctx.caps.iter().flat_map(|c| c.new_weaks.iter()));
    for w in weaks {
        for f in [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER] {
            let slot = layout.payload(w.0).add(f);
            let header = load_header(*slot as *const Word);
            if is_forwarded(header) {
                *slot = forward_target(header) as Word;
            }
        }
    }
}

/// Turn the from-space object at `p`, if it was copied, into an
/// indirection to its copy, so that a major GC that takes its block as
/// from-space sends what points to it to the copy (which lies in a block
/// the GC marks in place, where following a forwarding pointer would not
/// mark it). An object of a header alone has no room for an indirection;
/// having no fields, it is never written, so it gets its header back and
/// is an object again, equal to its copy.
///
/// # Safety
/// The world is stopped; `p` is an object of a from-space block.
// SAFETY: the caller's contract: nobody reads the from-space object but through its forwarding pointer, which this replaces by an indirection to the same copy.
pub(crate) unsafe fn indirect_to_copy(p: *mut Word, layout: Layout) {
    let header = load_header(p);
    if !is_forwarded(header) {
        return;
    }
    let copy = forward_target(header);
    let size = copied_out_size(p, layout);
    if size <= layout.hdr {
        store_header(p, load_header(copy));
        return;
    }
    *layout.payload(p) = copy as Word;
    for k in (layout.hdr + 1)..size {
        *p.add(k) = 0;
    }
    store_header(p, IND_INFO.header());
}
