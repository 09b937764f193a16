//! Objects: constructing them, reading and writing their fields (through
//! the write barrier), thunks, mutable variables and arrays.

use super::*;

impl Mutator<'_> {
    #[inline(always)]
    pub(crate) fn init_header(&self, p: *mut Word, info: &'static InfoTable) {
        // SAFETY: `p` was just allocated with at least `hdr` words.
        unsafe {
            *p = info.header();
            if self.layout.profiling() {
                *p.add(1) = self.cap().current_ccs as Word;
                let flip = self.rt.heap_ref().traversal_flip.load(std::sync::atomic::Ordering::Relaxed);
                *p.add(2) = (flip as Word) << 63;
            }
        }
    }

    /// Allocate a constructor, function or thunk of `info`, with pointer
    /// fields from `ptrs` and non-pointer words `words`.
    #[inline(always)]
    pub fn alloc(&mut self, info: &'static InfoTable, ptrs: &[Handle], words: &[Word]) -> Handle {
        let p = self.new_object(info, ptrs, words);
        self.finish(p)
    }

    /// `alloc`, then `ret(depth, ..)` of the new object, in one step: the
    /// frame that began at `depth` is popped and the object is the one
    /// handle left in its place. A function that builds its result last
    /// (`make` in binary-trees) saves a push and a copy per object (4.4% of
    /// binary-trees' mutator instructions), and the object takes the
    /// frame's first slot without `push`'s capacity test (`replace_frame`:
    /// 3.2% more).
    #[inline(always)]
    pub fn alloc_ret(&mut self, depth: usize, info: &'static InfoTable, ptrs: &[Handle], words: &[Word]) -> Handle {
        let p = self.new_object(info, ptrs, words);
        let h = self.replace_frame(depth, p as Word);
        self.report_sample(h)
    }

    /// `alloc`, then `set(dst, ..)` of the new object, in one step: the
    /// object takes `dst`'s slot rather than a new one, as when a list is
    /// built onto the handle that holds it (`ptrs` may name `dst`: the
    /// fields are read before the slot is overwritten).
    #[inline(always)]
    pub fn alloc_into(&mut self, dst: Handle, info: &'static InfoTable, ptrs: &[Handle], words: &[Word]) {
        let p = self.new_object(info, ptrs, words);
        self.put(dst, p as Word);
        self.report_sample(dst);
    }

    /// A new, initialised object of `info`, not yet rooted: the caller
    /// roots it before anything can allocate.
    #[inline(always)]
    fn new_object(&mut self, info: &'static InfoTable, ptrs: &[Handle], words: &[Word]) -> *mut Word {
        debug_assert!(info.closure_type.has_fixed_layout());
        if ptrs.len() != info.ptrs as usize || words.len() != info.nptrs as usize {
            misuse::wrong_fields(info);
        }
        let layout = self.layout;
        let p = self.alloc_words(layout.fixed_size(info));
        // Everything the stores below need is read before them: the
        // compiler cannot prove that a store into the new object misses
        // the mutator and its capability, so it would read them again
        // after each. The roots as a slice, not the Vec, and the layout
        // as a copy: 3.2% and 0.9% fewer mutator instructions on
        // binary-trees 14 (`scripts/ab --instructions`).
        let roots: &[Word] = self.cap().roots.as_slice();
        self.init_header(p, info);
        let payload = layout.payload(p);
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
        p
    }

    /// Pointer field `i` of the object behind `h`.
    #[inline(always)]
    pub fn field(&mut self, h: Handle, i: usize) -> Handle {
        let v = self.field_value(h, i);
        self.push(v)
    }

    /// Make `h` refer to pointer field `i` of the object it refers to: a
    /// step along a list or down a tree that reuses the handle, where
    /// `field` then `set` would root the field in a new slot first.
    #[inline(always)]
    pub fn follow(&mut self, h: Handle, i: usize) {
        let v = self.field_value(h, i);
        self.put(h, v);
    }

    /// The object pointer field `i` of the object behind `h` refers to,
    /// through any indirections.
    #[inline(always)]
    fn field_value(&self, h: Handle, i: usize) -> Word {
        let p = self.obj(h);
        // SAFETY: `p` is a valid object.
        let v = unsafe { checked_field(self.layout, p, i) };
        deref_ind(v, self.layout, self.access)
    }

    /// Non-pointer word `i` (counted after the pointer fields) of `h`.
    #[inline(always)]
    pub fn word(&self, h: Handle, i: usize) -> Word {
        let p = self.obj(h);
        // SAFETY: `p` is a valid object.
        unsafe { checked_word(self.layout, p, i) }
    }

    // ---------------------------------------------------------------
    // Thunks

    /// Has the thunk behind `h` been evaluated? (False for non-thunks too.)
    #[inline]
    pub fn is_evaluated_thunk(&self, h: Handle) -> bool {
        // SAFETY: the root is a valid object address.
        let info = info_of_header(unsafe { *(self.root(h) as *const Word) });
        info.closure_type == ClosureType::Ind
    }

    // ---------------------------------------------------------------
    // Mutable variables

    /// A new mutable variable holding `v`.
    #[inline]
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
    #[inline]
    pub fn read_mut_var(&mut self, r: Handle) -> Handle {
        let p = self.obj(r);
        self.expect_type(p, ClosureType::is_mutable, "a mutable variable");
        // SAFETY: a MUT_VAR has one payload word.
        let v = unsafe { *self.layout.payload(p) };
        self.push(deref_ind(v, self.layout, self.access))
    }

    /// Store `v` into a mutable variable (with the write barrier).
    #[inline]
    pub fn write_mut_var(&mut self, r: Handle, v: Handle) {
        let p = self.obj(r);
        self.expect_type(p, |t| matches!(t, ClosureType::MutVarClean | ClosureType::MutVarDirty), "a mutable variable");
        let value = self.root(v);
        let layout = self.layout;
        self.access.before_write(p);
        // SAFETY: `p` is a MUT_VAR and `value` a valid object.
        unsafe { barrier::write_mut_var(self.cap_mut(), layout, p, value) };
    }

    pub(crate) fn expect_type(&self, p: *mut Word, ok: impl Fn(ClosureType) -> bool, what: &str) {
        // SAFETY: `p` is a valid object.
        let info = info_of_header(unsafe { *p });
        if !ok(info.closure_type) {
            misuse::wrong_type(what, info);
        }
    }

    // ---------------------------------------------------------------
    // Arrays

    /// Room for an array object of `size` words (None: too big for any
    /// heap, a heap exhaustion: See Note [Sizes a program asks for] in
    /// `object`).
    pub(crate) fn alloc_array_object(&mut self, size: Option<usize>) -> *mut Word {
        let Some(size) = size else { self.too_big() };
        if size >= LARGE_OBJECT_WORDS {
            // Through the slow path's safe point and GC hooks, as any
            // allocation that leaves the fast path: a program allocating
            // only large arrays between GCs must still serve a concurrent
            // collector's syncs (See Note [Concurrent phases] in
            // `collector`).
            self.alloc_slow(size)
        } else {
            self.alloc_words(size)
        }
    }

    /// A new mutable array of `n` elements, each `init`.
    #[inline]
    pub fn new_array(&mut self, n: usize, init: Handle) -> Handle {
        let p = self.alloc_array_object(self.layout.new_array_size(n));
        self.init_header(p, &MUT_ARR_CLEAN_INFO);
        let v = self.root(init);
        let payload = self.layout.payload(p);
        // SAFETY: the array object has `array_size(n)` words: length,
        // elements, cards.
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
    #[inline]
    pub fn array_len(&self, a: Handle) -> usize {
        let p = self.obj(a);
        self.expect_type(p, ClosureType::is_pointer_array, "a pointer array");
        // SAFETY: arrays keep their length in the first payload word.
        unsafe { *self.layout.payload(p) }
    }

    /// Element `i` of a pointer array. Always inlined, as `array_set` is:
    /// at `#[inline]` the compiler left both out of line in the workloads'
    /// loops (fibheaps 20000: 9.2% more mutator instructions).
    #[inline(always)]
    pub fn array_get(&mut self, a: Handle, i: usize) -> Handle {
        let n = self.array_len(a);
        if i >= n {
            misuse::index_out_of_bounds(i, n);
        }
        let p = self.obj(a);
        // SAFETY: `i < n`.
        let v = unsafe { *self.layout.payload(p).add(1 + i) };
        self.push(deref_ind(v, self.layout, self.access))
    }

    /// Store `v` at element `i` of a mutable array (write barrier and card mark).
    #[inline(always)]
    pub fn array_set(&mut self, a: Handle, i: usize, v: Handle) {
        let p = self.obj(a);
        self.expect_type(p, |t| matches!(t, ClosureType::MutArrClean | ClosureType::MutArrDirty), "a mutable array");
        // SAFETY: arrays keep their length in the first payload word.
        let n = unsafe { *self.layout.payload(p) };
        if i >= n {
            misuse::index_out_of_bounds(i, n);
        }
        let value = self.root(v);
        let layout = self.layout;
        self.access.before_write(p);
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
        let p = self.alloc_array_object(self.layout.new_byte_array_size(bytes));
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
    #[inline]
    pub fn byte_array_len(&self, b: Handle) -> usize {
        let p = self.obj(b);
        self.expect_type(p, |t| t == ClosureType::ArrWords, "a byte array");
        // SAFETY: byte arrays keep their length first.
        unsafe { *self.layout.payload(p) }
    }

    #[inline]
    fn byte_array_data(&self, b: Handle, word: usize) -> *mut Word {
        let len = self.byte_array_len(b);
        if word >= len.div_ceil(WORD_SIZE) {
            misuse::byte_word_out_of_bounds(word, len);
        }
        // SAFETY: checked against the length.
        unsafe { self.layout.payload(self.obj(b)).add(1 + word) }
    }

    /// Word `i` of a byte array's data.
    #[inline]
    pub fn byte_array_read(&self, b: Handle, i: usize) -> u64 {
        // SAFETY: bounds checked by byte_array_data.
        unsafe { *self.byte_array_data(b, i) as u64 }
    }

    /// Store word `i` of a byte array's data (no write barrier: no
    /// pointers; the collector's pre-write hook sees it).
    #[inline]
    pub fn byte_array_write(&mut self, b: Handle, i: usize, v: u64) {
        // Only a build with hooks pays for finding the object again.
        if Installed::compiled_in() {
            self.access.before_write(self.obj(b));
        }
        // SAFETY: bounds checked by byte_array_data.
        unsafe { *self.byte_array_data(b, i) = v as Word };
    }

}
