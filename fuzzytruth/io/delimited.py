"""Delimited tables (CSV, TSV) with a header line: the parser and the writer every table
format of the package shares (taxonomy edge lists, annotations, probabilistic qrels, query
categories, any other table through :func:`fuzzytruth.io.tables.read_table`).

Reading: the file goes through :func:`fuzzytruth.io.text.load_text` (compression and its cap,
byte-order mark, encoding, LF/CRLF/CR line ends, ``#`` comment and empty lines dropped);
pyarrow's CSV reader parses it, every value a string stripped of surrounding whitespace, the
columns named by the header line's stripped names. Files it cannot read as one line per
record (quoted values spanning lines, or malformed ones) are read by Python's ``csv`` module,
which finds the line of each record and of any error; values may be of any length.

Writing: :func:`write_delimited` refuses values the reader would refuse or change and writes
through :func:`fuzzytruth.io.output.open_output` (atomic, compressed by suffix).
"""

from __future__ import annotations

import csv
import io
import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from fuzzytruth._validation import other_names
from fuzzytruth.io.output import COMPRESSED_SUFFIXES, open_output
from fuzzytruth.io.text import (
    NUMBER,
    MaxBytes,
    Text,
    file_error,
    file_path,
    load_text,
    parser_pool,
    shown,
)

__all__ = [
    "check_readable",
    "delimiter_of",
    "finite_numbers",
    "format_of",
    "read_delimited",
    "write_delimited",
]


def format_of(path: str | os.PathLike, given: str | None, allowed: tuple[str, ...]) -> str:
    """The format ``given``, else the file's suffix before any compression suffix.

    Examples
    --------
    >>> format_of("judgments.tsv.gz", None, ("csv", "tsv"))
    'tsv'
    >>> format_of("judgments.txt", None, ("csv", "tsv"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: judgments.txt: the format is read from the file name, which must end in one of...
    """
    suffixes = [x.lower() for x in Path(file_path(path)).suffixes]
    while suffixes and suffixes[-1] in COMPRESSED_SUFFIXES:
        suffixes.pop()
    fmt = given or (suffixes[-1].lstrip(".") if suffixes else "")
    if fmt in allowed:
        return fmt
    if given:
        raise ValueError(f"format must be one of {allowed}; got {fmt!r} for {os.fspath(path)!r}")
    endings = ", ".join(f".{x}" for x in allowed)
    raise ValueError(
        f"{os.fspath(path)}: the format is read from the file name, which must end in one of "
        f"{endings} (a compression suffix such as .gz may follow); got "
        f"{'.' + fmt if fmt else 'no suffix'} (format must be one of {allowed})"
    )


def delimiter_of(fmt: str) -> str:
    """The field separator of format ``fmt`` ("csv" or "tsv")."""
    return "," if fmt == "csv" else "\t"


def _header(text: Text, delimiter: str, required: Sequence[str],
            roles: Mapping[str, str]) -> tuple[list[str], bool]:
    """The header's stripped names, and whether the header record spans lines (a quoted name
    opened on the first line: then it is the first record of Python's CSV reader, and a quote
    never closed is an error naming line 1)."""
    if not text.data:
        raise file_error(text.path, "the file is empty (expected a header line)")
    first = text.data[: text.data.find(b"\n") + 1 or len(text.data)].decode("utf-8")
    spans = _leaves_quote_open(first, delimiter)
    if spans:
        fields = next(_records(text, delimiter))[0]
    else:
        with _long_fields(len(first)):
            fields = next(csv.reader([first], delimiter=delimiter))
    header = [f.strip() for f in fields]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise text.error(0, f"the header names column {shown(twice[0])} twice")
    missing = [c for c in required if c not in header]
    if missing:
        shown_header = header if len(header) <= 12 else [*header[:12], f"… {len(header)} in all"]
        raise text.error(
            0,
            f"header must name the columns {list(required)}; missing {missing} (found "
            f"{shown(shown_header, 300)})" + (other_names(roles, header)
                                              or _index_hint(header, missing)),
        )
    return header, spans


def _index_hint(header: list[str], missing: list[str]) -> str:
    """A hint when the header's first name is empty: that is how pandas writes a DataFrame's
    index (``to_csv`` with its default ``index=True``), which may hold the missing column."""
    if not header or header[0]:
        return ""
    return (": an unnamed first column is a pandas DataFrame's index as to_csv writes it; "
            f"name it, to_csv(path, index_label={missing[0]!r}), or leave it out, "
            "to_csv(path, index=False)")


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
            memory_pool=parser_pool(),
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
    return _leaves_quote_open(last, delimiter)


def _leaves_quote_open(line: str, delimiter: str) -> bool:
    """Whether ``line`` opens a quoted value that it does not close."""
    try:
        with _long_fields(len(line)):
            list(csv.reader([line], delimiter=delimiter, strict=True))
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
    required: Sequence[str] | Mapping[str, str],
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
    keeps the required columns only (faster on wide exports). ``required`` may map the
    caller's parameters to the columns they name (``{"item": "item_id"}``): a header that
    lacks them but holds them under another tool's names is then offered those
    (:data:`fuzzytruth._validation.COLUMN_NAMES`: crowd-kit's ``task``, ``worker``).
    """
    text = load_text(path, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes)
    roles = required if isinstance(required, Mapping) else {}
    required = list(required.values()) if isinstance(required, Mapping) else required
    header, header_spans = _header(text, delimiter, required, roles)
    keep = list(required) if only_required else None
    try:  # pyarrow.ArrowInvalid is a ValueError
        if header_spans:  # pyarrow would skip the header's first line only
            raise ValueError("the header spans lines")
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


def check_readable(frame: pd.DataFrame, ids: Sequence[str]) -> None:
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
    ValueError naming the value, and so do column names (the header is one line: no line end
    in a name either). When a first-column value starts with ``#``, every field is quoted, so
    that the line is not taken for a comment.
    """
    header = pd.Series([str(c) for c in frame.columns], dtype=object)
    bad = _unreadable(header) | header.str.contains("\n", regex=False).to_numpy(dtype=bool)
    if bad.any():
        raise ValueError(
            f"column name {shown(header[bad].iloc[0])} would not read back from a CSV/TSV "
            "header: names are stripped of surrounding whitespace, may not be empty, and may "
            "not hold a line end"
        )
    check_readable(frame, ids)
    first = frame.iloc[:, 0].astype(str).str.startswith("#").any()
    with open_output(path) as handle:
        frame.to_csv(
            handle,
            sep=delimiter_of(fmt),
            index=False,
            quoting=csv.QUOTE_ALL if first else csv.QUOTE_MINIMAL,
            lineterminator="\n",
        )
