"""The same questions under uncertain truth: distributions instead of numbers."""

from fuzzytruth.uncertain.categorical import (
    CutoffDistributions,
    precision_distribution,
    precision_recall_curve,
    query_category_weights,
    recall_distribution,
)
from fuzzytruth.uncertain.distribution import Distribution

__all__ = [
    "CutoffDistributions",
    "Distribution",
    "precision_distribution",
    "precision_recall_curve",
    "query_category_weights",
    "recall_distribution",
]
