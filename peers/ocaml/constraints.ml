(* constraints for OCaml, the peer of gclab's constraints: every solution
   of the N-queens problem by backtracking search over lists of placed
   columns, building each row's list of safe columns. *)

(* Whether no queen of placed (the nearest first, d rows up) attacks
   column c; a top-level function, as a local one would allocate a
   closure on every call. *)
let rec safe_from c d = function [] -> true | q :: rest -> q <> c && q + d <> c && c + d <> q && safe_from c (d + 1) rest

let safe placed c = safe_from c 1 placed

let signature placed =
  let rec go acc i = function [] -> acc | q :: rest -> go (acc + q * i) (i + 1) rest in
  go 0 1 placed

let () =
  let n = Peer.arg 1 in
  let solutions = ref 0 and sum = ref 0L in
  let rec place row placed =
    if row = n then begin incr solutions; sum := Peer.mix_int !sum (signature placed) end
    else begin
      let candidates = ref [] in
      for c = n downto 1 do if safe placed c then candidates := c :: !candidates done;
      List.iter (fun c -> place (row + 1) (c :: placed)) !candidates
    end
  in
  place 0 [];
  Printf.printf "constraints: %d queens: %d solutions\n" n !solutions;
  Peer.finish (Peer.mix_int !sum !solutions)
