(* fibheaps for OCaml, the peer of gclab's fibheaps: heap sort of N random
   keys through a heap that is a list of heap-ordered trees, consolidated
   by rank through an array on every deletion. *)
type tree = { key : int; rank : int; children : tree list }

let ranks = 64
let none = { key = -1; rank = -1; children = [] }

let link a b =
  if a.key <= b.key then { key = a.key; rank = a.rank + 1; children = b :: a.children }
  else { key = b.key; rank = b.rank + 1; children = a :: b.children }

let rec insert_by_rank arr t =
  let other = arr.(t.rank) in
  if other == none then arr.(t.rank) <- t
  else begin arr.(t.rank) <- none; insert_by_rank arr (link t other) end

let least_root roots =
  let rec go pos best k = function
    | [] -> (best, k)
    | t :: rest -> if t.key < k then go (pos + 1) pos t.key rest else go (pos + 1) best k rest
  in
  go 0 0 max_int roots

let delete_min arr roots =
  let least, k = least_root roots in
  let kids = ref [] in
  List.iteri (fun pos t -> if pos = least then kids := t.children else insert_by_rank arr t) roots;
  List.iter (insert_by_rank arr) !kids;
  let roots' = ref [] in
  for r = ranks - 1 downto 0 do
    let t = arr.(r) in
    if t != none then begin arr.(r) <- none; roots' := t :: !roots' end
  done;
  (k, !roots')

let () =
  let n = Peer.arg 1 in
  let g = Peer.rng 7 in
  let heap = ref [] in
  for _ = 1 to n do heap := { key = Peer.below g (1 lsl 30); rank = 0; children = [] } :: !heap done;
  let arr = Array.make ranks none in
  let sum = ref 0L and prev = ref 0 and first = ref 0 in
  for i = 0 to n - 1 do
    let k, roots = delete_min arr !heap in
    if k < !prev then failwith (Printf.sprintf "fibheaps: key %d came out after %d" k !prev);
    if i = 0 then first := k;
    heap := roots;
    sum := Peer.mix_int !sum k;
    prev := k
  done;
  Printf.printf "fibheaps: %d keys sorted, smallest %d, largest %d\n" n !first !prev;
  Peer.finish !sum
