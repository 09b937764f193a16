-- A parser generator's table building (in the style of nofib's lalr /
-- happy): the LR(0) automaton of an expression grammar grown by a number
-- of operator levels: item sets closed, goto sets computed, states
-- numbered, as sorted lists.
import Data.List (nub, sort)
import System.Environment (getArgs)

-- A production: left-hand nonterminal, right-hand symbols.
data Symbol = T Int | N Int deriving (Eq, Ord, Show)
type Production = (Int, [Symbol])
-- An item: production number and dot position.
type Item = (Int, Int)

-- Levels of binary operators over atoms: E_i -> E_i op_i E_{i+1} | E_{i+1}.
grammar :: Int -> [Production]
grammar levels =
  (0, [N 1]) :
  concat [[(i, [N i, T i, N (i + 1)]), (i, [N (i + 1)])] | i <- [1 .. levels]] ++
  [(levels + 1, [T 0]), (levels + 1, [T (levels + 1), N 1, T (levels + 2)])]

closure :: [Production] -> [Item] -> [Item]
closure prods items = go (sort items)
  where
    go is = let next = sort (nub (is ++ [(p, 0) | (q, d) <- is, N a <- take 1 (drop d (snd (prods !! q))), (p, (b, _)) <- zip [0 ..] prods, a == b]))
             in if next == is then is else go next

goto :: [Production] -> [Item] -> Symbol -> [Item]
goto prods items x = closure prods [(p, d + 1) | (p, d) <- items, take 1 (drop d (snd (prods !! p))) == [x]]

symbols :: [Production] -> [Symbol]
symbols prods = nub (sort (concatMap snd prods))

automaton :: [Production] -> ([[Item]], [(Int, Symbol, Int)])
automaton prods = explore [start] [] [] 
  where
    start = closure prods [(0, 0)]
    explore [] states edges = (reverse states, edges)
    explore (s : todo) states edges
      | s `elem` states = explore todo states edges
      | otherwise =
          let states' = s : states
              targets = [(x, t) | x <- symbols prods, let t = goto prods s x, not (null t)]
              from = length states
              edges' = [(from, x, 0) | (x, _) <- targets] ++ edges
           in explore (todo ++ map snd targets) states' edges'

main :: IO ()
main = do
  args <- getArgs
  let levels = case args of
        [] -> 12
        (a : _) -> read a :: Int
      prods = grammar levels
      (states, edges) = automaton prods
  putStrLn ("levels " ++ show levels ++ ": " ++ show (length prods) ++ " productions, " ++ show (length states) ++ " states, " ++ show (length edges) ++ " transitions, " ++ show (sum (map length states)) ++ " items")
