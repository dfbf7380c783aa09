"""A long table of predictions (``Predictions.from_frame``: one row per item and class) read as
the definition says: each id's text (``str`` of an int, a str as it is), items and classes
sorted by that text unless ``classes`` orders them, each score in its (item, class) cell,
whatever the columns' types and the rows' order. Oracle: the matrix built by hand from a dict
keyed by the ids' text. Float ids are refused as a run's are (1.0 would be the item "1.0")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth.classify import Predictions


def _column(ids: list, kind: str) -> pd.Series:
    """The ids as a DataFrame column of ``kind``: pandas' str dtype, int64, nullable Int64,
    uint8, or Python objects (ints and str mixed)."""
    if kind == "str":
        return pd.Series([str(i) for i in ids], dtype="str")
    if kind == "object":
        return pd.Series([i if n % 2 else str(i) for n, i in enumerate(ids)], dtype=object)
    return pd.Series(ids, dtype={"int64": np.int64, "Int64": "Int64", "uint8": np.uint8}[kind])


@st.composite
def long_tables(draw):
    items = draw(st.lists(st.integers(0, 250), min_size=1, max_size=12, unique=True))
    classes = draw(st.lists(st.integers(0, 250), min_size=1, max_size=5, unique=True))
    rows = [(i, c) for i in items for c in classes]
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[k] for k in order]
    scores = draw(st.lists(st.floats(-1e6, 1e6), min_size=len(rows), max_size=len(rows)))
    kinds = st.sampled_from(["str", "object", "int64", "Int64", "uint8"])
    frame = pd.DataFrame({"item_id": _column([i for i, _ in rows], draw(kinds)),
                          "class": _column([c for _, c in rows], draw(kinds)),
                          "score": scores})
    given_order = draw(st.none() | st.permutations([str(c) for c in classes]))
    return frame, rows, scores, given_order


@settings(max_examples=60, deadline=None)
@given(long_tables())
def test_a_long_table_is_its_cells_keyed_by_the_ids_text(table):
    frame, rows, scores, classes = table
    cell = {(str(i), str(c)): s for (i, c), s in zip(rows, scores, strict=True)}
    items = sorted({str(i) for i, _ in rows})
    columns = classes if classes is not None else sorted({str(c) for _, c in rows})
    want = np.array([[cell[i, c] for c in columns] for i in items])
    got = Predictions.from_frame(frame, classes=classes)
    assert list(got.items) == items
    assert list(got.classes) == columns
    np.testing.assert_array_equal(got.scores, want)


@pytest.mark.parametrize("column", ["item_id", "class"])
def test_float_ids_are_refused_naming_the_column(column):
    """pandas reads an id column with a missing value as floats: 1.0 would be the id "1.0",
    which no truth names (the constructor and a run refuse them alike)."""
    frame = pd.DataFrame({"item_id": [1, 1, 2, 2], "class": [0, 1, 0, 1],
                          "score": [0.9, 0.1, 0.4, 0.6]})
    frame[column] = frame[column].astype(float)
    what = "item" if column == "item_id" else "class"
    with pytest.raises(ValueError, match=rf"^the {what} ids of column '{column}' must be str or "
                                         r"int; got floating-point numbers such as 0?1?\.0"):
        Predictions.from_frame(frame)


def test_a_missing_id_in_any_column_type_names_its_row():
    for ids in (pd.array([1, 1, None, 2], dtype="Int64"), [1, 1, np.nan, 2.0],
                pd.Series(["a", "a", None, "b"], dtype="str"), ["a", "a", None, "b"]):
        frame = pd.DataFrame({"item_id": ids, "class": ["x", "y", "x", "y"],
                              "score": [0.9, 0.1, 0.4, 0.6]})
        with pytest.raises(ValueError, match=r"^row 2: the item id must not be missing"):
            Predictions.from_frame(frame)


@pytest.mark.parametrize("layout", ["long", "wide"])
def test_a_parquet_file_s_id_columns_follow_the_same_rule(tmp_path, layout):
    """A Parquet file keeps its columns' types: integer ids are their text, float ids are
    refused naming the file (a wide table's were read as "1.0" before)."""
    from fuzzytruth.io import read_predictions

    if layout == "long":
        frame = pd.DataFrame({"item_id": [10, 10, 9, 9], "class": ["a", "b", "a", "b"],
                              "score": [0.9, 0.1, 0.4, 0.6]})
    else:
        frame = pd.DataFrame({"item_id": [10, 9], "a": [0.9, 0.4], "b": [0.1, 0.6]})
    path = tmp_path / "p.parquet"
    frame.to_parquet(path)
    got = read_predictions(path, layout=layout)
    assert list(got.items) == ["10", "9"] and got.scores.tolist() == [[0.9, 0.1], [0.4, 0.6]]
    frame.astype({"item_id": float}).to_parquet(path)
    with pytest.raises(ValueError, match=r"p\.parquet: the item ids of column 'item_id' must "
                                         r"be str or int; got floating-point numbers"):
        read_predictions(path, layout=layout)
