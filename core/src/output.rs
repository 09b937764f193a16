//! Where a file that gclab writes goes when a user names it. A directory
//! given where a prefix or a stem is expected means "in it" (`--plot out/`
//! once wrote `out.svg` beside `out`), and an output that is one of the
//! command's own inputs is refused before anything is read (`eventlog A
//! --trace A` once replaced the eventlog with its trace, and `gclab hp
//! prof.png` drew over its input).

use std::path::{Path, PathBuf};

/// Where a file named `name` goes when the user names `given`: in it if
/// it is a directory (or ends with `/`), else at `given` itself (a prefix
/// or a stem, to which an extension is added).
pub fn prefix_in(given: &Path, name: &str) -> PathBuf {
    if given.is_dir() || given.as_os_str().to_string_lossy().ends_with('/') {
        given.join(name)
    } else {
        given.to_path_buf()
    }
}

/// Refuse to write `output` when it is one of `inputs` (the same file,
/// through whatever path: a link or `./` counts). An output that does not
/// exist yet cannot be an input.
pub fn not_an_input(output: &Path, inputs: &[&Path]) -> Result<(), String> {
    let Ok(written) = std::fs::metadata(output) else { return Ok(()) };
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|read| same_file(&written, &read)) {
            return Err(format!("{} is also the input {}: writing it would destroy what is read; name another output", output.display(), input.display()));
        }
    }
    Ok(())
}

/// Check, before a run, that a file can be written at `path`: its
/// directory exists and it is not itself a directory. (A run that found
/// out at its end lost its work, and `gclab peer` once handed the bad
/// path to GHC's runtime, which printed its usage.)
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("cannot write {}: it is a directory", path.display()));
    }
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(format!("cannot write {}: the directory {} does not exist", path.display(), dir.display())),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_takes_the_name_and_a_prefix_stays() {
        let dir = std::env::temp_dir();
        assert_eq!(prefix_in(&dir, "mmu"), dir.join("mmu"));
        assert_eq!(prefix_in(Path::new("out/"), "mmu"), Path::new("out/mmu"));
        assert_eq!(prefix_in(Path::new("out/cmp"), "mmu"), Path::new("out/cmp"));
    }

    #[test]
    fn a_file_in_a_missing_directory_or_a_directory_is_not_writable() {
        assert!(check_writable(Path::new("x.json")).is_ok());
        assert!(check_writable(Path::new("/nonexistent-dir-of-gclab/x.json")).unwrap_err().contains("the directory /nonexistent-dir-of-gclab does not exist"));
        assert!(check_writable(&std::env::temp_dir()).unwrap_err().contains("it is a directory"));
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_by_any_path() {
        let dir = std::env::temp_dir().join(format!("gclab-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("a.eventlog");
        std::fs::write(&input, "x").unwrap();
        let other = dir.join("b.json");
        assert!(not_an_input(&other, &[&input]).is_ok(), "a file that does not exist yet");
        std::fs::write(&other, "y").unwrap();
        assert!(not_an_input(&other, &[&input]).is_ok());
        let round_about = dir.join(".").join("a.eventlog");
        assert!(not_an_input(&round_about, &[&input]).unwrap_err().contains("is also the input"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
