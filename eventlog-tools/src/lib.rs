//! gclab-eventlog-tools: reading what runs leave behind, gclab's and GHC's
//! alike, and drawing it.
//!
//! Modules, from the bottom up: `reader` (GHC's binary eventlog, read an
//! event at a time, damage skipped and reported), `latency` (pause
//! distributions and minimum mutator utilisation in bounded memory),
//! `plot` (the figures every tool draws: panels of lines with intervals,
//! MMU curves, pause CDFs), `timeline` (heap and GC activity over a run),
//! `summary` (GHC's `-s` summary, pauses and a timeline derived from an
//! eventlog: `gclab eventlog`), `diff` (two runs side by side), `trace`
//! (Chrome's trace-event JSON), `hp_plot` (pictures of `.hp` heap
//! profiles).

pub mod diff;
pub mod hp_plot;
pub mod latency;
pub mod plot;
pub mod reader;
pub mod summary;
pub mod timeline;
pub mod trace;
