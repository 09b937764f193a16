//! Heap profiling: root profiling exact on seed 003's example, on a
//! hand-built four-root heap and past the dense limit; census sums equal
//! the live bytes the sanity checker counts, for every break-down; deep
//! and wide structures traverse without recursion; hp2ps renders every
//! profile these tests write (`.ci/run` installs ghc, which ships hp2ps).

use gclab_core::{Handle, InfoTable, Mutator, StaticObject};
use gclab_heap_traverse::hp_file::parse;
use gclab_heap_traverse::Profiler;
use std::path::{Path, PathBuf};
use std::process::Command;

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "List", "Test");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static W: InfoTable = InfoTable::constr("W#", "Word", "GHC.Types", 0, 1);
static PAIR: InfoTable = InfoTable::constr("Pair", "Pair", "Test", 2, 0);
static CONS: InfoTable = InfoTable::constr("Cons", "List", "Test", 2, 0);
static LAZY: InfoTable = InfoTable::thunk("lazy", "Word", "Test", 1, 0, lazy_entry);

fn lazy_entry(m: &mut Mutator<'_>, this: Handle) -> Handle {
    m.field(this, 0)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gclab-hp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `body` with a `-h<kind> -i0` profiler writing `path`; the profile's samples.
fn profiled(kind: char, rts_flags: &str, path: &Path, body: impl FnOnce(&mut Mutator<'_>)) -> Vec<(f64, Vec<(String, u64)>)> {
    let rts = gclab::runtime(&format!("-h{kind} -i0 {rts_flags}"), "copying").unwrap();
    rts.set_heap_profiler(Box::new(Profiler::new(kind, 0.0, path, "test").unwrap()));
    rts.run(body).unwrap();
    rts.finish().unwrap();
    hp2ps_renders(path);
    parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hp2ps_renders(hp: &Path) {
    let o = Command::new("hp2ps").arg("-c").arg(hp).current_dir(hp.parent().unwrap()).output().expect("hp2ps is installed (Debian's ghc ships it; .ci/run installs it)");
    assert!(o.status.success(), "hp2ps failed on {}: {}", hp.display(), String::from_utf8_lossy(&o.stderr));
    let ps = hp.with_extension("ps");
    assert!(std::fs::metadata(&ps).map(|m| m.len() > 1000).unwrap_or(false), "hp2ps wrote no PostScript for {}", hp.display());
}

fn word(m: &mut Mutator<'_>, v: usize) -> Handle {
    m.alloc(&W, &[], &[v])
}

/// The last sample that has bands.
fn last_sample(samples: &[(f64, Vec<(String, u64)>)]) -> Vec<(String, u64)> {
    samples.iter().rev().find(|s| !s.1.is_empty()).map(|s| s.1.clone()).unwrap_or_default()
}

fn bands(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(n, b)| (n.to_string(), *b)).collect()
}

#[test]
fn hsc_roots_gives_seed_003s_numbers() {
    let dir = scratch("hsc");
    let stem = dir.join("hsc");
    let o = Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "hsc-roots", "500", "+RTS", "-ho", "-i0", &format!("-po{}", stem.display())]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let hp = stem.with_extension("hp");
    let samples = parse(&std::fs::read_to_string(&hp).unwrap()).unwrap();
    let expected = bands(&[("hsc", 80), ("eps", 0), ("fc", 0), ("hsc+eps", 48), ("hsc+fc", 72), ("eps+fc", 0), ("hsc+eps+fc", 32)]);
    assert_eq!(last_sample(&samples), expected);
    hp2ps_renders(&hp);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_four_root_heap_designed_by_hand() {
    // Sizes without profiling words: W# is 2 words (16 bytes), Pair 3 (24).
    //   r0 = Pair(s1, s3)   r1 = Pair(s1, u1)   r2 = Pair(s2, s3)   r3 = Pair(s2, s3)
    // Bins: {r0} = r0's Pair = 24; {r1} = Pair + u1 = 40; {r2} = 24; {r3} = 24;
    // {r0,r1} = s1 = 16; {r2,r3} = s2 = 16; {r0,r2,r3} = s3 = 16; the other
    // eight bins are empty. Total 160 = 4 Pairs (96) + 4 words (64).
    let dir = scratch("four");
    let samples = profiled('o', "", &dir.join("four.hp"), |m| {
        let (s1, s2, s3, u1) = (word(m, 1), word(m, 2), word(m, 3), word(m, 4));
        let r0 = m.alloc(&PAIR, &[s1, s3], &[]);
        let r1 = m.alloc(&PAIR, &[s1, u1], &[]);
        let r2 = m.alloc(&PAIR, &[s2, s3], &[]);
        let r3 = m.alloc(&PAIR, &[s2, s3], &[]);
        m.set_heap_roots(&[("r0", r0), ("r1", r1), ("r2", r2), ("r3", r3)]);
        m.perform_gc(true);
    });
    let got = last_sample(&samples);
    let expected = bands(&[
        ("r0", 24), ("r1", 40), ("r2", 24), ("r3", 24),
        ("r0+r1", 16), ("r0+r2", 0), ("r1+r2", 0), ("r0+r3", 0), ("r1+r3", 0), ("r2+r3", 16),
        ("r0+r1+r2", 0), ("r0+r1+r3", 0), ("r0+r2+r3", 16), ("r1+r2+r3", 0),
        ("r0+r1+r2+r3", 0),
    ]);
    assert_eq!(got, expected);
    assert_eq!(got.iter().map(|b| b.1).sum::<u64>(), 160);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn twenty_four_roots_use_the_sparse_bins() {
    // Each root ri = Pair(own word, shared word): {ri} = 24 + 16 = 40 bytes;
    // the shared word (16 bytes) is in the bin of all 24 roots; nothing else.
    let dir = scratch("24");
    let samples = profiled('o', "", &dir.join("many.hp"), |m| {
        let shared = word(m, 0);
        let mut roots = Vec::new();
        for i in 0..24 {
            let own = word(m, i + 1);
            roots.push(m.alloc(&PAIR, &[own, shared], &[]));
        }
        let names: Vec<String> = (0..24).map(|i| format!("r{i}")).collect();
        let named: Vec<(&str, Handle)> = names.iter().map(String::as_str).zip(roots.iter().copied()).collect();
        m.set_heap_roots(&named);
        m.perform_gc(true);
    });
    let got = last_sample(&samples);
    assert_eq!(got.len(), 25, "24 single-root bins and one shared: {got:?}");
    for (i, (name, bytes)) in got.iter().take(24).enumerate() {
        assert_eq!((name.as_str(), *bytes), (format!("r{i}").as_str(), 40));
    }
    let all = (0..24).map(|i| format!("r{i}")).collect::<Vec<_>>().join("+");
    assert_eq!(got[24], (all, 16));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn census_sums_equal_the_live_bytes_the_sanity_checker_counts() {
    let dir = scratch("census");
    for kind in ['T', 'd', 'y', 'm', 'c'] {
        let w = gclab_workloads::by_name("gcbench").unwrap();
        let mut checked = 0u64;
        let samples = profiled(kind, "-A64k", &dir.join(format!("census-{kind}.hp")), |m| {
            m.with_cost_centre("gcbench", |m| (w.run)(m, &[10], &mut std::io::sink()));
            let base = m.depth();
            let keep = word(m, 7);
            m.with_cost_centre("tail", |m| {
                let unit = m.static_obj(&NIL);
                m.alloc(&CONS, &[keep, unit], &[]);
            });
            m.perform_gc(true);
            let report = m.check_heap().unwrap();
            checked = (report.words_without_profiling * 8) as u64;
            m.truncate(base);
        });
        let last = last_sample(&samples);
        assert_eq!(last.iter().map(|b| b.1).sum::<u64>(), checked, "-h{kind}: census total vs sanity checker");
        if kind == 'c' {
            assert!(last.iter().any(|b| b.0 == "tail"), "-hc attributes to cost centres: {last:?}");
        }
        if kind == 'T' {
            assert!(last.iter().any(|b| b.0 == "Test.Cons"), "{last:?}");
        }
        assert!(samples.len() > 3, "-i0 samples at every GC");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_million_long_list_and_a_million_wide_array_traverse_without_recursion() {
    let dir = scratch("deep");
    let n = 1_000_000;
    let samples = profiled('o', "-A4m", &dir.join("deep.hp"), |m| {
        let list = m.static_obj(&NIL);
        let w = word(m, 1);
        for _ in 0..n {
            let cell = m.alloc(&CONS, &[w, list], &[]);
            m.set(list, cell);
            m.truncate(list.index() + 2);
        }
        let arr = m.new_array(n, w);
        m.set_heap_roots(&[("list", list), ("array", arr)]);
        m.perform_gc(true);
    });
    let got = last_sample(&samples);
    let array_bytes = (1 + 1 + n + n.div_ceil(128).div_ceil(8)) as u64 * 8;
    assert_eq!(got, bands(&[("list", 24 * n as u64), ("array", array_bytes), ("list+array", 16)]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn retainer_sets_of_a_hand_built_heap() {
    // Roots hold t (a thunk made under cost centre A), v (a mutable
    // variable made under B) and y = Pair(z, Nil); t and v both point at x.
    // t and v are retainers, y is not. Retainer sets:
    //   t, v, y, z: {ROOTS}  (reached from the roots, no retainer between)
    //   x:          {A,B}    (reached only through t and through v)
    // Sizes without profiling words: thunk 16, MutVar 16, W# 16, Pair 24.
    // Bands: {A,B} = 16; {ROOTS} = 16 + 16 + 24 + 16 = 72.
    let dir = scratch("retainer");
    let samples = profiled('r', "", &dir.join("ret.hp"), |m| {
        let nil = m.static_obj(&NIL);
        let x = word(m, 1);
        let t = m.with_cost_centre("A", |m| m.alloc(&LAZY, &[x], &[]));
        let v = m.with_cost_centre("B", |m| m.new_mut_var(x));
        let z = word(m, 2);
        let y = m.alloc(&PAIR, &[z, nil], &[]);
        m.set(x, nil);
        m.set(z, nil);
        let _ = (t, v, y);
        m.perform_gc(true);
    });
    assert_eq!(last_sample(&samples), bands(&[("{A,B}", 16), ("{ROOTS}", 72)]));
    std::fs::remove_dir_all(&dir).unwrap();
}
