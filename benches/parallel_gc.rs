//! GC threads compared on a large live heap: the GC elapsed time (not the
//! whole run) of binary-trees with its long-lived tree, under `-N2` with one
//! and two GC threads, with load balancing from generation 1 (GHC's
//! default), from generation 0, not at all, and parallel in generation 1
//! only (`-qg1`). Each sample is one run; criterion sees the run's own GC
//! elapsed time (`iter_custom`), so mutator noise stays out.
//!
//! `GCLAB_BENCH_DEPTH` (default 18) sets the tree depth, `GCLAB_BENCH_N`
//! (default 2) the capabilities; `-qn` goes from 1 to that.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn gc_elapsed(depth: usize, rts: &str) -> Duration {
    let w = gclab_workloads::by_name("binary-trees").expect("binary-trees is a workload");
    let entry = gclab_collectors::by_name("parallel").expect("parallel is built in");
    let flags = gclab::flags(rts).expect("flags parse");
    let r = gclab::run_workload(w, &[depth], flags.clone(), entry.make(&flags).unwrap(), &mut std::io::sink()).expect("the run succeeds");
    Duration::from_secs_f64(r.stats.gc_elapsed)
}

fn parallel_gc(c: &mut Criterion) {
    let depth = env_usize("GCLAB_BENCH_DEPTH", 18);
    let caps = env_usize("GCLAB_BENCH_N", 2);
    let mut group = c.benchmark_group(format!("gc-elapsed/binary-trees-{depth}/N{caps}"));
    group.sample_size(10);
    let mut settings: Vec<String> = Vec::new();
    let mut qn = 1;
    while qn <= caps {
        settings.push(format!("-qn{qn}"));
        qn *= 2;
    }
    if !settings.contains(&format!("-qn{caps}")) {
        settings.push(format!("-qn{caps}"));
    }
    for extra in ["-qb0", "-qb", "-qg1"] {
        settings.push(format!("-qn{caps} {extra}"));
    }
    for s in settings {
        let rts = format!("-N{caps} {s}");
        group.bench_function(BenchmarkId::from_parameter(&s), |b| b.iter_custom(|iters| (0..iters).map(|_| gc_elapsed(depth, &rts)).sum()));
    }
    group.finish();
}

criterion_group!(benches, parallel_gc);
criterion_main!(benches);
