"""The table readers and writers under their first module name; they live in
:mod:`fuzzytruth.io.tables`."""

from fuzzytruth.io.tables import (
    read_annotations,
    read_probabilistic_qrels,
    read_taxonomy,
    write_annotations,
    write_probabilistic_qrels,
    write_taxonomy,
)

__all__ = [
    "read_annotations",
    "read_probabilistic_qrels",
    "read_taxonomy",
    "write_annotations",
    "write_probabilistic_qrels",
    "write_taxonomy",
]
