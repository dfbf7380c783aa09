"""fuzzytruth: evaluate and compare retrieval systems when the ground truth is uncertain.

The public API is listed in ``__all__``. Names load their module on first use, so that
``import fuzzytruth`` stays cheap (numba, statsmodels, matplotlib and seaborn load only when a
function that needs them runs).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "Annotations": "fuzzytruth.annotations",
    "AgreementResult": "fuzzytruth.collection",
    "AnnotatorAgreement": "fuzzytruth.collection",
    "CategoryReliability": "fuzzytruth.collection",
    "LevelAgreement": "fuzzytruth.collection",
    "agreement": "fuzzytruth.collection",
    "agreement_by_level": "fuzzytruth.collection",
    "annotator_agreement": "fuzzytruth.collection",
    "annotator_weights": "fuzzytruth.collection",
    "category_reliability": "fuzzytruth.collection",
    "sibling_confusions": "fuzzytruth.collection",
    "evaluate_per_annotator": "fuzzytruth.crisp",
    "DisplacementBootstrap": "fuzzytruth.displacement",
    "DisplacementResult": "fuzzytruth.displacement",
    "ExponentialG": "fuzzytruth.displacement",
    "RationalG": "fuzzytruth.displacement",
    "check_g": "fuzzytruth.displacement",
    "weighted_displacement": "fuzzytruth.displacement",
    "Evaluation": "fuzzytruth.evaluation",
    "UNDEFINED": "fuzzytruth.evaluation",
    "evaluate": "fuzzytruth.evaluation",
    "precision_recall_bands": "fuzzytruth.evaluation",
    "read_trec_qrels": "fuzzytruth.io",
    "read_trec_qrels_jg": "fuzzytruth.io",
    "read_trec_run": "fuzzytruth.io",
    "write_trec_qrels": "fuzzytruth.io",
    "write_trec_qrels_jg": "fuzzytruth.io",
    "write_trec_run": "fuzzytruth.io",
    "read_annotations": "fuzzytruth.io",
    "read_probabilistic_qrels": "fuzzytruth.io",
    "read_taxonomy": "fuzzytruth.io",
    "write_annotations": "fuzzytruth.io",
    "write_probabilistic_qrels": "fuzzytruth.io",
    "write_taxonomy": "fuzzytruth.io",
    "Measure": "fuzzytruth.measures",
    "Param": "fuzzytruth.measures",
    "Preset": "fuzzytruth.measures",
    "families": "fuzzytruth.measures",
    "get_preset": "fuzzytruth.measures",
    "parse_measure": "fuzzytruth.measures",
    "parse_measures": "fuzzytruth.measures",
    "register": "fuzzytruth.measures",
    "register_preset": "fuzzytruth.measures",
    "Membership": "fuzzytruth.membership",
    "Qrels": "fuzzytruth.runs",
    "Ranking": "fuzzytruth.runs",
    "Run": "fuzzytruth.runs",
    "rank": "fuzzytruth.runs",
    "BootstrapResult": "fuzzytruth.stats",
    "DegenerateComparisonWarning": "fuzzytruth.stats",
    "PairedInference": "fuzzytruth.stats",
    "PopulationScores": "fuzzytruth.stats",
    "UnreliableInferenceWarning": "fuzzytruth.stats",
    "annotator_bootstrap": "fuzzytruth.stats",
    "paired_inference": "fuzzytruth.stats",
    "romano_wolf": "fuzzytruth.stats",
    "truth_decomposition": "fuzzytruth.stats",
    "Comparison": "fuzzytruth.stats",
    "ConfidenceInterval": "fuzzytruth.stats",
    "PairedTestResult": "fuzzytruth.stats",
    "ResamplingResolutionWarning": "fuzzytruth.stats",
    "ScoreMatrix": "fuzzytruth.stats",
    "TukeyResult": "fuzzytruth.stats",
    "UncertaintyDecomposition": "fuzzytruth.stats",
    "WinsTiesLosses": "fuzzytruth.stats",
    "WorldPreference": "fuzzytruth.stats",
    "adjust_pvalues": "fuzzytruth.stats",
    "cohens_dz": "fuzzytruth.stats",
    "compare": "fuzzytruth.stats",
    "paired_bootstrap": "fuzzytruth.stats",
    "paired_power": "fuzzytruth.stats",
    "paired_test": "fuzzytruth.stats",
    "paired_tukey_hsd": "fuzzytruth.stats",
    "queries_for_power": "fuzzytruth.stats",
    "randomized_tukey_hsd": "fuzzytruth.stats",
    "scores_from_frame": "fuzzytruth.stats",
    "wins_ties_losses": "fuzzytruth.stats",
    "world_preference": "fuzzytruth.stats",
    "Taxonomy": "fuzzytruth.taxonomy",
    "CutoffDistributions": "fuzzytruth.uncertain",
    "Distribution": "fuzzytruth.uncertain",
    "DistributionBatch": "fuzzytruth.uncertain",
    "ProbabilisticQrels": "fuzzytruth.uncertain",
    "precision_distribution": "fuzzytruth.uncertain",
    "precision_recall_curve": "fuzzytruth.uncertain",
    "query_category_weights": "fuzzytruth.uncertain",
    "recall_distribution": "fuzzytruth.uncertain",
}

__all__ = sorted(_LAZY)



def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fuzzytruth' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
