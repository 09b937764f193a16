//! GHC's rule (`rts/sm/GC.c`, `resize_generations`): after a major GC the
//! oldest generation may grow to `F x live`, at least `-O`; with one
//! generation, the allocation area is `F x live` (at least `-A`). The
//! default policy: with it, gclab sizes the heap as GHC does. `F` is
//! `-F`, or the policy's own `F=` (so that an experiment's
//! `heap_policies` can sweep the rule's curve beside other policies').

use super::{HeapPolicy, HeapPolicyEntry, MajorGc};
use crate::option_value::MAX_FACTOR;

pub(super) const ENTRY: HeapPolicyEntry = HeapPolicyEntry {
    name: "ghc",
    description: "GHC's rule: the old generation grows to F x live (at least -O) before a major GC; F= overrides -F (default)",
    make: |mut params| {
        let factor = params.take("F").map(|text| factor(&text)).transpose()?;
        params.finish("ghc", &["F"])?;
        Ok(Box::new(Ghc { factor }))
    },
};

/// `F=<n>` as `-F` takes it: above 0, at most `MAX_FACTOR`.
fn factor(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=MAX_FACTOR).contains(&f) => Ok(f),
        _ => Err(format!("the ghc heap policy's F={text}: expected a number from 0 to {MAX_FACTOR}, as -F takes")),
    }
}

#[derive(Debug)]
struct Ghc {
    /// `F=`, if given; else `-F` as it is at each GC (`Gc.control` may
    /// change it).
    factor: Option<f64>,
}

impl HeapPolicy for Ghc {
    fn space_limit(&mut self, gc: &MajorGc) -> usize {
        let f = self.factor.unwrap_or(gc.old_gen_factor);
        let grown = (gc.live_blocks as f64 * f) as usize;
        if gc.two_space {
            // The allocation area is F x live; the runtime keeps it at
            // least -A.
            gc.live_blocks + grown
        } else {
            grown.max(gc.min_old_gen_blocks)
        }
    }
}
