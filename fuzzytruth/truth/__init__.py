"""The ground truths behind one protocol: crisp :class:`Qrels`, :class:`ProbabilisticQrels`
and categorical :class:`Membership` (:mod:`fuzzytruth.truth.protocol`); and trec_eval's
preference judgments, :class:`Preferences` (evaluated by
:func:`fuzzytruth.evaluation.preferences.evaluate_preferences`).

Names load their module on first use.
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY: dict[str, str] = {
    "Membership": "fuzzytruth.truth.membership",
    "Preferences": "fuzzytruth.truth.preferences",
    "ProbabilisticQrels": "fuzzytruth.truth.probabilistic_qrels",
    "Qrels": "fuzzytruth.truth.qrels",
    **dict.fromkeys(
        (
            "WEIGHTS",
            "BoundTruth",
            "Components",
            "PreparedTruth",
            "Truth",
            "TruthKind",
            "TruthOptions",
            "as_truth",
        ),
        "fuzzytruth.truth.protocol",
    ),
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.truth", _LAZY, globals())
