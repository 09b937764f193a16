//! The child processes of sweeps and minimum-heap probes: how a run is
//! started (`gclab run ... --json`, in a process group of its own, told
//! the sweep's process id), killed with its group at a timeout, and how a
//! run notices that the sweep that started it has ended (See Note
//! [Sweeps sharing a directory] in `sweep`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The child process of one run, as sweeps and minimum-heap probes start
/// it: `gclab run --collector C --json J WORKLOAD ARGS +RTS FLAGS -RTS`.
pub fn run_command(exe: &Path, collector: &str, json: &Path, workload: &str, args: &[usize], rts: &[String]) -> Command {
    let mut cmd = child_command(exe, "run");
    cmd.arg("--collector").arg(collector).arg("--json").arg(json).arg(workload);
    cmd.args(args.iter().map(|a| a.to_string()));
    cmd.arg("+RTS").args(rts).arg("-RTS");
    cmd
}

/// `gclab <subcommand>` (`run` or `peer`) as every child of a sweep
/// starts: without `GCLABRTS` (the flags are the run's own), stdin
/// closed, told to exit with this process (`EXIT_WITH_PARENT`), and in a
/// process group of its own, which a timeout kills whole (a peer's
/// program is a grandchild).
pub(crate) fn child_command(exe: &Path, subcommand: &str) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(exe);
    cmd.arg(subcommand).env_remove("GCLABRTS").env(EXIT_WITH_PARENT, std::process::id().to_string()).stdin(Stdio::null()).process_group(0);
    cmd
}

/// Wait for `child` (started as `child_command` starts it) to exit, or
/// kill it with its group once `deadline` has passed since `start`; its
/// exit status, and whether it ran out of time.
pub fn wait_with_deadline(child: &mut std::process::Child, start: std::time::Instant, deadline: Duration) -> std::io::Result<(std::process::ExitStatus, bool)> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, false));
        }
        if start.elapsed() >= deadline {
            kill_group(child);
            return Ok((child.wait()?, true));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Kill `child` and its process group (a peer run's program with it).
pub fn kill_group(child: &mut std::process::Child) {
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).stderr(Stdio::null()).status();
    let _ = child.kill();
}

/// The environment variable that tells a run the process id of the sweep
/// that started it: the run exits when its parent is no longer that
/// process (See Note [Sweeps sharing a directory]).
pub const EXIT_WITH_PARENT: &str = "GCLAB_EXIT_WITH_PARENT";

/// The sweep that started this process (`EXIT_WITH_PARENT`), if one did:
/// a test that says whether it has ended (this process's parent is no
/// longer it).
pub fn starting_sweep() -> Option<impl Fn() -> bool> {
    let sweep = std::env::var(EXIT_WITH_PARENT).ok().and_then(|p| p.parse::<u32>().ok())?;
    Some(move || std::os::unix::process::parent_id() != sweep)
}

/// What a run says when it stops because its sweep ended.
pub const SWEEP_ENDED: &str = "the sweep that started this run ended: stopping";

/// If this process was started by a sweep (`EXIT_WITH_PARENT`), watch for
/// the sweep's end and exit with it (status 143, as on SIGTERM).
pub fn exit_with_parent() {
    let Some(ended) = starting_sweep() else { return };
    std::thread::spawn(move || loop {
        if ended() {
            let _ = writeln!(std::io::stderr(), "gclab: {SWEEP_ENDED}");
            std::process::exit(143);
        }
        std::thread::sleep(Duration::from_millis(50));
    });
}

