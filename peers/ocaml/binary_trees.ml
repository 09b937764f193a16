(* binary-trees for OCaml, the peer of gclab's binary-trees. A leaf's left
   child comes from a function the compiler cannot see through (and is
   always Nil), as in the GHC peer: written `Node (Nil, Nil)`, a leaf is a
   constant ocamlopt allocates once, statically, and the trees have half
   the nodes. *)
type tree = Nil | Node of tree * tree

let[@inline never] leaf_child d = if d < 0 then Node (Nil, Nil) else Nil

let rec make d = if d = 0 then Node (leaf_child d, Nil) else Node (make (d - 1), make (d - 1))

let rec check = function Nil -> 0 | Node (l, r) -> 1 + check l + check r

let () =
  let min_depth = 4 in
  let max_depth = max (min_depth + 2) (Peer.arg 1) in
  let stretch = max_depth + 1 in
  let s = check (make stretch) in
  Printf.printf "stretch tree of depth %d\t check: %d\n" stretch s;
  let sum = ref (Peer.mix_int 0L s) in
  let long = make max_depth in
  let d = ref min_depth in
  while !d <= max_depth do
    let iterations = 1 lsl (max_depth - !d + min_depth) in
    let c = ref 0 in
    for _ = 1 to iterations do c := !c + check (make !d) done;
    Printf.printf "%d\t trees of depth %d\t check: %d\n" iterations !d !c;
    sum := Peer.mix_int !sum !c;
    d := !d + 2
  done;
  let ll = check long in
  Printf.printf "long lived tree of depth %d\t check: %d\n" max_depth ll;
  Peer.finish (Peer.mix_int !sum ll)
