"""Benchmark: collection agreement at real size (issue 24), against peers, and on ImageNet ReaL.

Part 1, shapes. ``agreement()`` and ``agreement_by_level()`` with 1,000 bootstrap replicates on
185,000 items and a taxonomy of about 1,000 nodes, on generated collections of several shapes:
taxonomy depth and fan-out (flat 1,000 leaves; 10 × 10 × 10; 31 × 31; a binary tree of depth 9;
ten times the nodes, 100 × 100; deep: a chain of 100 one-child nodes above 10 × 10 × 10, and a
caterpillar 500 deep, a new partition of the labels at every depth), labels per item (3, 5,
20, or 1–10 with single-annotator items), the annotator pool (5 annotators labelling
everything, 100, 5,000), skewed label use (Zipf-distributed true categories) and how much
annotators agree. Each item has a true leaf;
each of its annotators gives it (probability ``p_true``), a sibling leaf (0.15), its parent
(0.1, a coarser answer) or any leaf. Bars: peak RSS ≤ 1 GB and ≤ 10 s, on the worst shape. Each
(shape, function) runs in a fresh process: the collection is built, the function is called once
on a tiny collection (imports and the compiled passes loaded), freed heap is returned to the
system (``malloc_trim``), the kernel's peak-RSS counter is reset (``/proc/self/clear_refs``),
then the measured call. Reported: CPU time (``time.process_time``), wall time, the process's RSS
before the call (interpreter, libraries and the collection: "base") and its peak during the call
(``VmHWM``: "peak", the figure the bar is about), the peak traced by ``tracemalloc`` during a
second, untimed call ("traced": what the call itself allocates), and the load average.

Part 2, items. The 10 × 10 × 10 shape from 23,125 to 370,000 items: what the call adds to
the collection's own memory should stay flat, or grow with the number of labels only (blocks
of replicates are sized from the memory budget; the count tables are sparse), never with
items × nodes.

Part 3, peers. 10,000 items × 10 annotators × 50 leaves: point estimates against
``krippendorff.alpha`` (nominal, and a callable metric returning the taxonomy path length)
and ``statsmodels.stats.inter_rater.fleiss_kappa`` called as their documentation shows;
neither bootstraps, so their bootstrap is a loop of ``PEER_REPLICATES`` calls on resampled
counts, scaled to 1,000 (marked "est.").

Part 4, ImageNet ReaL (bundled: 924,810 votes on 184,962 items, 85 raters, labels no / maybe /
yes), 1,000 replicates, in a fresh process as in part 1; point estimates checked against
statsmodels and krippendorff.

Run: ``.venv/bin/python benchmarks/agreement.py`` (all parts; ``--quick``: fewer shapes and
sizes). ``--before PATH`` runs parts 1, 2 and 4 with the package found at PATH (e.g. an export
of an older commit) for a side-by-side table, each process capped at ``--limit-gb`` of address
space (default 16) so that a run that would need more fails with MemoryError instead of
taking the machine. The machine this was written on has 2 cores shared with other work: CPU
time is the figure to compare; wall time and the load are printed beside it.

``FUZZYTRUTH_BENCH_SMOKE=1`` runs every part at a tiny size (benchmarks/_smoke.py): 40
replicates; part 1 on 500 items of the Zipf shape only; part 2 on 1,000 items and part 4 with
one function each (a process per call costs seconds); part 3 on 200 items × 3 annotators.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from _smoke import size

#: The checkout this file belongs to: its package is the one measured (not the installed one).
ROOT = str(Path(__file__).resolve().parents[1])
N_ITEMS = size(185_000, 500)
N_RESAMPLES = size(1_000, 40)
PEER_ITEMS, PEER_ANNOTATORS, PEER_GROUPS, PEER_LEAVES = size(10_000, 200), size(10, 3), 5, 10
PEER_REPLICATES = size(20, 2)
BAR_MB, BAR_SECONDS = 1024, 10.0


# ---------------------------------------------------------------------------- generators
@dataclass(frozen=True)
class Shape:
    """A generated collection: taxonomy fan-out per level, labels per item, annotator pool,
    Zipf exponent of the true categories (0: uniform) and each annotator's chance of giving
    the true leaf."""

    name: str
    fanout: tuple[int, ...] = (10, 10, 10)
    labels: tuple[int, int] = (5, 5)  # labels per item, drawn uniformly in [low, high]
    annotators: int = 100
    zipf: float = 0.0
    p_true: float = 0.5
    p_coarse: float = 0.1  # the parent of the true leaf, when the taxonomy has one
    spine: int = 0  # > 0: a caterpillar, a path of this many nodes each with one leaf


SHAPES = [
    Shape("3 levels 10x10x10, 5 labels"),
    Shape("flat 1000 leaves, 5 labels", fanout=(1000,)),
    Shape("2 levels 31x31, 5 labels", fanout=(31, 31)),
    Shape("binary depth 9, 5 labels", fanout=(2,) * 9),
    Shape("10x10x10, 3 labels", labels=(3, 3)),
    Shape("10x10x10, 20 labels", labels=(20, 20)),
    Shape("10x10x10, 1-10 labels", labels=(1, 10)),
    Shape("10x10x10, 5 annotators", annotators=5),
    Shape("10x10x10, 5000 annotators", annotators=5000),
    Shape("10x10x10, Zipf 1.1 categories", zipf=1.1),
    Shape("10x10x10, low agreement", p_true=0.1),
    Shape("flat 1000, 20 labels, low agreement", fanout=(1000,), labels=(20, 20), p_true=0.1),
    # ten times the labels: taxonomy α's metric between 10,000 leaves (a (U, U) table of
    # 800 MB before 2026-11-28, read in full by every replicate)
    Shape("2 levels 100x100, 5 labels", fanout=(100, 100)),
    # deep: a chain of one-child nodes above 10 x 10 x 10 (one category at each of its 100
    # depths), and a caterpillar 500 deep (a leaf beside each node of a path, two at its end:
    # at depth d the d leaves above it and the path's node, every depth a new partition)
    Shape("chain of 100 above 10x10x10", fanout=(1,) * 100 + (10, 10, 10)),
    Shape("caterpillar 500 deep, 5 labels", fanout=(2,), spine=500),
]
QUICK = [0, 1, 5]
SHAPE_BY_NAME = {s.name: s for s in SHAPES}


def make_taxonomy(fanout: tuple[int, ...], spine: int = 0):
    """Nodes ``root``, ``n1_0``, ``n1_1``, ...: level ``d`` has ``prod(fanout[:d])`` nodes;
    given ``spine``, a caterpillar instead (path nodes ``s0`` ... and leaves ``l0`` ...)."""
    from fuzzytruth import Taxonomy

    if spine:
        path = ["root"] + [f"s{d}" for d in range(spine)]
        edges = [(path[d], node) for d in range(spine) for node in (path[d + 1], f"l{d}")]
        edges += [(path[-1], f"l{spine}"), (path[-1], f"l{spine + 1}")]
        tax = Taxonomy.from_edges(edges)
        return tax, len(tax.leaves)
    edges, level = [], ["root"]
    for depth, k in enumerate(fanout, start=1):
        children = [f"n{depth}_{j}" for j in range(len(level) * k)]
        edges += [(level[j // k], c) for j, c in enumerate(children)]
        level = children
    return Taxonomy.from_edges(edges), len(level)


def make_annotations(shape: Shape, n_items: int, seed: int = 0):
    """Annotations of ``shape`` (module docstring) on ``n_items`` items."""
    from fuzzytruth import Annotations

    rng = np.random.default_rng(seed)
    tax, n_leaves = make_taxonomy(shape.fanout, shape.spine)
    nodes = np.array(tax.nodes, dtype=object)
    leaf_cols = tax.indices(tax.leaves)
    parent_col = np.array([tax.index(tax.parents(n)[0]) if tax.parents(n) else 0
                           for n in tax.nodes])
    if shape.zipf > 0:
        weights = 1.0 / np.arange(1, n_leaves + 1) ** shape.zipf
        truth = rng.choice(n_leaves, size=n_items, p=weights / weights.sum())
    else:
        truth = rng.integers(n_leaves, size=n_items)
    low, high = shape.labels
    k = rng.integers(low, high + 1, size=n_items)
    width = int(k.max())
    draw = rng.random((n_items, width))
    fan = shape.fanout[-1]
    sibling = truth[:, None] // fan * fan + rng.integers(fan, size=(n_items, width))
    anything = rng.integers(n_leaves, size=(n_items, width))
    leaf = np.where(draw < shape.p_true + 0.15,
                    np.where(draw < shape.p_true, truth[:, None], sibling), anything)
    label = leaf_cols[leaf]
    coarse = ((draw >= shape.p_true + 0.15) & (draw < shape.p_true + 0.15 + shape.p_coarse)
              & (len(shape.fanout) > 1))
    label = np.where(coarse, parent_col[leaf_cols[truth]][:, None], label)
    start = rng.integers(shape.annotators, size=n_items)
    annotator = (start[:, None] + np.arange(width)) % shape.annotators
    keep = np.arange(width) < k[:, None]
    frame = pd.DataFrame({
        "item_id": np.repeat(np.arange(n_items), k),
        "annotator_id": annotator[keep],
        "label": nodes[label[keep]],
    })
    return Annotations.from_frame(frame, taxonomy=tax)


# ---------------------------------------------------------------------------- one process
def _rss_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _real_annotations(n_items: int):
    from fuzzytruth.datasets import imagenet_real

    return imagenet_real().annotations


def run_one(shape_name: str, function: str, n_items: int) -> dict:
    """Inside a fresh process: build, warm up, measure one call."""
    from fuzzytruth.collection import agreement, agreement_by_level

    fn = {"agreement": agreement, "agreement_by_level": agreement_by_level}[function]
    start = time.perf_counter()
    if shape_name == "ImageNet ReaL":
        ann = _real_annotations(n_items)
        tiny = make_annotations(Shape("tiny", fanout=(3,)), 50)
    else:
        shape = SHAPE_BY_NAME[shape_name]
        ann = make_annotations(shape, n_items)
        tiny = make_annotations(shape, 50)
    build = time.perf_counter() - start
    fn(tiny, n_resamples=10, rng=0)  # imports and compiled passes loaded
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)  # freed heap back to the system: RSS = live data
    base = _rss_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn(ann, n_resamples=N_RESAMPLES, rng=0)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = _rss_mb("VmHWM")
    frame = result.to_frame()
    del result
    tracemalloc.start()  # a second, untimed call: the peak of what the call allocates
    fn(ann, n_resamples=N_RESAMPLES, rng=0)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return {
        "shape": shape_name, "function": function, "items": ann.n_items,
        "nodes": len(ann.taxonomy), "labels": len(ann.to_frame()), "build_s": build,
        "base_mb": base, "peak_mb": peak, "traced_mb": traced, "cpu_s": cpu, "wall_s": wall,
        "load": os.getloadavg()[0],
        "first": {k: float(v) for k, v in frame.iloc[0][["value", "ci_low", "ci_high"]].items()},
    }


def measure(shape: str, function: str, n_items: int, *, package: str | None,
            limit_gb: float) -> dict:
    """:func:`run_one` in a child process (with ``package`` first on its path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = (package or ROOT) + os.pathsep + env.get("PYTHONPATH", "")

    def cap() -> None:
        limit = int(limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    child = subprocess.run(
        [sys.executable, __file__, "--one", shape, function, str(n_items)],
        capture_output=True, text=True, env=env, preexec_fn=cap,
    )
    if child.returncode != 0:
        last = (child.stderr.strip().splitlines() or ["?"])[-1]
        return {"shape": shape, "function": function, "items": n_items, "error": last[:70]}
    return json.loads(child.stdout.strip().splitlines()[-1])


def show(rows: list[dict], before: dict | None = None) -> None:
    head = (f"{'shape':<38}{'function':<20}{'items':>8}{'nodes':>6}{'base MB':>9}"
            f"{'peak MB':>9}{'traced':>8}{'CPU s':>8}{'wall s':>8}{'load':>6}")
    if before is not None:
        head += f"{'| before: peak MB':>18}{'CPU s':>8}"
    print(head)
    for r in rows:
        if "error" in r:
            print(f"{r['shape']:<38}{r['function']:<20}{r['items']:>8}  {r['error']}")
            continue
        line = (f"{r['shape']:<38}{r['function']:<20}{r['items']:>8}{r['nodes']:>6}"
                f"{r['base_mb']:>9.0f}{r['peak_mb']:>9.0f}{r.get('traced_mb', np.nan):>8.0f}"
                f"{r['cpu_s']:>8.2f}{r['wall_s']:>8.2f}{r['load']:>6.1f}")
        if before is not None:
            b = before.get((r["shape"], r["function"], r["items"]))
            if b is None or "error" in b:
                line += f"  {'' if b is None else b['error'][:40]}"
            else:
                line += f"{b['peak_mb']:>18.0f}{b['cpu_s']:>8.2f}"
        print(line)


# ---------------------------------------------------------------------------- parts
def shapes(args: argparse.Namespace) -> None:
    zipf = [SHAPE_BY_NAME["10x10x10, Zipf 1.1 categories"]]  # a smoke run's one shape
    chosen = [SHAPES[i] for i in QUICK] if args.quick else size(SHAPES, zipf)
    runs = [(s.name, f, args.items) for s in chosen for f in ("agreement", "agreement_by_level")]
    rows = [measure(*run, package=None, limit_gb=args.limit_gb) for run in runs]
    before = _before(args, runs)
    print(f"\nPart 1: {N_RESAMPLES} replicates, {args.items} items (peak MB: RSS of the whole "
          "process during the call; base MB: before it, with the collection built)")
    show(rows, before)
    ok = [r for r in rows if "error" not in r]
    for f in ("agreement", "agreement_by_level"):
        mine = [r for r in ok if r["function"] == f]
        if not mine:
            continue
        worst_mb = max(mine, key=lambda r: r["peak_mb"])
        worst_s = max(mine, key=lambda r: r["cpu_s"])
        print(f"worst {f}: {worst_mb['peak_mb']:.0f} MB ({worst_mb['shape']}), "
              f"{worst_s['cpu_s']:.2f} s CPU ({worst_s['shape']}); bars "
              f"<= {BAR_MB} MB: {'PASS' if worst_mb['peak_mb'] <= BAR_MB else 'FAIL'}, "
              f"<= {BAR_SECONDS:.0f} s: {'PASS' if worst_s['cpu_s'] <= BAR_SECONDS else 'FAIL'}")
    if len(ok) < len(rows):
        print(f"{len(rows) - len(ok)} run(s) failed")


def items(args: argparse.Namespace) -> None:
    sizes = ([46_250, 185_000] if args.quick
             else size([23_125, 46_250, 92_500, 185_000, 370_000], [1_000]))
    name = SHAPES[0].name
    functions = size(("agreement", "agreement_by_level"), ("agreement",))
    runs = [(name, f, n) for f in functions for n in sizes]
    rows = [measure(*run, package=None, limit_gb=args.limit_gb) for run in runs]
    before = _before(args, runs)
    print(f"\nPart 2: memory as items grow ({name}; added MB: call peak minus base)")
    print(f"{'function':<20}{'items':>8}{'base MB':>9}{'peak MB':>9}{'added MB':>10}"
          f"{'traced':>8}{'CPU s':>8}" + ("  | before: added MB   CPU s" if before else ""))
    for r in rows:
        if "error" in r:
            print(f"{r['function']:<20}{r['items']:>8}  {r['error']}")
            continue
        line = (f"{r['function']:<20}{r['items']:>8}{r['base_mb']:>9.0f}{r['peak_mb']:>9.0f}"
                f"{r['peak_mb'] - r['base_mb']:>10.0f}{r.get('traced_mb', np.nan):>8.0f}"
                f"{r['cpu_s']:>8.2f}")
        if before:
            b = before[(r["shape"], r["function"], r["items"])]
            line += (f"  {b['error'][:40]}" if "error" in b else
                     f"{b['peak_mb'] - b['base_mb']:>19.0f}{b['cpu_s']:>8.2f}")
        print(line)


def _before(args: argparse.Namespace, runs: list[tuple[str, str, int]]) -> dict | None:
    """The same runs with the package at ``--before`` (None without it)."""
    if not args.before:
        return None
    return {run: measure(*run, package=args.before, limit_gb=args.limit_gb) for run in runs}


def peers() -> None:
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    from fuzzytruth.collection import agreement

    shape = Shape("peers", fanout=(PEER_GROUPS, PEER_LEAVES),
                  labels=(PEER_ANNOTATORS, PEER_ANNOTATORS), annotators=PEER_ANNOTATORS,
                  p_true=0.6, p_coarse=0.0)  # leaves only: one value domain for the peers
    ann = make_annotations(shape, PEER_ITEMS)
    frame = ann.to_frame()
    tax = ann.taxonomy
    leaves = list(tax.leaves)
    code = pd.Index(leaves).get_indexer(frame["label"])
    item = pd.factorize(frame["item_id"])[0]
    annot = pd.factorize(frame["annotator_id"])[0]
    reliability = np.full((annot.max() + 1, item.max() + 1), np.nan)
    reliability[annot, item] = code
    value_counts = np.zeros((item.max() + 1, len(leaves)))
    np.add.at(value_counts, (item, code), 1)
    leaf_cols = tax.indices(leaves)
    path = tax.distance_matrix()[np.ix_(leaf_cols, leaf_cols)].astype(float)

    def path_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return path[np.asarray(v1, dtype=int), np.asarray(v2, dtype=int)].astype(dtype)

    def timed(fn):
        cpu = time.process_time()
        out = fn()
        return time.process_time() - cpu, out

    agreement(ann, n_resamples=10, rng=0)  # warm up
    t_nom, a_nom = timed(lambda: krippendorff.alpha(reliability_data=reliability,
                                                    level_of_measurement="nominal"))
    t_tax, a_tax = timed(lambda: krippendorff.alpha(
        value_counts=value_counts, value_domain=np.arange(len(leaves)),
        level_of_measurement=path_metric))
    t_sm, k_sm = timed(lambda: fleiss_kappa(value_counts))
    t_point, res0 = timed(lambda: agreement(ann, n_resamples=0))
    t_boot, _ = timed(lambda: agreement(ann, n_resamples=N_RESAMPLES, rng=0))
    rng = np.random.default_rng(0)

    def peer_bootstrap() -> None:
        for _ in range(PEER_REPLICATES):
            counts = value_counts[rng.integers(len(value_counts), size=len(value_counts))]
            krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
            krippendorff.alpha(value_counts=counts, value_domain=np.arange(len(leaves)),
                               level_of_measurement=path_metric)
            fleiss_kappa(counts)

    t_loop, _ = timed(peer_bootstrap)
    t_peer_boot = t_loop * N_RESAMPLES / PEER_REPLICATES
    print(f"\nPart 3: peers, {ann.n_items} items x {PEER_ANNOTATORS} annotators x "
          f"{len(leaves)} leaves (CPU s)")
    for name, ours, peer in (("krippendorff_alpha", res0.value("krippendorff_alpha"), a_nom),
                             ("taxonomy_alpha", res0.value("taxonomy_alpha"), a_tax),
                             ("fleiss_kappa", res0.value("fleiss_kappa"), k_sm)):
        print(f"check {name:<19} fuzzytruth {ours:.12f}  peer {peer:.12f}  "
              f"|diff| {abs(ours - peer):.1e}")
    t_peer = t_nom + t_tax + t_sm
    print(f"{'task':<50}{'fuzzytruth':>11}{'peers':>12}{'peers/ours':>12}")
    print(f"{'point: kappa + nominal alpha + taxonomy alpha':<50}{t_point:>11.3f}{t_peer:>12.3f}"
          f"{t_peer / t_point:>11.1f}x")
    print(f"{f'bootstrap, {N_RESAMPLES} replicates, all three':<50}{t_boot:>11.3f}"
          f"{t_peer_boot:>8.1f} est.{t_peer_boot / t_boot:>11.0f}x")


def real(args: argparse.Namespace) -> None:
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    from fuzzytruth.collection import agreement
    from fuzzytruth.collection._counts import label_counts
    from fuzzytruth.datasets import imagenet_real

    functions = size(("agreement", "agreement_by_level"), ("agreement_by_level",))
    runs = [("ImageNet ReaL", f, 0) for f in functions]
    rows = [measure(*run, package=None, limit_gb=args.limit_gb) for run in runs]
    before = _before(args, runs)
    if before:
        before = {(r["shape"], r["function"], r["items"]): before[run]
                  for run, r in zip(runs, rows, strict=True) if "error" not in r}
    print(f"\nPart 4: ImageNet ReaL, {N_RESAMPLES} replicates")
    show(rows, before)
    ann = imagenet_real().annotations
    counts = label_counts(ann).toarray()[:, 1:]
    res0 = agreement(ann, n_resamples=0)
    alpha = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    print(f"check fleiss_kappa {res0.value('fleiss_kappa'):.12f} statsmodels "
          f"{fleiss_kappa(counts):.12f}; alpha {res0.value('krippendorff_alpha'):.12f} "
          f"krippendorff {alpha:.12f}")
    for r in rows:
        if "error" not in r:
            print(f"{r['function']}: first row {r['first']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", nargs=3, metavar=("SHAPE", "FUNCTION", "ITEMS"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--items", type=int, default=N_ITEMS)
    parser.add_argument("--before", help="path holding an older fuzzytruth package")
    parser.add_argument("--limit-gb", type=float, default=16.0)
    parser.add_argument("--parts", default="1234", help="parts to run (default 1234)")
    args = parser.parse_args()
    if args.one:
        shape, function, n_items = args.one
        print(json.dumps(run_one(shape, function, int(n_items))))
        return
    sys.path.insert(0, ROOT)
    print(f"load average at start: {os.getloadavg()}")
    if "1" in args.parts:
        shapes(args)
    if "2" in args.parts:
        items(args)
    if "3" in args.parts:
        peers()
    if "4" in args.parts:
        real(args)
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
