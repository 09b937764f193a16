//! Reading GHC binary eventlogs: gclab's own and GHC's.
//!
//! The header declares every event type with its payload size (or
//! "variable"), so events of types this reader has never heard of are
//! skipped by their declared size: an eventlog from a GHC program reads as
//! well as gclab's. Block markers say which capability the events after
//! them belong to. A file cut short or corrupted is an error that names
//! the byte offset where reading failed; nothing here panics on bad input.

use std::collections::HashMap;
use std::fmt;

/// Why an eventlog could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Byte offset in the file where reading failed.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "eventlog unreadable at byte offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ReadError {}

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Nanoseconds since the run began.
    pub ts: u64,
    /// The capability (from the enclosing block), if any.
    pub cap: Option<u16>,
    /// Event type id.
    pub id: u16,
    /// Payload bytes.
    pub payload: Vec<u8>,
}

/// A parsed eventlog.
#[derive(Debug, Clone, Default)]
pub struct EventLogFile {
    /// Declared types: id -> (size, None for variable; description).
    pub types: HashMap<u16, (Option<u16>, String)>,
    /// Every event but block markers, in file order.
    pub events: Vec<Event>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        if self.at + n > self.bytes.len() {
            return Err(ReadError { offset: self.at, message: format!("file ends inside {what} (needs {n} bytes, {} left)", self.bytes.len() - self.at) });
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u16(&mut self, what: &str) -> Result<u16, ReadError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, ReadError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64, ReadError> {
        let b = self.take(8, what)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }
    fn expect(&mut self, tag: &[u8], what: &str) -> Result<(), ReadError> {
        let at = self.at;
        let got = self.take(tag.len(), what)?;
        if got != tag {
            return Err(ReadError { offset: at, message: format!("expected {what} ({:?}), found {:?}", String::from_utf8_lossy(tag), String::from_utf8_lossy(got)) });
        }
        Ok(())
    }
}

use gclab_core::eventlog::id::{BLOCK_MARKER, DATA_END};

/// Parse an eventlog's bytes.
pub fn parse(bytes: &[u8]) -> Result<EventLogFile, ReadError> {
    let mut c = Cursor { bytes, at: 0 };
    let mut log = EventLogFile::default();
    c.expect(b"hdrb", "the header start `hdrb'")?;
    c.expect(b"hetb", "the event type list `hetb'")?;
    loop {
        let at = c.at;
        let tag = c.take(4, "an event type tag")?;
        match tag {
            b"hete" => break,
            b"etb\0" => {
                let id = c.u16("an event type id")?;
                let size = c.u16("an event type size")?;
                let len = c.u32("an event type description length")? as usize;
                let desc = String::from_utf8_lossy(c.take(len, "an event type description")?).into_owned();
                let extra = c.u32("an event type's extra-info length")? as usize;
                c.take(extra, "an event type's extra info")?;
                c.expect(b"ete\0", "the end of an event type `ete'")?;
                log.types.insert(id, (if size == 0xffff { None } else { Some(size) }, desc));
            }
            other => return Err(ReadError { offset: at, message: format!("expected an event type (`etb') or the end of the list (`hete'), found {:?}", String::from_utf8_lossy(other)) }),
        }
    }
    c.expect(b"hdre", "the header end `hdre'")?;
    c.expect(b"datb", "the data start `datb'")?;
    let mut cap: Option<u16> = None;
    let mut block_end = 0usize;
    loop {
        let at = c.at;
        if block_end != 0 && at >= block_end {
            cap = None;
            block_end = 0;
        }
        let id = c.u16("an event's type")?;
        if id == DATA_END {
            break;
        }
        let ts = c.u64("an event's timestamp")?;
        let Some((size, _)) = log.types.get(&id).cloned() else {
            return Err(ReadError { offset: at, message: format!("event type {id} is not declared in the header") });
        };
        let size = match size {
            Some(n) => n as usize,
            None => c.u16("a variable event's size")? as usize,
        };
        let payload = c.take(size, "an event's payload")?;
        if id == BLOCK_MARKER {
            if payload.len() < 14 {
                return Err(ReadError { offset: at, message: "a block marker shorter than 14 bytes".into() });
            }
            let block_size = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]) as usize;
            let block_cap = u16::from_be_bytes([payload[12], payload[13]]);
            block_end = at + block_size;
            cap = if block_cap == 0xffff { None } else { Some(block_cap) };
            continue;
        }
        log.events.push(Event { ts, cap, id, payload: payload.to_vec() });
    }
    Ok(log)
}

/// Read and parse an eventlog file.
pub fn read(path: &std::path::Path) -> Result<EventLogFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

impl Event {
    /// Big-endian integer of `n` bytes at `at` in the payload (0 past its end).
    pub fn field(&self, at: usize, n: usize) -> u64 {
        self.payload.get(at..at + n).map(|b| b.iter().fold(0u64, |acc, &x| acc << 8 | x as u64)).unwrap_or(0)
    }
}
