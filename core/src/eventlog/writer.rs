//! The eventlog file: events buffered per capability (and one buffer for
//! events of no capability), written in blocks each led by a block marker,
//! and the header and end marker around them (See the module doc of
//! `eventlog` for the format).

use super::format::{describe, id, size_of, Payload, EVENT_TYPES};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

/// The block marker's capability for events of no capability.
const NO_CAP: u16 = 0xffff;

/// Flush a buffer once it holds this many bytes.
const FLUSH_BYTES: usize = 1 << 20;

struct Buffer {
    cap: u16,
    bytes: Vec<u8>,
    first_ts: Option<u64>,
    last_ts: u64,
}

/// Which classes of events to write (`-l` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classes {
    /// GC and heap events (`g`).
    pub gc: bool,
    /// Scheduler and capability events (`s`).
    pub scheduler: bool,
}

/// The eventlog of one run.
pub struct EventLog {
    out: Option<BufWriter<File>>,
    text: Option<bool>,
    bufs: Vec<Buffer>,
    start: Instant,
    classes: Classes,
    finished: bool,
    /// Bytes written to the file so far.
    pub bytes_written: u64,
    /// Events posted so far.
    pub events: u64,
    /// The first failure to write `-v`'s text to standard output.
    text_failed: Option<std::io::Error>,
}

impl EventLog {
    /// An eventlog writing the binary format to `path` (if given) and/or
    /// text to stdout (`text`: Some(with timestamps)), for `caps`
    /// capabilities; `start` is time zero.
    pub fn create(path: Option<&Path>, text: Option<bool>, caps: usize, classes: Classes, start: Instant) -> std::io::Result<EventLog> {
        let mut out = match path {
            Some(p) => Some(BufWriter::with_capacity(1 << 20, File::create(p)?)),
            None => None,
        };
        if let Some(w) = out.as_mut() {
            let mut h = Vec::new();
            h.extend_from_slice(b"hdrbhetb");
            for t in EVENT_TYPES {
                h.extend_from_slice(b"etb\0");
                h.extend_from_slice(&t.id.to_be_bytes());
                h.extend_from_slice(&t.size.map(|s| s as i16).unwrap_or(-1).to_be_bytes());
                h.extend_from_slice(&(t.desc.len() as u32).to_be_bytes());
                h.extend_from_slice(t.desc.as_bytes());
                h.extend_from_slice(&0u32.to_be_bytes());
                h.extend_from_slice(b"ete\0");
            }
            h.extend_from_slice(b"hetehdredatb");
            w.write_all(&h)?;
        }
        let mut bufs: Vec<Buffer> = (0..caps).map(|c| Buffer { cap: c as u16, bytes: Vec::with_capacity(FLUSH_BYTES), first_ts: None, last_ts: 0 }).collect();
        bufs.push(Buffer { cap: NO_CAP, bytes: Vec::new(), first_ts: None, last_ts: 0 });
        let written = out.as_ref().map(|_| 0).unwrap_or(0);
        Ok(EventLog { out, text, bufs, start, classes, finished: false, bytes_written: written, events: 0, text_failed: None })
    }

    /// Nanoseconds from the run's start to `at`.
    pub fn ts(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.start).as_nanos() as u64
    }

    /// The classes being written.
    pub fn classes(&self) -> Classes {
        self.classes
    }

    /// Post event `id` with `payload` at `at` on capability `cap` (None: no
    /// capability).
    pub fn post(&mut self, cap: Option<usize>, at: Instant, id: u16, payload: Payload) {
        let ts = self.ts(at);
        let index = cap.unwrap_or(self.bufs.len() - 1).min(self.bufs.len() - 1);
        let buf = &mut self.bufs[index];
        let ts = ts.max(buf.last_ts);
        buf.last_ts = ts;
        buf.first_ts.get_or_insert(ts);
        buf.bytes.extend_from_slice(&id.to_be_bytes());
        buf.bytes.extend_from_slice(&ts.to_be_bytes());
        let declared = size_of(id).expect("only declared event types are posted");
        match declared {
            // A payload of another size than the header declares would
            // make every reader misread the rest of the block (a check
            // of one length, in every build).
            Some(n) => assert_eq!(n as usize, payload.0.len(), "event {id}: payload size"),
            None => buf.bytes.extend_from_slice(&(payload.0.len() as u16).to_be_bytes()),
        }
        buf.bytes.extend_from_slice(&payload.0);
        self.events += 1;
        if let Some(with_ts) = self.text {
            let who = match cap {
                Some(c) => format!("cap {c}: "),
                None => String::new(),
            };
            let line = describe(id, &payload.0);
            let stamp = if with_ts { format!("{ts:>12}: ") } else { String::new() };
            if let Err(e) = writeln!(std::io::stdout().lock(), "{stamp}{who}{line}") {
                self.text_failed.get_or_insert(e);
            }
        }
        if self.bufs[index].bytes.len() >= FLUSH_BYTES {
            let _ = self.flush_buffer(index);
        }
    }

    fn flush_buffer(&mut self, index: usize) -> std::io::Result<()> {
        let buf = &mut self.bufs[index];
        if buf.bytes.is_empty() {
            return Ok(());
        }
        let first = buf.first_ts.take().unwrap_or(0);
        let marker_len = 2 + 8 + 14;
        let mut block = Vec::with_capacity(marker_len + buf.bytes.len());
        block.extend_from_slice(&id::BLOCK_MARKER.to_be_bytes());
        block.extend_from_slice(&first.to_be_bytes());
        block.extend_from_slice(&((marker_len + buf.bytes.len()) as u32).to_be_bytes());
        block.extend_from_slice(&buf.last_ts.to_be_bytes());
        block.extend_from_slice(&buf.cap.to_be_bytes());
        block.extend_from_slice(&buf.bytes);
        buf.bytes.clear();
        if let Some(w) = self.out.as_mut() {
            w.write_all(&block)?;
            self.bytes_written += block.len() as u64;
        }
        Ok(())
    }

    /// The first failure to write `-v`'s text, if any (taken).
    pub fn take_text_failure(&mut self) -> Option<std::io::Error> {
        self.text_failed.take()
    }

    /// Flush every buffer and end the data. Idempotent; also done on drop,
    /// so a run that ends by an error still leaves a complete file.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        // The capability-less buffer first: it holds the run's preamble.
        let last = self.bufs.len() - 1;
        self.flush_buffer(last)?;
        for i in 0..last {
            self.flush_buffer(i)?;
        }
        if let Some(w) = self.out.as_mut() {
            w.write_all(&id::DATA_END.to_be_bytes())?;
            w.flush()?;
            self.bytes_written += 2;
        }
        Ok(())
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventlog::format::CAPSET_OSPROCESS;

    #[test]
    fn file_has_header_blocks_and_end() {
        let path = std::env::temp_dir().join(format!("gclab-ev-{}.eventlog", std::process::id()));
        let start = Instant::now();
        {
            let mut log = EventLog::create(Some(&path), None, 1, Classes { gc: true, scheduler: true }, start).unwrap();
            log.post(None, start, id::CAPSET_CREATE, Payload::new().u32(0).u16(CAPSET_OSPROCESS));
            log.post(Some(0), start, id::GC_START, Payload::new());
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"hdrbhetbetb\0"));
        assert!(bytes.windows(12).any(|w| w == b"hetehdredatb"));
        assert_eq!(&bytes[bytes.len() - 2..], &[0xff, 0xff]);
        std::fs::remove_file(&path).unwrap();
    }
}
