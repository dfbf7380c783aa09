"""Hard labels as predictions (``Predictions.from_labels``): each item's row splits the mass
evenly over its distinct labels, a label given twice counting once. Oracle: the row built by
hand, item by item, from the definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fuzzytruth.classify import Predictions

CLASSES = ["a", "b", "c", "d"]
LABEL = st.sampled_from(CLASSES)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text("xyz", min_size=1, max_size=3),
                       LABEL | st.lists(LABEL, min_size=1, max_size=5) | st.tuples(LABEL, LABEL),
                       min_size=1, max_size=12))
def test_each_row_splits_the_mass_over_the_item_s_distinct_labels(labels):
    got = Predictions.from_labels(labels, classes=CLASSES)
    want = np.zeros((len(labels), len(CLASSES)))
    for row, value in enumerate(labels.values()):
        distinct = {value} if isinstance(value, str) else set(value)
        for label in distinct:
            want[row, CLASSES.index(label)] = 1 / len(distinct)
    assert list(got.items) == list(labels)
    np.testing.assert_array_equal(got.scores, want)


def test_an_empty_set_or_an_unknown_label_names_the_first_item_that_has_one():
    with pytest.raises(ValueError, match=r"^item 'y' has an empty label set"):
        Predictions.from_labels({"x": "a", "y": [], "z": []}, classes=CLASSES)
    with pytest.raises(ValueError, match=r"^label\(s\) 'zz', 'q' of item 'y' are not among the "
                                         r"classes 'a', 'b', 'c', 'd'"):
        Predictions.from_labels({"x": "a", "y": ["b", "zz", "q", "zz"][:3], "w": ["e"]},
                                classes=CLASSES)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=4) | st.integers(-20, 20), max_size=30))
@example(["b", "\ud800", "a", "b", "\U0001f600", "\uffff"])
def test_names_sorted_by_arrow_are_in_python_s_order(names):
    """Many names (items) are sorted by Arrow's sort of their UTF-8, few (nodes, classes) as
    Python objects: the same stable permutation, code point order, lone surrogates (which
    UTF-8 cannot encode) included."""
    from fuzzytruth import _order

    want = np.argsort(np.array([str(n) for n in names], dtype=object), kind="stable")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_order, "_ARROW_SORT_NAMES", 0)
        assert _order.name_order(names).tolist() == want.tolist()
