"""User-model families: RBP, its residual and ERR.

Crisp kernels in :mod:`fuzzytruth.metrics.user_models`, the residual's exact form in
:mod:`fuzzytruth.uncertain.closed_form`.
"""

from __future__ import annotations

from typing import Any

from fuzzytruth.measures.builtin.ranking import REL
from fuzzytruth.measures.registry import Param, positive_float, positive_int, register
from fuzzytruth.metrics.user_models import (
    RBP_GRADINGS,
    WHEN_JUDGED,
    binary_err,
    binary_rbp,
    err,
    rbp,
    rbp_residual,
)
from fuzzytruth.uncertain import closed_form


def persistence(value: Any) -> float:
    p = float(value)
    if not 0.0 < p < 1.0:
        raise ValueError(f"must be a number in (0, 1); got {value!r}")
    return p


_P = Param("p", default=0.8, convert=persistence, doc="persistence in (0, 1)")
_K = Param("k", default=None, convert=positive_int, doc="rank cutoff (whole list if unset)")

_GRADING = Param("grading", default="binary", choices=RBP_GRADINGS,
              doc="r_i: 'binary' (grade >= rel, the paper's) or 'graded' (trec_eval 10's rbp: "
                  "the grade over the query's highest, when above 1)")
_WHEN_JUDGED = Param("when_judged", default="tail", choices=WHEN_JUDGED,
                     doc="a list without unjudged documents: 'tail' (the paper's p^d) or "
                         "'zero' (trec_eval 10's rbp_resid)")

register("RBP", rbp, params=(_P, REL, _GRADING, _K), at="k", tie_averaged=True, binary=binary_rbp,
         description="rank-biased precision (Moffat & Zobel 2008)")
register("RBPResidual", rbp_residual, params=(_P, _WHEN_JUDGED, _K), at="k", tie_averaged=True,
         uses={"judged"}, higher_is_better=False, exact=closed_form.rbp_residual_exact,
         description="RBP's residual: what unjudged documents and the tail could add")
register(
    "ERR",
    err,
    params=(Param("gmax", default=4.0, convert=positive_float, doc="top grade of the scale"), _K),
    at="k",
    binary=binary_err,
    description="expected reciprocal rank (Chapelle et al. 2009)",
)
