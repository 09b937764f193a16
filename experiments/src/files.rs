//! Files that are whole or as they were: a record, a manifest or a cache
//! is written to a temporary file and renamed into place.

use std::path::Path;

/// Write `bytes` to `path` atomically (temporary file, then rename): the
/// file is whole or as it was, and a failed write (a full disk) leaves no
/// temporary file behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

