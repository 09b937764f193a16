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
//! The mutator is split by concern: this module holds the `Mutator` and
//! its root stack, and GC control; `run` how a program comes to run on a
//! capability; `alloc` the allocation paths; `sampling` the allocation
//! sampler that the `gc` API's Memprof rides on; `objects` constructing,
//! reading and writing objects; `thunk` forcing thunks; `stack`
//! evaluation stacks and `frame` a stack pinned for an interpreter;
//! `finalise` weak pointers, finalisers and alarms; `stable` stable
//! pointers; `view` read-only views of the heap; `par` spreading work
//! over capabilities.
//!
//! The mutator sits on the runtime (`runtime::Runtime`): it asks it for
//! GCs and for the world to stop, and reads its heap and flags. What only
//! mutators share, the finalisers and alarms waiting to run after GCs, is
//! the mutators' own (`GcHooks`).

mod alloc;
mod finalise;
mod frame;
mod misuse;
mod objects;
mod par;
mod run;
mod sampling;
mod stable;
mod stack;
mod thunk;
mod view;

pub use finalise::{Alarm, Finalizer, FinalizerKind, GcHooks, LastFinalizer};
pub use frame::{Frame, LentMutator};
pub use run::run;
pub use sampling::{SampleSink, SampledAllocation};
pub use stack::StackOverflow;
pub use thunk::ThunkCode;
pub use view::{HeapView, ObjRef};

use crate::access_hooks::Installed;
use crate::barrier;
use crate::bdescr::{BlockDesc, BF_LARGE};
use crate::capability::Capability;
use crate::collector::GcReason;
use crate::constants::{Word, LARGE_OBJECT_WORDS, WORD_SIZE};
use crate::generation::ObjPtr;
use crate::info::*;
use crate::object::{info_of_header, weak_field, Layout};
use crate::policy::{HeapExhausted, HeapOverflow};
use crate::runtime::Runtime;
use crate::stable_ptr::StablePtr;
use crate::stats::Stats;
use sampling::Sampler;
use std::marker::PhantomData;

/// A root: an index into the capability's root stack.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle(u32);

impl Handle {
    /// The slot index (for tools that print root stacks).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A mutator thread's view of the runtime, bound to one capability.
pub struct Mutator<'rt> {
    pub(crate) rt: &'rt Runtime,
    /// Finalisers and alarms, shared by the run's mutators.
    pub(crate) hooks: &'rt GcHooks,
    cap: *mut Capability,
    pub(crate) cap_no: usize,
    layout: Layout,
    forced_gcs: bool,
    pub(crate) running_finalizers: bool,
    running_alarms: bool,
    seen_major_gcs: u64,
    /// The allocation sampler, while one runs (See `sampling`).
    sampler: Option<Box<Sampler>>,
    /// A sample is due on the object being made (See `sampling`).
    sample_pending: bool,
    /// The collector's hooks on loads and stores (See Note [Access hooks]
    /// in `access_hooks`).
    access: Installed,
}

/// Follow indirections (updated thunks) from the object at `p`, then let
/// the collector's read hook see the reference (See Note [Access hooks] in
/// `access_hooks`): every reference a mutator loads comes through here.
/// The hook may hand back another object (a copy), which may itself be an
/// indirection: a thunk copied before it was updated, or the copy of one.
#[inline(always)]
fn deref_ind(mut p: Word, layout: Layout, access: Installed) -> Word {
    loop {
        // SAFETY: `p` is a valid object address (heap or static); reading
        // its header word is always allowed. IND has one info table, so
        // comparing the header word is enough.
        if unsafe { header_word(p) } != IND_INFO.header() {
            let q = access.on_read(p);
            if q == p {
                return p;
            }
            p = q;
            continue;
        }
        // SAFETY: an IND's payload is its indirectee.
        p = unsafe { *layout.payload(p as *mut Word) };
    }
}

/// Pointer field `i` of the object at `p`, as it is (an indirection is
/// left for its reader), checked against the object's info.
///
/// # Safety
/// `p` is a valid object address.
#[inline(always)]
// SAFETY: the caller's contract; the field is checked to exist.
unsafe fn checked_field(layout: Layout, p: *mut Word, i: usize) -> Word {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { *p });
    if i >= info.ptrs as usize {
        misuse::no_pointer_field(info, i);
    }
    // SAFETY: the field exists (checked).
    unsafe { *layout.payload(p).add(i) }
}

/// Non-pointer word `w` (counted after the pointer fields) of the object
/// at `p`, checked against the object's info.
///
/// # Safety
/// `p` is a valid object address.
#[inline(always)]
// SAFETY: the caller's contract; the word is checked to exist.
unsafe fn checked_word(layout: Layout, p: *mut Word, w: usize) -> Word {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { *p });
    if w >= info.nptrs as usize {
        misuse::no_word(info, w);
    }
    // SAFETY: the word exists (checked).
    unsafe { *layout.payload(p).add(info.ptrs as usize + w) }
}

/// The header word of the object at `p`, as a mutator's load reads it:
/// atomically in a build with the hooks, where a concurrent copier may be
/// installing a forwarding pointer in it (See Note [Access hooks]); a
/// plain load otherwise, which the compiler may combine with others (an
/// atomic load here cost the interpreter's mutator 8% on lalr.hs).
///
/// # Safety
/// `p` is a valid object address.
#[inline(always)]
// SAFETY: the caller's contract: `p` is a valid object address.
unsafe fn header_word(p: Word) -> Word {
    #[cfg(feature = "access-hooks")]
    // SAFETY: the caller's contract.
    return unsafe { crate::object::load_header(p as *const Word) };
    #[cfg(not(feature = "access-hooks"))]
    // SAFETY: the caller's contract.
    return unsafe { *(p as *const Word) };
}

impl<'rt> Mutator<'rt> {
    pub(crate) fn new(rt: &'rt Runtime, hooks: &'rt GcHooks, cap_no: usize) -> Mutator<'rt> {
        let layout = rt.heap_ref().layout;
        Mutator {
            rt,
            hooks,
            cap: rt.cap_ptr(cap_no),
            cap_no,
            layout,
            forced_gcs: rt.flags().gc_every_allocs > 0,
            running_finalizers: false,
            running_alarms: false,
            seen_major_gcs: 0,
            sampler: None,
            sample_pending: false,
            access: rt.access,
        }
    }

    #[inline(always)]
    pub(crate) fn cap(&self) -> &Capability {
        // SAFETY: Note [Who touches what] in `runtime`: between GCs only this
        // mutator touches its capability.
        unsafe { &*self.cap }
    }

    #[inline(always)]
    pub(crate) fn cap_mut(&mut self) -> &mut Capability {
        // SAFETY: as above; `&mut self` makes this the only borrow.
        unsafe { &mut *self.cap }
    }

    /// The runtime.
    pub fn runtime(&self) -> &'rt Runtime {
        self.rt
    }

    /// This run's object layout.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Statistics so far.
    pub fn stats(&self) -> Stats {
        self.rt.stats()
    }

    /// GCs so far, and of them the major ones (a collection of the oldest
    /// generation, or the pause that begins one beside the mutators): for
    /// a program that waits for a collector's event, at the cost of two
    /// loads where `stats` copies every GC's record.
    pub fn collections(&self) -> (u64, u64) {
        self.rt.collections()
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
        deref_ind(self.root(h), self.layout, self.access) as *mut Word
    }

    /// Root a freshly initialised object; report it to the sampler if one
    /// of its words was sampled (See Note [Sampling without a fast-path
    /// test] in `sampling`).
    #[inline(always)]
    fn finish(&mut self, p: *mut Word) -> Handle {
        let h = self.push(p as Word);
        self.report_sample(h)
    }

    /// Report the object behind `h`, just rooted, to the sampler if one
    /// of its words was sampled.
    #[inline(always)]
    fn report_sample(&mut self, h: Handle) -> Handle {
        if self.sample_pending {
            self.report_sampled(h);
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
        let w = self.root(h);
        self.replace_frame(depth, w)
    }

    /// Pop the frame that began at `depth` and root `w` in its place:
    /// `truncate(depth)` then `push(w)`, but a frame with a slot to give
    /// up takes `w` there, without `push`'s capacity test.
    #[inline(always)]
    fn replace_frame(&mut self, depth: usize, w: Word) -> Handle {
        let roots = &mut self.cap_mut().roots;
        if depth < roots.len() {
            // Shortened first, the vector's new length is known here, so
            // the store needs no bounds test and no reload of the length.
            roots.truncate(depth + 1);
            roots[depth] = w;
            Handle(depth as u32)
        } else {
            roots.push(w);
            Handle((roots.len() - 1) as u32)
        }
    }

    /// Make `dst` refer to what `src` refers to.
    #[inline(always)]
    pub fn set(&mut self, dst: Handle, src: Handle) {
        let w = self.root(src);
        self.put(dst, w);
    }

    /// Make `h` refer to the object at `w` (a root's new value).
    #[inline(always)]
    fn put(&mut self, h: Handle, w: Word) {
        self.cap_mut().roots[h.0 as usize] = w;
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

    /// Do two handles refer to the same object? Exact for static objects,
    /// for objects that can be written (mutable variables and arrays, byte
    /// arrays, thunks), and for weak pointers and their keys. Two
    /// handles to one constructor, function or frozen array may read false
    /// after a parallel GC that copied it twice, as GHC's pointer equality
    /// may: the copies are equal and never written, so nothing else tells
    /// them apart (See Note [Copying an immutable object twice] in the
    /// collectors' `evacuate`).
    #[inline]
    pub fn same(&self, a: Handle, b: Handle) -> bool {
        self.obj(a) == self.obj(b)
    }

    /// The info table of the object behind `h`.
    #[inline]
    pub fn info(&self, h: Handle) -> &'static InfoTable {
        // SAFETY: `obj` is a valid object address.
        info_of_header(unsafe { *self.obj(h) })
    }

    /// A read-only view of the heap (See the module doc).
    #[inline]
    pub fn view(&self) -> HeapView<'_> {
        HeapView { roots: &self.cap().roots, layout: self.layout, access: self.access }
    }

    // ---------------------------------------------------------------
    // GC control

    /// Collect now: generation 0 (and whatever the policy adds), or every
    /// generation when `major`. Finalisers of dead weak pointers run after.
    pub fn perform_gc(&mut self, major: bool) {
        self.rt.collect(self.cap_no, GcReason::Explicit, major);
        self.run_gc_hooks();
    }

    /// A major GC that compacts the oldest generation (`Gc.compact`); the
    /// caller has checked that the collector can.
    pub(crate) fn perform_compaction(&mut self) {
        self.rt.collect_with(self.cap_no, GcReason::Explicit, true, true);
        self.run_gc_hooks();
    }

    /// Run `f` under the cost centre `name` (pushed on the current stack:
    /// objects allocated inside are attributed to it by `-hc`).
    pub fn with_cost_centre<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let id = self.rt.cost_centre_id(name);
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
        for (_, sp) in self.rt.replace_heap_roots(new) {
            self.free_stable_ptr(sp);
        }
    }

    /// Words in the root stack (OCaml's `stack_size`).
    pub fn root_stack_words(&self) -> usize {
        self.cap().roots.len()
    }

    /// Is the object behind `h` a static object?
    #[inline]
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
        let rt = self.rt;
        // SAFETY: `with_world_stopped` stops the world for the walk.
        rt.with_world_stopped(|heap, caps| unsafe { crate::sanity::check(heap, caps, rt.stable_ptrs()) })
    }

    /// Record the bump pointer in the current block's descriptor, so that
    /// walks of the heap between GCs see every object.
    pub(crate) fn flush_allocation_pointer(&mut self) {
        self.cap_mut().retire_current_block_keeping_position();
    }

    /// Install new RTS settings (the `gc` API's `set`).
    pub(crate) fn set_rts_flags(&mut self, flags: crate::flags::RtsFlags) {
        self.forced_gcs = flags.gc_every_allocs > 0;
        if let Err(e) = self.rt.set_flags(flags) {
            self.rt.fail_exhausted(HeapExhausted::OutOfMemory(e));
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
        if !self.rt.heap_ref().blocks.lock().owns(p as usize) {
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
