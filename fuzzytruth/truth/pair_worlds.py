"""The worlds of a probabilistic qrels: each judged (query, document) relevant independently
with its probability, drawn by keyed counter-based draws (:mod:`fuzzytruth._random`); the
sampler the truth hands to the world engine (:mod:`fuzzytruth.uncertain.worlds`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fuzzytruth._random import bernoulli_counts, categorical_draws, unit_keys
from fuzzytruth.uncertain import poibin
from fuzzytruth.uncertain.worlds import RankedDocs, compress

__all__ = ["QrelsWorlds"]

# streams of the keyed draws (shared numbering with the categorical worlds)
_PAIRS, _REST = 4, 5


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
    keys : numpy.ndarray, optional
        ``(n_pairs,)`` uint64 keys of the pairs (:func:`~fuzzytruth._random.pair_keys`
        of their ids); default their positions.
    query_keys : numpy.ndarray, optional
        ``(n_queries,)`` uint64 keys of the queries; default their positions.
    """

    def __init__(
        self,
        pair_query: np.ndarray,
        probability: np.ndarray,
        grade: np.ndarray,
        n_queries: int,
        *,
        keys: np.ndarray | None = None,
        query_keys: np.ndarray | None = None,
    ) -> None:
        self.pair_query = pair_query
        self.probability = probability
        self.n_queries = n_queries
        self.binary = bool(np.all(grade == 1))
        self._grade = np.append(grade, 0.0)  # the last entry pads
        self._keys = unit_keys(np.arange(len(pair_query))) if keys is None else keys
        self._query_keys = unit_keys(np.arange(n_queries)) if query_keys is None else query_keys
        counts = np.bincount(pair_query, minlength=n_queries)
        width = int(counts.max(initial=0))
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        column = np.arange(len(pair_query)) - start[pair_query]
        judged = np.full((n_queries, width), len(pair_query), dtype=np.int64)
        judged[pair_query, column] = np.arange(len(pair_query))
        self._judged = judged  # (n_q, width) pair indices, grade descending, padded
        positive = np.bincount(pair_query[probability > 0], minlength=n_queries)
        self.max_relevant = int(positive.max(initial=0))

    def n_judged(self) -> np.ndarray:
        """``(n_q,)`` judged pairs per query."""
        return np.bincount(self.pair_query, minlength=self.n_queries).astype(np.int64)

    def plan(self, systems: Sequence[RankedDocs]) -> None:
        """Which pairs get one draw per world: with one grade, only the uncertain pairs some
        system ranks (the others enter through the per-query count of the rest); all pairs
        with several grades (the ideal needs their grades)."""
        n_pairs = len(self.probability)
        ranked = np.zeros(n_pairs + 1, dtype=bool)
        for system in systems:
            ranked[system.docs[system.docs >= 0]] = True
        ranked = ranked[:n_pairs]
        p = self.probability
        uncertain = (p > 0) & (p < 1)
        drawn = uncertain & ranked if self.binary else p > 0
        self._drawn = np.flatnonzero(drawn)
        # slot of each pair in the per-world bit table: drawn pairs first, then "always"
        # (probability 1) and "never" (probability 0, or padding)
        n_drawn = len(self._drawn)
        slot = np.full(n_pairs + 1, n_drawn + 1, dtype=np.int64)  # never
        slot[self._drawn] = np.arange(n_drawn)
        slot[np.flatnonzero((p == 1) & ~drawn)] = n_drawn  # always
        self._slot = slot
        self._certain = np.bincount(
            self.pair_query[(p == 1) & ~drawn], minlength=self.n_queries
        ).astype(np.int64)
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
        self.draw_bytes = (n_drawn + 2) * 17 + self.n_queries * 16

    def draw(self, n_worlds: int, seed: int) -> None:
        """Nothing is shared by all worlds: every draw is per chunk (and keyed)."""
        self.seed = seed

    def chunk(self, start: int, stop: int) -> dict:
        """Relevance of the drawn pairs in worlds ``start:stop``, and the relevant counts."""
        worlds = np.arange(start, stop)
        drawn, counts = bernoulli_counts(
            self.seed, _PAIRS, self._keys[self._drawn], self.probability[self._drawn],
            self.pair_query[self._drawn], self.n_queries, worlds,
        )
        bits = np.empty((stop - start, len(self._drawn) + 2), dtype=bool)
        bits[:, : len(self._drawn)] = drawn
        bits[:, -2] = True  # always relevant
        bits[:, -1] = False  # never
        counts += self._certain[None]
        if self._rest_cum is not None:
            counts += categorical_draws(
                self.seed, _REST, self._query_keys, self._rest_cum, worlds
            )
        return {"bits": bits, "counts": counts}

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(n_chunk, n_q, depth) grades of the ranked documents (boolean when binary)."""
        pairs = np.where(docs >= 0, docs, len(self._grade) - 1)
        hit = state["bits"][:, self._slot[pairs]]
        if self.binary:
            return hit
        return np.where(hit, self._grade[pairs][None], 0.0)

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray]:
        """The ranks that can be relevant (a positive probability), compressed."""
        docs = system.docs
        p = np.append(self.probability, 0.0)[np.where(docs >= 0, docs, len(self.probability))]
        return compress(docs, p > 0)

    def relevant(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(C, n_q * n_chunk) boolean relevance of the ``docs`` columns, rows query-major."""
        slots = self._slot[np.where(docs >= 0, docs, len(self._grade) - 1)]
        table = np.ascontiguousarray(state["bits"].T)  # (n_slots, n_chunk)
        out = np.take(table, slots.T, axis=0)  # (C, n_q, n_chunk)
        return out.reshape(docs.shape[1], docs.shape[0] * table.shape[1])

    def counts(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q) number of relevant judged documents of each query in each world."""
        return state["counts"]

    def ideal(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q, width) grades of the relevant judged documents, descending."""
        counts = state["counts"]
        width = int(counts.max(initial=0))
        if self.binary:
            return (np.arange(width)[None, None, :] < counts[:, :, None]).view(np.int8)
        hit = state["bits"][:, self._slot[self._judged]]
        out = np.zeros((*hit.shape[:2], width))
        w, q, j = np.nonzero(hit)
        column = np.cumsum(hit, axis=2)[w, q, j] - 1
        out[w, q, column] = self._grade[self._judged[q, j]]
        return out
