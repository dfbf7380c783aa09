"""Runs (ranked lists per query) and Qrels (crisp graded truth), and their ranked gains.

Query and document ids are strings (numbers given in a DataFrame are converted with ``str``),
so tie-breaking by document id follows trec_eval's ``strcmp`` order. Scores are float64; they
are compared in float32 only when asked (``score_dtype="float32"``, as trec_eval does).

:func:`ranked_gains` turns ``(Run, Qrels)`` into the padded
:class:`~fuzzytruth.metrics.base.RankedGains` arrays every kernel reads, for all queries at once
(one join and one sort, no Python loop per query).

Tie policies (``ties``):

``"docid_desc"``
    trec_eval: score descending, then document id descending (``strcmp``).
``"input_order"``
    score descending, then the order of the rows in the run.
``"average"``
    the expectation over all orders of each group of tied documents; the returned
    ``RankedGains`` carries the groups (``tie_start``/``tie_stop``) and the measures that have a
    tie-averaged form use them (see :mod:`fuzzytruth.metrics.ranking`).

Examples
--------
>>> import pandas as pd
>>> run = Run.from_dataframe(pd.DataFrame(
...     {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [0.5, 0.9, 0.5]}))
>>> qrels = Qrels.from_dataframe(pd.DataFrame(
...     {"query_id": ["q1", "q1"], "doc_id": ["a", "z"], "relevance": [2, 1]}))
>>> rg = ranked_gains(run, qrels)
>>> rg.gains            # b (0.9), then the tie c, a broken by doc id descending
array([[0., 0., 2.]])
>>> rg.ideal
array([[2., 1.]])
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth.metrics.base import RankedGains, judged_grade_matrix

__all__ = ["Qrels", "Ranking", "Run", "qrels_gains", "rank", "ranked_gains"]

DUPLICATES = ("error", "max", "first", "last")
TIES = ("docid_desc", "docid_asc", "input_order", "average")
SCORE_DTYPES = ("float64", "float32")
QUERY_SETS = ("intersection", "qrels", "run")


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")


def _as_ids(values: Any, name: str) -> Any:
    """1-D string ids as a pandas array (Arrow-backed when available: fast to factorize)."""
    if isinstance(values, pd.Series):
        values = values.array
    arr = values if isinstance(values, pd.api.extensions.ExtensionArray) else np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if pd.isna(arr).any():
        raise ValueError(f"{name} must not contain missing values")
    if isinstance(arr, np.ndarray) or arr.dtype != "str":
        arr = pd.array(np.asarray(arr, dtype=object).astype(str), dtype="str")
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


def _blocks(counts: np.ndarray) -> np.ndarray:
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
    bounds = _blocks(np.bincount(codes)) if len(codes) else np.zeros(1, dtype=np.int64)
    starts = np.searchsorted(codes, bounds)
    for a, b in itertools.pairwise(starts):
        local, uniques = pd.factorize(docs[a:b])
        keys = (codes[a:b] - codes[a]) * len(uniques) + local
        keys.sort()
        if (keys[1:] == keys[:-1]).any():
            return True
    return False



class _Table:
    """Shared storage of Run and Qrels: (query, doc, value) rows, factorized."""

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
        _check_choice("duplicates", duplicates, DUPLICATES)
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
            origin = f"{source}: " if source else ""
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


class Run(_Table):
    """A run: one score per (query, document); higher scores rank first.

    Parameters
    ----------
    query_ids, doc_ids : array-like
        Ids of each row (converted to str).
    scores : array-like
        Score of each row (float64; NaN is rejected).
    name : str, default "run"
        Run name (the TREC ``tag``), recorded with results.
    duplicates : {"error", "max", "first", "last"}, default "error"
        What to do with a document listed twice for one query: raise, keep the row with the
        highest score (the earliest among equal scores), or keep the first or last row.
    source : str, optional
        Where the rows came from (a file name), used in error messages.
    line_numbers : numpy.ndarray, optional
        1-based line number of each row in ``source``, used in error messages.

    Examples
    --------
    >>> run = Run(["q1", "q1", "q2"], ["d1", "d2", "d1"], [2.0, 1.0, 0.5])
    >>> run
    Run(2 queries, 3 rows)
    >>> Run(["q1", "q1"], ["d1", "d1"], [2.0, 1.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: document 'd1' is listed 2 times for query 'q1' (rows 0, 1); pass duplicates=...
    >>> Run(["q1", "q1"], ["d1", "d1"], [2.0, 3.0], duplicates="max").scores
    array([3.])
    """

    _value_name = "scores"

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        scores: Any,
        *,
        name: str = "run",
        duplicates: str = "error",
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
    ) -> None:
        super().__init__(
            query_ids,
            doc_ids,
            scores,
            duplicates=duplicates,
            source=source,
            line_numbers=line_numbers,
        )
        self.name = name

    @property
    def scores(self) -> np.ndarray:
        """Score of each row (float64)."""
        return self._values

    @classmethod
    def from_dataframe(
        cls,
        df: pd.DataFrame,
        *,
        query_col: str = "query_id",
        doc_col: str = "doc_id",
        score_col: str = "score",
        name: str = "run",
        duplicates: str = "error",
    ) -> Run:
        """Build a run from a DataFrame with one row per (query, document).

        Parameters
        ----------
        df : pandas.DataFrame
            The rows.
        query_col, doc_col, score_col : str
            Column names.
        name : str, default "run"
            Run name.
        duplicates : {"error", "max", "first", "last"}, default "error"
            See :class:`Run`.

        Returns
        -------
        Run

        Examples
        --------
        >>> df = pd.DataFrame({"qid": [1, 1], "doc": ["a", "b"], "s": [0.3, 0.1]})
        >>> Run.from_dataframe(df, query_col="qid", doc_col="doc", score_col="s").queries
        ['1']
        """
        _check_columns(df, {"query_col": query_col, "doc_col": doc_col, "score_col": score_col})
        return cls(df[query_col], df[doc_col], df[score_col], name=name, duplicates=duplicates)

    @classmethod
    def from_trec(cls, path: str, *, duplicates: str = "error") -> Run:
        """Read a 6-column TREC run file (see :func:`fuzzytruth.io.read_trec_run`)."""
        from fuzzytruth.io import read_trec_run

        return read_trec_run(path, duplicates=duplicates)

    def to_dataframe(self) -> pd.DataFrame:
        """The rows as a DataFrame with columns ``query_id``, ``doc_id``, ``score``."""
        return pd.DataFrame(
            {"query_id": self._queries, "doc_id": self._docs, "score": self._values}
        )


class Qrels(_Table):
    """Crisp graded relevance judgments: one grade per judged (query, document).

    Parameters
    ----------
    query_ids, doc_ids : array-like
        Ids of each judgment (converted to str).
    relevance : array-like
        Grade of each judgment (float64; 0 and negative grades mean not relevant).
    duplicates : {"error", "max", "first", "last"}, default "error"
        What to do with a document judged twice for one query.
    source : str, optional
        Where the rows came from, used in error messages.
    line_numbers : numpy.ndarray, optional
        1-based line number of each row in ``source``, used in error messages.

    Examples
    --------
    >>> Qrels(["q1", "q1"], ["d1", "d2"], [1, 0])
    Qrels(1 queries, 2 rows)
    """

    _value_name = "relevance"

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        relevance: Any,
        *,
        duplicates: str = "error",
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
    ) -> None:
        super().__init__(
            query_ids,
            doc_ids,
            relevance,
            duplicates=duplicates,
            source=source,
            line_numbers=line_numbers,
        )

    @property
    def relevance(self) -> np.ndarray:
        """Grade of each judgment (float64)."""
        return self._values

    @classmethod
    def from_dataframe(
        cls,
        df: pd.DataFrame,
        *,
        query_col: str = "query_id",
        doc_col: str = "doc_id",
        relevance_col: str = "relevance",
        duplicates: str = "error",
    ) -> Qrels:
        """Build qrels from a DataFrame with one row per judged (query, document).

        Examples
        --------
        >>> df = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [2]})
        >>> Qrels.from_dataframe(df).relevance
        array([2.])
        """
        _check_columns(
            df, {"query_col": query_col, "doc_col": doc_col, "relevance_col": relevance_col}
        )
        return cls(df[query_col], df[doc_col], df[relevance_col], duplicates=duplicates)

    @classmethod
    def from_trec(cls, path: str, *, duplicates: str = "error") -> Qrels:
        """Read a 4-column TREC qrels file (see :func:`fuzzytruth.io.read_trec_qrels`)."""
        from fuzzytruth.io import read_trec_qrels

        return read_trec_qrels(path, duplicates=duplicates)

    @classmethod
    def from_judgment_groups(
        cls,
        df: pd.DataFrame,
        *,
        group_col: str = "group",
        query_col: str = "query_id",
        doc_col: str = "doc_id",
        relevance_col: str = "relevance",
        duplicates: str = "error",
    ) -> dict[str, Qrels]:
        """Split judgments by judgment group (annotator): one Qrels per group.

        This is trec_eval's ``qrels_jg`` format (``qid jg docno rel``), where each judgment
        group is one assessor's set of judgments.

        Returns
        -------
        dict of str to Qrels
            Keyed by group id (as str), in sorted order.

        Examples
        --------
        >>> df = pd.DataFrame({"query_id": ["q", "q", "q"], "group": [0, 1, 1],
        ...                    "doc_id": ["a", "a", "b"], "relevance": [1, 0, 1]})
        >>> {g: len(q) for g, q in Qrels.from_judgment_groups(df).items()}
        {'0': 1, '1': 2}
        """
        _check_columns(
            df,
            {
                "group_col": group_col,
                "query_col": query_col,
                "doc_col": doc_col,
                "relevance_col": relevance_col,
            },
        )
        groups = df[group_col].astype(str)
        return {
            str(g): cls.from_dataframe(
                part,
                query_col=query_col,
                doc_col=doc_col,
                relevance_col=relevance_col,
                duplicates=duplicates,
            )
            for g, part in df.groupby(groups, sort=True)
        }

    def to_dataframe(self) -> pd.DataFrame:
        """The rows as a DataFrame with columns ``query_id``, ``doc_id``, ``relevance``."""
        return pd.DataFrame(
            {"query_id": self._queries, "doc_id": self._docs, "relevance": self._values}
        )


def _check_columns(df: pd.DataFrame, columns: Mapping[str, str]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"df must be a pandas DataFrame; got {type(df).__name__}")
    for param, col in columns.items():
        if col not in df.columns:
            raise ValueError(
                f"{param}={col!r} is not a column of the DataFrame; columns are {list(df.columns)}"
            )


def _sortable_float32(scores: np.ndarray) -> np.ndarray:
    """int64 keys ordered like the float32 values of ``scores`` (-0.0 == 0.0)."""
    s32 = scores.astype(np.float32) + np.float32(0.0)
    bits = s32.view(np.int32)
    return np.where(bits >= 0, bits, bits ^ np.int32(0x7FFFFFFF)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Ranking:
    """A run ranked once: each query's documents in rank order, as indices of the run's rows.

    Built by :func:`rank`; every evaluation (crisp or uncertain truth, displacement) reads the
    order from here, so ties and score precision are decided in one place.

    Attributes
    ----------
    query_ids : numpy.ndarray
        ``(n_queries,)`` query ids (object array of str), sorted.
    rows : numpy.ndarray
        ``(n_entries,)`` the run row of each ranked entry, query by query, rank by rank.
    query : numpy.ndarray
        ``(n_entries,)`` position in ``query_ids`` of each entry.
    position : numpy.ndarray
        ``(n_entries,)`` 0-based rank of each entry.
    lengths : numpy.ndarray
        ``(n_queries,)`` number of ranked documents per query.
    tie_start, tie_stop : numpy.ndarray or None
        ``(n_queries, depth)`` bounds of each rank's tied group (``ties="average"`` only).
    """

    def __repr__(self) -> str:
        ties = ", tie groups" if self.tie_start is not None else ""
        return f"Ranking({len(self.query_ids)} queries, {len(self.rows)} ranked rows{ties})"


    query_ids: np.ndarray
    rows: np.ndarray
    query: np.ndarray
    position: np.ndarray
    lengths: np.ndarray
    tie_start: np.ndarray | None = None
    tie_stop: np.ndarray | None = None

    @property
    def depth(self) -> int:
        """The longest list's length."""
        return int(self.lengths.max(initial=0))

    def matrix(self, values: np.ndarray, fill: Any = 0) -> np.ndarray:
        """``(n_queries, depth)``: ``values`` (one per run row) in rank order, ``fill`` past a list.

        Examples
        --------
        >>> run = Run(["q", "q"], ["a", "b"], [1.0, 2.0])
        >>> rank(run).matrix(np.asarray(run.doc_ids), fill="")
        array([['b', 'a']], dtype=object)
        """
        values = np.asarray(values)
        out = np.full((len(self.query_ids), self.depth), fill, dtype=values.dtype)
        out[self.query, self.position] = values[self.rows]
        return out

    def truncate(self, depth: int) -> Ranking:
        """Only the top ``depth`` documents of each list (trec_eval ``-M``).

        Examples
        --------
        >>> rank(Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])).truncate(2).lengths.tolist()
        [2]
        """
        if depth >= self.depth:
            return self
        keep = self.position < depth
        tie_start = tie_stop = None
        if self.tie_start is not None:
            tie_start = self.tie_start[:, :depth]
            tie_stop = np.minimum(self.tie_stop[:, :depth], depth)
        return Ranking(
            self.query_ids, self.rows[keep], self.query[keep], self.position[keep],
            np.minimum(self.lengths, depth), tie_start, tie_stop,
        )

    def on(self, queries: np.ndarray) -> Ranking:
        """The same ranking on other queries: rows of ``queries`` in that order, empty where the
        run has no list.

        Examples
        --------
        >>> r = rank(Run(["q1", "q2"], ["a", "b"], [1.0, 1.0])).on(np.array(["q2", "q3"]))
        >>> r.lengths.tolist()
        [1, 0]
        """
        queries = np.asarray(queries, dtype=object)
        where = pd.Index(queries).get_indexer(self.query_ids)  # our query -> new row, or -1
        keep = where[self.query] >= 0
        lengths = np.zeros(len(queries), dtype=np.int64)
        lengths[where[where >= 0]] = self.lengths[where >= 0]
        tie_start = tie_stop = None
        if self.tie_start is not None:
            depth = int(lengths.max(initial=0))
            cols = np.broadcast_to(np.arange(depth, dtype=np.int64), (len(queries), depth))
            tie_start, tie_stop = cols.copy(), cols + 1
            ours = np.flatnonzero(where >= 0)
            tie_start[where[ours]] = self.tie_start[ours, :depth]
            tie_stop[where[ours]] = self.tie_stop[ours, :depth]
        if keep.all():
            rows, query, position = self.rows, where[self.query], self.position
        else:
            rows, query = self.rows[keep], where[self.query[keep]]
            position = self.position[keep]
        return Ranking(queries, rows, query, position, lengths, tie_start, tie_stop)


def _docid_order_keys(docs: Any, ascending: bool) -> Any:
    """Document ids as sort keys: natural order (numbers as numbers when all are integers)."""
    ids = np.asarray(docs, dtype=object)
    if ascending:
        numeric = pd.to_numeric(pd.Series(ids), errors="coerce")
        if numeric.notna().all() and (numeric % 1 == 0).all():
            return numeric.to_numpy()
    return ids


def rank(run: Run, *, ties: str = "docid_desc", score_dtype: str = "float64") -> Ranking:
    """Rank every query of ``run`` at once: score descending, ties by ``ties``.

    Parameters
    ----------
    run : Run
        The ranked lists.
    ties : {"docid_desc", "docid_asc", "input_order", "average"}, default "docid_desc"
        How tied scores are ordered: trec_eval's document id descending (``strcmp``), document
        id ascending (natural order: numerically when every id is an integer; the shape
        benchmarks' target index), the run's row order, or all orders at once (the tied groups
        are kept for tie-averaged measures).
    score_dtype : {"float64", "float32"}, default "float64"
        Precision in which scores are compared (trec_eval 9: float32).

    Returns
    -------
    Ranking

    Examples
    --------
    >>> run = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0, 2.0])
    >>> r = rank(run)
    >>> run.doc_ids[r.rows].tolist()
    ['c', 'b', 'a']
    >>> run.doc_ids[rank(run, ties="docid_asc").rows].tolist()
    ['c', 'a', 'b']
    """
    _check_choice("ties", ties, TIES)
    _check_choice("score_dtype", score_dtype, SCORE_DTYPES)
    if not isinstance(run, Run):
        raise ValueError(f"run must be a Run; got {type(run).__name__}")
    query_ids = pd.Index(run._q_uniques)
    sorted_ids = np.sort(np.asarray(query_ids, dtype=object))
    n_rows = len(sorted_ids)
    row_of_code = pd.Index(sorted_ids).get_indexer(query_ids).astype(np.int64)
    row = row_of_code[run._q_codes] if len(run) else np.zeros(0, dtype=np.int64)
    scores = run._values
    if score_dtype == "float32":
        # one int64 key: row in the high 32 bits, descending float32 order in the low 32 bits
        key = (row << 32) + ((1 << 31) - 1 - _sortable_float32(scores))
        order = np.argsort(key, kind="stable")
        key = key[order]
        tied = key[1:] == key[:-1]
        row = key >> 32
    else:
        by_score = np.argsort(-scores, kind="stable")
        order = by_score[np.argsort(row[by_score], kind="stable")]
        s_sorted = scores[order]
        row = row[order]
        tied = (s_sorted[1:] == s_sorted[:-1]) & (row[1:] == row[:-1])
    if ties in ("docid_desc", "docid_asc") and tied.any():
        order = _break_ties_by_docid(order, tied, run._docs, ascending=ties == "docid_asc")
    lengths = np.bincount(row, minlength=n_rows).astype(np.int64)
    row_start = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_start[1:])
    pos = np.arange(len(order), dtype=np.int64) - row_start[row]
    tie_start = tie_stop = None
    if ties == "average":
        new_group = np.ones(len(order), dtype=bool)  # tie groups: start flag per sorted position
        new_group[1:] = ~tied
        tie_start, tie_stop = _tie_bounds(
            new_group, row, pos, n_rows, int(lengths.max(initial=0))
        )
    return Ranking(sorted_ids, order, row, pos, lengths, tie_start, tie_stop)


def ranked_gains(
    run: Run,
    qrels: Qrels,
    *,
    ties: str = "docid_desc",
    score_dtype: str = "float64",
    queries: str = "intersection",
    judged: bool = False,
) -> RankedGains:
    """Rank every query of ``run`` and look up the grades in ``qrels``, all queries at once.

    Parameters
    ----------
    run : Run
        The ranked lists.
    qrels : Qrels
        The judgments; unjudged documents get grade 0.
    ties : {"docid_desc", "docid_asc", "input_order", "average"}, default "docid_desc"
        How tied scores are ordered (see :func:`rank`).
    score_dtype : {"float64", "float32"}, default "float64"
        Precision in which scores are compared (trec_eval 9: float32).
    queries : {"intersection", "qrels", "run"}, default "intersection"
        Which queries get a row: those in both (trec_eval's default), every query of the qrels
        (those missing from the run get an empty list, trec_eval ``-c``), or every query of the
        run (those without judgments get an empty ideal).
    judged : bool, default False
        Also fill ``judged`` (is each ranked document in the qrels, at any grade) and
        ``n_judged`` (judged documents per query), for families that read them.

    Returns
    -------
    RankedGains
        Rows in sorted query-id order.

    Examples
    --------
    >>> run = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0, 0.0])
    >>> qrels = Qrels(["q", "q"], ["a", "c"], [1, 1])
    >>> ranked_gains(run, qrels).gains
    array([[0., 1., 1.]])
    >>> ranked_gains(run, qrels, ties="input_order").gains
    array([[1., 0., 1.]])
    >>> rg = ranked_gains(run, qrels, ties="average")
    >>> rg.tie_mean(rg.gains)
    array([[0.5, 0.5, 1. ]])
    """
    _check_choice("queries", queries, QUERY_SETS)
    if not isinstance(qrels, Qrels):
        raise ValueError(f"qrels must be a Qrels; got {type(qrels).__name__}")
    ranking = rank(run, ties=ties, score_dtype=score_dtype)
    run_q = pd.Index(ranking.query_ids)
    qrels_q = pd.Index(qrels._q_uniques)
    if queries == "intersection":
        selected = run_q.intersection(qrels_q)
    elif queries == "qrels":
        selected = qrels_q
    else:
        selected = run_q
    selected = np.sort(np.asarray(selected, dtype=object))
    if len(selected) != len(run_q) or (selected != ranking.query_ids).any():
        ranking = ranking.on(selected)
    return qrels_gains(ranking, run, qrels, judged=judged)


def qrels_gains(ranking: Ranking, run: Run, qrels: Qrels, *, judged: bool = False) -> RankedGains:
    """The :class:`RankedGains` of ``ranking`` (of ``run``) under crisp ``qrels``.

    Grades are looked up for every ranked row in one block-wise join; the ideal holds every
    positive grade of the qrels for each of ``ranking.query_ids``. ``judged`` as in
    :func:`ranked_gains` (the same join says which rows are judged).
    """
    n_rows = len(ranking.query_ids)
    grades, in_qrels = _grades_by_row(run, qrels)
    gains = ranking.matrix(grades, fill=0.0)
    qrels_row_of_q = pd.Index(ranking.query_ids).get_indexer(qrels._q_uniques).astype(np.int64)
    judged_matrix = n_judged = judged_grades = None
    if judged:
        judged_matrix = ranking.matrix(in_qrels, fill=False)
        n_judged, judged_grades = _judged_counts(qrels, qrels_row_of_q, n_rows)
    qrow = qrels_row_of_q[qrels._q_codes] if len(qrels) else np.zeros(0, dtype=np.int64)
    positive = (qrow >= 0) & (qrels._values > 0)
    irow = qrow[positive]
    ivals = qrels._values[positive]
    iorder = np.lexsort((-ivals, irow))
    irow, ivals = irow[iorder], ivals[iorder]
    icount = np.bincount(irow, minlength=n_rows)
    istart = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(icount, out=istart[1:])
    ideal = np.zeros((n_rows, int(icount.max(initial=0))))
    ideal[irow, np.arange(len(irow)) - istart[irow]] = ivals
    return RankedGains(
        np.asarray(ranking.query_ids, dtype=object),
        gains,
        ranking.lengths,
        ideal,
        ranking.tie_start,
        ranking.tie_stop,
        judged_matrix,
        n_judged,
        judged_grades,
    )


def _judged_counts(
    qrels: Qrels, qrels_row_of_q: np.ndarray, n_rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """Judged documents per row and their grades (descending, NaN-padded), for ``judged``."""
    qrow = qrels_row_of_q[qrels._q_codes] if len(qrels) else np.zeros(0, dtype=np.int64)
    inside = qrow >= 0
    n_judged = np.bincount(qrow[inside], minlength=n_rows).astype(np.int64)
    return n_judged, judged_grade_matrix(qrow[inside], qrels._values[inside], n_rows)


def _grades_by_row(
    run: Run, qrels: Qrels, values: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Grade of each row of ``run`` (0 if unjudged) and whether it is in the qrels, in the
    run's row order. ``values`` replaces the qrels' grades (one per qrels row), e.g. row
    numbers to find each run row's judgment."""
    values = qrels._values if values is None else values
    order = run._group_order
    run_qc = run._q_codes if order is None else run._q_codes[order]
    run_docs = run._docs if order is None else run._docs.take(order)
    n_q = len(run._q_uniques)
    # qrels rows of the run's queries, grouped by the run's query code
    q_in_run = pd.Index(run._q_uniques).get_indexer(qrels._q_uniques).astype(np.int64)
    qrc = q_in_run[qrels._q_codes] if len(qrels) else np.zeros(0, dtype=np.int64)
    judged = np.flatnonzero(qrc >= 0)
    qorder = judged[np.argsort(qrc[judged], kind="stable")]
    run_count = np.bincount(run_qc, minlength=n_q)
    qrels_count = np.bincount(qrc[qorder], minlength=n_q)
    run_start = np.concatenate([[0], np.cumsum(run_count)])
    qrels_start = np.concatenate([[0], np.cumsum(qrels_count)])
    grades, matched = _join_grades(
        run_docs, run_qc, run_start, qrels._docs.take(qorder), qrc[qorder],
        values[qorder], qrels_start, run_count + qrels_count,
    )
    if order is None:
        return grades, matched
    out, out_matched = np.empty_like(grades), np.empty_like(matched)
    out[order], out_matched[order] = grades, matched
    return out, out_matched


def _join_grades(
    run_docs: Any,
    run_row: np.ndarray,
    run_start: np.ndarray,
    qrels_docs: Any,
    qrels_row: np.ndarray,
    qrels_values: np.ndarray,
    qrels_start: np.ndarray,
    counts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Grade of each run row (0 if unjudged) and whether it matched a qrels row; both sides
    grouped by query, joined block-wise."""
    grades = np.zeros(len(run_row))
    matched = np.zeros(len(run_row), dtype=bool)
    bounds = _blocks(counts)
    for r0, r1 in itertools.pairwise(bounds):
        a, b = run_start[r0], run_start[r1]
        c, d = qrels_start[r0], qrels_start[r1]
        if a == b or c == d:
            continue
        both = pd.concat([pd.Series(qrels_docs[c:d]), pd.Series(run_docs[a:b])], ignore_index=True)
        codes, uniques = pd.factorize(both)
        n = len(uniques)
        qkeys = (qrels_row[c:d] - r0) * n + codes[: d - c]
        rkeys = (run_row[a:b] - r0) * n + codes[d - c :]
        sorter = np.argsort(qkeys)
        pos = np.minimum(np.searchsorted(qkeys, rkeys, sorter=sorter), d - c - 1)
        match = qkeys[sorter[pos]] == rkeys
        grades[a:b] = np.where(match, qrels_values[c:d][sorter[pos]], 0.0)
        matched[a:b] = match
    return grades, matched


def _break_ties_by_docid(
    order: np.ndarray, tied: np.ndarray, docs: Any, *, ascending: bool = False
) -> np.ndarray:
    """Reorder every tied group by document id: descending is trec_eval's strcmp order.

    ``tied[i]`` says sorted positions i and i + 1 are tied; only those positions are touched.
    """
    first = np.flatnonzero(tied)
    idx = np.union1d(first, first + 1)
    starts = np.ones(len(idx), dtype=bool)
    starts[1:] = ~tied[idx[1:] - 1]
    keys = _docid_order_keys(docs[order[idx]], ascending)
    sub = pd.DataFrame({"g": np.cumsum(starts), "d": keys})
    sub = sub.sort_values(["g", "d"], ascending=[True, ascending], kind="stable")
    out = order.copy()
    out[idx] = order[idx[sub.index.to_numpy()]]
    return out


def _tie_bounds(
    new_group: np.ndarray, row: np.ndarray, pos: np.ndarray, n_rows: int, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """(n_rows, depth) start/stop columns of each cell's tied group; padding is singleton."""
    n = len(new_group)
    group = np.cumsum(new_group) - 1
    starts = np.flatnonzero(new_group)
    stops = np.append(starts[1:], n)
    cols = np.broadcast_to(np.arange(depth, dtype=np.int64), (n_rows, depth))
    tie_start = cols.copy()
    tie_stop = cols + 1
    tie_start[row, pos] = pos - (np.arange(n) - starts[group])
    tie_stop[row, pos] = pos + (stops[group] - np.arange(n))
    return tie_start, tie_stop
