"""Parameter variants of every registered family, built from its ``Param`` declarations, for
the tests that run a family over its parameters (``test_evaluate_params``,
``test_classify_params``, ``test_stats_population``), and their search for the variants a
configuration refuses: a family or a parameter added later is covered without editing
them; a parameter whose converter has no ``VALUES`` fails
``test_evaluate_params.test_every_parameter_has_values`` (ranking) or
``test_classify_params.test_every_parameter_has_values`` (classifiers)."""

from typing import Any

import numpy as np

from fuzzytruth.measures import (
    Measure,
    MeasureFamily,
    finite_float,
    positive_float,
    positive_int,
    unit_interval,
)
from fuzzytruth.measures.builtin.classification import _decimals, _depth, _eps
from fuzzytruth.measures.builtin.ranking import gain_map, log_base, recall_levels
from fuzzytruth.measures.builtin.shape import recall_level
from fuzzytruth.measures.builtin.trec import _non_negative_int
from fuzzytruth.measures.builtin.user_models import persistence

#: values tried for each parameter, by its converter; a ``Param`` with ``choices`` tries them
#: all. A cutoff of 40 is past every list; thresholds between and above the grades 1, 2, 2.5, 3.
#: Classifiers (tests/test_classify_params.py): a k of 40 past every class and 40 bins past
#: every item, the depths of a two-level taxonomy and one past it, a clipping eps near its
#: bound 0.5
VALUES: dict[Any, tuple] = {
    positive_int: (1, 3, 40),
    positive_float: (0.5, 2.0, 3.0),
    log_base: (1.5, 3.0),
    finite_float: (-1.5, 0.0, 2.0),
    unit_interval: (0.0, 0.3, 1.0),
    _non_negative_int: (0, 30),
    gain_map: ("linear", "exp", {0: 1.0, 1: -1.0, 2: 5.0, 3: 2.0}, {1: -1.0, 2: 5.0}),
    persistence: (0.5, 0.95),
    recall_levels: ((0.25, 0.5, 0.75), (0.0, 1.0)),
    recall_level: (0.3, 1.0),
    _depth: (0, 1, 2, 3),
    _eps: (1e-3, 0.2, 0.49),
    _decimals: (0, 2, 5),
}
#: the families whose closed form does not cover some parameters, and which (a function of
#: the resolved measure's ``kernel_params``): Utility's holds for c = d only
#: (fuzzytruth.uncertain.closed_form.utility_exact's docstring)
NO_CLOSED_FORM = {"Utility": lambda params: params["c"] != params["d"]}


def parameter_values(param) -> tuple:
    """The values tried for ``param``: its choices, or those of its converter."""
    return param.choices if param.choices is not None else VALUES[param.convert]


def variants(name: str, fam: MeasureFamily) -> list[Measure]:
    """The family with its defaults (a required ``@`` parameter at its first value), each
    parameter at each of its values with the others at their defaults, and three draws of
    every parameter at once (a fixed seed per family)."""
    base = {fam.at: parameter_values(fam.param(fam.at))[0]} if fam.at_required else {}
    params = [base] + [{**base, p.name: v} for p in fam.params for v in parameter_values(p)]
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(3 if len(fam.params) > 1 else 0):
        params.append({p.name: parameter_values(p)[rng.integers(len(parameter_values(p)))]
                       for p in fam.params})
    return list({str(m): m for m in (Measure(name, **kw) for kw in params)}.values())


def refused(measures: list[Measure], evaluate_them) -> dict[str, str]:
    """The measures that ``evaluate_them(measures)`` refuses with a ValueError, by their
    message, found by halving (refusals are few and come in runs of variants)."""
    try:
        evaluate_them(measures)
    except ValueError as exc:
        if len(measures) == 1:
            return {str(measures[0]): str(exc)}
        half = len(measures) // 2
        return refused(measures[:half], evaluate_them) | refused(measures[half:], evaluate_them)
    return {}
