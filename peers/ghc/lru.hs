-- lru for GHC, the peer of gclab's lru: a clock (second-chance) cache of
-- CAPACITY entries over 4 x CAPACITY keys under a skewed stream of
-- requests; a miss builds an unboxed value array and evicts a victim.
-- (gclab's lru also allocates a short-lived request record per
-- operation, which GHC would not keep; this peer does not make it.)
{-# LANGUAGE BangPatterns, FlexibleContexts #-}
import Control.Monad (foldM, when)
import Data.Array.IO (IOArray, IOUArray, newArray, readArray, writeArray)
import Data.Array.Unboxed (UArray, listArray, (!))
import Data.Word (Word64)
import Peer
import System.Environment (getArgs)

data Entry = Empty | Entry !(UArray Int Word64) {-# UNPACK #-} !Int -- value, key

valueWord :: Int -> Int -> Word64
valueWord key i = fromIntegral key * 0x9e3779b9 + fromIntegral i

main :: IO ()
main = do
  [capacity0, ops, valueBytes0] <- map read <$> getArgs
  let capacity = max 1 capacity0
      keys = capacity * 4
      words' = max 8 valueBytes0 `div` 8
  slots <- newArray (0, capacity - 1) Empty :: IO (IOArray Int Entry)
  slotOf <- newArray (0, keys - 1) 0 :: IO (IOUArray Int Int)
  referenced <- newArray (0, capacity - 1) 0 :: IO (IOUArray Int Int)
  let advance h = (h + 1) `mod` capacity
      clock h = do
        r <- readArray referenced h
        if r /= 0 then writeArray referenced h 0 >> clock (advance h) else return h
      loop !op !g !hand !hits !misses !acc
        | op == ops = return (hits, misses, acc)
        | otherwise = do
            let (hot, g1) = below 4 g
                (key, g2) = if hot /= 0 then below (keys `div` 8 + 1) g1 else below keys g1
            slot <- readArray slotOf key
            if slot /= 0
              then do
                writeArray referenced (slot - 1) 1
                entry <- readArray slots (slot - 1)
                case entry of
                  Entry value k | k == key -> do
                    let v = value ! (op `mod` words')
                    when (v /= valueWord key (op `mod` words')) $ error ("lru: value of key " ++ show key ++ " corrupted")
                    loop (op + 1) g2 hand (hits + 1) misses (mix acc v)
                  _ -> error ("lru: entry in slot " ++ show (slot - 1) ++ " lost its key")
              else do
                let value = listArray (0, words' - 1) [valueWord key i | i <- [0 .. words' - 1]]
                hand' <- clock hand
                victim <- readArray slots hand'
                case victim of
                  Entry _ oldKey -> writeArray slotOf oldKey 0
                  Empty -> return ()
                writeArray slots hand' (Entry value key)
                writeArray slotOf key (hand' + 1)
                loop (op + 1) g2 (advance hand') hits (misses + 1 :: Int) acc
  (hits, misses, acc) <- loop 0 (newRng 42) 0 (0 :: Int) 0 0
  resident <- foldM (\r i -> do
      e <- readArray slots i
      case e of
        Empty -> return r
        Entry value key -> do
          when (value ! (words' - 1) /= valueWord key (words' - 1)) $ error "lru: a resident value is corrupted"
          return (mix r (fromIntegral key))) 0 [0 .. capacity - 1]
  putStrLn $ "lru: capacity " ++ show capacity ++ ", " ++ show ops ++ " ops: " ++ show hits ++ " hits, " ++ show misses ++ " misses"
  printChecksum (mix (mix (mix acc (fromIntegral hits)) (fromIntegral misses)) resident)
