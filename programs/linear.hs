-- Linear algebra on lists (after nofib's linear and gclab's linear
-- workload): conjugate-gradient iterations on a banded symmetric
-- system, vectors and matrix rows as lists of Double.
import System.Environment (getArgs)

type Vector = [Double]

dot :: Vector -> Vector -> Double
dot a b = sum (zipWith (*) a b)

axpy :: Double -> Vector -> Vector -> Vector
axpy a x y = zipWith (\xi yi -> a * xi + yi) x y

-- The tridiagonal matrix with 4 on the diagonal and -1 beside it.
applyA :: Vector -> Vector
applyA v = zipWith3 (\l c r -> 4 * c - l - r) (0 : v) v (tail v ++ [0])

cg :: Int -> Vector -> Vector -> Vector -> Vector -> Double -> (Vector, Int)
cg 0 x _ _ _ _ = (x, 0)
cg k x r p _ rr
  | rr < 1.0e-20 = (x, k)
  | otherwise =
      let ap = applyA p
          alpha = rr / dot p ap
          x' = axpy alpha p x
          r' = axpy (negate alpha) ap r
          rr' = dot r' r'
          p' = axpy (rr' / rr) p r'
       in cg (k - 1) x' r' p' ap rr'

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 2000
        (a : _) -> read a :: Int
      b = [fromIntegral (i `mod` 10) | i <- [1 .. n]]
      x0 = replicate n 0
      (x, left) = cg 200 x0 b b b (dot b b)
      residual = sqrt (dot (zipWith (-) (applyA x) b) (zipWith (-) (applyA x) b))
  putStrLn ("n " ++ show n ++ ": " ++ show (200 - left) ++ " iterations, residual below 1e-6: " ++ show (residual < 1.0e-6) ++ ", sum " ++ show (round (sum x * 1000) :: Int))
