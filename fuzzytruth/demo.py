"""The bundled image collection end to end: what ``fuzzytruth demo`` and ``make demo`` run.

Three systems (strong, medium, weak) answer 100 query-by-example queries on a simulated
500-image collection labelled by 5–7 annotators each (:func:`fuzzytruth.datasets.image_collection`).
The demo evaluates them under the annotators' uncertain truth (distributions per query, and of
the mean over queries, from ground-truth worlds shared by all systems), compares them pairwise
with two-level bootstrap intervals (queries and worlds), flags unreliable categories, writes a
report, tables and figures into a folder, and prints the main tables.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

MEASURES = ("P@10", "AP", "nDCG@10", "R@100")
FIGURE_FORMATS = ("png", "pdf")


def run_demo(
    out: str | Path,
    *,
    figure_format: str = "png",
    n_worlds: int = 500,
    seed: int = 0,
    stream: TextIO | None = None,
) -> dict[str, Any]:
    """Run the demo, write ``report.md``, CSV tables and figures into ``out``, print a summary.

    Parameters
    ----------
    out : path-like
        Output folder (created if missing).
    figure_format : {"png", "pdf"}
        Format of the figures.
    n_worlds : int
        Ground-truth worlds sampled from the annotators.
    seed : int
        Seed of the one random generator everything draws from.
    stream : text stream, optional
        Where the summary is printed (default: stdout).

    Returns
    -------
    dict
        The evaluation, comparison and reliability objects, and the paths written.
    """
    from matplotlib.figure import Figure  # no pyplot: the user's backend is left alone

    from fuzzytruth._validation import check_choice
    from fuzzytruth.cli._output import text_table
    from fuzzytruth.collection import category_reliability
    from fuzzytruth.datasets import image_collection
    from fuzzytruth.evaluation.engine import evaluate
    from fuzzytruth.plots import (
        plot_agreement_heatmap,
        plot_distribution,
        plot_forest,
        plot_system_pr,
        system_pr_measures,
    )
    from fuzzytruth.stats import compare

    check_choice("figure_format", figure_format, FIGURE_FORMATS)
    stream = stream or sys.stdout
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    collection = image_collection()
    runs = collection.run_objects()

    evaluation = evaluate(runs, collection.membership, list(MEASURES), n_worlds=n_worlds, rng=seed)
    curves = evaluate(
        runs, collection.membership, system_pr_measures(), n_worlds=n_worlds, rng=seed
    )
    per_query = evaluation.to_frame()
    aggregate = evaluation.aggregate()
    comparison = compare(evaluation, rng=seed)
    reliability = category_reliability(collection.annotations).to_frame()

    paths: dict[str, Path] = {}
    for name, frame in (
        ("evaluation_per_query", per_query),
        ("evaluation_aggregate", aggregate),
        ("comparison", comparison.table),
        ("category_reliability", reliability),
    ):
        paths[name] = folder / f"{name}.csv"
        frame.to_csv(paths[name], index=False)

    query = evaluation.queries[0]
    figures = {
        "precision_pmf": lambda ax: plot_distribution(
            evaluation.distribution("strong", query, "P@10"),
            ax=ax,
            title=(
                f"One query ({query}): distribution of P@10 of the strong system\n"
                "over the annotators' uncertain truth (exact)"
            ),
        ),
        "pr_curves": lambda ax: plot_system_pr(curves, ax=ax),
        "forest": lambda ax: plot_forest(comparison, ax=ax),
        "category_reliability": lambda ax: plot_agreement_heatmap(
            reliability,
            columns=["mean_membership", "ambiguous_share", "closed_kappa"],
            ax=ax,
        ),
    }
    for name, draw in figures.items():
        fig = Figure(figsize=(7, 4.5) if name != "category_reliability" else (7, 8))
        draw(fig.subplots())
        fig.tight_layout()
        paths[name] = folder / f"{name}.{figure_format}"
        fig.savefig(paths[name])

    ambiguous = reliability.loc[reliability["ambiguous"], "category"].tolist()
    lines = [
        "# fuzzytruth demo: three systems on a multi-annotator image collection",
        "",
        collection.description,
        "",
        f"Ground-truth worlds: {n_worlds} (annotator model, shared by every system); seed {seed}.",
        "",
        "## Mean over queries, with the uncertainty of the ground truth",
        "",
        "```",
        text_table(
            aggregate[["system", "measure", "value", "ci_low", "ci_high", "method"]], digits=3
        ),
        "```",
        "",
        f"## Per-query distributions (first rows of {len(per_query)})",
        "",
        "```",
        text_table(
            per_query.head(12)[
                ["system", "query_id", "measure", "mean", "std", "ci_low", "ci_high", "method"]
            ]
        ),
        "```",
        "",
        "## Pairwise comparison (two-level bootstrap over queries and worlds)",
        "",
        "```",
        comparison.summary(),
        "```",
        "",
        f"Categories too ambiguous to use as queries: {', '.join(map(str, ambiguous)) or 'none'}.",
        "",
        "Figures: " + ", ".join(p.name for k, p in paths.items() if k in figures),
    ]
    paths["report"] = folder / "report.md"
    paths["report"].write_text("\n".join(lines) + "\n")
    stream.write("\n".join(lines[4:]) + f"\n\nWritten to {folder}/\n")
    return {
        "evaluation": evaluation,
        "comparison": comparison,
        "reliability": reliability,
        "paths": paths,
    }
