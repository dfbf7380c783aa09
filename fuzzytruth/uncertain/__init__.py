"""The same questions under uncertain truth: distributions instead of numbers."""

from fuzzytruth.uncertain.batch import DistributionBatch
from fuzzytruth.uncertain.categorical import (
    CutoffDistributions,
    precision_distribution,
    precision_recall_curve,
    query_category_weights,
    recall_distribution,
)
from fuzzytruth.uncertain.distribution import Distribution
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

__all__ = [
    "CutoffDistributions",
    "Distribution",
    "DistributionBatch",
    "ProbabilisticQrels",
    "precision_distribution",
    "precision_recall_curve",
    "query_category_weights",
    "recall_distribution",
]
