//! The runtime's side of heap profiling: cost centres, named profiling
//! roots, and the hook a heap profiler plugs into.
//!
//! Core knows nothing of censuses or traversals (they live in the
//! heap-traverse crate); it gives objects the two profiling header words
//! when profiling is on (`object::Layout`), stamps each new object with the
//! cost-centre stack its capability is running under, keeps the roots a
//! program names for root profiling (`Mutator::set_heap_roots`), and calls
//! the installed `HeapProfiler` after GCs: a census is taken right after a
//! major GC, when everything in the heap is live, and its time is counted
//! apart from GC time (GHC's `PROF` line of `-s`).

use crate::capability::Capability;
use crate::constants::Word;
use crate::heap::Heap;
use crate::info::{ClosureType, InfoTable};
use crate::object::{info_of_header, Layout};

/// What a profiler may look at during a census (the world is stopped).
///
/// Profilers reach objects only through `Obj`s this context hands out (its
/// roots, a heap walk, the fields of an object it handed out), and only
/// while the context lives, so the safe accessors below never see an
/// address that is not a live object (See Note [Profiler object access]).
pub struct ProfileContext<'a> {
    /// The heap, right after a GC.
    pub(crate) heap: &'a Heap,
    /// Every capability (root stacks).
    pub(crate) caps: &'a [Capability],
    /// Named profiling roots: (name, current address of the object).
    pub(crate) roots: &'a [(String, Word)],
    /// Cost-centre names by id (0 is `MAIN`).
    pub cost_centres: &'a [String],
    /// Seconds since the run began (the sample's time in the profile).
    pub elapsed: f64,
    /// Mutator seconds so far (what sampling intervals count).
    pub mutator: f64,
}

// Note [Profiler object access]
// ----------------------------------------
// A heap profiler walks and traverses the heap and keeps data in the
// profiling header's traversal word. Rather than give it raw addresses
// (and `unsafe`), core hands it `Obj`s, which only core can make, from
// places that hold live objects right after a GC: the named roots, the
// root stacks, a walk of every block, and the pointer fields of an `Obj`.
// Every accessor takes the context, whose lifetime is the stopped world of
// one census, so an `Obj` cannot be used after the mutator resumes.

/// An object during a census (See Note [Profiler object access]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Obj(Word);

impl Obj {
    /// The address, as an identity (it changes when the GC moves the object).
    pub fn addr(self) -> Word {
        self.0
    }
}

impl ProfileContext<'_> {
    /// The run's object layout.
    pub fn layout(&self) -> Layout {
        self.heap.layout
    }

    /// Flip the heap's traversal bit (See Note [Traversal flip bit] in
    /// heap-traverse); returns the bit's new value.
    pub fn flip_traversal_bit(&self) -> bool {
        !self.heap.traversal_flip.fetch_xor(true, std::sync::atomic::Ordering::Relaxed)
    }

    fn header(&self, o: Obj) -> Word {
        // SAFETY: an Obj is a live object while the context lives (Note
        // [Profiler object access]).
        unsafe { *(o.0 as *const Word) }
    }

    /// The named profiling roots, in the order they were set.
    pub fn named_roots(&self) -> impl Iterator<Item = (&str, Obj)> + '_ {
        self.roots.iter().map(|(n, a)| (n.as_str(), Obj(*a)))
    }

    /// Every object the mutators hold: root stacks and pending finalisers.
    pub fn mutator_roots(&self) -> Vec<Obj> {
        self.caps.iter().flat_map(|c| c.roots.iter().chain(c.pending_finalizers.iter())).map(|&a| Obj(a)).collect()
    }

    /// Its info table.
    pub fn info(&self, o: Obj) -> &'static InfoTable {
        info_of_header(self.header(o))
    }

    /// Its size in words, without the profiling words (as GHC reports).
    pub fn size(&self, o: Obj) -> usize {
        let info = self.info(o);
        // SAFETY: a live object whose header is `info`.
        unsafe { self.layout().size_of(o.0 as *const Word, info) - (self.layout().hdr - 1) }
    }

    /// The object an indirection points to, if `o` is one.
    pub fn indirectee(&self, o: Obj) -> Option<Obj> {
        if self.info(o).closure_type != ClosureType::Ind {
            return None;
        }
        // SAFETY: an IND's payload is its indirectee, a live object.
        Some(current(unsafe { *self.layout().payload(o.0 as *mut Word) }))
    }

    /// Call `f` with each object `o` points to (its traced pointer fields).
    pub fn for_each_child(&self, o: Obj, mut f: impl FnMut(Obj)) {
        let info = self.info(o);
        // SAFETY: the pointer slots of a live object hold live objects.
        unsafe {
            let (slots, n) = self.layout().pointer_slots(o.0 as *mut Word, info);
            for i in 0..n {
                f(current(*slots.add(i)));
            }
        }
    }

    /// The cost-centre stack `o` was allocated under (0 without profiling words).
    pub fn cost_centre(&self, o: Obj) -> usize {
        if !self.layout().profiling() || self.info(o).is_static() {
            return 0;
        }
        // SAFETY: with the profiling header, word 1 is the cost-centre stack.
        unsafe { *(o.0 as *const Word).add(1) }
    }

    /// The traversal word of a heap object (profiling header required).
    pub fn traversal_word(&self, o: Obj) -> Word {
        assert!(self.layout().profiling() && !self.info(o).is_static(), "traversal words need the profiling header and a heap object");
        // SAFETY: with the profiling header, word 2 is the traversal word.
        unsafe { *(o.0 as *const Word).add(2) }
    }

    /// Store the traversal word of a heap object (profiling header required).
    pub fn set_traversal_word(&self, o: Obj, w: Word) {
        assert!(self.layout().profiling() && !self.info(o).is_static(), "traversal words need the profiling header and a heap object");
        // SAFETY: the traversal word belongs to the profiler during a
        // census; nothing else reads or writes it while the world is stopped.
        unsafe { *(o.0 as *mut Word).add(2) = w };
    }

    /// Call `f` with every object in the heap: (object, info, size without
    /// profiling words).
    pub fn for_each_object(&self, mut f: impl FnMut(Obj, &'static InfoTable, usize)) {
        let extra = self.layout().hdr - 1;
        // SAFETY: a ProfileContext is made by the runtime right after a GC,
        // with the world stopped, and lives only for the sample.
        unsafe { crate::heap_walk::for_each_object(self.heap, self.caps, |p, info, size, _| f(Obj(p as Word), info, size - extra)) };
    }
}

/// A heap profiler, installed on a runtime with `Rts::set_heap_profiler`.
pub trait HeapProfiler: Send {
    /// Is a sample due, `mutator` seconds of mutator time into the run?
    /// (Mutator time, so that GC and profiling itself cannot make every GC
    /// a sample.) A due sample makes the coming GC a major one.
    fn due(&self, mutator: f64) -> bool;
    /// The `-h` break-down letter (for the eventlog's HEAP_PROF_BEGIN).
    fn breakdown(&self) -> char;
    /// Seconds between samples.
    fn interval(&self) -> f64;
    /// Take a sample, right after a major GC; returns its bands (name,
    /// bytes), which the runtime also posts to the eventlog.
    fn sample(&mut self, ctx: &ProfileContext<'_>) -> Vec<(String, u64)>;
    /// The run ends (`elapsed` seconds): write whatever is left. An error
    /// says which file could not be written, and why (a sample that could
    /// not be written is reported here).
    fn finish(&mut self, elapsed: f64) -> Result<(), String>;
}

/// The cost-centre stack id new objects of a capability are stamped with.
pub type CostCentre = u32;

/// Names of cost centres, by id; 0 is `MAIN`.
#[derive(Debug)]
pub struct CostCentres {
    names: Vec<String>,
}

impl Default for CostCentres {
    fn default() -> CostCentres {
        CostCentres { names: vec!["MAIN".to_string()] }
    }
}

impl CostCentres {
    /// The id of `name`, registering it on first use.
    pub fn id(&mut self, name: &str) -> CostCentre {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as CostCentre,
            None => {
                self.names.push(name.to_string());
                (self.names.len() - 1) as CostCentre
            }
        }
    }

    /// Every name, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// The object `v` names now: its copy, if a concurrent copier has copied
/// it out and not yet pointed every field at the copy (See
/// `BF_COPYING_OUT`).
fn current(v: Word) -> Obj {
    // SAFETY: `v` is a live object (heap or static), whose header may be read.
    let header = unsafe { crate::object::load_header(v as *const Word) };
    if crate::object::is_forwarded(header) {
        return Obj(crate::object::forward_target(header) as Word);
    }
    Obj(v)
}
