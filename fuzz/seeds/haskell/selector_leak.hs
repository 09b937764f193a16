-- The space leak that GC-time selector evaluation fixes (Wadler, "Fixing
-- some space leaks with a garbage collector", 1987): `rest` is a
-- selector thunk over the pair `break` returns; while `first` is
-- consumed, each pair's second component is again a selector over the
-- next pair. A GC that evaluates selector thunks whose selectee is
-- already a value keeps the residency constant; one that does not keeps
-- every consumed element alive until `rest` is demanded.
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 1000000
        (a : _) -> read a :: Int
      xs = [1 .. n] ++ [0] ++ [1 .. 10]
      (first, rest) = break (== 0) xs
  print (length first)
  print (sum rest)
