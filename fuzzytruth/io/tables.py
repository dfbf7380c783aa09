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

Text files (everything but Parquet) go through :func:`fuzzytruth.io.text.load_text`, like the
TREC files: compression recognised from the content (``labels.csv.gz`` is a CSV file), a
byte-order mark removed, an ``encoding`` option for files that are not UTF-8, lines starting
with ``#`` (comments) and blank lines skipped. They are parsed by pyarrow's CSV reader.

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
import io
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from fuzzytruth.annotations import Annotations, DuplicatePolicy
from fuzzytruth.io.text import Text, load_text, read_bytes, to_utf8
from fuzzytruth.taxonomy import Taxonomy, closest_names
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels

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


_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zip")


def _format_of(path: str | os.PathLike, given: str | None, allowed: tuple[str, ...]) -> str:
    """The format ``given``, else the file's suffix before any compression suffix."""
    suffixes = [x.lower() for x in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED_SUFFIXES:
        suffixes.pop()
    fmt = given or (suffixes[-1].lstrip(".") if suffixes else "")
    if fmt not in allowed:
        raise ValueError(
            f"format must be one of {allowed} (or a file ending in one of them); got {fmt!r} "
            f"for {os.fspath(path)!r}"
        )
    return fmt


def _header(text: Text, delimiter: str, required: Sequence[str]) -> list[str]:
    if not text.data:
        raise ValueError(f"{text.path}: the file is empty (expected a header line)")
    first = text.data[: text.data.find(b"\n") + 1 or len(text.data)].decode("utf-8")
    header = [f.strip() for f in next(csv.reader([first], delimiter=delimiter))]
    missing = [c for c in required if c not in header]
    if missing:
        shown = header if len(header) <= 12 else [*header[:12], f"… {len(header)} in all"]
        raise ValueError(
            f"{text.where(0)}: header must name the columns {list(required)}; "
            f"missing {missing} (found {shown})"
        )
    return header


def _records(text: Text, delimiter: str) -> Iterator[tuple[list[str], int]]:
    """Every CSV record of ``text`` (quoted values may span lines) with the index in
    ``text.lines`` of its first line."""
    reader = csv.reader(io.StringIO(text.data.decode("utf-8"), newline=""), delimiter=delimiter)
    start = 0
    for fields in reader:
        yield fields, start
        start = reader.line_num


def _parse(text: Text, delimiter: str, header: list[str], keep: list[str] | None,
           multiline: bool) -> pa.Table:
    return pa_csv.read_csv(
        pa.BufferReader(text.data),
        parse_options=pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=multiline),
        convert_options=pa_csv.ConvertOptions(
            include_columns=keep,
            column_types=dict.fromkeys(header, pa.string()),
            strings_can_be_null=False,
            null_values=[],
        ),
    )


def read_delimited(
    path: str | os.PathLike,
    *,
    delimiter: str,
    required: Sequence[str],
    may_be_empty: Sequence[str] = (),
    encoding: str = "utf-8",
    only_required: bool = False,
) -> pd.DataFrame:
    """A CSV/TSV table with a header line, every value a stripped string.

    The file goes through :func:`~fuzzytruth.io.text.load_text` (compression, byte-order mark,
    encoding, ``#`` comment and blank lines) and is parsed by pyarrow's CSV reader. Quoted
    values may span lines (crowdsourcing exports hold whole documents): such files are parsed
    a second time, and Python's CSV reader finds each record's first line (a blank line or a
    line starting with ``#`` inside a quoted value is dropped like any other). Raises
    ``ValueError`` naming the file and line for a missing header column, a record with the
    wrong number of fields, or an empty value in a ``required`` column not in
    ``may_be_empty``. The frame's ``attrs["lines"]`` holds the file line of each row, for
    later messages. ``only_required`` keeps the required columns only (faster on wide
    exports).
    """
    text = load_text(path, encoding=encoding)
    header = _header(text, delimiter, required)
    keep = list(required) if only_required else None
    try:
        table, rows = _parse(text, delimiter, header, keep, multiline=False), text.lines[1:]
        if table.num_rows != len(rows):  # line breaks inside quoted values
            raise ValueError("records span lines")
    except ValueError:  # pyarrow.ArrowInvalid: a bad line, or line breaks inside values
        records = list(_records(text, delimiter))
        for fields, start in records[1:]:
            if len(fields) != len(header):
                raise ValueError(
                    f"{text.where(start)}: expected {len(header)} fields "
                    f"({', '.join(header)}), found {len(fields)}"
                ) from None
        try:
            table = _parse(text, delimiter, header, keep, multiline=True)
        except ValueError as err:
            raise ValueError(f"{text.path}: {err}") from None
        rows = text.lines[[start for _, start in records[1:]]]
    columns = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        stripped = pc.utf8_trim_whitespace(column)
        if name in required and name not in may_be_empty:
            empty = np.flatnonzero(pc.equal(stripped, "").to_numpy(zero_copy_only=False))
            if empty.size:
                raise ValueError(
                    f"{text.path}, line {int(rows[empty[0]])}: empty value in column {name!r}"
                )
        columns[name] = pd.array(stripped, dtype="str")
    frame = pd.DataFrame(columns)
    frame.attrs["lines"] = rows
    return frame


def write_delimited(
    frame: pd.DataFrame, path: str | os.PathLike, fmt: str, ids: Sequence[str]
) -> None:
    """Write ``frame`` as CSV/TSV so that :func:`read_delimited` reads it back.

    Values of the ``ids`` columns that would not read back (empty, or with leading or
    trailing whitespace, which the reader strips) raise a ValueError naming the value. When a
    first-column value starts with ``#``, every field is quoted, so that the line is not
    taken for a comment.
    """
    for column in ids:
        text = frame[column].astype(str)
        bad = (text == "") | (text.str.strip() != text)
        if bad.any():
            raise ValueError(
                f"{column} {text[bad.to_numpy()].iloc[0]!r} would not read back: values are "
                "stripped of surrounding whitespace and may not be empty"
            )
    first = frame.iloc[:, 0].astype(str).str.startswith("#").any()
    frame.to_csv(
        path,
        sep="," if fmt == "csv" else "\t",
        index=False,
        quoting=csv.QUOTE_ALL if first else csv.QUOTE_MINIMAL,
    )


# ---------------------------------------------------------------------- taxonomy
def read_taxonomy(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    child: str = "child",
    parent: str = "parent",
    implicit_root: str | None = None,
    encoding: str = "utf-8",
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

    Notes
    -----
    In an edge list every parent needs a row of its own: the root's row has an empty parent
    (``all,`` in a CSV file). A compressed file (``tax.csv.gz``) is read like the plain one.
    """
    fmt = _format_of(path, format, _TAXONOMY_FORMATS)
    name = os.fspath(path)
    if fmt == "json":
        try:
            tree = json.loads(to_utf8(read_bytes(name), name, encoding))
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
    frame = read_delimited(
        path,
        delimiter="," if fmt == "csv" else "\t",
        required=[child, parent],
        may_be_empty=[parent],
        encoding=encoding,
    )
    frame[parent] = frame[parent].replace("", None)
    try:
        return Taxonomy.from_frame(
            frame, child=child, parent=parent, implicit_root=implicit_root
        )
    except ValueError as err:
        sep = ", " if str(err).startswith("line ") else ": "
        raise ValueError(f"{name}{sep}{err}") from None


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
    write_delimited(taxonomy.to_frame(), path, fmt, ["child"])


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
) -> Annotations:
    r"""Read a long annotation table (CSV, TSV or Parquet) and bind it to ``taxonomy``.

    With ``taxonomy=None`` the labels are a flat label set: :meth:`Taxonomy.flat` of the
    labels found, in sorted order (for agreement on labels without a hierarchy).

    Column names and the duplicate policy are those of
    :meth:`~fuzzytruth.annotations.Annotations.from_frame`. Ids and labels are read as strings.
    CSV/TSV files may be compressed (``labels.csv.gz``; see :mod:`fuzzytruth.io.text`);
    ``encoding`` applies to a file without a byte-order mark. A label that is not a node of
    the taxonomy is an error naming its file line.

    Examples
    --------
    >>> import tempfile, os
    >>> from fuzzytruth import Taxonomy
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.csv")
    >>> _ = open(path, "w").write("item_id,annotator_id,label\ni1,a,cat\ni1,b,dgo\n")
    >>> read_annotations(path, taxonomy=Taxonomy.flat(["cat", "dog"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...labels.csv, line 3: label 'dgo' is not in the taxonomy (closest: 'dog')
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
        where = "row"
        lines = np.arange(len(frame))
    else:
        frame = read_delimited(
            path, delimiter="," if fmt == "csv" else "\t", required=columns, encoding=encoding
        )
        where, lines = "line", frame.attrs["lines"]
    if taxonomy is None:
        taxonomy = Taxonomy.flat(sorted(pd.unique(frame[label])))
    known = pd.Index(taxonomy.nodes)
    unknown = np.flatnonzero(known.get_indexer(frame[label]) < 0)
    if unknown.size:
        value = frame[label].iloc[unknown[0]]
        hint = ", ".join(repr(h) for h in closest_names(value, taxonomy.nodes)) or "none"
        raise ValueError(
            f"{name}, {where} {int(lines[unknown[0]])}: label {value!r} is not in the taxonomy "
            f"(closest: {hint})"
        )
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
        write_delimited(frame, path, fmt, ["item_id", "annotator_id", "label"])


# ---------------------------------------------------------------------- probabilistic qrels
def read_probabilistic_qrels(
    path: str | os.PathLike, *, format: str | None = None, encoding: str = "utf-8"
) -> ProbabilisticQrels:
    r"""Read ``query_id, doc_id, probability[, grade]`` (CSV or TSV, with a header line).

    A value that is not a finite number (text, NaN, inf) is an error naming its file line.

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
        encoding=encoding,
    )
    numeric = ["probability"] + (["grade"] if "grade" in frame.columns else [])
    for column in numeric:
        frame[column] = finite_numbers(frame, column, name)
    try:
        return ProbabilisticQrels.from_dataframe(
            frame, grade_col="grade" if "grade" in frame.columns else None
        )
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def finite_numbers(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    """Column ``column`` of a frame from :func:`read_delimited` as finite floats, or a
    ValueError naming file ``name`` and the line of the first value that is not one."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(
            f"{name}, line {int(frame.attrs['lines'][bad[0]])}: column {column!r} must hold "
            f"finite numbers; got {frame[column].iloc[bad[0]]!r}"
        )
    return values


def write_probabilistic_qrels(
    qrels: ProbabilisticQrels, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write ``query_id, doc_id, probability, grade``; round-trips with
    :func:`read_probabilistic_qrels`."""
    fmt = _format_of(path, format, ("csv", "tsv"))
    write_delimited(qrels.to_dataframe(), path, fmt, ["query_id", "doc_id"])
