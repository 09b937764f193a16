-- The library modules beside the Prelude: Data.List, Data.Char,
-- Data.Maybe, Data.Ord, Data.Function, Data.Bits, Data.IORef,
-- Control.Monad, System.Environment, System.Mem and the arrays
-- (Data.Array, Data.Array.IO, Data.Array.Unboxed). Modules share one
-- namespace (See the crate doc).
module Library where

infixl 9 !, //
infixl 8 `shiftL`, `shiftR`, `shift`
infixl 7 .&.
infixl 6 `xor`
infixl 5 .|.
infixl 0 `on`
infix 5 \\

-- Data.List -----------------------------------------------------------

foldl1' f (x : xs) = foldl' f x xs
sort xs = sortBy compare xs
sortOn f xs = map snd (sortBy (comparing fst) (map (\x -> let !y = f x in (y, x)) xs))
sortBy cmp xs = mergeAll (sequences xs)
  where
    sequences (a : b : xs) = if cmp a b == GT then descending b [a] xs else ascending b (a :) xs
    sequences xs = [xs]
    descending a as (b : bs) | cmp a b == GT = descending b (a : as) bs
    descending a as bs = (a : as) : sequences bs
    ascending a as (b : bs) | cmp a b /= GT = ascending b (\ys -> as (a : ys)) bs
    ascending a as bs = let !x = as [a] in (x : sequences bs)
    mergeAll [x] = x
    mergeAll xs = mergeAll (mergePairs xs)
    mergePairs (a : b : xs) = let !x = merge a b in (x : mergePairs xs)
    mergePairs xs = xs
    merge as@(a : as') bs@(b : bs') = if cmp a b == GT then b : merge as bs' else a : merge as' bs
    merge [] bs = bs
    merge as [] = as
insert e ls = insertBy compare e ls
insertBy _ x [] = [x]
insertBy cmp x ys@(y : ys') = case cmp x y of
  GT -> y : insertBy cmp x ys'
  _ -> x : ys
nub l = nubBy (==) l
nubBy eq l = go l []
  where
    go [] _ = []
    go (y : ys) xs = if elemBy eq y xs then go ys xs else y : go ys (y : xs)
elemBy _ _ [] = False
elemBy eq y (x : xs) = if eq x y then True else elemBy eq y xs
partition p xs = foldr (select p) ([], []) xs
select p x ~(ts, fs) = if p x then (x : ts, fs) else (ts, x : fs)
transpose [] = []
transpose ([] : xss) = transpose xss
transpose ((x : xs) : xss) = (x : [h | (h : _) <- xss]) : transpose (xs : [t | (_ : t) <- xss])
intersperse _ [] = []
intersperse sep (x : xs) = x : go xs
  where
    go [] = []
    go (y : ys) = sep : y : go ys
intercalate xs xss = concat (intersperse xs xss)
isPrefixOf [] _ = True
isPrefixOf _ [] = False
isPrefixOf (x : xs) (y : ys) = if x == y then isPrefixOf xs ys else False
isSuffixOf a b = reverse a `isPrefixOf` reverse b
isInfixOf needle haystack = any (isPrefixOf needle) (tails haystack)
stripPrefix [] ys = Just ys
stripPrefix (x : xs) (y : ys) | x == y = stripPrefix xs ys
stripPrefix _ _ = Nothing
group xs = groupBy (==) xs
groupBy _ [] = []
groupBy eq (x : xs) = (x : ys) : groupBy eq zs
  where (ys, zs) = span (eq x) xs
tails [] = [[]]
tails xs@(_ : xs') = xs : tails xs'
inits xs = [] : case xs of
  [] -> []
  (x : xs') -> map (x :) (inits xs')
delete x [] = []
delete x (y : ys) = if x == y then ys else y : delete x ys
xs \\ ys = foldl (flip delete) xs ys
union xs ys = xs ++ foldl (flip delete) (nub ys) xs
intersect xs ys = [x | x <- xs, x `elem` ys]
maximumBy cmp xs = foldl1 (\a b -> if cmp a b == GT then a else b) xs
minimumBy cmp xs = foldl1 (\a b -> if cmp a b == GT then b else a) xs
genericLength xs = primToInteger (length xs)
find p xs = case filter p xs of
  [] -> Nothing
  (x : _) -> Just x
findIndex p xs = go xs 0
  where
    go [] _ = Nothing
    go (y : ys) i = if p y then Just i else go ys (i + 1)
elemIndex x xs = findIndex (== x) xs
unfoldr f b = case f b of
  Nothing -> []
  Just (a, b') -> a : unfoldr f b'
zip4 (a : as) (b : bs) (c : cs) (d : ds) = (a, b, c, d) : zip4 as bs cs ds
zip4 _ _ _ _ = []
subsequences xs = [] : nonEmptySubsequences xs
nonEmptySubsequences [] = []
nonEmptySubsequences (x : xs) = [x] : foldr f [] (nonEmptySubsequences xs)
  where f ys r = ys : (x : ys) : r
permutations xs0 = xs0 : perms xs0 []
  where
    perms [] _ = []
    perms (t : ts) is' = foldr interleave (perms ts (t : is')) (permutations is')
      where
        interleave xs r = let (_, zs) = interleave' id xs r in zs
        interleave' _ [] r = (ts, r)
        interleave' f (y : ys) r = let (us, zs) = interleave' (f . (y :)) ys r in (y : us, f (t : y : us) : zs)
iterate' f x = let !x' = f x in (x : iterate' f x')
scanl' f q ls = q `seq` (q : case ls of
  [] -> []
  (x : xs) -> scanl' f (f q x) xs)

-- Data.Maybe, Data.Ord, Data.Function ---------------------------------

fromMaybe d Nothing = d
fromMaybe _ (Just x) = x
isJust (Just _) = True
isJust Nothing = False
isNothing m = not (isJust m)
fromJust (Just x) = x
fromJust Nothing = errorWithoutStackTrace "Maybe.fromJust: Nothing"
catMaybes ms = [x | Just x <- ms]
mapMaybe f xs = [y | x <- xs, Just y <- [f x]]
listToMaybe [] = Nothing
listToMaybe (x : _) = Just x
maybeToList Nothing = []
maybeToList (Just x) = [x]
comparing f a b = compare (f a) (f b)
on f g a b = f (g a) (g b)

-- Data.Char -----------------------------------------------------------

ord c = primOrd c
chr n = primChr n
isDigit c = primIsDigit c
isSpace c = primIsSpace c
isAlpha c = primIsAlpha c
isLetter c = primIsAlpha c
isUpper c = primIsUpper c
isLower c = primIsLower c
isAlphaNum c = primIsAlphaNum c
toUpper c = primToUpper c
toLower c = primToLower c
digitToInt c
  | isDigit c = ord c - ord '0'
  | c >= 'a' && c <= 'f' = ord c - ord 'a' + 10
  | c >= 'A' && c <= 'F' = ord c - ord 'A' + 10
  | otherwise = error ("Char.digitToInt: not a digit " ++ show c)
intToDigit i = if i < 10 then chr (ord '0' + i) else chr (ord 'a' + i - 10)

-- Data.Bits -----------------------------------------------------------

a .&. b = primAnd a b
a .|. b = primOr a b
xor a b = primXor a b
shiftL a n = primShiftL a n
shiftR a n = primShiftR a n
shift a n = if n >= 0 then primShiftL a n else primShiftR a (negate n)
complement a = primComplement a
popCount a = primPopCount a
testBit a i = primAnd a (primShiftL (a * 0 + 1) i) /= 0
setBit a i = primOr a (primShiftL (a * 0 + 1) i)
clearBit a i = primAnd a (primComplement (primShiftL (a * 0 + 1) i))

-- Data.IORef ----------------------------------------------------------

newIORef x w = ioRes (primNewRef x)
readIORef r w = primReadRef r
writeIORef r x w = case primWriteRef r x of () -> IORes ()
modifyIORef r f w = case primReadRef r of IORes x -> writeIORef r (f x) w
modifyIORef' r f w = case primReadRef r of IORes x -> let !x' = f x in writeIORef r x' w
atomicModifyIORef' r f w = case primReadRef r of
  IORes x -> case f x of (a, b) -> a `seq` b `seq` (case primWriteRef r a of () -> IORes b)

-- Control.Monad, System.Environment, System.Mem -------------------------

when c a = if c then a else return ()
unless c a = if c then return () else a
replicateM_ n a = if n <= 0 then return () else a >> replicateM_ (n - 1) a
replicateM n a = if n <= 0 then return [] else a >>= \x -> replicateM (n - 1) a >>= \xs -> return (x : xs)
foldM f z [] = return z
foldM f z (x : xs) = f z x >>= \z' -> foldM f z' xs
foldM_ f z xs = foldM f z xs >> return ()
zipWithM_ f xs ys = sequence_ (zipWith f xs ys)
zipWithM f xs ys = sequence (zipWith f xs ys)
getArgs w = ioRes (primGetArgs w)
performGC w = case primPerformGc w of () -> IORes ()
performMajorGC w = performGC w

-- Arrays --------------------------------------------------------------
-- An array: its bounds, its size, whether its elements are evaluated
-- when stored (UArray, IOUArray), and the heap array of its elements.

data Array i e = MkArray i i Int Bool e

-- The offset and the size are computed in place, with no thunk for
-- either, as base's compiled `index` has none.
ixIndex l u i = case primKind i of
  KCon -> ixTuple l u i
  KChar -> let !k = primSub (primOrd i) (primOrd l)
               !n = primSub (primOrd u) (primOrd l)
            in ixCheck k n l u i
  _ -> let !k = primToInt (i - l)
           !n = primToInt (u - l)
        in ixCheck k n l u i
ixCheck k n l u i = if primLt k 0 then ixError l u i else if primLt n k then ixError l u i else k
-- GHC's message (an `Integer` index is named `Int` here: numbers carry
-- no `Int`/`Integer` distinction this check could read cheaply).
ixError l u i = errorWithoutStackTrace ("Ix{" ++ ixType i ++ "}.index: Index (" ++ show i ++ ") out of range (" ++ show (l, u) ++ ")")
ixType i = case primKind i of
  KChar -> "Char"
  _ -> "Int"
ixTuple l u i = case (l, u, i) of
  ((l1, l2), (u1, u2), (i1, i2)) -> ixIndex l1 u1 i1 * rangeSize l2 u2 + ixIndex l2 u2 i2
  ((l1, l2, l3), (u1, u2, u3), (i1, i2, i3)) -> (ixIndex l1 u1 i1 * rangeSize l2 u2 + ixIndex l2 u2 i2) * rangeSize l3 u3 + ixIndex l3 u3 i3
rangeSize l u = case primKind l of
  KCon -> case (l, u) of
    ((l1, l2), (u1, u2)) -> rangeSize l1 u1 * rangeSize l2 u2
    ((l1, l2, l3), (u1, u2, u3)) -> rangeSize l1 u1 * rangeSize l2 u2 * rangeSize l3 u3
  KChar -> max 0 (primAdd (primSub (primOrd u) (primOrd l)) 1)
  _ -> max 0 (primToInt (u - l + 1))
range (l, u) = case primKind l of
  KCon -> case (l, u) of
    ((l1, l2), (u1, u2)) -> [(a, b) | a <- range (l1, u1), b <- range (l2, u2)]
    ((l1, l2, l3), (u1, u2, u3)) -> [(a, b, c) | a <- range (l1, u1), b <- range (l2, u2), c <- range (l3, u3)]
  _ -> enumFromTo l u
index (l, u) i = ixIndex l u i
inRange (l, u) i = l <= i && i <= u

arrEmpty = errorWithoutStackTrace "(Array.!): undefined array element"

fillList arr strict i n es = if primLe n i then () else case es of
  [] -> ()
  (x : xs) -> case store arr strict i x of () -> fillList arr strict (primAdd i 1) n xs
store arr strict i x = if strict then x `seq` primWriteArr arr i x else primWriteArr arr i x
fillAssocs arr strict l u [] = ()
fillAssocs arr strict l u ((i, x) : rest) = case store arr strict (ixIndex l u i) x of () -> fillAssocs arr strict l u rest

listArray (l, u) es = let n = rangeSize l u
                          arr = primNewArr n arrEmpty
                       in case fillList arr False 0 n es of () -> MkArray l u n False (primFreeze arr)
array (l, u) ies = let n = rangeSize l u
                       arr = primNewArr n arrEmpty
                    in case fillAssocs arr False l u ies of () -> MkArray l u n False (primFreeze arr)
accumArray f z (l, u) ies = let n = rangeSize l u
                                arr = primNewArr n z
                             in case accum f arr l u ies of () -> MkArray l u n False (primFreeze arr)
accum f arr l u [] = ()
accum f arr l u ((i, x) : rest) = let k = ixIndex l u i
                                      v = f (primReadArr arr k) x
                                   in v `seq` (case primWriteArr arr k v of () -> accum f arr l u rest)
(!) (MkArray l u _ _ arr) i = primReadArr arr (ixIndex l u i)
bounds (MkArray l u _ _ _) = (l, u)
elems (MkArray _ _ n _ arr) = [primReadArr arr k | k <- numFromTo 0 (primSub n 1)]
indices (MkArray l u _ _ _) = range (l, u)
assocs a = zip (indices a) (elems a)
(//) (MkArray l u n strict arr) ies = let arr' = primCopyArr arr
                                      in case fillAssocs arr' strict l u ies of () -> MkArray l u n strict (primFreeze arr')
amap f (MkArray l u n s arr) = listArray (l, u) (map f (elems (MkArray l u n s arr)))

-- An annotation naming UArray or IOUArray marks the array (or the
-- action's array) as keeping evaluated elements (See desugar's Typed).
unboxedArray x = case primKind x of
  KFun -> fmapIO unboxedArray x
  _ -> case x of
    MkArray l u n _ arr -> case forceElems arr 0 n of () -> MkArray l u n True arr
forceElems arr i n = if primLe n i then () else primReadArr arr i `seq` forceElems arr (primAdd i 1) n

newArray (l, u) x w = let n = rangeSize l u in ioRes (MkArray l u n False (primNewArr n x))
newArray_ (l, u) w = newArray (l, u) arrEmpty w
newListArray (l, u) es w = let n = rangeSize l u
                               arr = primNewArr n arrEmpty
                            in case fillList arr False 0 n es of () -> IORes (MkArray l u n False arr)
readArray (MkArray l u _ _ arr) i w = primReadArrIO arr (ixIndex l u i)
writeArray (MkArray l u _ strict arr) i x w = case store arr strict (ixIndex l u i) x of () -> IORes ()
modifyArray a i f w = case readArray a i w of IORes x -> writeArray a i (f x) w
getBounds (MkArray l u _ _ _) w = IORes (l, u)
getElems (MkArray _ _ n _ arr) w = IORes [primReadArr arr k | k <- numFromTo 0 (primSub n 1)]
freeze (MkArray l u n s arr) w = ioRes (MkArray l u n s (primFreeze (primCopyArr arr)))
thaw (MkArray l u n s arr) w = ioRes (MkArray l u n s (primCopyArr arr))
