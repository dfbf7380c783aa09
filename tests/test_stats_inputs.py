"""Bad input to the statistics gets a ValueError naming the parameter and what was received."""

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Membership, Run, Taxonomy
from fuzzytruth._validation import MAX_RESAMPLES, check_n_resamples
from fuzzytruth.collection import agreement
from fuzzytruth.stats import (
    annotator_bootstrap,
    compare,
    paired_bootstrap,
    paired_inference,
    paired_test,
    randomized_tukey_hsd,
)
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

TAX = Taxonomy.from_nested({"all": {"rel": None, "non": None}})


@pytest.fixture(scope="module")
def labelled():
    labels = pd.DataFrame({
        "item_id": [f"d{k}" for k in range(4) for _ in range(3)],
        "annotator_id": ["a", "b", "c"] * 4,
        "label": ["rel", "rel", "non", "non", "non", "rel", "rel", "rel", "rel",
                  "non", "rel", "non"],
    })
    ann = Annotations.from_frame(labels, taxonomy=TAX)
    docs = [f"d{k}" for k in range(4)]
    runs = {name: Run(np.repeat(["d0", "d1"], 4), np.tile(order, 2),
                      np.tile(np.arange(4.0, 0, -1), 2), name=name)
            for name, order in (("A", docs), ("B", docs[::-1]))}
    return runs, ann


@pytest.mark.parametrize("measures", [[], (), iter([])])
def test_annotator_bootstrap_refuses_no_measures(labelled, measures):
    runs, ann = labelled
    # used to be an IndexError from the first measure's scores
    with pytest.raises(ValueError, match="measures must name at least one measure"):
        annotator_bootstrap(runs, ann, measures, n_resamples=5, rng=0)


def test_annotator_bootstrap_refuses_a_membership_and_says_what_to_pass(labelled):
    runs, ann = labelled
    membership = Membership.from_annotations(ann)
    # used to be an AttributeError ('Membership' object has no attribute 'codes')
    with pytest.raises(ValueError, match=r"annotations must be a fuzzytruth.Annotations.*got "
                                         r"Membership \(a Membership holds the shares"):
        annotator_bootstrap(runs, membership, "P@1", n_resamples=5, rng=0)
    with pytest.raises(ValueError, match=r"annotations must be .*; got DataFrame: a table of "
                                         r"labels is Annotations\.from_frame"):
        annotator_bootstrap(runs, pd.DataFrame(), "P@1", n_resamples=5, rng=0)


def test_annotator_bootstrap_runs_with_a_measure_list(labelled):
    # the defaults a user gets: the checks above let good input through
    runs, ann = labelled
    with pytest.warns(UnreliableInferenceWarning, match="only 3 annotators shared"):
        pop = annotator_bootstrap(runs, ann, ["P@1"], n_resamples=5, n_worlds=20, rng=0)
    assert list(pop.replicates) == ["P@1"] and pop.replicates["P@1"].shape == (5, 2)
    assert pop.annotators == "shared"  # the same three annotators label every item


RESAMPLING_ENTRY_POINTS = {
    "paired_bootstrap": lambda x, n, _: paired_bootstrap(x, n_resamples=n, rng=0),
    "paired_test": lambda x, n, _: paired_test(x, method="randomization", n_resamples=n, rng=0),
    "paired_inference": lambda x, n, _: paired_inference(x, method="bootstrap", n_resamples=n,
                                                         rng=0),
    "compare": lambda x, n, _: compare({"AP": x}, n_resamples=n, rng=0),
    "randomized_tukey_hsd": lambda x, n, _: randomized_tukey_hsd(x, n_resamples=n, rng=0),
    "annotator_bootstrap": lambda _, n, data: annotator_bootstrap(*data, "P@1", n_resamples=n,
                                                                 n_worlds=20, rng=0),
    "agreement": lambda _, n, data: agreement(data[1], n_resamples=n, rng=0),
}


@pytest.mark.parametrize("name", list(RESAMPLING_ENTRY_POINTS))
def test_a_typo_sized_n_resamples_is_refused_before_anything_is_drawn(labelled, name):
    """10**12 resamples ran in bounded memory for weeks (about 3.5 s per 10**6 for one
    paired bootstrap of 25 queries); every entry point now refuses more than MAX_RESAMPLES
    (10**8) at once, naming the parameter, the range and the value."""
    x = np.random.default_rng(0).random((3, 30))
    message = (r"^n_resamples must be an integer from \d to 100000000 \(10\*\*8, MAX_RESAMPLES: "
               r"the Monte Carlo error of a p-value is then below 5e-5\); got 1000000000000$")
    with pytest.raises(ValueError, match=message):
        RESAMPLING_ENTRY_POINTS[name](x, 10**12, labelled)
    assert check_n_resamples(MAX_RESAMPLES) == MAX_RESAMPLES
    with pytest.raises(ValueError, match=r"got 100000001$"):
        check_n_resamples(MAX_RESAMPLES + 1)


def _pivoted() -> pd.DataFrame:
    """Three systems' scores on 30 queries as pandas users pivot them: queries as rows."""
    scores = np.random.default_rng(3).random((3, 30))
    long = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 30),
                         "query_id": np.tile([f"q{i:02d}" for i in range(30)], 3),
                         "value": scores.ravel()})
    return long.pivot(index="query_id", columns="system", values="value")


@pytest.mark.parametrize("call", [
    lambda s: paired_test(s),
    lambda s: paired_bootstrap(s, n_resamples=10, rng=0),
    lambda s: randomized_tukey_hsd(s, n_resamples=10, rng=0),
])
def test_a_pivoted_table_of_queries_by_systems_is_refused_with_its_transpose(call):
    # read as (n_systems, n_queries) it compared 30 "systems" on 3 "queries": 435 pairs
    wide = _pivoted()
    with pytest.raises(ValueError, match=r"queries as rows \(index 'query_id'\) and the systems "
                                         r"as columns \(columns 'system'\): pass scores\.T"):
        call(wide)
    assert len(paired_test(wide.T).pairs) == 3  # the orientation asked for reads as before


def test_a_score_matrix_of_queries_by_systems_is_refused_and_its_transpose_labelled():
    from fuzzytruth.stats import ScoreMatrix

    wide = _pivoted()
    with pytest.raises(ValueError, match=r"values must hold systems as rows.*pass values\.T"):
        ScoreMatrix(wide)
    right = ScoreMatrix(wide.T)
    assert right.systems == ("a", "b", "c") and len(right.queries) == 30
    # an unnamed frame has nothing to go by: read as given
    assert ScoreMatrix(pd.DataFrame(wide.to_numpy())).values.shape == (30, 3)


def test_compare_says_how_a_wide_table_goes_in():
    from fuzzytruth.stats import ScoreMatrix

    with pytest.raises(ValueError, match=r"wide table of 30 rows × 3 columns of numbers: give "
                                         r"it as ScoreMatrix\(frame, measure=\.\.\.\)"):
        compare(_pivoted().reset_index(drop=True))
    table = compare(ScoreMatrix(_pivoted().T)).table
    assert len(table) == 3


def test_compare_says_to_pass_the_evaluation_not_its_frame():
    from fuzzytruth import Qrels, evaluate

    qrels = Qrels(["q1", "q2"], ["d1", "d1"], [1, 1])
    run = Run(["q1", "q1", "q2"], ["d1", "d2", "d1"], [2.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"pass the Evaluation itself"):
        compare(evaluate(run, qrels, ["P@1"]).to_frame())


def test_a_table_of_labels_where_annotations_go_gets_the_call_that_reads_it():
    # crowd-kit's columns (task, worker, label): agreement, fit_truth and the population
    # bootstrap said only "must be an Annotations; got DataFrame", from_frame only the
    # missing default column
    from fuzzytruth import fit_truth

    table = pd.DataFrame({"task": ["t1", "t1", "t2", "t2"], "worker": ["w1", "w2", "w1", "w2"],
                          "label": ["rel", "non", "rel", "rel"]})
    said = (r"got DataFrame: a table of labels is Annotations\.from_frame\(frame, "
            r"taxonomy=\.\.\.\) of it \(taxonomy=None: a flat label set")
    for call in (lambda a: agreement(a), lambda a: fit_truth(a, "dawid-skene"),
                 lambda a: annotator_bootstrap({"A": Run(["t1"], ["t2"], [1.0])}, a,
                                               ["P@1"], n_resamples=10, rng=0)):
        with pytest.raises(ValueError, match=said):
            call(table)
    with pytest.raises(ValueError, match=r"columns are \['task', 'worker', 'label'\]: pass "
                                         r"item='task', annotator='worker'$"):
        Annotations.from_frame(table, taxonomy=TAX)
    read = Annotations.from_frame(table, taxonomy=TAX, item="task", annotator="worker")
    assert agreement(read).n_items == 2


@pytest.mark.parametrize(("given", "meant", "parameter"), [
    ("fdr_bh", "bh", "correction"), ("fdr_by", "by", "correction"), ("ttest", "t", "method"),
    ("ttest_rel", "t", "method"), ("permutation", "randomization", "method"),
])
def test_other_libraries_names_of_a_choice_are_answered_with_ours(given, meant, parameter):
    # statsmodels' fdr_bh and scipy's ttest_rel were refused with the list alone
    scores = np.random.default_rng(1).random((3, 30))
    with pytest.raises(ValueError, match=rf"{parameter} must be one of .*; got '{given}' "
                                         rf"\(did you mean '{meant}'\?\)$"):
        compare(scores, **{parameter: given})
    assert len(compare(scores, **{parameter: meant}, n_resamples=99, rng=0).table) == 3


def test_crowd_kit_s_names_of_the_label_models_are_answered_with_ours(labelled):
    from fuzzytruth import fit_truth

    _, ann = labelled
    for given, meant in (("ds", "dawid-skene"), ("OneCoinDawidSkene", "one-coin")):
        with pytest.raises(ValueError, match=rf"got '{given}' \(did you mean '{meant}'\?\)$"):
            fit_truth(ann, given)


def test_a_baseline_named_in_another_case_is_answered_with_the_system():
    from fuzzytruth.stats import ScoreMatrix

    sm = ScoreMatrix(np.random.default_rng(1).random((3, 30)), systems=["bm25", "dense", "x"])
    with pytest.raises(ValueError, match=r"got 'BM25' \(did you mean 'bm25'\?\)$"):
        compare(sm, baseline="BM25")
    with pytest.raises(ValueError, match=r"got 'splade'$"):
        compare(sm, baseline="splade")
