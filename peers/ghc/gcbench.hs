-- gcbench for GHC, the peer of gclab's gcbench (Ellis, Kovac and Boehm's
-- GCBench): a stretch tree; a long-lived tree built top-down and an
-- array of doubles, live throughout; then, per depth, temporary trees
-- built top-down (mutable nodes whose children are stored after the
-- node is made) and bottom-up (immutable nodes), in four shares as
-- gclab's four tasks take them. Bottom-up trees get their iteration
-- number, as in binary_trees.hs, so that GHC builds every one of them.
{-# LANGUAGE BangPatterns #-}
import Control.Monad (foldM, forM_)
import Data.Array.IO (IOUArray, newArray, readArray, writeArray)
import Data.Bits (shiftL, shiftR, xor)
import Data.IORef
import Data.Word (Word64)
import GHC.Float (castDoubleToWord64)
import Peer
import System.Environment (getArgs)

-- Top-down: a node is two mutable references to its children.
data TopDown = TEmpty | TNode {-# UNPACK #-} !(IORef TopDown) {-# UNPACK #-} !(IORef TopDown)

-- Bottom-up: children, then the depth and a spare word, as gclab's node.
data Node = Empty | Node !Node !Node {-# UNPACK #-} !Int {-# UNPACK #-} !Int

newNode :: IO TopDown
newNode = TNode <$> newIORef TEmpty <*> newIORef TEmpty

populate :: Int -> TopDown -> IO ()
populate 0 _ = return ()
populate _ TEmpty = return ()
populate d (TNode l r) = do
  left <- newNode
  writeIORef l left
  right <- newNode
  writeIORef r right
  populate (d - 1) left
  populate (d - 1) right

countTopDown :: TopDown -> IO Int
countTopDown TEmpty = return 0
countTopDown (TNode l r) = do
  a <- readIORef l >>= countTopDown
  b <- readIORef r >>= countTopDown
  return (1 + a + b)

{-# NOINLINE makeTree #-}
makeTree :: Int -> Int -> Node
makeTree i 0 = Node Empty Empty (if i < 0 then 1 else 0) 0
makeTree i d = Node (makeTree i (d - 1)) (makeTree (i + 1) (d - 1)) d 0

{-# NOINLINE count #-}
count :: Node -> Int
count Empty = 0
count (Node l r _ _) = 1 + count l + count r

treeSize :: Int -> Int
treeSize d = (1 `shiftL` (d + 1)) - 1

main :: IO ()
main = do
  stretchDepth <- max 6 . read . head <$> getArgs
  let longLivedDepth = stretchDepth - 2
      maxDepth = stretchDepth - 2
      arraySize
        | stretchDepth >= 18 = 500000 `shiftL` (stretchDepth - 18)
        | otherwise = max 1000 (500000 `shiftR` (18 - stretchDepth))
      half = arraySize `div` 2
      element :: IOUArray Int Double -> Int -> IO Word64
      element arr i = castDoubleToWord64 <$> readArray arr i
      c = count (makeTree 0 stretchDepth)
  putStrLn $ "stretch tree of depth " ++ show stretchDepth ++ ": " ++ show c ++ " nodes"
  longLived <- newNode
  populate longLivedDepth longLived
  array <- newArray (0, arraySize - 1) 0 :: IO (IOUArray Int Double)
  forM_ [0 .. half - 1] $ \i -> writeArray array i (1 / fromIntegral (i + 1))
  sum' <- foldM (\acc d -> do
      let iterations = 2 * treeSize stretchDepth `div` treeSize d
      shares <- mapM (\task -> do
          let from = iterations * task `div` 4
              to = iterations * (task + 1) `div` 4
          topDown <- foldM (\n _ -> do
              t <- newNode
              populate d t
              (n +) <$> countTopDown t) 0 [from .. to - 1]
          let bottomUp = sum [count (makeTree i d) | i <- [from .. to - 1]]
          ll <- countTopDown longLived
          e <- element array ((task * 997 + d) `mod` half)
          return (topDown + bottomUp, mix (fromIntegral ll) e)) [0 .. 3]
      let nodes = sum (map fst shares)
      putStrLn $ show iterations ++ " top-down and bottom-up trees of depth " ++ show d ++ ": " ++ show nodes ++ " nodes"
      return $! foldl (\a (_, m) -> mix a m) (mix acc (fromIntegral nodes)) shares)
    (mix 0 (fromIntegral c)) [4, 6 .. maxDepth]
  ll <- countTopDown longLived
  probe <- foldM (\a i -> xor a <$> element array i) 0 [1, 998 .. half - 1]
  let i = min 1000 (half - 1)
  e <- element array i
  let intact = e == castDoubleToWord64 (1 / fromIntegral (i + 1))
  putStrLn $ "long-lived tree of depth " ++ show longLivedDepth ++ ": " ++ show ll ++ " nodes; array of " ++ show arraySize ++ " doubles intact: " ++ (if intact then "true" else "false")
  printChecksum (mix (mix sum' (fromIntegral ll)) probe)
