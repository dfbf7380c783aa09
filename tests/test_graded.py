"""Tests of fuzzytruth.metrics.graded: the SHREC 2006 graded measures.

Reference numbers: the SHREC 2006 "Performance measures used" page (shared/seeds/003_...,
"published") and metric-conventions.md B.2 ("computed" in double precision). The page mixes
truncation, rounding and float32 (conventions B.3), so published values are compared with an
absolute tolerance of 1e-5 on fractions, computed values to 1e-7. Property tests compare with
a per-query Python implementation written here from the definitions (conventions B.1).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.measures import get_preset, parse_measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.graded import (
    average_dynamic_recall,
    confusion_counts,
    cumulated_gain,
    dynamic_recall,
    shrec2006_measures,
)

GAINS = [2, 2, 1, 2, 2, 1, 0, 1, 0, 1, 2, 0, 0, 0]  # seed 003 example, Va = 14
JUDGED = [2] * 6 + [1] * 5  # Ch = 6, Cr = 11
DS = 1814  # database size of the example


@pytest.fixture
def example() -> RankedGains:
    return RankedGains.from_lists(["q"], [GAINS], [JUDGED])


# ---------------------------------------------------------------------------------------------
# The SHREC 2006 worked example, every number


def test_confusion_counts_both_levels(example: RankedGains) -> None:
    # Seed 003: TP_h 5, FP_h 14 - 5 = 9, TN_h 1814 + 5 - 14 - 6 = 1799, FN_h 6 - 5 = 1;
    # TP_r 9, FP_r 5, TN_r 1814 + 9 - 14 - 11 = 1798, FN_r 11 - 9 = 2.
    h = confusion_counts(example, n_database=DS, rel=2)
    r = confusion_counts(example, n_database=DS, rel=1)
    assert (h.tp[0], h.fp[0], h.tn[0], h.fn[0]) == (5, 9, 1799, 1)
    assert (r.tp[0], r.fp[0], r.tn[0], r.fn[0]) == (9, 5, 1798, 2)


def test_set_measures_both_levels(example: RankedGains) -> None:
    m = shrec2006_measures(example, n_database=DS)
    published = {
        "FT_h": 0.66667,  # seed 003: (4/6) * 100 % = 66.667 %
        "ST_h": 0.41667,  # seed 003: (5/12) * 100 % = 41.667 % (d2 = min(14, 12) = 12)
        "P_h": 0.35714,  # seed 003: 5/14
        "R_h": 0.83333,  # seed 003: 5/6
        "AP_h": 0.80090,  # seed 003: (1 + 1 + 3/4 + 4/5 + 5/11) / 5, truncated
        "FT_r": 0.81818,  # seed 003: (9/11) * 100 % = 81.818 %
        "ST_r": 0.64285,  # seed 003: (9/14) * 100 % = 64.285 % (d2 = Va), truncated
        "AP_r": 0.94368,  # seed 003: (6 + 7/8 + 8/10 + 9/11) / 9, truncated
        "ADR": 0.819,  # seed 003, three decimals
    }
    for name, value in published.items():
        tol = 1e-3 if name == "ADR" else 1e-5
        assert m[name][0] == pytest.approx(value, abs=tol), name
    # Seed 003 prints P_r = 0.6428 and R_r = 0.8181 (4 decimals, truncated).
    assert m["P_r"][0] == pytest.approx(0.6428, abs=1e-4)
    assert m["R_r"][0] == pytest.approx(0.8181, abs=1e-4)
    computed = {  # metric-conventions B.2, double precision
        "FT_h": 4 / 6, "ST_h": 5 / 12, "P_h": 5 / 14, "R_h": 5 / 6, "AP_h": 0.8009091,
        "FT_r": 9 / 11, "ST_r": 9 / 14, "P_r": 9 / 14, "R_r": 9 / 11, "AP_r": 0.9436869,
        "ADR": 0.819221,
    }
    for name, value in computed.items():
        assert m[name][0] == pytest.approx(value, abs=1e-6), name
    assert {"TP_h", "FP_h", "TN_h", "FN_h", "TP_r", "FP_r", "TN_r", "FN_r"} <= set(m)


def test_tier_alternatives_are_not_used(example: RankedGains) -> None:
    # metric-conventions B.3: PSB-style ST_h would be 5/6 = 83.333 %, ST_r with 2 Cr = 22 in
    # the denominator 40.909 %; the page's values are 41.667 % and 64.285 %.
    m = shrec2006_measures(example, n_database=DS)
    assert m["ST_h"][0] != pytest.approx(5 / 6, abs=1e-3)
    assert m["ST_r"][0] != pytest.approx(9 / 22, abs=1e-3)


def test_dynamic_recall_per_position(example: RankedGains) -> None:
    # Seed 003 table (3 decimals) and metric-conventions B.2 (6 decimals).
    published = [1, 1, 0.667, 0.75, 0.80, 0.667, 0.857, 0.875, 0.777, 0.8, 0.818]
    computed = [1, 1, 0.666667, 0.75, 0.8, 0.666667, 0.857143, 0.875, 0.777778, 0.8, 0.818182]
    r = dynamic_recall(example)[0]
    assert r == pytest.approx(published, abs=1e-3)
    assert r == pytest.approx(computed, abs=1e-6)
    assert average_dynamic_recall(example)[0] == pytest.approx(0.819221, abs=1e-6)


def brute_adr_variant(gains, judged, *, n, allowed) -> float:
    """ADR variants of metric-conventions B.2; allowed(i) = the grades counted at position i."""
    return sum(sum(g in allowed(i) for g in gains[:i]) / i for i in range(1, n + 1)) / n


def test_adr_variants_do_not_give_the_published_value(example: RankedGains) -> None:
    # metric-conventions B.2 variants table; the published ADR is 0.819.
    hr_only = {2}
    variants = {
        "n = Va = 14": (brute_adr_variant(
            GAINS, JUDGED, n=14, allowed=lambda i: {2} if i <= 6 else {1, 2}), 0.792614),
        "all relevant at every position": (brute_adr_variant(
            GAINS, JUDGED, n=11, allowed=lambda i: {1, 2}), 0.920737),
        "HR only, n = 11": (brute_adr_variant(
            GAINS, JUDGED, n=11, allowed=lambda i: hr_only), 0.659432),
        "HR only, n = 6": (brute_adr_variant(
            GAINS, JUDGED, n=6, allowed=lambda i: hr_only), 0.813889),
    }
    ours = average_dynamic_recall(example)[0]
    for name, (value, table) in variants.items():
        assert value == pytest.approx(table, abs=1e-6), name
        assert abs(value - 0.819) > 5e-4, name
        assert abs(ours - value) > 5e-4, name
    # The Typke definition itself, written the same brute-force way, gives 0.819221.
    typke_value = brute_adr_variant(
        GAINS, JUDGED, n=11, allowed=lambda i: {2} if i <= 6 else {1, 2}
    )
    assert typke_value == pytest.approx(ours, abs=1e-12)


def test_cumulated_gain_vectors(example: RankedGains) -> None:
    v = cumulated_gain(example)
    # Seed 003.
    assert v.cg[0].tolist() == [2, 4, 5, 7, 9, 10, 10, 11, 11, 12, 14, 14, 14, 14]
    dcg_published = [2.0, 4.0, 4.63093, 5.63093, 6.492283, 6.8791356, 6.8791356, 7.212469,
                     7.212469, 7.5134993, 8.091629, 8.091629, 8.091629, 8.091629]
    assert v.dcg[0] == pytest.approx(dcg_published, abs=1e-5)
    # Seed 003 prints 11 ICG entries; conventions B.3: zero-padded to Va, the last three are 17.
    icg_published = [2, 4, 6, 8, 10, 12, 13, 14, 15, 16, 17]
    assert v.icg[0].tolist() == [*icg_published, 17, 17, 17]
    idcg_published = [2.0, 4.0, 5.2618594, 6.2618594, 7.123213, 7.8969183, 8.253125, 8.586458,
                      8.901923, 9.202953, 9.492018]
    assert v.idcg[0] == pytest.approx([*idcg_published, *[9.492018] * 3], abs=1e-5)
    ncg_published = [1.0, 1.0, 0.8333333, 0.875, 0.9, 0.8333333, 0.7692308, 0.78571427,
                     0.73333335, 0.75, 0.8235294, 0.8235294, 0.8235294, 0.8235294]
    assert v.ncg[0] == pytest.approx(ncg_published, abs=1e-5)
    ndcg_published = [1.0, 1.0, 0.8800938, 0.89924246, 0.9114262, 0.87111646, 0.83351886,
                      0.83998185, 0.8102147, 0.81642264, 0.8524667, 0.8524667, 0.8524667,
                      0.8524667]
    assert v.ndcg[0] == pytest.approx(ndcg_published, abs=1e-5)
    # metric-conventions B.2 in double precision: 8.0916287 / 9.4920185 = 0.85246660.
    assert v.ndcg[0, -1] == pytest.approx(0.8524666, abs=1e-7)


def test_other_ndcg_forms_differ(example: RankedGains) -> None:
    # metric-conventions 0.1: the log2(i+1) form gives 0.850916 on this vector; J&K b=2 0.852467.
    assert cumulated_gain(example).ndcg[0, -1] != pytest.approx(0.850916, abs=1e-4)
    m = parse_measure("nDCG").resolve("shrec2006").compute(example)
    assert m[0] == pytest.approx(0.852467, abs=1e-6)


def test_registry_and_preset(example: RankedGains) -> None:
    def run(text: str) -> float:
        return float(parse_measure(text).resolve("shrec2006").compute(example)[0])

    assert run("ADR") == pytest.approx(0.819221, abs=1e-6)
    assert run("FT(rel=2)") == pytest.approx(4 / 6)
    assert run("ST(rel=2)") == pytest.approx(5 / 12)
    assert run("ST") == pytest.approx(9 / 14)
    assert run("AP(rel=2)") == pytest.approx(0.8009091, abs=1e-7)
    assert run("AP") == pytest.approx(0.9436869, abs=1e-7)
    assert get_preset("shrec2006").params["tier_style"] == "precision"


def test_binary_gains_and_base(example: RankedGains) -> None:
    # rel=2: binary gains of the highly relevant items; hand derivation of CG.
    v = cumulated_gain(example, rel=2)
    assert v.cg[0].tolist() == [1, 2, 2, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5]
    assert v.icg[0].tolist() == [1, 2, 3, 4, 5, 6] + [6] * 8
    # b = 3: ranks 1, 2 undiscounted, rank 3 weight 1/log3(3) = 1 -> DCG[3] = CG[3].
    v3 = cumulated_gain(example, b=3)
    assert v3.dcg[0, 2] == pytest.approx(5.0)
    assert v3.dcg[0, 3] == pytest.approx(5 + 2 * math.log(3) / math.log(4))


def test_vectors_beyond_list_length_and_without_relevant() -> None:
    rg = RankedGains.from_lists(["a", "b"], [[1, 0, 2], [0]], [[2, 1], []])
    v = cumulated_gain(rg)
    assert np.isnan(v.cg[1, 1:]).all() and v.cg[1, 0] == 0.0
    assert np.isnan(v.ndcg[1]).all()  # no relevant item: undefined
    # ideal [2, 1] padded to Va = 3: ICG = [2, 3, 3].
    assert v.icg[0].tolist() == [2, 3, 3]
    adr = average_dynamic_recall(rg)
    assert np.isnan(adr[1])
    # Query a, ground truth [2, 1]: r_1 counts grade 2 in [1] -> 0; r_2 counts grade >= 1 in
    # [1, 0] -> 1/2; ADR = 1/4.
    assert adr[0] == pytest.approx(0.25)


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda rg: confusion_counts(rg, n_database=10), "n_database must be at least the list"),
        (lambda rg: confusion_counts(rg, n_database=DS, rel=0), r"rel must be > 0"),
        (lambda rg: cumulated_gain(rg, rel=-1), r"rel must be > 0"),
        (lambda rg: cumulated_gain(rg, b=1), r"base must be > 1; got 1"),
        (lambda rg: confusion_counts(
            RankedGains.from_lists(["q"], [[1, 1]], [[1]]), n_database=DS),
         "ranked retrieves more relevant items than ranked.ideal holds"),
    ],
)
def test_errors(example: RankedGains, call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(example)


# ---------------------------------------------------------------------------------------------
# Brute-force oracle (per-query Python from the definitions in conventions B.1)


def brute_query(gains: list[int], judged: list[int], ds: int) -> dict[str, object]:
    va = len(gains)
    out: dict[str, object] = {}
    for suffix, t in (("h", 2), ("r", 1)):
        c = sum(g >= t for g in judged)
        v = sum(g >= t for g in gains)
        d1, d2 = min(va, c), min(va, 2 * c)
        out[f"TP_{suffix}"], out[f"FP_{suffix}"] = v, va - v
        out[f"TN_{suffix}"], out[f"FN_{suffix}"] = ds + v - va - c, c - v
        if c == 0:
            out[f"FT_{suffix}"] = out[f"ST_{suffix}"] = math.nan
        else:
            out[f"FT_{suffix}"] = sum(g >= t for g in gains[:d1]) / d1 if d1 else 0.0
            out[f"ST_{suffix}"] = sum(g >= t for g in gains[:d2]) / d2 if d2 else 0.0
    ideal = sorted((g for g in judged if g > 0), reverse=True)
    n = len(ideal)
    if n:
        r = []
        for i in range(1, n + 1):
            allowed = ideal[i - 1]
            r.append(sum(g >= allowed for g in gains[:i]) / i)
        out["r"] = r
        out["ADR"] = sum(r) / n
    else:
        out["r"], out["ADR"] = [], math.nan
    cg, dcg, icg, idcg = [], [], [], []
    padded_ideal = (ideal + [0] * va)[:va]
    for i in range(1, va + 1):
        w = 1.0 if i < 2 else 1 / math.log2(i)
        cg.append((cg[-1] if cg else 0) + gains[i - 1])
        dcg.append((dcg[-1] if dcg else 0) + gains[i - 1] * w)
        icg.append((icg[-1] if icg else 0) + padded_ideal[i - 1])
        idcg.append((idcg[-1] if idcg else 0) + padded_ideal[i - 1] * w)
    out.update(cg=cg, dcg=dcg, icg=icg, idcg=idcg)
    out["ndcg"] = [a / b if n else math.nan for a, b in zip(dcg, idcg, strict=True)]
    out["ncg"] = [a / b if n else math.nan for a, b in zip(cg, icg, strict=True)]
    return out


@st.composite
def graded_queries(draw):
    n_q = draw(st.integers(1, 4))
    lists, judged = [], []
    for _ in range(n_q):
        gains = draw(st.lists(st.integers(0, 3), min_size=1, max_size=12))
        missing = draw(st.lists(st.integers(1, 3), max_size=4))  # relevant, not retrieved
        lists.append(gains)
        judged.append([g for g in gains if g > 0] + missing)
    return lists, judged


@settings(max_examples=60, deadline=None)
@given(graded_queries())
def test_matches_brute_force(data) -> None:
    lists, judged = data
    rg = RankedGains.from_lists(list(range(len(lists))), lists, judged)
    ds = 40
    m = shrec2006_measures(rg, n_database=ds)
    r = dynamic_recall(rg)
    v = cumulated_gain(rg)
    shrec_ndcg = parse_measure("nDCG").resolve("shrec2006").compute(rg)
    for q, (gains, jg) in enumerate(zip(lists, judged, strict=True)):
        expected = brute_query(gains, jg, ds)
        for name in ("TP_h", "FP_h", "TN_h", "FN_h", "FT_h", "ST_h",
                     "TP_r", "FP_r", "TN_r", "FN_r", "FT_r", "ST_r", "ADR"):
            assert m[name][q] == pytest.approx(expected[name], nan_ok=True, abs=1e-12), name
        n = len(expected["r"])
        assert r[q, :n] == pytest.approx(expected["r"], abs=1e-12)
        assert np.isnan(r[q, n:]).all()
        va = len(gains)
        for name in ("cg", "dcg", "icg", "idcg", "ncg", "ndcg"):
            got = getattr(v, name)[q]
            assert got[:va] == pytest.approx(expected[name], nan_ok=True, abs=1e-12), name
            assert np.isnan(got[va:]).all()
        # the preset's nDCG is the page's final NDCG[Va], lists shorter than the relevant set
        # included (it divided by the ideal of every relevant item: 0.667 for a list [2] with
        # one more item of grade 1, where NDCG[1] = 1)
        if va:
            assert shrec_ndcg[q] == pytest.approx(expected["ndcg"][-1], nan_ok=True, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(graded_queries())
def test_ranges(data) -> None:
    lists, judged = data
    rg = RankedGains.from_lists(list(range(len(lists))), lists, judged)
    m = shrec2006_measures(rg, n_database=100)
    v = cumulated_gain(rg)
    for values in (m["FT_h"], m["ST_h"], m["FT_r"], m["ST_r"], m["ADR"], v.ncg, v.ndcg):
        finite = values[~np.isnan(values)]
        assert ((finite >= 0) & (finite <= 1 + 1e-12)).all()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=7), st.data())
def test_tie_averaging_equals_mean_over_orders(gains: list[int], data) -> None:
    # Random tie groups: split the list into consecutive blocks; the expectation over all
    # orders of each block, by enumeration, must equal the tie-averaged kernels.
    n = len(gains)
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n - 1)) if n > 1 else [])
    bounds = [0, *cuts, n]
    start = np.zeros(n, dtype=np.int64)
    stop = np.zeros(n, dtype=np.int64)
    for a, b in itertools.pairwise(bounds):
        start[a:b], stop[a:b] = a, b
    judged = [g for g in gains if g > 0] + [1]
    base = RankedGains.from_lists(["q"], [gains], [judged])
    tied = RankedGains(base.query_ids, base.gains, base.lengths, base.ideal,
                       start[None, :], stop[None, :])
    blocks = [gains[a:b] for a, b in itertools.pairwise(bounds)]
    orders = [list(itertools.chain.from_iterable(combo)) for combo in
              itertools.product(*(itertools.permutations(b) for b in blocks))]
    per_order = [brute_query(o, judged, 50) for o in orders]
    assert average_dynamic_recall(tied)[0] == pytest.approx(
        np.mean([p["ADR"] for p in per_order]), abs=1e-12)
    assert cumulated_gain(tied).ndcg[0] == pytest.approx(
        np.mean([p["ndcg"] for p in per_order], axis=0), abs=1e-12)
