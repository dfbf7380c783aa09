"""Figures of uncertain evaluations, comparisons and collections (matplotlib, seaborn colours).

Every function takes its data first (a library object or its tidy frame), then keyword-only
options, draws into ``ax`` (a new figure when ``ax`` is None), and returns the matplotlib
Axes. Nothing here calls ``plt.show()`` or saves a file: the caller decides. Axis labels name
the measure, and every interval drawn is named in a legend or label with its level and what
it is over (queries, or the sampled truths). Colours come from seaborn's colour-blind-safe
``"colorblind"`` palette, and categories that matter are also told apart by marker shape.

* :func:`plot_distribution`, :func:`plot_query_distribution`: the PMF of one uncertain
  number, its mean and its equal-tailed interval (:mod:`~fuzzytruth.plots.distribution`);
* :func:`plot_pr_curves`, :func:`plot_system_pr`: precision–recall under uncertain truth,
  one query's bands or each system's interpolated precision
  (:mod:`~fuzzytruth.plots.precision_recall`);
* :func:`plot_forest`: pairwise differences from :func:`fuzzytruth.stats.compare`;
  :func:`plot_system_intervals`: each system's interval over queries beside its spread over
  the truths (:mod:`~fuzzytruth.plots.forest`);
* :func:`plot_displacement`: per-annotator displacement quality, pessimist to optimist
  (:mod:`~fuzzytruth.plots.displacement`);
* :func:`plot_agreement_heatmap`: agreement per category and measure (or taxonomy depth), one
  colour scale per meaning, flagged categories marked (:mod:`~fuzzytruth.plots.heatmap`);
* :func:`plot_annotator_scores`: two scores of every annotator, axes fitted to the bulk
  (:mod:`~fuzzytruth.plots.scatter`);
* :func:`plot_reliability`: classifiers' measures against reader reliability (PrIRN
  temperature) with bands, the deterministic aggregation dashed
  (:mod:`~fuzzytruth.plots.reliability`).
"""

from fuzzytruth.plots.displacement import plot_displacement
from fuzzytruth.plots.distribution import plot_distribution, plot_query_distribution
from fuzzytruth.plots.forest import plot_forest, plot_system_intervals
from fuzzytruth.plots.heatmap import WORSE_WHEN_HIGH, plot_agreement_heatmap
from fuzzytruth.plots.precision_recall import (
    RECALL_LEVELS,
    plot_pr_curves,
    plot_system_pr,
    system_pr_measures,
)
from fuzzytruth.plots.reliability import plot_reliability
from fuzzytruth.plots.scatter import plot_annotator_scores, robust_limits

__all__ = [
    "RECALL_LEVELS",
    "WORSE_WHEN_HIGH",
    "plot_agreement_heatmap",
    "plot_annotator_scores",
    "plot_displacement",
    "plot_distribution",
    "plot_forest",
    "plot_pr_curves",
    "plot_query_distribution",
    "plot_reliability",
    "plot_system_intervals",
    "plot_system_pr",
    "robust_limits",
    "system_pr_measures",
]
