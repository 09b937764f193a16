-- Circuit simulation (in the style of nofib's circsim): a ripple-carry
-- adder of gates whose signals are lazy streams of bits, one element per
-- clock tick, driven by counters; the sums are checked against addition.
import System.Environment (getArgs)

type Signal = [Bool]

andG, orG, xorG :: Signal -> Signal -> Signal
andG = zipWith (&&)
orG = zipWith (||)
xorG = zipWith (/=)

-- A unit delay: the signal one tick late, starting low.
delay :: Signal -> Signal
delay s = False : s

fullAdder :: Signal -> Signal -> Signal -> (Signal, Signal)
fullAdder a b c =
  let s1 = xorG a b
   in (xorG s1 c, orG (andG a b) (andG s1 c))

-- Bit i of a stream of numbers.
bit :: Int -> [Int] -> Signal
bit i = map (\n -> odd (n `div` (2 ^ i)))

adder :: Int -> [Int] -> [Int] -> [Signal]
adder width xs ys = go 0 (repeat False)
  where
    go i carry
      | i == width = [carry]
      | otherwise =
          let (s, c) = fullAdder (bit i xs) (bit i ys) carry
           in s : go (i + 1) c

fromBits :: [Bool] -> Int
fromBits = foldr (\b n -> 2 * n + (if b then 1 else 0)) 0

main :: IO ()
main = do
  args <- getArgs
  let ticks = case args of
        [] -> 20000
        (a : _) -> read a :: Int
      width = 16
      xs = [(t * 7919) `mod` 65536 | t <- [0 ..]]
      ys = [(t * 104729) `mod` 65536 | t <- [0 ..]]
      outs = adder width xs ys
      sums = take ticks (map fromBits (foldr (zipWith (:)) (repeat []) outs))
      wrong = length (filter not (zipWith3 (\s x y -> s == x + y) sums xs ys))
      latched = length (filter id (take ticks (delay (outs !! 3))))
  putStrLn ("ticks " ++ show ticks ++ ": " ++ show wrong ++ " wrong sums, checksum " ++ show (sum sums `mod` 1000003) ++ ", " ++ show latched ++ " high bits")
