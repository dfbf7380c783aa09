"""Benchmark: measures over 1,000 possible worlds, on generated truths of many shapes (issue 24).

Bars (issue 24): 20,000 queries × 100 documents, 1,000 worlds, P@10 and AP, in at most 10 s and
1 GB on *every* generator shape. Each shape runs in its own process (``python -c``), which
builds its data, warms up (one evaluation of 3 worlds: numba compiles, modules load), then times
one ``evaluate(..., n_worlds=1000)`` and, apart, the ``aggregate()`` of its result.

Shapes (``SHAPES``): probabilistic qrels varying the judged share of the ranked documents, the
retrieved depth, the probability distribution (Beta shapes, many exact 0/1, few distinct
annotator shares j/5), the grades (binary, 1–3) and the query count; and categorical truths (a
membership over a 4 × 25-leaf taxonomy, 5 annotators per item, the query items' own uncertain
category), under both world models; and the workload of issue 4 (3 systems, AP and nDCG@10
on 1,000 queries of a 10,000-item collection).

Reported per shape: wall and CPU time of ``evaluate()`` (CPU of every thread:
``time.process_time``), its peak resident memory (VmHWM of the process after resetting it just
before the call: the whole process, with the interpreter, the libraries and the data) and the
part of it above the resident size before the call (what the evaluation itself holds: the world
values, ``n_measures × n_systems × n_worlds × n_queries`` float64, and its working memory); then
the same for ``aggregate()``; and the load average. The worst shape is printed last.

Peer: a loop that calls pytrec_eval (trec_eval 9.0.8) once per world on the first shape —
build the world's qrels from the same keyed draws (``run[q][d] = s`` dicts, as its
documentation shows), evaluate the run — timed on 2 worlds and extrapolated linearly to 1,000
(the output says so); ``--no-peer`` skips it.

Before/after: ``--baseline DIR`` runs each shape also with the copy of the package found in
``DIR`` (a directory that holds a ``fuzzytruth/`` folder, e.g. ``git archive main fuzzytruth |
tar -x -C DIR``), interleaved with the current one shape by shape, and prints the ratios.

Usage::

    python benchmarks/worlds.py                 # every shape
    python benchmarks/worlds.py harness graded  # some shapes (names: --list)
    python benchmarks/worlds.py --no-peer --baseline /tmp/before   # before/after table

Wall times vary by tens of percent on the shared 2-core machine; read the CPU time and the load.
Threads: one per core unless ``FUZZYTRUTH_NUM_THREADS`` is set (it is passed to each shape).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (20 queries, a tenth of the documents and
depths, a hundredth of the items, 20 worlds; benchmarks/_smoke.py), on one shape of each kind
(``SMOKE_SHAPES``: each probability distribution, the grades, both world models, 3 systems).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from _smoke import size

# name: generator options (worker below); every shape evaluates P@10 and AP over 1,000 worlds
SHAPES: dict[str, dict] = {
    "harness": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                    p="beta:0.6,1.2"),  # the independent harness of issue 24
    "deep": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=100,
                 p="beta:0.6,1.2"),
    "shallow": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=10,
                    p="beta:0.6,1.2"),
    "judged-1/3": dict(truth="qrels", queries=20_000, pool=300, judged=100, depth=100,
                       p="beta:0.6,1.2"),
    "judged-1/10": dict(truth="qrels", queries=20_000, pool=1_000, judged=100, depth=100,
                        p="beta:0.6,1.2"),
    "beta-u": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                   p="beta:0.5,0.5"),
    "beta-high": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                      p="beta:5,1"),
    "exact-0/1": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                      p="exact:0.8"),  # 80 % of the pairs exactly 0 or 1
    "shares-j/5": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                       p="shares:5"),
    "graded": dict(truth="qrels", queries=20_000, pool=100, judged=100, depth=60,
                   p="beta:0.6,1.2", grades=3),
    "1k-deep": dict(truth="qrels", queries=1_000, pool=1_000, judged=1_000, depth=1_000,
                    p="beta:0.6,1.2"),
    "5k": dict(truth="qrels", queries=5_000, pool=100, judged=100, depth=60,
               p="beta:0.6,1.2"),
    "categorical": dict(truth="membership", queries=20_000, items=40_000, depth=100,
                        world_model="annotator"),
    "categorical-bernoulli": dict(truth="membership", queries=20_000, items=40_000, depth=100,
                                  world_model="bernoulli"),
    "issue-4": dict(truth="membership", queries=1_000, items=10_000, depth=100,
                    world_model="annotator", systems=3, measures=["AP", "nDCG@10"]),
}
N_WORLDS = size(1_000, 20)
MEASURES = ["P@10", "AP"]  # unless a shape names its own
BAR_SECONDS, BAR_MB = 10.0, 1024.0
PEER_WORLDS = size(2, 1)


def tiny(shape: dict) -> dict:
    """``shape`` at a smoke run's size: 20 queries, a tenth of the documents and depths, a
    hundredth of the items."""
    tenth = {k: shape[k] // 10 for k in ("pool", "judged", "depth") if k in shape}
    hundredth = {"items": shape["items"] // 100} if "items" in shape else {}
    return {**shape, **tenth, **hundredth, "queries": 20}


SMOKE_SHAPES = ["harness", "exact-0/1", "shares-j/5", "graded", "categorical-bernoulli", "issue-4"]
SHAPES = size(SHAPES, {name: tiny(SHAPES[name]) for name in SMOKE_SHAPES})

WORKER = r"""
import json, os, sys, time
import numpy as np
import pandas as pd
import fuzzytruth as ft

shape, n_worlds, measures, peer_worlds = json.loads(sys.argv[1])
measures = shape.get("measures", measures)
rng = np.random.default_rng(2026)


def probabilities(spec, size):
    kind, _, arg = spec.partition(":")
    if kind == "beta":
        a, b = map(float, arg.split(","))
        return rng.beta(a, b, size)
    if kind == "exact":  # a share of the pairs exactly 0 or 1, the others Beta(0.6, 1.2)
        exact = rng.random(size) < float(arg)
        return np.where(exact, (rng.random(size) < 0.3).astype(float), rng.beta(0.6, 1.2, size))
    if kind == "shares":  # j/N: the share of N annotators who judged it relevant
        n = int(arg)
        return rng.binomial(n, rng.beta(0.6, 1.2, size)) / n
    raise ValueError(spec)


def first_columns(n_q, pool, width):
    # the first `width` of a random permutation of 0..pool-1, per query
    out = np.empty((n_q, width), dtype=np.int64)
    for start in range(0, n_q, 1000):  # blocks bound the random keys' memory
        keys = rng.random((min(1000, n_q - start), pool))
        out[start:start + len(keys)] = np.argpartition(keys, width - 1, axis=1)[:, :width]
    return out


def qrels_data(s):
    n_q, pool = s["queries"], s["pool"]
    qid = np.array([f"q{i}" for i in range(n_q)], dtype=object)
    did = np.array([f"d{j}" for j in range(pool)], dtype=object)
    judged = first_columns(n_q, pool, s["judged"])
    size = judged.size
    grades = None
    if s.get("grades"):
        grades = rng.integers(1, s["grades"] + 1, size).astype(float)
    truth = ft.ProbabilisticQrels(np.repeat(qid, s["judged"]), did[judged.ravel()],
                                  probabilities(s["p"], size), grades)
    runs = {}
    for k in range(s.get("systems", 1)):
        ranked = first_columns(n_q, pool, s["depth"])
        runs[f"s{k}"] = ft.Run(np.repeat(qid, s["depth"]), did[ranked.ravel()],
                               rng.random(ranked.size))
    return runs, truth, {}


def membership_data(s):
    n_items, n_q, depth = s["items"], s["queries"], s["depth"]
    groups, leaves = 4, 25
    tax = ft.Taxonomy.from_nested(
        {"all": {f"g{g}": [f"g{g}l{x}" for x in range(leaves)] for g in range(groups)}})
    names = np.array([f"g{g}l{x}" for g in range(groups) for x in range(leaves)], dtype=object)
    group_names = np.array([f"g{g}" for g in range(groups)], dtype=object)
    true_leaf = rng.integers(0, groups * leaves, n_items)
    draw = rng.random((n_items, 5))
    sibling = (true_leaf[:, None] // leaves) * leaves + rng.integers(0, leaves, (n_items, 5))
    group = group_names[true_leaf // leaves][:, None]
    labels = np.where(draw < 0.7, names[true_leaf][:, None],
                      np.where(draw < 0.9, names[sibling], group))
    items = np.array([f"i{i}" for i in range(n_items)], dtype=object)
    frame = pd.DataFrame({"item_id": np.repeat(items, 5),
                          "annotator_id": np.tile(np.arange(5), n_items),
                          "label": labels.ravel()})
    truth = ft.Membership.from_annotations(ft.Annotations.from_frame(frame, taxonomy=tax))
    queries = rng.choice(n_items, n_q, replace=False)
    runs = {}
    for k in range(s.get("systems", 1)):
        ranked = first_columns(n_q, n_items, depth)
        runs[f"s{k}"] = ft.Run(np.repeat(items[queries], depth), items[ranked.ravel()],
                               np.tile(np.arange(depth, 0, -1), n_q).astype(float))
    return runs, truth, {"world_model": s["world_model"]}


def status(key):
    return int(open("/proc/self/status").read().split(key + ":")[1].split()[0]) / 1024


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


runs, truth, options = (qrels_data if shape["truth"] == "qrels" else membership_data)(shape)
ft.evaluate(runs, truth, measures, n_worlds=3, rng=0, **options)  # warm: compiled, loaded
out = {"load_before": os.getloadavg()[0]}
reset_peak()
base = status("VmRSS")
cpu, wall = time.process_time(), time.perf_counter()
ev = ft.evaluate(runs, truth, measures, n_worlds=n_worlds, rng=0, **options)
out.update(seconds=time.perf_counter() - wall, cpu=time.process_time() - cpu,
           peak_mb=status("VmHWM"), added_mb=status("VmHWM") - base)
reset_peak()
base = status("VmRSS")
cpu, wall = time.process_time(), time.perf_counter()
table = ev.aggregate()
out.update(agg_seconds=time.perf_counter() - wall, agg_cpu=time.process_time() - cpu,
           agg_peak_mb=status("VmHWM"), agg_added_mb=status("VmHWM") - base,
           load_after=os.getloadavg()[0], methods=sorted(set(ev.to_frame()["method"])),
           values=dict(zip(table["system"] + " " + table["measure"], table["value"].round(4))),
           path=ft.__file__)
if peer_worlds:  # pytrec_eval, one call per world, on the same keyed worlds
    import pytrec_eval
    from fuzzytruth._random import draw_seed, pair_keys, uniforms
    frame = runs["s0"].to_dataframe()
    run_dict = {}
    for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"]):
        run_dict.setdefault(q, {})[d] = float(s)  # the usual run[q][d] = s loop
    keys, seed = pair_keys(truth.pairs), draw_seed(0)
    start = time.perf_counter()
    for w in range(peer_worlds):
        relevant = uniforms(seed, 4, keys, np.array([w]))[0] < truth.probability
        qrels = {}
        for q, d, r in zip(truth.query_ids, truth.doc_ids, relevant):
            qrels.setdefault(q, {})[d] = int(r)
        pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "map"}).evaluate(run_dict)
    out["peer_seconds_per_world"] = (time.perf_counter() - start) / peer_worlds
print(json.dumps(out))
"""


def run_shape(name: str, peer: bool, package_dir: str | None = None) -> dict:
    """One shape in a fresh process; ``package_dir``: the directory whose ``fuzzytruth/`` it
    imports (default: the one this interpreter finds)."""
    args = json.dumps([SHAPES[name], N_WORLDS, MEASURES, PEER_WORLDS if peer else 0])
    env = os.environ.copy()
    flags = []
    if package_dir is not None:  # -P: the working directory must not come first on the path
        env["PYTHONPATH"] = os.pathsep.join([package_dir, env.get("PYTHONPATH", "")])
        flags = ["-P"]
    done = subprocess.run([sys.executable, *flags, "-c", WORKER, args], capture_output=True,
                          text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"shape {name!r} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    if "--list" in argv:
        for name, shape in SHAPES.items():
            print(f"{name:<22} {shape}")
        return
    peer = "--no-peer" not in argv
    baseline = None
    if "--baseline" in argv:
        at = argv.index("--baseline")
        if at + 1 >= len(argv) or not os.path.isdir(os.path.join(argv[at + 1], "fuzzytruth")):
            raise SystemExit("--baseline needs a directory that holds a fuzzytruth/ package")
        baseline = os.path.abspath(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    names = [a for a in argv if not a.startswith("--")] or list(SHAPES)
    unknown = sorted(set(names) - set(SHAPES))
    if unknown:
        raise SystemExit(f"unknown shapes {unknown}; --list shows them")
    threads = os.environ.get("FUZZYTRUTH_NUM_THREADS", "one per core")
    print(f"evaluate(run, truth, {MEASURES}, n_worlds={N_WORLDS}); threads: {threads}; "
          f"bars {BAR_SECONDS:g} s and {BAR_MB:g} MB")
    header = (f"{'shape':<22} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'added MB':>9}  "
              f"{'agg s':>6} {'agg added MB':>12}  {'load':>9}  values")
    print(header)
    results, before = {}, {}
    for name in names:
        if baseline is not None:
            before[name] = run_shape(name, False, baseline)
        r = run_shape(name, peer and name == names[0])
        results[name] = r
        values = ", ".join(f"{k} {v}" for k, v in r["values"].items())
        print(f"{name:<22} {r['seconds']:7.2f} {r['cpu']:7.2f} {r['peak_mb']:8.0f} "
              f"{r['added_mb']:9.0f}  {r['agg_seconds']:6.2f} {r['agg_added_mb']:12.0f}  "
              f"{r['load_before']:4.1f}-{r['load_after']:<4.1f}  {values}", flush=True)
    print(f"package: {results[names[0]]['path']}")
    if baseline is not None:
        print_before_after(before, results)
    for key, label in (("seconds", "wall"), ("cpu", "CPU"), ("peak_mb", "peak"),
                       ("added_mb", "added memory")):
        worst = max(results, key=lambda n: results[n][key])
        print(f"worst {label}: {worst} ({results[worst][key]:.2f})")
    worst_wall = max(r["seconds"] for r in results.values())
    worst_added = max(r["added_mb"] for r in results.values())
    worst_peak = max(r["peak_mb"] for r in results.values())
    loads = [x for r in results.values() for x in (r["load_before"], r["load_after"])]
    print(f"bar <= {BAR_SECONDS:g} s wall: worst {worst_wall:.2f} s "
          f"({'PASS' if worst_wall <= BAR_SECONDS else 'FAIL'}; load {min(loads):.1f}-"
          f"{max(loads):.1f} on {os.cpu_count()} cores: read the CPU times)")
    print(f"bar <= {BAR_MB:g} MB held by evaluate(): worst {worst_added:.0f} MB "
          f"({'PASS' if worst_added <= BAR_MB else 'FAIL'}); whole process at its peak, with "
          f"the interpreter, the libraries and the data: worst {worst_peak:.0f} MB")
    first = results[names[0]]
    if "peer_seconds_per_world" in first:
        peer_total = first["peer_seconds_per_world"] * N_WORLDS
        print(f"pytrec_eval loop on {names[0]!r}: {first['peer_seconds_per_world']:.2f} s per "
              f"world, timed on {PEER_WORLDS} worlds and extrapolated to {N_WORLDS}: "
              f"{peer_total:.0f} s; ratio pytrec_eval loop / fuzzytruth (wall): "
              f"{peer_total / first['seconds']:.0f}x")


def print_before_after(before: dict, after: dict) -> None:
    """The baseline's figures beside the current ones, shape by shape, with ratios."""
    print(f"\nbefore ({before[next(iter(before))]['path']}) / after, evaluate() only:")
    print(f"{'shape':<22} {'cpu s':>15} {'ratio':>6} {'wall s':>15} {'ratio':>6} "
          f"{'added MB':>11} {'peak MB':>11}  {'same values':>11}")
    for name, b in before.items():
        a = after[name]
        if a["path"] == b["path"]:
            raise SystemExit(f"the baseline imported the same package ({a['path']})")
        same = "yes" if b["values"] == a["values"] else "NO"
        print(f"{name:<22} {b['cpu']:7.2f} {a['cpu']:7.2f} {a['cpu'] / b['cpu']:6.2f} "
              f"{b['seconds']:7.2f} {a['seconds']:7.2f} {a['seconds'] / b['seconds']:6.2f} "
              f"{b['added_mb']:5.0f} {a['added_mb']:5.0f} {b['peak_mb']:5.0f} "
              f"{a['peak_mb']:5.0f}  {same:>11}")


if __name__ == "__main__":
    main(sys.argv[1:])
