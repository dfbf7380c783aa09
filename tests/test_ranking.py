"""Crisp kernels against published worked examples and brute-force tie averaging."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from fuzzytruth.measures import parse_measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.ranking import (
    average_precision,
    dcg,
    e_measure,
    f_measure,
    interpolated_precision,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)
from fuzzytruth.runs import Qrels, Run, ranked_gains

ELEVEN = np.round(np.linspace(0, 1, 11), 1)
# NIST shrecGeneric Evaluation.html / conventions §D.1: hits at ranks 1, 2, 4, 7, 10
NIST = [1, 1, 0, 1, 0, 0, 1, 0, 0, 1]


def one(ranked, judged):
    return RankedGains.from_lists(["q"], [ranked], [judged])


def test_nist_average_precision_example():
    # conventions §D.1: mean of 1, 1, .75, .571429, .5 = 0.764286 with R = 5 (trec_eval 0.7643)
    assert average_precision(one(NIST, [1] * 5), rel=1)[0] == pytest.approx(0.764286, abs=1e-6)
    # one more relevant document, unretrieved: trec_eval 0.6369
    rg6 = one(NIST, [1] * 6)
    assert average_precision(rg6, rel=1)[0] == pytest.approx(0.636905, abs=1e-6)
    # the retrieved-relevant denominator (SHREC 2006, NIST page) ignores the unretrieved one
    ap = average_precision(rg6, rel=1, denominator="retrieved_relevant")[0]
    assert ap == pytest.approx(0.764286, abs=1e-6)


def test_conventions_d2_table():
    # conventions §D.2, pytrec_eval 9.0.8 and trec_eval 10 row for the NIST list with R = 5
    rg = one(NIST, [1] * 5)
    assert r_precision(rg, rel=1)[0] == pytest.approx(0.6)
    for rule in ("trec_eval9", "trec_eval10"):
        ip = interpolated_precision(rg, ELEVEN, rel=1, interpolation=rule)[0]
        np.testing.assert_allclose(
            ip, [1, 1, 1, 1, 1, 0.75, 0.75, 4 / 7, 4 / 7, 0.5, 0.5], atol=1e-12
        )
        assert ip.mean() == pytest.approx(0.785714, abs=1e-6)


def test_conventions_a3_eleven_point_rules():
    # conventions §A.3: R = 3, hits at ranks 1, 3, 6
    rg = one([1, 0, 1, 0, 0, 1], [1, 1, 1])
    expected = {"textbook": 0.727273, "trec_eval9": 0.742424, "trec_eval10": 0.787879}
    for rule, value in expected.items():
        m = parse_measure(f"11pt(interpolation={rule})").resolve("trec")
        assert m.compute(rg)[0] == pytest.approx(value, abs=1e-6)
    textbook = interpolated_precision(rg, ELEVEN, rel=1, interpolation="textbook")[0]
    np.testing.assert_allclose(textbook, [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, .5, .5, .5, .5])


def test_shrec2006_vector_three_dcg_forms():
    # conventions §0.1 / B.2: gain vector of the SHREC 2006 page; ideal = 14 retrieved plus
    # one unretrieved HR (2) and one unretrieved MR (1); NDCG@14 by the three forms
    gains = [2, 2, 1, 2, 2, 1, 0, 1, 0, 1, 2, 0, 0, 0]
    rg = one(gains, [g for g in gains if g > 0] + [2, 1])
    assert ndcg(rg, k=14, discount="jk")[0] == pytest.approx(0.852467, abs=1e-6)
    assert ndcg(rg, k=14)[0] == pytest.approx(0.850916, abs=1e-6)
    assert ndcg(rg, k=14, gain="exp")[0] == pytest.approx(0.843517, abs=1e-6)
    # the J&K DCG vector at rank 14 (published 8.091629)
    assert dcg(rg, discount="jk")[0] == pytest.approx(8.0916287, abs=1e-7)
    # AP_h / AP_r of the page (retrieved-relevant denominator) and trec-style (§B.2)
    assert average_precision(rg, rel=2, denominator="retrieved_relevant")[0] == pytest.approx(
        0.8009091, abs=1e-7)
    assert average_precision(rg, rel=1, denominator="retrieved_relevant")[0] == pytest.approx(
        0.9436869, abs=1e-7)
    assert average_precision(rg, rel=2)[0] == pytest.approx(0.667424, abs=1e-6)
    assert average_precision(rg, rel=1)[0] == pytest.approx(0.772107, abs=1e-6)


def test_f_and_e_trec_set_f_values():
    # conventions §D.1, trec_eval 10 at P = 0.25, R = 0.5: set_F.1 .3333, set_F.4 .4167 (β = 2),
    # set_F.2 .3750 (β = √2), set_F.0.25 .2778 (β = 0.5)
    rg = one([1, 0, 0, 0], [1, 1])
    for beta, value in [(1, 0.3333), (2, 0.4167), (math.sqrt(2), 0.3750), (0.5, 0.2778)]:
        assert f_measure(rg, rel=1, beta=beta)[0] == pytest.approx(value, abs=5e-5)
        assert e_measure(rg, rel=1, beta=beta)[0] == pytest.approx(1 - value, abs=5e-5)
    # F@k uses P@k = hits/k: one hit in the top 2, R = 2 -> P = .5, R = .5, F1 = .5
    assert f_measure(rg, rel=1, k=2)[0] == pytest.approx(0.5)


def test_vectorised_rows_and_padding():
    rg = RankedGains.from_lists(["a", "b", "c"], [[1, 0, 1], [0], []], [[1, 1], [1], [1]])
    np.testing.assert_allclose(precision(rg, rel=1, k=2), [0.5, 0, 0])
    np.testing.assert_allclose(recall(rg, rel=1, k=10), [1, 0, 0])
    np.testing.assert_allclose(success(rg, rel=1, k=1), [1, 0, 0])
    np.testing.assert_allclose(reciprocal_rank(rg, rel=1), [1, 0, 0])
    np.testing.assert_allclose(precision(rg, rel=1), [2 / 3, 0, 0])  # set_P, 0 when empty


def test_undefined_without_relevant_documents():
    rg = one([0, 0], [])
    assert np.isnan(recall(rg, rel=1, k=2)[0])
    assert np.isnan(average_precision(rg, rel=1)[0])
    assert np.isnan(ndcg(rg)[0])
    assert precision(rg, rel=1, k=2)[0] == 0.0


def test_kernel_errors():
    rg = one([1], [1])
    with pytest.raises(ValueError, match=r"denominator must be one of \['all_relevant', "
                       r"'retrieved_relevant'\]; got 'all'"):
        average_precision(rg, rel=1, denominator="all")
    with pytest.raises(ValueError, match=r"discount must be one of \['log2', 'jk'\]; got 'ln'"):
        ndcg(rg, discount="ln")
    with pytest.raises(ValueError, match=r"b applies to discount='jk' only; got b=3"):
        ndcg(rg, b=3)
    # a gain for grade 0 is expressible (trec_eval's ndcg.0=g), but needs judged status
    with pytest.raises(ValueError, match=r"a gain map giving grades <= 0 a gain \(\{0: 1.0\}\) "
                       r"needs to know which documents are judged"):
        ndcg(rg, gain={0: 1.0})
    with pytest.raises(ValueError, match=r"interpolation must be one of"):
        interpolated_precision(rg, [0.5], rel=1, interpolation="linear")


# -- tie averaging ---------------------------------------------------------------------------


def test_sklearn_ndcg_score_tie_averaged():
    # sklearn `ndcg_score` docstring (conventions §E.8) and random cases; sklearn's ideal is the
    # scored candidates only, so every judged document is given a score here
    rng = np.random.default_rng(3)
    cases = [(np.array([10, 0, 0, 1, 5]), np.array([1, 0, 0, 0, 1]), 1)]  # ndcg@1 = 0.75
    for _ in range(20):
        n = int(rng.integers(2, 12))
        cases.append((rng.integers(0, 4, n), rng.integers(0, 3, n), int(rng.integers(1, n + 1))))
    for y_true, y_score, k in cases:
        if y_true.max() == 0:
            continue
        docs = [f"d{i}" for i in range(len(y_true))]
        run = Run(["q"] * len(docs), docs, y_score.astype(float))
        qrels = Qrels(["q"] * len(docs), docs, y_true.astype(float))
        rg = ranked_gains(run, qrels, ties="average")
        expected = ndcg_score([y_true], [y_score], k=k)
        assert ndcg(rg, k=k)[0] == pytest.approx(expected, abs=1e-12)
    # sklearn docstring: tied scores [1, 0, 0, 0, 1], k = 1 -> ndcg 0.75 (tie-averaged)
    rg = ranked_gains(Run(["q"] * 5, list("abcde"), [1.0, 0, 0, 0, 1]),
                      Qrels(["q"] * 5, list("abcde"), [10.0, 0, 0, 1, 5]), ties="average")
    assert ndcg(rg, k=1)[0] == pytest.approx(0.75, abs=1e-12)


def brute_force(scores, grades, n_rel_extra, fn):
    """Mean of fn over every order of the tied documents (strict order otherwise)."""
    scores = np.asarray(scores, dtype=float)
    levels = sorted(set(scores.tolist()), reverse=True)
    groups = [[i for i in range(len(scores)) if scores[i] == s] for s in levels]
    values = []
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perms for i in p]
        ranked = [grades[i] for i in order]
        judged = [g for g in grades if g > 0] + [1] * n_rel_extra
        values.append(fn(one(ranked, judged))[0])
    return float(np.mean(values))


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=7),
    extra=st.integers(0, 2),
    k=st.integers(1, 8),
)
def test_tie_averaged_equals_mean_over_all_orders(data, extra, k):
    scores = [s for s, _ in data]
    grades = [g for _, g in data]
    if sum(g > 0 for g in grades) + extra == 0:
        extra = 1
    docs = [f"d{i}" for i in range(len(data))]
    qdocs = docs + [f"x{i}" for i in range(extra)]
    qgrades = grades + [1] * extra
    rg = ranked_gains(Run(["q"] * len(docs), docs, scores), Qrels(["q"] * len(qdocs), qdocs,
                      qgrades), ties="average")
    kernels = {
        "P": lambda r: precision(r, rel=1, k=k),
        "R": lambda r: recall(r, rel=1, k=k),
        "Success": lambda r: success(r, rel=1, k=k),
        "RR": lambda r: reciprocal_rank(r, rel=1),
        "RR@k": lambda r: reciprocal_rank(r, rel=1, k=k),
        "AP": lambda r: average_precision(r, rel=1),
        "AP@k": lambda r: average_precision(r, rel=1, k=k),
        "AP-ret": lambda r: average_precision(r, rel=1, denominator="retrieved_relevant"),
        "Rprec": lambda r: r_precision(r, rel=1),
        "nDCG@k": lambda r: ndcg(r, k=k, gain="exp"),
        "F@k": lambda r: f_measure(r, rel=1, k=k, beta=0.5),
    }
    for name, fn in kernels.items():
        expected = brute_force(scores, grades, extra, fn)
        assert fn(rg)[0] == pytest.approx(expected, abs=1e-12), name


def test_tie_averaged_ap_retrieved_relevant_with_cutoff_is_an_error():
    rg = ranked_gains(Run(["q"] * 2, ["a", "b"], [1.0, 1.0]), Qrels(["q"], ["a"], [1]),
                      ties="average")
    with pytest.raises(ValueError, match=r"AP\(denominator=retrieved_relevant\) with a cutoff k "
                       r"has no tie-averaged form"):
        average_precision(rg, rel=1, k=1, denominator="retrieved_relevant")


def test_reciprocal_rank_with_nothing_retrieved_is_zero():
    # depth 0 (every list empty): RR is 0 by trec_eval's rule, not an argmax error
    rg = RankedGains.from_lists(["q1", "q2"], [[], []], [[1], [2]])
    assert reciprocal_rank(rg, rel=1).tolist() == [0.0, 0.0]


def test_gains_that_would_overflow_their_sums_are_refused_not_scored_zero():
    # Sums of gains near the largest double overflowed: nDCG was inf / inf and scored 0.0
    # (the 'undefined as zero' rule) where it is 0.765, and gain="exp" on grade 1,100 alike.
    # Reference: nDCG is the same under any positive scaling of the gains, so the value with
    # gains of 1e140 (at the limit) is the one with gains of 1.
    from fuzzytruth import evaluate

    run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    qrels = Qrels(["q"] * 3, ["a", "b", "d"], [2, 1, 2])
    unit = evaluate(run, qrels, ["nDCG(gain={2:1,1:1})@10"]).aggregate()["value"].item()
    scaled = evaluate(run, qrels, ["nDCG(gain={2:1e140,1:1e140})@10"]).aggregate()
    # a and b (gain 1) at ranks 1 and 2; the ideal a, b, d (gain 1) at ranks 1 to 3
    by_hand = (1 + 1 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert unit == pytest.approx(by_hand, rel=1e-12)
    assert scaled["value"].item() == pytest.approx(unit, rel=1e-12)
    for huge in ("1e308", "1e141"):
        with pytest.raises(ValueError, match=r"parameter 'gain' of measure 'nDCG': gains must "
                                             rf"be within \+-1e\+140.*got {huge[:2]}"):
            evaluate(run, qrels, [f"nDCG(gain={{2:{huge},1:{huge}}})@10"])
    high = Qrels(["q"] * 3, ["a", "b", "d"], [1100, 1050, 1100])
    with pytest.raises(ValueError, match=r"gain='exp' gives grade 1100.0 a gain of inf"):
        evaluate(run, high, ["nDCG(gain=exp)@10"])
    huge = Qrels(["q"] * 3, ["a", "b", "d"], [1e308, 1e308, 1e308])
    for measure in ("nDCG@10", "G", "Rndcg", "ndcg_rel"):
        with pytest.raises(ValueError, match=r"gain='linear' gives grade 1e\+308"):
            evaluate(run, huge, [measure])
    assert evaluate(run, huge, ["P@10"]).aggregate()["value"].item() == 0.2  # no gain read
    # grades held in float32 (as worlds hold them): 2**200 is inf there, and inf > 1e300
    # must be seen in float64 (compared in float32, 1e300 became inf and nothing was refused)
    from fuzzytruth.metrics.ranking import _gain_values

    with pytest.raises(ValueError, match=r"grade 200.0 a gain of inf"):
        _gain_values(np.array([[0.0, 200.0]], dtype=np.float32), "exp")


def test_g_is_exact_up_to_2_53_and_refused_past_it_not_scored_zero():
    """G's discount 2 + C - S is a difference of sums of gains in doubles: with grades of
    1e17 (ideal cost past 2**53) the 2 was lost, the discount came out 0 and G scored 0.0
    where it is 0.99999...; such lists are refused, naming the query. Below the limit the
    value is trec_eval's formula (the module docstring) evaluated in exact integers."""
    from fractions import Fraction

    from fuzzytruth import evaluate

    def g_by_hand(ranked, judged):
        ideal = sorted((g for g in judged if g > 0), reverse=True)
        total, cost, got = Fraction(0), 0, 0
        for i, g in enumerate(ranked):
            cost += max(ideal[i] if i < len(ideal) else 0, 1)
            got += g
            if g:
                total += Fraction(g) / Fraction(math.log2(2 + cost - got))
        return float(total / sum(ideal))

    docs = list("abcdef")
    run = Run(["q"] * 6, docs, [6.0, 5, 4, 3, 2, 1])
    for top in (3, 10**15, 2**53 - 8):
        grades = [top, 1, 0, 0, 3, 1]
        got = evaluate(run, Qrels(["q"] * 6, docs, grades), ["G"]).aggregate()["value"].item()
        assert got == pytest.approx(g_by_hand(grades, grades), rel=1e-12)
    for top in (2**53 + 2, 10**17, 1e139):
        with pytest.raises(ValueError, match=r"exact only up to 2\*\*53 .*query 'q' has "
                                             r"ideal gains summing to \d"):
            evaluate(run, Qrels(["q"] * 6, docs, [top, 1, 0, 0, 3, 1]), ["G"])
