"""SHREC 2006's graded family: ADR (average dynamic recall); kernel in
:mod:`fuzzytruth.metrics.graded`."""

from __future__ import annotations

from fuzzytruth.measures.registry import register
from fuzzytruth.metrics.graded import average_dynamic_recall

register(
    "ADR",
    average_dynamic_recall,
    tie_averaged=True,
    description="average dynamic recall (Typke et al. 2006) over the ground-truth groups",
)
