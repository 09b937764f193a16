-- A string of evaluated small characters kept alive across GCs (the test
-- `programs::boxes_of_small_values_are_shared_by_the_gc`).
import Data.Char (chr, ord)
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let n = read (head args) :: Int
      s = map (\i -> chr (i `mod` 200)) [1 .. n]
  print (sum (map ord s))
  print (length (filter (== 'a') s))
