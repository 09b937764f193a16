//! Reading stable pointers from several threads at once: nanoseconds per
//! read of the stable pointer table (`StablePtrTable::get`, no lock, the
//! epoch pinned: See Note [Reading stable pointers without a lock] in
//! core's `stable_ptr`) against the design it replaced, the same table
//! behind one mutex taken for every read. Each of 1 or 2 threads reads
//! its own pointer over and over; the figure is the wall time over the
//! reads of one thread.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use gclab_core::stable_ptr::{StablePtr, StablePtrTable};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Run `read(thread)` `iters` times on each of `threads` threads at once;
/// the wall time they took.
fn side_by_side(threads: usize, iters: u64, read: &(impl Fn(usize) + Sync)) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                for _ in 0..iters {
                    read(t);
                }
            });
        }
    });
    start.elapsed()
}

fn reads(c: &mut Criterion) {
    let mut group = c.benchmark_group("stable-ptr-read");
    let table = StablePtrTable::new();
    let sps: Vec<StablePtr> = (1..=2).map(|i| table.insert(i * 64)).collect();
    let locked = Mutex::new(vec![64usize, 128]);
    for threads in [1, 2] {
        group.bench_function(BenchmarkId::new("epoch", threads), |b| {
            b.iter_custom(|iters| side_by_side(threads, iters, &|t| {
                black_box(table.get(black_box(sps[t])));
            }))
        });
        group.bench_function(BenchmarkId::new("mutex", threads), |b| {
            b.iter_custom(|iters| side_by_side(threads, iters, &|t| {
                black_box(locked.lock().unwrap()[black_box(t)]);
            }))
        });
    }
    group.finish();
}

criterion_group!(benches, reads);
criterion_main!(benches);
