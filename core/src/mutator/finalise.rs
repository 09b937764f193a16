//! Weak pointers, finalisers and alarms: what runs on the mutator after
//! the GC that found their keys dead (or after each major GC).

use super::*;
use crate::barrier::clear_field;
use crate::lock::Lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// What waits to run on the mutators after GCs: the finalisers of weak
/// pointers (by id: a dead weak pointer carries its finaliser's id) and
/// the alarms. Shared by every mutator of a run.
#[derive(Default)]
pub struct GcHooks {
    finalizers: Lock<HashMap<u64, FinalizerKind>>,
    alarms: Lock<Vec<(u64, Option<Alarm>)>>,
    next_id: AtomicU64,
}

impl GcHooks {
    fn fresh_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Keep a finaliser until its weak pointer dies; returns its id.
    pub(crate) fn register_finalizer(&self, f: FinalizerKind) -> u64 {
        let id = self.fresh_id();
        self.finalizers.lock().insert(id, f);
        id
    }

    /// Take the finaliser with this id out, to run it.
    pub(crate) fn take_finalizer(&self, id: u64) -> Option<FinalizerKind> {
        self.finalizers.lock().remove(&id)
    }

    /// Register an alarm (run after every major GC); returns its id.
    pub(crate) fn add_alarm(&self, f: Alarm) -> u64 {
        let id = self.fresh_id();
        self.alarms.lock().push((id, Some(f)));
        id
    }

    /// Forget an alarm; a no-op for one already deleted.
    pub(crate) fn remove_alarm(&self, id: u64) {
        self.alarms.lock().retain(|(a, _)| *a != id);
    }

    /// Take alarm `index` out to run it (None past the end).
    fn take_alarm(&self, index: usize) -> Option<(u64, Option<Alarm>)> {
        let mut alarms = self.alarms.lock();
        alarms.get_mut(index).map(|(id, f)| (*id, f.take()))
    }

    /// Put a run alarm back, unless it was deleted while it ran.
    fn return_alarm(&self, id: u64, f: Alarm) {
        let mut alarms = self.alarms.lock();
        if let Some(slot) = alarms.iter_mut().find(|(a, _)| *a == id) {
            slot.1 = Some(f);
        }
    }
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


impl Mutator<'_> {
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
        let fin_id = finalizer.map(|f| self.hooks.register_finalizer(f)).unwrap_or(0);
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
            ClosureType::Weak => {
                // SAFETY: as above.
                let key = unsafe { *self.layout.payload(p).add(weak_field::KEY) };
                Some(self.push(deref_ind(key, self.layout, self.access)))
            }
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
            // weak pointers there); a sampler is per mutator.
            if self.sampler.is_some() {
                self.sampler_after_gc();
            }
            return;
        }
        self.run_finalizers();
        self.run_alarms();
        if self.sampler.is_some() {
            self.sampler_after_gc();
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
            // The finaliser gets the value; the dead weak lets go of it,
            // through the barrier: a snapshot collector must see the
            // pointers the dead weak lets go of.
            let layout = self.layout;
            self.access.before_write(p);
            let cap = self.cap_mut();
            // SAFETY: pending entries are DEAD_WEAK objects kept alive as roots.
            let (value, id) = unsafe {
                let payload = layout.payload(p);
                let taken = (*payload.add(weak_field::VALUE), *payload.add(weak_field::FINALIZER_ID) as u64);
                clear_field(cap, p, payload.add(weak_field::VALUE), NULL_OBJECT.addr());
                clear_field(cap, p, payload.add(weak_field::FINALIZER), NULL_OBJECT.addr());
                *payload.add(weak_field::FINALIZER_ID) = 0;
                taken
            };
            match self.hooks.take_finalizer(id) {
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
        let majors = self.rt.major_gcs();
        while self.seen_major_gcs < majors {
            self.seen_major_gcs += 1;
            let mut i = 0;
            while let Some((id, alarm)) = self.hooks.take_alarm(i) {
                if let Some(mut f) = alarm {
                    f(self);
                    self.hooks.return_alarm(id, f);
                }
                i += 1;
            }
        }
        self.running_alarms = false;
    }
}
