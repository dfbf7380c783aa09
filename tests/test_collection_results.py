"""Bootstrap blocks from a memory budget, point estimates without resampling, short reprs,
column names with one meaning, and taxonomies from a parent mapping or a flat label set."""

import numpy as np
import pandas as pd
import pytest

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth._resampling import block_rows, resample_chunks
from fuzzytruth.collection import (
    agreement,
    agreement_by_level,
    annotator_agreement,
    category_reliability,
)
from fuzzytruth.datasets import santini_illustrative
from fuzzytruth.datasets.fleiss import fleiss_1971


@pytest.fixture(scope="module")
def santini():
    return santini_illustrative().annotations


@pytest.mark.parametrize("n_items", [7, 30, 1001])
def test_replicates_do_not_depend_on_the_memory_budget(n_items):
    tiny = np.vstack(list(resample_chunks(n_items, 50, np.random.default_rng(5), 24 * n_items)))
    large = np.vstack(list(resample_chunks(n_items, 50, np.random.default_rng(5), 1e9)))
    np.testing.assert_array_equal(tiny, large)
    assert tiny.shape == (50, n_items) and (tiny.sum(axis=1) == n_items).all()


def test_blocks_are_sized_from_the_budget():
    assert block_rows(185_000, 64e6) == 64e6 // (24 * 185_000)
    assert block_rows(10**9, 1.0) == 1  # at least one replicate
    rows = [len(b) for b in resample_chunks(1000, 100, np.random.default_rng(0), 24 * 1000 * 7)]
    assert rows == [7] * 14 + [2]


def test_agreement_is_the_same_under_any_budget(santini):
    a = agreement(santini, n_resamples=300, rng=2, memory_budget=24 * 20 * 3)
    b = agreement(santini, n_resamples=300, rng=2)
    # same replicates, summed in a fixed order: the same bits whatever the blocks
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    c = agreement_by_level(santini, n_resamples=100, rng=2, memory_budget=500)
    d = agreement_by_level(santini, n_resamples=100, rng=2)
    np.testing.assert_array_equal(c.bootstrap_distribution, d.bootstrap_distribution)
    with pytest.raises(ValueError, match=r"memory_budget must be a number of bytes > 0; got 0"):
        agreement(santini, memory_budget=0)


@pytest.mark.parametrize("budget", [-1.0, float("nan"), float("inf"), True, "64e6", None])
@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_a_budget_that_is_not_a_number_of_bytes_is_refused(santini, function, budget):
    # one check (fuzzytruth._validation.check_memory_budget), before any counting
    with pytest.raises(ValueError, match=r"memory_budget must be a number of bytes > 0; got"):
        function(santini, memory_budget=budget)


def test_zero_resamples_gives_the_same_point_estimates(santini):
    point = agreement(santini, n_resamples=0)
    full = agreement(santini, n_resamples=50, rng=1)
    np.testing.assert_array_equal(point.estimate, full.estimate)
    assert point.bootstrap_distribution.shape == (len(point.estimate), 0)
    assert point.to_frame()[["ci_low", "ci_high"]].isna().all().all()


def test_reprs_are_short_and_say_what_matters(santini):
    res = agreement(fleiss_1971().annotations, n_resamples=0)
    assert repr(res) == (
        "AgreementResult(fleiss_kappa=0.430, krippendorff_alpha=0.433, taxonomy_alpha=0.433; "
        "label_kappa for 5 categories; n_items=30, n_resamples=0)"
    )
    with_ci = repr(agreement(santini, n_resamples=200, rng=1))
    assert with_ci.startswith("AgreementResult(fleiss_kappa=0.353 [")
    assert with_ci.endswith("n_resamples=200)")
    levels = repr(agreement_by_level(santini, n_resamples=0))
    assert levels == (
        "LevelAgreement(taxonomy_alpha by depth {1: 0.680, 2: 0.541}; n_items=20, n_resamples=0)"
    )
    rel = repr(category_reliability(santini))
    assert rel.startswith("CategoryReliability(7 categories, 3 ambiguous: 'group', 'crowd', 'city'")
    annot = repr(annotator_agreement(santini))
    assert annot.startswith("AnnotatorAgreement(5 annotators; majority_agreement 0.350–0.812")
    assert "(lowest 's5')" in annot
    for text in (with_ci, levels, rel, annot):
        assert len(text) < 200 and "array" not in text


def test_kappa_columns_have_one_meaning_each(santini):
    # label_kappa: raw labels (an item counts for 'people' only when labelled 'people' itself);
    # closed_kappa: "in people or below". They differ on inner nodes and agree on leaves.
    agr = agreement(santini, n_resamples=0)
    rel = category_reliability(santini).to_frame().set_index("category")["closed_kappa"]
    assert agr.value("label_kappa", "people") != pytest.approx(rel["people"], abs=0.1)
    assert agr.value("label_kappa", "single") == pytest.approx(rel["single"], abs=1e-12)
    assert "kappa" not in category_reliability(santini).to_frame().columns
    assert "cohen_kappa" in annotator_agreement(santini).pairs_to_frame().columns


def test_taxonomy_from_parents_and_flat():
    tax = Taxonomy.from_parents({"cat": "animal", "dog": "animal", "car": "vehicle",
                                 "animal": "thing", "vehicle": "thing"})
    assert tax.root == "thing" and tax.ancestors("cat") == ("animal", "thing")
    dag = Taxonomy.from_parents({"bat": ["mammal", "flyer"], "mammal": "all", "flyer": "all"})
    assert not dag.is_tree
    with pytest.raises(ValueError, match=r"2 roots.*implicit_root"):
        Taxonomy.from_parents({"cat": "animal", "car": "vehicle"})
    with pytest.raises(ValueError, match="parents must be a non-empty mapping"):
        Taxonomy.from_parents({})
    flat = Taxonomy.flat(["no", "maybe", "yes", "no"])
    assert flat.leaves == ("no", "maybe", "yes") and flat.depth("yes") == 1
    with pytest.raises(ValueError, match=r"root '\(any\)' is also one of the labels"):
        Taxonomy.flat(["(any)", "x"])


def test_flat_labels_give_the_nominal_coefficients():
    frame = pd.DataFrame({"item_id": list("aabbcc"), "annotator_id": list("xyxyxy"),
                          "label": ["no", "no", "yes", "maybe", "yes", "yes"]})
    ann = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(["no", "maybe", "yes"]))
    res = agreement(ann, n_resamples=0)
    assert res.value("taxonomy_alpha") == pytest.approx(res.value("krippendorff_alpha"))
    # by hand: 3 items of 2 labels, 1 disagreeing pair out of 3; coincidence-matrix alpha
    # n = 6 labels, D_o = 2 * 1 / 6 ... via the formula 1 - (n - 1) * sum_o / sum_e
    counts = np.array([[2, 0, 0], [0, 1, 1], [0, 0, 2]], dtype=float)
    observed = sum((c.sum() ** 2 - (c**2).sum()) / (c.sum() - 1) for c in counts)
    totals = counts.sum(axis=0)
    expected = totals.sum() ** 2 - (totals**2).sum()
    assert res.value("krippendorff_alpha") == pytest.approx(1 - 5 * observed / expected)


def test_dataset_objects_print_short():
    from fuzzytruth.datasets import fleiss_1971, image_collection, imagenet_real

    for data in (fleiss_1971(), image_collection(), imagenet_real()):
        text = repr(data)
        assert len(text) < 200 and "\n" not in text, text


# ---------------------------------------------------------------------------- tables (issue 22)
def test_levels_table_has_no_root_row_and_says_why_a_level_is_undefined(santini):
    table = agreement_by_level(santini, n_resamples=0).to_frame()
    assert sorted(set(table["depth"])) == [1, 2]  # the root, where all labels agree, has none
    assert table["value"].notna().all()
    # one category left at depth 1: no expected disagreement, NaN, and n_categories says so
    tax = Taxonomy.from_nested({"all": {"only": ["x", "y"]}})
    frame = pd.DataFrame({"item_id": list("aabb"), "annotator_id": list("rsrs"),
                          "label": ["x", "y", "x", "x"]})
    levels = agreement_by_level(Annotations.from_frame(frame, taxonomy=tax),
                                n_resamples=0).to_frame()
    depth1 = levels[levels["depth"] == 1]
    assert depth1["value"].isna().all() and (depth1["n_categories"] == 1).all()
    assert levels.loc[levels["depth"] == 2, "value"].notna().all()
    root_only = Taxonomy.from_nested({"all": None})
    votes = pd.DataFrame({"item_id": ["a", "a"], "annotator_id": ["r", "s"], "label": "all"})
    with pytest.raises(ValueError, match="needs a taxonomy with a level below its root"):
        agreement_by_level(Annotations.from_frame(votes, taxonomy=root_only))


def test_annotator_table_goes_from_least_to_most_reliable():
    # r1 says crowd where r2 and r3 say single (kappa 0 with each, majority agreement 0);
    # r2 and r3 tie on kappa and are ordered by majority agreement (1/2 each), then id; the
    # loner shares no item (undefined)
    frame = pd.DataFrame({
        "item_id": ["x", "x", "x", "y", "y", "y", "z"],
        "annotator_id": ["r2", "r1", "r3", "r1", "r2", "r3", "loner"],
        "label": ["single", "crowd", "single", "crowd", "single", "single", "city"],
    })
    tax = santini_illustrative().taxonomy
    ann = Annotations.from_frame(frame, taxonomy=tax)
    res = annotator_agreement(ann)
    table = res.to_frame()
    kappa = table["mean_pairwise_kappa"].to_numpy()
    defined = kappa[np.isfinite(kappa)]
    assert (np.diff(defined) >= 0).all() and np.isnan(kappa[len(defined):]).all()
    assert table["annotator_id"].iloc[-1] == "loner"  # undefined: last
    assert table["annotator_id"].iloc[0] == "r1"
    # the arrays keep the order of Annotations.annotators
    # (Annotations put their annotators in sorted id order since rehouse's d7dc8d0)
    assert res.annotators == tuple(ann.annotators) == ("loner", "r1", "r2", "r3")
    pairs = res.pairs_to_frame()
    assert (pairs["annotator_id"] < pairs["other"]).all()  # the smaller id first
    kappas = pairs["cohen_kappa"].to_numpy()
    assert (np.diff(kappas[np.isfinite(kappas)]) >= 0).all()
    assert pairs.iloc[0][["annotator_id", "other"]].tolist() == ["r1", "r2"]
