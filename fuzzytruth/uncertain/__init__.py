"""The same questions under uncertain truth: distributions instead of numbers.

Names load their module on first use (importing one kernel module does not import the rest).
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY = {
    "CutoffDistributions": "fuzzytruth.uncertain.categorical",
    "Distribution": "fuzzytruth.uncertain.distribution",
    "DistributionBatch": "fuzzytruth.uncertain.batch",
    "ProbabilisticQrels": "fuzzytruth.truth.probabilistic_qrels",
    "precision_distribution": "fuzzytruth.uncertain.categorical",
    "precision_recall_curve": "fuzzytruth.uncertain.categorical",
    "query_category_weights": "fuzzytruth.uncertain.categorical",
    "recall_distribution": "fuzzytruth.uncertain.categorical",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.uncertain", _LAZY, globals())
