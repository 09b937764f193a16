//! The figures of a run that an experiment can plot or tabulate, by the
//! name its record gives them, with what they are in words and in which
//! unit a reader sees them: times in seconds, pauses in milliseconds,
//! sizes in MiB (1024 x 1024 bytes, everywhere), MMU as a fraction.

/// How a figure is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Seconds, shown as seconds.
    Seconds,
    /// Seconds, shown as milliseconds (pauses).
    Milliseconds,
    /// Bytes, shown as MiB.
    MiB,
    /// A count.
    Count,
    /// A fraction from 0 to 1 (MMU).
    Fraction,
}

impl Unit {
    /// What a record's value is divided by to be shown in this unit.
    pub fn scale(self) -> f64 {
        match self {
            Unit::Milliseconds => 1e-3,
            Unit::MiB => 1024.0 * 1024.0,
            _ => 1.0,
        }
    }

    /// The unit's name on an axis or in a table's header ("" for none).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Milliseconds => "ms",
            Unit::MiB => "MiB",
            Unit::Count | Unit::Fraction => "",
        }
    }
}

/// A figure: its record name, its words, its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FigureName {
    /// As the record names it (`gc_elapsed`).
    pub name: &'static str,
    /// In words (`GC time`).
    pub words: &'static str,
    /// How it is shown.
    pub unit: Unit,
}

const fn f(name: &'static str, words: &'static str, unit: Unit) -> FigureName {
    FigureName { name, words, unit }
}

/// Every figure an experiment's `plot.figures` may name.
pub const FIGURES: &[FigureName] = &[
    f("total_elapsed", "total time", Unit::Seconds),
    f("gc_elapsed", "GC time", Unit::Seconds),
    f("mut_elapsed", "mutator time", Unit::Seconds),
    f("minor_gc_elapsed", "minor GCs' time", Unit::Seconds),
    f("major_gc_elapsed", "major GCs' time", Unit::Seconds),
    f("gc_cpu", "GC CPU time", Unit::Seconds),
    f("total_cpu", "total CPU time", Unit::Seconds),
    f("allocated_bytes", "allocated", Unit::MiB),
    f("copied_bytes", "copied", Unit::MiB),
    f("marked_bytes", "marked in place", Unit::MiB),
    f("swept_bytes", "freed by sweeping", Unit::MiB),
    f("max_hole_bytes", "most free space in holes", Unit::MiB),
    f("mutator_hole_bytes", "allocated by mutators into holes", Unit::MiB),
    f("reclaimed_line_bytes", "freed as lines", Unit::MiB),
    f("reclaimed_block_bytes", "freed as whole blocks", Unit::MiB),
    f("defrag_copied_bytes", "copied to defragment", Unit::MiB),
    f("compaction_slid_bytes", "slid by compactions", Unit::MiB),
    f("blocks_left_in_place", "blocks compactions left in place", Unit::Count),
    f("compaction_hole_bytes", "holes compactions left", Unit::MiB),
    f("concurrent_elapsed", "time collecting beside the mutators", Unit::Seconds),
    f("copy_out_bytes", "copied out beside the mutators", Unit::MiB),
    f("mutator_copies", "objects mutators copied at the read barrier", Unit::Count),
    f("barrier_slow_paths", "read-barrier slow paths", Unit::Count),
    f("degenerate_collections", "degenerate collections", Unit::Count),
    f("max_live_bytes", "max live data", Unit::MiB),
    f("max_mem_in_use_bytes", "peak memory in use", Unit::MiB),
    f("max_rss_bytes", "peak RSS", Unit::MiB),
    f("gcs", "GCs", Unit::Count),
    f("major_gcs", "major GCs", Unit::Count),
    f("pause_count", "pauses", Unit::Count),
    f("pause_p50", "median pause", Unit::Milliseconds),
    f("pause_p90", "90th percentile pause", Unit::Milliseconds),
    f("pause_p99", "99th percentile pause", Unit::Milliseconds),
    f("pause_p99_9", "99.9th percentile pause", Unit::Milliseconds),
    f("pause_max", "longest pause", Unit::Milliseconds),
    f("safepoint_p50", "median time to safepoint", Unit::Milliseconds),
    f("safepoint_p99", "99th percentile time to safepoint", Unit::Milliseconds),
    f("safepoint_max", "longest time to safepoint", Unit::Milliseconds),
    f("mmu_1ms", "MMU at 1 ms", Unit::Fraction),
    f("mmu_2ms", "MMU at 2 ms", Unit::Fraction),
    f("mmu_5ms", "MMU at 5 ms", Unit::Fraction),
    f("mmu_10ms", "MMU at 10 ms", Unit::Fraction),
    f("mmu_20ms", "MMU at 20 ms", Unit::Fraction),
    f("mmu_50ms", "MMU at 50 ms", Unit::Fraction),
    f("mmu_100ms", "MMU at 100 ms", Unit::Fraction),
    f("mmu_200ms", "MMU at 200 ms", Unit::Fraction),
    f("mmu_500ms", "MMU at 500 ms", Unit::Fraction),
    f("mmu_1s", "MMU at 1 s", Unit::Fraction),
    f("mmu_2s", "MMU at 2 s", Unit::Fraction),
    f("mmu_5s", "MMU at 5 s", Unit::Fraction),
    f("mmu_10s", "MMU at 10 s", Unit::Fraction),
];

/// The figure called `name`, if it is one.
pub fn figure_named(name: &str) -> Option<FigureName> {
    FIGURES.iter().copied().find(|f| f.name == name)
}

/// Every figure's record name.
pub fn names() -> impl Iterator<Item = &'static str> {
    FIGURES.iter().map(|f| f.name)
}

impl FigureName {
    /// Its label on an axis: words, then the unit (`GC time (s)`).
    pub fn axis_label(&self) -> String {
        match self.unit.name() {
            "" => self.words.to_string(),
            u => format!("{} ({u})", self.words),
        }
    }
}
