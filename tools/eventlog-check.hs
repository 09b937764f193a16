-- eventlog-check FILE: read an eventlog with GHC's own parser (the
-- ghc-events library) and print how many events of each kind it holds,
-- one "Kind count" line each, sorted; events the parser does not know
-- (skipped by the size their header declares) are counted by type number,
-- as "UnknownEvent248". Exits 1 with the parser's message if the file
-- does not parse. gclab's tests run it on every eventlog they write.
import qualified Data.Map.Strict as Map
import GHC.RTS.Events (Data (..), Event (..), EventInfo (UnknownEvent), EventLog (..), readEventLogFromFile)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)

main :: IO ()
main = do
  [file] <- getArgs
  parsed <- readEventLogFromFile file
  case parsed of
    Left err -> hPutStrLn stderr ("parse error: " ++ err) >> exitFailure
    Right (EventLog _ (Data events)) -> do
      let kind e = case evSpec e of
            UnknownEvent number -> "UnknownEvent" ++ show number
            spec -> head (words (show spec))
          counts = Map.fromListWith (+) [(kind e, 1 :: Int) | e <- events]
      mapM_ (\(k, n) -> putStrLn (k ++ " " ++ show n)) (Map.toList counts)
