//! GHC's binary eventlog: the writer behind `+RTS -l` (and `-v`, the same
//! events as text), in three parts: `format` (event ids, sizes and
//! payload encodings, which readers share), `writer` (buffers, blocks and
//! the file) and `observer` (which events a run writes, and when).
//!
//! Format (GHC's `rts/include/rts/EventLogFormat.h`, all numbers
//! big-endian): a header `hdrb hetb`, one `etb\0 id:u16 size:i16
//! desc_len:u32 desc extra_len:u32 ete\0` per event type (size -1 for
//! variable-size events), `hete hdre`, then `datb` and the events: `type:u16
//! time:u64 payload` (a variable-size payload is preceded by its u16
//! length), and finally the type 0xffff. Events are buffered per
//! capability (and one buffer for events of no capability) and written in
//! blocks, each led by a block marker event that names its capability and
//! time span, which is how readers learn an event's capability. Timestamps
//! are nanoseconds since the run began, made monotone per buffer.
//!
//! The event ids, sizes and descriptions below are GHC 9.0.2's
//! (the types GHC 9.0.2 declares in its eventlogs' headers); only types
//! this writer emits are declared in the header.

mod format;
mod observer;
mod writer;

pub use format::*;
pub use observer::RunEventLog;
pub use writer::{Classes, EventLog};
