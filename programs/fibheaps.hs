-- Heaps of random numbers (after nofib's fibheaps and gclab's fibheaps
-- workload): a pairing heap filled from a random stream, then emptied in
-- order; the sorted stream is checked and summed.
{-# LANGUAGE BangPatterns #-}
import Data.Bits (shiftL, shiftR, xor)
import Data.Word (Word64)
import System.Environment (getArgs)

data Heap = E | T Int [Heap]

merge :: Heap -> Heap -> Heap
merge E h = h
merge h E = h
merge h1@(T x hs1) h2@(T y hs2)
  | x <= y = T x (h2 : hs1)
  | otherwise = T y (h1 : hs2)

insert :: Int -> Heap -> Heap
insert x = merge (T x [])

mergePairs :: [Heap] -> Heap
mergePairs [] = E
mergePairs [h] = h
mergePairs (a : b : rest) = merge (merge a b) (mergePairs rest)

deleteMin :: Heap -> Maybe (Int, Heap)
deleteMin E = Nothing
deleteMin (T x hs) = Just (x, mergePairs hs)

-- xorshift64*
randoms :: Word64 -> [Int]
randoms s = let x1 = s `xor` (s `shiftR` 12)
                x2 = x1 `xor` (x1 `shiftL` 25)
                x3 = x2 `xor` (x2 `shiftR` 27)
             in fromIntegral ((x3 * 0x2545f4914f6cdd1d) `shiftR` 40) : randoms x3

drain :: Heap -> Int -> Int -> Int -> (Int, Int)
drain h !prev !count !acc = case deleteMin h of
  Nothing -> (count, acc)
  Just (x, h') -> if x < prev then error "out of order" else drain h' x (count + 1) ((acc * 31 + x) `mod` 1000000007)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 200000
        (a : _) -> read a :: Int
      heap = foldl (flip insert) E (take n (randoms 88172645463325252))
      (count, sig) = drain heap 0 0 0
  putStrLn ("sorted " ++ show count ++ " numbers; signature " ++ show sig)
