//! gclab-core: the block-structured heap that every gclab collector shares.
//!
//! Modules, from the bottom up: `constants` (the heap's geometry),
//! `mblock` (megablocks from the OS), `bdescr` (block descriptors),
//! `block_alloc` (block groups and free lists), `info` and `object` (the
//! object model), `generation`, `capability` and `heap` (where objects
//! live), `barrier` (the write barrier), `stable_ptr`, `mutator` (the
//! mutator's safe interface), `flags` (GHC's RTS options), `policy` (when
//! to collect what, and how big things grow), `collector` (the trait every
//! collector implements), `stats` and `report` (GHC's statistics), `sanity`
//! (the `-DS` checker) and `rts` (the runtime that ties them together).
//!
//! `unsafe` code in gclab lives here and in the collectors crate only.

#![warn(missing_docs)]

pub mod barrier;
pub mod bdescr;
pub mod block_alloc;
pub mod capability;
pub mod collector;
pub mod constants;
pub mod eventlog;
pub mod flags;
pub mod gc;
pub mod gc_help;
pub mod generation;
pub mod heap;
pub mod heap_walk;
pub mod info;
pub mod lock;
pub mod mblock;
pub mod mblock_return;
pub mod memprof;
pub mod mutator;
pub mod observe;
pub mod object;
pub mod par;
pub mod policy;
pub mod profiling;
pub mod report;
pub mod rts;
pub mod sanity;
pub mod shim;
pub mod stable_ptr;
pub mod stats;
pub mod stats_output;
pub mod sync;

pub use collector::{Collector, CollectorEvent, ConcurrentPhase, GcContext, GcOutcome, GcReason, GcRequest, RegionSweep, SyncRequest, ThreadWork};
pub use flags::{FlagError, RtsFlags};
pub use info::{ClosureType, InfoTable, StaticObject};
pub use mutator::{Alarm, Finalizer, FinalizerKind, Handle, HeapView, LastFinalizer, Mutator, ObjRef};
pub use rts::{Rts, RunError};
pub use stable_ptr::StablePtr;
pub use stats::Stats;
