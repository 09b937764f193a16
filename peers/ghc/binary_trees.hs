-- binary-trees for GHC, the peer of gclab's binary-trees. Strict fields;
-- the long-lived tree is forced before the iterations, as gclab's is.
--
-- Keeping GHC from optimising the work away: each tree is built from its
-- iteration number `i` (a test that never fails at the leaves, so that a
-- leaf is not a constant GHC floats into one static closure), and the two
-- children from different numbers (else GHC's CSE builds one subtree and
-- shares it as both children), so that GHC cannot float `make d` out of
-- the loop and build one tree for all iterations, which it otherwise does
-- even with -fno-full-laziness; `make` and `check` are NOINLINE so that
-- `check (make i d)` is not fused into a loop that builds nothing. The
-- long-lived tree is used once, after the iterations (two uses of
-- `check long` are merged by CSE, and then the tree dies early).
{-# LANGUAGE BangPatterns #-}
import Control.Monad (foldM)
import Data.Bits (shiftL)
import Peer
import System.Environment (getArgs)

data Tree = Nil | Node !Tree !Tree

{-# NOINLINE make #-}
make :: Int -> Int -> Tree
make i 0 = Node (if i < 0 then Node Nil Nil else Nil) Nil
make i d = Node (make i (d - 1)) (make (i + 1) (d - 1))

{-# NOINLINE check #-}
check :: Tree -> Int
check Nil = 0
check (Node l r) = 1 + check l + check r

sumTrees :: Int -> Int -> Int -> Int
sumTrees _ 0 !acc = acc
sumTrees d i !acc = sumTrees d (i - 1) (acc + check (make i d))

main :: IO ()
main = do
  n <- read . head <$> getArgs
  let minDepth = 4
      maxDepth = max (minDepth + 2) n
      stretch = maxDepth + 1
      s = check (make 0 stretch)
  putStrLn $ "stretch tree of depth " ++ show stretch ++ "\t check: " ++ show s
  let !long = make 0 maxDepth
  sum' <- foldM (\acc d -> do
      let iterations = 1 `shiftL` (maxDepth - d + minDepth)
          c = sumTrees d iterations 0
      putStrLn $ show iterations ++ "\t trees of depth " ++ show d ++ "\t check: " ++ show c
      return $! mix acc (fromIntegral c))
    (mix 0 (fromIntegral s)) [minDepth, minDepth + 2 .. maxDepth]
  let ll = check long
  putStrLn $ "long lived tree of depth " ++ show maxDepth ++ "\t check: " ++ show ll
  printChecksum (mix sum' (fromIntegral ll))
