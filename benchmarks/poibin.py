"""Poisson-binomial PMF: fuzzytruth side by side with fast-poibin (and scipy for n <= 1,000).

Sections (all by default; name some to run only those, e.g. ``thresholds`` or ``table``):

``thresholds``
    The measurement that chose the constants of :mod:`fuzzytruth.uncertain.poibin`: CPU time
    of the whole-list recursion and of the FFT product tree with leaves of at most 128, 256,
    512 or 1,024 items, against fast-poibin, at n = 256 .. 32,768 (``_LEAF``); and the grouped
    method against the tree for lists of annotator shares with D distinct values strictly
    between 0 and 1 (``_ITEMS_PER_GROUP``, the items per group from which grouping pays).
``table``
    One list, n = 10 .. 10^6, ten input shapes (uniform p; p near 0, log-uniform on
    [1e-8, 0.1]; p near 1, one minus that; shares j/5 and j/20 of 5 or 20 annotators; a
    mixture: 40 % U(0, 0.02), 30 % Beta(0.6, 1.2), 15 % exactly 0 or 1, 15 % U(0.98, 1); every
    p 0.5; every p 1e-3; Beta(0.1, 0.1); half 0.3, half 0.7).
    CPU and wall time of ``poibin.pmf(p)`` (the default method) and of fast-poibin as its
    README shows (``PoiBin(p).pmf``), ratios, and the max absolute error of both against a
    reference; then the worst ratio per n. Bar (issue 24): ratio <= 1.2 at every n, error
    <= 1e-14.
``tails``
    What the FFT products cost far from the mode, for fuzzytruth and fast-poibin: the sum's
    and the mean's deviation, the rounding noise where the exact PMF is below 1e-30, and the
    relative error where it is above 1e-10 and 1e-14.
``batched``
    Many lists at once (10,000 × 20, 1,000 × 200, 100 × 5,000): fuzzytruth's batched call
    against fast-poibin called once per list.
``prefixes``
    All prefixes of a 1,000-long list (fuzzytruth in one pass; fast-poibin once per prefix).

References for the error: the recursion in 50-digit mpmath arithmetic for n <= 1,000; the
recursion in extended precision (numpy longdouble, 64-bit mantissa) for n = 10^4; for
n >= 10^5, where that recursion would take minutes to hours, a product tree in extended
precision (longdouble recursion on leaves of 256 items, then products by numpy's longdouble
FFT), whose own error is printed first against the longdouble recursion at n = 10^4 (3.4e-20
measured, more than five orders of magnitude below the bar).

Timing: each (n, shape) is timed in interleaved rounds (fuzzytruth, fast-poibin, fuzzytruth,
...), each round repeating the call until it has run for about 20 ms; the best round is kept,
separately for CPU time (``time.process_time``) and wall time (``time.perf_counter``). Ratios
are CPU-time ratios. The load average is printed before and after: the machine is shared.

Run from the repository root: ``PYTHONPATH=. python benchmarks/poibin.py [sections...]``
(without ``PYTHONPATH=.`` Python may import another installed copy of fuzzytruth; the first
line printed says which one was imported).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs every section at a tiny size (lists of at most 20,000 items,
one round per timing; benchmarks/_smoke.py).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import mpmath
import numpy as np
from _smoke import size
from fast_poibin import PoiBin

import fuzzytruth
from fuzzytruth.uncertain import poibin

BAR_RATIO, BAR_ERROR = 1.2, 1e-14
BUDGET = size(0.02, 0.001)  # seconds per timing round
ROUNDS, FEW_ROUNDS = size((5, 3), (1, 1))  # timing rounds (the largest lists: the few)
THRESHOLD_SIZES = size((256, 512, 768, 1024, 1536, 2048, 4096, 8192, 32768), (256, 1024))
GROUPED_SIZES, GROUP_COUNTS = size(((2_000, 10_000, 100_000), (1, 2, 4, 8, 16, 32, 64)),
                                   ((2_000,), (1, 4)))
CHECK_SIZE = size(10_000, 2_000)  # the tree reference against the recursion
TABLE_SIZES = size((10, 100, 1_000, 10_000, 100_000, 1_000_000), (10, 100, 2_000, 20_000))
TAIL_SIZES = size((10_000, 1_000_000), (2_000, 20_000))
BATCHES = size(((10_000, 20), (1_000, 200), (100, 5_000)), ((50, 20), (10, 200), (2, 2_000)))
PREFIX_LENGTH = size(1_000, 50)


# ---------------------------------------------------------------------------------- timing
def timed(func: Callable[[], object], budget: float = BUDGET) -> tuple[int, float, float]:
    """Calls per round so that a round lasts about ``budget`` seconds, and one round's CPU and
    wall time per call."""
    func()  # the first call may load numba's cache or import modules
    start = time.perf_counter()
    func()
    once = max(time.perf_counter() - start, 1e-7)
    inner = max(1, int(budget / once))
    return inner, *one_round(func, inner)


def one_round(func: Callable[[], object], inner: int) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(inner):
        func()
    return (time.process_time() - cpu) / inner, (time.perf_counter() - wall) / inner


def side_by_side(funcs: dict[str, Callable[[], object]], rounds: int) -> dict[str, tuple]:
    """Best (CPU, wall) seconds per call of each function, timed in interleaved rounds."""
    inner = {}
    best = {}
    for name, func in funcs.items():  # warm-up: numba's cache, imports, the inner count
        inner[name], cpu, wall = timed(func)
        best[name] = (cpu, wall)
    for _ in range(rounds):
        for name, func in funcs.items():
            cpu, wall = one_round(func, inner[name])
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
    return best


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


# ------------------------------------------------------------------------------ references
def reference_mpmath(p: np.ndarray) -> np.ndarray:
    """The recursion in 50-digit arithmetic."""
    mpmath.mp.dps = 50
    state = [mpmath.mpf(1)] + [mpmath.mpf(0)] * len(p)
    for i, pi in enumerate(p):
        pi = mpmath.mpf(float(pi))
        qi = 1 - pi
        for k in range(i + 1, 0, -1):
            state[k] = state[k] * qi + state[k - 1] * pi
        state[0] *= qi
    return np.array([mpmath.nstr(x, 25) for x in state]).astype(np.longdouble)


def reference_longdouble(p: np.ndarray) -> np.ndarray:
    """The recursion in extended precision (64-bit mantissa), one item per vector step."""
    state = np.zeros(len(p) + 1, dtype=np.longdouble)
    state[0] = 1
    for i, pi in enumerate(p.astype(np.longdouble)):
        state[1 : i + 2] = state[1 : i + 2] * (1 - pi) + state[: i + 1] * pi
        state[0] *= 1 - pi
    return state


def reference_longdouble_tree(p: np.ndarray, leaf: int = 256) -> np.ndarray:
    """Extended-precision product tree: the longdouble recursion on all leaves at once, then
    pairwise products by numpy's longdouble FFT (transform sizes a power of two)."""
    n = len(p)
    n_leaves = 1 << (-(-n // leaf) - 1).bit_length()
    probs = np.zeros((n_leaves, leaf), dtype=np.longdouble)
    probs.ravel()[:n] = p
    state = np.zeros((n_leaves, leaf + 1), dtype=np.longdouble)
    state[:, 0] = 1
    for i in range(leaf):
        pi, qi = probs[:, i : i + 1], 1 - probs[:, i : i + 1]
        state[:, 1 : i + 2] = state[:, 1 : i + 2] * qi + state[:, : i + 1] * pi
        state[:, :1] *= qi
    while state.shape[0] > 1:
        length = 2 * state.shape[1] - 1
        size = 1 << (length - 1).bit_length()
        spectra = np.fft.rfft(state, size)
        state = np.fft.irfft(spectra[0::2] * spectra[1::2], size)[:, :length]
    return state[0, : n + 1]


def reference(p: np.ndarray) -> tuple[np.ndarray, str]:
    """Extended-precision reference PMF and its name."""
    if len(p) <= 1_000:
        return reference_mpmath(p), "mpmath-50"
    if len(p) <= 10_000:
        return reference_longdouble(p), "ld-recursion"
    return reference_longdouble_tree(p), "ld-fft-tree"


def max_error(values: np.ndarray, exact: np.ndarray) -> float:
    """Max absolute error, taken in extended precision."""
    return float(np.abs(values.astype(np.longdouble) - exact).max())


# ---------------------------------------------------------------------------------- inputs
def log_uniform(rng: np.random.Generator, n: int) -> np.ndarray:
    return 10.0 ** rng.uniform(-8, -1, n)


def mixture(rng: np.random.Generator, n: int) -> np.ndarray:
    part = rng.choice(4, size=n, p=[0.4, 0.3, 0.15, 0.15])
    return np.select(
        [part == 0, part == 1, part == 2],
        [rng.uniform(0, 0.02, n), rng.beta(0.6, 1.2, n), rng.integers(0, 2, n).astype(float)],
        rng.uniform(0.98, 1, n),
    )


SHAPES: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "uniform": lambda rng, n: rng.random(n),
    "near 0": log_uniform,
    "near 1": lambda rng, n: 1 - log_uniform(rng, n),
    "shares j/5": lambda rng, n: rng.integers(0, 6, n) / 5,
    "shares j/20": lambda rng, n: rng.integers(0, 21, n) / 20,
    "mixture": mixture,
    # added on 2026-11-29 (shapes this table did not make): a binomial, a constant small p,
    # U-shaped p, two values
    "all 0.5": lambda rng, n: np.full(n, 0.5),
    "all 1e-3": lambda rng, n: np.full(n, 1e-3),
    "Beta(0.1, 0.1)": lambda rng, n: rng.beta(0.1, 0.1, n),
    "two values": lambda rng, n: np.where(rng.random(n) < 0.5, 0.3, 0.7),
}


# -------------------------------------------------------------------------------- sections
def thresholds() -> None:
    rng = np.random.default_rng(11)
    print("\n## thresholds: CPU time per list, as a ratio to fast-poibin's (uniform p)")
    leaves = (128, 256, 512, 1024)
    print(f"{'n':>6} {'fast-poibin':>12} {'recursion':>10}" + "".join(f"{'leaf ' + str(v):>10}"
                                                                       for v in leaves))
    chosen = poibin._LEAF
    worst = dict.fromkeys(leaves, 0.0)
    try:
        for n in THRESHOLD_SIZES:
            p = rng.random(n)
            funcs = {"fast": lambda p=p: PoiBin(p).pmf,
                     "recursion": lambda p=p: poibin.pmf(p, method="recursion")}
            for leaf in leaves:
                funcs[leaf] = lambda p=p, leaf=leaf: tree_with_leaf(p, leaf)
            best = side_by_side(funcs, rounds=ROUNDS)
            fast = best["fast"][0]
            ratios = {name: best[name][0] / fast for name in funcs}
            for leaf in leaves:
                worst[leaf] = max(worst[leaf], ratios[leaf])
            print(f"{n:>6} {fast * 1e3:>9.4f} ms {ratios['recursion']:>10.2f}"
                  + "".join(f"{ratios[leaf]:>10.2f}" for leaf in leaves))
    finally:
        poibin._LEAF = chosen
    print("worst ratio per leaf size: "
          + ", ".join(f"{leaf}: {ratio:.2f}" for leaf, ratio in worst.items())
          + f"; module uses _LEAF = {chosen} (the tree is the recursion up to _LEAF items)")

    print("\ngrouped / tree CPU time, lists of shares with D distinct values in (0, 1)")
    print(f"{'n':>7}" + "".join(f"{'D=' + str(d):>8}" for d in GROUP_COUNTS))
    for n in GROUPED_SIZES:
        cells = []
        for d in GROUP_COUNTS:
            p = rng.integers(0, d + 2, n) / (d + 1)  # d + 2 values j/(d + 1): d of them in (0, 1)
            best = side_by_side({"grouped": lambda p=p: poibin.pmf(p, method="grouped"),
                                 "tree": lambda p=p: poibin.pmf(p, method="tree")},
                                rounds=FEW_ROUNDS)
            cells.append(best["grouped"][0] / best["tree"][0])
        print(f"{n:>7}" + "".join(f"{c:>8.2f}" for c in cells))
    print(f"module groups (method='auto') when D <= n / {poibin._ITEMS_PER_GROUP}")


def tree_with_leaf(p: np.ndarray, leaf: int) -> np.ndarray:
    poibin._LEAF = leaf
    return poibin.pmf(p, method="tree")


def reference_check() -> None:
    p = np.random.default_rng(5).random(CHECK_SIZE)
    gap = max_error(reference_longdouble_tree(p), reference_longdouble(p))
    print(f"\nreference check, n = {CHECK_SIZE:,} uniform: |ld-fft-tree − ld-recursion| max = "
          f"{gap:.1e}")


def table() -> None:
    from scipy import stats

    reference_check()
    print("\n## one list: default method against fast-poibin's PoiBin(p).pmf")
    print("| n | shape | ours CPU ms | ours wall ms | fast-poibin CPU ms | fast-poibin wall ms |"
          " ratio CPU | ratio wall | ours max err | fast-poibin max err | reference |"
          " scipy/ours CPU |")
    print("|---" * 12 + "|")
    worst_ratio: dict[int, tuple[float, str]] = {}
    worst_error: dict[int, float] = {}
    for n in TABLE_SIZES:
        for shape, make in SHAPES.items():
            rng = np.random.default_rng([n, len(shape)])
            p = make(rng, n)
            funcs = {"ours": lambda p=p: poibin.pmf(p), "fast": lambda p=p: PoiBin(p).pmf}
            if n <= 1_000:  # scipy's O(n²) takes seconds per call beyond
                k = np.arange(n + 1)
                funcs["scipy"] = lambda p=p, k=k: stats.poisson_binom.pmf(k, p)
            best = side_by_side(funcs, rounds=ROUNDS if n < 1_000_000 else FEW_ROUNDS)
            exact, source = reference(p)
            error = max_error(poibin.pmf(p), exact)
            error_fast = max_error(PoiBin(p).pmf, exact)
            (ours, ours_wall), (fast, fast_wall) = best["ours"], best["fast"]
            ratio = ours / fast
            scipy_cell = f"{best['scipy'][0] / ours:.1f}" if "scipy" in best else ""
            print(f"| {n:,} | {shape} | {ours * 1e3:.4g} | {ours_wall * 1e3:.4g} |"
                  f" {fast * 1e3:.4g} | {fast_wall * 1e3:.4g} | {ratio:.2f} |"
                  f" {ours_wall / fast_wall:.2f} | {error:.1e} | {error_fast:.1e} | {source} |"
                  f" {scipy_cell} |", flush=True)
            worst_ratio[n] = max(worst_ratio.get(n, (0.0, "")), (ratio, shape))
            worst_error[n] = max(worst_error.get(n, 0.0), error)
    print(f"\nworst CPU ratio per n (bar {BAR_RATIO}) and worst error (bar {BAR_ERROR:.0e}):")
    for n, (ratio, shape) in worst_ratio.items():
        ok = ratio <= BAR_RATIO and worst_error[n] <= BAR_ERROR
        print(f"  n = {n:>9,}: {ratio:.2f} ({shape}), max error {worst_error[n]:.1e}"
              f"  {'ok' if ok else 'MISSES THE BAR'}")


def tails() -> None:
    print("\n## what the FFT costs in the tails (default method; errors against the reference)")
    print("| n | shape | method | sum − 1 | E[K] error | max where exact < 1e-30 |"
          " max rel. error where exact > 1e-10 | where exact > 1e-14 |")
    print("|---" * 8 + "|")
    for n in TAIL_SIZES:
        for shape in ("uniform", "near 0"):
            p = SHAPES[shape](np.random.default_rng([n, 9]), n)
            exact = reference(p)[0]
            k = np.arange(n + 1)
            for name, values in (("fuzzytruth", poibin.pmf(p)), ("fast-poibin", PoiBin(p).pmf)):
                x = values.astype(np.longdouble)
                relative = np.abs(x - exact) / np.where(exact > 0, exact, 1)
                print(f"| {n:,} | {shape} | {name} | {float(x.sum() - 1):.1e} |"
                      f" {float(x @ k - exact @ k):.1e} | {float(x[exact < 1e-30].max()):.1e} |"
                      f" {float(relative[exact > 1e-10].max()):.1e} |"
                      f" {float(relative[exact > 1e-14].max()):.1e} |")


def batched() -> None:
    print("\n## many lists: one batched call against fast-poibin once per list (uniform p)")
    rng = np.random.default_rng(3)
    for m, n in BATCHES:
        batch = rng.random((m, n))
        best = side_by_side({"ours": lambda b=batch: poibin.pmf(b),
                             "fast": lambda b=batch: [PoiBin(row).pmf for row in b]},
                            rounds=FEW_ROUNDS)
        rows = range(0, m, max(1, m // 5))
        error = max(max_error(poibin.pmf(batch[r]), reference(batch[r])[0]) for r in rows)
        assert np.array_equal(poibin.pmf(batch)[list(rows)], [poibin.pmf(batch[r]) for r in rows])
        (ours, ours_wall), (fast, fast_wall) = best["ours"], best["fast"]
        print(f"{m:>6,} lists × {n:>5,}: ours {ours * 1e3:8.2f} ms CPU ({ours_wall * 1e3:8.2f} "
              f"wall), fast-poibin {fast * 1e3:8.2f} ms CPU ({fast_wall * 1e3:8.2f} wall), ratio "
              f"{ours / fast:.2f} CPU, {ours_wall / fast_wall:.2f} wall; max error {error:.1e} "
              f"(rows {list(rows)})")


def prefixes() -> None:
    print(f"\n## all prefixes of a {PREFIX_LENGTH:,}-long list")
    p = np.random.default_rng(2).random(PREFIX_LENGTH)
    best = side_by_side({"ours": lambda: poibin.prefix_pmfs(p),
                         "fast": lambda: [PoiBin(p[:i]).pmf for i in range(1, PREFIX_LENGTH + 1)]},
                        rounds=FEW_ROUNDS)
    (ours, ours_wall), (fast, fast_wall) = best["ours"], best["fast"]
    print(f"ours {ours * 1e3:.2f} ms CPU ({ours_wall * 1e3:.2f} wall), fast-poibin "
          f"{fast * 1e3:.2f} ms CPU ({fast_wall * 1e3:.2f} wall), ratio {ours / fast:.3f}")


SECTIONS = {"thresholds": thresholds, "table": table, "tails": tails, "batched": batched,
            "prefixes": prefixes}


def main(names: list[str]) -> None:
    unknown = sorted(set(names) - set(SECTIONS))
    if unknown:
        raise SystemExit(f"unknown sections {unknown}; choose from {sorted(SECTIONS)}")
    print(f"fuzzytruth from {fuzzytruth.__file__}; numpy {np.__version__}; {os.cpu_count()} CPUs")
    print(load())
    for name in names or list(SECTIONS):
        SECTIONS[name]()
    print("\n" + load())


if __name__ == "__main__":
    main(sys.argv[1:])
