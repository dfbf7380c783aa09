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

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fuzzytruth._pairs import PairTable, check_columns
from fuzzytruth._validation import check_choice, check_flag, ids_text, text_names
from fuzzytruth.io.trec_columns import QRELS_FIELDS, read_columns
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Run, rank
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.judged_pairs import PairsTruth, PreparedQrels, qrels_gains
from fuzzytruth.truth.protocol import Components, TruthKind, TruthOptions

__all__ = ["QUERY_SETS", "Qrels", "ranked_gains"]


QUERY_SETS = ("intersection", "qrels", "run")


class Qrels(PairTable):
    """Crisp graded relevance judgments: one grade per judged (query, document).

    Parameters
    ----------
    query_ids, doc_ids : array-like
        Ids of each judgment (converted to str); query ids also dictionary-encoded, as in
        :class:`~fuzzytruth.runs.Run`, and pandas Series sharing their index, as there.
    relevance : array-like
        Grade of each judgment (finite, as float64; 0 and negative grades mean not relevant).
    duplicates : {"error", "max", "first", "last"}, default "error"
        What to do with a document judged twice for one query.
    source : str, optional
        Where the rows came from, used in error messages.
    line_numbers : array-like of int, optional
        1-based line number of each row in ``source``, used in error messages.

    Examples
    --------
    >>> Qrels(["q1", "q1"], ["d1", "d2"], [1, 0])
    Qrels(1 queries, 2 rows)
    """

    _value_name = "relevance"
    _finite_values = True

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        relevance: Any,
        *,
        duplicates: str = "error",
        source: str | None = None,
        line_numbers: ArrayLike | None = None,
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
            df, {"query_col": query_col, "doc_col": doc_col, "relevance_col": relevance_col},
            nested="Qrels.from_dict(...) of it",
        )
        return cls(df[query_col], df[doc_col], df[relevance_col], duplicates=duplicates)

    @classmethod
    def from_dict(
        cls, qrels: Mapping[Any, Mapping[Any, float]], *, duplicates: str = "error"
    ) -> Qrels:
        """Build qrels from ``{query_id: {doc_id: grade}}``, pytrec_eval's qrels format.

        Integer ids are converted with ``str`` (then two of them may become equal:
        ``duplicates`` applies); floating-point ids are refused.

        Examples
        --------
        >>> Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d7": 2}}).relevance
        array([1., 0., 2.])
        """
        return cls._from_nested(qrels, "qrels", duplicates=duplicates)

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
            path, QRELS_FIELDS, "rel", encoding=encoding, columns=("qid", "docno", "rel"),
            encoded=("qid",), atol=True, max_decompressed_bytes=max_decompressed_bytes,
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
        column = df[group_col]
        if column.isna().any():  # astype(str) made a group named "nan" of them
            raise ValueError(
                f"group_col={group_col!r}: the column must name a group on every row; missing at "
                f"row(s) {_show(np.flatnonzero(column.isna().to_numpy()).tolist())}"
            )
        # groups are named by text: 1 and "1" would be one group (text_names refuses them)
        text_names(dict.fromkeys(pd.unique(column.to_numpy(dtype=object))),
                   f"group_col={group_col!r}", "group")
        groups = pd.Series(ids_text(column.to_numpy(dtype=object), "group ids"), index=df.index)
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

    # ------------------------------------------------------------------ the truth protocol
    truth_kind = TruthKind.CRISP
    per_query = True

    def bind(self, options: TruthOptions) -> PairsTruth:
        """This qrels under the evaluation's options (:mod:`fuzzytruth.truth.protocol`)."""
        if options.query_categories is not None:
            raise ValueError(
                "query_categories applies to a categorical truth (a Membership) only"
            )
        return PairsTruth(self, self, self.truth_kind, "qrels")

    def prepared(self, queries: np.ndarray) -> PreparedQrels:
        """This qrels fixed on the evaluated ``queries`` (sorted)."""
        return PreparedQrels(
            self.truth_kind, queries, Components.one_per_query(len(queries)), self
        )

    def take(self, rows: np.ndarray) -> Qrels:
        """The judgments of ``rows`` (a part of the qrels, e.g. some queries')."""
        return Qrels(self.query_ids[rows], self.doc_ids[rows], self.relevance[rows])


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
    judged = check_flag("judged", judged)
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


