-- An LRU cache (after gclab's lru workload): a balanced search tree from
-- key to (value, last use) and another from last use to key, both
-- persistent, updated for every request of a skewed random stream.
{-# LANGUAGE BangPatterns #-}
import System.Environment (getArgs)

data Map k v = Tip | Bin !Int k v (Map k v) (Map k v)

size :: Map k v -> Int
size Tip = 0
size (Bin s _ _ _ _) = s

bin :: k -> v -> Map k v -> Map k v -> Map k v
bin k v l r = Bin (size l + size r + 1) k v l r

balance :: k -> v -> Map k v -> Map k v -> Map k v
balance k v l r
  | sl + sr <= 1 = bin k v l r
  | sr > 3 * sl = rotateL k v l r
  | sl > 3 * sr = rotateR k v l r
  | otherwise = bin k v l r
  where sl = size l
        sr = size r

rotateL, rotateR :: k -> v -> Map k v -> Map k v -> Map k v
rotateL k v l r@(Bin _ _ _ rl rr)
  | size rl < 2 * size rr = single k v l r
  | otherwise = double k v l r
  where
    single a x t1 (Bin _ b y t2 t3) = bin b y (bin a x t1 t2) t3
    double a x t1 (Bin _ c z (Bin _ b y t2 t3) t4) = bin b y (bin a x t1 t2) (bin c z t3 t4)
rotateR k v l@(Bin _ _ _ ll lr) r
  | size lr < 2 * size ll = single k v l r
  | otherwise = double k v l r
  where
    single b y (Bin _ a x t1 t2) t3 = bin a x t1 (bin b y t2 t3)
    double c z (Bin _ a x t1 (Bin _ b y t2 t3)) t4 = bin b y (bin a x t1 t2) (bin c z t3 t4)

insert :: Ord k => k -> v -> Map k v -> Map k v
insert k v Tip = Bin 1 k v Tip Tip
insert k v (Bin s k' v' l r) = case compare k k' of
  LT -> balance k' v' (insert k v l) r
  GT -> balance k' v' l (insert k v r)
  EQ -> Bin s k v l r

lookupM :: Ord k => k -> Map k v -> Maybe v
lookupM _ Tip = Nothing
lookupM k (Bin _ k' v l r) = case compare k k' of
  LT -> lookupM k l
  GT -> lookupM k r
  EQ -> Just v

deleteMin :: Map k v -> ((k, v), Map k v)
deleteMin (Bin _ k v Tip r) = ((k, v), r)
deleteMin (Bin _ k v l r) = let (m, l') = deleteMin l in (m, balance k v l' r)

delete :: Ord k => k -> Map k v -> Map k v
delete _ Tip = Tip
delete k (Bin _ k' v l r) = case compare k k' of
  LT -> balance k' v (delete k l) r
  GT -> balance k' v l (delete k r)
  EQ -> glue l r
  where
    glue Tip b = b
    glue a Tip = a
    glue a b = let ((mk, mv), b') = deleteMin b in balance mk mv a b'

-- A request stream skewed towards small keys.
requests :: Int -> Int -> [Int]
requests seed n = take n (map skew (tail (iterate next seed)))
  where
    next x = (x * 1103515245 + 12345) `mod` 2147483648
    skew x = let r = x `mod` 1000 in (r * r) `div` 1000 * (x `mod` 7 + 1)

data Cache = Cache !(Map Int (Int, Int)) !(Map Int Int) !Int !Int

request :: Int -> Cache -> (Int, Int) -> Cache
request capacity (Cache byKey byUse hits misses) (time, key) =
  case lookupM key byKey of
    Just (value, used) ->
      Cache (insert key (value, time) byKey) (insert time key (delete used byUse)) (hits + 1) misses
    Nothing ->
      let value = key * key `mod` 9973
          (byKey', byUse') =
            if size byKey >= capacity
              then let ((_, old), rest) = deleteMin byUse in (delete old byKey, rest)
              else (byKey, byUse)
       in Cache (insert key (value, time) byKey') (insert time key byUse') hits (misses + 1)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 200000
        (a : _) -> read a :: Int
      Cache byKey _ hits misses = foldl (request 500) (Cache Tip Tip 0 0) (zip [1 ..] (requests 42 n))
  putStrLn ("requests " ++ show n ++ ": " ++ show hits ++ " hits, " ++ show misses ++ " misses, " ++ show (size byKey) ++ " cached")
