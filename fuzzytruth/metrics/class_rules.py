"""The vocabularies of the classifier families' parameters, below everything that uses them:
the measures' parameters (:mod:`fuzzytruth.measures.builtin.classification`), the ranking of
a classifier's classes (:mod:`fuzzytruth.classify.ranking`) and the reading of a categorical
truth (:mod:`fuzzytruth.classify.targets`).

Examples
--------
>>> CLASS_TIES[0], STRICT_TIES, TARGETS
('last', ('last', 'first'), ('label', 'top1', 'distribution'))
"""

from __future__ import annotations

__all__ = ["CLASS_TIES", "STRICT_TIES", "TARGETS"]

CLASS_TIES = ("last", "first", "all", "average")
"""The tie rules for ranking classes, the default (scikit-learn's) first."""

STRICT_TIES = ("last", "first")
"""The tie rules that put one class at each rank."""

TARGETS = ("label", "top1", "distribution")
"""How a measure reads a world of a categorical truth: one class per item, the world's most
plausible class, or the world's plausibility vector."""
