"""A measure against reader reliability: the shape of Stutz et al.'s (2023) main figure.

One line per classifier: its value under PrIRN at each temperature (the readers' reliability),
with a band, and its value under the deterministic aggregation (the IRN argmax: one label per
item) as a dashed horizontal line in the same colour. The data are the tidy table of
:func:`fuzzytruth.classify.reliability_curves`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

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

__all__ = ["BANDS", "plot_reliability"]

BANDS = {
    "truth": ("truth_low", "truth_high", "over the sampled truths"),
    "items": ("ci_low", "ci_high", "over items"),
}
"""What a band can show: the spread of the value over the truth's worlds, or its confidence
interval over items."""

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def plot_reliability(
    table: pd.DataFrame,
    *,
    measure: str | None = None,
    band: str = "truth",
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Each system's value of one measure against the readers' reliability, with bands.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``system, measure, reliability, value`` and the band's columns (``truth_low,
        truth_high`` or ``ci_low, ci_high``); ``reliability`` is the PrIRN temperature, and
        ``inf`` marks the deterministic aggregation (drawn as a dashed line). The output of
        :func:`fuzzytruth.classify.reliability_curves`.
    measure : str, optional
        Which measure to draw; required when the table holds several.
    band : {"truth", "items"}
        The band: the spread over the truth's worlds (``truth_low``/``truth_high``), or the
        confidence interval over items (``ci_low``/``ci_high``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    title : str or None
        Axes title (default: "<measure> against reader reliability").

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"system": ["net"] * 3, "measure": "Acc",
    ...                   "reliability": [1, 10, float("inf")], "value": [0.6, 0.7, 0.75],
    ...                   "truth_low": [0.5, 0.65, 0.75], "truth_high": [0.7, 0.75, 0.75],
    ...                   "confidence_level": 0.95})
    >>> ax = plot_reliability(t)
    >>> ax.get_xlabel(), [line.get_label() for line in ax.get_legend().get_lines()][:2]
    ('reader reliability (PrIRN temperature)', ['net', 'deterministic aggregation (IRN argmax)'])
    >>> ax.figure.clf()
    """
    require(table, "table", ("system", "measure", "reliability", "value"))
    if band not in BANDS:
        raise ValueError(f"band must be one of {sorted(BANDS)}; got {band!r}")
    low, high, over = BANDS[band]
    require(table, "table", (low, high))
    measures = list(dict.fromkeys(table["measure"]))
    if measure is None:
        if len(measures) > 1:
            raise ValueError(f"the table holds several measures; choose one with measure=: "
                             f"{measures}")
        measure = measures[0]
    else:  # in any spelling of the table's measures ("map" for "AP")
        measure = label_among(measure, measures)
    rows = table[table["measure"] == measure]
    reliability = numeric(rows, "table", "reliability")
    if (reliability[np.isfinite(reliability)] <= 0).any() or np.isnan(reliability).any():
        raise ValueError("table column 'reliability' must hold positive temperatures (inf for "
                         "the deterministic aggregation)")
    level = one_level(rows, "table")
    lows, highs = interval_ends(rows, "table", low, high)
    values = numeric(rows, "table", "value")
    ax = axes(ax)
    systems = list(dict.fromkeys(rows["system"]))
    colours = sns.color_palette(PALETTE, max(len(systems), 1))
    handles = []
    for s, system in enumerate(systems):
        mine = (rows["system"] == system).to_numpy()
        finite = np.flatnonzero(mine & np.isfinite(reliability))
        curve = finite[np.argsort(reliability[finite], kind="stable")]  # by temperature
        colour, marker = colours[s], _MARKERS[s % len(_MARKERS)]
        if len(curve):
            x = reliability[curve]
            ax.fill_between(x, lows[curve], highs[curve], color=colour, alpha=0.2, linewidth=0)
            ax.plot(x, values[curve], color=colour, marker=marker, markersize=4)
        for value in values[mine & ~np.isfinite(reliability)]:
            ax.axhline(value, color=colour, linestyle="--", linewidth=1)
        handles.append(Line2D([], [], color=colour, marker=marker, markersize=4, label=system))
    handles.append(Line2D([], [], color="grey", linestyle="--",
                          label="deterministic aggregation (IRN argmax)"))
    handles.append(Line2D([], [], color="grey", alpha=0.4, linewidth=6,
                          label=f"{level_text(level)} {over}"))
    if np.isfinite(reliability).any():
        ax.set_xscale("log")
    ax.set_xlabel("reader reliability (PrIRN temperature)")
    ax.set_ylabel(f"{measure}, mean over items")
    ax.legend(handles=handles, fontsize="small")
    ax.set_title(f"{measure} against reader reliability" if title is None else title)
    return ax
