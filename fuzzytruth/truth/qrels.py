"""Crisp graded relevance judgments (Qrels) and the ranked gains the crisp kernels read.

:func:`ranked_gains` turns ``(Run, Qrels)`` into the padded
:class:`~fuzzytruth.metrics.base.RankedGains` arrays every kernel reads, for all queries at once
(one join and one sort, no Python loop per query).

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth.runs import Run
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
import os
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._pairs import PairTable, blocks, check_columns
from fuzzytruth._validation import check_choice
from fuzzytruth.io.trec_columns import QRELS_FIELDS, read_columns
from fuzzytruth.metrics.base import RankedGains, judged_grade_matrix
from fuzzytruth.runs import Ranking, Run, rank

__all__ = ["QUERY_SETS", "Qrels", "qrels_gains", "ranked_gains"]


QUERY_SETS = ("intersection", "qrels", "run")


class Qrels(PairTable):
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
        check_columns(
            df, {"query_col": query_col, "doc_col": doc_col, "relevance_col": relevance_col}
        )
        return cls(df[query_col], df[doc_col], df[relevance_col], duplicates=duplicates)

    @classmethod
    def from_trec(
        cls,
        path: str | os.PathLike,
        *,
        duplicates: str = "error",
        encoding: str = "utf-8",
        max_decompressed_bytes: int | str | None = "auto",
    ) -> Qrels:
        """Read a 4-column TREC qrels file ``qid iter docno rel`` (format in
        :mod:`fuzzytruth.io.trec_columns`). ``max_decompressed_bytes`` caps the content of a
        compressed file (:func:`fuzzytruth.io.text.decompression_limit`)."""
        cols, source, lines = read_columns(
            path, QRELS_FIELDS, "rel", encoding=encoding,
            max_decompressed_bytes=max_decompressed_bytes,
        )
        return cls(
            cols["qid"], cols["docno"], cols["rel"], duplicates=duplicates, source=source,
            line_numbers=lines,
        )

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
        check_columns(
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
    check_choice("queries", queries, QUERY_SETS)
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
    bounds = blocks(counts)
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
