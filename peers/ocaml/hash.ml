(* hash for OCaml, the peer of gclab's hash: a chained hash table (an array
   of immutable chains) under random inserts, deletes and lookups,
   doubling when it holds more than two entries per bucket. *)
type chain = Nil | Entry of int * int * chain (* key, value, rest *)

let rec lookup k = function Nil -> None | Entry (k', v, rest) -> if k = k' then Some v else lookup k rest

let rec remove k = function Nil -> Nil | Entry (k', v, rest) -> if k = k' then rest else Entry (k', v, remove k rest)

let grow table =
  let buckets = Array.length table in
  let bigger = Array.make (2 * buckets) Nil in
  let rec move = function
    | Nil -> ()
    | Entry (k, v, rest) ->
      let t = k land (2 * buckets - 1) in
      bigger.(t) <- Entry (k, v, bigger.(t));
      move rest
  in
  Array.iter move table;
  bigger

let () =
  let keys = Peer.arg 1 and ops = Peer.arg 2 in
  let g = Peer.rng 11 in
  let table = ref (Array.make 16 Nil) in
  let size = ref 0 and sum = ref 0L and hits = ref 0 in
  for op = 0 to ops - 1 do
    let t = !table in
    let key = Peer.below g keys in
    let bucket = key land (Array.length t - 1) in
    let chain = t.(bucket) in
    let found = lookup key chain in
    (match Peer.below g 4, found with
     | (0 | 1), _ ->
       let rest = if found = None then chain else remove key chain in
       t.(bucket) <- Entry (key, op, rest);
       if found = None then incr size
     | 2, Some _ -> t.(bucket) <- remove key chain; decr size
     | 2, None -> ()
     | _, Some v -> incr hits; sum := Peer.mix_int !sum v
     | _, None -> sum := Peer.mix !sum (-1L));
    if !size > 2 * Array.length t then table := grow t
  done;
  let total = ref 0L in
  let rec add = function
    | Nil -> ()
    | Entry (k, v, rest) -> total := Int64.add !total (Int64.add (Int64.mul (Int64.of_int k) 31L) (Int64.of_int v)); add rest
  in
  Array.iter add !table;
  Printf.printf "hash: %d operations on %d keys: %d entries in %d buckets, %d lookups found\n" ops keys !size (Array.length !table) !hits;
  Peer.finish (Peer.mix (Peer.mix_int !sum !size) !total)
