//! The pointer checks: every field of the objects the walk queued, every
//! root, stable pointer, mutable-list entry and weak list, each a static
//! object or the start of a live heap object; and the remembered-set
//! invariant (an old object pointing younger is on a mutable list of its
//! generation, with its card marked if it is a pointer array).

use super::addr::valid_info;
use super::Walk;
use crate::capability::Capability;
use crate::constants::Word;
use crate::heap::Heap;
use crate::info::{ClosureType, InfoTable};
use crate::object::{weak_field, CARD_BITS};
use crate::stable_ptr::StablePtrTable;

impl Walk<'_> {
    pub(super) fn collect_remembered(&mut self, caps: &[Capability]) {
        for cap in caps {
            for (g, list) in cap.mut_lists.iter().enumerate() {
                for obj in list {
                    let addr = obj.0 as usize;
                    match self.object_gen(addr) {
                        Some(og) if og == g => {
                            self.remembered.insert(addr);
                            // The GC updated its fields: check them even
                            // where its block went unwalked.
                            if og >= self.walked_whole {
                                self.queue_fields(addr, og);
                            }
                        }
                        Some(og) => self.errors.push(format!("mutable list of generation {g} holds an object of generation {og} at {addr:#x}")),
                        None => self.errors.push(format!("mutable list of generation {g}: {addr:#x} is not an object")),
                    }
                }
            }
        }
    }

    /// A root: a pointer as `check_pointer` checks it, and never into a
    /// block a concurrent copier is copying out of, since mutators would
    /// write the old copy (the to-space invariant: See `BF_COPYING_OUT`).
    fn check_root(&mut self, what: &dyn Fn() -> String, v: Word) {
        if self.check_pointer(what, v).is_some() {
            // SAFETY: `v` is a recorded heap object, so its block
            // descriptor is live.
            let flags = unsafe { crate::bdescr::BlockDesc::load_flags(crate::bdescr::BlockDesc::of(v as *const Word)) };
            if flags & crate::bdescr::BF_COPYING_OUT != 0 {
                self.errors.push(format!("{}: {v:#x} is in a block being copied out (the to-space invariant)", what()));
            }
        }
    }

    fn check_pointer(&mut self, what: &dyn Fn() -> String, v: Word) -> Option<usize> {
        self.report.pointers += 1;
        if let Some(g) = self.object_gen(v) {
            return Some(g);
        }
        if self.mappings.contains(v) {
            self.errors.push(format!("{}: {v:#x} points into the heap but not at a live object", what()));
            return None;
        }
        // SAFETY: a non-heap pointer must be a static object; See Note
        // [Checking info pointers] for why reading it is tolerated.
        let ok = v != 0 && v.is_multiple_of(8) && valid_info(&self.mappings, unsafe { *(v as *const Word) }).map(|i| i.is_static()).unwrap_or(false);
        if !ok {
            self.errors.push(format!("{}: {v:#x} is neither a heap object nor a static object", what()));
        }
        None
    }

    pub(super) fn check_fields(&mut self) {
        let objects = std::mem::take(&mut self.objects);
        for &(addr, gen) in &objects {
            let p = addr as *mut Word;
            // SAFETY: `p` is an object start recorded by the walk.
            let info = unsafe { valid_info(&self.mappings, *p) }.expect("recorded objects have valid headers");
            // SAFETY: as above.
            let (slots, n) = unsafe { self.layout.pointer_slots(p, info) };
            for i in 0..n {
                // SAFETY: pointer slots lie inside the object.
                let v = unsafe { *slots.add(i) };
                let target = self.check_pointer(&|| format!("field {i} of {} at {addr:#x} (generation {gen})", info.name), v);
                if let Some(tg) = target {
                    if tg < gen && !self.is_remembered(p, info, i) {
                        self.errors.push(format!(
                            "{} at {addr:#x} (generation {gen}) points to generation {tg} through field {i} but is not remembered",
                            info.name
                        ));
                    }
                }
            }
            if matches!(info.closure_type, ClosureType::Weak | ClosureType::DeadWeak) {
                for f in [weak_field::KEY, weak_field::VALUE, weak_field::FINALIZER] {
                    // SAFETY: weak objects have their three pointer-like fields.
                    let v = unsafe { *self.layout.payload(p).add(f) };
                    self.check_pointer(&|| format!("weak field {f} of WEAK at {addr:#x}"), v);
                }
            }
        }
    }

    /// Is this old-to-young pointer covered by the remembered set?
    fn is_remembered(&self, p: *mut Word, info: &InfoTable, field: usize) -> bool {
        if !self.remembered.contains(&(p as usize)) {
            return false;
        }
        if info.closure_type.is_pointer_array() && info.closure_type != ClosureType::Arr {
            // SAFETY: `p` is a pointer array; its cards follow its elements.
            unsafe {
                let n = *self.layout.payload(p);
                return *self.layout.card_table(p, n).add(field >> CARD_BITS) != 0;
            }
        }
        true
    }

    pub(super) fn check_roots(&mut self, heap: &Heap, caps: &[Capability], stable: &StablePtrTable) {
        for cap in caps {
            for (i, &r) in cap.roots.iter().enumerate() {
                self.check_root(&|| format!("root {i} of capability {}", cap.no), r);
            }
            for &r in &cap.pending_finalizers {
                self.check_root(&|| format!("pending finaliser of capability {}", cap.no), r);
            }
            for &r in &cap.update_rem_set {
                self.check_root(&|| format!("update remembered set of capability {}", cap.no), r);
            }
            for w in &cap.new_weaks {
                self.check_root(&|| format!("new weak pointer of capability {}", cap.no), w.0 as Word);
            }
        }
        for (i, r) in stable.roots().into_iter().enumerate() {
            self.check_root(&|| format!("stable pointer {i}"), r);
        }
        for (g, gen) in heap.gens.iter().enumerate() {
            for w in &gen.weak_ptrs {
                let addr = w.0 as usize;
                match self.object_gen(addr) {
                    Some(wg) if wg == g => {
                        // SAFETY: a recorded object.
                        let t = unsafe { valid_info(&self.mappings, *w.0) }.map(|i| i.closure_type);
                        if t != Some(ClosureType::Weak) {
                            self.errors.push(format!("weak list of generation {g}: {addr:#x} is not a live WEAK"));
                        }
                    }
                    Some(wg) => self.errors.push(format!("weak list of generation {g} holds a weak of generation {wg}")),
                    None => self.errors.push(format!("weak list of generation {g}: {addr:#x} is not an object")),
                }
            }
        }
    }
}
