(* lcss for OCaml, the peer of gclab's lcss: the length of the longest
   common subsequence of two random sequences, by dynamic programming
   whose rows are lists (each built in reverse, then reversed). *)

(* n letters, the first drawn first (List.init calls f in order). *)
let random_list g n = List.init n (fun _ -> Peer.below g 4)

(* The row of letter x below the row prev, and its last number. *)
let next_row x ys prev =
  let rec go ys ups left diag acc =
    match ys, ups with
    | y :: ys', up :: ups' ->
      let v = if y = x then diag + 1 else max left up in
      go ys' ups' v up (v :: acc)
    | _ -> (List.rev acc, left)
  in
  match prev with p0 :: ps -> go ys ps 0 p0 [0] | [] -> failwith "lcss: empty row"

let () =
  let n = Peer.arg 1 in
  let g = Peer.rng 5 in
  let xs = random_list g n in
  let ys = random_list g n in
  let row = ref (List.init (n + 1) (fun _ -> 0)) and sum = ref 0L in
  List.iter (fun x ->
      let r, last = next_row x ys !row in
      row := r;
      sum := Peer.mix_int !sum last) xs;
  let total = List.fold_left ( + ) 0 !row in
  let len = List.fold_left (fun _ v -> v) 0 !row in
  Printf.printf "lcss: two sequences of %d: longest common subsequence %d\n" n len;
  Peer.finish (Peer.mix_int (Peer.mix_int !sum total) len)
