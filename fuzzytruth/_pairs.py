"""Tables of (query, document, value) rows, the storage shared by runs and qrels.

Ids are strings (numbers given in a DataFrame are converted with ``str``), factorised once by
query; a document listed twice for one query is an error or resolved by a named policy
(``duplicates``). :class:`~fuzzytruth.runs.Run` and :class:`~fuzzytruth.truth.qrels.Qrels`
are the two kinds.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice

__all__ = ["DUPLICATES", "PairTable", "check_columns"]


DUPLICATES = ("error", "max", "first", "last")


def _as_ids(values: Any, name: str) -> Any:
    """1-D string ids as a pandas array (Arrow-backed when available: fast to factorize)."""
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.api.extensions.ExtensionArray | np.ndarray):
        arr = values
    else:  # each id kept whole: a numpy unicode array drops trailing NUL characters
        arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if pd.isna(arr).any():
        raise ValueError(f"{name} must not contain missing values")
    if isinstance(arr, np.ndarray) or arr.dtype != "str":
        arr = pd.array(np.asarray(arr, dtype=object), dtype="str")
    return arr


def _as_values(values: Any, name: str) -> np.ndarray:
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric") from None
    if out.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {out.shape}")
    if np.isnan(out).any():
        row = int(np.isnan(out).argmax())
        raise ValueError(f"{name} must not contain NaN (found at row {row})")
    return out


_BLOCK_ROWS = 1 << 14
"""Rows per block of queries in the block-wise joins: hashing document ids a block at a time
keeps the hash tables small enough for the CPU cache (several times faster than one table)."""


def blocks(counts: np.ndarray) -> np.ndarray:
    """Boundaries (in units of ``counts``' entries) of consecutive blocks of ~_BLOCK_ROWS rows."""
    target = _BLOCK_ROWS
    total = np.cumsum(counts)
    if len(total) == 0:
        return np.zeros(1, dtype=np.int64)
    cuts = np.searchsorted(total, np.arange(target, total[-1], target), side="left") + 1
    return np.unique(np.concatenate([[0], cuts, [len(counts)]])).astype(np.int64)


def _grouped(q_codes: np.ndarray) -> np.ndarray | None:
    """A stable order grouping rows by query code, or None if they are grouped already."""
    if len(q_codes) < 2 or (np.diff(q_codes) >= 0).all():
        return None
    return np.argsort(q_codes, kind="stable")


def _has_duplicate_pairs(q_codes: np.ndarray, docs: Any, order: np.ndarray | None) -> bool:
    """Whether a (query, document) pair occurs twice, hashing documents a block at a time.

    ``order`` groups the rows by query (None: they are grouped already).
    """
    codes = q_codes if order is None else q_codes[order]
    docs = docs if order is None else docs.take(order)
    bounds = blocks(np.bincount(codes)) if len(codes) else np.zeros(1, dtype=np.int64)
    starts = np.searchsorted(codes, bounds)
    for a, b in itertools.pairwise(starts):
        local, uniques = pd.factorize(docs[a:b])
        keys = (codes[a:b] - codes[a]) * len(uniques) + local
        keys.sort()
        if (keys[1:] == keys[:-1]).any():
            return True
    return False


class PairTable:
    """Shared storage of Run and Qrels: (query, doc, value) rows, factorised by query."""

    _value_name = "value"
    _duplicate_hint = "pass duplicates='max', 'first' or 'last' to keep one"

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        values: Any,
        *,
        duplicates: str,
        source: str | None,
        line_numbers: np.ndarray | None,
    ) -> None:
        check_choice("duplicates", duplicates, DUPLICATES)
        queries = _as_ids(query_ids, "query_ids")
        docs = _as_ids(doc_ids, "doc_ids")
        vals = _as_values(values, self._value_name)
        if not len(queries) == len(docs) == len(vals):
            raise ValueError(
                f"query_ids, doc_ids and {self._value_name} must have the same length; got "
                f"{len(queries)}, {len(docs)} and {len(vals)}"
            )
        q_codes, q_uniques = pd.factorize(queries)
        q_codes = q_codes.astype(np.int64)
        group_order = _grouped(q_codes)
        if _has_duplicate_pairs(q_codes, docs, group_order):
            d_codes, d_uniques = pd.factorize(docs)
            keys = q_codes * max(len(d_uniques), 1) + d_codes.astype(np.int64)
            dup = pd.Series(keys).duplicated(keep=False).to_numpy()
            keep = self._resolve_duplicates(
                keys, vals, dup, duplicates, queries, docs, source, line_numbers
            )
            queries, docs, vals, q_codes = queries[keep], docs[keep], vals[keep], q_codes[keep]
            group_order = _grouped(q_codes)
        self._queries = queries
        self._docs = docs
        self._values = vals
        self._q_codes = q_codes
        self._q_uniques = q_uniques
        self._group_order = group_order  # None: rows are grouped by query already

    def _resolve_duplicates(
        self,
        keys: np.ndarray,
        vals: np.ndarray,
        dup: np.ndarray,
        duplicates: str,
        queries: Any,
        docs: Any,
        source: str | None,
        line_numbers: np.ndarray | None,
    ) -> np.ndarray:
        rows = np.flatnonzero(dup)
        if duplicates == "error":
            first_key = keys[rows[0]]
            same = rows[keys[rows] == first_key]
            where = (
                f"lines {', '.join(str(int(line_numbers[i])) for i in same)}"
                if line_numbers is not None
                else f"rows {', '.join(str(int(i)) for i in same)}"
            )
            # from a file: "<file>, line <second listing>: ..." like every reader's message
            origin = (
                "" if not source
                else f"{source}: " if line_numbers is None
                else f"{source}, line {int(line_numbers[same[1]])}: "
            )
            raise ValueError(
                f"{origin}document {docs[rows[0]]!r} is listed {len(same)} times for query "
                f"{queries[rows[0]]!r} ({where}); {self._duplicate_hint}"
            )
        keep = np.ones(len(keys), dtype=bool)
        keep[rows] = False
        if duplicates == "first":
            order = rows[np.argsort(keys[rows], kind="stable")]
        elif duplicates == "last":
            order = rows[::-1][np.argsort(keys[rows][::-1], kind="stable")]
        else:  # "max": highest value, earliest row among equal values
            order = rows[np.lexsort((rows, -vals[rows], keys[rows]))]
        k = keys[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = k[1:] != k[:-1]
        keep[order[first]] = True
        return keep

    def __len__(self) -> int:
        return len(self._values)

    @property
    def query_ids(self) -> np.ndarray:
        """Query id of each row (object array of str)."""
        return np.asarray(self._queries, dtype=object)

    @property
    def doc_ids(self) -> np.ndarray:
        """Document id of each row (object array of str)."""
        return np.asarray(self._docs, dtype=object)

    @property
    def queries(self) -> list[str]:
        """Distinct query ids, sorted."""
        return sorted(str(q) for q in self._q_uniques)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._q_uniques)} queries, {len(self)} rows)"


def check_columns(df: pd.DataFrame, columns: Mapping[str, str]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"df must be a pandas DataFrame; got {type(df).__name__}")
    for param, col in columns.items():
        if col not in df.columns:
            raise ValueError(
                f"{param}={col!r} is not a column of the DataFrame; columns are {list(df.columns)}"
            )
