-- Binary trees (the Benchmarks Game's, as gclab's binary-trees workload): many
-- short-lived trees of growing depth beside one long-lived tree.
import System.Environment (getArgs)

data Tree = Nil | Node Tree Tree

make :: Int -> Tree
make 0 = Node Nil Nil
make d = Node (make (d - 1)) (make (d - 1))

check :: Tree -> Int
check Nil = 0
check (Node l r) = 1 + check l + check r

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 16
        (a : _) -> read a
  let long = make n
  mapM_ (\d -> do
           let iters = 2 ^ (n - d + 4) :: Int
               s = sum [check (make d) | _ <- [1 .. iters]]
           putStrLn (show iters ++ " trees of depth " ++ show d ++ " check: " ++ show s))
        [4, 6 .. n]
  putStrLn ("long lived tree of depth " ++ show n ++ " check: " ++ show (check long))
