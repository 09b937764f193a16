//! gclab-experiments: the sweep engine.
//!
//! An experiment file (TOML; `experiments/README.md` specifies it) names
//! workloads, collectors, peers and a grid of GHC's RTS flags; a sweep
//! runs every point in a child process into a results directory that
//! survives crashes and resumes; a report turns the records into tables
//! with confidence intervals and plots.
//!
//! Modules, from the bottom up: `confidence` (intervals and geometric
//! means), `figures` (what a run's figures are, in words and units),
//! `files` (writing whole files), `child` (the runs' child
//! processes), `machine` (what a sweep ran on), `peers` (the workloads'
//! GHC, OCaml and Boehm programs: built, run, their statistics read),
//! `minheap` (the smallest heap a run completes in), `experiment` (the
//! experiment file and its runs), `record` (a sweep's run records and
//! `runs.csv`), `sweep` (the engine), `slurm` (a sweep as a Slurm job
//! array), `report` (tables and plots).

pub mod child;
pub mod confidence;
pub mod experiment;
pub mod figures;
pub mod files;
pub mod machine;
pub mod minheap;
pub mod peers;
pub mod record;
pub mod report;
pub mod slurm;
pub mod sweep;
