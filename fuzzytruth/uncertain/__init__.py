"""The same questions under uncertain truth: distributions instead of numbers.

Names load their module on first use (importing one kernel module does not import the rest).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "CutoffDistributions": "fuzzytruth.uncertain.categorical",
    "Distribution": "fuzzytruth.uncertain.distribution",
    "DistributionBatch": "fuzzytruth.uncertain.batch",
    "ProbabilisticQrels": "fuzzytruth.uncertain.probabilistic_qrels",
    "precision_distribution": "fuzzytruth.uncertain.categorical",
    "precision_recall_curve": "fuzzytruth.uncertain.categorical",
    "query_category_weights": "fuzzytruth.uncertain.categorical",
    "recall_distribution": "fuzzytruth.uncertain.categorical",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fuzzytruth.uncertain' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
