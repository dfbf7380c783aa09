"""The report's words come from the result objects (issue 22 item 4): the procedure, estimand,
B (only where resampling is used), the number of worlds, what P(A>B) is, and tables without
columns that carry nothing. Each claim is checked against the objects it was read from."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from fuzzytruth import ProbabilisticQrels, Qrels, Run, evaluate
from fuzzytruth.demo import demo_report
from fuzzytruth.report import (
    PROCEDURES,
    comparison_notes,
    comparison_table,
    comparison_text,
    describe_comparison,
    drop_empty_columns,
    notes_text,
    system_notes,
    system_table,
)
from fuzzytruth.stats import compare
from fuzzytruth.stats.compare import resampling_used

N_QUERIES, N_WORLDS = 30, 40


def _uncertain_inputs():
    """Two systems on 30 queries of probabilistic qrels."""
    rng = np.random.default_rng(11)
    queries = np.repeat([f"q{i:02d}" for i in range(N_QUERIES)], 10)
    docs = np.tile([f"d{j}" for j in range(10)], N_QUERIES)
    probability = rng.uniform(0, 1, queries.size).round(2)
    truth = ProbabilisticQrels(queries, docs, probability)
    scores = rng.random(queries.size)
    runs = {"good": Run(queries, docs, scores + 0.5 * probability),
            "poor": Run(queries, docs, scores)}
    return runs, truth


_UNCERTAIN_RUNS, _UNCERTAIN_TRUTH = _uncertain_inputs()


@pytest.fixture(scope="module")
def uncertain():
    """The two systems, 40 sampled worlds."""
    return evaluate(_UNCERTAIN_RUNS, _UNCERTAIN_TRUTH, ["P@5", "AP"], n_worlds=N_WORLDS, rng=0)


@pytest.fixture(scope="module")
def crisp():
    rng = np.random.default_rng(12)
    queries = np.repeat([f"q{i:02d}" for i in range(N_QUERIES)], 10)
    docs = np.tile([f"d{j}" for j in range(10)], N_QUERIES)
    qrels = Qrels(queries, docs, (rng.random(queries.size) < 0.3).astype(int))
    runs = {name: Run(queries, docs, rng.random(queries.size)) for name in ("a", "b")}
    return evaluate(runs, qrels, ["P@5", "AP"])


def _report(evaluation, comparison) -> str:
    reliability = pd.DataFrame({"category": ["x", "y"], "ambiguous": [False, True]})
    return demo_report(description="test collection", evaluation=evaluation,
                       comparison=comparison, reliability=reliability,
                       figures={"forest.png": "differences"})


def test_report_names_the_method_actually_used(uncertain):
    """Issue 22: the section said "two-level bootstrap over queries and worlds" for a t test."""
    randomized = compare(uncertain, method="randomization", n_resamples=999, rng=0)
    text = _report(uncertain, randomized)
    assert "## Pairwise comparison: " + PROCEDURES["randomization"] in text
    assert PROCEDURES["t"] not in text and "t test" not in text
    assert "two-level bootstrap" not in text
    assert "B = 999 resamples" in text  # 30 queries > 16: sign flips are sampled
    t_test = compare(uncertain, rng=0)
    text = _report(uncertain, t_test)
    assert "## Pairwise comparison: " + PROCEDURES["t"] in text
    assert PROCEDURES["randomization"] not in text
    assert "B =" not in text and "B=" not in text  # no resampling: no B
    assert f"averaged over {N_WORLDS} sampled ground-truth worlds" in text
    assert f"{N_WORLDS} ground-truth worlds (annotator model" not in text  # pq: no world model
    assert "shared by every system (seed 0)" in text  # recorded by evaluate(rng=0)


@pytest.mark.parametrize("method", sorted(PROCEDURES))
def test_describe_comparison_reads_the_table(uncertain, method):
    comparison = compare(uncertain, method=method, n_resamples=199, rng=0)
    text = describe_comparison(comparison)
    table = comparison.table
    assert text.startswith(PROCEDURES[table["method"].iloc[0]])
    assert f'estimand "{table["estimand"].iloc[0]}"' in text
    assert ("B = 199" in text) == resampling_used(table)
    assert resampling_used(table) == (method in ("bootstrap", "bca", "percentile", "basic",
                                                 "randomization"))


def test_resampled_correction_and_exact_randomization():
    rng = np.random.default_rng(0)
    scores = rng.random((3, 12))  # 12 queries: the randomisation test enumerates all flips
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = compare(scores, method="randomization", n_resamples=99, rng=0)
        romano = compare(scores, correction="romano-wolf", n_resamples=99, rng=0)
    assert not resampling_used(exact.table) and "B =" not in describe_comparison(exact)
    assert resampling_used(romano.table) and "B = 99 resamples" in describe_comparison(romano)


def test_p_a_better_footnote_is_what_compare_computes(uncertain):
    comparison = compare(uncertain, rng=0)
    (note,) = [n for n in comparison_notes(comparison) if n.startswith("P(A>B)")]
    assert f"the {N_WORLDS} sampled ground-truth worlds" in note
    assert f"over these {N_QUERIES} queries" in note
    # the share of worlds in which A's mean over the queries beats B's, recomputed
    worlds = uncertain.world_scores("AP")  # (worlds, systems, queries)
    means = worlds.mean(axis=2)
    expected = float((means[:, 0] > means[:, 1]).mean())
    row = comparison.table.query("measure == 'AP'").iloc[0]
    assert row["prob_a_better"] == pytest.approx(expected)
    shown = comparison_table(comparison, "AP")["P(A>B)"].iloc[0]
    assert shown == f"{expected:.2f}"


@pytest.mark.parametrize("reversed_worlds", [1, 399])
def test_p_a_better_is_not_printed_as_none_or_all_of_the_worlds(reversed_worlds):
    """Before, A ahead in 399 of 400 worlds printed P(A>B) = 1.00 (and 1 of 400, 0.00): the
    words for every world and for none."""
    n_worlds, n_queries = 400, 30
    rng = np.random.default_rng(0)
    a = 0.5 + 0.2 * rng.random((n_worlds, n_queries))
    noise = 0.01 * rng.standard_normal(n_queries)
    worlds = np.stack([a, a - 0.05 + noise - noise.mean()], axis=1)  # A ahead by 0.05...
    worlds[:reversed_worlds, 1] += 0.1  # ...except in these worlds, where B is ahead
    comparison = compare(worlds, rng=0)
    share = 1 - reversed_worlds / n_worlds  # by construction
    assert comparison.table["prob_a_better"].iloc[0] == pytest.approx(share)
    shown = comparison_table(comparison, "score")["P(A>B)"].iloc[0]
    assert 0 < float(shown) < 1
    assert float(shown) == pytest.approx(share, abs=0.0006)  # three decimals


@pytest.mark.filterwarnings("ignore:1 pair\\(s\\) tie on more than 50%")
def test_crisp_tables_omit_columns_that_carry_nothing(crisp):
    comparison = compare(crisp, rng=0)
    assert "P(A>B)" not in comparison_table(comparison, "AP").columns
    assert not any(n.startswith("P(A>B)") for n in comparison_notes(comparison))
    aggregate = crisp.aggregate()
    assert (aggregate["truth_low"] == aggregate["truth_high"]).all()  # zero width
    assert list(system_table(aggregate).columns) == [
        "system", "measure", "mean", "over queries", "estimand", "method"]
    kept = drop_empty_columns(aggregate)
    assert not {"truth_low", "truth_high", "truth_std", "mc_se"} & set(kept.columns)
    per_query = drop_empty_columns(crisp.to_frame())
    assert not {"p_undefined", "mc_se", "truth_std", "truth_low", "truth_high"} & set(
        per_query.columns)
    assert {"mean", "method"} <= set(per_query.columns)
    text = _report(crisp, comparison)
    assert "over truths" not in text and "ground-truth worlds" not in text
    assert 'estimand "queries"' in text


def test_a_zero_width_interval_over_queries_is_kept_and_explained():
    """The interval over queries was dropped whenever its ends were equal in every row, as the
    spread over truths of a crisp truth is: two queries that score alike left the CSV without
    ci_low/ci_high (a program reading it broke) while the notes still described them. Zero
    width over queries is a result (the values do not vary); only the truths' spread goes."""
    qrels = Qrels(["q1", "q2"], ["a", "b"], [1, 1])
    run = Run(["q1", "q2"], ["a", "b"], [1.0, 1.0])
    aggregate = evaluate(run, qrels, ["P@1", "AP"]).aggregate()
    assert (aggregate["ci_low"] == aggregate["ci_high"]).all()  # zero width
    kept = drop_empty_columns(aggregate)
    assert {"ci_low", "ci_high"} <= set(kept.columns)
    assert not {"truth_low", "truth_high", "truth_std"} & set(kept.columns)
    assert system_table(aggregate)["over queries"].tolist() == ["[1.000, 1.000]"] * 2
    assert system_notes(aggregate)[0].startswith("over queries: the 95% t interval over the 2")


def test_one_query_has_no_interval_and_the_notes_say_so():
    aggregate = evaluate(Run(["q1"], ["a"], [1.0]), Qrels(["q1"], ["a"], [1]),
                         "P@1").aggregate()
    assert aggregate["ci_low"].isna().all()
    assert "ci_low" not in drop_empty_columns(aggregate).columns
    assert "over queries" not in system_table(aggregate).columns
    assert system_notes(aggregate, columns=True) == [
        "no interval over the queries: a t interval needs at least two queries with a value "
        "(here 1)."]


def test_uncertain_system_table_shows_both_intervals_with_their_meaning(uncertain):
    aggregate = uncertain.aggregate()
    shown = system_table(aggregate)
    assert list(shown.columns) == [
        "system", "measure", "mean", "over queries", "estimand", "over truths", "method"]
    assert (shown["estimand"] == aggregate["estimand"]).all()
    first = aggregate.iloc[0]
    assert shown["over queries"].iloc[0] == f"[{first['ci_low']:.3f}, {first['ci_high']:.3f}]"
    assert shown["over truths"].iloc[0] == (
        f"[{first['truth_low']:.3f}, {first['truth_high']:.3f}]")
    text = _report(uncertain, compare(uncertain, rng=0))
    assert f"t interval over the {N_QUERIES} queries (estimand \"collection\")" in text
    assert f"the mean over {N_WORLDS} sampled ground-truth worlds, the queries held fixed" in text


def test_interval_column_left_out_for_tests_without_one(uncertain):
    wilcoxon = compare(uncertain, method="wilcoxon", rng=0)
    columns = comparison_table(wilcoxon, "AP").columns
    assert not any(re.search(r"CI$", c) for c in columns)
    assert comparison_notes(wilcoxon)[0].endswith("within each measure).")
    with pytest.raises(ValueError, match=r"measure must be one of \['P@5', 'AP'\]; got 'RR'"):
        comparison_table(wilcoxon, "RR")


@pytest.mark.filterwarnings("ignore:1 pair\\(s\\) tie on more than 50%")
def test_seed_is_read_off_the_objects_and_named_only_where_something_was_drawn(crisp,
                                                                               uncertain):
    """Issue 22 item 4: the seed comes from the results (it was the caller's word)."""
    t_crisp = compare(crisp, rng=5)
    assert t_crisp.seed == 5 and t_crisp.draws == {}
    assert "seed" not in describe_comparison(t_crisp)  # nothing drawn: no seed
    flips = compare(crisp, method="randomization", n_resamples=99, rng=5)  # 30 > 16 queries
    assert flips.draws == {"resamples": 5}
    assert describe_comparison(flips).endswith("B = 99 resamples, seed 5.")
    t_worlds = compare(uncertain, rng=5)  # the worlds of evaluate(rng=0); a t test draws none
    assert uncertain.seed == 0 and t_worlds.draws == {"worlds": 0}
    assert describe_comparison(t_worlds).endswith(
        f"{N_WORLDS} sampled ground-truth worlds, seed 0.")
    both = compare(uncertain, method="randomization", n_resamples=99, rng=5)
    assert describe_comparison(both).endswith(
        "B = 99 resamples, seed 0 for the worlds and seed 5 for the resamples.")
    given = compare(crisp, method="randomization", n_resamples=99, rng=np.random.default_rng(5))
    assert given.seed is None and describe_comparison(given).endswith(
        "B = 99 resamples, seed not recorded.")


def test_a_recorded_seed_draws_the_same_numbers_again(uncertain):
    """What Evaluation.seed and Comparison.seed record repeats the draws when given back."""
    again = evaluate(_UNCERTAIN_RUNS, _UNCERTAIN_TRUTH, ["P@5", "AP"], n_worlds=N_WORLDS,
                     rng=np.random.SeedSequence(uncertain.seed))
    assert again.seed == 0
    np.testing.assert_array_equal(again.world_scores("AP"), uncertain.world_scores("AP"))
    generator = evaluate(_UNCERTAIN_RUNS, _UNCERTAIN_TRUTH, "AP", n_worlds=5,
                         rng=np.random.default_rng(0))
    assert generator.seed is None  # a Generator leaves nothing that repeats its draws
    assert "(seed not recorded)" in _report(generator, compare(generator, rng=0))
    first = compare(uncertain, method="bootstrap", n_resamples=99, rng=3)
    second = compare(uncertain, method="bootstrap", n_resamples=99, rng=first.seed)
    pd.testing.assert_frame_equal(first.table, second.table)
    assert first.scores_seed == uncertain.seed == 0


def test_comparison_text_is_the_description_tables_and_notes(uncertain):
    comparison = compare(uncertain, rng=0)
    text = comparison_text(comparison, width=80)
    assert max(map(len, text.splitlines())) <= max(
        80, *(len(line) for m in ("P@5", "AP")
              for line in comparison_table(comparison, m).to_string(index=False).splitlines()))
    flat = " ".join(text.split())
    assert flat.startswith(" ".join(describe_comparison(comparison).split()))
    for measure in ("P@5", "AP"):
        table = comparison_table(comparison, measure).to_string(index=False)
        assert f"[{measure}]\n{table}\n" in text
    for note in comparison_notes(comparison):
        assert " ".join(note.split()) in flat
    assert "B=" not in text and "B =" not in text  # a t test resamples nothing


def test_system_notes_can_name_the_tidy_columns(uncertain):
    aggregate = uncertain.aggregate()
    notes = system_notes(aggregate, n_worlds=N_WORLDS, columns=True)
    assert [n.split(":")[0] for n in notes] == ["ci_low, ci_high", "truth_low, truth_high"]
    plain = system_notes(aggregate, n_worlds=N_WORLDS)
    assert [n.split(":", 1)[1] for n in notes] == [n.split(":", 1)[1] for n in plain]


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_a_one_sided_interval_is_printed_with_its_infinite_end(crisp, alternative):
    """Before, ``alternative="less"`` printed every interval as "none" (its low end, -inf, was
    taken for a missing interval) in print(comparison), the command line and to_latex."""
    comparison = compare(crisp, measure="AP", alternative=alternative)
    row = comparison.table.iloc[0]
    shown = comparison_table(comparison, "AP")["95% CI"].iloc[0]
    expected = (f"[-inf, {row['ci_high']:+.3f}]" if alternative == "less"
                else f"[{row['ci_low']:+.3f}, +inf]")
    assert shown == expected
    assert expected in str(comparison)
    latex = expected.replace("inf", r"\infty")
    assert f"${latex}$" in comparison.to_latex()


def test_an_interval_with_a_missing_end_is_none(crisp):
    aggregate = crisp.aggregate()
    half = aggregate.assign(ci_high=np.r_[np.nan, aggregate["ci_high"].iloc[1:]])
    assert system_table(half)["over queries"].iloc[0] == "none"  # was "[0.1, nan]"


def _paired_t_scores(pvalue: float, n: int = 40) -> np.ndarray:
    """Two systems on ``n`` queries whose paired t test gives the two-sided ``pvalue``: the
    t statistic is scipy's quantile for it, and the differences are built with that mean over
    their standard error."""
    z = np.random.default_rng(0).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    t = scipy_stats.t.isf(pvalue / 2, n - 1)
    base = np.linspace(0.2, 0.6, n)
    return np.vstack([base + 0.1 * (z + t / np.sqrt(n)), base])


@pytest.mark.parametrize(("level", "pvalue"),
                         [(0.95, 0.0497), (0.95, 0.0503), (0.99, 0.0098), (0.99, 0.0102)])
def test_a_printed_p_value_lies_on_the_side_of_alpha_that_its_star_says(level, pvalue):
    """Before, p = 0.0497 printed as 0.050 beside a star that the notes explain as "adjusted
    p < 0.05" (0.0098 as 0.010 at the 99% level): three decimals put it on the wrong side."""
    comparison = compare(_paired_t_scores(pvalue), correction="none", confidence_level=level)
    row = comparison.table.iloc[0]
    assert row["pvalue_adjusted"] == pytest.approx(pvalue, rel=1e-6)  # scipy's t, the reference
    shown = comparison_table(comparison, "score").iloc[0]
    starred = row["pvalue_adjusted"] < comparison.alpha
    assert (shown[""] == "*") == starred
    for column in ("p", "p adj"):
        assert (float(shown[column]) < comparison.alpha) == starred, shown[column]
    assert f"{shown['p adj']}$ &" in comparison.to_latex()
    # nothing was adjusted: the note says p, not "adjusted p" (as it did)
    assert comparison_notes(comparison)[0].startswith(
        f"Starred rows (*): p < {comparison.alpha:g} (no correction)")


def _ends(shown: str) -> tuple[float, float]:
    low, high = shown.strip("[]").split(", ")
    return float(low), float(high)


def test_an_interval_end_near_0_is_printed_on_its_side_of_0(crisp):
    """Before, a starred row's interval [0.00004, 0.062] printed as [+0.000, +0.062] under a
    note saying "their intervals exclude 0", and a low end of -0.0004 as -0.000."""
    n, target = 40, 0.00004
    z = np.random.default_rng(0).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    half_width = scipy_stats.t.isf(0.025, n - 1) * 0.1 / np.sqrt(n)
    base = np.linspace(0.2, 0.6, n)
    scores = np.vstack([base + 0.1 * z + half_width + target, base])
    comparison = compare(scores, correction="none")
    reference = scipy_stats.ttest_rel(scores[0], scores[1]).confidence_interval(0.95)
    assert reference.low == pytest.approx(target, rel=1e-6)
    row = comparison.table.iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(reference))
    shown = comparison_table(comparison, "score").iloc[0]
    assert shown[""] == "*"
    low, high = _ends(shown["95% CI"])
    assert low > 0 and low == pytest.approx(target, rel=0.5)
    assert high == pytest.approx(row["ci_high"], abs=5e-4)
    aggregate = crisp.aggregate().assign(ci_low=-0.0004)
    low, _ = _ends(system_table(aggregate)["over queries"].iloc[0])
    assert low < 0 and low == pytest.approx(-0.0004, rel=0.5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c, a: comparison_table(c, "AP", digits=-1), "digits must be an integer >= 0"),
        (lambda c, a: comparison_table(c, "AP", digits=True), "digits must be .* got True"),
        (lambda c, a: system_table(a, digits=1.5), "digits must be an integer >= 0; got 1.5"),
        (lambda c, a: comparison_text(c, width=0), "width must be an integer >= 1; got 0"),
        (lambda c, a: comparison_text(c, width=2.5), "width must be an integer >= 1; got 2.5"),
        (lambda c, a: notes_text("one note"), "notes must be a list of str; got 'one note'"),
        (lambda c, a: comparison_table(c, ["AP"]),
         r"measure must be one of \['AP'\]; got \['AP'\]"),
        (lambda c, a: describe_comparison(a), "comparison must be a Comparison .* DataFrame"),
        (lambda c, a: system_table(a.to_dict()), "aggregate must be a pandas DataFrame"),
        (lambda c, a: system_table(a.astype({"value": complex})),
         "aggregate must be real numbers; got complex values"),
        (lambda c, a: system_notes(a.assign(confidence_level=1.5)),
         "the table's confidence_level must be a number strictly between 0 and 1"),
        (lambda c, a: system_notes(a, n_worlds=-3), "n_worlds must be an integer >= 0"),
        (lambda c, a: system_notes(a, unit=5), r"unit must be a str \(queries, items\)"),
    ],
)
def test_report_arguments_are_checked(crisp, call, message):
    """Before: Python's format and textwrap errors naming nothing, a str of notes printed a
    letter a line, a width of 2.5 or True accepted, a complex mean printed, '150% level'."""
    comparison = compare(crisp, measure="AP")
    aggregate = crisp.aggregate().iloc[:1]
    with pytest.raises(ValueError, match=message):
        call(comparison, aggregate)


@pytest.mark.parametrize(("method", "undefined"), [
    ("t", "d_z, a test and an interval are"), ("wilcoxon", "d_z and an interval are")])
def test_a_pair_without_spread_is_explained_below_the_table(method, undefined):
    # compare() warned that the pair's numbers are NaN; the printed table, the part that goes
    # into a paper, showed "nan" with no word on why
    x = np.random.default_rng(0).random((3, 30))
    x[1] = x[0] + 0.1
    with pytest.warns(UserWarning):
        comparison = compare(x, method=method, rng=0)
    assert comparison_notes(comparison)[-1] == (
        f"nan: 1 pair(s) have the same difference on every query (no spread), so {undefined} "
        "not defined for them.")
    spread = compare(np.random.default_rng(0).random((3, 30)), method=method, rng=0)
    assert not any(note.startswith("nan:") for note in comparison_notes(spread))


def test_the_result_object_where_its_table_goes_and_a_measure_in_another_case_say_so(crisp):
    """system_table() reads an Evaluation's aggregate() table: given the Evaluation itself, it
    says which call gives it; a measure named in another case is offered the one it means."""
    with pytest.raises(ValueError, match=r"aggregate must be a pandas DataFrame; got "
                                         r"Evaluation: pass its table, evaluation\.aggregate\(\)$"):
        system_table(crisp)
    assert system_table(crisp.aggregate())["mean"].tolist()
    comparison = compare(crisp, rng=0)
    with pytest.raises(ValueError, match=r"got 'ap' \(did you mean 'AP'\?\)$"):
        comparison_table(comparison, "ap")
    with pytest.raises(ValueError, match=r"got 'ap' \(did you mean 'AP'\?\)$"):
        crisp.value(crisp.systems[0], "ap")
