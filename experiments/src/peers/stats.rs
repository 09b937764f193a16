//! A peer's statistics, read from what its runtime reports, under the
//! names gclab's own runs use (core's `Stats`), so that reports, plots
//! and `runs.csv` put them in the same columns.
//!
//! Note [Peers' statistics]
//! ----------------------------------------
//! - GHC reports everything, in `-t --machine-readable`: its times are
//!   its own clock's, its sizes its own accounting, read as they are.
//! - OCaml 4.13 keeps no GC clock, so a peer in OCaml has no GC time (and
//!   so no MUT time: the report shows neither). Its counters come from
//!   `Gc.quick_stat` at exit (printed by the program): allocated bytes are
//!   minor plus major words less promoted words (promoted words are
//!   counted in both), "copied" is promoted words (the minor collector's
//!   copying; its major collector does not move objects, except to
//!   compact), memory in use is the major heap's peak, and there is no
//!   measure of live data.
//! - Boehm GC's figures come from `GC_get_*` at exit (printed by the
//!   program): bytes allocated, collections (all of them full: Debian's
//!   build is not generational), GC time from its own clock (whole
//!   milliseconds, full collections, which are all of them), the heap's
//!   size at exit as memory in use (it does not shrink unless unmapped),
//!   and nothing copied (it never moves an object).
//! - For every peer, `gclab peer` measures the wall-clock time (from the
//!   program's start to its exit, as a sweep does for its runs; GHC's own
//!   total is used where it has one) and the peak RSS (the kernel's, for
//!   its one child).

use super::Language;
use serde_json::{Map, Value};

/// The statistics of a finished `language` peer: its stderr, GHC's
/// statistics file's text, and the wall-clock seconds and peak RSS
/// measured from outside.
pub fn read(language: Language, stderr: &str, ghc_stats: Option<&str>, wall_secs: f64, max_rss_bytes: u64) -> Result<Map<String, Value>, String> {
    let mut stats = match language {
        Language::Ghc | Language::GhcO0 => ghc(ghc_stats.ok_or("GHC wrote no statistics (+RTS -t)")?)?,
        Language::Ocaml => ocaml(stderr)?,
        Language::Boehm => boehm(stderr)?,
    };
    stats.entry("total_elapsed").or_insert(wall_secs.into());
    stats.insert("max_rss_bytes".into(), max_rss_bytes.into());
    Ok(stats)
}

/// GHC's `-t --machine-readable` list, `[("key", "value"), ...]`, as pairs.
fn machine_readable(text: &str) -> Vec<(&str, &str)> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches(['[', ',']).trim();
            let l = l.strip_prefix("(\"")?.strip_suffix("\")").or_else(|| l.strip_prefix("(\"")?.strip_suffix("\")]"))?;
            l.split_once("\", \"")
        })
        .collect()
}

/// GHC's figure names, and gclab's for them.
const GHC_FIGURES: &[(&str, &str)] = &[
    ("total_wall_seconds", "total_elapsed"),
    ("total_cpu_seconds", "total_cpu"),
    ("GC_wall_seconds", "gc_elapsed"),
    ("GC_cpu_seconds", "gc_cpu"),
    ("mut_wall_seconds", "mut_elapsed"),
    ("mut_cpu_seconds", "mut_cpu"),
    ("init_wall_seconds", "init_elapsed"),
    ("exit_wall_seconds", "exit_elapsed"),
    ("allocated_bytes", "allocated_bytes"),
    ("copied_bytes", "copied_bytes"),
    ("max_live_bytes", "max_live_bytes"),
    ("max_mem_in_use_bytes", "max_mem_in_use_bytes"),
    ("max_slop_bytes", "max_slop_bytes"),
    ("num_GCs", "gcs"),
    ("major_gcs", "major_gcs"),
];

fn ghc(text: &str) -> Result<Map<String, Value>, String> {
    let pairs = machine_readable(text);
    let mut stats = Map::new();
    for (theirs, ours) in GHC_FIGURES {
        copy_figure(&pairs, theirs, ours, &mut stats)?;
    }
    if !stats.contains_key("allocated_bytes") {
        return Err(format!("GHC's statistics have no allocated_bytes: is this `+RTS -t --machine-readable' output?\n{text}"));
    }
    let gens = ghc_generations(&pairs)?;
    if !gens.is_empty() {
        stats.insert("gens".into(), Value::Array(gens));
    }
    Ok(stats)
}

/// GHC's per-generation figures (`gen_<g>_collections`, `_wall_seconds`
/// ...) as gclab's `gens` (core's `GenStats`), one per generation
/// numbered from 0 with no gap, so that a sweep's `minor_gc_elapsed` and
/// `major_gc_elapsed` read a GHC peer's run as they read gclab's.
fn ghc_generations(pairs: &[(&str, &str)]) -> Result<Vec<Value>, String> {
    const FIELDS: [(&str, &str); 5] = [("collections", "collections"), ("par_collections", "par_collections"), ("cpu_seconds", "cpu"), ("wall_seconds", "elapsed"), ("max_pause_seconds", "max_pause")];
    let mut gens = Vec::new();
    loop {
        let key = |field: &str| format!("gen_{}_{field}", gens.len());
        if !pairs.iter().any(|(k, _)| *k == key("collections")) {
            return Ok(gens);
        }
        let mut gen = Map::new();
        for (theirs, ours) in FIELDS {
            copy_figure(pairs, &key(theirs), ours, &mut gen)?;
        }
        gens.push(Value::Object(gen));
    }
}

/// GHC's figure `theirs`, if it has one, into `into` as `ours`: a whole
/// number for counts (bytes, GCs, collections), else seconds.
fn copy_figure(pairs: &[(&str, &str)], theirs: &str, ours: &str, into: &mut Map<String, Value>) -> Result<(), String> {
    let Some((_, v)) = pairs.iter().find(|(k, _)| *k == theirs) else { return Ok(()) };
    let n: f64 = v.parse().map_err(|_| format!("GHC's statistics: {theirs} is `{v}', not a number"))?;
    let count = ["bytes", "gcs", "collections"].iter().any(|s| ours.ends_with(s));
    into.insert(ours.to_string(), if count { Value::from(n as u64) } else { Value::from(n) });
    Ok(())
}

/// The numbers after `tag` on the stderr line that starts with it, by name
/// (`tag name value name value ...`).
fn tagged<'a>(stderr: &'a str, tag: &str) -> Result<Vec<(&'a str, f64)>, String> {
    let line = stderr.lines().rev().find(|l| l.starts_with(tag)).ok_or_else(|| format!("the program printed no `{tag}' line of statistics at exit"))?;
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    words.chunks(2).map(|kv| match kv {
        [k, v] => v.parse().map(|n| (*k, n)).map_err(|_| format!("`{tag}': {k} is `{v}', not a number")),
        _ => Err(format!("`{tag}': {} has no value", kv[0])),
    }).collect()
}

fn field(pairs: &[(&str, f64)], name: &str) -> Result<f64, String> {
    pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).ok_or_else(|| format!("the statistics at exit have no {name}"))
}

fn ocaml(stderr: &str) -> Result<Map<String, Value>, String> {
    let p = tagged(stderr, "ocaml-gc")?;
    let words = |n: &str| field(&p, n);
    let (minor, promoted, major) = (words("minor_words")?, words("promoted_words")?, words("major_words")?);
    let mut stats = Map::new();
    stats.insert("allocated_bytes".into(), (((minor + major - promoted) * 8.0) as u64).into());
    stats.insert("copied_bytes".into(), ((promoted * 8.0) as u64).into());
    stats.insert("max_mem_in_use_bytes".into(), ((words("top_heap_words")? * 8.0) as u64).into());
    stats.insert("gcs".into(), ((words("minor_collections")? + words("major_collections")?) as u64).into());
    stats.insert("major_gcs".into(), (words("major_collections")? as u64).into());
    Ok(stats)
}

fn boehm(stderr: &str) -> Result<Map<String, Value>, String> {
    let p = tagged(stderr, "boehm-gc")?;
    let mut stats = Map::new();
    stats.insert("allocated_bytes".into(), (field(&p, "total_bytes")? as u64).into());
    stats.insert("copied_bytes".into(), 0u64.into());
    stats.insert("max_mem_in_use_bytes".into(), (field(&p, "heap_size")? as u64).into());
    stats.insert("gc_elapsed".into(), (field(&p, "full_gc_total_time_ms")? / 1000.0).into());
    let gcs = field(&p, "gc_no")? as u64;
    stats.insert("gcs".into(), gcs.into());
    stats.insert("major_gcs".into(), gcs.into());
    Ok(stats)
}

/// The checksum of a Haskell program's output, as `gclab run FILE.hs`
/// computes its own (FNV-1a over the bytes), so that the two compare.
pub fn output_checksum(stdout: &str) -> String {
    format!("{:016x}", gclab_workloads::fnv1a(gclab_workloads::FNV_OFFSET, stdout.as_bytes()))
}

/// The checksum a peer printed (`checksum: <hex>`, its last such line).
pub fn checksum(stdout: &str) -> Option<String> {
    let hex = stdout.lines().rev().find_map(|l| l.strip_prefix("checksum: "))?.trim();
    (hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit())).then(|| hex.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ghc_machine_readable_is_read_into_gclabs_names() {
        let text = " [(\"bytes allocated\", \"7331740696\")\n ,(\"num_GCs\", \"7020\")\n ,(\"GC_wall_seconds\", \"3.674808\")\n ,(\"total_wall_seconds\", \"6.297758\")\n ,(\"major_gcs\", \"266\")\n ,(\"allocated_bytes\", \"7331740696\")\n ,(\"max_live_bytes\", \"100278280\")\n ,(\"copied_bytes\", \"6331560600\")\n ,(\"gen_1_wall_seconds\", \"1.5\")\n ]\n";
        let s = read(Language::Ghc, "", Some(text), 9.0, 4096).unwrap();
        assert_eq!(s["allocated_bytes"], 7331740696u64);
        assert_eq!(s["gcs"], 7020u64);
        assert_eq!(s["major_gcs"], 266u64);
        assert_eq!(s["gc_elapsed"], 3.674808);
        assert_eq!(s["total_elapsed"], 6.297758, "GHC's own total, not the wall clock's");
        assert_eq!(s["max_rss_bytes"], 4096u64);
        assert!(s.get("gens").is_none(), "no generation's collections, no generations");
        assert!(read(Language::Ghc, "", Some("nothing"), 1.0, 0).unwrap_err().contains("allocated_bytes"));
    }

    #[test]
    fn ghcs_generations_are_read_as_gclabs() {
        let text = " [(\"allocated_bytes\", \"1000\")\n ,(\"gen_0_collections\", \"438\")\n ,(\"gen_0_par_collections\", \"0\")\n ,(\"gen_0_cpu_seconds\", \"0.18\")\n ,(\"gen_0_wall_seconds\", \"0.19\")\n ,(\"gen_0_max_pause_seconds\", \"0.0015\")\n ,(\"gen_1_collections\", \"11\")\n ,(\"gen_1_par_collections\", \"11\")\n ,(\"gen_1_cpu_seconds\", \"0.14\")\n ,(\"gen_1_wall_seconds\", \"0.073\")\n ,(\"gen_1_max_pause_seconds\", \"0.016\")\n ]\n";
        let s = read(Language::Ghc, "", Some(text), 1.0, 0).unwrap();
        let gens = s["gens"].as_array().unwrap();
        assert_eq!(gens.len(), 2);
        assert_eq!(gens[0]["collections"], 438u64);
        assert_eq!(gens[0]["elapsed"], 0.19);
        assert_eq!(gens[1]["par_collections"], 11u64);
        assert_eq!(gens[1]["elapsed"], 0.073);
        assert_eq!(gens[1]["max_pause"], 0.016);
        let bad = text.replace("0.073", "soon");
        assert!(read(Language::Ghc, "", Some(&bad), 1.0, 0).unwrap_err().contains("gen_1_wall_seconds"));
    }

    #[test]
    fn ocaml_and_boehm_counters_are_read_and_a_missing_line_is_named() {
        let err = "some output\nocaml-gc minor_words 1000 promoted_words 100 major_words 300 minor_collections 7 major_collections 2 heap_words 50 top_heap_words 60 compactions 0\n";
        let s = read(Language::Ocaml, err, None, 2.5, 0).unwrap();
        assert_eq!(s["allocated_bytes"], 9600u64);
        assert_eq!(s["copied_bytes"], 800u64);
        assert_eq!(s["gcs"], 9u64);
        assert_eq!(s["total_elapsed"], 2.5);
        assert!(!s.contains_key("gc_elapsed"));
        let err = "boehm-gc gc_no 12 total_bytes 4096 heap_size 8192 free_bytes 0 unmapped_bytes 0 full_gc_total_time_ms 250\n";
        let s = read(Language::Boehm, err, None, 1.0, 0).unwrap();
        assert_eq!(s["gc_elapsed"], 0.25);
        assert_eq!(s["major_gcs"], 12u64);
        assert!(read(Language::Boehm, "crashed\n", None, 1.0, 0).unwrap_err().contains("boehm-gc"));
    }

    #[test]
    fn the_checksum_is_the_last_checksum_line() {
        assert_eq!(checksum("a\nchecksum: 69D938AB873F05FE\n").as_deref(), Some("69d938ab873f05fe"));
        assert_eq!(checksum("checksum: 12\n"), None);
        assert_eq!(checksum("no checksum\n"), None);
    }
}
