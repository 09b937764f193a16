//! The end of a run: what the mutators allocated since the last GC is
//! counted, the heap profile and the observers' outputs are finished (the
//! eventlog's last events, the `-s` report), and the totals are set.

use super::{RunError, Runtime};
use crate::constants::WORD_SIZE;
use crate::observe::RunEnd;
use crate::process_usage::{max_rss_bytes, Stamp};
use crate::stats::Stats;

impl Runtime {
    /// Close the run: account the last allocation, let the observers
    /// write what the run's end adds, fill in the totals and let them
    /// report. Returns the statistics.
    pub fn finish(&self) -> Result<Stats, RunError> {
        let exit_start = Stamp::now();
        // SAFETY: the mutator has returned; nothing else touches the state.
        let st = unsafe { &mut *self.state.get() };
        if let Some(p) = self.profiler.lock().as_mut() {
            p.finish(exit_start.since(&st.start).1).map_err(RunError::Write)?;
        }
        // SAFETY: the mutators have returned: the run is over.
        let caps = unsafe { self.caps_mut() };
        for (i, cap) in caps.iter_mut().enumerate() {
            let allocated = cap.take_allocation();
            st.stats.allocated_bytes += allocated.words * WORD_SIZE as u64;
            st.stats.count_capability_allocation(i, allocated);
        }
        st.stats.note_memory_in_use(self.heap_ref());
        let end = RunEnd { at: std::time::Instant::now(), stats: &st.stats };
        for o in self.observers.lock().iter_mut() {
            o.run_ends(&end).map_err(RunError::Write)?;
        }
        let end = Stamp::now();
        let (exit_cpu, exit_elapsed) = end.since(&exit_start);
        st.stats.exit_cpu = exit_cpu;
        st.stats.exit_elapsed = exit_elapsed;
        let (total_cpu, total_elapsed) = end.since(&st.start);
        st.stats.total_cpu = total_cpu;
        st.stats.total_elapsed = total_elapsed;
        st.stats.max_rss_bytes = max_rss_bytes();
        for o in self.observers.lock().iter_mut() {
            o.report(&st.stats).map_err(RunError::Write)?;
        }
        Ok(st.stats.clone())
    }
}
