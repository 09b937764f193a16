-- What every GHC peer of a gclab workload shares: gclab's checksum step
-- (FNV-1a over a value's eight bytes, `mix` in gclab-workloads), its
-- random number generator (xorshift64*, `rng` there), and the last line
-- of output, which the sweep and the tests compare with gclab's checksum.
{-# LANGUAGE BangPatterns #-}
module Peer (mix, Rng, newRng, nextWord, below, printChecksum) where

import Data.Bits (shiftL, shiftR, xor, (.&.), (.|.))
import Data.Word (Word64)
import Text.Printf (printf)

mix :: Word64 -> Word64 -> Word64
mix acc v = go (acc `xor` 0xcbf29ce484222325) 0
  where
    go :: Word64 -> Int -> Word64
    go !h 8 = h
    go !h i = go ((h `xor` ((v `shiftR` (8 * i)) .&. 0xff)) * 0x100000001b3) (i + 1)

newtype Rng = Rng Word64

newRng :: Word64 -> Rng
newRng seed = Rng ((max seed 1 * 0x9e3779b97f4a7c15) .|. 1)

nextWord :: Rng -> (Word64, Rng)
nextWord (Rng x0) =
  let x1 = x0 `xor` (x0 `shiftR` 12)
      x2 = x1 `xor` (x1 `shiftL` 25)
      x3 = x2 `xor` (x2 `shiftR` 27)
   in (x3 * 0x2545f4914f6cdd1d, Rng x3)

-- | A number in [0, n).
below :: Int -> Rng -> (Int, Rng)
below n g = let (w, g') = nextWord g in (fromIntegral (w `mod` fromIntegral n), g')

printChecksum :: Word64 -> IO ()
printChecksum = printf "checksum: %016x\n"
