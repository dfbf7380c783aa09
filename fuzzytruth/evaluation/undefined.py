"""The one rule for undefined values, applied the same way in every output.

A measure is undefined on a query when its formula has no value there: no relevant document
(AP, R, nDCG...), a category with no other member, an empty run for a judged query. Its family
says what such a query scores (``MeasureFamily.undefined_value``: 0, or 1 for E); the rule says
what happens to it:

``"zero"`` (default, trec_eval's)
    the query counts and scores the family's ``undefined_value``;
``"skip"``
    the query is left out of that measure's aggregate (world by world under uncertain truth),
    and ``n_queries`` says how many were averaged.

A family whose ``undefined_value`` is NaN leaves its undefined queries out of every aggregate
under both rules: that is its definition (ImageNet ReaL accuracy leaves out the images with an
empty label set).

Every output — the per-query table, :meth:`~fuzzytruth.evaluation.result.Evaluation.aggregate`,
``query_means``, ``world_scores``, the P–R bands, per-annotator evaluation, ``compare()`` and the
command line — reads values through :class:`Undefined`, never by testing the rule's name.

Examples
--------
>>> rule = Undefined("skip")
>>> rule.apply(np.array([0.5, np.nan]), 0.0)
array([0.5, nan])
>>> Undefined("zero").apply(np.array([0.5, np.nan]), 0.0), Undefined.ZERO == "zero"
(array([0.5, 0. ]), True)
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from fuzzytruth._validation import check_choice
from fuzzytruth.uncertain.batch import DistributionBatch

__all__ = ["UNDEFINED", "Undefined"]


class Undefined(StrEnum):
    """The rule for undefined values (module docstring); equal to its name as a string."""

    ZERO = "zero"
    SKIP = "skip"

    @classmethod
    def of(cls, rule: object, name: str = "undefined") -> Undefined:
        """The rule named ``rule`` (a ValueError naming parameter ``name`` otherwise).

        Examples
        --------
        >>> Undefined.of("skip")
        <Undefined.SKIP: 'skip'>
        """
        return cls(check_choice(name, rule, UNDEFINED))

    @property
    def counts(self) -> bool:
        """Whether an undefined query counts in aggregates (with its family's value)."""
        return self is Undefined.ZERO

    def fills(self, fill: float) -> bool:
        """Whether an undefined outcome scores ``fill``: the rule counts it and ``fill`` is a
        number. What :meth:`apply_batch` does, and what a deferred batch or a compiled kernel
        is told.

        Examples
        --------
        >>> Undefined.ZERO.fills(0.0), Undefined.SKIP.fills(0.0), Undefined.ZERO.fills(np.nan)
        (True, False, False)
        """
        return self.counts and not np.isnan(fill)

    def apply(self, values: np.ndarray, fill: float) -> np.ndarray:
        """``values`` (NaN where undefined) as the outputs read them: NaN becomes ``fill``
        under ``"zero"`` and stays NaN (left out of every average) under ``"skip"``."""
        values = np.asarray(values, dtype=np.float64)
        return np.where(np.isnan(values), fill, values) if self.counts else values

    def apply_batch(self, batch: DistributionBatch, fill: float) -> DistributionBatch:
        """Per-query distributions under the rule: the undefined outcome's mass moves to
        ``fill`` under ``"zero"``; under ``"skip"`` (or a NaN ``fill``) summaries are
        conditional on being defined."""
        return batch.fill_undefined(fill) if self.fills(fill) else batch


UNDEFINED: tuple[str, ...] = tuple(rule.value for rule in Undefined)
"""The names of the rules, the default first."""
