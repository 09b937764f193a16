//! The minimum heap of a run: the smallest `-M` under which a workload
//! completes with a collector and flags, found by binary search, each probe
//! its own `gclab run` process (See Note [Searching for the minimum heap]).
//! Experiments write heap sizes as multiples of it (`M = ["2x"]`), which
//! compares collectors at equal heap pressure rather than at equal flags.
//!
//! Note [Searching for the minimum heap]
//! ----------------------------------------
//! A first probe runs without `-M`: it must succeed (else the workload
//! fails for another reason, which is reported as such). Its peak memory
//! in use is the first guess at a size that fits, and its maximum
//! residency, or `-A` if larger (`-M` below `-A` is refused), a size
//! assumed not to: no heap smaller than the live data can hold it. Then
//! each probe halves the interval: exit 251 (GHC's "heap overflow") means
//! too small, success means it fits, anything else stops the search with
//! the probe's error. The search ends when the interval is at most
//! `precision` of the size that fits (and never below one 4 KiB block,
//! `-M`'s granularity).
//!
//! The peak without `-M` is only a guess: under `-M` the policy keeps
//! room for a copy of the live data and for the allocation area before
//! they are needed (GHC's `resize_generations`), so a run can overflow a
//! limit as large as its own unlimited peak. gcbench 18 under `copying`
//! peaks at 32.0 MiB without `-M` and overflows at `-M36m` (its 20.9 MB
//! stretch tree is all live when the old generation fills, and its copy
//! must fit too); it fits at `-M40m`. Until 2026-11-30 the search took the
//! guess for a fit, and when every probe below it failed it answered the
//! guess: 32.00 MiB, a heap the workload cannot run in. So the answer is
//! always a size some probe saw fit: when no probe below the guess has
//! fitted, the guess itself is probed, and if it overflows the search
//! goes up by half again each time (to at most `GROWTH_LIMIT` times the
//! guess, past which it stops with an error) and halves the new interval
//! as before. It still assumes that fitting is monotonic in `-M`, which
//! the policy makes close to true but not exactly (a larger limit can
//! shift when major GCs happen).
//!
//! Note [A limit is not the memory used]
//! ----------------------------------------
//! `-M` is GHC's limit: judged after each GC, on the blocks the
//! generations hold, with room kept for what the policy expects the next
//! GC to need (a copy of each copied generation, the allocation area). It
//! is not the memory a run needs, and it errs in opposite directions for
//! the two families. A copying collector's limit reserves a copy of its
//! old generation that the run may never make: gcbench 18 under
//! `copying` fits `-M37m` and peaks at 30 MiB in use there (its 20.9 MB
//! stretch tree dies before a major GC would copy it whole). A collector
//! that keeps its old generation in place reserves no copy, and a minor
//! GC may leave the heap past the limit: GHC's rule then only makes the
//! next GC a major one, and overflows if that one cannot bring the heap
//! back under. `immix` fits `-M20776k` (20.29 MiB, 5,194 blocks) on
//! gcbench 18 because the stretch tree's last minor GC left 5,376 blocks
//! in use and the tree died before the major GC that followed, which
//! left 492; the run peaks at 24 MiB in use. Compared by limit, immix
//! needs 0.55x copying's heap there; compared by the memory each used at
//! its own minimum heap, 0.80x. Both answer a fair question (the smallest
//! limit a user can give; the least memory a run was seen to use), so the
//! search keeps the second beside the first: the peak memory in use, as
//! `-s` reports it, of the probe that fitted at the answer.
//!
//! Answers are cached in a JSON file keyed by workload, arguments,
//! collector, the other RTS flags and gclab's git commit, so a sweep that
//! needs them again (or `gclab minheap` asked twice) runs no probe.

use gclab_core::constants::BLOCK_SIZE;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

/// What to find the minimum heap of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The workload and its arguments.
    pub workload: String,
    /// Its arguments.
    pub args: Vec<usize>,
    /// The collector (with parameters).
    pub collector: String,
    /// RTS flags, without `-M`.
    pub rts: Vec<String>,
}

/// An answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MinHeap {
    /// The smallest `-M` seen to fit, in bytes.
    pub bytes: u64,
    /// The largest `-M` seen not to fit (or assumed not to), in bytes.
    pub fails_at: u64,
    /// Peak memory in use without `-M`.
    pub unlimited_peak_bytes: u64,
    /// Peak memory in use at the answer's `-M`, as `-s` reports it (whole
    /// megablocks): what the run needed, beside the limit it fitted (See
    /// Note [A limit is not the memory used]). 0 in caches written
    /// before it was recorded.
    #[serde(default)]
    pub peak_at_answer_bytes: u64,
    /// Probes run (the first, unlimited one included).
    pub probes: usize,
    /// Seconds the search took.
    pub seconds: f64,
    /// The relative precision asked.
    pub precision: f64,
}

impl Question {
    /// `workload args`, as messages, the cache and `minheaps.json` name it.
    pub fn workload_and_args(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        format!("{} {}", self.workload, args.join(" "))
    }

    /// The cache key: workload, arguments, collector, flags and commit.
    pub fn key(&self, commit: &str) -> String {
        format!("{} | {} | {} | {commit}", self.workload_and_args(), self.collector, self.rts.join(" "))
    }
}

/// How one probe ended.
enum Probe {
    /// It completed; its JSON record.
    Fits(serde_json::Value),
    /// Heap overflow (exit 251).
    TooSmall,
}

/// How to run probes.
#[derive(Debug, Clone)]
pub struct Probing {
    /// The `gclab` executable.
    pub exe: PathBuf,
    /// Where probes write their records and logs.
    pub scratch: PathBuf,
    /// A probe running longer is killed and stops the search.
    pub timeout_secs: f64,
    /// Stop when the interval is at most this fraction of the answer.
    pub precision: f64,
}

/// A probe's files in the scratch directory, removed however the probe
/// ends (a timeout once left them behind).
struct ProbeFiles {
    json: PathBuf,
    stderr: PathBuf,
}

impl ProbeFiles {
    fn new(scratch: &Path) -> ProbeFiles {
        let name = |ext: &str| scratch.join(format!("minheap-probe-{}.{ext}", std::process::id()));
        let files = ProbeFiles { json: name("json"), stderr: name("stderr") };
        let _ = std::fs::remove_file(&files.json);
        files
    }
}

impl Drop for ProbeFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.json);
        let _ = std::fs::remove_file(&self.stderr);
    }
}

/// Run the workload once with `-M` of `limit` bytes (None: no limit).
fn probe(how: &Probing, q: &Question, limit: Option<u64>) -> Result<Probe, String> {
    let exe = &how.exe;
    let files = ProbeFiles::new(&how.scratch);
    let (json, err_path) = (&files.json, &files.stderr);
    let mut rts = q.rts.clone();
    rts.extend(limit.map(|bytes| format!("-M{}k", bytes / 1024)));
    let err_file = std::fs::File::create(err_path).map_err(|e| format!("{}: {e}", err_path.display()))?;
    let mut cmd = crate::child::run_command(exe, &q.collector, json, &q.workload, &q.args, &rts);
    cmd.stdout(Stdio::null()).stderr(err_file);
    let limit_text = limit.map_or("no -M".to_string(), |b| format!("-M{}k", b / 1024));
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let deadline = std::time::Duration::from_secs_f64(how.timeout_secs);
    let (status, timed_out) = crate::child::wait_with_deadline(&mut child, Instant::now(), deadline).map_err(|e| e.to_string())?;
    if timed_out {
        return Err(format!("{} under {} with {limit_text} ran past {} s", q.workload, q.collector, how.timeout_secs));
    }
    let stderr = std::fs::read(err_path).unwrap_or_default();
    match status.code() {
        Some(0) => {
            let text = std::fs::read_to_string(json).map_err(|e| format!("probe at {limit_text}: no JSON record: {e}"))?;
            serde_json::from_str(&text).map(Probe::Fits).map_err(|e| format!("probe at {limit_text}: bad JSON record: {e}"))
        }
        Some(251) => Ok(Probe::TooSmall),
        code => {
            let err = String::from_utf8_lossy(&stderr);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            Err(format!("{} under {} with {limit_text} failed for another reason than heap overflow ({}): {last}", q.workload_and_args(), q.collector, code.map_or("killed by a signal".into(), |c| format!("exit {c}"))))
        }
    }
}

/// How far above the peak without `-M` the search looks for a size that
/// fits before it gives up (See Note [Searching for the minimum heap]):
/// a copying collector's limit must hold about twice its live data, and
/// the peak without `-M` holds the live data at least once.
const GROWTH_LIMIT: u64 = 4;

/// The interval the search narrows: the largest size seen (or assumed)
/// too small, and the smallest size that fits, with the peak memory in
/// use of the probe that saw it fit (None while it is still the guess).
struct Interval {
    fails: u64,
    fits: u64,
    peak_there: Option<u64>,
}

/// The peak memory in use of a probe's record.
fn peak_in_use(record: &serde_json::Value) -> u64 {
    record["stats"]["max_mem_in_use_bytes"].as_u64().unwrap_or(0)
}

/// Search for the minimum heap of `q` as `how` says. See Note
/// [Searching for the minimum heap].
pub fn search(how: &Probing, q: &Question, mut progress: impl FnMut(&str)) -> Result<MinHeap, String> {
    let start = Instant::now();
    progress("probe 1: no -M (its peak memory is the first guess at a heap that fits)");
    let Probe::Fits(record) = probe(how, q, None)? else {
        return Err(format!("{} overflowed its heap with no -M", q.workload_and_args()));
    };
    let stat = |k: &str| record["stats"][k].as_u64().unwrap_or(0);
    let block = BLOCK_SIZE as u64;
    let unlimited_peak_bytes = peak_in_use(&record);
    let peak = round_up_to_block(unlimited_peak_bytes.max(block));
    let alloc_area = gclab_core::RtsFlags::from_env_and_args(None, &q.rts).map(|f| (f.alloc_area_blocks * BLOCK_SIZE) as u64).unwrap_or(0);
    let fails = round_up_to_block(stat("max_live_bytes").max(alloc_area)).saturating_sub(block).min(peak.saturating_sub(block));
    progress(&format!(
        "the answer lies above -M{}k (the live data, or -A: no smaller heap holds it), and probably at most -M{}k (the peak without -M)",
        fails / 1024,
        peak / 1024
    ));
    let mut at = Interval { fails, fits: peak, peak_there: None };
    let mut probes = 1;
    let peak_at_answer_bytes = loop {
        narrow(how, q, &mut at, &mut probes, &mut progress)?;
        if let Some(seen) = at.peak_there {
            break seen;
        }
        confirm(how, q, &mut at, peak, &mut probes, &mut progress)?;
    };
    Ok(MinHeap {
        bytes: at.fits,
        fails_at: at.fails,
        unlimited_peak_bytes,
        peak_at_answer_bytes,
        probes,
        seconds: start.elapsed().as_secs_f64(),
        precision: how.precision,
    })
}

/// `bytes` rounded up to whole blocks, `-M`'s granularity.
fn round_up_to_block(bytes: u64) -> u64 {
    let block = BLOCK_SIZE as u64;
    bytes.div_ceil(block) * block
}

/// Halve the interval until it is at most `precision` of the size that
/// fits, or one block.
fn narrow(how: &Probing, q: &Question, at: &mut Interval, probes: &mut usize, progress: &mut impl FnMut(&str)) -> Result<(), String> {
    let block = BLOCK_SIZE as u64;
    while at.fits - at.fails > block && (at.fits - at.fails) as f64 > how.precision * at.fits as f64 {
        let mid = round_up_to_block(at.fails + (at.fits - at.fails) / 2);
        let mid = if mid >= at.fits { at.fits - block } else { mid };
        *probes += 1;
        let fits_word = if at.peak_there.is_some() { "fits" } else { "the guess" };
        progress(&format!("probe {probes}: -M{}k (between {}k, too small, and {}k, {fits_word})", mid / 1024, at.fails / 1024, at.fits / 1024));
        match probe(how, q, Some(mid))? {
            Probe::Fits(record) => *at = Interval { fails: at.fails, fits: mid, peak_there: Some(peak_in_use(&record)) },
            Probe::TooSmall => at.fails = mid,
        }
    }
    Ok(())
}

/// Probe the guess that no probe below it has confirmed; if it
/// overflows, guess half as large again (See Note [Searching for the
/// minimum heap]).
fn confirm(how: &Probing, q: &Question, at: &mut Interval, peak: u64, probes: &mut usize, progress: &mut impl FnMut(&str)) -> Result<(), String> {
    *probes += 1;
    progress(&format!("probe {probes}: -M{}k (the guess: every smaller probe overflowed)", at.fits / 1024));
    match probe(how, q, Some(at.fits))? {
        Probe::Fits(record) => at.peak_there = Some(peak_in_use(&record)),
        Probe::TooSmall => {
            let next = round_up_to_block(at.fits + at.fits / 2);
            if next > GROWTH_LIMIT * peak {
                return Err(format!(
                    "{} under {} overflows every -M up to -M{}k, {GROWTH_LIMIT}x its peak without -M",
                    q.workload_and_args(),
                    q.collector,
                    at.fits / 1024
                ));
            }
            *at = Interval { fails: at.fits, fits: next, peak_there: None };
        }
    }
    Ok(())
}

/// A JSON file of answers (See the module doc).
pub struct Cache {
    path: PathBuf,
    answers: BTreeMap<String, MinHeap>,
}

impl Cache {
    /// The cache at `path` (empty if the file does not exist yet).
    pub fn open(path: &Path) -> Result<Cache, String> {
        let answers = if path.exists() {
            let text = gclab_core::input::read_text(path, gclab_core::input::limit::SMALL_JSON, "a minimum-heap cache")?;
            serde_json::from_str(&text).map_err(|e| format!("{}: not a minimum-heap cache: {e}", path.display()))?
        } else {
            BTreeMap::new()
        };
        Ok(Cache { path: path.to_path_buf(), answers })
    }

    /// The cached answer for `key`.
    pub fn get(&self, key: &str) -> Option<&MinHeap> {
        self.answers.get(key)
    }

    /// Record an answer and write the file (atomically).
    pub fn put(&mut self, key: String, answer: MinHeap) -> Result<(), String> {
        self.answers.insert(key, answer);
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&self.answers).expect("answers serialise");
        crate::files::write_atomically(&self.path, text.as_bytes()).map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// The answer for `q`: cached, or searched for and cached.
pub fn min_heap(how: &Probing, q: &Question, cache: &mut Cache, progress: impl FnMut(&str)) -> Result<(MinHeap, bool), String> {
    let key = q.key(&crate::machine::git_commit());
    if let Some(hit) = cache.get(&key).filter(|h| h.precision <= how.precision) {
        return Ok((hit.clone(), true));
    }
    let answer = search(how, q, progress)?;
    cache.put(key, answer.clone())?;
    Ok((answer, false))
}

/// Parse a heap multiple such as `1.5x`: Some(1.5); None if `text` is not
/// one (a size such as `64m`); Err if it looks like one but is not valid.
pub fn parse_multiple(text: &str) -> Option<Result<f64, String>> {
    let number = text.strip_suffix('x')?;
    Some(match number.parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 => Ok(m),
        _ => Err(format!("`{text}' is not a heap multiple (a positive number followed by x, such as 1.5x)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// A stand-in for `gclab run` that fits any `-M` of at least
    /// `fits_from` KiB (never, if None) and overflows below it: without
    /// `-M` it peaks at 8 MiB with 2 MiB live, and at a limit it reports
    /// 3 MiB in use. Its directory holds its scratch files.
    fn fake_gclab(name: &str, fits_from: Option<u64>) -> (Probing, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("gclab-minheap-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let threshold = fits_from.map_or("-1".to_string(), |k| k.to_string());
        let script = format!(
            "#!/bin/sh\njson=''; limit=''\nwhile [ $# -gt 0 ]; do case \"$1\" in --json) json=\"$2\"; shift;; -M*) limit=${{1#-M}}; limit=${{limit%k}};; esac; shift; done\n\
             if [ -z \"$limit\" ]; then printf '{{\"stats\":{{\"max_mem_in_use_bytes\":{},\"max_live_bytes\":{}}}}}' > \"$json\"; exit 0; fi\n\
             if [ {threshold} -lt 0 ] || [ \"$limit\" -lt {threshold} ]; then exit 251; fi\n\
             printf '{{\"stats\":{{\"max_mem_in_use_bytes\":{}}}}}' > \"$json\"\n",
            8 * MIB,
            2 * MIB,
            3 * MIB
        );
        let exe = dir.join("gclab");
        std::fs::write(&exe, script).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        (Probing { exe, scratch: dir.clone(), timeout_secs: 30.0, precision: 0.02 }, dir)
    }

    fn question() -> Question {
        Question { workload: "w".into(), args: vec![], collector: "c".into(), rts: vec![] }
    }

    #[test]
    fn the_answer_is_a_size_a_probe_saw_fit_below_or_above_the_guess() {
        // See Note [Searching for the minimum heap]: 5 MiB lies below the
        // unlimited peak (8 MiB), 10 MiB above it, where the peak itself
        // overflows.
        for (name, fits_from) in [("below", 5 * 1024), ("above", 10 * 1024)] {
            let (how, dir) = fake_gclab(name, Some(fits_from));
            let found = search(&how, &question(), |_| {}).unwrap();
            assert!(found.bytes >= fits_from * 1024 && found.fails_at < fits_from * 1024, "{name}: {found:?}");
            assert!((found.bytes - found.fails_at) as f64 <= 0.02 * found.bytes as f64, "{name}: narrowed to 2%: {found:?}");
            assert_eq!((found.unlimited_peak_bytes, found.peak_at_answer_bytes), (8 * MIB, 3 * MIB), "{name}: the peak at the answer is the fitting probe's");
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn a_run_that_fits_no_limit_up_to_four_times_its_peak_is_an_error() {
        let (how, dir) = fake_gclab("never", None);
        let e = search(&how, &question(), |_| {}).unwrap_err();
        assert!(e.contains("overflows every -M up to") && e.contains("4x its peak without -M"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn multiples_parse_and_sizes_are_not_multiples() {
        assert_eq!(parse_multiple("1.5x"), Some(Ok(1.5)));
        assert_eq!(parse_multiple("2x"), Some(Ok(2.0)));
        assert_eq!(parse_multiple("64m"), None);
        assert!(parse_multiple("x").unwrap().is_err());
        assert!(parse_multiple("-2x").unwrap().is_err());
        assert!(parse_multiple("twox").unwrap().is_err());
    }
}
