"""What every figure of :mod:`fuzzytruth.plots` shares: the Axes to draw in, input checks,
the colour-blind palette, and how intervals are named in labels."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from fuzzytruth._validation import check_columns, check_confidence_level, check_real
from fuzzytruth.report import percent

PALETTE = "colorblind"
"""seaborn's colour-blind-safe palette: every figure's categorical colours."""


def axes(ax: Axes | None) -> Axes:
    """``ax``, or the Axes of a new figure when it is None."""
    if ax is None:
        _, ax = plt.subplots()
        return ax
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}")
    return ax


def check_evaluation(evaluation: object) -> None:
    """A ValueError unless ``evaluation`` is an :class:`~fuzzytruth.evaluation.Evaluation`."""
    from fuzzytruth.evaluation.result import Evaluation

    if not isinstance(evaluation, Evaluation):
        raise ValueError(
            "evaluation must be an Evaluation (from fuzzytruth.evaluate); got "
            f"{type(evaluation).__name__}"
        )


def require(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    """Raise a ValueError naming the missing columns, or an empty table
    (:func:`fuzzytruth._validation.check_columns`)."""
    check_columns(frame, name, columns)


def numeric(frame: pd.DataFrame, name: str, column: str) -> np.ndarray:
    """A column as float64, or a ValueError naming it and its dtype (complex numbers too,
    which numpy's cast would cut to their real parts)."""
    check_real(frame[column], f"{name} column {column!r}")
    try:
        return frame[column].to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} column {column!r} must be numeric; got dtype {frame[column].dtype}"
        ) from exc


def interval_ends(
    frame: pd.DataFrame, name: str, low: str, high: str
) -> tuple[np.ndarray, np.ndarray]:
    """The ends of an interval, two numeric columns (:func:`numeric`), or a ValueError naming
    them and the row (its index label, so a filtered table names the caller's row) when a
    row's low end lies above its high end. NaN ends (no interval) pass.

    >>> interval_ends(pd.DataFrame({"lo": [0.2], "hi": [0.1]}), "table", "lo", "hi")
    Traceback (most recent call last):
    ...
    ValueError: table columns 'lo' and 'hi' must be an interval's ends, 'lo' <= 'hi'; row 0 holds 0.2 > 0.1
    """  # noqa: E501
    lows, highs = numeric(frame, name, low), numeric(frame, name, high)
    reversed_ = lows > highs
    if reversed_.any():
        i = int(reversed_.argmax())
        raise ValueError(
            f"{name} columns {low!r} and {high!r} must be an interval's ends, {low!r} <= "
            f"{high!r}; row {frame.index[i]} holds {float(lows[i])!r} > {float(highs[i])!r}"
        )
    return lows, highs


def check_level(confidence_level: float) -> float:
    """The shared check of a confidence level (a number strictly between 0 and 1)."""
    return check_confidence_level(confidence_level)


def one_level(frame: pd.DataFrame, name: str) -> float | None:
    """The single confidence level of a table's intervals, None when it does not say."""
    if "confidence_level" not in frame.columns:
        return None
    levels = frame["confidence_level"].dropna().unique()
    if len(levels) > 1:
        raise ValueError(
            f"{name} mixes confidence levels; plot one level at a time (filter on "
            f"confidence_level); got {sorted(float(v) for v in levels)}"
        )
    return float(levels[0]) if len(levels) else None


def level_text(level: float | None) -> str:
    """'95% interval', or 'interval' when the level is unknown."""
    return "interval" if level is None else f"{percent(level)} interval"
