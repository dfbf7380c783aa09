"""One way to write a file for every writer of the package: atomically, compressed by name.

:func:`open_output` writes into a temporary file in the target's folder and renames it over
the target (:func:`os.replace`) only when everything was written. An error or an interrupt
(Ctrl-C) while writing removes the temporary file and leaves the target as it was: a reader
never sees half a file. (This is atomicity, not durability: the data are not forced to disk
before the rename.) A stream is written as it comes: ``/dev/stdout`` or ``/dev/fd/N`` through
the process's own descriptor (the output lands where ``print`` would put it), a named pipe
opened for appending.

A name ending in ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or ``.zip`` is written compressed in
that format (a zip archive holding one file named after the archive without ``.zip``), which
every reader recognises from the content (see :mod:`fuzzytruth.io.text`).

Examples
--------
>>> import gzip, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt.gz"
>>> with open_output(path) as handle:
...     _ = handle.write("q1 Q0 d1 1 2.5 sys\\n")
>>> gzip.decompress(path.read_bytes())
b'q1 Q0 d1 1 2.5 sys\\n'
>>> with open_output(path) as handle:  # an error while writing: the old file stays
...     _ = handle.write("half a line")
...     raise RuntimeError("disk full")
Traceback (most recent call last):
...
RuntimeError: disk full
>>> gzip.decompress(path.read_bytes()), [p.name for p in path.parent.iterdir()]
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
import sys
import zipfile
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fuzzytruth.io.text import file_path

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


def _special_file(path: str) -> bool:
    """Whether ``path`` is an existing file that is neither a regular file nor a folder (a
    named pipe, ``/dev/null``): a stream, written in place. Renaming a new file over it would
    fail (a pipe has no folder) or replace the device; a regular file anywhere, ``/dev/shm``
    included, is written atomically."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _descriptor(path: str) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdin``, ``/dev/stdout``,
    ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``), or None."""
    absolute = os.path.abspath(path)
    named = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
    if absolute in named:
        return named[absolute]
    for folder in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        number = absolute.removeprefix(folder)
        if number != absolute and number.isdigit():
            return int(number)
    return None


@contextlib.contextmanager
def _in_place(path: str, binary: bool, fd: int | None) -> Iterator[IO[Any]]:
    """A handle writing ``path`` as it is opened (a stream: nothing to write atomically),
    compressed as its name asks. One of this process's descriptors (``/dev/stdout``,
    ``/dev/fd/N``) is written through a duplicate of it, after Python's own buffers are
    flushed: the output then lands where ``print`` would put it, at the descriptor's offset
    (opened anew, a file that stdout was redirected to would be written from its start, over
    what was printed: :func:`_descriptor` gives ``fd``); anything else is opened for
    appending."""
    if fd is None:
        opened = open(path, "ab")
    else:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                if stream.fileno() == fd:
                    stream.flush()
        opened = os.fdopen(os.dup(fd), "wb")
    with opened as raw:
        layers: list[Any] = [raw]
        yield _writer(raw, path, binary, layers)
        for layer in reversed(layers[1:]):  # flush and close, innermost writer first
            layer.close()


def _writer(raw: IO[bytes], name: str, binary: bool, layers: list[Any]) -> IO[Any]:
    """The handle that writes into ``raw`` what file ``name`` should hold: compressed as its
    suffix asks, text in UTF-8 unless ``binary``; the streams opened are appended to
    ``layers`` (outermost last)."""
    member = os.path.basename(name)[: -len(".zip")] or "data"
    stream = _compressed(raw, compression_for(name), member, layers)
    if binary:
        return stream
    handle = io.TextIOWrapper(stream, encoding="utf-8", newline="", write_through=True)
    layers.append(handle)
    return handle


@contextlib.contextmanager
def open_output(path: str | os.PathLike, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle that writes ``path`` atomically, compressed as its suffix asks.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists; a symbolic link is written through). A
        stream (``/dev/stdout``, a pipe: :func:`_descriptor`, :func:`_special_file`) is
        written in place, as it comes, not atomically.
    binary : bool, default False
        A binary handle; otherwise text in UTF-8 with ``"\\n"`` written as is.

    Yields
    ------
    file object
        Write the content to it; the target appears when the ``with`` block ends without an
        exception, and is left untouched otherwise.
    """
    given = file_path(path)
    fd = _descriptor(given)
    if fd is not None or _special_file(given):
        with _in_place(given, binary, fd) as handle:
            yield handle
        return
    target = os.path.realpath(given)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{given} is a folder, not a file")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no such folder: {folder} (writing {given})")
    temporary, fd = _temporary_beside(target)
    raw = os.fdopen(fd, "wb")
    layers: list[Any] = [raw]
    try:
        yield _writer(raw, target, binary, layers)
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
