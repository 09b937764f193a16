//! gclab-lang: a lazy functional language, a subset of Haskell 2010,
//! evaluated on gclab's heap, so that a collector can be measured on real
//! programs: the same source file GHC compiles.
//!
//! The pipeline: `syntax` (lexer, layout rule, parser) reads the program
//! and the modules beside it that it imports; `desugar` resolves names
//! and fixities and turns patterns and sugar into a small core (`term`);
//! `lower` lays out closures and frames (`ir`); `machine` runs the code
//! through the `Mutator` API: thunks updated with indirections, black
//! holes, partial applications, selector thunks, CAFs, and an evaluation
//! stack in heap STACK objects (See Note [Frames on the heap stack]).
//! The library (`lib/*.hs`: the Prelude, `Data.List`, `Data.IORef`,
//! arrays...) is Haskell too, over the primitives of `prim`; its hottest
//! list functions also have native bodies (See Note [Native library
//! functions] in `machine::native`).
//!
//! What is left out: type classes of the program's own (refused with the
//! line), type inference (numbers are typed at run time: See Note
//! [Numbers typed at run time]), monads other than IO for `do`, and all
//! modules share one namespace (qualified names are read unqualified).

pub mod desugar;
pub mod ir;
pub mod lower;
pub mod machine;
pub mod prim;
pub mod program;
pub mod syntax;
pub mod term;

use desugar::{FrontError, Source};
use std::path::{Path, PathBuf};

/// The library modules, in the order they are loaded.
const LIBRARY: &[(&str, &str)] = &[("Prelude", include_str!("../lib/Prelude.hs")), ("Library", include_str!("../lib/Library.hs"))];

/// Modules the library provides: an import of one needs no file.
pub const LIBRARY_MODULES: &[&str] = &[
    "Prelude",
    "Data.List",
    "Data.Char",
    "Data.IORef",
    "Data.Bits",
    "Data.Word",
    "Data.Int",
    "Data.Array",
    "Data.Array.IO",
    "Data.Array.Unboxed",
    "Data.Array.ST",
    "Data.Array.MArray",
    "Data.Maybe",
    "Data.Ord",
    "Data.Function",
    "Control.Monad",
    "System.Environment",
    "System.Exit",
    "System.IO",
    "System.Mem",
    "Text.Printf",
    "Numeric",
    "Debug.Trace",
];

/// Read, check and compile the program in `path` with the modules it
/// imports from files beside it.
pub fn load(path: &Path) -> Result<ir::Compiled, FrontError> {
    let text = read(path, 0)?;
    let mut files: Vec<(String, String)> = Vec::new();
    collect(path, text, &mut files)?;
    compile(&files)
}

/// Compile a program given as (file name, text) pairs, the main module
/// last. The front end recurses over the program's syntax, so it runs on
/// a thread with a stack of its own, large enough for any program the
/// parser takes (See `syntax::parse::MAX_DEPTH`): a long infix chain is a
/// deep tree.
pub fn compile(files: &[(String, String)]) -> Result<ir::Compiled, FrontError> {
    let files = files.to_vec();
    std::thread::Builder::new()
        .name("gclab-lang front end".into())
        .stack_size(512 << 20)
        .spawn(move || compile_here(&files))
        .expect("a thread for the front end")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn compile_here(files: &[(String, String)]) -> Result<ir::Compiled, FrontError> {
    let mut modules = Vec::new();
    for (name, text) in LIBRARY {
        let m = syntax::parse::parse_module(text).map_err(|e| FrontError { file: format!("lib/{name}.hs"), line: e.line, message: e.message })?;
        modules.push((format!("lib/{name}.hs"), m, true));
    }
    for (file, text) in files {
        let m = syntax::parse::parse_module(text).map_err(|e| FrontError { file: file.clone(), line: e.line, message: e.message })?;
        modules.push((file.clone(), m, false));
    }
    let sources: Vec<Source<'_>> = modules.iter().map(|(f, m, lib)| Source { file: f, module: m, library: *lib }).collect();
    let prog = desugar::desugar(&sources)?;
    Ok(lower::lower(prog))
}

fn read(path: &Path, line: u32) -> Result<String, FrontError> {
    let limit = 16 << 20;
    let file = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| FrontError { file: file.clone(), line, message: format!("cannot read it: {e}") })?;
    if !meta.is_file() || meta.len() > limit {
        return Err(FrontError { file, line, message: format!("not a regular file of at most {limit} bytes") });
    }
    std::fs::read_to_string(path).map_err(|e| FrontError { file, line, message: format!("cannot read it: {e}") })
}

/// The program's own modules, imported ones first (each once).
fn collect(path: &Path, text: String, files: &mut Vec<(String, String)>) -> Result<(), FrontError> {
    let file = path.display().to_string();
    let m = syntax::parse::parse_module(&text).map_err(|e| FrontError { file: file.clone(), line: e.line, message: e.message })?;
    for imp in &m.imports {
        if LIBRARY_MODULES.contains(&imp.module.as_str()) {
            continue;
        }
        let beside: PathBuf = path.parent().unwrap_or(Path::new(".")).join(format!("{}.hs", imp.module.replace('.', "/")));
        if !beside.exists() {
            return Err(FrontError { file, line: imp.line, message: format!("module {} is neither in the library nor a file {}", imp.module, beside.display()) });
        }
        if files.iter().any(|(f, _)| *f == beside.display().to_string()) {
            continue;
        }
        let t = read(&beside, imp.line)?;
        collect(&beside, t, files)?;
    }
    if !files.iter().any(|(f, _)| *f == file) {
        files.push((file, text));
    }
    Ok(())
}

/// Run a compiled program's `main` on the mutator, writing its output
/// to `out`, with `args` as `getArgs`.
pub fn run(m: &mut gclab_core::Mutator<'_>, code: &ir::Compiled, out: &mut dyn std::io::Write, args: Vec<String>) -> Result<u64, machine::Stop> {
    let mut mach = machine::Machine::new(m, code, out, args)?;
    mach.run_main()?;
    if std::env::var_os("GCLAB_LANG_STEPS").is_some() {
        eprintln!("steps: {}", mach.steps);
    }
    Ok(mach.steps)
}
