//! Evaluation stacks: a heap object whose live slots are pointers the GC
//! traces, for a program that keeps its evaluation state on the heap (an
//! interpreter's environments and pending values), and the operations
//! that move values between its slots and the heap without a handle per
//! step. Also black-holing and updating thunks that an interpreter
//! evaluates.
//!
//! Note [Evaluation stacks]
//! ----------------------------------------
//! GHC keeps a Haskell thread's stack in heap objects (STACK) that the GC
//! scans, so that every value a computation is about to use is a root
//! that moves with its object. A STACK here is `[capacity][depth]` then
//! `capacity` slots; the slots below `depth` are live and hold object
//! addresses, the rest are never read (`Layout::pointer_slots` gives the
//! live ones, so every collector, the sanity checker and the heap
//! traversal see them without knowing stacks). Slots are named by their
//! index from the bottom, which stays put when the stack grows: a full
//! stack is copied into one twice as large, and the handle that holds it
//! is pointed at the copy.
//!
//! What GHC keeps beside the pointers (return addresses, frame layouts)
//! is not traced by its GC except to find the pointers; an interpreter
//! here keeps that in its own Rust state, so the stack object holds
//! pointers only and needs no frame bitmaps.
//!
//! A stack is written constantly, so its barrier is a mutable variable's
//! (GHC's dirty-stack rule): the first write after a GC makes a clean
//! stack in an old generation dirty and puts it on the mutable list; the
//! next GC scans its live slots and cleans it. Popping is a store of the
//! depth only; under a snapshot barrier the popped values are recorded
//! first (`barrier::pop_stack`).
//!
//! The cost: through `Mutator`'s `stack_*` operations a slot read
//! resolves the handle (four dependent loads) and tests the depth; a
//! push also tests the capacity. An interpreter pins the stack instead
//! (See Note [Pinned frames] in `frame`), and then a read is one load
//! and the depth test. Moving a value (a copy between
//! slots, a field into a slot, a slot into a new object's field) does not
//! follow indirections, so it never loads the header of the object moved:
//! an evaluated thunk stays an indirection until a reader that needs the
//! object (its info, its words, its fields) follows it, or a GC removes
//! it. Following them eagerly cost binary-trees a cache miss per field a
//! pattern bound (18% of the machine's time in `lru`). The alternative, pointers in
//! handles on the capability's root stack, needs no new object type but
//! keeps every pending value alive until the interpreter pops the handle,
//! and is not what GHC's GC sees.

use super::*;

/// The stack has reached the largest size its flags allow (`+RTS -K`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackOverflow {
    /// Its size in bytes when it could not grow.
    pub bytes: usize,
}

impl Mutator<'_> {
    /// A new, empty evaluation stack of `capacity` slots.
    pub fn new_stack(&mut self, capacity: usize) -> Handle {
        let capacity = capacity.max(1);
        let size = self.layout.stack_size(capacity);
        let p = self.alloc_array_object(Some(size).filter(|&w| w <= crate::object::MAX_OBJECT_WORDS));
        self.init_header(p, &STACK_CLEAN_INFO);
        let payload = self.layout.payload(p);
        // SAFETY: the object has `stack_size(capacity)` words.
        unsafe {
            *payload = capacity;
            *payload.add(1) = 0;
        }
        self.finish(p)
    }

    /// The stack object behind `st` (checked to be one). A stack is never
    /// an indirection (only thunks are updated, and a grown stack's
    /// handle is repointed), so only the read hook is consulted: the
    /// header test of `deref_ind` here was 8% of the interpreter's
    /// instructions (binary_trees).
    #[inline(always)]
    pub(super) fn stack_obj(&self, st: Handle) -> *mut Word {
        let mut p = self.root(st);
        loop {
            let q = self.access.on_read(p);
            if q == p {
                break;
            }
            p = q;
        }
        let p = p as *mut Word;
        // SAFETY: a handle refers to a valid object, whose header may be read.
        debug_assert_eq!(info_of_header(unsafe { *p }).closure_type, ClosureType::Stack);
        p
    }

    /// (capacity, depth) of the stack at `p`.
    #[inline(always)]
    fn stack_dims(&self, p: *mut Word) -> (usize, usize) {
        let payload = self.layout.payload(p);
        // SAFETY: a stack keeps its capacity and depth first.
        unsafe { (*payload, *payload.add(1)) }
    }

    /// The largest evaluation stack in words: `+RTS -K`, or 80% of
    /// physical memory by default, as GHC's.
    pub fn max_stack_words(&self) -> usize {
        let bytes = match self.rt.flags().max_stack_bytes {
            0 => crate::process_usage::machine_memory_bytes().map_or(usize::MAX / 2, |m| (m / 10 * 8) as usize),
            b => b,
        };
        bytes / WORD_SIZE
    }

    #[cold]
    #[inline(never)]
    pub(super) fn grow_stack(&mut self, st: Handle, needed: usize) -> Result<(), StackOverflow> {
        let (capacity, depth) = self.stack_dims(self.stack_obj(st));
        let limit = self.max_stack_words();
        if needed > limit {
            return Err(StackOverflow { bytes: capacity * WORD_SIZE });
        }
        let bigger = (capacity * 2).max(needed).min(limit);
        let new = self.new_stack(bigger);
        let (from, to) = (self.stack_obj(st), self.stack_obj(new));
        let layout = self.layout;
        // SAFETY: both are stacks; the new one has room for `depth` slots
        // and is younger than anything it points to or as young, so the
        // copy needs no barrier but the dirty rule's, which a fresh clean
        // stack in the nursery does not need.
        unsafe {
            std::ptr::copy_nonoverlapping(layout.payload(from).add(2), layout.payload(to).add(2), depth);
            *layout.payload(to).add(1) = depth;
        }
        self.set(st, new);
        self.truncate(new.index());
        Ok(())
    }

    /// Live slots of the stack.
    #[inline(always)]
    pub fn stack_depth(&mut self, st: Handle) -> usize {
        self.frame(st).depth()
    }

    /// Push the object behind `v`.
    #[inline(always)]
    pub fn stack_push(&mut self, st: Handle, v: Handle) -> Result<usize, StackOverflow> {
        self.frame(st).push(v)
    }

    /// Push a copy of live slot `from`.
    #[inline(always)]
    pub fn stack_push_slot(&mut self, st: Handle, from: usize) -> Result<usize, StackOverflow> {
        self.frame(st).push_slot(from)
    }

    /// Push `n` slots, each holding the static object `fill`; returns the
    /// first one's index.
    #[inline(always)]
    pub fn stack_reserve(&mut self, st: Handle, n: usize, fill: &'static StaticObject) -> Result<usize, StackOverflow> {
        self.frame(st).reserve(n, fill)
    }

    /// Pop every slot at or above `depth`.
    #[inline(always)]
    pub fn stack_pop_to(&mut self, st: Handle, depth: usize) {
        self.frame(st).pop_to(depth)
    }

    /// A handle to the value in slot `i`.
    #[inline(always)]
    pub fn stack_get(&mut self, st: Handle, i: usize) -> Handle {
        self.frame(st).get(i)
    }

    /// Store the object behind `v` into slot `i`.
    #[inline(always)]
    pub fn stack_set(&mut self, st: Handle, i: usize, v: Handle) {
        self.frame(st).set(i, v)
    }

    /// Slot `dst` := slot `src`.
    #[inline(always)]
    pub fn stack_copy(&mut self, st: Handle, dst: usize, src: usize) {
        self.frame(st).copy(dst, src)
    }

    /// Slot `dst` := the static object `s`.
    #[inline(always)]
    pub fn stack_set_static(&mut self, st: Handle, dst: usize, s: &'static StaticObject) {
        self.frame(st).set_static(dst, s)
    }

    /// Move the `n` slots from `from` down to `to` (`to <= from`) and pop
    /// everything above them (See `Frame::slide`).
    pub fn stack_slide(&mut self, st: Handle, from: usize, to: usize, n: usize) {
        self.frame(st).slide(from, to, n)
    }

    /// Slot `dst` := pointer field `field` of the object in slot `obj`.
    #[inline(always)]
    pub fn stack_field(&mut self, st: Handle, dst: usize, obj: usize, field: usize) {
        self.frame(st).field(dst, obj, field)
    }

    /// The info table of the object in slot `i`, through indirections.
    #[inline(always)]
    pub fn stack_info(&mut self, st: Handle, i: usize) -> &'static InfoTable {
        self.frame(st).info(i)
    }

    /// Non-pointer word `w` (after the pointer fields) of the object in
    /// slot `i`.
    #[inline(always)]
    pub fn stack_word(&mut self, st: Handle, i: usize, w: usize) -> Word {
        self.frame(st).word(i, w)
    }

    /// Do slots `a` and `b` hold the same object?
    #[inline(always)]
    pub fn stack_same(&mut self, st: Handle, a: usize, b: usize) -> bool {
        self.frame(st).same(a, b)
    }

    /// Allocate an object of `info` (fixed layout) whose pointer fields
    /// are the values in slots `ptr_slots` and whose words are `words`,
    /// and store it into slot `dst` (`dst` equal to the depth pushes it).
    #[inline(always)]
    pub fn stack_alloc(&mut self, st: Handle, dst: usize, info: &'static InfoTable, ptr_slots: &[usize], words: &[Word]) -> Result<(), StackOverflow> {
        self.frame(st).alloc(dst, info, ptr_slots, words)
    }

    /// Write the value in slot `value` into pointer field `field` of the
    /// object in slot `obj`, through the barrier (See `Frame::set_field`).
    pub fn stack_set_field(&mut self, st: Handle, obj: usize, field: usize, value: usize) {
        self.frame(st).set_field(obj, field, value)
    }

    /// Black-hole the thunk in slot `thunk` (See `barrier::blackhole`).
    pub fn stack_blackhole(&mut self, st: Handle, thunk: usize, blackhole: &'static InfoTable) {
        self.frame(st).blackhole(thunk, blackhole)
    }

    /// Update the thunk (or black hole) in slot `thunk` with the value in
    /// slot `value` (See `barrier::update_thunk`).
    pub fn stack_update(&mut self, st: Handle, thunk: usize, value: usize) {
        self.frame(st).update(thunk, value)
    }
}
