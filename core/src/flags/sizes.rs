//! The heap's sizes: `-A -n -F -G -H -M -m -O` (GHC's "RTS options to
//! control the garbage collector"; See Note [Size suffixes]).

use crate::option_value::{bad, decode_blocks, decode_count, decode_float, FlagError};
use super::flag::Flag;
use super::RtsFlags;
use crate::constants::BLOCK_SIZE;

/// The most generations `-G` takes (each costs the policy a pass per GC).
pub const MAX_GENERATIONS: usize = 100;

use crate::option_value::MAX_FACTOR;

pub(super) const FLAGS: &[Flag] = &[
    Flag { prefix: "-A", exact: false, syntax: "-A<size>", help: &["Allocation area size per capability (default 1m; at least 8k, two blocks)"], set: alloc_area },
    Flag { prefix: "-n", exact: false, syntax: "-n<size>", help: &["Split the allocation area into chunks of this size (default 0: no chunks)"], set: chunks },
    Flag {
        prefix: "-F",
        exact: false,
        syntax: "-F<n>",
        help: &["Old generation size factor (default 2, at most 1000); with -G1, the", "allocation area is resized to F x live data"],
        set: old_gen_factor,
    },
    Flag { prefix: "-G", exact: false, syntax: "-G<n>", help: &["Number of generations (default 2, at most 100); -G1 is a two-space collector"], set: generations },
    Flag {
        prefix: "-H",
        exact: false,
        syntax: "-H[<size>]",
        help: &["Suggested heap size: spare room goes to the allocation area;", "with no size, the heap size at the previous GC"],
        set: heap_suggestion,
    },
    Flag {
        prefix: "--heap-policy=",
        exact: false,
        syntax: "--heap-policy=<name>[:<key>=<value>,...]",
        help: &[
            "(gclab) How far the heap grows before a major GC: ghc (GHC's rule,",
            "F x live; the default), fixed:size=<size> (a heap of one size) or",
            "membalancer[:c=<n>] (MemBalancer's square-root rule)",
        ],
        set: heap_policy,
    },
    Flag {
        prefix: "-M",
        exact: false,
        syntax: "-M<size>",
        help: &["Maximum heap size (default unlimited); past it the run stops", "with \"Heap exhausted\" and exit code 251"],
        set: |f, arg, rest| {
            f.max_heap_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?;
            Ok(())
        },
    },
    Flag {
        prefix: "-K",
        exact: false,
        syntax: "-K<size>",
        help: &["Maximum size of an evaluation stack (default 80% of physical", "memory); past it a program stops with \"stack overflow\" (exit 2)"],
        set: |f, arg, rest| {
            f.max_stack_bytes = crate::option_value::decode_size(arg, rest, 1024, crate::option_value::MAX_SIZE)? as usize;
            Ok(())
        },
    },
    Flag { prefix: "-m", exact: false, syntax: "-m<n>", help: &["Minimum % of the heap that must be free for allocation (default 3)"], set: free_heap },
    Flag {
        prefix: "-O",
        exact: false,
        syntax: "-O<size>",
        help: &["Minimum old generation size (default 1m)"],
        set: |f, arg, rest| {
            f.min_old_gen_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?;
            Ok(())
        },
    },
];

fn alloc_area(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.alloc_area_blocks = decode_blocks(arg, rest, 2 * BLOCK_SIZE as u64)?;
    Ok(())
}

fn chunks(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.chunk_blocks = if rest.is_empty() { 0 } else { decode_blocks(arg, rest, BLOCK_SIZE as u64)? };
    Ok(())
}

fn old_gen_factor(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.old_gen_factor = decode_float(arg, rest, "the old generation factor", 0.0, MAX_FACTOR)?;
    Ok(())
}

fn generations(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.generations = decode_count(arg, rest, "the number of generations", 1, MAX_GENERATIONS)?;
    f.generations_given = true;
    Ok(())
}

fn heap_policy(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.heap_policy = crate::heap_policy::HeapPolicyChoice::choose(rest).map_err(|e| bad(arg, e))?;
    Ok(())
}

fn heap_suggestion(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    if rest.is_empty() {
        f.heap_suggestion_auto = true;
    } else {
        f.heap_suggestion_blocks = decode_blocks(arg, rest, BLOCK_SIZE as u64)?;
    }
    Ok(())
}

fn free_heap(f: &mut RtsFlags, arg: &str, rest: &str) -> Result<(), FlagError> {
    f.pc_free_heap = decode_float(arg, rest, "the minimum free heap (a percentage)", 0.0, 100.0)?;
    Ok(())
}
