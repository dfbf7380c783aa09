"""Santini §5: each annotator's displacement quality of each system, pessimist to optimist."""

from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from fuzzytruth._validation import check_flag
from fuzzytruth.displacement import DisplacementResult
from fuzzytruth.plots._common import PALETTE, axes, numeric, require

__all__ = ["plot_displacement"]

_PESSIMISTS = ("pessimist", "exact_pessimist")


def plot_displacement(
    table: DisplacementResult | pd.DataFrame,
    *,
    ax: Axes | None = None,
    pessimist: str = "pessimist",
    label_annotators: bool = False,
    title: str | None = "Displacement quality per annotator",
) -> Axes:
    """Per-annotator displacement quality ``q`` of each system, optimist to pessimist.

    One row per system (top to bottom in order of appearance); inside it one horizontal
    segment per annotator, from the pessimist's ``q`` to the optimist's (the two hypotheses
    about items the system did not return, Santini §5), with a marker at each end. Annotators
    keep the same vertical offset in every system row (sorted by id, top to bottom), so one
    annotator can be followed across systems. With several queries, each annotator's ``q`` is
    the mean over the queries they answered.

    Parameters
    ----------
    table : DisplacementResult or pandas.DataFrame
        The result of :func:`~fuzzytruth.displacement.weighted_displacement` or its
        :meth:`~fuzzytruth.displacement.DisplacementResult.to_frame` table (columns
        ``system, annotator_id, q_optimist`` and ``q_<pessimist>``; ``query_id`` optional).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    pessimist : {"pessimist", "exact_pessimist"}
        Which pessimist hypothesis bounds the segment: eq. 23 (every missing item at ``N``,
        default) or the exact placement ``N, N − 1, …``.
    label_annotators : bool
        Write each annotator's id next to its optimist marker (default False).
    title : str or None
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        On missing columns, an empty table, or an unknown ``pessimist``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> table = pd.DataFrame({
    ...     "system": ["bm25", "bm25", "dense", "dense"], "annotator_id": ["a1", "a2"] * 2,
    ...     "q_optimist": [0.5, 0.4, 0.8, 0.6], "q_pessimist": [0.1, 0.05, 0.3, 0.2]})
    >>> ax = plot_displacement(table)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['bm25', 'dense']
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['pessimist', 'optimist']
    >>> plt.close("all")
    """
    label_annotators = check_flag("label_annotators", label_annotators)
    if pessimist not in _PESSIMISTS:
        raise ValueError(f"pessimist must be one of {list(_PESSIMISTS)}; got {pessimist!r}")
    if isinstance(table, DisplacementResult):
        table = table.to_frame()
    elif not isinstance(table, pd.DataFrame):
        raise ValueError(
            "table must be a DisplacementResult (from weighted_displacement) or its table; "
            f"got {type(table).__name__}"
        )
    low_col, high_col = f"q_{pessimist}", "q_optimist"
    require(table, "table", ["system", "annotator_id", high_col, low_col])
    values = table[["system", "annotator_id"]].assign(
        low=numeric(table, "table", low_col), high=numeric(table, "table", high_col)
    )
    for column, name in (("low", low_col), ("high", high_col)):
        bad = ~np.isfinite(values[column].to_numpy())
        if bad.any():  # the mean over queries would skip a NaN without a word
            i = int(bad.argmax())
            raise ValueError(
                f"table column {name!r} must hold finite qualities; got "
                f"{float(values[column].iloc[i])!r} (row {values.index[i]})"
            )
    per_annotator = values.groupby(["system", "annotator_id"], sort=False).mean()
    systems = pd.unique(table["system"])
    annotators = sorted(pd.unique(table["annotator_id"]), key=str)
    row = {s: len(systems) - 1 - i for i, s in enumerate(systems)}  # first system on top
    step = 0.6 / max(1, len(annotators) - 1)
    offset = {a: 0.3 - j * step if len(annotators) > 1 else 0.0 for j, a in enumerate(annotators)}
    keys = per_annotator.index
    y = np.array([row[s] + offset[a] for s, a in keys])
    low = per_annotator["low"].to_numpy()
    high = per_annotator["high"].to_numpy()
    ax = axes(ax)
    palette = sns.color_palette(PALETTE)
    ax.hlines(y, low, high, color="0.6", linewidth=1.5, zorder=1)
    ax.scatter(low, y, marker="v", color=palette[3], zorder=2,
               label=pessimist.replace("_", " "))
    ax.scatter(high, y, marker="^", color=palette[0], zorder=2, label="optimist")
    if label_annotators:
        for (_, annotator), x_end, y_pos in zip(keys, high, y, strict=True):
            ax.annotate(str(annotator), (x_end, y_pos), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize="x-small")
    ax.set_yticks(range(len(systems) - 1, -1, -1), [str(s) for s in systems])
    ax.set_ylim(-0.5, len(systems) - 0.5)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylabel("system")
    queries = "query_id" in table.columns and table["query_id"].nunique() > 1
    ax.set_xlabel("quality q, mean over queries" if queries else "quality q")
    ax.legend(title="hypothesis", loc="best", fontsize="small", title_fontsize="small")
    if title is not None:
        ax.set_title(title)
    return ax
