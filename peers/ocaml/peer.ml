(* What every OCaml peer of a gclab workload shares: gclab's checksum step
   (FNV-1a over a value's eight bytes, `mix` in gclab-workloads), its
   random number generator (xorshift64-star), and the end of a run: the
   checksum line on stdout, which the sweep and the tests compare with
   gclab's, and the GC's counters on stderr, which the sweep reads. *)

let mix acc v =
  let h = ref (Int64.logxor acc 0xcbf29ce484222325L) in
  for i = 0 to 7 do
    let b = Int64.logand (Int64.shift_right_logical v (8 * i)) 0xffL in
    h := Int64.mul (Int64.logxor !h b) 0x100000001b3L
  done;
  !h

let mix_int acc v = mix acc (Int64.of_int v)

type rng = { mutable state : int64 }

let rng seed = { state = Int64.logor (Int64.mul (Int64.of_int (max seed 1)) 0x9e3779b97f4a7c15L) 1L }

let next r =
  let x = r.state in
  let x = Int64.logxor x (Int64.shift_right_logical x 12) in
  let x = Int64.logxor x (Int64.shift_left x 25) in
  let x = Int64.logxor x (Int64.shift_right_logical x 27) in
  r.state <- x;
  Int64.mul x 0x2545f4914f6cdd1dL

(* A number in [0, n). *)
let below r n = Int64.to_int (Int64.unsigned_rem (next r) (Int64.of_int n))

let finish checksum =
  Printf.printf "checksum: %016Lx\n%!" checksum;
  let s = Gc.quick_stat () in
  Printf.eprintf "ocaml-gc minor_words %.0f promoted_words %.0f major_words %.0f minor_collections %d major_collections %d heap_words %d top_heap_words %d compactions %d\n%!"
    s.Gc.minor_words s.Gc.promoted_words s.Gc.major_words s.Gc.minor_collections s.Gc.major_collections
    s.Gc.heap_words s.Gc.top_heap_words s.Gc.compactions

let arg i = int_of_string Sys.argv.(i)
