"""Precision and recall at every cutoff of every list, exactly: the P–R curve as bands."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._progress import track
from fuzzytruth._validation import check_choice, check_confidence_level
from fuzzytruth.evaluation.engine import (
    MISSING,
    evaluated_queries,
    exact_input,
    rank_runs,
)
from fuzzytruth.evaluation.undefined import Undefined
from fuzzytruth.measures import Measure, Preset, get_preset
from fuzzytruth.runs import Run
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.membership import Membership
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.truth.protocol import as_truth, estimand_label
from fuzzytruth.uncertain.closed_form import RECALL_FORMS
from fuzzytruth.uncertain.cutoffs import SUMMARIES, TRUTH_COLUMNS, cutoff_summaries

__all__ = ["precision_recall_bands"]


_BAND_WORK = 2e7  # (component, cutoff, FN atom) steps per block of P-R bands: ~0.05 s


def precision_recall_bands(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels | Any,
    *,
    preset: str | Preset = "trec",
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    undefined: str = "zero",
    missing: str = "skip",
    ties: str | None = None,
    score_dtype: str | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Precision and recall at every cutoff of every list, exactly: the P–R curve as bands.

    Arguments as in :func:`evaluate` (the truth: a Membership, a ProbabilisticQrels or a fitted
    truth model whose worlds are independent items; relevance threshold: the preset's ``rel``;
    ``undefined`` applies to recall without any relevant document as everywhere else). The
    values are the
    ``P@k`` and ``R@k`` families' exact distributions at every cutoff k, mixed over each
    query's categories, so a band equals the per-cutoff measure of :func:`evaluate`; they are
    summarised for all cutoffs at once without listing the distributions' atoms
    (:mod:`fuzzytruth.uncertain.cutoffs`). The ranking must be a strict order (no
    tie-averaged policy). ``progress`` draws a bar over blocks of queries (by default only
    when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        ``system, query_id, cutoff, measure ("precision" or "recall"), mean, truth_std,
        truth_low, truth_high, confidence_level, p_undefined, method, estimand``: each value's
        mean, standard deviation and central interval over the truths, named as in
        :meth:`Evaluation.to_frame <fuzzytruth.evaluation.Evaluation.to_frame>`; the estimand as
        :func:`evaluate` names it, ``"collection"`` with the truth model of a fit
        (``"collection (truth model: irn)"``): the bands are the spread of each value over
        this collection's truth under that model.

    Examples
    --------
    >>> pq = ProbabilisticQrels(["q", "q"], ["a", "b"], [1.0, 0.5])
    >>> bands = precision_recall_bands(Run(["q", "q"], ["a", "b"], [2.0, 1.0]), pq)
    >>> bands[["cutoff", "measure", "mean"]]
       cutoff    measure  mean
    0       1  precision  1.00
    1       2  precision  0.75
    2       1     recall  0.75
    3       2     recall  1.00
    """
    check_choice("missing", missing, MISSING)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    undefined = Undefined.of(undefined)
    confidence_level = check_confidence_level(confidence_level)
    p = get_preset(preset)
    ties = ties or p.ties
    if ties == "average":
        raise ValueError("precision_recall_bands needs a strict ranking; got ties='average'")
    bound = as_truth(
        truth, query_categories=query_categories, weights=weights, exclude_query=exclude_query
    )
    if bound.kind.crisp:
        raise ValueError(
            "truth must be uncertain (a Membership, a fitted truth model or a "
            f"ProbabilisticQrels); use evaluate() for a {bound.kind} truth"
        )
    if not bound.independent:
        raise ValueError(
            f"precision_recall_bands is exact, and the worlds of the {bound.truth_model} truth "
            "draw shared parameters, which no closed form describes: fit the model with "
            "uncertainty='posterior' for the bands of its fitted posterior, or evaluate P@k and "
            "R@k with evaluate() (from the worlds)"
        )
    estimand = estimand_label("collection", bound.truth_model)
    rankings = rank_runs(runs, ties, score_dtype or p.score_dtype)
    queries = evaluated_queries(rankings, bound, missing, complete=False)
    prepared = bound.prepare(queries)
    rel = float(p.params.get("rel", 1))
    undefined_value = Measure("R").family.undefined_value
    q_of_comp, _, comp_weight = prepared.components
    comp_start = np.searchsorted(q_of_comp, np.arange(len(queries) + 1))
    parts = []
    for system, (ranking, run) in rankings.items():
        docs = prepared.doc_index(ranking.on(queries), run)
        ctx = exact_input(prepared, docs, recall_form)
        probabilities = ctx.probabilities(rel)
        rest_p, certain = ctx.rest(rel)
        depth = probabilities.shape[1]
        work = np.diff(comp_start) * depth * (depth + rest_p.shape[1] + 1.0)
        n_blocks = max(1, min(len(queries), int(np.ceil(work.sum() / _BAND_WORK))))
        blocks = track(
            np.array_split(np.arange(len(queries)), n_blocks), total=n_blocks,
            desc=f"P-R bands {system}", unit="block", progress=progress,
        )
        summaries: dict[str, list[dict[str, np.ndarray]]] = {"precision": [], "recall": []}
        for block in blocks:  # blocks of queries: only for the progress bar, same numbers
            rows = slice(comp_start[block[0]], comp_start[block[-1] + 1])
            out = cutoff_summaries(
                probabilities[rows], comp_start[block[0] : block[-1] + 2] - rows.start,
                comp_weight[rows], rest_p[rows], certain[rows], ctx.expected_size()[rows],
                recall_form=recall_form, fill_undefined=undefined.fills(undefined_value),
                undefined_value=undefined_value,
                confidence_level=confidence_level,
            )
            for measure in summaries:
                summaries[measure].append(out[measure])
        for measure, pieces in summaries.items():
            columns = {
                name: np.concatenate([piece[name] for piece in pieces]).ravel()
                for name in SUMMARIES
            }
            parts.append(
                pd.DataFrame(
                    {
                        "system": system,
                        "query_id": np.repeat(queries, depth),
                        "cutoff": np.tile(np.arange(1, depth + 1), len(queries)),
                        "measure": measure,
                        "mean": columns["mean"],
                        **{column: columns[n] for n, column in TRUTH_COLUMNS.items()},
                        "confidence_level": confidence_level,
                        "p_undefined": columns["p_undefined"],
                        "method": "exact",
                        "estimand": estimand,
                    }
                )
            )
    if not parts:
        raise ValueError(f"no system to evaluate; got {_show(list(rankings))}")
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values(
        ["system", "measure", "query_id", "cutoff"],
        key=lambda c: c.map({n: i for i, n in enumerate(rankings)}) if c.name == "system" else c,
        kind="stable",
    ).reset_index(drop=True)
