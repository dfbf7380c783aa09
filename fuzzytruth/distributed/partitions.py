"""Inputs split by query: in-memory objects cut into query ranges, Dask frames checked and aligned.

A *partition* is a set of queries with every row of every run and of the qrels about them, so
that evaluating it alone gives exactly the numbers of those queries in the whole evaluation
(:mod:`fuzzytruth._random`: every random draw depends on ids, never on positions).

* In-memory :class:`~fuzzytruth.runs.Run`, :class:`~fuzzytruth.runs.Qrels` and
  :class:`~fuzzytruth.truth.probabilistic_qrels.ProbabilisticQrels` are cut into
  ``npartitions`` ranges of the sorted query ids (:func:`split_in_memory`).
* Dask DataFrames, or partitioned Parquet datasets read by :func:`read_parquet`, keep their
  partitions when every query lives in one partition of each frame, at the same position in
  every frame; otherwise they are hash-partitioned on the query id
  (``repartition=True``) or rejected with an error naming the query. It is checked on the
  distinct query ids the evaluation tasks return with their results, so that every partition
  is read once (:func:`aligned_frames`).
* A :class:`~fuzzytruth.truth.membership.Membership` (categorical truth) is shared by every query:
  it is broadcast whole, only the runs are partitioned.

Columns of the frames: runs ``query_id, doc_id, score``; crisp qrels ``query_id, doc_id,
relevance``; probabilistic qrels ``query_id, doc_id, probability[, grade]``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from fuzzytruth._pairs import arrow_strings, duplicate_pair
from fuzzytruth._random import unit_keys
from fuzzytruth._resampling import BLOCK_RUNNER
from fuzzytruth._validation import check_columns, check_int
from fuzzytruth.runs import Run
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.protocol import Truth, TruthKind
from fuzzytruth.truth.qrels import Qrels

__all__ = ["aligned_frames", "blocks_on", "read_parquet", "split_in_memory", "truth_from_frame"]

QUERY = "query_id"
RUN_COLUMNS = (QUERY, "doc_id", "score")
TRUTH_COLUMNS = (QUERY, "doc_id")
_PART = "_fuzzytruth_partition"


def read_parquet(path: str | os.PathLike, **kwargs: Any) -> Any:
    """A partitioned Parquet dataset as a Dask DataFrame, one partition per file.

    Parameters
    ----------
    path : str or os.PathLike
        A directory of Parquet files (or a glob), each holding whole queries.
    **kwargs
        Passed to :func:`dask.dataframe.read_parquet`.
    """
    import dask.dataframe as dd

    kwargs.setdefault("split_row_groups", False)
    kwargs.setdefault("aggregate_files", False)
    return dd.read_parquet(os.fspath(path), **kwargs)


def is_frame(value: Any) -> bool:
    """True for a Dask DataFrame or a path to a Parquet dataset (what :func:`as_frame` reads)."""
    if isinstance(value, str | os.PathLike):
        return True
    return type(value).__module__.startswith("dask")


def as_frame(value: Any, name: str, columns: tuple[str, ...] = (QUERY,)) -> Any:
    """A Dask DataFrame with ``columns`` from a frame, a Parquet path, or an in-memory Run,
    Qrels or ProbabilisticQrels (one partition, partitioned later); a missing column is an
    error naming ``name`` here, on the driver, not on a worker in terms of the in-memory
    constructors' parameters."""
    import dask.dataframe as dd

    if isinstance(value, str | os.PathLike):
        frame = read_parquet(value)
    elif isinstance(value, Run) or (isinstance(value, Truth) and value.per_query):
        frame = dd.from_pandas(value.to_dataframe(), npartitions=1, sort=False)
    elif is_frame(value):
        frame = value
    else:
        raise ValueError(
            f"{name} must be a Dask DataFrame, a Parquet path, a Run or qrels; got "
            f"{type(value).__name__}"
        )
    check_columns(frame, name, columns, rows=False)
    return frame


def truth_values(columns: Any) -> str:
    """The column of a truth frame's values: ``probability`` (probabilistic qrels) or
    ``relevance`` (crisp qrels)."""
    for column in ("probability", "relevance"):
        if column in columns:
            return column
    raise ValueError(
        "truth frame must have a 'probability' column (probabilistic qrels) or a 'relevance' "
        f"column (crisp qrels); got columns {list(columns)}"
    )


def truth_from_frame(frame: pd.DataFrame) -> Qrels | ProbabilisticQrels:
    """The truth of one partition: probabilistic qrels when there is a ``probability`` column,
    crisp qrels with a ``relevance`` column."""
    if truth_values(frame.columns) == "probability":
        grade = "grade" if "grade" in frame.columns else None
        with one_row_per_pair("truth", None):
            return ProbabilisticQrels.from_dataframe(frame, grade_col=grade)
    with one_row_per_pair("truth", "Qrels"):
        return Qrels.from_dataframe(frame)


@contextlib.contextmanager
def one_row_per_pair(name: str, in_memory: str | None) -> Iterator[None]:
    """Within the block, a partition of the frame ``name`` that lists a document twice for a
    query is a ValueError naming the frame, the query and the document, and saying what can
    be done with a frame: the in-memory message names the partition's own row numbers and a
    ``duplicates=`` option that :func:`fuzzytruth.distributed.evaluate` does not take.

    Parameters
    ----------
    name : str
        The frame, as in the messages of :func:`aligned_frames`.
    in_memory : str, optional
        The in-memory class (``"Run"``, ``"Qrels"``) whose ``duplicates=`` option keeps one
        row, to be built and passed instead of the frame; None when there is none.
    """
    try:
        yield
    except ValueError as error:
        pair = duplicate_pair(error)
        if pair is None:
            raise
        query, doc, count = pair
        instead = ("" if in_memory is None else
                   f", or pass a {in_memory} built with duplicates='max', 'first' or 'last' in "
                   "place of the frame")
        raise ValueError(
            f"{name} lists document {doc!r} {count} times for query "
            f"{query!r}; keep one row per (query_id, doc_id) in the frame{instead}"
        ) from None


def truth_kind(truth: Any) -> TruthKind:
    """The kind of a truth object (:mod:`fuzzytruth.truth.protocol`) or of a truth frame
    (whose columns are checked)."""
    if isinstance(truth, Truth):
        return truth.truth_kind
    columns = as_frame(truth, "truth", TRUTH_COLUMNS).columns
    if truth_values(columns) == "probability":
        return TruthKind.PROBABILISTIC_QRELS
    return TruthKind.CRISP


# ---------------------------------------------------------------------------------------------
# in memory


def split_in_memory(
    runs: Mapping[str, Run], truth: Any, npartitions: int, extra_queries: np.ndarray
) -> list[tuple[dict[str, Run], Any]]:
    """Cut runs and qrels into ``npartitions`` consecutive ranges of the sorted query ids.

    ``extra_queries`` (the truth's judged queries under ``complete=True``) are partitioned too.
    A truth that is not cut by query (a Membership: ``per_query`` False) is shared: every
    partition gets the same object.
    """
    queries = np.unique(
        np.concatenate([np.asarray(r.query_ids, dtype=object) for r in runs.values()]
                       + [np.asarray(extra_queries, dtype=object)]).astype(str)
    )
    bounds = np.linspace(0, len(queries), min(npartitions, max(len(queries), 1)) + 1)
    bounds = bounds.round().astype(int)
    cut = {name: _cut(run.query_ids, queries, bounds) for name, run in runs.items()}
    truth_cut = _cut(truth.query_ids, queries, bounds) if truth.per_query else None
    out = []
    for p in range(len(bounds) - 1):
        part_runs = {
            name: Run(run.query_ids[rows[p]], run.doc_ids[rows[p]], run.scores[rows[p]],
                      name=run.name)
            for (name, run), rows in zip(runs.items(), cut.values(), strict=True)
        }
        out.append((part_runs, truth if truth_cut is None else truth.take(truth_cut[p])))
    return out


def _cut(query_ids: np.ndarray, queries: np.ndarray, bounds: np.ndarray) -> list[np.ndarray]:
    """Rows of each partition (rows of queries outside ``queries`` go nowhere)."""
    position = np.searchsorted(queries, np.asarray(query_ids, dtype=object).astype(str))
    position = np.minimum(position, len(queries) - 1)
    part = np.searchsorted(bounds, position, side="right") - 1
    order = np.argsort(part, kind="stable")
    edges = np.searchsorted(part[order], np.arange(len(bounds)))
    return [order[edges[p]:edges[p + 1]] for p in range(len(bounds) - 1)]


# ---------------------------------------------------------------------------------------------
# Dask frames


def aligned_frames(frames: dict[str, Any], *, repartition: bool, npartitions: int | None
                   ) -> tuple[dict[str, Any], bool]:
    """Frames whose partition ``i`` is evaluated as one task, and whether it is still to be
    checked that they hold every query in one partition, at one position in every frame.

    The check reads nothing here: the evaluation tasks return, with their results, the
    distinct query ids of the partitions they read (:func:`unique_queries`), and the driver
    checks them (:func:`needs_repartition`) before any result is used. (Distinct query ids
    computed beforehand would read every partition twice; and the query column alone is read
    by Dask in fused partitions, where a query split across two files is not seen.) Only the
    numbers of partitions, known without reading, are checked here.

    Parameters
    ----------
    frames : dict of str to dask.dataframe.DataFrame
        Runs and the truth by a name used in error messages.
    repartition : bool
        When the partitioning does not hold, hash-partition every frame on the query id
        (``npartitions`` partitions, default the largest count) instead of raising.
    npartitions : int, optional
        Force a hash-partitioning into this many partitions (then nothing is to be checked).

    Returns
    -------
    frames : dict of str to dask.dataframe.DataFrame
        The frames as given, or hash-partitioned.
    unchecked : bool
        Whether the partitioning by query is still to be checked on the tasks' query ids.
    """
    if npartitions is not None:
        return hash_partitioned(frames, npartitions), False
    counts = {name: frame.npartitions for name, frame in frames.items()}
    if _settle(_count_problem(counts), repartition=repartition):
        return hash_partitioned(frames), False
    return frames, True


def needs_repartition(uniques: dict[str, list[np.ndarray]], *, repartition: bool) -> bool:
    """Whether frames whose partitions hold these distinct query ids must be hash-partitioned
    and evaluated again; with ``repartition=False`` a partitioning that does not hold is a
    ValueError naming the query instead.

    Parameters
    ----------
    uniques : dict of str to list of numpy.ndarray
        Each frame's partitions' distinct query ids (:func:`unique_queries`), frames by the
        names of :func:`aligned_frames`.
    repartition : bool
        As in :func:`aligned_frames`.
    """
    return _settle(_partitioning_problem(uniques), repartition=repartition)


def hash_partitioned(frames: dict[str, Any], npartitions: int | None = None) -> dict[str, Any]:
    """Every frame hash-partitioned on the query id into ``npartitions`` partitions (default
    the largest count of the frames)."""
    if npartitions is None:
        npartitions = max(frame.npartitions for frame in frames.values())
    return {name: _hash_partition(frame, npartitions) for name, frame in frames.items()}


def _settle(problem: str | None, *, repartition: bool) -> bool:
    """True when there is a problem and ``repartition`` (hash-partition), an error when there
    is one and not ``repartition``, False when there is none."""
    if problem is None:
        return False
    if not repartition:
        raise ValueError(
            f"the inputs are not partitioned by query: {problem}; partition them by query "
            "(every query's rows in one partition, at the same position in every frame) "
            "or pass repartition=True"
        )
    return True


def unique_queries(part: pd.DataFrame) -> np.ndarray:
    """The partition's distinct query ids as str, in order of first appearance: the column's
    distinct values first (a hash of the column as it is), then their str forms (two values
    may share one), not a Python string per row. A column of strings held by Arrow (pandas'
    ``str`` dtype, as Parquet is read) gives its distinct values as they are (2.4 ms for
    5,000 queries in 500,000 rows, against 4.7 ms through pandas' iterator and ``str``; a
    crisp task calls this for its run and its qrels)."""
    column = part[QUERY]
    if isinstance(column.array, pd.arrays.ArrowStringArray) and not column.hasnans:
        return pc.unique(arrow_strings(column.array)).to_numpy(zero_copy_only=False)
    return pd.unique(np.asarray([str(q) for q in pd.unique(column)], dtype=object))


def _partitioning_problem(uniques: dict[str, list[np.ndarray]]) -> str | None:
    """What breaks the partitioning by query (None when it holds): over the (frame,
    partition, query) triples at once, the first, in reading order, of a query in two
    partitions of one frame or in another partition than in the frame that has it first."""
    problem = _count_problem({name: len(parts) for name, parts in uniques.items()})
    if problem is not None:
        return problem
    names = list(uniques)
    sizes = [[len(q) for q in parts] for parts in uniques.values()]
    frame = np.repeat(np.arange(len(names)), [sum(s) for s in sizes])
    part = np.concatenate([np.repeat(np.arange(len(s)), s) for s in sizes])
    queries = np.concatenate([q for parts in uniques.values() for q in parts] or [[]])
    code = pd.factorize(queries)[0].astype(np.int64)
    # the first row (in reading order) of each query in its frame, and of each query overall
    _, first, back = np.unique(frame * (code.max(initial=0) + 1) + code, return_index=True,
                               return_inverse=True)
    in_frame = first[back]
    _, first, back = np.unique(code, return_index=True, return_inverse=True)
    home = first[back]
    split = part[in_frame] != part
    elsewhere = part[home] != part
    bad = np.flatnonzero(split | elsewhere)
    if not bad.size:
        return None
    i = bad[0]
    q, name, p = queries[i], names[frame[i]], part[i]
    if split[i]:
        return f"query {q!r} of {name} is split across partitions {part[in_frame[i]]} and {p}"
    return (f"query {q!r} is in partition {part[home[i]]} of {names[frame[home[i]]]} but in "
            f"partition {p} of {name}")


def _count_problem(counts: dict[str, int]) -> str | None:
    """Frames with different numbers of partitions (None when they all have one number)."""
    if len(set(counts.values())) > 1:
        return f"the frames have different numbers of partitions {counts}"
    return None


def _hash_partition(frame: Any, npartitions: int) -> Any:
    """Partition ``i`` holds the queries whose stable key is ``i`` modulo ``npartitions``."""
    def tag(part: pd.DataFrame) -> pd.DataFrame:
        keys = unit_keys(part[QUERY].to_numpy(dtype=object))
        return part.assign(**{_PART: (keys % np.uint64(npartitions)).astype(np.int64)})

    meta = frame._meta.assign(**{_PART: np.int64(0)})
    tagged = frame.map_partitions(tag, meta=meta)
    divisions = list(range(npartitions + 1))
    return tagged.set_index(_PART, divisions=divisions, sort=True)


def cluster_client(client: Any) -> Any:
    """``client``, or the active client (:func:`distributed.get_client`) when it is None;
    anything else is a ValueError naming the parameter, not an AttributeError on its first
    use."""
    from distributed import Client, get_client

    if client is None:
        return get_client()
    if not isinstance(client, Client):
        raise ValueError(
            f"client must be a distributed.Client or None (the active client); got {client!r}"
        )
    return client


def broadcast(client: Any, value: Any) -> Any:
    """``value`` sent once to every worker of ``client``: the future of its copy.

    Under a key of its own (``hash=False``): Dask's default key is the value's token, the
    same for every call with the same object, and the release of an earlier call's future
    then deleted the data a later call had just scattered under that key (its tasks were
    cancelled: "lost data").
    """
    [future] = client.scatter([value], broadcast=True, hash=False)
    return future


@contextlib.contextmanager
def blocks_on(client: Any, retries: int) -> Iterator[None]:
    """Within the block, blocks of replicates (:func:`fuzzytruth._resampling.run_blocks`) run
    as Dask tasks on ``client`` (default: the active client), each rerun up to ``retries``
    times if its worker dies; the shared input is broadcast to every worker once per call."""
    client = cluster_client(client)
    retries = check_int("retries", retries)

    def runner(kernel: Callable[..., Any], shared: Any, blocks: list[tuple[int, int]]) -> list:
        if not blocks:
            return []
        on_workers = broadcast(client, shared)
        futures = client.map(kernel, [on_workers] * len(blocks), [a for a, _ in blocks],
                             [b for _, b in blocks], pure=False, retries=retries)
        return client.gather(futures)

    token = BLOCK_RUNNER.set(runner)
    try:
        yield
    finally:
        BLOCK_RUNNER.reset(token)
