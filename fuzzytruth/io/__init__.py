"""Reading and writing files: TREC runs and qrels (:mod:`fuzzytruth.io.trec`), header-line
tables (:mod:`fuzzytruth.io.tables`), partial rankings with ties (:mod:`fuzzytruth.io.rankings`),
classifiers' predictions (:mod:`fuzzytruth.io.predictions`),
one text decoder for all (:mod:`fuzzytruth.io.text`).

Names load their module on first use, so that a low-level module (a run reading its columns
through :mod:`fuzzytruth.io.trec_columns`) does not import every reader.
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY: dict[str, str] = {
    "read_annotations": "fuzzytruth.io.tables",
    "read_probabilistic_qrels": "fuzzytruth.io.tables",
    "read_taxonomy": "fuzzytruth.io.tables",
    "write_annotations": "fuzzytruth.io.tables",
    "write_probabilistic_qrels": "fuzzytruth.io.tables",
    "write_taxonomy": "fuzzytruth.io.tables",
    "read_predictions": "fuzzytruth.io.predictions",
    "write_predictions": "fuzzytruth.io.predictions",
    "Rankings": "fuzzytruth.io.rankings",
    "read_rankings": "fuzzytruth.io.rankings",
    "write_rankings": "fuzzytruth.io.rankings",
    "read_trec_qrels": "fuzzytruth.io.trec",
    "read_trec_qrels_jg": "fuzzytruth.io.trec",
    "read_trec_run": "fuzzytruth.io.trec",
    "write_trec_qrels": "fuzzytruth.io.trec",
    "write_trec_qrels_jg": "fuzzytruth.io.trec",
    "write_trec_run": "fuzzytruth.io.trec",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.io", _LAZY, globals())
