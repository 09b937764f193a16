//! Reading an option's value: sizes with GHC's suffixes (See Note [Size
//! suffixes]), numbers and counts, and the error that names a bad option.

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
pub(super) fn size_text(bytes: usize) -> String {
    match bytes {
        b if b > 0 && b.is_multiple_of(1 << 30) => format!("{}g", b >> 30),
        b if b > 0 && b.is_multiple_of(1 << 20) => format!("{}m", b >> 20),
        b if b > 0 && b.is_multiple_of(1 << 10) => format!("{}k", b >> 10),
        b => b.to_string(),
    }
}

impl std::error::Error for FlagError {}

pub(super) fn bad(flag: &str, reason: impl Into<String>) -> FlagError {
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
        return Err(bad(flag, format!("size outside allowed range ({min} - {max})")));
    }
    Ok(bytes as u64)
}

pub(super) fn decode_blocks(flag: &str, text: &str, min_bytes: u64) -> Result<usize, FlagError> {
    Ok((decode_size(flag, text, min_bytes, i64::MAX as u64)? as usize) / BLOCK_SIZE)
}

pub(super) fn decode_float(flag: &str, text: &str, what: &str) -> Result<f64, FlagError> {
    text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(flag, format!("`{text}' is not {what}")))
}

pub(super) fn decode_count(flag: &str, text: &str, what: &str) -> Result<usize, FlagError> {
    text.parse::<usize>().map_err(|_| bad(flag, format!("`{text}' is not {what}")))
}

