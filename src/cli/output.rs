//! What every subcommand writes and how it ends: standard output that
//! reports its own failure (a full disk is an error, exit 74), and the
//! exit codes.

use std::io::Write;
use std::process::ExitCode;

/// A failed run's exit code and message.
pub(super) type Failure = (u8, String);

/// `run`'s exit code when an output cannot be written.
pub(super) const UNWRITABLE: u8 = gclab_core::runtime::EXIT_OUTPUT_UNWRITABLE as u8;

/// A writer that keeps its first failure.
pub(super) struct Checked<W> {
    inner: W,
    failed: Option<std::io::Error>,
}

impl<W> Checked<W> {
    /// A writer to `inner` that keeps its first failure.
    pub(super) fn new(inner: W) -> Checked<W> {
        Checked { inner, failed: None }
    }

    /// The first failure, if any (taken).
    pub(super) fn take_failure(&mut self) -> Option<std::io::Error> {
        self.failed.take()
    }
}

impl<W: Write> Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            self.failed.get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Write `text` to standard output: a failure (a full disk) is an error
/// that says so, not a panic (a closed pipe ends the process quietly, See
/// `quiet_broken_pipes`).
pub(super) fn out(text: impl AsRef<str>) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_ref().as_bytes()).and_then(|()| stdout.flush()).map_err(|e| format!("cannot write to standard output: {e}"))
}

pub(super) fn finish(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gclab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `finish`, for a command whose success has an exit code of its own.
pub(super) fn finish_with_code(r: Result<u8, String>) -> ExitCode {
    match r {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gclab: {e}");
            ExitCode::FAILURE
        }
    }
}


