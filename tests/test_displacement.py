"""Tests for fuzzytruth.displacement (Santini §5, individual comparisons).

Reference numbers are hand derivations from the definitions of Santini §5 (eq. 17, 21-23),
written out next to each test. The vectorised implementation is compared with ``oracle``, a
straightforward per-list pure-Python implementation written from the paper's text.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.displacement import (
    HYPOTHESES,
    DisplacementResult,
    ExponentialG,
    RationalG,
    check_g,
    displacement_kernel,
    read_answers,
    weighted_displacement,
)
from fuzzytruth.runs import Run
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

SEEDS = st.integers(0, 2**32 - 1)


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def answers(lists: dict[tuple[str, str], list[tuple[str, float]]]) -> pd.DataFrame:
    """{(query, annotator): [(item, relevance), ...]} in rank order -> long table."""
    rows = [
        (q, a, item, k, s)
        for (q, a), lst in lists.items()
        for k, (item, s) in enumerate(lst, start=1)
    ]
    return pd.DataFrame(rows, columns=["query_id", "annotator_id", "item_id", "rank", "relevance"])


def runs(lists: dict[tuple[str, str], list[str]]) -> pd.DataFrame:
    """{(system, query): [item, ...]} in rank order -> long table."""
    rows = [(sy, q, item, k) for (sy, q), lst in lists.items() for k, item in enumerate(lst, 1)]
    return pd.DataFrame(rows, columns=["system", "query_id", "item_id", "rank"])


def one(ann_items, rel, run_items, n_items, **kw) -> pd.Series:
    """The single row of a one-annotator, one-system, one-query comparison."""
    res = weighted_displacement(
        answers({("q", "a"): list(zip(ann_items, rel, strict=True))}),
        runs({("S", "q"): list(run_items)}),
        n_items=n_items,
        **kw,
    )
    return res.to_frame().iloc[0]


def oracle(ann_items, rel, run_items, n_items, use_deeper_ranks) -> dict[str, float]:
    """Santini §5 for one (annotator list, run) pair, written out item by item."""
    m = len(ann_items)
    read = list(run_items) if use_deeper_ranks else list(run_items)[:m]
    depth = len(read)
    position = {item: j + 1 for j, item in enumerate(read)}
    w_a = 0.0
    missing = []  # (annotator position beta, relevance), in annotator order
    for k, (item, s) in enumerate(zip(ann_items, rel, strict=True), start=1):
        if item in position:
            w_a += s * abs(k - position[item])
        else:
            missing.append((k, s))
    n_b = len(missing)
    w_b = {
        "optimist": sum(s * abs(b - (depth + i)) for i, (b, s) in enumerate(missing, 1)),
        "exact_pessimist": sum(
            s * abs(b - (n_items - n_b + i)) for i, (b, s) in enumerate(missing, 1)
        ),
        "pessimist": sum(n_items * s for _, s in missing),
    }
    out = {"w_a": w_a, "n_a": m - n_b, "n_b": n_b, "n_c": depth - (m - n_b), "run_depth": depth}
    for h in HYPOTHESES:
        out[f"w_b_{h}"] = w_b[h]
        out[f"w_{h}"] = w_a + w_b[h]
    out["w_max"] = n_items * sum(rel)
    return out


def random_case(seed: int):
    """Random queries, annotators, systems; returns tables, N, and the per-list inputs."""
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 4))
    pool = [f"i{j}" for j in range(int(rng.integers(3, 15)))]
    ann_lists, run_lists = {}, {}
    for q in range(n_queries):
        for a in range(int(rng.integers(1, 4))):
            m = int(rng.integers(1, len(pool) + 1))
            items = list(rng.choice(pool, size=m, replace=False))
            rel = np.sort(np.round(rng.random(m), 2))[::-1]
            rel[rng.random(m) < 0.2] = 0.0
            rel = np.sort(rel)[::-1]
            ann_lists[(f"q{q}", f"a{a}")] = list(zip(items, rel.tolist(), strict=True))
        for sy in ("S1", "S2"):
            if rng.random() < 0.1:  # the system did not answer this query
                continue
            depth = int(rng.integers(0, len(pool) + 1))
            run_lists[(sy, f"q{q}")] = list(rng.choice(pool, size=depth, replace=False))
    if not any(run_lists.values()):
        run_lists[("S1", "q0")] = [pool[0]]
    n_items = len(pool) + int(rng.integers(0, 30))
    return ann_lists, run_lists, n_items


def shuffled(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    return df.sample(frac=1.0, random_state=seed % 2**31).reset_index(drop=True)


# ------------------------------------------------------------------------------------------------
# hand-derived examples
# ------------------------------------------------------------------------------------------------


def test_complete_orderings_eq17() -> None:
    # annotator [a, b, c, d], s = (1, .5, .5, 0); system [b, a, d, c]; N = 4
    # w = 1*|1-2| + .5*|2-1| + .5*|3-4| + 0*|4-3| = 2
    row = one("abcd", [1, 0.5, 0.5, 0], "badc", 4)
    for h in HYPOTHESES:
        assert row[f"w_{h}"] == pytest.approx(2.0)
        assert row[f"q_{h}"] == pytest.approx(1 / 3)  # 1/(1+2)
    assert (row["n_a"], row["n_b"], row["n_c"]) == (4, 0, 0)


def test_truncated_hypotheses_eq21_to_23() -> None:
    # annotator [a..e], s = (1, .8, .6, .4, .2); system [c, a, x, b, y]; N = 20, m = 5
    # w_A = 1*1 + .8*2 + .6*2 = 3.8; B = [d(4), e(5)]
    # optimist: 6, 7 -> .4*2 + .2*2 = 1.2; exact: 19, 20 -> .4*15 + .2*15 = 9; eq. 23: 20*.6 = 12
    row = one("abcde", [1, 0.8, 0.6, 0.4, 0.2], "caxby", 20)
    assert row["w_a"] == pytest.approx(3.8)
    assert row["w_b_optimist"] == pytest.approx(1.2)
    assert row["w_b_exact_pessimist"] == pytest.approx(9.0)
    assert row["w_b_pessimist"] == pytest.approx(12.0)
    assert (row["m"], row["run_depth"], row["n_a"], row["n_b"], row["n_c"]) == (5, 5, 3, 2, 2)
    assert row["w_max"] == pytest.approx(60.0)


def test_run_cut_at_annotator_length_unless_deeper_ranks() -> None:
    # annotator [a, b], s = (1, 1); run [x, a, y, b]; N = 10
    # cut at m = 2: run read is [x, a]; A = [a] (k=1, π=2) -> 1; B = [b(2)]
    #   optimist at L+1 = 3 -> 1*1; exact at 10 -> 8; eq. 23 -> 10
    cut = one("ab", [1, 1], "xayb", 10, use_deeper_ranks=False)
    assert cut["run_depth"] == 2
    assert [cut[f"w_{h}"] for h in HYPOTHESES] == pytest.approx([11.0, 9.0, 2.0])
    # deeper: b at π=4 -> 1*|2-4| = 2; w = 3 under every hypothesis
    deep = one("ab", [1, 1], "xayb", 10)
    assert deep["run_depth"] == 4 and deep["n_b"] == 0
    assert [deep[f"w_{h}"] for h in HYPOTHESES] == pytest.approx([3.0, 3.0, 3.0])


def test_short_run_optimist_starts_after_run() -> None:
    # annotator [a, b, c], s = (1, 1, 1); run [c] (shorter than m); N = 5
    # A = [c] (k=3, π=1) -> 2; B = [a(1), b(2)]; optimist at L+i = 2, 3 -> 1 + 1 = 2
    # exact at 4, 5 -> 3 + 3 = 6; eq. 23 -> 5 + 5 = 10
    row = one("abc", [1, 1, 1], "c", 5)
    assert [row[f"w_{h}"] for h in HYPOTHESES] == pytest.approx([12.0, 8.0, 4.0])


def test_empty_run_attains_w_max() -> None:
    # the system never answered: every item in B; eq. 23 gives N Σ s = w_max, scale-free q = 0
    res = weighted_displacement(
        answers({("q", "a"): [("a", 1.0), ("b", 0.5)]}),
        runs({("S", "other"): ["z"], ("T", "q"): ["z"]}),
        n_items=7,
        g="scale_free",
    ).to_frame()
    assert res["system"].tolist() == ["S", "T"]
    assert res["run_depth"].tolist() == [0, 1]
    assert res["w_pessimist"].tolist() == pytest.approx([10.5, 10.5])
    assert res["w_max"].tolist() == pytest.approx([10.5, 10.5])
    assert res["q_pessimist"].tolist() == pytest.approx([0.0, 0.0])


def test_score_order_breaks_ties_by_item_id_descending() -> None:
    # scores: a 2.0, b 1.0, c 1.0 -> order a, c, b (tie c/b: item id descending, trec_eval)
    ann = answers({("q", "u"): [("a", 1.0), ("b", 1.0), ("c", 1.0)]})
    run = pd.DataFrame(
        {"system": "S", "query_id": "q", "item_id": ["b", "a", "c"], "score": [1.0, 2.0, 1.0]}
    )
    row = weighted_displacement(ann, run, n_items=3, run_order="score").to_frame().iloc[0]
    # b: k=2, π=3 -> 1; c: k=3, π=2 -> 1
    assert row["w_optimist"] == pytest.approx(2.0)


def test_ranks_need_not_be_contiguous_and_rows_not_sorted() -> None:
    ann = pd.DataFrame(
        {
            "query_id": "q",
            "annotator_id": "u",
            "item_id": ["c", "a", "b"],
            "rank": [30, 5, 10],
            "relevance": [0.2, 1.0, 0.5],
        }
    )
    run = pd.DataFrame(
        {"system": "S", "query_id": "q", "item_id": ["b", "a", "c"], "rank": [0.5, 7, 9]}
    )
    row = weighted_displacement(ann, run, n_items=3).to_frame().iloc[0]
    # annotator [a, b, c]; run [b, a, c]: 1*1 + .5*1 = 1.5
    assert row["w_optimist"] == pytest.approx(1.5)


def test_column_names_are_configurable() -> None:
    ann = pd.DataFrame(
        {"topic": "q", "judge": "u", "doc": ["a", "b"], "pos": [1, 2], "grade": [1.0, 0.5]}
    )
    run = pd.DataFrame({"tag": "S", "topic": "q", "doc": ["b", "a"], "pos": [1, 2]})
    cols = {
        "query_id": "topic",
        "annotator_id": "judge",
        "item_id": "doc",
        "rank": "pos",
        "relevance": "grade",
        "system": "tag",
    }
    row = weighted_displacement(ann, run, n_items=2, columns=cols).to_frame().iloc[0]
    assert row["w_optimist"] == pytest.approx(1.5)


def test_n_items_per_query_mapping() -> None:
    ann = answers({("q1", "u"): [("a", 1.0)], ("q2", "u"): [("a", 1.0)]})
    run = runs({("S", "q1"): ["z"], ("S", "q2"): ["z"]})
    res = weighted_displacement(ann, run, n_items={"q1": 10, "q2": 100}).to_frame()
    assert res["w_pessimist"].tolist() == pytest.approx([10.0, 100.0])



def test_n_items_keys_are_matched_with_query_ids_as_text() -> None:
    # ids are compared as text everywhere (a run's "7" is query 7 of the answers), and so are
    # n_items' keys: {7: 10} for query "7" (read_answers reads ids as text) was refused as
    # missing query '7'. Reference: w_pessimist = N * 1.0 (the run misses the one item, eq. 23)
    text = answers({("7", "u"): [("a", 1.0)], ("8", "u"): [("a", 1.0)]})
    number = text.assign(query_id=[7, 8])
    run = runs({("S", "7"): ["z"], ("S", "8"): ["z"]})
    for table, n_items in ((text, {7: 10, 8: 100}), (number, {"7": 10, "8": 100}),
                           (number, pd.Series([100, 10], index=["8", "7"]))):
        res = weighted_displacement(table, run, n_items=n_items).to_frame()
        assert res["w_pessimist"].tolist() == [10.0, 100.0]
    with pytest.raises(ValueError, match=r"^n_items must give one N per query; got queries 7 "
                                         r"and '7', one id as text$"):
        weighted_displacement(text, run, n_items={7: 10, "7": 20, 8: 100})


def test_n_items_series_with_a_repeated_query_is_refused() -> None:
    # a Series indexed [q1, q1, q2] gave q2 the second N of q1 (20), not its own (30)
    table = answers({("q1", "a"): [("a", 1.0)], ("q2", "a"): [("a", 1.0)]})
    systems = runs({("S", "q1"): ["x"], ("S", "q2"): ["x"]})
    with pytest.raises(ValueError, match=r"^n_items must give one N per query; got query 'q1' "
                                         r"more than once$"):
        weighted_displacement(table, systems,
                              n_items=pd.Series([10, 20, 30], index=["q1", "q1", "q2"]))
    got = weighted_displacement(table, systems, n_items=pd.Series([10, 30], index=["q1", "q2"]))
    assert got.to_frame()["n_items"].tolist() == [10, 30]

def test_g_choices() -> None:
    # w = 2 (complete orderings example)
    args = ("abcd", [1, 0.5, 0.5, 0], "badc", 4)
    assert one(*args, g="exponential")["q_optimist"] == pytest.approx(math.exp(-2))
    assert one(*args, g=ExponentialG(lam=0.25))["q_optimist"] == pytest.approx(math.exp(-0.5))
    assert one(*args, g=RationalG(p=2))["q_optimist"] == pytest.approx(1 / 9)
    assert one(*args, g=lambda x: 1 / (1 + x) ** 3)["q_optimist"] == pytest.approx(1 / 27)
    # scale-free: w_max = 4 * 2 = 8, q = 1 - 2/8
    assert one(*args, g="scale_free")["q_optimist"] == pytest.approx(0.75)


def test_scale_free_all_zero_relevance_is_perfect() -> None:
    row = one("ab", [0.0, 0.0], "xy", 4, g="scale_free")
    assert row["w_max"] == 0.0
    assert [row[f"q_{h}"] for h in HYPOTHESES] == [1.0, 1.0, 1.0]


def test_kernel_on_arrays() -> None:
    # two pairs: the truncated example (N = 20) and identical lists
    s = np.array([[1, 0.8, 0.6, 0.4, 0.2], [1, 1, 0, 0, 0]])
    pi = np.array([[2, 4, 1, 0, 0], [1, 2, 0, 0, 0]])
    out = displacement_kernel(
        s, pi, lengths=np.array([5, 2]), run_depth=np.array([5, 2]), n_items=np.array([20, 2])
    )
    assert out["w_optimist"].tolist() == pytest.approx([5.0, 0.0])
    assert out["w_exact_pessimist"].tolist() == pytest.approx([12.8, 0.0])
    assert out["w_pessimist"].tolist() == pytest.approx([15.8, 0.0])


# ------------------------------------------------------------------------------------------------
# aggregates and bootstrap
# ------------------------------------------------------------------------------------------------


def two_query_result(g="scale_free") -> DisplacementResult:
    # q1: annotators u (a: 1.0) and v (a: 0.5); q2: annotator u (a: 1.0). N = 4.
    # S returns [z] for q1 and [a] for q2; T returns [a] for both.
    ann = answers({("q1", "u"): [("a", 1.0)], ("q1", "v"): [("a", 0.5)], ("q2", "u"): [("a", 1.0)]})
    run = runs({("S", "q1"): ["z"], ("S", "q2"): ["a"], ("T", "q1"): ["a"], ("T", "q2"): ["a"]})
    return weighted_displacement(ann, run, n_items=4, g=g)


def test_by_query_and_by_system() -> None:
    res = two_query_result()
    # S on q1: a missing, m = L = 1. optimist at 2: w = s; exact at 4: 3s; eq. 23: 4s;
    # w_max = 4s -> scale-free q: optimist 0.75, exact 0.25, pessimist 0 for both annotators
    bq = res.by_query()
    s_q1 = bq[(bq["system"] == "S") & (bq["query_id"] == "q1")].iloc[0]
    assert s_q1["n_annotators"] == 2
    assert (s_q1["pessimist"], s_q1["exact_pessimist"], s_q1["optimist"]) == pytest.approx(
        (0.0, 0.25, 0.75)
    )
    assert s_q1["optimist_std"] == pytest.approx(0.0)
    bs = res.by_system().set_index("system")
    # S: mean over queries of (q1 mean, q2 = 1): optimist (0.75 + 1)/2, pessimist (0 + 1)/2
    assert bs.loc["S", "optimist"] == pytest.approx(0.875)
    assert bs.loc["S", "pessimist"] == pytest.approx(0.5)
    assert bs.loc["S", "pessimist_min"] == 0.0 and bs.loc["S", "pessimist_max"] == 1.0
    assert (bs.loc["S", "n_queries"], bs.loc["S", "n_lists"]) == (2, 3)
    assert bs.loc["T", "pessimist"] == 1.0
    w = res.by_system(measure="w").set_index("system")
    # w_pessimist for S: q1 mean (4 + 2)/2 = 3, q2 0 -> 1.5
    assert w.loc["S", "pessimist"] == pytest.approx(1.5)
    cols = list(bq.columns)
    assert cols.index("pessimist") < cols.index("exact_pessimist") < cols.index("optimist")


def test_bootstrap_is_paired_reproducible_and_shaped() -> None:
    res = two_query_result()
    b1 = res.bootstrap(n_resamples=300, rng=1)
    b2 = res.bootstrap(n_resamples=300, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(b1.bootstrap_distribution, b2.bootstrap_distribution)
    assert b1.bootstrap_distribution.shape == (2, 3, 300)
    # T scores 1 everywhere: its distribution is degenerate
    np.testing.assert_array_equal(b1.bootstrap_distribution[1], 1.0)
    frame = b1.to_frame()
    assert list(frame.columns) == [
        "system",
        "measure",
        "n_queries",
        "pessimist",
        "pessimist_ci_low",
        "pessimist_ci_high",
        "exact_pessimist",
        "exact_pessimist_ci_low",
        "exact_pessimist_ci_high",
        "optimist",
        "optimist_ci_low",
        "optimist_ci_high",
        "confidence_level",
        "n_resamples",
    ]
    assert frame["confidence_level"].tolist() == [0.95, 0.95]
    low, high = b1.confidence_interval(0.5)
    assert np.all(low <= high)


def test_bootstrap_of_one_query_gives_no_interval_rather_than_a_point() -> None:
    # every replicate drew the one query: with one annotator the interval was the estimate
    # at both ends (width 0), with several it held the annotator level only
    one = weighted_displacement(
        answers({("q1", "u"): [("a", 1.0)], ("q1", "v"): [("a", 0.5)]}),
        runs({("S", "q1"): ["z"], ("T", "q1"): ["a"]}), n_items=4, g="scale_free")
    with pytest.warns(UnreliableInferenceWarning, match="with one query the query level "
                                                        "cannot vary"):
        boot = one.bootstrap(n_resamples=300, rng=1)
    frame = boot.to_frame()
    assert frame.filter(like="_ci_").isna().all(axis=None)
    assert (frame["n_resamples"] == 0).all() and boot.bootstrap_distribution.shape == (2, 3, 0)
    np.testing.assert_array_equal(boot.estimate[:, 0],
                                  one.by_system().set_index("system")["pessimist"])
    with warnings.catch_warnings():  # two queries draw as before
        warnings.simplefilter("error", UnreliableInferenceWarning)
        assert two_query_result().bootstrap(n_resamples=60, rng=1).to_frame()[
            "pessimist_ci_low"].notna().all()


def test_bootstrap_two_stage_variance() -> None:
    # Build a result table directly: 3 queries with 1, 2, 4 annotators, one system.
    # Two-stage bootstrap of the mean of query means: one replicate averages n_q i.i.d. draws Y,
    # where Y picks a query uniformly, then averages n_Q annotator draws with replacement:
    #   Var Y = Var_Q(mu_Q) + E_Q[sigma_Q^2 / n_Q]     (ddof = 0 within and across)
    #   Var stat = Var Y / n_q,  E stat = mean of query means.
    vals = {"q1": [0.2], "q2": [0.0, 1.0], "q3": [0.1, 0.3, 0.5, 0.9]}
    rows = [("S", q, f"a{j}", v) for q, vs in vals.items() for j, v in enumerate(vs)]
    table = pd.DataFrame(rows, columns=["system", "query_id", "annotator_id", "q_pessimist"])
    table["q_exact_pessimist"] = table["q_pessimist"]
    table["q_optimist"] = 1.0
    res = DisplacementResult(table=table, g="test", use_deeper_ranks=True, run_order="rank")
    boot = res.bootstrap(n_resamples=40_000, rng=12345)
    mu = np.array([np.mean(v) for v in vals.values()])
    within = np.array([np.var(v) / len(v) for v in vals.values()])
    expected_var = (np.var(mu) + within.mean()) / len(vals)
    dist = boot.bootstrap_distribution[0, 0]
    assert boot.estimate[0, 0] == pytest.approx(mu.mean())
    assert dist.mean() == pytest.approx(mu.mean(), abs=4 * math.sqrt(expected_var / 40_000))
    # the sampling error of a variance from 40,000 replicates is about 1%; a one-stage
    # bootstrap (queries only) would give Var_Q(mu_Q)/n_q, about a quarter of it here
    assert dist.var() == pytest.approx(expected_var, rel=0.05)
    np.testing.assert_array_equal(boot.bootstrap_distribution[0, 2], 1.0)


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.booleans())
def test_matches_per_list_oracle(seed: int, deeper: bool) -> None:
    ann_lists, run_lists, n_items = random_case(seed)
    res = weighted_displacement(
        shuffled(answers(ann_lists), seed),
        shuffled(runs(run_lists), seed + 1),
        n_items=n_items,
        use_deeper_ranks=deeper,
    ).to_frame()
    systems = sorted({sy for (sy, _), lst in run_lists.items() if lst})  # systems with rows
    assert len(res) == len(systems) * len(ann_lists)
    for row in res.itertuples(index=False):
        ann = ann_lists[(row.query_id, row.annotator_id)]
        expected = oracle(
            [i for i, _ in ann],
            [s for _, s in ann],
            run_lists.get((row.system, row.query_id), []),
            n_items,
            deeper,
        )
        for key, value in expected.items():
            assert getattr(row, key) == pytest.approx(value, abs=1e-9), key
        assert row.q_optimist == pytest.approx(1 / (1 + expected["w_optimist"]))


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.booleans())
def test_hypotheses_are_ordered_and_bounded(seed: int, deeper: bool) -> None:
    # per item of B: |β_i − (L+i)| ≤ N − n_b + i − β_i < N, since N ≥ L + n_b and β_i − i ≤ |A|
    ann_lists, run_lists, n_items = random_case(seed)
    res = weighted_displacement(
        answers(ann_lists),
        runs(run_lists),
        n_items=n_items,
        use_deeper_ranks=deeper,
        g="scale_free",
    ).to_frame()
    tol = 1e-9
    assert np.all(res["w_optimist"] <= res["w_exact_pessimist"] + tol)
    assert np.all(res["w_exact_pessimist"] <= res["w_pessimist"] + tol)
    assert np.all(res["w_pessimist"] <= res["w_max"] + tol)
    assert np.all(res["q_optimist"] >= res["q_exact_pessimist"] - tol)
    assert np.all(res["q_exact_pessimist"] >= res["q_pessimist"] - tol)
    for h in HYPOTHESES:
        assert res[f"q_{h}"].between(-tol, 1 + tol).all()


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.integers(0, 20))
def test_identical_lists_give_zero(seed: int, extra: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    items = [f"i{j}" for j in rng.permutation(m)]
    rel = np.sort(rng.random(m))[::-1].tolist()
    for g in ("rational", "exponential", "scale_free"):
        for deeper in (True, False):
            row = one(items, rel, items, m + extra, g=g, use_deeper_ranks=deeper)
            for h in HYPOTHESES:
                assert row[f"w_{h}"] == 0.0
                assert row[f"q_{h}"] == 1.0


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.booleans())
def test_adding_system_only_items(seed: int, deeper: bool) -> None:
    # Set C contributes nothing: appending items the annotator did not list leaves w_A, the
    # exact pessimist and eq. 23 unchanged; the optimist too when the run is cut at m and
    # already has m items. Reading deeper, the optimist's slots move down by the number k of
    # items appended: w_B grows by k Σ_B s when L ≥ m (then L + i > β_i for every i).
    rng = np.random.default_rng(seed)
    pool = [f"i{j}" for j in range(20)]
    m = int(rng.integers(1, 10))
    ann = list(rng.choice(pool, size=m, replace=False))
    rel = np.sort(rng.random(m))[::-1].tolist()
    others = [p for p in pool if p not in ann]
    depth = int(rng.integers(m, m + 5))
    run = list(rng.choice(pool, size=depth, replace=False))
    extra = [p for p in others if p not in run][: int(rng.integers(1, 4))]
    before = one(ann, rel, run, 40, use_deeper_ranks=deeper)
    after = one(ann, rel, run + extra, 40, use_deeper_ranks=deeper)
    for key in ("w_a", "w_exact_pessimist", "w_pessimist", "n_a", "n_b"):
        assert after[key] == pytest.approx(before[key])
    s_b = before["w_b_pessimist"] / 40
    shift = len(extra) * s_b if deeper else 0.0
    assert after["w_optimist"] == pytest.approx(before["w_optimist"] + shift)


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_replacing_system_only_items_never_changes_w(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pool = [f"i{j}" for j in range(15)]
    m = int(rng.integers(1, 8))
    ann = list(rng.choice(pool, size=m, replace=False))
    rel = np.sort(rng.random(m))[::-1].tolist()
    run = list(rng.choice(pool, size=int(rng.integers(1, 10)), replace=False))
    fresh = iter(f"new{j}" for j in range(20))
    swapped = [item if item in ann else next(fresh) for item in run]
    a = one(ann, rel, run, 60)
    b = one(ann, rel, swapped, 60)
    for h in HYPOTHESES:
        assert a[f"w_{h}"] == pytest.approx(b[f"w_{h}"])


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_adjacent_swap_costs_sum_of_relevances(seed: int) -> None:
    # complete orderings, identical lists, then positions j and j+1 swapped in the run:
    # s_j*|j − (j+1)| + s_(j+1)*|(j+1) − j| = s_j + s_(j+1)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 25))
    items = [f"i{j}" for j in range(n)]
    rel = np.sort(rng.random(n))[::-1].tolist()
    j = int(rng.integers(0, n - 1))
    run = items.copy()
    run[j], run[j + 1] = run[j + 1], run[j]
    row = one(items, rel, run, n)
    for h in HYPOTHESES:
        assert row[f"w_{h}"] == pytest.approx(rel[j] + rel[j + 1])


@given(st.floats(0, 1e6), st.floats(0, 1e6), st.floats(0.01, 10), st.floats(1e-4, 10))
def test_g_is_monotone_decreasing_into_unit_interval(x1, x2, p, lam) -> None:
    lo, hi = sorted((x1, x2))
    for g in (RationalG(p=p), ExponentialG(lam=lam)):
        ys = g(np.array([0.0, lo, hi]))
        assert ys[0] == 1.0
        assert 0.0 <= ys[2] <= ys[1] <= 1.0
        check_g(g)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_sort_option_equals_sorted_input(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 12))
    items = [f"i{j}" for j in range(m)]
    rel = np.round(rng.random(m), 1)
    rel[0], rel[1] = 0.1, 0.9  # certainly not sorted
    run = list(rng.permutation(items))
    order = np.argsort(-rel, kind="stable")
    expected = one([items[k] for k in order], rel[order].tolist(), run, m + 3)
    with pytest.warns(UserWarning, match="re-ordered by decreasing relevance"):
        got = one(items, rel.tolist(), run, m + 3, on_unsorted="sort")
    for h in HYPOTHESES:
        assert got[f"w_{h}"] == pytest.approx(expected[f"w_{h}"])


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------

ANN = answers({("q", "u"): [("a", 1.0), ("b", 0.5)]})
RUN = runs({("S", "q"): ["b", "a"]})


def test_duplicate_item_in_annotator_list() -> None:
    ann = answers({("q", "u"): [("a", 1.0), ("a", 0.5)]})
    with pytest.raises(ValueError, match=r"each item at most once per \(query, annotator\).*'a'"):
        weighted_displacement(ann, RUN, n_items=5)


def test_duplicate_item_in_run() -> None:
    run = runs({("S", "q"): ["a", "a"]})
    with pytest.raises(ValueError, match=r"each item at most once per \(system, query\)"):
        weighted_displacement(ANN, run, n_items=5)


def test_duplicate_ranks() -> None:
    ann = ANN.assign(rank=[1, 1])
    with pytest.raises(ValueError, match="must be unique within each"):
        weighted_displacement(ann, RUN, n_items=5)
    with pytest.raises(ValueError, match="run_order='score'"):
        weighted_displacement(ANN, RUN.assign(rank=[3, 3]), n_items=5)


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_relevance_outside_unit_interval(bad: float) -> None:
    with pytest.raises(ValueError, match=r"'relevance' must lie in \[0, 1\]; got 1 values"):
        weighted_displacement(ANN.assign(relevance=[1.0, bad]), RUN, n_items=5)


def test_increasing_relevance_raises_by_default() -> None:
    with pytest.raises(ValueError, match=r"non-increasing down each list.*on_unsorted='sort'"):
        weighted_displacement(ANN.assign(relevance=[0.5, 1.0]), RUN, n_items=5)


def test_increasing_relevance_read_from_a_file_names_its_line(tmp_path) -> None:
    """A relevance that rises down a list read from a file (1e-400 is read as 0) names the
    file and the line where it rises, as every other refusal of an answers file does."""
    path = tmp_path / "answers.csv"
    path.write_text("query_id,annotator_id,item_id,rank,relevance\n"
                    "q,u,a,1,1e-400\nq,u,b,2,0.5\nq,v,b,1,1\n")
    with pytest.raises(ValueError, match=rf"^{path}, line 3: annotations column 'relevance' "
                       r"must be non-increasing"):
        weighted_displacement(read_answers(path), RUN, n_items=5)


def test_n_items_smaller_than_lists() -> None:
    match = r"query 'q', annotator 'u', system 'S' name 3 items but N=2"
    with pytest.raises(ValueError, match=match):
        weighted_displacement(ANN, runs({("S", "q"): ["b", "x"]}), n_items=2)
    # the run longer than N is caught even when it is cut at m
    with pytest.raises(ValueError, match=match):
        weighted_displacement(
            ANN, runs({("S", "q"): ["a", "b", "x"]}), n_items=2, use_deeper_ranks=False
        )
    with pytest.raises(ValueError, match="n_items must be >= 1"):
        weighted_displacement(ANN, RUN, n_items={"q": 0})
    with pytest.raises(ValueError, match="missing 1 queries"):
        weighted_displacement(ANN, RUN, n_items={"other": 5})
    with pytest.raises(ValueError, match="n_items must be an int or a mapping"):
        weighted_displacement(ANN, RUN, n_items=5.0)


@pytest.mark.parametrize("col", ["relevance", "item_id", "rank"])
def test_missing_values(col: str) -> None:
    ann = ANN.astype({col: object})
    ann.loc[1, col] = None
    with pytest.raises(ValueError, match=f"annotations column '{col}' must have no missing"):
        weighted_displacement(ann, RUN, n_items=5)
    run = RUN.astype({"item_id": object})
    run.loc[0, "item_id"] = None
    with pytest.raises(ValueError, match="runs column 'item_id' must have no missing"):
        weighted_displacement(ANN, run, n_items=5)


def test_missing_columns_and_bad_options() -> None:
    with pytest.raises(
        ValueError, match=r"annotations must have columns .* missing \['relevance'\]"
    ):
        weighted_displacement(ANN.drop(columns="relevance"), RUN, n_items=5)
    with pytest.raises(ValueError, match=r"runs must have columns .* missing \['score'\]"):
        weighted_displacement(ANN, RUN, n_items=5, run_order="score")
    with pytest.raises(ValueError, match="run_order must be one of"):
        weighted_displacement(ANN, RUN, n_items=5, run_order="points")
    with pytest.raises(ValueError, match="on_unsorted must be one of"):
        weighted_displacement(ANN, RUN, n_items=5, on_unsorted="ignore")
    with pytest.raises(ValueError, match="g must be 'rational', 'exponential', 'scale_free'"):
        weighted_displacement(ANN, RUN, n_items=5, g="linear")
    with pytest.raises(ValueError, match="columns keys must be among"):
        weighted_displacement(ANN, RUN, n_items=5, columns={"doc": "item"})
    with pytest.raises(ValueError, match="must share query ids"):
        weighted_displacement(ANN, RUN.assign(query_id=1), n_items=5)
    with pytest.raises(ValueError, match="use_deeper_ranks must be True or False"):
        weighted_displacement(ANN, RUN, n_items=5, use_deeper_ranks="yes")
    res = weighted_displacement(ANN, RUN, n_items=5)
    with pytest.raises(ValueError, match="measure must be one of"):
        res.by_query(measure="p")
    with pytest.raises(ValueError, match=r"confidence_level must be a number strictly between"):
        res.bootstrap(confidence_level=95)
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1"):
        res.bootstrap(n_resamples=0)
    with pytest.raises(ValueError, match="p must be a finite number > 0"):
        RationalG(p=0)
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        ExponentialG(lam=-1)


@pytest.mark.parametrize(
    ("g", "message"),
    [
        (lambda x: x / (1 + x), "must be monotone decreasing"),
        (lambda x: 2 / (1 + x), r"must map into \[0, 1\]"),
        (lambda x: np.ones_like(x) * 0.5, "g must decrease"),
        (lambda x: float(x[0]), "must be vectorised"),
        (lambda x: math.exp(-x), "must accept a float array"),
        (lambda x: np.where(x > 1e3, 0.9, 1 / (1 + x)), "must be monotone decreasing"),
    ],
)
def test_bad_g_is_rejected(g, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_g(g)
    with pytest.raises(ValueError, match=message):
        weighted_displacement(ANN, RUN, n_items=5, g=g)



@pytest.mark.parametrize("param", [np.int64(2), np.float32(2.0), np.uint8(2), 2, 2.0])
def test_g_parameters_accept_numpy_numbers(param) -> None:
    # reference: g(3) = 1 / (1 + 3)^2 and exp(-2 * 3), from the definitions after eq. 18
    x = np.array([3.0])
    assert RationalG(p=param)(x) == pytest.approx([1 / 16])
    assert ExponentialG(lam=param)(x) == pytest.approx([math.exp(-6)])
    assert type(RationalG(p=param).p) is float and type(ExponentialG(lam=param).lam) is float


@pytest.mark.parametrize(
    ("g", "reference"),
    [
        (RationalG(p=1e300), lambda w: (1.0 + w) ** -1e300),
        (RationalG(p=700.0), lambda w: (1.0 + w) ** -700.0),
        (ExponentialG(lam=1e300), lambda w: math.exp(-1e300 * w)),
    ],
)
def test_g_with_a_huge_parameter_underflows_to_zero_without_a_warning(g, reference) -> None:
    # (1 + w)^p and λw overflow a double for these legal parameters: g is then 0, its limit.
    # Reference: Python's float arithmetic on the definitions after eq. 18 ((1 + w)^-p and
    # exp(-λw) underflow to 0.0 there, without an error). numpy's overflow RuntimeWarning was
    # passed on to the user, from RationalG(p=1e300) on w = 3 and RationalG(p=700) on w = 3e6.
    w = np.array([0.0, 3.0, 3e6, 3e18])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = g(w)
        res = weighted_displacement(ANN, RUN, n_items=2**62, g=g).to_frame()
    assert got.tolist() == [reference(x) for x in w.tolist()]
    assert got.tolist()[:2] == [1.0, 0.0]
    for h in HYPOTHESES:
        assert res[f"q_{h}"].item() == reference(res[f"w_{h}"].item())


@pytest.mark.parametrize("bad", [True, np.bool_(True), "2", math.nan, math.inf, -1, 0])
def test_g_parameters_refuse_bools_text_and_non_positive(bad) -> None:
    with pytest.raises(ValueError, match=r"^p must be a finite number > 0; got "):
        RationalG(p=bad)
    with pytest.raises(ValueError, match=r"^lam must be a finite number > 0; got "):
        ExponentialG(lam=bad)


@pytest.mark.parametrize(
    ("x", "message"),
    [
        ([1.0, "a"], r"^x must be displacements; numpy could not read them"),
        ([1 + 2j], r"^x must be real numbers; got complex values$"),
        ([3.0, -2.0], r"^x must hold finite displacements >= 0; got 1 values that are not, "
                      r"e\.g\. -2$"),
        ([np.nan, 1.0], r"^x must hold finite displacements >= 0; got 1 values that are not, "
                        r"e\.g\. nan$"),
    ],
)
def test_check_g_names_bad_displacements(x, message: str) -> None:
    # the fault is x's: text was a TypeError, complex numbers were blamed on g
    with pytest.raises(ValueError, match=message):
        check_g(ExponentialG(), x=x)

def test_kernel_rejects_inconsistent_arrays() -> None:
    s = np.array([[1.0, 1.0]])
    with pytest.raises(ValueError, match=r"positions must lie in 0\.\.run_depth"):
        displacement_kernel(
            s, np.array([[3, 0]]), lengths=np.array([2]), run_depth=np.array([2]), n_items=10
        )
    with pytest.raises(ValueError, match=r"n_items \(N\) must be at least the run depth"):
        displacement_kernel(
            s, np.array([[1, 0]]), lengths=np.array([2]), run_depth=np.array([2]), n_items=2
        )
    with pytest.raises(ValueError, match="must be 2-D arrays of one shape"):
        displacement_kernel(
            s, np.array([[1]]), lengths=np.array([2]), run_depth=np.array([2]), n_items=2
        )


def test_score_order_is_the_evaluation_ranking_step():
    """run_order='score' ranks through fuzzytruth.runs.rank: the same ties (item id
    descending) and score precision as evaluate()."""
    answers = pd.DataFrame({
        "query_id": "q", "annotator_id": "x", "item_id": ["a", "b", "c"], "rank": [1, 2, 3],
        "relevance": [1.0, 0.5, 0.25]})
    runs = pd.DataFrame({"system": "S", "query_id": "q", "item_id": ["a", "b", "c"],
                         "score": [1.0000000001, 1.0, 0.5]})
    from fuzzytruth.runs import Run, rank

    for dtype in ("float64", "float32"):
        run = Run(runs["query_id"], runs["item_id"], runs["score"])
        order = run.doc_ids[rank(run, score_dtype=dtype).rows].tolist()
        res = weighted_displacement(answers, runs, n_items=10, run_order="score",
                                    score_dtype=dtype)
        # w_a = Σ s_k |k - π_k| over the annotator's items, with π from the shared ranking
        expected = sum(s * abs(k - (order.index(i) + 1))
                       for k, (i, s) in enumerate(zip("abc", [1.0, 0.5, 0.25], strict=True), 1))
        assert res.to_frame()["w_a"].item() == pytest.approx(expected)
    assert order == ["b", "a", "c"]  # float32: a and b tie, item id descending


def test_a_table_of_scores_given_as_runs_says_how_it_goes_in():
    # the displacement reads a runs table of ranks (system, query_id, item_id, rank); a run's
    # usual table of scores was answered with the missing columns alone
    answers = pd.DataFrame({"query_id": ["q"] * 2, "annotator_id": ["x", "x"],
                            "item_id": ["a", "b"], "rank": [1, 2], "relevance": [1.0, 0.5]})
    scores = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match=r"runs must have columns .* \(a run's table of scores "
                                         r"is Run\.from_dataframe\(frame, name=\.\.\.\), given "
                                         r"as a Run or \{name: Run\}\); missing"):
        weighted_displacement(answers, scores, n_items=10)
    as_run = weighted_displacement(answers, Run.from_dataframe(scores, name="s"), n_items=10)
    ranks = pd.DataFrame({"system": "s", "query_id": "q", "item_id": ["a", "b"], "rank": [1, 2]})
    pd.testing.assert_frame_equal(as_run.to_frame(), weighted_displacement(
        answers, ranks, n_items=10).to_frame())
    with pytest.raises(ValueError, match=r"\(rename through columns=\)"):
        weighted_displacement(answers, ranks.drop(columns="rank"), n_items=10)
    # the systems' scores (a system column): ranked where run_order says so
    systems = ranks.drop(columns="rank").assign(score=[2.0, 1.0])
    with pytest.raises(ValueError, match=r"\(a table of scores is ranked with "
                                         r"run_order='score'\); missing \['rank'\]"):
        weighted_displacement(answers, systems, n_items=10)
    pd.testing.assert_frame_equal(as_run.to_frame(), weighted_displacement(
        answers, systems, n_items=10, run_order="score").to_frame())
