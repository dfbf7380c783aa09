"""Checks of the two input tables (annotators' answers, systems' rankings): one message each.

Both tables are long pandas DataFrames whose column names can be changed through one
``columns`` mapping. A table read from a file by :func:`~fuzzytruth.displacement.read_answers`
or :func:`~fuzzytruth.displacement.read_runs` has the file's line numbers as its index (named
``"line"``) and the file name in ``attrs["source"]``; a message about one row then starts with
``"<file>, line <n>: "``. The index follows the rows through sorting and filtering; a frame whose
index was reset loses it, and messages then name the query and annotator only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_columns, check_real, ids_text

__all__ = ["COLUMNS", "as_text", "column_names", "located", "numeric", "require"]

COLUMNS = ("system", "query_id", "annotator_id", "item_id", "rank", "relevance", "score")
"""The column roles of the two tables; ``columns=`` maps them to other names."""


def column_names(columns: Mapping[str, str] | None) -> dict[str, str]:
    """The name of each role's column: the role itself unless ``columns`` renames it.

    Examples
    --------
    >>> column_names({"query_id": "topic"})["query_id"]
    'topic'
    >>> column_names({"doc": "item"})
    Traceback (most recent call last):
    ...
    ValueError: columns keys must be among ['system', 'query_id', 'annotator_id', 'item_id', \
'rank', 'relevance', 'score']; got ['doc']
    """
    names = {c: c for c in COLUMNS}
    if columns is None:
        return names
    if not isinstance(columns, Mapping):
        raise ValueError(f"columns must be a mapping of role to column name; got {columns!r}")
    unknown = set(columns) - set(COLUMNS)
    if unknown:
        raise ValueError(
            f"columns keys must be among {list(COLUMNS)}; got {sorted(map(str, unknown))}"
        )
    names.update(columns)
    return names


def located(frame: pd.DataFrame, row: int) -> str:
    """``"<file>, line <n>: "`` for positional row ``row`` of a table read from a file, else
    ``""`` (see the module docstring)."""
    source = frame.attrs.get("source")
    if source is None or frame.index.name != "line":
        return ""
    return f"{source}, line {frame.index[row]}: "


def require(frame: pd.DataFrame, table: str, wanted: list[str]) -> None:
    """``frame`` is a non-empty DataFrame with the ``wanted`` columns, none of them missing a
    value; else a ValueError naming ``table``, the column and (first) row."""
    found = set(getattr(frame, "columns", ()))
    scored = table == "runs" and "score" in found and "rank" in wanted
    hint = "(rename through columns=)"
    if scored and "system" in found:  # the systems' scores: ranked when asked to
        hint = "(a table of scores is ranked with run_order='score')"
    elif scored:  # one run's table
        hint = ("(a run's table of scores is Run.from_dataframe(frame, name=...), given as a "
                "Run or {name: Run})")
    check_columns(frame, table, wanted, hint=hint)
    for c in wanted:
        na = frame[c].isna().to_numpy()
        if na.any():
            raise ValueError(
                f"{located(frame, int(np.argmax(na)))}{table} column {c!r} must have no missing "
                f"values; got {int(na.sum())}"
            )


def numeric(frame: pd.DataFrame, table: str, col: str) -> np.ndarray:
    """Column ``col`` as finite float64, or a ValueError naming the table, column and row."""
    check_real(frame[col], f"{table} column {col!r}")
    try:
        x = frame[col].to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{table} column {col!r} must be numeric; got dtype {frame[col].dtype}"
        ) from exc
    bad = ~np.isfinite(x)
    if bad.any():
        raise ValueError(
            f"{located(frame, int(np.argmax(bad)))}{table} column {col!r} must be finite; got "
            f"{int(bad.sum())} non-finite values"
        )
    return x


def first_duplicate(sorted_key: np.ndarray, sorted_group: np.ndarray) -> int | None:
    """Index of the first row equal to the previous one in the same group, or None."""
    dup = (sorted_key[1:] == sorted_key[:-1]) & (sorted_group[1:] == sorted_group[:-1])
    return int(np.argmax(dup)) + 1 if dup.any() else None


def lexsort_unless_sorted(secondary: np.ndarray, primary: np.ndarray) -> np.ndarray:
    """``np.lexsort((secondary, primary))``, skipped when the rows are already in that order."""
    d1, d2 = np.diff(primary), np.diff(secondary)
    if np.all((d1 > 0) | ((d1 == 0) & (d2 > 0))):
        return np.arange(len(primary))
    return np.lexsort((secondary, primary))


def as_text(values: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """``values`` as a pandas string array, each distinct value converted once: the ids of a
    :class:`~fuzzytruth.runs.Run`, built without converting every row."""
    codes, uniques = pd.factorize(values)
    merged, texts = _texts(uniques)
    return texts.take(merged[codes])


def _texts(uniques: Any) -> tuple[np.ndarray, pd.api.extensions.ExtensionArray]:
    """:func:`distinct_text` with the texts as a pandas string array."""
    arr = np.asarray(uniques)
    if arr.dtype.kind in "iu":  # pyarrow converts integers ten times faster than numpy
        import pyarrow as pa  # loaded with pandas' string arrays anyway

        return np.arange(len(arr)), pd.array(pa.array(arr).cast(pa.string()), dtype="str")
    text = ids_text(arr, "ids")
    if pd.api.types.infer_dtype(arr, skipna=False) == "string":
        return np.arange(len(arr)), pd.array(text, dtype="str")
    codes, texts = pd.factorize(text)
    return codes.astype(np.int64), pd.array(np.asarray(texts, dtype=object), dtype="str")


def distinct_text(uniques: Any) -> tuple[np.ndarray, np.ndarray]:
    """The text of distinct ids ``uniques``: ``(codes, texts)`` with ``texts[codes]`` the text of
    each (an object array of str). Distinct integers, and distinct strings, have distinct
    texts (then ``codes`` is ``arange``); ids of mixed types may share one (``1`` and
    ``"1"``), which ``codes`` then merges, as a run would.

    Examples
    --------
    >>> distinct_text(np.array([1, "1", "b"], dtype=object))
    (array([0, 0, 1]), array(['1', 'b'], dtype=object))
    >>> distinct_text(np.array([10, 2]))[1]
    array(['10', '2'], dtype=object)
    """
    codes, texts = _texts(uniques)
    return codes, np.asarray(texts, dtype=object)


def text_codes(values: np.ndarray | pd.Series, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``values`` in sorted order of the values as given, and those values
    (``(codes, uniques)``). Ids are compared as text across the library (as in
    :class:`~fuzzytruth.runs.Run`), so two values with the same text (``1`` and ``"1"``) are
    refused: a run could not tell them apart.
    """
    codes, uniques = pd.factorize(np.asarray(values), sort=True)
    uniques = np.asarray(uniques, dtype=object)
    merged, _ = distinct_text(uniques)
    if merged.max(initial=-1) < len(uniques) - 1:  # two values share a text
        first = {}
        for value, code in zip(uniques, merged, strict=True):
            if code in first:
                raise ValueError(
                    f"{what} {first[code]!r} and {value!r} are the same id as text (ids are "
                    "compared as strings); make them distinct"
                )
            first[code] = value
    return codes.astype(np.int64), uniques
