"""ProbabilisticQrels: each judged (query, document) is relevant with a probability.

The probability is typically the share of assessors who judged the document relevant; an
optional grade says how relevant it is when it is relevant (1 by default). Documents not listed
are not relevant. Pairs are independent of one another, so queries are independent too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._validation import check_columns, detached, real_array, same_rows
from fuzzytruth.metrics.base import truncated
from fuzzytruth.truth.judged_pairs import PairsTruth, PreparedProbabilisticQrels, pair_order
from fuzzytruth.truth.protocol import Components, TruthKind, TruthOptions
from fuzzytruth.truth.qrels import Qrels

__all__ = ["ProbabilisticQrels"]


class ProbabilisticQrels(ReadOnlyArrays):
    """Relevance probabilities per (query, document), with the grade of a relevant document.

    Parameters
    ----------
    query_ids, doc_ids : array_like
        Ids of each judged pair (converted to str, as in :class:`~fuzzytruth.runs.Qrels`).
    probability : array_like
        P(relevant) of each pair, within [0, 1].
    grade : array_like, optional
        Grade of the document when relevant (> 0; default 1).
    source, line_numbers : optional
        The file the pairs were read from and each pair's line in it, for messages (a pair
        given twice names its lines), as in :class:`~fuzzytruth.runs.Qrels`.

    Examples
    --------
    >>> pq = ProbabilisticQrels(["q1", "q1"], ["a", "b"], [0.6, 1.0])
    >>> pq
    ProbabilisticQrels(1 queries, 2 pairs)
    >>> pq.to_dataframe()
      query_id doc_id  probability  grade
    0       q1      a          0.6    1.0
    1       q1      b          1.0    1.0
    """

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        probability: Any,
        grade: Any = None,
        *,
        source: str | None = None,
        line_numbers: ArrayLike | None = None,
    ) -> None:
        same_rows({"query_ids": query_ids, "doc_ids": doc_ids, "probability": probability,
                   "grade": grade})
        pairs = _Pairs(query_ids, doc_ids, probability, source=source, line_numbers=line_numbers)
        prob = pairs.relevance
        grades = np.ones(len(prob)) if grade is None else detached(real_array(
            grade, "grade", expected="finite and > 0 (the grade of a relevant document)"), grade)
        if grades.shape != prob.shape:
            raise ValueError(
                f"grade must have one value per pair ({len(prob)}); got shape {grades.shape}"
            )
        bad = ~(np.isfinite(prob) & (prob >= 0) & (prob <= 1))
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"probability must be within [0, 1]; got {float(prob[row])!r} for query "
                f"{pairs.query_ids[row]!r}, document {pairs.doc_ids[row]!r}"
            )
        if not np.all(np.isfinite(grades) & (grades > 0)):
            raise ValueError("grade must be finite and > 0 (the grade of a relevant document)")
        self._pairs = pairs
        self._grade = grades

    @classmethod
    def from_dataframe(
        cls,
        df: pd.DataFrame,
        *,
        query_col: str = "query_id",
        doc_col: str = "doc_id",
        probability_col: str = "probability",
        grade_col: str | None = None,
    ) -> ProbabilisticQrels:
        """Build from a table with one row per judged (query, document).

        Examples
        --------
        >>> df = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "share": [0.4]})
        >>> ProbabilisticQrels.from_dataframe(df, probability_col="share").probability
        array([0.4])
        """
        if not isinstance(df, pd.DataFrame):
            check_columns(df, "df", [], rows=False)  # a mapping: how it becomes a table
            raise ValueError(f"df must be a pandas DataFrame; got {type(df).__name__}")
        columns = {"query_col": query_col, "doc_col": doc_col, "probability_col": probability_col}
        if grade_col is not None:
            columns["grade_col"] = grade_col
        missing = {k: v for k, v in columns.items() if v not in df.columns}
        if missing:
            name, col = next(iter(missing.items()))
            raise ValueError(
                f"{name}={col!r} is not a column of the DataFrame; columns are {list(df.columns)}"
            )
        return cls(
            df[query_col],
            df[doc_col],
            df[probability_col],
            None if grade_col is None else df[grade_col],
        )

    @property
    def pairs(self) -> Qrels:
        """The judged pairs as a :class:`~fuzzytruth.runs.Qrels` whose values are the
        probabilities (ids factorized once, for the joins of the evaluation)."""
        return self._pairs

    @property
    def query_ids(self) -> np.ndarray:
        """Query id of each pair."""
        return self._pairs.query_ids

    @property
    def doc_ids(self) -> np.ndarray:
        """Document id of each pair."""
        return self._pairs.doc_ids

    @property
    def probability(self) -> np.ndarray:
        """P(relevant) of each pair."""
        return self._pairs.relevance

    @property
    def grade(self) -> np.ndarray:
        """Grade of each pair when relevant."""
        return self._grade

    @property
    def queries(self) -> list[str]:
        """Distinct query ids, sorted."""
        return self._pairs.queries

    @property
    def is_crisp(self) -> bool:
        """True when every probability is 0 or 1."""
        p = self.probability
        return bool(np.all((p == 0) | (p == 1)))

    def truncated(self) -> ProbabilisticQrels:
        """These qrels with every grade truncated toward zero, as trec_eval reads a grade.

        What the presets that read grades as trec_eval does (``Preset.grades="truncate"``:
        ``trec``, ``trec10``, ``all_trec``) evaluate, so that probabilities of 0 and 1 give
        the numbers of the crisp :class:`~fuzzytruth.Qrels` with the same grades: ``2.7`` is
        grade 2, and a pair whose grade truncates to 0 is judged non-relevant in every world
        (probability 0), as the crisp ``0.5`` is grade 0. The same qrels when every grade is
        whole.

        Examples
        --------
        >>> pq = ProbabilisticQrels(["q"] * 2, ["a", "b"], [0.6, 1.0], grade=[2.7, 0.5])
        >>> pq.truncated().to_dataframe()
          query_id doc_id  probability  grade
        0        q      a          0.6    2.0
        1        q      b          0.0    1.0
        """
        whole = truncated(self._grade)
        if np.array_equal(whole, self._grade):
            return self
        never = whole == 0  # grade 0: judged non-relevant, the grade of a relevant one unused
        return ProbabilisticQrels(
            self.query_ids, self.doc_ids, np.where(never, 0.0, self.probability),
            np.where(never, 1.0, whole),
        )

    def to_dataframe(self) -> pd.DataFrame:
        """The pairs as a DataFrame ``query_id, doc_id, probability, grade``."""
        frame = self._pairs.to_dataframe().rename(columns={"relevance": "probability"})
        frame["grade"] = self._grade
        return frame

    # ------------------------------------------------------------------ the truth protocol
    truth_kind = TruthKind.PROBABILISTIC_QRELS
    per_query = True

    def bind(self, options: TruthOptions) -> PairsTruth:
        """These qrels under the evaluation's options (:mod:`fuzzytruth.truth.protocol`)."""
        if options.query_categories is not None:
            raise ValueError(
                "query_categories applies to a categorical truth (a Membership) only"
            )
        return PairsTruth(self, self._pairs, self.truth_kind, "probabilistic qrels")

    def prepared(self, queries: np.ndarray) -> PreparedProbabilisticQrels:
        """These qrels fixed on the evaluated ``queries`` (sorted)."""
        order = pair_order(self._pairs, queries, self._grade)
        rows = order["order"]
        return PreparedProbabilisticQrels(
            self.truth_kind, queries, Components.one_per_query(len(queries)), self._pairs,
            **order, probability=self.probability[rows], grade=self._grade[rows],
        )

    def take(self, rows: np.ndarray) -> ProbabilisticQrels:
        """The pairs of ``rows`` (a part of the qrels, e.g. some queries')."""
        return ProbabilisticQrels(
            self.query_ids[rows], self.doc_ids[rows], self.probability[rows], self._grade[rows]
        )

    def __len__(self) -> int:
        return len(self._pairs)

    def __repr__(self) -> str:
        return f"ProbabilisticQrels({len(self._pairs.queries)} queries, {len(self)} pairs)"


class _Pairs(Qrels):
    """The judged pairs, one probability each (a Qrels whose values are probabilities)."""

    _value_name = "probability"
    _finite_values = False  # ProbabilisticQrels checks [0, 1] and names the pair
    _duplicate_hint = "give one probability per (query, document)"
