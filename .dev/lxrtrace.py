import json, subprocess, random, statistics, sys
BIN = sys.argv[1] if len(sys.argv) > 1 else "./target/release/gclab"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
works = [w.split() for w in ["binary-trees 20", "lru 500000 2000000 128", "hash 1000000 5000000", "fibheaps 400000"]]
colls = ["lxr", "lxr:trace=pause", "immix", "nonmoving", "copying"]
if len(sys.argv) > 3: colls = sys.argv[3].split(",")
res = {}
for r in range(rounds):
    for w in works:
        cs = colls[:]; random.shuffle(cs)
        for c in cs:
            subprocess.run([BIN, "run", "--collector", c, "--json", "/tmp/lt.json"] + w, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            d = json.load(open("/tmp/lt.json")); s = d["stats"]; l = d["latency"]
            row = dict(total=s["total_elapsed"], gc=s["gc_elapsed"], mem=s["max_mem_in_use_bytes"]/2**20, pmax=l["pause_max"]*1e3, p99=l["pause_p99"]*1e3, mmu10=l["mmu_10ms"], sync=s["collector_sync_max"]*1e3, syncs=s["collector_syncs"], majors=s["gens"][1]["collections"], conc=s["concurrent_cpu"])
            res.setdefault((" ".join(w), c), []).append(row)
print("| workload | collector | total s | GC s | MiB in use | longest pause ms | p99 ms | MMU 10 ms | longest sync ms | syncs | major GCs |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (w, c), rows in res.items():
    m = lambda k: statistics.median(r[k] for r in rows)
    print(f"| {w} | {c} | {m('total'):.2f} | {m('gc'):.2f} | {m('mem'):.0f} | {m('pmax'):.1f} | {m('p99'):.1f} | {m('mmu10'):.2f} | {m('sync'):.1f} | {m('syncs'):.0f} | {m('majors'):.0f} |")
