//! Heap censuses: live bytes by closure type (`-hT`), description (`-hd`),
//! type (`-hy`), module (`-hm`) or cost centre (`-hc`).
//!
//! Taken right after a major GC, when everything in the heap is live, by
//! walking every block (core's `heap_walk`). Sizes exclude the profiling
//! header words, as GHC reports them.

use gclab_core::constants::WORD_SIZE;
use gclab_core::info::InfoTable;
use gclab_core::profiling::ProfileContext;
use std::collections::{BTreeMap, HashMap};

/// The band an object falls in for break-down `kind`.
pub fn band(kind: char, info: &InfoTable, ccs: usize, cost_centres: &[String]) -> String {
    match kind {
        'T' if info.closure_type.is_heap_constr() => format!("{}.{}", info.module, info.name),
        'T' => info.closure_type.ghc_name().to_string(),
        'd' => info.name.to_string(),
        'y' => info.type_name.to_string(),
        'm' => info.module.to_string(),
        'c' => cost_centres.get(ccs).cloned().unwrap_or_else(|| format!("CCS {ccs}")),
        other => panic!("no census break-down `{other}'"),
    }
}

/// Bytes of live data per band. Objects are summed by (info table, cost
/// centre) first, a hash-map update per object, and named once at the end.
pub fn census(ctx: &ProfileContext<'_>, kind: char) -> BTreeMap<String, u64> {
    let mut by_info: HashMap<(usize, usize), (&'static InfoTable, u64)> = HashMap::new();
    ctx.for_each_object(|o, info, size| {
        let ccs = if kind == 'c' { ctx.cost_centre(o) } else { 0 };
        let bytes = (size * WORD_SIZE) as u64;
        by_info.entry((info as *const InfoTable as usize, ccs)).or_insert((info, 0)).1 += bytes;
    });
    let mut bands: BTreeMap<String, u64> = BTreeMap::new();
    for ((_, ccs), (info, bytes)) in by_info {
        *bands.entry(band(kind, info, ccs, ctx.cost_centres)).or_insert(0) += bytes;
    }
    bands
}
