//! GHC's statistics text: `+RTS -S` lines, the `-s` summary, `-t` and
//! `-t --machine-readable`, with GHC 9.0's labels and layout
//! (`rts/Stats.c`), so that a gclab report reads beside GHC's own.
//!
//! One deliberate difference: GHC 9.0's non-threaded runtime prints
//! `%GC time 0.0%` (a known quirk); gclab prints the real figure.

use crate::stats::{GcRecord, Stats};
use std::fmt::Write;

/// `1234567` as `1,234,567`, as GHC's `showStgWord64` writes it.
pub fn with_commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The two header lines of `-S`.
pub fn gc_table_header() -> String {
    "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n    bytes     bytes     bytes   user   elap     user     elap\n".to_string()
}

/// One `-S` line. A parallel GC's line ends with the bytes each GC thread
/// copied (gclab's addition after GHC's columns, which stay as they are).
pub fn gc_table_line(r: &GcRecord) -> String {
    let mut line = format!(
        "{:9} {:9} {:9} {:6.3} {:6.3} {:8.3} {:8.3} {:4} {:4}  (Gen: {:2})",
        r.allocated_bytes, r.copied_bytes, r.live_bytes, r.gc_cpu, r.gc_elapsed, r.total_cpu, r.total_elapsed, r.gc_faults, r.mut_faults, r.gen
    );
    if r.thread_copied_bytes.len() > 1 {
        let per_thread: Vec<String> = r.thread_copied_bytes.iter().map(u64::to_string).collect();
        let _ = write!(line, "  copied per GC thread: {}", per_thread.join(" "));
    }
    if let Some(s) = &r.region {
        let _ = write!(
            line,
            "  lines: {} free ({} B each) in {} recyclable of {} blocks swept, {} blocks freed",
            s.lines_free, s.line_bytes, s.blocks_recyclable, s.blocks_swept, s.blocks_freed
        );
        if s.defrag_blocks > 0 {
            let _ = write!(line, "; defrag: {} blocks, {} bytes copied", s.defrag_blocks, s.defrag_copied_bytes);
        }
    }
    if let Some(c) = &r.compaction {
        let _ = write!(
            line,
            "  compaction: {} of {} blocks left in place ({} B of holes), the first {} unmoved, {} B slid, {} blocks freed",
            c.blocks_left_in_place, c.blocks, c.hole_bytes, c.blocks_unmoved, c.slid_bytes, c.blocks_freed
        );
    }
    line.push('\n');
    line
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// A mark-region collector's sweeps, all together, in one line (none for
/// other collectors): not in GHC's `-s`, so shown after it where gclab
/// reads a run back (`gclab eventlog`).
pub fn region_summary(s: &Stats) -> Option<String> {
    (s.region_sweeps > 0).then(|| {
        format!(
            "  Mark-region: {} sweeps freed {} bytes of lines and {} bytes of whole blocks; {} defragmented, copying {} bytes\n",
            s.region_sweeps,
            with_commas(s.reclaimed_line_bytes),
            with_commas(s.reclaimed_block_bytes),
            s.defrag_gcs,
            with_commas(s.defrag_copied_bytes)
        )
    })
}

/// A sliding compactor's compactions, all together, in one line (none
/// for other collectors): not in GHC's `-s`, so shown after it where
/// gclab reads a run back (`gclab eventlog`).
pub fn compaction_summary(s: &Stats) -> Option<String> {
    let compactions: u64 = s.gens.iter().map(|g| g.compactions).sum();
    (s.compacted_blocks > 0).then(|| {
        format!(
            "  Compaction: {} compactions left {} of {} blocks in place ({} bytes of holes), slid {} bytes and freed {} bytes of blocks\n",
            compactions,
            with_commas(s.blocks_left_in_place),
            with_commas(s.compacted_blocks),
            with_commas(s.compaction_hole_bytes),
            with_commas(s.compaction_slid_bytes),
            with_commas(s.compaction_freed_bytes)
        )
    })
}

/// A concurrent copier's cycles, all together, in one line (none for
/// other collectors): not in GHC's `-s`.
pub fn copy_out_summary(s: &Stats) -> Option<String> {
    let c = &s.copy_out;
    (c.cycles > 0 || c.degenerate > 0).then(|| {
        format!(
            "  Copying out: {} cycles copied {} bytes beside the mutators; mutators copied {} objects ({} bytes) at {} read-barrier slow paths; {} fields updated; {} degenerate collections\n",
            c.cycles,
            with_commas(c.copied_bytes),
            with_commas(c.mutator_copies),
            with_commas(c.mutator_copied_bytes),
            with_commas(c.barrier_slow_paths),
            with_commas(c.updated_fields),
            c.degenerate
        )
    })
}

/// The `-s` summary. Parallel GCs add GHC's work balance line, several
/// capabilities its TASKS line.
pub fn summary(s: &Stats, capabilities: usize) -> String {
    let mut o = String::new();
    let mib = 1024 * 1024;
    let _ = writeln!(o, "{:>16} bytes allocated in the heap", with_commas(s.allocated_bytes));
    if s.mutator_hole_bytes > 0 {
        // Not GHC's: a collector offered the mutators holes of its old
        // blocks (See Note [Allocation regions] in `alloc_region`).
        let share = pct(s.mutator_hole_bytes as f64, s.allocated_bytes as f64);
        let _ = writeln!(o, "{:>16} bytes of it allocated into recycled holes ({share:.1}%)", with_commas(s.mutator_hole_bytes));
    }
    let _ = writeln!(o, "{:>16} bytes copied during GC", with_commas(s.copied_bytes));
    let _ = writeln!(o, "{:>16} bytes maximum residency ({} sample(s))", with_commas(s.max_live_bytes), s.major_gcs);
    if s.partial_gcs > 0 {
        // Not GHC's: GCs that took part of an older generation (See Note
        // [Increments] in the collectors' `from_space`).
        let _ = writeln!(o, "{:>16} partial collections (the young generations and part of an older one)", s.partial_gcs);
    }
    let _ = writeln!(o, "{:>16} bytes maximum slop", with_commas(s.max_slop_bytes));
    let _ = writeln!(
        o,
        "{:16} MiB total memory in use ({} MB lost due to fragmentation)\n",
        s.max_mem_in_use_bytes / mib,
        s.fragmentation_bytes / mib
    );
    o.push_str("                                     Tot time (elapsed)  Avg pause  Max pause\n");
    for (g, gen) in s.gens.iter().enumerate() {
        let avg = if gen.collections > 0 { gen.elapsed / gen.collections as f64 } else { 0.0 };
        let _ = writeln!(
            o,
            "  Gen {:2}     {:5} colls, {:5} par   {:6.3}s  {:6.3}s     {:3.4}s    {:3.4}s",
            g, gen.collections, gen.par_collections, gen.cpu, gen.elapsed, avg, gen.max_pause
        );
    }
    if s.concurrent_collector {
        concurrent_lines(&mut o, s);
    }
    if let Some(line) = copy_out_summary(s) {
        o.push_str(&line);
    }
    o.push('\n');
    if s.gc_threads > 1 {
        let _ = writeln!(o, "  Parallel GC work balance: {:.2}% (serial 0%, perfect 100%)\n", s.work_balance_percent());
    }
    if capabilities > 1 {
        let _ = writeln!(o, "  TASKS: {} (1 bound, {} peak workers ({} total), using -N{})\n", capabilities + 1, capabilities, capabilities, capabilities);
    }
    let line = |o: &mut String, name: &str, cpu: f64, wall: f64| {
        let _ = writeln!(o, "  {name:<7} time  {cpu:7.3}s  ({wall:7.3}s elapsed)");
    };
    line(&mut o, "INIT", s.init_cpu, s.init_elapsed);
    line(&mut o, "MUT", s.mut_cpu(), s.mut_elapsed());
    line(&mut o, "GC", s.gc_cpu, s.gc_elapsed);
    if s.concurrent_collector {
        line(&mut o, "CONC GC", s.concurrent_cpu, s.concurrent_elapsed);
    }
    if s.profiling {
        line(&mut o, "RP", 0.0, 0.0);
        line(&mut o, "PROF", s.prof_cpu, s.prof_elapsed);
    }
    line(&mut o, "EXIT", s.exit_cpu, s.exit_elapsed);
    line(&mut o, "Total", s.total_cpu, s.total_elapsed);
    o.push('\n');
    let _ = writeln!(o, "  %GC     time     {:5.1}%  ({:.1}% elapsed)\n", pct(s.gc_cpu, s.total_cpu), pct(s.gc_elapsed, s.total_elapsed));
    let _ = writeln!(o, "  Alloc rate    {} bytes per MUT second\n", with_commas(alloc_rate(s)));
    let _ = writeln!(
        o,
        "  Productivity {:5.1}% of total user, {:.1}% of total elapsed\n",
        pct(s.mut_cpu(), s.total_cpu),
        pct(s.mut_elapsed(), s.total_elapsed)
    );
    o
}

/// GHC's two nonmoving lines under the generations (See Note [Nonmoving
/// statistics]).
fn concurrent_lines(o: &mut String, s: &Stats) {
    let g = s.gens.len() - 1;
    let (sync_avg, conc_avg) = concurrent_averages(s);
    let _ = writeln!(
        o,
        "  Gen {:2}     {:5} syncs,                      {:6.3}s     {:3.4}s    {:3.4}s",
        g, s.collector_syncs, s.collector_sync_elapsed, sync_avg, s.collector_sync_max
    );
    let _ = writeln!(
        o,
        "  Gen {:2}      concurrent,             {:6.3}s  {:6.3}s     {:3.4}s    {:3.4}s",
        g, s.concurrent_cpu, s.concurrent_elapsed, conc_avg, s.concurrent_max
    );
}

// Note [Nonmoving statistics]
// ----------------------------------------
// With `-xn` GHC adds two lines to `-s`: the syncs (the pauses that end
// each marking) and the concurrent work (the mark thread's CPU time, and
// the wall-clock time from the start of each marking to its end), plus
// `CONC GC time`, which is not counted as MUT CPU time, and seven
// `nonmoving_*` keys to `--machine-readable`. GHC prints its count of
// major collections as the number of syncs and divides both totals by it
// for the averages, though a major GC during a running marking starts no
// marking and so no sync (its eventlogs show fewer syncs than majors).
// gclab prints the syncs it made and the markings it finished, and
// averages over those (its nonmoving collector may also sync more than
// once per marking: See the collector's module doc).

/// Average sync pause and average concurrent phase.
fn concurrent_averages(s: &Stats) -> (f64, f64) {
    let per = |total: f64, n: u64| if n > 0 { total / n as f64 } else { 0.0 };
    (per(s.collector_sync_elapsed, s.collector_syncs), per(s.concurrent_elapsed, s.concurrent_phases))
}

fn alloc_rate(s: &Stats) -> u64 {
    let mut_cpu = s.mut_cpu();
    if mut_cpu > 0.0 {
        (s.allocated_bytes as f64 / mut_cpu) as u64
    } else {
        0
    }
}

fn average_live(s: &Stats) -> u64 {
    s.cumulative_live_bytes.checked_div(s.major_gcs).unwrap_or(0)
}

/// The `-t` line.
pub fn one_line(s: &Stats) -> String {
    format!(
        "<<ghc: {} bytes, {} GCs, {}/{} avg/max bytes residency ({} samples), {}M in use, {:.3} INIT ({:.3} elapsed), {:.3} MUT ({:.3} elapsed), {:.3} GC ({:.3} elapsed) :ghc>>\n",
        s.allocated_bytes,
        s.gcs,
        average_live(s),
        s.max_live_bytes,
        s.major_gcs,
        s.max_mem_in_use_bytes / (1024 * 1024),
        s.init_cpu,
        s.init_elapsed,
        s.mut_cpu(),
        s.mut_elapsed(),
        s.gc_cpu,
        s.gc_elapsed
    )
}

/// GHC's `--machine-readable` key/value list, with its keys.
pub fn machine_readable(s: &Stats) -> String {
    let mut kv: Vec<(String, String)> = vec![
        ("bytes allocated".into(), s.allocated_bytes.to_string()),
        ("num_GCs".into(), s.gcs.to_string()),
        ("average_bytes_used".into(), average_live(s).to_string()),
        ("max_bytes_used".into(), s.max_live_bytes.to_string()),
        ("num_byte_usage_samples".into(), s.major_gcs.to_string()),
        ("peak_megabytes_allocated".into(), (s.max_mem_in_use_bytes / (1024 * 1024)).to_string()),
        ("init_cpu_seconds".into(), format!("{:.6}", s.init_cpu)),
        ("init_wall_seconds".into(), format!("{:.6}", s.init_elapsed)),
        ("mut_cpu_seconds".into(), format!("{:.6}", s.mut_cpu())),
        ("mut_wall_seconds".into(), format!("{:.6}", s.mut_elapsed())),
        ("GC_cpu_seconds".into(), format!("{:.6}", s.gc_cpu)),
        ("GC_wall_seconds".into(), format!("{:.6}", s.gc_elapsed)),
        ("exit_cpu_seconds".into(), format!("{:.6}", s.exit_cpu)),
        ("exit_wall_seconds".into(), format!("{:.6}", s.exit_elapsed)),
        ("total_cpu_seconds".into(), format!("{:.6}", s.total_cpu)),
        ("total_wall_seconds".into(), format!("{:.6}", s.total_elapsed)),
        ("major_gcs".into(), s.major_gcs.to_string()),
        ("allocated_bytes".into(), s.allocated_bytes.to_string()),
        ("max_live_bytes".into(), s.max_live_bytes.to_string()),
        ("max_large_objects_bytes".into(), s.max_large_objects_bytes.to_string()),
        ("max_compact_bytes".into(), "0".into()),
        ("max_slop_bytes".into(), s.max_slop_bytes.to_string()),
        ("max_mem_in_use_bytes".into(), s.max_mem_in_use_bytes.to_string()),
        ("cumulative_live_bytes".into(), s.cumulative_live_bytes.to_string()),
        ("copied_bytes".into(), s.copied_bytes.to_string()),
        ("par_copied_bytes".into(), s.par_copied_bytes.to_string()),
        ("cumulative_par_max_copied_bytes".into(), s.cumulative_par_max_copied_bytes.to_string()),
        ("cumulative_par_balanced_copied_bytes".into(), s.cumulative_par_balanced_copied_bytes.to_string()),
        ("gc_cpu_percent".into(), format!("{:.6}", pct(s.gc_cpu, s.total_cpu) / 100.0)),
        ("gc_wall_percent".into(), format!("{:.6}", pct(s.gc_elapsed, s.total_elapsed) / 100.0)),
        ("fragmentation_bytes".into(), s.fragmentation_bytes.to_string()),
        ("alloc_rate".into(), alloc_rate(s).to_string()),
        ("productivity_cpu_percent".into(), format!("{:.6}", pct(s.mut_cpu(), s.total_cpu) / 100.0)),
        ("productivity_wall_percent".into(), format!("{:.6}", pct(s.mut_elapsed(), s.total_elapsed) / 100.0)),
    ];
    for (g, gen) in s.gens.iter().enumerate() {
        let avg = if gen.collections > 0 { gen.elapsed / gen.collections as f64 } else { 0.0 };
        kv.push((format!("gen_{g}_collections"), gen.collections.to_string()));
        kv.push((format!("gen_{g}_par_collections"), gen.par_collections.to_string()));
        kv.push((format!("gen_{g}_cpu_seconds"), format!("{:.6}", gen.cpu)));
        kv.push((format!("gen_{g}_wall_seconds"), format!("{:.6}", gen.elapsed)));
        kv.push((format!("gen_{g}_max_pause_seconds"), format!("{:.6}", gen.max_pause)));
        kv.push((format!("gen_{g}_avg_pause_seconds"), format!("{:.6}", avg)));
        // gclab's addition (OCaml's `compactions`): GHC prints no such key.
        kv.push((format!("gen_{g}_compactions"), gen.compactions.to_string()));
    }
    if s.concurrent_collector {
        let (sync_avg, conc_avg) = concurrent_averages(s);
        kv.push(("nonmoving_sync_wall_seconds".into(), format!("{:.6}", s.collector_sync_elapsed)));
        kv.push(("nonmoving_sync_max_pause_seconds".into(), format!("{:.6}", s.collector_sync_max)));
        kv.push(("nonmoving_sync_avg_pause_seconds".into(), format!("{:.6}", sync_avg)));
        kv.push(("nonmoving_concurrent_cpu_seconds".into(), format!("{:.6}", s.concurrent_cpu)));
        kv.push(("nonmoving_concurrent_wall_seconds".into(), format!("{:.6}", s.concurrent_elapsed)));
        kv.push(("nonmoving_concurrent_max_pause_seconds".into(), format!("{:.6}", s.concurrent_max)));
        kv.push(("nonmoving_concurrent_avg_pause_seconds".into(), format!("{:.6}", conc_avg)));
    }
    let mut o = String::new();
    for (i, (k, v)) in kv.iter().enumerate() {
        let lead = if i == 0 { " [" } else { " ," };
        let _ = writeln!(o, "{lead}(\"{k}\", \"{v}\")");
    }
    o.push_str(" ]\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commas() {
        assert_eq!(with_commas(0), "0");
        assert_eq!(with_commas(999), "999");
        assert_eq!(with_commas(1000), "1,000");
        assert_eq!(with_commas(7331740696), "7,331,740,696");
    }

    #[test]
    fn gc_line_matches_ghc_layout() {
        let r = GcRecord {
            gen: 0,
            allocated_bytes: 1062752,
            copied_bytes: 1028224,
            live_bytes: 1052856,
            slop_bytes: 0,
            heap_bytes: 2 << 20,
            gc_cpu: 0.002,
            gc_elapsed: 0.004,
            total_cpu: 0.003,
            total_elapsed: 0.006,
            gc_faults: 0,
            mut_faults: 0,
            thread_copied_bytes: vec![],
            compacted: false,
            marked_bytes: 0,
            swept_bytes: 0,
            prefetched_objects: 0,
            scanned_objects: 0,
            hole_bytes: 0,
            region: None,
            compaction: None,
            sync_wait: 0.0,
        };
        // A line of GHC 9.0's own -S output (binary-trees 16).
        assert_eq!(gc_table_line(&r), "  1062752   1028224   1052856  0.002  0.004    0.003    0.006    0    0  (Gen:  0)\n");
    }

    #[test]
    fn a_compactions_line_ends_with_what_it_left_and_slid() {
        let compaction = crate::collector::CompactionRecord { blocks: 36041, blocks_left_in_place: 9021, blocks_unmoved: 0, blocks_freed: 15535, hole_bytes: 96, slid_bytes: 46382712 };
        let r = GcRecord { gen: 1, compacted: true, compaction: Some(compaction), ..GcRecord::default() };
        let line = gc_table_line(&r);
        assert!(line.starts_with("        0         0         0  0.000  0.000    0.000    0.000    0    0  (Gen:  1)  compaction: "), "GHC's columns stay as they are: {line}");
        assert!(line.ends_with("compaction: 9021 of 36041 blocks left in place (96 B of holes), the first 0 unmoved, 46382712 B slid, 15535 blocks freed\n"), "{line}");
    }

    #[test]
    fn summary_lines_match_ghc_layout() {
        let mut s = Stats::new(2, 1);
        s.allocated_bytes = 7331740696;
        s.copied_bytes = 6331560600;
        s.max_live_bytes = 100278280;
        s.major_gcs = 266;
        s.max_slop_bytes = 417784;
        s.max_mem_in_use_bytes = 197 * 1024 * 1024;
        s.gens[0].collections = 6754;
        s.gens[0].cpu = 2.132;
        s.gens[0].elapsed = 2.137;
        s.gens[0].max_pause = 0.0028;
        s.total_cpu = 6.38;
        s.total_elapsed = 6.397;
        let text = summary(&s, 1);
        let lines: Vec<&str> = text.lines().collect();
        // Lines of GHC 9.0's own -s output (binary-trees 20, default flags).
        assert_eq!(lines[0], "   7,331,740,696 bytes allocated in the heap");
        assert_eq!(lines[1], "   6,331,560,600 bytes copied during GC");
        assert_eq!(lines[2], "     100,278,280 bytes maximum residency (266 sample(s))");
        assert_eq!(lines[3], "         417,784 bytes maximum slop");
        assert_eq!(lines[4], "             197 MiB total memory in use (0 MB lost due to fragmentation)");
        assert_eq!(lines[6], "                                     Tot time (elapsed)  Avg pause  Max pause");
        assert_eq!(lines[7], "  Gen  0      6754 colls,     0 par    2.132s   2.137s     0.0003s    0.0028s");
        assert!(text.contains("  Total   time    6.380s  (  6.397s elapsed)"));
    }

    #[test]
    fn nonmoving_lines_match_ghc_layout() {
        let mut s = Stats::new(2, 2);
        s.concurrent_collector = true;
        s.gens[1].collections = 28;
        s.collector_syncs = 28;
        s.collector_sync_elapsed = 0.036;
        s.collector_sync_max = 0.0056;
        s.concurrent_phases = 28;
        s.concurrent_cpu = 2.655;
        s.concurrent_elapsed = 5.727;
        s.concurrent_max = 0.3850;
        s.total_cpu = 12.686;
        let text = summary(&s, 2);
        // Lines of GHC 9.0's own -s output (binary-trees 20, -N2 -xn).
        assert!(text.contains("\n  Gen  1        28 syncs,                       0.036s     0.0013s    0.0056s\n"), "{text}");
        assert!(text.contains("\n  Gen  1      concurrent,              2.655s   5.727s     0.2045s    0.3850s\n"), "{text}");
        assert!(text.contains("\n  CONC GC time    2.655s  (  5.727s elapsed)\n"), "{text}");
        assert!((s.mut_cpu() - (12.686 - 2.655)).abs() < 1e-9, "CONC GC CPU time is not MUT");
        let mr = machine_readable(&s);
        assert!(mr.contains(" ,(\"nonmoving_concurrent_avg_pause_seconds\", \"0.204536\")"), "{mr}");
        assert!(!summary(&Stats::new(2, 1), 1).contains("syncs"), "only a concurrent collector's runs have the lines");
    }
}
