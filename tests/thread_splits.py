"""The check that compiled passes split over threads give the bits of one thread: shared by the
tests of the keyed draws, PrIRN's sampler and the agreement bootstrap."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def one_and_many(monkeypatch: Any, threads: str, passes: Callable[[], tuple],
                 n_passes: int) -> tuple[tuple, tuple]:
    """``passes()`` run with ``FUZZYTRUTH_NUM_THREADS=1`` and with ``threads``; asserts that
    each of its ``n_passes`` compiled passes was split into ``threads`` slices on as many
    threads, and that both runs give the same bits. Returns both results."""
    from fuzzytruth import _threads

    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", "1")
    one = passes()
    slices = []
    pool = _threads.run_in_threads
    monkeypatch.setattr(_threads, "run_in_threads", lambda work, blocks, n_threads: (
        slices.append((len(blocks), n_threads)) or pool(work, blocks, n_threads=n_threads)))
    monkeypatch.setenv("FUZZYTRUTH_NUM_THREADS", threads)
    many = passes()
    assert slices == [(int(threads), int(threads))] * n_passes  # each split, on that many
    for a, b in zip(one, many, strict=True):
        assert np.array_equal(a, b)
    return one, many
