{-# LANGUAGE BangPatterns #-}
import Data.List (sort, foldl', nub)
import Data.IORef
data Tree = Leaf | Node Tree Int Tree deriving (Show, Eq)
data Color = Red | Green | Blue deriving (Show, Eq, Ord, Enum, Bounded)
data P = P { px :: Int, py :: Double } deriving Show

insertT :: Int -> Tree -> Tree
insertT x Leaf = Node Leaf x Leaf
insertT x t@(Node l y r)
  | x < y = Node (insertT x l) y r
  | x > y = Node l y (insertT x r)
  | otherwise = t

toList :: Tree -> [Int]
toList Leaf = []
toList (Node l x r) = toList l ++ [x] ++ toList r

fib :: Int -> Integer
fib n = go n 0 1 where
  go 0 a _ = a
  go k !a !b = go (k - 1) b (a + b)

main = do
  let t = foldr insertT Leaf [5, 3, 8, 1, 4, 7, 9 :: Int]
  print (toList t)
  print (sort [3, 1, 2 :: Int], nub [1, 1, 2, 3, 2 :: Int])
  print [Red ..]
  print (P { px = 1, py = 2.5 })
  print (fib 100)
  r <- newIORef (0 :: Int)
  mapM_ (\i -> modifyIORef r (+ i)) [1 .. 10]
  readIORef r >>= print
  print (foldl' (+) 0 [1 .. 100000 :: Int])
  print [x * y | x <- [1 .. 3], y <- [x .. 3], odd (x + y)]
  let (a, b) = span even [2, 4, 5, 6 :: Int]
  print a >> print b
  print (words "hello  world  foo", unwords ["a", "b"], lines "x\ny\n")
  print (show 3.0e-2, read "42" + (1 :: Int), 7 `div` 2, (-7) `mod` 2, 2 ^ 10)
  print (Just 3 > Nothing, [1,2] < [1,3 :: Int])
