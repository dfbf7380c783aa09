"""The bundled image collection end to end: what ``fuzzytruth demo`` and ``make demo`` run.

Three systems (strong, medium, weak) answer 100 query-by-example queries on a simulated
500-image collection labelled by 5–7 annotators each (:func:`fuzzytruth.datasets.image_collection`).
The demo evaluates them under the annotators' uncertain truth (distributions per query, and
each system's mean with its interval over queries and its spread over ground-truth worlds
shared by all systems), compares them pairwise with :func:`fuzzytruth.stats.compare`'s
default procedure, flags unreliable categories, writes a report, tables and figures into a
folder, and prints the report. Every statement in the report about what was computed (the
procedure, estimand, B, number of worlds) is read off the result objects by
:mod:`fuzzytruth.report`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

MEASURES = ("P@10", "AP", "nDCG@10", "R@100")
FIGURE_FORMATS = ("png", "pdf")
_RELIABILITY_COLUMNS = ["mean_membership", "closed_kappa", "ambiguous_share"]


def run_demo(
    out: str | Path,
    *,
    figure_format: str = "png",
    n_worlds: int = 500,
    seed: int = 0,
    stream: TextIO | None = None,
) -> dict[str, Any]:
    """Run the demo, write ``report.md``, CSV tables and figures into ``out``, print the report.

    Parameters
    ----------
    out : path-like
        Output folder (created if missing).
    figure_format : {"png", "pdf"}
        Format of the figures.
    n_worlds : int
        Ground-truth worlds sampled from the annotators.
    seed : int
        Seed passed to :func:`~fuzzytruth.evaluate` and :func:`~fuzzytruth.stats.compare`.
    stream : text stream, optional
        Where the report is printed (default: stdout).

    Returns
    -------
    dict
        The evaluation, comparison and reliability objects, the report's text, and the paths
        written.
    """
    from matplotlib.figure import Figure  # no pyplot: the user's backend is left alone

    from fuzzytruth._validation import check_choice, check_int
    from fuzzytruth.collection import category_reliability
    from fuzzytruth.datasets import image_collection
    from fuzzytruth.evaluation.engine import evaluate
    from fuzzytruth.plots import (
        plot_agreement_heatmap,
        plot_forest,
        plot_query_distribution,
        plot_system_intervals,
        plot_system_pr,
        system_pr_measures,
    )
    from fuzzytruth.stats import compare

    check_choice("figure_format", figure_format, FIGURE_FORMATS)
    seed = check_int("seed", seed)  # by its own name: evaluate's message would say 'rng'
    stream = stream or sys.stdout
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    collection = image_collection()
    runs = collection.run_objects()

    evaluation = evaluate(runs, collection.membership, list(MEASURES), n_worlds=n_worlds, rng=seed)
    curves = evaluate(
        runs, collection.membership, system_pr_measures(), n_worlds=n_worlds, rng=seed
    )
    comparison = compare(evaluation, rng=seed)
    reliability = category_reliability(collection.annotations).to_frame()

    paths: dict[str, Path] = {}
    for name, frame in (
        ("evaluation_per_query", evaluation.to_frame()),
        ("evaluation_aggregate", evaluation.aggregate()),
        ("comparison", comparison.table),
        ("comparison_systems", comparison.systems),
        ("category_reliability", reliability),
    ):
        paths[name] = folder / f"{name}.csv"
        frame.to_csv(paths[name], index=False)

    query, system = evaluation.queries[0], evaluation.systems[0]
    figures = {
        "precision_pmf": (
            lambda ax: plot_query_distribution(evaluation, system, query, "P@10", ax=ax),
            (7, 4.5),
            f"the distribution of P@10 of {system} on query {query} under the annotators' "
            "uncertain truth; the bracket is its equal-tailed interval, the bars inside it "
            "coloured.",
        ),
        "system_intervals": (
            lambda ax: plot_system_intervals(evaluation, ax=ax),
            (7, 6),
            "each system's mean over queries: thick whisker its interval over queries, grey "
            "bar its spread over the sampled truths (see the table above).",
        ),
        "pr_curves": (
            lambda ax: plot_system_pr(curves, ax=ax),
            (7, 4.5),
            "interpolated precision at 11 recall levels, mean over queries; bands: the "
            "spread over the sampled truths.",
        ),
        "forest": (
            lambda ax: plot_forest(comparison, ax=ax),
            (7, 5),
            "paired differences with their intervals (the comparison table above).",
        ),
        "category_reliability": (
            lambda ax: plot_agreement_heatmap(reliability, columns=_RELIABILITY_COLUMNS, ax=ax),
            (7, 8),
            "per-category reliability: blue columns higher is better, orange higher is "
            "worse; * marks the categories flagged ambiguous.",
        ),
    }
    captions = {}
    for name, (draw, size, caption) in figures.items():
        fig = Figure(figsize=size)
        draw(fig.subplots())
        fig.tight_layout()
        paths[name] = folder / f"{name}.{figure_format}"
        fig.savefig(paths[name])
        captions[paths[name].name] = caption

    report = demo_report(
        description=collection.description,
        evaluation=evaluation,
        comparison=comparison,
        reliability=reliability,
        figures=captions,
    )
    paths["report"] = folder / "report.md"
    paths["report"].write_text(report)
    stream.write(report + f"\nWritten to {folder}/\n")
    return {
        "evaluation": evaluation,
        "comparison": comparison,
        "reliability": reliability,
        "report": report,
        "paths": paths,
    }


def demo_report(
    *,
    description: str,
    evaluation: Any,
    comparison: Any,
    reliability: pd.DataFrame,
    figures: Mapping[str, str],
    per_query_rows: int = 12,
) -> str:
    """The demo's report in Markdown, every setting read off the result objects (the seeds
    too: :attr:`Evaluation.seed <fuzzytruth.evaluation.Evaluation.seed>`,
    :attr:`Comparison.draws <fuzzytruth.stats.Comparison.draws>`).

    Parameters
    ----------
    description : str
        What the collection is.
    evaluation : Evaluation
        The evaluation the comparison was computed from.
    comparison : Comparison
        Its pairwise comparison.
    reliability : pandas.DataFrame
        :func:`~fuzzytruth.collection.category_reliability`'s table.
    figures : mapping of str to str
        File name -> caption of each figure written beside the report.
    per_query_rows : int
        Rows of the per-query table shown.

    Returns
    -------
    str
    """
    from fuzzytruth.report import (
        comparison_notes,
        comparison_table,
        describe_comparison,
        drop_empty_columns,
        percent,
        seed_text,
        system_notes,
        system_table,
    )
    from fuzzytruth.truth.protocol import TruthKind

    aggregate = evaluation.aggregate()
    per_query = evaluation.to_frame()
    level = percent(evaluation.confidence_level)
    settings = [f"{len(evaluation.queries)} queries", f"{len(evaluation.systems)} systems"]
    if evaluation.n_worlds:
        # the world model applies to a categorical truth (membership from annotations)
        categorical = evaluation.truth is TruthKind.CATEGORICAL
        model = evaluation.conventions.get("world_model") if categorical else None
        settings.append(
            f"{evaluation.n_worlds} ground-truth worlds"
            + (f" ({model} model)" if model else "")
            + f", shared by every system ({seed_text(evaluation.seed)})"
        )
    settings.append(f"truth: {evaluation.truth}")
    lines = [
        "# fuzzytruth demo: systems compared under an uncertain ground truth",
        "",
        description,
        "",
        "Settings: " + "; ".join(settings) + ".",
        "",
        "## Each system's mean over queries, with two intervals",
        "",
        "```",
        system_table(aggregate).to_string(index=False),
        "```",
        "",
        *(f"- {note}" for note in system_notes(aggregate, n_worlds=evaluation.n_worlds)),
        "",
        "Two systems' intervals over queries may overlap while the paired difference below "
        "excludes 0: pairing removes the difficulty the queries share.",
        "",
        f"## Per-query distributions (first {per_query_rows} rows of {len(per_query)})",
        "",
        f"Each row: one query's value under the uncertain truth, its mean, standard deviation "
        f"and {level} equal-tailed interval over the truths consistent with the annotators' "
        "labels (`method`: exact distribution, or sampled worlds).",
        "",
        "```",
        drop_empty_columns(
            per_query.head(per_query_rows).drop(columns="confidence_level")  # in the text
        ).to_string(index=False, float_format=lambda v: f"{v:.3f}"),
        "```",
        "",
        f"## Pairwise comparison: {describe_comparison(comparison).split(',')[0]}",
        "",
        describe_comparison(comparison)[0].upper() + describe_comparison(comparison)[1:],
        "",
    ]
    for measure in pd.unique(comparison.table["measure"]):
        lines += [f"[{measure}]", "```", comparison_table(comparison, measure).to_string(
            index=False), "```", ""]
    lines += [*(f"- {note}" for note in comparison_notes(comparison)), ""]
    flagged = reliability.loc[reliability["ambiguous"], "category"].astype(str).tolist()
    lines += [
        "## Categories",
        "",
        "Too ambiguous to use as queries (flagged by category_reliability): "
        + (", ".join(flagged) or "none") + ".",
        "",
        "## Figures",
        "",
        *(f"- `{name}`: {caption}" for name, caption in figures.items()),
    ]
    return "\n".join(lines) + "\n"
