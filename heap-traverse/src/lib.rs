//! gclab-heap-traverse: generic heap traversal and heap profiling.
//!
//! `traverse` is the generic traversal (GHC's `TraverseHeap.c` is the
//! model): an explicit stack, per-object data in the profiling header's
//! traversal word, first-visit and revisit callbacks, and a reset between
//! traversals that costs one bit flip. On it stand `root_profile` (`-ho`,
//! seed 003); `census` (`-hT -hd -hy -hm -hc`) walks the heap directly.
//! `hp_file` writes GHC's `.hp` format and `profiler` ties them to the
//! runtime's `HeapProfiler` hook.

#![warn(missing_docs)]

pub mod census;
pub mod hp_file;
pub mod profiler;
pub mod retainer;
pub mod root_profile;
pub mod traverse;

pub use profiler::Profiler;
