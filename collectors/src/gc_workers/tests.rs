//! The GC thread pool's tests: gates, late threads and cancellation.

use super::{Arrival, Company, GcWorkers, ARRIVED, DONE};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Keep the pool's only thread busy until the sender is dropped.
fn occupy_pool(w: &GcWorkers) -> mpsc::Sender<()> {
    let (release, wait) = mpsc::channel::<()>();
    let (busy, is_busy) = mpsc::channel::<()>();
    w.pool.spawn(move || {
        busy.send(()).expect("the test waits");
        let _ = wait.recv();
    });
    is_busy.recv().expect("the pool thread started");
    release
}

#[test]
fn the_leader_cancels_a_thread_that_has_not_started_and_it_never_runs_the_job() {
    for arrival in [Arrival::Open, Arrival::Admitted] {
        let w = GcWorkers::new(2, Duration::from_secs(60), None);
        let ran = [AtomicBool::new(false), AtomicBool::new(false)];
        let release = occupy_pool(&w);
        w.run(&|i, _| ran[i].store(true, Ordering::SeqCst), &|| {}, arrival, &|_| true).expect("no thread panics");
        assert!(ran[0].load(Ordering::SeqCst), "{arrival:?}: the leader ran its part");
        drop(release);
        then_the_pool_runs_the_next_call_and_not_the_cancelled_one(&w, &ran[1]);
    }
}

fn then_the_pool_runs_the_next_call_and_not_the_cancelled_one(w: &GcWorkers, cancelled_ran: &AtomicBool) {
    // The pool thread now reaches the cancelled call, then this one.
    let later = AtomicUsize::new(0);
    w.run(
        &|_, _| {
            later.fetch_add(1, Ordering::SeqCst);
        },
        &|| {},
        Arrival::AllWaited,
        &|_| true,
    ).expect("no thread panics");
    assert_eq!(later.load(Ordering::SeqCst), 2, "both threads ran the next call");
    assert!(!cancelled_ran.load(Ordering::SeqCst), "a cancelled thread never runs the job");
}

#[test]
fn a_thread_with_no_work_is_not_woken_unless_every_thread_must_take_part() {
    let w = GcWorkers::new(3, Duration::from_secs(60), None);
    let ran: [AtomicBool; 3] = Default::default();
    w.run(&|i, _| ran[i].store(true, Ordering::SeqCst), &|| {}, Arrival::Admitted, &|i| i == 2).expect("no thread panics");
    // Thread 2 may have come in or been cancelled; thread 1 never ran.
    assert!(ran[0].load(Ordering::SeqCst) && !ran[1].load(Ordering::SeqCst));
    let ran: [AtomicBool; 3] = Default::default();
    w.run(&|i, _| ran[i].store(true, Ordering::SeqCst), &|| {}, Arrival::AllWaited, &|_| false).expect("no thread panics");
    assert!(ran.iter().all(|r| r.load(Ordering::SeqCst)), "a call that every thread must take part in wakes them all");
}

#[test]
fn a_pool_thread_waits_at_its_gate_until_the_leader_lets_it_in() {
    let w = GcWorkers::new(2, Duration::from_secs(60), None);
    let ran = AtomicBool::new(false);
    let seen = std::sync::Mutex::new(Vec::new());
    let job = |i: usize, company: Option<&Company>| {
        if i == 1 {
            ran.store(true, Ordering::SeqCst);
            return;
        }
        let c = company.expect("the leader of an Arrival::Admitted call has the company");
        let gate = &c.0.states[1];
        while gate.load(Ordering::SeqCst) != ARRIVED {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(20));
        let mut seen = seen.lock().unwrap();
        seen.push(("arrived, not let in", ran.load(Ordering::SeqCst)));
        let mut parallel = false;
        c.poll(&mut parallel);
        seen.push(("let in: the leader claims", parallel));
        while gate.load(Ordering::SeqCst) != DONE {
            std::thread::yield_now();
        }
        c.poll(&mut parallel);
        seen.push(("done: the leader is alone again", !parallel));
    };
    w.run(&job, &|| {}, Arrival::Admitted, &|_| true).expect("no thread panics");
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen, [("arrived, not let in", false), ("let in: the leader claims", true), ("done: the leader is alone again", true)]);
    assert!(ran.load(Ordering::SeqCst));
}

#[test]
fn a_team_that_must_all_take_part_waits_for_a_late_thread() {
    let w = GcWorkers::new(2, Duration::from_secs(60), None);
    let ran = [AtomicBool::new(false), AtomicBool::new(false)];
    let release = occupy_pool(&w);
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        drop(release);
    });
    w.run(&|i, _| ran[i].store(true, Ordering::SeqCst), &|| {}, Arrival::AllWaited, &|_| true).expect("no thread panics");
    assert!(ran.iter().all(|r| r.load(Ordering::SeqCst)), "run returned before the late thread ran");
    releaser.join().unwrap();
}
