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
with surrounding whitespace, a ``\r``, an empty line or a line starting with ``#`` inside a
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

import csv
import io
import json
import os
import sys
import threading
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from fuzzytruth.annotations import Annotations, DuplicatePolicy
from fuzzytruth.io.output import COMPRESSED_SUFFIXES, open_output
from fuzzytruth.io.text import (
    NUMBER,
    MaxBytes,
    Text,
    decompression_limit,
    file_error,
    load_text,
    read_bytes,
    shown,
    to_utf8,
)
from fuzzytruth.taxonomy import Taxonomy, closest_names
from fuzzytruth.truth.probabilistic_qrels import ProbabilisticQrels

__all__ = [
    "MAX_JSON_DEPTH",
    "read_annotations",
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

#: Deepest nesting of a JSON taxonomy (levels below the root); a deeper one is an error that
#: says to write it as a CSV/TSV edge list, which has no such limit.
MAX_JSON_DEPTH = 256


def _format_of(path: str | os.PathLike, given: str | None, allowed: tuple[str, ...]) -> str:
    """The format ``given``, else the file's suffix before any compression suffix."""
    suffixes = [x.lower() for x in Path(path).suffixes]
    while suffixes and suffixes[-1] in COMPRESSED_SUFFIXES:
        suffixes.pop()
    fmt = given or (suffixes[-1].lstrip(".") if suffixes else "")
    if fmt not in allowed:
        raise ValueError(
            f"format must be one of {allowed} (or a file ending in one of them); got {fmt!r} "
            f"for {os.fspath(path)!r}"
        )
    return fmt


def _delimiter(fmt: str) -> str:
    return "," if fmt == "csv" else "\t"


def _header(text: Text, delimiter: str, required: Sequence[str]) -> list[str]:
    if not text.data:
        raise file_error(text.path, "the file is empty (expected a header line)")
    first = text.data[: text.data.find(b"\n") + 1 or len(text.data)].decode("utf-8")
    with _long_fields(len(first)):
        header = [f.strip() for f in next(csv.reader([first], delimiter=delimiter))]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise text.error(0, f"the header names column {shown(twice[0])} twice")
    missing = [c for c in required if c not in header]
    if missing:
        shown_header = header if len(header) <= 12 else [*header[:12], f"… {len(header)} in all"]
        raise text.error(
            0,
            f"header must name the columns {list(required)}; missing {missing} (found "
            f"{shown(shown_header, 300)})",
        )
    return header


_FIELD_LIMIT = threading.Lock()


@contextmanager
def _long_fields(size: int) -> Iterator[None]:
    """Python's CSV reader accepting values of up to ``size`` characters (its limit is 128
    KiB by default, and process-wide: raised for this read only, under a lock)."""
    with _FIELD_LIMIT:
        limit = csv.field_size_limit()
        csv.field_size_limit(max(limit, min(size + 1, sys.maxsize)))
        try:
            yield
        finally:
            csv.field_size_limit(limit)


def _records(text: Text, delimiter: str) -> Iterator[tuple[list[str], int]]:
    """Every CSV record of ``text`` (quoted values may span lines) with the index in
    ``text.lines`` of its first line, by Python's CSV reader (a value may be as long as the
    file). A quoted value still open at the end of the file is an error naming its line."""
    out: list[tuple[list[str], int]] = []
    with _long_fields(len(text.data)):
        for strict in (True, False):
            out.clear()
            reader = csv.reader(
                io.StringIO(text.data.decode("utf-8"), newline=""),
                delimiter=delimiter, strict=strict,
            )
            start = 0
            try:
                for fields in reader:
                    out.append((fields, start))
                    start = reader.line_num
                break
            except csv.Error as err:
                if "end of data" in str(err) or not strict:
                    raise text.error(
                        start, "a quoted value opened on this line is never closed"
                        if "end of data" in str(err) else f"malformed CSV ({err})"
                    ) from None
                # other strict complaints ('"a"b'): read leniently, as pyarrow does
    yield from out


def _parse(data: bytes, delimiter: str, header: list[str], keep: list[str] | None) -> pa.Table:
    """pyarrow's reader, every value a string, the columns named by ``header`` (the header
    line's names, stripped); a block as large as the file if a record is longer than
    pyarrow's default block (1 MiB)."""
    def read(block: int | None) -> pa.Table:
        options = pa_csv.ReadOptions(column_names=header, skip_rows=1)
        if block:
            options.block_size = block
        return pa_csv.read_csv(
            pa.BufferReader(data),
            read_options=options,
            parse_options=pa_csv.ParseOptions(delimiter=delimiter),
            convert_options=pa_csv.ConvertOptions(
                include_columns=keep,
                column_types=dict.fromkeys(header, pa.string()),
                strings_can_be_null=False,
                null_values=[],
            ),
        )

    try:
        return read(None)
    except pa.ArrowInvalid as err:
        if "straddl" not in str(err):
            raise
        return read(len(data) + 1)


def _unterminated_at_end(text: Text, delimiter: str) -> bool:
    """Whether the last line opens a quoted value that the file never closes (pyarrow
    reads it as ending with the file)."""
    last = text.data[text.data.rfind(b"\n", 0, len(text.data) - 1) + 1 :].decode("utf-8")
    try:
        with _long_fields(len(last)):
            list(csv.reader([last], delimiter=delimiter, strict=True))
    except csv.Error as err:
        return "end of data" in str(err) or "new-line" in str(err)
    return False


def _by_records(text: Text, delimiter: str, header: list[str],
                keep: list[str] | None) -> tuple[dict[str, Any], np.ndarray]:
    """Columns from Python's CSV reader (a file whose quoted values span lines, or a malformed
    one: errors name the line)."""
    records = list(_records(text, delimiter))[1:]
    for fields, start in records:
        if len(fields) != len(header):
            raise text.error(
                start,
                f"expected {len(header)} fields ({shown(', '.join(header), 200)}), found "
                f"{len(fields)}",
            )
    names = header if keep is None else [h for h in header if h in keep]
    columns = {
        name: pa.array([fields[header.index(name)] for fields, _ in records], type=pa.string())
        for name in names
    }
    lines = text.lines[np.asarray([start for _, start in records], dtype=np.int64)]
    return columns, lines


def read_delimited(
    path: str | os.PathLike,
    *,
    delimiter: str,
    required: Sequence[str],
    may_be_empty: Sequence[str] = (),
    encoding: str = "utf-8",
    only_required: bool = False,
    max_decompressed_bytes: MaxBytes = "auto",
) -> pd.DataFrame:
    """A CSV/TSV table with a header line, every value a stripped string.

    The file goes through :func:`~fuzzytruth.io.text.load_text` (compression and its cap,
    byte-order mark, encoding, line ends, ``#`` comment and empty lines) and is parsed by
    pyarrow's CSV reader. Quoted values may span lines (crowdsourcing exports hold whole
    documents) and be of any length: such files, and malformed ones, are read by Python's CSV
    reader, which finds each record's first line (an empty line or a line starting with ``#``
    inside a quoted value is dropped like any other). Raises ``ValueError`` naming the file
    and line for a missing or repeated header column, a record with the wrong number of
    fields, a quoted value never closed, or an empty value in a ``required`` column not in
    ``may_be_empty``; and naming the file for an empty file or one without rows. The frame's
    ``attrs["lines"]`` holds the file line of each row, for later messages. ``only_required``
    keeps the required columns only (faster on wide exports).
    """
    text = load_text(path, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes)
    header = _header(text, delimiter, required)
    keep = list(required) if only_required else None
    try:  # pyarrow.ArrowInvalid is a ValueError
        table, rows = _parse(text.data, delimiter, header, keep), text.lines[1:]
        if table.num_rows != len(rows) or _unterminated_at_end(text, delimiter):
            raise ValueError("records span lines")
        columns = dict(zip(table.column_names, table.columns, strict=True))
    except ValueError:  # a bad line, line breaks inside values, a quote never closed
        columns, rows = _by_records(text, delimiter, header, keep)
    out = {}
    for name, column in columns.items():
        stripped = pc.utf8_trim_whitespace(column)
        if name in required and name not in may_be_empty:
            empty = np.flatnonzero(pc.equal(stripped, "").to_numpy(zero_copy_only=False))
            if empty.size:
                raise file_error(
                    text.path, f"empty value in column {name!r}", int(rows[empty[0]])
                )
        out[name] = pd.array(stripped, dtype="str")
    if not len(rows):
        raise file_error(text.path, "no rows after the header line")
    frame = pd.DataFrame(out, index=pd.RangeIndex(len(rows)))
    frame.attrs["lines"] = rows
    return frame


def finite_numbers(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    """Column ``column`` of a frame from :func:`read_delimited` as finite floats, or a
    ValueError naming file ``name`` and the line of the first value that is not one (the
    numbers :data:`~fuzzytruth.io.text.NUMBER` describes; ``1e400`` is not finite)."""
    strings = pa.array(frame[column].astype(str).array, type=pa.string())
    ok = pc.match_substring_regex(strings, NUMBER.pattern).to_numpy(zero_copy_only=False)
    values = np.full(len(strings), np.nan)
    values[ok] = pc.cast(strings.filter(pa.array(ok)), pa.float64()).to_numpy()
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(
            f"{name}, {frame.attrs.get('unit', 'line')} {int(frame.attrs['lines'][bad[0]])}: "
            f"column {column!r} must hold finite numbers; got {shown(frame[column].iloc[bad[0]])}"
        )
    return values


def _unreadable(values: pd.Series) -> np.ndarray:
    """Which values a CSV/TSV file would not give back as they are: empty, surrounded by
    whitespace (the reader strips it), holding a CR (read as a line end), an empty line or a
    line starting with ``#`` (dropped like a blank or comment line)."""
    text = pa.array(values.astype(str).array, type=pa.string())
    stripped = pc.utf8_trim_whitespace(text)
    bad = pc.or_(pc.equal(text, ""), pc.not_equal(stripped, text))
    for part in ("\r", "\n\n", "\n#"):
        bad = pc.or_(bad, pc.match_substring(text, part))
    return bad.to_numpy(zero_copy_only=False)


def _check_readable(frame: pd.DataFrame, ids: Sequence[str]) -> None:
    for column in ids:
        bad = _unreadable(frame[column])
        if bad.any():
            raise ValueError(
                f"{column} {shown(frame[column][bad].iloc[0])} would not read back from a "
                "CSV/TSV file: values are stripped of surrounding whitespace, may not be empty, "
                "and may not hold a carriage return, an empty line or a line starting with '#'"
            )


def write_delimited(
    frame: pd.DataFrame, path: str | os.PathLike, fmt: str, ids: Sequence[str]
) -> None:
    """Write ``frame`` as CSV/TSV (atomically, compressed by suffix) so that
    :func:`read_delimited` reads it back.

    Values of the ``ids`` columns that would not read back (see the module docstring) raise a
    ValueError naming the value. When a first-column value starts with ``#``, every field is
    quoted, so that the line is not taken for a comment.
    """
    _check_readable(frame, ids)
    first = frame.iloc[:, 0].astype(str).str.startswith("#").any()
    with open_output(path) as handle:
        frame.to_csv(
            handle,
            sep=_delimiter(fmt),
            index=False,
            quoting=csv.QUOTE_ALL if first else csv.QUOTE_MINIMAL,
            lineterminator="\n",
        )


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
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "answers.tsv")
    >>> _ = open(path, "w").write("query_id\titem\trank\rq1\ta\t1\rq1\tb\ttwo\r")
    >>> read_table(path, required=["query_id", "item", "rank"], numeric=["rank"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...answers.tsv, line 3: column 'rank' must hold finite numbers; got 'two'
    """
    fmt = _format_of(path, format, ("csv", "tsv"))
    required = list(dict.fromkeys([*required, *numeric]))
    frame = read_delimited(
        path, delimiter=_delimiter(fmt), required=required, may_be_empty=may_be_empty,
        encoding=encoding, max_decompressed_bytes=max_decompressed_bytes,
    )
    for column in numeric:
        frame[column] = finite_numbers(frame, column, os.fspath(path))
    return frame


def read_query_categories(
    path: str | os.PathLike,
    *,
    query: str = "query_id",
    category: str = "category",
    format: str | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> dict[str, str]:
    r"""Read each query's category (the target category of a query for
    :class:`~fuzzytruth.Membership`): a CSV/TSV table ``query_id, category``, one row per
    query; other columns are ignored.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "categories.csv")
    >>> _ = open(path, "w").write("query_id,category\nq1,crowd\nq2,city\nq1,city\n")
    >>> read_query_categories(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...categories.csv, line 4: query 'q1' has a second category (one row per query)
    """
    fmt = _format_of(path, format, ("csv", "tsv"))
    frame = read_delimited(
        path, delimiter=_delimiter(fmt), required=[query, category], encoding=encoding,
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
    return dict(zip(frame[query], frame[category], strict=True))


# ---------------------------------------------------------------------- taxonomy
class _RepeatedKey(ValueError):
    pass


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json ``object_pairs_hook``: a name given twice under one parent is an error (the json
    module would keep the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def _check_nested(name: str, tree: Any) -> None:
    """The JSON taxonomy's shape, walked without recursion: objects of objects, lists of
    names or null; names non-empty strings; at most :data:`MAX_JSON_DEPTH` levels."""
    if not isinstance(tree, dict):
        raise file_error(
            name, f"expected a JSON object (a nested mapping), found {type(tree).__name__}", 1
        )
    stack: list[tuple[Any, int, str]] = [(tree, 0, "the top level")]
    while stack:
        node, depth, where = stack.pop()  # the names in node are at depth ``depth``
        if depth > MAX_JSON_DEPTH and node:
            raise file_error(
                name,
                f"the taxonomy is nested more than {MAX_JSON_DEPTH} levels deep; write a "
                "taxonomy this deep as a CSV/TSV edge list",
            )
        if isinstance(node, dict):
            for key, sub in node.items():
                if not key.strip():
                    raise file_error(name, f"an empty node name under {where}")
                if sub is not None:
                    stack.append((sub, depth + 1, shown(key)))
        elif isinstance(node, list):
            for item in node:
                if not isinstance(item, str) or not item.strip():
                    kind = "an empty name" if isinstance(item, str) else (
                        f"a JSON {'object' if isinstance(item, dict) else type(item).__name__}"
                    )
                    raise file_error(
                        name,
                        f"the list under {where} holds {kind}; a list holds the names of "
                        'leaves (["a", "b"]); give children with subtrees as an object '
                        '({"a": {...}, "b": {}})',
                    )
        else:
            raise file_error(
                name,
                f"the children of {where} must be an object, a list of names or null; got "
                f"{shown(node)}",
            )


def _read_json_taxonomy(name: str, encoding: str, implicit_root: str | None,
                        max_decompressed_bytes: MaxBytes) -> Taxonomy:
    data = to_utf8(read_bytes(name, max_decompressed_bytes=max_decompressed_bytes), name,
                   encoding)
    try:
        tree = json.loads(data.decode("utf-8"), object_pairs_hook=_no_repeated_keys)  # UTF-8:
        # to_utf8 checked it; json.loads on bytes would guess UTF-16 from a leading NUL byte
    except _RepeatedKey as err:
        raise file_error(
            name, f"node {shown(err.args[0])} is given twice under one parent"
        ) from None
    except json.JSONDecodeError as err:
        raise file_error(
            name,
            f"invalid JSON ({err.msg}); expected a nested mapping such as "
            '{"all": {"people": {}, "scenery": {}}}',
            err.lineno,
        ) from None
    except RecursionError:
        raise file_error(
            name,
            f"the taxonomy is nested more than {MAX_JSON_DEPTH} levels deep; write a "
            "taxonomy this deep as a CSV/TSV edge list",
        ) from None
    _check_nested(name, tree)
    try:
        return Taxonomy.from_nested(tree, implicit_root=implicit_root)
    except ValueError as err:
        raise file_error(name, str(err)) from None


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
    fmt = _format_of(path, format, _TAXONOMY_FORMATS)
    name = os.fspath(path)
    if fmt == "json":
        return _read_json_taxonomy(name, encoding, implicit_root, max_decompressed_bytes)
    frame = read_delimited(
        path,
        delimiter=_delimiter(fmt),
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
    """Each node's name as written (``str``), or a ValueError when two nodes share one."""
    names = {node: str(node) for node in taxonomy.nodes}
    seen: dict[str, Hashable] = {}
    for node, text in names.items():
        if text in seen:
            raise ValueError(
                f"nodes {seen[text]!r} and {node!r} are both written {text!r}: a taxonomy file "
                "holds names as text, so they would read back as one node"
            )
        seen[text] = node
    return names


def write_taxonomy(
    taxonomy: Taxonomy, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write a taxonomy as nested JSON (trees only) or a CSV/TSV edge list; round-trips with
    :func:`read_taxonomy`, which reads node names as text (``str(node)``: the node ``0``
    reads back as ``"0"``).

    Names that would not read back (two nodes with the same text; an empty name; in CSV/TSV
    one with surrounding whitespace, a carriage return, an empty line or a line starting
    with ``#``), and in JSON a tree deeper than :data:`MAX_JSON_DEPTH`, raise a ValueError.
    Written atomically, compressed by suffix.
    """
    fmt = _format_of(path, format, _TAXONOMY_FORMATS)
    names = _node_names(taxonomy)
    if fmt == "json":
        if not taxonomy.is_tree:
            raise ValueError(
                "nested JSON holds trees only; write a DAG as a .csv or .tsv edge list"
            )
        if int(taxonomy.depths.max()) > MAX_JSON_DEPTH:
            raise ValueError(
                f"the taxonomy is {int(taxonomy.depths.max())} levels deep; nested JSON "
                f"holds at most {MAX_JSON_DEPTH}: write it as a .csv or .tsv edge list"
            )
        if any(not text.strip() for text in names.values()):
            raise ValueError("a node with an empty name would not read back from JSON")
        nested: dict[str, Any] = {}
        stack: list[tuple[Hashable, dict[str, Any]]] = [(taxonomy.root, nested)]
        while stack:
            node, into = stack.pop()
            into[names[node]] = below = {}
            stack.extend((c, below) for c in reversed(taxonomy.children(node)))
        # children are added in order: pop() takes the first child first
        with open_output(path) as handle:
            json.dump(nested, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        return
    rows = [
        (names[c], names[p] if p is not None else "")
        for c in taxonomy.nodes
        for p in (taxonomy.parents(c) or (None,))
    ]
    frame = pd.DataFrame(rows, columns=["child", "parent"], dtype=object)
    write_delimited(frame, path, fmt, ["child"])  # every node is a child once: names checked


# ---------------------------------------------------------------------- annotations
def _read_parquet(
    name: str, columns: list[str], max_decompressed_bytes: MaxBytes
) -> pd.DataFrame:
    """The ``columns`` of a Parquet file (compressed as a whole or not) as string columns;
    errors name the file (and the 1-based row)."""
    import pyarrow.parquet as pq

    data = read_bytes(name, max_decompressed_bytes=max_decompressed_bytes)
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        meta = parquet.metadata
        limit = decompression_limit(max_decompressed_bytes, len(data))
        decoded = max(
            sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)),
            8 * meta.num_rows * max(meta.num_columns, 1),
        )
        if limit is not None and decoded > limit:
            raise file_error(
                name,
                f"this Parquet file decodes to about {decoded:,} bytes, more than "
                f"{limit:,} (see max_decompressed_bytes; None: no limit)",
            )
        found = parquet.schema_arrow.names
        missing = [c for c in columns if c not in found]
        if missing:
            raise file_error(name, f"missing column(s) {missing}; found {shown(found, 300)}")
        table = parquet.read(columns=columns, use_pandas_metadata=False)
    except ValueError as err:  # pyarrow.ArrowInvalid and ours
        if str(err).startswith(name):
            raise
        raise file_error(name, f"not a readable Parquet file ({_first_line(err)})") from None
    except (pa.ArrowException, OSError, KeyError, IndexError, TypeError) as err:
        raise file_error(name, f"not a readable Parquet file ({_first_line(err)})") from None
    out = {}
    for column in columns:
        values = table.column(column)
        kind = values.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_integer(kind)):
            raise file_error(
                name, f"column {column!r} must hold text or integers; it holds {kind}"
            )
        values = pc.cast(values, pa.string())
        try:  # Parquet does not check that its strings are UTF-8
            values.validate(full=True)
        except pa.ArrowInvalid:
            raise file_error(
                name, f"column {column!r} holds bytes that are not valid UTF-8 text"
            ) from None
        empty = pc.or_kleene(values.is_null(), pc.equal(values, ""))
        rows = np.flatnonzero(empty.to_numpy(zero_copy_only=False))
        if rows.size:
            what = "a missing" if values[int(rows[0])].as_py() is None else "an empty"
            raise file_error(name, f"{what} value in column {column!r}, row {int(rows[0]) + 1}")
        out[column] = pd.array(values, dtype="str")
    frame = pd.DataFrame(out)
    frame.attrs["lines"] = np.arange(1, len(frame) + 1)
    frame.attrs["unit"] = "row"
    return frame


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return shown(text[0] if text else type(err).__name__, 200)[1:-1]


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
        frame = _read_parquet(name, list(dict.fromkeys(columns)), max_decompressed_bytes)
    else:
        frame = read_delimited(
            path, delimiter=_delimiter(fmt), required=columns, encoding=encoding,
            max_decompressed_bytes=max_decompressed_bytes,
        )
    where, lines = frame.attrs.get("unit", "line"), frame.attrs["lines"]
    if taxonomy is None:
        taxonomy = Taxonomy.flat(sorted(pd.unique(frame[label])))
    known = pd.Index(taxonomy.nodes)
    unknown = np.flatnonzero(known.get_indexer(frame[label]) < 0)
    if unknown.size:
        value = frame[label].iloc[unknown[0]]
        hint = ", ".join(repr(h) for h in closest_names(value, taxonomy.nodes)) or "none"
        raise ValueError(
            f"{name}, {where} {int(lines[unknown[0]])}: label {shown(value)} is not in the "
            f"taxonomy (closest: {hint})"
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
        raise file_error(name, str(err)) from None


def write_annotations(
    annotations: Annotations, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write the long table ``item_id, annotator_id, label`` (CSV, TSV or Parquet).

    A vote split between labels (``duplicates="split"``) is written as one row per label, which
    reads back with ``duplicates="split"``. Ids that would not read back raise a ValueError
    (see the module docstring; Parquet keeps any non-empty text). Written atomically,
    compressed by suffix.
    """
    fmt = _format_of(path, format, _TABLE_FORMATS)
    frame = annotations.to_frame()[["item_id", "annotator_id", "label"]]
    ids = ["item_id", "annotator_id", "label"]
    if fmt == "parquet":
        for column in ids:
            text = frame[column].astype(str)
            if (text == "").any():
                raise ValueError(f"an empty {column} would not read back from a Parquet file")
        table = pa.Table.from_pandas(frame.astype(str), preserve_index=False)
        import pyarrow.parquet as pq

        with open_output(path, binary=True) as handle:
            pq.write_table(table, handle)
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
        delimiter=_delimiter(fmt),
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
        return ProbabilisticQrels.from_dataframe(frame, grade_col="grade" if has_grade else None)
    except ValueError as err:
        raise file_error(name, str(err)) from None


def write_probabilistic_qrels(
    qrels: ProbabilisticQrels, path: str | os.PathLike, *, format: str | None = None
) -> None:
    """Write ``query_id, doc_id, probability, grade``; round-trips with
    :func:`read_probabilistic_qrels`. Ids that would not read back raise a ValueError; numbers
    are written in the shortest form that reads back exactly. Written atomically, compressed
    by suffix."""
    fmt = _format_of(path, format, ("csv", "tsv"))
    frame = qrels.to_dataframe()
    for column in ("probability", "grade"):
        frame[column] = pc.cast(pa.array(frame[column].to_numpy(np.float64)), pa.string())
    write_delimited(frame, path, fmt, ["query_id", "doc_id"])
