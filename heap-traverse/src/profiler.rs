//! The heap profiler the runtime calls (core's `HeapProfiler`): a census or
//! root profile at each sample, written to a `.hp` file, with a final
//! sample at exit.

use crate::census::census;
use crate::hp_file::HpWriter;
use crate::retainer::retainer_profile;
use crate::root_profile::root_profile;
use gclab_core::profiling::{HeapProfiler, ProfileContext};
use std::path::{Path, PathBuf};

/// `-h<kind>` with samples every `interval` seconds into a `.hp` file.
pub struct Profiler {
    kind: char,
    interval: f64,
    last: Option<f64>,
    out: HpWriter,
    path: PathBuf,
    /// The first write that failed.
    failed: Option<std::io::Error>,
    /// Every sample taken: (time, bands). Intervals between samples are
    /// counted in mutator time; the samples are stamped with elapsed time.
    pub samples: Vec<(f64, Vec<(String, u64)>)>,
}

impl Profiler {
    /// A profiler for break-down `kind` writing `path`.
    pub fn new(kind: char, interval: f64, path: &Path, job: &str) -> std::io::Result<Profiler> {
        Ok(Profiler { kind, interval, last: None, out: HpWriter::create(path, job)?, path: path.to_path_buf(), failed: None, samples: Vec::new() })
    }
}

impl HeapProfiler for Profiler {
    fn due(&self, mutator: f64) -> bool {
        // `-i0` samples at every GC: the mutator time between two GCs can
        // read a hair below zero (the last sample's own time is counted
        // from just before `last` was read), which a test of `>= 0` missed
        // when the machine was loaded.
        match self.last {
            None => true,
            Some(_) if self.interval <= 0.0 => true,
            Some(last) => mutator - last >= self.interval,
        }
    }

    fn breakdown(&self) -> char {
        self.kind
    }

    fn interval(&self) -> f64 {
        self.interval
    }

    fn sample(&mut self, ctx: &ProfileContext<'_>) -> Vec<(String, u64)> {
        let bands: Vec<(String, u64)> = match self.kind {
            'o' => root_profile(ctx),
            'r' => retainer_profile(ctx),
            kind => census(ctx, kind).into_iter().collect(),
        };
        if let Err(e) = self.out.sample(ctx.elapsed, &bands) {
            self.failed.get_or_insert(e);
        }
        self.samples.push((ctx.elapsed, bands.clone()));
        self.last = Some(ctx.mutator);
        bands
    }

    fn finish(&mut self, elapsed: f64) -> Result<(), String> {
        let last = self.out.sample(elapsed, &[]).and_then(|()| self.out.flush());
        match self.failed.take().map_or(last, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err(format!("cannot write the heap profile {}: {e}", self.path.display())),
        }
    }
}
