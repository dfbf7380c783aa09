"""Row order of the annotations changes nothing (issue 23): every public function of
fuzzytruth.collection gives identical results, to the bit, bootstrap intervals included, when
the rows of the annotation table are shuffled."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzytruth.collection as collection
from fuzzytruth import Annotations, Membership
from fuzzytruth.datasets import image_collection, santini_illustrative


def shuffled(ann: Annotations, seed: int) -> Annotations:
    """The same labels with the rows of the table in another order (and the same annotator
    weights)."""
    frame = ann.to_frame().drop(columns="weight")
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return Annotations.from_frame(frame, taxonomy=ann.taxonomy,
                                  annotator_weights=ann.annotator_weights)


def same_frames(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def by_id(result: collection.AnnotatorAgreement) -> pd.DataFrame:
    """Pairwise κ as a table indexed by annotator id on both axes, in sorted id order."""
    ids = list(result.annotators)
    table = pd.DataFrame(result.pairwise_kappa, index=ids, columns=ids)
    order = sorted(ids, key=str)
    return table.loc[order, order]


#: How each public function is called, and what must be identical.
CHECKS = {
    "agreement": lambda ann: [
        collection.agreement(ann, n_resamples=200, rng=3).to_frame(),
        pd.DataFrame(collection.agreement(ann, n_resamples=50, rng=3).bootstrap_distribution),
    ],
    "agreement_by_level": lambda ann: [
        collection.agreement_by_level(ann, n_resamples=200, rng=3).to_frame(),
        pd.DataFrame(
            collection.agreement_by_level(ann, n_resamples=50, rng=3).bootstrap_distribution
        ),
    ],
    "annotator_agreement": lambda ann: [
        collection.annotator_agreement(ann).to_frame(),
        collection.annotator_agreement(ann).pairs_to_frame(),
        by_id(collection.annotator_agreement(ann)),
    ],
    "annotator_weights": lambda ann: [
        pd.Series(collection.annotator_weights(ann)).sort_index(),
        pd.Series(collection.annotator_weights(ann, by="majority")).sort_index(),
    ],
    "category_reliability": lambda ann: [
        collection.category_reliability(ann).to_frame(),
        # a Membership whose rows come in the table's item order (unweighted: with annotator
        # weights, Membership.from_annotations's own sums are only equal to rounding)
        collection.category_reliability(
            Membership.from_annotations(ann.with_annotator_weights(None))
        ).to_frame(),
    ],
    "sibling_confusions": lambda ann: [collection.sibling_confusions(ann)],
}


def test_every_public_function_is_checked():
    functions = {name for name in collection.__all__
                 if inspect.isfunction(getattr(collection, name))}
    assert functions == set(CHECKS)


def weighted_santini() -> Annotations:
    # annotator weights whose sums depend on the order they are added in
    ann = santini_illustrative().annotations
    weights = {a: w for a, w in zip(ann.annotators, [0.1, 0.7, 0.2, 0.3, 0.9], strict=True)}
    return ann.with_annotator_weights(weights)


@pytest.mark.parametrize("name", sorted(CHECKS))
@pytest.mark.parametrize("data", ["santini", "image_collection"])
def test_shuffled_rows_give_identical_results(name, data):
    ann = weighted_santini() if data == "santini" else image_collection().annotations
    expected = CHECKS[name](ann)
    for seed in (1, 2):
        for got, want in zip(CHECKS[name](shuffled(ann, seed)), expected, strict=True):
            if isinstance(want, pd.Series):
                pd.testing.assert_series_equal(got, want, check_exact=True)
            else:
                same_frames(got, want)


def test_the_reported_interval_no_longer_moves():
    # issue 23: ci_low of the agreement interval moved by 0.028 when the rows were shuffled
    ann = image_collection().annotations
    low = [collection.agreement(a, rng=0).to_frame()["ci_low"].to_numpy()
           for a in (ann, shuffled(ann, 7))]
    np.testing.assert_array_equal(low[0], low[1])


@settings(max_examples=20, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=5), min_size=2, max_size=10),
       st.randoms(use_true_random=False), st.booleans())
def test_any_row_order_and_id_type(rows, random, numeric_ids):
    # numbers and text as item ids; the first item is never the smallest id
    frame = pd.DataFrame(
        [((10 - i) if numeric_ids else f"x{10 - i}", f"r{a}", f"c{v}")
         for i, row in enumerate(rows) for a, v in enumerate(row)],
        columns=["item_id", "annotator_id", "label"],
    )
    from fuzzytruth import Taxonomy

    tax = Taxonomy.from_parents({"c0": "g0", "c1": "g0", "c2": "g1", "c3": "g1", "c4": "g1"},
                                implicit_root="all")
    order = list(range(len(frame)))
    random.shuffle(order)
    a = Annotations.from_frame(frame, taxonomy=tax)
    b = Annotations.from_frame(frame.iloc[order].reset_index(drop=True), taxonomy=tax)
    if (frame.groupby("item_id").size() < 2).all():
        return  # agreement undefined (an error, tested elsewhere)
    for fn in (collection.agreement, collection.agreement_by_level):
        same_frames(fn(b, n_resamples=40, rng=1).to_frame(),
                    fn(a, n_resamples=40, rng=1).to_frame())
    for name in ("annotator_agreement", "category_reliability", "sibling_confusions"):
        for got, want in zip(CHECKS[name](b), CHECKS[name](a), strict=True):
            same_frames(got, want)
