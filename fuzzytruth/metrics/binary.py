"""Fast kernels of the ranking families on sampled 0/1 worlds (``MeasureFamily.binary``).

In a world drawn from an uncertain truth every document is relevant or not (grade 1), and P, R,
Success, RR, AP, DCG and nDCG@k depend only on the ranked relevance and on the number R of
relevant documents. These kernels read exactly that — ``relevant`` ``(depth, n_rows)`` boolean,
rank-major, ``lengths`` and ``n_relevant`` ``(n_rows,)`` — and loop over ranks vectorised over
all worlds × queries, with no ideal array. Each equals its family's crisp kernel on the same
ranking with an ideal of R ones (``tests/test_worlds.py`` checks every family that has one).

A factory returns ``None`` where its shortcut does not apply (a threshold above grade 1, where
nothing is relevant; nDCG without a cutoff); the evaluation then runs the crisp kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["ap", "counts", "dcg", "ndcg"]

BinaryKernel = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def counts(family: str) -> Callable[..., BinaryKernel | None]:
    """Factory for P, R, Success and RR: functions of the hits in the top k."""

    def factory(depth: int, *, rel: float, k: int | None = None) -> BinaryKernel | None:
        if rel > 1:  # grades are 1: nothing would be relevant; the crisp kernel says what then
            return None
        cut = depth if k is None else min(k, depth)

        def kernel(relevant: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
            top = relevant[:cut]
            if family == "RR":
                first = np.argmax(top, axis=0) if cut else np.zeros(top.shape[1], dtype=np.int64)
                return np.where(top.any(axis=0), 1.0 / (first + 1.0), 0.0)
            hits = top.sum(axis=0, dtype=np.int64)
            if family == "P":
                if k is not None:
                    return hits / k
                return np.divide(hits, lengths, out=np.zeros(len(hits)), where=lengths > 0)
            if family == "R":
                return np.divide(
                    hits, n_relevant, out=np.full(len(hits), np.nan), where=n_relevant > 0
                )
            return (hits > 0).astype(float)  # Success

        return kernel

    return factory


def ap(
    depth: int, *, rel: float, denominator: str, k: int | None = None
) -> BinaryKernel | None:
    """Factory for AP: precision at each relevant rank, summed in one pass over the ranks."""
    if rel > 1:
        return None
    cut = depth if k is None else min(k, depth)

    def kernel(relevant: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
        n = relevant.shape[1]
        hits = np.zeros(n, dtype=np.int16 if cut < 2**15 else np.int64)
        total, term = np.zeros(n), np.empty(n)
        for rank in range(cut):  # a loop over ranks, vectorised over all rows, in place
            row = relevant[rank]
            np.add(hits, row, out=hits, casting="unsafe")
            np.multiply(hits, row, out=term)
            np.divide(term, rank + 1, out=term)
            total += term
        if denominator == "all_relevant":
            return np.divide(total, n_relevant, out=np.full(n, np.nan), where=n_relevant > 0)
        value = np.divide(total, hits, out=np.zeros(n), where=hits > 0)
        return np.where(n_relevant > 0, value, np.nan)

    return kernel


def _discounts(params: dict[str, Any], depth: int) -> np.ndarray:
    """Discounted gain of a relevant document (grade 1) at ranks 1..depth, read off the kernel."""
    from fuzzytruth.metrics.base import RankedGains
    from fuzzytruth.metrics.ranking import dcg as dcg_kernel

    eye = np.eye(depth)
    rg = RankedGains(np.zeros(depth, dtype=object), eye, np.full(depth, depth), np.ones((depth, 1)))
    return dcg_kernel(rg, **params)


def dcg(depth: int, **params: Any) -> BinaryKernel | None:
    """Factory for DCG: a dot product of the relevance with the discounted gains."""
    cut = depth if params.get("k") is None else min(params["k"], depth)
    disc = _discounts({**params, "k": None}, max(cut, 1))[:cut]
    return lambda relevant, lengths, n_relevant: disc @ relevant[:cut]


def ndcg(depth: int, **params: Any) -> BinaryKernel | None:
    """Factory for nDCG@k: DCG over the ideal DCG of min(R, k) relevant documents."""
    k = params.get("k")
    if k is None:  # the ideal would need the whole relevant count's discounts: use the kernel
        return None
    cut = min(k, depth)
    disc = _discounts({**params, "k": None}, max(k, 1))
    ideal = np.concatenate([[0.0], np.cumsum(disc)])
    disc = disc[:cut]

    def kernel(relevant: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
        best = ideal[np.minimum(n_relevant, k)]
        return np.divide(
            disc @ relevant[:cut], best, out=np.full(len(best), np.nan), where=best != 0
        )

    return kernel
