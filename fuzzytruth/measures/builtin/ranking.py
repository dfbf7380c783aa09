"""The ranking families: P, R, Success, AP, RR, Rprec, DCG, nDCG, F, E, iP and 11pt.

Each family is a crisp kernel of :mod:`fuzzytruth.metrics.ranking`, its parameters, its exact
distribution under independent relevance where one exists (:mod:`fuzzytruth.uncertain.closed_form`)
and its fast 0/1-world kernel (:mod:`fuzzytruth.metrics.binary`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fuzzytruth._validation import SCALE_LIMIT
from fuzzytruth.measures.registry import (
    Param,
    finite_float,
    positive_float,
    positive_int,
    register,
    unit_interval,
)
from fuzzytruth.metrics import binary
from fuzzytruth.metrics.ranking import (
    AP_DENOMINATORS,
    DISCOUNTS,
    ELEVEN_LEVELS,
    GAINS,
    IDEALS,
    INTERPOLATIONS,
    average_precision,
    dcg,
    e_measure,
    eleven_point_kernel,
    f_measure,
    ip_kernel,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
    uses_judged,
)
from fuzzytruth.uncertain import closed_form


def gain_map(value: Any) -> Any:
    if isinstance(value, Mapping):
        out = {finite_float(g): finite_float(v) for g, v in value.items()}
        huge = [v for v in out.values() if abs(v) > SCALE_LIMIT]
        if huge:
            raise ValueError(f"gains must be within +-{SCALE_LIMIT:g} (sums of larger ones, "
                             f"and their squares, overflow); got {huge[0]!r}")
        return out
    if value not in GAINS:
        raise ValueError(f"must be one of {list(GAINS)} or a mapping {{grade:gain}}; got {value!r}")
    return value


def recall_levels(value: Any) -> tuple[float, ...]:
    """Recall levels from ``[0.25,0.5,0.75]``, ``0.25,0.5,0.75`` or a sequence: distinct
    numbers in [0, 1], returned sorted (trec_eval sorts them and refuses duplicates)."""
    if isinstance(value, str):
        value = [v for v in value.strip().strip("[]()").split(",") if v.strip()]
    try:
        levels = sorted(unit_interval(v) for v in value)
    except TypeError:
        raise ValueError(f"must be a list of recall levels in [0, 1]; got {value!r}") from None
    if not levels:
        raise ValueError("must name at least one recall level; got none")
    if len(set(levels)) != len(levels):
        raise ValueError(f"recall levels must be distinct; got {value!r}")
    return tuple(levels)


REL = Param("rel", convert=positive_float, doc="relevance threshold: grade >= rel is relevant")
K = Param("k", default=None, convert=positive_int, doc="rank cutoff (whole list if unset)")
BETA = Param("beta", default=1.0, convert=positive_float, doc="textbook β (trec set_F.x: x = β²)")
GAIN = Param("gain", convert=gain_map, doc="'linear', 'exp' (2^g − 1) or a mapping {grade: gain}")
DISCOUNT = Param(
    "discount", choices=DISCOUNTS, doc="'log2': 1/log2(i+1); 'jk': Järvelin–Kekäläinen"
)
def log_base(value: Any) -> float:
    """Convert to a finite float > 1: the base of a logarithm that is 0 at rank 1 only when
    the base is above 1 (``jk``'s discount divides by it from rank b on)."""
    f = positive_float(value)
    if f <= 1:
        raise ValueError(f"must be a number > 1; got {value!r}")
    return f


B = Param("b", default=None, convert=log_base, doc="log base of the jk discount (2 if unset)")
IDEAL = Param("ideal", default="all", choices=IDEALS,
              doc="ideal DCG of 'all' relevant documents (trec_eval) or of as many as the "
                  "'list' holds (Järvelin–Kekäläinen NDCG[i] at the list's end, SHREC 2006)")
INTERP = Param(
    "interpolation",
    choices=INTERPOLATIONS,
    doc="recall level -> relevant count: 'textbook', 'trec_eval9', 'trec_eval10'",
)

register("P", precision, params=(REL, K), at="k", tie_averaged=True,
         exact=closed_form.precision_exact, binary=binary.counts("P"),
         description="precision at k")
register("R", recall, params=(REL, K), at="k", tie_averaged=True,
         exact=closed_form.recall_exact, binary=binary.counts("R"), description="recall at k")
register("Success", success, params=(REL, K), at="k", tie_averaged=True,
         exact=closed_form.success_exact, binary=binary.counts("Success"),
         description="1 if a relevant document is in the top k")
register(
    "AP",
    average_precision,
    params=(
        REL,
        K,
        Param(
            "denominator",
            choices=AP_DENOMINATORS,
            doc="'all_relevant' (trec_eval) or 'retrieved_relevant' (SHREC 2006, NIST)",
        ),
    ),
    at="k",
    tie_averaged=True,
    binary=binary.ap,
    description="average precision",
)
register("RR", reciprocal_rank, params=(REL, K), at="k", tie_averaged=True,
         exact=closed_form.reciprocal_rank_exact, binary=binary.counts("RR"),
         description="reciprocal rank of the first relevant document")
register("Rprec", r_precision, params=(REL,), tie_averaged=True,
         binary=binary.r_precision, description="precision at rank R")
register("DCG", dcg, params=(K, GAIN, DISCOUNT, B), at="k", tie_averaged=True,
         binary=binary.dcg, uses_if=uses_judged, description="discounted cumulated gain")
register("nDCG", ndcg, params=(K, GAIN, DISCOUNT, B, IDEAL), at="k", tie_averaged=True,
         binary=binary.ndcg, uses_if=uses_judged,
         description="normalised discounted cumulated gain")
register("F", f_measure, params=(REL, K, BETA), at="k", tie_averaged=True,
         exact=closed_form.f_measure_exact, aliases={"F1": {"beta": 1.0}},
         description="F_β of precision and recall at k")
register("E", e_measure, params=(REL, K, BETA), at="k", tie_averaged=True,
         exact=closed_form.e_measure_exact, higher_is_better=False, undefined_value=1.0,
         description="van Rijsbergen's E_β = 1 − F_β at k")
register(
    "iP",
    ip_kernel,
    params=(REL, Param("recall", convert=unit_interval, doc="recall level in [0, 1]"), INTERP),
    at="recall",
    at_required=True,
    description="interpolated precision at a recall level",
)
register(
    "11pt",
    eleven_point_kernel,
    params=(
        REL,
        INTERP,
        Param("levels", default=ELEVEN_LEVELS, convert=recall_levels,
              doc="recall levels averaged, e.g. [0.25,0.5,0.75] (trec_eval 11pt_avg.x,y,z); "
                  "0, 0.1, ..., 1 if unset"),
    ),
    description="interpolated precision averaged over recall levels (11 by default)",
)
