//! The mutator's interface to the heap: handles, allocation, reads, writes.
//!
//! Mutator programs (the workloads) never hold a raw heap address. They hold
//! `Handle`s: indices into their capability's root stack, which the GC
//! updates when it moves objects. Every operation that can allocate takes
//! `&mut Mutator`, so the borrow checker already forbids keeping anything
//! borrowed from the heap across an allocation. Reading a large structure
//! without pushing a handle per step is done through a `HeapView`, which
//! borrows the mutator immutably (so no allocation, hence no GC, can happen
//! while it lives) and hands out `ObjRef`s tied to that borrow.
//!
//! Root stack discipline: handles are pushed by every operation that yields
//! an object and popped in bulk with `truncate`/`ret`, like a stack frame.
//! A handle used after its slot was popped is a bounds-checked index: it
//! panics (or names another live root), it never reads freed memory.
//!
//! Note [Allocation fast path]
//! ----------------------------------------
//! `alloc_words` is a bump of the capability's `hp` checked against
//! `hp_lim`, inlined into every allocation site; everything else (moving to
//! the next nursery block, taking a chunk, GC, large objects, forced GCs)
//! is in the cold `alloc_slow`.
//!
//! Note [Forced GCs]
//! ----------------------------------------
//! `--gc-every=<n>` (a stress setting) forces a GC every n allocations. Rather than
//! count in the fast path, the capability's `hp_lim` is set to the start of
//! each block, so every allocation takes the slow path, which counts and
//! does the bump itself against the block's real end. Runs without `--gc-every`
//! pay nothing for it.

use crate::barrier;
use crate::bdescr::{BlockDesc, BF_LARGE};
use crate::capability::Capability;
use crate::collector::GcReason;
use crate::constants::{Word, LARGE_OBJECT_THRESHOLD, WORD_SIZE};
use crate::generation::ObjPtr;
use crate::info::*;
use crate::object::{info_of_header, weak_field, Layout};
use crate::policy::{HeapExhausted, HeapOverflow};
use crate::rts::Rts;
use crate::stable_ptr::StablePtr;
use crate::stats::Stats;
use crate::memprof::{AllocationInfo, AllocationSource, Memprof, PendingSample, Tracked, Tracker};
use std::marker::PhantomData;

/// A root: an index into the capability's root stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle(u32);

impl Handle {
    /// The slot index (for tools that print root stacks).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A finaliser: called on the mutator, after the GC that found its weak
/// pointer's key dead, with a handle to the weak pointer's value.
pub type Finalizer = Box<dyn for<'a, 'b> FnOnce(&'b mut Mutator<'a>, Handle) + Send>;

/// A finaliser that gets no value (OCaml's `finalise_last`).
pub type LastFinalizer = Box<dyn for<'a, 'b> FnOnce(&'b mut Mutator<'a>) + Send>;

/// An alarm: run on the mutator after every major GC.
pub type Alarm = Box<dyn for<'a, 'b> FnMut(&'b mut Mutator<'a>) + Send>;

/// The two kinds of finaliser. See Note [Finaliser order].
pub enum FinalizerKind {
    /// Gets the value (GHC's weak finalisers, OCaml's `finalise`).
    Value(Finalizer),
    /// Gets nothing; runs after every `Value` one of the same GC
    /// (OCaml's `finalise_last`).
    Last(LastFinalizer),
}

// Note [Finaliser order]
// ----------------------------------------
// Finalisers run on the mutator after the GC that found their keys dead,
// never inside it. Of the values that die in one GC, the `Value`
// finalisers run in the reverse order of their registration (the GC
// queues dead weak pointers in registration order, by finaliser id, and
// the mutator pops from the end), then the `Last` ones, likewise: OCaml's
// documented order. A finaliser may allocate and so cause further GCs;
// the finalisers those find dead wait until the running ones are done,
// unless a finaliser calls `gc::finalise_release`.

/// A mutator thread's view of the runtime, bound to one capability.
pub struct Mutator<'rt> {
    pub(crate) rts: &'rt Rts,
    cap: *mut Capability,
    pub(crate) cap_no: usize,
    layout: Layout,
    forced_gcs: bool,
    pub(crate) running_finalizers: bool,
    running_alarms: bool,
    seen_major_gcs: u64,
    memprof: Option<Box<Memprof>>,
    sample_pending: bool,
}

/// Follow indirections (updated thunks) from the object at `p`.
#[inline(always)]
fn deref_ind(mut p: Word, layout: Layout) -> Word {
    loop {
        // SAFETY: `p` is a valid object address (heap or static); reading
        // its header word is always allowed. IND has one info table, so
        // comparing the header word is enough.
        if unsafe { *(p as *const Word) } != IND_INFO.header() {
            return p;
        }
        // SAFETY: an IND's payload is its indirectee.
        p = unsafe { *layout.payload(p as *mut Word) };
    }
}

impl<'rt> Mutator<'rt> {
    pub(crate) fn new(rts: &'rt Rts, cap_no: usize) -> Mutator<'rt> {
        let layout = rts.heap_ref().layout;
        Mutator {
            rts,
            cap: rts.cap_ptr(cap_no),
            cap_no,
            layout,
            forced_gcs: rts.flags().gc_every_allocs > 0,
            running_finalizers: false,
            running_alarms: false,
            seen_major_gcs: 0,
            memprof: None,
            sample_pending: false,
        }
    }

    #[inline(always)]
    fn cap(&self) -> &Capability {
        // SAFETY: Note [Who touches what] in rts: between GCs only this
        // mutator touches its capability.
        unsafe { &*self.cap }
    }

    #[inline(always)]
    fn cap_mut(&mut self) -> &mut Capability {
        // SAFETY: as above; `&mut self` makes this the only borrow.
        unsafe { &mut *self.cap }
    }

    /// The runtime.
    pub fn rts(&self) -> &'rt Rts {
        self.rts
    }

    /// This run's object layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Statistics so far.
    pub fn stats(&self) -> Stats {
        self.rts.stats()
    }

    /// Words allocated by this capability so far.
    pub fn allocated_words(&self) -> u64 {
        self.cap().allocated_words_now()
    }

    // ---------------------------------------------------------------
    // The root stack

    #[inline(always)]
    fn root(&self, h: Handle) -> Word {
        self.cap().roots[h.0 as usize]
    }

    /// The object a handle refers to, through any indirections.
    #[inline(always)]
    fn obj(&self, h: Handle) -> *mut Word {
        deref_ind(self.root(h), self.layout) as *mut Word
    }

    /// Root a freshly initialised object; report it to Memprof if one of
    /// its words was sampled (See Note [Sampling without a fast-path test]
    /// in `memprof`).
    #[inline(always)]
    fn finish(&mut self, p: *mut Word) -> Handle {
        let h = self.push(p as Word);
        if self.sample_pending {
            self.memprof_sampled(h);
        }
        h
    }

    #[inline(always)]
    fn push(&mut self, w: Word) -> Handle {
        let roots = &mut self.cap_mut().roots;
        roots.push(w);
        Handle((roots.len() - 1) as u32)
    }

    /// Depth of the root stack: a frame mark for `truncate` and `ret`.
    #[inline(always)]
    pub fn depth(&self) -> usize {
        self.cap().roots.len()
    }

    /// Pop every handle above `depth`.
    #[inline(always)]
    pub fn truncate(&mut self, depth: usize) {
        self.cap_mut().roots.truncate(depth);
    }

    /// Return `h` from a frame that began at `depth`: pop the frame, keep `h`.
    #[inline(always)]
    pub fn ret(&mut self, depth: usize, h: Handle) -> Handle {
        let roots = &mut self.cap_mut().roots;
        roots[depth] = roots[h.0 as usize];
        roots.truncate(depth + 1);
        Handle(depth as u32)
    }

    /// Make `dst` refer to what `src` refers to.
    #[inline(always)]
    pub fn set(&mut self, dst: Handle, src: Handle) {
        let roots = &mut self.cap_mut().roots;
        roots[dst.0 as usize] = roots[src.0 as usize];
    }

    /// A second handle to the same object.
    #[inline(always)]
    pub fn dup(&mut self, h: Handle) -> Handle {
        let w = self.root(h);
        self.push(w)
    }

    /// A handle to a static object.
    #[inline(always)]
    pub fn static_obj(&mut self, s: &'static StaticObject) -> Handle {
        self.push(s.addr())
    }

    /// Do two handles refer to the same object?
    pub fn same(&self, a: Handle, b: Handle) -> bool {
        self.obj(a) == self.obj(b)
    }

    /// The info table of the object behind `h`.
    pub fn info(&self, h: Handle) -> &'static InfoTable {
        // SAFETY: `obj` is a valid object address.
        info_of_header(unsafe { *self.obj(h) })
    }

    /// A read-only view of the heap (See the module doc).
    pub fn view(&self) -> HeapView<'_> {
        HeapView { roots: &self.cap().roots, layout: self.layout }
    }

    // ---------------------------------------------------------------
    // Allocation

    /// Allocate `words` words (uninitialised) and return their address.
    /// See Note [Allocation fast path].
    #[inline(always)]
    fn alloc_words(&mut self, words: usize) -> *mut Word {
        let cap = self.cap_mut();
        let p = cap.hp;
        let new_hp = p.wrapping_add(words);
        if new_hp <= cap.hp_lim && !p.is_null() {
            cap.hp = new_hp;
            return p;
        }
        self.alloc_slow(words)
    }

    #[cold]
    #[inline(never)]
    fn alloc_slow(&mut self, words: usize) -> *mut Word {
        self.rts.safe_point();
        self.run_gc_hooks();
        if words * WORD_SIZE >= LARGE_OBJECT_THRESHOLD {
            return self.alloc_large(words);
        }
        if self.forced_gcs {
            let every = self.rts.flags().gc_every_allocs;
            let cap = self.cap_mut();
            cap.allocs_since_forced_gc += 1;
            if cap.allocs_since_forced_gc >= every {
                cap.allocs_since_forced_gc = 0;
                self.rts.collect(self.cap_no, GcReason::Forced, false);
            }
        }
        if self.cap().gc_wanted {
            self.rts.collect(self.cap_no, GcReason::LargeAllocation, false);
        }
        loop {
            let cap = self.cap_mut();
            let p = cap.hp;
            if !p.is_null() && p.wrapping_add(words) <= cap.block_end {
                self.memprof_account(p, words, false);
                self.cap_mut().hp = p.wrapping_add(words);
                self.refresh_limit();
                return p;
            }
            if !self.next_nursery_block() {
                self.rts.collect(self.cap_no, GcReason::HeapExhausted, false);
            }
        }
    }

    /// Set the fast path's limit: the block's end, the block's start under
    /// `--gc-every`, or the next sampled word under Memprof.
    fn refresh_limit(&mut self) {
        // SAFETY: as in `cap_mut`; `self.memprof` is a different field.
        let cap = unsafe { &mut *self.cap };
        cap.hp_lim = if self.forced_gcs { cap.hp } else { cap.block_end };
        if let Some(mp) = self.memprof.as_mut() {
            mp.base = cap.hp;
            if !mp.busy && !cap.hp.is_null() {
                let room = (cap.block_end as usize - cap.hp as usize) / WORD_SIZE;
                let to_sample = mp.countdown.saturating_sub(1).min(room as u64) as usize;
                cap.hp_lim = cap.hp_lim.min(cap.hp.wrapping_add(to_sample));
            }
        }
    }

    /// Bring Memprof's countdown up to date with what the fast path
    /// allocated since the limit was last set.
    fn memprof_catch_up(&mut self) {
        let hp = self.cap().hp;
        self.memprof_catch_up_to(hp);
    }

    fn memprof_catch_up_to(&mut self, hp: *mut Word) {
        if let Some(mp) = self.memprof.as_mut() {
            if !mp.busy {
                mp.consume_fast_path(hp);
            }
        }
    }

    /// Memprof's view of an allocation of `words` at `p` (See Note
    /// [Sampling without a fast-path test] in `memprof`).
    fn memprof_account(&mut self, p: *mut Word, words: usize, major: bool) {
        self.memprof_catch_up_to(p);
        let Some(mp) = self.memprof.as_mut() else { return };
        if mp.busy {
            return;
        }
        let n_samples = mp.draw(words);
        if n_samples > 0 {
            mp.pending = Some(PendingSample { n_samples, size: words, major });
            self.sample_pending = true;
        }
    }

    /// Report the sampled object behind `h` and maybe start tracking it.
    #[cold]
    fn memprof_sampled(&mut self, h: Handle) {
        self.sample_pending = false;
        let Some(mut mp) = self.memprof.take() else { return };
        if let Some(s) = mp.pending.take() {
            let info = AllocationInfo { n_samples: s.n_samples, size: s.size, source: AllocationSource::Normal };
            mp.busy = true;
            let data = if s.major { (mp.tracker.alloc_major)(&info) } else { (mp.tracker.alloc_minor)(&info) };
            if let Some(data) = data {
                let base = self.depth();
                let weak = self.new_weak_raw(h, NULL_OBJECT.addr(), None);
                let sp = self.new_stable_ptr(weak);
                self.truncate(base);
                mp.tracked.push(Tracked { weak: sp, data, major: s.major });
            }
            mp.busy = false;
        }
        self.memprof = Some(mp);
        self.refresh_limit();
    }

    /// After GCs: tell the tracker which tracked blocks were promoted or died.
    fn memprof_after_gc(&mut self) {
        let gcs = self.rts.stats_gcs();
        let Some(mut mp) = self.memprof.take() else { return };
        if mp.seen_gcs != gcs {
            mp.seen_gcs = gcs;
            mp.busy = true;
            let mut kept = Vec::with_capacity(mp.tracked.len());
            for mut t in std::mem::take(&mut mp.tracked) {
                let base = self.depth();
                let w = self.deref_stable_ptr(t.weak);
                let alive = self.deref_weak(w);
                let keep = match alive {
                    None => {
                        if t.major {
                            (mp.tracker.dealloc_major)(t.data);
                        } else {
                            (mp.tracker.dealloc_minor)(t.data);
                        }
                        false
                    }
                    Some(k) if !t.major && self.generation_of(k).unwrap_or(0) > 0 => match (mp.tracker.promote)(t.data) {
                        Some(d) => {
                            t.data = d;
                            t.major = true;
                            true
                        }
                        None => false,
                    },
                    Some(_) => true,
                };
                self.truncate(base);
                if keep {
                    kept.push(t);
                } else {
                    self.free_stable_ptr(t.weak);
                }
            }
            mp.tracked = kept;
            mp.busy = false;
        }
        self.memprof = Some(mp);
    }

    /// Start sampling (the `gc` API's `Memprof.start`).
    pub(crate) fn memprof_start(&mut self, rate: f64, tracker: Tracker) {
        self.memprof_stop();
        let gcs = self.rts.stats_gcs();
        self.memprof = Some(Box::new(Memprof::new(rate, tracker, gcs)));
        self.refresh_limit();
    }

    /// Stop sampling and tracking.
    pub(crate) fn memprof_stop(&mut self) {
        if let Some(mp) = self.memprof.take() {
            for t in mp.tracked {
                self.free_stable_ptr(t.weak);
            }
        }
        self.sample_pending = false;
        self.refresh_limit();
    }

    /// Move to the next block of this capability's nursery chunk, or to a
    /// fresh chunk. False when the allocation area is used up.
    fn next_nursery_block(&mut self) -> bool {
        self.memprof_catch_up();
        let entered = self.enter_next_nursery_block();
        if entered {
            self.refresh_limit();
        }
        entered
    }

    fn enter_next_nursery_block(&mut self) -> bool {
        let heap = self.rts.heap_ref();
        let forced = self.forced_gcs;
        // SAFETY: as in `cap_mut`; `heap` is a different object.
        let cap = unsafe { &mut *self.cap };
        cap.retire_current_block();
        loop {
            let chunk = &heap.nurseries[cap.chunk];
            if cap.next_block < chunk.len() {
                let bd = chunk[cap.next_block];
                cap.next_block += 1;
                // SAFETY: blocks of a chunk this capability took are its own.
                unsafe { cap.enter_block(bd, forced) };
                return true;
            }
            match heap.take_chunk() {
                Some(c) => {
                    cap.chunk = c;
                    cap.next_block = 0;
                }
                None => return false,
            }
        }
    }

    /// A large object: a block group of its own, in generation 0.
    fn alloc_large(&mut self, words: usize) -> *mut Word {
        let flags = self.rts.flags();
        let bytes = words * WORD_SIZE;
        let blocks = bytes.div_ceil(crate::constants::BLOCK_SIZE);
        if flags.max_heap_blocks > 0 && blocks >= flags.max_heap_blocks {
            self.rts.fail_exhausted(HeapExhausted::Overflow(HeapOverflow { max_heap_bytes: flags.max_heap_blocks * crate::constants::BLOCK_SIZE }));
        }
        if self.cap().gc_wanted || self.forced_gcs {
            self.cap_mut().gc_wanted = false;
            self.rts.collect(self.cap_no, GcReason::LargeAllocation, false);
        }
        let bd = {
            let mut ba = self.rts.heap_ref().blocks.lock();
            ba.alloc_group(blocks).unwrap_or_else(|e| self.rts.fail_exhausted(HeapExhausted::OutOfMemory(e)))
        };
        // SAFETY: a group fresh from the allocator is ours alone.
        let d = unsafe { bd.get() };
        d.flags |= BF_LARGE;
        d.gen_no = 0;
        d.dest_no = 0;
        // SAFETY: the group has room for `words` words.
        d.free = unsafe { d.start.add(words) };
        let nursery_words = self.rts.heap_ref().nursery_blocks() * crate::constants::BLOCK_WORDS;
        self.memprof_account(self.cap().hp, words, true);
        self.refresh_limit();
        let cap = self.cap_mut();
        cap.new_large.push(bd);
        cap.new_large_words += words;
        if cap.new_large_words >= nursery_words {
            cap.gc_wanted = true;
        }
        d.start
    }

    /// Write the header (and zeroed profiling words) of a new object.
    #[inline(always)]
    fn init_header(&self, p: *mut Word, info: &'static InfoTable) {
        // SAFETY: `p` was just allocated with at least `hdr` words.
        unsafe {
            *p = info.header();
            if self.layout.profiling() {
                *p.add(1) = self.cap().current_ccs as Word;
                let flip = self.rts.heap_ref().traversal_flip.load(std::sync::atomic::Ordering::Relaxed);
                *p.add(2) = (flip as Word) << 63;
            }
        }
    }

    /// Allocate a constructor, function or thunk of `info`, with pointer
    /// fields from `ptrs` and non-pointer words `words`.
    #[inline(always)]
    pub fn alloc(&mut self, info: &'static InfoTable, ptrs: &[Handle], words: &[Word]) -> Handle {
        debug_assert!(matches!(info.closure_type, ClosureType::Constr | ClosureType::Fun | ClosureType::Thunk));
        assert!(ptrs.len() == info.ptrs as usize && words.len() == info.nptrs as usize, "{}: wrong number of fields", info.name);
        let size = self.layout.fixed_size(info);
        let p = self.alloc_words(size);
        self.init_header(p, info);
        let payload = self.layout.payload(p);
        let roots = &self.cap().roots;
        // SAFETY: the object has room for its payload (fixed_size).
        unsafe {
            for (i, h) in ptrs.iter().enumerate() {
                *payload.add(i) = roots[h.0 as usize];
            }
            for (j, w) in words.iter().enumerate() {
                *payload.add(ptrs.len() + j) = *w;
            }
            if ptrs.is_empty() && words.is_empty() {
                *payload = 0; // a thunk's reserved indirectee word
            }
        }
        self.finish(p)
    }

    /// Pointer field `i` of the object behind `h`.
    #[inline(always)]
    pub fn field(&mut self, h: Handle, i: usize) -> Handle {
        let p = self.obj(h);
        // SAFETY: `p` is a valid object; `i` is checked against its info.
        let v = unsafe {
            let info = info_of_header(*p);
            assert!(i < info.ptrs as usize, "{}: no pointer field {i}", info.name);
            *self.layout.payload(p).add(i)
        };
        self.push(deref_ind(v, self.layout))
    }

    /// Non-pointer word `i` (counted after the pointer fields) of `h`.
    #[inline(always)]
    pub fn word(&self, h: Handle, i: usize) -> Word {
        let p = self.obj(h);
        // SAFETY: as for `field`.
        unsafe {
            let info = info_of_header(*p);
            assert!(i < info.nptrs as usize, "{}: no word {i}", info.name);
            *self.layout.payload(p).add(info.ptrs as usize + i)
        }
    }

    // ---------------------------------------------------------------
    // Thunks

    /// Evaluate `h` if it is a thunk, updating the thunk with an
    /// indirection to its value; returns a handle to the value.
    pub fn force(&mut self, h: Handle) -> Handle {
        let info = self.info(h);
        if info.closure_type != ClosureType::Thunk {
            return self.dup(h);
        }
        let entry = info.entry.expect("thunk info tables have code");
        let value = entry(self, h);
        let thunk = self.obj(h);
        // SAFETY: `thunk` is a valid object; it is still the thunk unless
        // the entry code forced it itself (then it is already an IND and
        // `obj` went through it).
        unsafe {
            let info = info_of_header(*thunk);
            if info.closure_type == ClosureType::Thunk {
                let size = self.layout.fixed_size(info);
                let v = self.root(value);
                let layout = self.layout;
                barrier::update_thunk(self.cap_mut(), layout, thunk, size, v);
            }
        }
        value
    }

    /// Has the thunk behind `h` been evaluated? (False for non-thunks too.)
    pub fn is_evaluated_thunk(&self, h: Handle) -> bool {
        // SAFETY: the root is a valid object address.
        let info = info_of_header(unsafe { *(self.root(h) as *const Word) });
        info.closure_type == ClosureType::Ind
    }

    // ---------------------------------------------------------------
    // Mutable variables

    /// A new mutable variable holding `v`.
    pub fn new_mut_var(&mut self, v: Handle) -> Handle {
        let size = self.layout.fixed_size(&MUT_VAR_CLEAN_INFO);
        let p = self.alloc_words(size);
        self.init_header(p, &MUT_VAR_CLEAN_INFO);
        let value = self.root(v);
        // SAFETY: room for one payload word.
        unsafe { *self.layout.payload(p) = value };
        self.finish(p)
    }

    /// The value of a mutable variable.
    pub fn read_mut_var(&mut self, r: Handle) -> Handle {
        let p = self.obj(r);
        self.expect_type(p, ClosureType::is_mutable, "a mutable variable");
        // SAFETY: a MUT_VAR has one payload word.
        let v = unsafe { *self.layout.payload(p) };
        self.push(deref_ind(v, self.layout))
    }

    /// Store `v` into a mutable variable (with the write barrier).
    pub fn write_mut_var(&mut self, r: Handle, v: Handle) {
        let p = self.obj(r);
        self.expect_type(p, |t| matches!(t, ClosureType::MutVarClean | ClosureType::MutVarDirty), "a mutable variable");
        let value = self.root(v);
        let layout = self.layout;
        // SAFETY: `p` is a MUT_VAR and `value` a valid object.
        unsafe { barrier::write_mut_var(self.cap_mut(), layout, p, value) };
    }

    fn expect_type(&self, p: *mut Word, ok: impl Fn(ClosureType) -> bool, what: &str) {
        // SAFETY: `p` is a valid object.
        let info = info_of_header(unsafe { *p });
        assert!(ok(info.closure_type), "expected {what}, found {}", info.name);
    }

    // ---------------------------------------------------------------
    // Arrays

    fn alloc_array_object(&mut self, size: usize) -> *mut Word {
        if size * WORD_SIZE >= LARGE_OBJECT_THRESHOLD {
            self.alloc_large(size)
        } else {
            self.alloc_words(size)
        }
    }

    /// A new mutable array of `n` elements, each `init`.
    pub fn new_array(&mut self, n: usize, init: Handle) -> Handle {
        let size = self.layout.array_size(n);
        let p = self.alloc_array_object(size);
        self.init_header(p, &MUT_ARR_CLEAN_INFO);
        let v = self.root(init);
        let payload = self.layout.payload(p);
        // SAFETY: the array object has `size` words: length, elements, cards.
        unsafe {
            *payload = n;
            for i in 0..n {
                *payload.add(1 + i) = v;
            }
            std::ptr::write_bytes(self.layout.card_table(p, n), 0, crate::object::card_words(n) * WORD_SIZE);
        }
        self.finish(p)
    }

    /// Elements of a pointer array.
    pub fn array_len(&self, a: Handle) -> usize {
        let p = self.obj(a);
        self.expect_type(p, ClosureType::is_pointer_array, "a pointer array");
        // SAFETY: arrays keep their length in the first payload word.
        unsafe { *self.layout.payload(p) }
    }

    /// Element `i` of a pointer array.
    pub fn array_get(&mut self, a: Handle, i: usize) -> Handle {
        let n = self.array_len(a);
        assert!(i < n, "array index {i} out of bounds (length {n})");
        let p = self.obj(a);
        // SAFETY: `i < n`.
        let v = unsafe { *self.layout.payload(p).add(1 + i) };
        self.push(deref_ind(v, self.layout))
    }

    /// Store `v` at element `i` of a mutable array (write barrier and card mark).
    pub fn array_set(&mut self, a: Handle, i: usize, v: Handle) {
        let p = self.obj(a);
        self.expect_type(p, |t| matches!(t, ClosureType::MutArrClean | ClosureType::MutArrDirty), "a mutable array");
        // SAFETY: arrays keep their length in the first payload word.
        let n = unsafe { *self.layout.payload(p) };
        assert!(i < n, "array index {i} out of bounds (length {n})");
        let value = self.root(v);
        let layout = self.layout;
        // SAFETY: `p` is a mutable array of `n > i` elements.
        unsafe { barrier::write_array(self.cap_mut(), layout, p, i, value) };
    }

    /// Freeze a mutable array: it becomes immutable (GHC's unsafeFreeze).
    pub fn freeze_array(&mut self, a: Handle) {
        let p = self.obj(a);
        self.expect_type(p, |t| matches!(t, ClosureType::MutArrClean | ClosureType::MutArrDirty), "a mutable array");
        // SAFETY: same layout; the mutable list keeps it if it was dirty.
        unsafe { *p = ARR_INFO.header() };
    }

    /// A new zeroed byte array of `bytes` bytes.
    pub fn new_byte_array(&mut self, bytes: usize) -> Handle {
        let size = self.layout.byte_array_size(bytes);
        let p = self.alloc_array_object(size);
        self.init_header(p, &ARR_WORDS_INFO);
        let payload = self.layout.payload(p);
        // SAFETY: room for the length and the data words.
        unsafe {
            *payload = bytes;
            std::ptr::write_bytes(payload.add(1), 0, bytes.div_ceil(WORD_SIZE));
        }
        self.finish(p)
    }

    /// Length in bytes of a byte array.
    pub fn byte_array_len(&self, b: Handle) -> usize {
        let p = self.obj(b);
        self.expect_type(p, |t| t == ClosureType::ArrWords, "a byte array");
        // SAFETY: byte arrays keep their length first.
        unsafe { *self.layout.payload(p) }
    }

    fn byte_array_data(&self, b: Handle, word: usize) -> *mut Word {
        let len = self.byte_array_len(b);
        assert!(word < len.div_ceil(WORD_SIZE), "byte array word {word} out of bounds ({len} bytes)");
        // SAFETY: checked against the length.
        unsafe { self.layout.payload(self.obj(b)).add(1 + word) }
    }

    /// Word `i` of a byte array's data.
    pub fn byte_array_read(&self, b: Handle, i: usize) -> u64 {
        // SAFETY: bounds checked by byte_array_data.
        unsafe { *self.byte_array_data(b, i) as u64 }
    }

    /// Store word `i` of a byte array's data (no barrier: no pointers).
    pub fn byte_array_write(&mut self, b: Handle, i: usize, v: u64) {
        // SAFETY: bounds checked by byte_array_data.
        unsafe { *self.byte_array_data(b, i) = v as Word };
    }

    // ---------------------------------------------------------------
    // Weak and stable pointers

    /// A weak pointer from `key` to `value`, with an optional finaliser that
    /// runs (with the value) after a GC finds the key unreachable.
    pub fn new_weak(&mut self, key: Handle, value: Handle, finalizer: Option<Finalizer>) -> Handle {
        let v = self.obj(value) as Word;
        self.new_weak_raw(key, v, finalizer.map(FinalizerKind::Value))
    }

    /// A weak pointer from `key` to the object at `value` (a root's
    /// contents, or a static object), with a finaliser of either kind.
    pub(crate) fn new_weak_raw(&mut self, key: Handle, value: Word, finalizer: Option<FinalizerKind>) -> Handle {
        let fin_id = finalizer.map(|f| self.rts.register_finalizer(f)).unwrap_or(0);
        let base = self.depth();
        let value_root = self.push(value); // keep the value across the allocation
        let size = self.layout.fixed_size(&WEAK_INFO);
        let p = self.alloc_words(size);
        self.init_header(p, &WEAK_INFO);
        let payload = self.layout.payload(p);
        let (k, v) = (self.obj(key) as Word, self.root(value_root));
        self.truncate(base);
        // SAFETY: a WEAK has five payload words.
        unsafe {
            *payload.add(weak_field::KEY) = k;
            *payload.add(weak_field::VALUE) = v;
            *payload.add(weak_field::FINALIZER) = NULL_OBJECT.addr();
            *payload.add(weak_field::LINK) = 0;
            *payload.add(weak_field::FINALIZER_ID) = fin_id as Word;
        }
        self.cap_mut().new_weaks.push(ObjPtr(p));
        self.finish(p)
    }

    /// The key of a weak pointer whose key is still alive; None once dead.
    pub fn deref_weak(&mut self, w: Handle) -> Option<Handle> {
        let p = self.obj(w);
        // SAFETY: `p` is a valid object.
        let info = info_of_header(unsafe { *p });
        match info.closure_type {
            // SAFETY: a WEAK's key is its first payload word.
            ClosureType::Weak => Some(unsafe { *self.layout.payload(p).add(weak_field::KEY) }).map(|k| self.push(k)),
            ClosureType::DeadWeak => None,
            _ => panic!("deref_weak of {}", info.name),
        }
    }

    /// Run what GCs left for the mutator: finalisers of dead weak pointers
    /// (See Note [Finaliser order]), then each alarm once per major GC
    /// since the last call.
    pub fn run_gc_hooks(&mut self) {
        if self.cap_no != 0 {
            // Finalisers and alarms run on capability 0 (the GC queues dead
            // weak pointers there); Memprof is per mutator.
            if self.memprof.is_some() {
                self.memprof_after_gc();
            }
            return;
        }
        self.run_finalizers();
        self.run_alarms();
        if self.memprof.is_some() {
            self.memprof_after_gc();
        }
    }

    /// Run the finalisers of weak pointers that died in earlier GCs.
    pub fn run_finalizers(&mut self) {
        if self.running_finalizers {
            return;
        }
        self.running_finalizers = true;
        let mut last = Vec::new();
        while let Some(weak) = self.cap_mut().pending_finalizers.pop() {
            let base = self.depth();
            let w = self.push(weak);
            let p = self.obj(w);
            // SAFETY: pending entries are DEAD_WEAK objects kept alive as roots.
            // The finaliser gets the value; the dead weak lets go of it.
            let (value, id) = unsafe {
                let payload = self.layout.payload(p);
                let taken = (*payload.add(weak_field::VALUE), *payload.add(weak_field::FINALIZER_ID) as u64);
                *payload.add(weak_field::VALUE) = NULL_OBJECT.addr();
                *payload.add(weak_field::FINALIZER) = NULL_OBJECT.addr();
                *payload.add(weak_field::FINALIZER_ID) = 0;
                taken
            };
            match self.rts.take_finalizer(id) {
                Some(FinalizerKind::Value(f)) => {
                    let v = self.push(value);
                    f(self, v);
                }
                Some(FinalizerKind::Last(f)) => last.push(f),
                None => {}
            }
            self.truncate(base);
        }
        for f in last {
            f(self);
        }
        self.running_finalizers = false;
    }

    fn run_alarms(&mut self) {
        if self.running_alarms {
            return;
        }
        self.running_alarms = true;
        let majors = self.rts.major_gcs();
        while self.seen_major_gcs < majors {
            self.seen_major_gcs += 1;
            let mut i = 0;
            while let Some((id, alarm)) = self.rts.take_alarm(i) {
                if let Some(mut f) = alarm {
                    f(self);
                    self.rts.return_alarm(id, f);
                }
                i += 1;
            }
        }
        self.running_alarms = false;
    }

    /// Make `h`'s object a global root until freed.
    pub fn new_stable_ptr(&mut self, h: Handle) -> StablePtr {
        let p = self.obj(h) as Word;
        self.rts.stable_ptrs().insert(p)
    }

    /// The object behind a stable pointer.
    pub fn deref_stable_ptr(&mut self, sp: StablePtr) -> Handle {
        let p = self.rts.stable_ptrs().get(sp);
        self.push(p)
    }

    /// Free a stable pointer.
    pub fn free_stable_ptr(&mut self, sp: StablePtr) {
        self.rts.stable_ptrs().free(sp);
    }

    // ---------------------------------------------------------------
    // GC control

    /// Collect now: generation 0 (and whatever the policy adds), or every
    /// generation when `major`. Finalisers of dead weak pointers run after.
    pub fn perform_gc(&mut self, major: bool) {
        self.rts.collect(self.cap_no, GcReason::Explicit, major);
        self.run_gc_hooks();
    }

    /// A major GC that compacts the oldest generation (`Gc.compact`); the
    /// caller has checked that the collector can.
    pub(crate) fn perform_compaction(&mut self) {
        self.rts.collect_with(self.cap_no, GcReason::Explicit, true, true);
        self.run_gc_hooks();
    }

    /// Run `f` under the cost centre `name` (pushed on the current stack:
    /// objects allocated inside are attributed to it by `-hc`).
    pub fn with_cost_centre<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let id = self.rts.cost_centre_id(name);
        let saved = self.cap().current_ccs;
        self.cap_mut().current_ccs = id;
        let r = f(self);
        self.cap_mut().current_ccs = saved;
        r
    }

    /// Name the objects root profiling (`-ho`) measures, replacing any set
    /// before (GHC's `setHeapRoots`). Each becomes a stable root.
    pub fn set_heap_roots(&mut self, roots: &[(&str, Handle)]) {
        let new: Vec<(String, StablePtr)> = roots.iter().map(|(name, h)| (name.to_string(), self.new_stable_ptr(*h))).collect();
        for (_, sp) in self.rts.replace_heap_roots(new) {
            self.free_stable_ptr(sp);
        }
    }

    /// Words in the root stack (OCaml's `stack_size`).
    pub fn root_stack_words(&self) -> usize {
        self.cap().roots.len()
    }

    /// Is the object behind `h` a static object?
    pub fn is_static(&self, h: Handle) -> bool {
        self.info(h).is_static()
    }

    /// The raw contents of root `h`, for the `gc` API's weak pointers.
    pub(crate) fn root_word(&self, h: Handle) -> Word {
        self.obj(h) as Word
    }

    /// Run the heap sanity checker now (between GCs); `Err` lists violations.
    pub fn check_heap(&mut self) -> Result<crate::sanity::SanityReport, Vec<String>> {
        self.flush_allocation_pointer();
        self.rts.check_heap_now()
    }

    /// Record the bump pointer in the current block's descriptor, so that
    /// walks of the heap between GCs see every object.
    pub(crate) fn flush_allocation_pointer(&mut self) {
        self.cap_mut().retire_current_block_keeping_position();
    }

    /// Install new RTS settings (the `gc` API's `set`).
    pub(crate) fn set_rts_flags(&mut self, flags: crate::flags::RtsFlags) {
        self.forced_gcs = flags.gc_every_allocs > 0;
        if let Err(e) = self.rts.set_flags(flags) {
            self.rts.fail_exhausted(HeapExhausted::OutOfMemory(e));
        }
    }

    /// Forget every mutable-list entry: breaks the remembered-set
    /// invariant on purpose, so tests can show the sanity checker catches it.
    #[doc(hidden)]
    pub fn debug_forget_remembered_set(&mut self) {
        for list in self.cap_mut().mut_lists.iter_mut() {
            list.clear();
        }
    }

    /// Is the object behind `h` in the heap's large-object space?
    pub fn is_large(&self, h: Handle) -> bool {
        let p = self.obj(h);
        if !self.rts.heap_ref().blocks.lock().owns(p as usize) {
            return false;
        }
        // SAFETY: `p` is in memory the heap owns, so its descriptor is live.
        unsafe { (*BlockDesc::of(p)).has(BF_LARGE) }
    }

    /// The generation of the object behind `h` (None for static objects).
    pub fn generation_of(&self, h: Handle) -> Option<usize> {
        let p = self.obj(h);
        // SAFETY: `p` is a valid object.
        if info_of_header(unsafe { *p }).is_static() {
            return None;
        }
        Some(barrier::generation_of(p))
    }
}

/// A read-only view of the heap: no allocation can happen while it lives.
pub struct HeapView<'m> {
    roots: &'m [Word],
    layout: Layout,
}

/// An object reached through a `HeapView`; valid while the view is.
#[derive(Clone, Copy)]
pub struct ObjRef<'m> {
    p: *const Word,
    layout: Layout,
    _view: PhantomData<&'m ()>,
}

impl<'m> HeapView<'m> {
    /// The object behind a handle.
    #[inline(always)]
    pub fn get(&self, h: Handle) -> ObjRef<'m> {
        ObjRef { p: deref_ind(self.roots[h.0 as usize], self.layout) as *const Word, layout: self.layout, _view: PhantomData }
    }
}

impl<'m> ObjRef<'m> {
    /// Its info table.
    #[inline(always)]
    pub fn info(self) -> &'static InfoTable {
        // SAFETY: an ObjRef is a valid object while its view lives.
        info_of_header(unsafe { *self.p })
    }

    /// Is it a static object?
    #[inline(always)]
    pub fn is_static(self) -> bool {
        self.info().is_static()
    }

    /// Pointer field `i`, through indirections.
    #[inline(always)]
    pub fn field(self, i: usize) -> ObjRef<'m> {
        debug_assert!(i < self.info().ptrs as usize);
        // SAFETY: field `i` is inside the object (checked in debug builds
        // against the info table; workloads index fields they declared).
        let v = unsafe { *self.p.add(self.layout.hdr + i) };
        ObjRef { p: deref_ind(v, self.layout) as *const Word, layout: self.layout, _view: PhantomData }
    }

    /// Non-pointer word `i`.
    #[inline(always)]
    pub fn word(self, i: usize) -> Word {
        let info = self.info();
        assert!(i < info.nptrs as usize);
        // SAFETY: inside the object, per its info table.
        unsafe { *self.p.add(self.layout.hdr + info.ptrs as usize + i) }
    }

    /// Length of a pointer array.
    pub fn array_len(self) -> usize {
        assert!(self.info().closure_type.is_pointer_array());
        // SAFETY: arrays keep their length first.
        unsafe { *self.p.add(self.layout.hdr) }
    }

    /// Element `i` of a pointer array.
    pub fn array_get(self, i: usize) -> ObjRef<'m> {
        let n = self.array_len();
        assert!(i < n);
        // SAFETY: `i < n`.
        let v = unsafe { *self.p.add(self.layout.hdr + 1 + i) };
        ObjRef { p: deref_ind(v, self.layout) as *const Word, layout: self.layout, _view: PhantomData }
    }

    /// Word `i` of a byte array.
    pub fn byte_array_read(self, i: usize) -> u64 {
        assert_eq!(self.info().closure_type, ClosureType::ArrWords);
        // SAFETY: checked against the length.
        unsafe {
            let len = *self.p.add(self.layout.hdr);
            assert!(i < len.div_ceil(WORD_SIZE));
            *self.p.add(self.layout.hdr + 1 + i) as u64
        }
    }

    /// The object's address: an identity for the life of the view (tools
    /// that build maps of the heap use it; it changes when the GC moves).
    pub fn addr(self) -> usize {
        self.p as usize
    }

    /// Same object?
    pub fn same(self, other: ObjRef<'_>) -> bool {
        self.p == other.p
    }
}
