"""Closed forms (fuzzytruth.uncertain.closed_form) against brute-force enumeration of worlds.

Reference: every 0/1 relevance outcome of the ranked and unretrieved documents is enumerated,
weighted by its probability, and scored by the *registered crisp kernel*, so the closed forms
are checked against the registry's own definitions (trec_eval conventions), not re-derivations.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fuzzytruth.measures import Measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.uncertain import closed_form
from fuzzytruth.uncertain.batch import DeferredBatch, DistributionBatch

probability = st.sampled_from([0.0, 0.2, 0.5, 0.75, 1.0]) | st.floats(0, 1)
ranked = st.lists(probability, min_size=1, max_size=5)
unretrieved = st.lists(probability, min_size=0, max_size=3)


def brute_force(p, rest, measure):
    """{value: unconditional mass}, undefined mass of a crisp measure over all worlds."""
    p, rest = np.asarray(p, float), np.asarray(rest, float)
    both = np.concatenate([p, rest])
    masses, undefined = {}, 0.0
    resolved = measure.resolve("trec")
    for outcome in itertools.product((0, 1), repeat=len(both)):
        o = np.array(outcome)
        weight = float(np.prod(np.where(o == 1, both, 1 - both)))
        if weight == 0:
            continue
        rg = RankedGains.from_lists(["q"], [list(o[: len(p)])], [list(o)])
        value = float(resolved.compute(rg)[0])
        if np.isnan(value):
            undefined += weight
        else:
            key = round(value, 12)
            masses[key] = masses.get(key, 0.0) + weight
    return masses, undefined


def batch_masses(batch: DistributionBatch, row: int = 0):
    out = {}
    for v, m in zip(batch.values[row], batch.masses[row], strict=True):
        if m > 0:
            out[round(float(v), 12)] = out.get(round(float(v), 12), 0.0) + float(m)
    return out, float(batch.p_undefined[row])


def assert_same(got, expected):
    (gm, gu), (em, eu) = got, expected
    assert gu == pytest.approx(eu, abs=1e-9)
    keys = {k for k, v in {**gm, **em}.items() if v > 1e-12}
    for k in keys:
        assert gm.get(k, 0.0) == pytest.approx(em.get(k, 0.0), abs=1e-9), k


@settings(max_examples=60, deadline=None)
@given(ranked, unretrieved, st.integers(1, 6))
def test_precision_success_rr_match_the_kernels(p, rest, k):
    arr = np.array([p])
    assert_same(batch_masses(closed_form.precision(arr, k=k)),
                brute_force(p, rest, Measure("P", k=k)))
    assert_same(batch_masses(closed_form.precision(arr)), brute_force(p, rest, Measure("P")))
    assert_same(batch_masses(closed_form.success(arr, k=k)),
                brute_force(p, rest, Measure("Success", k=k)))
    assert_same(batch_masses(closed_form.reciprocal_rank(arr, k=k)),
                brute_force(p, rest, Measure("RR", k=k)))
    assert_same(batch_masses(closed_form.reciprocal_rank(arr)),
                brute_force(p, rest, Measure("RR")))


@settings(max_examples=60, deadline=None)
@given(ranked, unretrieved, st.integers(1, 6), st.sampled_from([0.5, 1.0, 2.0]))
# found by hypothesis (2026-11-24): scipy's binom.pmf raised OverflowError at this p
@example(p=[0.0, 2.2250738585072014e-308, 2.2250738585072014e-308, 2.2250738585072014e-308],
         rest=[2.2250738585072014e-308, 2.2250738585072014e-308], k=1, beta=0.5)
def test_exact_recall_and_f_match_the_kernels(p, rest, k, beta):
    arr, rest_arr = np.array([p]), np.array([rest])
    for kk in (k, None):
        assert_same(
            batch_masses(closed_form.recall(arr, k=kk, rest_p=rest_arr)),
            brute_force(p, rest, Measure("R", k=kk) if kk else Measure("R")),
        )
        f = closed_form.f_measure(arr, k=kk, beta=beta, rest_p=rest_arr)
        measure = Measure("F", k=kk, beta=beta) if kk else Measure("F", beta=beta)
        masses, undefined = brute_force(p, rest, measure)
        assert_same(batch_masses(f), (masses, undefined))
        # F's mean without its joint law (the evaluation's route), against the enumeration
        mean, p_undefined = closed_form.f_measure_mean_of_laws(arr, kk, rest_arr, 0, beta=beta)
        assert p_undefined[0] == pytest.approx(undefined, abs=1e-12)
        if masses and sum(masses.values()) > 1e-9:
            expected = sum(v * m for v, m in masses.items()) / sum(masses.values())
            assert mean[0] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(ranked, st.lists(probability, min_size=0, max_size=6), st.integers(1, 6),
       st.integers(0, 2))
@example(p=[3.958125139384333e-09] * 2, rest=[], k=1, certain=0)  # found at 3x the examples
def test_recall_mean_without_the_law_is_the_brute_force_mean(p, rest, k, certain):
    # both routes to the mean without the joint law: the population bootstrap's (TP's law
    # and FN's generating function over grouped documents) and the evaluation's (the laws of
    # TP and FN and the table 1/(t + f))
    rest = [r for r in rest if r < 1]  # certain ones are counted in `certain`
    arr, rest_arr = np.array([p]), np.array([rest]).reshape(1, -1)
    for kk, route in itertools.product((k, None), ("grouped", "laws")):
        masses, undefined = brute_force(p, rest + [1.0] * certain,
                                        Measure("R", k=kk) if kk else Measure("R"))
        if route == "grouped":
            values = closed_form.fn_counts(arr, kk, rest_arr, certain)
            mean, p_undefined = closed_form.recall_mean(arr, kk, *values)
        else:
            mean, p_undefined = closed_form.recall_mean_of_laws(arr, kk, rest_arr, certain)
        assert p_undefined[0] == pytest.approx(undefined, abs=1e-12)
        if masses:  # the defined mass summed, not 1 - undefined: that loses the digits of
            # a tiny defined mass (two documents of probability 4e-9: 1 - 0.99999999208)
            expected = sum(v * m for v, m in masses.items()) / sum(masses.values())
            assert mean[0] == pytest.approx(expected, abs=1e-12)
            assert mean[0] <= 1 + 1e-15  # was 1 + 6.6e-9 there


rare = st.sampled_from([0.0, 1e-300, 1e-20, 1e-15, 1e-12, 3e-9]) | st.floats(0, 1)


def law_given_defined(p, rest, measure):
    """{value: probability given defined} by enumeration in exact rational arithmetic (the
    defined mass may be 1e-300: a float brute force cannot renormalise it)."""
    both = [Fraction(x) for x in list(p) + list(rest)]
    resolved = measure.resolve("trec")
    masses = {}
    for outcome in itertools.product((0, 1), repeat=len(both)):
        weight = Fraction(1)
        for o, x in zip(outcome, both, strict=True):
            weight *= x if o else 1 - x
        if weight == 0:
            continue
        o = np.array(outcome)
        rg = RankedGains.from_lists(["q"], [list(o[: len(p)])], [list(o)])
        value = float(resolved.compute(rg)[0])
        if not np.isnan(value):
            masses[round(value, 12)] = masses.get(round(value, 12), 0) + weight
    total = sum(masses.values())
    return {v: float(m / total) for v, m in masses.items()}


@settings(max_examples=80, deadline=None)
@given(st.lists(rare, min_size=1, max_size=4), st.lists(rare, min_size=0, max_size=3),
       st.integers(1, 4))
# every relevant document improbable: the FN law's atoms past 0 (1e-15 here) were dropped as
# below 1e-15, so recall given defined was 1 where it is 1/2
@example(p=[1e-15, 0.0], rest=[1e-15], k=2)
def test_laws_given_defined_keep_their_digits_when_every_document_is_improbable(p, rest, k):
    arr, rest_arr = np.array([p]), np.array([rest]).reshape(1, -1)
    for kk in (k, None):
        law = closed_form.recall(arr, k=kk, rest_p=rest_arr)
        f = closed_form.f_measure(arr, k=kk, rest_p=rest_arr)
        for batch, family in ((law, "R"), (f, "F")):
            expected = law_given_defined(p, rest, Measure(family, k=kk) if kk else
                                         Measure(family))
            if not expected:  # undefined in every world
                continue
            law_of = batch.distribution(0)
            got = {}  # values equal to 12 digits merged, as the oracle's
            for value, mass in zip(np.round(law_of.support, 12).tolist(),
                                   law_of.probabilities.tolist(), strict=True):
                got[value] = got.get(value, 0.0) + mass
            for value in got.keys() | expected.keys():  # an atom of 1e-600 underflows
                assert got.get(value, 0.0) == pytest.approx(expected.get(value, 0.0),
                                                            rel=1e-9, abs=1e-15), value
        if law_given_defined(p, rest, Measure("R")):
            # the mean given defined is the means-only route's (the population bootstrap's)
            uncertain = np.array([[r for r in rest if r < 1]]).reshape(1, -1)
            fn = closed_form.fn_counts(arr, kk, uncertain, sum(r == 1 for r in rest))
            mean, _ = closed_form.recall_mean(arr, kk, *fn)
            assert law.distribution(0).mean() == pytest.approx(mean[0], rel=1e-9)
            # and the evaluation's, against the rational enumeration itself
            mean, _ = closed_form.recall_mean_of_laws(arr, kk, rest_arr, 0)
            exact = law_given_defined(p, rest, Measure("R", k=kk) if kk else Measure("R"))
            assert mean[0] == pytest.approx(sum(v * m for v, m in exact.items()), rel=1e-9)


def test_means_only_input_defers_the_recall_law_and_keeps_its_mean():
    rng = np.random.default_rng(3)
    p = rng.choice([0.0, 0.05, 0.5, 0.95, 1.0], size=(40, 12))
    rest = rng.choice([0.0, 0.05, 0.5, 0.95], size=(40, 300))  # a wide FN law
    full = closed_form.recall_exact(closed_form.ExactInput.from_arrays(p, rest_p=rest),
                                    rel=1, k=10)
    ctx = closed_form.ExactInput.from_arrays(p, rest_p=rest)
    ctx.means_only = True
    lazy = closed_form.recall_exact(ctx, rel=1, k=10)
    np.testing.assert_allclose(lazy.mean(), full.mean(), rtol=0, atol=1e-13)
    np.testing.assert_allclose(lazy.filled_mean(0.0), full.fill_undefined(0.0).mean(),
                               rtol=0, atol=1e-13)
    np.testing.assert_array_equal(lazy.resolve().masses, full.masses)


def test_a_grouped_recall_reads_the_documents_outside_the_lists_only_for_its_law():
    """With the relevant documents outside the top k given grouped by probability (the
    population bootstrap's input), the exact recall's mean never builds the documents
    outside the lists (a replicates × components × items table per block: 1,000 replicates
    took 13.5 s instead of 3.5 s when they were built for every recall), nor its rows' bounds
    on their atoms; both come when the law is asked for, through take, mixture and
    concatenate, and are those of the input given whole. F needs them for its mean."""
    rng = np.random.default_rng(9)
    p = rng.choice([0.0, 0.25, 0.5, 1.0], size=(6, 5))
    rest = rng.choice([0.0, 0.25, 0.5], size=(6, 7))
    certain = rng.integers(0, 3, size=6)
    asked = []

    def outside(rel):
        asked.append(rel)
        return rest, certain

    def grouped(rel, k):
        return closed_form.fn_counts(p, k, rest, certain)

    ctx = closed_form.ExactInput(lambda rel: p, np.full(6, 5), outside, lambda: None,
                                 means_only=True, fn_counts=grouped)
    lazy = closed_form.recall_exact(ctx, rel=1, k=3)
    whole = closed_form.recall(p, k=3, rest_p=rest, rest_certain=certain)
    np.testing.assert_allclose(lazy.mean(), whole.mean(), rtol=1e-12)
    mixed = DeferredBatch.concatenate([
        DeferredBatch.mixture(lazy.take(np.array([5, 0, 2])), np.array([[0, 1], [2, -1]]),
                              np.array([[0.25, 0.75], [1.0, 0.0]])), lazy])
    assert asked == []  # the means, taken, mixed and joined: nothing outside built
    # each row's bound: TP's possible counts times FN's (the uncertain documents beyond k)
    beyond = np.concatenate([p[:, 3:], rest], axis=1)
    bound = (((p[:, :3] > 0).sum(axis=1) + 1)
             * (((beyond > 0) & (beyond < 1)).sum(axis=1) + 1))
    np.testing.assert_array_equal(
        mixed.widths, np.r_[bound[5] + bound[0], bound[2], bound])
    assert asked == [1]  # built once, for every batch made from it
    law = mixed.resolve()
    assert ((law.masses > 0).sum(axis=1) <= mixed.widths).all()
    np.testing.assert_allclose(law.mean(), mixed.mean(), rtol=1e-12)
    np.testing.assert_allclose(law.mean()[2:], whole.mean(), rtol=1e-12)
    asked.clear()
    fresh = closed_form.ExactInput(lambda rel: p, np.full(6, 5), outside, lambda: None,
                                   means_only=True, fn_counts=grouped)
    closed_form.f_measure_exact(fresh, rel=1, beta=1.0, k=3)
    assert asked == [1]  # F's mean reads them


def test_recall_mean_of_laws_is_the_same_in_blocks_of_rows():
    # rows with different numbers of certain relevant documents outside the top k (FN's
    # offsets 0 to 400, so that blocks are cut by offset as well as by the memory budget)
    rng = np.random.default_rng(5)
    p = rng.choice([0.0, 0.02, 0.3, 0.7, 1.0], size=(60, 30))
    rest = rng.beta(0.6, 1.2, size=(60, 80)) * (rng.random((60, 80)) < 0.7)
    certain = rng.integers(0, 400, size=60)
    law = closed_form.recall(p, k=20, rest_p=rest, rest_certain=certain)
    whole, undefined = closed_form.recall_mean_of_laws(p, 20, rest, certain)
    blocked, undefined_blocked = closed_form.recall_mean_of_laws(p, 20, rest, certain,
                                                                 memory_budget=4096)
    np.testing.assert_allclose(whole, law.mean(), rtol=1e-12)
    # the matrix product's rounding may differ with the block's shape, in the last bit
    np.testing.assert_allclose(blocked, whole, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(undefined_blocked, undefined)
    np.testing.assert_allclose(undefined, law.p_undefined, rtol=0, atol=1e-15)
    # no rows, and rows with nothing relevant anywhere (undefined for sure)
    none = closed_form.recall_mean_of_laws(np.zeros((0, 5)), 3, np.zeros((0, 2)), 0)
    assert [a.shape for a in none] == [(0,), (0,)]
    mean, undefined = closed_form.f_measure_mean_of_laws(np.zeros((2, 0)), 3, np.zeros((2, 0)), 0)
    assert np.isnan(mean).all() and (undefined == 1).all()


def _count_law(probabilities):
    """The Poisson-binomial law by the textbook recursion, one document at a time."""
    law = np.array([1.0])
    for x in probabilities:
        law = np.append(law * (1 - x), 0.0) + np.append(0.0, law * x)
    return law


def test_a_wide_recall_law_keeps_only_the_atoms_that_carry_mass():
    # R@200 over 500 uncertain documents: (201 x 301) atoms untrimmed, most below 1e-15
    rng = np.random.default_rng(11)
    p = rng.beta(0.6, 1.2, size=(2, 200))
    rest = rng.beta(0.6, 1.2, size=(2, 300))
    law = closed_form.recall(p, k=200, rest_p=rest)
    assert law.values.shape[1] < 201 * 301 / 4
    means, _ = closed_form.recall_mean_of_laws(p, 200, rest, 0)  # the laws trimmed alike
    for row in range(2):  # the untrimmed joint law, from the recursion
        tp, fn = _count_law(p[row]), _count_law(rest[row])
        t, f = np.meshgrid(np.arange(len(tp)), np.arange(len(fn)), indexing="ij")
        mass, value = np.outer(tp, fn), np.where(t + f > 0, t / np.maximum(t + f, 1), 0.0)
        mean = (mass * value).sum()
        d = law.distribution(row)
        assert d.mean() == pytest.approx(mean, rel=1e-12)
        assert means[row] == pytest.approx(mean, rel=1e-12)
        assert d.std() == pytest.approx(np.sqrt((mass * (value - mean) ** 2).sum()), rel=1e-9)
        order = np.argsort(value, axis=None)
        cdf = np.cumsum(mass.ravel()[order])
        for q in (0.025, 0.5, 0.975):
            expected = value.ravel()[order][np.searchsorted(cdf, q - 1e-12)]
            assert d.quantile(q) == pytest.approx(expected, rel=1e-12)


def test_certain_unretrieved_documents_shift_fn():
    # 2 certain unretrieved relevant documents + one ranked at p = 0.5: recall is 1/3 or 0
    b = closed_form.recall(np.array([[0.5]]), rest_p=np.zeros((1, 0)), rest_certain=2)
    assert batch_masses(b)[0] == pytest.approx({0.0: 0.5, round(1 / 3, 12): 0.5})
    assert b.p_undefined[0] == 0.0


def test_expected_size_recall_is_santini_eq12():
    # hand derivation: TP ~ Bernoulli(0.6) over one item, E|ω| = 0.6 -> values 0 and 1/0.6
    b = closed_form.recall(np.array([[0.6]]), expected_size=np.array([0.6]))
    d = b.distribution(0)
    assert d.support.tolist() == pytest.approx([0.0, 1 / 0.6])
    assert d.probabilities.tolist() == pytest.approx([0.4, 0.6])


def test_precision_of_short_lists_pads_with_irrelevant_ranks():
    b = closed_form.precision(np.array([[1.0, 1.0]]), k=4)
    assert b.mean().tolist() == [0.5]


def test_rows_are_vectorised_independently():
    p = np.array([[1.0, 0.0, 0.5], [0.0, 0.0, 0.0], [0.3, 0.3, 0.3]])
    b = closed_form.reciprocal_rank(p)
    for i, row in enumerate(p):
        assert_same(batch_masses(b, i), brute_force(row, [], Measure("RR")))


@settings(max_examples=30, deadline=None)
@given(st.lists(probability, min_size=1, max_size=6), st.integers(1, 6))
def test_expected_dcg_is_the_mean_over_worlds(p, k):
    masses, _ = brute_force(p, [], Measure("DCG", k=k))
    expected = sum(v * m for v, m in masses.items())
    assert closed_form.expected_dcg(np.array([p]), k=k)[0] == pytest.approx(expected, abs=1e-9)


def test_expected_dcg_jk_discount():
    # Järvelin–Kekäläinen, b = 2: discounts 1, 1, 1/log2(3); hand computation
    got = closed_form.expected_dcg(np.array([[1.0, 0.5, 0.5]]), discount="jk")[0]
    assert got == pytest.approx(1 + 0.5 + 0.5 / np.log2(3))


def test_errors_name_the_parameter():
    with pytest.raises(ValueError, match=r"k must be a positive integer or None; got 0"):
        closed_form.precision(np.array([[0.5]]), k=0)
    with pytest.raises(ValueError, match=r"p must hold probabilities within \[0, 1\]"):
        closed_form.success(np.array([[1.5]]))
    with pytest.raises(ValueError, match=r"p must be 2-D"):
        closed_form.reciprocal_rank(np.array([0.5]))
    with pytest.raises(ValueError, match=r"rest_p must have one row per row of p \(1\); got 2"):
        closed_form.recall(np.array([[0.5]]), rest_p=np.zeros((2, 1)))


def test_annotator_shares_take_the_binomial_route_with_the_same_law():
    # 400 unretrieved items with shares j/5 (few distinct values: summed binomials) against the
    # Poisson-binomial engine on the full rows (reference)
    from fuzzytruth.uncertain import poibin

    rng = np.random.default_rng(0)
    p = rng.choice([0.0, 0.4, 1.0], size=(3, 10))
    rest = rng.choice([0.0, 0.2, 0.4, 0.6, 0.8], size=(3, 400))
    got = closed_form.recall(p, k=6, rest_p=rest, rest_certain=7)
    tp = poibin.pmf(p[:, :6])
    fn = poibin.pmf(np.concatenate([p[:, 6:], rest], axis=1))
    for row in range(3):
        tp_v, fn_v = np.meshgrid(np.arange(tp.shape[1]), np.arange(fn.shape[1]) + 7,
                                 indexing="ij")
        joint = tp[row][:, None] * fn[row][None, :]
        values = tp_v / (tp_v + fn_v)
        mean = (values * joint).sum()
        sd = np.sqrt(((values - mean) ** 2 * joint).sum())
        d = got.distribution(row)
        assert d.mean() == pytest.approx(mean, abs=1e-10)
        assert d.std() == pytest.approx(sd, abs=1e-10)
        assert d.p_undefined == 0.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(ranked, unretrieved), min_size=2, max_size=5), st.integers(1, 5))
def test_a_rows_recall_does_not_depend_on_the_other_rows_of_its_batch(rows, k):
    """The FN law drops atoms below 1e-15 row by row: one query's recall is the same whether
    it is evaluated alone or with others (found by hypothesis: a rest probability of 1.4e-45
    was kept or dropped depending on the other rows, so under undefined="skip" its recall was
    0 or undefined)."""
    depth = max(len(p) for p, _ in rows)
    width = max(len(r) for _, r in rows)
    p = np.array([list(p) + [0.0] * (depth - len(p)) for p, _ in rows])
    rest = np.array([list(r) + [0.0] * (width - len(r)) for _, r in rows])
    rest[0, :1] = 1.4e-45 if width else rest[0, :1]
    together = closed_form.recall(p, k=k, rest_p=rest)
    for i in range(len(rows)):
        alone = closed_form.recall(p[i : i + 1], k=k, rest_p=rest[i : i + 1])
        assert together.p_undefined[i] == pytest.approx(alone.p_undefined[0], abs=1e-15)
        np.testing.assert_allclose(together.mean()[i], alone.mean()[0], atol=1e-12)


HUGE = 10**12  # no list is that deep: a k-sized array would not fit in memory


@settings(max_examples=40, deadline=None)
@given(st.lists(ranked, min_size=1, max_size=4), unretrieved)
def test_cutoffs_past_the_lists_are_the_whole_lists(rows, rest):
    # Past a list's end no rank holds a relevant document: R, RR and Success at k beyond
    # every list have the laws they have at the lists' depth (P the same counts over k). The
    # forms padded the lists with zeros to k, so memory grew with k: R@1,000 on 100-document
    # runs took 3.7 GB (TP counts joined with every FN count), R@10,000 was killed, and
    # k = 10**12 could not be allocated at all.
    depth = max(map(len, rows))
    p = np.array([r + [0.0] * (depth - len(r)) for r in rows])
    rest_p = np.tile(np.asarray(rest, float), (len(p), 1)).reshape(len(p), len(rest))
    pairs = [
        (closed_form.recall(p, k=HUGE, rest_p=rest_p), closed_form.recall(p, k=depth,
                                                                          rest_p=rest_p)),
        (closed_form.reciprocal_rank(p, k=HUGE), closed_form.reciprocal_rank(p, k=depth)),
        (closed_form.success(p, k=HUGE), closed_form.success(p, k=depth)),
    ]
    for big, whole in pairs:
        np.testing.assert_allclose(big.mean(), whole.mean(), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(big.var(), whole.var(), rtol=1e-9, atol=1e-15)
        np.testing.assert_array_equal(big.p_undefined, whole.p_undefined)
    at_depth = closed_form.precision(p, k=depth)
    past = closed_form.precision(p, k=HUGE)
    np.testing.assert_allclose(past.mean() * HUGE, at_depth.mean() * depth, rtol=1e-12,
                               atol=1e-9)
    assert closed_form.tp_pmf(p, k=HUGE).shape == (len(p), depth + 1)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_means_read_from_the_ranks_that_may_hold_a_relevant_document(data):
    # P, Success, RR and the grouped recall read their means from ExactInput.ranked: a
    # caller that leaves out the ranks of probability 0 (the population bootstrap) gets the
    # means of the laws built from every rank (independent code: the Poisson-binomial laws),
    # and RR's compiled pass, which stops at a certain document, the same bits either way
    n_rows = data.draw(st.integers(1, 5), label="rows")
    depth = data.draw(st.integers(1, 9), label="depth")
    values = st.sampled_from([0.0, 0.0, 0.1, 0.5, 0.9, 1.0, 1e-9])
    p = np.array(data.draw(st.lists(st.lists(values, min_size=depth, max_size=depth),
                                    min_size=n_rows, max_size=n_rows)))
    k = data.draw(st.one_of(st.none(), st.integers(1, depth + 2)), label="k")
    rest = np.full((n_rows, 2), 0.5)

    def packed(rel, k):  # each row's ranks holding a probability above 0, left-packed
        top = p[:, :k]
        width = max(int((top > 0).sum(axis=1).max()), 1)
        out, ranks = np.zeros((n_rows, width)), np.full((n_rows, width), depth + 1)
        for i, row in enumerate(top):
            at = np.flatnonzero(row > 0)
            out[i, :len(at)], ranks[i, :len(at)] = row[at], at + 1
        return out, ranks

    def grouped(rel, k):
        return closed_form.fn_counts(p, k, rest, 0)

    ctx = closed_form.ExactInput(lambda rel: p, np.full(n_rows, depth),
                                 lambda rel: (rest, np.zeros(n_rows, dtype=np.int64)),
                                 lambda: None, means_only=True, fn_counts=grouped,
                                 ranked=packed)
    forms = {"P": (closed_form.precision_exact, closed_form.precision),
             "Success": (closed_form.success_exact, closed_form.success),
             "RR": (closed_form.reciprocal_rank_exact, closed_form.reciprocal_rank)}
    for name, (exact, law) in forms.items():
        np.testing.assert_allclose(exact(ctx, rel=1, k=k).mean(), law(p, k=k).mean(),
                                   rtol=1e-12, atol=1e-15, err_msg=name)
    recall = closed_form.recall(p, k=k, rest_p=rest, rest_certain=0)
    np.testing.assert_allclose(closed_form.recall_exact(ctx, rel=1, k=k).mean(),
                               recall.mean(), rtol=1e-12, err_msg="R")
    every = closed_form._top(p, k)
    np.testing.assert_array_equal(
        closed_form.reciprocal_rank_means(*packed(1, k)),
        closed_form.reciprocal_rank_means(every, np.arange(1, every.shape[1] + 1)))


def test_reciprocal_rank_means_repeat_their_ranks_and_stop_at_a_certain_document():
    # rows repeating two components' ranks (replicates), and a row whose second document is
    # relevant for sure: nothing after it counts, though the product is then 0 exactly
    p = np.array([[0.5, 1.0, 0.7], [0.2, 0.0, 0.4], [0.5, 1.0, 0.7], [0.2, 0.0, 0.4]])
    ranks = np.array([[1, 2, 3], [2, 5, 7]])
    got = closed_form.reciprocal_rank_means(p, ranks)
    first = 0.5 + 0.5 * 1.0 / 2  # the third document is never reached
    second = 0.2 / 2 + 0.8 * 0.4 / 7
    np.testing.assert_allclose(got, [first, second, first, second], rtol=1e-15)
    with pytest.raises(ValueError, match="ranks must be"):
        closed_form.reciprocal_rank_means(p, np.ones((3, 3), dtype=np.int64))


def test_reciprocal_rank_means_stop_only_where_the_rest_changes_no_bit():
    # long lists of probable documents: the pass stops once the survival product is below
    # 2^-60 of the sum; the whole sum, term after term to the end, has the same bits
    rng = np.random.default_rng(60)
    p = rng.beta(rng.uniform(0.2, 3, (50, 1)), 1.0, (50, 1000)) * (rng.random((50, 1000)) < 0.9)
    ranks = np.sort(rng.choice(np.arange(1, 3000), (50, 1000)), axis=1)
    whole = np.zeros(50)
    for i in range(50):
        survive = 1.0
        for j in range(1000):
            whole[i] += p[i, j] * survive / ranks[i, j]
            survive *= 1.0 - p[i, j]
    np.testing.assert_array_equal(closed_form.reciprocal_rank_means(p, ranks), whole)


def test_reciprocal_rank_means_read_through_cells_give_the_bits_of_the_written_out_matrix():
    # the population bootstrap's form: replicates' shares (a table) read at each component's
    # cells; the pass reads only the cells before its stop, and gives the bits of the same pass
    # over the matrix written out (and of the whole sum, by the test above)
    rng = np.random.default_rng(61)
    table = rng.beta(0.5, 1.0, (4, 301)) * (rng.random((4, 301)) < 0.8)
    table[:, -1] = 0.0  # the padding cell
    table[1, 7] = 1.0  # a document relevant for sure in one replicate
    cells = rng.integers(0, 301, (5, 400))
    cells[3, 200:] = 300
    ranks = np.sort(rng.choice(np.arange(1, 2000), (5, 400)), axis=1)
    gathered = closed_form.Gathered(table, cells)
    written = gathered.matrix()
    assert written.shape == (20, 400)
    np.testing.assert_array_equal(written[2 * 5 + 3], table[2, cells[3]])  # row r * n + c
    np.testing.assert_array_equal(closed_form.reciprocal_rank_means(gathered, ranks),
                                  closed_form.reciprocal_rank_means(written, ranks))
    with pytest.raises(ValueError, match="ranks must be"):
        closed_form.reciprocal_rank_means(gathered, ranks[:3])
    # the compiled pass reads through the cells unchecked: a cell outside the table is refused
    for bad in (301, -1):
        outside = cells.copy()
        outside[1, 5] = bad
        with pytest.raises(ValueError, match="cells must be columns of its table"):
            closed_form.reciprocal_rank_means(closed_form.Gathered(table, outside), ranks)
