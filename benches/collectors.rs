//! Every collector on every workload at its small size, one criterion
//! group per workload, so criterion's report sets the collectors side by
//! side. A collector added to the registry is benched without a change
//! here.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gclab_collectors::COLLECTORS;
use gclab_workloads::WORKLOADS;

fn collectors(c: &mut Criterion) {
    for w in WORKLOADS {
        let mut group = c.benchmark_group(format!("workload/{}", w.name));
        group.sample_size(10);
        for entry in COLLECTORS {
            let flags = gclab::flags(&format!("-A256k {}", entry.flags)).expect("flags parse");
            let args: Vec<String> = w.small.iter().map(|a| a.to_string()).collect();
            group.bench_function(BenchmarkId::new(entry.name, args.join(" ")), |b| {
                b.iter(|| gclab::run_workload(w, w.small, flags.clone(), entry.make(&flags).unwrap(), &mut std::io::sink()).expect("the run succeeds").checksum)
            });
        }
        group.finish();
    }
}

criterion_group!(benches, collectors);
criterion_main!(benches);
