"""Reading and writing files: TREC runs and qrels (:mod:`fuzzytruth.io.trec`), header-line
tables (:mod:`fuzzytruth.io.tables`), one text decoder for all (:mod:`fuzzytruth.io.text`).
"""

from fuzzytruth.io.tables import (
    read_annotations,
    read_probabilistic_qrels,
    read_taxonomy,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
)
from fuzzytruth.io.trec import (
    read_trec_qrels,
    read_trec_qrels_jg,
    read_trec_run,
    write_trec_qrels,
    write_trec_qrels_jg,
    write_trec_run,
)

__all__ = [
    "read_annotations",
    "read_probabilistic_qrels",
    "read_taxonomy",
    "read_trec_qrels",
    "read_trec_qrels_jg",
    "read_trec_run",
    "write_annotations",
    "write_probabilistic_qrels",
    "write_taxonomy",
    "write_trec_qrels",
    "write_trec_qrels_jg",
    "write_trec_run",
]
