//! Why a run failed, and the exit code each failure gives the process.

use std::fmt;

/// Why a run failed.
#[derive(Debug)]
pub enum RunError {
    /// `-M` could not be respected (GHC's "heap overflow").
    HeapOverflow {
        /// The limit in bytes.
        max_heap_bytes: usize,
        /// The option that set it (`-M<size>`), which the message
        /// suggests raising.
        set_by: &'static str,
    },
    /// The OS refused memory.
    OutOfMemory {
        /// The request in bytes.
        bytes: usize,
    },
    /// An output file (statistics, eventlog, heap profile) could not be
    /// written: what, with the file's name, and why.
    Write(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::HeapOverflow { max_heap_bytes, set_by } => write!(
                f,
                "Heap exhausted;\nCurrent maximum heap size is {} bytes ({} MB).\nUse `+RTS {set_by}' to increase it.",
                max_heap_bytes,
                max_heap_bytes / (1024 * 1024)
            ),
            RunError::OutOfMemory { bytes } => write!(f, "out of memory (requested {bytes} bytes)"),
            RunError::Write(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for RunError {}

/// The exit code of a run whose output could not be written (sysexits'
/// `EX_IOERR`): a sweep tells it from the run's own failure by the code
/// alone, since on a full disk the run's message may be lost too.
pub const EXIT_OUTPUT_UNWRITABLE: i32 = 74;

impl RunError {
    /// The process exit code for this failure: GHC's 251 for heap
    /// overflow, `EXIT_OUTPUT_UNWRITABLE` for an output not written.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::HeapOverflow { .. } => 251,
            RunError::OutOfMemory { .. } => 251,
            RunError::Write(_) => EXIT_OUTPUT_UNWRITABLE,
        }
    }
}
