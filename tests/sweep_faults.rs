//! A sweep whose results directory fails under it: a disk that fills up
//! (a tiny tmpfs), a directory that turns read-only (the tmpfs remounted),
//! a hand-corrupted `runs.csv`. Each is an error naming the file, never a
//! lost or half-written record, and a resume afterwards finishes the
//! sweep (See Note [A sweep on a full disk] in `sweep`).
//!
//! The tmpfs tests mount file systems, so they need root (CI runs as root).

mod common;

use common::{gclab, TINY};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};



fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A tmpfs of `size` mounted at a fresh directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(name: &str, size: &str) -> Tmpfs {
        let at = std::env::temp_dir().join(format!("gclab-faults-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&at).unwrap();
        let fs = Tmpfs(at);
        fs.mount_with(&format!("size={size}"));
        fs
    }

    fn mount_with(&self, options: &str) {
        let remount = if options.starts_with("remount") { vec![] } else { vec!["-t", "tmpfs", "tmpfs"] };
        let o = Command::new("mount").args(remount).args(["-o", options]).arg(&self.0).output().expect("mount runs");
        assert!(o.status.success(), "mount -o {options} {}: {} (this test mounts a tmpfs: it needs root, as CI has)", self.0.display(), text(&o.stderr));
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The tiny experiment file written into `dir`, and its results directory
/// there (not made yet).
fn tiny_experiment_in(dir: &Path) -> (PathBuf, PathBuf) {
    let file = dir.join("tiny.toml");
    std::fs::write(&file, TINY).unwrap();
    (file, dir.join("out"))
}

fn sweep(file: &Path, out: &Path) -> Output {
    gclab(&["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
}

/// The records in `out`, each of which must read whole, and no temporary
/// file left beside them.
fn whole_records(out: &Path) -> Vec<gclab_experiments::record::RunRecord> {
    let (records, damaged) = gclab_experiments::record::load_records_and_damage(out).unwrap();
    assert!(damaged.is_empty(), "damaged records: {damaged:?}");
    let leftovers: Vec<_> = std::fs::read_dir(out.join("runs")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains(".tmp")).collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    records
}

#[test]
fn a_full_disk_stops_the_sweep_naming_the_file_and_a_resume_finishes_it() {
    let fs = Tmpfs::mount("full", "40k");
    let (file, out) = tiny_experiment_in(&fs.0);
    let o = sweep(&file, &out);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "the sweep went on with a full disk: {err}");
    assert!(err.contains(out.to_str().unwrap()), "the error names no file under the results: {err}");
    assert!(err.contains("No space left on device") || err.contains("could not write its output"), "{err}");
    eprintln!("the full disk's error: {err}");
    let before = whole_records(&out);
    assert!(before.len() < 8, "the disk never filled up: a bigger sweep or a smaller tmpfs is needed");
    assert!(before.iter().all(|r| r.status == gclab_experiments::record::Status::Ok), "a run was recorded failed for want of room");
    fs.mount_with("remount,size=8m");
    let o = sweep(&file, &out);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let says = format!("{} ran ok, 0 failed, {} already recorded", 8 - before.len(), before.len());
    assert!(text(&o.stdout).contains(&says), "{}", text(&o.stdout));
    let after = whole_records(&out);
    assert_eq!(after.len(), 8);
    assert!(after.iter().all(|r| r.status == gclab_experiments::record::Status::Ok));
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap().lines().count(), 9);
}

#[test]
fn a_read_only_directory_is_an_error_naming_the_file_and_loses_nothing() {
    let fs = Tmpfs::mount("ro", "8m");
    let (file, out) = tiny_experiment_in(&fs.0);
    assert!(sweep(&file, &out).status.success());
    let records = std::fs::read_dir(out.join("runs")).unwrap().count();
    fs.mount_with("remount,ro");
    let o = sweep(&file, &out);
    let err = text(&o.stderr);
    assert!(!o.status.success() && err.contains("Read-only file system") && err.contains(out.to_str().unwrap()), "{err}");
    let o = gclab(&["report", out.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert!(!o.status.success() && err.contains("Read-only file system") && err.contains(out.join("runs.csv").to_str().unwrap()), "{err}");
    fs.mount_with("remount,rw");
    assert_eq!(whole_records(&out).len(), records, "a record was lost");
    let o = gclab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// `runs.csv` is an index rebuilt from the records: a hand-corrupted one is
/// rewritten by the next report or sweep, never read as results.
#[test]
fn a_hand_corrupted_runs_csv_is_rebuilt() {
    let dir = std::env::temp_dir().join(format!("gclab-faults-csv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (file, out) = tiny_experiment_in(&dir);
    assert!(sweep(&file, &out).status.success());
    let csv = out.join("runs.csv");
    let good = std::fs::read_to_string(&csv).unwrap();
    for corrupt in ["", "id,status\nx,y,z,w\n\"never closed\n", &good[..good.len() / 3], "\u{0}\u{1}binary\u{ff}"] {
        std::fs::write(&csv, corrupt).unwrap();
        let o = gclab(&["report", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(std::fs::read_to_string(out.join("summary.md")).unwrap().contains("binary-trees"));
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), good, "the report rebuilt runs.csv");
        std::fs::write(&csv, corrupt).unwrap();
        let o = sweep(&file, &out);
        assert!(o.status.success() && text(&o.stdout).contains("8 already recorded"), "{}", text(&o.stderr));
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), good, "the sweep rebuilt runs.csv");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
