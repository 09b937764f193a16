//! The object model: how an object's words are laid out, and how big it is.
//!
//! An object is a header then a payload of words:
//!
//! ```text
//!   [ info | (ccs | trav) | ptr_0 .. ptr_{p-1} | word_0 .. word_{n-1} ]
//!     ^ header word          ^ payload: pointers first, then non-pointers
//! ```
//!
//! The two profiling words exist only when profiling is switched on for the
//! run (`Layout::profiling`); then every object carries them and
//! `Layout::hdr` is 3 instead of 1. Pointer arrays keep their length in the
//! first payload word, then the elements, then a card table (one byte per
//! 128 elements, See Note [Card marking] in `barrier`). Byte arrays keep
//! their length in bytes, then the data.
//!
//! Note [Forwarding pointers]
//! ----------------------------------------
//! When a copying collector moves an object it overwrites the old copy's
//! header with the new address plus one. Info tables and objects are
//! word-aligned, so a header with its low bit set is a forwarding pointer
//! and cannot be an info table. The parallel collector claims an object by
//! a compare-and-swap on this same word.
//!
//! Note [Slop is zeroed]
//! ----------------------------------------
//! A thunk updated to an indirection keeps only two words (header and
//! indirectee) of what may have been a larger object. The words after it
//! are set to zero, and a zero header word is read as one word of slop by
//! every linear walk of a block (sanity checking, heap census). No info
//! table lives at address zero, so this is unambiguous.

use crate::constants::{Word, WORD_SIZE};
use crate::info::{ClosureType, InfoTable};

/// Elements covered by one card of a pointer array (2^7, as in GHC).
pub const CARD_BITS: usize = 7;
/// Elements per card.
pub const CARD_SIZE: usize = 1 << CARD_BITS;

/// Cards for an array of `n` elements.
#[inline(always)]
pub const fn cards_for(n: usize) -> usize {
    n.div_ceil(CARD_SIZE)
}

/// Words that hold the card table of an array of `n` elements.
#[inline(always)]
pub const fn card_words(n: usize) -> usize {
    cards_for(n).div_ceil(WORD_SIZE)
}

/// The most words one object may have: 2^44 (128 TiB), more than any
/// machine's address space holds, and far enough below 2^64 bytes that
/// no size arithmetic on it overflows.
pub const MAX_OBJECT_WORDS: usize = 1 << 44;

// Note [Sizes a program asks for]
// ----------------------------------------
// An array's length comes from a program, and a program can ask for
// anything: a byte array of nearly 2^64 bytes once rounded its size in
// words down to a few words through an overflowing multiplication, got a
// small block group, and then zeroed 2^64 bytes from it (a crash, found by
// a hostile input). So every size made from a program's length is
// computed with a bound (`new_array_size`, `new_byte_array_size`), and an
// object over `MAX_OBJECT_WORDS` is a heap exhaustion like any request
// the heap cannot meet: GHC's "heap overflow" under `-M`, the OS's
// refusal without it. The sizes of objects already in the heap need no
// such check: they were made this way.

/// Is this header word a forwarding pointer?
#[inline(always)]
pub fn is_forwarded(header: Word) -> bool {
    header & 1 == 1
}

/// The new address encoded in a forwarding header.
#[inline(always)]
pub fn forward_target(header: Word) -> *mut Word {
    (header & !1) as *mut Word
}

/// The forwarding header that points at `to`.
#[inline(always)]
pub fn forwarding_header(to: *mut Word) -> Word {
    to as Word | 1
}

/// The size of the object at `p`, forwarded to its copy by a collector
/// that copies while the mutators run, for a walk of its block: the size
/// the copier left in its first payload word (See Note [Forwarded objects
/// keep their size]), or, for an object of a header alone or an
/// indirection, its copy's.
///
/// # Safety
/// `p` is a forwarded object of a single block being copied out.
// SAFETY: the caller's contract: the copy behind the forwarding pointer is whole.
pub unsafe fn copied_out_size(p: *const Word, layout: Layout) -> usize {
    let copy = forward_target(load_header(p));
    let now = layout.size_of(copy, info_of_header(load_header(copy)));
    if now <= layout.hdr {
        return now;
    }
    let word = load_field(p.add(layout.hdr));
    // An indirection keeps its indirectee there (an address, never a
    // size: an object of one block has at most a block's words).
    if word > crate::constants::BLOCK_WORDS {
        return now;
    }
    word
}

// Note [Forwarded objects keep their size]
// ----------------------------------------
// A stop-the-world GC never walks from-space, so a forwarding pointer is
// all a copied object needs. A concurrent copier's from-space stays while
// the mutators run and is walked meanwhile (its copying thread, the
// sanity checker), but a copy's size can change under the walk: a thunk
// copied out and then updated by a mutator shrinks to an indirection, so
// sizing the original by its copy would land the walk inside it. So once
// its forwarding pointer is in, the copier stores the object's size in
// its first payload word (`copied_out_size` reads it), which nobody reads
// any more: every reader follows the forwarding pointer. An object of a
// header alone has no such word, and needs none: with no fields, it is
// not a thunk, and its size never changes. Nor does an indirection's, and
// an indirection's word is the one word of a from-space object that a
// mutator may still read: `deref_ind` follows an indirection before the
// read barrier sees the reference, so a claimer that overwrote it could
// hand a mutator racing with it a size as the indirectee (a run of power
// with two copier threads crashed so, reading 2 as an address). So an
// indirection keeps its word, and `copied_out_size` tells it from a size
// by its value: an address, never a size of at most a block's words. The
// word is stored just after the claim, so only a walk that no claimer can
// run beside may read it: with the world stopped (See Note [Walking a
// from-space beside the claimers] in the collectors' `copier`).

/// Read an object's header word. During a parallel GC another GC thread
/// may forward the object at any moment, so headers are read atomically;
/// acquire ordering makes the copy behind a forwarding pointer (and its
/// block descriptor) visible with it.
///
/// # Safety
/// `p` must be the address of an object (heap or static).
#[inline(always)]
pub unsafe fn load_header(p: *const Word) -> Word {
    // SAFETY: `p` is an object's first word: aligned, valid for reads, and
    // only ever accessed atomically while GC threads run.
    unsafe { std::sync::atomic::AtomicUsize::from_ptr(p as *mut Word).load(std::sync::atomic::Ordering::Acquire) }
}

/// Overwrite an object's header word (a clean/dirty info pointer, or a
/// forwarding pointer where no other thread can race), atomically so that
/// concurrent `load_header`s stay well defined.
///
/// # Safety
/// `p` must be the address of a heap object the caller may write.
#[inline(always)]
pub unsafe fn store_header(p: *mut Word, header: Word) {
    // SAFETY: as for `load_header`; the caller owns the right to write.
    unsafe { std::sync::atomic::AtomicUsize::from_ptr(p).store(header, std::sync::atomic::Ordering::Release) }
}

// Note [Fields a concurrent marker reads]
// ----------------------------------------
// A concurrent marker (the nonmoving collector's) reads old objects while
// the mutators run, and the mutators write three kinds of field of old
// objects at the same time: a mutable variable's value, an array's
// element, and a thunk's payload when it is updated (plus the header of
// each). Those stores go through `store_field` and `store_header`, and
// the marker reads with `load_field` and `load_header`: atomic accesses,
// so the race is defined, and release/acquire, so that an object the
// marker finds through a field was fully initialised before it was
// stored there (a fresh object's words are written plainly, before the
// store that publishes it). On x86-64 and AArch64 each of these is the
// plain load or store it replaces: the barrier costs nothing more.

/// Store `value` into a pointer field that a concurrent marker may read
/// (See Note [Fields a concurrent marker reads]).
///
/// # Safety
/// `slot` must be an aligned word of a live object the caller may write.
#[inline(always)]
pub unsafe fn store_field(slot: *mut Word, value: Word) {
    // SAFETY: the caller's contract; every concurrent access is atomic.
    unsafe { std::sync::atomic::AtomicUsize::from_ptr(slot).store(value, std::sync::atomic::Ordering::Release) }
}

/// Read a pointer field that a mutator may be writing (See Note [Fields a
/// concurrent marker reads]).
///
/// # Safety
/// `slot` must be an aligned word of a live object.
#[inline(always)]
pub unsafe fn load_field(slot: *const Word) -> Word {
    // SAFETY: the caller's contract; every concurrent access is atomic.
    unsafe { std::sync::atomic::AtomicUsize::from_ptr(slot as *mut Word).load(std::sync::atomic::Ordering::Acquire) }
}

/// Replace the header `expected` by `new` if no other thread changed it
/// first: how a GC thread claims an object it has copied. On failure,
/// returns the header found (the winner's forwarding pointer).
///
/// # Safety
/// `p` must be the address of a heap object being collected.
#[inline(always)]
pub unsafe fn claim_header(p: *mut Word, expected: Word, new: Word) -> Result<(), Word> {
    use std::sync::atomic::Ordering::{AcqRel, Acquire};
    // SAFETY: as for `load_header`.
    unsafe { std::sync::atomic::AtomicUsize::from_ptr(p).compare_exchange(expected, new, AcqRel, Acquire).map(|_| ()) }
}

/// The info table of a header word that is not a forwarding pointer.
#[inline(always)]
pub fn info_of_header(header: Word) -> &'static InfoTable {
    debug_assert!(header != 0 && !is_forwarded(header));
    // SAFETY: header words of live objects are written only from
    // `&'static InfoTable` (InfoTable::header); callers rule out forwarding
    // pointers and slop first.
    unsafe { &*(header as *const InfoTable) }
}

/// Header size: does every object carry the two profiling words?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Words before the payload: 1, or 3 when profiling.
    pub hdr: usize,
}

impl Layout {
    /// The layout of a run with or without the profiling header.
    pub const fn new(profiling: bool) -> Layout {
        Layout { hdr: if profiling { 3 } else { 1 } }
    }

    /// Is the profiling header present?
    pub const fn profiling(self) -> bool {
        self.hdr == 3
    }

    /// Words of an object with fixed layout `ptrs` + `nptrs` (a thunk
    /// keeps room for its indirectee: See `InfoTable::thunk`).
    #[inline(always)]
    pub fn fixed_size(self, info: &InfoTable) -> usize {
        self.hdr + info.payload_words()
    }

    /// Words of a pointer array of `n` elements.
    #[inline(always)]
    pub fn array_size(self, n: usize) -> usize {
        self.hdr + 1 + n + card_words(n)
    }

    /// Words of a byte array of `bytes` bytes.
    #[inline(always)]
    pub fn byte_array_size(self, bytes: usize) -> usize {
        self.hdr + 1 + bytes.div_ceil(WORD_SIZE)
    }

    /// `array_size` of an array about to be made, None if its words
    /// would not fit in `MAX_OBJECT_WORDS` (a length from a program can be
    /// anything: See Note [Sizes a program asks for]).
    pub fn new_array_size(self, n: usize) -> Option<usize> {
        (n <= MAX_OBJECT_WORDS).then(|| self.array_size(n)).filter(|&w| w <= MAX_OBJECT_WORDS)
    }

    /// `byte_array_size` of a byte array about to be made, None if too big.
    pub fn new_byte_array_size(self, bytes: usize) -> Option<usize> {
        (bytes / WORD_SIZE <= MAX_OBJECT_WORDS).then(|| self.byte_array_size(bytes)).filter(|&w| w <= MAX_OBJECT_WORDS)
    }

    /// Size in words of the array (`ClosureType::is_array`) of kind
    /// `kind` at `p`: what `size_of` answers for an array, without its
    /// tests of the other kinds, for `evacuate`'s common path (See Note
    /// [Arrays on the common path] in the collectors' `evacuate`).
    /// (`size_of` keeps its own two arrays' arms: sending them here
    /// changed how the scan loops were compiled, and cost binary-trees 16
    /// 0.8% more GC instructions.)
    ///
    /// # Safety
    /// `p` must point at a live array of that kind.
    #[inline(always)]
    // SAFETY: `p` is a live array, whose length is its first payload word.
    pub unsafe fn array_object_size(self, p: *const Word, kind: ClosureType) -> usize {
        let length = *p.add(self.hdr);
        if kind == ClosureType::ArrWords {
            self.byte_array_size(length)
        } else {
            self.array_size(length)
        }
    }

    /// Size in words of the object at `p`, whose header is `info`.
    ///
    /// # Safety
    /// `p` must point at a live object whose header is `info`.
    #[inline(always)]
    // SAFETY: `p` is a live object whose header is `info`; arrays keep their length in their first payload word.
    pub unsafe fn size_of(self, p: *const Word, info: &InfoTable) -> usize {
        if info.closure_type.has_fixed_layout() {
            return self.fixed_size(info);
        }
        match info.closure_type {
            ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Arr => self.array_size(*p.add(self.hdr)),
            ClosureType::ArrWords => self.byte_array_size(*p.add(self.hdr)),
            ClosureType::Ind => self.hdr + 1,
            ClosureType::Stack => self.stack_size(*p.add(self.hdr)),
            _ => self.fixed_size(info),
        }
    }

    /// Words of an evaluation stack of `capacity` slots: its capacity and
    /// depth, then the slots (See Note [Evaluation stacks] in
    /// `mutator::stack`).
    #[inline(always)]
    pub fn stack_size(self, capacity: usize) -> usize {
        self.hdr + 2 + capacity
    }

    /// The first payload word of the object at `p`.
    #[inline(always)]
    pub fn payload(self, p: *mut Word) -> *mut Word {
        // Every object has at least `hdr` words; the result may be one past
        // the end for an empty payload, which is never read.
        p.wrapping_add(self.hdr)
    }

    /// The slots that the collectors trace in the object at `p`: a start
    /// address and a count. Weak pointers' fields are not here: they are
    /// traced by weak-pointer processing (See Note [Weak fields]).
    ///
    /// # Safety
    /// `p` must point at a live object whose header is `info`.
    #[inline(always)]
    // SAFETY: `p` is a live object whose header is `info`; the slots returned lie inside it.
    pub unsafe fn pointer_slots(self, p: *mut Word, info: &InfoTable) -> (*mut Word, usize) {
        let payload = p.add(self.hdr);
        match info.closure_type {
            ClosureType::MutArrClean | ClosureType::MutArrDirty | ClosureType::Arr => (payload.add(1), *payload),
            ClosureType::ArrWords | ClosureType::ConstrStatic | ClosureType::Weak => (payload, 0),
            // A dead weak keeps its value and finaliser for the finaliser's run.
            ClosureType::DeadWeak => (payload.add(weak_field::VALUE), 2),
            ClosureType::Ind => (payload, 1),
            // Only the live slots, below the depth, hold pointers.
            ClosureType::Stack => (payload.add(2), *payload.add(1)),
            _ => (payload, info.ptrs as usize),
        }
    }

    /// The card table of the pointer array at `p` (of `n` elements).
    #[inline(always)]
    pub fn card_table(self, p: *mut Word, n: usize) -> *mut u8 {
        // The card table lies inside the array object (`array_size`).
        p.wrapping_add(self.hdr + 1 + n) as *mut u8
    }
}

/// Weak pointer payload word offsets. See Note [Weak fields].
pub mod weak_field {
    /// The key: the weak is alive while the key is reachable.
    pub const KEY: usize = 0;
    /// The value returned by dereferencing while the key lives.
    pub const VALUE: usize = 1;
    /// A heap object handed to the finaliser (or NULL_OBJECT).
    pub const FINALIZER: usize = 2;
    /// Link to the next weak of the same generation (not a heap pointer:
    /// the generations keep their own lists; kept for eventlog tools).
    pub const LINK: usize = 3;
    /// Id of the Rust finaliser callback, 0 for none.
    pub const FINALIZER_ID: usize = 4;
}

// Note [Weak fields]
// ----------------------------------------
// A weak pointer's key must not be kept alive by the weak pointer itself, so
// the ordinary scavenger does not trace a WEAK's fields at all. Instead every
// generation keeps a list of its weak pointers, and after the ordinary
// transitive closure the collector examines them (`weak_ptrs` in the
// collectors crate): a weak whose key was reached is kept and its value and
// finaliser traced; one whose key was not becomes DEAD_WEAK, its finaliser
// is queued for the mutator, and its value kept alive for that finaliser:
// a DEAD_WEAK's value and finaliser fields are ordinary strong pointers
// until the finaliser has run, when the mutator clears them (a weak with
// no finaliser has them cleared as it dies).
// Weak pointers of generations not being collected have all three fields
// traced strongly, so that their keys, which may be younger, stay valid; a
// key is only judged when its weak pointer's own generation is collected.

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::*;

    #[test]
    fn forwarding_round_trip() {
        let to = 0x1000_0008 as *mut Word;
        let h = forwarding_header(to);
        assert!(is_forwarded(h));
        assert_eq!(forward_target(h), to);
        assert!(!is_forwarded(IND_INFO.header()));
    }

    #[test]
    fn sizes() {
        static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 1);
        let plain = Layout::new(false);
        let prof = Layout::new(true);
        assert_eq!(plain.fixed_size(&PAIR), 4);
        assert_eq!(prof.fixed_size(&PAIR), 6);
        assert_eq!(plain.array_size(0), 2);
        assert_eq!(plain.array_size(128), 2 + 128 + 1);
        assert_eq!(plain.array_size(129 * 8), 2 + 1032 + 2);
        assert_eq!(plain.byte_array_size(9), 4);
    }
}
