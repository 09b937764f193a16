//! What the operating system measures of this process: its CPU clocks
//! (process and thread), its page faults, its peak resident set and its
//! children's, and the machine's memory. `stats` reads them at each GC and
//! at the run's ends; `gclab peer` reads a peer program's when it has
//! ended.
//!
//! Note [A process's own peak RSS]
//! ----------------------------------------
//! `getrusage`'s `ru_maxrss` is not a program's own peak: exec carries the
//! old address space's high-water mark into the new program's (the
//! kernel's `exec_mmap` keeps it in the process's signal struct), and a
//! program started by `posix_spawn`, as Rust's `Command` and Python's
//! `subprocess` start one, replaces its parent's very address space (a
//! vfork borrows it until the exec), so it reads at least its parent's
//! peak. A `gclab run` started by a sweep read at least the sweep's 5.8
//! MB, whatever it used; one started from Python (`scripts/ab`), 13.7 MB.
//! A run's figure (`max_rss_bytes`) is therefore Linux's `VmHWM`, the peak
//! of the address space made at this program's exec. A peer program's can
//! only be read from outside, once it has ended (`wait4`), so `gclab
//! peer` starts it by fork and exec (`spawn_measured`): a forked child
//! gets a copy of its parent's address space, whose resident set is only
//! the anonymous pages the fork copied (the kernel does not copy the page
//! tables of file mappings), which the peer's exec then carries as its
//! floor. GHC's binary-trees 4 read 4.0 MB through a sweep before, 3.9 MB
//! after, and 3.8 MB run by GNU time (`/usr/bin/time -f %M`, a small
//! process that forks).

use std::time::Instant;

/// The machine's memory in bytes (`MemTotal` of /proc/meminfo), if known.
pub fn machine_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Process CPU time in seconds.
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec that we own.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// CPU time of the calling thread in seconds (a collector's own thread
/// measures its concurrent work with it).
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec that we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The resource usage of `who` (`RUSAGE_SELF` or `RUSAGE_CHILDREN`).
fn rusage(who: libc::c_int) -> libc::rusage {
    // SAFETY: getrusage fills a zeroed rusage that we own.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut ru);
        ru
    }
}

/// Major page faults of the process so far.
pub fn major_page_faults() -> u64 {
    rusage(libc::RUSAGE_SELF).ru_majflt as u64
}

/// Peak resident set size of this program, in bytes: of its own address
/// space where the system says (See Note [A process's own peak RSS]).
pub fn max_rss_bytes() -> u64 {
    own_peak_rss_bytes().unwrap_or_else(|| rusage(libc::RUSAGE_SELF).ru_maxrss as u64 * 1024)
}

/// Linux's `VmHWM`: the high-water mark of the resident set of this
/// program's address space, made at its exec.
fn own_peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// The largest peak resident set size of this process's children that
/// have ended and been waited for, in bytes: with one child started by
/// `spawn_measured`, its own (`gclab peer` measures a peer program so).
pub fn children_max_rss_bytes() -> u64 {
    rusage(libc::RUSAGE_CHILDREN).ru_maxrss as u64 * 1024
}

/// Start `cmd` by fork and exec, so that its peak RSS, read when it ends
/// (`children_max_rss_bytes`), carries as little of this process's as
/// can be (See Note [A process's own peak RSS]).
pub fn spawn_measured(cmd: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    // SAFETY: the hook runs in the child between fork and exec and does
    // nothing, so it touches no lock or allocation another thread held.
    unsafe { cmd.pre_exec(|| Ok(())) };
    cmd.spawn()
}

/// A point in time on both clocks.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    /// Process CPU seconds.
    pub cpu: f64,
    /// Wall-clock instant.
    pub wall: Instant,
}

impl Stamp {
    /// Now.
    pub fn now() -> Stamp {
        Stamp { cpu: process_cpu_seconds(), wall: Instant::now() }
    }

    /// (CPU, elapsed) seconds since `earlier`.
    pub fn since(&self, earlier: &Stamp) -> (f64, f64) {
        (self.cpu - earlier.cpu, self.wall.duration_since(earlier.wall).as_secs_f64())
    }
}
