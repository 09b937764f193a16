//! When a scanning thread of a balanced team offers work to idle threads:
//! the offer point, past which its scan calls `GcThread::share_work`. The
//! scan loops of `scavenge` run in stretches that end at the offer point
//! or their limit, whichever comes first, so that their objects pay
//! nothing for the offers (See Note [Offering work by the words scanned]).
//!
//! Invariant kept: within one scan loop's call, a scan that offers calls
//! `share_work` once past each offer point, and the points lie
//! `OFFER_EVERY_WORDS` words apart (further where an object spans one); a
//! scan that does not offer (`OFFERING` false: a thread alone) never
//! calls it.

use crate::gc_thread::GcThread;
use gclab_core::constants::Word;

// Note [Offering work by the words scanned]
// ----------------------------------------
// A thread of a balanced team offers work to idle threads (`share_work`)
// as it scans. It used to count the objects it scanned and offer at every
// 32nd: an increment and a test per object, which the scan loop, short of
// registers, kept on the stack (a load, an add, a store, a test and a
// branch per object scanned, of about 140 instructions an object in a
// parallel GC of binary-trees, callgrind). It now offers once per stretch
// of `OFFER_EVERY_WORDS` words: a stretch's end is the scan loop's bound,
// the lesser of the limit and the next offer point, so the objects of a
// stretch pay nothing and a stretch pays one comparison. 128 words is 42
// three-word objects, about the 32 objects of before for the small
// constructors the workloads are made of; a large object is a stretch of
// its own. The loops are compiled twice (`OFFERING`), so that a thread
// alone (`roster` none: every sequential GC) runs the plain loop with no
// offer point at all.
//
// Measured (binary-trees 17, `-N2 -qn2 -qb0`, `scripts/hot-lines` over
// `scavenge_block`): 70.4 instructions per field scanned before, 68.2
// after; with the claim test's cheaper immutability check (See
// `InfoTable::is_immutable` in core's `info`) 66.6, 5.4% fewer. A thread
// alone runs the loop it ran before; its GC instructions moved by 0.986x
// to 1.001x, as the compiler placed `scavenge_block` (See Note [An array
// of one card] in `scavenge`). Written with one loop and a never-reached
// offer point for a thread alone, gcbench 16 executed 0.8% more. The
// clock of a 16-core machine does not resolve the gain: binary-trees
// 20's major GCs at `-N2 -qn2 -qb0` took 0.923x and 0.924x of before
// with the change's first form (one loop; `scripts/ab -n 7`, `-n 11`,
// rounds 0.79-1.08), and 1.049x with this form on another such machine
// (6 rounds running both binaries at `-qn1` and `-qn2` in random order;
// rounds 0.87-1.12). Kept for the instructions.

/// Words a thread of a balanced team scans between two offers of work
/// (See Note [Offering work by the words scanned]).
const OFFER_EVERY_WORDS: usize = 128;

/// Where a scan next offers work to idle threads: the address past which
/// it calls `share_work`. A scan that is not `OFFERING` (a thread alone)
/// compiles to the plain loop: its stretches end at the limit.
pub struct OfferPoint<const OFFERING: bool> {
    at: *mut Word,
}

impl<const OFFERING: bool> OfferPoint<OFFERING> {
    /// The offer point of a scan starting at `scan`.
    #[inline(always)]
    pub fn new(scan: *mut Word) -> OfferPoint<OFFERING> {
        OfferPoint { at: scan.wrapping_add(OFFER_EVERY_WORDS) }
    }

    /// The end of the stretch a scan runs without a look at other
    /// threads: `limit`, or the offer point if that comes first.
    #[inline(always)]
    pub fn stretch_end(&self, limit: *mut Word) -> *mut Word {
        if OFFERING && self.at < limit {
            self.at
        } else {
            limit
        }
    }

    /// The scan has reached `scan`: if that is past the offer point, offer
    /// work and set the next one.
    #[inline(always)]
    pub fn passed(&mut self, gct: &mut GcThread<'_>, scan: *mut Word) {
        if OFFERING && scan >= self.at {
            gct.share_work();
            self.at = scan.wrapping_add(OFFER_EVERY_WORDS);
        }
    }
}
