//! Concurrent phases (core's Note [Concurrent phases]): a collector's own
//! thread, running beside the mutators, asks for a stop-the-world sync;
//! a mutator stops the world at its next safe point, the runtime calls the
//! collector's `sync`, the sanity checker runs after it, and the
//! statistics count it. The collector is defined here, as a researcher's
//! would be: copying, plus a background thread started at every major GC
//! that asks for one sync.

use gclab::run_workload;
use gclab_collectors::copying::copy_collect;
use gclab_core::{Collector, GcContext, GcOutcome, GcRequest};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

struct Background {
    syncs: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
}

impl Collector for Background {
    fn name(&self) -> &'static str {
        "background"
    }

    fn collect(&mut self, req: &GcRequest, ctx: &mut GcContext<'_>) -> GcOutcome {
        let outcome = copy_collect(req, ctx, None);
        if req.is_major(ctx.heap) && self.thread.as_ref().is_none_or(|t| t.is_finished()) {
            let request = ctx.sync_request.clone();
            self.thread = Some(std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_micros(200));
                request.request();
            }));
        }
        outcome
    }

    fn sync(&mut self, ctx: &mut GcContext<'_>) {
        // The world is stopped: the collector may look at anything.
        assert!(ctx.heap.gens.iter().map(|g| g.n_blocks).sum::<usize>() > 0);
        self.syncs.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_collectors_thread_asks_for_syncs_and_gets_them_checked() {
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let baseline = gclab::conformance::run_with(gclab_collectors::by_name("copying").unwrap(), w, &[12], "").unwrap();
    for rts in ["-A64k -O64k -DS", "-N2 -A64k -O64k -DS"] {
        let syncs = Arc::new(AtomicUsize::new(0));
        let collector = Background { syncs: syncs.clone(), thread: None };
        let r = run_workload(w, &[12], gclab::flags(rts).unwrap(), Box::new(collector), &mut std::io::sink()).unwrap();
        assert_eq!(r.checksum, baseline.checksum, "+RTS {rts}");
        let n = syncs.load(Ordering::Relaxed) as u64;
        assert!(n >= 3, "+RTS {rts}: only {n} syncs for {} major GCs", r.stats.major_gcs);
        assert_eq!(r.stats.collector_syncs, n, "+RTS {rts}: the statistics count every sync");
        assert_eq!(r.sanity_checks, r.stats.gcs + n, "+RTS {rts}: the sanity checker runs after every sync too");
    }
}
