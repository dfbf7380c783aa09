"""compare(): the tidy table, inputs (arrays, mappings, long frames), renderings and errors."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fuzzytruth import Qrels, Run, evaluate
from fuzzytruth._random import draw_seed, named_stream
from fuzzytruth.stats import (
    ResamplingResolutionWarning,
    ScoreMatrix,
    adjust_pvalues,
    compare,
    paired_bootstrap,
    paired_inference,
    paired_test,
    scores_from_frame,
    truth_decomposition,
)
from fuzzytruth.stats.compare import PAIR_COLUMNS, SYSTEM_COLUMNS


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    base = rng.random(40)
    return np.vstack([
        base,
        base + 0.08 + 0.1 * rng.standard_normal(40),
        base + 0.01 * rng.standard_normal(40),
        base - 0.05 + 0.1 * rng.standard_normal(40),
    ])


def long_frame(values, measure, systems, worlds=False):
    """Tidy long table with columns system, query_id, measure, value[, world]."""
    values = np.asarray(values)
    if worlds:
        w, k, n = values.shape
        idx = np.indices((w, k, n)).reshape(3, -1)
        return pd.DataFrame({
            "world": idx[0], "system": np.asarray(systems)[idx[1]],
            "query_id": [f"q{j}" for j in idx[2]], "measure": measure,
            "value": values.ravel(),
        })
    k, n = values.shape
    return pd.DataFrame({
        "system": np.repeat(systems, n), "query_id": np.tile([f"q{j}" for j in range(n)], k),
        "measure": measure, "value": values.ravel(),
    })


def test_table_columns_and_values_against_the_building_blocks(scores):
    res = compare(scores, systems=list("ABCD"), measure="AP", n_resamples=2000, rng=3)
    t = res.table
    assert list(t.columns) == list(PAIR_COLUMNS)
    assert list(res.systems.columns) == list(SYSTEM_COLUMNS)
    assert len(t) == 6 and (t["measure"] == "AP").all()
    assert list(zip(t.system_a, t.system_b, strict=True))[:3] == [("A", "B"), ("A", "C"),
                                                                 ("A", "D")]
    test = paired_test(scores, method="t")
    np.testing.assert_allclose(t["statistic"], test.statistic)
    np.testing.assert_allclose(t["pvalue"], test.pvalue)
    np.testing.assert_allclose(t["pvalue_adjusted"], adjust_pvalues(test.pvalue))
    np.testing.assert_allclose(t["difference"], t["mean_a"] - t["mean_b"])
    # The default interval is the t interval, the dual of the t test (scipy as the oracle).
    for row in t.itertuples():
        a, b = "ABCD".index(row.system_a), "ABCD".index(row.system_b)
        ci = sps.ttest_rel(scores[a], scores[b]).confidence_interval(0.95)
        assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert (t["wins"] + t["ties"] + t["losses"] == 40).all()
    assert t.loc[0, "interval"] == "t" and t.loc[0, "confidence_level"] == 0.95
    assert (t["estimand"] == "queries").all()
    assert (t["hypothesis"] == "mean difference = 0").all()


def test_same_seed_same_table_and_bootstrap_drawn_from_rng(scores):
    a = compare(scores, method="randomization", n_resamples=500, rng=1).table
    b = compare(scores, method="randomization", n_resamples=500, rng=1).table
    pd.testing.assert_frame_equal(a, b)
    # The bootstrap draws from the measure's own stream, derived from the one rng.
    c = compare(scores, n_resamples=500, method="percentile", rng=np.random.default_rng(4))
    stream = named_stream(draw_seed(np.random.default_rng(4)), "score")
    boot = paired_bootstrap(scores, n_resamples=500, rng=stream)
    ci = boot.confidence_interval(method="percentile")
    np.testing.assert_allclose(c.table["ci_low"], ci.low)
    np.testing.assert_allclose(c.table["ci_high"], ci.high)
    np.testing.assert_allclose(c.table["pvalue"], boot.pvalue(method="percentile"))


def test_baseline_pairs_put_baseline_second(scores):
    res = compare(scores, systems=list("ABCD"), baseline="C", n_resamples=200, rng=0)
    t = res.table
    assert t["system_a"].tolist() == ["A", "B", "D"]
    assert (t["system_b"] == "C").all()
    means = scores.mean(axis=1)
    np.testing.assert_allclose(t["difference"], means[[0, 1, 3]] - means[2])


def test_a_flag_is_no_baseline_and_a_bootstrap_no_t_test(scores):
    # True == 1: baseline=True compared every system with system 1 (found by the stats hunt)
    with pytest.raises(ValueError, match=r"baseline must be one of the systems \[1, 2, 3, 4\] "
                       r"\(measure 'score'\); got True"):
        compare(scores, systems=[1, 2, 3, 4], baseline=True, method="t")
    by_number = compare(scores, systems=[1, 2, 3, 4], baseline=1, method="t").table
    assert (by_number["system_b"] == 1).all()
    # systems are named by text: evaluate({1: run, ...}) names the system "1", and baseline=1,
    # Evaluation.value(1, ...) find it (they were refused: "must be one of ['1', '2']; got 1")
    run = Run(["q1", "q1", "q2", "q2", "q3", "q3"], list("abbaab"), [2.0, 1.0] * 3)
    other = Run(["q1", "q1", "q2", "q2", "q3", "q3"], list("ab") * 3, [2.0, 1.0] * 3)
    ev = evaluate({1: run, 2: other}, Qrels(["q1", "q2", "q3"], ["a", "a", "b"], [1, 1, 1]),
                  "AP")
    assert compare(ev, baseline=1).table["system_b"].tolist() == ["1"]
    assert ev.value(1, "AP") == ev.value("1", "AP") == pytest.approx(2 / 3)
    assert ev.distribution(2, "q1", "AP").mean() == 1.0
    # a bootstrap given to a method that reads none was ignored without a word
    boot = paired_bootstrap(scores, n_resamples=200, rng=0)
    with pytest.raises(ValueError, match=r"bootstrap is read only by the bootstrap methods "
                       r"\['bootstrap', 'bca', 'percentile', 'basic'\]; got method='t'"):
        paired_inference(scores, method="t", bootstrap=boot)
    # compare keeps its own bootstrap for Romano-Wolf beside a t test
    rw = compare(scores, method="t", correction="romano-wolf", n_resamples=200, rng=0).table
    assert rw["pvalue_adjusted"].notna().all()


def test_several_measures_from_a_long_frame_correct_within_each_measure(scores):
    frame = pd.concat([
        long_frame(scores, "AP", list("ABCD")),
        long_frame(scores**2, "P@10", list("ABCD")),
    ])
    res = compare(frame, n_resamples=200, rng=0)
    assert res.table["measure"].unique().tolist() == ["AP", "P@10"]
    for _, block in res.table.groupby("measure"):
        np.testing.assert_allclose(block["pvalue_adjusted"], adjust_pvalues(block["pvalue"]))
    one = compare(frame, measure="P@10", n_resamples=200, rng=0)
    assert one.table["measure"].unique().tolist() == ["P@10"]
    mapping = compare({"AP": scores, "P@10": scores**2}, systems=list("ABCD"),
                      n_resamples=200, rng=0)
    pd.testing.assert_frame_equal(mapping.table, res.table)


@pytest.mark.parametrize("baseline", [None, "C"])
def test_the_world_columns_are_the_public_functions_on_the_same_worlds(scores, baseline):
    """compare() reads the worlds' preference and the truth's share through the checked
    cores (its scores already checked); they are world_preference and truth_decomposition
    of the same worlds and pairs, bit for bit, ties within the tolerance included."""
    from fuzzytruth.stats import truth_decomposition, world_preference

    rng = np.random.default_rng(9)
    worlds = np.round(scores[None] + rng.normal(0, 0.05, size=(25, 4, 40)), 1)
    res = compare(worlds, systems=list("ABCD"), baseline=baseline, n_resamples=200, rng=1,
                  tie_tolerance=0.01)
    pairs = (np.array([[0, 2], [1, 2], [3, 2]]) if baseline
             else np.array([[a, b] for a in range(4) for b in range(a + 1, 4)]))
    pref = world_preference(worlds, pairs=pairs, tie_tolerance=0.01)
    dec = truth_decomposition(worlds, pairs=pairs)
    t = res.table
    assert (t["prob_tie"] > 0).any()
    np.testing.assert_array_equal(t["prob_a_better"], pref.prob_better)
    np.testing.assert_array_equal(t["prob_tie"], pref.prob_tie)
    np.testing.assert_array_equal(t["var_truth"], dec.var_truth)
    np.testing.assert_array_equal(t["share_truth"], dec.share_truth)


def test_worlds_give_the_collection_estimand_on_expected_scores(scores):
    rng = np.random.default_rng(5)
    worlds = scores[None] + rng.normal(0, 0.05, size=(30, 4, 1)) + rng.normal(
        0, 0.02, size=(30, 4, 40))
    res = compare(worlds, n_resamples=1000, rng=2)
    t = res.table
    assert t.loc[0, "interval"] == "t" and (t["n_worlds"] == 30).all()
    assert (t["estimand"] == "collection").all() and (res.systems["estimand"] == "collection").all()
    np.testing.assert_allclose(t["prob_a_better"] + t["prob_tie"] <= 1.0, True)
    # Test and interval both run on each query's expected score (the mean over worlds).
    expected = worlds.mean(axis=0)
    np.testing.assert_allclose(t["pvalue"], paired_test(expected).pvalue)
    ci = sps.ttest_rel(expected[0], expected[1]).confidence_interval(0.95)
    assert (t.loc[0, "ci_low"], t.loc[0, "ci_high"]) == pytest.approx((ci.low, ci.high))
    dec = truth_decomposition(worlds)
    np.testing.assert_allclose(t["var_truth"], dec.var_truth)
    np.testing.assert_allclose(t["var_queries"] + t["var_truth"],
                               [(expected[a] - expected[b]).var(ddof=1) / 40
                                for a, b in zip(*np.triu_indices(4, 1), strict=True)])
    frame = long_frame(worlds, "nDCG", ["system0", "system1", "system2", "system3"], worlds=True)
    sm = scores_from_frame(frame)["nDCG"]
    # queries sorted by id (issue 23: the order of the rows changed results), q10 before q2
    order = np.argsort([f"q{j}" for j in range(40)], kind="stable")
    assert sm.queries == tuple(f"q{j}" for j in order)
    np.testing.assert_allclose(sm.values, worlds[..., order])
    via_frame = compare(frame, n_resamples=1000, rng=2).table
    np.testing.assert_allclose(via_frame["ci_low"], t["ci_low"])
    assert "P(A>B)" in res.summary() and 'estimand "collection"' in res.summary()


def test_tukey_corrections(scores):
    rand = compare(scores, correction="tukey-randomized", n_resamples=2000, rng=0).table
    anova = compare(scores, correction="tukey-anova", n_resamples=200, rng=0).table
    assert (rand["correction"] == "tukey-randomized").all()
    np.testing.assert_allclose(rand["pvalue_adjusted"], anova["pvalue_adjusted"], atol=0.05)
    with pytest.raises(ValueError, match=r"correction='tukey-anova' is two-sided only; "
                                         r"alternative must be 'two-sided', got 'greater'"):
        compare(scores, correction="tukey-anova", alternative="greater")


def test_resolution_warning_from_compare(scores):
    with pytest.warns(
        ResamplingResolutionWarning, match="n_resamples=50 is too small for 6"
    ) as record:
        compare(scores, method="randomization", correction="bonferroni", n_resamples=50, rng=0)
    assert record[0].filename == __file__  # points at the caller of compare()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(scores, method="randomization", correction="none", n_resamples=50, rng=0)


def test_exact_randomization_resolution_warning_counts_sign_flips_not_resamples():
    # Up to 16 queries every sign flip is enumerated: the smallest p-value is 2 / 2**n
    # two-sided (the all-positive and all-negative flips), whatever n_resamples is. Read as
    # B = 2**n resamples the warning said "n_resamples=8 ... 1/(B+1)=0.111" for 3 queries,
    # and said nothing for 36 pairs on 10 queries (Holm: 36 x 2/1024 = 0.07 > 0.05).
    rng = np.random.default_rng(0)
    three = rng.random((2, 3))
    with pytest.warns(ResamplingResolutionWarning,
                      match=r"all 2\*\*3 sign flips and its smallest two-sided p-value is "
                            r"0.25") as record:
        compare(three, method="randomization")
    assert "n_resamples" not in str(record[0].message)
    assert record[0].filename == __file__
    many = rng.random((9, 10))
    with pytest.warns(ResamplingResolutionWarning, match="with 36 tests it cannot pass"):
        table = compare(many, method="randomization").table
    assert (table["pvalue_adjusted"] >= 0.05).all()
    # one-sided the smallest p is 1/1024 and Holm's 36 x 1/1024 = 0.035 passes: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResamplingResolutionWarning)
        compare(many, method="randomization", alternative="greater")
        compare(rng.random((2, 12)), method="randomization")


def test_summary_and_latex(scores):
    res = compare(scores, systems=["bm25", "dense_v2", "c", "d"], n_resamples=300, rng=0)
    text = str(res)
    assert text == res.summary()
    # one rendering (issue 22): the report's description, tables and notes
    assert text.startswith("paired t test with its t interval") and "dense_v2" in text
    assert "Holm correction" in text and 'estimand "queries"' in text
    latex = res.to_latex(caption="50% of runs", label="tab:cmp")
    assert latex.startswith("\\begin{table}") and latex.rstrip().endswith("\\end{table}")
    assert "dense\\_v2" in latex and "\\label{tab:cmp}" in latex
    # the caption says what was computed, after the caller's words
    assert "\\caption{50\\% of runs. Paired t test with its t interval" in latex
    assert "estimand ``queries''" in latex and "Starred rows (*)" in latex
    assert latex.count("\\\\") == len(res.table) + 1  # header + one row per pair
    significant = res.significant()
    assert latex.count("\\mathbf") == len(significant)
    # a label is written as it is: what would break \label{...} is refused (was written)
    for bad in ("tab:a}b", "50%", "", "a\nb", 5):
        with pytest.raises(ValueError, match="label must be a non-empty str without"):
            res.to_latex(label=bad)
    with pytest.raises(ValueError, match="caption must be a str or None; got 3"):
        res.to_latex(caption=3)
    # a caption's own question mark is kept ("?." before); a system name holding a blank
    # line (which ends the tabular's paragraph: a LaTeX error) is written on one line
    asked = res.to_latex(caption="Is dense_v2 better?")
    assert "\\caption{Is dense\\_v2 better? Paired t test" in asked
    broken = compare(scores, systems=["bm25", "dense\n\nv2", "c", "d"], n_resamples=300,
                     rng=0).to_latex()
    assert "\n\n" not in broken.split("\\begin{tabular}")[1] and "dense  v2" in broken


def test_long_frame_labels_with_the_same_text_are_refused(scores):
    # 1 and "1" were two systems (two queries, or two measures, the second overwriting the
    # first in the dict of score matrices) that every table printed as "1"
    frame = long_frame(scores, "AP", list("ABCD"))
    systems = frame.assign(system=frame["system"].map({"A": 1, "B": "1", "C": "C", "D": "D"}))
    with pytest.raises(ValueError, match=r"frame column 'system' must name each label once "
                                         r"as text; got \[1, '1'\]"):
        scores_from_frame(systems)
    with pytest.raises(ValueError, match=r"frame column 'query_id' must name each label"):
        scores_from_frame(frame.assign(query_id=frame["query_id"].replace({"q0": 0, "q1": "0"})))
    twice = pd.concat([frame.assign(measure=1), frame.assign(measure="1")])
    with pytest.raises(ValueError, match=r"frame column 'measure' must name each label"):
        scores_from_frame(twice)
    # labels of one type stay as they are
    numbered = frame.assign(system=frame["system"].map({"A": 1, "B": 2, "C": 3, "D": 4}))
    assert scores_from_frame(numbered)["AP"].systems == (1, 2, 3, 4)
    # and labels given beside an array: compare's table showed "1 vs 1"
    x = np.random.default_rng(0).random((2, 30))
    with pytest.raises(ValueError, match=r"^systems must be unique \(as text\); repeated: 1 "
                                         r"and '1' \(one text\)$"):
        compare(x, systems=[1, "1"])
    with pytest.raises(ValueError, match=r"queries must be unique \(as text\)"):
        compare(x, queries=[*range(15), *map(str, range(15))])


def test_long_frame_errors(scores):
    frame = long_frame(scores, "AP", list("ABCD"))
    with pytest.raises(ValueError, match=r"frame must have columns \['system', 'query_id', "
                                         r"'measure', 'value'\].*missing \['value'\]"):
        scores_from_frame(frame.drop(columns="value"))
    with pytest.raises(ValueError, match=r"expected 160 rows, got 159 \(1 missing\)"):
        scores_from_frame(frame.iloc[1:])
    with pytest.raises(ValueError, match=r"more than one value for measure 'AP' and "
                                         r"system='A', query_id='q0'"):
        scores_from_frame(pd.concat([frame, frame.iloc[:1]]))
    bad = frame.copy()
    bad.loc[3, "value"] = np.inf
    with pytest.raises(ValueError, match=r"value \(measure 'AP'\) must be finite"):
        scores_from_frame(bad)
    with pytest.raises(ValueError, match=r"measure must be one of \['AP'\]; got 'P@5'"):
        compare(frame, measure="P@5")
    with pytest.raises(ValueError, match="systems and queries must be None"):
        compare(frame, systems=list("ABCD"))
    # labels given beside a ScoreMatrix were ignored without a word
    matrix = ScoreMatrix(np.arange(12.0).reshape(2, 6) % 5, systems=("A", "B"))
    with pytest.raises(ValueError, match="systems and queries must be None when scores is a "
                       "ScoreMatrix; the labels come from it"):
        compare(matrix, systems=["B", "A"])
    with pytest.raises(ValueError, match="systems and queries must be None when scores holds "
                       "a ScoreMatrix"):
        compare({"AP": matrix}, queries=list("abcdef"))


@pytest.mark.parametrize("column", ["system", "query_id", "measure", "world"])
def test_long_frame_refuses_missing_labels(scores, column):
    # A row whose label was missing silently took another label (factorize codes it -1, read
    # as the last label in order of appearance): a lost query id became q39, whatever it was.
    frame = long_frame(scores, "AP", list("ABCD")).assign(world=0)
    row = int(np.flatnonzero(frame["system"] == "A")[-1])
    frame[column] = frame[column].astype(object)
    frame.loc[row, column] = None
    with pytest.raises(ValueError, match=rf"frame column '{column}' must not contain missing "
                                         rf"values; got 1 \(the first at row {row}\)"):
        scores_from_frame(frame)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # were read as scores: the imaginary parts dropped, a 2024 date as 1.7e15 (seconds
        # since 1970 in microseconds), a duration as its count of microseconds
        (lambda v: np.asarray(v) + 2j, "got complex values"),
        (lambda v: pd.to_datetime(["2024-05-01"] * len(v)), "got dates or durations"),
        (lambda v: pd.to_timedelta(np.arange(len(v)), unit="s"), "got dates or durations"),
        (lambda v: [complex(v[0], 1), *v[1:]], "got complex values"),
        (lambda v: [pd.Timestamp("2024-05-01"), *v[1:]], "got dates or durations"),
    ],
)
def test_long_frame_refuses_complex_values_and_dates(scores, value, message):
    frame = long_frame(scores, "AP", list("ABCD"))
    bad = frame.assign(value=value(frame["value"].tolist()))
    with pytest.raises(ValueError, match=rf"value \(measure 'AP'\) must be real numbers; "
                                         rf"{message}"):
        scores_from_frame(bad)


def test_long_frame_names_the_row_of_a_value_that_is_not_a_number(scores):
    frame = long_frame(scores, "AP", list("ABCD"))
    as_text = scores_from_frame(frame.assign(value=frame["value"].astype(str)))["AP"].values
    assert np.array_equal(as_text, scores_from_frame(frame)["AP"].values)  # text of numbers
    text = frame.assign(value=frame["value"].astype(object))
    text.loc[5, "value"] = "n/a"
    with pytest.raises(ValueError, match=r"value \(measure 'AP'\) must be finite numbers; found "
                                         r"1 that are not, the first at row 5 \(system='A', "
                                         r"query_id='q5'\): 'n/a'"):
        scores_from_frame(text)
    # a float64 column and integer query ids: shown as numbers, not np.float64(inf)
    numbers = frame.assign(query_id=frame["query_id"].str[1:].astype(np.int64))
    numbers.loc[5, "value"] = np.inf
    with pytest.raises(ValueError, match=r"the first at row 5 \(system='A', query_id=5\): "
                                         r"inf$"):
        scores_from_frame(numbers)


def test_compare_argument_errors(scores):
    with pytest.raises(ValueError, match=r"baseline must be one of the systems \['system0'"):
        compare(scores, baseline="bm25")
    # the message listed every label given (all 40 query ids) instead of the repeated ones
    queries = [f"q{i % 7}" for i in range(scores.shape[1])]
    with pytest.raises(ValueError, match=r"^queries must be unique \(as text\); repeated: 'q0', "
                                         r"'q1', 'q2', 'q3', 'q4', …$"):
        compare(scores, queries=queries)
    with pytest.raises(ValueError, match=r"correction must be one of \['holm', 'bonferroni', "
                                         r"'bh', 'by', 'romano-wolf', 'tukey-randomized', "
                                         r"'tukey-anova', 'none'\]; got 'fdr_bh'"):
        compare(scores, correction="fdr_bh")
    with pytest.raises(ValueError, match=r"method must be one of \['t', 'bootstrap', 'bca', "
                                         r"'percentile', 'basic', 'randomization', 'wilcoxon', "
                                         r"'sign'\]; got 'anova'"):
        compare(scores, method="anova")
    with pytest.raises(ValueError, match=r"alpha must equal 1 - confidence_level so that a "
                                         r"star never sits beside an interval that contains 0; "
                                         r"got alpha=0.01 with confidence_level=0.95"):
        compare(scores, alpha=0.01, confidence_level=0.95)
    # alpha alone gives the level (it was refused, the default 0.95 disagreeing with it)
    strict = compare(scores, alpha=0.01)
    assert strict.alpha == 0.01 and (strict.table["confidence_level"] == 0.99).all()
    pd.testing.assert_frame_equal(strict.table, compare(scores, confidence_level=0.99).table)
    with pytest.raises(ValueError, match=r"systems must have 4 entries to match scores; got 2"):
        compare(scores, systems=["a", "b"])
    with pytest.raises(ValueError, match=r"systems must be unique"):
        compare(scores, systems=["a", "a", "b", "c"])
    with pytest.raises(ValueError, match=r"alpha must be a number strictly between 0 and 1"):
        compare(scores, alpha=5)
    with pytest.raises(ValueError, match=r"at least 2 queries"):
        compare(scores[:, :1])
    with pytest.raises(ValueError, match=r"comparing systems needs at least 3 queries .*got 2"):
        compare(scores[:, :2])


def test_an_evaluation_of_too_few_queries_is_refused_in_the_comparison_s_words():
    """compare(evaluation) of one query gave the score matrix's "scores must hold at least 2
    queries (last axis)" (a parameter the user never built); it now says what a comparison
    needs. Queries that undefined='skip' leaves without a value are counted by name."""
    queries = ["q", "r", "s"]
    run = Run(np.repeat(queries, 2), ["a", "b"] * 3, [1.0, 2.0] * 3)
    one = evaluate({"A": run, "B": run}, Qrels(["q"], ["a"], [1]), ["AP"])
    assert len(one.queries) == 1
    with pytest.raises(ValueError, match=r"^comparing systems needs at least 3 queries \(with "
                       r"1 no test or interval means anything\); got 1$"):
        compare(one)
    skipped = evaluate({"A": run, "B": run}, Qrels(np.repeat(queries, 2), ["a", "b"] * 3,
                                                    [1, 0, 0, 0, 0, 0]), ["AP"],
                       undefined="skip")
    with pytest.raises(ValueError, match=r"^measure 'AP' has a value on 1 of the 3 queries "
                       r"\(the others are undefined under undefined='skip'"):
        compare(skipped)


def test_worlds_left_undefined_by_skip_are_refused_saying_to_score_them():
    """Under undefined='skip' a query can have an expected AP (the mean over the worlds where
    it has a relevant document) and no value in the others: the world-by-world statistics
    are refused (the NaN found in the worlds' least value, not a mask of them), and
    undefined='zero' evaluates the same worlds."""
    from fuzzytruth import ProbabilisticQrels

    queries = [f"q{i}" for i in range(6)]
    run = Run(np.repeat(queries, 2), ["a", "b"] * 6, [2.0, 1.0] * 6)
    other = Run(np.repeat(queries, 2), ["a", "b"] * 6, [1.0, 2.0] * 6)
    truth = ProbabilisticQrels(queries, ["a"] * 6, [0.5] * 6)
    skipped = evaluate({"A": run, "B": other}, truth, ["AP"], n_worlds=40, rng=1,
                       undefined="skip")
    assert np.isnan(skipped.world_scores("AP")).any()
    with pytest.raises(ValueError, match=r"^measure 'AP' is undefined in some worlds "
                       r"\(undefined='skip'\): .* evaluate with undefined='zero'$"):
        compare(skipped)
    zero = evaluate({"A": run, "B": other}, truth, ["AP"], n_worlds=40, rng=1)
    assert set(compare(zero).systems["measure"]) == {"AP"}


@pytest.mark.parametrize("level", [1 - 4e-13, 1 - 1e-15, 1e-13, 1e-300])
@pytest.mark.parametrize("method", ["t", "bca", "randomization"])
def test_a_level_whose_alpha_rounds_to_0_or_1_is_refused_naming_confidence_level(
    scores, level, method
):
    # alpha is 1 - confidence_level rounded to 12 decimals: 0 or 1 here. The t procedure gave
    # a NaN interval beside alpha=0.0 (no star possible) and the resampling ones an error
    # about an alpha that was never given
    message = (r"confidence_level must differ from 0 and from 1 by more than 5e-13: every "
               r"test rejects when p < alpha, 1 - confidence_level rounded to 12 decimals, "
               rf"which would be [01]; got {re.escape(repr(level))}")
    with pytest.raises(ValueError, match=message):
        compare(scores, method=method, confidence_level=level, n_resamples=99, rng=0)
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(scores, n_resamples=99, rng=0).confidence_interval(level)
    assert compare(scores[:2], method=method, confidence_level=1 - 1e-12, n_resamples=99,
                   rng=0).alpha == 1e-12


@pytest.mark.parametrize("alpha", [1e-300, 4e-13, 1 - 1e-15])
def test_an_alpha_that_rounds_to_0_or_1_is_refused_naming_alpha(scores, alpha):
    # alpha=1e-300 passed alpha's own check, then made confidence_level 1.0, and the error
    # named confidence_level, which the user had not given
    with pytest.raises(ValueError, match=r"^alpha must differ from 0 and from 1 by more than "
                                         rf"5e-13: .* which would be [01]; got {alpha!r}$"):
        compare(scores, alpha=alpha)
    assert compare(scores[:2], alpha=1e-12, n_resamples=99, rng=0).alpha == 1e-12


@pytest.mark.parametrize("measure", [5, np.nan, ["AP"], b"AP"])
def test_a_measure_name_that_is_not_a_str_is_refused(scores, measure):
    # measure=5 labelled the rows np.int64(5) and drew another random stream than the same
    # scores given as {"5": scores} or as a table whose measure column holds 5 (read as "5"):
    # other bootstrap numbers for the same input; ["AP"] raised TypeError (unhashable), NaN a
    # ValueError about converting NaN to an integer
    with pytest.raises(ValueError, match=r"measure must be a str \(a measure's name\) or None; "
                                         rf"got {re.escape(repr(measure))}"):
        compare(scores, measure=measure, method="bca", rng=1)
    with pytest.raises(ValueError, match=r"measure must be a str \(a measure's name\); got"):
        ScoreMatrix(scores, measure=measure)
    named = compare({"5": scores}, method="bca", rng=1).table
    assert named["measure"].tolist() == ["5"] * len(named)


def test_compare_reads_an_evaluation_with_its_worlds():
    from fuzzytruth import Run, evaluate
    from fuzzytruth.datasets import santini_illustrative

    ex = santini_illustrative()
    items = list(ex.membership.items)
    rng = np.random.default_rng(3)
    rows = [
        (system, q, d, float(s))
        for system in ("a", "b")
        for q in items[:8]
        for d, s in zip(items, rng.random(len(items)), strict=True)
        if d != q
    ]
    frame = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    runs = {
        name: Run.from_dataframe(group.drop(columns="system"), name=name)
        for name, group in frame.groupby("system")
    }
    evaluation = evaluate(runs, ex.membership, ["P@5"], n_worlds=50, rng=1)
    direct = compare(evaluation, rng=0).table
    # the same numbers from the arrays the Evaluation hands over (its one reading place)
    via_matrix = compare(
        ScoreMatrix(evaluation.world_scores("P@5"), systems=evaluation.systems,
                    queries=evaluation.queries, measure="P@5",
                    expected=evaluation.query_means("P@5")),
        rng=0,
    ).table
    pd.testing.assert_frame_equal(direct, via_matrix)
    assert direct["n_worlds"].iloc[0] == 50
    assert (direct["estimand"] == "collection").all()


# ---- reproducibility: independent streams per measure ---------------------------------------

repro_methods = st.sampled_from(["t", "bootstrap", "percentile", "bca", "randomization"])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), repro_methods)
def test_adding_a_measure_or_a_system_does_not_change_another_measures_numbers(seed, method):
    rng = np.random.default_rng(seed)
    ap = rng.random((3, 30))
    extra = rng.random((3, 30))
    cols = ["system_a", "system_b", "ci_low", "ci_high", "pvalue"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = compare({"AP": ap}, method=method, n_resamples=300, rng=seed).table
        both = compare({"P@10": extra, "AP": ap}, method=method, n_resamples=300,
                       rng=seed).table
        bigger = compare({"AP": np.vstack([ap, extra[:1]])}, method=method, n_resamples=300,
                         rng=seed).table
    pd.testing.assert_frame_equal(alone[cols], both[both["measure"] == "AP"][cols]
                                  .reset_index(drop=True))
    # a fourth system: the first three systems' pairs keep their intervals and p-values
    kept = bigger[bigger["system_b"] != "system3"][cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone[cols], kept, rtol=1e-9)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1),
       st.sampled_from(["t", "bootstrap", "percentile", "randomization"]),
       st.sampled_from(["holm", "bh", "romano-wolf", "tukey-randomized", "tukey-anova", "none"]))
def test_a_star_never_sits_beside_an_interval_that_contains_zero(seed, method, correction):
    rng = np.random.default_rng(seed)
    x = rng.random((4, 30)) + rng.choice([0.0, 0.15], size=(4, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare(x, method=method, correction=correction, n_resamples=300, rng=seed)
    t = res.table
    starred = t["pvalue_adjusted"] < res.alpha
    assert ((t["ci_low"] > 0) | (t["ci_high"] < 0))[starred].all()
    assert (t["pvalue_adjusted"] >= t["pvalue"]).all()
    assert ((t["pvalue"] < res.alpha) == ((t["ci_low"] > 0) | (t["ci_high"] < 0))).all()
    marked = [ln for ln in res.summary().splitlines()[1:] if ln.rstrip().endswith("*")]
    assert len(marked) == int(starred.sum())


def test_romano_wolf_correction_in_compare(scores):
    res = compare(scores, method="bootstrap", correction="romano-wolf", n_resamples=2000, rng=0)
    t = res.table
    holm = compare(scores, method="bootstrap", correction="holm", n_resamples=2000, rng=0).table
    assert (t["correction"] == "romano-wolf").all()
    # step-down with the pairs' dependence: never more conservative than Holm here
    assert (t["pvalue_adjusted"] <= holm["pvalue_adjusted"] + 0.01).all()


def test_the_summary_names_b_only_where_resamples_were_drawn():
    """Issue 22 item 4: a t test drew no resamples, so its header has no B."""
    x = np.random.default_rng(0).random((3, 30))
    def flat(comparison):  # the summary's prose is wrapped
        return " ".join(comparison.summary().split())

    assert "B =" not in flat(compare(x))
    assert "B = 999 resamples" in flat(compare(x, method="bootstrap", n_resamples=999))
    assert "B = 999 resamples" in flat(compare(x, correction="romano-wolf", n_resamples=999))


@pytest.mark.parametrize("method", ["wilcoxon", "sign"])
def test_rank_and_sign_tests_warn_when_their_smallest_pvalue_cannot_be_significant(method):
    # Their smallest p-value is that of every difference of one sign, 2 / 2**n two-sided
    # (scipy's binomtest and exact wilcoxon give 0.0625 for 5 differences, all positive):
    # with 5 queries no pair can be significant at 0.05, whatever the data; they said nothing.
    a = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    five = np.vstack([a, a - [0.1, 0.2, 0.3, 0.4, 0.5]])
    ref = {"wilcoxon": sps.wilcoxon(five[0], five[1], method="exact").pvalue,
           "sign": sps.binomtest(5, 5).pvalue}[method]
    with pytest.warns(ResamplingResolutionWarning,
                      match=r"^with 5 queries the .* smallest two-sided p-value is 0.0625 "
                            r"\(every difference of one sign\): with 1 tests it cannot pass "
                            r"the 'holm' correction at alpha=0.05, .*more queries would "
                            r"change that\)$") as record:
        table = compare(five, method=method).table
    assert record[0].filename == __file__
    assert table.loc[0, "pvalue"] == pytest.approx(ref, rel=1e-12) == 0.0625
    # six all-positive differences reach 2 / 64 = 0.031: one pair can be significant, silent;
    # 21 pairs under Holm need 21 x 0.031 < 0.05: they cannot
    six = np.random.default_rng(1).random((7, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResamplingResolutionWarning)
        compare(six[:2], method=method)
    with pytest.warns(ResamplingResolutionWarning, match="with 21 tests it cannot pass"):
        compare(six, method=method)


def test_a_measure_is_found_in_results_in_any_spelling_evaluate_takes():
    # evaluate(..., ["map", "P_5"]) labels its measures "AP" and "P@5"; asking the result or
    # compare() for "map" was refused ("measure must be one of ['AP', 'P@5']; got 'map'")
    rng = np.random.default_rng(0)
    queries = [f"q{i}" for i in range(30)]
    runs = {s: Run(np.repeat(queries, 5), np.tile(list("abcde"), 30), rng.random(150), name=s)
            for s in "AB"}
    qrels = Qrels(np.repeat(queries, 2), np.tile(list("ac"), 30), np.ones(60))
    evaluation = evaluate(runs, qrels, ["map", "P_5"])
    assert evaluation.measures == ("AP", "P@5")
    for spelling, label in (("map", "AP"), ("MAP", "AP"), ("P_5", "P@5"), ("P.5", "P@5")):
        assert compare(evaluation, measure=spelling).table["measure"].tolist() == [label]
        np.testing.assert_array_equal(evaluation.query_means(spelling),
                                      evaluation.query_means(label))
    assert evaluation.distribution("A", "q0", "map").mean() == evaluation.distribution(
        "A", "q0", "AP").mean()
    # and a table's own spelling is found from the canonical one
    frame = long_frame(rng.random((2, 30)), "map", ["A", "B"])
    assert compare(frame, measure="AP").table["measure"].tolist() == ["map"]
    with pytest.raises(ValueError, match=r"^measure must be one of \['AP', 'P@5'\]; got 'R@5'$"):
        compare(evaluation, measure="R@5")
    both = pd.concat([frame, long_frame(rng.random((2, 30)), "AP", ["A", "B"])])
    with pytest.raises(ValueError, match=r"measure must be one of \['AP', 'map'\]; got 'MAP'"):
        compare(both, measure="MAP")  # two labels spell it: neither is chosen
    # the printed table and the plots follow the same rule (they refused "map")
    import matplotlib

    matplotlib.use("Agg")
    from fuzzytruth.plots import plot_query_distribution, plot_system_intervals
    from fuzzytruth.report import comparison_table

    comparison = compare(evaluation, rng=0)
    assert comparison_table(comparison, "map").equals(comparison_table(comparison, "AP"))
    assert plot_system_intervals(evaluation, measure="MAP").get_xlabel() == (
        "AP, mean over queries")
    assert plot_query_distribution(evaluation, "A", "q0", "map").get_xlabel() == "AP"
    matplotlib.pyplot.close("all")


def test_truth_decomposition_by_blocks_of_queries_is_the_whole_one(monkeypatch):
    """The differences of 100,000 queries × 1,000 worlds are 0.8 GB a pair, and var's
    temporaries as much again: they are taken a block of queries at a time within the
    memory budget: the same numbers to rounding (NumPy may add a block's worlds in another
    order; the worlds' means over the queries are sums of the blocks' sums). Oracle: the
    formulas over the whole array (its docstring's definitions)."""
    from fuzzytruth.stats import worlds as stats_worlds

    rng = np.random.default_rng(7)
    x = rng.random((40, 3, 1)) * 0.3 + rng.normal(0, 0.05, (40, 3, 57))
    whole = truth_decomposition(x)
    monkeypatch.setattr(stats_worlds, "_BYTES_PER_DIFFERENCE", 1e12)  # one query a block
    blocked = truth_decomposition(x)
    pairs = np.array([(a, b) for a, b in zip(*np.triu_indices(3, 1), strict=True)])
    d = x[:, pairs[:, 0]] - x[:, pairs[:, 1]]
    total = d.mean(axis=0).var(axis=1, ddof=1) / 57
    truth = d.var(axis=0, ddof=1).mean(axis=1) / (40 * 57)
    for dec in (whole, blocked):
        np.testing.assert_allclose(dec.var_truth, np.minimum(truth, total), rtol=1e-13)
        np.testing.assert_allclose(dec.var_queries, np.maximum(total - truth, 0), rtol=1e-13)
        np.testing.assert_allclose(dec.spread_truth, d.mean(axis=2).std(axis=0, ddof=1),
                                   rtol=1e-13)
