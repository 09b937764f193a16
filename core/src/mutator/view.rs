//! Read-only views of the heap: `HeapView` borrows the mutator, so no
//! allocation (hence no GC) can happen while an `ObjRef` lives.

use super::*;


/// A read-only view of the heap: no allocation can happen while it lives.
pub struct HeapView<'m> {
    pub(super) roots: &'m [Word],
    pub(super) layout: Layout,
    pub(super) access: Installed,
}

/// An object reached through a `HeapView`; valid while the view is.
#[derive(Clone, Copy)]
pub struct ObjRef<'m> {
    p: *const Word,
    layout: Layout,
    access: Installed,
    _view: PhantomData<&'m ()>,
}

impl<'m> HeapView<'m> {
    /// The object behind a handle.
    #[inline(always)]
    pub fn get(&self, h: Handle) -> ObjRef<'m> {
        ObjRef { p: deref_ind(self.roots[h.0 as usize], self.layout, self.access) as *const Word, layout: self.layout, access: self.access, _view: PhantomData }
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
        let info = self.info();
        if i >= info.ptrs as usize {
            super::misuse::no_pointer_field(info, i);
        }
        // SAFETY: checked just above.
        unsafe { self.field_unchecked(i) }
    }

    /// Its first `N` pointer fields, through indirections: `field(0)`
    /// .. `field(N - 1)` with one test that it has them, which a traversal
    /// that visits every field (`check` in binary-trees) pays once per
    /// object instead of once per field.
    #[inline(always)]
    pub fn fields<const N: usize>(self) -> [ObjRef<'m>; N] {
        let info = self.info();
        if N > info.ptrs as usize {
            super::misuse::fewer_pointer_fields(info, N);
        }
        // SAFETY: every i < N is below its pointer-field count, checked above.
        std::array::from_fn(|i| unsafe { self.field_unchecked(i) })
    }

    /// Pointer field `i`, through indirections, untested.
    ///
    /// # Safety
    /// `i` is below its info table's pointer-field count.
    #[inline(always)]
    // SAFETY: the caller's contract above.
    unsafe fn field_unchecked(self, i: usize) -> ObjRef<'m> {
        // SAFETY: field `i` is inside the object (the caller's contract).
        let v = unsafe { *self.p.add(self.layout.hdr + i) };
        ObjRef { p: deref_ind(v, self.layout, self.access) as *const Word, layout: self.layout, access: self.access, _view: PhantomData }
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
    #[inline]
    pub fn array_len(self) -> usize {
        assert!(self.info().closure_type.is_pointer_array());
        // SAFETY: arrays keep their length first.
        unsafe { *self.p.add(self.layout.hdr) }
    }

    /// Element `i` of a pointer array.
    #[inline]
    pub fn array_get(self, i: usize) -> ObjRef<'m> {
        let n = self.array_len();
        assert!(i < n);
        // SAFETY: `i < n`.
        let v = unsafe { *self.p.add(self.layout.hdr + 1 + i) };
        ObjRef { p: deref_ind(v, self.layout, self.access) as *const Word, layout: self.layout, access: self.access, _view: PhantomData }
    }

    /// Word `i` of a byte array.
    #[inline]
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
    #[inline]
    pub fn addr(self) -> usize {
        self.p as usize
    }

    /// Same object?
    #[inline]
    pub fn same(self, other: ObjRef<'_>) -> bool {
        self.p == other.p
    }
}

