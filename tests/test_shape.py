"""Tests of fuzzytruth.metrics.shape (PSB/SHREC shape-benchmark kernels) and of the
dissimilarity-matrix view over evaluate() (fuzzytruth.evaluation.matrices).

Reference numbers come from shared/reference/metric-conventions.md section A.3 (psbTable and
psbPlot semantics ported line by line, float32) or from the hand derivation written next to
them. The property tests compare the vectorised kernels with a straightforward per-query
Python implementation written here from the prose definitions (conventions A.2).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.evaluation.matrices import (
    average_over_queries,
    rank_by_dissimilarity,
    shape_summary,
)
from fuzzytruth.measures import get_preset, parse_measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.shape import (
    first_tier,
    jk_discount,
    nearest_neighbor,
    psb_dcg,
    psb_e_measure,
    psb_precision_recall,
    second_tier,
)

# metric-conventions A.3: |C| = 4 (K = 3), N = 9, relevance of the 8 other models in rank order.
A3_RELEVANCE = [1, 0, 1, 0, 0, 1, 0, 0]


@pytest.fixture
def a3() -> RankedGains:
    return RankedGains.from_lists(["q"], [A3_RELEVANCE], [[1, 1, 1]])


def a3_collection() -> tuple[np.ndarray, list[str]]:
    """A 9-model collection whose model 0 sees the A.3 list: d(0, j) = j, classes a/b."""
    labels = ["a", "a", "b", "a", "b", "b", "a", "b", "b"]
    rng = np.random.default_rng(0)
    d = rng.uniform(1, 2, size=(9, 9))
    d[0] = np.arange(9)
    np.fill_diagonal(d, 0.0)
    return d, labels


# ---------------------------------------------------------------------------------------------
# Published / derived reference numbers


def test_a3_per_query_example(a3: RankedGains) -> None:
    # metric-conventions A.3: NN 1, FT 2/3, ST 3/3, E (k = min(8, 32) = 8) = 0.545455,
    # DCG = 2.017783 / 2.630930 = 0.766947.
    assert nearest_neighbor(a3)[0] == 1.0
    assert first_tier(a3)[0] == pytest.approx(0.666667, abs=1e-6)
    assert second_tier(a3)[0] == pytest.approx(1.0, abs=1e-12)
    assert psb_e_measure(a3)[0] == pytest.approx(0.545455, abs=1e-6)
    assert psb_dcg(a3)[0] == pytest.approx(0.766947, abs=1e-6)
    # Hand derivation of the DCG parts quoted in A.3.
    num = 1 + 1 / math.log2(3) + 1 / math.log2(6)
    den = 1 + 1 / math.log2(2) + 1 / math.log2(3)
    assert (num, den) == pytest.approx((2.017783, 2.630930), abs=1e-6)


def test_a3_precision_style_tiers(a3: RankedGains) -> None:
    # Hand derivation, SHREC 2006 style: d1 = min(8, 3) = 3 -> 2/3; d2 = min(8, 6) = 6 -> 3/6.
    assert first_tier(a3, tier_style="precision")[0] == pytest.approx(2 / 3)
    assert second_tier(a3, tier_style="precision")[0] == pytest.approx(0.5)


def test_a3_precision_recall_curve(a3: RankedGains) -> None:
    # metric-conventions A.3: P_points = [1, 2/3, 1/2]; levels 0.05..0.30 skipped (bins = 3 <
    # 20/j); r = 0.35 -> 0.983333, 0.40 -> 0.933333, 0.50 -> 0.833333, 0.70 -> 0.65, 1.0 -> 0.5.
    pr = psb_precision_recall(a3)[0]
    assert np.isnan(pr[:6]).all()
    assert not np.isnan(pr[6:]).any()
    assert pr[[6, 7, 9, 13, 19]] == pytest.approx(
        [0.983333, 0.933333, 0.833333, 0.65, 0.5], abs=1e-6
    )
    # psbPlot: a level at which every query is skipped averages to 0.
    avg = average_over_queries(psb_precision_recall(a3), ["a"])
    assert avg[:6].tolist() == [0.0] * 6
    assert avg[19] == pytest.approx(0.5)


def test_a3_psb_padding_to_32_is_not_used(a3: RankedGains) -> None:
    # metric-conventions A.3: a port that pads the list to 32 would give E = 0.171429; the
    # psbTable cap at the list length gives 0.545455.
    assert psb_e_measure(a3)[0] != pytest.approx(0.171429, abs=1e-3)
    padded = RankedGains.from_lists(["q"], [A3_RELEVANCE + [0] * 24], [[1, 1, 1]])
    assert psb_e_measure(padded)[0] == pytest.approx(0.171429, abs=1e-6)


def test_a3_from_dissimilarity_matrix() -> None:
    d, labels = a3_collection()
    ranking = rank_by_dissimilarity(d, labels)
    rg = ranking.ranked
    assert rg.gains[0].tolist() == A3_RELEVANCE
    assert rg.lengths.tolist() == [8] * 9
    assert rg.n_relevant(1)[0] == 3  # K = |C| - 1
    assert ranking.class_sizes[0] == 4
    values = [f(rg)[0] for f in (nearest_neighbor, first_tier, second_tier, psb_e_measure, psb_dcg)]
    assert values == pytest.approx([1, 0.666667, 1.0, 0.545455, 0.766947], abs=1e-6)


def test_nist_tiers_use_class_size_minus_one() -> None:
    # NIST/SHREC pages (seeds 000, 002): |C| = 20, K = |C| - 1 = 19 for the first tier and
    # 2(|C| - 1) = 38 for the second. Three classes of 20; in each row the 19 class mates are
    # ranked 1st-10th and 31st-39th: FT = 10/19 and, since rank 39 > 38, ST = 18/19 (recall
    # style; a cut at 2|C| = 40 would give 19/19), NN = 1.
    labels = np.repeat([0, 1, 2], 20)
    n = labels.size
    d = np.empty((n, n))
    for q in range(n):  # building the fixture, not the measure
        mates = [j for j in range(n) if labels[j] == labels[q] and j != q]
        others = [j for j in range(n) if labels[j] != labels[q]]
        order = mates[:10] + others[:20] + mates[10:] + others[20:]
        d[q, order] = np.arange(1, n)
        d[q, q] = 0.0
    ranking = rank_by_dissimilarity(d, labels)
    rg = ranking.ranked
    assert (rg.n_relevant(1) == 19).all()
    assert (ranking.class_sizes == 20).all()
    assert first_tier(rg) == pytest.approx(np.full(n, 10 / 19))
    assert second_tier(rg) == pytest.approx(np.full(n, 18 / 19))
    assert nearest_neighbor(rg) == pytest.approx(np.ones(n))


def test_queries_outside_collection_use_target_class_size() -> None:
    # SHREC sketch/image tracks (conventions A.2): K = number of targets of the query's class.
    d = np.array([[0.1, 0.5, 0.2, 0.9], [0.3, 0.2, 0.1, 0.4]])
    ranking = rank_by_dissimilarity(d, ["x", "y"], target_labels=["x", "y", "x", "x"])
    rg = ranking.ranked
    assert rg.n_relevant(1).tolist() == [3, 1]
    assert ranking.class_sizes.tolist() == [3, 1]
    assert rg.lengths.tolist() == [4, 4]
    # Hand derivation, query 0: order 0, 2, 1, 3 -> relevance 1, 1, 0, 1; FT = 2/3, ST = 3/3.
    assert rg.gains[0].tolist() == [1, 1, 0, 1]
    assert first_tier(rg)[0] == pytest.approx(2 / 3)
    assert second_tier(rg)[0] == pytest.approx(1.0)


def test_jk_discount_matches_definition() -> None:
    # Järvelin & Kekäläinen 2002, b = 2: weight 1 at ranks 1 and 2, 1/log2(i) after.
    assert jk_discount(5).tolist() == pytest.approx([1, 1, 1 / math.log2(3), 0.5, 1 / math.log2(5)])
    # b = 3: ranks 1, 2 have weight 1, rank i >= 3 has 1 / log3(i).
    assert jk_discount(4, base=3)[3] == pytest.approx(math.log(3) / math.log(4))


# ---------------------------------------------------------------------------------------------
# Ties


def test_index_ascending_breaks_ties_by_lower_index() -> None:
    # psbTable compareRanks: equal distances -> lower model index first.
    d = np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]], dtype=float)
    ranking = rank_by_dissimilarity(d, ["a", "b", "b", "a"])
    # Query 0 ranks 1, 2, 3 -> relevance 0, 0, 1; query 3 ranks 0, 1, 2 -> 1, 0, 0.
    assert ranking.ranked.gains[0].tolist() == [0, 0, 1]
    assert ranking.ranked.gains[3].tolist() == [1, 0, 0]
    opt = rank_by_dissimilarity(d, ["a", "b", "b", "a"], ties="optimistic").ranked
    pes = rank_by_dissimilarity(d, ["a", "b", "b", "a"], ties="pessimistic").ranked
    assert opt.gains[0].tolist() == [1, 0, 0]
    assert pes.gains[3].tolist() == [0, 0, 1]


def test_self_is_excluded_even_when_tied_with_everything() -> None:
    # Hand derivation: all distances 0, so each query ranks the other two by index; query 0
    # sees [1 (a), 2 (b)], query 1 sees [0 (a), 2 (b)], query 2 sees [0 (a), 1 (a)].
    d = np.zeros((3, 3))
    ranking = rank_by_dissimilarity(d, ["a", "a", "b"])
    assert ranking.ranked.lengths.tolist() == [2, 2, 2]
    assert ranking.ranked.gains.tolist() == [[1, 0], [1, 0], [0, 0]]


def test_expected_ties_average_over_all_orders() -> None:
    # All 3 other models tied for query 0, one of them relevant: expected NN = 1/3 and the tie
    # groups span the whole list.
    d = np.array([[0, 1, 1, 1], [1, 0, 2, 3], [1, 2, 0, 3], [1, 3, 2, 0]], dtype=float)
    rg = rank_by_dissimilarity(d, ["a", "b", "a", "b"], ties="average").ranked
    assert rg.tie_start[0].tolist() == [0, 0, 0]
    assert rg.tie_stop[0].tolist() == [3, 3, 3]
    assert nearest_neighbor(rg)[0] == pytest.approx(1 / 3)
    # FT (K = 1): P(the relevant model is first) = 1/3; ST (top 2) = 2/3.
    assert first_tier(rg)[0] == pytest.approx(1 / 3)
    assert second_tier(rg)[0] == pytest.approx(2 / 3)


def test_precision_recall_rejects_tie_groups() -> None:
    d = np.zeros((4, 4))
    rg = rank_by_dissimilarity(d, ["a", "a", "a", "b"], ties="average").ranked
    with pytest.raises(ValueError, match="psb_precision_recall has no tie-averaged form"):
        psb_precision_recall(rg)


# ---------------------------------------------------------------------------------------------
# Averaging


def test_micro_macro_and_class_filters() -> None:
    # Hand derivation: classes a (3 queries: 1, 0, 0.5), b (1 query: 1), misc (1 query: 0).
    v = np.array([1.0, 0.0, 0.5, 1.0, 0.0])
    labels = ["a", "a", "a", "b", "misc"]
    sizes = [3, 3, 3, 1, 1]
    assert average_over_queries(v, labels) == pytest.approx(2.5 / 5)
    assert average_over_queries(v, labels, averaging="macro") == pytest.approx((0.5 + 1 + 0) / 3)
    assert average_over_queries(v, labels, exclude_classes=["misc"]) == pytest.approx(2.5 / 4)
    assert average_over_queries(
        v, labels, class_sizes=sizes, min_class_size=3
    ) == pytest.approx(0.5)
    assert average_over_queries(
        v, labels, averaging="macro", exclude_classes=["misc"]
    ) == pytest.approx(0.75)


def test_average_leaves_out_queries_without_relevant_items() -> None:
    rg = RankedGains.from_lists(["q1", "q2"], [[1, 0], [0, 0]], [[1], []])
    ft = first_tier(rg)
    assert ft[0] == 1.0 and np.isnan(ft[1])
    assert average_over_queries(ft, ["a", "b"]) == 1.0
    assert average_over_queries(ft, ["a", "b"], averaging="macro") == 1.0


def test_shape_summary_psb_row() -> None:
    d, labels = a3_collection()
    ranking = rank_by_dissimilarity(d, labels)
    summary = shape_summary(ranking)
    assert list(summary) == ["NN", "FT", "ST", "E", "DCG"]
    rg = ranking.ranked
    assert summary["FT"] == pytest.approx(float(np.mean(first_tier(rg))))
    assert summary["DCG"] == pytest.approx(float(np.mean(psb_dcg(rg))))
    # Both classes have 4 and 5 members: a minimum of 5 keeps the "b" class only.
    only_b = shape_summary(ranking, min_class_size=5)
    b_rows = np.array(labels) == "b"
    assert only_b["NN"] == pytest.approx(float(nearest_neighbor(rg)[b_rows].mean()))


def test_shape_summary_default_leaves_out_classes_of_two_as_psbtable() -> None:
    """psbTable drops the models of classes with |C| <= 2 (CUTOFF, conventions A.2), and so
    does evaluate(..., preset="psb"); shape_summary's default (preset "psb") averaged them in.
    By hand: the nearest neighbours of models 2, 3, 4 (class b) are 0 (class a), 4 and 3, so
    psbTable's NN is 2/3; counting class a's two models too (NN 0 and 1) gave 3/5."""
    from fuzzytruth import Qrels, Run, evaluate

    labels = np.array(["a", "a", "b", "b", "b"])
    d = np.array([[0, 1, 0.5, 4, 5],
                  [1, 0, 3, 4, 5],
                  [0.5, 3, 0, 2, 2.5],
                  [4, 4, 2, 0, 1],
                  [5, 5, 2.5, 1, 0]])
    ranking = rank_by_dissimilarity(d, labels)
    summary = shape_summary(ranking)
    assert summary["NN"] == pytest.approx(2 / 3)
    assert summary == shape_summary(ranking, min_class_size=3)
    assert shape_summary(ranking, min_class_size=1)["NN"] == pytest.approx(3 / 5)
    q, t = np.nonzero(~np.eye(5, dtype=bool))
    run = Run(q.astype(str), t.astype(str), -d[q, t])
    qrels = Qrels(q.astype(str), t.astype(str), (labels[q] == labels[t]).astype(float))
    values = evaluate(run, qrels, ["NN", "FT", "ST", "E_psb", "nDCG"], preset="psb").aggregate()
    assert values["value"].tolist() == pytest.approx(list(summary.values()), abs=1e-12)
    assert shape_summary(ranking, preset="shrec2006")["NN"] == pytest.approx(3 / 5)  # no rule


def test_shape_summary_over_no_query_is_an_error_not_zeros() -> None:
    """Classes of two models (psbTable's rule leaves them all out), a min_class_size above
    every class, every class excluded, or targets of no query's class: the row was NN = FT =
    ST = E = DCG = 0.0, a mean over nothing read as a result. psbTable divides by the models
    it keeps; here it is an error that says why."""
    d = np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]], dtype=float)
    pairs = rank_by_dissimilarity(d, ["a", "a", "b", "b"])
    assert shape_summary(pairs, min_class_size=1)["NN"] == 1.0  # kept, they are well ranked
    with pytest.raises(ValueError, match=r"^no query is left to average: none of the 4 queries "
                       r"has at least 2 relevant targets \(the psb preset's rule, psbTable's; "
                       r"min_class_size=1 keeps every class\), a class outside "
                       r"exclude_classes and a relevant target$"):
        shape_summary(pairs)
    with pytest.raises(ValueError, match=r"has a class of at least min_class_size=3 models"):
        shape_summary(pairs, min_class_size=3, averaging="macro")
    with pytest.raises(ValueError, match=r"^no query is left to average"):
        shape_summary(pairs, min_class_size=1, exclude_classes=["a", "b"])
    outside = rank_by_dissimilarity(d[:2], ["c", "d"], target_labels=["a", "a", "b", "b"])
    with pytest.raises(ValueError, match=r"^no query is left to average"):
        shape_summary(outside, preset="shrec2006")


def test_an_excluded_class_no_query_has_is_named() -> None:
    """A misspelt class in exclude_classes left its queries in without a word."""
    d, labels = a3_collection()
    ranking = rank_by_dissimilarity(d, labels)
    with pytest.warns(UserWarning, match=r"^exclude_classes names classes no query has: 'B'$"):
        summary = shape_summary(ranking, exclude_classes=["B"])
    assert summary == shape_summary(ranking)
    with pytest.warns(UserWarning, match=r"no query has: 'zz'$"):
        average_over_queries([1.0, 0.0], ["a", "b"], exclude_classes=["a", "zz"])


# ---------------------------------------------------------------------------------------------
# Registry and preset


def test_registered_families_match_kernels(a3: RankedGains) -> None:
    def run(text: str) -> float:
        return float(parse_measure(text).resolve("psb").compute(a3)[0])

    assert run("NN") == 1.0
    assert run("FT") == pytest.approx(2 / 3)
    assert run("ST") == pytest.approx(1.0)
    assert run("FT(tier_style=precision)") == pytest.approx(2 / 3)
    assert run("ST(tier_style=precision)") == pytest.approx(0.5)
    assert run("E_psb") == pytest.approx(0.545455, abs=1e-6)
    assert run("iP_psb@0.35") == pytest.approx(0.983333, abs=1e-6)
    assert math.isnan(run("iP_psb@0.3"))
    # Under the psb preset, nDCG without cut-off is the PSB DCG (J&K b = 2, whole list).
    assert run("nDCG") == pytest.approx(0.766947, abs=1e-6)
    assert get_preset("psb").params["min_class_size"] == 3


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rank_by_dissimilarity(np.zeros((2, 2)), [0, 1], ties="random"),
         r"ties must be one of \['docid_desc', 'docid_asc', 'input_order', 'average', "
         r"'optimistic', 'pessimistic'\]; got 'random'"),
        (lambda: rank_by_dissimilarity(np.zeros((2, 3)), [0, 1]),
         r"dissimilarity must be square when target_labels is None .*got shape \(2, 3\)"),
        (lambda: rank_by_dissimilarity(np.zeros((2, 2)), [0, 1, 2]),
         r"labels must have shape \(2,\), one per row of dissimilarity; got \(3,\)"),
        (lambda: rank_by_dissimilarity(np.zeros((2, 3)), [0, 1], target_labels=[0]),
         r"target_labels must have shape \(3,\), one per column of dissimilarity; got \(1,\)"),
        (lambda: rank_by_dissimilarity(np.array([[0, np.nan], [1, 0]]), [0, 1]),
         "dissimilarity must not contain NaN"),
        (lambda: rank_by_dissimilarity(np.zeros(3), [0, 1, 2]),
         r"dissimilarity must be a 2-D array; got shape \(3,\)"),
        (lambda: first_tier(RankedGains.from_lists(["q"], [[1]], [[1]]), tier_style="psb"),
         r"tier_style must be one of \['recall', 'precision'\]; got 'psb'"),
        (lambda: first_tier(RankedGains.from_lists(["q"], [[1]], [[1]]), rel=0),
         r"rel must be > 0 \(grade 0 is not relevant\); got 0"),
        (lambda: psb_e_measure(RankedGains.from_lists(["q"], [[1]], [[1]]), k=0),
         "k must be a positive integer; got 0"),
        (lambda: psb_precision_recall(RankedGains.from_lists(["q"], [[1]], [[1]]),
                                      recall_levels=[0.0, 0.5]),
         r"recall_levels must be a positive integer or non-empty levels in \(0, 1\]"),
        (lambda: average_over_queries([1.0], ["a"], averaging="mean"),
         r"averaging must be one of \['micro', 'macro'\]; got 'mean'"),
        (lambda: average_over_queries([1.0], ["a"], min_class_size=3),
         "class_sizes is required when min_class_size > 1"),
        (lambda: average_over_queries([1.0, 2.0], ["a"]),
         r"query_labels must have shape \(2,\); got \(1,\)"),
    ],
)
def test_errors(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------------------------
# Brute-force oracle (straightforward per-query Python, from conventions A.2)


def brute_order(d: np.ndarray, q: int, candidates: list[int], rel: list[bool], ties: str):
    def key(j: int):
        tie = {"optimistic": not rel[j], "pessimistic": rel[j]}.get(ties, False)
        return (d[q][j], tie, j)

    return sorted(candidates, key=key)


def brute_measures(relevance: list[int], k_rel: int) -> dict[str, float]:
    n = len(relevance)
    if k_rel == 0:
        return dict.fromkeys(("NN", "FT", "ST", "E", "DCG"), math.nan)
    nn = float(n > 0 and relevance[0] == 1)
    ft = sum(relevance[:k_rel]) / k_rel
    st = sum(relevance[: min(2 * k_rel, n)]) / k_rel
    kk = min(n, 32)
    h = sum(relevance[:kk])
    e = 0.0 if h == 0 else 2 / (1 / (h / kk) + 1 / (h / k_rel))
    num = sum(r / (1 if i == 1 else math.log2(i)) for i, r in enumerate(relevance, start=1))
    den = 1 + sum(1 / math.log2(i) for i in range(2, k_rel + 1))
    return {"NN": nn, "FT": ft, "ST": st, "E": e, "DCG": num / den}


def brute_pr(relevance: list[int], k_rel: int) -> list[float]:
    points = [0.0] * k_rel
    found = 0
    for i, r in enumerate(relevance, start=1):
        if r:
            found += 1
            points[found - 1] = found / i
    out = []
    for j in range(1, 21):
        if k_rel < 2 or k_rel < 20 / j:
            out.append(math.nan)
            continue
        xx = j / 20 * k_rel - 1
        x1 = int(xx)
        dx = xx - x1
        x2 = min(x1 + 1, k_rel - 1)
        x1 = min(x1, k_rel - 1)
        out.append(points[x1] * (1 - dx) + points[x2] * dx)
    return out


@st.composite
def collections(draw, outside: bool = False):
    n_t = draw(st.integers(1 if outside else 2, 9))
    n_q = draw(st.integers(1, 4)) if outside else n_t
    d = np.array(
        draw(st.lists(st.integers(0, 3), min_size=n_q * n_t, max_size=n_q * n_t)), dtype=float
    ).reshape(n_q, n_t)
    q_labels = draw(st.lists(st.integers(0, 2), min_size=n_q, max_size=n_q))
    t_labels = draw(st.lists(st.integers(0, 2), min_size=n_t, max_size=n_t)) if outside else None
    return d, q_labels, t_labels


@settings(max_examples=60, deadline=None)
@given(collections(), st.sampled_from(["docid_asc", "optimistic", "pessimistic"]))
def test_matches_brute_force_in_collection(data, ties: str) -> None:
    d, labels, _ = data
    n = len(labels)
    ranking = rank_by_dissimilarity(d, labels, ties=ties)
    rg = ranking.ranked
    got = {
        "NN": nearest_neighbor(rg), "FT": first_tier(rg), "ST": second_tier(rg),
        "E": psb_e_measure(rg), "DCG": psb_dcg(rg),
    }
    pr = psb_precision_recall(rg)
    for q in range(n):
        rel = [labels[j] == labels[q] for j in range(n)]
        order = brute_order(d, q, [j for j in range(n) if j != q], rel, ties)
        relevance = [int(rel[j]) for j in order]
        k_rel = sum(rel) - 1
        assert rg.gains[q].tolist() == relevance
        expected = brute_measures(relevance, k_rel)
        for name, value in expected.items():
            assert got[name][q] == pytest.approx(value, nan_ok=True, abs=1e-12), name
        assert pr[q] == pytest.approx(brute_pr(relevance, k_rel), nan_ok=True, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(collections(outside=True))
def test_matches_brute_force_outside_collection(data) -> None:
    d, q_labels, t_labels = data
    rg = rank_by_dissimilarity(d, q_labels, target_labels=t_labels).ranked
    for q in range(len(q_labels)):
        rel = [t == q_labels[q] for t in t_labels]
        order = brute_order(d, q, list(range(len(t_labels))), rel, "docid_asc")
        relevance = [int(rel[j]) for j in order]
        expected = brute_measures(relevance, sum(rel))
        assert first_tier(rg)[q] == pytest.approx(expected["FT"], nan_ok=True)
        assert psb_e_measure(rg)[q] == pytest.approx(expected["E"], nan_ok=True)
        assert psb_dcg(rg)[q] == pytest.approx(expected["DCG"], nan_ok=True)


@settings(max_examples=30, deadline=None)
@given(collections())
def test_expected_ties_equal_mean_over_all_tie_orders(data) -> None:
    d, labels, _ = data
    n = len(labels)
    if n > 7:  # keep the enumeration of orders small
        d, labels = d[:7, :7], labels[:7]
        n = 7
    rg = rank_by_dissimilarity(d, labels, ties="average").ranked
    got = {
        "NN": nearest_neighbor(rg), "FT": first_tier(rg), "ST": second_tier(rg),
        "E": psb_e_measure(rg), "DCG": psb_dcg(rg),
    }
    for q in range(n):
        others = [j for j in range(n) if j != q]
        k_rel = sum(labels[j] == labels[q] for j in others)
        orders = [
            p for p in itertools.permutations(others)
            if all(d[q][a] <= d[q][b] for a, b in itertools.pairwise(p))
        ]
        per_order = [
            brute_measures([int(labels[j] == labels[q]) for j in p], k_rel) for p in orders
        ]
        for name in got:
            mean = float(np.mean([m[name] for m in per_order]))
            assert got[name][q] == pytest.approx(mean, nan_ok=True, abs=1e-12), name


@settings(max_examples=40, deadline=None)
@given(collections(), st.sampled_from(["docid_asc", "average"]))
def test_all_measures_in_unit_interval(data, ties: str) -> None:
    d, labels, _ = data
    rg = rank_by_dissimilarity(d, labels, ties=ties).ranked
    for f in (nearest_neighbor, first_tier, second_tier, psb_e_measure, psb_dcg):
        v = f(rg)
        v = v[~np.isnan(v)]
        assert ((v >= 0) & (v <= 1 + 1e-12)).all(), f.__name__
    if ties == "docid_asc":
        pr = psb_precision_recall(rg)
        pr = pr[~np.isnan(pr)]
        assert ((pr >= 0) & (pr <= 1)).all()


@settings(max_examples=30, deadline=None)
@given(collections())
def test_optimistic_dominates_expected_dominates_pessimistic(data) -> None:
    d, labels, _ = data
    values = {
        t: rank_by_dissimilarity(d, labels, ties=t).ranked
        for t in ("optimistic", "average", "pessimistic")
    }
    for f in (nearest_neighbor, first_tier, second_tier, psb_e_measure, psb_dcg):
        opt, exp, pes = (np.nan_to_num(f(values[t]), nan=0.0) for t in values)
        assert (opt >= exp - 1e-12).all() and (exp >= pes - 1e-12).all(), f.__name__


@settings(max_examples=30, deadline=None)
@given(collections())
def test_first_tier_equals_trec_eval_rprec(data) -> None:
    # External oracle (metric-conventions A.3): with every other model ranked, the recall-style
    # first tier hits@K / K is trec_eval's R-precision (pytrec_eval-terrier 9.0.8).
    pytrec_eval = pytest.importorskip("pytrec_eval")
    d, labels, _ = data
    n = len(labels)
    rg = rank_by_dissimilarity(d, labels).ranked
    ft = first_tier(rg)
    qrels, runs = {}, {}
    for q in range(n):
        others = [j for j in range(n) if j != q]
        qrels[f"q{q}"] = {f"m{j}": int(labels[j] == labels[q]) for j in others}
        # Distinct scores in the order of our ranking (ties already broken by index).
        order = brute_order(d, q, others, [labels[j] == labels[q] for j in range(n)],
                            "docid_asc")
        runs[f"q{q}"] = {f"m{j}": float(n - i) for i, j in enumerate(order)}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec"}).evaluate(runs)
    for q in range(n):
        if rg.n_relevant(1)[q] > 0:
            assert ft[q] == pytest.approx(result[f"q{q}"]["Rprec"], abs=1e-12)
