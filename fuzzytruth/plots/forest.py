"""Intervals side by side: pairwise differences between systems (a forest plot), and each
system's interval over queries beside its spread over the truths."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from fuzzytruth._validation import check_flag
from fuzzytruth.measures.names import label_among
from fuzzytruth.plots._common import (
    PALETTE,
    axes,
    interval_ends,
    level_text,
    numeric,
    one_level,
    require,
)
from fuzzytruth.report import percent
from fuzzytruth.stats._validation import check_alpha, significance_level
from fuzzytruth.stats.compare import Comparison

__all__ = ["plot_forest", "plot_system_intervals"]

_FOREST_COLUMNS = ("system_a", "system_b", "difference", "ci_low", "ci_high", "pvalue_adjusted")


def plot_forest(
    comparison: Comparison | pd.DataFrame,
    *,
    ax: Axes | None = None,
    alpha: float | None = None,
    title: str | None = "Paired differences between systems",
) -> Axes:
    """Forest plot of pairwise system differences with their confidence intervals.

    One row per (measure, system_a, system_b), top to bottom in table order, labelled
    ``A − B`` (prefixed with the measure when the table holds several). The point is the
    difference ``mean_a − mean_b``; the whiskers run from ``ci_low`` to ``ci_high``. A
    vertical line marks 0 (no difference). Pairs whose adjusted p-value is below ``alpha``
    are drawn in a second colour with a diamond marker; a NaN p-value counts as not
    significant.

    Parameters
    ----------
    comparison : Comparison or pandas.DataFrame
        The result of :func:`fuzzytruth.stats.compare`, or its ``table`` (columns
        ``system_a, system_b, difference, ci_low, ci_high, pvalue_adjusted``; ``measure``,
        ``confidence_level``, ``interval`` and ``estimand`` name the axis when present).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    alpha : float, optional
        Significance level; default the Comparison's ``alpha``; for a table, ``1 -
        confidence_level`` when it has that column (as :func:`~fuzzytruth.stats.compare` sets
        it, so that a diamond never sits beside an interval that contains 0), else 0.05.
    title : str or None
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        One errorbar container per pair.

    See Also
    --------
    plot_system_intervals : each system's own interval over queries (and spread over truths).

    Raises
    ------
    ValueError
        On missing columns, an empty table, ``alpha`` outside (0, 1), or a table mixing
        confidence levels.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> table = pd.DataFrame({
    ...     "system_a": ["dense", "near"], "system_b": ["bm25", "bm25"],
    ...     "difference": [0.155, 0.003], "ci_low": [0.087, -0.004], "ci_high": [0.221, 0.011],
    ...     "pvalue_adjusted": [0.0002, 0.39]})
    >>> ax = plot_forest(table)
    >>> len(ax.containers), [t.get_text() for t in ax.get_yticklabels()]
    (2, ['dense − bm25', 'near − bm25'])
    >>> ax.get_legend().get_texts()[0].get_text()
    'adjusted p < 0.05'
    >>> ax = plot_forest(table.assign(confidence_level=0.99))
    >>> ax.get_legend().get_texts()[0].get_text()
    'adjusted p < 0.01'
    >>> plt.close("all")
    """
    if isinstance(comparison, Comparison):
        table = comparison.table
    elif isinstance(comparison, pd.DataFrame):
        table = comparison
    else:
        raise ValueError(
            "comparison must be a Comparison (from fuzzytruth.stats.compare) or its table; "
            f"got {type(comparison).__name__}"
        )
    require(table, "comparison", _FOREST_COLUMNS)
    level = one_level(table, "comparison")
    if alpha is None:
        if isinstance(comparison, Comparison):
            alpha = comparison.alpha
        else:  # compare()'s rule: alpha = 1 - confidence_level
            alpha = 0.05 if level is None else significance_level(level)
    alpha = check_alpha(alpha)
    difference = numeric(table, "comparison", "difference")
    low, high = interval_ends(table, "comparison", "ci_low", "ci_high")
    significant = numeric(table, "comparison", "pvalue_adjusted") < alpha
    names = [f"{a} − {b}" for a, b in zip(table["system_a"], table["system_b"], strict=True)]
    measures = pd.unique(table["measure"]) if "measure" in table.columns else []
    if len(measures) > 1:
        names = [f"{m}: {n}" for m, n in zip(table["measure"], names, strict=True)]
    ax = axes(ax)
    palette = sns.color_palette(PALETTE)
    styles = {
        True: {"color": palette[3], "marker": "D", "label": f"adjusted p < {alpha:g}"},
        False: {"color": "0.35", "marker": "o", "label": f"adjusted p ≥ {alpha:g}"},
    }
    n = len(table)
    y = np.arange(n)[::-1]  # first row on top
    ax.axvline(0.0, color="black", linewidth=0.8, zorder=0)
    for i in range(n):
        style = styles[bool(significant[i])]
        _whisker(ax, low[i], high[i], y[i], difference[i], style["color"])
        ax.plot(difference[i], y[i], linestyle="none", marker=style["marker"],
                color=style["color"], markersize=6)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.5, n - 0.5)
    what = f"difference in {measures[0]}" if len(measures) == 1 else "difference"
    whiskers = "whiskers: " + level_text(level)
    if "interval" in table.columns and table["interval"].nunique() == 1:
        whiskers = whiskers.replace("interval", f"{table['interval'].iloc[0]} interval")
    if np.isnan(low).all() or np.isnan(high).all():  # Wilcoxon, sign: no interval
        whiskers = "no interval"
    elif np.isinf(low).any() or np.isinf(high).any():
        whiskers += ", one-sided (arrow: no bound)"
    if "estimand" in table.columns and table["estimand"].nunique() == 1:
        whiskers += f", estimand {table['estimand'].iloc[0]}"
    ax.set_xlabel(f"{what}, A − B ({whiskers})")
    handles = [
        Line2D([], [], color=styles[s]["color"], marker=styles[s]["marker"],
               label=styles[s]["label"])
        for s in (True, False) if s in set(significant.tolist())
    ]
    ax.legend(handles=handles, loc="best", fontsize="small")
    if title is not None:
        ax.set_title(title)
    return ax


def _whisker(ax: Axes, low: float, high: float, y: float, centre: float, color: Any) -> None:
    """An interval's whisker at height ``y``: capped at its finite ends, an arrow to the edge
    of the axes on a side without a bound (a one-sided interval; from ``centre``, the point
    estimate, when neither side has one), nothing when an end is NaN (a procedure without an
    interval)."""
    if np.isnan(low) or np.isnan(high):
        return
    if np.isfinite(low) and np.isfinite(high):
        # drawn from the interval's midpoint, so an interval that excludes the point estimate
        # (possible for percentile intervals) is still drawn where it is
        ax.errorbar((low + high) / 2, y, xerr=(high - low) / 2, fmt="none", ecolor=color,
                    elinewidth=1.5, capsize=3)
        return
    for end, edge, other in ((low, 0.0, high), (high, 1.0, low)):
        if np.isinf(end):
            start = other if np.isfinite(other) else centre
            if np.isfinite(other):
                ax.errorbar(start, y, xerr=0.0, fmt="none", ecolor=color, elinewidth=1.5,
                            capsize=3)
            ax.annotate("", xy=(edge, y), xycoords=("axes fraction", "data"), xytext=(start, y),
                        textcoords="data",
                        arrowprops={"arrowstyle": "->", "color": color, "lw": 1.5})


_SYSTEM_COLUMNS = ("system", "ci_low", "ci_high")


def _system_table(source: Any) -> tuple[pd.DataFrame, str]:
    """The per-system table of ``source`` with a ``value`` column, and the procedure's name."""
    if isinstance(source, Comparison):
        table = source.systems.rename(columns={"mean": "value"})
    elif isinstance(source, pd.DataFrame):
        table = source.rename(columns={"mean": "value"}) if "mean" in source else source
    elif callable(getattr(source, "aggregate", None)):
        table = source.aggregate()
    else:
        raise ValueError(
            "source must be an Evaluation, its aggregate() table, or a Comparison (its "
            f"systems table); got {type(source).__name__}"
        )
    require(table, "source", [*_SYSTEM_COLUMNS, "value"])
    # aggregate() reports the t interval (compare()'s default procedure); compare() names it
    interval = str(table["interval"].iloc[0]) if "interval" in table else "t"
    return table, interval


def plot_system_intervals(
    source: Any,
    *,
    ax: Axes | None = None,
    measure: str | None = None,
    truths: bool = True,
    title: str | None = "Each system's mean over queries",
) -> Axes:
    """Each system's mean with its interval over queries, and its spread over the truths.

    One row per system (per measure and system when several measures are shown, grouped by
    measure), top to bottom in table order. The point is the system's mean over queries; the
    thick whisker is its interval **over queries** (``ci_low`` to ``ci_high``: what the mean
    would do with new queries like these; estimand "queries" for a crisp truth, "collection"
    under the annotators' truth); with ``truths`` and a table that has them, a thin grey bar
    just below is its spread **over the sampled truths** (``truth_low`` to ``truth_high``: how
    much the annotators' uncertainty moves the mean, the queries held fixed). The legend names
    both, with their level, procedure and estimand. Two systems' intervals over queries may
    overlap while their paired difference excludes 0 (:func:`plot_forest`): the pairing removes
    the queries' shared difficulty.

    Parameters
    ----------
    source : Evaluation, pandas.DataFrame or Comparison
        An evaluation (its :meth:`~fuzzytruth.evaluation.Evaluation.aggregate` table is
        used), that table, or a :class:`~fuzzytruth.stats.Comparison` (its ``systems``
        table: the interval over queries by the comparison's procedure; no spread over
        truths).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    measure : str, optional
        Show this measure only (default every measure of the table).
    truths : bool
        Draw the spread over truths where the table has a non-degenerate one (default True).
    title : str or None
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        On an unknown source, missing columns, an empty table, an unknown ``measure`` or a
        table mixing confidence levels.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> table = pd.DataFrame({
    ...     "system": ["bm25", "dense"], "measure": "AP", "value": [0.30, 0.36],
    ...     "ci_low": [0.25, 0.31], "ci_high": [0.35, 0.41], "estimand": "collection",
    ...     "truth_low": [0.29, 0.35], "truth_high": [0.31, 0.37], "confidence_level": 0.95})
    >>> ax = plot_system_intervals(table)
    >>> for text in ax.get_legend().get_texts():
    ...     print(text.get_text())
    95% interval over queries (t, estimand collection)
    95% spread over the truths (queries fixed)
    >>> ax.get_xlabel()
    'AP, mean over queries'
    >>> plt.close("all")
    """
    truths = check_flag("truths", truths)
    table, interval = _system_table(source)
    if measure is not None:  # in any spelling of the table's measures ("map" for "AP")
        known = list(pd.unique(table["measure"])) if "measure" in table else []
        table = table[table["measure"] == label_among(measure, known)]
    if "measure" in table.columns:  # rows grouped by measure, in order of appearance
        order = {m: k for k, m in enumerate(pd.unique(table["measure"]))}
        table = table.sort_values("measure", key=lambda c: c.map(order), kind="stable")
    level = one_level(table, "source")
    value = numeric(table, "source", "value")
    low, high = interval_ends(table, "source", "ci_low", "ci_high")
    measures = pd.unique(table["measure"]) if "measure" in table.columns else []
    names = [str(s) for s in table["system"]]
    if len(measures) > 1:
        names = [f"{m}: {n}" for m, n in zip(table["measure"], names, strict=True)]
    has_truths = truths and {"truth_low", "truth_high"} <= set(table.columns)
    if has_truths:
        t_low, t_high = interval_ends(table, "source", "truth_low", "truth_high")
        has_truths = bool(np.any(np.isfinite(t_low) & (t_high > t_low)))
    ax = axes(ax)
    palette = sns.color_palette(PALETTE)
    n = len(table)
    y = np.arange(n)[::-1].astype(float)
    estimand = str(table["estimand"].iloc[0]) if "estimand" in table.columns else None
    over_queries = f"{level_text(level)} over queries ({interval}" + (
        f", estimand {estimand})" if estimand else ")"
    )
    # each bar drawn from its interval's midpoint, so a mean outside its interval (the exact
    # mean beside the quantiles of the sampled worlds' means; a BCa interval) is still drawn
    # where it is
    ax.errorbar((low + high) / 2, y, xerr=(high - low) / 2, fmt="none", ecolor=palette[0],
                elinewidth=2, capsize=4, label=over_queries)
    ax.plot(value, y, linestyle="none", marker="o", color=palette[0])
    if has_truths:
        spread = "spread" if level is None else f"{percent(level)} spread"
        ax.errorbar((t_low + t_high) / 2, y - 0.22, xerr=(t_high - t_low) / 2, fmt="none",
                    ecolor="0.45", elinewidth=3, capsize=0,
                    label=f"{spread} over the truths (queries fixed)")
    ax.set_yticks(y, names)
    ax.set_ylim(-0.7, n - 0.4)
    what = f"{measures[0]}, mean over queries" if len(measures) == 1 else "mean over queries"
    ax.set_xlabel(what)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize="small", frameon=False)
    if title is not None:
        ax.set_title(title)
    return ax
