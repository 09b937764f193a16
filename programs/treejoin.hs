-- Tree joins (in the style of nofib's treejoin): two relations as
-- binary search trees keyed by an integer, joined on the key; the
-- result tree is built, then folded.
import System.Environment (getArgs)

data Tree a = Leaf | Node (Tree a) Int a (Tree a)

insertT :: Int -> a -> Tree a -> Tree a
insertT k v Leaf = Node Leaf k v Leaf
insertT k v t@(Node l k' v' r)
  | k < k' = Node (insertT k v l) k' v' r
  | k > k' = Node l k' v' (insertT k v r)
  | otherwise = Node l k v r

lookupT :: Int -> Tree a -> Maybe a
lookupT _ Leaf = Nothing
lookupT k (Node l k' v r)
  | k < k' = lookupT k l
  | k > k' = lookupT k r
  | otherwise = Just v

toListT :: Tree a -> [(Int, a)]
toListT t = go t []
  where
    go Leaf acc = acc
    go (Node l k v r) acc = go l ((k, v) : go r acc)

data Employee = Employee { name :: String, dept :: Int, salary :: Int }
data Dept = Dept { dname :: String, budget :: Int }

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 50000
        (a : _) -> read a :: Int
      keys = [(i * 7907) `mod` n | i <- [1 .. n]]
      employees = foldr (\k t -> insertT k (Employee { name = "e" ++ show k, dept = k `mod` 97, salary = 1000 + k `mod` 5000 }) t) Leaf keys
      depts = foldr (\d t -> insertT d (Dept ("d" ++ show d) (d * 1000)) t) Leaf [0, 2 .. 96]
      joined = foldr (\(k, e) t -> case lookupT (dept e) depts of
                                     Just d -> insertT k (name e, dname d, salary e) t
                                     Nothing -> t) Leaf (toListT employees)
      rows = toListT joined
  putStrLn ("joined " ++ show (length rows) ++ " of " ++ show n ++ " rows; payroll " ++ show (sum [s | (_, (_, _, s)) <- rows]) ++ "; last " ++ show (fst (last rows), (\(a, b, _) -> (a, b)) (snd (last rows))))
