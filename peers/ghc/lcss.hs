-- lcss for GHC, the peer of gclab's lcss: the length of the longest
-- common subsequence of two random sequences, by dynamic programming
-- whose rows are lists (each built in reverse, then reversed).
{-# LANGUAGE BangPatterns #-}
import Data.Word (Word64)
import Peer
import System.Environment (getArgs)

data List = Nil | Cons {-# UNPACK #-} !Int !List

randomList :: Int -> Rng -> (List, Rng)
randomList n g0 = go n g0 []
  where
    go 0 g drawn = (foldl (flip Cons) Nil drawn, g) -- the first drawn first
    go i g drawn = let (l, g') = below 4 g in go (i - 1) g' (l : drawn)

reverseList :: List -> List
reverseList = go Nil
  where
    go !acc Nil = acc
    go acc (Cons x rest) = go (Cons x acc) rest

replicateList :: Int -> Int -> List
replicateList 0 _ = Nil
replicateList n x = Cons x (replicateList (n - 1) x)

-- | The row of letter x below the row prev, and its last number.
nextRow :: Int -> List -> List -> (List, Int)
nextRow x ys (Cons p0 ps) = go ys ps 0 p0 (Cons 0 Nil)
  where
    go (Cons y ys') (Cons up ups) !left !diag !acc =
      let !v = if y == x then diag + 1 else max left up
       in go ys' ups v up (Cons v acc)
    go _ _ left _ acc = (reverseList acc, left)
nextRow _ _ Nil = error "lcss: empty row"

main :: IO ()
main = do
  n <- read . head <$> getArgs
  let (xs, g) = randomList n (newRng 5)
      (ys, _) = randomList n g
      rows Nil !row !acc = (row, acc)
      rows (Cons x rest) row acc = let (row', l) = nextRow x ys row in rows rest row' (mix acc (fromIntegral l))
      (final, sum') = rows xs (replicateList (n + 1) 0) 0
      sumAndLast !t !l Nil = (t, l)
      sumAndLast t _ (Cons v rest) = sumAndLast (t + fromIntegral v) v rest
      (total, len) = sumAndLast (0 :: Word64) (0 :: Int) final
  putStrLn $ "lcss: two sequences of " ++ show n ++ ": longest common subsequence " ++ show len
  printChecksum (mix (mix sum' total) (fromIntegral len))
