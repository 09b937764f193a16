-- The Prelude of gclab-lang: Haskell 2010's, over the primitives (the
-- functions named prim...; See lang/src/prim). Classes are resolved at
-- run time on the values themselves (See Note [Numbers typed at run
-- time]): derived Eq, Ord, Show and Enum work on any constructor through
-- the structure primitives, so no instance code is needed.
module Prelude where

infixr 9 .
infixl 9 !!
infixr 8 ^, ^^, **
infixl 7 *, /, `quot`, `rem`, `div`, `mod`
infixl 6 +, -
infixr 5 ++
infix 4 ==, /=, <, <=, >=, >, `elem`, `notElem`
infixl 4 <$>, <$, <*>, *>, <*
infixr 3 &&
infixr 2 ||
infixl 1 >>, >>=
infixr 1 =<<
infixr 0 $, $!, `seq`

data Maybe a = Nothing | Just a deriving (Eq, Ord, Show)
data Either a b = Left a | Right b deriving (Eq, Ord, Show)
-- What a value is, for the run-time resolution of classes.
data Kind = KNum | KCon | KFun | KChar | KOther

-- Evaluation ---------------------------------------------------------

seq a b = primSeq a b
f $ x = f x
f $! x = x `seq` f x
id x = x
const x _ = x
flip f x y = f y x
(.) f g x = f (g x)
until p f x = if p x then x else until p f (f x)
asTypeOf x _ = x
error s = primError (forceString s)
errorWithoutStackTrace s = error s
undefined = error "Prelude.undefined"

forceString [] = []
forceString s@(c:cs) = c `seq` (forceString cs `seq` s)

-- Booleans, tuples, Maybe, Either -------------------------------------

True && x = x
False && _ = False
True || _ = True
False || x = x
not True = False
not False = True
otherwise = True

fst (a, _) = a
snd (_, b) = b
curry f a b = f (a, b)
uncurry f (a, b) = f a b

maybe d _ Nothing = d
maybe _ f (Just x) = f x
either f _ (Left a) = f a
either _ g (Right b) = g b

-- Eq and Ord ----------------------------------------------------------

-- The comparison primitives compare numbers and characters themselves,
-- walk evaluated constructors themselves, and hand the rest to eqCon,
-- neCon, cmpCon, ltCon and leCon below (See Note [Comparing evaluated
-- values] in lang/src/machine/value_compare.rs).
a == b = primEq a b
a /= b = primNe a b
compare a b = primCompare a b
a < b = primLt a b
a <= b = primLe a b
a > b = primLt b a
a >= b = primLe b a

-- Lists (strings above all) directly, without a thunk or a box per cell.
eqCon a b = case a of
  (x : xs) -> case b of
    (y : ys) -> if x == y then xs == ys else False
    _ -> False
  [] -> case b of
    [] -> True
    _ -> False
  _ -> if primSameCon a b then eqFields a b (primArity a) else False
eqFields a b n = case n of
  0 -> True
  1 -> primField a 0 == primField b 0
  2 -> if primField a 0 == primField b 0 then primField a 1 == primField b 1 else False
  _ -> eqFieldsFrom a b 0 n
eqFieldsFrom a b i n = if primEq i n then True else if primField a i == primField b i then eqFieldsFrom a b (primAdd i 1) n else False

cmpCon a b = case a of
  (x : xs) -> case b of
    (y : ys) -> case compare x y of
      EQ -> compare xs ys
      o -> o
    _ -> GT
  [] -> case b of
    [] -> EQ
    _ -> LT
  _ -> case primCompare (primConIndex a) (primConIndex b) of
    EQ -> cmpFields a b (primArity a)
    o -> o
cmpFields a b n = case n of
  0 -> EQ
  1 -> compare (primField a 0) (primField b 0)
  2 -> case compare (primField a 0) (primField b 0) of
    EQ -> compare (primField a 1) (primField b 1)
    o -> o
  _ -> cmpFieldsFrom a b 0 n
cmpFieldsFrom a b i n = if primEq i n then EQ else case compare (primField a i) (primField b i) of
  EQ -> cmpFieldsFrom a b (primAdd i 1) n
  o -> o
ltCon a b = case cmpCon a b of { LT -> True; _ -> False }
neCon a b = not (eqCon a b)
leCon a b = case cmpCon a b of { GT -> False; _ -> True }
max a b = if a <= b then b else a
min a b = if a <= b then a else b

-- Numbers -------------------------------------------------------------

a + b = primAdd a b
a - b = primSub a b
a * b = primMul a b
negate a = primNegate a
abs a = primAbs a
signum a = primSignum a
subtract a b = b - a
quot a b = primQuot a b
rem a b = primRem a b
div a b = primDiv a b
mod a b = primMod a b
quotRem a b = (quot a b, rem a b)
divMod a b = (div a b, mod a b)
a / b = primDivide a b
recip a = 1 / a
fromIntegral x = primToInteger x
fromInteger x = x
toInteger x = primToInteger x
realToFrac x = primToDouble x
truncate x = primTruncate x
round x = primRound x
floor x = primFloor x
ceiling x = primCeiling x
sqrt x = primSqrt x
exp x = primExp x
log x = primLog x
sin x = primSin x
cos x = primCos x
tan x = primTan x
atan x = primAtan x
logBase b x = log x / log b
pi = 3.141592653589793
a ** b = primPow a b
even n = primRem n 2 == 0
odd n = not (even n)

x ^ n
  | n < 0 = error "Negative exponent"
  | n == 0 = x * 0 + 1
  | otherwise = powAcc x n
powAcc x n
  | n == 1 = x
  | even n = powAcc (x * x) (n `quot` 2)
  | otherwise = x * powAcc (x * x) (n `quot` 2)
x ^^ n = if n >= 0 then x ^ n else recip (x ^ negate n)

gcd a b = gcd' (abs a) (abs b)
  where gcd' x y = if y == 0 then x else gcd' y (x `rem` y)
lcm _ 0 = 0
lcm 0 _ = 0
lcm a b = abs ((a `quot` gcd a b) * b)

maxBound = 9223372036854775807 :: Int
minBound = -9223372036854775808 :: Int

-- Enum ----------------------------------------------------------------

succ x = case primKind x of
  KCon -> primConAt x (primAdd (primConIndex x) 1)
  KChar -> primChr (primAdd (primOrd x) 1)
  _ -> x + 1
pred x = case primKind x of
  KCon -> primConAt x (primSub (primConIndex x) 1)
  KChar -> primChr (primSub (primOrd x) 1)
  _ -> x - 1
fromEnum x = case primKind x of
  KCon -> primConIndex x
  KChar -> primOrd x
  _ -> primToInt (primTruncate x)
toEnum n = n

enumFrom a = case primKind a of
  KCon -> enumFromTo a (primConAt a (primSub (primConCount a) 1))
  KChar -> enumFromTo a (primChr 1114111)
  _ -> if primIsFrac a then fracFrom a 0 1.0 else numFrom a
numFrom a = a : (let !a' = a + 1 in numFrom a')

enumFromTo a b = case primKind a of
  KCon -> conFromTo a (primConIndex a) (primConIndex b)
  KChar -> charFromTo (primOrd a) (primOrd b)
  _ -> if primIsFrac a || primIsFrac b then fracFromThenTo a (a + 1) b else numFromTo a b
numFromTo a b = if a > b then [] else a : (let !a' = a + 1 in numFromTo a' b)
charFromTo i j = if primLt j i then [] else primChr i : (let !i' = primAdd i 1 in charFromTo i' j)
conFromTo a i j = if primLt j i then [] else primConAt a i : conFromTo a (primAdd i 1) j

enumFromThen a b = case primKind a of
  KCon -> map (primConAt a) (enumFromThenTo (primConIndex a) (primConIndex b) (if primConIndex b >= primConIndex a then primSub (primConCount a) 1 else 0))
  KChar -> map primChr (enumFromThen (primOrd a) (primOrd b))
  _ -> if primIsFrac a || primIsFrac b then fracFrom (a + 0.0) 0 (b - a) else numFromThen a (b - a)
numFromThen a d = a : (let !a' = a + d in numFromThen a' d)
-- Haskell's enumerations of a Fractional type: the k-th element is
-- a + k * d (no drift from repeated sums), a bounded one running to half
-- a step past its limit; a literal bound (`[1 .. 4.5]`) is made a Double
-- first, as its type would be.
fracFrom a k d = (let !x = a + k * d in x) : (let !k' = k + 1 in fracFrom a k' d)
fracFromThenTo a0 b0 c0 = let { a = a0 + 0.0; b = b0 + 0.0; c = c0 + 0.0; mid = (b - a) / 2 } in
  if b >= a then takeWhile (<= c + mid) (fracFrom a 0 (b - a)) else takeWhile (>= c + mid) (fracFrom a 0 (b - a))

enumFromThenTo a b c = case primKind a of
  KCon -> map (primConAt a) (enumFromThenTo (primConIndex a) (primConIndex b) (primConIndex c))
  KChar -> map primChr (enumFromThenTo (primOrd a) (primOrd b) (primOrd c))
  _ -> if primIsFrac a || primIsFrac b || primIsFrac c then fracFromThenTo a b c else if b >= a then numUp a (b - a) c else numDown a (b - a) c
numUp a d c = if a > c then [] else a : (let !a' = a + d in numUp a' d c)
numDown a d c = if a < c then [] else a : (let !a' = a + d in numDown a' d c)

-- Show ----------------------------------------------------------------

show x = showsPrec 0 x ""
shows x = showsPrec 0 x
showString s rest = s ++ rest
showChar c rest = c : rest
showParen b p = if b then showChar '(' . p . showChar ')' else p

showsPrec d x s = case primKind x of
  KNum -> if d > 6 && x < 0 then '(' : (primShow x ++ (')' : s)) else primShow x ++ s
  KChar -> primShow x ++ s
  KCon -> showCon d x s
  _ -> error "No instance for (Show (a -> b))"

showCon d x s = case x of
  [] -> '[' : ']' : s
  (_ : _) -> showList x s
  () -> '(' : ')' : s
  _ -> showOther d x s

showOther d x s
  | isTupleName name = '(' : showTuple x 0 (primArity x) s
  | n == 0 = name ++ s
  | primConPrec x >= 0 = showInfix d x name s
  | isRecord = showParen (d >= 11) (showString name . showString " {" . showRecord x 0 n) s
  | otherwise = showParen (d >= 11) (showString name . showFields x 0 n) s
  where
    name = primConName x
    n = primArity x
    isRecord = not (null (primLabel x 0))

isTupleName ('(' : ',' : _) = True
isTupleName _ = False

showTuple x i n s
  | i == n = ')' : s
  | i == 0 = shows (primField x 0) (showTuple x 1 n s)
  | otherwise = ',' : shows (primField x i) (showTuple x (i + 1) n s)

showFields x i n s = if i == n then s else ' ' : showsPrec 11 (primField x i) (showFields x (i + 1) n s)

showRecord x i n s
  | i == n = '}' : s
  | otherwise = (if i > 0 then ", " else "") ++ showLabel (primLabel x i) ++ " = " ++ showsPrec 0 (primField x i) (showRecord x (i + 1) n s)

showLabel l@(c : _) = if isAlphaChar c || c == '_' then l else '(' : l ++ ")"
isAlphaChar c = primIsAlpha c

showInfix d x name s = showParen (d > p) (showsPrec (p + 1) (primField x 0) . showString (' ' : name ++ " ") . showsPrec (p + 1) (primField x 1)) s
  where p = primConPrec x

showList xs@(c : _) s = case primKind c of
  KChar -> '"' : showStringBody xs ('"' : s)
  _ -> '[' : shows c (showListRest (tail xs) s)
showList [] s = '[' : ']' : s
showListRest [] s = ']' : s
showListRest (x : xs) s = ',' : shows x (showListRest xs s)
showStringBody [] s = s
showStringBody (c : cs) s = primShowInString c ++ showStringBody cs s

read s = primRead (forceString s)

-- Lists ---------------------------------------------------------------
-- Written with `if` where GHC's optimised base has no thunk for the
-- right operand of && or ||.

map _ [] = []
map f (x : xs) = f x : map f xs
[] ++ ys = ys
(x : xs) ++ ys = x : (xs ++ ys)
filter _ [] = []
filter p (x : xs) = if p x then x : filter p xs else filter p xs
head (x : _) = x
head [] = errorWithoutStackTrace "Prelude.head: empty list"
tail (_ : xs) = xs
tail [] = errorWithoutStackTrace "Prelude.tail: empty list"
last [x] = x
last (_ : xs) = last xs
last [] = errorWithoutStackTrace "Prelude.last: empty list"
init [x] = []
init (x : xs) = x : init xs
init [] = errorWithoutStackTrace "Prelude.init: empty list"
null [] = True
null _ = False
length xs = lenAcc xs (0 :: Int)
lenAcc [] n = n
lenAcc (_ : xs) n = let !m = primAdd n 1 in lenAcc xs m
xs !! n = if n < 0 then errorWithoutStackTrace "Prelude.!!: negative index" else nth xs n
nth [] _ = errorWithoutStackTrace "Prelude.!!: index too large"
nth (x : xs) n = if n == 0 then x else let !m = n - 1 in nth xs m
foldr _ z [] = z
foldr f z (x : xs) = f x (foldr f z xs)
foldl _ z [] = z
foldl f z (x : xs) = foldl f (f z x) xs
foldr1 _ [x] = x
foldr1 f (x : xs) = f x (foldr1 f xs)
foldr1 _ [] = errorWithoutStackTrace "Prelude.foldr1: empty list"
foldl1 f (x : xs) = foldl f x xs
foldl1 _ [] = errorWithoutStackTrace "Prelude.foldl1: empty list"
-- GHC's base is compiled with optimisation, so its folds are strict.
sum xs = foldl' (+) 0 xs
product xs = foldl' (*) 1 xs
foldl' f z [] = z
foldl' f z (x : xs) = let !z' = f z x in foldl' f z' xs
maximum [] = errorWithoutStackTrace "Prelude.maximum: empty list"
maximum (x : xs) = foldl' max x xs
minimum [] = errorWithoutStackTrace "Prelude.minimum: empty list"
minimum (x : xs) = foldl' min x xs
and [] = True
and (x : xs) = if x then and xs else False
or [] = False
or (x : xs) = if x then True else or xs
any _ [] = False
any p (x : xs) = if p x then True else any p xs
all _ [] = True
all p (x : xs) = if p x then all p xs else False
concat xss = foldr (++) [] xss
concatMap f xs = foldr ((++) . f) [] xs
reverse xs = rev xs []
rev [] acc = acc
rev (x : xs) acc = rev xs (x : acc)
take n xs = if n <= 0 then [] else case xs of
  [] -> []
  (y : ys) -> y : take (n - 1) ys
drop n xs = if n <= 0 then xs else case xs of
  [] -> []
  (_ : ys) -> drop (n - 1) ys
splitAt n xs = (take n xs, drop n xs)
takeWhile _ [] = []
takeWhile p (x : xs) = if p x then x : takeWhile p xs else []
dropWhile _ [] = []
dropWhile p xs@(x : xs') = if p x then dropWhile p xs' else xs
span _ [] = ([], [])
span p xs@(x : xs') = if p x then (let (ys, zs) = span p xs' in (x : ys, zs)) else ([], xs)
break _ [] = ([], [])
break p xs@(x : xs') = if p x then ([], xs) else (let (ys, zs) = break p xs' in (x : ys, zs))
elem _ [] = False
elem x (y : ys) = if x == y then True else elem x ys
notElem x ys = not (elem x ys)
lookup _ [] = Nothing
lookup k ((a, b) : rest) = if k == a then Just b else lookup k rest
zip (a : as) (b : bs) = (a, b) : zip as bs
zip _ _ = []
zip3 (a : as) (b : bs) (c : cs) = (a, b, c) : zip3 as bs cs
zip3 _ _ _ = []
zipWith f (a : as) (b : bs) = f a b : zipWith f as bs
zipWith _ _ _ = []
zipWith3 f (a : as) (b : bs) (c : cs) = f a b c : zipWith3 f as bs cs
zipWith3 _ _ _ _ = []
unzip ps = foldr (\(a, b) ~(as, bs) -> (a : as, b : bs)) ([], []) ps
unzip3 ps = foldr (\(a, b, c) ~(as, bs, cs) -> (a : as, b : bs, c : cs)) ([], [], []) ps
replicate n x = if n <= 0 then [] else x : replicate (n - 1) x
iterate f x = x : iterate f (f x)
repeat x = let xs = x : xs in xs
cycle [] = errorWithoutStackTrace "Prelude.cycle: empty list"
cycle xs = let ys = xs ++ ys in ys
scanl f q ls = q : (case ls of
  [] -> []
  (x : xs) -> scanl f (f q x) xs)
scanl1 f (x : xs) = scanl f x xs
scanl1 _ [] = []
scanr _ q0 [] = [q0]
scanr f q0 (x : xs) = case scanr f q0 xs of qs@(q : _) -> f x q : qs
lines "" = []
lines s = let (l, s') = break (== '\n') s in l : (case s' of
  [] -> []
  (_ : s'') -> lines s'')
unlines ls = concatMap (++ "\n") ls
words s = case dropWhile isSpaceChar s of
  "" -> []
  s' -> let (w, s'') = break isSpaceChar s' in w : words s''
unwords [] = ""
unwords ws = foldr1 (\w s -> w ++ ' ' : s) ws
isSpaceChar c = primIsSpace c

-- IO ------------------------------------------------------------------
-- An IO action is a function of the world (the unit value) that
-- returns IORes and its result, so that >>= sequences by evaluation.

(>>=) m k w = case m w of IORes a -> k a w
(>>) m k w = case m w of IORes _ -> k w
return a w = IORes a
pure a w = IORes a
k =<< m = m >>= k
ioRes !x = IORes x

fmap f x = case primKind x of
  KFun -> fmapIO f x
  _ -> case x of
    Nothing -> Nothing
    Just a -> Just (f a)
    _ -> map f x
fmapIO f m w = case m w of IORes a -> IORes (f a)
f <$> x = fmap f x
a <$ x = fmap (const a) x
(<*>) mf mx w = case mf w of IORes f -> case mx w of IORes x -> IORes (f x)
(*>) a b = a >> b
(<*) a b w = case a w of IORes x -> case b w of IORes _ -> IORes x

putChar c w = case primPutChar c of () -> IORes ()
putStr [] w = IORes ()
putStr (c : cs) w = case primPutChar c of () -> putStr cs w
putStrLn s w = case putStr s w of IORes _ -> putChar '\n' w
print x = putStrLn (show x)

mapM_ f [] = return ()
mapM_ f (x : xs) = f x >> mapM_ f xs
forM_ xs f = mapM_ f xs
mapM f [] = return []
mapM f (x : xs) = f x >>= \y -> mapM f xs >>= \ys -> return (y : ys)
forM xs f = mapM f xs
sequence_ [] = return ()
sequence_ (m : ms) = m >> sequence_ ms
sequence [] = return []
sequence (m : ms) = m >>= \x -> sequence ms >>= \xs -> return (x : xs)
