"""The columns of TREC's whitespace-separated files (runs, qrels, judgment-group qrels).

Every file goes through :func:`fuzzytruth.io.text.load_text`: compressed files (``.gz`` and
others), a byte-order mark, CRLF line ends, lines starting with ``#`` (trec_eval 10's comments)
and blank lines are accepted. A malformed line raises a ValueError naming the file, the 1-based
line number and what was expected; so does a score that is NaN or a relevance that is not a
finite number. Fields are separated by ASCII whitespace (trec_eval's ``isspace``). Files are
parsed by pyarrow's CSV reader, after making whitespace single spaces and dropping fields
after the run tag when the file needs it; a line-by-line reader gives the same result for the
rest (lines of whitespace only) and finds the line of any error.

This module builds no object: :meth:`fuzzytruth.runs.Run.from_trec`,
:meth:`fuzzytruth.truth.qrels.Qrels.from_trec` and :mod:`fuzzytruth.io.trec` turn its columns
into runs and qrels.
"""

from __future__ import annotations

import os
import re
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
from pyarrow import csv

from fuzzytruth.io.text import Text, load_text

__all__ = ["FIELD_SEPARATOR", "QRELS_FIELDS", "RUN_FIELDS", "TrecColumns", "read_columns"]


#: The field separators of trec_eval (C ``isspace``): ASCII whitespace only, so an id holding
#: a no-break space reads the same on the fast and the slow path.
_WHITESPACE = " \t\n\r\f\v"
FIELD_SEPARATOR = re.compile(r"[ \t\n\r\f\v]+")
_TO_SPACE = bytes.maketrans(b"\t\v\f", b"   ")
RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


def _read_slow(
    text: Text, fields: tuple[str, ...], numeric: str, extra: bool
) -> tuple[dict[str, list], np.ndarray]:
    """Line-by-line reader: any ASCII whitespace between fields, extra fields if ``extra``,
    lines of whitespace only skipped. Returns the columns and the rows' file lines."""
    columns: dict[str, list] = {f: [] for f in fields}
    kept: list[int] = []
    at = fields.index(numeric)
    for i, line in enumerate(text.decoded_lines()):
        stripped = line.strip(_WHITESPACE)
        if not stripped:
            continue
        parts = FIELD_SEPARATOR.split(stripped)
        if len(parts) < len(fields) or (len(parts) > len(fields) and not extra):
            want = f"at least {len(fields)}" if extra else str(len(fields))
            raise ValueError(
                f"{text.where(i)}: expected {want} whitespace-separated fields "
                f"'{' '.join(fields)}'; got {len(parts)}: {line.rstrip()!r}"
            )
        try:
            value = float(parts[at])
        except ValueError:
            raise ValueError(
                f"{text.where(i)}: expected a number in field '{numeric}'; got {parts[at]!r}"
            ) from None
        for f, p in zip(fields, parts[: len(fields)], strict=True):
            columns[f].append(value if f == numeric else p)
        kept.append(i)
    return columns, text.lines[np.asarray(kept, dtype=np.int64)]


def _single_spaced(data: bytes, n_fields: int, extra: bool) -> bytes:
    """``data`` with ASCII whitespace runs made single spaces, lines stripped and (``extra``)
    the fields after the ``n_fields``-th dropped; line breaks are kept, so are line numbers.
    Each step runs only when the data need it (a tab-separated file only needs the first)."""
    data = data.translate(_TO_SPACE)
    if b"\r" in data:  # CRLF: the \r is whitespace before the line break
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b" ")
    if b"  " in data:
        data = re.sub(rb" {2,}", b" ", data)
    if data.startswith(b" ") or b"\n " in data or b" \n" in data or data.endswith(b" "):
        data = re.sub(rb"(?m)^ | $", b"", data)
    return _drop_extra_fields(data, n_fields) if extra else data


def _drop_extra_fields(data: bytes, n_fields: int) -> bytes:
    """Single-spaced ``data`` without the fields after the ``n_fields``-th of each line,
    found from the ranks of the spaces within their lines (vectorised)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(arr == 10)
    spaces = np.flatnonzero(arr == 32)
    line = np.searchsorted(newlines, spaces)  # line of each space
    starts = np.r_[0, np.flatnonzero(np.diff(line)) + 1]
    rank = np.arange(len(spaces)) - np.repeat(starts, np.diff(np.r_[starts, len(spaces)]))
    cut = rank == n_fields - 1  # the space before a line's first extra field
    if not cut.any():
        return data
    ends = np.append(newlines, len(arr))[line[cut]]
    delta = np.zeros(len(arr) + 1, dtype=np.int8)
    delta[spaces[cut]] = 1
    delta[ends] -= 1
    return arr[np.cumsum(delta[:-1], dtype=np.int8) == 0].tobytes()


def _read_fast(
    data: bytes, n_lines: int, fields: tuple[str, ...], numeric: str
) -> dict[str, Any]:
    """pyarrow's multi-threaded CSV reader; strict: one space between fields, ``n_lines``
    rows (else a ValueError, e.g. when a line was empty)."""
    table = csv.read_csv(
        pa.BufferReader(data),
        read_options=csv.ReadOptions(column_names=list(fields)),
        parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=csv.ConvertOptions(
            column_types={f: pa.float64() if f == numeric else pa.string() for f in fields},
            strings_can_be_null=False,
            null_values=[],
        ),
    )
    if table.num_rows != n_lines:
        raise ValueError(f"{table.num_rows} rows from {n_lines} lines")
    return {
        f: table.column(f).to_numpy() if f == numeric else pd.array(table.column(f), dtype="str")
        for f in fields
    }


class TrecColumns(NamedTuple):
    """The columns of a TREC file (ids as pandas string arrays, the numeric field as
    float64), the file's name and each row's 1-based line."""

    columns: dict[str, Any]
    source: str
    lines: np.ndarray


def read_columns(
    path: str | os.PathLike,
    fields: tuple[str, ...],
    numeric: str,
    *,
    encoding: str = "utf-8",
    extra: bool = False,
) -> TrecColumns:
    """Every column of a whitespace-separated file, its name and each row's file line."""
    text = load_text(path, encoding=encoding)
    n_lines = len(text.lines)
    try:  # pyarrow.ArrowInvalid is a ValueError
        cols, lines = _read_fast(text.data, n_lines, fields, numeric), text.lines
    except ValueError:
        try:  # tabs, repeated spaces, extra fields: made single-spaced, still vectorised
            spaced = _single_spaced(text.data, len(fields), extra)
            cols, lines = _read_fast(spaced, n_lines, fields, numeric), text.lines
        except ValueError:  # a malformed line, or one of whitespace only: read line by line
            cols, lines = _read_slow(text, fields, numeric, extra)
    values = np.asarray(cols[numeric], dtype=np.float64)
    bad = np.isnan(values) if numeric == "score" else ~np.isfinite(values)
    if bad.any():
        i = int(bad.argmax())
        rule = "not NaN" if numeric == "score" else "a finite number"
        raise ValueError(
            f"{text.path}, line {int(lines[i])}: field '{numeric}' must be {rule}; got "
            f"{float(values[i])!r}"
        )
    cols[numeric] = values
    return TrecColumns(cols, text.path, lines)
