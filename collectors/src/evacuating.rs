//! Blocks a collector will evacuate at a later pause, and the slots
//! remembered that point into them: what a concurrent marker records for a
//! collector whose old objects move only in its pauses (`lxr`'s mature
//! evacuation, See Note [Evacuating in an RC pause] in `lxr::evacuation`).
//!
//! A block to evacuate is flagged `BF_EVACUATING`. Invariant kept: every
//! slot recorded here was, when it was recorded, a pointer field of an
//! object the recorder was scanning, and held an address in a flagged
//! block; what it holds later is checked again before it is used.

use gclab_core::bdescr::{BlockDesc, BlockPtr, BF_EVACUATING};
use gclab_core::constants::Word;
use std::sync::Mutex;

/// Is block `bd` flagged `BF_EVACUATING`? (Read atomically: a marker
/// thread reads the flags beside the collector.)
///
/// # Safety
/// `bd` is the descriptor of a block in use.
// SAFETY: the caller's contract: the descriptor is live.
#[inline(always)]
pub unsafe fn is_evacuating(bd: BlockPtr) -> bool {
    // SAFETY: the caller's contract.
    let flags = unsafe { BlockDesc::load_flags(bd.0) };
    flags & BF_EVACUATING != 0
}

/// Is `v` (zero, or an address that was an object's when it was read) an
/// address in a block flagged `BF_EVACUATING`?
///
/// # Safety
/// A nonzero `v` lies in a megablock whose descriptors are live (the
/// caller checked it is a heap address of the space's).
// SAFETY: the caller's contract: the descriptor of `v`'s block is live.
#[inline(always)]
pub unsafe fn in_evacuating_block(v: Word) -> bool {
    // SAFETY: the caller's contract.
    v != 0 && unsafe { is_evacuating(BlockPtr(BlockDesc::of(v as *mut Word))) }
}

/// Slots recorded, each with the object that holds it.
#[derive(Debug, Default)]
pub struct SlotsInto {
    slots: Mutex<Vec<(usize, usize)>>,
}

impl SlotsInto {
    /// Record slot `slot` of object `obj`, which holds `v`, if `v` lies in
    /// a flagged block.
    ///
    /// # Safety
    /// As for `in_evacuating_block`.
    // SAFETY: the caller's contract.
    #[inline(always)]
    pub unsafe fn note(&self, obj: *mut Word, slot: *mut Word, v: Word) {
        // SAFETY: the caller's contract.
        if unsafe { in_evacuating_block(v) } {
            self.slots.lock().expect("remembered slots").push((obj as usize, slot as usize));
        }
    }

    /// Take what was recorded.
    pub fn take(&self) -> Vec<(usize, usize)> {
        std::mem::take(&mut *self.slots.lock().expect("remembered slots"))
    }
}
