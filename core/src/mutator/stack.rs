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
//! The cost: a slot read is two loads through the handle and a bounds
//! test; a push also a capacity test. Moving a value (a copy between
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
use crate::object::{load_header, store_field};

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
    fn stack_obj(&self, st: Handle) -> *mut Word {
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

    /// The address of live slot `i` of the stack at `p`.
    #[inline(always)]
    fn slot_addr(&self, p: *mut Word, i: usize) -> *mut Word {
        let (_, depth) = self.stack_dims(p);
        assert!(i < depth, "stack slot {i} is not live (depth {depth})");
        // SAFETY: `i` is below the depth, so inside the object.
        unsafe { self.layout.payload(p).add(2 + i) }
    }

    /// Live slots of the stack.
    #[inline(always)]
    pub fn stack_depth(&self, st: Handle) -> usize {
        self.stack_dims(self.stack_obj(st)).1
    }

    /// The value in slot `i`, through indirections.
    #[inline(always)]
    fn slot_value(&self, st: Handle, i: usize) -> Word {
        let p = self.stack_obj(st);
        // SAFETY: `slot_addr` checked the slot is live.
        deref_ind(unsafe { *self.slot_addr(p, i) }, self.layout, self.access)
    }

    /// The word in slot `i` as it is: an indirection is left for its
    /// reader to follow, so that copying a value between slots and
    /// fields does not load the header of the object it names (See Note
    /// [Evaluation stacks]).
    #[inline(always)]
    fn slot_raw(&self, st: Handle, i: usize) -> Word {
        let p = self.stack_obj(st);
        // SAFETY: `slot_addr` checked the slot is live.
        unsafe { *self.slot_addr(p, i) }
    }

    /// Store `v` (an object address) into live slot `i`.
    #[inline(always)]
    fn store_slot(&mut self, st: Handle, i: usize, v: Word) {
        let p = self.stack_obj(st);
        let _ = self.slot_addr(p, i);
        let layout = self.layout;
        self.access.before_write(p);
        // SAFETY: slot `i` is live (checked) and `v` a valid object address.
        unsafe { barrier::write_stack(self.cap_mut(), layout, p, i, v) };
    }

    /// Make room for `n` more slots, copying the stack into a larger one
    /// if it is full (See Note [Evaluation stacks]).
    #[inline(always)]
    fn stack_room(&mut self, st: Handle, n: usize) -> Result<(), StackOverflow> {
        let (capacity, depth) = self.stack_dims(self.stack_obj(st));
        if depth + n <= capacity {
            return Ok(());
        }
        self.grow_stack(st, depth + n)
    }

    /// The largest evaluation stack in words: `+RTS -K`, or 80% of
    /// physical memory by default, as GHC's.
    pub fn max_stack_words(&self) -> usize {
        let bytes = match self.rt.flags().max_stack_bytes {
            0 => crate::stats::machine_memory_bytes().map_or(usize::MAX / 2, |m| (m / 10 * 8) as usize),
            b => b,
        };
        bytes / WORD_SIZE
    }

    #[cold]
    #[inline(never)]
    fn grow_stack(&mut self, st: Handle, needed: usize) -> Result<(), StackOverflow> {
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

    /// Push the object behind `v`.
    #[inline(always)]
    pub fn stack_push(&mut self, st: Handle, v: Handle) -> Result<usize, StackOverflow> {
        self.stack_room(st, 1)?;
        let w = self.root(v);
        Ok(self.push_word(st, w))
    }

    /// Push a copy of live slot `from`.
    #[inline(always)]
    pub fn stack_push_slot(&mut self, st: Handle, from: usize) -> Result<usize, StackOverflow> {
        self.stack_room(st, 1)?;
        let w = self.slot_raw(st, from);
        Ok(self.push_word(st, w))
    }

    /// Push `n` slots, each holding the static object `fill`; returns the
    /// first one's index.
    #[inline(always)]
    pub fn stack_reserve(&mut self, st: Handle, n: usize, fill: &'static StaticObject) -> Result<usize, StackOverflow> {
        self.stack_room(st, n)?;
        let p = self.stack_obj(st);
        let (_, depth) = self.stack_dims(p);
        let payload = self.layout.payload(p);
        // SAFETY: `stack_room` made room for `n` slots above the depth;
        // a static object is never young, so no barrier is due.
        unsafe {
            for k in 0..n {
                store_field(payload.add(2 + depth + k), fill.addr());
            }
            *payload.add(1) = depth + n;
        }
        Ok(depth)
    }

    /// Push `w` onto a stack known to have room.
    #[inline(always)]
    fn push_word(&mut self, st: Handle, w: Word) -> usize {
        let p = self.stack_obj(st);
        let layout = self.layout;
        self.access.before_write(p);
        // SAFETY: the caller made room; `w` is a valid object address.
        unsafe { barrier::push_stack(self.cap_mut(), layout, p, w) }
    }

    /// Pop every slot at or above `depth`.
    #[inline(always)]
    pub fn stack_pop_to(&mut self, st: Handle, depth: usize) {
        let p = self.stack_obj(st);
        assert!(depth <= self.stack_dims(p).1, "popping to {depth}, above the stack");
        let layout = self.layout;
        self.access.before_write(p);
        // SAFETY: `p` is a stack whose depth is at least `depth`.
        unsafe { barrier::pop_stack(self.cap_mut(), layout, p, depth) };
    }

    /// A handle to the value in slot `i`.
    #[inline(always)]
    pub fn stack_get(&mut self, st: Handle, i: usize) -> Handle {
        let w = self.slot_value(st, i);
        self.push(w)
    }

    /// Store the object behind `v` into slot `i`.
    #[inline(always)]
    pub fn stack_set(&mut self, st: Handle, i: usize, v: Handle) {
        let w = self.root(v);
        self.store_slot(st, i, w);
    }

    /// Slot `dst` := slot `src`.
    #[inline(always)]
    pub fn stack_copy(&mut self, st: Handle, dst: usize, src: usize) {
        let w = self.slot_raw(st, src);
        self.store_slot(st, dst, w);
    }

    /// Slot `dst` := the static object `s`.
    #[inline(always)]
    pub fn stack_set_static(&mut self, st: Handle, dst: usize, s: &'static StaticObject) {
        self.store_slot(st, dst, s.addr());
    }

    /// Move the `n` slots from `from` down to `to` (`to <= from`) and pop
    /// everything above them: what a tail call does with its arguments
    /// when it drops its caller's frame.
    pub fn stack_slide(&mut self, st: Handle, from: usize, to: usize, n: usize) {
        assert!(to <= from);
        for k in 0..n {
            self.stack_copy(st, to + k, from + k);
        }
        self.stack_pop_to(st, to + n);
    }

    /// Slot `dst` := pointer field `field` of the object in slot `obj`.
    #[inline(always)]
    pub fn stack_field(&mut self, st: Handle, dst: usize, obj: usize, field: usize) {
        let o = self.slot_value(st, obj) as *mut Word;
        // SAFETY: `o` is a valid object; `field` is checked against its info.
        let v = unsafe {
            let info = info_of_header(*o);
            assert!(field < info.ptrs as usize, "{}: no pointer field {field}", info.name);
            *self.layout.payload(o).add(field)
        };
        self.store_slot(st, dst, v);
    }

    /// The info table of the object in slot `i`, through indirections.
    #[inline(always)]
    pub fn stack_info(&self, st: Handle, i: usize) -> &'static InfoTable {
        // SAFETY: a live slot holds a valid object address.
        info_of_header(unsafe { *(self.slot_value(st, i) as *const Word) })
    }

    /// Non-pointer word `w` (after the pointer fields) of the object in
    /// slot `i`.
    #[inline(always)]
    pub fn stack_word(&self, st: Handle, i: usize, w: usize) -> Word {
        let o = self.slot_value(st, i) as *mut Word;
        // SAFETY: `o` is a valid object; `w` is checked against its info.
        unsafe {
            let info = info_of_header(*o);
            assert!(w < info.nptrs as usize, "{}: no word {w}", info.name);
            *self.layout.payload(o).add(info.ptrs as usize + w)
        }
    }

    /// Do slots `a` and `b` hold the same object?
    #[inline(always)]
    pub fn stack_same(&self, st: Handle, a: usize, b: usize) -> bool {
        self.slot_value(st, a) == self.slot_value(st, b)
    }

    /// Allocate an object of `info` (fixed layout) whose pointer fields
    /// are the values in slots `ptr_slots` and whose words are `words`,
    /// and store it into slot `dst` (`dst` equal to the depth pushes it).
    #[inline(always)]
    pub fn stack_alloc(&mut self, st: Handle, dst: usize, info: &'static InfoTable, ptr_slots: &[usize], words: &[Word]) -> Result<(), StackOverflow> {
        assert!(ptr_slots.len() == info.ptrs as usize && words.len() == info.nptrs as usize, "{}: wrong number of fields", info.name);
        if dst == self.stack_depth(st) {
            self.stack_reserve(st, 1, &NULL_OBJECT)?;
        }
        let layout = self.layout;
        let p = self.alloc_words(layout.fixed_size(info));
        self.init_header(p, info);
        let payload = layout.payload(p);
        for (k, &slot) in ptr_slots.iter().enumerate() {
            let v = self.slot_raw(st, slot);
            // SAFETY: the new object has room for its payload.
            unsafe { *payload.add(k) = v };
        }
        // SAFETY: as above.
        unsafe {
            for (j, w) in words.iter().enumerate() {
                *payload.add(ptr_slots.len() + j) = *w;
            }
            if ptr_slots.is_empty() && words.is_empty() && info.payload_words() > 0 {
                *payload = 0; // a thunk's reserved indirectee word
            }
        }
        self.store_slot(st, dst, p as Word);
        if self.sample_pending {
            let h = self.stack_get(st, dst);
            self.report_sample(h);
            self.truncate(h.index());
        }
        Ok(())
    }

    /// Write the value in slot `value` into pointer field `field` of the
    /// object in slot `obj`, through the barrier (a letrec tying its
    /// knot into objects it has just made).
    pub fn stack_set_field(&mut self, st: Handle, obj: usize, field: usize, value: usize) {
        let o = self.slot_value(st, obj) as *mut Word;
        let v = self.slot_raw(st, value);
        self.access.before_write(o);
        // SAFETY: `o` is a valid object; `field` is checked against its info.
        unsafe {
            let info = info_of_header(*o);
            assert!(field < info.ptrs as usize && info.closure_type.has_fixed_layout(), "{}: no pointer field {field}", info.name);
            let slot = self.layout.payload(o).add(field);
            let layout = self.layout;
            barrier::write_field(self.cap_mut(), layout, o, slot, v);
        }
    }

    /// Black-hole the thunk in slot `thunk` (See `barrier::blackhole`);
    /// `blackhole` must be a black hole of its payload size.
    pub fn stack_blackhole(&mut self, st: Handle, thunk: usize, blackhole: &'static InfoTable) {
        let p = self.slot_value(st, thunk) as *mut Word;
        self.access.before_write(p);
        // SAFETY: checked to be a thunk below; the table has its size.
        unsafe {
            let info = info_of_header(load_header(p));
            assert!(matches!(info.closure_type, ClosureType::Thunk | ClosureType::Selector), "{}: not a thunk", info.name);
            assert_eq!(info.payload_words().max(1), blackhole.payload_words(), "a black hole of the thunk's size");
            let layout = self.layout;
            barrier::blackhole(self.cap_mut(), layout, p, blackhole);
        }
    }

    /// Update the thunk (or black hole) in slot `thunk` with the value in
    /// slot `value`: it becomes an indirection (See `barrier::update_thunk`).
    pub fn stack_update(&mut self, st: Handle, thunk: usize, value: usize) {
        let p = self.slot_value(st, thunk) as *mut Word;
        let v = self.slot_raw(st, value);
        self.access.before_write(p);
        // SAFETY: checked to be a thunk of some kind; its size from its info.
        unsafe {
            let info = info_of_header(load_header(p));
            assert!(info.closure_type.is_thunk(), "{}: not a thunk", info.name);
            let size = self.layout.fixed_size(info);
            let layout = self.layout;
            barrier::update_thunk(self.cap_mut(), layout, p, size, v);
        }
    }
}
