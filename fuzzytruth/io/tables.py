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
    column names are configurable; without a taxonomy the labels form a flat label set.
Probabilistic qrels
    ``.csv`` / ``.tsv``: ``query_id, doc_id, probability[, grade]`` — for each judged pair the
    probability that the document is relevant (e.g. the share of assessors who judged it so)
    and, optionally, its grade when relevant (default 1).

Query categories
    ``.csv`` / ``.tsv``: ``query_id, category``, one row per query (:func:`read_query_categories`).
Any other table
    :func:`read_table`: named columns as stripped strings, numbers checked.

Text files go through :func:`fuzzytruth.io.text.load_text`, like the TREC files: compression
recognised from the content (``labels.csv.gz`` is a CSV file) and its decompressed size capped
(``max_decompressed_bytes``), a byte-order mark removed, an ``encoding`` option for files that
are not UTF-8, LF, CRLF or CR line ends, lines starting with ``#`` (comments) and empty lines
skipped. They are parsed by pyarrow's CSV reader; values are stripped of surrounding
whitespace. A Parquet file may be compressed as a whole too; its decoded size (from its
footer) is capped the same way.

A malformed file raises a ``ValueError`` that names the file, the 1-based line (a Parquet
file: the 1-based row) and what was expected.

Every writer refuses what its reader would refuse or read back differently (an empty id, one
with surrounding whitespace, a carriage return, an empty line or a line starting with ``#`` in a
value, two taxonomy nodes with the same name as text), writes atomically (a temporary file
renamed over the target: an error leaves no partial file) and compresses when the name ends
in ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or ``.zip`` (:mod:`fuzzytruth.io.output`).

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

import os
from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_type, id_text
from fuzzytruth._warnings import warn
from fuzzytruth.annotations import Annotations, DuplicatePolicy, labels_hint
from fuzzytruth.io.delimited import (
    delimiter_of,
    finite_numbers,
    format_of,
    read_delimited,
    write_delimited,
)
from fuzzytruth.io.output import number_text
from fuzzytruth.io.parquet import read_parquet_columns, write_parquet
from fuzzytruth.io.taxonomy_json import MAX_JSON_DEPTH, read_json_taxonomy, write_json_taxonomy
from fuzzytruth.io.text import MaxBytes, file_error, shown
from fuzzytruth.taxonomy import Taxonomy, closest_names
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels

__all__ = [
    "MAX_JSON_DEPTH",
    "read_annotations",
    "read_delimited",
    "read_probabilistic_qrels",
    "read_query_categories",
    "read_table",
    "read_taxonomy",
    "write_annotations",
    "write_probabilistic_qrels",
    "write_taxonomy",
]

_TAXONOMY_FORMATS = ("json", "csv", "tsv")
_TABLE_FORMATS = ("csv", "tsv", "parquet")


def read_table(
    path: str | os.PathLike,
    *,
    required: Sequence[str] = (),
    numeric: Sequence[str] = (),
    may_be_empty: Sequence[str] = (),
    format: str | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> pd.DataFrame:
    r"""Read any CSV/TSV table with a header line: strings, with ``numeric`` columns as
    finite floats.

    Parameters
    ----------
    path : path-like
        The file (format from its suffix, before any compression suffix).
    required : sequence of str
        Columns the header must name; their values may not be empty (except those in
        ``may_be_empty``).
    numeric : sequence of str
        Required columns read as finite numbers.
    may_be_empty : sequence of str
        Required columns whose values may be empty.
    format : {"csv", "tsv"}, optional
        Overrides the suffix.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file
        (:func:`fuzzytruth.io.text.decompression_limit`).

    Returns
    -------
    pandas.DataFrame
        Every column of the file; ``attrs["lines"]`` holds each row's file line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "answers.tsv"
    >>> _ = path.write_text("query_id\titem\trank\rq1\ta\t1\rq1\tb\ttwo\r")
    >>> read_table(path, required=["query_id", "item", "rank"], numeric=["rank"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...answers.tsv, line 3: column 'rank' must hold finite numbers; got 'two'
    """
    fmt = format_of(path, format, ("csv", "tsv"))
    required = list(dict.fromkeys([*required, *numeric]))
    frame = read_delimited(
        path, delimiter=delimiter_of(fmt), required=required, may_be_empty=may_be_empty,
        encoding=encoding, max_decompressed_bytes=max_decompressed_bytes,
    )
    for column in numeric:
        frame[column] = finite_numbers(frame, column, os.fspath(path))
    return frame


def _check_nodes(frame: pd.DataFrame, column: str, what: str, taxonomy: Taxonomy,
                 name: str) -> None:
    """Every value of ``frame[column]`` is a node of ``taxonomy``, or a ValueError naming the
    file's line (or row) of the first that is not, and the closest nodes."""
    unknown = np.flatnonzero(pd.Index(taxonomy.nodes).get_indexer(frame[column]) < 0)
    if unknown.size:
        value = frame[column].iloc[unknown[0]]
        hint = ", ".join(repr(h) for h in closest_names(value, taxonomy.nodes)) or "none"
        raise file_error(name, f"{what} {shown(value)} is not in the taxonomy (closest: {hint})",
                         int(frame.attrs["lines"][unknown[0]]), frame.attrs.get("unit", "line"))


def read_query_categories(
    path: str | os.PathLike,
    *,
    query: str = "query_id",
    category: str = "category",
    format: str | None = None,
    taxonomy: Taxonomy | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> dict[str, str]:
    r"""Read each query's category (the target category of a query for
    :class:`~fuzzytruth.Membership`): a CSV/TSV table ``query_id, category``, one row per
    query; other columns are ignored. With ``taxonomy``, a category that is not one of its
    nodes is an error naming its line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "categories.csv"
    >>> _ = path.write_text("query_id,category\nq1,crowd\nq2,city\nq1,city\n")
    >>> read_query_categories(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...categories.csv, line 4: query 'q1' has a second category (one row per query)
    """
    fmt = format_of(path, format, ("csv", "tsv"))
    frame = read_delimited(
        path, delimiter=delimiter_of(fmt), required=[query, category], encoding=encoding,
        only_required=True, max_decompressed_bytes=max_decompressed_bytes,
    )
    again = frame[query].duplicated().to_numpy()
    if again.any():
        i = int(again.argmax())
        raise file_error(
            os.fspath(path),
            f"query {shown(frame[query].iloc[i])} has a second category (one row per query)",
            int(frame.attrs["lines"][i]),
        )
    if taxonomy is not None:
        _check_nodes(frame, category, "category", taxonomy, os.fspath(path))
    return dict(zip(frame[query], frame[category], strict=True))


# ---------------------------------------------------------------------- taxonomy
def read_taxonomy(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    child: str = "child",
    parent: str = "parent",
    implicit_root: str | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
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
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark (see :mod:`fuzzytruth.io.text`).
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file: "auto" is 200 times the file's size, at
        least 256 MiB; None, no cap (:func:`fuzzytruth.io.text.decompression_limit`).

    Notes
    -----
    In an edge list every parent needs a row of its own: the root's row has an empty parent
    (``all,`` in a CSV file). A compressed file (``tax.csv.gz``) is read like the plain one.
    Node names are strings. In JSON a list holds the names of leaves, names are not empty and
    not repeated under one parent, and the nesting is at most :data:`MAX_JSON_DEPTH` levels.
    """
    fmt = format_of(path, format, _TAXONOMY_FORMATS)
    name = os.fspath(path)
    if fmt == "json":
        return read_json_taxonomy(name, encoding, implicit_root, max_decompressed_bytes)
    frame = read_delimited(
        path,
        delimiter=delimiter_of(fmt),
        required=[child, parent],
        may_be_empty=[parent],
        encoding=encoding,
        max_decompressed_bytes=max_decompressed_bytes,
    )
    frame[parent] = frame[parent].replace("", None)
    try:
        return Taxonomy.from_frame(
            frame, child=child, parent=parent, implicit_root=implicit_root
        )
    except ValueError as err:
        sep = ", " if str(err).startswith("line ") else ": "
        raise ValueError(f"{name}{sep}{err}") from None


def _node_names(taxonomy: Taxonomy) -> dict[Hashable, str]:
    """Each node's name as written: its text as ids are compared (distinct: a taxonomy
    refuses nodes equal as text)."""
    return {node: id_text(node, "taxonomy nodes") for node in taxonomy.nodes}


def write_taxonomy(
    taxonomy: Taxonomy, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write a taxonomy as nested JSON (trees only) or a CSV/TSV edge list; round-trips with
    :func:`read_taxonomy`, which reads node names as text (the node ``0`` reads back as
    ``"0"``, ``b"x"`` as ``"x"``).

    Names that would not read back (an empty name; in CSV/TSV
    one with surrounding whitespace, a carriage return, an empty line or a line starting
    with ``#``), and in JSON a tree deeper than :data:`MAX_JSON_DEPTH`, raise a ValueError.
    Written atomically, compressed by suffix.
    """
    check_type(taxonomy, "taxonomy", Taxonomy,
               ": a table of (parent, child) edges is Taxonomy.from_frame(...) of it"
               if isinstance(taxonomy, pd.DataFrame) else "")
    fmt = format_of(path, format, _TAXONOMY_FORMATS)
    names = _node_names(taxonomy)
    if fmt == "json":
        write_json_taxonomy(taxonomy, names, path)
        return
    rows = [
        (names[c], names[p] if p is not None else "")
        for c in taxonomy.nodes
        for p in (taxonomy.parents(c) or (None,))
    ]
    frame = pd.DataFrame(rows, columns=["child", "parent"], dtype=object)
    write_delimited(frame, path, fmt, ["child"])  # every node is a child once: names checked


# ---------------------------------------------------------------------- annotations
def read_annotations(
    path: str | os.PathLike,
    *,
    taxonomy: Taxonomy | None,
    format: str | None = None,
    item: str = "item_id",
    annotator: str = "annotator_id",
    label: str = "label",
    duplicates: DuplicatePolicy = "error",
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Annotations:
    r"""Read a long annotation table (CSV, TSV or Parquet) and bind it to ``taxonomy``.

    With ``taxonomy=None`` the labels are a flat label set: :meth:`Taxonomy.flat` of the
    labels found, in sorted order (for agreement on labels without a hierarchy).

    Column names and the duplicate policy are those of
    :meth:`~fuzzytruth.annotations.Annotations.from_frame`. Ids and labels are read as strings
    (a Parquet column may hold text or integers). Files may be compressed (``labels.csv.gz``;
    see :mod:`fuzzytruth.io.text`), up to ``max_decompressed_bytes`` ("auto": 200 times the
    file's size, at least 256 MiB; None: no cap); ``encoding`` applies to a text file without
    a byte-order mark. A label that is not a node of the taxonomy is an error naming its file
    line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from fuzzytruth import Taxonomy
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = path.write_text("item_id,annotator_id,label\ni1,a,cat\ni1,b,dgo\n")
    >>> read_annotations(path, taxonomy=Taxonomy.flat(["cat", "dog"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...labels.csv, line 3: label 'dgo' is not in the taxonomy (closest: 'dog')
    """
    fmt = format_of(path, format, _TABLE_FORMATS)
    name = os.fspath(path)
    columns = [item, annotator, label]
    if fmt == "parquet":
        frame = read_parquet_columns(name, list(dict.fromkeys(columns)), max_decompressed_bytes)
    else:
        frame = read_delimited(  # a missing column held under crowd-kit's name is offered
            path, delimiter=delimiter_of(fmt), encoding=encoding,
            required={"item": item, "annotator": annotator, "label": label},
            max_decompressed_bytes=max_decompressed_bytes,
        )
    if taxonomy is not None:
        _check_nodes(frame, label, "label", taxonomy, name)
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
        raise file_error(name, str(err)) from None


def write_annotations(
    annotations: Annotations, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write the long table ``item_id, annotator_id, label`` (CSV, TSV or Parquet).

    A vote split between labels (``duplicates="split"``) is written as one row per label, which
    reads back with ``duplicates="split"``. Annotator weights are not part of the table: a
    UserWarning says so when some are not 1 (give them again to what is read back,
    :meth:`Annotations.with_annotator_weights`). Ids that would not read back raise a
    ValueError (see the module docstring; Parquet keeps any non-empty text). Written
    atomically, compressed by suffix.
    """
    check_type(annotations, "annotations", Annotations, labels_hint(annotations))
    fmt = format_of(path, format, _TABLE_FORMATS)
    weights = annotations.annotator_weights or {}
    if any(w != 1.0 for w in weights.values()):
        warn(
            f"{os.fspath(path)}: the annotators' weights are not written (the table holds "
            "item_id, annotator_id, label); give them again to what is read back: "
            "read_annotations(...).with_annotator_weights(annotations.annotator_weights)",
            UserWarning,
        )
    frame = annotations.to_frame()[["item_id", "annotator_id", "label"]]
    ids = ["item_id", "annotator_id", "label"]
    if fmt == "parquet":
        write_parquet(frame, path)
    else:
        write_delimited(frame, path, fmt, ids)


# ---------------------------------------------------------------------- probabilistic qrels
def read_probabilistic_qrels(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> ProbabilisticQrels:
    r"""Read ``query_id, doc_id, probability[, grade]`` (CSV or TSV, with a header line).

    A value that is not a finite number (text, NaN, inf), a probability outside [0, 1] or a
    grade that is not positive is an error naming its file line. Options as in
    :func:`read_annotations`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pq.csv"
    >>> _ = path.write_text("query_id,doc_id,probability\nq1,d1,0.6\nq1,d2,1\n")
    >>> read_probabilistic_qrels(path).probability.tolist()
    [0.6, 1.0]
    """
    fmt = format_of(path, format, ("csv", "tsv"))
    name = os.fspath(path)
    frame = read_delimited(
        path,
        delimiter=delimiter_of(fmt),
        required=["query_id", "doc_id", "probability"],
        encoding=encoding,
        max_decompressed_bytes=max_decompressed_bytes,
    )
    has_grade = "grade" in frame.columns
    rules = {"probability": ("in [0, 1]", lambda v: (v >= 0) & (v <= 1))}
    if has_grade:
        rules["grade"] = ("> 0 (the grade of a relevant document)", lambda v: v > 0)
    for column, (rule, ok) in rules.items():
        values = finite_numbers(frame, column, name)
        bad = np.flatnonzero(~ok(values))
        if bad.size:
            raise file_error(
                name, f"column {column!r} must be {rule}; got {shown(frame[column].iloc[bad[0]])}",
                int(frame.attrs["lines"][bad[0]]),
            )
        frame[column] = values
    try:
        return ProbabilisticQrels(
            frame["query_id"], frame["doc_id"], frame["probability"],
            frame["grade"] if has_grade else None, source=name,
            line_numbers=frame.attrs["lines"],
        )
    except ValueError as err:
        raise err if str(err).startswith(name) else file_error(name, str(err)) from None


def write_probabilistic_qrels(
    qrels: ProbabilisticQrels, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write ``query_id, doc_id, probability, grade``; round-trips with
    :func:`read_probabilistic_qrels`. Ids that would not read back raise a ValueError; numbers
    are written in the shortest form that reads back exactly. Written atomically, compressed
    by suffix."""
    check_type(qrels, "qrels", ProbabilisticQrels,
               ": a table of (query, document, probability) rows is "
               "ProbabilisticQrels.from_dataframe(...) of it"
               if isinstance(qrels, pd.DataFrame) else "")
    fmt = format_of(path, format, ("csv", "tsv"))
    frame = qrels.to_dataframe()
    for column in ("probability", "grade"):
        frame[column] = pd.array(number_text(frame[column].to_numpy(np.float64)), dtype="str")
    write_delimited(frame, path, fmt, ["query_id", "doc_id"])
