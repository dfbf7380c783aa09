"""Classifiers under uncertain truth: predictions, their ranking, the truth they are scored
against, and the human baseline.

A classifier is evaluated as a retrieval system is (:func:`fuzzytruth.evaluate`): each item
plays a query, its classes ranked by the classifier's scores play the result list, and the
truth — annotator shares, a label model's posterior, plausibilities from partial rankings, or
label sets — says which class the item belongs to. The measures are registry families that
read a classifier's classes (:mod:`fuzzytruth.measures.builtin.classification`): top-k
accuracy at any taxonomy level, ImageNet ReaL accuracy, the distances between predicted and
human label distributions (cross-entropy, KL, Jensen–Shannon, total variation, Manhattan,
Wasserstein, soft accuracy, soft micro-F1, Brier), calibration (ECE) and entropy correlation.
Each has its per-item value and its distribution under the truth (exact where the truth's
labels are independent draws, Monte Carlo over the truth's worlds otherwise), and
:func:`fuzzytruth.compare` compares classifiers with the three estimands.

* :class:`Predictions`: one classifier's items × classes scores (readers in
  :func:`fuzzytruth.io.read_predictions`);
* :func:`leave_one_annotator_out`: each annotator scored as a classifier against the others'
  truth (the human baseline);
* :func:`annotation_certainty`: rank-k annotation certainty of the truth itself;
* :func:`reliability_curves`: measures against reader reliability (PrIRN temperature), the
  shape of Stutz et al.'s main figure.

Names load their module on first use.
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY: dict[str, str] = {
    "AnnotationCertainty": "fuzzytruth.classify.certainty",
    "annotation_certainty": "fuzzytruth.classify.certainty",
    "rank_k_frequencies": "fuzzytruth.classify.certainty",
    "HumanBaseline": "fuzzytruth.classify.human",
    "leave_one_annotator_out": "fuzzytruth.classify.human",
    "Predictions": "fuzzytruth.classify.predictions",
    "CLASS_TIES": "fuzzytruth.classify.ranking",
    "STUTZ_TEMPERATURES": "fuzzytruth.classify.reliability",
    "reliability_curves": "fuzzytruth.classify.reliability",
    "TARGETS": "fuzzytruth.classify.targets",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.classify", _LAZY, globals())
