"""How many threads the compiled kernels may use, and the one way blocks are run on them.

The world engine (:func:`fuzzytruth.uncertain.worlds.world_values`) cuts its work into blocks of
queries × worlds whose compiled kernels release the GIL (numba ``nogil``), so a pool of Python
threads runs them in parallel. Every block writes its own part of the output and every random
draw is keyed (:mod:`fuzzytruth._random`), so the numbers never depend on the thread count.

The rule (:func:`default_threads`):

1. one thread inside a block that :func:`run_in_threads` runs: its siblings hold the other
   threads (a keyed Gamma pass split by worlds, called from a block of the world engine, stays
   in its block's thread);
2. the environment variable ``FUZZYTRUTH_NUM_THREADS`` when it is set (a positive integer);
3. one thread inside a Dask worker: the worker's own threads already run one task each, so
   more would oversubscribe the cores;
4. otherwise one thread per core this process may run on.

Examples
--------
>>> run_in_threads(lambda block: block * 2, [1, 2, 3], n_threads=2)
[2, 4, 6]
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from fuzzytruth._validation import check_int

__all__ = ["ENV_VARIABLE", "THREADED_CELLS", "by_rows", "check_threads", "default_threads",
           "run_in_threads"]

ENV_VARIABLE = "FUZZYTRUTH_NUM_THREADS"

_POOL_THREAD = threading.local()
"""``inside`` is True in the threads of :func:`run_in_threads`' pools."""


def check_threads(n_threads: object) -> int:
    """``n_threads`` validated (an integer >= 1), or :func:`default_threads` when None.

    Examples
    --------
    >>> check_threads(3)
    3
    >>> check_threads(0)
    Traceback (most recent call last):
    ...
    ValueError: n_threads must be an integer >= 1; got 0
    """
    if n_threads is None:
        return default_threads()
    return check_int("n_threads", n_threads, minimum=1)


def default_threads() -> int:
    """Threads for the compiled kernels: 1 in a pool's thread, else
    ``FUZZYTRUTH_NUM_THREADS``, else 1 inside a Dask worker, else the cores this process may
    use (module docstring).

    Examples
    --------
    >>> default_threads() >= 1
    True
    """
    if getattr(_POOL_THREAD, "inside", False):
        return 1
    value = os.environ.get(ENV_VARIABLE)
    if value is not None:
        try:
            return check_int(ENV_VARIABLE, int(value), minimum=1)
        except ValueError:
            raise ValueError(
                f"the environment variable {ENV_VARIABLE} must be an integer >= 1; "
                f"got {value!r}"
            ) from None
    if _in_dask_worker():
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _in_dask_worker() -> bool:
    """Whether this code runs in a task of a Dask worker (without importing Dask)."""
    if "distributed" not in sys.modules:
        return False
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:  # "No worker found"
        return False
    return True


def run_in_threads(
    work: Callable[[Any], Any], blocks: Sequence[Any], *, n_threads: int
) -> list[Any]:
    """``[work(block) for block in blocks]``, on up to ``n_threads`` threads (in this thread
    when one is enough); results in the order of ``blocks``, the first error raised."""
    if n_threads <= 1 or len(blocks) <= 1:
        return [work(block) for block in blocks]

    def in_pool(block: Any) -> Any:
        _POOL_THREAD.inside = True  # the pool's own threads: nested passes stay in them
        return work(block)

    with ThreadPoolExecutor(max_workers=min(n_threads, len(blocks))) as pool:
        return list(pool.map(in_pool, blocks))


THREADED_CELLS = 1 << 20
"""Cells of output from which :func:`by_rows` splits a compiled pass over threads: below it
the pool's start costs more than a second core saves (a cell is 5-90 ns of compiled work)."""


def by_rows(
    work: Callable[[slice], Any], n_rows: int, cells: int, *, cost: float = 1.0
) -> list[Any]:
    """``work(rows)`` for consecutive slices of ``range(n_rows)`` (worlds, units or items), on
    :func:`default_threads` threads when the pass computes at least :data:`THREADED_CELLS`
    ``cells`` in all (each worth ``cost`` of them: a pass whose cell is dearer than the
    cheapest, such as a Gamma draw, splits from fewer), else in one call: for a compiled pass
    that releases the GIL and writes each row of its output from that row's inputs alone
    (keyed draws, per-item sums), so that the bits are those of one pass.

    Examples
    --------
    >>> out = np.zeros((4, 1 << 19))
    >>> def fill(rows):
    ...     out[rows] = np.arange(4)[rows, None]
    ...     return rows.stop - rows.start
    >>> sum(by_rows(fill, len(out), out.size)), out[:, 0].tolist()
    (4, [0.0, 1.0, 2.0, 3.0])
    """
    n_threads = min(default_threads(), n_rows) if cells * cost >= THREADED_CELLS else 1
    cuts = np.linspace(0, n_rows, max(n_threads, 1) + 1).astype(int).tolist()
    return run_in_threads(work, [slice(a, b) for a, b in itertools.pairwise(cuts)],
                          n_threads=n_threads)
