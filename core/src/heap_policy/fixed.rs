//! A heap of one size (MMTk's `FixedHeapSize`): the collected space grows
//! until the whole heap, its copy reserve and the allocation area
//! included, reaches `size`; a major GC then, and a heap overflow if the
//! live data no longer fits. The runtime's `-M` arithmetic does the
//! fitting (`heap_cap`): the policy only asks for no limit below
//! it.

use super::{HeapCap, HeapPolicy, HeapPolicyEntry, MajorGc, UNBOUNDED_BLOCKS};
use crate::constants::BLOCK_SIZE;
use crate::option_value::{decode_size, MAX_SIZE};
use crate::params::Params;

pub(super) const ENTRY: HeapPolicyEntry = HeapPolicyEntry {
    name: "fixed",
    description: "A heap of one size: a major GC only when the heap reaches size=SIZE (as MMTk's FixedHeapSize)",
    make,
};

fn make(mut params: Params) -> Result<Box<dyn HeapPolicy>, String> {
    let Some(text) = params.take("size") else {
        return Err("the fixed heap policy needs size=SIZE (the heap's size, with GHC's suffixes: size=256m)".into());
    };
    params.finish("fixed", &["size"])?;
    // At least two blocks, as -A.
    let bytes = decode_size("size", &text, 2 * BLOCK_SIZE as u64, MAX_SIZE).map_err(|e| format!("the fixed heap policy's size={text}: {}", e.reason))?;
    Ok(Box::new(Fixed { blocks: bytes as usize / BLOCK_SIZE }))
}

#[derive(Debug)]
struct Fixed {
    blocks: usize,
}

impl HeapPolicy for Fixed {
    fn space_limit(&mut self, _: &MajorGc) -> usize {
        UNBOUNDED_BLOCKS
    }

    fn heap_cap(&self) -> Option<HeapCap> {
        Some(HeapCap { blocks: self.blocks, set_by: "--heap-policy=fixed:size=<size>" })
    }
}
