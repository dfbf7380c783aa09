"""Crisp helpers on top of :func:`fuzzytruth.evaluation`: kernels on ranked gains, and the
per-annotator (judgment-group) evaluation of trec_eval's ``-R qrels_jg``.

Crisp evaluation itself is :func:`fuzzytruth.evaluation` with a :class:`~fuzzytruth.runs.Qrels`
truth: there is one path, and these functions are views of it.

Examples
--------
>>> from fuzzytruth import Qrels, Run
>>> run = Run(["q"] * 3, ["a", "b", "c"], [3, 2, 1])
>>> groups = {"1": Qrels(["q", "q"], ["a", "b"], [1, 0]),
...           "2": Qrels(["q", "q"], ["b", "c"], [1, 1])}
>>> ev = evaluate_per_annotator(run, groups, "AP")
>>> ev.groups
  query_id group measure     value
0        q     1      AP  1.000000
1        q     2      AP  0.583333
>>> ev.value("run", "AP")
0.7916666666666666
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, check_flag, id_text, text_names
from fuzzytruth._warnings import warn
from fuzzytruth.evaluation.engine import MISSING, UNANSWERED, evaluate, warn_if_unanswered
from fuzzytruth.evaluation.result import Evaluation
from fuzzytruth.measures import Measure, Preset, parse_measures
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Run, run_hint
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.judged_pairs import NONE_JUDGED
from fuzzytruth.truth.protocol import TruthKind
from fuzzytruth.truth.qrels import Qrels
from fuzzytruth.uncertain.batch import DistributionBatch

__all__ = ["compute_measures", "evaluate_per_annotator"]


def compute_measures(
    rg: RankedGains, measures: Iterable[str | Measure], *, preset: str | Preset = "trec"
) -> pd.DataFrame:
    """Run resolved measures' kernels on ranked gains: a wide (n_queries, n_measures) table.

    The kernel level, below the rules of :func:`fuzzytruth.evaluation`: NaN where a value is
    undefined.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1]])
    >>> compute_measures(rg, ["P@2", "R@3"])
       P@2  R@3
    q  0.5  1.0
    """
    ms = parse_measures(measures)
    values = {str(m): m.resolve(preset).compute(rg) for m in ms}
    return pd.DataFrame(values, index=pd.Index(rg.query_ids, name=None))


def evaluate_per_annotator(
    run: Run,
    qrels_by_group: Mapping[str, Qrels],
    measures: str | Measure | Iterable[str | Measure],
    **options: Any,
) -> Evaluation:
    """Score ``run`` against each judgment group's own qrels, then average over groups.

    Each group is evaluated by :func:`fuzzytruth.evaluation` with the same ``options`` (preset,
    ``undefined``...). A query's value is the mean over the groups that judged it of the
    group's value — with the default ``undefined="zero"`` a group without a relevant document
    contributes 0, as trec_eval's ``map_avgjg`` (``m_map_avgjg.c``); with ``"skip"`` it is left
    out. The result is an :class:`~fuzzytruth.evaluation.Evaluation` of those means (truth
    ``"judgment_groups"``), with the per-group values in its ``groups`` table.

    Groups judge some queries only, so ``missing`` applies across them: a query of the run
    that no group judges is not evaluated, with a warning (``"skip"``, trec_eval) or an error
    (``"error"``); a query that some group judges is evaluated by those groups.

    Parameters
    ----------
    run : Run
        The ranked lists.
    qrels_by_group : mapping of str to Qrels
        One qrels per judgment group (annotator), e.g. from
        :func:`fuzzytruth.io.read_trec_qrels_jg` or :meth:`Qrels.from_judgment_groups`.
    measures : str, Measure or iterable of them
        Any registered measures.
    **options
        Passed to :func:`fuzzytruth.evaluation`.

    Returns
    -------
    Evaluation
    """
    missing = check_groups(run, qrels_by_group, options)
    results = [
        evaluate_group(run, group, qrels, measures, options)
        for group, qrels in qrels_by_group.items()
    ]
    return combine_groups(run, list(qrels_by_group), results, missing=missing)


def check_groups(run: Any, qrels_by_group: Any, options: Mapping[str, Any]) -> str:
    """``run`` must be a Run and ``qrels_by_group`` a non-empty mapping of group id to Qrels;
    return the ``missing`` option of ``options``, applied across the groups (a query of the
    run that no group judges: a warning, or an error)."""
    if not isinstance(run, Run):
        raise ValueError(f"run must be a Run; got {type(run).__name__}{run_hint(run)}")
    if not isinstance(qrels_by_group, Mapping) or not qrels_by_group:
        raise ValueError(
            "qrels_by_group must be a non-empty mapping of group id to Qrels; "
            f"got {type(qrels_by_group).__name__}"
        )
    for group, qrels in qrels_by_group.items():
        if not isinstance(qrels, Qrels):
            raise ValueError(
                f"qrels_by_group[{group!r}] must be a Qrels; got {type(qrels).__name__}"
            )
    text_names(qrels_by_group, "qrels_by_group", "group")  # groups 1 and "1": one name
    missing = check_choice("missing", options.get("missing", "skip"), MISSING)
    judged = set().union(*(qrels.queries for qrels in qrels_by_group.values()))
    lost = sorted(set(run.queries) - judged)
    if lost:
        message = f"query(ies) {_show(lost)} of the run are judged by no group"
        if missing == "error":
            raise ValueError(f"{message} (missing='error')")
        warn(f"{message}: {len(lost)} query(ies) not evaluated, as trec_eval does "
             "(missing='skip')", UserWarning)
    if not check_flag("complete", options.get("complete", False)):  # once, not per group
        warn_if_unanswered(np.array(list(judged), dtype=object),
                           np.asarray(run.queries, dtype=object))
    return missing


def evaluate_group(
    run: Run, group: Any, qrels: Qrels, measures: Any, options: dict
) -> tuple[Evaluation, pd.DataFrame] | None:
    """One judgment group: its Evaluation and its ``query_id, group, measure, value`` rows
    (None when the group judges no query of the run and ``complete`` does not ask for the
    judged queries the run left unanswered). The unit of work, in memory or on a Dask worker
    (:func:`fuzzytruth.distributed.evaluate_per_annotator`). A group judges only some
    queries: it skips the others, which :func:`check_groups` checked across the groups."""
    complete = check_flag("complete", options.get("complete", False))
    if not complete and not set(run.queries) & set(qrels.queries):
        return None
    with warnings.catch_warnings(record=True) as said:
        warnings.filterwarnings("ignore", message=r".*not evaluated, as trec_eval does")
        warnings.filterwarnings("ignore", message=rf".*{re.escape(UNANSWERED)}")
        # kept, never raised here: only if every group says it is it said (combine_groups)
        warnings.filterwarnings("always", message=rf".*{re.escape(NONE_JUDGED)}")
        ev = evaluate(run, qrels, measures, **{**options, "missing": "skip"})
    unjudged = [w for w in said if NONE_JUDGED in str(w.message)]
    for w in said:  # the others as they were said; this one by combine_groups, for all groups
        if w not in unjudged:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    frame = ev.to_frame()[["query_id", "measure", "mean"]].rename(columns={"mean": "value"})
    frame.insert(1, "group", id_text(group, "group"))
    frame.attrs["unjudged"] = str(unjudged[0].message) if unjudged else ""
    return ev, frame


def combine_groups(
    run: Run, names: list[Any], results: list[tuple[Evaluation, pd.DataFrame] | None], *,
    missing: str,
) -> Evaluation:
    """The per-annotator Evaluation from the groups' results, in the groups' order
    (``missing`` as :func:`check_groups` returned it, recorded in the conventions)."""
    kept = [r for r in results if r is not None]
    if not kept:
        raise ValueError("no query of the run is judged by any group")
    said = [frame.attrs.get("unjudged", "") for _, frame in kept]
    if all(said):  # a group need not judge what the run retrieves; every group, that is news
        warn(said[0].replace(NONE_JUDGED, f"{NONE_JUDGED} of any judgment group", 1),
             UserWarning)
    first = kept[0][0]
    groups = pd.concat([frame for _, frame in kept], ignore_index=True)
    # mean over the groups that judged the query (NaN values, undefined under "skip", left out)
    means = groups.groupby(["measure", "query_id"], sort=False)["value"].mean()
    queries = tuple(sorted(groups["query_id"].unique()))
    batches = {
        (run.name, m): DistributionBatch.from_points(
            means.loc[m].reindex(list(queries)).to_numpy(dtype=float)
        )
        for m in first.measures
    }
    order = {m: i for i, m in enumerate(first.measures)}
    groups = groups.sort_values(
        ["measure", "query_id", "group"],
        key=lambda c: c.map(order) if c.name == "measure" else c,
        kind="stable",
    ).reset_index(drop=True)
    return Evaluation(
        systems=(run.name,),
        queries=queries,
        measures=first.measures,
        truth=TruthKind.JUDGMENT_GROUPS,
        undefined=first.undefined,
        conventions={**first.conventions, "missing": missing,
                     "groups": [id_text(g, "group") for g in names]},
        confidence_level=first.confidence_level,
        families={m: first.family(m) for m in first.measures},
        batches=batches,
        methods=dict.fromkeys(batches, "crisp"),
        counted={m: np.ones(len(queries), dtype=bool) for m in first.measures},
        groups=groups,
    )
