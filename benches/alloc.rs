//! The allocation fast path: nanoseconds per 3-word object (a header and
//! two pointer fields, as a binary-trees node) through `Mutator::alloc`,
//! against a raw bump-pointer loop writing the same three words into a
//! plain buffer, the floor any allocator can reach.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gclab_core::{InfoTable, Rts, StaticObject};

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "Tree", "Bench");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static NODE: InfoTable = InfoTable::constr("Node", "Tree", "Bench", 2, 0);

const BATCH: usize = 4096;

fn raw_bump(c: &mut Criterion) {
    let mut group = c.benchmark_group("alloc-3-words");
    group.throughput(Throughput::Elements(BATCH as u64));
    let mut buf = vec![0usize; BATCH * 3 * 64];
    let mut hp = 0;
    group.bench_function(BenchmarkId::new("raw-bump", BATCH), |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                if hp + 3 > buf.len() {
                    hp = 0;
                }
                buf[hp] = NODE.header();
                buf[hp + 1] = black_box(hp);
                buf[hp + 2] = black_box(hp);
                hp += 3;
            }
            black_box(&buf);
        })
    });
    for (name, a) in [("gclab-A1m", "-A1m"), ("gclab-A64m", "-A64m")] {
        let flags = gclab::flags(a).unwrap();
        let rts = Rts::new(flags.clone(), gclab_collectors::COLLECTORS[0].make(&flags).unwrap()).unwrap();
        rts.run(|m| {
            let nil = m.static_obj(&NIL);
            group.bench_function(BenchmarkId::new(name, BATCH), |b| {
                b.iter(|| {
                    let base = m.depth();
                    for _ in 0..BATCH {
                        let d = m.depth();
                        m.alloc(&NODE, &[nil, nil], &[]);
                        m.truncate(d);
                    }
                    m.truncate(base);
                })
            });
        })
        .unwrap();
    }
    group.finish();
}

criterion_group!(benches, raw_bump);
criterion_main!(benches);
