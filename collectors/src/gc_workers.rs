//! The GC threads of the parallel collector: a pool kept between GCs, a
//! way to run one job on all of them, and a watchdog.
//!
//! The threads are the leader (the mutator thread that asked for the GC)
//! and a rayon pool of `-qn` - 1 threads, made at the first parallel GC and
//! kept (a GC is too short to pay for spawning threads): each GC spawns the
//! job once per pool thread, each behind a gate that lends it the job (See
//! Note [Late GC threads]), and runs it as thread 0 on the leader.
//!
//! Note [The leader is GC thread 0]
//! ----------------------------------------
//! A first version broadcast the job to a pool of `-qn` threads while the
//! leader slept. Every GC then paid a wake-up of every GC thread and one of
//! the leader at the end, some 50-200 us each on this machine after the
//! mutator has run for a millisecond: a visible share of a minor GC. Now
//! the leader works as thread 0 from the first instant, and at the end it
//! spins for the others, which stop within microseconds of it (termination
//! is collective), instead of sleeping on a latch. Rayon wakes a sleeping
//! pool thread for every job queued, so each pool thread takes one job;
//! and since no job waits for a thread that has not come in, jobs that do
//! pile up on one thread (one cancelled, one current) cannot deadlock.
//!
//! Note [Late GC threads]
//! ----------------------------------------
//! A pool thread sleeps between GCs (the mutator runs for a millisecond or
//! more between minor GCs, too long to spin through on a core the mutators
//! may want), so it joins a GC only once the OS has woken it: tens to
//! hundreds of microseconds here (and now and then milliseconds), as long
//! as a whole minor GC. When each thread's part of a GC was its own (its
//! capabilities' roots and mutable lists and everything it copies from
//! them, See Note [Roots by capability] in `trace`), every GC waited for
//! the latest thread, and a program with one busy capability paid a
//! wake-up at every minor GC for a thread with nothing to do.
//!
//! Now a capability's roots and mutable lists are a *share* that any GC
//! thread may claim: each thread takes its own share first, then every
//! share still unclaimed, evacuating into its own to-space (objects are
//! claimed one by one, whoever copies them, so nothing else ties a share
//! to a thread). And the leader does not wait for a pool thread that is
//! not in yet: when its own work is done it cancels, through that thread's
//! gate, any thread still asleep or waiting to be let in (below), which
//! returns at once without touching the GC's data. The gate is also what
//! makes lending the job sound: the leader cannot return while a thread
//! has passed the gate and not come out. So a GC at `-qn2` does no more
//! work than at `-qn1` when the other thread is late: a wake-up call, and
//! a look at the gates between blocks. Without balancing a thread
//! scavenges each share it takes before it claims the next, so that a
//! thread a little late still finds its own share.
//!
//! With load balancing a pool thread comes in as soon as it arrives
//! (`Arrival::Open`) and joins the team if the team has not finished (See
//! Note [Joining a team late] in `work_stealing`); the leader cancels
//! those not yet there, as above. Only while a fault is injected does the
//! leader wait for every thread (`Arrival::AllWaited`), so that the fault
//! always strikes the same thread.
//!
//! Note [A GC thread alone claims nothing]
//! ----------------------------------------
//! A GC thread that shares from-space with others claims each object it
//! copies with a compare-and-swap (Note [Claiming an object] in
//! `evacuate`), which waits for the copy's stores to drain: half of the
//! samples of `evacuate_uncommon` in lru's parallel minor GCs fell on it,
//! where the copies are 17-word byte arrays. But in a GC without
//! balancing the leader works alone until a pool thread comes in, and in a
//! program with one busy capability it often works alone throughout, so
//! it should store forwarding pointers plainly, as a sequential GC does.
//! So in such a GC a pool thread does not come in by itself: it waits at
//! its gate (ARRIVED) until the leader lets it in, and the leader, between
//! to-space blocks and between the phases of a share, looks at the gates
//! (`Company::poll`): if any thread is waiting or in, it turns claiming on
//! *before* letting the waiting ones in; if every thread is still asleep,
//! done or cancelled, it turns claiming off. Letting a thread in is a
//! release of its gate that the thread acquires, so it sees every plain
//! forwarding pointer the leader stored before; a thread's DONE is a
//! release the leader acquires, so the leader, alone again, sees every
//! claim that thread made. A thread waits at most one block's scan of the
//! leader to be let in.
//!
//! Note [Waking only threads with work]
//! ----------------------------------------
//! Without balancing a GC thread can only take shares of the GC, and a
//! share with no roots and no mutable-list entries has nothing to start
//! from: in a program with one busy capability, every other capability's
//! share is empty at every minor GC. Waking a pool thread for it was not
//! free even when the leader never waited for it: a wake-up is an
//! interrupt to the other core, which on this virtual machine now and
//! then stalls the leader for milliseconds (the host runs the woken core
//! in its place).
//! Measured at `-N2`, `-qn2` against `-qn1`, 5 alternated rounds: minor
//! GCs of constraints (213 GCs of about 30 us) took 3.4x the time, with
//! pauses up to 3.6 ms, lru's 1.48x and linear's 1.25x. So a GC without
//! balancing wakes only the pool threads whose own share has roots; the
//! others are cancelled before they are spawned. With balancing every
//! thread is woken: a thread with an empty share steals.
//!
//! Note [A failing GC thread]
//! ----------------------------------------
//! A GC thread that panics or stops making progress must not hang the
//! process. A panic is caught on the thread itself: it aborts the team
//! (the other threads stop looking for work, See `work_stealing`) and the
//! leader then fails the run with the thread's message. A stalled thread
//! cannot be caught from outside: the watchdog thread, which watches the
//! heartbeats of the busy GC threads, ends the process with a message and
//! GHC's internal-error exit code (254) once a busy thread has not beaten
//! for the stall timeout (60 s, or `GCLAB_GC_STALL_SECONDS`). Nothing
//! short of that is safe, since the stalled thread still holds the heap.
//! For tests, `GCLAB_GC_FAULT=panic` or `=stall` makes the last GC thread
//! of the first parallel GC panic or stall, `=late` makes every pool
//! thread, and every stopped mutator thread that comes to help, reach
//! every parallel GC 20 ms late (See Note [Late GC threads]), and
//! `=late-pool` only the pool threads (See Note [Stopped mutators help
//! the GC] in core's `gc_help`).

use crate::work_stealing::Heartbeats;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use gclab_core::gc_help::HelpBoard;
use gclab_core::process_usage::thread_cpu_seconds;
use gclab_core::lock::Lock;
use gclab_core::RtsFlags;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exit code of a GC that cannot finish (GHC's `EXIT_INTERNAL_ERROR`).
pub const EXIT_INTERNAL_ERROR: i32 = 254;

/// An injected fault, for the tests of Note [A failing GC thread].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The last GC thread panics.
    Panic,
    /// The last GC thread sleeps for ever.
    Stall,
    /// Every pool thread reaches every GC late, and so does a stopped
    /// mutator thread that comes to help (See Note [Stopped mutators help
    /// the GC] in core's `gc_help`).
    Late,
    /// Every pool thread reaches every GC late; a stopped mutator thread
    /// that comes to help is on time.
    LatePool,
}

/// How late `Fault::Late` and `Fault::LatePool` make a pool thread.
const LATE_ARRIVAL: Duration = Duration::from_millis(20);

impl Fault {
    /// The fault `GCLAB_GC_FAULT` asks for, if any.
    pub fn from_env() -> Option<Fault> {
        match std::env::var("GCLAB_GC_FAULT").ok()?.as_str() {
            "panic" => Some(Fault::Panic),
            "stall" => Some(Fault::Stall),
            "late" => Some(Fault::Late),
            "late-pool" => Some(Fault::LatePool),
            _ => None,
        }
    }
}

/// What the watchdog watches.
struct Watched {
    heartbeats: Heartbeats,
    gc_running: AtomicBool,
    gc_number: AtomicU64,
    shutdown: AtomicBool,
}

/// A pool of GC threads and its watchdog.
pub struct GcWorkers {
    pool: rayon::ThreadPool,
    watched: Arc<Watched>,
    fault: Option<Fault>,
    /// Where each call is posted for the mutator threads stopped for the
    /// GC (See Note [Stopped mutators help the GC] in core's `gc_help`).
    help: Option<Arc<HelpBoard>>,
}

impl GcWorkers {
    /// `threads` GC threads (the caller and `threads - 1` in the pool);
    /// stalls are reported after `stall_timeout`.
    pub fn new(threads: usize, stall_timeout: Duration, fault: Option<Fault>) -> GcWorkers {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.saturating_sub(1).max(1))
            .thread_name(|i| format!("gclab-gc-{}", i + 1))
            .build()
            .unwrap_or_else(|e| panic!("cannot start {threads} GC threads: {e}"));
        let watched = Arc::new(Watched {
            heartbeats: Heartbeats::new(threads),
            gc_running: AtomicBool::new(false),
            gc_number: AtomicU64::new(0),
            shutdown: AtomicBool::new(false),
        });
        let w = watched.clone();
        std::thread::Builder::new()
            .name("gclab-gc-watchdog".into())
            .spawn(move || watchdog(&w, stall_timeout))
            .expect("the OS refused the GC watchdog thread");
        GcWorkers { pool, watched, fault, help: None }
    }

    /// Post each call on `board`, for mutator threads stopped for the GC
    /// to take a pool thread's part (See Note [Stopped mutators help the
    /// GC] in core's `gc_help`).
    pub fn helped_by(mut self, board: Arc<HelpBoard>) -> GcWorkers {
        board.arm();
        self.help = Some(board);
        self
    }

    /// Number of GC threads.
    pub fn threads(&self) -> usize {
        self.watched.heartbeats.len()
    }

    /// The heartbeats the threads of a GC mark.
    pub fn heartbeats(&self) -> &Heartbeats {
        &self.watched.heartbeats
    }

    /// Run `job(i, company)` on GC thread `i`, for the threads that come in
    /// as `arrival` says, and wait for those. Thread 0 is the caller (See
    /// Note [The leader is GC thread 0]) and, with `Arrival::Admitted`, the
    /// one that gets the `Company` through which pool threads are let in;
    /// then only the pool threads `wake` names are woken (See Note [Waking
    /// only threads with work]). `abort` is called when a thread panics,
    /// so that the others stop; the result names the first thread that
    /// panicked and its message.
    pub fn run(&self, job: &(dyn Fn(usize, Option<&Company>) + Sync), abort: &(dyn Fn() + Sync), arrival: Arrival, wake: &dyn Fn(usize) -> bool) -> Result<(), String> {
        let gc = self.watched.gc_number.fetch_add(1, Ordering::Relaxed) + 1;
        let threads = self.threads();
        let fault = match self.fault {
            Some(f @ (Fault::Late | Fault::LatePool)) => Some(f),
            f if gc == 1 => f,
            _ => None,
        };
        let arrival = if matches!(fault, Some(Fault::Panic | Fault::Stall)) { Arrival::AllWaited } else { arrival };
        for i in 0..threads {
            self.watched.heartbeats.set_resting(i, false);
        }
        self.watched.gc_running.store(true, Ordering::SeqCst);
        let gates = Arc::new(Gates::new(threads, arrival));
        let company = (arrival == Arrival::Admitted).then(|| Company(gates.clone()));
        let failures: Lock<Vec<(usize, String)>> = Lock::new(Vec::new());
        let one = |i: usize| {
            // The leader's CPU time is counted on its own clock; a helper
            // counts its own (See Note [A GC's CPU time] in the runtime's
            // `driver`).
            let cpu_in = (i != 0).then(thread_cpu_seconds);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match fault {
                Some(Fault::Panic) if i == threads - 1 => panic!("injected fault (GCLAB_GC_FAULT=panic)"),
                Some(Fault::Stall) if i == threads - 1 => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
                _ => job(i, if i == 0 { company.as_ref() } else { None }),
            }));
            if let Err(p) = r {
                abort();
                failures.lock().push((i, panic_message(&*p)));
            }
            if let (Some(cpu_in), Some(board)) = (cpu_in, &self.help) {
                board.count_helper_cpu(thread_cpu_seconds() - cpu_in);
            }
            self.watched.heartbeats.set_resting(i, true);
        };
        let call = Arc::new(Call::new(&one, gates.clone(), fault == Some(Fault::Late)));
        if let Some(board) = &self.help {
            let call = call.clone();
            board.post(Arc::new(move || call.enter_any(threads)));
        }
        {
            // Declared before the pool threads are spawned, so that even an
            // unwinding leader waits at its end for those it let in.
            let _end = EndOfCall { gates: &gates, heartbeats: &self.watched.heartbeats };
            let late_pool = fault == Some(Fault::LatePool);
            for i in 1..threads {
                if arrival == Arrival::Admitted && !wake(i) {
                    gates.states[i].store(CANCELLED, Ordering::Relaxed);
                    self.watched.heartbeats.set_resting(i, true);
                    continue;
                }
                let call = call.clone();
                self.pool.spawn(move || {
                    if late_pool {
                        std::thread::sleep(LATE_ARRIVAL);
                    }
                    call.enter(i);
                });
            }
            one(0);
        }
        if let Some(board) = &self.help {
            board.withdraw();
        }
        self.watched.gc_running.store(false, Ordering::SeqCst);
        let mut failures = failures.into_inner();
        failures.sort();
        match failures.into_iter().next() {
            Some((i, msg)) => Err(format!("GC thread {i} panicked in parallel GC {gc}: {msg}")),
            None => Ok(()),
        }
    }
}

/// How pool threads come in to a call, and whether the leader waits for
/// those not in by the time its own work is done (See Note [Late GC
/// threads]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Each comes in when it arrives, and the leader waits for all (an
    /// injected fault must strike its thread).
    AllWaited,
    /// Each comes in when it arrives; those not there when the leader is
    /// done are cancelled (a balanced team, which latecomers join).
    Open,
    /// Each waits at its gate until the leader lets it in; those not in
    /// when the leader is done are cancelled (a GC without balancing: See
    /// Note [A GC thread alone claims nothing]).
    Admitted,
}

/// Where a pool thread stands in one call (a gate's states).
const WAITING: u8 = 0;
/// At its gate, waiting to be let in (`Arrival::Admitted`).
const ARRIVED: u8 = 1;
const STARTED: u8 = 2;
const DONE: u8 = 3;
const CANCELLED: u8 = 4;

/// The gates of one call, one per thread (thread 0's unused).
struct Gates {
    states: Vec<AtomicU8>,
    arrival: Arrival,
}

impl Gates {
    fn new(threads: usize, arrival: Arrival) -> Gates {
        Gates { states: (0..threads).map(|_| AtomicU8::new(WAITING)).collect(), arrival }
    }

    /// Pool thread `i` arrives: true once it may run the job, false if
    /// the leader has cancelled its turn.
    fn pass(&self, i: usize) -> bool {
        let gate = &self.states[i];
        if self.arrival != Arrival::Admitted {
            return gate.compare_exchange(WAITING, STARTED, Ordering::AcqRel, Ordering::Acquire).is_ok();
        }
        if gate.compare_exchange(WAITING, ARRIVED, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return false;
        }
        let mut spins = 0u32;
        loop {
            match gate.load(Ordering::Acquire) {
                STARTED => return true,
                CANCELLED => return false,
                _ => back_off(&mut spins),
            }
        }
    }

    /// The leader's end, for pool thread `i`: cancel its turn if it is not
    /// in (unless `Arrival::AllWaited`), else wait until it is done. True
    /// when it was cancelled.
    fn close(&self, i: usize) -> bool {
        let gate = &self.states[i];
        if self.arrival != Arrival::AllWaited {
            for outside in [WAITING, ARRIVED] {
                match gate.compare_exchange(outside, CANCELLED, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) | Err(CANCELLED) => return true,
                    Err(_) => {}
                }
            }
        }
        // Those let in end within microseconds of the leader (they stop
        // together); spinning spares the leader a sleep and a wake-up at
        // the end of every GC.
        let mut spins = 0u32;
        while gate.load(Ordering::Acquire) != DONE {
            back_off(&mut spins);
        }
        false
    }
}

/// Spin a while, then yield the core.
fn back_off(spins: &mut u32) {
    *spins += 1;
    if *spins < 1000 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// The leader's view of the pool threads in a GC without balancing: it
/// lets in those waiting at their gates, and knows whether it is alone
/// (See Note [A GC thread alone claims nothing]).
#[derive(Clone)]
pub struct Company(Arc<Gates>);

impl Company {
    /// Let in the pool threads waiting at their gates, and set `parallel`
    /// to whether any other GC thread may be evacuating now. It is set
    /// before anyone is let in, so the leader claims every object it
    /// copies from then on.
    pub fn poll(&self, parallel: &mut bool) {
        let others = self.0.states[1..].iter().any(|g| matches!(g.load(Ordering::Acquire), ARRIVED | STARTED));
        *parallel = others;
        if others {
            for gate in &self.0.states[1..] {
                let _ = gate.compare_exchange(ARRIVED, STARTED, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
    }
}

/// One call of `GcWorkers::run`, as its pool threads see it: the job, its
/// borrow's lifetime erased, and the gates (See Note [Late GC threads]).
struct Call {
    job: *const (dyn Fn(usize) + Sync + 'static),
    gates: Arc<Gates>,
    /// `Fault::Late`: threads arrive `LATE_ARRIVAL` late.
    arrive_late: bool,
}

// SAFETY: the job is `Sync`, and it is only called between a gate's
// STARTED and DONE, while the leader that lent it is still in `run`.
unsafe impl Send for Call {}
// SAFETY: as above.
unsafe impl Sync for Call {}

impl Call {
    fn new<'a>(job: &'a (dyn Fn(usize) + Sync + 'a), gates: Arc<Gates>, arrive_late: bool) -> Call {
        let job: *const (dyn Fn(usize) + Sync + 'a) = job;
        // SAFETY: only the lifetime changes; `EndOfCall` keeps the leader
        // in `run` (so the job alive) while any thread may call it.
        let job: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(job) };
        Call { job, gates, arrive_late }
    }

    /// Pool thread `i` arrives: run the job, unless the leader has
    /// cancelled this thread's turn or another thread took it. True if it
    /// ran the job.
    fn enter(&self, i: usize) -> bool {
        if self.arrive_late && self.gates.states[i].load(Ordering::Acquire) == WAITING {
            std::thread::sleep(LATE_ARRIVAL);
        }
        if !self.gates.pass(i) {
            return false;
        }
        // SAFETY: gate i is STARTED, so the leader is still in `run` and
        // the job it lent is alive (See `EndOfCall`).
        unsafe { (*self.job)(i) };
        self.gates.states[i].store(DONE, Ordering::Release);
        true
    }

    /// A mutator thread stopped for the GC arrives: take the turn of the
    /// first pool thread (of `threads`) whose turn is still open (See
    /// Note [Stopped mutators help the GC] in core's `gc_help`). That
    /// pool thread, when it arrives, finds its gate passed and returns.
    fn enter_any(&self, threads: usize) {
        for i in 1..threads {
            if self.enter(i) {
                return;
            }
        }
    }
}

/// The end of a call, on the leader: cancel or wait for each pool thread
/// (`Gates::close`). In `Drop`, so that it also runs if the leader unwinds.
struct EndOfCall<'c> {
    gates: &'c Gates,
    heartbeats: &'c Heartbeats,
}

impl Drop for EndOfCall<'_> {
    fn drop(&mut self) {
        for i in 1..self.gates.states.len() {
            if self.gates.close(i) {
                self.heartbeats.set_resting(i, true);
            }
        }
    }
}

impl Drop for GcWorkers {
    fn drop(&mut self) {
        if let Some(board) = &self.help {
            board.disarm();
        }
        self.watched.shutdown.store(true, Ordering::SeqCst);
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "(no message)".into())
}

/// Watch the busy GC threads' heartbeats; end the process if one stalls
/// (See Note [A failing GC thread]).
fn watchdog(w: &Watched, timeout: Duration) {
    let n = w.heartbeats.len();
    let mut last: Vec<(Option<u64>, Instant)> = vec![(None, Instant::now()); n];
    let tick = (timeout / 10).clamp(Duration::from_millis(10), Duration::from_millis(500));
    while !w.shutdown.load(Ordering::SeqCst) {
        std::thread::sleep(tick);
        let running = w.gc_running.load(Ordering::SeqCst);
        for (i, seen) in last.iter_mut().enumerate() {
            let now = if running { w.heartbeats.busy_beat(i) } else { None };
            if now.is_none() || now != seen.0 {
                *seen = (now, Instant::now());
            } else if seen.1.elapsed() >= timeout {
                eprintln!(
                    "gclab: internal error: GC thread {i} made no progress for {:.1} s in parallel GC {}; the heap cannot be trusted, so the run stops here",
                    seen.1.elapsed().as_secs_f64(),
                    w.gc_number.load(Ordering::Relaxed)
                );
                std::process::exit(EXIT_INTERNAL_ERROR);
            }
        }
    }
}

/// The next `chunk` numbers of `0..len` not yet claimed through `next`,
/// if any: how the threads of one `GcWorkers::run` job share a range,
/// each number taken by exactly one of them.
pub fn claim_range(next: &AtomicUsize, len: usize, chunk: usize) -> Option<std::ops::Range<usize>> {
    let start = next.fetch_add(chunk, Ordering::Relaxed);
    (start < len).then(|| start..(start + chunk).min(len))
}

/// The next `chunk` items of `items` not yet claimed through `next`, if
/// any (`claim_range` over the list's indices).
pub fn claim_chunk<'a, T>(next: &AtomicUsize, items: &'a [T], chunk: usize) -> Option<&'a [T]> {
    claim_range(next, items.len(), chunk).map(|r| &items[r])
}

/// Run `job` on every GC thread of `workers` as they come in
/// (`Arrival::Open`), or on the caller alone when there are none; `abort`
/// as for `GcWorkers::run`. A GC thread's panic ends the run, naming
/// `what` the job was doing.
pub fn run_shared(workers: Option<&GcWorkers>, job: &(dyn Fn(usize, Option<&Company>) + Sync), abort: &(dyn Fn() + Sync), what: &str) {
    match workers {
        Some(w) if w.threads() > 1 => w.run(job, abort, Arrival::Open, &|_| true).unwrap_or_else(|why| panic!("{what}: {why}")),
        _ => job(0, None),
    }
}

/// The stall timeout: `GCLAB_GC_STALL_SECONDS`, else 60 s.
pub fn stall_timeout_from_env() -> Duration {
    let secs = std::env::var("GCLAB_GC_STALL_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).filter(|s| *s > 0.0).unwrap_or(60.0);
    Duration::from_secs_f64(secs)
}

/// How many GC threads a collection of `0..=collect_gen` uses: `-qn`
/// (default `-N`) when `-qg` makes it parallel, else one.
pub fn gc_threads_for(flags: &RtsFlags, collect_gen: usize) -> usize {
    if flags.par_gc_gen.is_some_and(|g| collect_gen >= g) {
        flags.gc_threads()
    } else {
        1
    }
}

/// Does `-qb` ask for load balancing in a parallel collection of
/// `0..=collect_gen`?
pub fn balance_for(flags: &RtsFlags, collect_gen: usize) -> bool {
    flags.par_balance_gen().is_some_and(|g| collect_gen >= g)
}

/// The GC threads a collector keeps between GCs: made at its first
/// parallel collection, remade if `-qn` changes (through `Gc.set`).
pub struct GcThreadPool {
    workers: Option<GcWorkers>,
    fault: Option<Fault>,
}

impl Default for GcThreadPool {
    fn default() -> GcThreadPool {
        GcThreadPool { workers: None, fault: Fault::from_env() }
    }
}

impl GcThreadPool {
    /// The workers and the balancing choice for a collection of
    /// `0..=collect_gen` under `flags` (`-qn`, `-qg`, `-qb`), or None when
    /// it runs on one thread. `help` is the runtime's board for the
    /// mutator threads stopped for the GC (`GcContext::help`).
    pub fn for_collection(&mut self, flags: &gclab_core::RtsFlags, collect_gen: usize, help: &Arc<HelpBoard>) -> Option<(&GcWorkers, bool)> {
        let threads = gc_threads_for(flags, collect_gen);
        if threads == 1 {
            return None;
        }
        if self.workers.as_ref().map(GcWorkers::threads) != Some(threads) {
            self.workers = Some(GcWorkers::new(threads, stall_timeout_from_env(), self.fault).helped_by(help.clone()));
        }
        let workers = self.workers.as_ref().expect("made just above");
        Some((workers, balance_for(flags, collect_gen)))
    }
}

#[cfg(test)]
mod tests;
