//! A grid point's RTS flags, as each peer's runtime takes them.
//!
//! Note [Peers' flags]
//! ----------------------------------------
//! GHC takes gclab's flags one to one (gclab's are GHC's), after `+RTS`;
//! a flag GHC does not know (gclab's own, such as `-w` or `--gc-every`)
//! makes GHC refuse to start, and that run fails with GHC's message.
//!
//! OCaml and Boehm GC have settings of their own, and only some of GHC's
//! flags have a counterpart; the rest are listed as ignored in the run's
//! record (and the report), never silently dropped:
//!
//! - OCaml (`OCAMLRUNPARAM`): `-A<size>` is the minor heap (`s`, in
//!   words); `-F<f>` is the major heap's space overhead (`o`, the
//!   percentage of memory the major GC leaves as free for each live word:
//!   100 (f - 1), GHC's factor of old-generation growth read as overhead).
//! - Boehm GC (its environment variables): `-H<size>` the initial heap
//!   (`GC_INITIAL_HEAP_SIZE`), `-M<size>` the maximum
//!   (`GC_MAXIMUM_HEAP_SIZE`), `-F<f>` the free-space divisor
//!   (`GC_FREE_SPACE_DIVISOR`, about 1 / (f - 1): Boehm grows its heap
//!   when a collection frees less than heap / divisor), `-qn<n>` its
//!   marker threads (`GC_MARKERS`). Without `-qn`, one marker thread:
//!   Debian's libgc otherwise marks on every core, where GHC and gclab
//!   collect on one thread by default.

use super::Language;
use gclab_core::flags::decode_size;
use std::path::Path;

/// How one peer run is started: arguments after the workload's, the
/// environment it adds, and the flags it has no counterpart for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Invocation {
    /// Arguments after the workload's own.
    pub args: Vec<String>,
    /// Environment variables to set.
    pub env: Vec<(String, String)>,
    /// Flags of the grid point the runtime has no counterpart for.
    pub ignored: Vec<String>,
}

/// The invocation of a `language` peer for RTS flags `rts`; GHC writes
/// its `-t --machine-readable` statistics to `ghc_stats` (See Note
/// [Peers' flags]).
pub fn invocation(language: Language, rts: &[String], ghc_stats: &Path) -> Result<Invocation, String> {
    let mut inv = Invocation::default();
    match language {
        Language::Ghc | Language::GhcO0 => {
            inv.args.push("+RTS".into());
            inv.args.extend(rts.iter().cloned());
            inv.args.extend([format!("-t{}", ghc_stats.display()), "--machine-readable".into(), "-RTS".into()]);
        }
        Language::Ocaml => {
            let mut params = Vec::new();
            for flag in rts {
                if let Some(size) = flag.strip_prefix("-A") {
                    params.push(format!("s={}", decode_size(flag, size, 1, u64::MAX).map_err(|e| e.to_string())? / 8));
                } else if let Some(f) = flag.strip_prefix("-F") {
                    params.push(format!("o={}", (100.0 * (factor(flag, f)? - 1.0)).round()));
                } else {
                    inv.ignored.push(flag.clone());
                }
            }
            if !params.is_empty() {
                inv.env.push(("OCAMLRUNPARAM".into(), params.join(",")));
            }
        }
        Language::Boehm => {
            let mut markers = "1".to_string();
            for flag in rts {
                let size = |text: &str| decode_size(flag, text, 1, u64::MAX).map(|b| b.to_string()).map_err(|e| e.to_string());
                if let Some(s) = flag.strip_prefix("-H") {
                    inv.env.push(("GC_INITIAL_HEAP_SIZE".into(), size(s)?));
                } else if let Some(s) = flag.strip_prefix("-M") {
                    inv.env.push(("GC_MAXIMUM_HEAP_SIZE".into(), size(s)?));
                } else if let Some(f) = flag.strip_prefix("-F") {
                    let divisor = (1.0 / (factor(flag, f)? - 1.0).max(1e-3)).round().max(1.0);
                    inv.env.push(("GC_FREE_SPACE_DIVISOR".into(), divisor.to_string()));
                } else if let Some(n) = flag.strip_prefix("-qn") {
                    markers = n.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(|| format!("{flag}: `{n}' is not a number of GC threads"))?.to_string();
                } else {
                    inv.ignored.push(flag.clone());
                }
            }
            inv.env.push(("GC_MARKERS".into(), markers));
        }
    }
    Ok(inv)
}

/// `-F<f>`'s factor, above 1.
fn factor(flag: &str, text: &str) -> Result<f64, String> {
    text.parse::<f64>().ok().filter(|f| f.is_finite() && *f > 1.0).ok_or_else(|| format!("{flag}: `{text}' is not a factor above 1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ghc_takes_every_flag_and_writes_its_statistics() {
        let inv = invocation(Language::Ghc, &flags(&["-A4m", "-qg"]), Path::new("/tmp/s")).unwrap();
        assert_eq!(inv.args, flags(&["+RTS", "-A4m", "-qg", "-t/tmp/s", "--machine-readable", "-RTS"]));
        assert!(inv.env.is_empty() && inv.ignored.is_empty());
    }

    #[test]
    fn ocaml_gets_its_minor_heap_and_overhead_and_names_the_rest() {
        let inv = invocation(Language::Ocaml, &flags(&["-A4m", "-F1.5", "-G3"]), Path::new("x")).unwrap();
        assert_eq!(inv.env, vec![("OCAMLRUNPARAM".to_string(), "s=524288,o=50".to_string())]);
        assert_eq!(inv.ignored, flags(&["-G3"]));
        assert!(invocation(Language::Ocaml, &flags(&["-F0.5"]), Path::new("x")).unwrap_err().contains("-F0.5"));
    }

    #[test]
    fn boehm_gets_heap_sizes_divisor_and_one_marker_by_default() {
        let inv = invocation(Language::Boehm, &flags(&["-H64m", "-M1g", "-F2", "-A1m"]), Path::new("x")).unwrap();
        let env = |k: &str| inv.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(env("GC_INITIAL_HEAP_SIZE"), Some("67108864"));
        assert_eq!(env("GC_MAXIMUM_HEAP_SIZE"), Some("1073741824"));
        assert_eq!(env("GC_FREE_SPACE_DIVISOR"), Some("1"));
        assert_eq!(env("GC_MARKERS"), Some("1"));
        assert_eq!(inv.ignored, flags(&["-A1m"]));
        let two = invocation(Language::Boehm, &flags(&["-qn2"]), Path::new("x")).unwrap();
        assert_eq!(two.env, vec![("GC_MARKERS".to_string(), "2".to_string())]);
    }
}
