"""Warnings that point at the user's line, not at the library's.

A warning raised deep inside an evaluation named the library line that raised it
(``collection/agreement.py:399``), and Python's default filter shows a warning once per
(file, line): two calls of the user's that met the same problem showed one warning, at a line
the user never wrote. :func:`warn` points every warning at the line that called into
fuzzytruth (the caller of the outermost fuzzytruth frame on the stack), which Python 3.12's
``skip_file_prefixes`` does for one level of calls; this works on 3.11 and through callbacks.
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

__all__ = ["warn"]

_PACKAGE = os.path.dirname(__file__) + os.sep


def _in_package(frame: FrameType) -> bool:
    return frame.f_code.co_filename.startswith(_PACKAGE)


def _is_internal(frame: FrameType) -> bool:
    """The import machinery's frames, which :func:`warnings.warn` does not count."""
    name = frame.f_code.co_filename
    return "importlib" in name and "_bootstrap" in name


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes :func:`warnings.warn`, called in the function that calls
    this one, name the first frame outside fuzzytruth above every fuzzytruth frame on the
    stack (the outermost one itself when nothing outside called it)."""
    frames = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    outermost = max((i for i, f in enumerate(frames) if _in_package(f)), default=-1)
    target = next((i for i in range(outermost + 1, len(frames)) if not _is_internal(frames[i])),
                  max(outermost, 0))
    # warnings.warn counts its caller as 1, then each frame above it but the import machinery's
    return 1 + sum(not _is_internal(f) for f in frames[:target + 1])


def warn(
    message: str, category: type[Warning] = UserWarning, *, stacklevel: int | None = None
) -> None:
    """:func:`warnings.warn` at the line that called into fuzzytruth (``stacklevel``, when
    given, is passed on as it is: 2 names the caller of the function calling this one).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("a message")
    >>> caught[0].filename.endswith("_warnings.py")  # a doctest: the caller is outside
    False
    """
    if stacklevel is not None:  # counted from the caller of warn(), as warnings.warn counts
        warnings.warn(message, category, stacklevel=stacklevel + 1)
        return
    warnings.warn(message, category, stacklevel=user_stacklevel())
