-- power for GHC, the peer of gclab's power: the first N coefficients of
-- b^K for a power series b, multiplied as lazy streams (McIlroy), with
-- coefficients modulo a prime.
{-# LANGUAGE BangPatterns #-}
import Peer
import System.Environment (getArgs)

data S = S {-# UNPACK #-} !Int S -- a coefficient and the (lazy) rest

p :: Int
p = 1000000007

base :: Int -> S
base i = S ((i * i + 1) `mod` p) (base (i + 1))

scale :: Int -> S -> S
scale c (S f fs) = S (c * f `mod` p) (scale c fs)

add :: S -> S -> S
add (S f fs) (S g gs) = S ((f + g) `mod` p) (add fs gs)

mul :: S -> S -> S
mul (S f0 fs) g@(S g0 gs) = S (f0 * g0 `mod` p) (add (scale f0 gs) (mul fs g))

main :: IO ()
main = do
  [n, k] <- map read <$> getArgs
  let b = base 0
      series = iterate (`mul` b) b !! (max k 1 - 1)
      takeMix 0 !_ !acc !l = (acc, l)
      takeMix i (S c rest) acc _ = takeMix (i - 1 :: Int) rest (mix acc (fromIntegral c)) c
      (acc, lastC) = takeMix (max n 1) series 0 0
  putStrLn $ "power: " ++ show (max n 1) ++ " coefficients of b^" ++ show (max k 1) ++ " mod " ++ show p ++ ": the last is " ++ show lastC
  printChecksum acc
