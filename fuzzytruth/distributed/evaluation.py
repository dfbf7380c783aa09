"""``evaluate()`` on a Dask cluster: the in-memory evaluation of each partition of queries,
concatenated into one :class:`~fuzzytruth.evaluation.Evaluation`.

There is one implementation of the measures: every partition is evaluated by
:func:`fuzzytruth.evaluation.evaluate` on a worker, and the per-query results (distributions,
world values, counted queries) are put side by side in the global query order. Aggregates,
``to_frame()``, ``world_scores()`` and ``compare()`` then run the same methods on the result.
The numbers are those of the in-memory path: the random draws of a world are keyed by (seed,
query, document, world), and every partition draws its seed from a copy of the same ``rng``.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._allocator import worker_task
from fuzzytruth._random import as_generator, draw_seed, recorded_seed
from fuzzytruth._validation import check_flag, check_int
from fuzzytruth._warnings import warn
from fuzzytruth.distributed.partitions import (
    RUN_COLUMNS,
    TRUTH_COLUMNS,
    aligned_frames,
    as_frame,
    broadcast,
    cluster_client,
    hash_partitioned,
    is_frame,
    needs_repartition,
    one_row_per_pair,
    split_in_memory,
    truth_from_frame,
    truth_kind,
    unique_queries,
)
from fuzzytruth.evaluation.engine import (
    PARTIAL,
    UNANSWERED,
    warn_if_partial,
    warn_if_unanswered,
)
from fuzzytruth.evaluation.engine import evaluate as evaluate_in_memory
from fuzzytruth.evaluation.result import Evaluation
from fuzzytruth.measures import Measure
from fuzzytruth.runs import Run, check_runs
from fuzzytruth.truth.categorical import UNUSED_CATEGORIES, unused_categories_message
from fuzzytruth.truth.judged_pairs import NONE_JUDGED
from fuzzytruth.truth.protocol import as_truth

__all__ = ["evaluate", "evaluate_per_annotator"]


def evaluate(
    runs: Any,
    truth: Any,
    measures: str | Measure | Iterable[str | Measure],
    *,
    client: Any = None,
    npartitions: int | None = None,
    repartition: bool = True,
    retries: int = 2,
    rng: np.random.Generator | int | None = None,
    **options: Any,
) -> Evaluation:
    """:func:`fuzzytruth.evaluation.evaluate` on a Dask cluster, partitioned by query.

    Parameters
    ----------
    runs : Run, mapping of str to Run, Dask DataFrame, Parquet path, or mapping of them
        In-memory runs are cut into ``npartitions`` query ranges; frames (columns
        ``query_id, doc_id, score``) keep their partitions when they are by query.
    truth : Qrels, ProbabilisticQrels, Membership, Dask DataFrame or Parquet path
        A frame with a ``relevance`` column is crisp qrels, with ``probability`` (and
        optionally ``grade``) probabilistic qrels; a Membership or a fitted truth model
        (:mod:`fuzzytruth.truth.models`) is broadcast to every worker (once), with in-memory
        runs or with frames (then only the runs are partitioned).
    measures : str, Measure or iterable of them
        As in :func:`fuzzytruth.evaluation.evaluate`.
    client : distributed.Client, optional
        The cluster (default: the active client, :func:`distributed.get_client`).
    npartitions : int, optional
        In-memory inputs: number of query ranges (default twice the number of worker
        threads). Frames: force a hash-partitioning on the query id into this many parts.
    repartition : bool
        Frames not partitioned by query (a query split across partitions, or runs and truth
        partitioned differently) are hash-partitioned on the query id (default); False raises
        an error naming the query. The partitioning is checked on the partitions the
        evaluation reads, once, after their tasks and before any result is used: a
        partitioning that does not hold costs one evaluation of the frames as given, whose
        results are dropped, before the hash-partitioned one (partitions of different
        numbers are seen at once).
    retries : int
        How often Dask reruns a partition whose worker died (default 2).
    rng : numpy.random.Generator or int, optional
        As in :func:`fuzzytruth.evaluation.evaluate`: the same seed gives the same numbers,
        bit for bit, on one machine or on any cluster with any partitioning.
    **options
        Every other keyword of :func:`fuzzytruth.evaluation.evaluate` (``n_worlds``,
        ``preset``, ``undefined``, ``missing``, ``complete``...); ``progress=True`` is
        refused (no bar is drawn on a cluster: Dask's dashboard shows the tasks).

    Returns
    -------
    Evaluation
        The object :func:`fuzzytruth.evaluation.evaluate` returns for the same input.
    """
    repartition = check_flag("repartition", repartition)
    client = cluster_client(client)
    retries = check_int("retries", retries)
    if npartitions is not None:  # both paths: query ranges, or a forced hash-partitioning
        npartitions = check_int("npartitions", npartitions, minimum=1)
    options = _without_progress(options)
    complete = check_flag("complete", options.get("complete", False))
    # a truth shared by every query (a Membership, a model) would add its judged queries
    # (query_categories) in every partition: they are evaluated once, after the partitions
    judged_later = complete and not is_frame(truth) and not getattr(truth, "per_query", True)
    part_options = {**options, "complete": False} if judged_later else options
    seed = recorded_seed(rng)  # the partitions get copies of a Generator: recorded here
    rng = as_generator(rng)
    if isinstance(runs, Run) or (not isinstance(runs, Mapping)):
        runs = {_run_name(runs): runs}
    if not runs:
        raise ValueError("runs must hold at least one system; got an empty mapping")
    kind = truth_kind(truth)
    framed = [is_frame(r) for r in runs.values()] + [is_frame(truth)]
    if any(framed):
        results = _frame_results(client, runs, truth, measures, part_options, rng,
                                 repartition, npartitions, retries)
    else:
        if npartitions is None:
            npartitions = 2 * max(sum(client.nthreads().values()), 1)
        tasks = _memory_tasks(client, runs, truth, measures, part_options, rng, npartitions)
        results = _gather_as_completed(client.compute(tasks, retries=retries))
    if judged_later:
        done = [ev.queries for ev, _ in results if ev is not None]
        results.append(_judged_only(list(runs), truth, measures, options, copy.deepcopy(rng),
                                    done))
    if options.get("n_worlds", 1000) > 0 and not kind.crisp:
        draw_seed(rng)  # the caller's generator moves on as after the in-memory evaluate
    # the partitions evaluated with complete=False beside the judged-only one: one option
    parts = [ev.replace(conventions={**ev.conventions, "complete": complete})
             for ev, _ in results if ev is not None]
    # decided below, over every partition's queries: a partition holding none of
    # query_categories' keys says so, and one of judged queries its runs do not answer (a
    # truth in memory: a frame's partitions each name their own, together all of them)
    judged_here = not complete and not is_frame(truth) and truth.per_query
    # likewise a system missing some queries, said once over all of them (runs in memory;
    # a frame's partitions each name the queries of their own range)
    partial_here = not complete and not any(framed)
    # a run none of whose documents is judged: true of the run only when true of it in every
    # partition evaluated (one partition's queries may well retrieve none), then said once
    none_judged: dict[str, list[str]] = {}
    for _, caught in results:
        for message in caught:
            if NONE_JUDGED in message:
                none_judged.setdefault(message.split(NONE_JUDGED)[0], []).append(message)
            elif not (message.startswith(UNUSED_CATEGORIES)
                      or (judged_here and UNANSWERED in message)
                      or (partial_here and PARTIAL in message)):
                warn(message, UserWarning)
    n_evaluated = sum(ev is not None for ev, _ in results)
    for said in none_judged.values():
        if len(said) == n_evaluated:
            warn(said[0], UserWarning)
    if not parts:
        raise ValueError("no query left to evaluate: no query of the runs is in the truth")
    _warn_if_categories_unused(options.get("query_categories"), parts)
    evaluated = np.concatenate([np.asarray(ev.queries, dtype=object) for ev in parts])
    if judged_here:
        warn_if_unanswered(as_truth(truth).judged_queries, evaluated)
    if partial_here:
        warn_if_partial({name: run._q_uniques for name, run in runs.items()}, evaluated)
    evaluation = Evaluation.concatenate(parts)
    conventions = dict(evaluation.conventions)
    if "seed" in conventions:
        conventions["seed"] = seed
    return evaluation.replace(conventions=conventions)


def _warn_if_categories_unused(categories: Mapping | None, parts: list[Evaluation]) -> None:
    """The in-memory warning of a ``query_categories`` that names no evaluated query, given
    once for the queries of every partition."""
    if not categories:
        return
    queries = np.unique(np.concatenate([np.asarray(ev.queries, dtype=object).astype(str)
                                        for ev in parts]))
    if not np.isin(np.asarray(list(categories), dtype=object).astype(str), queries).any():
        warn(unused_categories_message({str(k): v for k, v in categories.items()}, queries),
             UserWarning)


def evaluate_per_annotator(
    run: Run,
    qrels_by_group: Mapping[str, Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    client: Any = None,
    retries: int = 2,
    **options: Any,
) -> Evaluation:
    """:func:`fuzzytruth.evaluate_per_annotator` with one Dask task per judgment group.

    Each group's qrels is evaluated on a worker by the in-memory unit of work
    (:func:`fuzzytruth.evaluation.per_annotator.evaluate_group`) and the groups' results are
    combined on the driver by the same code as in memory
    (:func:`fuzzytruth.evaluation.per_annotator.combine_groups`), so the result equals the
    in-memory one (crisp values, to rounding: 1e-12).

    Parameters
    ----------
    run : Run
        The ranked lists (sent to every worker once).
    qrels_by_group : mapping of str to Qrels
        One qrels per judgment group, as in memory.
    measures : str, Measure or iterable of them
        Any registered measures.
    client : distributed.Client, optional
        The cluster (default: the active client).
    retries : int
        How often Dask reruns a group whose worker died (default 2).
    **options
        Passed to :func:`fuzzytruth.evaluation.evaluate`.

    Returns
    -------
    Evaluation
        Truth ``"judgment_groups"``, with the per-group values in ``groups``.
    """
    from fuzzytruth.evaluation.per_annotator import check_groups, combine_groups, evaluate_group

    client = cluster_client(client)
    retries = check_int("retries", retries)
    missing = check_groups(run, qrels_by_group, options)
    options = _without_progress(options)
    shared = broadcast(client, run)
    futures = client.map(
        worker_task(evaluate_group), [shared] * len(qrels_by_group), list(qrels_by_group),
        list(qrels_by_group.values()), measures=measures, options=options, pure=False,
        retries=retries,
    )
    return combine_groups(run, list(qrels_by_group), client.gather(futures), missing=missing)


def _without_progress(options: dict) -> dict:
    """The options for the workers, which draw no progress bar: ``progress=True`` is refused
    rather than ignored (the driver has no loop to draw it over)."""
    progress = options.get("progress")
    if check_flag("progress", progress, none=True):
        raise ValueError(
            "progress=True draws no bar on a cluster, where the workers evaluate the "
            "partitions: watch them on the Dask dashboard (client.dashboard_link) or with "
            "distributed.progress; pass progress=None or False; got progress=True"
        )
    return {**options, "progress": False}


def _gather_as_completed(futures: list) -> list:
    """Results in the futures' order, each fetched as soon as it is ready and then released
    on its worker: a worker holds its running partitions, not all it has finished (its memory
    stays flat as the input grows; the driver holds the result)."""
    from distributed import CancelledError, as_completed

    position = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * len(futures)
    done = as_completed(futures, with_results=True)
    del futures
    for future, result in done:
        if isinstance(result, CancelledError):  # as_completed gives it rather than raising
            raise RuntimeError(
                f"the Dask task {future.key!r} was cancelled (its input was released on the "
                "cluster, or the client closed) before its partition was evaluated"
            ) from result
        results[position[future.key]] = result
        future.release()
    return results


def _run_name(run: Any) -> str:
    return run.name if isinstance(run, Run) else "run"


def _memory_tasks(client: Any, runs: Mapping[str, Run], truth: Any, measures: Any,
                  options: dict, rng: np.random.Generator, npartitions: int) -> list:
    from dask import delayed

    check_runs(runs)
    bound = as_truth(truth, query_categories=options.get("query_categories"))  # checks early
    extra = np.empty(0, dtype=object)
    if options.get("complete") and truth.per_query:
        extra = bound.judged_queries
    parts = split_in_memory(runs, truth, npartitions, extra)
    if not truth.per_query:  # shared by every query: one copy per worker
        shared = broadcast(client, truth)
        parts = [(part_runs, shared) for part_runs, _ in parts]
    return [
        delayed(_evaluate_part, pure=False)(part_runs, part_truth, measures, options,
                                            copy.deepcopy(rng))
        for part_runs, part_truth in parts
    ]


def _frame_results(client: Any, runs: Mapping[str, Any], truth: Any, measures: Any,
                   options: dict, rng: np.random.Generator, repartition: bool,
                   npartitions: int | None, retries: int) -> list:
    """Each partition's result (Evaluation or None, warnings) of frames partitioned by query.

    Frames evaluated as they are (the partitioning not forced) are checked after their tasks,
    which return with their results the distinct query ids of the partitions they read: a
    check before them would read every partition once more. When the partitioning does not
    hold, the results are dropped, every one, and the frames hash-partitioned and evaluated
    again (``repartition``) or it is an error naming the query; the error of a task is raised
    only when the partitioning holds (a query's rows cut in two can fail where whole they do
    not). A truth shared by every query (a Membership: ``per_query`` False) is sent to every
    worker once, and only the runs are partitioned.
    """
    frames = {f"runs[{name!r}]": as_frame(run, f"runs[{name!r}]", RUN_COLUMNS)
              for name, run in runs.items()}
    shared = None
    if not is_frame(truth) and not getattr(truth, "per_query", True):  # a Membership, a model
        as_truth(truth, query_categories=options.get("query_categories"))  # checks early
        shared = broadcast(client, truth)
    else:
        frames["truth"] = as_frame(truth, "truth", TRUTH_COLUMNS)

    def evaluated(frames: dict[str, Any], unchecked: bool) -> list:
        tasks = _frame_tasks(frames, list(runs), shared, measures, options, rng, unchecked)
        return _outcomes(_gather_as_completed(client.compute(tasks, retries=retries)))

    frames, unchecked = aligned_frames(frames, repartition=repartition, npartitions=npartitions)
    results = evaluated(frames, unchecked)
    if not unchecked:
        return results
    uniques = {name: [read[i] for _, read in results] for i, name in enumerate(frames)}
    if needs_repartition(uniques, repartition=repartition):
        del results  # not held beside the second pass's
        return evaluated(hash_partitioned(frames), False)
    for outcome, _ in results:
        if isinstance(outcome, Exception):
            raise outcome
    return [outcome for outcome, _ in results]


def _frame_tasks(frames: dict[str, Any], names: list[str], shared: Any, measures: Any,
                 options: dict, rng: np.random.Generator, unchecked: bool) -> list:
    """One task per partition of the frames (the runs', then the truth's unless it is
    ``shared``), each a one-row frame holding the partition's outcome (:func:`_outcomes`);
    ``unchecked``: the outcome is the result or the error with the partitions' distinct query
    ids (:func:`_evaluate_and_report`).

    The partitions are evaluated by :func:`dask.dataframe.map_partitions`, so that Dask fuses
    the reading of every frame's partition ``i`` into the task that evaluates it: with a task
    per frame partition, the reads of one partition ``i`` ran on different workers in 12 to 17
    of 40 partitions, and their frames (500,000 rows each) were sent from one worker to the
    other (0.5-0.6 s of transfers at 200,000 queries on 2 workers). Dask's tuning step is
    off for this graph: it reads adjacent Parquet files together in proportion to the share
    of their columns read, a different number for frames of different files, and then cut
    one frame's partitions inside queries to align them with another's."""
    import dask
    import dask.dataframe as dd

    evaluate_frames = _evaluate_and_report if unchecked else _evaluate_frames
    outcome = dd.map_partitions(
        _partition_outcome, *frames.values(), evaluate_frames=evaluate_frames, names=names,
        shared=shared, measures=measures, options=options, rng=rng,
        align_dataframes=False, enforce_metadata=False,
        meta=pd.DataFrame({_OUTCOME: pd.Series(dtype=object)}),
    )
    with dask.config.set({"optimization.tune.active": False}):
        return outcome.to_delayed()


_OUTCOME = "outcome"


def _outcomes(parts: list[pd.DataFrame]) -> list:
    """The outcomes held by the one-row frames of :func:`_frame_tasks`, in partition order."""
    return [part[_OUTCOME].iat[0] for part in parts]


@worker_task
def _partition_outcome(*parts: pd.DataFrame, evaluate_frames: Callable, names: list[str],
                       shared: Any, measures: Any, options: dict, rng: np.random.Generator
                       ) -> pd.DataFrame:
    """One partition of every frame (the runs', then the truth's unless ``shared``)
    evaluated by ``evaluate_frames``, its outcome in a one-row frame (a Dask partition)."""
    run_parts = list(parts[:len(names)])
    truth_part = shared if shared is not None else parts[len(names)]
    held = pd.Series([None], dtype=object)
    held.iat[0] = evaluate_frames(names, run_parts, truth_part, measures, options,
                                  copy.deepcopy(rng))
    return pd.DataFrame({_OUTCOME: held})


def _evaluate_and_report(names: list[str], run_parts: list[pd.DataFrame], truth_part: Any,
                         measures: Any, options: dict, rng: np.random.Generator
                         ) -> tuple[tuple[Evaluation | None, list[str]] | Exception,
                                    list[np.ndarray]]:
    """:func:`_evaluate_frames`, its error returned rather than raised, with the distinct
    query ids of each partition read (the runs', then the truth's when it is a frame), for
    the driver to check the partitioning before anything else."""
    parts = [*run_parts, *([truth_part] if isinstance(truth_part, pd.DataFrame) else [])]
    uniques = [unique_queries(part) for part in parts]
    try:
        return _evaluate_frames(names, run_parts, truth_part, measures, options, rng), uniques
    except Exception as error:  # raised on the driver if the partitioning holds
        return error, uniques


def _evaluate_frames(names: list[str], run_parts: list[pd.DataFrame], truth_part: Any,
                     measures: Any, options: dict, rng: np.random.Generator
                     ) -> tuple[Evaluation | None, list[str]]:
    """One partition of frames on a worker; ``truth_part`` is the truth's rows of these
    queries, or the shared truth itself."""
    runs = {}
    for name, part in zip(names, run_parts, strict=True):
        with one_row_per_pair(f"runs[{name!r}]", "Run"):
            runs[name] = Run.from_dataframe(part.reset_index(drop=True), name=name)
    if isinstance(truth_part, pd.DataFrame):
        truth_part = truth_from_frame(truth_part.reset_index(drop=True))
    return _evaluate_part(runs, truth_part, measures, options, rng)


def _judged_only(names: list[str], truth: Any, measures: Any, options: dict,
                 rng: np.random.Generator, done: list[tuple[str, ...]]
                 ) -> tuple[Evaluation | None, list[str]]:
    """``complete=True`` with a truth shared by every query: the queries it judges
    (``query_categories``) that no partition evaluated, as empty lists of every run, once (on
    the driver: no run has a document of them)."""
    categories = options.get("query_categories") or {}
    evaluated = np.concatenate([np.asarray(q, dtype=object) for q in done]
                               + [np.empty(0, dtype=object)]).astype(str)
    keys = np.asarray(list(categories), dtype=object).astype(str)
    rest = ~np.isin(keys, evaluated)
    if not rest.any():
        return None, []
    empty = {name: Run([], [], [], name=name) for name in names}
    options = {**options, "query_categories": dict(itertools.compress(categories.items(),
                                                                      rest))}
    return _evaluate_part(empty, truth, measures, options, rng)


@worker_task
def _evaluate_part(runs: dict[str, Run], truth: Any, measures: Any, options: dict,
                   rng: np.random.Generator) -> tuple[Evaluation | None, list[str]]:
    """One partition on a worker: its Evaluation (None when it has no query to evaluate) and
    the warnings it gave."""
    queries = np.unique(np.concatenate([r._q_uniques for r in runs.values()]).astype(str))
    bound = as_truth(
        truth, query_categories=options.get("query_categories"),
        weights=options.get("weights", "direct"),
        exclude_query=options.get("exclude_query", True),
    )
    judged = options.get("complete") and len(bound.judged_queries)
    if not judged and not bound.answerable(queries).any():
        if options.get("missing", "skip") == "error" and len(queries):
            evaluate_in_memory(runs, truth, measures, rng=rng, **options)  # raises its error
        lost = [] if not len(queries) else [bound.missing_message(queries.tolist())]
        return None, [f"{m}: not evaluated (missing='skip')" for m in lost]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluation = evaluate_in_memory(runs, truth, measures, rng=rng, **options)
    return evaluation, [str(w.message) for w in caught]
