"""Measures: value objects with one canonical spelling, the registry of measure families and
the convention presets (:mod:`~fuzzytruth.measures.registry`), the trec_eval and ir_measures
spellings and the parser (:mod:`~fuzzytruth.measures.names`), and every convention table
(:mod:`~fuzzytruth.measures.conventions`). The built-in families register themselves from
:mod:`fuzzytruth.measures.builtin` when the registry is first used.

Examples
--------
>>> str(parse_measure("ndcg_cut_10").resolve("trec"))
'nDCG(gain=linear,discount=log2)@10'
"""

from fuzzytruth.measures.names import parse_measure, parse_measures
from fuzzytruth.measures.registry import (
    GEOMETRIC_FLOOR,
    PRESET,
    Measure,
    MeasureFamily,
    Param,
    Preset,
    families,
    family,
    family_alias,
    finite_float,
    get_preset,
    positive_float,
    positive_int,
    presets,
    register,
    register_preset,
    unit_interval,
)

__all__ = [
    "GEOMETRIC_FLOOR",
    "PRESET",
    "Measure",
    "MeasureFamily",
    "Param",
    "Preset",
    "families",
    "family",
    "family_alias",
    "finite_float",
    "get_preset",
    "parse_measure",
    "parse_measures",
    "positive_float",
    "positive_int",
    "presets",
    "register",
    "register_preset",
    "unit_interval",
]
