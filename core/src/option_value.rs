//! Reading an option's value: sizes with GHC's suffixes (See Note [Size
//! suffixes]), numbers and counts, and the error that names a bad option.
//! The RTS options (`flags`) and the plug-ins' parameters (a heap
//! policy's `size=`) read their values here.

use crate::constants::{BLOCK_SIZE, WORD_SIZE};
use std::fmt;

/// A bad RTS option: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagError {
    /// The option as given.
    pub flag: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Characters of a bad flag an error shows, and of the reason (which may
/// quote the flag's value): a 100 KB flag was echoed whole.
const FLAG_SHOWN: usize = 60;
const REASON_SHOWN: usize = 200;

/// `text` cut to `n` characters, with `...` if it was longer.
fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = cut(&self.reason, REASON_SHOWN);
        if self.flag.chars().count() > FLAG_SHOWN {
            return write!(f, "bad RTS option `{}' ({} bytes): {reason}", cut(&self.flag, FLAG_SHOWN), self.flag.len());
        }
        write!(f, "bad RTS option `{}': {reason}", self.flag)
    }
}

/// A size as a flag would give it: `1m`, `64k`, or bytes.
pub(crate) fn size_text(bytes: usize) -> String {
    match bytes {
        b if b > 0 && b.is_multiple_of(1 << 30) => format!("{}g", b >> 30),
        b if b > 0 && b.is_multiple_of(1 << 20) => format!("{}m", b >> 20),
        b if b > 0 && b.is_multiple_of(1 << 10) => format!("{}k", b >> 10),
        b => b.to_string(),
    }
}

impl std::error::Error for FlagError {}

/// The environment variable RTS options may also come from.
pub const ENV_VAR: &str = "GCLABRTS";

impl FlagError {
    /// The option was set, as `word`, by the environment, and contradicts
    /// the command line: say so.
    pub(crate) fn set_by_environment(mut self, word: &str) -> FlagError {
        self.reason = format!("{} ({word} comes from the {ENV_VAR} environment variable)", self.reason);
        self
    }
}

pub(crate) fn bad(flag: &str, reason: impl Into<String>) -> FlagError {
    FlagError { flag: flag.to_string(), reason: reason.into() }
}

/// Read a size as GHC's `decodeSize` does (See Note [Size suffixes]),
/// checking it lies in `min..=max` bytes.
pub fn decode_size(flag: &str, text: &str, min: u64, max: u64) -> Result<u64, FlagError> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')).unwrap_or(text.len());
    // An 'e' directly before a suffix-less end is part of the number; a
    // suffix letter is never 'e', so this split is unambiguous.
    let (num, suffix) = text.split_at(split);
    let value: f64 = num.parse().map_err(|_| bad(flag, format!("`{text}' is not a size (a number with an optional k, m, g or w suffix)")))?;
    let multiplier: f64 = match suffix {
        "" => 1.0,
        "k" | "K" => 1024.0,
        "m" | "M" => 1024.0 * 1024.0,
        "g" | "G" => 1024.0 * 1024.0 * 1024.0,
        "w" | "W" => WORD_SIZE as f64,
        _ => return Err(bad(flag, format!("unknown size suffix `{suffix}' (use k, m, g or w)"))),
    };
    let bytes = value * multiplier;
    if !(bytes.is_finite()) || value < 0.0 || bytes < min as f64 || bytes > max as f64 {
        return Err(bad(flag, format!("size outside allowed range ({} - {})", size_text(min as usize), size_text(max as usize))));
    }
    Ok(bytes as u64)
}

/// The largest old generation factor `-F` (or a heap policy's `F=`) takes.
pub const MAX_FACTOR: f64 = 1000.0;

/// The largest size any option takes: 1 TiB, more than the machines gclab
/// runs on have (a larger `-A` or `-H` once reached the OS as an
/// allocation of terabytes before anything said no).
pub const MAX_SIZE: u64 = 1 << 40;

/// A size in blocks, from `min_bytes` up to `MAX_SIZE`.
pub(crate) fn decode_blocks(flag: &str, text: &str, min_bytes: u64) -> Result<usize, FlagError> {
    Ok((decode_size(flag, text, min_bytes, MAX_SIZE)? as usize) / BLOCK_SIZE)
}

/// A number in `min..=max`, for `what` ("a factor").
pub(crate) fn decode_float(flag: &str, text: &str, what: &str, min: f64, max: f64) -> Result<f64, FlagError> {
    let v = text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(flag, format!("`{text}' is not {what}")))?;
    if !(min..=max).contains(&v) {
        return Err(bad(flag, format!("{what} must be from {min} to {max}, not {text}")));
    }
    Ok(v)
}

/// The longest name of a file or directory (Linux's `NAME_MAX`).
const NAME_MAX: usize = 255;

/// A file name an option writes to (`-S<file>`, `-ol<file>`): refused if
/// empty or if a part of it is longer than a file system allows, so that
/// a run fails before it starts, not when it opens the file.
pub(crate) fn file_name(flag: &str, text: &str, what: &str) -> Result<std::path::PathBuf, FlagError> {
    if text.is_empty() {
        return Err(bad(flag, format!("{what} is empty")));
    }
    if let Some(part) = text.split('/').find(|p| p.len() > NAME_MAX) {
        return Err(bad(flag, format!("{what} has a part of {} bytes (`{}...'): longer than a file name may be ({NAME_MAX})", part.len(), &part[..part.char_indices().nth(20).map_or(part.len(), |(i, _)| i)])));
    }
    Ok(std::path::PathBuf::from(text))
}

/// A whole number in `min..=max`, for `what` ("a number of generations").
pub(crate) fn decode_count(flag: &str, text: &str, what: &str, min: usize, max: usize) -> Result<usize, FlagError> {
    let n = text.parse::<u128>().map_err(|_| bad(flag, format!("`{text}' is not {what}")))?;
    if n < min as u128 || n > max as u128 {
        return Err(bad(flag, format!("{what} must be from {min} to {max}, not {text}")));
    }
    Ok(n as usize)
}

