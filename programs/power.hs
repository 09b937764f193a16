-- Power series as lazy infinite lists (after nofib's power and gclab's
-- power workload): products, quotients and composition of series of
-- integers, the coefficients demanded one by one.
import System.Environment (getArgs)

type Series = [Integer]

add :: Series -> Series -> Series
add = zipWith (+)

mul :: Series -> Series -> Series
mul (f : fs) gs@(g : gt) = f * g : add (map (f *) gt) (mul fs gs)

-- 1 / (1 - x g): the series of g's geometric sum.
geometric :: Series -> Series
geometric g = let s = 1 : mul g s in s

-- Partitions: the product over k of 1 / (1 - x^k).
partitions :: Int -> Series
partitions n = foldr (\k acc -> mul acc (1 : replicate (k - 1) 0 ++ cycle (1 : replicate (k - 1) 0))) ones [2 .. n]
  where ones = repeat 1

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 300
        (a : _) -> read a :: Int
      catalan = let c = 1 : mul c c in c
      fibs = geometric (0 : 1 : 1 : repeat 0)
      parts = partitions n
  putStrLn ("catalan " ++ show n ++ ": " ++ show (catalan !! n))
  putStrLn ("fibonacci " ++ show n ++ ": " ++ show (fibs !! n))
  putStrLn ("partitions of " ++ show n ++ ": " ++ show (parts !! n))
