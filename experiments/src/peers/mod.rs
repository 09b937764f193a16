//! Peers: programs in other languages that do a workload's work, so that a
//! sweep measures gclab's collectors beside the runtimes they are modelled
//! on and compared with: Haskell on GHC's runtime (`ghc`), OCaml's
//! (`ocaml`), and C on Boehm's conservative collector (`boehm`).
//!
//! This module owns the table of peer programs. Their sources live in
//! `peers/<language>/` and are compiled into gclab, so a sweep builds
//! them wherever it runs (`build`). A peer run turns a grid point's RTS
//! flags into its runtime's own settings (`flags`), runs as its own
//! process under `gclab peer` (`exec`), and has its runtime's statistics
//! read into gclab's names (`stats`). A report then treats a peer as one
//! more collector.
//!
//! Every peer prints what its gclab workload prints, then `checksum: `
//! and gclab's checksum in hex: the same FNV steps over the same values,
//! and the same xorshift generator where the workload draws random
//! numbers. The tests build every peer and check that the checksums agree.

pub mod build;
pub mod exec;
pub mod flags;
pub mod stats;

/// A peer's language and runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// Haskell, compiled by GHC (`ghc -O2 -threaded -rtsopts`).
    Ghc,
    /// The same Haskell compiled by GHC without optimisation (`-O0`): the
    /// peer a program run by gclab-lang is measured against (See
    /// docs/programs.md).
    GhcO0,
    /// OCaml, compiled by `ocamlopt`.
    Ocaml,
    /// C with Boehm GC (`gcc -O2 ... -lgc`).
    Boehm,
}

impl Language {
    /// Every language, in the order reports list them.
    pub const ALL: [Language; 4] = [Language::Ghc, Language::GhcO0, Language::Ocaml, Language::Boehm];

    /// Its name in experiment files, reports and `gclab peer`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Ghc => "ghc",
            Language::GhcO0 => "ghc-O0",
            Language::Ocaml => "ocaml",
            Language::Boehm => "boehm",
        }
    }

    /// The language called `name`.
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The names of every language, for error messages.
    pub fn names() -> String {
        Language::ALL.map(|l| l.name()).join(", ")
    }

    /// Its source files' extension.
    fn extension(self) -> &'static str {
        match self {
            Language::Ghc | Language::GhcO0 => "hs",
            Language::Ocaml => "ml",
            Language::Boehm => "c",
        }
    }

    /// The file every peer of this language shares (checksum, generator,
    /// statistics at exit): its name and text.
    fn common(self) -> (&'static str, &'static str) {
        match self {
            Language::Ghc | Language::GhcO0 => ("Peer.hs", include_str!("../../../peers/ghc/Peer.hs")),
            Language::Ocaml => ("peer.ml", include_str!("../../../peers/ocaml/peer.ml")),
            Language::Boehm => ("peer.h", include_str!("../../../peers/boehm/peer.h")),
        }
    }
}

/// One peer program.
struct Source {
    workload: &'static str,
    language: Language,
    text: &'static str,
}

const fn peer(workload: &'static str, language: Language, text: &'static str) -> Source {
    Source { workload, language, text }
}

use Language::{Boehm, Ghc, Ocaml};

/// Every peer program. `power` has no C peer: its lazy streams are what
/// the workload is about, and C has no thunks to build them from.
const SOURCES: &[Source] = &[
    peer("binary-trees", Ghc, include_str!("../../../peers/ghc/binary_trees.hs")),
    peer("binary-trees", Ocaml, include_str!("../../../peers/ocaml/binary_trees.ml")),
    peer("binary-trees", Boehm, include_str!("../../../peers/boehm/binary_trees.c")),
    peer("gcbench", Ghc, include_str!("../../../peers/ghc/gcbench.hs")),
    peer("gcbench", Ocaml, include_str!("../../../peers/ocaml/gcbench.ml")),
    peer("gcbench", Boehm, include_str!("../../../peers/boehm/gcbench.c")),
    peer("lru", Ghc, include_str!("../../../peers/ghc/lru.hs")),
    peer("lru", Ocaml, include_str!("../../../peers/ocaml/lru.ml")),
    peer("lru", Boehm, include_str!("../../../peers/boehm/lru.c")),
    peer("fibheaps", Ghc, include_str!("../../../peers/ghc/fibheaps.hs")),
    peer("fibheaps", Ocaml, include_str!("../../../peers/ocaml/fibheaps.ml")),
    peer("fibheaps", Boehm, include_str!("../../../peers/boehm/fibheaps.c")),
    peer("hash", Ghc, include_str!("../../../peers/ghc/hash.hs")),
    peer("hash", Ocaml, include_str!("../../../peers/ocaml/hash.ml")),
    peer("hash", Boehm, include_str!("../../../peers/boehm/hash.c")),
    peer("lcss", Ghc, include_str!("../../../peers/ghc/lcss.hs")),
    peer("lcss", Ocaml, include_str!("../../../peers/ocaml/lcss.ml")),
    peer("lcss", Boehm, include_str!("../../../peers/boehm/lcss.c")),
    peer("constraints", Ghc, include_str!("../../../peers/ghc/constraints.hs")),
    peer("constraints", Ocaml, include_str!("../../../peers/ocaml/constraints.ml")),
    peer("constraints", Boehm, include_str!("../../../peers/boehm/constraints.c")),
    peer("linear", Ghc, include_str!("../../../peers/ghc/linear.hs")),
    peer("linear", Ocaml, include_str!("../../../peers/ocaml/linear.ml")),
    peer("linear", Boehm, include_str!("../../../peers/boehm/linear.c")),
    peer("power", Ghc, include_str!("../../../peers/ghc/power.hs")),
    peer("power", Ocaml, include_str!("../../../peers/ocaml/power.ml")),
];

/// The source of `workload`'s peer in `language`, if it has one.
pub fn source(workload: &str, language: Language) -> Option<&'static str> {
    // GHC at -O0 builds the same source as GHC at -O2.
    let language = if language == Language::GhcO0 { Language::Ghc } else { language };
    SOURCES.iter().find(|s| s.workload == workload && s.language == language).map(|s| s.text)
}

/// Is `workload` a Haskell program's file (run by gclab-lang), whose
/// peers GHC builds from the file itself?
pub fn is_program(workload: &str) -> bool {
    workload.ends_with(".hs")
}

/// The languages `workload` has peers in.
pub fn languages_of(workload: &str) -> Vec<Language> {
    if is_program(workload) {
        return vec![Language::Ghc, Language::GhcO0];
    }
    Language::ALL.into_iter().filter(|&l| source(workload, l).is_some()).collect()
}

/// Every (workload, language) that has a peer.
pub fn all() -> Vec<(&'static str, Language)> {
    SOURCES.iter().map(|s| (s.workload, s.language)).collect()
}
