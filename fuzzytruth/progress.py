"""Progress bars for long work, drawn on stderr only when someone is watching a terminal.

Sampling many ground-truth worlds or running a large bootstrap can take seconds to minutes. This
module draws a one-line progress bar for such work, in pure Python (no tqdm), and stays
completely silent where a bar would only be noise: in CI logs, pipes, redirected output, and
notebooks (whose stderr is not a terminal) unless asked for explicitly.

The ``progress`` convention
---------------------------
A public function whose work can last more than about a second takes a keyword-only option
``progress: bool | None = None`` and passes it on unchanged:

* ``None`` (default): draw if and only if the stream (stderr) is a terminal
  (``sys.stderr.isatty()``);
* ``True``: always draw (a notebook, or a log that should show it);
* ``False``: never draw.

Anything else is rejected with a ValueError (see :func:`progress_enabled`). Functions that call
other long-running functions forward their own ``progress`` value; they do not decide again.

How to report
-------------
Wrap a loop over items with :func:`track`, or count work done with :class:`Progress` used as a
context manager. Kernels stay silent (the design keeps printing out of ``metrics/`` and
``uncertain/``): report from the function that drives the work, once per *batch* of vectorised
work, never by adding a Python loop per query or per resample just to count::

    def bootstrap(scores, *, n_resamples=10_000, progress=None, rng=None):
        with Progress(total=n_resamples, desc="bootstrap", unit="resamples",
                      progress=progress) as bar:
            for start in range(0, n_resamples, batch):
                stop = min(start + batch, n_resamples)
                ...                      # one vectorised step over resamples start..stop
                bar.update(stop - start)

    for world in track(worlds, desc="worlds", progress=progress):
        ...

Redraws are throttled to at most one every ``min_interval`` seconds (0.1 s by default, so
about ten per second), whatever the update rate, and the final state is always drawn when the
bar closes, followed by a newline. The total may be unknown (``total=None``): the bar then
shows the count and the rate only.

Examples
--------
Off a terminal (as under pytest or in a pipe) nothing is written:

>>> import io
>>> out = io.StringIO()
>>> with Progress(total=3, desc="worlds", stream=out) as bar:
...     for _ in range(3):
...         bar.update()
>>> bar.n, out.getvalue()
(3, '')

Forced, with a fixed clock so that the output is reproducible:

>>> out = io.StringIO()
>>> with Progress(total=4, desc="worlds", progress=True, stream=out, clock=lambda: 0.0) as bar:
...     bar.update(4)
>>> print(out.getvalue().split("\\r")[-1].rstrip())
worlds: 100%|########################| 4/4 [00:00<00:00, ? it/s]
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from numbers import Integral, Real
from types import TracebackType
from typing import TextIO, TypeVar

__all__ = ["Progress", "progress_enabled", "track"]

T = TypeVar("T")

_BAR_WIDTH = 24
_DEFAULT_MIN_INTERVAL = 0.1


def progress_enabled(progress: bool | None, stream: TextIO | None = None) -> bool:
    """Resolve the ``progress`` option: should a bar be drawn on ``stream``?

    Parameters
    ----------
    progress : bool or None
        ``None``: draw only when ``stream`` is a terminal; ``True``: always; ``False``: never.
    stream : text stream, optional
        Where the bar would go; ``sys.stderr`` (looked up at call time) by default. A missing
        stream (``sys.stderr`` is None under some GUI launchers) disables the bar.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``progress`` is not None, True or False.

    Examples
    --------
    >>> import io
    >>> progress_enabled(None, io.StringIO()), progress_enabled(True, io.StringIO())
    (False, True)
    >>> progress_enabled("yes")
    Traceback (most recent call last):
    ...
    ValueError: progress must be None (draw when stderr is a terminal), True or False; got 'yes'
    """
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(
            "progress must be None (draw when stderr is a terminal), True or False; "
            f"got {progress!r}"
        )
    if stream is None:
        stream = sys.stderr
    if stream is None or progress is False:
        return False
    if progress is True:
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def _check_total(total: int | None) -> int | None:
    if total is None:
        return None
    if isinstance(total, bool) or not isinstance(total, Integral) or total < 0:
        raise ValueError(f"total must be None (unknown) or an integer >= 0; got {total!r}")
    return int(total)


def _check_min_interval(min_interval: float) -> float:
    if (
        isinstance(min_interval, bool)
        or not isinstance(min_interval, Real)
        or not math.isfinite(min_interval)
        or min_interval < 0
    ):
        raise ValueError(
            f"min_interval must be a finite number >= 0 (seconds); got {min_interval!r}"
        )
    return float(min_interval)


def _clock_time(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class Progress:
    """Count work done and draw a throttled progress bar on stderr when it is a terminal.

    Use it as a context manager (the bar is closed, its final state drawn and a newline
    written, when the block ends, also on an exception), or call :meth:`close` yourself.
    The count is kept whether or not anything is drawn.

    Parameters
    ----------
    total : int, optional
        Number of units of work, when known; ``None`` shows the count and rate only.
    desc : str
        Short label printed before the bar.
    unit : str
        Name of one unit of work in the rate (``"it"`` by default: ``12.5 it/s``).
    progress : bool or None
        The ``progress`` convention (see the module docstring and :func:`progress_enabled`).
    stream : text stream, optional
        Where to draw; ``sys.stderr`` (at construction time) by default.
    min_interval : float
        Least time in seconds between two redraws (0.1: at most about ten per second).
    clock : callable
        Returns the current time in seconds; ``time.monotonic`` by default (inject a fake
        clock to test throttling).

    Attributes
    ----------
    n : int
        Units of work counted so far.
    total : int or None
        As given.
    enabled : bool
        Whether anything is drawn.

    Examples
    --------
    >>> import io
    >>> ticks = iter([0.0, 0.05, 0.2, 0.3])  # start, then one reading per update and close
    >>> out = io.StringIO()
    >>> bar = Progress(total=2, progress=True, stream=out, clock=lambda: next(ticks))
    >>> bar.update()  # 0.05 s after the first drawing: too soon, not redrawn
    >>> bar.update()  # 0.2 s: redrawn
    >>> bar.close()   # the final state, then a newline
    >>> out.getvalue().count("\\r"), out.getvalue().endswith("\\n")
    (3, True)
    """

    def __init__(
        self,
        total: int | None = None,
        *,
        desc: str = "",
        unit: str = "it",
        progress: bool | None = None,
        stream: TextIO | None = None,
        min_interval: float = _DEFAULT_MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = _check_total(total)
        self.min_interval = _check_min_interval(min_interval)
        self.desc = str(desc)
        self.unit = str(unit)
        self.stream = sys.stderr if stream is None else stream
        self.enabled = progress_enabled(progress, self.stream)
        self.n = 0
        self._clock = clock
        self._closed = False
        self._drawn_width = 0
        self._start = clock() if self.enabled else 0.0
        self._last_draw = self._start
        if self.enabled:
            self._draw(self._start)

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units of work done; redraw if ``min_interval`` has passed.

        Raises
        ------
        ValueError
            If ``n`` is not an integer >= 0, or the bar is closed.
        """
        if isinstance(n, bool) or not isinstance(n, Integral) or n < 0:
            raise ValueError(f"n must be an integer >= 0; got {n!r}")
        if self._closed:
            raise ValueError("update() called on a closed Progress")
        self.n += int(n)
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last_draw >= self.min_interval:
            self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        if self.enabled:
            self._draw(self._clock())
            self.stream.write("\n")
            self.stream.flush()

    def format(self, now: float) -> str:
        """The bar's text at time ``now`` (same clock as ``clock``), without ``\\r``.

        Examples
        --------
        >>> Progress(total=10, desc="boot", progress=False).format(0.0)
        'boot:   0%|                        | 0/10 [00:00<?, ? it/s]'
        >>> Progress(desc="worlds", unit="worlds", progress=False).format(0.0)
        'worlds: 0 worlds [00:00, ? worlds/s]'
        """
        elapsed = max(0.0, now - self._start)
        rate = self.n / elapsed if elapsed > 0 else None
        rate_text = f"{rate:.3g} {self.unit}/s" if rate is not None else f"? {self.unit}/s"
        prefix = f"{self.desc}: " if self.desc else ""
        if self.total is None:
            return f"{prefix}{self.n} {self.unit} [{_clock_time(elapsed)}, {rate_text}]"
        fraction = 1.0 if self.total == 0 else min(1.0, self.n / self.total)
        filled = int(fraction * _BAR_WIDTH)
        bar = "#" * filled + " " * (_BAR_WIDTH - filled)
        if self.n >= self.total:
            remaining = "00:00"
        elif rate:
            remaining = _clock_time((self.total - self.n) / rate)
        else:
            remaining = "?"
        return (
            f"{prefix}{fraction:4.0%}|{bar}| {self.n}/{self.total} "
            f"[{_clock_time(elapsed)}<{remaining}, {rate_text}]"
        )

    def _draw(self, now: float) -> None:
        line = self.format(now)
        padding = " " * max(0, self._drawn_width - len(line))  # wipe a longer previous line
        self.stream.write("\r" + line + padding)
        self.stream.flush()
        self._drawn_width = len(line)
        self._last_draw = now


def track(
    iterable: Iterable[T],
    *,
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    progress: bool | None = None,
    stream: TextIO | None = None,
    min_interval: float = _DEFAULT_MIN_INTERVAL,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[T]:
    """Yield the items of ``iterable`` while counting them on a :class:`Progress` bar.

    The options are checked at once; the bar starts with the first item and is closed when
    the iteration ends, stops early (``break``) or raises.

    Parameters
    ----------
    iterable : iterable
        The work items.
    total : int, optional
        Number of items; ``len(iterable)`` when omitted and available, else unknown.
    desc, unit, progress, stream, min_interval, clock
        As in :class:`Progress`.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> [x * x for x in track(range(4), desc="squares", stream=out)], out.getvalue()
    ([0, 1, 4, 9], '')
    """
    if total is None:
        try:
            total = len(iterable)  # type: ignore[arg-type]
        except TypeError:
            total = None
    total = _check_total(total)
    _check_min_interval(min_interval)
    progress_enabled(progress, stream)
    return _tracked(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        progress=progress,
        stream=stream,
        min_interval=min_interval,
        clock=clock,
    )


def _tracked(
    iterable: Iterable[T],
    *,
    total: int | None,
    desc: str,
    unit: str,
    progress: bool | None,
    stream: TextIO | None,
    min_interval: float,
    clock: Callable[[], float],
) -> Iterator[T]:
    with Progress(
        total,
        desc=desc,
        unit=unit,
        progress=progress,
        stream=stream,
        min_interval=min_interval,
        clock=clock,
    ) as bar:
        for item in iterable:
            yield item
            bar.update()
