-- Longest common subsequence by Hirschberg's algorithm (after nofib's
-- lcss and gclab's lcss workload): lists of rows, built and dropped.
import System.Environment (getArgs)

lcsLengths :: Eq a => [a] -> [a] -> [Int]
lcsLengths xs ys = foldl step (replicate (length ys + 1) 0) xs
  where
    step prev x = scanl1 max (0 : zipWith3 (\y d l -> if x == y then d + 1 else l) ys prev (tail prev))

lcs :: Eq a => [a] -> [a] -> [a]
lcs [] _ = []
lcs _ [] = []
lcs [x] ys = if x `elem` ys then [x] else []
lcs xs ys =
  let (xs1, xs2) = splitAt (length xs `div` 2) xs
      l1 = lcsLengths xs1 ys
      l2 = reverse (lcsLengths (reverse xs2) (reverse ys))
      k = snd (maximum (zip (zipWith (+) l1 l2) [0 ..]))
      (ys1, ys2) = splitAt k ys
   in lcs xs1 ys1 ++ lcs xs2 ys2

sequenceOf :: Int -> Int -> [Int]
sequenceOf seed n = take n (map (`mod` 7) (iterate (\x -> (x * 1103515245 + 12345) `mod` 2147483648) seed))

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 2000
        (a : _) -> read a :: Int
      a = sequenceOf 1 n
      b = sequenceOf 2 n
      c = lcs a b
  putStrLn ("lcs of two sequences of " ++ show n ++ ": length " ++ show (length c) ++ ", sum " ++ show (sum c))
