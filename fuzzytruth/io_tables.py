"""Reading and writing header-line tables: taxonomies, annotations, probabilistic qrels.

No metric is computed here.

Formats
-------
Taxonomy
    ``.json``: a nested mapping ``{"all": {"people": {"crowd": {}}, "scenery": {}}}`` (trees);
    ``.csv`` / ``.tsv``: an edge list with a header, one row per (child, parent), the root's
    parent empty (trees and DAGs).
Annotations
    ``.csv`` / ``.tsv`` / ``.parquet``: a long table with one row per (item, annotator, label);
    column names are configurable. Lines starting with ``#`` in CSV/TSV files are comments.
Probabilistic qrels
    ``.csv`` / ``.tsv``: ``query_id, doc_id, probability[, grade]`` — for each judged pair the
    probability that the document is relevant (e.g. the share of assessors who judged it so)
    and, optionally, its grade when relevant (default 1).

A malformed file raises a ``ValueError`` that names the file, the 1-based line and what was
expected.

Examples
--------
>>> import tempfile, os
>>> from fuzzytruth.datasets import santini_taxonomy
>>> folder = tempfile.mkdtemp()
>>> write_taxonomy(santini_taxonomy(), os.path.join(folder, "tax.json"))
>>> read_taxonomy(os.path.join(folder, "tax.json")).children("people")
('single', 'group', 'crowd')
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from fuzzytruth.annotations import Annotations, DuplicatePolicy
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

__all__ = [
    "read_annotations",
    "read_probabilistic_qrels",
    "read_taxonomy",
    "write_annotations",
    "write_probabilistic_qrels",
    "write_taxonomy",
]

_TAXONOMY_FORMATS = ("json", "csv", "tsv")
_TABLE_FORMATS = ("csv", "tsv", "parquet")


def _format_of(path: str | os.PathLike, given: str | None, allowed: tuple[str, ...]) -> str:
    fmt = given or Path(path).suffix.lstrip(".").lower()
    if fmt not in allowed:
        raise ValueError(
            f"format must be one of {allowed} (or a file ending in one of them); got {fmt!r} "
            f"for {os.fspath(path)!r}"
        )
    return fmt


def read_delimited(
    path: str | os.PathLike, *, delimiter: str, required: Sequence[str]
) -> pd.DataFrame:
    """A CSV/TSV table with a header line, ``#`` comment lines skipped, every line checked.

    Raises ``ValueError`` naming the file and line for a missing header column, a line with
    the wrong number of fields, or an empty required field.
    """
    name = os.fspath(path)
    rows: list[list[str]] = []
    header: list[str] | None = None
    with open(path, newline="", encoding="utf-8") as handle:
        lines = ((n, line) for n, line in enumerate(handle, start=1) if not line.startswith("#"))
        for lineno, line in lines:
            if not line.strip():
                continue
            fields = next(csv.reader([line], delimiter=delimiter))
            if header is None:
                header = [f.strip() for f in fields]
                missing = [c for c in required if c not in header]
                if missing:
                    raise ValueError(
                        f"{name}, line {lineno}: header must name the columns {list(required)}; "
                        f"missing {missing} (found {header})"
                    )
                positions = [header.index(c) for c in required]
                continue
            if len(fields) != len(header):
                raise ValueError(
                    f"{name}, line {lineno}: expected {len(header)} fields ({', '.join(header)}), "
                    f"found {len(fields)}"
                )
            for col, pos in zip(required, positions, strict=True):
                if not fields[pos].strip() and col != "parent":
                    raise ValueError(f"{name}, line {lineno}: empty value in column {col!r}")
            rows.append([f.strip() for f in fields])
    if header is None:
        raise ValueError(f"{name}: the file is empty (expected a header line)")
    return pd.DataFrame(rows, columns=header)


# ---------------------------------------------------------------------- taxonomy
def read_taxonomy(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    child: str = "child",
    parent: str = "parent",
    implicit_root: str | None = None,
) -> Taxonomy:
    """Read a taxonomy from nested JSON or a CSV/TSV edge list (format from the suffix).

    Parameters
    ----------
    path : path-like
        The file to read.
    format : {"json", "csv", "tsv"}, optional
        Overrides the suffix.
    child, parent : str
        Column names of an edge list.
    implicit_root : str, optional
        Passed to the :class:`~fuzzytruth.taxonomy.Taxonomy` constructor.
    """
    fmt = _format_of(path, format, _TAXONOMY_FORMATS)
    name = os.fspath(path)
    if fmt == "json":
        try:
            with open(path, encoding="utf-8") as handle:
                tree = json.load(handle)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{name}, line {err.lineno}: invalid JSON ({err.msg}); expected a nested "
                'mapping such as {"all": {"people": {}, "scenery": {}}}'
            ) from None
        if not isinstance(tree, dict):
            raise ValueError(
                f"{name}, line 1: expected a JSON object (a nested mapping), found "
                f"{type(tree).__name__}"
            )
        try:
            return Taxonomy.from_nested(tree, implicit_root=implicit_root)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    frame = read_delimited(path, delimiter="," if fmt == "csv" else "\t", required=[child, parent])
    frame[parent] = frame[parent].replace("", None)
    try:
        return Taxonomy.from_frame(frame, child=child, parent=parent, implicit_root=implicit_root)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def write_taxonomy(
    taxonomy: Taxonomy, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write a taxonomy as nested JSON (trees only) or a CSV/TSV edge list; round-trips with
    :func:`read_taxonomy`."""
    fmt = _format_of(path, format, _TAXONOMY_FORMATS)
    if fmt == "json":
        if not taxonomy.is_tree:
            raise ValueError(
                "nested JSON holds trees only; write a DAG as a .csv or .tsv edge list"
            )
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(taxonomy.to_nested(), handle, indent=2)
            handle.write("\n")
        return
    taxonomy.to_frame().to_csv(path, sep="," if fmt == "csv" else "\t", index=False)


# ---------------------------------------------------------------------- annotations
def read_annotations(
    path: str | os.PathLike,
    *,
    taxonomy: Taxonomy,
    format: str | None = None,
    item: str = "item_id",
    annotator: str = "annotator_id",
    label: str = "label",
    duplicates: DuplicatePolicy = "error",
) -> Annotations:
    """Read a long annotation table (CSV, TSV or Parquet) and bind it to ``taxonomy``.

    Column names and the duplicate policy are those of
    :meth:`~fuzzytruth.annotations.Annotations.from_frame`. Ids and labels are read as strings.
    """
    fmt = _format_of(path, format, _TABLE_FORMATS)
    name = os.fspath(path)
    columns = [item, annotator, label]
    if fmt == "parquet":
        frame = pd.read_parquet(path)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"{name}: missing column(s) {missing}; found {list(frame.columns)}")
        frame = frame.astype({c: str for c in columns if frame[c].notna().all()})
    else:
        frame = read_delimited(path, delimiter="," if fmt == "csv" else "\t", required=columns)
    try:
        return Annotations.from_frame(
            frame,
            taxonomy=taxonomy,
            item=item,
            annotator=annotator,
            label=label,
            duplicates=duplicates,
        )
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def write_annotations(
    annotations: Annotations, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write the long table ``item_id, annotator_id, label`` (CSV, TSV or Parquet).

    A vote split between labels (``duplicates="split"``) is written as one row per label, which
    reads back with ``duplicates="split"``.
    """
    fmt = _format_of(path, format, _TABLE_FORMATS)
    frame = annotations.to_frame()[["item_id", "annotator_id", "label"]]
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, sep="," if fmt == "csv" else "\t", index=False)


# ---------------------------------------------------------------------- probabilistic qrels
def read_probabilistic_qrels(
    path: str | os.PathLike, *, format: str | None = None
) -> ProbabilisticQrels:
    r"""Read ``query_id, doc_id, probability[, grade]`` (CSV or TSV, with a header line).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "pq.csv")
    >>> _ = open(path, "w").write("query_id,doc_id,probability\nq1,d1,0.6\nq1,d2,1\n")
    >>> read_probabilistic_qrels(path).probability.tolist()
    [0.6, 1.0]
    """
    fmt = _format_of(path, format, ("csv", "tsv"))
    name = os.fspath(path)
    frame = read_delimited(
        path,
        delimiter="," if fmt == "csv" else "\t",
        required=["query_id", "doc_id", "probability"],
    )
    numeric = ["probability"] + (["grade"] if "grade" in frame.columns else [])
    for column in numeric:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna().to_numpy().nonzero()[0]
        if bad.size:
            raise ValueError(
                f"{name}: column {column!r} must hold numbers; row {int(bad[0]) + 1} has "
                f"{frame[column].iloc[bad[0]]!r}"
            )
        frame[column] = values
    try:
        return ProbabilisticQrels.from_dataframe(
            frame, grade_col="grade" if "grade" in frame.columns else None
        )
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def write_probabilistic_qrels(
    qrels: ProbabilisticQrels, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write ``query_id, doc_id, probability, grade``; round-trips with
    :func:`read_probabilistic_qrels`."""
    fmt = _format_of(path, format, ("csv", "tsv"))
    qrels.to_dataframe().to_csv(path, sep="," if fmt == "csv" else "\t", index=False)
