//! Stable pointers: global roots a mutator makes, reads and frees.

use super::*;

impl Mutator<'_> {
    /// Make `h`'s object a global root until freed.
    pub fn new_stable_ptr(&mut self, h: Handle) -> StablePtr {
        let p = self.obj(h) as Word;
        self.rt.stable_ptrs().insert(p)
    }

    /// The object behind a stable pointer.
    pub fn deref_stable_ptr(&mut self, sp: StablePtr) -> Handle {
        let p = self.rt.stable_ptrs().get(sp);
        self.push(p)
    }

    /// Free a stable pointer.
    pub fn free_stable_ptr(&mut self, sp: StablePtr) {
        self.rt.stable_ptrs().free(sp);
    }

}
