//! Retainer profiling (`-hr`), as GHC's `RetainerProfile.c` defines it.
//!
//! A *retainer* is an object that can keep others alive on its own terms:
//! a thunk, a mutable variable or array, a weak pointer, and the roots
//! themselves (the mutator's root stacks, GHC's threads, and the stable
//! pointers). The retainer set of an object is the set of retainers from
//! which it is reachable without passing through another retainer. The
//! profile charges each object's size to its retainer set, and names a
//! retainer by its cost-centre stack (the roots are `ROOTS`), so a band
//! reads like `{MAIN,lru}`.
//!
//! Traversal: the context passed down an edge is the nearest retainer
//! above it; a retainer passes itself on, other objects pass their
//! context on. An object's data is the id of its retainer set (sets are
//! interned in a table); a revisit from a retainer not yet in the set
//! grows it and, for a non-retainer, walks the children again.

use crate::traverse::{begin, traverse_with_context, ContextVisitor};
use gclab_core::constants::WORD_SIZE;
use gclab_core::info::{ClosureType, InfoTable};
use gclab_core::profiling::{Obj, ProfileContext};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Is an object of this kind a retainer? (GHC's `isRetainer`.)
pub fn is_retainer(info: &InfoTable) -> bool {
    matches!(
        info.closure_type,
        ClosureType::Thunk
            | ClosureType::Selector
            | ClosureType::MutVarClean
            | ClosureType::MutVarDirty
            | ClosureType::MutArrClean
            | ClosureType::MutArrDirty
            | ClosureType::Weak
            | ClosureType::Stack
    )
}

/// The retainer id of the roots.
const ROOTS: u64 = 0;

struct RetainerVisitor<'c, 'a> {
    ctx: &'c ProfileContext<'a>,
    /// Interned retainer sets (of retainer ids: ROOTS, or an object's
    /// cost-centre stack + 1) and their ids.
    sets: Vec<BTreeSet<u64>>,
    ids: HashMap<BTreeSet<u64>, u64>,
    /// Bytes by set id.
    sizes: HashMap<u64, u64>,
}

impl RetainerVisitor<'_, '_> {
    fn intern(&mut self, set: BTreeSet<u64>) -> u64 {
        if let Some(&id) = self.ids.get(&set) {
            return id;
        }
        self.sets.push(set.clone());
        let id = self.sets.len() as u64 - 1;
        self.ids.insert(set, id);
        id
    }

    /// The retainer that `obj` is to its children, or the context it got.
    fn pass_on(&mut self, obj: Obj, info: &InfoTable, ctx: u64) -> u64 {
        if is_retainer(info) {
            self.ctx.cost_centre(obj) as u64 + 1
        } else {
            ctx
        }
    }
}

impl ContextVisitor for RetainerVisitor<'_, '_> {
    fn first_visit(&mut self, obj: Obj, info: &'static InfoTable, size: usize, ctx: u64) -> (u64, Option<u64>) {
        let id = self.intern(BTreeSet::from([ctx]));
        *self.sizes.entry(id).or_insert(0) += (size * WORD_SIZE) as u64;
        (id, Some(self.pass_on(obj, info, ctx)))
    }

    fn revisit(&mut self, _obj: Obj, info: &'static InfoTable, size: usize, data: u64, ctx: u64) -> Option<(u64, Option<u64>)> {
        if self.sets[data as usize].contains(&ctx) {
            return None;
        }
        let mut grown = self.sets[data as usize].clone();
        grown.insert(ctx);
        let id = self.intern(grown);
        let bytes = (size * WORD_SIZE) as u64;
        *self.sizes.get_mut(&data).expect("its old set holds it") -= bytes;
        *self.sizes.entry(id).or_insert(0) += bytes;
        // A retainer's children are retained by it alone: nothing to redo.
        let children = (!is_retainer(info)).then_some(ctx);
        Some((id, children))
    }
}

/// Bytes per retainer set, named `{CCS,...}` (sorted), empty sets dropped.
pub fn retainer_profile(ctx: &ProfileContext<'_>) -> Vec<(String, u64)> {
    let flip = begin(ctx);
    let mut roots: Vec<(Obj, u64)> = ctx.mutator_roots().into_iter().map(|o| (o, ROOTS)).collect();
    roots.extend(ctx.named_roots().map(|(_, o)| (o, ROOTS)));
    let mut v = RetainerVisitor { ctx, sets: Vec::new(), ids: HashMap::new(), sizes: HashMap::new() };
    traverse_with_context(ctx, flip, &roots, &mut v);
    let name_of = |r: u64| if r == ROOTS { "ROOTS".to_string() } else { ctx.cost_centres.get(r as usize - 1).cloned().unwrap_or_else(|| format!("CCS {}", r - 1)) };
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for (id, bytes) in v.sizes {
        if bytes == 0 {
            continue;
        }
        let names: BTreeSet<String> = v.sets[id as usize].iter().map(|&r| name_of(r)).collect();
        *out.entry(format!("{{{}}}", names.into_iter().collect::<Vec<_>>().join(","))).or_insert(0) += bytes;
    }
    out.into_iter().collect()
}
