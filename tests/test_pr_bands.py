"""precision_recall_bands: every cutoff's summaries equal the P@k / R@k of evaluate().

The bands come from one compiled pass per query (fuzzytruth.uncertain.cutoffs) that never lists
the distributions' atoms; the oracle is evaluate() with the families' exact forms at each cutoff
(atoms listed, mixed over the query's categories and sorted), under the same options. Recall's
exact form is itself checked against Monte Carlo and brute force in test_closed_form.py.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.evaluation import evaluate, precision_recall_bands
from fuzzytruth.runs import Run
from fuzzytruth.uncertain.cutoffs import cutoff_summaries
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

TAX = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})
LEAVES = ["a1", "a2", "b1", "b2", "a", "b"]
SUMMARY_COLUMNS = ["mean", "truth_std", "truth_low", "truth_high", "p_undefined"]


def per_cutoff_oracle(runs, truth, depth, **options):
    """evaluate() at every cutoff: P@k and R@k, exact, as a bands-shaped table."""
    measures = [f"{m}@{k}" for m in ("P", "R") for k in range(1, depth + 1)]
    return as_bands(evaluate(runs, truth, measures, n_worlds=0, method="exact",
                             **options).to_frame())


def as_bands(frame):
    """evaluate()'s per-query table of P@k and R@k in the bands' shape (the same column
    names, the measure split into measure and cutoff)."""
    frame = frame.copy()
    frame["cutoff"] = frame["measure"].str.split("@").str[1].astype(int)
    frame["measure"] = frame["measure"].str[0].map({"P": "precision", "R": "recall"})
    return frame


def assert_bands_match(bands, oracle):
    key = ["system", "query_id", "measure", "cutoff"]
    merged = bands.merge(oracle, on=key, suffixes=("", "_oracle"), validate="one_to_one")
    assert len(merged) == len(bands) == len(oracle)
    for column in SUMMARY_COLUMNS:
        ours, theirs = merged[column], merged[f"{column}_oracle"]
        if column == "truth_std":  # compare variances: the square root magnifies rounding near 0
            ours, theirs = ours**2, theirs**2
        np.testing.assert_allclose(ours, theirs, atol=1e-12, rtol=0, err_msg=column)


@st.composite
def membership_collections(draw):
    n_items = draw(st.integers(3, 16))
    items = [f"i{i}" for i in range(n_items)]
    rows = []
    for item in items:
        n_annotators = draw(st.integers(1, 5))
        for a in range(n_annotators):
            rows.append((item, f"s{a}", draw(st.sampled_from(LEAVES))))
    annotations = Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=TAX
    )
    n_queries = draw(st.integers(1, 4))
    run_rows = []
    for q in items[:n_queries]:
        chosen = draw(st.lists(st.sampled_from(items), min_size=1, max_size=n_items, unique=True))
        run_rows += [(q, d, float(len(chosen) - r)) for r, d in enumerate(chosen)]
    run = Run.from_dataframe(pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]))
    return Membership.from_annotations(annotations), run


@st.composite
def probabilistic_collections(draw):
    n_docs = draw(st.integers(2, 30))
    docs = [f"d{i}" for i in range(n_docs)]
    probability = st.one_of(
        st.sampled_from([0.0, 0.2, 0.5, 1.0, 1e-15, 1e-300]),
        st.floats(0.0, 1.0, allow_subnormal=False)
    )
    qrels_rows, run_rows = [], []
    for q in ("q0", "q1", "q2")[: draw(st.integers(1, 3))]:
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=n_docs, unique=True))
        qrels_rows += [(q, d, draw(probability)) for d in judged]
        ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=n_docs, unique=True))
        run_rows += [(q, d, float(len(ranked) - r)) for r, d in enumerate(ranked)]
    frame = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "p"])
    truth = ProbabilisticQrels(frame["query_id"], frame["doc_id"], frame["p"])
    run = Run.from_dataframe(pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]))
    return truth, run


OPTIONS = st.fixed_dictionaries(
    {
        "recall_form": st.sampled_from(["exact", "expected_size"]),
        "undefined": st.sampled_from(["zero", "skip"]),
        "confidence_level": st.sampled_from([0.5, 0.8, 0.95, 0.99]),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(membership_collections(), OPTIONS, st.booleans())
def test_bands_equal_evaluate_at_every_cutoff_under_a_membership(collection, options, exclude):
    membership, run = collection
    bands = precision_recall_bands(run, membership, exclude_query=exclude, **options)
    depth = int(bands["cutoff"].max())
    oracle = per_cutoff_oracle(run, membership, depth, exclude_query=exclude, **options)
    assert_bands_match(bands, oracle)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(probabilistic_collections(), OPTIONS)
def test_bands_equal_evaluate_at_every_cutoff_under_probabilistic_qrels(collection, options):
    truth, run = collection
    bands = precision_recall_bands(run, truth, **options)
    depth = int(bands["cutoff"].max())
    assert_bands_match(bands, per_cutoff_oracle(run, truth, depth, **options))


def test_bands_with_the_defaults_on_the_bundled_collection_equal_evaluate():
    from fuzzytruth.datasets import image_collection

    collection = image_collection()
    runs = {name: run for name, run in collection.run_objects().items() if name == "weak"}
    bands = precision_recall_bands(runs, collection.membership)  # every option at its default
    assert bands["cutoff"].max() == 100 and bands["query_id"].nunique() == 100
    cutoffs = [1, 7, 50, 100]
    measures = [f"{m}@{k}" for m in ("P", "R") for k in cutoffs]
    oracle = as_bands(evaluate(runs, collection.membership, measures, n_worlds=0).to_frame())
    assert_bands_match(bands[bands["cutoff"].isin(cutoffs)], oracle)
    # the bands are not degenerate: recall grows with the cutoff, precision spreads
    recall = bands[bands["measure"] == "recall"].groupby("cutoff")["mean"].mean()
    assert recall.is_monotonic_increasing and recall.iloc[-1] > recall.iloc[0]
    assert (bands["truth_high"] >= bands["truth_low"]).all()


def test_a_constant_recall_has_zero_spread_and_a_point_interval():
    # one certainly relevant document ranked first, nothing else relevant: R@k = 1 for all k
    s = cutoff_summaries(
        np.array([[1.0, 0.0, 0.0]]), np.array([0, 1]), np.array([1.0]),
        np.zeros((1, 0)), np.array([0]), np.array([1.0]),
    )["recall"]
    assert s["std"].tolist() == [[0.0, 0.0, 0.0]]
    assert s["ci_low"].tolist() == s["ci_high"].tolist() == [[1.0, 1.0, 1.0]]


def test_recall_without_any_relevant_document_follows_the_undefined_rule():
    p, start, w = np.zeros((1, 2)), np.array([0, 1]), np.array([1.0])
    rest, certain, size = np.zeros((1, 0)), np.array([0]), np.array([0.0])
    zero = cutoff_summaries(p, start, w, rest, certain, size)["recall"]
    skip = cutoff_summaries(p, start, w, rest, certain, size, fill_undefined=False)["recall"]
    assert zero["p_undefined"].tolist() == skip["p_undefined"].tolist() == [[1.0, 1.0]]
    assert zero["mean"].tolist() == [[0.0, 0.0]]
    assert np.isnan(skip["mean"]).all() and np.isnan(skip["ci_high"]).all()


@pytest.mark.parametrize("p", [1e-3, 1e-15, 1e-20, 1e-300])
def test_recall_given_defined_when_every_relevant_document_is_improbable(p):
    # two documents of probability p, one retrieved: given at least one relevant, each alone
    # (p(1 - p) each) or both (p², recall 1/2), so recall given defined has mean exactly 1/2
    # whatever p; its FN atom (p) used to be dropped below 1e-15, leaving recall 1
    run = Run(["q", "q"], ["a", "x"], [2.0, 1.0])
    truth = ProbabilisticQrels(["q", "q"], ["a", "b"], [p, p])
    bands = precision_recall_bands(run, truth, undefined="skip")
    recall = bands[bands["measure"] == "recall"]
    np.testing.assert_allclose(recall["mean"], 0.5, rtol=1e-12)
    np.testing.assert_allclose(recall["p_undefined"], (1 - p) ** 2, rtol=1e-12)
    table = evaluate(run, truth, ["R@1", "R@2", "R"], undefined="skip", n_worlds=0).to_frame()
    np.testing.assert_allclose(table["mean"], 0.5, rtol=1e-12)


def test_bad_inputs_are_named():
    p, w = np.zeros((1, 2)), np.array([1.0])
    rest, certain, size = np.zeros((1, 0)), np.array([0]), np.array([1.0])
    with pytest.raises(ValueError, match="at least one component"):
        cutoff_summaries(p, np.array([0, 0, 1]), w, rest, certain, size)
    with pytest.raises(ValueError, match=r"undefined_value must be 0 or 1; got 0.5"):
        cutoff_summaries(p, np.array([0, 1]), w, rest, certain, size, undefined_value=0.5)


def test_a_crisp_truth_is_sent_to_evaluate():
    """The bands are for uncertain truth; a crisp one (told by its kind, whatever its class)
    is refused with the way to its numbers."""
    from fuzzytruth import Qrels
    from fuzzytruth.truth import TruthKind

    class Wrapped:  # a truth of another class that binds as crisp qrels
        truth_kind, per_query = TruthKind.CRISP, True

        def bind(self, options):
            return Qrels(["q"], ["a"], [1]).bind(options)

    run = Run(["q", "q"], ["a", "b"], [2.0, 1.0])
    for truth in (Qrels(["q"], ["a"], [1]), Wrapped()):
        with pytest.raises(ValueError, match=r"truth must be uncertain .*use evaluate\(\) for "
                                             r"a crisp truth"):
            precision_recall_bands(run, truth)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("p", [1e-10, 1e-200, 2.2250738585072014e-308])
def test_a_huge_expected_size_recall_has_its_finite_spread_on_both_paths(p):
    # found by the bands property with eight times its examples: recall_form="expected_size"
    # gives recall 1/p with probability p, whose variance 1/p - 1 is a float, but the square
    # of 1/p overflowed and the spread came out inf (with a RuntimeWarning)
    run = Run(["q"], ["d"], [1.0])
    truth = ProbabilisticQrels(["q"], ["d"], [p])
    bands = precision_recall_bands(run, truth, recall_form="expected_size")
    recall = bands[bands["measure"] == "recall"]
    frame = evaluate(run, truth, "R@1", recall_form="expected_size").to_frame()
    expected = np.sqrt(1.0 / p - 1.0)
    assert recall["mean"].tolist() == frame["mean"].tolist() == [1.0]
    assert recall["truth_std"].item() == pytest.approx(expected, rel=1e-12)
    assert frame["truth_std"].item() == pytest.approx(expected, rel=1e-12)
    # the default, exact recall: bounded by 1, its spread finite, both paths one number
    bands = precision_recall_bands(run, truth)
    exact = bands[bands["measure"] == "recall"]
    frame = evaluate(run, truth, "R@1").to_frame()
    assert exact["truth_std"].tolist() == frame["truth_std"].tolist()
    assert 0 <= exact["truth_std"].item() <= 0.5 and exact["mean"].item() <= 1


def test_one_querys_spread_over_the_truths_has_one_name_in_every_table():
    """The bands, a curve's to_frame() and evaluate().to_frame() name one value's spread over
    the truths truth_std/truth_low/truth_high; ci_low/ci_high mean an interval over queries
    (aggregate(), compare()) wherever they appear. The bands and the curve said std, ci_low
    and ci_high until 2026-11-28, so a table of bands beside one of evaluate() had one number
    under two names and one name with two meanings."""
    from fuzzytruth.datasets import santini_illustrative
    from fuzzytruth.uncertain import precision_recall_curve

    run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    truth = ProbabilisticQrels(["q"] * 3, ["a", "b", "c"], [1.0, 0.5, 0.2])
    bands = precision_recall_bands(run, truth, confidence_level=0.8)
    frame = evaluate(run, truth, ["P@2", "R@2"], confidence_level=0.8).to_frame()
    ex = santini_illustrative()
    curve = precision_recall_curve(ex.membership, ex.results, category="people").to_frame(0.8)
    spread = ["mean", "truth_std", "truth_low", "truth_high", "confidence_level", "p_undefined"]
    for table in (bands, frame, curve):
        assert set(spread) <= set(table.columns)
        assert not {"std", "ci_low", "ci_high"} & set(table.columns)
    at_two = as_bands(frame).set_index(["measure", "cutoff"])[spread]
    np.testing.assert_allclose(bands.set_index(["measure", "cutoff"]).loc[at_two.index, spread],
                               at_two, atol=1e-12)
