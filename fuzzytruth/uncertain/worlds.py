"""Possible worlds: complete crisp ground truths drawn from uncertain annotations.

Any crisp measure of the registry (AP, nDCG, tiers, E@32, ADR, …) becomes a distribution by
drawing worlds — each one a complete crisp ground truth consistent with the annotations —
evaluating the measure in every world, and reading the values as Monte Carlo draws. The same
worlds serve every system (paired comparisons) and every measure.

Samplers
--------
Each truth draws its own worlds (:meth:`PreparedTruth.worlds
<fuzzytruth.truth.protocol.PreparedTruth.worlds>`): a :class:`WorldSampler`, e.g. the
categorical truth's (:mod:`fuzzytruth.truth.categorical_worlds`: the ``"annotator"`` and
``"bernoulli"`` world models) or the probabilistic qrels' (:mod:`fuzzytruth.truth.pair_worlds`:
each (query, document) relevant independently). This module runs the measures on them.

Randomness
----------
Every draw is keyed (:mod:`fuzzytruth._random`): an item's label in world w depends on
the seed, the item's id and w only, a pair's relevance on the seed, the (query, document) ids
and w. Results therefore do not depend on the chunk size, on the order or partitioning of
queries and items, nor on which other systems and measures are evaluated.

Vectorisation and memory
------------------------
Worlds × queries are flattened into rows (query-major: row = query × n_chunk + world) and the
kernels run on all of them at once, in chunks of worlds sized from a memory budget.

Families with a 0/1-world kernel (``MeasureFamily.binary``; :mod:`fuzzytruth.metrics.binary`)
read only the ranks that can be relevant: under probabilistic qrels, the ranked documents with
a positive probability (usually a small share of a deep run), in rank order, with their ranks
(``relevant`` and ``ranks``, ``(n_candidates, n_rows)``), and the number R of relevant documents
per row. Under probabilistic qrels with one grade, the relevant documents that no system
retrieved enter only through R, so their count is drawn directly from its Poisson-binomial law
(inverse CDF, keyed by query and world) instead of one draw per document. Any other family,
graded relevance or the tie-averaged policy goes through the crisp kernels on dense
:class:`~fuzzytruth.metrics.base.RankedGains` (binary relevance as ``int8``; the kernels give the
same values as with float64).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from fuzzytruth._lazy import lazy_names
from fuzzytruth._validation import check_choice, check_n_worlds
from fuzzytruth.measures import PRESET, Measure
from fuzzytruth.metrics.base import RankedGains

__all__ = [
    "WORLD_MODELS",
    "RankedDocs",
    "WorldSampler",
    "check_world_model",
    "compress",
    "kernel_params",
    "world_values",
]

# the samplers moved to the truths that own them; importable from here for one release
__getattr__, _ = lazy_names(
    "fuzzytruth.uncertain.worlds",
    {
        "CategoricalWorlds": "fuzzytruth.truth.categorical_worlds",
        "sample_labels": "fuzzytruth.truth.categorical_worlds",
        "QrelsWorlds": "fuzzytruth.truth.pair_worlds",
    },
    globals(),
)

WORLD_MODELS = ("annotator", "bernoulli")
_CELL_BYTES = 64  # working memory of the crisp kernels per (row, rank) cell
_FAST_CELL_BYTES = 16  # the 0/1 route: relevance, ranks, a few per-row vectors
_IDEAL_BYTES = 32  # per (row, ideal column) cell (nDCG sorts a float64 copy of the ideal)


def check_world_model(world_model: str) -> str:
    """Validate ``world_model``; return it."""
    return check_choice("world_model", world_model, WORLD_MODELS)


@dataclass(frozen=True, eq=False)
class RankedDocs:
    """One system's ranked lists on the evaluated queries, as truth indices.

    ``docs`` is ``(n_queries, depth)``: the index of the document at each rank in the truth's
    document space (membership rows, or probabilistic-qrels pairs), -1 for padding and for
    documents the truth does not know (never relevant). ``tie_start``/``tie_stop`` as in
    :class:`~fuzzytruth.metrics.base.RankedGains` (tie-averaged policy only).
    """

    docs: np.ndarray
    lengths: np.ndarray
    tie_start: np.ndarray | None = None
    tie_stop: np.ndarray | None = None


class WorldSampler(Protocol):
    """What a truth's sampler gives the engine (:func:`world_values`).

    ``plan(systems)`` sees the ranked documents of every system before drawing; ``draw(n_worlds,
    seed)`` draws what all worlds share and sets ``max_relevant`` (the largest number of
    relevant documents of a query in any world) and ``draw_bytes`` (memory per world of
    ``chunk``); ``chunk(start, stop)`` is the state of worlds ``start:stop``; from a state,
    ``gains`` (``(n_chunk, n_q, depth)`` relevance or grades of ranked documents), ``relevant``
    (``(C, n_q * n_chunk)`` boolean relevance of candidate columns, rows query-major),
    ``counts`` (``(n_chunk, n_q)`` relevant documents) and ``ideal`` (``(n_chunk, n_q, width)``
    grades of the relevant documents, descending); ``candidates(system)`` the ranks that can be
    relevant; ``n_judged()`` judged documents per query; ``binary`` whether relevance is 0/1.
    """

    binary: bool
    max_relevant: int
    draw_bytes: int

    def plan(self, systems: Sequence[RankedDocs]) -> None: ...

    def draw(self, n_worlds: int, seed: int) -> None: ...

    def chunk(self, start: int, stop: int) -> dict: ...

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray: ...

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray | None]: ...

    def relevant(self, state: dict, docs: np.ndarray) -> np.ndarray: ...

    def counts(self, state: dict) -> np.ndarray: ...

    def ideal(self, state: dict) -> np.ndarray: ...

    def n_judged(self) -> np.ndarray: ...


def compress(docs: np.ndarray, candidate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidate columns of each row, in rank order: ``(n_q, C)`` docs (-1 padded) and
    ranks (``depth`` where padded)."""
    depth = docs.shape[1]
    count = candidate.sum(axis=1)
    width = int(count.max(initial=0))
    order = np.argsort(~candidate, axis=1, kind="stable")[:, :width]
    keep = np.arange(width)[None, :] < count[:, None]
    ranks = np.where(keep, order, depth)
    return np.where(keep, np.take_along_axis(docs, order, axis=1), -1), ranks


def kernel_params(measure: Measure) -> dict[str, Any]:
    """Every parameter a measure's kernel receives: the measure's own, then fixed defaults.

    >>> kernel_params(Measure("F", k=5).resolve("trec"))["beta"]
    1.0
    """
    params = measure.params
    for p in measure.family.params:
        params.setdefault(p.name, None if p.default is PRESET else p.default)
    return params


def world_values(
    truth: WorldSampler,
    systems: Sequence[RankedDocs],
    measures: Sequence[Measure],
    *,
    n_worlds: int,
    seed: int,
    memory_budget: float = 200e6,
    on_chunk: Callable[[int], None] | None = None,
    min_relevant: int = 0,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Every measure of every system in every world, vectorised over worlds × queries.

    Parameters
    ----------
    truth : CategoricalWorlds or QrelsWorlds
        The world sampler.
    systems : sequence of RankedDocs
        The systems' ranked lists on the same queries.
    measures : sequence of Measure
        Resolved measures (every parameter set).
    n_worlds : int
        Number of worlds, shared by all systems and measures.
    seed : int
        Seed of the keyed draws (:func:`~fuzzytruth._random.draw_seed`).
    memory_budget : float
        Bytes of working memory per chunk of worlds (default 200 MB).
    on_chunk : callable, optional
        Called with the number of worlds done after each chunk (the caller's progress bar).
    min_relevant : int
        A preset's class-size rule (:attr:`Preset.min_relevant <fuzzytruth.measures.Preset>`):
        when positive, which queries have at least this many relevant documents in each world.

    Returns
    -------
    values : numpy.ndarray
        ``(n_measures, n_systems, n_worlds, n_queries)``; NaN where a measure is undefined in a
        world.
    counted : numpy.ndarray or None
        ``(n_worlds, n_queries)`` bool, the queries that enter aggregates in each world
        (``min_relevant`` relevant documents or more); None when ``min_relevant`` is 0.
    """
    n_worlds = check_n_worlds(n_worlds, minimum=1)
    truth.plan(systems)
    truth.draw(n_worlds, seed)
    n_q = len(systems[0].lengths)
    fast = [[_binary(m, s, truth) for m in measures] for s in systems]
    candidates = [
        truth.candidates(s) if any(f is not None for f in row) else None
        for s, row in zip(systems, fast, strict=True)
    ]
    generic = any(f is None for row in fast for f in row)
    judged = any("judged" in m.uses for m in measures)
    depth = max(s.docs.shape[1] for s in systems)
    width = max((c[0].shape[1] for c in candidates if c is not None), default=0)
    per_world = truth.draw_bytes + n_q * (
        width * _FAST_CELL_BYTES
        + (depth * _CELL_BYTES + truth.max_relevant * _IDEAL_BYTES if generic else 0)
    )
    step = int(max(1, min(n_worlds, memory_budget // max(per_world, 1))))
    out = np.empty((len(measures), len(systems), n_worlds, n_q))
    counted = np.empty((n_worlds, n_q), dtype=bool) if min_relevant > 0 else None
    for start in range(0, n_worlds, step):  # chunks of worlds bound the memory
        stop = min(n_worlds, start + step)
        state = _world_chunk(
            truth, systems, measures, fast, candidates, out, start, stop, n_q, judged=judged
        )
        if counted is not None:
            counted[start:stop] = truth.counts(state) >= min_relevant
        if on_chunk is not None:
            on_chunk(stop - start)
    return out, counted


def _binary(
    measure: Measure, system: RankedDocs, truth: WorldSampler
) -> Callable[..., np.ndarray] | None:
    """The family's 0/1-world kernel for this measure and system, when it has one and it
    applies (binary relevance, a strict ranking)."""
    factory = measure.family.binary
    if factory is None or not truth.binary or system.tie_start is not None:
        return None
    return factory(system.docs.shape[1], **kernel_params(measure))


def _world_chunk(
    truth: WorldSampler,
    systems: Sequence[RankedDocs],
    measures: Sequence[Measure],
    fast: list[list],
    candidates: list,
    out: np.ndarray,
    start: int,
    stop: int,
    n_q: int,
    *,
    judged: bool = False,
) -> dict:
    """Fill ``out[:, :, start:stop]``: every measure and system in one chunk of worlds; the
    chunk's drawn state is returned."""
    n_chunk = stop - start
    n_rows = n_chunk * n_q
    state = truth.chunk(start, stop)
    # the 0/1 route's rows are query-major (query, world)
    counts = truth.counts(state).T.reshape(n_rows) if truth.binary else None
    ideal = None
    for s, system in enumerate(systems):  # a handful of systems, each vectorised
        relevant = gains = ranks = None
        for m, measure in enumerate(measures):
            kernel = fast[s][m]
            if kernel is not None:
                if relevant is None:
                    docs, ranks = candidates[s]
                    relevant = truth.relevant(state, docs)
                    if ranks is None:  # every rank is a column
                        ranks = np.arange(docs.shape[1], dtype=np.int32)[:, None]
                    else:  # (n_q, C) -> (C, n_rows), rows query-major
                        ranks = np.repeat(ranks.T.astype(np.int32), n_chunk, axis=1)
                lengths = np.repeat(system.lengths, n_chunk)
                values = kernel(relevant, ranks, lengths, counts)
                out[m, s, start:stop] = values.reshape(n_q, n_chunk).T
                continue
            if gains is None:
                gains = truth.gains(state, system.docs)
            if ideal is None:
                ideal = truth.ideal(state)
                ideal = ideal.reshape(n_rows, ideal.shape[2])
            rg = _ranked_gains(system, gains, ideal, n_chunk, n_rows)
            if judged:
                rg = _with_judged(rg, truth, state, system)
            values = measure.compute(rg)
            out[m, s, start:stop] = values.reshape(n_chunk, n_q)
    return state


def _ranked_gains(
    system: RankedDocs, gains: np.ndarray, ideal: np.ndarray, n_chunk: int, n_rows: int
) -> RankedGains:
    flat = gains.reshape(n_rows, gains.shape[2])
    if flat.dtype == bool:
        flat = flat.view(np.int8)
    tie_start = tie_stop = None
    if system.tie_start is not None:
        tie_start = np.tile(system.tie_start, (n_chunk, 1))
        tie_stop = np.tile(system.tie_stop, (n_chunk, 1))
    return RankedGains(
        np.zeros(n_rows, dtype=object),
        flat,
        np.tile(system.lengths, n_chunk),
        ideal,
        tie_start,
        tie_stop,
    )


def _with_judged(
    rg: RankedGains, truth: WorldSampler, state: dict, system: RankedDocs
) -> RankedGains:
    """``rg`` with judged status: a ranked document is judged when the truth knows it (a
    judged pair; an annotated item); in each world the judged grades are its relevant count
    of 1s (binary worlds) and 0 for the other judged documents."""
    if not truth.binary:
        raise ValueError(
            "measures that read judged status are available under graded probabilistic qrels "
            "only through their exact forms; use a single grade"
        )
    n_chunk = len(state["counts"])
    judged = np.tile(system.docs >= 0, (n_chunk, 1))
    n_judged = np.tile(truth.n_judged(), n_chunk)
    cols = np.arange(int(n_judged.max(initial=0)))[None, :]
    grades = np.where(cols < rg.n_relevant(1)[:, None], 1.0, 0.0)
    grades = np.where(cols < n_judged[:, None], grades, np.nan)
    return replace(rg, judged=judged, n_judged=n_judged, judged_grades=grades)
