-- Constraint solving by backtracking (after nofib's constraints and
-- gclab's constraints workload): every solution of the n-queens problem,
-- found by a search that builds and drops partial assignments.
import System.Environment (getArgs)

safe :: Int -> [Int] -> Bool
safe q qs = and [q /= c && abs (q - c) /= d | (d, c) <- zip [1 ..] qs]

queens :: Int -> [[Int]]
queens n = go n
  where
    go 0 = [[]]
    go k = [q : qs | qs <- go (k - 1), q <- [1 .. n], safe q qs]

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 10
        (a : _) -> read a :: Int
      solutions = queens n
  putStrLn ("queens " ++ show n ++ ": " ++ show (length solutions) ++ " solutions; first " ++ show (head solutions))
