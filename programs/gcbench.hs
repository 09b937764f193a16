-- GCBench (Boehm's, as gclab's gcbench workload): trees built top-down
-- and bottom-up beside a long-lived tree and a long-lived unboxed array.
import Data.Array.IO
import Data.IORef
import System.Environment (getArgs)

data Node = Empty | Node Node Node

-- A tree of depth d, built bottom-up.
makeTree :: Int -> Node
makeTree 0 = Node Empty Empty
makeTree d = Node (makeTree (d - 1)) (makeTree (d - 1))

-- A tree of depth d, built top-down through mutable references.
populate :: Int -> IORef Node -> IO ()
populate 0 _ = return ()
populate d ref = do
  l <- newIORef Empty
  r <- newIORef Empty
  populate (d - 1) l
  populate (d - 1) r
  ln <- readIORef l
  rn <- readIORef r
  writeIORef ref $! Node ln rn

size :: Node -> Int
size Empty = 0
size (Node l r) = 1 + size l + size r

treeSize :: Int -> Int
treeSize d = 2 ^ (d + 1) - 1

timeConstruction :: Int -> Int -> IO ()
timeConstruction stretch depth = do
  let iters = 2 * treeSize stretch `div` treeSize depth
  total <- newIORef (0 :: Int)
  mapM_ (\_ -> do
          ref <- newIORef Empty
          populate depth ref
          t <- readIORef ref
          modifyIORef' total (+ size t)) [1 .. iters]
  mapM_ (\_ -> modifyIORef' total (+ size (makeTree depth))) [1 .. iters]
  n <- readIORef total
  putStrLn ("depth " ++ show depth ++ ": " ++ show iters ++ " iterations, " ++ show n ++ " nodes")

main :: IO ()
main = do
  args <- getArgs
  let maxDepth = case args of
        [] -> 16
        (a : _) -> read a :: Int
      stretch = maxDepth + 1
      minDepth = 4
  putStrLn ("stretch tree of depth " ++ show stretch ++ ": " ++ show (size (makeTree stretch)) ++ " nodes")
  longLived <- newIORef Empty
  populate maxDepth longLived
  arr <- newArray (0, 9999) 0.0 :: IO (IOUArray Int Double)
  mapM_ (\i -> writeArray arr i (1.0 / fromIntegral i)) [1 .. 9999]
  mapM_ (timeConstruction stretch) [minDepth, minDepth + 2 .. maxDepth]
  t <- readIORef longLived
  x <- readArray arr 1000
  putStrLn ("long-lived tree: " ++ show (size t) ++ " nodes; array[1000] = " ++ show x)
