(* power for OCaml, the peer of gclab's power: the first N coefficients of
   b^K for a power series b, multiplied as lazy streams (McIlroy), with
   coefficients modulo a prime. *)
type s = S of int * s Lazy.t

let p = 1_000_000_007

let rec base i = S ((i * i + 1) mod p, lazy (base (i + 1)))
let rec scale c (S (f, fs)) = S (c * f mod p, lazy (scale c (Lazy.force fs)))
let rec add (S (f, fs)) (S (g, gs)) = S ((f + g) mod p, lazy (add (Lazy.force fs) (Lazy.force gs)))
let rec mul (S (f0, fs)) (S (g0, gs) as g) =
  S (f0 * g0 mod p, lazy (add (scale f0 (Lazy.force gs)) (mul (Lazy.force fs) g)))

let () =
  let n = max 1 (Peer.arg 1) and k = max 1 (Peer.arg 2) in
  let b = base 0 in
  let s = ref b in
  for _ = 2 to k do s := mul !s b done;
  let sum = ref 0L and last = ref 0 in
  for _ = 1 to n do
    let (S (c, rest)) = !s in
    sum := Peer.mix_int !sum c;
    last := c;
    s := Lazy.force rest
  done;
  Printf.printf "power: %d coefficients of b^%d mod %d: the last is %d\n" n k p !last;
  Peer.finish !sum
