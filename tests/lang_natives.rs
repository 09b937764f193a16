//! The native library functions (See Note [Native library functions] in
//! `lang/src/machine/native.rs`) keep what their Haskell definitions in
//! `lang/lib/` do: on the lazy corners of each (infinite lists,
//! `undefined` where the definition does not look, a `Double` or an
//! `Integer` past a word, GHC's errors, `<<loop>>`), a program gives
//! the output GHC 9.0 gave for it, with the natives and without them
//! (`Compiled::without_natives`), with a GC every few allocations and
//! the sanity checker after each; and they take the steps they save.

use gclab_lang::ir::Compiled;

/// Every native on the corners of its definition (GHC 9.0 `-O0` printed
/// `EXPECTED` for it).
const CORNERS: &str = r#"import Data.List (nub)

main :: IO ()
main = do
  print (take 5 [10 ..] :: [Int])
  print (take 3 [9223372036854775806 ..] :: [Integer])
  print [3 .. 7 :: Int]
  print [7 .. 3 :: Int]
  print ([9223372036854775805 .. 9223372036854775808] :: [Integer])
  print [1.5 .. 4 :: Double]
  print ['a' .. 'e']
  print (sum [1 .. 10000 :: Int])
  print (take 3 ([1, 2, 3] ++ undefined) :: [Int])
  print ([] ++ [5 :: Int])
  print (take 5 ([1 ..] ++ [0]) :: [Int])
  print (length [undefined, undefined :: Int])
  print (length (replicate 1000 'x' ++ "abc"))
  print (length ([] :: [Int]))
  print ([10, 20, 30 :: Int] !! 2)
  print ([1 ..] !! 1000 :: Int)
  print ((undefined : 7 : undefined) !! 1 :: Int)
  print (zip ([] :: [Int]) (undefined :: [Char]))
  print (take 3 (zip [1 :: Int ..] "abcdef"))
  print (zip [1, 2, 3 :: Int] "ab")
  print (length (zip [1 .. 5 :: Int] (repeat undefined :: [Char])))
  print (nub [3, 1, 3, 2, 1 :: Int])
  print (nub "mississippi")
  print (3 `elem` ([1, 2, 3] ++ undefined :: [Int]))
  print (break (> 3) [1, 2, 3, 4, 5, 1 :: Int])
  print (span even [2, 4, 5, 6 :: Int])
  print (fst (break (== 0) ([1, 2, 0] ++ undefined :: [Int])))
  print (take 3 (fst (span (> 0) [1 :: Int ..])))
  print (take 3 (snd (break (> 100) [1 :: Int ..])))
  print (break (const False) [1, 2, 3 :: Int])
  print (span (const True) [1, 2, 3 :: Int])
  print (break undefined ([] :: [Int]))
  print (length (fst (span (< 5000) [1 :: Int ..])))
  print [1.5 .. 4 :: Double]
  print [1 .. 4.2 :: Double]
  print [1.0, 1.5 .. 3 :: Double]
  print [3.0, 2.5 .. 1 :: Double]
  print (take 3 [0.1 ..] :: [Double])
  print (take 4 [0.1, 0.2 ..] :: [Double])
  print [0, 0.1 .. 1 :: Double]
  print [5 .. 3 :: Double]
  print [1 .. 5 :: Int]
  print [10, 8 .. 1 :: Int]
  print (take 3 [1 :: Int ..])
  print (take 0 (undefined :: [Int]))
  print (take (-1) [1, 2 :: Int])
  print (take 5 [1, 2 :: Int])
  print (take 2 (1 : 2 : undefined) :: [Int])
  print (length (take 4 [undefined, undefined, undefined :: Int]))
  print (drop 2 [1, 2, 3, 4 :: Int])
  print (drop (-3) [1, 2 :: Int])
  print (length (drop 5 [1, 2 :: Int]))
  print (take 3 (drop 1000 [1 :: Int ..]))
  print (drop 1 (undefined : [2, 3 :: Int]))
  print (take 3 (map (* 2) [1 :: Int ..]))
  print (map undefined ([] :: [Int]) :: [Int])
  print (length (map undefined [1, 2, 3 :: Int] :: [Int]))
  print (zipWith (+) [1, 2, 3] [10, 20 :: Int])
  print (zipWith undefined ([] :: [Int]) (undefined :: [Int]) :: [Int])
  print (take 3 (zipWith (*) [1 :: Int ..] [2 ..]))
  print (length (zipWith undefined [1, 2 :: Int] [3, 4 :: Int] :: [Int]))
  print (filter even [1 .. 10 :: Int])
  print (take 3 (filter odd [1 :: Int ..]))
  print (filter undefined ([] :: [Int]))
  print (head (filter (> 5) ([1 .. 10] ++ undefined :: [Int])))
  print (let k = 3 :: Int in break (== k) [1, 2, 3, 4 :: Int])
  print (let k = 3 :: Int in filter (/= k) [3, 1, 3, 2 :: Int])
  print (span (< 'c') "abcd")
  print (break (> 2.5) [1.0, 2.0, 3.0 :: Double])
  print (break (== 3) (map (+ 1) [0 .. 5 :: Int]))
  print (let big = 2 ^ (70 :: Int) :: Integer in span (== big) [big, big, 1])
  print (break (\x -> compare x (3 :: Int) == GT) [1 .. 6])
"#;

const EXPECTED: &str = concat!(
    "[10,11,12,13,14]\n",
    "[9223372036854775806,9223372036854775807,9223372036854775808]\n",
    "[3,4,5,6,7]\n",
    "[]\n",
    "[9223372036854775805,9223372036854775806,9223372036854775807,9223372036854775808]\n",
    "[1.5,2.5,3.5,4.5]\n",
    "\"abcde\"\n",
    "50005000\n",
    "[1,2,3]\n",
    "[5]\n",
    "[1,2,3,4,5]\n",
    "2\n",
    "1003\n",
    "0\n",
    "30\n",
    "1001\n",
    "7\n",
    "[]\n",
    "[(1,'a'),(2,'b'),(3,'c')]\n",
    "[(1,'a'),(2,'b')]\n",
    "5\n",
    "[3,1,2]\n",
    "\"misp\"\n",
    "True\n",
    "([1,2,3],[4,5,1])\n",
    "([2,4],[5,6])\n",
    "[1,2]\n",
    "[1,2,3]\n",
    "[101,102,103]\n",
    "([1,2,3],[])\n",
    "([1,2,3],[])\n",
    "([],[])\n",
    "4999\n",
    "[1.5,2.5,3.5,4.5]\n",
    "[1.0,2.0,3.0,4.0]\n",
    "[1.0,1.5,2.0,2.5,3.0]\n",
    "[3.0,2.5,2.0,1.5,1.0]\n",
    "[0.1,1.1,2.1]\n",
    "[0.1,0.2,0.30000000000000004,0.4]\n",
    "[0.0,0.1,0.2,0.30000000000000004,0.4,0.5,0.6000000000000001,0.7000000000000001,0.8,0.9,1.0]\n",
    "[]\n",
    "[1,2,3,4,5]\n",
    "[10,8,6,4,2]\n",
    "[1,2,3]\n",
    "[]\n",
    "[]\n",
    "[1,2]\n",
    "[1,2]\n",
    "3\n",
    "[3,4]\n",
    "[1,2]\n",
    "0\n",
    "[1001,1002,1003]\n",
    "[2,3]\n",
    "[2,4,6]\n",
    "[]\n",
    "3\n",
    "[11,22]\n",
    "[]\n",
    "[2,6,12]\n",
    "2\n",
    "[2,4,6,8,10]\n",
    "[1,3,5]\n",
    "[]\n",
    "6\n",
    "([1,2],[3,4])\n",
    "[1,2]\n",
    "(\"ab\",\"cd\")\n",
    "([1.0,2.0],[3.0])\n",
    "([1,2],[3,4,5,6])\n",
    "([1180591620717411303424,1180591620717411303424],[1])\n",
    "([1,2,3],[4,5,6])\n",
);

fn compile(source: &str) -> Compiled {
    gclab_lang::compile(&[("natives.hs".to_string(), source.to_string())]).unwrap_or_else(|e| panic!("{e}"))
}

/// Run `code` under `collector` with a GC every few allocations and the
/// sanity checker after each: its output, and how it stopped if not by
/// returning from `main`.
fn run(code: &Compiled, collector: &str) -> (String, Option<gclab::ProgramStop>) {
    let entry = gclab_collectors::COLLECTORS.iter().find(|c| c.name == collector).unwrap();
    let flags = gclab::flags(&format!("--gc-every=13 -A8k -DS {}", entry.flags)).unwrap();
    let made = entry.make(&flags).unwrap();
    let mut out = Vec::new();
    let (_, stop) = gclab::run_program(code, Vec::new(), flags, made, &mut out).unwrap();
    (String::from_utf8(out).unwrap(), stop)
}

#[test]
fn natives_give_what_their_definitions_and_ghc_give() {
    let code = compile(CORNERS);
    for collector in ["copying", "mark-sweep", "immix"] {
        let (out, stop) = run(&code, collector);
        assert!(stop.is_none(), "{collector}: {stop:?}");
        assert_eq!(out, EXPECTED, "natives under {collector}");
    }
    let (out, stop) = run(&code.without_natives(), "copying");
    assert!(stop.is_none(), "{stop:?}");
    assert_eq!(out, EXPECTED, "the library's definitions");
}

/// A native stops the program where its definition would, with GHC's
/// message: `!!` past the end, and a list whose tail is itself.
#[test]
fn natives_stop_as_their_definitions_do() {
    let cases = [
        ("main = print (length [1, 2 :: Int]) >> print ([1, 2, 3 :: Int] !! 5)\n", "2\n", "Prelude.!!: index too large"),
        ("main = print (take 2 (zip [1 :: Int ..] \"ab\")) >> let xs = xs ++ [1 :: Int] in print (length xs)\n", "[(1,'a'),(2,'b')]\n", "<<loop>>"),
        ("main = let (a, b) = break (> 0) a in print (length (a :: [Int]))\n", "", "<<loop>>"),
    ];
    for (source, before, message) in cases {
        let code = compile(source);
        for variant in ["natives", "definitions"] {
            let code = if variant == "natives" { code.clone() } else { code.clone().without_natives() };
            let (out, stop) = run(&code, "copying");
            assert_eq!(out, before, "{variant}: {source}");
            assert_eq!(stop.map(|s| s.message).as_deref(), Some(message), "{variant}: {source}");
        }
    }
}

/// The machine steps `programs/selector_leak.hs` takes for each element
/// of its list: all of its work is `enumFromTo`, `++`, `break` and
/// `length`, 19 steps an element from their definitions; natively none
/// (a thunk of a call a native left unevaluated runs the native when
/// entered, with no step, and the test `break` applies, `(== 0)`, is a
/// comparison of two words made in place: See Note [Tests applied in
/// place] in `lang/src/machine/fast.rs`).
#[test]
fn natives_take_a_step_where_definitions_take_several() {
    let code = gclab_lang::load(std::path::Path::new("programs/selector_leak.hs")).unwrap();
    let per_element = |code: &Compiled| {
        let steps = |n: u32| {
            let entry = &gclab_collectors::COLLECTORS[0];
            let flags = gclab::flags(entry.flags).unwrap();
            let rts = gclab_core::Rts::new(flags.clone(), entry.make(&flags).unwrap()).unwrap();
            let mut out = Vec::new();
            let steps = rts.run(|m| gclab_lang::run(m, code, &mut out, vec![n.to_string()]).unwrap()).unwrap();
            rts.finish().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), format!("{n}\n55\n"));
            steps
        };
        (steps(30_000) - steps(10_000)) / 20_000
    };
    let native = per_element(&code);
    let defined = per_element(&code.clone().without_natives());
    assert_eq!(native, 0, "steps an element with the natives");
    assert!(defined >= 19, "{defined} steps an element from the definitions");
}

#[test]
fn a_constructor_with_many_strict_fields_keeps_each_field() {
    // A constructor's wrapper evaluates its `!` fields, one case each
    // (`constructor_wrapper` in `lower`, whose unit test checks that no
    // case's binder is an argument): with sixty of them, run under the
    // sanity checker, each field keeps its own value.
    let fields = 60;
    let source = format!(
        "data Wide = Wide{}\n\nfieldsOf :: Wide -> [Int]\nfieldsOf (Wide {}) = [{}]\n\nmain :: IO ()\nmain = print (fieldsOf (Wide {}))\n",
        " !Int".repeat(fields),
        (0..fields).map(|k| format!("f{k}")).collect::<Vec<_>>().join(" "),
        (0..fields).map(|k| format!("f{k}")).collect::<Vec<_>>().join(", "),
        (0..fields).map(|k| (k * 7 + 1).to_string()).collect::<Vec<_>>().join(" "),
    );
    let expected = format!("[{}]\n", (0..fields).map(|k| (k * 7 + 1).to_string()).collect::<Vec<_>>().join(","));
    let (out, stop) = run(&compile(&source), "copying");
    assert!(stop.is_none(), "{stop:?}");
    assert_eq!(out, expected);
}
