//! A pinned evaluation stack: an interpreter's slots read and written
//! through one resolved address for as long as it holds the mutator,
//! where each of `Mutator`'s `stack_*` operations resolves the stack's
//! handle again. Those operations are this module's, through a frame
//! pinned for one call.
//!
//! Invariant kept: `Frame::stack` is the object the stack's handle
//! names, and `Frame::plain` is true only if a store needs no barrier
//! (See Note [Pinned frames]), at every moment the frame's owner can
//! call it.
//!
//! Note [Pinned frames]
//! ----------------------------------------
//! An interpreter touches its evaluation stack several times per
//! instruction. Through the handle, each access loads the capability,
//! its root vector and its length, the root, then the stack's depth;
//! each store also tests the barrier's extension and the stack's dirty
//! header: 15-20 instructions an access (See Note [Evaluation stacks]).
//!
//! A `Frame` holds the mutator exclusively (`&mut`), so nothing can
//! move the stack, clean it, or change the barrier's extension while
//! the frame lives except through the frame itself: a stack moves only
//! in a GC or when it grows, a GC cleans it, and an extension is set only
//! while the world is stopped, all of which happen only at a safe point
//! of this mutator (an allocation's slow path, a poll). So the frame
//! resolves the stack when it is made, and again after each of its own
//! operations that may reach a safe point (an allocation that takes the
//! slow path, growing the stack) and after each use of the mutator it
//! lends (`Frame::mutator`, a guard that pins again when it is dropped).
//! An allocation bumped from the current block (`Mutator::bump`) reaches
//! no safe point, so the stack stays pinned through it: pinning again
//! after every allocation cost the interpreter 3-5% of its instructions
//! (binary_trees.hs 10: 0.641G to 0.612G). Between those, a slot is one
//! load from a base address and a test against the depth.
//!
//! A store is *plain*, one store and nothing else, when the stack is
//! already dirty (on the mutable list: See the dirty-stack rule in Note
//! [Evaluation stacks]), its capability's barrier extension records no
//! stack stores, and no access hook is installed. Otherwise it takes the
//! barrier's path, as every store did before frames, and the first such
//! store after a GC dirties the stack, so the rest are plain.
//!
//! Measured with valgrind on binary_trees.hs 10, the interpreter's
//! instructions fell from 1.011G to 0.899G (MUT 1.24 to 1.10 s at 14).
//! The alternative, a cache of the
//! resolved stack inside `Mutator` cleared at every safe point, keeps a
//! test per access and puts on every safe point a duty to remember.

use super::*;
use crate::object::{load_header, store_field};
use std::ops::{Deref, DerefMut};

/// An evaluation stack pinned for an interpreter (See Note [Pinned
/// frames]). Slots are named as `Mutator`'s `stack_*` operations name
/// them: by index from the bottom.
pub struct Frame<'f, 'rt> {
    m: &'f mut Mutator<'rt>,
    st: Handle,
    /// The STACK object.
    stack: *mut Word,
    /// The address of slot 0; the depth is the word below it.
    slots: *mut Word,
    /// Stores need no barrier (See Note [Pinned frames]).
    plain: bool,
    /// The mutator's object layout, kept here: one load where the
    /// mutator's own field is two.
    layout: Layout,
}

/// The mutator, lent by a frame; the frame pins its stack again when
/// this is dropped (See Note [Pinned frames]). The stack's handle must
/// stay rooted and name the stack meanwhile.
pub struct LentMutator<'a, 'f, 'rt> {
    frame: &'a mut Frame<'f, 'rt>,
}

impl<'rt> Deref for LentMutator<'_, '_, 'rt> {
    type Target = Mutator<'rt>;
    fn deref(&self) -> &Mutator<'rt> {
        self.frame.m
    }
}

impl<'rt> DerefMut for LentMutator<'_, '_, 'rt> {
    fn deref_mut(&mut self) -> &mut Mutator<'rt> {
        self.frame.m
    }
}

impl Drop for LentMutator<'_, '_, '_> {
    fn drop(&mut self) {
        self.frame.pin();
    }
}

impl<'rt> Mutator<'rt> {
    /// Pin the evaluation stack `st` (See Note [Pinned frames]).
    #[inline(always)]
    pub fn frame(&mut self, st: Handle) -> Frame<'_, 'rt> {
        let layout = self.layout;
        let mut f = Frame { m: self, st, stack: std::ptr::null_mut(), slots: std::ptr::null_mut(), plain: false, layout };
        f.pin();
        f
    }
}

impl<'f, 'rt> Frame<'f, 'rt> {
    /// Resolve the stack again and judge whether its stores are plain.
    #[inline(always)]
    fn pin(&mut self) {
        let p = self.m.stack_obj(self.st);
        self.stack = p;
        // SAFETY: a stack keeps its capacity and depth before its slots.
        self.slots = unsafe { self.layout.payload(p).add(2) };
        self.plain = self.judge_plain();
    }

    /// May a store skip the barrier? (See Note [Pinned frames].)
    #[inline(always)]
    fn judge_plain(&self) -> bool {
        // SAFETY: `stack` is a live object, whose header may be read.
        let header = unsafe { load_header(self.stack) };
        assert!(header == STACK_DIRTY_INFO.header() || header == STACK_CLEAN_INFO.header(), "a frame's handle names a stack");
        header == STACK_DIRTY_INFO.header() && !barrier::records_stack_stores(self.m.cap()) && !self.m.access.installed()
    }

    /// The mutator, for anything but the stack; the stack is pinned again
    /// when the guard is dropped.
    #[inline(always)]
    pub fn mutator(&mut self) -> LentMutator<'_, 'f, 'rt> {
        LentMutator { frame: self }
    }

    /// Pop the handles pushed since `h` (`Mutator::truncate` to `h`):
    /// nothing moves, so the stack stays pinned, where a loan of the
    /// mutator would pin it again. The stack's own handle stays.
    #[inline(always)]
    pub fn truncate_roots(&mut self, h: Handle) {
        assert!(h.index() > self.st.index(), "popping the frame's own stack handle");
        self.m.truncate(h.index());
    }

    /// Live slots.
    #[inline(always)]
    pub fn depth(&self) -> usize {
        // SAFETY: the word below slot 0 is the depth (See `pin`).
        unsafe { *self.slots.sub(1) }
    }

    #[inline(always)]
    fn capacity(&self) -> usize {
        // SAFETY: two words below slot 0 is the capacity.
        unsafe { *self.slots.sub(2) }
    }

    #[inline(always)]
    fn set_depth(&mut self, depth: usize) {
        debug_assert!(depth <= self.capacity());
        // SAFETY: as `depth`.
        unsafe { *self.slots.sub(1) = depth }
    }

    /// The address of slot `i`, live in a stack of depth `depth`: an
    /// operation on several slots reads the depth once. (Measured with
    /// cachegrind: selector_leak 0.992x the instructions, lalr 0.997x,
    /// binary_trees 1.003x, within what the inlining moves by itself.)
    #[inline(always)]
    fn addr_below(&self, i: usize, depth: usize) -> *mut Word {
        debug_assert_eq!(depth, self.depth());
        if i >= depth {
            misuse::slot_not_live(i, depth);
        }
        // SAFETY: `i` is below the depth, so inside the object.
        unsafe { self.slots.add(i) }
    }

    /// The word in slot `i` as it is, indirections left for their reader
    /// (See Note [Evaluation stacks]), but shown to the read hook: a
    /// value moved between slots and fields is loaded as any other, so a
    /// concurrent copier's to-space invariant holds for it (See Note
    /// [Access hooks]).
    #[inline(always)]
    fn raw(&self, i: usize) -> Word {
        self.raw_below(i, self.depth())
    }

    /// `raw`, the stack's depth being `depth`.
    #[inline(always)]
    fn raw_below(&self, i: usize, depth: usize) -> Word {
        // SAFETY: `addr_below` checked the slot is live.
        self.m.access.on_read(unsafe { *self.addr_below(i, depth) })
    }

    /// The object in slot `i`, through indirections.
    #[inline(always)]
    fn value(&self, i: usize) -> *mut Word {
        deref_ind(self.raw(i), self.layout, self.m.access) as *mut Word
    }

    /// Store `v` (an object address) into live slot `i`.
    #[inline(always)]
    fn store(&mut self, i: usize, v: Word) {
        self.store_below(i, self.depth(), v);
    }

    /// `store`, the stack's depth being `depth`.
    #[inline(always)]
    fn store_below(&mut self, i: usize, depth: usize, v: Word) {
        let a = self.addr_below(i, depth);
        if self.plain {
            // SAFETY: a live slot; a plain store needs no barrier.
            unsafe { store_field(a, v) };
        } else {
            self.store_through_barrier(i, v);
        }
    }

    #[inline(never)]
    fn store_through_barrier(&mut self, i: usize, v: Word) {
        let (stack, layout) = (self.stack, self.layout);
        self.m.access.before_write(stack);
        // SAFETY: slot `i` is live (the caller checked) and `v` a valid object address.
        unsafe { barrier::write_stack(self.m.cap_mut(), layout, stack, i, v) };
        self.plain = self.judge_plain();
    }

    /// Make room for `n` more slots, growing the stack if it is full.
    #[inline(always)]
    fn room(&mut self, n: usize) -> Result<(), StackOverflow> {
        let needed = self.depth() + n;
        if needed <= self.capacity() {
            return Ok(());
        }
        let r = self.m.grow_stack(self.st, needed);
        self.pin();
        r
    }

    /// Push `w` onto the stack, which has room.
    #[inline(always)]
    fn push_word(&mut self, w: Word) -> usize {
        let depth = self.depth();
        if self.plain {
            // SAFETY: the caller made room; `w` is a valid object address.
            unsafe { store_field(self.slots.add(depth), w) };
            self.set_depth(depth + 1);
            return depth;
        }
        let (stack, layout) = (self.stack, self.layout);
        self.m.access.before_write(stack);
        // SAFETY: the caller made room; `w` is a valid object address.
        let d = unsafe { barrier::push_stack(self.m.cap_mut(), layout, stack, w) };
        self.plain = self.judge_plain();
        d
    }

    /// Push the object behind handle `v`.
    #[inline(always)]
    pub fn push(&mut self, v: Handle) -> Result<usize, StackOverflow> {
        self.room(1)?;
        let w = self.m.root(v);
        Ok(self.push_word(w))
    }

    /// Push a copy of live slot `from`.
    #[inline(always)]
    pub fn push_slot(&mut self, from: usize) -> Result<usize, StackOverflow> {
        self.room(1)?;
        let w = self.raw(from);
        Ok(self.push_word(w))
    }

    /// Pop every slot at or above `base`, then push what slot `s` held
    /// (which may have been among them): an evaluator's thunk moved to
    /// the top of the frames it keeps. Its new slot.
    #[inline(always)]
    pub fn pop_and_push(&mut self, base: usize, s: usize) -> Result<usize, StackOverflow> {
        // Room first: growing the stack may move what `w` names.
        self.room(1)?;
        let w = self.raw(s);
        self.pop_to(base);
        Ok(self.push_word(w))
    }

    /// Push `n` slots, each holding the static object `fill`; returns the
    /// first one's index.
    #[inline(always)]
    pub fn reserve(&mut self, n: usize, fill: &'static StaticObject) -> Result<usize, StackOverflow> {
        self.room(n)?;
        let depth = self.depth();
        // SAFETY: `room` made room for `n` slots above the depth.
        unsafe { self.fill(depth, depth + n, fill) };
        self.set_depth(depth + n);
        Ok(depth)
    }

    /// Slots `from..to` := the static object `fill`, stored plainly: a
    /// static object is never young, so no barrier is due.
    ///
    /// # Safety
    /// The slots lie below the stack's capacity.
    #[inline(always)]
    // SAFETY: the caller's contract keeps the stores inside the stack object.
    unsafe fn fill(&mut self, from: usize, to: usize, fill: &'static StaticObject) {
        for k in from..to {
            // SAFETY: the caller's contract.
            unsafe { store_field(self.slots.add(k), fill.addr()) };
        }
    }

    /// Pop every slot at or above `depth`.
    #[inline(always)]
    pub fn pop_to(&mut self, depth: usize) {
        if depth > self.depth() {
            misuse::pop_above(depth, self.depth());
        }
        if self.plain {
            self.set_depth(depth);
            return;
        }
        let (stack, layout) = (self.stack, self.layout);
        self.m.access.before_write(stack);
        // SAFETY: `stack` is a stack whose depth is at least `depth`.
        unsafe { barrier::pop_stack(self.m.cap_mut(), layout, stack, depth) };
    }

    /// A handle to the value in slot `i`.
    #[inline(always)]
    pub fn get(&mut self, i: usize) -> Handle {
        let w = self.value(i) as Word;
        self.m.push(w)
    }

    /// Store the object behind handle `v` into slot `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, v: Handle) {
        let w = self.m.root(v);
        self.store(i, w);
    }

    /// Slot `dst` := slot `src`.
    #[inline(always)]
    pub fn copy(&mut self, dst: usize, src: usize) {
        let depth = self.depth();
        let w = self.raw_below(src, depth);
        self.store_below(dst, depth, w);
    }

    /// Slot `dst` := the static object `s`.
    #[inline(always)]
    pub fn set_static(&mut self, dst: usize, s: &'static StaticObject) {
        self.store(dst, s.addr());
    }

    /// Move the `n` slots from `from` down to `to` (`to <= from`) and pop
    /// everything above them: what a tail call does with its arguments
    /// when it drops its caller's frame.
    #[inline(always)]
    pub fn slide(&mut self, from: usize, to: usize, n: usize) {
        if to > from || from + n > self.depth() {
            misuse::bad_slide(from, to, n, self.depth());
        }
        if !self.plain {
            for k in 0..n {
                self.copy(to + k, from + k);
            }
            return self.pop_to(to + n);
        }
        for k in 0..n {
            // SAFETY: both slots are live (checked above); a plain store
            // needs no barrier.
            unsafe {
                let v = self.m.access.on_read(*self.slots.add(from + k));
                store_field(self.slots.add(to + k), v);
            }
        }
        self.set_depth(to + n);
    }

    /// Slot `dst` := pointer field `field` of the object in slot `obj`.
    #[inline(always)]
    pub fn field(&mut self, dst: usize, obj: usize, field: usize) {
        let depth = self.depth();
        let o = deref_ind(self.raw_below(obj, depth), self.layout, self.m.access) as *mut Word;
        // SAFETY: `o` is a valid object.
        let v = self.m.access.on_read(unsafe { checked_field(self.layout, o, field) });
        self.store_below(dst, depth, v);
    }

    /// The address of the pointer fields of the object in slot `obj`,
    /// which has at least `n` of them (checked with one look at its
    /// header); reading them allocates nothing, so no GC moves them.
    #[inline(always)]
    fn fields_of(&self, obj: usize, n: usize) -> *mut Word {
        let o = self.value(obj);
        // SAFETY: `o` is a valid object.
        let info = info_of_header(unsafe { *o });
        if n > info.ptrs as usize {
            misuse::no_pointer_field(info, n - 1);
        }
        self.layout.payload(o)
    }

    /// Slot `base + to[k]` := pointer field `k` of the object in slot
    /// `obj`, for each `k`: a pattern's fields bound with one look at
    /// the object's header.
    #[inline(always)]
    pub fn unpack(&mut self, obj: usize, base: usize, to: &[u32]) {
        let fields = self.fields_of(obj, to.len());
        let depth = self.depth();
        for (k, &dst) in to.iter().enumerate() {
            // SAFETY: field `k` exists (checked above). No GC can run
            // between here and the stores: nothing here allocates.
            let v = self.m.access.on_read(unsafe { *fields.add(k) });
            self.store_below(base + dst as usize, depth, v);
        }
    }

    /// Slots `dst..dst + n` := pointer fields `0..n` of the object in slot
    /// `obj`: a closure's free variables copied into its frame with one
    /// look at its header and one test of the slots' depth.
    #[inline(always)]
    pub fn fields_to(&mut self, dst: usize, obj: usize, n: usize) {
        if n == 0 {
            return;
        }
        let fields = self.fields_of(obj, n);
        let depth = self.depth();
        if dst + n > depth {
            misuse::slots_not_live(dst, dst + n, depth);
        }
        for k in 0..n {
            // SAFETY: field `k` exists (checked above). No GC can run
            // between here and the stores: nothing here allocates.
            let v = self.m.access.on_read(unsafe { *fields.add(k) });
            if self.plain {
                // SAFETY: slot `dst + k` is live (checked above); a plain
                // store needs no barrier.
                unsafe { store_field(self.slots.add(dst + k), v) };
            } else {
                self.store_through_barrier(dst + k, v);
            }
        }
    }

    /// The info table of the object in slot `i`, through indirections.
    #[inline(always)]
    pub fn info(&self, i: usize) -> &'static InfoTable {
        // SAFETY: a live slot holds a valid object address.
        info_of_header(unsafe { *self.value(i) })
    }

    /// Non-pointer word `w` (after the pointer fields) of the object in
    /// slot `i`.
    #[inline(always)]
    pub fn word(&self, i: usize, w: usize) -> Word {
        let o = self.value(i);
        // SAFETY: `o` is a valid object.
        unsafe { checked_word(self.layout, o, w) }
    }

    /// The info table of the object in slot `i` and its first
    /// non-pointer word, if it has one: a boxed number read with one
    /// look at its header.
    #[inline(always)]
    pub fn info_and_word(&self, i: usize) -> (&'static InfoTable, Option<Word>) {
        // SAFETY: a live slot's object is valid.
        unsafe { info_and_first_word(self.layout, self.value(i)) }
    }

    /// `info_and_word` of the object that pointer field `field` of the
    /// object in slot `obj` leads to, through indirections: a closure's
    /// boxed free variable read without a slot to hold it.
    #[inline(always)]
    pub fn field_info_and_word(&self, obj: usize, field: usize) -> (&'static InfoTable, Option<Word>) {
        let o = self.value(obj);
        // SAFETY: `o` is a valid object; its field (checked against its
        // info) holds a valid object address.
        let v = self.m.access.on_read(unsafe { checked_field(self.layout, o, field) });
        // SAFETY: the field's object, through indirections, is valid.
        unsafe { info_and_first_word(self.layout, deref_ind(v, self.layout, self.m.access) as *mut Word) }
    }

    /// Do slots `a` and `b` hold the same object?
    #[inline(always)]
    pub fn same(&self, a: usize, b: usize) -> bool {
        self.value(a) == self.value(b)
    }

    /// Allocate an object of `info` (fixed layout) whose pointer fields
    /// are the values in slots `ptr_slots` and whose words are `words`,
    /// and store it into slot `dst` (`dst` equal to the depth pushes it).
    #[inline(always)]
    pub fn alloc(&mut self, dst: usize, info: &'static InfoTable, ptr_slots: &[usize], words: &[Word]) -> Result<(), StackOverflow> {
        self.alloc_with(dst, info, ptr_slots.len(), |k| ptr_slots[k], words)
    }

    /// As `alloc`, pointer field `k` taken from slot `slot(k)` for each of
    /// the `ptrs` fields: an interpreter names the slots as it reads its
    /// instruction, with no list of them built first.
    #[inline(always)]
    pub fn alloc_with(&mut self, dst: usize, info: &'static InfoTable, ptrs: usize, slot: impl Fn(usize) -> usize, words: &[Word]) -> Result<(), StackOverflow> {
        if ptrs != info.ptrs as usize || words.len() != info.nptrs as usize {
            misuse::wrong_fields(info);
        }
        if dst == self.depth() {
            self.reserve(1, &NULL_OBJECT)?;
        }
        let layout = self.layout;
        let size = layout.fixed_size(info);
        let p = match self.m.bump(size) {
            Some(p) => p,
            None => {
                let p = self.m.alloc_slow(size);
                self.pin(); // the slow path may have run a GC
                p
            }
        };
        self.m.init_header(p, info);
        let payload = layout.payload(p);
        let depth = self.depth();
        for k in 0..ptrs {
            let v = self.raw_below(slot(k), depth);
            // SAFETY: the new object has room for its payload.
            unsafe { *payload.add(k) = v };
        }
        // SAFETY: as above.
        unsafe {
            for (j, w) in words.iter().enumerate() {
                *payload.add(ptrs + j) = *w;
            }
            if ptrs == 0 && words.is_empty() && info.payload_words() > 0 {
                *payload = 0; // a thunk's reserved indirectee word
            }
        }
        self.store_below(dst, depth, p as Word);
        if self.m.sample_pending {
            let h = self.get(dst);
            self.m.report_sample(h);
            self.m.truncate(h.index());
            self.pin();
        }
        Ok(())
    }

    /// Write the value in slot `value` into pointer field `field` of the
    /// object in slot `obj`, through the barrier (a letrec tying its
    /// knot into objects it has just made).
    pub fn set_field(&mut self, obj: usize, field: usize, value: usize) {
        let o = self.value(obj);
        let v = self.raw(value);
        self.m.access.before_write(o);
        // SAFETY: `o` is a valid object; `field` is checked against its info.
        unsafe {
            let info = info_of_header(*o);
            if field >= info.ptrs as usize || !info.closure_type.has_fixed_layout() {
                misuse::no_pointer_field(info, field);
            }
            let slot = self.layout.payload(o).add(field);
            let layout = self.layout;
            barrier::write_field(self.m.cap_mut(), layout, o, slot, v);
        }
    }

    /// Black-hole the thunk in slot `thunk` (See `barrier::blackhole`);
    /// `blackhole` must be a black hole of its payload size.
    #[inline(always)]
    pub fn blackhole(&mut self, thunk: usize, blackhole: &'static InfoTable) {
        let p = self.value(thunk);
        self.m.access.before_write(p);
        // SAFETY: checked to be a thunk below; the table has its size.
        unsafe {
            let info = info_of_header(load_header(p));
            if !matches!(info.closure_type, ClosureType::Thunk | ClosureType::Selector) {
                misuse::not_a_thunk(info);
            }
            if info.payload_words().max(1) != blackhole.payload_words() {
                misuse::wrong_blackhole(info, blackhole.payload_words());
            }
            let layout = self.layout;
            barrier::blackhole(self.m.cap_mut(), layout, p, blackhole);
        }
    }

    // Note [Entering a thunk in one step]
    // ----------------------------------------
    // An evaluator entering a thunk pops what its continuations no longer
    // keep, pushes the thunk (its update continuation names that slot),
    // opens the frame of the thunk's code with the thunk's free variables
    // in its first slots and nothing in the rest, and black-holes the
    // thunk. As four operations (`pop_and_push`, `reserve`, `fields_to`,
    // `blackhole`), each tested the stack's room or depth, and three read
    // the thunk's header and info table. `enter_thunk` makes one test of
    // the room and one look at the header where stores are plain, and
    // takes the four steps, each through the barrier, where they are not.
    // Measured with cachegrind: selector_leak 200,000 (three thunks entered
    // an element) 703.5M to 695.4M instructions, lalr 10 509.8M to 502.6M,
    // binary_trees 12 2,519.8M to 2,496.4M.

    /// Enter the thunk in slot `s` as an evaluator does (See Note
    /// [Entering a thunk in one step]): pop every slot at or above
    /// `base`, push the thunk there, open a frame of `frame` slots above
    /// it whose first `free` hold the thunk's first `free` pointer fields
    /// (its free variables) and the rest nothing, and black-hole the
    /// thunk with `blackhole`, a black hole of its payload size. Returns
    /// the thunk's slot (`base`); the frame begins one above it.
    #[inline(always)]
    pub fn enter_thunk(&mut self, base: usize, s: usize, free: usize, frame: usize, blackhole: &'static InfoTable) -> Result<usize, StackOverflow> {
        let depth = self.depth();
        if base > depth {
            misuse::pop_above(base, depth);
        }
        if free > frame {
            misuse::frame_smaller_than_free(frame, free);
        }
        let top = base + 1 + frame;
        // Room first: growing the stack may move the thunk.
        self.room(top.saturating_sub(depth))?;
        if !self.plain {
            return self.enter_thunk_by_steps(base, s, free, frame, blackhole);
        }
        let p = self.value(s);
        // SAFETY: `p` is a valid object, checked below to be a thunk with
        // at least `free` pointer fields, of `blackhole`'s size. Slots
        // `base..top` lie below the capacity (made room for above; `free`
        // of them at most, checked), and a
        // plain store needs no barrier; the thunk's own stores go through
        // `barrier::blackhole`.
        unsafe {
            let info = info_of_header(load_header(p));
            if info.closure_type != ClosureType::Thunk {
                misuse::not_a_thunk(info);
            }
            if free > info.ptrs as usize {
                misuse::no_pointer_field(info, free - 1);
            }
            if info.payload_words().max(1) != blackhole.payload_words() {
                misuse::wrong_blackhole(info, blackhole.payload_words());
            }
            let fields = self.layout.payload(p);
            store_field(self.slots.add(base), p as Word);
            for k in 0..free {
                store_field(self.slots.add(base + 1 + k), self.m.access.on_read(*fields.add(k)));
            }
            self.fill(base + 1 + free, top, &NULL_OBJECT);
            self.set_depth(top);
            self.m.access.before_write(p);
            let layout = self.layout;
            barrier::blackhole(self.m.cap_mut(), layout, p, blackhole);
        }
        Ok(base)
    }

    /// `enter_thunk` step by step, each store through the barrier.
    #[inline(never)]
    fn enter_thunk_by_steps(&mut self, base: usize, s: usize, free: usize, frame: usize, blackhole: &'static InfoTable) -> Result<usize, StackOverflow> {
        let t = self.pop_and_push(base, s)?;
        let fp = self.reserve(frame, &NULL_OBJECT)?;
        self.fields_to(fp, t, free);
        self.blackhole(t, blackhole);
        Ok(t)
    }

    /// Update the thunk (or black hole) in slot `thunk` with the value in
    /// slot `value`: it becomes an indirection (See `barrier::update_thunk`).
    #[inline(always)]
    pub fn update(&mut self, thunk: usize, value: usize) {
        let depth = self.depth();
        let p = deref_ind(self.raw_below(thunk, depth), self.layout, self.m.access) as *mut Word;
        let v = self.raw_below(value, depth);
        self.m.access.before_write(p);
        // SAFETY: checked to be a thunk of some kind; its size from its info.
        unsafe {
            let info = info_of_header(load_header(p));
            if !info.closure_type.is_thunk() {
                misuse::not_a_thunk(info);
            }
            let size = self.layout.fixed_size(info);
            let layout = self.layout;
            barrier::update_thunk(self.m.cap_mut(), layout, p, size, v);
        }
    }
}

/// The info table of the object at `o` and its first non-pointer word,
/// if it has one.
///
/// # Safety
/// `o` is a valid object.
#[inline(always)]
// SAFETY: the word is read only if the object's info says it has one.
unsafe fn info_and_first_word(layout: Layout, o: *mut Word) -> (&'static InfoTable, Option<Word>) {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { *o });
    // SAFETY: the object has `nptrs` words after its `ptrs` pointer fields.
    let w = (info.nptrs > 0).then(|| unsafe { *layout.payload(o).add(info.ptrs as usize) });
    (info, w)
}
