"""Truths over judged (query, document) pairs: the join of a run with the pairs, and the bound
and prepared forms (:mod:`fuzzytruth.truth.protocol`) of crisp and probabilistic qrels.

Documents are looked up for every ranked row of a run in one block-wise join
(:func:`judged_rows`), never one Python object per document.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from fuzzytruth._order import is_identity, ranges
from fuzzytruth._pairs import PairTable, arrow_strings, blocks, rows_of
from fuzzytruth._random import pair_keys, unit_keys
from fuzzytruth._warnings import warn
from fuzzytruth.metrics.base import RankedGains, judged_grade_matrix
from fuzzytruth.runs import Ranking, Run
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.pair_worlds import QrelsWorlds
from fuzzytruth.truth.protocol import (
    BoundTruth,
    Components,
    PreparedTruth,
    TruthKind,
    spelled_otherwise,
)
from fuzzytruth.uncertain.worlds import RankedDocs

__all__ = [
    "NONE_JUDGED",
    "PairsTruth",
    "PreparedPairs",
    "PreparedProbabilisticQrels",
    "PreparedQrels",
    "judged_rows",
    "qrels_gains",
]


def qrels_gains(
    ranking: Ranking, run: Run, qrels: PairTable, *, judged: bool = False
) -> RankedGains:
    """The :class:`RankedGains` of ``ranking`` (of ``run``) under crisp ``qrels``.

    Grades are looked up for every ranked row in one block-wise join; the ideal holds every
    positive grade of the qrels for each of ``ranking.query_ids``. ``judged`` as in
    :func:`ranked_gains` (the same join says which rows are judged).
    """
    ((_, gains),) = qrels_gains_blocks(ranking, run, qrels, judged=judged, memory_budget=np.inf)
    return gains


#: Bytes per (query, rank) cell of the crisp kernels' tables: the gains, the judged flags,
#: the tie bounds and the kernels' temporaries (cumulative sums, discounts)
CRISP_BYTES_PER_CELL = 64.0


def qrels_gains_blocks(
    ranking: Ranking, run: Run, qrels: PairTable, *, judged: bool, memory_budget: float
) -> Iterator[tuple[np.ndarray | None, RankedGains]]:
    """:func:`qrels_gains` a block of queries at a time (:meth:`Ranking.row_blocks`): each
    block's rows of ``ranking`` (None: all of them, in one block) and its gains. The run is
    joined with the qrels once, and the qrels' queries matched with the ranking's once; a
    block then costs its own lists and judgments only (no pass over every query or every
    judgment per block: 1 M queries of 10 documents took 36 s in five blocks, 2.6 s for the
    same 10 M rows as 10,000 queries)."""
    judging = judged_rows(run, qrels)
    judgments = _Judgments(ranking.query_ids, qrels)
    row_blocks = ranking.row_blocks(CRISP_BYTES_PER_CELL, memory_budget)
    for rows in row_blocks or [None]:  # None: every query, the ranking itself
        part = ranking if rows is None else ranking.take(rows)
        place, at = judgments.of(np.arange(len(ranking.query_ids)) if rows is None else rows)
        yield rows, _gains_of(part, judging, qrels._values, place, qrels._values[at],
                              judged=judged)


class _Judgments:
    """The rows of a table (qrels, or a run) of each of ``query_ids``, grouped by query:
    ``of(rows)`` gives those of the queries at ``rows`` without looking at any other query's
    (no id hashed, no sort: ranges of the table grouped by query)."""

    def __init__(self, query_ids: np.ndarray, table: PairTable) -> None:
        index, start = table._query_ranges
        self.code = index.get_indexer(query_ids)  # the table's code of each query; -1: none
        listed = self.code >= 0
        self.first = np.zeros(len(self.code), dtype=np.int64)  # grouped position of its rows
        self.first[listed] = start[self.code[listed]]
        self.count = np.zeros(len(self.code), dtype=np.int64)  # its rows (0: none listed)
        self.count[listed] = start[self.code[listed] + 1] - self.first[listed]
        self._order = table._group_order  # positions grouped by query -> table rows

    def of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each table row of the queries at ``rows``: its query's place in ``rows`` and its
        row, query by query in the order of ``rows``, each query's in the table's order."""
        count = self.count[rows]
        at = ranges(self.first[rows], count)
        if self._order is not None:
            at = self._order[at]
        return np.repeat(np.arange(len(rows), dtype=np.int64), count), at


def _gains_of(
    ranking: Ranking, judging: np.ndarray, grades: np.ndarray, qrow: np.ndarray,
    qvalues: np.ndarray, *, judged: bool,
) -> RankedGains:
    """:func:`qrels_gains` from the run's rows already joined (``judging``: the qrels row of
    each, -1 for none, :func:`judged_rows`; ``grades`` the qrels' grades, read in place: a
    copy ending in a 0 for row -1 to read was 40 MB of fresh memory for 5 M judgments, 0.10 s
    in a line profile, 2026-11-29) and the judgments of the ranking's queries (row of each,
    grade of each)."""
    n_rows = len(ranking.query_ids)
    at = ranking.matrix(judging, fill=-1)
    unjudged = at < 0
    gains = grades[at] if len(grades) else np.zeros(at.shape)
    gains[unjudged] = 0.0  # row -1 read the last grade
    judged_matrix = n_judged = judged_grades = None
    if judged:
        judged_matrix = ~unjudged
        n_judged = np.bincount(qrow, minlength=n_rows).astype(np.int64)
        judged_grades = judged_grade_matrix(qrow, qvalues, n_rows)
    positive = qvalues > 0
    ideal = judged_grade_matrix(qrow[positive], qvalues[positive], n_rows, fill=0.0)
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


class _Layout:
    """One side of the join (a run or qrels) read query by query in the order of ``queries``,
    a span of queries at a time (:meth:`part`). A side listing its queries in that order
    already (grouped by query, the usual case for the larger side, whose order ``queries``
    is) is read as it is, in its chunks; another is taken in that order one span at a time,
    so that no row-length layout and no joined copy of its ids is made for the whole side
    (10 M UUID run rows from a TREC file, beside 10 M qrels rows in another query order,
    2026-11-29: the layout 0.6 s and the joined ids 1.0 s, profiled, most of it the kernel's
    fresh pages; the whole evaluation 7.3-7.7 s and a peak of 1.78 GB against 8.8-10.0 s and
    2.22 GB, reading included)."""

    def __init__(self, table: PairTable, queries: pd.Index) -> None:
        self.table = table
        self.judgments = _Judgments(queries, table)
        self.count = self.judgments.count
        self.start = np.concatenate([[0], np.cumsum(self.count)])
        listed = np.flatnonzero(self.judgments.code >= 0)  # the places of the table's queries
        # as it is: grouped by query, its queries in the order asked (their codes, which number
        # them in order of first appearance, then follow their places)
        self.as_is = (table._group_order is None and len(listed) == len(table._q_uniques)
                      and is_identity(self.judgments.code[listed], len(listed)))
        if self.as_is:
            self.docs = arrow_strings(table._docs)
            # the larger side's places are its query codes (``queries`` is its order)
            self.place = (table._q_codes.astype(np.int64, copy=False)
                          if is_identity(listed, len(listed)) else listed[table._q_codes])

    def part(self, q0: int, q1: int) -> tuple[pa.Array | pa.ChunkedArray, np.ndarray,
                                               np.ndarray | None]:
        """The rows of the queries at places ``q0 .. q1 - 1``, query by query: their ids, the
        place of each row's query counted from ``q0``, and each one's table row (None: the
        table's rows ``start[q0] .. start[q1] - 1``, as they are)."""
        if self.as_is:
            a, b = int(self.start[q0]), int(self.start[q1])
            place = self.place[a:b]  # a view when the span is the first
            return self.docs.slice(a, b - a), place - q0 if q0 else place, None
        place, rows = self.judgments.of(np.arange(q0, q1))
        return self.table._doc_rows(rows), place, rows


def judged_rows(run: Run, qrels: PairTable) -> np.ndarray:
    """The row of ``qrels`` (any table of judged pairs) judging each row of ``run`` (its query
    and document), -1 where none does, in the run's row order: int32 (int64 for a table past
    2**31 - 1 rows), the one array the join writes (a run of 10 M rows: 40 MB, where a grade
    and a flag per row were 90 MB and the rows as floats 170 MB more).

    Both sides are read query by query in the order of the larger one's queries, so that
    the larger is read as it is (grouped by query, the usual case) and only the smaller one
    is taken in another order, a span of queries at a time (:class:`_Layout`; spans of
    about :data:`_SPAN_BYTES` of ids): a run sorted by query id as strings beside qrels in
    numeric order copies neither side's ids whole."""
    queries = (qrels if len(qrels) >= len(run) else run)._query_ranges[0]
    run_side, qrels_side = _Layout(run, queries), _Layout(qrels, queries)
    # each block's judged rows written in place, at its run rows' places: no row-length
    # temporary beside the result
    out = np.full(len(run), -1, dtype=np.int32 if len(qrels) < 2**31 else np.int64)
    any_judged = False
    id_bytes = max((run._docs.nbytes + qrels._docs.nbytes) / max(len(run) + len(qrels), 1), 1)
    spans = blocks(run_side.count + qrels_side.count, max(1, int(_SPAN_BYTES // id_bytes)))
    for q0, q1 in itertools.pairwise(spans.tolist()):
        run_docs, run_k, run_rows = run_side.part(q0, q1)
        qrels_docs, qrels_k, qrels_rows = qrels_side.part(q0, q1)
        run_count, qrels_count = run_side.count[q0:q1], qrels_side.count[q0:q1]
        run_start = run_side.start[q0:q1 + 1] - run_side.start[q0]
        qrels_start = qrels_side.start[q0:q1 + 1] - qrels_side.start[q0]
        for a, at in _judged_rows_of(
            run_docs, run_k, run_start, qrels_docs, qrels_k, qrels_start,
            blocks(run_count + _RUN_ROWS_PER_JUDGED * qrels_count, _JOIN_BLOCK),
        ):
            found = np.flatnonzero(at >= 0)
            any_judged = any_judged or len(found) > 0
            rows = (run_side.start[q0] + a + found if run_rows is None
                    else run_rows[a + found])
            judged = at[found]
            out[rows] = (qrels_side.start[q0] + judged if qrels_rows is None
                         else qrels_rows[judged])
    if len(out) and not any_judged:
        _warn_none_judged(run, qrels)
    return out


NONE_JUDGED = "retrieves no judged document in any query"


def _warn_none_judged(run: Run, qrels: PairTable) -> None:
    """Warn that no document ``run`` retrieves is judged, in any query: every measure then
    reads its lists as holding nothing relevant, which is what ids spelled otherwise than
    the judgments' (case, a prefix, leading zeros) also give, without an error. The ids
    shown are of the first query both name."""
    shared = pd.Index(qrels._q_uniques).get_indexer(run._q_uniques)
    if not (shared >= 0).any():  # the evaluation refuses it, naming the queries
        return
    code = int(np.argmax(shared >= 0))
    retrieved = run._docs[int(np.argmax(run._q_codes == code))]
    judged = qrels._docs[int(np.argmax(qrels._q_codes == shared[code]))]
    warn(
        f"run {run.name!r} {NONE_JUDGED}: every measure reads its lists as holding nothing "
        "relevant. "
        "If its document ids should be the judged ones, compare their spelling (case, "
        f"prefixes, leading zeros): for query {run._q_uniques[code]!r} it retrieves "
        f"{retrieved!r}, the judgments name {judged!r}",
        UserWarning,
    )


_SPAN_BYTES = 32 << 20
"""The join reads its two sides in spans of queries holding about this many bytes of ids
(:class:`_Layout`): the part of a side in another query order is taken a span at a time.
The whole evaluation of the UUID files of :class:`_Layout` (2026-11-29, two fresh processes
each) with spans of 4, 16, 32, 128 and 1,024 MiB: 8.15/7.48, 7.46/7.59, 7.43/7.48,
8.41/7.67 and 9.01/8.18 s of CPU."""

_RUN_ROWS_PER_JUDGED = 32
_JOIN_BLOCK = 1 << 16
"""The join's blocks of queries hold at most about ``_JOIN_BLOCK`` run rows (the size of the
temporaries) and ``_JOIN_BLOCK / _RUN_ROWS_PER_JUDGED`` judged rows: the judged documents form
the block's hash table, which stays in the CPU cache while the run's documents stream through
it (measured: 4,096 judged rows per table probe 2 M run rows in a fifth of the time one table
of every judged document takes). The join of 10 M run rows (2026-11-29, two passes each) in
blocks of 2^14, 2^15, 2^16, 2^17 and 2^18 run rows: 0.74, 0.71, 0.61, 0.67 and 0.86-0.91 s
(100k queries, tied scores); UUID ids 0.92, 0.83, 0.80-0.83, 0.90, 1.42-1.53 s; URL ids
0.70, 0.61, 0.61, 0.65-0.66, 0.82-0.85 s; numeric ids 0.39, 0.36, 0.38, 0.41-0.43, 0.51 s."""


def _judged_rows_of(
    run_docs: pa.Array | pa.ChunkedArray,
    run_row: np.ndarray,
    run_start: np.ndarray,
    qrels_docs: pa.Array | pa.ChunkedArray,
    qrels_row: np.ndarray,
    qrels_start: np.ndarray,
    bounds: np.ndarray,
) -> Iterator[tuple[int, np.ndarray]]:
    """For each block of queries holding judged documents, its first run row ``a`` and, for
    each of its run rows, the qrels row (both sides grouped by query) judging the same
    (query, document), or -1 (a block without one is not given): each run document is looked up
    among the block's judged documents (a small hash table), which gives the first judged row
    holding it. When every document found is judged there for the run row's own query (the
    usual case: no document of the block is judged for two of its queries and retrieved for
    another), that row is the answer; otherwise (query, first row) pairs are matched.
    ``run_docs`` and ``qrels_docs`` are each side's ids, grouped by query; ``run_row`` and
    ``qrels_row`` the place of each row's query, as ``bounds``."""
    for r0, r1 in itertools.pairwise(bounds.tolist()):
        a, b = run_start[r0], run_start[r1]
        c, d = qrels_start[r0], qrels_start[r1]
        if a == b or c == d:
            continue
        judged = rows_of(qrels_docs, c, d)
        found = pc.index_in(rows_of(run_docs, a, b), value_set=judged)
        first = found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        row = np.where(first >= 0, c + first, -1)
        own = qrels_row[row] == run_row[a:b]  # row -1 is masked below
        if (own | (first < 0)).all():
            yield a, np.where(own & (first >= 0), row, -1)
            continue
        n = d - c  # a judged row's document named by its first row in the block, in [0, n)
        named = pc.index_in(judged, value_set=judged).to_numpy(zero_copy_only=False)
        qkeys = (qrels_row[c:d] - r0) * n + named.astype(np.int64)
        rkeys = np.where(first >= 0, (run_row[a:b] - r0) * n + first, -1)
        local = _positions(qkeys, rkeys, (r1 - r0) * n)
        yield a, np.where(local >= 0, c + local, -1)


def _positions(keys: np.ndarray, wanted: np.ndarray, span: int) -> np.ndarray:
    """Position in ``keys`` (distinct, in ``[0, span)``) of each of ``wanted``, -1 where absent
    (a wanted key of -1 is absent): a lookup table when ``span`` is small, else a search in the
    sorted keys."""
    if span <= 4 * (len(keys) + len(wanted)):
        slot = np.full(span + 1, -1, dtype=np.int64)  # the last entry answers key -1
        slot[keys] = np.arange(len(keys))
        return slot[wanted]
    sorter = np.argsort(keys)
    found = np.minimum(np.searchsorted(keys, wanted, sorter=sorter), len(keys) - 1)
    at = sorter[found]
    return np.where(keys[at] == wanted, at, -1)


# ---------------------------------------------------------------------------------------------
# the truth protocol over judged pairs


class PairsTruth(BoundTruth):
    """Crisp or probabilistic qrels under the evaluation's options: a query is judged when the
    pairs list it."""

    def __init__(self, truth: Any, pairs: PairTable, kind: TruthKind, source: str) -> None:
        self.truth = truth
        self.pairs = pairs
        self.kind = kind
        self.source = source
        self.known = pd.Index(pairs.queries)

    @property
    def judged_queries(self) -> np.ndarray:
        return np.asarray(self.known, dtype=object)

    def answerable(self, queries: np.ndarray) -> np.ndarray:
        return self.known.get_indexer(queries) >= 0

    def missing_message(self, missing: list[str]) -> str:
        return (f"query(ies) {_show(missing)} of the runs are not in the {self.source}"
                + spelled_otherwise(missing, self.known))

    def prepare(self, queries: np.ndarray) -> PreparedPairs:
        return self.truth.prepared(queries)

    def join(self, run: Run) -> np.ndarray:
        return judged_rows(run, self.pairs)


def pair_order(pairs: PairTable, queries: np.ndarray, grade: np.ndarray) -> dict[str, Any]:
    """The pairs of ``queries``, grouped by query then grade descending: ``order`` (evaluated
    pair -> row of ``pairs``) and ``pair_query`` (query position of each)."""
    q, rows = _Judgments(queries, pairs).of(np.arange(len(queries)))  # each query's rows
    by_grade = np.lexsort((-grade[rows], q))  # rows in the table's order within a grade
    return {"order": rows[by_grade], "pair_query": q[by_grade]}


@dataclass(frozen=True, eq=False)
class PreparedPairs(PreparedTruth):
    """Judged pairs on the evaluated queries, in (query, grade descending) order: ``order``
    (evaluated pair -> row of ``pairs``) and ``pair_query`` (query position of each), given
    by the subclasses."""

    kind: TruthKind
    queries: np.ndarray
    components: Components
    pairs: PairTable
    order: np.ndarray = field(init=False)
    pair_query: np.ndarray = field(init=False)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def doc_index(self, ranking: Ranking, run: Run, joined: Any = None) -> RankedDocs:
        rows = judged_rows(run, self.pairs) if joined is None else joined
        # row of pairs -> evaluated pair (-1, the last, for none); made here, not held
        slot = np.full(len(self.pairs) + 1, -1, dtype=np.int64)
        slot[self.order] = np.arange(len(self.order))
        # only the ranked entries are looked up: a block of a ragged run's queries costs its
        # own entries, not a pass over every run row (7 blocks of 100,000 queries: 0.86 s)
        codes = slot[rows[ranking.rows]]
        return RankedDocs(
            ranking.entry_matrix(codes, fill=-1), ranking.lengths, ranking.tie_start,
            ranking.tie_stop,
        )


@dataclass(frozen=True, eq=False)
class PreparedQrels(PreparedPairs):
    """A crisp qrels on the evaluated queries: every document's grade is known. The pairs'
    order is made on first use (the ranked gains of crisp measures do not read it)."""

    @cached_property
    def _pair_order(self) -> dict[str, Any]:
        return pair_order(self.pairs, self.queries, self.pairs.relevance)

    @property  # type: ignore[override]
    def order(self) -> np.ndarray:
        return self._pair_order["order"]

    @property  # type: ignore[override]
    def pair_query(self) -> np.ndarray:
        return self._pair_order["pair_query"]

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        grade = np.append(self.pairs.relevance[self.order], 0.0)
        return (grade[docs.docs] >= rel).astype(np.float64)

    def ranked_gains(self, ranking: Ranking, run: Run, *, judged: bool = False) -> RankedGains:
        return qrels_gains(ranking, run, self.pairs, judged=judged)

    def ranked_gains_blocks(
        self, ranking: Ranking, run: Run, *, judged: bool = False, memory_budget: float
    ) -> Iterator[tuple[np.ndarray | None, RankedGains]]:
        return qrels_gains_blocks(ranking, run, self.pairs, judged=judged,
                                  memory_budget=memory_budget)


@dataclass(frozen=True, eq=False)
class PreparedProbabilisticQrels(PreparedPairs):
    """Each judged (query, document) relevant independently with its probability."""

    order: np.ndarray
    pair_query: np.ndarray
    probability: np.ndarray
    grade: np.ndarray

    def _effective(self, rel: float) -> np.ndarray:
        return np.where(self.grade >= rel, self.probability, 0.0)

    def probabilities(self, docs: RankedDocs, rel: float) -> np.ndarray:
        return np.append(self._effective(rel), 0.0)[docs.docs]

    def rest(self, docs: RankedDocs, rel: float) -> tuple[np.ndarray, np.ndarray]:
        p = self._effective(rel)
        retrieved = np.zeros(len(p) + 1, dtype=bool)
        retrieved[docs.docs[docs.docs >= 0]] = True
        p = np.where(retrieved[:-1], 0.0, p)
        certain = np.bincount(self.pair_query, weights=(p == 1), minlength=self.n_queries)
        uncertain = np.where(p < 1, p, 0.0)
        counts = np.bincount(self.pair_query, minlength=self.n_queries)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        out = np.zeros((self.n_queries, int(counts.max(initial=0))))
        out[self.pair_query, np.arange(len(p)) - start[self.pair_query]] = uncertain
        return out, certain.astype(np.int64)

    def expected_size(self, docs: RankedDocs) -> np.ndarray:
        return np.bincount(self.pair_query, weights=self.probability, minlength=self.n_queries)

    def worlds(self, world_model: str) -> QrelsWorlds:
        return QrelsWorlds(
            self.pair_query,
            self.probability,
            self.grade,
            self.n_queries,
            keys=lambda at: pair_keys(self.pairs, self.order[at]),
            query_keys=unit_keys(self.queries),
        )
