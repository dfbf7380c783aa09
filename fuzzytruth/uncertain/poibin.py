"""Poisson-binomial distributions: the number of successes among independent Bernoulli trials.

The PMF of k = Σ X_i, X_i ~ Bernoulli(p_i), is the coefficient vector of the generating
polynomial G(z) = Π_i ((1 − p_i) + p_i z). Short lists are multiplied out exactly; long ones
by a product tree whose large products go through the FFT.

Methods
-------
``"recursion"``
    The classic recursion pmf_i[k] = pmf_{i−1}[k] (1 − p_i) + pmf_{i−1}[k−1] p_i, one item at a
    time, O(n²). Only products and sums of non-negative numbers: nothing turns negative, no
    cancellation, every entry (far tails included) keeps a small *relative* error. Its
    intermediate states are the PMFs of every prefix of the list, so :func:`prefix_pmfs` uses
    it (compensated: see below).
``"tree"``
    Leaves of at most ``_LEAF`` (512) items by the recursion, exactly; then the leaf
    polynomials are multiplied pairwise, level by level, with real FFTs (``numpy.fft``, lengths
    of the form 2^a·3^b·5^c) batched across all pairs of a level and across lists:
    O(n log² n). A list of at most 512 items is a single leaf, so the tree is exact there.
``"grouped"``
    Equal probabilities are grouped: a group of c items with probability p contributes
    Binomial(c, p), computed from its mode outwards by ratios of consecutive terms (products
    of non-negative numbers, normalised to sum 1; no special functions, so nothing overflows
    at tiny p), and the group polynomials are multiplied, the two shortest first, exactly while
    the shorter has at most ``_DIRECT`` (128) terms and by FFT otherwise. For shares j/N of N
    annotators (at most N + 1 distinct values) a long list costs a few FFTs.
``"auto"`` (default)
    ``"recursion"`` up to 512 items. Beyond, for one list whose distinct probabilities
    strictly between 0 and 1 number at most n / ``_ITEMS_PER_GROUP`` (n / 1,250),
    ``"grouped"``; otherwise ``"tree"``.

Thresholds, chosen by measurement (``benchmarks/poibin.py``, section ``thresholds``: CPU time
per list, interleaved with fast-poibin, on the project's shared 2-core machine at load 10–13).
The tree with leaves of at most 128, 256, 512 or 1,024 items took at worst 1.83, 0.80, 0.66
and 0.67 times fast-poibin's time over n = 256 .. 32,768 (uniform p); with 512, the
whole-list recursion costs about as much as the tree at 1,024 items, 1.5–1.9 times as much at
1,536–2,048, 4–6 times at 8,192 and 11–13 times at 32,768 (two runs). Grouping beats the tree
when each distinct probability holds more than about 700 (n = 2,000), 1,250 (n = 10⁴) or
1,800 (n = 10⁵) items. From 10 to 10⁶ items, on six input shapes, the default takes 0.10–0.91
times fast-poibin's CPU time (section ``table``); a batch of 10,000 lists of 20 items, 0.02
times a loop over fast-poibin (section ``batched``).

Accuracy. The exact paths (the recursion, a single leaf, a grouped product with a short
factor) keep a small relative error in every entry. The recursion's PMFs are divided by their
sum: 1 − p is rounded the same way for equal p, and without this n items with p = 0.3 would
carry a mass of (1 + δ)^n, δ ≈ 8e-17 (an error of 1.5e-15 at the mode for n = 1,000);
afterwards the rounding amounts to a relative perturbation of each p by at most ε/2.
An FFT product makes a *normwise* error, about ε·log₂N times the norms of the factors
(ε = 2⁻⁵³, N the transform length; Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., ch. 24), spread over all entries alike. What is promised is therefore
an **absolute** error: at most 1e-15 measured against 50-digit and extended-precision
references for n from 10 to 10⁶ on six input shapes (section ``table``, largest 8.6e-16; the
bar is 1e-14). Far from the mode the FFT costs the relative accuracy (section ``tails``, n = 10⁴
and 10⁶, p uniform or near 0): where the exact PMF is below 1e-30 the tree returns rounding
noise of up to 7e-17 (negative noise is clipped to 0); where it is above 1e-10 the relative
error reaches 1e-7 (1.4e-6 at n = 10⁶ with p near 0), and above 1e-14, 1e-3 to 1e-2 — the same
orders of magnitude as fast-poibin (exact products below 1,024 terms, transforms twice as
long), which makes 1.5–10 times less noise. At n = 10⁶ the sum is 1 within 2e-13 and the mean
is off by about 1e-8: the clipped noise adds mass far from the mode. The PMF is not
renormalised: dividing by the sum lowered the largest error on some shapes and raised it on
others (1.5e-16 to 9.2e-16 at n = 10⁶ with p near 0). Where the far tails matter in relative
terms (a p-value of 1e-30), use ``method="recursion"`` (O(n²)), or ``"grouped"`` when fewer
than 128 items lie outside the most common probability (every product is then exact).

The recursion takes the items within 1e-6 of 0 or 1 first (``_EXTREME``): many items sharing
such a probability would otherwise round every product with it the same way, and the error
would grow with their number (2.0e-14 at 512 items sharing p = 1 − 2⁻⁵³). :func:`prefix_pmfs`
cannot reorder (its prefixes are the list's own; uncompensated it drifted by 5.0e-14 on the same
list), so it runs the recursion *compensated*: each entry is carried as a rounded value and its
rounding error, every product and sum split exactly (Dekker's product and Fast2Sum, Knuth's
sum) and the errors propagated by the same recursion, as if in twice the precision. Each entry
of every prefix is then the exact PMF's correctly rounded value or next to it (on the lists
sharing an extreme probability of the tests, within 1e-322 of the 60-digit PMF). It costs about
five times the plain recursion at 1,000 items (0.93 ms against 0.18 ms wall, the 8 MB result
included) and twice at 3,000, where writing the result dominates.

The recursion runs as a small numba-compiled loop: a per-item Python loop costs microseconds per
step, which at n ≤ 1,000 would be slower than compiled peers such as fast-poibin. numba is
imported at the first recursion (tree leaves included), not with this module; scipy is not
used.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np

from fuzzytruth._resampling import MEMORY_BUDGET, block_rows

__all__ = ["binomial_pmf", "pmf", "prefix_pmfs"]

Method = Literal["auto", "recursion", "tree", "grouped"]
_METHODS = ("auto", "recursion", "tree", "grouped")

_LEAF = 512  # items per leaf of the product tree (exact recursion below, FFT products above)
_ITEMS_PER_GROUP = 1250  # "auto" groups equal probabilities when each group is this large
_DIRECT = 128  # grouped products: exact convolution while the shorter factor is this short
_TREE_BYTES = 64  # working memory of the FFT tree per (list, item), in bytes
_EXTREME = 1e-6
"""The recursion takes the items whose probability lies within this of 0 or 1 (but not 0 or
1) first. Many items sharing such a probability, taken while the mass is spread, round every
product with it the same way, and the error grows with their number; taken first, while the
mass sits in one entry near 1, they round almost exactly (the PMF does not depend on the
order). Measured with 511 items sharing p and one at 0.4375 or 0.3 taken first, the largest
error against the exact PMF (rational arithmetic): 2.0e-14 at p = 1 − 2⁻⁵³ and 1 − 1e-12,
1.1e-14 at 2⁻⁵³, 3.8e-15 at 1 − 1e-9, 5.6e-16 to 7.8e-16 at 1e-6 and 1 − 1e-6, at most
2.8e-17 at 0.3; with the extremes first, at most 1.1e-16 on every one of these."""


def _check(p: np.ndarray | list, name: str = "p") -> np.ndarray:
    arr = np.asarray(p, dtype=float)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (one list) or 2-D (lists × items); got {arr.ndim}-D")
    # NaN fails both comparisons, so two reductions check finiteness and range together
    if arr.size and not (arr.min() >= 0 and arr.max() <= 1):
        bad = arr[~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))].ravel()[0]
        raise ValueError(f"{name} must hold probabilities within [0, 1]; got {float(bad)!r}")
    return arr


def pmf(p: np.ndarray | list, *, method: Method = "auto") -> np.ndarray:
    """PMF of the number of successes, for one list or many lists at once.

    Parameters
    ----------
    p : array_like
        ``(n,)`` success probabilities of one list, or ``(m, n)`` for m lists; pad shorter
        lists with 0 (an item with p = 0 leaves the distribution unchanged).
    method : {"auto", "recursion", "tree", "grouped"}
        Algorithm (see the module docstring). All agree to within 1e-15 in absolute terms;
        ``"recursion"`` also keeps the far tails' relative accuracy at any n.

    Returns
    -------
    numpy.ndarray
        ``(n + 1,)`` or ``(m, n + 1)``: entry k is P(K = k).

    Examples
    --------
    >>> pmf([0.1, 0.2, 0.2]).round(6).tolist()
    [0.576, 0.352, 0.068, 0.004]
    >>> pmf([[0.5, 0.5], [1.0, 0.0]]).tolist()
    [[0.25, 0.5, 0.25], [0.0, 1.0, 0.0]]
    >>> round(float(pmf(np.full(10_000, 0.5))[5_000]), 15)  # Binomial(10⁴, 1/2) at its mode
    0.007978646139382
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    arr = _check(p)
    single = arr.ndim == 1
    batch = arr[None, :] if single else arr
    if method == "auto":
        if batch.shape[1] <= _LEAF:
            method = "recursion"
        else:
            method = "grouped" if _few_distinct(batch) else "tree"
    if method == "recursion":
        out = _recursion(batch)
    elif method == "tree":
        out = _tree(batch)
    elif len(batch):
        out = np.stack([_grouped(row) for row in batch])
    else:
        out = np.zeros((0, batch.shape[1] + 1))
    return out[0] if single else out


def prefix_pmfs(p: np.ndarray | list) -> np.ndarray:
    """PMFs of the successes among the first i items, for every cutoff i = 1..n, in one pass.

    Parameters
    ----------
    p : array_like
        ``(n,)`` probabilities in rank order, or ``(m, n)`` for m lists.

    Returns
    -------
    numpy.ndarray
        ``(n, n + 1)`` (or ``(m, n, n + 1)``): row i − 1 is the PMF at cutoff i; entries past
        k = i are 0. O(n²) work in total, n vectorised steps; the recursion compensated, so each
        entry is within about one rounding of the exact PMF (module docstring).

    Examples
    --------
    >>> prefix_pmfs([0.5, 1.0]).tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    """
    arr = _check(p)
    single = arr.ndim == 1
    batch = arr[None, :] if single else arr
    out = np.zeros((batch.shape[0], batch.shape[1], batch.shape[1] + 1))
    _prefix_rows(np.ascontiguousarray(batch), out)
    return out[0] if single else out


def _recursion_rows_py(batch: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """In place: ``out[r]`` (zeros, length n + 1) <- PMF of row r of ``batch`` (m, n); the
    items within ``_EXTREME`` of 0 or 1 (but not 0 or 1) are taken first."""
    m, n = batch.shape
    order = np.empty(n, dtype=np.int64)
    extreme = np.empty(n, dtype=np.int64)
    for r in range(m):
        # the order of the items: the extreme ones first, each group as given (branch-free)
        for j in range(n):
            p = batch[r, j]
            extreme[j] = ((0.0 < p) & (p < _EXTREME)) | ((1.0 - _EXTREME < p) & (p < 1.0))
        front, back = 0, extreme.sum()
        for j in range(n):
            e = extreme[j]
            order[e * front + (1 - e) * back] = j
            front += e
            back += 1 - e
        state = out[r]
        state[0] = 1.0
        for i in range(n):
            p = batch[r, order[i]]
            q = 1.0 - p
            for k in range(i + 1, 0, -1):
                state[k] = state[k] * q + state[k - 1] * p
            state[0] *= q


_SPLIT = 134217729.0
"""2²⁷ + 1: Dekker's constant, which splits a double into two halves of 26 bits whose products
are exact."""


def _prefix_rows_py(batch: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """In place: ``out[r, i]`` (zeros) <- PMF of the first i + 1 items of row r, compensated.

    The recursion keeps each entry as a sum hi + lo: every product and sum of a step is split
    into its rounded value and its exact rounding error (Dekker's product, Knuth's sum), and
    the errors, with 1 − p's own (1 − p = q + dq exactly), are carried by the same recursion in
    ``lo``. The result is as if computed in twice the precision and rounded once. A prefix is
    the list's own first items, so the items cannot be reordered as in the plain recursion;
    without compensation, many items sharing a probability next to 0 or 1 round every product
    the same way and drift (5.0e-14 at 512 items sharing p = 1 − 2⁻⁵³).
    """
    m, n = batch.shape
    hi = np.zeros(n + 1)
    lo = np.zeros(n + 1)
    for r in range(m):
        hi[:] = 0.0
        lo[:] = 0.0
        hi[0] = 1.0
        for i in range(n):
            p = batch[r, i]
            q = 1.0 - p
            dq = (1.0 - q) - p  # exact: 1 − p = q + dq (Dekker's Fast2Sum, as |1| >= |p|)
            t = _SPLIT * p
            p_hi = t - (t - p)
            p_lo = p - p_hi
            t = _SPLIT * q
            q_hi = t - (t - q)
            q_lo = q - q_hi
            row = out[r, i]
            # downwards, so that hi[k - 1] and lo[k - 1] still hold the previous prefix
            for k in range(i + 1, -1, -1):
                x = hi[k]
                t = _SPLIT * x
                x_hi = t - (t - x)
                x_lo = x - x_hi
                a = x * q  # the mass that stays at k, and its rounding error
                a_err = ((x_hi * q_hi - a) + x_hi * q_lo + x_lo * q_hi) + x_lo * q_lo
                if k > 0:
                    y = hi[k - 1]
                    t = _SPLIT * y
                    y_hi = t - (t - y)
                    y_lo = y - y_hi
                    b = y * p  # the mass that moves up from k − 1
                    b_err = ((y_hi * p_hi - b) + y_hi * p_lo + y_lo * p_hi) + y_lo * p_lo
                    total = a + b
                    virtual = total - a
                    total_err = (a - (total - virtual)) + (b - virtual)
                    carried = total_err + a_err + b_err + x * dq + lo[k] * q + lo[k - 1] * p
                else:
                    total = a
                    carried = a_err + x * dq + lo[k] * q
                hi[k] = total
                lo[k] = carried
                row[k] = total + carried


@functools.cache
def _compiled() -> tuple:
    """The two recursions compiled by numba, at their first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return jit(_recursion_rows_py), jit(_prefix_rows_py)


def _recursion_rows(batch: np.ndarray, out: np.ndarray) -> None:
    _compiled()[0](batch, out)


def _prefix_rows(batch: np.ndarray, out: np.ndarray) -> None:
    _compiled()[1](batch, out)


def _recursion(batch: np.ndarray) -> np.ndarray:
    """The recursion's PMFs, each divided by its sum.

    1 − p is rounded, the same way for equal p: the unnormalised PMF of n items with
    p = 0.3 has mass (1 + δ)^n, δ ≈ 8e-17, an absolute error of 1.5e-15 at the mode for
    n = 1,000 (and 6e-14 for n = 10⁶). Dividing by the sum leaves the PMF of probabilities
    perturbed by at most ε/2 relative to p, whose effect is far smaller.
    """
    out = np.zeros((batch.shape[0], batch.shape[1] + 1))
    _recursion_rows(np.ascontiguousarray(batch), out)
    out /= out.sum(axis=1, keepdims=True)
    return out


def _tree(batch: np.ndarray) -> np.ndarray:
    """Exact leaves of at most ``_LEAF`` items, then FFT products, over row blocks sized from
    the memory budget."""
    m, n = batch.shape
    if n <= _LEAF:
        return _recursion(batch)
    rows = block_rows(n, MEMORY_BUDGET, bytes_per_unit=_TREE_BYTES)
    out = np.empty((m, n + 1))
    for start in range(0, m, rows):
        out[start : start + rows] = _tree_block(batch[start : start + rows])
    return out


def _tree_block(batch: np.ndarray) -> np.ndarray:
    m, n = batch.shape
    n_leaves = 1 << (-(-n // _LEAF) - 1).bit_length()  # a power of two: every level pairs up
    leaf = -(-n // n_leaves)
    padded = np.zeros((m, n_leaves * leaf))  # padding items have p = 0: they change nothing
    padded[:, :n] = batch
    blocks = _recursion(padded.reshape(m * n_leaves, leaf)).reshape(m, n_leaves, leaf + 1)
    degree = leaf
    while blocks.shape[1] > 1:
        # the product has degree 2·degree, and at most n: beyond n its true coefficients are 0,
        # so a cyclic transform of n + 1 points does not alias
        length = min(2 * degree, n) + 1
        size = _fft_length(length)
        spectra = np.fft.rfft(blocks, size)
        blocks = np.fft.irfft(spectra[:, 0::2] * spectra[:, 1::2], size)[:, :, :length]
        degree = length - 1
    out = blocks[:, 0]
    np.maximum(out, 0.0, out=out)  # rounding noise below 0 in the far tails
    return out


@functools.cache
def _fft_length(n: int) -> int:
    """The smallest 2^a·3^b·5^c ≥ n: a length pocketfft transforms at full speed."""
    best = 1 << (n - 1).bit_length()
    power5 = 1
    while power5 < best:
        power35 = power5
        while power35 < best:
            size = power35
            while size < n:
                size *= 2
            best = min(best, size)
            power35 *= 3
        power5 *= 5
    return best


def _few_distinct(batch: np.ndarray) -> bool:
    """One list with at most one distinct probability strictly between 0 and 1 per
    ``_ITEMS_PER_GROUP`` items (0 and 1 cost nothing to group). A sample is looked at first,
    so that a list of many distinct values is not sorted for nothing."""
    if batch.shape[0] != 1:
        return False
    row = batch[0]
    limit = len(row) // _ITEMS_PER_GROUP
    if len(np.unique(row[: 8 * (limit + 2)])) > limit + 2:
        return False
    values = np.unique(row)
    return np.count_nonzero((values > 0.0) & (values < 1.0)) <= limit


def _grouped(p: np.ndarray) -> np.ndarray:
    """PMF of one list as the product of one binomial per distinct probability."""
    n = len(p)
    values, counts = np.unique(p, return_counts=True)
    certain = int(counts[values == 1.0].sum())  # items with p = 1 shift the PMF
    inner = (values > 0.0) & (values < 1.0)  # items with p = 0 change nothing
    groups = zip(values[inner], counts[inner], strict=True)
    factors = [binomial_pmf(int(count), float(value)) for value, count in groups]
    product = _multiply(factors)
    np.maximum(product, 0.0, out=product)
    full = np.zeros(n + 1)
    full[certain : certain + len(product)] = product
    return full


def binomial_pmf(count: int, p: float) -> np.ndarray:
    """Binomial(count, p) PMF, 0 < p < 1, from its mode outwards by ratios of terms.

    Every ratio is ≤ 1 walking away from the mode, so the running products only shrink (no
    overflow, at any p: scipy's ``binom.pmf`` raises OverflowError at p = 2.2e-308) and the
    far tails underflow to 0 gracefully; normalising by the sum sets the mode's value. The
    relative error of the term j steps from the mode is about 3j·ε.

    Examples
    --------
    >>> binomial_pmf(3, 0.5).tolist()
    [0.125, 0.375, 0.375, 0.125]
    """
    odds = p / (1.0 - p)
    mode = min(count, int((count + 1) * p))
    out = np.empty(count + 1)
    out[mode] = 1.0
    up = np.arange(mode, count, dtype=float)  # P(k + 1) / P(k) = (count − k) / (k + 1) · odds
    out[mode + 1 :] = np.cumprod((count - up) * odds / (up + 1))
    down = np.arange(mode - 1, -1, -1, dtype=float)  # P(k) / P(k + 1)
    out[:mode] = np.cumprod((down + 1) / ((count - down) * odds))[::-1]
    return out / out.sum()


def _multiply(factors: list[np.ndarray]) -> np.ndarray:
    """Product of polynomials, the two shortest first: exactly (``numpy.convolve``) while the
    shorter factor has at most ``_DIRECT`` terms, by one real FFT product otherwise."""
    factors = sorted(factors, key=len)
    if not factors:
        return np.ones(1)
    while len(factors) > 1:
        a, b = factors[0], factors[1]
        if len(a) <= _DIRECT:
            product = np.convolve(a, b)
        else:
            length = len(a) + len(b) - 1
            size = _fft_length(length)
            product = np.fft.irfft(np.fft.rfft(a, size) * np.fft.rfft(b, size), size)[:length]
        factors = sorted([*factors[2:], product], key=len)
    return factors[0]
