"""Poisson-binomial PMF: fuzzytruth side by side with scipy.stats.poisson_binom and fast-poibin.

Measures, in one run on the same inputs:

* PMF time and max absolute error for n = 10, 100, 1,000, 10,000 (uniform random p);
* all prefixes of a 1,000-long list (fuzzytruth computes them in one pass; the peers are
  called once per prefix, which is how they would be used);
* 10,000 lists of length 20 (fuzzytruth batched; the peers looped).

Error reference: the recursion in 50-digit mpmath arithmetic for n <= 1,000, and in extended
precision (numpy longdouble, 64-bit mantissa) for n = 10,000, where mpmath would take minutes.

Bars (issue 2): at least as fast as fast-poibin for n <= 1,000 and for the batched case; max
absolute error <= 1e-15 at n = 10,000; all prefixes of a 1,000-long list under 10 ms.
Timings are the best of several repeats; the machine's other load shows up as noise.

Run: ``python benchmarks/poibin.py``
"""

from __future__ import annotations

import time
from collections.abc import Callable

import mpmath
import numpy as np
from fast_poibin import PoiBin
from scipy import stats

from fuzzytruth.uncertain import poibin


def best_time(func: Callable[[], object], repeats: int = 5, inner: int = 1) -> float:
    """Best wall time of ``func`` in seconds over ``repeats`` rounds of ``inner`` calls."""
    func()  # warm-up (numba cache load, imports)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            func()
        best = min(best, (time.perf_counter() - start) / inner)
    return best


def reference_mpmath(p: np.ndarray) -> np.ndarray:
    mpmath.mp.dps = 50
    state = [mpmath.mpf(1)] + [mpmath.mpf(0)] * len(p)
    for i, pi in enumerate(p):
        pi = mpmath.mpf(float(pi))
        for k in range(i + 1, 0, -1):
            state[k] = state[k] * (1 - pi) + state[k - 1] * pi
        state[0] *= 1 - pi
    return np.array([float(x) for x in state])


def reference_longdouble(p: np.ndarray) -> np.ndarray:
    state = np.zeros(len(p) + 1, dtype=np.longdouble)
    state[0] = 1
    for i, pi in enumerate(p.astype(np.longdouble)):
        state[1 : i + 2] = state[1 : i + 2] * (1 - pi) + state[: i + 1] * pi
        state[0] *= 1 - pi
    return state.astype(float)


def row(label: str, ours: float, peers: dict[str, float], extra: str = "") -> None:
    ratios = "  ".join(
        f"{name} {t * 1e3:9.3f} ms (ours/{name} = {ours / t:5.2f})" for name, t in peers.items()
    )
    print(f"{label:<26} ours {ours * 1e3:9.3f} ms  {ratios} {extra}")


def main() -> None:
    rng = np.random.default_rng(20261122)
    print("PMF of one list: time (best of repeats) and max |error| against the reference")
    for n in (10, 100, 1_000, 10_000):
        p = rng.random(n)
        reference = reference_mpmath(p) if n <= 1_000 else reference_longdouble(p)
        k = np.arange(n + 1)
        inner = 200 if n <= 100 else (20 if n <= 1_000 else 1)
        ours = best_time(lambda p=p: poibin.pmf(p), inner=inner)
        fast = best_time(lambda p=p: PoiBin(p).pmf, inner=inner)
        scipy_t = best_time(
            lambda p=p, k=k: stats.poisson_binom.pmf(k, p), repeats=3, inner=max(1, inner // 10)
        )
        errors = {
            "ours": np.abs(poibin.pmf(p) - reference).max(),
            "fast-poibin": np.abs(PoiBin(p).pmf - reference).max(),
            "scipy": np.abs(stats.poisson_binom.pmf(k, p) - reference).max(),
        }
        row(f"n = {n}", ours, {"fast-poibin": fast, "scipy": scipy_t})
        print(f"{'':<26} max |error|: " + "  ".join(f"{k} {v:.2e}" for k, v in errors.items()))

    p = rng.random(1_000)
    ours = best_time(lambda: poibin.prefix_pmfs(p), repeats=5)
    fast = best_time(lambda: [PoiBin(p[:i]).pmf for i in range(1, 1_001)], repeats=2)
    print()
    row("all prefixes, n = 1000", ours, {"fast-poibin": fast}, "(bar: ours < 10 ms)")

    batch = rng.random((10_000, 20))
    ours = best_time(lambda: poibin.pmf(batch), repeats=5)
    fast = best_time(lambda: [PoiBin(b).pmf for b in batch], repeats=2)
    k = np.arange(21)
    scipy_t = best_time(lambda: stats.poisson_binom.pmf(k[:, None], batch).T, repeats=2)
    row("10,000 lists of 20", ours, {"fast-poibin": fast, "scipy (broadcast)": scipy_t})
    assert np.allclose(poibin.pmf(batch)[:5], [PoiBin(b).pmf for b in batch[:5]], atol=1e-14)


if __name__ == "__main__":
    main()
