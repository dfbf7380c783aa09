"""Distribution: moments, quantiles, intervals, mixtures, sampling and errors."""

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import Distribution, DistributionBatch


def test_moments_by_hand():
    d = Distribution.from_pmf([0.0, 0.5, 1.0], [0.25, 0.5, 0.25])
    assert d.mean() == 0.5
    # var = 0.25*0.25 + 0 + 0.25*0.25 = 0.125
    assert d.var() == pytest.approx(0.125)
    assert d.std() == pytest.approx(np.sqrt(0.125))
    assert d.cdf(0.5) == 0.75 and d.sf(0.5) == 0.25
    assert d.probability_greater(0.5) == 0.25
    assert d.probability_greater(0.5, inclusive=True) == 0.75


def test_quantile_is_generalised_inverse_and_robust_to_rounding():
    d = Distribution.from_pmf([1, 2, 3], [0.1 + 0.2, 0.2, 0.5])  # 0.1 + 0.2 != 0.3 in floats
    assert d.quantile(0.3) == 1.0  # cdf(1) = 0.30000000000000004 reaches 0.3
    assert d.quantile(0.0) == 1.0 and d.quantile(1.0) == 3.0
    assert d.quantile(0.31) == 2.0
    # equal-tailed 90%: 5% and 95% quantiles
    assert d.interval(confidence_level=0.9) == (1.0, 3.0)
    with pytest.raises(ValueError, match=r"q must be within \[0, 1\]; got 1.5"):
        d.quantile(1.5)
    with pytest.raises(ValueError, match=r"confidence_level must be a number strictly between 0 "
                       r"and 1; got 95"):
        d.interval(confidence_level=95)


def test_point_mass_and_undefined():
    p = Distribution.point_mass(0.25)
    assert (
        p.method == "point" and p.mean() == 0.25 and p.std() == 0 and p.interval() == (0.25, 0.25)
    )
    u = Distribution.undefined()
    assert u.p_undefined == 1 and np.isnan(u.mean()) and np.isnan(u.quantile(0.5))
    assert "undefined" in repr(u)


def test_from_pmf_merges_sorts_and_renormalises_defined_mass():
    d = Distribution.from_pmf([1.0, 0.0, 1.0, 0.5], [0.2, 0.3, 0.2, 0.0], p_undefined=0.3)
    assert d.support.tolist() == [0.0, 1.0]
    np.testing.assert_allclose(d.probabilities, [3 / 7, 4 / 7])
    assert d.p_undefined == 0.3


def test_mixture_combines_values_and_undefinedness():
    a = Distribution.from_pmf([0, 1], [0.5, 0.5])
    b = Distribution.from_pmf([1, 2], [0.6, 0.4], p_undefined=0.5)
    m = Distribution.mixture([a, b], [1, 1])
    # defined mass: a 0.5*{0: .5, 1: .5}; b 0.5*0.5*{1: .6, 2: .4}; undefined 0.25
    assert m.p_undefined == 0.25
    np.testing.assert_allclose(m.probabilities * 0.75, [0.25, 0.25 + 0.15, 0.1])
    with pytest.raises(ValueError, match="need one weight per component"):
        Distribution.mixture([a], [1, 2])
    with pytest.raises(ValueError, match="weights must be finite and >= 0 with a positive sum"):
        Distribution.mixture([a, b], [0, 0])


def test_from_samples_is_monte_carlo_with_standard_error():
    d = Distribution.from_samples([0.0, 1.0, 1.0, 1.0, np.nan])
    assert d.method == "monte_carlo" and d.n_samples == 5 and d.p_undefined == 0.2
    assert d.mean() == 0.75
    # the sample standard deviation of the 4 defined draws over sqrt(4), as statistics does
    assert d.mc_standard_error() == pytest.approx(statistics.stdev([0.0, 1.0, 1.0, 1.0]) / 2)
    assert Distribution.point_mass(1).mc_standard_error() == 0.0
    # one defined draw estimates no spread: the error is unknown, not 0 (which reads as exact)
    assert np.isnan(Distribution.from_samples([0.3]).mc_standard_error())
    assert np.isnan(Distribution.from_samples([0.3, np.nan]).mc_standard_error())
    with pytest.raises(ValueError, match="samples must not be empty"):
        Distribution.from_samples([])


def test_sampling_is_seeded():
    d = Distribution.from_pmf([0, 1, 2], [0.2, 0.3, 0.5], p_undefined=0.1)
    a, b = d.sample(1000, rng=42), d.sample(1000, rng=42)
    np.testing.assert_array_equal(a, b)
    assert np.isnan(a).mean() == pytest.approx(0.1, abs=0.04)
    assert d.sample((2, 3), rng=1).shape == (2, 3)


def test_one_number_is_asked_for_and_anything_else_is_named():
    # quantile([0.1, 0.9]) and probability_greater(another_distribution) were raw TypeErrors,
    # cdf(array) numpy's broadcast error, cdf(nan) 0.0, sample(-1) "negative dimensions"
    d = Distribution.from_pmf([0, 1, 2], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"^q must be one real number; got an array of "
                       r"shape \(2,\)$"):
        d.quantile([0.1, 0.9])
    with pytest.raises(ValueError, match=r"^x must be one real number; got an array"):
        d.cdf(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match=r"^threshold must be one real number; got a "
                       r"Distribution$"):
        d.probability_greater(d)
    with pytest.raises(ValueError, match=r"^x must be one real number; got '1'$"):
        d.sf("1")
    assert np.isnan(d.cdf(np.nan)) and np.isnan(d.sf(np.nan))
    assert d.cdf(np.float32(1.5)) == pytest.approx(0.5) and d.cdf(np.inf) == 1.0
    assert d.probability_greater(np.int64(1), inclusive=True) == pytest.approx(0.8)
    with pytest.raises(ValueError, match=r"^size must be an int >= 0 or a tuple of them; "
                       r"got -1$"):
        d.sample(-1, rng=0)
    assert d.sample(np.int64(3), rng=0).shape == (3,)


def test_frozen_and_read_only():
    d = Distribution.point_mass(1.0)
    with pytest.raises(AttributeError):
        d.method = "exact"
    with pytest.raises(ValueError):
        d.support[0] = 2.0


def test_summary_and_frame():
    d = Distribution.from_pmf([0, 1], [0.5, 0.5])
    s = d.summary(0.9)
    assert s["ci_low"] == 0 and s["ci_high"] == 1 and s["confidence_level"] == 0.9
    assert d.to_frame().columns.tolist() == ["value", "probability"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"support": [0, 1], "probabilities": [1.0]}, "same length"),
        ({"support": [1, 0], "probabilities": [0.5, 0.5]}, "strictly increasing"),
        ({"support": [0, 1], "probabilities": [0.5, 0.6]}, "must sum to 1"),
        ({"support": [0, 1], "probabilities": [-0.5, 1.5]}, "finite and >= 0"),
        ({"support": [0], "probabilities": [1.0], "method": "guess"}, "method must be one of"),
        ({"support": [0], "probabilities": [1.0], "method": "monte_carlo"}, "n_samples >= 1"),
        ({"support": [0], "probabilities": [1.0], "p_undefined": 2.0}, r"within \[0, 1\]"),
        ({"support": [], "probabilities": []}, "empty support needs p_undefined = 1"),
    ],
)
def test_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Distribution(**kwargs)


@given(
    st.lists(st.tuples(st.floats(-5, 5), st.floats(0.001, 1)), min_size=1, max_size=20),
    st.floats(0.01, 0.99),
)
@settings(max_examples=100, deadline=None)
def test_laws(pairs, level):
    values, weights = zip(*pairs, strict=True)
    w = np.array(weights) / np.sum(weights)
    d = Distribution.from_pmf(values, w)
    assert d.probabilities.sum() == pytest.approx(1.0)
    low, high = d.interval(level)
    assert d.support[0] <= low <= high <= d.support[-1]
    # the equal-tailed interval of a discrete law covers at least the confidence level
    covered = d.probabilities[(d.support >= low) & (d.support <= high)].sum()
    assert covered >= level - 1e-9
    assert d.support[0] - 1e-9 <= d.mean() <= d.support[-1] + 1e-9
    assert d.cdf(d.quantile(0.5)) >= 0.5 - 1e-9



@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-10, 10), st.floats(0.01, 1.0)), min_size=1, max_size=8),
    st.one_of(st.none(), st.tuples(st.floats(1e100, 1e200), st.floats(0.01, 1.0))),
    st.floats(0.0, 0.9),
)
def test_a_batch_row_and_its_distribution_give_one_mean_and_one_spread(atoms, huge, undefined):
    """Two implementations of the moments (DistributionBatch over rows, Distribution for one):
    the same numbers within rounding, also with a value h of mass c / h (recall 1/p at mass p
    under recall_form="expected_size"), whose variance about c * h is a float but whose
    square overflows."""
    from fuzzytruth.uncertain.batch import DistributionBatch

    pairs = list(atoms) + ([] if huge is None else [(huge[0], huge[1] / huge[0])])
    values = np.array([[v for v, _ in pairs]])
    masses = np.array([[m for _, m in pairs]])
    masses *= (1 - undefined) / masses.sum()
    batch = DistributionBatch(values, masses, np.array([undefined]))
    single = batch.distribution(0)
    assert batch.mean()[0] == pytest.approx(single.mean(), rel=1e-9, abs=1e-12)
    assert np.isfinite(batch.std()[0]) and np.isfinite(single.std())
    assert batch.std()[0] == pytest.approx(single.std(), rel=1e-6, abs=1e-9)


def test_a_batch_asks_for_one_number_and_an_int_row_too():
    # quantile([0.1]) was a raw TypeError, distribution(1.0) numpy's IndexError
    batch = DistributionBatch.from_samples(np.arange(12.0).reshape(4, 3))
    with pytest.raises(ValueError, match=r"^q must be one real number; got an array of shape "
                       r"\(1,\)$"):
        batch.quantile([0.1])
    for row in (1.0, True, 3):
        with pytest.raises(ValueError, match=rf"^row must be an int within \[0, 3\); got {row}$"):
            batch.distribution(row)
    assert batch.distribution(np.int64(2)).mean() == pytest.approx(6.5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=1, max_size=8, unique=True),
       st.integers(-1000, 1000))
def test_moments_scale_exactly_by_powers_of_two_up_to_the_largest_float(values, power):
    """Law: scaling every value by 2**j scales the mean and the standard deviation by 2**j,
    bit for bit, in each implementation, while the values stay normal floats (j from -1000
    to 1000). Before the moments were scaled by powers of two (exact), values of 2**600 gave a
    variance and a standard deviation of inf (a batch: NaN, inf - inf), behind a
    RuntimeWarning."""
    import warnings

    support = np.sort(np.asarray(values))
    probs = np.linspace(1.0, 2.0, support.size)
    probs /= probs.sum()
    scaled = np.ldexp(support, power)
    if not (np.isfinite(scaled).all()
            and (np.abs(scaled[support != 0]) >= np.finfo(float).tiny).all()):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for build in (lambda v: Distribution(v, probs),
                      lambda v: DistributionBatch(v[None, :], probs[None, :], [0.0])):
            base, big = build(support), build(scaled)
            assert np.ravel(big.std())[0] == np.ldexp(np.ravel(base.std())[0], power)
            assert np.ravel(big.mean())[0] == np.ldexp(np.ravel(base.mean())[0], power)
            assert not np.isnan(np.ravel(big.var())[0])


def test_the_variance_past_the_largest_float_is_inf_and_the_spread_finite():
    # values 0 and 1e200: variance 2.5e399 (no float), standard deviation 5e199
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        single = Distribution(np.array([0.0, 1e200]), np.array([0.5, 0.5]))
        batch = DistributionBatch(np.array([[0.0, 1e200]]), np.array([[0.5, 0.5]]), [0.0])
        assert single.var() == batch.var()[0] == np.inf
        assert single.std() == batch.std()[0] == 5e199
        assert single.mean() == batch.mean()[0] == 5e199


def test_draws_that_cannot_fit_in_memory_are_refused_naming_size():
    # numpy's MemoryError named an array shape (10**13 draws: 72.8 TiB), not the parameter
    d = Distribution(np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"^size=10000000000000 would keep .* of draws .* "
                                         r"more than the .* of memory; at most \d+ draws fit$"):
        d.sample(10**13, rng=0)
    with pytest.raises(ValueError, match=r"^size=10000000000000 would keep"):
        d.sample((10**7, 10**6), rng=0)
    assert d.sample((2, 3), rng=0).shape == (2, 3)
