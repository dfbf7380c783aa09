"""Progress bars for long work (tqdm), drawn on stderr only when someone watches a terminal.

A public function whose work can last more than about a second takes a keyword-only option
``progress: bool | None = None``: ``None`` draws the bar if and only if stderr is a terminal
(silent in CI logs, pipes and notebooks), ``True`` always, ``False`` never. Kernels never draw
one: the function that drives the work reports once per vectorised batch (a chunk of worlds, a
block of resamples), never per query or per resample.

Examples
--------
Off a terminal (as under pytest) nothing is drawn:

>>> with Progress(total=3, desc="worlds") as bar:
...     _ = bar.update(3)
>>> list(track(range(3), desc="measures"))
[0, 1, 2]
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = ["Progress", "progress_enabled", "track"]

T = TypeVar("T")


def progress_enabled(progress: bool | None) -> bool:
    """Whether to draw: ``progress`` itself, or for None whether stderr is a terminal.

    >>> progress_enabled(False)
    False
    >>> progress_enabled("yes")
    Traceback (most recent call last):
    ...
    ValueError: progress must be True, False or None; got 'yes'
    """
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(isatty and isatty())
    if not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or None; got {progress!r}")
    return progress


def Progress(
    *, total: int | None, desc: str, unit: str = "it", progress: bool | None = None
) -> Any:
    """A tqdm bar on stderr that counts work done (``bar.update(n)``); a context manager."""
    return _bar(None, total, desc, unit, progress)


def track(
    items: Iterable[T],
    *,
    total: int | None = None,
    desc: str,
    unit: str = "it",
    progress: bool | None = None,
) -> Iterator[T]:
    """Iterate over ``items`` with a bar (see :func:`Progress`)."""
    yield from _bar(items, total, desc, unit, progress)


def _bar(
    items: Iterable[Any] | None, total: int | None, desc: str, unit: str, progress: bool | None
) -> Any:
    """The one place the bar's look is set: stderr, cleared when done, off unless watched."""
    return tqdm(
        items,
        total=total,
        desc=desc,
        unit=unit,
        disable=not progress_enabled(progress),
        file=sys.stderr,
        leave=False,
    )
