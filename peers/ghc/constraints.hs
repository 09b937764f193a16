-- constraints for GHC, the peer of gclab's constraints: every solution of
-- the N-queens problem by backtracking search over lists of placed
-- columns, building each row's list of safe columns.
{-# LANGUAGE BangPatterns #-}
import Data.Word (Word64)
import Peer
import System.Environment (getArgs)

data List = Nil | Cons {-# UNPACK #-} !Int !List

safe :: List -> Int -> Bool
safe placed c = go placed 1
  where
    go Nil !_ = True
    go (Cons q rest) d = q /= c && q + d /= c && c + d /= q && go rest (d + 1)

signature :: List -> Word64
signature = go 0 1
  where
    go !acc !_ Nil = acc
    go acc i (Cons q rest) = go (acc + fromIntegral q * i) (i + 1) rest

-- | (solutions, checksum) after placing rows row..n-1 below placed.
place :: Int -> Int -> List -> (Word64, Word64) -> (Word64, Word64)
place n row placed (!count, !acc)
  | row == n = (count + 1, mix acc (signature placed))
  | otherwise = try candidates (count, acc)
  where
    candidates = foldl (\l c -> if safe placed c then Cons c l else l) Nil [n, n - 1 .. 1]
    try Nil found = found
    try (Cons c rest) found = try rest (place n (row + 1) (Cons c placed) found)

main :: IO ()
main = do
  n <- read . head <$> getArgs
  let (count, acc) = place n 0 Nil (0, 0)
  putStrLn $ "constraints: " ++ show n ++ " queens: " ++ show count ++ " solutions"
  printChecksum (mix acc count)
