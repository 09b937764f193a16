"""Helpers shared by the measuring scripts (`scripts/ab`, `scripts/claims`,
`scripts/compare-peers`, `scripts/sanity-cost`, `scripts/layout-run-code`):
run a program and read its peak RSS, run one side of an A/B comparison and
read its `+RTS -t --machine-readable` figures, count its instructions under
cachegrind, split into the collector's part and the program's, read the
names `gclab list` gives, and build a workload's peer program.

Instruction counts are deterministic where this machine's clock is not
(timings drift by tens of percent between runs), so they show a hot-path
change's effect, and how much work each runtime does for the same program,
where wall time cannot. They are not times: cache misses and the work GHC's
runtime does outside named functions are not in them.
"""
import json, math, os, re, resource, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_binary(name="gclab"):
    """The release build of `name` in this checkout: under the directory
    cargo builds into (`target/`, or CARGO_TARGET_DIR's), as `cargo
    metadata` says."""
    try:
        meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot ask cargo where it builds ({e}): is cargo installed?")
    return os.path.join(json.loads(meta.stdout)["target_directory"], "release", name)


def run(cmd, env=None):
    """Run one program; its stdout, stderr, elapsed seconds and own peak RSS
    in bytes (wait4). A child started from here inherits this process's
    peak as the floor of its own (See Note [A process's own peak RSS] in
    core/src/process_usage.rs), so a peak at or below that floor reads NaN: it is
    not the program's."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{stderr}")
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss = usage.ru_maxrss * 1024 if usage.ru_maxrss > floor else math.nan
    return stdout, stderr, elapsed, rss


def listed(gclab, heading):
    """The names `gclab list` gives under `heading` (Collectors, Workloads)."""
    text = subprocess.run([gclab, "list"], capture_output=True, text=True, check=True).stdout
    names, inside = [], False
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            inside = line.startswith(heading)
        elif inside and re.match(r"  \S", line):
            names.append(line.split()[0])
    return names


def peer_program(gclab, language, workload, args):
    """The peer of `workload` in `language` (`gclab peer`'s names: ghc,
    ocaml, boehm), built under target/peers by running it once on `args`
    (a small input); the path of the program, which takes the workload's
    arguments as gclab's `run` does (and `+RTS` flags, for GHC's)."""
    cmd = [gclab, "peer", language, workload, *args.split()]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    stem = workload.replace("-", "_")
    return os.path.join(ROOT, "target", "peers", language, stem, stem)


def part_of(function):
    """Which part of a run a function belongs to: "GC" (the runtime's
    collector), "mutator" (the program) or "other" (start-up, the rest of
    the runtime), for gclab, GHC and OCaml programs alike."""
    if function.startswith("gclab_collectors::"):
        return "GC"
    if function.startswith(("gclab_workloads::", "gclab_core::mutator::")):
        return "mutator"
    if function.startswith("gclab") or function.startswith(("_dl", "__", "std::", "core::", "alloc::")):
        return "other"
    # GHC: compiled Haskell has no symbols cachegrind can name ("???") or
    # ends in _info; every named C function is the RTS, nearly all of it GC.
    if function == "???" or function.endswith("_info"):
        return "mutator"
    # OCaml: camlModule__... is compiled OCaml, caml_... is the runtime.
    if function.startswith("caml") and not function.startswith("caml_"):
        return "mutator"
    return "GC"


def cachegrind(cmd, env=None):
    """Run `cmd` once under cachegrind; its stdout and, per part (See
    `part_of`), the instructions executed ("Ir") and first-level data cache
    misses ("D1")."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        full = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={out}", *cmd]
        p = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode != 0:
            sys.exit(f"{' '.join(full)} failed:\n{p.stderr}")
        totals = {}
        events, part = [], "other"
        with open(out) as f:
            for line in f:
                if line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("fn="):
                    part = part_of(line[3:].strip())
                elif line[:1].isdigit():
                    counts = dict(zip(events, map(int, line.split()[1:])))
                    t = totals.setdefault(part, {"Ir": 0, "D1": 0})
                    t["Ir"] += counts.get("Ir", 0)
                    t["D1"] += counts.get("D1mr", 0) + counts.get("D1mw", 0)
    return p.stdout, totals


def command(binary, extra, args, stats=("-t", "--machine-readable")):
    """The command line of one side: ARGS with the side's collector after
    `run`, then the RTS flags (after ARGS' own +RTS if it has one)."""
    collector, flags = extra
    if collector:
        if args[:1] != ["run"]:
            sys.exit(f"@{collector} names a collector for `run`; these arguments are `{' '.join(args)}`")
        args = ["run", "--collector", collector, *args[1:]]
    rts = [*stats, *flags]
    if not rts:
        return [binary, *args]
    if "+RTS" in args:
        return [binary, *args, *rts]
    return [binary, *args, "+RTS", *rts]


def run_once(binary, extra, args):
    """One run: its stdout and its figures (machine-readable stats, wall, RSS)."""
    cmd = command(binary, extra, args)
    stdout, stderr, wall, rss = run(cmd)
    figs = {k: float(v) for k, v in re.findall(r'\("(\w+)", "([-\d.e]+)"\)', stderr)}
    if "GC_wall_seconds" not in figs:
        sys.exit(f"{' '.join(cmd)} printed no machine-readable statistics")
    figs["wall"] = wall
    figs["rss"] = rss / 2**20
    figs["copied_bytes"] = figs.get("copied_bytes", 0) / 1e6
    figs["rate"] = figs["copied_bytes"] / figs["GC_wall_seconds"] if figs["GC_wall_seconds"] > 0 else float("nan")
    return stdout, figs
