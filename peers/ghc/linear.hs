-- linear for GHC, the peer of gclab's linear: determinants of random
-- dense matrices modulo a prime by Gaussian elimination, every eliminated
-- row a new unboxed array stored into the matrix's mutable array of rows.
{-# LANGUAGE BangPatterns, FlexibleContexts #-}
import Control.Monad (foldM, forM_)
import Data.Array.IO (IOArray, newListArray, readArray, writeArray)
import Data.Array.ST (newArray_, runSTUArray)
import Data.Array.Unboxed (UArray, listArray, (!))
import qualified Data.Array.ST as ST
import Data.Word (Word64)
import Peer
import System.Environment (getArgs)

type Row = UArray Int Int

p :: Int
p = 1000000007

powerMod :: Int -> Int -> Int
powerMod b0 e0 = go b0 e0 1
  where
    go !_ 0 !r = r
    go b e r = go (b * b `mod` p) (e `div` 2) (if odd e then r * b `mod` p else r)

randomRows :: Int -> Rng -> ([Row], Rng)
randomRows n g0 = go n g0 []
  where
    go 0 g rows = (reverse rows, g)
    go i g rows = let (xs, g') = draw n g [] in go (i - 1 :: Int) g' (listArray (0, n - 1) xs : rows)
    draw 0 g xs = (reverse xs, g)
    draw j g xs = let (x, g') = below p g in draw (j - 1 :: Int) g' (x : xs)

-- | row - f * pivot, a new row.
eliminate :: Int -> Int -> Row -> Row -> Row
eliminate n f row pivot = runSTUArray $ do
  new <- newArray_ (0, n - 1)
  forM_ [0 .. n - 1] $ \j -> ST.writeArray new j ((row ! j + p - f * (pivot ! j) `mod` p) `mod` p)
  return new

determinant :: Int -> IOArray Int Row -> IO Int
determinant n matrix = go 0 1
  where
    go k !det
      | k == n = return det
      | otherwise = do
          column <- mapM (\i -> (! k) <$> readArray matrix i) [k .. n - 1]
          case [i | (i, x) <- zip [k ..] column, x /= 0] of
            [] -> return 0
            (pr : _) -> do
              det' <- if pr /= k
                then do
                  a <- readArray matrix pr
                  b <- readArray matrix k
                  writeArray matrix k a >> writeArray matrix pr b
                  return ((p - det) `mod` p)
                else return det
              pivotRow <- readArray matrix k
              let pivot = pivotRow ! k
                  inverse = powerMod pivot (p - 2)
              forM_ [k + 1 .. n - 1] $ \i -> do
                row <- readArray matrix i
                writeArray matrix i (eliminate n (row ! k * inverse `mod` p) row pivotRow)
              go (k + 1) (det' * pivot `mod` p)

main :: IO ()
main = do
  [n, count] <- map read <$> getArgs
  (acc, _) <- foldM (\(!acc, g) c -> do
      let (rows, g') = randomRows n g
      matrix <- newListArray (0, n - 1) rows
      det <- determinant n matrix
      lastRow <- readArray matrix (n - 1)
      let rowSum = sum [fromIntegral (lastRow ! j) | j <- [0 .. n - 1]] :: Word64
      putStrLn $ "linear: matrix " ++ show c ++ " of " ++ show n ++ "x" ++ show n ++ " mod " ++ show p ++ ": determinant " ++ show det
      return (mix (mix acc (fromIntegral det)) rowSum, g'))
    (0, newRng 3) [1 .. count]
  printChecksum acc
