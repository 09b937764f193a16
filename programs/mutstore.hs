-- A mutable store (in the style of the mutable-structure programs of
-- nofib's gc suite): a large boxed array of records and an unboxed array
-- of counters, updated at random places for many rounds, so the old
-- array keeps pointing at young records (card marking's case).
{-# LANGUAGE BangPatterns #-}
import Data.Array.IO
import Control.Monad (forM_, when)
import Data.IORef
import System.Environment (getArgs)

data Account = Account { owner :: !Int, balance :: !Int, history :: [Int] }

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 200000
        (a : _) -> read a :: Int
      size = 20000
  store <- newListArray (0, size - 1) [Account i 0 [] | i <- [0 .. size - 1]] :: IO (IOArray Int Account)
  counts <- newArray (0, size - 1) 0 :: IO (IOUArray Int Int)
  seed <- newIORef (12345 :: Int)
  forM_ [1 .. n] $ \t -> do
    s <- readIORef seed
    let s' = (s * 1103515245 + 12345) `mod` 2147483648
        i = s' `mod` size
    writeIORef seed s'
    acc <- readArray store i
    let amount = s' `mod` 1000 - 500
        h = take 8 (amount : history acc)
    writeArray store i (acc { balance = balance acc + amount, history = h })
    c <- readArray counts i
    writeArray counts i (c + 1)
    when (t `mod` 50000 == 0) $ putStrLn ("round " ++ show t)
  accounts <- getElems store
  cs <- getElems counts
  let total = sum (map balance accounts)
      kept = sum (map (length . history) accounts)
  putStrLn ("updates " ++ show n ++ ": total " ++ show total ++ ", history entries " ++ show kept ++ ", most updated " ++ show (maximum cs))
