//! Deferred, coalescing reference counts kept in side metadata: the
//! mechanism of `lxr` (Levanoni and Petrank's coalescing counts, deferred
//! for roots as Deutsch and Bobrow's, in LXR's few saturating bits).
//!
//! Each object of a counted space has a count of a few bits beside it
//! (core's Note [Side counts]): the references to it from the counted
//! fields of the space's objects, plus its entries in the last pause's
//! root buffer. Between pauses nothing counts: the mutators' stores are
//! logged, once per field per epoch, by the field-logging barrier (core's
//! Note [The field-logging barrier]), and a pause applies them.
//!
//! Invariant kept, between GCs, for every object of the space whose count
//! is not stuck: its count is at least its references from counted
//! fields of the space's objects plus its root-buffer entries, and it is
//! not zero (an object whose count falls to zero is reclaimed in the
//! same pause). `check_counts` checks it under `-DS`. A count may be
//! higher than its references (a leak, which the backup trace mends: See
//! Note [What the counts count]); never lower, which would free a live
//! object.
//!
//! Note [What the counts count]
//! ----------------------------------------
//! A count holds the references from an object's *counted fields*: the
//! fields a GC traces (`Layout::pointer_slots`), and a weak pointer's key,
//! value and finaliser as well, which weak-pointer processing traces
//! rather than the scavenger. Counting the key as strong means reference
//! counting never frees a weak pointer's key; only the backup trace,
//! which knows weak semantics, does. Weak pointers themselves get a stuck
//! count: the runtime's weak lists point at them without counting.
//!
//! Some references are not counted but treated as roots at every pause
//! (their values are incremented into the root buffer and decremented at
//! the next pause, as LXR does with thread stacks): the runtime's roots
//! (capabilities' root stacks, pending finalisers, stable pointers) and
//! the live slots of evaluation stacks (whose pushes and pops the barrier
//! does not log; See Note [Stacks are counted by difference]). Large
//! objects are counted as the space's objects are, with tables on their
//! own blocks (See `large_counts`).
//!
//! Note [Stacks are counted by difference]
//! ----------------------------------------
//! Deferred counting raises every root at one pause and lowers it at the
//! next. For the runtime's roots (a few handles) that is nothing; an
//! interpreter's evaluation stack is deep, and raising and lowering each
//! live slot at every pause is two random accesses to side metadata per
//! slot. A slot that holds the same object at both pauses would be raised
//! and lowered again for nothing, so each stack keeps the values its slots
//! held when they were last counted (its share of the root buffer); a
//! pause compares the slots with them, a sequential scan, and raises only
//! the slots that changed and lowers only the values they replaced (or
//! that were popped). A stack that dies hands its kept values to the
//! decrements.
//!
//! Measured (treejoin.hs 10000 rows, circsim.hs): the lazy programs'
//! stacks change more than expected between pauses. treejoin compared
//! 30.0 million slots over its pauses and found 3.3 million (11%)
//! unchanged, circsim 246 thousand and 162 thousand (66%). Raising every
//! slot instead made no difference to treejoin's GC time that two runs
//! could tell apart (0.44 to 0.49 s either way). The difference is kept
//! because it costs one comparison per slot and the kept values are
//! needed anyway (they are what the next pause lowers). GHC scans only
//! the stack chunks written since the last GC; a low-water mark kept by
//! the pops would spare the scan too, but costs the mutator a test per
//! pop.
//!
//! Note [Decrements wait]
//! ----------------------------------------
//! A structure that dies whole (a tree of half a million nodes) costs one
//! decrement per reference when its root's count falls to zero, all in
//! one pause: 30 ms on binary-trees 18, against 2 ms for the pause's
//! other work. LXR lowers counts on GC threads beside the mutators after
//! the pause, and so does `lxr` by default (See Note [Decrements beside
//! the mutators] in `decrement_thread`). Under `lxr:concurrent=0` a
//! pause lowers at most a budget of counts (`lxr:decrements=N`) and keeps
//! the rest of its work list for the next pause, which does it with its own.
//! Waiting is safe: an object whose decrement waits has a count above
//! zero, so it stays, and it is unreachable by the mutators if that
//! decrement was its last reference; only its reclamation is late. A
//! backup trace drops the waiting work (it recounts everything).
//!
//! A cycle leaks its counts, safely: it waits for the backup trace,
//! which recounts from scratch. (A thunk black-holed while old leaked
//! its free variables' counts until black-holing logged them: core's
//! Note [The field-logging barrier].)

use crate::roots::root_slots;
use gclab_core::bdescr::{BlockPtr, LiveMap};
use gclab_core::capability::{Capability, FieldLog};
use gclab_core::constants::{Word, BLOCK_WORDS};
use gclab_core::info::ClosureType;
use gclab_core::object::{info_of_header, load_header, Layout};
use gclab_core::side_metadata::{side_table_of, SideTable};
use gclab_core::stable_ptr::StablePtrTable;
use std::collections::{HashMap, HashSet};

/// What one pause did to the counts, for the statistics.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Counts raised.
    pub increments: u64,
    /// Counts lowered.
    pub decrements: u64,
    /// Objects whose count fell to zero.
    pub freed_objects: u64,
    /// Their words.
    pub freed_words: u64,
    /// Decrements of a count already at zero: a broken invariant, which
    /// the sanity checker reports.
    pub underflows: u64,
}

impl Tally {
    /// Add what `other` counted.
    pub fn add(&mut self, other: Tally) {
        self.increments += other.increments;
        self.decrements += other.decrements;
        self.freed_objects += other.freed_objects;
        self.freed_words += other.freed_words;
        self.underflows += other.underflows;
    }
}

/// The side table that counts the object at `v`, if `v` is an object of a
/// block with counts (not a static object, a large object or a young one).
///
/// # Safety
/// `v` is 0 or the address of a valid object (heap or static).
#[inline]
// SAFETY: the caller's contract: a non-zero `v` has a header word to read.
pub unsafe fn counted(v: Word) -> Option<&'static SideTable> {
    if v == 0 {
        return None;
    }
    // SAFETY: the caller's contract.
    let header = unsafe { load_header(v as *const Word) };
    if header == 0 || info_of_header(header).is_static() {
        return None;
    }
    side_table_of(v as *const Word)
}

/// The counted fields of the object at `p` (See Note [What the counts
/// count]): none for an evaluation stack, whose live slots are roots.
///
/// # Safety
/// `p` is a live heap object.
// SAFETY: the caller's contract; the slots returned lie inside the object.
pub unsafe fn counted_fields(layout: Layout, p: *mut Word) -> (*mut Word, usize) {
    // SAFETY: the caller's contract.
    let info = info_of_header(unsafe { load_header(p) });
    match info.closure_type {
        ClosureType::Stack => (p, 0),
        ClosureType::Weak => (layout.payload(p), 3),
        // SAFETY: as above.
        _ => unsafe { layout.pointer_slots(p, info) },
    }
}

/// Raise the count of the object at `v`, if it has one; true if it did.
///
/// # Safety
/// As for `counted`.
// SAFETY: the caller's contract.
pub unsafe fn increment(v: Word, tally: &mut Tally) -> bool {
    // SAFETY: the caller's contract.
    match unsafe { counted(v) } {
        Some(t) => {
            t.increment(v as *const Word);
            tally.increments += 1;
            true
        }
        None => false,
    }
}

/// Raise the counts of everything the counted fields of `p` point at: an
/// object that has just become old (promoted into the space).
///
/// # Safety
/// `p` is a live heap object whose fields hold valid object addresses.
// SAFETY: the caller's contract.
pub unsafe fn increment_fields(layout: Layout, p: *mut Word, tally: &mut Tally) {
    // SAFETY: the caller's contract.
    let (slots, n) = unsafe { counted_fields(layout, p) };
    for k in 0..n {
        // SAFETY: the slot lies in the object; its value is an object.
        unsafe { increment(*slots.add(k), tally) };
    }
}

/// Count this pause's runtime roots (See Note [What the counts count]):
/// raise the count of what every root slot points at; the values raised,
/// which the next pause lowers again.
///
/// # Safety
/// The GC holds the heap; the roots hold valid object addresses.
// SAFETY: the caller's contract.
pub unsafe fn count_roots(caps: &mut [Capability], stable: &mut StablePtrTable, tally: &mut Tally) -> Vec<Word> {
    let mut raised = Vec::new();
    for slot in root_slots(caps, stable) {
        // SAFETY: the caller's contract: a root slot holds an object address.
        let v = unsafe { *slot };
        // SAFETY: as above.
        if unsafe { increment(v, tally) } {
            raised.push(v);
        }
    }
    raised
}

/// Count the live slots of the evaluation stack `stack` against `kept`,
/// the values they held when they were last counted (See Note [Stacks are
/// counted by difference]): raise each slot that changed, push each value
/// replaced or popped onto `lowered` (for the decrements), and leave in
/// `kept` the slots' values now.
///
/// # Safety
/// The GC holds the heap; `stack` is a live evaluation stack whose live
/// slots hold valid object addresses; `kept`'s values were counted.
// SAFETY: the caller's contract.
pub unsafe fn count_stack(layout: Layout, stack: *mut Word, kept: &mut Vec<Word>, lowered: &mut Vec<Word>, tally: &mut Tally) {
    // SAFETY: the caller's contract: `stack` is live.
    let (slots, n) = unsafe { layout.pointer_slots(stack, info_of_header(load_header(stack))) };
    for k in 0..n {
        // SAFETY: the slot lies in the stack.
        let v = unsafe { *slots.add(k) };
        if kept.get(k) == Some(&v) {
            continue;
        }
        // SAFETY: the caller's contract: a live slot holds an object address.
        let now = unsafe { counted_value(v, tally) };
        match kept.get_mut(k) {
            Some(old) => lowered.push(std::mem::replace(old, now)),
            None => kept.push(now),
        }
    }
    lowered.extend(kept.drain(n.min(kept.len())..));
}

/// Raise the count of `v` and give it back, or give back 0 if it has no
/// count (a young object, a static closure): what a kept copy of a field
/// or slot holds, so that a later decrement never sees the address of a
/// young object that has moved since (See Note [Survivors age once] in
/// `rc_aging`).
///
/// # Safety
/// As for `counted`.
// SAFETY: the caller's contract.
pub unsafe fn counted_value(v: Word, tally: &mut Tally) -> Word {
    // SAFETY: the caller's contract.
    if unsafe { increment(v, tally) } {
        v
    } else {
        0
    }
}

/// Lower the count of each value of `work`, and when one falls to zero,
/// of everything its object's counted fields point at, and so on, until
/// `budget` counts are lowered: the objects found dead. What is left in
/// `work` waits for a later pause (See Note [Decrements wait]); so only
/// counted values join it: a dead object's field may hold a young object,
/// which the minor GC moves before a later pause would look at it. A dead
/// evaluation stack's kept slots (See Note [Stacks are counted by
/// difference]), which `dead_stack` takes out of the stacks kept, join
/// the work.
///
/// # Safety
/// The GC holds the heap; `work` holds object addresses (or 0) whose
/// counts include them.
// SAFETY: the caller's contract.
pub unsafe fn decrement(layout: Layout, work: &mut Vec<Word>, budget: u64, dead_stack: &mut dyn FnMut(usize) -> Option<Vec<Word>>, tally: &mut Tally) -> Vec<*mut Word> {
    let mut dead = Vec::new();
    let stop = tally.decrements + budget;
    while tally.decrements < stop {
        let Some(v) = work.pop() else { break };
        // SAFETY: the caller's contract.
        let Some(t) = (unsafe { counted(v) }) else { continue };
        let p = v as *mut Word;
        // One atomic step, so that of several threads lowering the same
        // count exactly one finds it dead (See Note [Decrements on several
        // threads] in `decrement_thread`).
        match t.decrement(p) {
            Err(0) => {
                tally.underflows += 1;
                continue;
            }
            Err(_stuck) => continue,
            Ok(after) => {
                tally.decrements += 1;
                if after > 0 {
                    continue;
                }
            }
        }
        dead.push(p);
        // SAFETY: `p` was live until now; its fields hold objects.
        let (slots, n) = unsafe { counted_fields(layout, p) };
        if n == 0 {
            // An evaluation stack has no counted fields: test only then.
            if let Some(kept) = dead_stack(v) {
                // Kept slots hold 0 for what they did not count.
                work.extend(kept.into_iter().filter(|&w| w != 0));
            }
        }
        for k in 0..n {
            // SAFETY: the slot lies in the object.
            let f = unsafe { *slots.add(k) };
            // SAFETY: a dead object's fields hold objects, not moved yet.
            if unsafe { counted(f) }.is_some() {
                work.push(f);
            }
        }
    }
    dead
}

/// The words of the objects of space block `bd` whose count is not zero,
/// as a live map, and how many.
///
/// # Safety
/// The GC holds the heap; `bd` is a block of the counted space, with a
/// side table, whose objects and zero words tile it.
// SAFETY: the caller's contract covers the walk.
pub unsafe fn live_by_count(bd: BlockPtr, layout: Layout) -> (LiveMap, usize) {
    let mut bits: LiveMap = [0; BLOCK_WORDS / 64];
    let mut live = 0;
    // SAFETY: the caller's contract.
    let d = unsafe { bd.read() };
    let table = side_table_of(d.start).expect("a counted block has a side table");
    // A count is kept at an object's first word only: the words with a
    // count are the live objects' starts, and the dead are not walked.
    table.for_each_counted(|first| {
        let p = d.start.wrapping_add(first);
        // SAFETY: a counted word starts a live object of the block.
        let size = unsafe { layout.size_of(p, info_of_header(*p)) };
        for w in first..(first + size).min(BLOCK_WORDS) {
            bits[w / 64] |= 1 << (w % 64);
        }
        live += size;
    });
    (bits, live)
}

/// The invariant of the module doc, for the sanity checker: walk `blocks`
/// (the counted space) and the counted objects outside it (`large`),
/// count every reference from a counted field and every entry of `roots`
/// (the root buffer), and report every object whose count is zero or
/// below its references (stuck counts exempt), and `underflows` if any.
/// The fields of `logged` (stores logged since the last pause, kept for
/// the next: a check after a sync) count their old values, which the
/// counts still hold, not the values they hold now, which the next pause
/// raises.
///
/// # Safety
/// The world is stopped; `blocks` are the space's blocks, each with a
/// side table, whose objects and zero words tile them; `large` are live
/// objects whose blocks have tables.
// SAFETY: the caller's contract covers every read.
pub unsafe fn check_counts(blocks: &[BlockPtr], large: &[*mut Word], roots: &[Word], logged: &[FieldLog], layout: Layout, underflows: u64) -> Vec<String> {
    let mut problems = Vec::new();
    if underflows > 0 {
        problems.push(format!("lxr: {underflows} decrements found a count already at zero"));
    }
    let mut refs: HashMap<Word, usize> = HashMap::new();
    let pending: HashSet<*mut Word> = logged.iter().map(|e| e.slot).collect();
    let mut objects = large.to_vec();
    for &bd in blocks {
        // SAFETY: the caller's contract.
        let d = unsafe { bd.read() };
        let walk = |p: *mut Word| {
            objects.push(p);
            // SAFETY: `p` starts a live object of the block.
            Some(unsafe { layout.size_of(p, info_of_header(*p)) })
        };
        // SAFETY: as above.
        unsafe { gclab_core::block_walk::walk_block(d, d.free, walk) };
    }
    for &p in &objects {
        // SAFETY: `p` is a live object (the caller's contract).
        let (slots, n) = unsafe { counted_fields(layout, p) };
        for k in 0..n {
            // SAFETY: the slot lies in the object.
            let slot = unsafe { slots.add(k) };
            if pending.contains(&slot) {
                continue;
            }
            // SAFETY: a counted field holds an object address.
            let v = unsafe { *slot };
            // SAFETY: as above.
            if unsafe { counted(v) }.is_some() {
                *refs.entry(v).or_default() += 1;
            }
        }
    }
    // SAFETY: a logged old value was counted when it was logged, and is
    // lowered only at the next pause.
    let old_values = logged.iter().map(|e| e.old).filter(|&v| unsafe { counted(v) }.is_some());
    for v in roots.iter().copied().chain(old_values) {
        *refs.entry(v).or_default() += 1;
    }
    for p in objects {
        let t = side_table_of(p).expect("a counted block has a side table");
        let (count, wanted) = (t.count(p), refs.get(&(p as Word)).copied().unwrap_or(0));
        if count == 0 {
            problems.push(format!("lxr: object {p:p} has a count of zero but was not reclaimed ({wanted} references)"));
        } else if count != t.stuck() && (count as usize) < wanted {
            problems.push(format!("lxr: object {p:p} has a count of {count} but {wanted} references"));
        }
    }
    problems
}
