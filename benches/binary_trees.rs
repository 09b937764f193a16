//! binary-trees at depth 16 under each collector and a few allocation
//! area sizes: total run time of the workload, GC included.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn binary_trees(c: &mut Criterion) {
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let mut group = c.benchmark_group("binary-trees-16");
    group.sample_size(10);
    for setting in ["-A1m", "-A4m", "-A64m", "-G1", "-G3", "-c"] {
        let mut flags = gclab::flags(setting).unwrap();
        let (entry, _) = gclab_collectors::select(&mut flags, None).unwrap();
        group.bench_function(BenchmarkId::new(entry.name, setting), |b| {
            b.iter(|| gclab::run_workload(w, &[16], flags.clone(), entry.make(&flags).unwrap(), &mut std::io::sink()).unwrap().checksum)
        });
    }
    group.finish();
}

criterion_group!(benches, binary_trees);
criterion_main!(benches);
