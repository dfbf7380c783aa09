"""Evaluation against crisp qrels: per-query values first, aggregates second.

:func:`evaluate_crisp` is the crisp core (one ground truth); :func:`evaluate_per_annotator`
scores a run against each annotator's (judgment group's) own qrels and averages over them, as
trec_eval's ``-R qrels_jg`` measures (``map_avgjg`` = mean over annotators of per-annotator AP).

Which queries count (trec_eval's rules by default):

* ``missing="skip"``: only queries in both the run and the qrels; ``missing="zero"``: every
  query of the qrels, those missing from the run scoring as an empty list (0 for every measure
  here), like ``trec_eval -c``.
* ``no_relevant="skip"``: queries without a relevant document (grade >= the relevance
  threshold) are dropped; ``no_relevant="zero"``: they are kept and their undefined values are
  0 (the per-query values pytrec_eval prints).

Examples
--------
>>> from fuzzytruth.runs import Qrels, Run
>>> run = Run(["q1"] * 4 + ["q2"] * 2, list("abcdab"), [4, 3, 2, 1, 2, 1])
>>> qrels = Qrels(["q1", "q1", "q2"], ["a", "c", "b"], [1, 2, 1])
>>> res = evaluate_crisp(run, qrels, ["P@2", "AP", "nDCG@3"])
>>> res.per_query.head(3)
  query_id measure     value
0       q1     P@2  0.500000
1       q2     P@2  0.500000
2       q1      AP  0.833333
>>> res.aggregate
  measure     value  n_queries
0     P@2  0.500000          2
1      AP  0.666667          2
2  nDCG@3  0.695559          2
>>> res["AP"]
0.6666666666666666
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth.measures import Measure, Preset, get_preset, parse_measures
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.runs import Qrels, Run, ranked_gains

__all__ = ["CrispResult", "compute_measures", "evaluate_crisp", "evaluate_per_annotator"]

MISSING = ("skip", "zero")
NO_RELEVANT = ("skip", "zero")


@dataclass(frozen=True)
class CrispResult:
    """Result of a crisp evaluation.

    Attributes
    ----------
    per_query : pandas.DataFrame
        Tidy table with columns ``query_id``, ``measure``, ``value`` (plus ``group`` for
        per-annotator values), measure names as the user spelled them in canonical form.
    aggregate : pandas.DataFrame
        ``measure``, ``value`` (arithmetic mean over queries), ``n_queries``.
    conventions : dict
        Everything that fixes the numbers: the preset, the tie policy, the score precision, the
        query rules and each measure with all its parameters resolved.
    """

    per_query: pd.DataFrame
    aggregate: pd.DataFrame
    conventions: dict[str, Any]

    def __getitem__(self, measure: str | Measure) -> float:
        """Aggregate value of ``measure`` (as spelled in the evaluation)."""
        name = str(measure)
        row = self.aggregate.loc[self.aggregate["measure"] == name, "value"]
        if row.empty:
            raise ValueError(
                f"measure must be one of {self.aggregate['measure'].tolist()}; got {name!r}"
            )
        return float(row.iloc[0])


def compute_measures(
    rg: RankedGains, measures: Iterable[str | Measure], *, preset: str | Preset = "trec"
) -> pd.DataFrame:
    """Compute resolved measures on ranked gains: a wide (n_queries, n_measures) DataFrame.

    Parameters
    ----------
    rg : RankedGains
        Output of :func:`fuzzytruth.runs.ranked_gains`.
    measures : iterable of str or Measure
        Measures; unset parameters come from ``preset``.
    preset : str or Preset, default "trec"
        Conventions.

    Returns
    -------
    pandas.DataFrame
        Indexed by query id, one column per measure (its spelling as given, canonicalised);
        NaN where a value is undefined.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1]])
    >>> compute_measures(rg, ["P@2", "R@3"])
         P@2  R@3
    q    0.5  1.0
    """
    ms = parse_measures(measures)
    values = {str(m): m.resolve(preset).compute(rg) for m in ms}
    return pd.DataFrame(values, index=pd.Index(rg.query_ids, name=None))


def _tidy(wide: pd.DataFrame) -> pd.DataFrame:
    n_q, n_m = wide.shape
    return pd.DataFrame(
        {
            "query_id": np.tile(np.asarray(wide.index, dtype=object), n_m),
            "measure": np.repeat(np.asarray(wide.columns, dtype=object), n_q),
            "value": wide.to_numpy().T.reshape(-1),
        }
    )


def _aggregate(per_query: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    grouped = per_query.groupby("measure", sort=False)["value"]
    agg = pd.DataFrame({"value": grouped.mean(), "n_queries": grouped.count()})
    agg = agg.reindex(order)
    agg["n_queries"] = agg["n_queries"].fillna(0).astype(np.int64)
    return agg.rename_axis("measure").reset_index()


def _conventions(
    preset: Preset, ms: list[Measure], ties: str, score_dtype: str, threshold: float, **rules: Any
) -> dict[str, Any]:
    return {
        "preset": preset.as_dict(),
        "ties": ties,
        "score_dtype": score_dtype,
        "relevance_threshold": threshold,
        **rules,
        "measures": {str(m): str(m.resolve(preset)) for m in ms},
    }


def _prepare(
    preset: str | Preset,
    ties: str | None,
    score_dtype: str | None,
    relevance_threshold: float | None,
    missing: str,
    no_relevant: str,
) -> tuple[Preset, str, str, float]:
    p = get_preset(preset)
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {list(MISSING)}; got {missing!r}")
    if no_relevant not in NO_RELEVANT:
        raise ValueError(f"no_relevant must be one of {list(NO_RELEVANT)}; got {no_relevant!r}")
    threshold = relevance_threshold if relevance_threshold is not None else p.params.get("rel", 1)
    return p, ties or p.ties, score_dtype or p.score_dtype, float(threshold)


def _evaluate_wide(
    run: Run,
    qrels: Qrels,
    ms: list[Measure],
    p: Preset,
    ties: str,
    score_dtype: str,
    threshold: float,
    missing: str,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Wide per-query values (NaN where undefined) and which queries have a relevant doc."""
    rg = ranked_gains(
        run,
        qrels,
        ties=ties,
        score_dtype=score_dtype,
        queries="qrels" if missing == "zero" else "intersection",
    )
    return compute_measures(rg, ms, preset=p), rg.n_relevant(threshold) > 0


def evaluate_crisp(
    run: Run,
    qrels: Qrels,
    measures: str | Measure | Iterable[str | Measure],
    *,
    preset: str | Preset = "trec",
    ties: str | None = None,
    score_dtype: str | None = None,
    relevance_threshold: float | None = None,
    missing: str = "skip",
    no_relevant: str = "skip",
) -> CrispResult:
    """Evaluate ``run`` against crisp ``qrels``.

    Parameters
    ----------
    run : Run
        The ranked lists.
    qrels : Qrels
        The judgments.
    measures : str, Measure or iterable of them
        E.g. ``["nDCG@10", "AP", "P@10", "R@100"]``.
    preset : str or Preset, default "trec"
        Conventions for unset measure parameters, ties and score precision.
    ties : {"docid_desc", "input_order", "average"}, optional
        Overrides the preset's tie policy.
    score_dtype : {"float64", "float32"}, optional
        Overrides the preset's score precision.
    relevance_threshold : float, optional
        Grade at which a query counts as having a relevant document (for ``no_relevant``);
        defaults to the preset's ``rel``. Set each measure's own threshold with ``rel=``.
    missing : {"skip", "zero"}, default "skip"
        Queries of the qrels missing from the run: dropped, or scored as empty lists
        (trec_eval ``-c``).
    no_relevant : {"skip", "zero"}, default "skip"
        Queries with no relevant document: dropped, or kept with undefined values set to 0.

    Returns
    -------
    CrispResult
        ``per_query`` (tidy), ``aggregate`` (mean over queries) and ``conventions``.
    """
    ms = parse_measures(measures)
    p, ties, score_dtype, threshold = _prepare(
        preset, ties, score_dtype, relevance_threshold, missing, no_relevant
    )
    wide, has_rel = _evaluate_wide(run, qrels, ms, p, ties, score_dtype, threshold, missing)
    wide = wide.loc[has_rel] if no_relevant == "skip" else wide.fillna(0.0)
    per_query = _tidy(wide)
    return CrispResult(
        per_query=per_query,
        aggregate=_aggregate(per_query, [str(m) for m in ms]),
        conventions=_conventions(
            p, ms, ties, score_dtype, threshold, missing=missing, no_relevant=no_relevant,
            run=run.name,
        ),
    )


def evaluate_per_annotator(
    run: Run,
    qrels_by_group: Mapping[str, Qrels],
    measures: str | Measure | Iterable[str | Measure],
    *,
    preset: str | Preset = "trec",
    ties: str | None = None,
    score_dtype: str | None = None,
    relevance_threshold: float | None = None,
) -> CrispResult:
    """Score ``run`` against each judgment group's own qrels, then average over groups.

    For each query, the value is the mean over the judgment groups that judged that query of
    the group's value, a group without a relevant document for the query contributing 0
    (trec_eval's ``map_avgjg``, ``P_avgjg``...). Queries in the run and in at least one group
    with a relevant document are scored; the aggregate is the mean over those queries.

    Parameters
    ----------
    run : Run
        The ranked lists.
    qrels_by_group : mapping of str to Qrels
        One qrels per judgment group (annotator), e.g. from
        :func:`fuzzytruth.io.read_trec_qrels_jg` or :meth:`Qrels.from_judgment_groups`.
    measures : str, Measure or iterable of them
        Any registered measures.
    preset, ties, score_dtype, relevance_threshold
        As in :func:`evaluate_crisp`.

    Returns
    -------
    CrispResult
        ``per_query`` has columns ``query_id``, ``group``, ``measure``, ``value``: one row per
        (query, group, measure) with that group's value, and rows with ``group == "mean"``
        holding the mean over groups; ``aggregate`` is the mean of those over queries.

    Examples
    --------
    >>> from fuzzytruth.runs import Qrels, Run
    >>> run = Run(["q"] * 3, ["a", "b", "c"], [3, 2, 1])
    >>> groups = {"1": Qrels(["q", "q"], ["a", "b"], [1, 0]),
    ...           "2": Qrels(["q", "q"], ["b", "c"], [1, 1])}
    >>> res = evaluate_per_annotator(run, groups, "AP")
    >>> res.per_query
      query_id group measure     value
    0        q     1      AP  1.000000
    1        q     2      AP  0.583333
    2        q  mean      AP  0.791667
    >>> res["AP"]
    0.7916666666666666
    """
    if not isinstance(qrels_by_group, Mapping) or not qrels_by_group:
        raise ValueError(
            "qrels_by_group must be a non-empty mapping of group id to Qrels; "
            f"got {type(qrels_by_group).__name__}"
        )
    ms = parse_measures(measures)
    p, ties, score_dtype, threshold = _prepare(
        preset, ties, score_dtype, relevance_threshold, "skip", "zero"
    )
    parts = []
    for group, qrels in qrels_by_group.items():
        wide, has_rel = _evaluate_wide(run, qrels, ms, p, ties, score_dtype, threshold, "skip")
        tidy = _tidy(wide.fillna(0.0))
        tidy.insert(1, "group", str(group))
        tidy["_has_rel"] = np.tile(has_rel, len(ms))
        parts.append(tidy)
    per_group = pd.concat(parts, ignore_index=True)
    scored = per_group.groupby("query_id")["_has_rel"].transform("any")
    per_group = per_group.loc[scored].drop(columns="_has_rel")
    means = per_group.groupby(["query_id", "measure"], sort=False)["value"].mean().reset_index()
    means.insert(1, "group", "mean")
    order = {str(m): i for i, m in enumerate(ms)}
    per_query = pd.concat([per_group, means], ignore_index=True)
    per_query = per_query.sort_values(
        ["measure", "query_id", "group"],
        key=lambda c: c.map(order) if c.name == "measure" else c,
        kind="stable",
    ).reset_index(drop=True)
    return CrispResult(
        per_query=per_query,
        aggregate=_aggregate(means.drop(columns="group"), [str(m) for m in ms]),
        conventions=_conventions(
            p, ms, ties, score_dtype, threshold, missing="skip", no_relevant="per_group_zero",
            groups=[str(g) for g in qrels_by_group], run=run.name,
        ),
    )
