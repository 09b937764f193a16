//! Where the statistics reports go: the `-S` line of every GC as it ends
//! (an observer of GCs), OCaml's verbose GC messages on stderr, and the
//! `-s`/`-t` report at exit (`report` makes the text).

use crate::observe::{GcEnd, GcObserver};
use crate::report::{gc_table_header, gc_table_line};
use std::io::Write;

/// Where `-s`, `-S` and `-t` go: the `-S` line of every GC as it ends,
/// OCaml's verbose messages on stderr, and the summary at exit.
pub struct StatsOutput {
    out: Option<Box<dyn Write + Send>>,
    per_gc: bool,
}

impl StatsOutput {
    /// Output to `out` (None: nothing is printed); `per_gc`: `-S`, a line
    /// per GC after the table's header, written now.
    pub fn new(mut out: Option<Box<dyn Write + Send>>, per_gc: bool) -> std::io::Result<StatsOutput> {
        if per_gc {
            if let Some(o) = out.as_mut() {
                o.write_all(gc_table_header().as_bytes())?;
            }
        }
        Ok(StatsOutput { out, per_gc })
    }

    /// Write the report at exit.
    pub fn finish(&mut self, text: &str) -> std::io::Result<()> {
        if let Some(out) = self.out.as_mut() {
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        Ok(())
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
        let _ = writeln!(std::io::stderr(), "gclab: heap: {} megablocks mapped, {} returned to the OS so far", blocks.mblocks().mapped(), blocks.mblocks().returned());
    }
}

