//! Reading a file that a user names: only a regular file, and only up to
//! a bound. A FIFO blocks the reader forever and `/dev/zero` never ends
//! (both once hung `gclab report` or ran it out of memory), a directory
//! reads as nonsense; each is refused with a message that says what it
//! is. The bound is the largest such file gclab itself ever writes, with
//! room to spare.

use std::io::Read;
use std::path::Path;

/// Check that `path` is a regular file of at most `limit` bytes; `what`
/// names it in the error ("an experiment file").
pub fn check_regular(path: &Path, limit: u64, what: &str) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!("{} is a directory, not {what}", path.display()));
    }
    if !meta.is_file() {
        return Err(format!("{} is not a regular file (a pipe, socket or device), so not {what}: gclab reads only files", path.display()));
    }
    if meta.len() > limit {
        return Err(format!("{} is {} bytes: larger than {what} can be ({limit} bytes)", path.display(), meta.len()));
    }
    Ok(())
}

/// The text of `path`, a regular file of at most `limit` bytes (See
/// `check_regular`); not UTF-8 is an error too.
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    let bytes = read_bytes(path, limit, what)?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not text (not UTF-8), so not {what}", path.display()))
}

/// The bytes of `path`, a regular file of at most `limit` bytes. The read
/// itself stops at the bound too, for a file that grows meanwhile.
pub fn read_bytes(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    check_regular(path, limit, what)?;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} grew past {limit} bytes while it was read: larger than {what} can be", path.display()));
    }
    Ok(bytes)
}

/// Bounds for the files gclab reads.
pub mod limit {
    /// An experiment file (TOML).
    pub const EXPERIMENT: u64 = 1 << 20;
    /// A run's record (`runs/<id>.json`, `gclab run --json`): it holds
    /// every pause of the run, so it can be large.
    pub const RECORD: u64 = 1 << 30;
    /// A results directory's manifest, its minimum heaps, a cache.
    pub const SMALL_JSON: u64 = 64 << 20;
    /// A `.hp` heap profile.
    pub const HEAP_PROFILE: u64 = 4 << 30;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = std::env::temp_dir().join(format!("gclab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.txt");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_text(&file, 5, "a greeting").unwrap(), "hello");
        assert!(read_text(&file, 4, "a greeting").unwrap_err().contains("larger than a greeting can be"));
        // No bound at all (an eventlog) reads the whole file too.
        assert_eq!(read_bytes(&file, u64::MAX, "a greeting").unwrap(), b"hello");
        assert!(read_text(&dir, 100, "a greeting").unwrap_err().contains("is a directory, not a greeting"));
        assert!(read_text(Path::new("/dev/zero"), 100, "a greeting").unwrap_err().contains("not a regular file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
