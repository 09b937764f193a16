//! Where the statistics reports go: the `-S` line of every GC as it ends,
//! OCaml's verbose GC messages on stderr, and the `-s`/`-t` report at exit
//! (`report` makes the text). An observer of the runtime (See `observe`).

use crate::flags::{RtsFlags, StatsLevel, StatsTarget};
use crate::observe::{GcEnd, GcObserver};
use crate::report::{self, gc_table_header, gc_table_line};
use crate::stats::Stats;
use std::io::Write;

/// Where `-s`, `-S` and `-t` go: the `-S` line of every GC as it ends,
/// OCaml's verbose messages on stderr, and the summary at exit.
pub struct StatsOutput {
    out: Option<Box<dyn Write + Send>>,
    per_gc: bool,
    /// What `-s/-S/-t` and `--machine-readable` ask for at exit.
    level: StatsLevel,
    machine_readable: bool,
    capabilities: usize,
    /// Where the output goes, for messages.
    target: StatsTarget,
}

impl StatsOutput {
    /// The output the flags ask for (nothing is printed without `-s`,
    /// `-S` or `-t`); with `-S`, the table's header is written now. An
    /// `Err` names the file that could not be written.
    pub fn open(flags: &RtsFlags) -> Result<StatsOutput, String> {
        let target = flags.stats_target.clone();
        let mut out: Option<Box<dyn Write + Send>> = match (&flags.stats, &target) {
            (StatsLevel::None, _) => None,
            (_, StatsTarget::Stderr) => Some(Box::new(std::io::stderr())),
            (_, StatsTarget::File(path)) => Some(Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| write_error(&target, e))?))),
        };
        let per_gc = flags.stats == StatsLevel::Verbose;
        if per_gc {
            if let Some(o) = out.as_mut() {
                o.write_all(gc_table_header().as_bytes()).map_err(|e| write_error(&target, e))?;
            }
        }
        Ok(StatsOutput { out, per_gc, level: flags.stats, machine_readable: flags.machine_readable, capabilities: flags.capabilities, target })
    }

    /// The report at exit, as the flags ask for it.
    fn text(&self, stats: &Stats) -> String {
        match self.level {
            StatsLevel::None => String::new(),
            StatsLevel::OneLine if self.machine_readable => report::machine_readable(stats),
            StatsLevel::OneLine => report::one_line(stats),
            StatsLevel::Summary | StatsLevel::Verbose => {
                let mut t = report::summary(stats, self.capabilities);
                if self.machine_readable {
                    t.push_str(&report::machine_readable(stats));
                }
                t
            }
        }
    }
}

/// A failure to write the statistics (`-s`, `-S`, `-t`), naming where.
fn write_error(target: &StatsTarget, e: std::io::Error) -> String {
    match target {
        StatsTarget::File(path) => format!("cannot write the statistics file {}: {e}", path.display()),
        StatsTarget::Stderr => format!("cannot write the statistics to standard error: {e}"),
    }
}

impl GcObserver for StatsOutput {
    fn gc_end(&mut self, gc: &GcEnd<'_>) {
        if self.per_gc {
            if let Some(out) = self.out.as_mut() {
                let _ = out.write_all(gc_table_line(gc.record).as_bytes());
            }
        }
        verbose_messages(gc);
    }

    fn report(&mut self, stats: &Stats) -> Result<(), String> {
        let text = self.text(stats);
        if let Some(out) = self.out.as_mut() {
            out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| write_error(&self.target, e))?;
        }
        Ok(())
    }
}

/// OCaml's verbose bits 0x001 (major cycles), 0x002 (minor collections)
/// and 0x004 (heap growth and shrinkage), on stderr.
fn verbose_messages(gc: &GcEnd<'_>) {
    let collected = gc.req.collect_gen;
    if gc.verbose & 0x001 != 0 && gc.major {
        let _ = writeln!(std::io::stderr(), "gclab: major GC cycle (generations 0..={collected}){}", if gc.outcome.compacted { ", compacted" } else { "" });
    }
    if gc.verbose & 0x002 != 0 && !gc.major {
        let _ = writeln!(std::io::stderr(), "gclab: minor collection (generations 0..={collected})");
    }
    if gc.verbose & 0x004 != 0 {
        let blocks = gc.heap.blocks.lock();
        let _ = writeln!(std::io::stderr(), "gclab: heap: {} megablocks mapped, {} returned to the OS so far, {} touched ahead in reserve", blocks.mblocks().mapped(), blocks.mblocks().returned(), blocks.mblocks().reserved());
    }
}

