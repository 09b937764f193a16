//! Running a hot loop with the processor's popcount instruction.
//!
//! Note [Counting with the popcount instruction]
//! ----------------------------------------
//! A compaction counts live words with a popcount: per pointer it fixes
//! (`before(p)`, See Note [Compaction by counting] in `slide`) and per
//! 64-word chunk it plans. The baseline x86-64 that Rust targets has no
//! popcount instruction, so `count_ones` compiles to a dozen shifts,
//! masks and a multiply: 15% of the update pass on binary-trees 20. So
//! the update pass's loop over the objects of its parts
//! (`Compaction::fix_parts`) is compiled twice, its body inlined into a
//! function with the feature enabled
//! (`#[target_feature]`), and `available()` (a cached test of the
//! processor) chooses which copy runs. (A generic "run this closure with
//! popcount" does not work: the closure is not inlined into the function
//! that has the feature, and stays baseline.) The rest of gclab stays
//! baseline x86-64, as GHC's runtime is. The whole program built with
//! `+popcnt` measured binary-trees 20's major GCs under `-c` 0.91x. The
//! plan counts once per 64-word chunk rather than per pointer: compiled
//! the same way it saved 0.1% of the GC's instructions (binary-trees 17),
//! so it stays baseline.

/// Has the processor the popcount instruction? (Always false off x86-64,
/// where `count_ones` needs no help.)
#[inline(always)]
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}
