"""Two scores of every annotator against each other, on axes that one outlier cannot squeeze."""

from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from fuzzytruth._validation import check_flag, real_array
from fuzzytruth.plots._common import PALETTE, axes, numeric, require

__all__ = ["plot_annotator_scores", "robust_limits"]


def robust_limits(values: np.ndarray, *, fence: float = 3.0) -> tuple[float, float]:
    """Axis limits that hold every value inside Tukey's far fences, padded by 5 %.

    The fences are ``Q1 - fence * IQR`` and ``Q3 + fence * IQR`` (quartiles of the finite
    values); the limits span the values inside them, so one annotator far from the rest does
    not squeeze the others into a corner. With no spread (IQR 0) every value is kept.

    Examples
    --------
    >>> low, high = robust_limits(np.array([0.80, 0.82, 0.85, 0.86, 0.88, 0.14]))
    >>> round(low, 3), round(high, 3)
    (0.796, 0.884)
    """
    if isinstance(fence, bool) or not isinstance(fence, Real) or not fence >= 0:
        raise ValueError(f"fence must be a number >= 0; got {fence!r}")
    finite = real_array(values, "values")
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        raise ValueError("values must hold at least one finite number")
    q1, q3 = np.quantile(finite, [0.25, 0.75])
    iqr = q3 - q1
    inside = finite if iqr == 0 else finite[
        (finite >= q1 - fence * iqr) & (finite <= q3 + fence * iqr)
    ]
    low, high = float(inside.min()), float(inside.max())
    pad = 0.05 * (high - low) if high > low else 0.05 * max(abs(low), 1.0)
    return low - pad, high + pad


def plot_annotator_scores(
    table: pd.DataFrame,
    x: str,
    y: str,
    *,
    ax: Axes | None = None,
    id_column: str = "annotator_id",
    robust: bool = True,
    title: str | None = None,
) -> Axes:
    """Scatter two per-annotator scores, with axes fitted to the bulk of the annotators.

    One point per annotator. With ``robust`` (default) each axis spans the values inside
    Tukey's far fences (:func:`robust_limits`); an annotator outside them is drawn on the
    edge of the plot as an open triangle pointing the way it lies off scale, labelled with its
    id and its true values (a legend entry says so), and the axis label says the axis is
    clipped and how many annotators are off scale. ``robust=False`` lets matplotlib fit every
    point. An annotator without both scores (NaN) is not drawn, and the title says how many.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per annotator, e.g. :meth:`AnnotatorAgreement.to_frame
        <fuzzytruth.collection.AnnotatorAgreement.to_frame>` merged with a golden accuracy.
    x, y : str
        The numeric columns to plot (their names label the axes).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    id_column : str
        Column naming the annotators (default ``"annotator_id"``).
    robust : bool
        Fit the axes to the bulk and draw outliers on the edge (default True).
    title : str, optional
        Default ``"<y> vs <x> (<n> annotators)"``.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        On missing or non-numeric columns, or an empty table.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> scores = pd.DataFrame({"annotator_id": ["a", "b", "c", "d", "e", "f"],
    ...                        "agreement": [0.80, 0.82, 0.85, 0.86, 0.88, 0.14],
    ...                        "accuracy": [0.78, 0.80, 0.84, 0.83, 0.87, 0.21]})
    >>> ax = plot_annotator_scores(scores, "agreement", "accuracy")
    >>> ax.get_xlabel()
    'agreement (axis clipped: 1 off scale)'
    >>> [t.get_text() for t in ax.texts]
    ['f (0.14, 0.21)']
    >>> plt.close("all")
    """
    robust = check_flag("robust", robust)
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"table must be a DataFrame; got {type(table).__name__}")
    require(table, "table", [id_column, x, y])
    xs, ys = numeric(table, "table", x), numeric(table, "table", y)
    ax = axes(ax)
    palette = sns.color_palette(PALETTE)
    ids = table[id_column].astype(str).to_numpy()
    if not robust:
        ax.scatter(xs, ys, s=14, color=palette[0])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
    else:
        (x_low, x_high), (y_low, y_high) = robust_limits(xs), robust_limits(ys)
        off_x = (xs < x_low) | (xs > x_high)
        off_y = (ys < y_low) | (ys > y_high)
        off = off_x | off_y
        ax.scatter(xs[~off], ys[~off], s=14, color=palette[0])
        # off-scale annotators on the edge, pointing where they lie
        edge_x = np.clip(xs[off], x_low, x_high)
        edge_y = np.clip(ys[off], y_low, y_high)
        for px, py, tx, ty, name in zip(edge_x, edge_y, xs[off], ys[off], ids[off], strict=True):
            marker = "<" if tx < x_low else ">" if tx > x_high else "v" if ty < y_low else "^"
            ax.scatter([px], [py], s=40, marker=marker, facecolors="none",
                       edgecolors=palette[3], linewidths=1.2, clip_on=False, zorder=3)
            ax.annotate(f"{name} ({tx:.2g}, {ty:.2g})", (px, py), xytext=(6, 6),
                        textcoords="offset points", fontsize="x-small", color=palette[3])
        ax.set_xlim(x_low, x_high)
        ax.set_ylim(y_low, y_high)
        ax.set_xlabel(x + _clip_note(int(off_x.sum())))
        ax.set_ylabel(y + _clip_note(int(off_y.sum())))
        if off.any():
            ax.legend(
                handles=[Line2D([], [], linestyle="none", marker="<", markerfacecolor="none",
                                color=palette[3], label="off scale: drawn on the edge, "
                                "labelled (its values)")],
                loc="best", fontsize="x-small",
            )
    missing = int((np.isnan(xs) | np.isnan(ys)).sum())
    count = f"{len(table)} annotators" + (
        f", {missing} without both scores: not drawn" if missing else "")
    ax.set_title(f"{y} vs {x} ({count})" if title is None else title, fontsize="medium")
    return ax


def _clip_note(n_off: int) -> str:
    return f" (axis clipped: {n_off} off scale)" if n_off else ""
