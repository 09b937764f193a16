//! The syncs a concurrent collector asks for (See Note [Concurrent phases]
//! in `collector`): the next mutator at a safe point stops the world and
//! calls `Collector::sync`; the observers see the sync (its events, the
//! sanity check after it), and the statistics count it as a pause, its
//! CPU time read as a GC's (See Note [A GC's CPU time] in `driver`).

use super::driver::GcCpu;
use super::{unwind_failure, RunState, Runtime};
use crate::process_usage::Stamp;
use std::time::Instant;

impl Runtime {
    /// Stop the world for the collector's own sync and call it.
    #[cold]
    pub(super) fn collector_sync(&self) {
        let world = match self.sync.stop_the_world() {
            Ok(Some(world)) => world,
            Ok(None) => return,
            Err(f) => unwind_failure(f),
        };
        if !self.sync_request.take() {
            return;
        }
        let start = Stamp::now();
        let gc_cpu = GcCpu::start(&self.help);
        self.tell_observers(|o| o.sync_begins(start.wall));
        // SAFETY: Note [Who touches what]: the world is stopped (`world`).
        let st = unsafe { &mut *self.state.get() };
        self.with_gc_context(0, |collector, ctx| {
            for cap in ctx.caps.iter_mut() {
                cap.retire_current_block_keeping_position();
            }
            collector.sync(ctx)
        });
        let collector = self.collector_name();
        self.show_collected(None, &|| format!("a sync of collector {collector}"));
        self.take_collector_events(st);
        let end = Stamp::now();
        self.tell_observers(|o| o.sync_ends(end.wall));
        let (_, elapsed) = end.since(&start);
        let cpu = gc_cpu.seconds(&self.help);
        st.stats.collector_syncs += 1;
        st.stats.collector_sync_elapsed += elapsed;
        st.stats.collector_sync_cpu += cpu;
        st.stats.collector_sync_max = st.stats.collector_sync_max.max(elapsed);
        st.stats.sync_pauses.push((start.since(&st.start).1, elapsed));
        st.stats.gc_cpu += cpu;
        st.stats.gc_elapsed += elapsed;
        self.collector.lock().world_restarts();
        drop(world);
    }

    /// Take what the collector did beyond its GCs: count the concurrent
    /// phases that ended, and show every event to the observers.
    pub(super) fn take_collector_events(&self, st: &mut RunState) {
        let events = self.collector.lock().take_events();
        if events.is_empty() {
            return;
        }
        let now = Instant::now();
        for e in &events {
            st.stats.collector_event(e);
            self.tell_observers(|o| o.collector_event(now, e));
        }
    }
}
