//! Heap profiling after GCs (`-h`): the runtime's side of the
//! `profiling::HeapProfiler` seam. A sample is due every `-i` seconds of
//! mutator time; the GC that finds one due is made major, so that
//! everything in the heap is live when the profiler walks it (GHC does the
//! same), and the sample's time is counted apart, as `-s`'s `PROF` line.
//! The sample goes to the profiler's own file and to the observers (the
//! eventlog's heap-profile events).

use super::driver::mutator_seconds;
use super::{RunState, Runtime};
use crate::constants::Word;
use crate::observe::HeapSample;
use crate::profiling::{HeapProfiler, ProfileContext};
use crate::process_usage::Stamp;
use std::time::Instant;

impl Runtime {
    /// Install a heap profiler: it samples after GCs.
    pub fn set_heap_profiler(&self, p: Box<dyn HeapProfiler>) {
        let (interval, breakdown) = (p.interval(), p.breakdown());
        self.tell_observers(|o| o.heap_profile_begins(Instant::now(), interval, breakdown));
        *self.profiler.lock() = Some(p);
        // SAFETY: called before the mutator runs; nothing else holds the state.
        unsafe { (*self.state.get()).stats.profiling = true };
    }

    /// Is a sample due? (Asked before each GC: See the module doc.)
    pub(super) fn census_due(&self, st: &RunState) -> bool {
        let guard = self.profiler.lock();
        guard.as_ref().map(|p| p.due(mutator_seconds(st))).unwrap_or(false)
    }

    /// Take a heap profile sample now, if a profiler is installed (called
    /// right after a GC, the world stopped).
    pub(super) fn heap_census(&self, st: &mut RunState) {
        let mut guard = self.profiler.lock();
        let Some(profiler) = guard.as_mut() else { return };
        let start = Stamp::now();
        let roots: Vec<(String, Word)> = {
            let stable = self.stable_ptrs();
            self.heap_roots.lock().iter().map(|(n, sp)| (n.clone(), stable.get(*sp))).collect()
        };
        let names = self.cost_centres.lock().names().to_vec();
        let (_, elapsed) = start.since(&st.start);
        let mutator = mutator_seconds(st);
        let bands = profiler.sample(&ProfileContext { heap: self.heap_ref(), caps: self.caps_ref(), roots: &roots, cost_centres: &names, elapsed, mutator });
        let by_cost_centre = profiler.breakdown() == 'c';
        drop(guard);
        let sample = HeapSample { number: st.stats.censuses, at: Instant::now(), bands: &bands, by_cost_centre, cost_centres: &names };
        self.tell_observers(|o| o.heap_sample(&sample));
        let (cpu, wall) = Stamp::now().since(&start);
        st.stats.prof_cpu += cpu;
        st.stats.prof_elapsed += wall;
        st.stats.censuses += 1;
    }
}
