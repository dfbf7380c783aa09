"""Progress bars for long work (tqdm), drawn only when someone watches: a terminal or a notebook.

A public function whose work can last more than about a second takes a keyword-only option
``progress: bool | None = None``: ``None`` draws the bar when someone can see it — stderr is a
terminal, or the code runs in a Jupyter kernel (where the bar is a widget when ``ipywidgets``
is installed, text otherwise, as ``tqdm.auto`` chooses) — and never under continuous
integration (the ``CI`` environment variable set, as GitHub Actions, GitLab CI and most
services do) nor in pipes and logs; ``True`` always draws, ``False`` never. Kernels never draw
one: the function that drives the work reports once per vectorised batch (a chunk of worlds, a
block of resamples), never per query or per resample.

Examples
--------
Unwatched (as under pytest) nothing is drawn:

>>> with Progress(total=3, desc="worlds") as bar:
...     _ = bar.update(3)
>>> list(track(range(3), desc="measures"))
[0, 1, 2]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from fuzzytruth._validation import check_flag

__all__ = ["Progress", "in_notebook", "on_ci", "progress_enabled", "track"]

T = TypeVar("T")


def on_ci() -> bool:
    """Whether the ``CI`` environment variable says this is continuous integration.

    >>> isinstance(on_ci(), bool)
    True
    """
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def in_notebook() -> bool:
    """Whether this code runs in a Jupyter kernel (IPython with a kernel application).

    >>> in_notebook()
    False
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_enabled(progress: bool | None) -> bool:
    """Whether to draw: ``progress`` itself, or for None whether someone watches.

    >>> progress_enabled(False)
    False
    >>> progress_enabled("yes")
    Traceback (most recent call last):
    ...
    ValueError: progress must be True, False or None; got 'yes'
    """
    if progress is None:
        if on_ci():
            return False
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(isatty and isatty()) or in_notebook()
    return bool(check_flag("progress", progress, none=True))


def Progress(
    *, total: int | None, desc: str, unit: str = "it", progress: bool | None = None
) -> Any:
    """A tqdm bar that counts work done (``bar.update(n)``); a context manager."""
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


def _bar_class() -> type:
    """tqdm's notebook widget in a Jupyter kernel with ``ipywidgets``, its text bar otherwise
    (``tqdm.auto``'s choice, without its warning when ``ipywidgets`` is missing: the text bar
    shows in a notebook too)."""
    if in_notebook():
        try:
            import ipywidgets  # noqa: F401  (the widget bar needs it)
        except ImportError:
            pass
        else:
            from tqdm.notebook import tqdm as notebook_bar

            return notebook_bar
    from tqdm.std import tqdm as text_bar

    return text_bar


def _bar(
    items: Iterable[Any] | None, total: int | None, desc: str, unit: str, progress: bool | None
) -> Any:
    """The one place the bar's look is set: stderr, cleared when done, off unless watched."""
    enabled = progress_enabled(progress)
    if enabled:
        bar = _bar_class()
    else:
        from tqdm.std import tqdm as bar
    return bar(items, total=total, desc=desc, unit=unit, disable=not enabled, file=sys.stderr,
               leave=False)
