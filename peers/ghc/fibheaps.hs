-- fibheaps for GHC, the peer of gclab's fibheaps: heap sort of N random
-- keys through a heap that is a list of heap-ordered trees, consolidated
-- by rank through a mutable array on every deletion.
{-# LANGUAGE BangPatterns #-}
import Control.Monad (foldM)
import Data.Array.IO (IOArray, newArray, readArray, writeArray)
import Peer
import System.Environment (getArgs)

data Tree = Tree {-# UNPACK #-} !Int {-# UNPACK #-} !Int !Trees -- key, rank, children

data Trees = Nil | Cons !Tree !Trees

ranks :: Int
ranks = 64

none :: Tree
none = Tree (-1) (-1) Nil

key, rank :: Tree -> Int
key (Tree k _ _) = k
rank (Tree _ r _) = r

link :: Tree -> Tree -> Tree
link a@(Tree ka ra kidsA) b@(Tree kb rb kidsB)
  | ka <= kb = Tree ka (ra + 1) (Cons b kidsA)
  | otherwise = Tree kb (rb + 1) (Cons a kidsB)

insertByRank :: IOArray Int Tree -> Tree -> IO ()
insertByRank arr t = do
  other <- readArray arr (rank t)
  if rank other < 0
    then writeArray arr (rank t) t
    else writeArray arr (rank t) none >> insertByRank arr (link t other)

leastRoot :: Trees -> (Int, Int)
leastRoot = go 0 0 maxBound
  where
    go !_ !best !k Nil = (best, k)
    go pos best k (Cons t rest)
      | key t < k = go (pos + 1) pos (key t) rest
      | otherwise = go (pos + 1) best k rest

deleteMin :: IOArray Int Tree -> Trees -> IO (Int, Trees)
deleteMin arr roots = do
  let (least, k) = leastRoot roots
      others !_ Nil kids = return kids
      others pos (Cons t rest) kids
        | pos == least = others (pos + 1) rest (children t)
        | otherwise = insertByRank arr t >> others (pos + 1) rest kids
      children (Tree _ _ c) = c
      each Nil = return ()
      each (Cons t rest) = insertByRank arr t >> each rest
  kids <- others (0 :: Int) roots Nil
  each kids
  roots' <- foldM (\acc r -> do
      t <- readArray arr r
      if rank t < 0 then return acc else writeArray arr r none >> return (Cons t acc))
    Nil [ranks - 1, ranks - 2 .. 0]
  return (k, roots')

main :: IO ()
main = do
  n <- read . head <$> getArgs
  let build 0 !_ !acc = acc
      build i g acc = let (k, g') = below (2 ^ (30 :: Int)) g in build (i - 1 :: Int) g' (Cons (Tree k 0 Nil) acc)
      heap = build n (newRng 7) Nil
  arr <- newArray (0, ranks - 1) none
  let loop 0 !_ !_ !prev !first !acc = return (prev, first, acc)
      loop i roots isFirst prev first acc = do
        (k, roots') <- deleteMin arr roots
        if k < prev then error ("fibheaps: key " ++ show k ++ " came out after " ++ show prev) else return ()
        loop (i - 1 :: Int) roots' False k (if isFirst then k else first) (mix acc (fromIntegral k))
  (lastKey, firstKey, sum') <- loop n heap True 0 0 0
  putStrLn $ "fibheaps: " ++ show n ++ " keys sorted, smallest " ++ show firstKey ++ ", largest " ++ show lastKey
  printChecksum sum'
