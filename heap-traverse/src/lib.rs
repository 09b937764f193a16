//! gclab-heap-traverse: generic heap traversal and heap profiling.
//!
//! This crate will hold the traversal with per-object data (on the
//! profiling header's traversal word), census profiles (`-hT -hd -hy -hm
//! -hc`), retainer and root profiling, and `.hp` output. It is empty for now:
//! core already lays objects out with the two profiling words when
//! profiling is on (`gclab_core::object::Layout`), which is what it will
//! stand on.
