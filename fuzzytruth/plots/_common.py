"""What every figure of :mod:`fuzzytruth.plots` shares: the Axes to draw in, input checks,
the colour-blind palette, and how intervals are named in labels."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from fuzzytruth._validation import check_columns, check_confidence_level

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


def require(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    """Raise a ValueError naming the missing columns, or an empty table
    (:func:`fuzzytruth._validation.check_columns`)."""
    check_columns(frame, name, columns)


def numeric(frame: pd.DataFrame, name: str, column: str) -> np.ndarray:
    """A column as float64, or a ValueError naming it and its dtype."""
    try:
        return frame[column].to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} column {column!r} must be numeric; got dtype {frame[column].dtype}"
        ) from exc


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


def percent(level: float) -> str:
    """0.95 -> '95%', 0.975 -> '97.5%'.

    >>> percent(0.95), percent(0.975)
    ('95%', '97.5%')
    """
    return f"{round(100 * level, 6):g}%"


def level_text(level: float | None) -> str:
    """'95% interval', or 'interval' when the level is unknown."""
    return "interval" if level is None else f"{percent(level)} interval"
