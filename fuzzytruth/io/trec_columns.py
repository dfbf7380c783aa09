"""The columns of TREC's whitespace-separated files (runs, qrels, judgment-group qrels).

Every file goes through :func:`fuzzytruth.io.text.load_text`: compressed files (``.gz`` and
others, with a cap on the decompressed size), a byte-order mark, LF, CRLF or CR line ends,
lines starting with ``#`` (trec_eval 10's comments) and empty lines are accepted.

Fields are separated by runs of ASCII whitespace (trec_eval's ``isspace``: space, tab,
vertical tab, form feed); whitespace at the start or end of a line is ignored, and a line of
whitespace only is skipped. So ``" 0 d2 1"`` has three fields, not an empty query id, and a
tab inside what looks like one field separates two. A line with too few fields (or too many,
where the format allows none after its last), a numeric field that is not a number (ASCII
digits, optional sign, point and exponent, or inf / nan: :data:`~fuzzytruth.io.text.NUMBER`),
a number beyond the range of a 64-bit float (``1e400``), a score that is NaN or a relevance
that is not finite raises a ValueError naming the file, the 1-based line and what was
expected; so does a qrels grade written with an exponent that trec_eval, which reads grades
with C's ``atol`` (the digits before the exponent), reads as another grade (``1E-1``: 1 to
trec_eval, 0.1 as a number; :func:`atol_disagrees`); a file without any line of data (empty,
or comments only) is an error too.

Files are parsed by pyarrow's CSV reader, splitting at every space and converting every field
(so that an empty one is seen). The usual file -- uncompressed ASCII with LF line ends, no
``#``, no tab and no blank line at its end (:func:`~fuzzytruth.io.text.plain_file`, one scan a
block at a time) -- is parsed from disk, its content never held whole; when that scan also
found its spaces single (none at a line's start or end, none after another: no field can be
empty), the fields only checked (a run's Q0 and rank, a qrels' iteration) are not converted,
and a run's tag is taken from the file's last line. Another file is loaded
whole and, without a ``#``, parsed as it is (blank lines at its end aside), with no scan for
comment or blank lines; a file with a ``#``, or one the parser refuses (a blank line, runs of
whitespace, fields after a run's tag), is read again without its comment and blank lines,
with whitespace made single spaces (and, for runs, the fields after the tag dropped); a
line-by-line reader with the same rules reads what pyarrow cannot (lines of whitespace only,
very long lines, errors) and finds the line of any error. All give the same columns and line
numbers for every file (a property test holds them to it).

This module builds no object: :meth:`fuzzytruth.runs.Run.from_trec`,
:meth:`fuzzytruth.truth.qrels.Qrels.from_trec` and :mod:`fuzzytruth.io.trec` turn its columns
into runs and qrels.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import re
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

from fuzzytruth.io.text import (
    NUMBER,
    MaxBytes,
    PlainFile,
    Text,
    file_error,
    file_path,
    load_text,
    parser_pool,
    plain_file,
    shown,
)

__all__ = [
    "FIELD_SEPARATOR", "QRELS_FIELDS", "RUN_FIELDS", "ConsecutiveLines", "TrecColumns",
    "read_columns",
]


#: The field separators of trec_eval (C ``isspace``): ASCII whitespace only, so an id holding
#: a no-break space reads the same on the fast and the slow path. (Line ends are LF by now.)
_WHITESPACE = " \t\n\r\f\v"
FIELD_SEPARATOR = re.compile(r"[ \t\n\r\f\v]+")
_OTHER_SPACES = b"\t\v\f"
"""The whitespace besides the space and the line end that separates fields (C ``isspace``);
pyarrow's parser splits at spaces only, so a file holding any of these is single-spaced first."""
_TO_SPACE = bytes.maketrans(_OTHER_SPACES, b" " * len(_OTHER_SPACES))
_INFINITY = re.compile(r"^[+-]?(?i:inf|infinity)$")
RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


_EXPONENT = re.compile(r"[eE]")
_ATOL_PREFIX = re.compile(r"[+-]?[0-9]*")


def atol_disagrees(value: str, number: float) -> int | None:
    """The integer C's ``atol`` reads from the numeric text ``value`` (its sign and leading
    digits: the exponent is not read) when it differs from ``number`` (``value`` as a float)
    truncated toward zero, else None: only a number written with an exponent can differ
    (``"1e1"`` is 1 to ``atol``, 10 as a number; ``"5e-1"`` 5 and 0.5; ``"1e0"`` agrees).

    >>> atol_disagrees("1E-1", 0.1), atol_disagrees("2.5e1", 25.0), atol_disagrees("1e0", 1.0)
    (1, 2, None)
    >>> atol_disagrees("-.5e1", -5.0), atol_disagrees("0.7", 0.7)
    (0, None)
    """
    if not _EXPONENT.search(value) or not np.isfinite(number):
        return None
    prefix = _ATOL_PREFIX.match(value).group()
    digits = prefix.lstrip("+-")
    read = (-1 if prefix.startswith("-") else 1) * int(digits or "0")
    return None if read == math.trunc(number) else read


def _atol_error(field: str, value: str, number: float, read: int) -> str:
    """Why a grade written with an exponent is refused (:func:`atol_disagrees`)."""
    return (
        f"field '{field}' holds {shown(value)}, which trec_eval reads as grade {read} (C's "
        f"atol stops at the exponent) and a number reader as {number!r}: write the grade "
        "without an exponent"
    )


_HEADER = ("; the first line reads as a header of column names, which TREC files do not have: "
           "remove it")


def _names_only(text: str) -> bool:
    """Whether ``text`` holds letters and no digit, as column names do (a header's field, or
    a whole header line without a field such as "Q0")."""
    return any(c.isalpha() for c in text) and not any(c.isdigit() for c in text)


def _number(text: Text, index: int, field: str, value: str, *, atol: bool = False) -> float:
    """``value`` as a float, or a ValueError naming the line (with ``atol``, also for a
    number written with an exponent that C's ``atol`` reads otherwise: :func:`atol_disagrees`)."""
    if not NUMBER.match(value):
        raise text.error(index, f"expected a number in field '{field}'; got {shown(value)}"
                         + (_HEADER if index == 0 and _names_only(value) else ""))
    number = float(value)
    if np.isinf(number) and not _INFINITY.match(value):
        raise text.error(
            index,
            f"field '{field}' holds {shown(value)}, beyond the range of a 64-bit float "
            "(about ±1.8e308)",
        )
    if atol and (read := atol_disagrees(value, number)) is not None:
        raise text.error(index, _atol_error(field, value, number, read))
    return number


def _read_slow(
    text: Text, fields: tuple[str, ...], numeric: str, extra: bool, *, atol: bool = False
) -> tuple[dict[str, list], np.ndarray]:
    """Line-by-line reader: any ASCII whitespace between fields, extra fields if ``extra``,
    lines of whitespace only skipped (``atol``: :func:`_number`). Returns the columns and the
    rows' file lines."""
    columns: dict[str, list] = {f: [] for f in fields}
    kept: list[int] = []
    at = fields.index(numeric)
    for i, line in enumerate(text.decoded_lines()):
        parts = _fields_of(line)
        if not parts:
            continue
        if len(parts) < len(fields) or (len(parts) > len(fields) and not extra):
            want = f"at least {len(fields)}" if extra else str(len(fields))
            raise text.error(
                i,
                f"expected {want} whitespace-separated fields '{' '.join(fields)}'; got "
                f"{len(parts)}: {shown(line.rstrip(), 120)}{_header_hint(parts, line, i)}",
            )
        value = _number(text, i, numeric, parts[at], atol=atol)
        for f, p in zip(fields, parts[: len(fields)], strict=True):
            columns[f].append(value if f == numeric else p)
        kept.append(i)
    return columns, text.lines[np.asarray(kept, dtype=np.int64)]


_BEIR_HEADER = ["query-id", "corpus-id", "score"]


def _header_hint(parts: list[str], line: str = "", index: int = -1) -> str:
    """What reads the file, when its line (at ``index``) is BEIR's qrels header (a TSV table,
    not TREC's whitespace-separated qrels), a line of comma-separated values (a CSV table), or
    a first line of names and no number (a header)."""
    if [p.lower() for p in parts] == _BEIR_HEADER:
        return ("; this is BEIR's qrels table (a header, tab-separated): read it with "
                "Qrels.from_dataframe(read_table(path, numeric=['score']), "
                "query_col='query-id', doc_col='corpus-id', relevance_col='score')")
    if "," in line and len(parts) < len(line.split(",")):
        return ("; the line is comma-separated: a CSV table is no TREC file (read it with "
                "pandas, then Run.from_dataframe or Qrels.from_dataframe)")
    if index == 0 and _names_only(line):
        return _HEADER
    return ""


def _fields_of(line: str) -> list[str]:
    """The fields of one line, split at runs of ASCII whitespace; none for a line of
    whitespace only (trec_eval's rule, the one both readers follow)."""
    stripped = line.strip(_WHITESPACE)
    return FIELD_SEPARATOR.split(stripped) if stripped else []


def _single_spaced(data: bytes) -> bytes:
    """``data`` with ASCII whitespace runs made single spaces and lines stripped; line
    breaks are kept, so are line numbers (a line of whitespace only becomes empty)."""
    data = data.translate(_TO_SPACE)
    if b"  " in data:
        data = re.sub(rb" {2,}", b" ", data)
    if data.startswith(b" ") or b"\n " in data or b" \n" in data or data.endswith(b" "):
        data = re.sub(rb"(?m)^ | $", b"", data)
    return data


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


def _has_empty_string(column: pa.ChunkedArray) -> bool:
    """Whether a string column (or a dictionary-encoded one) holds an empty string (a field
    between two spaces in a row, or a space at a line's start or end, once a reader splits at
    every space)."""
    if pa.types.is_dictionary(column.type):  # each chunk's dictionary holds its values
        column = pa.chunked_array([chunk.dictionary for chunk in column.chunks],
                                  type=column.type.value_type)
    return len(column) > 0 and pc.min(pc.binary_length(column)).as_py() == 0


_PARSE_BLOCK = 4 * 2**20
"""Bytes per block of pyarrow's CSV parser (its default is 1 MiB). Measured 2026-11-29 with
jemalloc's pool (:func:`~fuzzytruth.io.text.parser_pool`), ``Run.from_trec`` in fresh
processes, three interleaved rounds (CPU s at 16, 8, 4 and 2 MiB): 10 M lines of URL ids
(1.66 GB) 3.92-4.87, 3.59-3.77, 3.41-3.91, 4.61-4.87 (4.77-5.21 at 1 MiB: a column in
~1,600 chunks); of UUIDs 2.90-2.95, 2.68-2.77, 2.59-2.97, 2.58-2.61; of numeric ids
1.75-1.78, 1.71-1.76, 1.63-1.65, 1.61-1.64; their qrels (2.0-5.5 M lines) 7-10 % faster
at 4 MiB than at 16. (Before the pool, 2026-11-24, 16 MiB had beaten the default
on URL ids: 2.2-3.9 s against 5.6-6.8 s.) A block is parsed by one thread: a file of a few
blocks is still parsed on as many cores."""


_CHECKED = pa.dictionary(pa.int32(), pa.string())
"""The type of the fields a reader only checks (each must be there and not empty), and of
those it returns ``encoded`` (a query id: :func:`read_columns`). Encoded,
they take a few distinct values per block instead of a string per line: measured on 10 M-line
runs in fresh processes, parsing took 2.4-2.6 s of CPU against 4.5-4.9 s as strings (URL ids)
and 2.1-2.4 s against 1.8-3.4 s (numeric ids), and 0.10-0.14 GB less at its peak."""


def _atol_values(column: pa.ChunkedArray) -> np.ndarray:
    """The float64 values of a numeric column parsed as dictionary-encoded strings (a grade
    column: a few distinct texts per block), each text checked once: a ValueError for one
    that is not a number (:data:`~fuzzytruth.io.text.NUMBER`) or that C's ``atol`` reads
    otherwise (:func:`atol_disagrees`), so that the line reader names its line."""
    parts = []
    for chunk in column.chunks:
        texts = chunk.dictionary
        if len(texts) and not pc.all(pc.match_substring_regex(texts, NUMBER.pattern)).as_py():
            raise ValueError("a field that is not a number")
        numbers = pc.cast(texts, pa.float64()).to_numpy(zero_copy_only=False)
        with_exponent = pc.match_substring_regex(texts, _EXPONENT.pattern).to_numpy(
            zero_copy_only=False)
        for i in np.flatnonzero(with_exponent):
            if atol_disagrees(texts[int(i)].as_py(), float(numbers[i])) is not None:
                raise ValueError("a grade that atol reads otherwise")
        parts.append(numbers[chunk.indices.to_numpy(zero_copy_only=False)])
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.float64)


def _read_fast(
    data: bytes | pa.Buffer | str, fields: tuple[str, ...], numeric: str,
    columns: tuple[str, ...], *, encoded: tuple[str, ...] = (), atol: bool = False,
    unconverted: tuple[str, ...] = (), single_spaced: bool = False,
) -> tuple[dict[str, Any], int]:
    """pyarrow's multi-threaded CSV reader, splitting at every space, on ``data`` or on the
    file ``data`` names (read as it is, never decompressed); strict: every line of
    ``len(fields)`` fields, none empty (every field is converted and checked; a blank line
    fails the conversion of ``numeric``), and finite numbers (else a ValueError: e.g. a line
    had a space too many, or a number out of range that only the line reader can tell from
    ``inf``; with ``atol``, a grade written with an exponent that C's ``atol`` reads
    otherwise: :func:`atol_disagrees`). The fields ``unconverted`` (neither returned nor
    ``numeric``) are split off but not converted, so not checked: only for a file known to
    have no empty field (:attr:`~fuzzytruth.io.text.PlainFile.single_spaced`); such a file is
    also not searched for empty fields when ``single_spaced`` says it is one (the search, a
    pass over every id's length, took 0.03-0.09 s for the 10 M-line tied and UUID runs of
    ``benchmarks/crisp.py`` at 100k x 100 and their qrels, 2026-11-29). Returns
    ``columns`` (those in ``encoded`` as pyarrow dictionary arrays, in chunks), the last
    row's value (a list of one string) of every other field converted, and the number of
    rows, one per line of ``data``."""
    if not isinstance(data, str) and bytes(data[:3]) == codecs.BOM_UTF8:
        # pyarrow drops one leading byte-order mark. A file's own mark is gone already (load_
        # text), so this one began a later line (after comment lines) or followed the file's
        # mark: part of the first id, as the line reader keeps it. Give pyarrow one to drop.
        data = codecs.BOM_UTF8 + bytes(data)
    with (pa.input_stream(data, compression=None) if isinstance(data, str)
          else pa.BufferReader(data)) as source:
        table = csv.read_csv(
            source,
            read_options=csv.ReadOptions(column_names=list(fields), block_size=_PARSE_BLOCK),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False,
                                           ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(
                # large_string: what pandas' str arrays hold, so that no column is cast; the
                # fields only checked (a run's Q0, rank and tag) and those ``encoded`` are
                # dictionary-encoded, and so is an atol field (its texts checked once each)
                column_types={f: (_CHECKED if atol else pa.float64()) if f == numeric
                              else pa.large_string() if f in columns and f not in encoded
                              else _CHECKED for f in fields},
                strings_can_be_null=False,
                null_values=[],
                include_columns=[f for f in fields if f not in unconverted],
            ),
            memory_pool=parser_pool(),
        )
    if not table.num_rows:
        raise ValueError("no rows")
    if not single_spaced and any(_has_empty_string(table.column(f))
                                 for f in table.column_names if f != numeric):
        raise ValueError("an empty field: a space at a line's start or end, or two in a row")
    chunks = table.column(numeric).chunks
    # one chunk: a read-only view of Arrow's buffer; several: joined into an array no one
    # else holds. Either way read-only, so the constructors keep it without a copy (Arrow's
    # own join was writeable, and copied again: 80 MB and 0.06-0.12 s at 10 M run rows)
    values = (_atol_values(table.column(numeric)) if atol
              else chunks[0].to_numpy() if len(chunks) == 1
              else np.concatenate([c.to_numpy() for c in chunks]))
    values.flags.writeable = False
    if np.isinf(values).any():
        raise ValueError("an infinite value: the line reader tells inf from an overflow")
    cols = {f: values if f == numeric else table.column(f) if f in encoded
            else pd.array(table.column(f), dtype="str") for f in columns}
    cols.update({f: [table.column(f)[table.num_rows - 1].as_py()] for f in table.column_names
                 if f not in columns})
    return cols, table.num_rows


def _without_final_blank_lines(content: bytes) -> bytes | pa.Buffer:
    """``content`` without the empty lines at its end (a file that ends in ``"\n\n"``), as
    a view, not a copy: the lines before keep their numbers."""
    end = len(content)
    while end > 1 and content[end - 1] == content[end - 2] == ord("\n"):
        end -= 1
    return content if end == len(content) else pa.py_buffer(content)[:end]


def _read_kept(
    text: Text, fields: tuple[str, ...], numeric: str, columns: tuple[str, ...],
    data: bytes | None = None, *, encoded: tuple[str, ...] = (), atol: bool = False,
) -> dict[str, Any]:
    """:func:`_read_fast` of ``data`` (default: the file's lines without comments and blank
    lines, :attr:`~fuzzytruth.io.text.Text.data`), which must give a row per such line."""
    cols, n_rows = _read_fast(text.data if data is None else data, fields, numeric, columns,
                              encoded=encoded, atol=atol)
    if n_rows != len(text.lines):
        raise ValueError(f"{n_rows} rows from {len(text.lines)} lines")
    return cols


class ConsecutiveLines:
    """The 1-based line numbers ``1, 2, ..., n`` of ``n`` rows read one per line, standing for
    ``numpy.arange(1, n + 1)`` without holding it: only a message about a row reads its line,
    and the array would be 80 MB of fresh memory for a run of 10 M lines (0.19 s of CPU in a
    line profile of ``Run.from_trec`` on the tied run of ``benchmarks/crisp.py`` at 100k x 100,
    2026-11-29, mostly page faults, of 2.5-2.8 s).

    Indexed as that array is by what its readers pass: an int gives an int (negative from the
    end), a slice or an array of ints an int64 array; an index out of range, or of another
    kind, is an IndexError. ``numpy.asarray`` and :meth:`tolist` make the array or the list.

    Examples
    --------
    >>> lines = ConsecutiveLines(5)
    >>> len(lines), lines[0], lines[-1], lines[1:4].tolist(), lines[np.array([4, 0])].tolist()
    (5, 1, 5, [2, 3, 4], [5, 1])
    >>> np.asarray(lines).tolist() == lines.tolist() == [1, 2, 3, 4, 5]
    True
    """

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        self._n = int(n)

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"ConsecutiveLines({self._n})"

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:  # NumPy 2's protocol: no array is held, so one must be made
            raise ValueError("ConsecutiveLines holds no array: numpy.asarray must make one")
        return np.arange(1, self._n + 1, dtype=np.int64 if dtype is None else dtype)

    def tolist(self) -> list[int]:
        """The line numbers as a list of int."""
        return list(range(1, self._n + 1))

    def __getitem__(self, index: Any) -> Any:
        numbers = range(1, self._n + 1)
        if isinstance(index, slice):
            part = numbers[index]
            return np.arange(part.start, part.stop, part.step, dtype=np.int64)
        if isinstance(index, tuple):  # the array's multi-axis index: no reader's
            raise IndexError("line numbers are indexed by integers; got a tuple")
        if not isinstance(index, np.ndarray | list):
            try:
                return numbers[index]  # an int, or anything with __index__
            except TypeError:
                raise IndexError("line numbers are indexed by integers; got "
                                 f"{type(index).__name__}") from None
        index = np.asarray(index)
        if index.dtype.kind not in "iu":
            raise IndexError(f"line numbers are indexed by integers; got {index.dtype}")
        index = index.astype(np.int64)
        if index.size and not (-self._n <= index.min() and index.max() < self._n):
            raise IndexError(f"index out of range for {self._n} lines")
        return np.where(index < 0, index + self._n, index) + 1


class TrecColumns(NamedTuple):
    """The columns of a TREC file (ids as pandas string arrays, the numeric field as
    float64), the file's name and each row's 1-based line (a :class:`ConsecutiveLines` when
    the file was parsed from disk, its rows then its lines one for one)."""

    columns: dict[str, Any]
    source: str
    lines: np.ndarray | ConsecutiveLines


def read_columns(
    path: str | os.PathLike,
    fields: tuple[str, ...],
    numeric: str,
    *,
    encoding: str = "utf-8",
    extra: bool = False,
    columns: tuple[str, ...] | None = None,
    last: tuple[str, ...] = (),
    encoded: tuple[str, ...] = (),
    atol: bool = False,
    max_decompressed_bytes: MaxBytes = "auto",
) -> TrecColumns:
    """The columns of a whitespace-separated file, its name and each row's file line.

    Parameters
    ----------
    path : str or path-like
        The file.
    fields : tuple of str
        The names of the fields of a line.
    numeric : str
        The field read as a number.
    encoding : str, default "utf-8"
        Encoding of a file without a byte-order mark.
    extra : bool, default False
        Whether fields after the last are allowed (and ignored).
    columns : tuple of str, optional
        The fields returned (default: all of ``fields``; ``numeric`` among them). Every line
        must still have every field, and none may be empty.
    last : tuple of str, default ()
        Fields of which only the last row's value is wanted (a run's tag, which trec_eval
        takes from the last line of the file): each is returned as a list of that one
        string.
    encoded : tuple of str, default ()
        Fields of ``columns`` returned dictionary-encoded (a pyarrow ``ChunkedArray`` of
        dictionary type) where pyarrow's parser reads the file (the line reader, for files it
        refuses, returns lists of str): a query id repeats on every line of its query, so it
        is parsed into a few distinct values per block instead of a string per line, and
        factorised without comparing the strings row by row.
    atol : bool, default False
        Whether trec_eval reads ``numeric`` with C's ``atol`` (a qrels grade): then a number
        written with an exponent that ``atol`` reads as another integer than the number
        truncated toward zero (``1e1``: 1 against 10; ``5e-1``: 5 against 0) is refused,
        naming its line, instead of being read as a number trec_eval does not see.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (see
        :func:`fuzzytruth.io.text.decompression_limit`).
    """
    columns = fields if columns is None else columns
    if numeric not in columns or not set(columns) <= set(fields):
        raise ValueError(
            f"columns must be fields of {fields} and include {numeric!r}; got {columns}"
        )
    if not set(last) <= set(fields) - set(columns):
        raise ValueError(f"last must be fields of {fields} not in columns; got {last}")
    if not set(encoded) <= set(columns) - {numeric}:
        raise ValueError(f"encoded must be fields of {columns} but {numeric!r}; got {encoded}")
    name = file_path(path)
    read = None
    plain = plain_file(name, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes,
                       absent=_OTHER_SPACES)
    if plain:
        # the usual file, parsed from disk: its content is never held whole; refused by the
        # parser, it is read again below, where the line at fault is found
        unconverted = _unconverted(plain, fields, numeric, columns, last)
        with contextlib.suppress(ValueError):  # pyarrow.ArrowInvalid is a ValueError
            cols, n_rows = _read_fast(name, fields, numeric, columns, encoded=encoded,
                                      atol=atol, unconverted=unconverted,
                                      single_spaced=plain.single_spaced)
            parts = (plain.last_line or "").split(" ")  # known when a last field is unconverted
            cols.update({f: [parts[fields.index(f)]] for f in last if f in unconverted})
            read = cols, ConsecutiveLines(n_rows)
    cols, lines = read or _read_loaded(
        load_text(name, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes),
        fields, numeric, columns, extra, refused=plain, encoded=encoded, atol=atol,
    )
    if not len(lines):
        raise file_error(
            name,
            f"no lines of data (the file is empty, or holds only comments and blank lines); "
            f"expected lines '{' '.join(fields)}'",
        )
    values = np.asarray(cols[numeric], dtype=np.float64)
    bad = np.isnan(values) if numeric == "score" else ~np.isfinite(values)
    if bad.any():
        i = int(bad.argmax())
        rule = "not be NaN" if numeric == "score" else "be a finite number"
        raise ValueError(
            f"{name}, line {int(lines[i])}: field '{numeric}' must {rule}; got "
            f"{float(values[i])!r}"
        )
    cols[numeric] = values
    cols = {f: cols[f] for f in (*columns, *last)}
    return TrecColumns(cols, name, lines)


def _unconverted(
    plain: PlainFile, fields: tuple[str, ...], numeric: str, columns: tuple[str, ...],
    last: tuple[str, ...],
) -> tuple[str, ...]:
    """The fields a plain file's parse need not convert: in a single-spaced file (no empty
    field) those only checked, which are neither returned nor ``numeric``, nor wanted for
    their last row's value unless the file's last line is known (its fields are then split
    there). Converting a run's Q0, rank and tag (dictionary-encoded) took about half the
    parse's CPU time: 1.28-1.51 s against 0.72-0.74 s without them, 10 M lines of numeric
    ids, and 60-70 k fewer page faults (2026-11-25, three runs each)."""
    if not plain.single_spaced:
        return ()
    return tuple(f for f in fields if f not in columns and f != numeric
                 and (f not in last or plain.last_line is not None))


def _read_loaded(
    text: Text, fields: tuple[str, ...], numeric: str, columns: tuple[str, ...], extra: bool,
    *, refused: bool = False, encoded: tuple[str, ...] = (), atol: bool = False,
) -> tuple[dict[str, Any], np.ndarray]:
    """The columns of a file read whole (:func:`~fuzzytruth.io.text.load_text`) and each
    row's file line: the file as it is when it has no line to drop (unless the parser
    ``refused`` it as it is already), else without its comment and blank lines, then
    single-spaced, then line by line (module docstring)."""
    tabs = any(bytes([c]) in text.content for c in _OTHER_SPACES)  # one byte each: fast
    try:  # pyarrow.ArrowInvalid is a ValueError
        if tabs or refused:
            raise ValueError("tabs, or refused as it is")
        if not text.may_have_comments:  # no line to drop (a blank one fails the reader)
            cols, n_rows = _read_fast(_without_final_blank_lines(text.content), fields,
                                      numeric, columns, encoded=encoded, atol=atol)
            lines = np.arange(1, n_rows + 1, dtype=np.int64)
        else:
            cols = _read_kept(text, fields, numeric, columns, encoded=encoded, atol=atol)
            lines = text.lines
    except ValueError:
        try:  # whitespace made single spaces, fields after the run tag dropped: vectorised
            data = _single_spaced(text.data)
            try:
                cols = _read_kept(text, fields, numeric, columns, data, encoded=encoded,
                                  atol=atol)
            except ValueError:
                if not extra:
                    raise
                cols = _read_kept(text, fields, numeric, columns,
                                  _drop_extra_fields(data, len(fields)), encoded=encoded,
                                  atol=atol)
            lines = text.lines
        except ValueError:  # a malformed or very long line, one of whitespace only, inf
            every, lines = _read_slow(text, fields, numeric, extra, atol=atol)
            cols = {f: every[f] if f in columns else every[f][-1:] for f in fields}
    return cols, lines
