//! Building a peer program: its source and its language's common file
//! written into a directory of its own, then compiled there.
//!
//! Note [Building peers once]
//! ----------------------------------------
//! A sweep builds each peer it needs before its first run, into the
//! results directory's `peers/` (so the programs a sweep measured stay
//! beside its results), and every run of that peer uses the one build.
//! GHC takes seconds per program, so a resumed sweep must not build
//! again: a build leaves a stamp (the compiler's version and a hash of the
//! sources), and a program whose stamp matches is used as it is. Any
//! change to a source, or another compiler, builds it again. Several
//! processes may build into one directory at once (the shards of a sweep,
//! tests in parallel): a lock file in each peer's directory makes them
//! take turns (the kernel drops it with its holder), and all but the
//! first find the first one's build.
//!
//! GHC peers are built `-threaded`, so that a grid's `-N` and `-qn` reach
//! GHC's runtime as they are written (the non-threaded runtime refuses
//! them); with `-N1`, GHC's threaded runtime collects on one thread, as
//! gclab does.

use super::Language;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The program `workload`'s peer in `language` is built as under `dir`.
pub fn program_path(dir: &Path, workload: &str, language: Language) -> PathBuf {
    let stem = workload.replace('-', "_");
    dir.join(language.name()).join(&stem).join(stem)
}

/// Build (or find already built; See Note [Building peers once]) the peer
/// of `workload` in `language` under `dir`, and return the program.
pub fn build(dir: &Path, workload: &str, language: Language) -> Result<PathBuf, String> {
    if super::is_program(workload) {
        return build_program(dir, Path::new(workload), language);
    }
    let text = super::source(workload, language).ok_or_else(|| format!("workload `{workload}' has no {} peer (it has: {})", language.name(), names(&super::languages_of(workload))))?;
    let program = program_path(dir, workload, language);
    let work = program.parent().expect("a program path has a directory").to_path_buf();
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    // See Note [Building peers once]: builders take turns.
    let lock_path = work.join("lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("{}: cannot lock: {e}", lock_path.display()))?;
    let stamp = format!("{}\n{:016x}\n", compiler_version(language)?, source_hash(text, language.common().1));
    let stamp_path = work.join("stamp");
    if program.exists() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        return Ok(program);
    }
    let stem = program.file_name().expect("a program has a name").to_string_lossy().into_owned();
    let main = format!("{stem}.{}", language.extension());
    let (common_name, common_text) = language.common();
    for (name, text) in [(main.as_str(), text), (common_name, common_text)] {
        std::fs::write(work.join(name), text).map_err(|e| format!("{}: {e}", work.join(name).display()))?;
    }
    let _ = std::fs::remove_file(&stamp_path);
    let mut cmd = compile_command(language, &main, common_name, &stem);
    let output = cmd.current_dir(&work).output().map_err(|e| missing_compiler(language, e))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let said = if said.trim().is_empty() { String::from_utf8_lossy(&output.stdout) } else { said };
        let hint = if language == Language::Boehm && said.contains("gc.h") { format!(" (Boehm GC's headers are missing: on Debian, apt-get install {})", package(language)) } else { String::new() };
        return Err(format!("building the {} peer of {workload} in {} failed{hint}:\n{}", language.name(), work.display(), said.trim_end()));
    }
    std::fs::write(&stamp_path, stamp).map_err(|e| format!("{}: {e}", stamp_path.display()))?;
    Ok(program)
}

/// Build a Haskell program's file (and the modules beside it) with GHC
/// at the language's optimisation level, once per text and compiler
/// (See Note [Building peers once]).
fn build_program(dir: &Path, file: &Path, language: Language) -> Result<PathBuf, String> {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).ok_or_else(|| format!("{}: not a program file", file.display()))?;
    let work = dir.join(language.name()).join("programs").join(&stem);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let lock_path = work.join("lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("{}: cannot lock: {e}", lock_path.display()))?;
    // The program and every module beside it (it may import them).
    let beside = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut texts = String::new();
    let mut entries: Vec<_> = std::fs::read_dir(beside).map_err(|e| format!("{}: {e}", beside.display()))?.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "hs")).collect();
    entries.sort();
    for path in &entries {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        texts.push_str(&text);
        std::fs::write(work.join(path.file_name().expect("a file")), text).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    let program = work.join(&stem);
    let stamp = format!("{}\n{:016x}\n", compiler_version(language)?, source_hash(&texts, &stem));
    let stamp_path = work.join("stamp");
    if program.exists() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        return Ok(program);
    }
    let _ = std::fs::remove_file(&stamp_path);
    let main = format!("{stem}.hs");
    let output = compile_command(language, &main, "", &stem).current_dir(&work).output().map_err(|e| missing_compiler(language, e))?;
    if !output.status.success() {
        return Err(format!("building {} with {} in {} failed:\n{}", file.display(), language.name(), work.display(), String::from_utf8_lossy(&output.stderr).trim_end()));
    }
    std::fs::write(&stamp_path, stamp).map_err(|e| format!("{}: {e}", stamp_path.display()))?;
    Ok(program)
}

/// The compiler command line, run in the peer's directory.
fn compile_command(language: Language, main: &str, common: &str, out: &str) -> Command {
    let mut cmd = Command::new(compiler(language));
    match language {
        Language::Ghc => cmd.args(["-O2", "-threaded", "-rtsopts", "-v0", "-i.", "-outputdir", "obj", "-o", out, main]),
        Language::GhcO0 => cmd.args(["-O0", "-threaded", "-rtsopts", "-v0", "-i.", "-outputdir", "obj", "-o", out, main]),
        Language::Ocaml => cmd.args([common, main, "-o", out]),
        Language::Boehm => cmd.args(["-O2", "-o", out, main, "-lgc"]),
    };
    cmd
}

fn compiler(language: Language) -> &'static str {
    match language {
        Language::Ghc | Language::GhcO0 => "ghc",
        Language::Ocaml => "ocamlopt",
        Language::Boehm => "gcc",
    }
}

/// What to install for a language's compiler, on Debian.
fn package(language: Language) -> &'static str {
    match language {
        Language::Ghc | Language::GhcO0 => "ghc",
        Language::Ocaml => "ocaml-nox",
        Language::Boehm => "gcc libgc-dev",
    }
}

fn missing_compiler(language: Language, e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        format!("the {} peers need `{}', which is not installed (on Debian: apt-get install {})", language.name(), compiler(language), package(language))
    } else {
        format!("cannot run `{}': {e}", compiler(language))
    }
}

/// The compiler's version, one line (for stamps and the sweep's manifest).
pub fn compiler_version(language: Language) -> Result<String, String> {
    let flag = match language {
        Language::Ghc | Language::GhcO0 => "--numeric-version",
        Language::Ocaml => "-version",
        Language::Boehm => "-dumpfullversion",
    };
    let output = Command::new(compiler(language)).arg(flag).output().map_err(|e| missing_compiler(language, e))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Ok(format!("{} {version}", compiler(language)))
}

fn source_hash(text: &str, common: &str) -> u64 {
    // Deterministic within one build of gclab, which is all a stamp needs.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (text, common).hash(&mut h);
    h.finish()
}

fn names(languages: &[Language]) -> String {
    if languages.is_empty() {
        return "none".into();
    }
    languages.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
}
