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

Blocks, threads and memory
--------------------------
The work is cut into blocks of queries × worlds: the sampler draws what a chunk of worlds
shares (:meth:`WorldSampler.chunk`, e.g. every item's label), then each block of queries of that
chunk (:meth:`WorldSampler.block`) is drawn and measured on its own, its rows query-major (row =
query × n_worlds_of_the_block + world). Block sizes come from the memory budget
(:data:`fuzzytruth._resampling.MEMORY_BUDGET` by default), which all the blocks in flight share;
the blocks of a chunk run on several threads (:mod:`fuzzytruth._threads`: one per core, one
inside a Dask worker, or ``FUZZYTRUTH_NUM_THREADS``), their compiled kernels releasing the GIL.
Only the world values themselves (``n_measures × n_systems × n_worlds × n_queries`` float64)
are kept whole.

Families with a 0/1-world kernel (``MeasureFamily.binary``; :mod:`fuzzytruth.metrics.binary`)
read only the ranks that can be relevant: under probabilistic qrels, the ranked documents with
a positive probability (usually a small share of a deep run), in rank order, with their ranks
(``relevant`` and ``ranks``, ``(n_candidates, n_rows)``), and the number R of relevant documents
per row. Under probabilistic qrels with one grade, the relevant documents that no system
retrieved enter only through R, so their count is drawn directly from its Poisson-binomial law
(inverse CDF, keyed by query and world) instead of one draw per document. Any other family,
graded relevance or the tie-averaged policy goes through the crisp kernels on dense
:class:`~fuzzytruth.metrics.base.RankedGains` (binary relevance as ``int8``; the kernels give the
same values as with float64), whose ideal has the same width in every block (the truth's bound
on the relevant count), so that no value depends on the blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from fuzzytruth._lazy import lazy_names
from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._threads import check_threads, run_in_threads
from fuzzytruth._validation import check_memory_budget, check_n_worlds
from fuzzytruth.measures import PRESET, Measure
from fuzzytruth.metrics.base import RankedGains

__all__ = [
    "RankedDocs",
    "WorldSampler",
    "binary_route",
    "candidate_columns",
    "compress",
    "kernel_params",
    "world_values",
]

# the samplers moved to the truths that own them, the world models to the truth protocol
# (whose exact forms follow them); importable from here for one release
__getattr__, _ = lazy_names(
    "fuzzytruth.uncertain.worlds",
    {
        "CategoricalWorlds": "fuzzytruth.truth.categorical_worlds",
        "sample_labels": "fuzzytruth.truth.categorical_worlds",
        "QrelsWorlds": "fuzzytruth.truth.pair_worlds",
        "WORLD_MODELS": "fuzzytruth.truth.protocol",
        "check_world_model": "fuzzytruth.truth.protocol",
    },
    globals(),
)

# working memory, in bytes, that the block sizes are planned with
_RANK_BYTES = 4  # per (row, candidate column) when compressed: the column's rank (int32)
_ROW_BYTES = 48  # per (row, system): list length, relevant count, the kernels' accumulators
_VALUE_BYTES = 16  # per (row, system, measure): the values and their transposed copy
_CELL_BYTES = 64  # working memory of the crisp kernels per (row, rank) cell
_IDEAL_BYTES = 32  # per (row, ideal column) cell (nDCG sorts a float64 copy of the ideal)
_WORLDS_PER_BLOCK = 256  # at least, so that a block's inner loops are long
_ROWS_PER_BLOCK = 1 << 14  # at least (query, world) rows a block, when the worlds allow


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

    Planning: ``plan(systems)`` sees the ranked documents of every system; ``draw(n_worlds,
    seed)`` fixes the seed and prepares what every chunk needs; then ``world_bytes`` (memory of
    one world of a chunk, every query) and ``cell_bytes`` (of one (query, world) of a block,
    beyond what the engine counts) size the blocks, and ``max_relevant()`` bounds the number of
    relevant documents of a query in any drawn world (the width of every block's ideal, so
    that no value depends on the blocks).

    Drawing: ``chunk(start, stop)`` is what worlds ``start:stop`` share (e.g. every item's
    label); ``block(chunk, queries)`` the state of the queries ``queries`` (a slice) in those
    worlds. From a block state, rows query-major (row = query × n_worlds + world):
    ``counts(state, rel)`` ``(n_q, n_w)`` relevant documents (of a grade ``>= rel``; None: any
    positive grade); ``relevant(state, docs, rel)`` ``(C, n_rows)`` relevance (a grade ``>=
    rel``) of the candidate columns ``docs`` (the block's rows of ``candidates(system)[0]``);
    ``gains(state, docs)`` ``(n_rows, depth)`` relevance (bool) or grades of ranked
    documents; ``ideal(state, width)`` ``(n_rows, width)`` grades of the relevant documents,
    descending, 0-padded.

    ``candidates(system)`` the ranks that can be relevant (:func:`candidate_columns`);
    ``n_judged()`` judged documents per query; ``binary`` whether relevance is 0/1.
    """

    binary: bool
    world_bytes: int
    cell_bytes: int

    def plan(self, systems: Sequence[RankedDocs]) -> None: ...

    def draw(self, n_worlds: int, seed: int) -> None: ...

    def max_relevant(self) -> int: ...

    def chunk(self, start: int, stop: int) -> Any: ...

    def block(self, chunk: Any, queries: slice) -> dict: ...

    def counts(self, state: dict, rel: float | None = None) -> np.ndarray: ...

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray: ...

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray | None]: ...

    def relevant(self, state: dict, docs: np.ndarray, rel: float | None = None) -> np.ndarray: ...

    def ideal(self, state: dict, width: int) -> np.ndarray: ...

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


def candidate_columns(
    docs: np.ndarray, candidate: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The columns the 0/1 kernels read: the candidates compressed (:func:`compress`) when that
    is cheaper, else every rank (ranks None: column j is rank j, the others never relevant).

    A compressed column costs its relevance and its rank (1 + 4 bytes per row), a dense one its
    relevance only, so the candidates are compressed when they fill under a fifth of the
    depth.

    >>> docs = np.arange(12).reshape(2, 6)
    >>> candidate_columns(docs, docs % 6 == 1)[1]
    array([[1],
           [1]])
    >>> candidate_columns(docs, docs % 2 == 0)[1] is None
    True
    """
    width = int(candidate.sum(axis=1).max(initial=0))
    if (1 + _RANK_BYTES) * width >= docs.shape[1]:
        return docs, None
    return compress(docs, candidate)


def _reach(routes: Sequence[tuple[Callable[..., np.ndarray], float | None] | None]) -> int | None:
    """How deep a system's 0/1 kernels read (:mod:`fuzzytruth.metrics.binary`): the largest
    ``reach`` of its routes, None when one of them reads every rank."""
    reaches = [getattr(route[0], "reach", None) for route in routes if route is not None]
    return None if None in reaches else max(reaches, default=None)


def _within(system: RankedDocs, reach: int | None) -> RankedDocs:
    """``system`` with its ranks from ``reach`` on left out, which no 0/1 kernel reads: their
    relevance is not drawn (keyed draws: the others' are the same), its lengths as they are."""
    if reach is None or reach >= system.docs.shape[1]:
        return system
    return replace(system, docs=system.docs[:, :reach])


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
    memory_budget: float = MEMORY_BUDGET,
    on_chunk: Callable[[int], None] | None = None,
    min_relevant: int = 0,
    n_threads: int | None = None,
    out: tuple[np.ndarray, np.ndarray | None] | None = None,
    places: slice | np.ndarray | None = None,
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
        Bytes of working memory shared by the blocks in flight (default
        :data:`~fuzzytruth._resampling.MEMORY_BUDGET`); the world values are kept on top.
    on_chunk : callable, optional
        Called with the number of worlds done after each chunk (the caller's progress bar).
    min_relevant : int
        A preset's class-size rule (:attr:`Preset.min_relevant <fuzzytruth.measures.Preset>`):
        when positive, which queries have at least this many relevant documents in each world.
    n_threads : int, optional
        Threads running the blocks (default :func:`fuzzytruth._threads.default_threads`: one
        per core, one inside a Dask worker, or ``FUZZYTRUTH_NUM_THREADS``). The values do not
        depend on it, nor on the memory budget.
    out : (numpy.ndarray, numpy.ndarray or None), optional
        Arrays to write the values and the counted queries into, ``(n_measures, n_systems,
        n_worlds, N)`` float64 and ``(n_worlds, N)`` bool (None when ``min_relevant`` is 0),
        for ``N`` queries of which these are some: a block of ragged queries written at its
        places in the whole evaluation's arrays, with no array of its own to copy from.
    places : slice or numpy.ndarray, optional
        With ``out``, where these queries go in its last axis (by default ``out`` holds
        these queries only, in their order).

    Returns
    -------
    values : numpy.ndarray
        ``(n_measures, n_systems, n_worlds, n_queries)`` (``out``'s first array when given,
        of ``N`` queries); NaN where a measure is undefined in a world.
    counted : numpy.ndarray or None
        ``(n_worlds, n_queries)`` bool (``out``'s second), the queries that enter aggregates in
        each world (``min_relevant`` relevant documents or more); None when ``min_relevant``
        is 0.
    """
    n_worlds = check_n_worlds(n_worlds, minimum=1)
    memory_budget = check_memory_budget(memory_budget)
    n_threads = check_threads(n_threads)
    truth.plan(systems)
    truth.draw(n_worlds, seed)
    n_q = len(systems[0].lengths)
    fast = [[binary_route(m, s, truth) for m in measures] for s in systems]
    candidates = [
        truth.candidates(_within(s, _reach(row))) if any(f is not None for f in row) else None
        for s, row in zip(systems, fast, strict=True)
    ]
    generic = any(f is None for row in fast for f in row)
    width = truth.max_relevant() if generic else 0
    depth = max(s.docs.shape[1] for s in systems)
    cell = truth.cell_bytes + len(systems) * (_ROW_BYTES + len(measures) * _VALUE_BYTES)
    for c in candidates:
        if c is not None:
            cell += c[0].shape[1] * (1 if c[1] is None else 1 + _RANK_BYTES)
    if generic:
        cell += depth * _CELL_BYTES + width * _IDEAL_BYTES
    n_chunk, n_block = _block_sizes(
        n_worlds, n_q, truth.world_bytes, cell, memory_budget, n_threads
    )
    if out is None:
        values = np.empty((len(measures), len(systems), n_worlds, n_q))
        counted = np.empty((n_worlds, n_q), dtype=bool) if min_relevant > 0 else None
    else:
        values, counted = out
        _check_out(values, counted, (len(measures), len(systems), n_worlds), min_relevant)
    given, placed = places, values.shape[3] == n_q
    if places is not None:
        try:
            places = np.arange(values.shape[3])[places]
            placed = len(places) == len(np.unique(places)) == n_q
        except IndexError:
            placed = False
    if not placed:
        raise ValueError(
            f"places must say where the {n_q} queries go in the last axis of out, of "
            f"{values.shape[3]}, each a different place; got {given!r}"
        )
    plan = _Plan(
        truth, systems, measures, fast, candidates, width,
        truth.n_judged() if generic and any("judged" in m.uses for m in measures) else None,
        values, counted, min_relevant, places,
    )
    blocks = [slice(q, min(q + n_block, n_q)) for q in range(0, n_q, n_block)]
    for start in range(0, n_worlds, n_chunk):  # chunks of worlds, blocks of queries
        stop = min(n_worlds, start + n_chunk)
        shared = truth.chunk(start, stop)
        todo = blocks
        if start == 0:  # the first block here: the kernels compile once, before any thread
            plan.fill(shared, slice(start, stop), blocks[0])
            todo = blocks[1:]
        run_in_threads(
            lambda queries, s=shared, w=slice(start, stop): plan.fill(s, w, queries),
            todo, n_threads=n_threads,
        )
        if on_chunk is not None:
            on_chunk(stop - start)
    return values, counted


def _check_out(
    values: np.ndarray, counted: np.ndarray | None, shape: tuple[int, int, int],
    min_relevant: int,
) -> None:
    """The arrays given to :func:`world_values` as ``out``: float64 values whose first three
    axes are ``shape``, and counted flags for its worlds and queries when ``min_relevant``
    asks for them (None otherwise)."""
    if values.dtype != np.float64 or values.ndim != 4 or values.shape[:3] != shape:
        raise ValueError(
            f"out[0] must be a float64 array of shape {(*shape, 'n')}; got {values.dtype} "
            f"{values.shape}"
        )
    wanted = (shape[2], values.shape[3])
    if (counted is None) != (min_relevant <= 0) or (
            counted is not None and (counted.dtype != bool or counted.shape != wanted)):
        raise ValueError(
            f"out[1] must be a bool array of shape {wanted} when min_relevant > 0, else None; "
            f"got {None if counted is None else (counted.dtype, counted.shape)} with "
            f"min_relevant={min_relevant}"
        )


def _block_sizes(
    n_worlds: int, n_q: int, world_bytes: int, cell_bytes: int, budget: float, n_threads: int
) -> tuple[int, int]:
    """Worlds per chunk and queries per block: a chunk's shared draws and its blocks in flight
    (one per thread) within ``budget`` bytes. Blocks favour worlds: the kernels' inner loops
    run over a block's worlds, so each (query, column)'s lookups (its unit, an item's labels
    or probabilities) are shared by 256 worlds, or more when a thread's share of the queries
    is small: a block then takes as many worlds as make 16,384 (query, world) rows, so that
    each chunk's start (its shared draws, its threads) is paid for fewer, larger blocks (AP on
    25 queries × 200,000 stacked worlds: 1,000 replicates of ``benchmarks/population.py``'s
    240 × 5 × 25 shape, its ``annotator_bootstrap`` call, 2026-11-28: 2.98 s wall on 2 threads
    in chunks of 256 worlds, 2.41 s on one; 2.19 and 2.15 s in chunks of 1,261).

    >>> _block_sizes(1000, 20_000, 0, 100, 128e6, 2)   # 256 worlds, 2,500 queries per block
    (256, 2500)
    >>> _block_sizes(1000, 20_000, 0, 100, 128e6, 1)
    (256, 5000)
    >>> _block_sizes(1000, 20_000, 10_000_000, 10_000, 128e6, 2)  # large shared draws
    (6, 566)
    >>> _block_sizes(200_000, 25, 500, 100, 128e6, 2)  # few queries: longer chunks
    (1261, 13)
    """
    per_thread = -(-n_q // n_threads)
    n_chunk = min(n_worlds, max(_WORLDS_PER_BLOCK, -(-_ROWS_PER_BLOCK // per_thread)))
    n_chunk = int(max(1, min(n_chunk, budget // (2 * (world_bytes + n_threads * cell_bytes)))))
    room = max(budget - n_chunk * world_bytes, n_threads * n_chunk * cell_bytes)
    n_block = int(room // (n_threads * n_chunk * cell_bytes))
    return n_chunk, max(1, min(n_block, per_thread))


def binary_route(
    measure: Measure, system: RankedDocs, truth: WorldSampler
) -> tuple[Callable[..., np.ndarray], float | None] | None:
    """The family's 0/1-world kernel for this measure and system, and the relevance threshold
    it reads the worlds at, when it has one and it applies: a strict ranking, and 0/1 worlds
    (threshold None), or graded worlds read by a family with a ``rel`` parameter — such a
    family sees a document only as ``grade >= rel`` (``tests/test_worlds.py`` checks it of
    each), so its kernel runs on that relevance as on a 0/1 world. None otherwise: the crisp
    kernel runs on the dense grades.
    """
    factory = measure.family.binary
    if factory is None or system.tie_start is not None:
        return None
    params = kernel_params(measure)
    depth = system.docs.shape[1]
    if truth.binary:
        kernel = factory(depth, **params)
        return None if kernel is None else (kernel, None)
    if "rel" not in params:
        return None
    kernel = factory(depth, **{**params, "rel": 1.0})
    return None if kernel is None else (kernel, params["rel"])


@dataclass(frozen=True, eq=False)
class _Plan:
    """What every block needs, and where its values go."""

    truth: WorldSampler
    systems: Sequence[RankedDocs]
    measures: Sequence[Measure]
    fast: list[list]
    candidates: list
    width: int  # of the ideal, the same in every block
    n_judged: np.ndarray | None  # judged documents per query, when a measure reads them
    out: np.ndarray
    counted: np.ndarray | None
    min_relevant: int
    places: np.ndarray | None  # where the queries go in out's last axis (None: in order)

    def fill(self, shared: Any, worlds: slice, queries: slice) -> None:
        """Every measure and system on one block: the queries ``queries`` in the chunk of
        worlds ``worlds``; fills ``out[:, :, worlds, places[queries]]`` (places None: the
        queries' own)."""
        truth = self.truth
        state = truth.block(shared, queries)
        counts = truth.counts(state)  # (n_q, n_w)
        n_q, n_w = counts.shape
        at = queries if self.places is None else self.places[queries]
        if self.counted is not None:
            self.counted[worlds][:, at] = (counts >= self.min_relevant).T
        ideal = judged_grades = None  # of the block's worlds, shared by every system
        for s, system in enumerate(self.systems):  # a handful of systems, each vectorised
            relevant: dict = {}  # by relevance threshold
            gains = ranks = None
            lengths = np.repeat(system.lengths[queries], n_w)
            for m, measure in enumerate(self.measures):
                route = self.fast[s][m]
                if route is not None:
                    kernel, rel = route
                    docs, columns = self.candidates[s]
                    if rel not in relevant:
                        relevant[rel] = truth.relevant(state, docs[queries], rel)
                    if ranks is None and columns is None:  # every rank is a column
                        ranks = np.arange(docs.shape[1], dtype=np.int32)[:, None]
                    elif ranks is None:  # (n_q, C) -> (C, n_rows), rows query-major
                        ranks = np.repeat(columns[queries].T.astype(np.int32), n_w, axis=1)
                    n_relevant = truth.counts(state, rel).reshape(n_q * n_w)
                    values = kernel(relevant[rel], ranks, lengths, n_relevant)
                else:
                    if gains is None:
                        gains = truth.gains(state, system.docs[queries])
                    if ideal is None:
                        ideal = truth.ideal(state, self.width)
                    rg = _ranked_gains(system, queries, gains, ideal, lengths, n_w)
                    if self.n_judged is not None and "judged" in measure.uses:
                        if judged_grades is None:
                            judged_grades = _judged_grades(truth, state,
                                                           self.n_judged[queries], n_w)
                        rg = _with_judged(rg, system, queries, n_w, *judged_grades)
                    values = measure.compute(rg)
                self.out[m, s, worlds][:, at] = values.reshape(n_q, n_w).T


def _ranked_gains(
    system: RankedDocs,
    queries: slice,
    gains: np.ndarray,
    ideal: np.ndarray,
    lengths: np.ndarray,
    n_w: int,
) -> RankedGains:
    """The block's rows (query-major) as the crisp kernels take them: C-contiguous, as in a
    crisp evaluation (numpy may reduce other layouts in another order)."""
    flat = np.ascontiguousarray(gains)
    flat = flat.view(np.int8) if flat.dtype == bool else flat
    tie_start = tie_stop = None
    if system.tie_start is not None:
        tie_start = np.repeat(system.tie_start[queries], n_w, axis=0)
        tie_stop = np.repeat(system.tie_stop[queries], n_w, axis=0)
    return RankedGains(
        np.zeros(len(lengths), dtype=object), flat, lengths, ideal, tie_start, tie_stop
    )


def _judged_grades(
    truth: WorldSampler, state: dict, n_judged: np.ndarray, n_w: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each (query, world) row's number of judged documents and judged grades: the grades of
    its relevant documents, descending (the world's ideal, of 1s in binary worlds), then 0
    for the other judged documents, NaN past them, as a crisp qrels of that world gives them
    (``n_judged``: the block's queries')."""
    n_judged = np.repeat(n_judged, n_w)
    width = int(n_judged.max(initial=0))
    cols = np.arange(width)[None, :]
    return n_judged, np.where(cols < n_judged[:, None], truth.ideal(state, width), np.nan)


def _with_judged(
    rg: RankedGains, system: RankedDocs, queries: slice, n_w: int, n_judged: np.ndarray,
    grades: np.ndarray,
) -> RankedGains:
    """``rg`` with judged status: a ranked document is judged when the truth knows it (a
    judged pair; an annotated item), with the block's judged grades
    (:func:`_judged_grades`)."""
    judged = np.repeat(system.docs[queries] >= 0, n_w, axis=0)
    return replace(rg, judged=judged, n_judged=n_judged, judged_grades=grades)
