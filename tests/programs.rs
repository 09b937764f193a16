//! The Haskell programs of `programs/` run by gclab-lang on gclab's heap:
//! each one's output equal to what GHC printed for the same file and
//! arguments (`programs/expected/`), under every collector, with the
//! sanity checker after every GC in small nurseries, with minor-GC
//! checks over several generations, and with a GC at every allocation
//! for the small ones; GHC's own output checked against the expected
//! files; run-time errors as GHC reports them; the selector-thunk leak
//! fixed by the GC; and each program as it runs with no native library
//! function.

use std::path::Path;
use std::process::Command;

/// (program, arguments) from `programs/test-args.txt`.
fn programs() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string("programs/test-args.txt").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_string);
            (words.next().unwrap(), words.collect())
        })
        .collect()
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(format!("programs/expected/{name}.out")).unwrap()
}

/// Run `programs/NAME.hs` in-process under the collector and RTS flags;
/// its output.
fn run(name: &str, args: &[String], collector: &gclab_collectors::CollectorEntry, rts: &str) -> String {
    run_code(name, &load(name), args, collector, rts)
}

fn load(name: &str) -> gclab_lang::ir::Compiled {
    gclab_lang::load(Path::new(&format!("programs/{name}.hs"))).unwrap_or_else(|e| panic!("{e}"))
}

/// As `run`, the program compiled already.
fn run_code(name: &str, code: &gclab_lang::ir::Compiled, args: &[String], collector: &gclab_collectors::CollectorEntry, rts: &str) -> String {
    let rts = format!("{rts} {}", collector.flags);
    let flags = gclab::flags(&rts).unwrap();
    let made = collector.make(&flags).unwrap();
    let mut out = Vec::new();
    let (outcome, stop) = gclab::run_program(code, args.to_vec(), flags, made, &mut out).unwrap_or_else(|e| panic!("{name} under {} +RTS {rts}: {e}", collector.name));
    assert!(stop.is_none(), "{name} under {} +RTS {rts}: {stop:?}", collector.name);
    assert!(outcome.stats.gcs > 0 || name == "constraints", "{name} under {} +RTS {rts}: no GC", collector.name);
    String::from_utf8(out).unwrap()
}

fn every_program_under(collector: &str) {
    let entry = gclab_collectors::COLLECTORS.iter().find(|c| c.name == collector).unwrap();
    for (name, args) in programs() {
        for rts in ["-A64k -DS", "-A32k -G3 --sanity=minor:4"] {
            let out = run(&name, &args, entry, rts);
            assert_eq!(out, expected(&name), "{name} {args:?} under {collector} +RTS {rts}");
        }
    }
}

/// Every program gives its output with the library's list functions run
/// from their Haskell definitions, not natively (See Note [Native
/// library functions] in `lang/src/machine/native.rs`).
#[test]
fn programs_from_the_library_definitions() {
    let entry = gclab_collectors::COLLECTORS.iter().find(|c| c.name == "copying").unwrap();
    for (name, args) in programs() {
        let code = load(&name).without_natives();
        assert_eq!(run_code(&name, &code, &args, entry, "-A64k"), expected(&name), "{name} {args:?}");
    }
}

#[test]
fn programs_under_copying() {
    every_program_under("copying");
}

#[test]
fn programs_under_compacting() {
    every_program_under("compacting");
}

#[test]
fn programs_under_two_space() {
    every_program_under("two-space");
}

#[test]
fn programs_under_parallel() {
    every_program_under("parallel");
}

#[test]
fn programs_under_mark_sweep() {
    every_program_under("mark-sweep");
}

#[test]
fn programs_under_nonmoving() {
    every_program_under("nonmoving");
}

#[test]
fn programs_under_immix() {
    every_program_under("immix");
}

#[test]
fn programs_under_sticky_immix() {
    every_program_under("sticky-immix");
}

#[test]
fn programs_under_lxr() {
    every_program_under("lxr");
}

#[test]
fn every_collector_is_tested_on_the_programs() {
    let tested = ["copying", "compacting", "two-space", "parallel", "mark-sweep", "nonmoving", "immix", "sticky-immix", "lxr"];
    for c in gclab_collectors::COLLECTORS {
        assert!(tested.contains(&c.name), "add a programs_under_ test for {}", c.name);
    }
}

/// A GC at every allocation, with the whole heap checked after each, on
/// the programs small enough for it.
#[test]
fn small_programs_with_a_gc_at_every_allocation() {
    for entry in gclab_collectors::COLLECTORS {
        for (name, args) in [("constraints", vec!["4".to_string()]), ("selector_leak", vec!["60".to_string()]), ("lalr", vec!["1".to_string()])] {
            let out = run(name, &args, entry, "--gc-every=1 -A8k -DS");
            let ghc = match name {
                "constraints" => "queens 4: 2 solutions; first [3,1,4,2]\n",
                "selector_leak" => "60\n55\n",
                _ => "levels 1: 5 productions, 9 states, 14 transitions, 21 items\n",
            };
            assert_eq!(out, ghc, "{name} under {} with a GC at every allocation", entry.name);
        }
    }
}

/// GHC 9.0 prints the expected outputs for the same files and arguments.
#[test]
fn ghc_prints_the_expected_outputs() {
    let build = std::env::temp_dir().join(format!("gclab-programs-{}", std::process::id()));
    for (name, args) in programs() {
        let dir = build.join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("prog");
        let ghc = Command::new("ghc").args(["-O0", "-v0", &format!("programs/{name}.hs"), "-outputdir"]).arg(&dir).arg("-o").arg(&exe).output().expect("ghc is installed (.ci/run installs it)");
        assert!(ghc.status.success(), "ghc {name}: {}", String::from_utf8_lossy(&ghc.stderr));
        let out = Command::new(&exe).args(&args).output().unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected(&name), "GHC's {name}");
    }
    let _ = std::fs::remove_dir_all(&build);
}

/// Wadler's leak: with selector thunks evaluated by the GC the residency
/// stays small (without, it is about 40 MB for a million elements, as
/// GHC's `-O0` program's is). The collectors that mark their old
/// generation beside the mutators (`nonmoving`, and `lxr`'s backup trace
/// unless `trace=pause`) never rewrite a selector thunk there, so the
/// leak stays until its head is freed (See docs/lxr.md).
#[test]
fn the_gc_fixes_the_selector_leak() {
    for entry in gclab_collectors::COLLECTORS.iter().filter(|c| c.name != "nonmoving") {
        let code = gclab_lang::load(Path::new("programs/selector_leak.hs")).unwrap();
        let flags = gclab::flags(entry.flags).unwrap();
        let params = if entry.name == "lxr" { "trace=pause" } else { "" };
        let made = (entry.make)(gclab_collectors::Params::parse(params).unwrap(), &flags).unwrap();
        let mut out = Vec::new();
        let (outcome, _) = gclab::run_program(&code, vec!["300000".into()], flags, made, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "300000\n55\n");
        let max = outcome.stats.max_live_bytes;
        assert!(max < 1 << 20, "{}: {max} bytes live at most", entry.name);
    }
}

fn gclab(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gclab")).args(args).current_dir(dir).env_remove("GCLABRTS").output().unwrap()
}

/// `src` written to `dir/name.hs` and run by `gclab run`, as it is and
/// with a GC at every allocation and the sanity checker after each: the
/// RTS flags of each run with its output.
fn run_plain_and_stressed(dir: &Path, name: &str, src: &str) -> Vec<(&'static [&'static str], std::process::Output)> {
    let file = dir.join(format!("{name}.hs"));
    std::fs::write(&file, src).unwrap();
    let settings: [&'static [&'static str]; 2] = [&[], &["+RTS", "--gc-every=1", "-DS"]];
    settings
        .into_iter()
        .map(|rts| {
            let mut args = vec!["run", file.to_str().unwrap()];
            args.extend_from_slice(rts);
            (rts, gclab(&args, dir))
        })
        .collect()
}

/// Run-time errors end the program as GHC's end: the message after the
/// program's name on standard error, exit code 1 (2 for a stack
/// overflow), the output before it kept.
#[test]
fn runtime_errors_as_ghc_reports_them() {
    let dir = tempfile_dir();
    let cases = [
        ("err", "main = putStrLn \"before\" >> error \"boom\"\n", "err: boom", 1),
        ("hd", "main = putStrLn \"before\" >> print (head ([] :: [Int]))\n", "hd: Prelude.head: empty list", 1),
        ("pat", "f :: Int -> Int\nf 1 = 2\nmain = putStrLn \"before\" >> print (f 3)\n", "pat: Non-exhaustive patterns in function f", 1),
        ("loop", "main = putStrLn \"before\" >> let x = x + 1 :: Int in print x\n", "loop: <<loop>>", 1),
        ("ix", "import Data.Array\nmain = putStrLn \"before\" >> print (listArray (0, 4) [1, 2, 3, 4, 5 :: Int] ! (5 :: Int))\n", "ix: Ix{Int}.index: Index (5) out of range ((0,4))", 1),
        ("div0", "main = putStrLn \"before\" >> print (7 `div` (0 :: Int))\n", "div0: divide by zero", 1),
        // `rem` by -1 is 0 (GHC special-cases it); `minBound `div` (-1)` overflows.
        ("ovf", "main = putStrLn \"before\" >> print ((minBound :: Int) `rem` (-1)) >> print ((minBound :: Int) `div` (-1))\n", "ovf: arithmetic overflow", 1),
    ];
    for (name, src, message, code) in cases {
        let file = dir.join(format!("{name}.hs"));
        std::fs::write(&file, src).unwrap();
        let out = gclab(&["run", file.to_str().unwrap()], &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {stderr}");
        assert!(stderr.contains(message), "{name}: {stderr}");
        let before = if name == "ovf" { "before\n0\n" } else { "before\n" };
        assert_eq!(String::from_utf8_lossy(&out.stdout), before, "{name}");
    }
    let deep = dir.join("deep.hs");
    std::fs::write(&deep, "main = print (foldr (+) 0 [1 .. 10000000 :: Int])\n").unwrap();
    let out = gclab(&["run", deep.to_str().unwrap(), "+RTS", "-K1m"], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Stack space overflow"));
}

/// Comparisons of lists, tuples and derived data give GHC's answers
/// (checked against GHC 9.0's output for the same file) where the machine
/// walks evaluated values itself and where it hands the comparison to the
/// library (See Note [Comparing evaluated values] in the machine): a
/// difference before an `undefined` decides without forcing it, an
/// infinite list compares by its prefix, constructors by their order in
/// the declaration, `/=` (a primitive of its own) is `==`'s negation, NaN
/// included, under a GC at every allocation as well.
#[test]
fn comparisons_as_ghc_answers_them() {
    let dir = tempfile_dir();
    let src = r#"import Data.List (sort, nub)

data C = R | G | B deriving (Eq, Show)

data Shape = Dot | Box Int Int | Ring { radius :: Int, label :: String } deriving (Eq, Ord, Show)

main :: IO ()
main = do
  print ("abc" == "abc", "abc" == "abd", "ab" < "abc", compare "b" "abc", "" <= "", [1, 2, 3 :: Int] < [1, 2])
  print ([[1], [2 :: Int]] == [[1], [2]], compare [Just 'a'] [Just 'b'], [(1 :: Int, 'x')] < [(1, 'y')])
  print (sort ["pear", "apple", "fig", "apples", "app"], nub (words "a b a c b d"))
  print (take 3 [1 :: Int ..] == [1, 2, 3], [1 :: Int ..] == [1, 2], [1, 2, undefined] < [1, 3 :: Int], "x" ++ undefined > "y")
  print (map succ "abc" == "bcd", [10 ^ 20, 1 :: Integer] < [10 ^ 20, 2], [2.5, 1 :: Double] > [2.5, 0])
  print (sort [Ring 2 "b", Box 1 2, Dot, Ring 2 "a", Box 1 1], Box 1 undefined < Ring 0 "", (1 :: Int, undefined :: Int) < (2, 0))
  print (Ring 3 (show (3 :: Int)) == Ring 3 "3", compare (Box 2 (length [1, 2])) (Box 2 2), [Dot, Box 0 0] == [Dot, Box 0 0])
  let nan = 0 / 0 :: Double
  print (nan /= nan, nan == nan, 1 /= (2 :: Int), 'a' /= 'a')
  print ([1, 2] /= [1, 2 :: Int], R /= G, (1 :: Integer) /= 10 ^ 30, Just "x" /= Nothing)
  print (filter (/= G) [R, G, B], zipWith (/=) "abc" "abd")
"#;
    let expected = r#"(True,False,True,GT,True,False)
(True,LT,True)
(["app","apple","apples","fig","pear"],["a","b","c","d"])
(True,False,True,False)
(True,True,True)
([Dot,Box 1 1,Box 1 2,Ring {radius = 2, label = "a"},Ring {radius = 2, label = "b"}],True,True)
(True,EQ,True)
(True,False,True,False)
(False,True,True,True)
([R,B],[False,False,True])
"#;
    for (rts, out) in run_plain_and_stressed(&dir, "lists", src) {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{rts:?}");
    }
}

/// A banged `let` (`let !x = e`) evaluates `e` before the body, as GHC's
/// desugarer has it (an error there stops the program although the body
/// does not use `x`), alone in its group or beside other bindings, in an
/// expression and in a `do` block; a `let ... in` nested in a `do`
/// block's `let` on one line is the nested let's (the statement is still
/// a binding). The outputs are what GHC 9.0 printed for the same file.
#[test]
fn banged_lets_are_strict_as_ghc_has_them() {
    let dir = tempfile_dir();
    let src = r#"{-# LANGUAGE BangPatterns #-}
main :: IO ()
main = do
  let !y = length [1 .. 10 :: Int]
  print y
  let f n = let !m = n * 2 in m + 1
  print (f (20 :: Int))
  let g n = let { !a = n + 1; b = a * 3 } in a + b
  print (g (4 :: Int))
  print (let { !u = 1 :: Int; v = 2 :: Int } in v)
  print (let !z = (error "forced" :: Int) in (5 :: Int))
"#;
    for (rts, out) in run_plain_and_stressed(&dir, "bang", src) {
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "10\n41\n20\n2\n", "{rts:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("bang: forced"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let lazy = dir.join("lazy.hs");
    std::fs::write(&lazy, "main :: IO ()\nmain = print (let z = (error \"forced\" :: Int) in (5 :: Int))\n").unwrap();
    let out = gclab(&["run", lazy.to_str().unwrap()], &dir);
    assert!(out.status.success(), "without the bang the binding is lazy: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "5\n");
}

/// A recursion that is not a tail call keeps, at each level, only the
/// slots its case's alternatives read (See Note [What a case keeps] in
/// `lang/src/lower/live.rs`): 100,000 levels of `deep`, whose frame has 15
/// slots of which the case on `r` reads 5, fit in an 8 MB stack (6
/// words a level; GHC -O0's code takes 7), where keeping every frame
/// whole took 16 words a level and overflowed. At 3 MB it overflows
/// with GHC's message, under the stress settings too.
#[test]
fn a_deep_recursion_keeps_only_what_its_cases_read() {
    let dir = tempfile_dir();
    let src = r#"import System.Environment (getArgs)

deep :: Int -> Int
deep n = case n of
  0 -> 0
  _ -> let r = deep (n - 1)
           a = n * 2
           b = n * 3
           c = n * 5
           d = n * 7
           e = n * 11
           f = n * 13
           g = n * 17
       in if r < 0 then a else r + 1

main :: IO ()
main = do
  args <- getArgs
  print (deep (read (head args)))
"#;
    let file = dir.join("deep.hs");
    std::fs::write(&file, src).unwrap();
    let path = file.to_str().unwrap();
    for stress in [&[][..], &["-A64k", "-DS"][..]] {
        let fits: Vec<&str> = ["run", path, "100000", "+RTS", "-K8m"].into_iter().chain(stress.iter().copied()).collect();
        let out = gclab(&fits, &dir);
        assert!(out.status.success(), "{stress:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "100000\n");
        let small: Vec<&str> = ["run", path, "100000", "+RTS", "-K3m"].into_iter().chain(stress.iter().copied()).collect();
        let out = gclab(&small, &dir);
        assert_eq!(out.status.code(), Some(2), "{stress:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("Stack space overflow"), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A tail call under a function's numeric signature adds no
/// continuation (See Note [Conversions keep tail calls] in
/// `lang/src/lower.rs`): a million calls of a loop and of two functions
/// calling each other, each with an `Int` signature, run in a 64 KB
/// stack, as they do without their signatures. (They held a million
/// continuations before, outside `-K`; continuations now count against
/// it, so a loop that kept them would overflow here.)
#[test]
fn tail_calls_under_a_signature_run_in_constant_stack() {
    let dir = tempfile_dir();
    let src = r#"{-# LANGUAGE BangPatterns #-}
import System.Environment (getArgs)

count :: Int -> Int -> Int -> Int
count !i !n !acc = if i > n then acc else count (i + 1) n (acc + i)

ping :: Int -> Int -> Int
ping 0 !acc = acc
ping n !acc = pong (n - 1) (acc + 1)

pong :: Int -> Int -> Int
pong 0 !acc = acc
pong n !acc = ping (n - 1) (acc + 2)

main :: IO ()
main = do
  args <- getArgs
  let n = read (head args)
  print (count 1 n 0)
  print (ping n 0)
"#;
    let file = dir.join("loops.hs");
    std::fs::write(&file, src).unwrap();
    let out = gclab(&["run", file.to_str().unwrap(), "1000000", "+RTS", "-K64k"], &dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "500000500000\n1500000\n");
}

/// A program outside the subset is refused with the construct and its
/// line, before it runs, exit code 1.
#[test]
fn programs_outside_the_subset_are_refused_with_the_line() {
    let dir = tempfile_dir();
    let cases = [
        ("cls", "class C a where\n  m :: a -> a\nmain = print 1\n", "cls.hs:1:"),
        ("imp", "import Data.Map\nmain = print 1\n", "imp.hs:1: module Data.Map"),
        ("scope", "main = do\n  print 1\n  print (nope 2)\n", "scope.hs:3: Variable not in scope: nope"),
        ("syntax", "main = print (1 +\n", "syntax.hs:"),
    ];
    for (name, src, message) in cases {
        let file = dir.join(format!("{name}.hs"));
        std::fs::write(&file, src).unwrap();
        let out = gclab(&["run", file.to_str().unwrap()], &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(message), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}

/// A program's run takes the RTS flags a workload takes: `-s` prints
/// GHC's statistics, `--json` writes the record, `-hT` the heap profile.
#[test]
fn a_program_run_takes_the_rts_flags() {
    let dir = tempfile_dir();
    let program = std::fs::canonicalize("programs/binary_trees.hs").unwrap();
    let json = dir.join("bt.json");
    let out = gclab(&["run", "--json", json.to_str().unwrap(), program.to_str().unwrap(), "8", "+RTS", "-s", "-hT", "-i0.001"], &dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected("binary_trees"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bytes allocated in the heap"));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(record["stats"]["allocated_bytes"].as_u64().unwrap() > 1_000_000);
    let hp = std::fs::read_to_string(dir.join("binary_trees.hp")).unwrap();
    assert!(hp.contains("BEGIN_SAMPLE") && hp.contains("Main"), "{hp}");
}

/// The GC puts the static copy of a small `Char` in place of its heap
/// box (See Note [Small boxes are shared] in the collectors' `evacuate`):
/// a string of 200,000 evaluated characters below 200, kept alive across
/// GCs, holds its list cells but (almost) no `C#` boxes at any census.
/// Without the sharing its boxes are two thirds of its cells' bytes.
/// sticky-immix keeps the boxes of young objects placed in old blocks'
/// holes where they lie, so a few stay there.
#[test]
fn boxes_of_small_values_are_shared_by_the_gc() {
    let dir = tempfile_dir();
    let program = std::fs::canonicalize("tests/data/boxes.hs").unwrap();
    for collector in ["copying", "compacting", "two-space", "parallel", "mark-sweep", "nonmoving", "immix", "sticky-immix", "lxr"] {
        let out = gclab(&["run", "--collector", collector, program.to_str().unwrap(), "200000", "+RTS", "-hT", "-i0.01", "-DS"], &dir);
        assert!(out.status.success(), "{collector}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "19900000\n1000\n", "{collector}");
        let hp = std::fs::read_to_string(dir.join("boxes.hp")).unwrap();
        let band_max = |band: &str| hp.lines().filter_map(|l| l.strip_prefix(band)?.strip_prefix('\t')?.parse::<u64>().ok()).max().unwrap_or(0);
        let (cells, boxes) = (band_max("Prelude.:"), band_max("GHC.Types.C#"));
        assert!(cells > 3_000_000, "{collector}: the string's cells are live ({cells} bytes)");
        assert!(boxes * 20 < cells, "{collector}: {boxes} bytes of C# boxes beside {cells} of cells");
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!("gclab-programs-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An experiment names a program and its GHC peers (`ghc` at -O2,
/// `ghc-O0`): they build from the same file, run, and their outputs'
/// checksums equal gclab's.
#[test]
fn a_sweep_runs_a_program_beside_ghc() {
    let dir = tempfile_dir();
    let root = std::env::current_dir().unwrap();
    let exp = dir.join("p.toml");
    let text = format!(
        "description = \"p\"\nrepetitions = 1\ncollectors = [\"copying\"]\npeers = [\"ghc\", \"ghc-O0\"]\n[[workloads]]\nname = \"{}\"\nargs = [6]\n[grid]\nA = [\"1m\"]\n",
        root.join("programs/constraints.hs").display()
    );
    std::fs::write(&exp, text).unwrap();
    let out = dir.join("out");
    let run = gclab(&["sweep", "--quiet", "--out", out.to_str().unwrap(), exp.to_str().unwrap()], &root);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut sums = Vec::new();
    for entry in std::fs::read_dir(out.join("runs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            sums.push((record["spec"]["collector"].as_str().unwrap().to_string(), record["result"]["checksum"].as_str().unwrap().to_string()));
        }
    }
    sums.sort();
    assert_eq!(sums.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), ["copying", "ghc", "ghc-O0"], "{sums:?}");
    assert!(sums.iter().all(|(_, s)| *s == sums[0].1), "{sums:?}");
}
