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
//! runtime is made; each mutator copies them. What a hook costs is then an
//! `Option` test and, when set, a call through a function pointer on every
//! load, which production runtimes avoid by compiling the barrier in. So
//! the test and the call exist only in builds with the cargo feature
//! `access-hooks` of gclab-core (the workspace's tests turn it on through
//! the root crate's dev-dependencies; `cargo build --release` leaves it
//! off): the issue that asked for the hooks allowed a build-time choice
//! and ruled out a virtual call on every load in every build. The
//! alternative, a type parameter on `Mutator` for the hooks, would carry
//! the choice into every workload's and the interpreter's signatures.

use crate::constants::Word;

/// A read barrier: given a reference a mutator has just loaded (with
/// indirections followed), the reference it must use instead (the same,
/// or a to-space copy).
pub type ReadHook = fn(Word) -> Word;

/// A pre-write hook: called with an object before a mutator writes any
/// word of it.
pub type PreWriteHook = fn(*mut Word);

/// The hooks a collector asks for (See Note [Access hooks]).
#[derive(Debug, Clone, Copy, Default)]
pub struct AccessHooks {
    /// On every reference load.
    pub read: Option<ReadHook>,
    /// Before every write of an object.
    pub pre_write: Option<PreWriteHook>,
}

/// The hooks as a mutator carries them: the collector's, with the
/// `access-hooks` feature; nothing without it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Installed {
    #[cfg(feature = "access-hooks")]
    hooks: AccessHooks,
}

impl Installed {
    /// Install `hooks` (ignored without the `access-hooks` feature).
    pub fn new(hooks: AccessHooks) -> Installed {
        #[cfg(not(feature = "access-hooks"))]
        let _ = hooks;
        Installed {
            #[cfg(feature = "access-hooks")]
            hooks,
        }
    }

    /// Are hooks compiled into this build?
    pub const fn compiled_in() -> bool {
        cfg!(feature = "access-hooks")
    }

    /// The reference to use for `p`, just loaded.
    #[inline(always)]
    pub fn on_read(self, p: Word) -> Word {
        #[cfg(feature = "access-hooks")]
        if let Some(read) = self.hooks.read {
            return read(p);
        }
        p
    }

    /// A mutator is about to write the object at `obj`.
    #[inline(always)]
    pub fn before_write(self, obj: *mut Word) {
        #[cfg(feature = "access-hooks")]
        if let Some(pre_write) = self.hooks.pre_write {
            pre_write(obj);
        }
        #[cfg(not(feature = "access-hooks"))]
        let _ = obj;
    }
}
