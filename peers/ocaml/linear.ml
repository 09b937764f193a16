(* linear for OCaml, the peer of gclab's linear: determinants of random
   dense matrices modulo a prime by Gaussian elimination, every eliminated
   row a new array stored into the matrix's array of rows. *)
let p = 1_000_000_007

let power_mod b e =
  let rec go b e r = if e = 0 then r else go (b * b mod p) (e / 2) (if e land 1 = 1 then r * b mod p else r) in
  go b e 1

let determinant n (matrix : int array array) =
  let det = ref 1 in
  try
    for k = 0 to n - 1 do
      let pr = ref k in
      while !pr < n && matrix.(!pr).(k) = 0 do incr pr done;
      if !pr = n then raise Exit;
      if !pr <> k then begin
        let a = matrix.(!pr) in
        matrix.(!pr) <- matrix.(k);
        matrix.(k) <- a;
        det := (p - !det) mod p
      end;
      let pivot_row = matrix.(k) in
      let pivot = pivot_row.(k) in
      det := !det * pivot mod p;
      let inverse = power_mod pivot (p - 2) in
      for i = k + 1 to n - 1 do
        let row = matrix.(i) in
        let f = row.(k) * inverse mod p in
        matrix.(i) <- Array.init n (fun j -> (row.(j) + p - f * pivot_row.(j) mod p) mod p)
      done
    done;
    !det
  with Exit -> 0

let () =
  let n = Peer.arg 1 and count = Peer.arg 2 in
  let g = Peer.rng 3 in
  let sum = ref 0L in
  for c = 1 to count do
    let matrix = Array.init n (fun _ -> Array.init n (fun _ -> Peer.below g p)) in
    let det = determinant n matrix in
    let row_sum = Array.fold_left (fun a v -> Int64.add a (Int64.of_int v)) 0L matrix.(n - 1) in
    Printf.printf "linear: matrix %d of %dx%d mod %d: determinant %d\n" c n n p det;
    sum := Peer.mix (Peer.mix_int !sum det) row_sum
  done;
  Peer.finish !sum
