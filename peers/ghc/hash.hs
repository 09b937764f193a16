-- hash for GHC, the peer of gclab's hash: a chained hash table (a mutable
-- array of immutable chains) under random inserts, deletes and lookups,
-- doubling when it holds more than two entries per bucket.
{-# LANGUAGE BangPatterns #-}
import Control.Monad (foldM)
import Data.Array.IO (IOArray, getBounds, newArray, readArray, writeArray)
import Data.Bits ((.&.))
import Data.IORef
import Data.Word (Word64)
import Peer
import System.Environment (getArgs)

data Chain = Nil | Entry {-# UNPACK #-} !Int {-# UNPACK #-} !Int !Chain -- key, value, rest

lookupKey :: Int -> Chain -> Maybe Int
lookupKey _ Nil = Nothing
lookupKey k (Entry k' v rest) = if k == k' then Just v else lookupKey k rest

remove :: Int -> Chain -> Chain
remove _ Nil = Nil
remove k (Entry k' v rest) = if k == k' then rest else Entry k' v (remove k rest)

size' :: IOArray Int Chain -> IO Int
size' t = (+ 1) . snd <$> getBounds t

grow :: IOArray Int Chain -> IO (IOArray Int Chain)
grow t = do
  buckets <- size' t
  bigger <- newArray (0, 2 * buckets - 1) Nil
  let move :: Chain -> IO ()
      move Nil = return ()
      move (Entry k v rest) = do
        let to = k .&. (2 * buckets - 1)
        old <- readArray bigger to
        writeArray bigger to (Entry k v old)
        move rest
  mapM_ (\b -> readArray t b >>= move) [0 .. buckets - 1]
  return bigger

tableSum :: IOArray Int Chain -> IO Word64
tableSum t = do
  buckets <- size' t
  let chain !acc Nil = acc
      chain acc (Entry k v rest) = chain (acc + fromIntegral k * 31 + fromIntegral v) rest
  foldM (\acc b -> chain acc <$> readArray t b) 0 [0 .. buckets - 1]

main :: IO ()
main = do
  [keys, ops] <- map read <$> getArgs
  tableRef <- newArray (0, 15) Nil >>= newIORef
  let loop !op !g !size !acc !hits
        | op == ops = return (size, acc, hits)
        | otherwise = do
            table <- readIORef tableRef
            buckets <- size' table
            let (key, g1) = below keys g
                bucket = key .&. (buckets - 1)
                (kind, g2) = below 4 g1
            chain <- readArray table bucket
            let found = lookupKey key chain
            (size', acc', hits') <- case (kind, found) of
              (k, _) | k < 2 -> do
                let rest = maybe chain (const (remove key chain)) found
                writeArray table bucket (Entry key op rest)
                return (maybe (size + 1) (const size) found, acc, hits)
              (2, Just _) -> writeArray table bucket (remove key chain) >> return (size - 1, acc, hits)
              (2, Nothing) -> return (size, acc, hits)
              _ -> return (size, mix acc (maybe maxBound fromIntegral found), maybe hits (const (hits + 1)) found)
            if size' > 2 * buckets then grow table >>= writeIORef tableRef else return ()
            loop (op + 1) g2 size' acc' hits'
  (size, acc, hits) <- loop 0 (newRng 11) (0 :: Int) 0 (0 :: Int)
  table <- readIORef tableRef
  buckets <- size' table
  total <- tableSum table
  putStrLn $ "hash: " ++ show ops ++ " operations on " ++ show keys ++ " keys: " ++ show size ++ " entries in " ++ show buckets ++ " buckets, " ++ show hits ++ " lookups found"
  printChecksum (mix (mix acc (fromIntegral size)) total)
