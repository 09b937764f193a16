//! Sweeps through a real Slurm: a one-node cluster (munge, slurmctld and
//! slurmd from Debian's slurm-wlm, as root, no cgroups) started for the
//! test in a scratch directory, with ports of its own. `.ci/run` installs
//! Slurm; the test never skips.
//!
//! It checks that `gclab sweep --slurm --shards 4` records every run once
//! and says which node ran it; that a task cancelled midway (`scancel
//! JOB_TASK`) is named with Slurm's state, and that sweeping again submits
//! only the shards with missing runs, leaving recorded runs alone; and the
//! errors: no `sbatch` on the PATH, a submission Slurm refuses, and a
//! results directory the nodes do not share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A one-node Slurm cluster, shut down when dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    munge_socket: PathBuf,
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_string()
}

fn run_ok(cmd: &mut Command) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(o.status.success(), "{cmd:?}: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    o
}

impl Cluster {
    fn start() -> Cluster {
        let dir = std::env::temp_dir().join(format!("gclab-slurm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["state", "spool", "log", "munge"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let munge = dir.join("munge");
        let key: Vec<u8> = (0..1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        std::fs::write(munge.join("munge.key"), key).unwrap();
        run_ok(Command::new("chmod").args(["700"]).arg(&munge));
        run_ok(Command::new("chmod").args(["600"]).arg(munge.join("munge.key")));
        let munge_socket = munge.join("sock");
        run_ok(Command::new("munged").arg("--force").arg(format!("--key-file={}", munge.join("munge.key").display())).arg(format!("--socket={}", munge_socket.display())).arg(format!("--pid-file={}", munge.join("pid").display())).arg(format!("--log-file={}", munge.join("log").display())).arg(format!("--seed-file={}", munge.join("seed").display())));
        let port = 20_000 + std::process::id() % 20_000;
        let host = host_name();
        let d = dir.display();
        let conf = format!(
            "ClusterName=gclabtest\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={port}\nSlurmdPort={}\nAuthType=auth/munge\nAuthInfo=socket={}\nCredType=cred/munge\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSwitchType=switch/none\nMpiDefault=none\nReturnToService=2\n\
             SlurmctldPidFile={d}/state/slurmctld.pid\nSlurmdPidFile={d}/state/slurmd.pid\nSlurmdSpoolDir={d}/spool\nStateSaveLocation={d}/state\n\
             SlurmUser=root\nSlurmdUser=root\nSlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd.log\n\
             SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nAccountingStorageType=accounting_storage/none\n\
             JobAcctGatherType=jobacct_gather/none\nMinJobAge=600\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\nPartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
            port + 1,
            munge_socket.display()
        );
        let conf_path = dir.join("slurm.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let cluster = Cluster { dir, conf: conf_path, munge_socket };
        run_ok(cluster.command("slurmctld").arg("-f").arg(&cluster.conf));
        run_ok(cluster.command("slurmd").arg("-f").arg(&cluster.conf).arg("-N").arg(&host));
        let start = Instant::now();
        loop {
            let o = cluster.command("sinfo").args(["--noheader", "--format=%T"]).output().unwrap();
            if String::from_utf8_lossy(&o.stdout).trim() == "idle" {
                return cluster;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "the node never came up idle: {}", String::from_utf8_lossy(&o.stdout));
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// A command that talks to this cluster.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn gclab(&self, args: &[&str]) -> Output {
        self.command(env!("CARGO_BIN_EXE_gclab")).args(args).current_dir(&self.dir).output().unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("scontrol").arg("shutdown").output();
        let _ = Command::new("munged").arg("--stop").arg(format!("--socket={}", self.munge_socket.display())).output();
        std::thread::sleep(Duration::from_millis(500));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn experiment(dir: &Path, name: &str, size: usize, repetitions: usize) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("collectors = [\"copying\", \"mark-sweep\"]\nrepetitions = {repetitions}\n[[workloads]]\nname = \"binary-trees\"\nargs = [{size}]\n[grid]\nA = [\"64k\", \"256k\"]\n")).unwrap();
    path
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The run ids recorded in `dir/runs`, each with its record.
fn records(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut out: Vec<(String, serde_json::Value)> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn submissions(dir: &Path) -> Vec<serde_json::Value> {
    serde_json::from_str::<Vec<serde_json::Value>>(&std::fs::read_to_string(dir.join("slurm/jobs.json")).unwrap()).unwrap()
}

#[test]
fn sweeps_through_a_real_slurm() {
    let c = Cluster::start();
    let host = host_name();

    // Every run recorded once, by a task on this node.
    let small = experiment(&c.dir, "small", 6, 2);
    let out = c.dir.join("r-small");
    let o = c.gclab(&["sweep", small.to_str().unwrap(), "--slurm", "--shards", "4", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("8 runs: 8 ok, 0 failed, 0 missing"), "{}", text(&o));
    let recs = records(&out);
    assert_eq!(recs.len(), 8, "one record per run");
    for (id, r) in &recs {
        assert_eq!(r["status"], "ok", "{id}");
        assert_eq!(r["machine"]["node"], host.as_str(), "{id}: the record says which node ran it");
    }
    let script = std::fs::read_to_string(out.join("slurm/sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3") && script.contains("#SBATCH --exclusive"), "{script}");
    assert_eq!(submissions(&out)[0]["tasks"], serde_json::json!([0, 1, 2, 3]));
    // Again into the same directory: nothing is missing, nothing submitted.
    let o = c.gclab(&["sweep", small.to_str().unwrap(), "--slurm", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success() && text(&o).contains("nothing to submit"), "{}", text(&o));
    assert_eq!(submissions(&out).len(), 1);

    // A task cancelled while it runs: named, and only its shard resubmitted.
    // Runs long enough (binary-trees 19: a second or two each) that the
    // cancel lands inside the shard, not after its last run was recorded
    // (at 17, a loaded machine once saw a task record both its runs
    // before the cancel reached it; at 19 too, with the machine busy
    // compiling beside the test: so up to three tries).
    let mid = experiment(&c.dir, "mid", 19, 2);
    let (out, cancelled, o) = (1..=3).find_map(|attempt| cancel_one_task(&c, &mid, attempt)).expect("in three attempts, a cancel landed inside its task");
    let task_no = cancelled.rsplit_once('_').unwrap().1;
    assert!(text(&o).contains(&format!("task {task_no}: CANCELLED")), "the cancelled task is named with Slurm's state:\n{}", text(&o));
    let before = records(&out);
    assert!(before.len() < 8 && text(&o).contains(&format!("{} missing", 8 - before.len())), "{}", text(&o));
    let o = c.gclab(&["sweep", mid.to_str().unwrap(), "--slurm", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    let subs = submissions(&out);
    assert_eq!(subs.len(), 2);
    assert_eq!(subs[1]["tasks"], serde_json::json!([task_no.parse::<u64>().unwrap()]), "only the cancelled shard is submitted again");
    let after = records(&out);
    assert_eq!(after.len(), 8, "{}", text(&o));
    for (id, r) in &before {
        let again = &after.iter().find(|(a, _)| a == id).unwrap().1;
        assert_eq!(r, again, "{id}: a recorded run is not run again");
    }

    // Errors: a submission Slurm refuses shows Slurm's message.
    let o = c.gclab(&["sweep", small.to_str().unwrap(), "--slurm", "--out", "r-refused", "--sbatch=--partition=nosuchpartition", "--quiet"]);
    assert!(!o.status.success() && text(&o).contains("Slurm refused the job array") && text(&o).contains("partition"), "{}", text(&o));
    // No sbatch on the PATH.
    let o = c.command(env!("CARGO_BIN_EXE_gclab")).args(["sweep", small.to_str().unwrap(), "--slurm", "--out", "r-nopath", "--quiet"]).env("PATH", c.dir.join("nothing-here")).current_dir(&c.dir).output().unwrap();
    assert!(!o.status.success() && text(&o).contains("sbatch is not on the PATH"), "{}", text(&o));
}

/// Sweep `experiment` (four shards of two runs each) into `r-mid-ATTEMPT`,
/// cancelling a running task that is not the last: the results directory,
/// the task's id and the sweep's output, or None when the cancel came
/// after the task had recorded its runs (a loaded machine can delay the
/// test's polling by seconds), so that the caller tries again.
fn cancel_one_task(c: &Cluster, experiment: &Path, attempt: u32) -> Option<(std::path::PathBuf, String, Output)> {
    let out = c.dir.join(format!("r-mid-{attempt}"));
    let follower = c.command(env!("CARGO_BIN_EXE_gclab")).args(["sweep", experiment.to_str().unwrap(), "--slurm", "--shards", "4", "--out", out.to_str().unwrap(), "--quiet"]).current_dir(&c.dir).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    let cancelled = loop {
        assert!(start.elapsed() < Duration::from_secs(120), "no task ever ran");
        if let Ok(text) = std::fs::read_to_string(out.join("slurm/jobs.json")) {
            let job = serde_json::from_str::<Vec<serde_json::Value>>(&text).unwrap()[0]["job"].as_str().unwrap().to_string();
            let q = run_ok(c.command("squeue").args(["--noheader", "--array", "--job", &job, "--states=RUNNING", "--format=%i"]));
            // Cancel a task that has started, but not the last one (its
            // shard's runs would be all that is left).
            if let Some(task) = String::from_utf8_lossy(&q.stdout).lines().next().map(str::to_string).filter(|t| !t.ends_with("_3")) {
                run_ok(c.command("scancel").arg(&task));
                break task;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let o = follower.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    if text(&o).contains(", 0 missing") {
        eprintln!("attempt {attempt}: the cancel of {cancelled} came after its runs were recorded; again");
        return None;
    }
    Some((out, cancelled, o))
}

/// A fake Slurm whose task ran on node9, in the state `state`: sbatch
/// accepts, squeue shows the array gone, scontrol names the state and the
/// node; nothing reaches the results directory. The sweep's output.
fn sweep_under_fake_slurm(dir: &Path, state: &str) -> Output {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let scontrol = format!("echo 'JobId=78 ArrayJobId=77 ArrayTaskId=0 JobState={state} Reason=None ExitCode=0:0 NodeList=node9'");
    for (name, body) in [("sbatch", "echo 77"), ("squeue", "exit 0"), ("scontrol", scontrol.as_str())] {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        run_ok(Command::new("chmod").arg("+x").arg(&p));
    }
    let exp = experiment(dir, "x", 6, 1);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = format!("r-{state}");
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(["sweep", exp.to_str().unwrap(), "--slurm", "--shards", "1", "--out", &out, "--quiet"]).env("PATH", path).current_dir(dir).output().unwrap()
}

/// A task that completed on a node while nothing of it reached the
/// results directory: the directory is not shared, and the sweep says so.
/// A task cancelled on a node may have been stopped before it wrote
/// anything (CI once cancelled one that early): that is no evidence, and
/// the sweep names the cancelled task instead.
#[test]
fn a_directory_the_nodes_do_not_share_is_named() {
    let dir = std::env::temp_dir().join(format!("gclab-fake-slurm-{}", std::process::id()));
    let o = sweep_under_fake_slurm(&dir, "COMPLETED");
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("ran on node9") && text(&o).contains("not on a file system the nodes share"), "{}", text(&o));
    let o = sweep_under_fake_slurm(&dir, "CANCELLED");
    assert!(!text(&o).contains("not on a file system the nodes share"), "{}", text(&o));
    assert!(text(&o).contains("task 0: CANCELLED") && text(&o).contains("4 missing"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
