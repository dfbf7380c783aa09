"""fuzzytruth: evaluate and compare retrieval systems when the ground truth is uncertain."""

from fuzzytruth.annotations import Annotations
from fuzzytruth.membership import Membership
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.uncertain import (
    CutoffDistributions,
    Distribution,
    precision_distribution,
    precision_recall_curve,
    query_category_weights,
    recall_distribution,
)

__all__ = [
    "Annotations",
    "CutoffDistributions",
    "Distribution",
    "Membership",
    "Taxonomy",
    "precision_distribution",
    "precision_recall_curve",
    "query_category_weights",
    "recall_distribution",
]

__version__ = "0.1.0"
