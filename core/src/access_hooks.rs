//! Read and write hooks: what a collector may put on the mutators' loads
//! of references and in front of their stores, compiled in only where it
//! is asked for. See Note [Access hooks].
//!
//! Invariant kept: without the `access-hooks` feature, `Installed` has no
//! fields and its methods are the identity, so a build that does not ask
//! for hooks has no trace of them on any load or store.
//!
//! Note [Access hooks]
//! ----------------------------------------
//! A concurrent copying collector (Baker, Brooks, Shenandoah, ZGC) must
//! see every reference a mutator loads, to hand it the to-space copy, and
//! every object a mutator is about to write, to finish copying it first.
//! Every load of a reference by a mutator in gclab goes through one
//! function, `deref_ind` in `mutator` (fields, mutable variables, array
//! elements, stack slots, roots, `HeapView`/`ObjRef`, weak pointers'
//! values through the root they are pushed on), and every store through
//! the `Mutator` methods that call `barrier`, and `byte_array_write`. So
//! the hooks sit there: `Installed::on_read` after indirections are
//! followed, `Installed::before_write` before any word of an object is
//! written, pointer fields, headers and bytes alike.
//!
//! A collector names its hooks (`Collector::access_hooks`), once, when the
//! runtime is made: an `AccessBarrier`, an object of its own that carries
//! whatever state the hooks consult (a concurrent copier's from-space and
//! the to-space its mutators copy into), shared with the collector. The
//! runtime holds it for its life and each mutator copies a pointer to it.
//! What a hook costs is then an `Option` test and, when set, a call
//! through the barrier's vtable on every load, which production runtimes avoid by compiling the barrier in. So
//! the test and the call exist only in builds with the cargo feature
//! `access-hooks` of gclab-core (the workspace's tests turn it on through
//! the root crate's dev-dependencies; `cargo build --release` leaves it
//! off): the issue that asked for the hooks allowed a build-time choice
//! and ruled out a virtual call on every load in every build. The
//! alternative, a type parameter on `Mutator` for the hooks, would carry
//! the choice into every workload's and the interpreter's signatures.

use crate::constants::Word;
use std::sync::Arc;

/// A collector's barrier on the mutators' loads and stores (See Note
/// [Access hooks]). It is shared by every mutator of a run and called from
/// their threads at once, so whatever state it consults (a from-space's
/// bounds, a to-space to copy into) is its own, behind `&self`.
pub trait AccessBarrier: Send + Sync {
    /// A read barrier: given a reference a mutator has just loaded (with
    /// indirections followed), the reference it must use instead (the
    /// same, or a to-space copy).
    fn on_read(&self, p: Word) -> Word {
        p
    }

    /// A pre-write hook: called with an object before a mutator writes
    /// any word of it.
    fn before_write(&self, _obj: *mut Word) {}
}

/// The barrier a collector asks for, if any (See Note [Access hooks]).
#[derive(Clone, Default)]
pub struct AccessHooks {
    barrier: Option<Arc<dyn AccessBarrier>>,
}

impl AccessHooks {
    /// The hooks of `barrier`.
    pub fn new(barrier: Arc<dyn AccessBarrier>) -> AccessHooks {
        AccessHooks { barrier: Some(barrier) }
    }

    /// Does the collector ask for a barrier?
    pub fn is_set(&self) -> bool {
        self.barrier.is_some()
    }
}

impl std::fmt::Debug for AccessHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessHooks").field("set", &self.is_set()).finish()
    }
}

/// The hooks as a mutator carries them: a pointer to the collector's
/// barrier, with the `access-hooks` feature; nothing without it. The
/// runtime keeps the `AccessHooks` it was made from for as long as any
/// mutator runs (See `Installed::new`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Installed {
    #[cfg(feature = "access-hooks")]
    barrier: Option<std::ptr::NonNull<dyn AccessBarrier>>,
}

// SAFETY: the barrier behind the pointer is `Send + Sync` and outlives
// every copy (the contract of `Installed::new`).
unsafe impl Send for Installed {}
// SAFETY: as above.
unsafe impl Sync for Installed {}

impl Installed {
    /// Install `hooks` (ignored without the `access-hooks` feature).
    ///
    /// # Safety
    /// `hooks` outlives every copy of the result: the runtime holds them
    /// for its whole life, and its mutators borrow the runtime.
    // SAFETY: only takes a pointer; the caller's contract keeps it valid.
    pub unsafe fn new(hooks: &AccessHooks) -> Installed {
        #[cfg(not(feature = "access-hooks"))]
        let _ = hooks;
        Installed {
            #[cfg(feature = "access-hooks")]
            barrier: hooks.barrier.as_ref().map(|b| std::ptr::NonNull::from(&**b)),
        }
    }

    /// Are hooks compiled into this build?
    pub const fn compiled_in() -> bool {
        cfg!(feature = "access-hooks")
    }

    /// Is a collector's barrier installed (always false without the
    /// feature)?
    #[inline(always)]
    pub fn installed(self) -> bool {
        #[cfg(feature = "access-hooks")]
        return self.barrier.is_some();
        #[cfg(not(feature = "access-hooks"))]
        return false;
    }

    /// The reference to use for `p`, just loaded.
    #[inline(always)]
    pub fn on_read(self, p: Word) -> Word {
        #[cfg(feature = "access-hooks")]
        if let Some(barrier) = self.barrier {
            // SAFETY: the contract of `Installed::new`.
            return unsafe { barrier.as_ref() }.on_read(p);
        }
        p
    }

    /// A mutator is about to write the object at `obj`.
    #[inline(always)]
    pub fn before_write(self, obj: *mut Word) {
        #[cfg(feature = "access-hooks")]
        if let Some(barrier) = self.barrier {
            // SAFETY: the contract of `Installed::new`.
            unsafe { barrier.as_ref() }.before_write(obj);
        }
        #[cfg(not(feature = "access-hooks"))]
        let _ = obj;
    }
}
