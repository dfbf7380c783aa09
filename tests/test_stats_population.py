"""The annotator-population estimand: two-stage resampling, oracles and compare() output."""

import warnings

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Run, Taxonomy
from fuzzytruth.stats import annotator_bootstrap, compare
from fuzzytruth.stats.population import _AnnotatorResampler
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

TAX = Taxonomy.from_nested({"all": {"rel": None, "non": None}})


def labelled(shares: dict[str, list[str]], *, crossed: bool) -> Annotations:
    """Items with the given labels; annotators shared across items or fresh per item."""
    rows = [
        (item, (f"a{k}" if crossed else f"{item}-a{k}"), label)
        for item, labels in shares.items()
        for k, label in enumerate(labels)
    ]
    return Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=TAX
    )


def test_within_items_keeps_each_items_own_annotators_and_their_number():
    ann = labelled({"d1": ["rel", "non", "non"], "d2": ["rel", "rel"], "d3": ["non"] * 4},
                   crossed=False)
    resampler = _AnnotatorResampler(ann)
    assert resampler.scheme == "within-items"
    rng = np.random.default_rng(0)
    seen = {"d1": set(), "d2": set(), "d3": set()}
    for _ in range(200):
        frame = resampler.draw(rng, "within-items").to_frame()
        sizes = frame.groupby("item_id").size()
        assert sizes.to_dict() == {"d1": 3, "d2": 2, "d3": 4}
        for item, group in frame.groupby("item_id"):
            seen[item].add(int((group["label"] == "rel").sum()))
    assert seen == {"d1": {0, 1, 2, 3}, "d2": {2}, "d3": {0}}  # Binomial(3, 1/3) support


def test_shared_draws_one_annotator_multiset_for_every_item():
    ann = labelled({"d1": ["rel", "non", "non"], "d2": ["rel", "non", "rel"]}, crossed=True)
    resampler = _AnnotatorResampler(ann)
    assert resampler.scheme == "shared"
    rng = np.random.default_rng(1)
    for _ in range(50):
        frame = resampler.draw(rng, "shared").to_frame()
        d1 = frame[frame["item_id"] == "d1"]["label"].tolist()
        d2 = frame[frame["item_id"] == "d2"]["label"].tolist()
        assert len(d1) == len(d2) == 3  # every annotator labelled every item
        # annotator a0 says rel on both items, a1 non on both: the same draw on both items
        assert d1.count("rel") <= d2.count("rel")


def _runs_and_labels(shares, crossed=False):
    """Three queries with fixed categories; each system ranks one document first."""
    docs = list(shares)
    order_a = docs[:3]
    order_b = docs[3:6]
    runs = {}
    for name, top in (("A", order_a), ("B", order_b)):
        rows = [(f"q{i}", d, 2.0 if d == top[i] else 1.0 - 0.01 * j)
                for i in range(3) for j, d in enumerate(docs)]
        runs[name] = Run(*map(list, zip(*rows, strict=True)), name=name)
    ann = labelled(shares, crossed=crossed)
    return runs, ann, {f"q{i}": "rel" for i in range(3)}


def test_annotators_only_variance_matches_the_binomial_oracle():
    # P@1 of each query is the share of "rel" labels of its top document. Resampling the
    # 4 labels of a document with share p gives Bin(4, p) / 4: the annotators-only mean over
    # 3 queries has variance sum p(1 - p) / 4 / 9.
    shares = {"d1": ["rel", "non", "non", "non"], "d2": ["rel", "rel", "non", "non"],
              "d3": ["rel", "rel", "rel", "non"], "e1": ["rel"] * 4, "e2": ["non"] * 4,
              "e3": ["rel"] * 4}
    runs, ann, cats = _runs_and_labels(shares)
    pop = annotator_bootstrap(runs, ann, "P@1", n_resamples=200, query_categories=cats,
                              n_worlds=1000, annotators="within-items", rng=3)
    p = np.array([0.25, 0.5, 0.75])
    expected_var = (p * (1 - p)).sum() / 4 / 9
    only = pop.annotators_only["P@1"]
    assert only[:, 0].var(ddof=1) == pytest.approx(expected_var, rel=0.25)
    assert only[:, 1].var() == pytest.approx(0.0, abs=1e-4)  # unanimous labels: no spread
    assert pop.scores["P@1"].values[0] == pytest.approx([0.25, 0.5, 0.75], abs=0.03)


def test_truth_share_is_zero_when_the_labels_cannot_move_the_scores():
    shares = {d: ["rel"] * 3 if d.startswith("d") else ["non"] * 3
              for d in ("d1", "d2", "d3", "e1", "e2", "e3")}
    shares["e1"] = ["rel", "rel", "rel"]
    runs, ann, cats = _runs_and_labels(shares)
    pop = annotator_bootstrap(runs, ann, "P@1", n_resamples=40, query_categories=cats,
                              n_worlds=50, annotators="within-items", rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        table = compare(pop, method="percentile", n_resamples=40).table
    assert table.loc[0, "estimand"] == "population"
    assert table.loc[0, "share_truth"] == pytest.approx(0.0, abs=1e-12)
    assert table.loc[0, "prob_a_better"] == pytest.approx(1.0)


def test_compare_population_table_and_errors():
    shares = {"d1": ["rel", "non", "non"], "d2": ["rel", "rel", "non"],
              "d3": ["rel", "rel", "rel"], "e1": ["non", "non", "rel"],
              "e2": ["non", "non", "non"], "e3": ["rel", "non", "non"]}
    runs, ann, cats = _runs_and_labels(shares, crossed=True)
    with pytest.warns(UnreliableInferenceWarning, match="only 3 annotators shared"):
        pop = annotator_bootstrap(runs, ann, ["P@1", "P@2"], n_resamples=60,
                                  query_categories=cats, n_worlds=100, rng=1)
    assert pop.annotators == "shared"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        res = compare(pop, method="bootstrap", n_resamples=60)
        again = compare(pop, method="bootstrap", n_resamples=60)
    pd.testing.assert_frame_equal(res.table, again.table)
    t = res.table
    assert (t["estimand"] == "population").all() and t["measure"].tolist() == ["P@1", "P@2"]
    assert (t["interval"] == "studentized").all()
    assert ((0 <= t["prob_a_better"]) & (t["prob_a_better"] <= 1)).all()
    assert np.allclose(t["var_queries"] + t["var_truth"],
                       [np.var(pop.replicates[m][:, 0] - pop.replicates[m][:, 1], ddof=1)
                        for m in ("P@1", "P@2")])
    assert (res.systems["estimand"] == "population").all()
    default = compare(pop).table  # the percentile interval by default for this estimand
    assert (default["interval"] == "percentile").all()
    with pytest.raises(ValueError, match=r"method must be one of \['percentile', 'bootstrap', "
                                         r"'basic'\] for the annotator population"):
        compare(pop, method="bca")
    with pytest.raises(ValueError, match=r"annotators must be one of \['auto', 'shared', "
                                         r"'within-items'\]; got 'items'"):
        annotator_bootstrap(runs, ann, "P@1", annotators="items")
