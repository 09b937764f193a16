(* lru for OCaml, the peer of gclab's lru: a clock (second-chance) cache of
   CAPACITY entries over 4 x CAPACITY keys under a skewed stream of
   requests; a miss builds a value array and evicts a victim. (gclab's lru
   also allocates a short-lived request record per operation; this peer
   does not.) *)
type entry = Empty | Entry of int array * int (* value, key *)

(* gclab's words are 64-bit and wrap; these stay below 2^53 for any key
   array that fits in memory, so OCaml's unboxed ints hold them exactly. *)
let value_word key i = key * 0x9e3779b9 + i

let () =
  let capacity = max 1 (Peer.arg 1) and ops = Peer.arg 2 and value_bytes = max 8 (Peer.arg 3) in
  let keys = capacity * 4 and words = value_bytes / 8 in
  let g = Peer.rng 42 in
  let slots = Array.make capacity Empty in
  let slot_of = Array.make keys 0 and referenced = Array.make capacity 0 in
  let hand = ref 0 and hits = ref 0 and misses = ref 0 and sum = ref 0L in
  for op = 0 to ops - 1 do
    let hot = Peer.below g 4 <> 0 in
    let key = if hot then Peer.below g (keys / 8 + 1) else Peer.below g keys in
    let slot = slot_of.(key) in
    if slot <> 0 then begin
      incr hits;
      referenced.(slot - 1) <- 1;
      match slots.(slot - 1) with
      | Entry (value, k) when k = key ->
        let probe = op mod words in
        let v = value.(probe) in
        if v <> value_word key probe then failwith (Printf.sprintf "lru: value of key %d corrupted" key);
        sum := Peer.mix_int !sum v
      | _ -> failwith (Printf.sprintf "lru: entry in slot %d lost its key" (slot - 1))
    end else begin
      incr misses;
      let value = Array.init words (value_word key) in
      while referenced.(!hand) <> 0 do
        referenced.(!hand) <- 0;
        hand := (!hand + 1) mod capacity
      done;
      (match slots.(!hand) with Entry (_, old_key) -> slot_of.(old_key) <- 0 | Empty -> ());
      slots.(!hand) <- Entry (value, key);
      slot_of.(key) <- !hand + 1;
      hand := (!hand + 1) mod capacity
    end
  done;
  let resident = ref 0L in
  Array.iter (function
      | Empty -> ()
      | Entry (value, key) ->
        if value.(words - 1) <> value_word key (words - 1) then failwith "lru: a resident value is corrupted";
        resident := Peer.mix_int !resident key) slots;
  Printf.printf "lru: capacity %d, %d ops: %d hits, %d misses\n" capacity ops !hits !misses;
  Peer.finish (Peer.mix (Peer.mix_int (Peer.mix_int !sum !hits) !misses) !resident)
