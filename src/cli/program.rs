//! `gclab run FILE.hs [ARGS...] +RTS ...`: a Haskell program (the subset
//! `gclab-lang` evaluates) run on gclab's heap under a collector, with
//! every RTS flag a workload takes.

use super::output::{Checked, Failure, UNWRITABLE};
use gclab_collectors::Registry;
use gclab_core::RtsFlags;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(super) fn run(registry: &Registry, collector: Option<&str>, json: Option<PathBuf>, words: &[String], rts_args: &[String], mut flags: RtsFlags) -> Result<(), Failure> {
    let (file, args) = words.split_first().expect("a program file");
    let code = gclab_lang::load(Path::new(file)).map_err(|e| (1, e.to_string()))?;
    if let Some(json) = &json {
        gclab_core::output::check_writable(json).map_err(|e| (UNWRITABLE, e))?;
    }
    // GHC names a program's outputs (`.hp`, `.eventlog`) after it.
    let stem = Path::new(file).file_stem().map_or_else(|| "program".to_string(), |s| s.to_string_lossy().into_owned());
    flags.program = std::iter::once(stem.clone()).chain(args.iter().cloned()).collect();
    let (entry, params) = registry.select(&mut flags, collector).map_err(|e| (1, e.to_string()))?;
    let made = (entry.make)(params, &flags).map_err(|e| (1, e))?;
    let heap_policy = flags.heap_policy.text();
    let mut out = Checked::new(std::io::stdout());
    let (outcome, stop) = crate::run_program(&code, args.to_vec(), flags, made, &mut out).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
    if let Some(e) = out.flush().err().or(out.take_failure()) {
        return Err((UNWRITABLE, format!("cannot write the program's output to standard output: {e}")));
    }
    if let Some(path) = json {
        let what = serde_json::json!({ "workload": file, "args": args });
        super::run::write_record(&path, what, (entry.name, &heap_policy), rts_args, &outcome)?;
    }
    match stop {
        None => Ok(()),
        Some(s) if s.message.is_empty() => Err((s.exit_code, String::new())),
        Some(s) => Err((s.exit_code, format!("{stem}: {}", s.message))),
    }
}
