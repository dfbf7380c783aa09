"""glibc's ``malloc`` during a task of a Dask worker: memory freed by the task reused by it.

Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``, so that memory a task
frees goes back to the kernel. Setting that variable also fixes glibc's mmap threshold at
128 KiB (it no longer adapts to the program), so every NumPy array above 128 KiB is a fresh
mapping, freed to the kernel when the array goes, and each of its pages is a page fault the
next time. An evaluation allocates and frees such arrays all the time: a crisp task of
500,000 run rows took 0.155 s of CPU under Dask's setting, 0.115 s under glibc's adaptive
default and 0.087 s with the thresholds below (one process, the variables set at its
start). On two workers, 200,000 queries × 100 documents of ``benchmarks/dask_scale.py`` took
4.6-5.4 s of wall time under Dask's setting, 3.1-3.7 s with these thresholds for the workers'
whole life, and 4.3-4.5 s with them inside fuzzytruth's tasks only, as here (2026-11-25).

Inside :func:`reusing_freed_memory` the mmap threshold is raised to 32 MiB (glibc's largest)
and the trim threshold to 1 GiB: the task's arrays come from the heap and what it frees stays
there for its next ones. On the way out the thresholds the environment set are put back and
the free memory is given to the kernel (``malloc_trim``), so between tasks a worker holds what
Dask's setting would have it hold. Nested and concurrent scopes (a worker's threads) share
one setting: the first in raises the thresholds, the last out restores them.

Only where the thresholds are known, so that they can be restored: Linux with glibc,
``MALLOC_TRIM_THRESHOLD_`` set in the environment the process started with (read from
``/proc/self/environ``, which is what glibc read; ``MALLOC_MMAP_THRESHOLD_`` read when set,
else glibc's fixed 128 KiB) and no ``glibc.malloc`` tunable in ``GLIBC_TUNABLES``. Anywhere
else nothing is changed: in particular a Dask driver, whose ``os.environ`` gains the variable
when its LocalCluster starts the workers although its own ``malloc`` never read it (its
thresholds adapt, and setting them once would stop that for good).

Examples
--------
>>> with reusing_freed_memory():
...     total = sum(range(10))
>>> total
45
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["fixed_thresholds", "reusing_freed_memory", "worker_task"]

_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's <malloc.h>
_M_MMAP_THRESHOLD = -3
_GLIBC_MMAP_THRESHOLD = 128 * 1024
"""glibc's mmap threshold when it does not adapt (any threshold variable set)."""
_TASK_THRESHOLDS = (1 << 30, 32 << 20)
"""(trim, mmap) thresholds inside the scope: 1 GiB, and 32 MiB, the largest mmap threshold
glibc accepts on 64-bit systems."""

_INT_MAX = 2**31 - 1  # mallopt's argument is a C int
_DIGITS = re.compile("[0-9]+")

_lock = threading.Lock()
_depth = 0
_restore: tuple[int, int] | None = None

F = TypeVar("F", bound=Callable[..., Any])


def fixed_thresholds(environ: Mapping[str, str]) -> tuple[int, int] | None:
    """The (trim, mmap) thresholds glibc took from ``environ``, or None when they are not
    known from it (no ``MALLOC_TRIM_THRESHOLD_``, a value that is not a non-negative integer
    or that ``mallopt`` could not set back, or a ``glibc.malloc`` tunable).

    Examples
    --------
    >>> fixed_thresholds({"MALLOC_TRIM_THRESHOLD_": "65536"})
    (65536, 131072)
    >>> fixed_thresholds({}) is None
    True
    """
    if "glibc.malloc" in environ.get("GLIBC_TUNABLES", ""):
        return None
    trim = environ.get("MALLOC_TRIM_THRESHOLD_")
    mmap = environ.get("MALLOC_MMAP_THRESHOLD_", str(_GLIBC_MMAP_THRESHOLD))
    if trim is None or not (_DIGITS.fullmatch(trim) and _DIGITS.fullmatch(mmap)):
        return None
    if int(trim) > _INT_MAX or int(mmap) > _TASK_THRESHOLDS[1]:
        return None
    return int(trim), int(mmap)


@functools.cache
def _start_environ() -> dict[str, str]:
    """The environment this process started with (what glibc read at start), or {} where
    ``/proc/self/environ`` cannot be read."""
    try:
        with open("/proc/self/environ", "rb") as handle:
            block = handle.read()
    except OSError:
        return {}
    pairs = (entry.partition(b"=") for entry in block.split(b"\0") if entry)
    return {os.fsdecode(key): os.fsdecode(value) for key, _, value in pairs}


@functools.cache
def _libc() -> Any:
    """glibc's ``mallopt`` and ``malloc_trim``, or None on any other C library."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (AttributeError, OSError, ValueError):
        return None


def _set_thresholds(trim: int, mmap: int, *, release: bool) -> None:
    """Set glibc's trim and mmap thresholds; ``release``: then give free memory back."""
    libc = _libc()
    libc.mallopt(_M_TRIM_THRESHOLD, trim)
    libc.mallopt(_M_MMAP_THRESHOLD, mmap)
    if release:
        libc.malloc_trim(0)


@contextlib.contextmanager
def reusing_freed_memory() -> Iterator[bool]:
    """Within: memory freed by this process reused by it (module docstring); yields whether
    the thresholds were raised (False where they are not known, and nothing changes)."""
    global _depth, _restore
    with _lock:
        if _depth == 0:
            known = fixed_thresholds(_start_environ())
            _restore = known if known is not None and _libc() is not None else None
            if _restore is not None:
                _set_thresholds(*_TASK_THRESHOLDS, release=False)
        _depth += 1
        active = _restore is not None
    try:
        yield active
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _restore is not None:
                _set_thresholds(*_restore, release=True)
                _restore = None


def worker_task(function: F) -> F:
    """``function`` run inside :func:`reusing_freed_memory` (a Dask worker's unit of work)."""

    @functools.wraps(function)
    def task(*args: Any, **kwargs: Any) -> Any:
        with reusing_freed_memory():
            return function(*args, **kwargs)

    return task  # type: ignore[return-value]
