-- A hash table of strings in a mutable array of buckets (after gclab's
-- hash workload): keys made from numbers, inserted, looked up, counted;
-- the buckets are written in place, so old buckets point at young lists.
import Data.Array.IO
import Data.Bits (xor, (.&.))
import Data.Char (ord)
import Data.Word (Word64)
import System.Environment (getArgs)

fnv :: String -> Word64
fnv = foldl (\h c -> (h `xor` fromIntegral (ord c)) * 1099511628211) 14695981039346656037

bucketOf :: Int -> String -> Int
bucketOf size key = fromIntegral (fnv key .&. fromIntegral (size - 1))

insertKey :: IOArray Int [(String, Int)] -> Int -> String -> Int -> IO ()
insertKey table size key value = do
  let b = bucketOf size key
  old <- readArray table b
  writeArray table b ((key, value) : filter ((/= key) . fst) old)

lookupKey :: IOArray Int [(String, Int)] -> Int -> String -> IO (Maybe Int)
lookupKey table size key = do
  bucket <- readArray table (bucketOf size key)
  return (lookup key bucket)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 100000
        (a : _) -> read a :: Int
      size = 4096
      keys = [show (i * 7919 `mod` (2 * n)) | i <- [1 .. n]]
  table <- newArray (0, size - 1) [] :: IO (IOArray Int [(String, Int)])
  mapM_ (\(k, v) -> insertKey table size k v) (zip keys [1 ..])
  found <- mapM (lookupKey table size) [show i | i <- [0, 3 .. 2 * n]]
  let hits = length [() | Just _ <- found]
      total = sum [v | Just v <- found]
  buckets <- getElems table
  putStrLn ("keys " ++ show n ++ ": " ++ show (sum (map length buckets)) ++ " distinct, " ++ show hits ++ " hits, sum " ++ show total)
