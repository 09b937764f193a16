//! GHC's `.hp` heap profile format, which `hp2ps` renders:
//!
//! ```text
//! JOB "prog args"
//! DATE "Sun Nov 22 11:16 2026"
//! SAMPLE_UNIT "seconds"
//! VALUE_UNIT "bytes"
//! BEGIN_SAMPLE 0.021117
//! band<TAB>bytes
//! END_SAMPLE 0.021117
//! ```

use std::io::{BufWriter, Write};
use std::path::Path;

/// A `.hp` file being written.
pub struct HpWriter {
    out: BufWriter<std::fs::File>,
}

/// One sample of a `.hp` file: its time and (band, bytes) pairs.
pub type Sample = (f64, Vec<(String, u64)>);

/// Read a `.hp` file back: (time, [(band, bytes)]) per sample. Sample
/// times are finite seconds, 0 or more, never decreasing (as hp2ps needs
/// them); a file that ends inside a sample is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<Sample>, String> {
    let mut samples: Vec<Sample> = Vec::new();
    let mut current: Option<(f64, Vec<(String, u64)>)> = None;
    let mut begun = 0;
    for (n, line) in text.lines().enumerate() {
        if let Some(t) = line.strip_prefix("BEGIN_SAMPLE ") {
            let time: f64 = t.trim().parse().map_err(|_| format!("line {}: bad time `{}'", n + 1, t.trim()))?;
            let previous = samples.last().map_or(0.0, |s| s.0);
            if !(time.is_finite() && time >= previous) {
                return Err(format!("line {}: sample time `{}' is not a finite number of seconds, at least the previous sample's ({previous})", n + 1, t.trim()));
            }
            if current.is_some() {
                return Err(format!("line {}: BEGIN_SAMPLE inside the sample begun at line {begun}", n + 1));
            }
            (current, begun) = (Some((time, Vec::new())), n + 1);
        } else if line.starts_with("END_SAMPLE") {
            samples.push(current.take().ok_or(format!("line {}: END_SAMPLE without BEGIN_SAMPLE", n + 1))?);
        } else if let Some((_, bands)) = current.as_mut() {
            let (band, bytes) = line.rsplit_once('\t').ok_or(format!("line {}: expected band<TAB>bytes", n + 1))?;
            bands.push((band.to_string(), bytes.trim().parse().map_err(|_| format!("line {}: bad byte count `{}'", n + 1, bytes.trim()))?));
        }
    }
    if current.is_some() {
        return Err(format!("the file ends inside the sample begun at line {begun} (no END_SAMPLE)"));
    }
    Ok(samples)
}

impl HpWriter {
    /// Start `path` for the job `job`.
    pub fn create(path: &Path, job: &str) -> std::io::Result<HpWriter> {
        let mut out = BufWriter::new(std::fs::File::create(path)?);
        writeln!(out, "JOB \"{}\"", job.replace('"', "'"))?;
        writeln!(out, "DATE \"{}\"", date())?;
        writeln!(out, "SAMPLE_UNIT \"seconds\"")?;
        writeln!(out, "VALUE_UNIT \"bytes\"")?;
        Ok(HpWriter { out })
    }

    /// One sample at `time` seconds.
    pub fn sample(&mut self, time: f64, bands: &[(String, u64)]) -> std::io::Result<()> {
        writeln!(self.out, "BEGIN_SAMPLE {time:.6}")?;
        for (band, bytes) in bands {
            writeln!(self.out, "{}\t{bytes}", band.replace(['\t', '\n'], " "))?;
        }
        writeln!(self.out, "END_SAMPLE {time:.6}")
    }

    /// Flush.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The date as `date` prints it ("Sun Nov 22 11:16 2026"), in UTC.
fn date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = secs / 86400;
    let (h, m) = ((secs % 86400) / 3600, (secs % 3600) / 60);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    format!("{} {} {} {:02}:{:02} {}", DAYS[(days % 7) as usize], MONTHS[(month - 1) as usize], d, h, m, year)
}
