"""The distribution of one uncertain number: its PMF, mean and equal-tailed interval."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from fuzzytruth.measures.names import label_among
from fuzzytruth.plots._common import (
    PALETTE,
    axes,
    check_evaluation,
    check_level,
    numeric,
    require,
)
from fuzzytruth.report import percent
from fuzzytruth.uncertain.distribution import Distribution

__all__ = ["plot_distribution", "plot_query_distribution"]

_OUTSIDE = "0.75"  # grey of the bars outside the interval


def plot_distribution(
    dist: Distribution | pd.DataFrame,
    *,
    ax: Axes | None = None,
    confidence_level: float = 0.95,
    label: str = "value",
    title: str | None = None,
    color: Any = None,
    max_bars: int = 40,
) -> Axes:
    """Plot the PMF of an uncertain number, with its mean and equal-tailed interval.

    One bar per support value (bar height = probability); beyond ``max_bars`` distinct values
    (typical of Monte Carlo distributions, e.g. AP over sampled worlds) the masses are summed
    into ``max_bars`` equal-width bins and the y label says "per bin". The equal-tailed
    interval (:meth:`Distribution.interval`) is a bracket above the bars from its lower to its
    upper end, and the bars inside it are coloured, those outside grey (a bin counts as inside
    when its centre is); the mean is a dashed vertical line. Both are named, with their
    values, in the legend. When the interval is the whole support (a query whose truth may
    make the list all wrong or all right), the bracket spans every bar: that is the interval,
    not a default. When the number is undefined with positive probability (exact recall with
    nothing relevant in some worlds), the probabilities are conditional on it being defined:
    the y label says so and the title gives ``P(undefined)``.

    Parameters
    ----------
    dist : Distribution or pandas.DataFrame
        The distribution, or its :meth:`Distribution.to_frame` table (columns ``value`` and
        ``probability``; such a table does not carry ``p_undefined``, which is taken as 0).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    confidence_level : float
        Coverage of the interval (default 0.95).
    label : str
        What the number is, for the x axis and the default title: the measure's name
        (e.g. ``"P@10"``); :func:`plot_query_distribution` sets it from an evaluation.
    title : str, optional
        Title; default ``"Distribution of <label>"``. The ``P(undefined)`` note is appended
        on a second line in either case.
    color : matplotlib colour, optional
        Colour of the bars inside the interval; default the first colour of the colour-blind
        palette.
    max_bars : int
        Most bars drawn; more distinct values are binned (default 40).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If ``dist`` is neither a Distribution nor a table with ``value`` and ``probability``,
        is undefined with probability 1 (nothing to plot), or ``confidence_level`` is not in
        (0, 1).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> d = Distribution.from_pmf([0, 1/3, 2/3, 1], [0.1, 0.2, 0.3, 0.4], p_undefined=0.2)
    >>> ax = plot_distribution(d, label="precision")
    >>> len(ax.containers[0])  # one bar per support value
    4
    >>> print(ax.get_title())
    Distribution of precision
    P(undefined) = 0.2
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['mean 0.667', '95% equal-tailed interval [0, 1]', 'probability, inside the interval']
    >>> plt.close("all")
    """
    level = check_level(confidence_level)
    if isinstance(dist, pd.DataFrame):
        require(dist, "dist", ["value", "probability"])
        dist = Distribution.from_pmf(
            numeric(dist, "dist", "value"), numeric(dist, "dist", "probability")
        )
    elif not isinstance(dist, Distribution):
        raise ValueError(
            "dist must be a Distribution or a DataFrame with columns ['value', 'probability']; "
            f"got {type(dist).__name__}"
        )
    if dist.support.size == 0:
        raise ValueError("dist is undefined with probability 1: there is no PMF to plot")
    if isinstance(max_bars, bool) or not isinstance(max_bars, int) or max_bars < 1:
        raise ValueError(f"max_bars must be a positive integer; got {max_bars!r}")
    ax = axes(ax)
    palette = sns.color_palette(PALETTE)
    support, probs = dist.support, dist.probabilities
    span = float(support[-1] - support[0]) or max(1.0, abs(float(support[0])))
    binned = support.size > max_bars
    if binned:
        probs, edges = np.histogram(support, bins=max_bars, weights=probs)
        support, width = (edges[:-1] + edges[1:]) / 2, 0.9 * float(edges[1] - edges[0])
    else:
        width = span / 25
        if support.size > 1:
            width = min(width, 0.8 * float(np.diff(support).min()))
    low, high = dist.interval(level)
    inside = (support >= low) & (support <= high)
    if binned:  # a bin whose range holds an end of the interval is inside too
        inside |= (support + width / 1.8 >= low) & (support - width / 1.8 <= high)
    colour = palette[0] if color is None else color
    ax.bar(support, probs, width=width, color=[colour if i else _OUTSIDE for i in inside])
    if support.size == 1:  # autoscaling would stretch the lone bar across the Axes
        ax.set_xlim(support[0] - span / 2, support[0] + span / 2)
    top = float(probs.max())
    bracket_y = 1.1 * top
    ax.errorbar(
        (low + high) / 2, bracket_y, xerr=(high - low) / 2, fmt="none", ecolor="black",
        elinewidth=1.2, capsize=4,
        label=f"{percent(level)} equal-tailed interval [{low:.3g}, {high:.3g}]",
    )
    mean = dist.mean()
    ax.axvline(mean, color=palette[3], linestyle="--", label=f"mean {mean:.3g}")
    ax.set_xlabel(label)
    ylabel = "probability per bin" if binned else "probability"
    ax.set_ylabel(ylabel + (" (given defined)" if dist.p_undefined > 0 else ""))
    ax.set_ylim(0, 1.3 * top)
    text = f"Distribution of {label}" if title is None else title
    if dist.p_undefined > 0:
        text += f"\nP(undefined) = {dist.p_undefined:.3g}"
    ax.set_title(text)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(color=colour))
    labels.append("probability, inside the interval")
    if not inside.all():
        handles.append(Patch(color=_OUTSIDE))
        labels.append("probability, outside")
    # below the Axes: inside, it would cover the bracket or the bars
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              fontsize="small", frameon=False)
    return ax


def plot_query_distribution(
    evaluation: Any,
    system: str,
    query_id: str,
    measure: str,
    *,
    ax: Axes | None = None,
    confidence_level: float | None = None,
    max_bars: int = 40,
) -> Axes:
    """The distribution of one (system, query, measure) of an evaluation, labelled from it.

    :func:`plot_distribution` of :meth:`Evaluation.distribution
    <fuzzytruth.evaluation.Evaluation.distribution>`, with the x axis named for the measure
    and a title that says which system and query, and how the distribution was obtained
    (the evaluation's method: exact under the annotators' truth, over its sampled worlds, or
    one crisp value).

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`fuzzytruth.evaluate`.
    system, query_id, measure : str
        Which distribution (the measure in any spelling the evaluation knows).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    confidence_level : float, optional
        Coverage of the interval (default: the evaluation's).
    max_bars : int
        Most bars drawn (see :func:`plot_distribution`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from fuzzytruth import ProbabilisticQrels, Run, evaluate
    >>> pq = ProbabilisticQrels(["q"] * 3, ["a", "b", "c"], [0.9, 0.5, 0.2])
    >>> run = Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0])
    >>> ax = plot_query_distribution(evaluate(run, pq, "P@2"), "run", "q", "P@2")
    >>> ax.get_xlabel()
    'P@2'
    >>> print(ax.get_title())
    P@2 of run on query q
    exact distribution under the uncertain truth
    >>> plt.close("all")
    """
    check_evaluation(evaluation)
    measure = label_among(str(measure), evaluation.measures)  # its label: "AP" for "map"
    dist = evaluation.distribution(system, query_id, measure)
    method = evaluation.method(system, measure)
    if method == "exact":
        how = "exact distribution under the uncertain truth"
    elif method == "crisp":
        how = "crisp truth: a single value"
    else:
        how = f"over {evaluation.n_worlds} sampled truths (Monte Carlo)"
    level = evaluation.confidence_level if confidence_level is None else confidence_level
    return plot_distribution(
        dist, ax=ax, confidence_level=level, label=str(measure), max_bars=max_bars,
        title=f"{measure} of {system} on query {query_id}\n{how}",
    )
