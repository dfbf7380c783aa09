"""Comparing retrieval systems: tests with their intervals, named estimands, corrections.

Input is per-query scores, ``(n_systems, n_queries)``, or ``(n_worlds, n_systems,
n_queries)`` under uncertain ground truth (one crisp ground truth per world, shared by all
systems); :func:`scores_from_frame` reads the tidy long table ``system, query_id, measure,
value[, world]``. Queries are resampled, never documents, with one index vector shared by all
systems. Each result names its estimand: ``"queries"`` (crisp truth), ``"collection"`` (this
collection's truth: each query's expected score over the worlds) or ``"population"`` (new
queries and new annotators: :func:`annotator_bootstrap`); see :mod:`fuzzytruth.stats.compare`.
Every ``n_resamples`` is at most 10**8 (``fuzzytruth._validation.MAX_RESAMPLES``): more is
refused as a typo before anything is drawn.
"""

from fuzzytruth.stats._validation import DegenerateComparisonWarning
from fuzzytruth.stats.bootstrap import BootstrapResult, ConfidenceInterval, paired_bootstrap
from fuzzytruth.stats.compare import Comparison, compare
from fuzzytruth.stats.effect import (
    WinsTiesLosses,
    cohens_dz,
    paired_power,
    queries_for_power,
    wins_ties_losses,
)
from fuzzytruth.stats.multiple import (
    ResamplingResolutionWarning,
    TukeyResult,
    adjust_pvalues,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    romano_wolf,
    warn_if_unresolvable,
)
from fuzzytruth.stats.paired import PairedTestResult, paired_test
from fuzzytruth.stats.population import PopulationScores, annotator_bootstrap
from fuzzytruth.stats.procedures import (
    PairedInference,
    UnreliableInferenceWarning,
    paired_inference,
)
from fuzzytruth.stats.scores import ScoreMatrix, scores_from_frame
from fuzzytruth.stats.worlds import (
    UncertaintyDecomposition,
    WorldPreference,
    truth_decomposition,
    world_preference,
)

__all__ = [
    "BootstrapResult",
    "Comparison",
    "ConfidenceInterval",
    "DegenerateComparisonWarning",
    "PairedInference",
    "PairedTestResult",
    "PopulationScores",
    "ResamplingResolutionWarning",
    "ScoreMatrix",
    "TukeyResult",
    "UncertaintyDecomposition",
    "UnreliableInferenceWarning",
    "WinsTiesLosses",
    "WorldPreference",
    "adjust_pvalues",
    "annotator_bootstrap",
    "cohens_dz",
    "compare",
    "paired_bootstrap",
    "paired_inference",
    "paired_power",
    "paired_test",
    "paired_tukey_hsd",
    "queries_for_power",
    "randomized_tukey_hsd",
    "romano_wolf",
    "scores_from_frame",
    "truth_decomposition",
    "warn_if_unresolvable",
    "wins_ties_losses",
    "world_preference",
]
