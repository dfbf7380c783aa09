"""One way to turn any input file into UTF-8 text for every reader of the package.

Every text format (TREC runs and qrels, CSV/TSV tables, JSON taxonomies, the loaders of public
collections) goes through :func:`load_text`, so they all behave alike:

* **compression** is recognised from the file's first bytes (gzip, bzip2, xz, zstd, a zip
  archive holding one file), whatever the file is called: ``labels.csv.gz`` and a gzip file
  named ``labels.csv`` both read;
* **decompressed size** is capped (``max_decompressed_bytes``, see :func:`read_bytes`), so
  that a small file that inflates to gigabytes (a "zip bomb") is an error naming the file,
  not an exhausted memory;
* **byte-order marks** are removed (UTF-8) or decide the encoding (UTF-16, UTF-32);
* **encodings**: UTF-8 unless the caller names another one; bytes that are not valid in it
  raise a ``ValueError`` naming the file, the line and the bytes, never a bare codec error;
* **line ends**: LF, CRLF and a lone CR (old Mac files) all end a line, and are all made LF
  (also inside a quoted CSV value, as Python's universal newlines do);
* **line numbers**: lines starting with ``#`` (comments) and empty lines are dropped, and the
  1-based file line of every remaining line is kept for error messages;
* **pipes**: a path that is not a regular file (a named pipe, ``/dev/stdin``, the shell's
  ``<(zcat run.gz)``) is read once and its content kept, since a second read of a pipe
  would find only what the first left (the head read to recognise a compression took the
  first 8 KiB, and a file read twice came back empty).

Every error about a file's content is a ``ValueError`` on one line that starts with the file's
name, followed by ``, line <n>`` where there is a line to name: ``"<path>, line <n>: <what
was expected and found>"`` (:func:`file_error` formats it).

Examples
--------
>>> import gzip, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")  # gzip content under a plain name
>>> with open(path, "wb") as f:
...     _ = f.write(gzip.compress("\\ufeff# note\\r\\na,b\\r\\n\\r\\n1,2\\r3,4".encode()))
>>> text = load_text(path)
>>> text.data, text.lines.tolist()
(b'a,b\\n1,2\\n3,4', [2, 4, 5])
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import functools
import gzip
import io
import json
import lzma
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from functools import cached_property
from numbers import Integral
from typing import Any, BinaryIO, Literal, NamedTuple

import numpy as np

__all__ = [
    "DECOMPRESSION_FLOOR",
    "DECOMPRESSION_RATIO",
    "NUMBER",
    "RAISE_THE_CAP",
    "MaxBytes",
    "PlainFile",
    "Text",
    "decompression_limit",
    "file_error",
    "first_line",
    "load_json",
    "load_text",
    "parser_pool",
    "plain_file",
    "read_bytes",
    "read_names",
    "shown",
    "too_large",
]

#: ``max_decompressed_bytes``: ``"auto"`` (the default rule), None (no limit) or a byte count.
MaxBytes = int | Literal["auto"] | None

#: The default cap on a compressed file's content is this many times the file's size...
DECOMPRESSION_RATIO = 200
#: ...but never less than this many bytes (256 MiB).
DECOMPRESSION_FLOOR = 256 * 2**20

#: A number as every reader accepts it (the strings pyarrow's parser takes): an optional sign,
#: ASCII digits with an optional point and exponent, or inf / infinity / nan in any case.
#: Python's ``float`` alone would also take ``1_000`` and non-ASCII digits.
NUMBER = re.compile(
    r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$"
)

#: How every refusal of an oversized file ends (the command line names its flag instead).
RAISE_THE_CAP = ("if it is genuine, pass a larger max_decompressed_bytes, or "
                 "max_decompressed_bytes=None for no limit")

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)
_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@functools.cache
def parser_pool() -> Any:
    """The pyarrow memory pool of the CSV parsers (TREC files, CSV/TSV tables) and of ids given
    as Python objects, converted a chunk at a time (:func:`fuzzytruth._pairs._strings`):
    jemalloc where pyarrow has it, else pyarrow's default pool.

    pyarrow's default pool on Linux, mimalloc, gave the memory of each parsed block back to
    the kernel and took fresh memory for the next: reading a 10 M-line TREC run of URL ids
    (1.07 GB) and its qrels, then evaluating four measures, took 7.6-8.6 s of CPU, half of it
    in the kernel, with the default pool against 6.1-6.5 s and 380 MB less at its peak with
    jemalloc for the parser alone (five fresh processes each, interleaved, 2026-11-24; numeric
    ids: no difference beyond the noise); a 5 M-row probabilistic qrels CSV read in 2.5-2.8 s
    against 2.7-4.1 s, and 80-110 MB less at its peak (three rounds). Only those buffers
    come from this pool; the caller's default pool is left as it is.

    Examples
    --------
    >>> parser_pool().backend_name in ("jemalloc", "mimalloc", "system")
    True
    """
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without jemalloc (Windows)
        return pa.default_memory_pool()


def file_path(path: object, name: str = "path", kind: str = "file") -> str:
    """``path`` as a str (``os.fspath``), or a TypeError naming ``name`` and what the readers
    and writers take: a file's path (a folder's, for ``kind="folder"``), not an open file, a
    buffer or a table in memory.

    Examples
    --------
    >>> import io, pathlib
    >>> file_path(pathlib.Path("runs") / "bm25.txt")
    'runs/bm25.txt'
    >>> file_path(io.StringIO("q1 Q0 d1 1 2.0 bm25"))
    Traceback (most recent call last):
    ...
    TypeError: path must be a file's path (a str or os.PathLike); got StringIO: pass the
    file's path, not an open file or a buffer (a pipe has one too, such as /dev/stdin)
    """
    try:
        given = os.fspath(path)
    except TypeError:
        if hasattr(path, "read") or hasattr(path, "write"):
            hint = (": pass the file's path, not an open file or a buffer (a pipe has one "
                    "too, such as /dev/stdin)")
        elif kind == "file" and (hasattr(path, "columns") or isinstance(path, dict)):
            hint = (": what is in memory has its own constructor (from_dataframe, from_frame, "
                    "from_nested, from_dict)")
        else:
            hint = ""
        raise TypeError(f"{name} must be a {kind}'s path (a str or os.PathLike); got "
                        f"{type(path).__name__}{hint}") from None
    return given if isinstance(given, str) else os.fsdecode(given)


def file_error(path: str, message: str, line: int | None = None,
               unit: str = "line") -> ValueError:
    """The package's error about a file's content: ``"<path>[, line <n>]: <message>"`` (a
    Parquet file's ``unit`` is the row).

    Examples
    --------
    >>> str(file_error("run.txt", "expected 6 fields; got 5", line=3))
    'run.txt, line 3: expected 6 fields; got 5'
    """
    where = path if line is None else f"{path}, {unit} {int(line)}"
    return ValueError(f"{where}: {message}")


def first_line(err: BaseException) -> str:
    """The first line of an exception from a decoder (pyarrow, zipfile, numpy), cut to about
    200 characters, or its type's name when it says nothing: what goes in the parentheses of
    "not a readable ... file (...)".

    Examples
    --------
    >>> first_line(ValueError("bad header\\nmore")), first_line(KeyError())
    ('bad header', 'KeyError')
    >>> first_line(ValueError("it's " + "x" * 300))[-30:]
    'xxxxxxxxxxxx… (305 characters)'
    """
    text = str(err).strip().splitlines()
    line = text[0] if text else type(err).__name__
    # as it is, not a repr cut at its quotes (which escaped quotes and backslashes, and lost
    # the closing parenthesis of a long line's "(N characters)")
    return line if len(line) <= 200 else f"{line[:200]}… ({len(line):,} characters)"


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters for an error message.

    Examples
    --------
    >>> shown("x" * 100, limit=10)
    "'xxxxxxxxxx'… (100 characters)"
    """
    text = str(value)
    if len(text) <= limit:
        return repr(value)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


class Text:
    """A file's content as UTF-8 bytes, and the same without comment or blank lines.

    Attributes
    ----------
    path : str
        The file, for error messages.
    content : bytes
        UTF-8, no byte-order mark, every line ending in LF (but perhaps the last); comment
        and blank lines still in.
    data : bytes
        :attr:`content` without comment and blank lines (found on first use: three scans of
        the content, which a reader that needs no line dropped does without).
    lines : numpy.ndarray
        1-based line number in the file of each line of :attr:`data`.
    """

    def __init__(self, path: str, content: bytes) -> None:
        self.path = path
        self.content = content

    @cached_property
    def _kept(self) -> tuple[bytes, np.ndarray]:
        return _kept_lines(self.content)

    @property
    def data(self) -> bytes:
        return self._kept[0]

    @property
    def lines(self) -> np.ndarray:
        return self._kept[1]

    @property
    def may_have_comments(self) -> bool:
        """Whether a line may be a comment: a ``#`` anywhere (one byte scan, a few hundredths
        of a second per 500 MB; when False, :attr:`content` has no line to drop but blank
        ones)."""
        return b"#" in self.content

    def where(self, index: int) -> str:
        """``"<path>, line <n>"`` for the ``index``-th (0-based) line of :attr:`data`."""
        return f"{self.path}, line {int(self.lines[index])}"

    def error(self, index: int, message: str) -> ValueError:
        """:func:`file_error` for the ``index``-th (0-based) line of :attr:`data`."""
        return file_error(self.path, message, int(self.lines[index]))

    def decoded_lines(self) -> list[str]:
        """The lines of :attr:`data` as ``str`` without their line ends (other Unicode line
        separators stay inside the line, as in :attr:`lines`)."""
        lines = self.data.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes announce, or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def decompression_limit(max_decompressed_bytes: MaxBytes, compressed_size: int) -> int | None:
    """The cap, in bytes, on the content of a compressed file of ``compressed_size`` bytes.

    ``"auto"``: :data:`DECOMPRESSION_RATIO` times the compressed size, at least
    :data:`DECOMPRESSION_FLOOR` (text compresses 4 to 10 times with gzip, up to about 50
    times with xz on sorted ids; a file that inflates 1,000 times is a "bomb"). None: no
    limit. An integer: that many bytes.

    Examples
    --------
    >>> decompression_limit("auto", 10 * 2**20) // 2**20  # a 10 MiB file: 2,000 MiB
    2000
    >>> decompression_limit("auto", 1000) // 2**20  # a small one: the floor
    256
    >>> decompression_limit(-1, 1000)
    Traceback (most recent call last):
    ...
    ValueError: max_decompressed_bytes must be 'auto', None or an integer >= 1; got -1
    """
    if max_decompressed_bytes is None:
        return None
    if isinstance(max_decompressed_bytes, str) and max_decompressed_bytes == "auto":
        return max(DECOMPRESSION_FLOOR, DECOMPRESSION_RATIO * int(compressed_size))
    if (
        isinstance(max_decompressed_bytes, bool)
        or not isinstance(max_decompressed_bytes, Integral)
        or max_decompressed_bytes < 1
    ):
        raise ValueError(
            "max_decompressed_bytes must be 'auto', None or an integer >= 1; got "
            f"{max_decompressed_bytes!r}"
        )
    return int(max_decompressed_bytes)


def too_large(path: str, kind: str, limit: int, size: int, given: MaxBytes) -> ValueError:
    """The refusal of a ``kind`` file of ``size`` bytes that would inflate past ``limit``,
    naming the rule that set the limit (``given``: the ``max_decompressed_bytes`` passed)."""
    rule = (
        f"the default cap: {DECOMPRESSION_RATIO} times the file's {size:,} bytes, at least "
        f"{DECOMPRESSION_FLOOR:,}"
        if given == "auto"
        else "max_decompressed_bytes"
    )
    return file_error(
        path,
        f"this {kind} file decompresses to more than {limit:,} bytes ({rule}); {RAISE_THE_CAP}",
    )


def read_bytes(path: str, *, max_decompressed_bytes: MaxBytes = "auto") -> bytes:
    """The file's bytes, decompressed when its first bytes announce a compression.

    Parameters
    ----------
    path : str
        The file.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the decompressed content of a compressed file (see
        :func:`decompression_limit`); content beyond it is a ValueError naming the file and
        the limit. Files that are not compressed are read whole.

    Notes
    -----
    The content is decompressed in blocks with a running count, kept while it is under
    :data:`KEPT_WHILE_COUNTING` bytes; past that it is only counted, up to the cap, and read
    again once it is known to fit. A file beyond the cap (a "bomb") thus costs the time to
    decompress the cap's worth but never more memory than about ``KEPT_WHILE_COUNTING``, and
    a genuine file above it is decompressed twice.
    """
    source, size = _source(path)
    if isinstance(source, bytes):
        head = source[:8]
    else:
        with open(path, "rb") as handle:
            head = handle.read(8)
    kind = compression_of(head)
    if kind is None:
        decompression_limit(max_decompressed_bytes, 0)  # validate the option all the same
        if isinstance(source, bytes):
            return source
        with open(path, "rb") as handle:
            return handle.read()
    limit = decompression_limit(max_decompressed_bytes, size)
    try:
        total, data = _inflate(path, kind, limit, source)
        if total is not None and limit is not None and total > limit:
            raise too_large(path, kind, limit, size, max_decompressed_bytes)
        if data is None:  # counted, not kept: read again, in one block of the known size
            with _decompressed(path, kind, source) as stream:
                data = stream.read(total)
    except ValueError as err:
        if str(err).startswith(path):
            raise
        raise file_error(path, f"cannot decompress this {kind} file ({err})") from None
    except (
        OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile, zlib.error, struct.error,
        NotImplementedError, RuntimeError,
    ) as err:
        raise file_error(path, f"cannot decompress this {kind} file ({err})") from None
    return data


#: :func:`read_bytes` keeps the decompressed content while it is below this many bytes (64 MiB)
#: and counts the rest before reading it again: the memory a refused "bomb" can take.
KEPT_WHILE_COUNTING = 64 * 2**20
_BLOCK = 2**20


def _source(path: str) -> tuple[str | bytes, int]:
    """``path`` and its size for a regular file; for anything else (a pipe, a device) its
    content, read once, and that content's size."""
    info = os.stat(path)
    if stat.S_ISREG(info.st_mode):
        return path, info.st_size
    with open(path, "rb") as handle:
        data = handle.read()
    return data, len(data)


@contextlib.contextmanager
def _decompressed(path: str, kind: str, source: str | bytes) -> Iterator[BinaryIO]:
    """The decompressed content of a ``kind`` file (read from ``source``: ``path``, or the
    content of a pipe named ``path``, :func:`_source`) as a stream."""
    opened = io.BytesIO(source) if isinstance(source, bytes) else source
    if kind == "zip":
        with zipfile.ZipFile(opened) as archive:
            names = [n for n in archive.namelist() if not n.endswith("/")]
            if len(names) != 1:
                raise file_error(
                    path, f"a zip archive must hold exactly one file; it holds {len(names)}"
                )
            with archive.open(names[0]) as member:
                yield member
    elif kind == "zstd":
        import pyarrow as pa

        with pa.input_stream(opened, compression="zstd") as stream:
            yield stream
    else:
        opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[kind]
        with opener(opened, "rb") as stream:
            yield stream


def _inflate(path: str, kind: str, limit: int | None, source: str | bytes
             ) -> tuple[int | None, bytes | None]:
    """``(size, content)`` of a compressed file, decompressed in blocks with a running count
    that stops one block past ``limit``; the content is None once it has outgrown
    :data:`KEPT_WHILE_COUNTING` (then only counted), the size None when it was read whole."""
    with _decompressed(path, kind, source) as stream:
        if limit is None:
            return None, stream.read()
        kept: list[bytes] | None = []
        total = 0
        while total <= limit:
            block = stream.read(_BLOCK)
            if not block:
                break
            total += len(block)
            if kept is not None:
                kept.append(block)
                if total > KEPT_WHILE_COUNTING:
                    kept = None  # count only: a bomb must not take the cap's worth of memory
    return total, None if kept is None else b"".join(kept)


def to_utf8(raw: bytes, path: str, encoding: str = "utf-8") -> bytes:
    """``raw`` re-encoded as UTF-8 without a byte-order mark.

    A byte-order mark decides the encoding; otherwise ``encoding`` is used. Invalid bytes raise
    a ValueError naming the file, the line and the bytes.
    """
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raw, encoding = raw[len(bom) :], name
            break
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except (LookupError, TypeError):  # TypeError: not a string (None, a number)
        raise ValueError(
            f"encoding must be a codec name such as 'utf-8'; got {encoding!r}"
        ) from None
    if utf8 and raw.isascii():  # valid UTF-8 as it is; a tenth of the time of decoding it
        return raw
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        before = raw[: err.start].replace(b"\r\n", b"\n")
        line = before.count(b"\n") + before.count(b"\r") + 1
        bad = raw[err.start : min(err.end, err.start + 4)]
        raise file_error(
            path,
            f"bytes {bad!r} are not valid {encoding} text; give the file's encoding (e.g. "
            "latin-1 or cp1252) as the encoding option",
            line,
        ) from None
    if utf8:
        return raw
    return text.encode("utf-8")


def _line_ends_as_lf(data: bytes) -> bytes:
    """``data`` with CRLF and lone CR made LF (a file line is a line of the result)."""
    if b"\r" not in data:
        return data
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _kept_lines(data: bytes) -> tuple[bytes, np.ndarray]:
    """Drop comment (``#`` first) and empty lines; the 1-based numbers of the others."""
    if not (data.startswith((b"#", b"\n")) or b"\n#" in data or b"\n\n" in data):
        # nothing to drop (the usual case): lines counted by a byte scan, no array of bytes
        n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        return data, np.arange(1, n + 1, dtype=np.int64)
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if len(arr) and (not len(ends) or ends[-1] != len(arr) - 1):
        ends = np.append(ends, len(arr))  # last line without a line end
    starts = np.r_[0, ends[:-1] + 1]
    length = ends - starts
    first = arr[np.minimum(starts, max(len(arr) - 1, 0))] if len(arr) else np.empty(0, np.uint8)
    drop = (length == 0) | (first == ord("#"))
    if not drop.any():
        return data, np.arange(1, len(starts) + 1, dtype=np.int64)
    keep = np.flatnonzero(~drop)
    # join runs of consecutive kept lines: few slices when comments are few
    breaks = np.flatnonzero(np.diff(keep) != 1) + 1
    pieces = [
        data[starts[run[0]] : min(ends[run[-1]] + 1, len(data))]
        for run in np.split(keep, breaks)
        if len(run)
    ]
    return b"".join(pieces), keep.astype(np.int64) + 1


def load_text(
    path: str | os.PathLike,
    *,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Text:
    """Read, decompress and decode a text file; line ends made LF, comments and empty lines
    dropped.

    Parameters
    ----------
    path : str or path-like
        The file.
    encoding : str, default "utf-8"
        Encoding of files without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (see :func:`read_bytes`).

    Returns
    -------
    Text

    Raises
    ------
    ValueError
        Naming the file (and line) for an undecodable byte, a broken compressed file or one
        whose content exceeds the cap.
    """
    name = file_path(path)
    data = to_utf8(read_bytes(name, max_decompressed_bytes=max_decompressed_bytes), name,
                   encoding)
    return Text(name, _line_ends_as_lf(data))


_SCAN_BLOCK = 2**18
"""Bytes per block of :func:`plain_file`'s scan, which makes several one-byte searches in
each and two byte masks (:class:`_Spacing`). On a 1.06 GB run of 10 M UUID lines, three
passes each (2026-11-29): 0.27-0.28 s in 128 KiB, 0.26 s in 256 KiB, 0.27-0.29 s in 512 KiB,
0.34-0.35 s in 1 MiB, 0.45 s in 4 MiB (a block of 256 KiB and its two masks stay in the
nearer caches); on 330 MB of numeric ids 0.08-0.09 s against 0.11 s in 1 MiB. (Measured before the
spacing masks, 2026-11-25: 0.212 s in blocks of 1 MiB, 0.246 s in 64 KiB and 0.241 s in
16 MiB.)"""

_LAST_LINE_MAX = 2**16
"""Bytes read from a plain file's end for :attr:`PlainFile.last_line` (a longer last line is
not returned)."""


class PlainFile(NamedTuple):
    """What :func:`plain_file` found in a file that :func:`load_text` gives as it is."""

    single_spaced: bool
    """Whether no space starts or ends a line or follows another: split at every space, no
    line then has an empty field. (Any two bytes in a row at or below the space, such as a
    blank line or a control byte beside a space, answer False too: a file is then merely not
    known to be single-spaced.)"""
    last_line: str | None
    """The file's last line, without its line end; None when it is longer than
    :data:`_LAST_LINE_MAX` bytes."""


class _Spacing:
    """Whether the blocks of a file, given in order, have only single spaces: no two bytes in
    a row at or below the space (a space, a line end, a control byte), none such at the
    file's start and no space at its end. Two line ends in a row (a blank line) or control
    bytes beside each other also answer False: an answer of True is what must hold. The byte
    masks go to buffers kept from block to block (fresh temporaries of a MiB, mapped anew by
    the allocator, cost 225,000 page faults and 0.3-0.4 s of system time for a run and its
    qrels of 400 MB); 0.11 ms per MiB, where ``bytes.find`` of one two-byte pattern takes
    0.9 ms and comparing spaces and line ends apart 0.28 ms (2026-11-25)."""

    def __init__(self, size: int) -> None:
        self.low = np.empty(size, dtype=bool)
        self.pair = np.empty(size, dtype=bool)
        self.before = ord("\n")  # a file starts as after a line end
        self.single = True

    def add(self, block: bytes | bytearray) -> None:
        """Look at the next ``block`` (not empty)."""
        if not self.single:
            return
        codes = np.frombuffer(block, dtype=np.uint8)
        n, before, self.before = len(codes), self.before, int(codes[-1])
        low = np.less_equal(codes, 32, out=self.low[:n])
        self.single = not ((low[0] and before <= 32)
                           or np.logical_and(low[:-1], low[1:], out=self.pair[:n - 1]).any())

    def single_spaced(self) -> bool:
        """The answer for the blocks given (the last one ending the file)."""
        return self.single and self.before != 32


def _last_line(handle: BinaryIO) -> str | None:
    """The last line of the ASCII file open as ``handle`` (a final line end not part of it),
    or None when it is longer than :data:`_LAST_LINE_MAX` bytes."""
    size = handle.seek(0, os.SEEK_END)
    start = max(0, size - _LAST_LINE_MAX - 2)  # the line, its end and the one before
    handle.seek(start)
    tail = handle.read().removesuffix(b"\n")
    line = tail[tail.rfind(b"\n") + 1:]
    return None if len(line) > _LAST_LINE_MAX else line.decode("ascii")


def plain_file(
    path: str | os.PathLike,
    *,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
    absent: bytes = b"",
) -> PlainFile | None:
    """Whether :func:`load_text` would give the file's bytes as they are, with no comment line
    in them, none of the bytes ``absent`` and no blank line at the end -- so a reader may parse
    the file from disk instead of holding its content while it parses (a run of 10 M lines is
    0.5-1 GB) -- and, for such a file, whether its spaces are single (a reader splitting at
    every space then finds no empty field, and need not convert a field it only checks) and
    its last line. The file is read once, a block at a time, and not kept.

    A :class:`PlainFile` when the file is a regular file (not a pipe), not empty, not
    compressed, ASCII (valid UTF-8 as it is; ``encoding`` must name UTF-8), has LF line ends,
    no ``#`` anywhere, none of ``absent`` and does not end in ``"\\n\\n"``; else None. Blank
    lines inside are not looked for: a reader that cannot take them must refuse them.
    ``max_decompressed_bytes`` is validated as :func:`load_text` does.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> def probe(content, **options):
    ...     path = os.path.join(folder, "f.txt")
    ...     with open(path, "wb") as f:
    ...         _ = f.write(content)
    ...     return plain_file(path, **options)
    >>> probe(b"q1 0 d1 1\\nq1 0 d2 0\\n")
    PlainFile(single_spaced=True, last_line='q1 0 d2 0')
    >>> probe(b"q1 0 d1 1\\nq1 0  d2 0")
    PlainFile(single_spaced=False, last_line='q1 0  d2 0')
    >>> probe(b"q1 0 d1 1\\r\\n"), probe(b"# c\\nq1 0 d1 1\\n"), probe(b"q1 0 d1 1\\n\\n")
    (None, None, None)
    >>> probe(b"q1\\t0 d1 1\\n", absent=b"\\t"), probe("q1 0 dé 1\\n".encode()), probe(b"")
    (None, None, None)
    """
    decompression_limit(max_decompressed_bytes, 0)  # validate the option all the same
    try:
        if codecs.lookup(encoding).name != "utf-8":
            return None
    except (LookupError, TypeError):
        return None  # load_text names the option
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None  # a pipe is read once, by load_text
    stops = [b"\r", b"#", *(bytes([byte]) for byte in absent)]
    block = bytearray(_SCAN_BLOCK)
    tail = b""
    spacing = _Spacing(len(block))
    with open(path, "rb") as handle:
        size = handle.readinto(block)
        if not size or compression_of(bytes(block[:8])) is not None:
            return None
        while size:
            if size < len(block):
                del block[size:]
            if not block.isascii() or any(block.find(stop) >= 0 for stop in stops):
                return None
            spacing.add(block)
            tail = (tail + bytes(block[-2:]))[-2:]
            size = handle.readinto(block)
        if tail == b"\n\n":
            return None
        return PlainFile(spacing.single_spaced(), _last_line(handle))


def read_names(
    path: str | os.PathLike, *, encoding: str = "utf-8", max_decompressed_bytes: MaxBytes = "auto"
) -> list[str]:
    """Names given one per line (class names): the lines of a text file read by
    :func:`load_text` (so ``#`` comment lines and blank lines are dropped), stripped; a name
    given twice is a ValueError naming both lines.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "classes.txt"
    >>> _ = path.write_text("# conditions\\nflu \\n\\ncold\\r\\n")
    >>> read_names(path)
    ['flu', 'cold']
    """
    text = load_text(path, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes)
    first: dict[str, int] = {}
    for index, line in enumerate(text.decoded_lines()):
        name = line.strip()
        if name and first.setdefault(name, index) != index:
            raise text.error(index, f"name {shown(name)} is given twice (first on line "
                             f"{int(text.lines[first[name]])})")
    return list(first)


def load_json(
    path: str | os.PathLike,
    *,
    expected: str,
    too_deep: str,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> tuple[Any, str]:
    """A JSON file's value and its text, read as :func:`load_text` reads a file (compression,
    its cap, byte-order mark, ``encoding``).

    Invalid JSON is a ValueError naming the file and line and showing ``expected`` (an
    example of the format); nesting deeper than Python's parser follows (about 1,000 levels,
    where it raises ``RecursionError``) is the ValueError ``"<path>: <too_deep>"``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "deep.json"
    >>> _ = path.write_text("[" * 100_000 + "]" * 100_000)
    >>> load_json(path, expected="[1, 2]", too_deep="expected a flat list")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...deep.json: expected a flat list
    """
    name = file_path(path)
    data = to_utf8(read_bytes(name, max_decompressed_bytes=max_decompressed_bytes), name,
                   encoding)
    text = data.decode("utf-8")  # json.loads on bytes would guess UTF-16 from a leading NUL
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook), text
    except json.JSONDecodeError as err:
        raise file_error(name, f"invalid JSON ({err.msg}); expected {expected}",
                         err.lineno) from None
    except RecursionError:
        raise file_error(name, too_deep) from None
