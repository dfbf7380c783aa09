"""Evaluation: :func:`evaluate` (the one path, crisp truth its degenerate case,
:mod:`~fuzzytruth.evaluation.engine`), its result :class:`Evaluation`
(:mod:`~fuzzytruth.evaluation.result`), the P–R bands (:mod:`~fuzzytruth.evaluation.bands`),
per-annotator evaluation (:mod:`~fuzzytruth.evaluation.per_annotator`) and evaluation against
preference judgments (:mod:`~fuzzytruth.evaluation.preferences`).
"""

from fuzzytruth.evaluation.bands import precision_recall_bands
from fuzzytruth.evaluation.engine import UNDEFINED, evaluate
from fuzzytruth.evaluation.per_annotator import evaluate_per_annotator
from fuzzytruth.evaluation.preferences import evaluate_preferences
from fuzzytruth.evaluation.result import Evaluation

__all__ = [
    "UNDEFINED",
    "Evaluation",
    "evaluate",
    "evaluate_per_annotator",
    "evaluate_preferences",
    "precision_recall_bands",
]
