"""Poisson-binomial engine against scipy, brute-force enumeration, extended-precision
references and its own laws."""

import functools
import itertools
import subprocess
import sys

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from fuzzytruth.uncertain import poibin

METHODS = ["recursion", "tree", "grouped", "auto"]
probs = arrays(np.float64, st.integers(0, 40), elements=st.floats(0, 1))


def brute_force(p):
    """P(K = k) by enumerating all 2^n outcomes."""
    out = np.zeros(len(p) + 1)
    for outcome in itertools.product((0, 1), repeat=len(p)):
        terms = [pi if o else 1 - pi for pi, o in zip(p, outcome, strict=True)]
        out[sum(outcome)] += np.prod(terms)
    return out


def exact_longdouble(p):
    """PMF by the recursion in extended precision (64-bit mantissa), as longdouble."""
    state = np.zeros(len(p) + 1, dtype=np.longdouble)
    state[0] = 1
    for i, pi in enumerate(np.asarray(p, dtype=np.longdouble)):
        state[1 : i + 2] = state[1 : i + 2] * (1 - pi) + state[: i + 1] * pi
        state[0] *= 1 - pi
    return state


def exact_mpmath(p, digits=50):
    """PMF in 50-digit arithmetic by the recursion: the reference for accuracy."""
    mpmath.mp.dps = digits
    state = [mpmath.mpf(1)] + [mpmath.mpf(0)] * len(p)
    for i, pi in enumerate(p):
        pi = mpmath.mpf(float(pi))
        for k in range(i + 1, 0, -1):
            state[k] = state[k] * (1 - pi) + state[k - 1] * pi
        state[0] *= 1 - pi
    return np.array([float(s) for s in state])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [1, 2, 7, 12])
def test_matches_brute_force(method, n):
    p = np.random.default_rng(n).random(n)
    np.testing.assert_allclose(poibin.pmf(p, method=method), brute_force(p), atol=1e-15)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [5, 64, 300, 1000])
def test_matches_scipy_poisson_binom(method, n):
    p = np.random.default_rng(n).random(n)
    expected = stats.poisson_binom.pmf(np.arange(n + 1), p)
    np.testing.assert_allclose(poibin.pmf(p, method=method), expected, atol=1e-13)


def test_accuracy_against_50_digit_reference():
    p = np.random.default_rng(7).random(400)
    reference = exact_mpmath(p)
    for method in ("recursion", "tree"):
        assert np.abs(poibin.pmf(p, method=method) - reference).max() <= 1e-16


def test_grouped_method_on_annotator_shares():
    # shares j/5 of 5 annotators: at most 6 distinct probabilities among 200 items
    rng = np.random.default_rng(3)
    p = rng.integers(0, 6, size=200) / 5
    reference = exact_mpmath(p)
    assert np.abs(poibin.pmf(p, method="grouped") - reference).max() <= 1e-16


def test_auto_groups_long_lists_of_shares_only():
    rng = np.random.default_rng(4)
    shares = rng.integers(0, 6, size=5000) / 5  # above 4,096 items, few distinct values
    np.testing.assert_array_equal(poibin.pmf(shares), poibin.pmf(shares, method="grouped"))
    np.testing.assert_allclose(poibin.pmf(shares), poibin.pmf(shares, method="tree"), atol=1e-15)
    short = shares[:1000]  # below the break-even the tree is used
    np.testing.assert_array_equal(poibin.pmf(short), poibin.pmf(short, method="tree"))


def test_batch_equals_rows_and_padding_with_zero_is_neutral():
    rng = np.random.default_rng(1)
    batch = rng.random((30, 17))
    batch[5, 9:] = 0.0  # a shorter list padded with p = 0
    for method in ("recursion", "tree"):
        out = poibin.pmf(batch, method=method)
        for row, p in zip(out, batch, strict=True):
            np.testing.assert_allclose(row, poibin.pmf(p, method="recursion"), atol=1e-15)
    short = poibin.pmf(batch[5, :9])
    np.testing.assert_allclose(poibin.pmf(batch)[5, :10], short, atol=1e-15)
    assert np.all(poibin.pmf(batch)[5, 10:] == 0)


def test_prefix_pmfs_equal_pmfs_of_prefixes():
    p = np.random.default_rng(2).random(60)
    prefixes = poibin.prefix_pmfs(p)
    assert prefixes.shape == (60, 61)
    for i in (1, 2, 30, 60):
        np.testing.assert_allclose(prefixes[i - 1, : i + 1], poibin.pmf(p[:i]), atol=1e-15)
        assert np.all(prefixes[i - 1, i + 1 :] == 0)
    batch = np.random.default_rng(4).random((3, 20))
    many = poibin.prefix_pmfs(batch)
    for row in range(3):
        np.testing.assert_allclose(many[row], poibin.prefix_pmfs(batch[row]), atol=1e-15)


def test_degenerate_probabilities():
    assert poibin.pmf([]).tolist() == [1.0]
    assert poibin.pmf([1.0, 1.0, 0.0]).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert poibin.pmf(np.full(50, 0.5), method="grouped")[25] == pytest.approx(
        stats.binom.pmf(25, 50, 0.5), rel=1e-14
    )


# issue 23: scipy's binomial overflowed at a subnormal p and lost 3e-14 of P(0) at p = 1e-300
TINY = [np.full(2, 1.1125369292536007e-308), np.full(2, 1e-300), np.full(3, 5e-324)]


@given(probs, st.sampled_from(METHODS))
@example(TINY[0], "grouped")
@example(TINY[1], "grouped")
@settings(max_examples=150, deadline=None)
def test_pmf_laws(p, method):
    out = poibin.pmf(p, method=method)
    assert out.shape == (p.size + 1,)
    assert np.all(out >= 0)  # never negative
    assert abs(out.sum() - 1.0) <= 1e-12  # sums to 1
    assert out @ np.arange(p.size + 1) == pytest.approx(p.sum(), abs=1e-10)  # E[k] = sum p_i


@pytest.mark.parametrize(
    ("p", "message"),
    [
        ([0.2, 1.5], r"p must hold probabilities within \[0, 1\]; got 1.5"),
        ([0.2, np.nan], r"p must hold probabilities within \[0, 1\]; got nan"),
        ([-0.1], r"got -0.1"),
        (np.zeros((2, 2, 2)), "p must be 1-D .* or 2-D .*; got 3-D"),
    ],
)
def test_bad_probabilities(p, message):
    with pytest.raises(ValueError, match=message):
        poibin.pmf(p)


def test_bad_method():
    with pytest.raises(ValueError, match=r"method must be one of .*; got 'fft'"):
        poibin.pmf([0.5], method="fft")


@given(probs)
@example(TINY[0])
@example(TINY[1])
@example(np.array([1.0, 0.3, 0.3, 0.0, 1e-300]))
@settings(max_examples=100, deadline=None)
def test_methods_agree_with_the_recursion(p):
    expected = poibin.pmf(p, method="recursion")
    for method in ("tree", "grouped", "auto"):
        np.testing.assert_allclose(poibin.pmf(p, method=method), expected, rtol=0, atol=1e-15)


NEAR = np.nextafter(1.0, 0.0)
EXTREMES = [2.0**-53, 1e-12, 1e-9, 1 - 1e-9, 1 - 1e-12, NEAR]


@functools.cache
def exact_head_and_binomial(head: float, value: float, n: int) -> np.ndarray:
    """PMF of one item at ``head`` and n - 1 at ``value``, by the closed form in 60 digits
    (the binomial's terms C(n - 1, j) value^j (1 - value)^(n - 1 - j), 1 - value exact)."""
    mpmath.mp.dps = 60
    o, h = mpmath.mpf(value), mpmath.mpf(head)
    q = 1 - o
    binom = [mpmath.binomial(n - 1, j) * o**j * q ** (n - 1 - j) for j in range(n)]
    return np.array([float((1 - h) * (binom[k] if k < n else 0) + h * (binom[k - 1] if k else 0))
                     for k in range(n + 1)])


@pytest.mark.parametrize("n", [28, 512, 2_000])
@pytest.mark.parametrize("value", EXTREMES)
def test_items_sharing_an_extreme_probability_do_not_drift(n, value):
    """Found by the agreement property (2026-11-24): with the items sharing p = 1 - 2**-53
    taken after the one at 0.4375, every product with p rounded the same way and the
    recursion (the default up to 512 items, and the tree's leaves) drifted by 1.1e-15 at 28
    items, 2.0e-14 at 512 (1.1e-14 at p = 2**-53). The recursion now takes such items first;
    every method is within 2.3e-16 of the exact PMF, wherever the other item stands."""
    for head_first in (True, False):
        p = np.array([0.4375] + [value] * (n - 1))
        if not head_first:
            p = p[::-1].copy()
        exact = exact_head_and_binomial(0.4375, value, n)
        for method in METHODS:
            error = np.abs(poibin.pmf(p, method=method) - exact).max()
            assert error <= 2.3e-16, (method, head_first, error)


@pytest.mark.parametrize("value", EXTREMES)
def test_prefix_pmfs_do_not_drift_on_items_sharing_an_extreme_probability(value):
    """A prefix is the list's own first items, so prefix_pmfs cannot take the extreme items
    first as the recursion does; uncompensated, the full list's row drifted by 5.0e-14 (512
    items sharing p = 1 - 2**-53 after one at 0.4375; 2.5e-14 at p = 2**-53). Compensated, every
    prefix is the 60-digit PMF rounded, to within an ulp."""
    p = np.array([0.4375] + [value] * 511)
    prefixes = poibin.prefix_pmfs(p)
    for n in (2, 28, 300, 512):
        exact = exact_head_and_binomial(0.4375, value, n)
        np.testing.assert_allclose(prefixes[n - 1, : n + 1], exact, rtol=2.3e-16, atol=1e-300)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([*EXTREMES, 0.0, 1.0]), st.floats(0, 1)), min_size=1,
                max_size=40))
def test_every_prefix_is_the_exact_pmf_to_an_ulp(p):
    """Relative accuracy in every entry, far tails included: each prefix's PMF against the
    50-digit recursion, for lists of ordinary, extreme, 0 and 1 probabilities in any order."""
    p = np.array(p)
    prefixes = poibin.prefix_pmfs(p)
    for i in range(1, p.size + 1):
        np.testing.assert_allclose(prefixes[i - 1, : i + 1], exact_mpmath(p[:i]), rtol=2.3e-16,
                                   atol=1e-300)
        assert not prefixes[i - 1, i + 1 :].any()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(EXTREMES), st.integers(1, 60)), min_size=1,
                max_size=3),
       st.lists(st.floats(0.05, 0.95), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_lists_with_repeated_extremes_match_50_digits(groups, heads, shuffle):
    """Repeated extreme probabilities and a few ordinary ones, in any order: the default
    within 1e-15 of the 50-digit recursion."""
    p = [v for v, c in groups for _ in range(c)] + heads
    shuffle.shuffle(p)
    p = np.array(p)
    np.testing.assert_allclose(poibin.pmf(p), exact_mpmath(p), rtol=0, atol=1e-15)


@pytest.mark.parametrize("p", TINY, ids=["subnormal", "1e-300", "smallest subnormal"])
@pytest.mark.parametrize("method", METHODS)
def test_tiny_probabilities_exactly(p, method):
    # hand derivation: 1 - p rounds to 1, so P(0) = 1, P(1) = n p exactly, the rest underflows
    n, value = len(p), p[0]
    expected = np.zeros(n + 1)
    expected[0], expected[1] = 1.0, n * value
    np.testing.assert_array_equal(poibin.pmf(p, method=method), expected)


@pytest.mark.parametrize(
    ("count", "value"), [(50, 0.5), (1000, 0.3), (1000, 1e-5), (300, 1 - 1e-9), (7, 1 - 2**-53)]
)
@pytest.mark.parametrize("method", ["grouped", "auto"])
def test_binomial_groups_against_50_digit_binomial(count, value, method):
    mpmath.mp.dps = 50
    v = mpmath.mpf(value)
    exact = [mpmath.binomial(count, k) * v**k * (1 - v) ** (count - k) for k in range(count + 1)]
    exact = np.array([float(x) for x in exact])
    out = poibin.pmf(np.full(count, value), method=method)
    assert np.abs(out - exact).max() <= max(1e-16, 2 * np.spacing(exact.max()))
    if method == "auto" and count > 512:
        return  # auto multiplies 1,000 items by FFT (too few per group to group them)
    # the ratios from the mode keep relative accuracy in the tails (about 3j·ε, j steps away)
    tail = exact > 1e-300
    assert (np.abs(out - exact)[tail] / exact[tail]).max() <= 1e-12


def test_grouped_certain_and_impossible_items():
    # items with p = 1 shift the PMF, items with p = 0 change nothing (hand derivation)
    out = poibin.pmf([1.0, 0.5, 0.0, 1.0, 0.5, 0.0], method="grouped")
    assert out.tolist() == [0.0, 0.0, 0.25, 0.5, 0.25, 0.0, 0.0]


SHAPES = {
    "uniform": lambda rng, n: rng.random(n),
    "near 0": lambda rng, n: 10.0 ** rng.uniform(-8, -1, n),
    "near 1": lambda rng, n: 1 - 10.0 ** rng.uniform(-8, -1, n),
    "with 0 and 1": lambda rng, n: np.where(
        rng.random(n) < 0.3, rng.integers(0, 2, n), rng.random(n)
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["tree", "auto"])
def test_fft_tree_against_extended_precision(shape, method):
    # 3,000 items: 8 exact leaves of 375, then three levels of FFT products
    p = SHAPES[shape](np.random.default_rng(len(shape)), 3000)
    exact = exact_longdouble(p)
    out = poibin.pmf(p, method=method)
    assert np.all(out >= 0)
    assert float(np.abs(out.astype(np.longdouble) - exact).max()) <= 1e-15
    # what the FFT costs: an absolute, not a relative error; P(K = n) is far below its noise
    assert abs(float(out.sum()) - 1.0) <= 1e-13


def test_recursion_keeps_relative_accuracy_in_far_tails():
    p = np.random.default_rng(8).random(300)
    exact = exact_longdouble(p)
    out = poibin.pmf(p, method="recursion")
    assert exact[-1] < 1e-100  # P(K = 300): the far tail
    relative = np.abs(out.astype(np.longdouble) - exact) / exact
    assert float(relative.max()) <= 1e-12


def test_fft_tree_batches_and_memory_blocks_give_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(12)
    batch = rng.random((5, 1500))
    batch[2, 700:] = 0.0  # a shorter list padded with p = 0
    whole = poibin.pmf(batch, method="tree")
    for row, p in zip(whole, batch, strict=True):
        np.testing.assert_allclose(row, poibin.pmf(p, method="tree"), rtol=0, atol=1e-16)
    np.testing.assert_allclose(whole[2, :701], poibin.pmf(batch[2, :700]), rtol=0, atol=1e-16)
    assert np.all(whole[2, 701:] < 1e-17)  # FFT noise where the exact value is 0
    monkeypatch.setattr(poibin, "MEMORY_BUDGET", 1500 * poibin._TREE_BYTES * 2)  # 2 rows a block
    np.testing.assert_array_equal(poibin.pmf(batch, method="tree"), whole)


def test_fft_lengths_are_5_smooth_and_minimal():
    smooth = [m for m in range(1, 2001) if _is_5_smooth(m)]
    for n in range(1, 2001):
        assert poibin._fft_length(n) == min(m for m in smooth if m >= n)


def _is_5_smooth(m):
    for factor in (2, 3, 5):
        while m % factor == 0:
            m //= factor
    return m == 1


def test_importing_poibin_loads_neither_scipy_stats_nor_numba():
    # issue 24: numba loads at the first recursion; scipy.stats never (the grouped path has its
    # own binomials)
    probe = (
        "import sys; import fuzzytruth.uncertain.poibin as poibin; "
        "heavy = lambda: [m for m in ('scipy.stats', 'numba') if m in sys.modules]; "
        "print(heavy()); poibin.pmf([0.5] * 5000, method='grouped'); print(heavy()); "
        "poibin.pmf([0.5, 0.2]); print(heavy())"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == ["[]", "[]", "['numba']"]
