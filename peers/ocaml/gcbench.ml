(* gcbench for OCaml, the peer of gclab's gcbench (Ellis, Kovac and Boehm's
   GCBench): a stretch tree; a long-lived tree built top-down and an array
   of doubles, live throughout; then, per depth, temporary trees built
   top-down (mutable nodes whose children are stored after the node is
   made) and bottom-up (immutable nodes), in four shares as gclab's four
   tasks take them. *)
(* A top-down node; `absent` (its own children) stands for no child. *)
type top_down = { mutable left : top_down; mutable right : top_down }
type node = Empty | Node of node * node * int * int

let rec absent = { left = absent; right = absent }
let new_node () = { left = absent; right = absent }

let rec populate d t =
  if d > 0 then begin
    let l = new_node () in
    t.left <- l;
    let r = new_node () in
    t.right <- r;
    populate (d - 1) l;
    populate (d - 1) r
  end

let rec count_top_down t =
  let sub c = if c == absent then 0 else count_top_down c in
  1 + sub t.left + sub t.right

(* A leaf's left child comes from a function ocamlopt cannot see through
   (and is always Empty): written Node (Empty, Empty, 0, 0), a leaf is one
   static constant, and the trees have half the nodes. *)
let[@inline never] leaf_child d = if d < 0 then Node (Empty, Empty, 0, 0) else Empty

let rec make_tree d = if d = 0 then Node (leaf_child d, Empty, 0, 0) else Node (make_tree (d - 1), make_tree (d - 1), d, 0)

let rec count = function Empty -> 0 | Node (l, r, _, _) -> 1 + count l + count r

let tree_size d = (1 lsl (d + 1)) - 1

let () =
  let stretch_depth = max 6 (Peer.arg 1) in
  let long_lived_depth = stretch_depth - 2 and max_depth = stretch_depth - 2 in
  let array_size =
    if stretch_depth >= 18 then 500_000 lsl (stretch_depth - 18) else max 1000 (500_000 lsr (18 - stretch_depth))
  in
  let half = array_size / 2 in
  let c = count (make_tree stretch_depth) in
  Printf.printf "stretch tree of depth %d: %d nodes\n" stretch_depth c;
  let sum = ref (Peer.mix_int 0L c) in
  let long_lived = new_node () in
  populate long_lived_depth long_lived;
  let array = Array.make array_size 0.0 in
  for i = 0 to half - 1 do array.(i) <- 1.0 /. float_of_int (i + 1) done;
  let element i = Int64.bits_of_float array.(i) in
  let d = ref 4 in
  while !d <= max_depth do
    let d' = !d in
    let iterations = 2 * tree_size stretch_depth / tree_size d' in
    let shares = List.init 4 (fun task ->
        let from = iterations * task / 4 and upto = iterations * (task + 1) / 4 in
        let nodes = ref 0 in
        for _ = from to upto - 1 do
          let t = new_node () in
          populate d' t;
          nodes := !nodes + count_top_down t
        done;
        for _ = from to upto - 1 do nodes := !nodes + count (make_tree d') done;
        (!nodes, Peer.mix (Int64.of_int (count_top_down long_lived)) (element ((task * 997 + d') mod half))))
    in
    let nodes = List.fold_left (fun a (n, _) -> a + n) 0 shares in
    Printf.printf "%d top-down and bottom-up trees of depth %d: %d nodes\n" iterations d' nodes;
    sum := List.fold_left (fun a (_, m) -> Peer.mix a m) (Peer.mix_int !sum nodes) shares;
    d := d' + 2
  done;
  let ll = count_top_down long_lived in
  let probe = ref 0L and i = ref 1 in
  while !i < half do probe := Int64.logxor !probe (element !i); i := !i + 997 done;
  let i = min 1000 (half - 1) in
  let intact = element i = Int64.bits_of_float (1.0 /. float_of_int (i + 1)) in
  Printf.printf "long-lived tree of depth %d: %d nodes; array of %d doubles intact: %b\n" long_lived_depth ll array_size intact;
  Peer.finish (Peer.mix (Peer.mix_int !sum ll) !probe)
