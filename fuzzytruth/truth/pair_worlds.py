"""The worlds of a probabilistic qrels: each judged (query, document) relevant independently
with its probability, drawn by keyed counter-based draws (:mod:`fuzzytruth._random`); the
sampler the truth hands to the world engine (:mod:`fuzzytruth.uncertain.worlds`).

Nothing is kept from one block of queries × worlds to the next: a pair's relevance in a world is
a function of the seed, the pair's key and the world's number, so each block draws what it
reads — the relevance of the ranked candidates, straight into the kernels' layout, and the
number of relevant documents per (query, world) — and a pair read by two systems is drawn twice,
with the same result (a draw costs less than keeping it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fuzzytruth._random import (
    ALWAYS,
    NEVER,
    bernoulli_pick,
    bernoulli_sums,
    categorical_draws,
    stream_bases,
    thresholds,
    unit_keys,
)
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows, row_chunks
from fuzzytruth.uncertain import poibin
from fuzzytruth.uncertain.worlds import RankedDocs, candidate_columns

__all__ = ["QrelsWorlds"]

# streams of the keyed draws (shared numbering with the categorical worlds)
_PAIRS, _REST = 4, 5

_KEY_BYTES_PER_PAIR = 64.0
"""Bytes of temporaries per pair while the pairs' keys are made (:func:`~fuzzytruth._random.
pair_keys`: the ids taken, their codes, the query and document keys; 57 measured with
tracemalloc, 5 M pairs). Made for all the drawn pairs at once, they were the peak of an
evaluation with 1,000 judged documents per query: 20,000 queries added 3.2 GB."""


class QrelsWorlds:
    """Worlds of a probabilistic qrels: each judged (query, document) relevant independently.

    Parameters
    ----------
    pair_query : numpy.ndarray
        ``(n_pairs,)`` query position of each judged pair, pairs sorted by query then by grade
        descending.
    probability, grade : numpy.ndarray
        ``(n_pairs,)`` probability of being relevant, and the grade when relevant.
    n_queries : int
    keys : callable, optional
        ``keys(positions)``: uint64 keys of the pairs at those positions
        (:func:`~fuzzytruth._random.pair_keys` of their ids), asked for the drawn pairs only,
        so that no key is held while the worlds are filled; default the keys of the
        positions themselves (:func:`~fuzzytruth._random.unit_keys`).
    query_keys : numpy.ndarray, optional
        ``(n_queries,)`` uint64 keys of the queries; default their positions.
    """

    world_bytes = 0  # a chunk of worlds shares nothing but their numbers
    cell_bytes = 24  # per (query, world) and threshold: the relevant count, the rest's draw

    def __init__(
        self,
        pair_query: np.ndarray,
        probability: np.ndarray,
        grade: np.ndarray,
        n_queries: int,
        *,
        keys: Callable[[np.ndarray], np.ndarray] | None = None,
        query_keys: np.ndarray | None = None,
    ) -> None:
        self.pair_query = pair_query
        self.probability = probability
        self.n_queries = n_queries
        self.binary = bool(np.all(grade == 1))
        self._grade = np.append(grade, 0.0)  # the last entry pads
        self._keys = unit_keys if keys is None else keys
        self._query_keys = unit_keys(np.arange(n_queries)) if query_keys is None else query_keys
        positive = np.bincount(pair_query[probability > 0], minlength=n_queries)
        self._max_relevant = int(positive.max(initial=0))

    def n_judged(self) -> np.ndarray:
        """``(n_q,)`` judged pairs per query."""
        return np.bincount(self.pair_query, minlength=self.n_queries).astype(np.int64)

    def max_relevant(self) -> int:
        """The most pairs of a query with a positive probability: no world has more relevant."""
        return self._max_relevant

    def plan(self, systems: Sequence[RankedDocs]) -> None:
        """Which pairs get one draw per world: with one grade, only the uncertain pairs some
        system ranks (the others enter through the per-query count of the rest); every
        uncertain pair with several grades (the ideal needs their grades)."""
        n_pairs = len(self.probability)
        ranked = np.zeros(n_pairs + 1, dtype=bool)
        for system in systems:
            ranked[system.docs[system.docs >= 0]] = True
        ranked = ranked[:n_pairs]
        p = self.probability
        uncertain = (p > 0) & (p < 1)
        drawn = np.flatnonzero(uncertain & ranked if self.binary else uncertain)
        self._drawn = drawn  # sorted by query, like the pairs
        # what each pair (and the padding index n_pairs) is to the draws: its position among
        # the drawn pairs, or never / always relevant
        unit = np.full(n_pairs + 1, NEVER, dtype=np.int64)
        unit[:n_pairs][p == 1] = ALWAYS
        unit[drawn] = np.arange(len(drawn))
        self._unit = unit
        per_query = np.bincount(self.pair_query[drawn], minlength=self.n_queries)
        self._ptr = np.concatenate([[0], np.cumsum(per_query)])  # drawn pairs of each query
        self._levels: dict[float | None, tuple[np.ndarray, np.ndarray, float | None]] = {}
        self._rest_cum = None
        if self.binary:
            rest = uncertain & ~ranked
            width = np.bincount(self.pair_query[rest], minlength=self.n_queries)
            table = np.zeros((self.n_queries, int(width.max(initial=0))))
            start = np.concatenate([[0], np.cumsum(width)[:-1]])
            idx = np.flatnonzero(rest)
            table[self.pair_query[idx], np.arange(len(idx)) - start[self.pair_query[idx]]] = p[
                idx
            ]
            if table.shape[1]:
                self._rest_cum = np.cumsum(poibin.pmf(table), axis=1)
        else:
            self._judged = self._judged_table()

    def _judged_table(self) -> np.ndarray:
        """``(n_q, width)`` the pairs of each query, grade descending, padded with n_pairs."""
        n_pairs = len(self.pair_query)
        counts = np.bincount(self.pair_query, minlength=self.n_queries)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        column = np.arange(n_pairs) - start[self.pair_query]
        judged = np.full((self.n_queries, int(counts.max(initial=0))), n_pairs, dtype=np.int64)
        judged[self.pair_query, column] = np.arange(n_pairs)
        return judged

    def draw(self, n_worlds: int, seed: int) -> None:
        """The seed, and the start of every drawn pair's draws (the same in every block), made
        for blocks of pairs sized from the memory budget: each pair's key is a function of
        its ids alone, so the blocks give the same bases as one pass."""
        self.seed = seed
        drawn = self._drawn
        self._bases = np.empty(len(drawn), dtype=np.uint64)
        size = block_rows(1, MEMORY_BUDGET, bytes_per_unit=_KEY_BYTES_PER_PAIR)
        for rows in row_chunks(len(drawn), size):
            self._bases[rows] = stream_bases(seed, _PAIRS, self._keys(drawn[rows]))
        self._thresholds = thresholds(self.probability[drawn])

    def _level(self, rel: float | None) -> tuple[np.ndarray, np.ndarray, float | None]:
        """``(stop, certain, same)`` per query at the relevance threshold ``rel`` (None: any
        grade): the end of the query's drawn pairs of grade ``>= rel`` (a prefix of them: a
        query's pairs are sorted by grade, descending), its certain pairs of grade ``>= rel``,
        and the first threshold asked whose pairs these are (``rel`` itself, or an earlier
        one: integer grades read at the threshold 1 keep every pair, as None does), whose
        counts a block then draws once for both."""
        if self.binary:
            rel = None  # one grade: every threshold of the 0/1 route reads the same worlds
        if rel not in self._levels:
            grade = self._grade[:-1]
            keep = np.ones(len(grade), dtype=bool) if rel is None else grade >= rel
            drawn = self._drawn[keep[self._drawn]]
            stop = self._ptr[:-1] + np.bincount(self.pair_query[drawn], minlength=self.n_queries)
            certain = np.bincount(
                self.pair_query[(self.probability == 1) & keep], minlength=self.n_queries
            ).astype(np.int64)
            # a snapshot: the blocks' threads may add a level meanwhile (then both draw)
            same = next((level for level, (s, c, _) in list(self._levels.items())
                         if np.array_equal(s, stop) and np.array_equal(c, certain)), rel)
            self._levels[rel] = (stop, certain, same)
        return self._levels[rel]

    def chunk(self, start: int, stop: int) -> np.ndarray:
        """What worlds ``start:stop`` share: their numbers."""
        return np.arange(start, stop)

    def block(self, chunk: np.ndarray, queries: slice) -> dict:
        """The queries ``queries`` in the worlds ``chunk``; their draws are made on demand."""
        return {"worlds": chunk, "queries": queries}

    def counts(self, state: dict, rel: float | None = None) -> np.ndarray:
        """(n_q, n_w) number of relevant judged documents (of grade ``>= rel``) of each query
        in each world: the drawn pairs, the certain ones, and (one grade) the Poisson-binomial
        count of the rest."""
        stop, certain, same = self._level(rel)
        key = ("counts", same)
        if key not in state:
            queries, worlds = state["queries"], state["worlds"]
            counts = bernoulli_sums(
                self._bases, self._thresholds, self._ptr[:-1][queries], stop[queries], worlds
            )
            counts += certain[queries, None]
            if self._rest_cum is not None:
                counts += categorical_draws(
                    self.seed, _REST, self._query_keys[queries], self._rest_cum[queries], worlds
                )
            state[key] = counts
        return state[key]

    def _pick(self, state: dict, pairs: np.ndarray, rel: float | None = None) -> np.ndarray:
        """``(C, n_q, n_w)``: whether pair ``pairs[q, c]`` (-1 or n_pairs: none) is relevant
        (with a grade ``>= rel``) in world w of the block."""
        pairs = np.where(pairs >= 0, pairs, len(self._unit) - 1)
        units = self._unit[pairs]
        if rel is not None and not self.binary:
            units = np.where(self._grade[pairs] >= rel, units, NEVER)
        return bernoulli_pick(self._bases, self._thresholds, units, state["worlds"])

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray | None]:
        """The ranks that can be relevant (a positive probability)."""
        docs = system.docs
        p = np.append(self.probability, 0.0)[np.where(docs >= 0, docs, len(self.probability))]
        return candidate_columns(docs, p > 0)

    def relevant(self, state: dict, docs: np.ndarray, rel: float | None = None) -> np.ndarray:
        """(C, n_q * n_w) boolean relevance (a grade ``>= rel``) of the ``docs`` columns, rows
        query-major."""
        out = self._pick(state, docs, rel)
        return out.reshape(out.shape[0], out.shape[1] * out.shape[2])

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(n_q * n_w, depth) grades of the ranked documents (boolean when binary)."""
        hit = self._pick(state, docs).transpose(1, 2, 0)  # (n_q, n_w, depth)
        n_rows = hit.shape[0] * hit.shape[1]
        if self.binary:
            return hit.reshape(n_rows, docs.shape[1])
        pairs = np.where(docs >= 0, docs, len(self._grade) - 1)
        return np.where(hit, self._grade[pairs][:, None, :], 0.0).reshape(n_rows, docs.shape[1])

    def ideal(self, state: dict, width: int) -> np.ndarray:
        """(n_q * n_w, width) grades of the relevant judged documents, descending."""
        counts = self.counts(state)
        n_q, n_w = counts.shape
        if self.binary:
            ideal = np.arange(width)[None, None, :] < counts[:, :, None]
            return ideal.view(np.int8).reshape(n_q * n_w, width)
        judged = self._judged[state["queries"]]  # grade descending within each query
        hit = self._pick(state, judged).transpose(1, 2, 0)  # (n_q, n_w, n_judged)
        out = np.zeros((n_q, n_w, width))
        q, w, j = np.nonzero(hit)
        column = np.cumsum(hit, axis=2)[q, w, j] - 1
        out[q, w, column] = self._grade[judged[q, j]]
        return out.reshape(n_q * n_w, width)
