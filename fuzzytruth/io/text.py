"""One way to turn any input file into UTF-8 text for every reader of the package.

Every text format (TREC runs and qrels, CSV/TSV tables, JSON taxonomies, the loaders of public
collections) goes through :func:`load_text`, so they all behave alike:

* **compression** is recognised from the file's first bytes (gzip, bzip2, xz, zstd, a zip
  archive holding one file), whatever the file is called: ``labels.csv.gz`` and a gzip file
  named ``labels.csv`` both read;
* **byte-order marks** are removed (UTF-8) or decide the encoding (UTF-16, UTF-32);
* **encodings**: UTF-8 unless the caller names another one; bytes that are not valid in it
  raise a ``ValueError`` naming the file, the line and the bytes, never a bare codec error;
* **line numbers**: lines starting with ``#`` (comments) and blank lines are dropped, and the
  1-based file line of every remaining line is kept for error messages. CRLF and LF line ends
  are both accepted.

Examples
--------
>>> import gzip, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")  # gzip content under a plain name
>>> with open(path, "wb") as f:
...     _ = f.write(gzip.compress("\\ufeff# note\\r\\na,b\\r\\n\\r\\n1,2\\r\\n".encode()))
>>> text = load_text(path)
>>> text.data, text.lines.tolist()
(b'a,b\\r\\n1,2\\r\\n', [2, 4])
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import os
import zipfile
from dataclasses import dataclass

import numpy as np

__all__ = ["Text", "load_text"]

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


@dataclass(frozen=True)
class Text:
    """A file's content as UTF-8 bytes without comment or blank lines.

    Attributes
    ----------
    path : str
        The file, for error messages.
    data : bytes
        UTF-8, no byte-order mark; each remaining line ends with its original line end.
    lines : numpy.ndarray
        1-based line number in the file of each line of ``data``.
    """

    path: str
    data: bytes
    lines: np.ndarray

    def where(self, index: int) -> str:
        """``"<path>, line <n>"`` for the ``index``-th (0-based) line of :attr:`data`."""
        return f"{self.path}, line {int(self.lines[index])}"

    def decoded_lines(self) -> list[str]:
        """The lines of :attr:`data` as ``str`` without their line ends (LF or CRLF only; other
        Unicode line separators stay inside the line, as in :attr:`lines`)."""
        lines = self.data.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [line.removesuffix("\r") for line in lines]


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes announce, or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def read_bytes(path: str) -> bytes:
    """The file's bytes, decompressed when its first bytes announce a compression."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    kind = compression_of(head)
    try:
        if kind is None:
            with open(path, "rb") as handle:
                return handle.read()
        if kind == "gzip":
            with gzip.open(path, "rb") as handle:
                return handle.read()
        if kind == "bz2":
            with bz2.open(path, "rb") as handle:
                return handle.read()
        if kind == "xz":
            with lzma.open(path, "rb") as handle:
                return handle.read()
        if kind == "zip":
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
                if len(names) != 1:
                    raise ValueError(
                        f"{path}: a zip archive must hold exactly one file; it holds {len(names)}"
                    )
                return archive.read(names[0])
        import pyarrow as pa

        with pa.input_stream(path, compression="zstd") as stream:
            return stream.read()
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: cannot decompress this {kind} file ({err})") from None


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
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(
            f"encoding must be a codec name such as 'utf-8'; got {encoding!r}"
        ) from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        bad = raw[err.start : min(err.end, err.start + 4)]
        raise ValueError(
            f"{path}, line {line}: bytes {bad!r} are not valid {encoding} text; give the "
            "file's encoding (e.g. latin-1 or cp1252) as the encoding option"
        ) from None
    if codecs.lookup(encoding).name == "utf-8":
        return raw
    return text.encode("utf-8")


def _kept_lines(data: bytes) -> tuple[bytes, np.ndarray]:
    """Drop comment (``#`` first) and blank lines; the 1-based numbers of the others."""
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if len(arr) and (not len(ends) or ends[-1] != len(arr) - 1):
        ends = np.append(ends, len(arr))  # last line without a line end
    starts = np.r_[0, ends[:-1] + 1]
    length = ends - starts
    first = arr[np.minimum(starts, max(len(arr) - 1, 0))] if len(arr) else np.empty(0, np.uint8)
    blank = (length == 0) | ((length == 1) & (first == 13))
    drop = blank | (first == ord("#"))
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


def load_text(path: str | os.PathLike, *, encoding: str = "utf-8") -> Text:
    """Read, decompress and decode a text file; comments and blank lines dropped.

    Parameters
    ----------
    path : str or path-like
        The file.
    encoding : str, default "utf-8"
        Encoding of files without a byte-order mark.

    Returns
    -------
    Text

    Raises
    ------
    ValueError
        Naming the file (and line) for an undecodable byte or a broken compressed file.
    """
    name = os.fspath(path)
    data = to_utf8(read_bytes(name), name, encoding)
    kept, lines = _kept_lines(data)
    return Text(name, kept, lines)
