//! `gclab peer`: one run of a peer program, as this process's only child,
//! measured from outside and recorded as `gclab run --json` records a run
//! of gclab's own, so that a sweep runs a peer as it runs a collector.
//!
//! The child's output is collected and passed on after it ends: its
//! checksum line is read from stdout, its runtime's statistics from stderr
//! (or GHC's `-t` file; See Note [Peers' statistics]). Its peak RSS is the
//! kernel's figure for this process's children, of which it is the only
//! one. A run started by a sweep stops its child and itself when the sweep
//! ends (See Note [Sweeps sharing a directory]); the sweep's own timeout
//! kills the whole process group.

use super::{flags, stats, Language};
use crate::child::{starting_sweep, SWEEP_ENDED};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to run: the peer of `workload` in `language`, built as `program`.
#[derive(Debug, Clone)]
pub struct PeerRun {
    /// The peer's language.
    pub language: Language,
    /// The workload it is the peer of.
    pub workload: String,
    /// The workload's arguments.
    pub args: Vec<usize>,
    /// GHC-style RTS flags (See Note [Peers' flags]).
    pub rts: Vec<String>,
    /// The built program.
    pub program: PathBuf,
}

/// A failure: an exit code (the peer's own where it failed, 74 where an
/// output could not be written, 1 otherwise) and a message.
pub type Failure = (u8, String);

/// Run it, pass its output on, and write its record to `json`.
pub fn run(peer: &PeerRun, json: Option<&Path>) -> Result<(), Failure> {
    let ghc_stats = match json {
        Some(j) => j.with_extension("ghc-stats"),
        None => std::env::temp_dir().join(format!("gclab-peer-{}.ghc-stats", std::process::id())),
    };
    let _ = std::fs::remove_file(&ghc_stats);
    let inv = flags::invocation(peer.language, &peer.rts, &ghc_stats).map_err(|e| (1, e))?;
    let mut cmd = Command::new(&peer.program);
    cmd.args(peer.args.iter().map(|a| a.to_string())).args(&inv.args).envs(inv.env.iter().cloned());
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = gclab_core::process_usage::spawn_measured(&mut cmd).map_err(|e| (1, format!("cannot start {}: {e}", peer.program.display())))?;
    let (out, err) = (reader(child.stdout.take()), reader(child.stderr.take()));
    let sweep_ended = starting_sweep();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| (1, e.to_string()))? {
            break status;
        }
        if sweep_ended.as_ref().is_some_and(|ended| ended()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err((143, SWEEP_ENDED.into()));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let wall_secs = start.elapsed().as_secs_f64();
    let max_rss = gclab_core::process_usage::children_max_rss_bytes();
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    let ghc_text = std::fs::read_to_string(&ghc_stats).ok();
    let _ = std::fs::remove_file(&ghc_stats);
    std::io::stdout().write_all(stdout.as_bytes()).map_err(|e| (74, format!("cannot write the peer's output: {e}")))?;
    let _ = std::io::stderr().write_all(stderr.as_bytes());
    let name = format!("the {} peer of {}", peer.language.name(), peer.workload);
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        let code = status.code().and_then(|c| u8::try_from(c).ok()).filter(|&c| c != 0).unwrap_or(1);
        let how = status.code().map_or_else(|| format!("was killed by signal {}", status.signal().unwrap_or(0)), |c| format!("exited with status {c}"));
        return Err((code, format!("{name} {how}")));
    }
    let checksum = if super::is_program(&peer.workload) {
        stats::output_checksum(&stdout)
    } else {
        stats::checksum(&stdout).ok_or_else(|| (1, format!("{name} printed no `checksum: <16 hex digits>' line")))?
    };
    let figures = stats::read(peer.language, &stderr, ghc_text.as_deref(), wall_secs, max_rss).map_err(|e| (1, format!("{name}: {e}")))?;
    if let Some(path) = json {
        let record = serde_json::json!({
            "workload": peer.workload,
            "args": peer.args,
            "collector": peer.language.name(),
            "rts_flags": peer.rts,
            "peer": {
                "language": peer.language.name(),
                "program": peer.program,
                "arguments": inv.args,
                "environment": inv.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
                "ignored_flags": inv.ignored,
                "wall_secs": wall_secs,
            },
            "checksum": checksum,
            "stats": figures,
        });
        let text = serde_json::to_string_pretty(&record).expect("a record serialises");
        std::fs::write(path, text + "\n").map_err(|e| (74, format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// A thread that reads `pipe` to its end.
fn reader(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
