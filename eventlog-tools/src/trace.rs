//! `gclab eventlog --trace OUT.json`: an eventlog as Chrome's trace-event
//! JSON, which ui.perfetto.dev and chrome://tracing open.
//!
//! Tracks (one process, "threads" by id):
//! - per capability c (tid c): `mutator` from RUN_THREAD to STOP_THREAD,
//!   `stopped` from STOP_THREAD to the next RUN_THREAD (present when the
//!   eventlog has scheduler events: `-l` with `s`, GHC's default);
//! - per GC thread t (tid 1000 + t, its events on capability t): `GC work`
//!   from GC_WORK to GC_IDLE or GC_DONE, `GC idle` from GC_IDLE to the
//!   next GC_WORK or GC_DONE;
//! - GC phases, per capability that posts them (tid 3000 + c: GHC posts
//!   a GC's start and end on every capability, gclab on capability 0):
//!   each GC_START .. GC_END, named by generation where GC_STATS_GHC says;
//! - a concurrent collector's marker (tid 2000): each marking
//!   (CONC_MARK_BEGIN .. END), and a concurrent copier's cycles on the
//!   same track (COPY_OUT_BEGIN .. END, which never overlap a marking);
//!   its sweeper (tid 2001): each sweep (it may
//!   run beside the next marking); its syncs (tid 2002, CONC_SYNC_BEGIN ..
//!   END: a marking ends inside one, and a GHC sync waits for capabilities
//!   that may be in a GC, so syncs overlap both other tracks);
//! - counters: heap size, live bytes and bytes allocated (all
//!   capabilities), in MiB.
//!
//! Every span is a complete event (`"ph": "X"`): an end with no begin is
//! dropped, a begin with no end is closed at the last event's time. A
//! span's two ends come from one capability's buffer (or the buffer of
//! none), whose timestamps never decrease, so its duration is never
//! negative. Spans on one track are disjoint or nested, so that a viewer
//! stacks them as they happened (the tests check both). Times are
//! microseconds.

use crate::reader::EventLogFile;
use gclab_core::eventlog::{id, GcStatsGhc};
use serde_json::{json, Value};
use std::collections::HashMap;

const GC_THREAD_TID: u64 = 1000;
const CONCURRENT_TID: u64 = 2000;
const SWEEPER_TID: u64 = 2001;
const SYNC_TID: u64 = 2002;
const GC_PHASES_TID: u64 = 3000;

/// Open spans, by (track, kind): their names and start times (µs).
#[derive(Default)]
struct Spans {
    open: HashMap<(u64, &'static str), (String, f64)>,
    events: Vec<Value>,
}

impl Spans {
    fn begin(&mut self, tid: u64, kind: &'static str, name: String, at: f64) {
        self.end(tid, kind, at);
        self.open.insert((tid, kind), (name, at));
    }

    fn end(&mut self, tid: u64, kind: &'static str, at: f64) {
        if let Some((name, start)) = self.open.remove(&(tid, kind)) {
            // A viewer ends the span at ts + dur, in floating point: the
            // difference can round so that it ends a hair after the next
            // span on the track begins, which nests the next inside it; and
            // some viewers (speedscope) nest a span that begins exactly
            // where the last one ends. So it ends a hair (an ulp) before.
            let mut dur = (at - start).max(0.0);
            while dur > 0.0 && start + dur >= at {
                dur = dur.next_down();
            }
            self.events.push(json!({"name": name, "cat": kind, "ph": "X", "pid": 1, "tid": tid, "ts": start, "dur": dur}));
        }
    }

    fn rename(&mut self, tid: u64, kind: &'static str, name: String) {
        if let Some(open) = self.open.get_mut(&(tid, kind)) {
            open.0 = name;
        }
    }

    fn close_all(&mut self, at: f64) {
        let open: Vec<(u64, &'static str)> = self.open.keys().copied().collect();
        for (tid, kind) in open {
            self.end(tid, kind, at);
        }
    }
}

fn counter(name: &str, at: f64, mib: f64) -> Value {
    json!({"name": name, "ph": "C", "pid": 1, "ts": at, "args": {"MiB": mib}})
}

fn thread_name(tid: u64, name: String) -> Value {
    json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": name}})
}

/// The trace of `log`, as Chrome's trace-event JSON (See the module doc).
pub fn trace(log: &EventLogFile) -> Value {
    let mut spans = Spans::default();
    let mut counters = Vec::new();
    let mut allocated: HashMap<u16, u64> = HashMap::new();
    let mut tids = std::collections::BTreeSet::new();
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let mut last = 0.0;
    for e in &log.events {
        let at = e.ts as f64 / 1000.0;
        last = f64::max(last, at);
        let cap = e.cap.map(u64::from).unwrap_or(0);
        match e.id {
            id::RUN_THREAD => {
                spans.end(cap, "stopped", at);
                spans.begin(cap, "mutator", "mutator".into(), at);
                tids.insert(cap);
            }
            id::STOP_THREAD => {
                spans.end(cap, "mutator", at);
                spans.begin(cap, "stopped", "stopped".into(), at);
            }
            id::GC_WORK => {
                spans.end(GC_THREAD_TID + cap, "gc idle", at);
                spans.begin(GC_THREAD_TID + cap, "gc work", "GC work".into(), at);
                tids.insert(GC_THREAD_TID + cap);
            }
            id::GC_IDLE => {
                spans.end(GC_THREAD_TID + cap, "gc work", at);
                spans.begin(GC_THREAD_TID + cap, "gc idle", "GC idle".into(), at);
            }
            id::GC_DONE => {
                spans.end(GC_THREAD_TID + cap, "gc work", at);
                spans.end(GC_THREAD_TID + cap, "gc idle", at);
            }
            id::GC_START => {
                spans.begin(GC_PHASES_TID + cap, "gc", "GC".into(), at);
                tids.insert(GC_PHASES_TID + cap);
            }
            id::GC_STATS_GHC => spans.rename(GC_PHASES_TID + cap, "gc", format!("GC (generation {})", GcStatsGhc::decode(&e.payload).gen)),
            id::GC_END => spans.end(GC_PHASES_TID + cap, "gc", at),
            id::CONC_MARK_BEGIN => spans.begin(CONCURRENT_TID, "mark", "concurrent marking".into(), at),
            id::CONC_MARK_END => spans.end(CONCURRENT_TID, "mark", at),
            id::COPY_OUT_BEGIN => spans.begin(CONCURRENT_TID, "copy", "concurrent copying out".into(), at),
            id::COPY_OUT_END => spans.end(CONCURRENT_TID, "copy", at),
            id::CONC_SWEEP_BEGIN => spans.begin(SWEEPER_TID, "sweep", "sweep".into(), at),
            id::CONC_SWEEP_END => spans.end(SWEEPER_TID, "sweep", at),
            id::CONC_SYNC_BEGIN => spans.begin(SYNC_TID, "sync", "sync".into(), at),
            id::CONC_SYNC_END => spans.end(SYNC_TID, "sync", at),
            id::HEAP_SIZE => counters.push(counter("heap size", at, mib(e.field(4, 8)))),
            id::HEAP_LIVE => counters.push(counter("live data", at, mib(e.field(4, 8)))),
            id::HEAP_ALLOCATED => {
                allocated.insert(e.cap.unwrap_or(u16::MAX), e.field(4, 8));
                counters.push(counter("allocated", at, mib(allocated.values().sum())));
            }
            _ => {}
        }
    }
    spans.close_all(last);
    let mut names: Vec<Value> = tids
        .iter()
        .map(|&t| match t {
            t if t >= GC_PHASES_TID => thread_name(t, format!("GC phases (capability {})", t - GC_PHASES_TID)),
            t if t >= GC_THREAD_TID => thread_name(t, format!("GC thread {}", t - GC_THREAD_TID)),
            t => thread_name(t, format!("capability {t}")),
        })
        .collect();
    names.push(thread_name(CONCURRENT_TID, "concurrent marker".into()));
    names.push(thread_name(SWEEPER_TID, "concurrent sweeper".into()));
    names.push(thread_name(SYNC_TID, "concurrent collector's syncs".into()));
    names.push(json!({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "eventlog"}}));
    let mut events = names;
    events.extend(spans.events);
    events.extend(counters);
    json!({"traceEvents": events, "displayTimeUnit": "ms"})
}
