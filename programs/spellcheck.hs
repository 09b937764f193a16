-- Spell checking (in the style of nofib's spellcheck): a dictionary of
-- generated words in a trie, then a text checked against it, each
-- misspelt word offered the dictionary words one edit away.
import Data.Char (chr, ord)
import Data.List (foldl', nub, sort)
import System.Environment (getArgs)

data Trie = Trie Bool [(Char, Trie)]

empty :: Trie
empty = Trie False []

insertW :: String -> Trie -> Trie
insertW [] (Trie _ cs) = Trie True cs
insertW (c : rest) (Trie end cs) = Trie end (go cs)
  where
    go [] = [(c, insertW rest empty)]
    go ((d, t) : more)
      | d == c = (d, insertW rest t) : more
      | otherwise = (d, t) : go more

member :: String -> Trie -> Bool
member [] (Trie end _) = end
member (c : rest) (Trie _ cs) = maybe False (member rest) (lookup c cs)

-- Words from a seed: letters from a linear congruential stream.
wordsFrom :: Int -> Int -> [String]
wordsFrom seed n = take n (go seed)
  where
    go s = let len = 3 + s `mod` 5
               (w, s') = letters len s
            in w : go s'
    letters 0 s = ([], s)
    letters k s = let s1 = (s * 1103515245 + 12345) `mod` 2147483648
                      (rest, s2) = letters (k - 1) s1
                   in (chr (ord 'a' + (s1 `div` 65536) `mod` 8) : rest, s2)

edits :: String -> [String]
edits w = nub ([a ++ b | (a, _ : b) <- splits] ++ [a ++ c : b | (a, _ : b) <- splits, c <- ['a' .. 'h']] ++ [a ++ c : b | (a, b) <- splits, c <- ['a' .. 'h']])
  where splits = [splitAt i w | i <- [0 .. length w]]

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [] -> 5000
        (a : _) -> read a :: Int
      dict = foldl' (flip insertW) empty (wordsFrom 7 n)
      text = wordsFrom 11 (n `div` 5)
      wrong = filter (not . (`member` dict)) text
      suggestions = [(w, sort (filter (`member` dict) (edits w))) | w <- wrong]
      offered = sum (map (length . snd) suggestions)
  putStrLn ("dictionary " ++ show n ++ ", text " ++ show (length text) ++ ": " ++ show (length wrong) ++ " misspelt, " ++ show offered ++ " suggestions")
  putStrLn ("first: " ++ show (take 2 suggestions))
