"""NumPy ``.npy`` and ``.npz`` files from untrusted bytes: sizes checked before anything is
allocated or inflated.

NumPy allocates the array a ``.npy`` header declares before it reads the data (a 64-byte file
declaring 10⁶ × 10⁶ float64 asks for 7.28 TiB), and a ``.npz`` is a zip archive whose members
may inflate far beyond its size. Here a header's shape is held to the bytes that follow it,
and an archive's members' declared sizes to the decompression cap
(:func:`fuzzytruth.io.text.decompression_limit`) before any member is inflated; zipfile stops
inflating a member at its declared size and checks its CRC. Every refusal is one ValueError
naming the file.

Examples
--------
>>> import io
>>> buffer = io.BytesIO()
>>> np.save(buffer, np.eye(2))
>>> npy_array("m.npy", buffer.getvalue()).tolist()
[[1.0, 0.0], [0.0, 1.0]]
>>> npy_array("m.npy", buffer.getvalue()[:-8])
Traceback (most recent call last):
...
ValueError: m.npy: the array declares shape (2, 2) of float64 (32 bytes) but holds 24 bytes
"""

from __future__ import annotations

import io
import lzma
import math
import struct
import zipfile
import zlib
from typing import IO

import numpy as np

from fuzzytruth.io.text import (
    MaxBytes,
    decompression_limit,
    file_error,
    first_line,
    shown,
    too_large,
)

__all__ = ["NPY_MAGIC", "npy_array", "npy_header", "npz_arrays"]

#: The first bytes of every ``.npy`` file (and of every array member of a ``.npz``).
NPY_MAGIC = b"\x93NUMPY"

_NOT_AN_ARCHIVE = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
                   EOFError, OSError, ValueError, KeyError, struct.error, zlib.error,
                   lzma.LZMAError)
"""What zipfile raises on a damaged or unsupported archive: a broken directory or header, a
compression method it does not know (NotImplementedError), an encrypted member
(RuntimeError), a corrupt stream (zlib, lzma; bz2 raises OSError), a checksum mismatch."""


def npy_header(handle: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of the ``.npy`` header at ``handle``'s position,
    which is left at the start of the data."""
    version = np.lib.format.read_magic(handle)
    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
            else np.lib.format.read_array_header_2_0)
    return read(handle)


def npy_array(where: str, data: bytes, member: str | None = None) -> np.ndarray:
    """The array of one ``.npy`` payload (the file ``where``, or its ``member``), after its
    header's shape is held to the bytes present."""
    what = f"its member {shown(member)}" if member else "the array"
    buffer = io.BytesIO(data)
    try:
        shape, _, dtype = npy_header(buffer)
    except (ValueError, OSError, EOFError, TypeError, SyntaxError) as err:
        raise file_error(where, f"not a readable .npy payload in {what} ({first_line(err)})"
                         ) from None
    needed = math.prod(shape) * dtype.itemsize
    present = len(data) - buffer.tell()
    if needed > present:
        raise file_error(where, f"{what} declares shape {shape} of {dtype} ({needed:,} bytes) "
                         f"but holds {present:,} bytes")
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError) as err:
        raise file_error(where, f"not a readable .npy payload in {what} ({first_line(err)})"
                         ) from None


def npz_arrays(where: str, data: bytes, max_decompressed_bytes: MaxBytes) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive ``where`` (its bytes ``data``), by member name
    without ``.npy``; the members' declared sizes held to ``max_decompressed_bytes``."""
    if data.startswith(NPY_MAGIC):
        raise file_error(where, "not a .npz archive (a single array: name the file .npy)")
    limit = decompression_limit(max_decompressed_bytes, len(data))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            declared = sum(member.file_size for member in members)
            fits = limit is None or declared <= limit
            payloads = {m.filename: archive.read(m) for m in members} if fits else {}
    except _NOT_AN_ARCHIVE as err:
        raise file_error(where, f"not a readable .npz file ({first_line(err)})") from None
    if not fits:
        raise too_large(where, ".npz", limit, len(data), max_decompressed_bytes)
    arrays = {}
    for member, payload in payloads.items():
        if not payload.startswith(NPY_MAGIC):
            raise file_error(where, f"not a .npz archive of arrays: its member {shown(member)} "
                             "is not a .npy file")
        arrays[member.removesuffix(".npy")] = npy_array(where, payload, member)
    return arrays
