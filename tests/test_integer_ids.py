"""Integer ids (NumPy integer arrays, lists of ints, pandas and Arrow integer columns) are
written as text by Arrow's cast, a chunk at a time, instead of ``str`` one id at a time: each
must still be the text ``id_text`` gives it, whatever the container, the chunking and the
values around it (an id that is not a plain integer sends the whole column back to ``str``;
a missing one is refused)."""

from __future__ import annotations

import enum

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzytruth._pairs as pairs
from fuzzytruth import Qrels, Run, evaluate
from fuzzytruth._validation import id_text


class Named(int, enum.Enum):  # an int whose str is its name, not its digits
    A = 1


INT_DTYPES = [np.dtype(code) for code in np.typecodes["AllInteger"]]


def integers_of(dtype: np.dtype) -> st.SearchStrategy:
    info = np.iinfo(dtype)
    return st.integers(int(info.min), int(info.max)).map(dtype.type)


#: one id of any kind a list may hold beside ints: another type sends the column to str()
OTHERS = st.sampled_from(["7", "x", True, False, Named.A, np.bool_(True), b"9", 2**64, -2**70])


def objects(values: list) -> np.ndarray:
    """``values`` as a 1-D object array, each element as it is (no NumPy conversion)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


plain_ints = st.integers(-2**63, 2**63 - 1)
numpy_ints = st.sampled_from(INT_DTYPES).flatmap(integers_of)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.one_of(plain_ints, numpy_ints), min_size=1, max_size=12),
       other=st.one_of(st.none(), st.tuples(st.integers(0, 12), OTHERS)),
       container=st.sampled_from(["list", "tuple", "object"]),
       chunk=st.sampled_from([2, 3, 1 << 16]))
def test_ids_in_python_containers_are_the_text_str_gives(values, other, container, chunk):
    if other is not None:
        values.insert(min(other[0], len(values)), other[1])
    given_ids = {"list": list, "tuple": tuple, "object": objects}[container](values)
    with pytest.MonkeyPatch.context() as patch:  # small chunks: the ids span several
        patch.setattr(pairs, "_CONVERT_ROWS", chunk)
        run = Run(given_ids, given_ids, np.arange(len(values), dtype=float),
                  duplicates="first")
    expected = [id_text(v, "ids") for v in values]
    kept = list(dict.fromkeys(expected))  # duplicates="first" keeps each text's first row
    assert list(run.doc_ids) == kept
    assert list(run.query_ids) == kept
    as_text = Run(expected, expected, np.arange(len(values), dtype=float), duplicates="first")
    assert list(run.queries) == list(as_text.queries)
    assert list(run._q_uniques) == list(as_text._q_uniques)  # in order of first appearance


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from(INT_DTYPES), data=st.data(), chunk=st.sampled_from([2, 1 << 16]))
def test_numpy_pandas_and_arrow_integer_columns_are_the_text_str_gives(dtype, data, chunk):
    values = np.array(data.draw(st.lists(integers_of(dtype), min_size=1, max_size=10,
                                         unique=True)), dtype=dtype)
    expected = [str(v) for v in values.tolist()]
    nullable = dtype.name.capitalize().replace("Uint", "UInt")
    columns = [values, pd.Series(values), pd.Index(values), pd.array(values, dtype=nullable),
               pd.array(values, dtype=f"{dtype.name}[pyarrow]"), pa.array(values),
               pa.chunked_array([values[:1], values[1:]])]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pairs, "_CONVERT_ROWS", chunk)
        for column in columns:
            run = Run(column, column, np.arange(len(values), dtype=float))
            assert list(run.doc_ids) == expected, type(column)
            assert list(run.query_ids) == expected, type(column)
            assert list(run._q_uniques) == expected, type(column)
            if not isinstance(column, pa.Array | pa.ChunkedArray):
                frame = pd.DataFrame({"query_id": column, "doc_id": column, "relevance": 1.0})
                qrels = Qrels.from_dataframe(frame)
                assert list(qrels.query_ids) == list(qrels.doc_ids) == expected


@pytest.mark.parametrize("column", [
    pd.array([1, None], dtype="Int64"), pd.array([1, None], dtype="int64[pyarrow]"),
    pa.array([1, None]), [1, None], np.array([1, None], dtype=object)],
    ids=["Int64", "arrow-backed", "arrow", "list", "object"])
def test_a_missing_integer_id_is_refused(column):
    with pytest.raises(ValueError, match=r"^doc_ids must not contain missing values$"):
        Run(["q", "q"], column, [1.0, 2.0])


def test_integer_ids_evaluate_as_their_text():
    """The same collection given with int64 ids and with their text: the same numbers."""
    rng = np.random.default_rng(5)
    q, d = np.repeat(np.arange(40), 30), rng.integers(0, 10**12, size=1200)
    scores, grades = rng.random(1200), rng.integers(0, 3, size=1200)
    keep = ~pd.DataFrame({"q": q, "d": d}).duplicated().to_numpy()
    q, d, scores, grades = q[keep], d[keep], scores[keep], grades[keep]
    as_ints = evaluate(Run(q, d, scores), Qrels(q[::2], d[::2], grades[::2]),
                       ["nDCG@10", "AP", "P@10", "R@100"]).to_frame()
    text = q.astype(str).astype(object), d.astype(str).astype(object)
    as_text = evaluate(Run(*text, scores), Qrels(text[0][::2], text[1][::2], grades[::2]),
                       ["nDCG@10", "AP", "P@10", "R@100"]).to_frame()
    pd.testing.assert_frame_equal(as_ints, as_text)
