"""Measures: the registry of measure families and convention presets
(:mod:`~fuzzytruth.measures.registry`), value objects with one canonical spelling and the
lookups (:mod:`~fuzzytruth.measures.catalog`), the trec_eval and ir_measures spellings and the
parser (:mod:`~fuzzytruth.measures.names`), and every convention table
(:mod:`~fuzzytruth.measures.conventions`). The built-in families register themselves from
:mod:`fuzzytruth.measures.builtin` when a family is first looked up.

Examples
--------
>>> str(parse_measure("ndcg_cut_10").resolve("trec"))
'nDCG(gain=linear,discount=log2)@10'
"""

from fuzzytruth.measures.catalog import (
    Measure,
    families,
    family,
    family_alias,
    get_preset,
    presets,
)
from fuzzytruth.measures.names import parse_measure, parse_measures
from fuzzytruth.measures.registry import (
    GEOMETRIC_FLOOR,
    PRESET,
    MeasureFamily,
    Param,
    Preset,
    finite_float,
    positive_float,
    positive_int,
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
