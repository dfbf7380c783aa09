"""Shape-benchmark families: NN, FT, ST, E_psb and iP_psb (Princeton Shape Benchmark and
SHREC 2006 tiers); kernels in :mod:`fuzzytruth.metrics.shape`."""

from __future__ import annotations

from typing import Any

from fuzzytruth.measures.builtin.ranking import REL
from fuzzytruth.measures.registry import Param, positive_int, register
from fuzzytruth.metrics.shape import (
    TIER_STYLES,
    first_tier,
    nearest_neighbor,
    psb_e_measure,
    psb_ip_kernel,
    second_tier,
)

_TIER_STYLE = Param(
    "tier_style",
    default="recall",
    convert=str,
    choices=TIER_STYLES,
    doc="'recall' (PSB: hits/K) or 'precision' (SHREC 2006: d1 = min(Va, K), d2 = min(Va, 2K))",
)


def recall_level(value: Any) -> float:
    """Convert to a recall level in (0, 1]: the PSB's precision-recall points start at the
    first relevant result (:func:`~fuzzytruth.metrics.shape.psb_precision_recall`).

    Examples
    --------
    >>> recall_level("0.5")
    0.5
    """
    try:
        level = float(value)
    except (TypeError, ValueError):
        level = float("nan")
    if not 0 < level <= 1:
        raise ValueError(f"must be a number in (0, 1]; got {value!r}")
    return level


register(
    "NN", nearest_neighbor, params=(REL,), tie_averaged=True,
    description="nearest neighbour: 1 if the first result is relevant (PSB)",
)
register(
    "FT", first_tier, params=(REL, _TIER_STYLE), tie_averaged=True,
    description="first tier: hits in the top K / K (PSB) or in the top d1 / d1 (SHREC 2006)",
)
register(
    "ST", second_tier, params=(REL, _TIER_STYLE), tie_averaged=True,
    description="second tier: hits in the top 2K / K (PSB) or in the top d2 / d2 (SHREC 2006)",
)
register(
    "E_psb", psb_e_measure,
    params=(REL, Param("k", default=32, convert=positive_int, doc="cut-off, capped at Va")),
    at="k", tie_averaged=True,
    description="PSB E-measure: F1 over the first min(k, Va) results (higher is better)",
)
register(
    "iP_psb", psb_ip_kernel,
    params=(REL, Param("recall", convert=recall_level, doc="recall level in (0, 1]")),
    at="recall", at_required=True,
    description="PSB linearly interpolated precision at a recall level; NaN if skipped",
)
