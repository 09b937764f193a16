//! gclab-core: the block-structured heap that every gclab collector shares.
//!
//! Modules, in layers from the bottom up (each imports only from layers
//! below it; `docs/design.md` draws them):
//!
//! - the heap: `constants` (its geometry), `shim` and `lock`, `mblock`
//!   (megablocks from the OS, with `mblock_threads`, the pool's threads
//!   that return and touch memory off the pause), `bdescr` (block descriptors), `block_alloc`
//!   (block groups and free lists), `info` and `object` (the object
//!   model), `block_walk` (a block's objects), `generation`, `stable_ptr`
//!   and `heap` (with `alloc_region`, what collectors offer the
//!   mutators, `side_metadata`, their bits beside the heap, and
//!   `access_hooks`, their hooks on loads and stores), under `flags` (GHC's RTS options,
//!   read by `option_value`; a plug-in's parameters by `params`), with
//!   `heap_policy` (how far the heap grows, a plug-in) below them;
//! - the mutator's half: `capability` (per-thread allocation state),
//!   `barrier` (the write barrier), `heap_walk` (every object);
//! - the GC seam: `collector` (the trait every collector implements),
//!   `policy` (when to collect what, how big things grow), `sync` and
//!   `gc_help` (stopping the world), `stats` (what a run measures, with
//!   `process_usage`, what the OS measures of the process),
//!   `profiling` (the heap profiler's seam), `observe` (what observers
//!   are shown);
//! - the observers, beside the runtime: `report` and `stats_output` (the
//!   `-s/-S/-t` text), `eventlog`, `sanity` (the `-DS` checker);
//! - `runtime` (the shared state, the handshake and the GC driver), then
//!   `mutator` (the program's interface to the heap), then `gc` (OCaml's
//!   `Gc` API and Memprof, on the mutator);
//! - `rts`, the top: a run assembled from all of these.
//!
//! `unsafe` code in gclab lives here and in the collectors crate only.

#![warn(missing_docs)]

pub mod access_hooks;
pub mod alloc_region;
pub mod barrier;
pub mod bdescr;
pub mod block_alloc;
pub mod capability;
pub mod collector;
pub mod constants;
pub mod eventlog;
pub mod flags;
pub mod heap_policy;
pub mod gc;
pub mod gc_help;
pub mod generation;
pub mod heap;
pub mod block_walk;
pub mod heap_walk;
pub mod info;
pub mod input;
pub mod lock;
pub mod mblock;
pub mod output;
pub mod mblock_threads;
pub mod mutator;
pub mod observe;
pub mod option_value;
pub mod params;
pub mod object;
pub mod policy;
pub mod process_usage;
pub mod profiling;
pub mod report;
pub mod rts;
pub mod runtime;
pub mod sanity;
pub mod shim;
pub mod side_metadata;
pub mod stable_ptr;
pub mod stats;
pub mod stats_output;
pub mod sync;

pub use collector::{Collector, CollectorEvent, ConcurrentPhase, CompactionRecord, GcContext, GcOutcome, GcReason, GcRequest, RegionSweep, SyncRequest, ThreadWork};
pub use flags::{FlagError, RtsFlags};
pub use info::{ClosureType, InfoTable, SharedBoxes, StaticObject};
pub use mutator::{Alarm, Finalizer, FinalizerKind, Handle, HeapView, LastFinalizer, Mutator, ObjRef};
pub use rts::Rts;
pub use runtime::{RunError, Runtime};
pub use stable_ptr::StablePtr;
pub use stats::Stats;
