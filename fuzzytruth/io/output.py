"""One way to write a file for every writer of the package: atomically, compressed by name.

:func:`open_output` writes into a temporary file in the target's folder and renames it over
the target (:func:`os.replace`) only when everything was written. An error or an interrupt
(Ctrl-C) while writing removes the temporary file and leaves the target as it was: a reader
never sees half a file. (This is atomicity, not durability: the data are not forced to disk
before the rename.)

A name ending in ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or ``.zip`` is written compressed in
that format (a zip archive holding one file named after the archive without ``.zip``), which
every reader recognises from the content (see :mod:`fuzzytruth.io.text`).

Examples
--------
>>> import gzip, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt.gz")
>>> with open_output(path) as handle:
...     _ = handle.write("q1 Q0 d1 1 2.5 sys\\n")
>>> gzip.decompress(open(path, "rb").read())
b'q1 Q0 d1 1 2.5 sys\\n'
>>> with open_output(path) as handle:  # an error while writing: the old file stays
...     _ = handle.write("half a line")
...     raise RuntimeError("disk full")
Traceback (most recent call last):
...
RuntimeError: disk full
>>> gzip.decompress(open(path, "rb").read()), os.listdir(os.path.dirname(path))
(b'q1 Q0 d1 1 2.5 sys\\n', ['run.txt.gz'])
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import secrets
import stat
import zipfile
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["COMPRESSED_SUFFIXES", "compression_for", "number_text", "open_output"]

#: Name suffixes that make a writer compress, and the compression each one means.
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}


def compression_for(path: str | os.PathLike) -> str | None:
    """The compression a file name asks for (its last suffix), or None.

    Examples
    --------
    >>> compression_for("qrels.txt.xz"), compression_for("qrels.txt")
    ('xz', None)
    """
    return COMPRESSED_SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower())


def number_text(values: Any) -> pa.Array:
    """Numbers as text in the shortest form that reads back exactly, as every writer writes
    them: whole numbers without a point, ``-0`` for negative zero (Arrow's formatting).

    Examples
    --------
    >>> number_text([2.0, 0.1, -0.0, 1e-300, float("inf")]).to_pylist()
    ['2', '0.1', '-0', '1e-300', 'inf']
    """
    numbers = pa.array(np.asarray(values, dtype=np.float64), type=pa.float64())
    return pc.cast(numbers, pa.large_string())


def _temporary_beside(target: str) -> tuple[str, int]:
    """A new file in ``target``'s folder (created exclusively, permissions as ``open``
    would give, or the target's own when it exists): its name and descriptor."""
    folder, base = os.path.split(target)
    while True:
        name = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
        except FileExistsError:
            continue
        break
    with contextlib.suppress(FileNotFoundError):
        os.chmod(name, stat.S_IMODE(os.stat(target).st_mode))
    return name, fd


def _compressed(raw: IO[bytes], kind: str | None, member: str,
                layers: list[Any]) -> IO[bytes]:
    """A binary stream writing ``kind``-compressed data into ``raw``; every stream opened is
    appended to ``layers`` (outermost last) so that the caller closes them in order."""
    if kind is None:
        return raw
    if kind == "gzip":
        stream: Any = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
    elif kind == "bz2":
        stream = bz2.BZ2File(raw, "wb")
    elif kind == "xz":
        stream = lzma.LZMAFile(raw, "wb")
    elif kind == "zstd":
        import pyarrow as pa

        stream = pa.CompressedOutputStream(pa.PythonFile(raw, mode="w"), "zstd")
    else:
        archive = zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED)
        layers.append(archive)
        stream = archive.open(member, "w", force_zip64=True)
    layers.append(stream)
    return stream


@contextlib.contextmanager
def open_output(path: str | os.PathLike, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle that writes ``path`` atomically, compressed as its suffix asks.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists; a symbolic link is written through).
    binary : bool, default False
        A binary handle; otherwise text in UTF-8 with ``"\\n"`` written as is.

    Yields
    ------
    file object
        Write the content to it; the target appears when the ``with`` block ends without an
        exception, and is left untouched otherwise.
    """
    target = os.path.realpath(os.fspath(path))
    temporary, fd = _temporary_beside(target)
    raw = os.fdopen(fd, "wb")
    layers: list[Any] = [raw]
    try:
        member = os.path.basename(target)[: -len(".zip")] or "data"
        stream = _compressed(raw, compression_for(target), member, layers)
        handle: IO[Any] = stream
        if not binary:
            handle = io.TextIOWrapper(stream, encoding="utf-8", newline="", write_through=True)
            layers.append(handle)
        yield handle
        for layer in reversed(layers):  # flush and close, innermost writer first
            layer.close()
        os.replace(temporary, target)
    except BaseException:
        for layer in reversed(layers):
            with contextlib.suppress(Exception):
                layer.close()
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
