//! gclab: run a workload under a collector with GHC's RTS flags.
//!
//! `run_workload` is what `gclab run`, the tests and the benches all call,
//! so that they measure and check the same thing; `runtime` makes the
//! runtime a test (or a program embedding gclab) drives by hand.
//! `conformance` checks any collector against every workload under stress
//! settings with the sanity checker on; `stress` draws random runs beyond
//! those settings for as long as it is given.

pub mod cli;
pub mod conformance;
pub mod stress;

use gclab_core::{Collector, RtsFlags, Rts, RunError, Stats};
use gclab_workloads::Workload;
use std::io::Write;

/// What a finished run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The workload's checksum.
    pub checksum: u64,
    /// The run's statistics (after `finish`, so totals are set).
    pub stats: Stats,
    /// Heap sanity checks performed (`-DS`, `--sanity=`).
    pub sanity_checks: u64,
    /// Of those, checks of the whole heap.
    pub sanity_whole_checks: u64,
    /// Seconds spent in them (part of the GC time).
    pub sanity_seconds: f64,
    /// Of those, seconds in whole-heap checks.
    pub sanity_whole_seconds: f64,
    /// The collector's name.
    pub collector: &'static str,
}

/// Run `workload` with `args` under `collector`, its output to `out`, and
/// print the statistics the flags ask for.
pub fn run_workload(workload: &Workload, args: &[usize], flags: RtsFlags, collector: Box<dyn Collector>, out: &mut dyn Write) -> Result<RunOutcome, RunError> {
    run_mutator(flags, collector, |m| (workload.run)(m, args, out))
}

/// Why a program run by `run_program` stopped early, with GHC's exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramStop {
    pub message: String,
    pub exit_code: u8,
}

/// Run a compiled Haskell program (See the `gclab-lang` crate) with
/// `args` as its `getArgs` under `collector`: its output to `out`, its
/// checksum the FNV-1a hash of that output. A run-time error in the
/// program (`error`, a failed match, `<<loop>>`) ends it as GHC's would,
/// after the statistics: the second part of the result.
pub fn run_program(code: &gclab_lang::ir::Compiled, args: Vec<String>, flags: RtsFlags, collector: Box<dyn Collector>, out: &mut dyn Write) -> Result<(RunOutcome, Option<ProgramStop>), RunError> {
    let mut stop = None;
    let outcome = run_mutator(flags, collector, |m| {
        let mut hashed = Fnv { inner: out, hash: gclab_workloads::FNV_OFFSET };
        if let Err(s) = gclab_lang::run(m, code, &mut hashed, args) {
            let _ = hashed.flush();
            stop = Some(program_stop(s));
        }
        hashed.hash
    })?;
    Ok((outcome, stop))
}

fn program_stop(s: gclab_lang::machine::Stop) -> ProgramStop {
    use gclab_lang::machine::Stop;
    match s {
        Stop::Error(message) => ProgramStop { message, exit_code: 1 },
        Stop::Loop => ProgramStop { message: "<<loop>>".into(), exit_code: 1 },
        Stop::StackOverflow(bytes) => ProgramStop { message: format!("Stack space overflow: current size {bytes} bytes.\nUse `+RTS -Ksize' to increase it."), exit_code: 2 },
        Stop::Exit(code) => ProgramStop { message: String::new(), exit_code: code as u8 },
        Stop::Output(e) => ProgramStop { message: format!("<stdout>: commitBuffer: {e}"), exit_code: 1 },
    }
}

/// A writer that hashes what passes through it (`gclab_workloads::fnv1a`).
struct Fnv<'w> {
    inner: &'w mut dyn Write,
    hash: u64,
}

impl Write for Fnv<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash = gclab_workloads::fnv1a(self.hash, &buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Run `body` as the mutator of a runtime made from `flags` and
/// `collector`, with the heap profile the flags ask for; print the
/// statistics the flags ask for.
fn run_mutator(flags: RtsFlags, collector: Box<dyn Collector>, body: impl FnOnce(&mut gclab_core::Mutator<'_>) -> u64) -> Result<RunOutcome, RunError> {
    let profile = flags.heap_profile.map(|kind| {
        let program = flags.program.first().cloned().unwrap_or_else(|| "gclab".into());
        // `-po<dir>/` puts `<program>.hp` in the directory.
        let stem = flags.profile_stem.as_deref().map_or_else(|| program.clone().into(), |given| gclab_core::output::prefix_in(given, &program));
        (kind, flags.heap_profile_interval, stem.with_extension("hp"), flags.program.join(" "))
    });
    let rts = Rts::new(flags, collector)?;
    if let Some((kind, interval, path, job)) = profile {
        let profiler = gclab_heap_traverse::Profiler::new(kind, interval, &path, &job).map_err(|e| RunError::Write(format!("cannot create the heap profile {}: {e}", path.display())))?;
        rts.set_heap_profiler(Box::new(profiler));
    }
    let checksum = match rts.run(body) {
        Ok(c) => c,
        Err(e) => {
            // GHC still prints its statistics when the heap overflows.
            let _ = rts.finish();
            return Err(e);
        }
    };
    let stats = rts.finish()?;
    let (sanity_time, sanity_whole_time) = rts.sanity_time();
    Ok(RunOutcome {
        checksum,
        stats,
        sanity_checks: rts.sanity_checks(),
        sanity_whole_checks: rts.sanity_whole_checks(),
        sanity_seconds: sanity_time.as_secs_f64(),
        sanity_whole_seconds: sanity_whole_time.as_secs_f64(),
        collector: rts.collector_name(),
    })
}

/// Refuse a run whose arguments or flags cannot fit in the machine's
/// memory before it starts: the workload's live data (`Workload::fits`)
/// and the capabilities' allocation areas (`binary-trees 63` and
/// `-N100000` once ran until the OS refused memory). Under a smaller
/// `-M`, the run goes ahead and overflows as GHC's would, statistics and
/// all. The error comes with its exit code, 1.
pub fn check_fits(workload: &Workload, args: &[usize], flags: &RtsFlags) -> Result<(), (u8, String)> {
    use gclab_core::constants::BLOCK_SIZE;
    let Some(memory) = gclab_core::process_usage::machine_memory_bytes() else { return Ok(()) };
    let nurseries = flags.capabilities as u128 * (flags.alloc_area_blocks * BLOCK_SIZE) as u128;
    if nurseries > memory as u128 {
        return Err((1, format!(
            "-N{} with -A{} KiB needs {} of allocation areas: more than this machine's memory ({})",
            flags.capabilities,
            flags.alloc_area_blocks * BLOCK_SIZE / 1024,
            gclab_workloads::bytes_text(nurseries),
            gclab_workloads::bytes_text(memory as u128)
        )));
    }
    workload.fits(args, memory as u128, "this machine's memory").map_err(|e| (1, e.to_string()))
}

/// A runtime with RTS options `rts` (one string, as `flags` takes them)
/// and the built-in collector `collector` (`NAME` or
/// `NAME:key=value,...`), chosen as `gclab run --collector` chooses it:
/// the collector's own flags applied, a contradiction refused. For
/// embedding gclab, and for tests that drive a mutator by hand.
pub fn runtime(rts: &str, collector: &str) -> Result<Rts, String> {
    let mut flags = flags(rts).map_err(|e| e.to_string())?;
    let (entry, params) = gclab_collectors::select(&mut flags, Some(collector)).map_err(|e| e.to_string())?;
    let made = (entry.make)(params, &flags)?;
    Rts::new(flags, made).map_err(|e| e.to_string())
}

/// Parse RTS options given as one string (`"-A8k -G3 -DS"`).
pub fn flags(rts: &str) -> Result<RtsFlags, gclab_core::FlagError> {
    let args: Vec<String> = rts.split_whitespace().map(str::to_string).collect();
    RtsFlags::from_env_and_args(None, &args)
}
