"""Comparing retrieval systems: paired tests, bootstrap intervals, corrections, effect sizes.

Input is per-query scores, ``(n_systems, n_queries)``, or ``(n_worlds, n_systems,
n_queries)`` under uncertain ground truth (one crisp ground truth per world, shared by all
systems); :func:`scores_from_frame` reads the tidy long table ``system, query_id, measure,
value[, world]``. Queries are resampled, never documents, with one index vector shared by all
systems; under uncertain truth each replicate also draws one world shared by all systems.
"""

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
    warn_if_unresolvable,
)
from fuzzytruth.stats.paired import PairedTestResult, paired_test
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
    "PairedTestResult",
    "ResamplingResolutionWarning",
    "ScoreMatrix",
    "TukeyResult",
    "UncertaintyDecomposition",
    "WinsTiesLosses",
    "WorldPreference",
    "adjust_pvalues",
    "cohens_dz",
    "compare",
    "paired_bootstrap",
    "paired_power",
    "paired_test",
    "paired_tukey_hsd",
    "queries_for_power",
    "randomized_tukey_hsd",
    "scores_from_frame",
    "truth_decomposition",
    "warn_if_unresolvable",
    "wins_ties_losses",
    "world_preference",
]
