"""Reading and writing files: TREC runs and qrels (:mod:`fuzzytruth.io.trec`), trec_eval's
preference files (:mod:`fuzzytruth.io.prefs`) and z-score reference files
(:mod:`fuzzytruth.io.zscores`), all of trec_eval's judgment formats (``-R``) through one
reader (:mod:`fuzzytruth.io.judgments`), header-line tables (:mod:`fuzzytruth.io.tables`),
partial rankings with ties (:mod:`fuzzytruth.io.rankings`), classifiers' predictions
(:mod:`fuzzytruth.io.predictions`), one text decoder for all readers (:mod:`fuzzytruth.io.text`)
and one atomic, compressing output for all writers (:mod:`fuzzytruth.io.output`).

Every reader raises a ``ValueError`` on one line that starts with the file's name,
``"<path>: ..."`` or ``"<path>, line <n>: ..."`` (:func:`fuzzytruth.io.text.file_error`), and
caps what a compressed file may inflate to (``max_decompressed_bytes``).

Names load their module on first use, so that a low-level module (a run reading its columns
through :mod:`fuzzytruth.io.trec_columns`) does not import every reader.
"""

from __future__ import annotations

from fuzzytruth._lazy import lazy_names

_LAZY: dict[str, str] = {
    "read_annotations": "fuzzytruth.io.tables",
    "read_probabilistic_qrels": "fuzzytruth.io.tables",
    "read_query_categories": "fuzzytruth.io.tables",
    "read_table": "fuzzytruth.io.tables",
    "read_taxonomy": "fuzzytruth.io.tables",
    "read_trec_prefs": "fuzzytruth.io.prefs",
    "read_trec_qrels_prefs": "fuzzytruth.io.prefs",
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
    "read_trec_zscores": "fuzzytruth.io.zscores",
    "read_trec_judgments": "fuzzytruth.io.judgments",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names("fuzzytruth.io", _LAZY, globals())
