import Data.IORef
data T = L | N T Int T deriving Show
ins x L = N L x L
ins x t@(N l y r) | x < y = N (ins x l) y r
                  | x > y = N l y (ins x r)
                  | otherwise = t
main = do
  let t = foldr ins L [5, 2, 8, 1, 9, 3 :: Int]
      (evens, odds) = foldr (\x ~(e, o) -> if even x then (x : e, o) else (e, x : o)) ([], []) [1 .. 20 :: Int]
  print t
  print (sum evens, length odds)
  r <- newIORef []
  mapM_ (\i -> modifyIORef r (i :)) [1 .. 30 :: Int]
  readIORef r >>= print . take 5
  print (show 12345678901234567890123 , 2 ^ 70 `div` 3)
