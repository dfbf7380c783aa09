"""Figures of uncertain evaluations and comparisons (seaborn / matplotlib).

Every function takes its data first (a library object or its tidy frame), then keyword-only
options, draws into ``ax`` (a new figure when ``ax`` is None), and returns the matplotlib
Axes. Nothing here calls ``plt.show()`` or saves a file: the caller decides. Colours come from
seaborn's colour-blind-safe ``"colorblind"`` palette, and categories that matter are also told
apart by marker shape; the heatmap uses ``"viridis"``, which is colour-blind-safe and prints
readably in grey.

* :func:`plot_distribution`: the PMF of one uncertain number (a :class:`Distribution`);
* :func:`plot_pr_curves`: precision–recall curves of several systems, with bands;
* :func:`plot_forest`: pairwise differences from :func:`fuzzytruth.stats.compare`;
* :func:`plot_displacement`: per-annotator displacement quality, pessimist to optimist;
* :func:`plot_agreement_heatmap`: agreement per category and measure (or taxonomy depth).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from fuzzytruth._validation import check_confidence_level
from fuzzytruth.displacement import DisplacementResult
from fuzzytruth.stats.compare import Comparison
from fuzzytruth.uncertain.categorical import CutoffDistributions
from fuzzytruth.uncertain.distribution import Distribution

__all__ = [
    "plot_agreement_heatmap",
    "plot_displacement",
    "plot_distribution",
    "plot_forest",
    "plot_pr_curves",
    "plot_system_pr",
    "system_pr_measures",
]

_PALETTE = "colorblind"
_PESSIMISTS = ("pessimist", "exact_pessimist")


# ---------------------------------------------------------------------- shared helpers
def _axes(ax: Axes | None) -> Axes:
    if ax is None:
        _, ax = plt.subplots()
        return ax
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}")
    return ax


def _require(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    """Raise a ValueError naming the missing columns, or an empty table."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} must have columns {list(columns)}; missing {missing}, "
            f"found {list(frame.columns)}"
        )
    if len(frame) == 0:
        raise ValueError(f"{name} must not be empty")


def _numeric(frame: pd.DataFrame, name: str, column: str) -> np.ndarray:
    try:
        return frame[column].to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} column {column!r} must be numeric; got dtype {frame[column].dtype}"
        ) from exc


def _check_level(confidence_level: float) -> float:
    return check_confidence_level(confidence_level)


def _one_level(frame: pd.DataFrame, name: str) -> float | None:
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


def _percent(level: float) -> str:
    """0.95 -> '95%', 0.975 -> '97.5%'."""
    return f"{round(100 * level, 6):g}%"


def _level_text(level: float | None) -> str:
    return "interval" if level is None else f"{_percent(level)} interval"


# ---------------------------------------------------------------------- distribution
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
    into ``max_bars`` equal-width bins and the y label says "per bin". The mean is a dashed
    vertical line, the equal-tailed interval (:meth:`Distribution.interval`) a shaded span;
    both are named, with their values, in the legend. When the number is undefined with
    positive probability (exact recall with nothing relevant in some worlds), the
    probabilities are conditional on it being defined: the y label says so and the title
    gives ``P(undefined)``.

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
        What the number is, for the x axis and the default title (e.g. ``"precision"``).
    title : str, optional
        Title; default ``"Distribution of <label>"``. The ``P(undefined)`` note is appended
        on a second line in either case.
    color : matplotlib colour, optional
        Bar colour; default the first colour of the colour-blind palette.
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
    >>> plt.close("all")
    """
    level = _check_level(confidence_level)
    if isinstance(dist, pd.DataFrame):
        _require(dist, "dist", ["value", "probability"])
        dist = Distribution.from_pmf(
            _numeric(dist, "dist", "value"), _numeric(dist, "dist", "probability")
        )
    elif not isinstance(dist, Distribution):
        raise ValueError(
            "dist must be a Distribution or a DataFrame with columns ['value', 'probability']; "
            f"got {type(dist).__name__}"
        )
    if dist.support.size == 0:
        raise ValueError("dist is undefined with probability 1: there is no PMF to plot")
    ax = _axes(ax)
    palette = sns.color_palette(_PALETTE)
    if max_bars < 1:
        raise ValueError(f"max_bars must be a positive integer; got {max_bars!r}")
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
    ax.bar(support, probs, width=width, color=palette[0] if color is None else color)
    if support.size == 1:  # autoscaling would stretch the lone bar across the Axes
        ax.set_xlim(support[0] - span / 2, support[0] + span / 2)
    low, high = dist.interval(level)
    ax.axvspan(low, high, color=palette[2], alpha=0.2, linewidth=0,
               label=f"{_percent(level)} equal-tailed interval [{low:.3g}, {high:.3g}]")
    mean = dist.mean()
    ax.axvline(mean, color=palette[3], linestyle="--", label=f"mean {mean:.3g}")
    ax.set_xlabel(label)
    ylabel = "probability per bin" if binned else "probability"
    ax.set_ylabel(ylabel + (" (given defined)" if dist.p_undefined > 0 else ""))
    ax.set_ylim(0, min(1.05, 1.15 * float(probs.max())))
    text = f"Distribution of {label}" if title is None else title
    if dist.p_undefined > 0:
        text += f"\nP(undefined) = {dist.p_undefined:.3g}"
    ax.set_title(text)
    ax.legend(loc="best", fontsize="small")
    return ax


# ---------------------------------------------------------------------- P-R curves
_PR_COLUMNS = ("system", "cutoff", "measure", "mean", "ci_low", "ci_high")


def _pr_frame(
    curves: Mapping[Any, CutoffDistributions] | pd.DataFrame, confidence_level: float | None
) -> tuple[pd.DataFrame, float | None]:
    if isinstance(curves, pd.DataFrame):
        if confidence_level is not None:
            raise ValueError(
                "confidence_level applies to a mapping of CutoffDistributions; a table's "
                "intervals are already computed (its confidence_level column names their "
                f"level); got confidence_level={confidence_level!r} with a DataFrame"
            )
        _require(curves, "curves", _PR_COLUMNS)
        return curves, _one_level(curves, "curves")
    if not isinstance(curves, Mapping):
        raise ValueError(
            "curves must be a mapping system -> CutoffDistributions or a DataFrame with "
            f"columns {list(_PR_COLUMNS)}; got {type(curves).__name__}"
        )
    if len(curves) == 0:
        raise ValueError("curves must not be empty")
    level = _check_level(0.95 if confidence_level is None else confidence_level)
    frames = []
    for system, curve in curves.items():
        if not isinstance(curve, CutoffDistributions):
            raise ValueError(
                f"curves[{system!r}] must be a CutoffDistributions (from "
                f"precision_recall_curve); got {type(curve).__name__}"
            )
        frames.append(curve.to_frame(level).assign(system=system))
    return pd.concat(frames, ignore_index=True), level


def plot_pr_curves(
    curves: Mapping[Any, CutoffDistributions] | pd.DataFrame,
    *,
    ax: Axes | None = None,
    confidence_level: float | None = None,
    title: str | None = "Precision–recall under uncertain truth",
    palette: Any = "colorblind",
) -> Axes:
    """Plot precision–recall curves of several systems, with uncertainty bands.

    For each system, the point at cutoff ``i`` is (mean recall, mean precision) of the first
    ``i`` results; the shaded band spans the equal-tailed interval of precision at each
    cutoff (``ci_low`` to ``ci_high``). Means and intervals of an uncertain number are
    conditional on it being defined (see :class:`Distribution`).

    Parameters
    ----------
    curves : mapping or pandas.DataFrame
        System → :class:`~fuzzytruth.uncertain.CutoffDistributions` (from
        :func:`~fuzzytruth.uncertain.precision_recall_curve`), in legend order; or a tidy
        table with a ``system`` column plus the :meth:`CutoffDistributions.to_frame` columns
        (at least ``cutoff, measure, mean, ci_low, ci_high``, measures ``precision`` and
        ``recall``), systems in order of appearance.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    confidence_level : float, optional
        Coverage of the bands for a mapping (default 0.95). Must be omitted for a table,
        whose intervals are already computed.
    title : str or None
        Axes title.
    palette : seaborn palette
        Colours of the systems (default colour-blind-safe).

    Returns
    -------
    matplotlib.axes.Axes
        One line (labelled with the system) and one band (a ``PolyCollection``) per system.

    Raises
    ------
    ValueError
        On an empty input, missing columns, a system without both precision and recall rows,
        or a table mixing confidence levels.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> from fuzzytruth.uncertain import precision_recall_curve
    >>> ex = santini_illustrative()
    >>> curves = {c: precision_recall_curve(ex.membership, ex.results, category=c)
    ...           for c in ("people", "city")}
    >>> ax = plot_pr_curves(curves)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['people', 'city']
    >>> plt.close("all")
    """
    frame, level = _pr_frame(curves, confidence_level)
    lines = {}  # system -> (recall mean, precision mean, precision ci_low, ci_high)
    for system in pd.unique(frame["system"]):
        rows = frame[frame["system"] == system]
        by_measure = {
            m: rows[rows["measure"] == m].set_index("cutoff").sort_index()
            for m in ("precision", "recall")
        }
        for m, part in by_measure.items():
            if part.empty:
                raise ValueError(
                    f"curves must hold precision and recall rows for every system; system "
                    f"{system!r} has no {m!r} rows"
                )
            if part.index.has_duplicates:
                raise ValueError(
                    f"curves must hold one {m!r} row per cutoff and system; system {system!r} "
                    "repeats a cutoff"
                )
        cutoffs = by_measure["precision"].index.intersection(by_measure["recall"].index)
        precision = by_measure["precision"].loc[cutoffs]
        lines[system] = (
            _numeric(by_measure["recall"].loc[cutoffs], "curves", "mean"),
            *(_numeric(precision, "curves", c) for c in ("mean", "ci_low", "ci_high")),
        )
    ax = _axes(ax)
    colours = sns.color_palette(palette, len(lines))
    for (system, (x, y, low, high)), colour in zip(lines.items(), colours, strict=True):
        ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
        ax.plot(x, y, color=colour, marker="o", markersize=3, label=str(system))
    ax.set_xlabel("recall (mean)")
    ax.set_ylabel("precision (mean)")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.05)
    ax.legend(title=f"system (band: {_level_text(level)} of precision)", fontsize="small",
              title_fontsize="small")
    if title is not None:
        ax.set_title(title)
    return ax


RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
"""The 11 standard recall levels of :func:`system_pr_measures`."""


def system_pr_measures(levels: Sequence[float] = RECALL_LEVELS) -> list[str]:
    """The measures of a system-level precision–recall curve: interpolated precision at each
    recall level (``iP@r``), to pass to :func:`fuzzytruth.evaluate` with the others.

    Examples
    --------
    >>> system_pr_measures([0.0, 0.5, 1.0])
    ['iP@0', 'iP@0.5', 'iP@1']
    """
    from fuzzytruth.measures import parse_measure

    return [str(parse_measure(f"iP@{r}")) for r in levels]


def plot_system_pr(
    evaluation: Any,
    *,
    ax: Axes | None = None,
    confidence_level: float | None = None,
    title: str | None = None,
    palette: Any = "colorblind",
) -> Axes:
    """System-level precision–recall curves under uncertain truth, one per system.

    Each point is a system's mean over queries of interpolated precision at a recall level
    (the ``iP@r`` measures of :func:`system_pr_measures`, as :meth:`Evaluation.aggregate
    <fuzzytruth.evaluation.Evaluation.aggregate>` reports them); the band is the interval of
    that mean over the sampled truths (how much the annotators' uncertainty moves the curve,
    queries held fixed). Bands are light and edged with a thin line of their system's colour,
    so overlapping bands stay readable.

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with the ``iP@r`` measures (and worlds, for the bands).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    confidence_level : float, optional
        Coverage of the bands (default: the evaluation's).
    title : str, optional
        Default: says what is shown (systems, queries, measure, band).
    palette : seaborn palette
        Colours of the systems.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from fuzzytruth import ProbabilisticQrels, Run, evaluate
    >>> pq = ProbabilisticQrels(["q"] * 3, ["a", "b", "c"], [1.0, 0.5, 0.2])
    >>> runs = {"A": Run(["q"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0]),
    ...         "B": Run(["q"] * 3, ["c", "b", "a"], [3.0, 2.0, 1.0])}
    >>> ev = evaluate(runs, pq, system_pr_measures(), n_worlds=200, rng=0)
    >>> ax = plot_system_pr(ev)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['A', 'B']
    >>> plt.close("all")
    """
    from fuzzytruth.measures import parse_measure

    names = [m for m in evaluation.measures if parse_measure(m).name == "iP"]
    if not names:
        raise ValueError(
            "evaluation must include interpolated precision at recall levels; evaluate with "
            "measures=system_pr_measures() (iP@0, iP@0.1, ..., iP@1)"
        )
    level = evaluation.confidence_level if confidence_level is None else confidence_level
    table = evaluation.aggregate(confidence_level=_check_level(level))
    table = table[table["measure"].isin(names)].copy()
    table["recall"] = [float(parse_measure(m)["recall"]) for m in table["measure"]]
    ax = _axes(ax)
    systems = list(evaluation.systems)
    colours = sns.color_palette(palette, len(systems))
    for system, colour in zip(systems, colours, strict=True):
        rows = table[table["system"] == system].sort_values("recall")
        x = rows["recall"].to_numpy()
        low, high = rows["ci_low"].to_numpy(), rows["ci_high"].to_numpy()
        if np.isfinite(low).any():
            ax.fill_between(x, low, high, color=colour, alpha=0.12, linewidth=0)
            for edge in (low, high):
                ax.plot(x, edge, color=colour, linewidth=0.6, linestyle=":")
        ax.plot(x, rows["value"], color=colour, marker="o", markersize=3, label=str(system))
    ax.set_xlabel("recall level")
    ax.set_ylabel("interpolated precision (mean over queries)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    band = (
        f"bands: {_level_text(level)} over {evaluation.n_worlds} sampled truths"
        if evaluation.n_worlds else "no bands (no sampled truths)"
    )
    ax.legend(title="system", fontsize="small", title_fontsize="small")
    if title is None:
        title = (
            f"System-level precision–recall: mean over {len(evaluation.queries)} queries\n"
            f"({band}; queries held fixed)"
        )
    ax.set_title(title, fontsize="medium")
    return ax


# ---------------------------------------------------------------------- forest plot
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
        ``system_a, system_b, difference, ci_low, ci_high, pvalue_adjusted``; ``measure`` and
        ``confidence_level`` are used when present).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    alpha : float, optional
        Significance level; default the Comparison's ``alpha``, or 0.05 for a table.
    title : str or None
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        One errorbar container per pair.

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
    >>> plt.close("all")
    """
    if isinstance(comparison, Comparison):
        table = comparison.table
        default_alpha = comparison.alpha
    elif isinstance(comparison, pd.DataFrame):
        table = comparison
        default_alpha = 0.05
    else:
        raise ValueError(
            "comparison must be a Comparison (from fuzzytruth.stats.compare) or its table; "
            f"got {type(comparison).__name__}"
        )
    alpha = default_alpha if alpha is None else alpha
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number strictly between 0 and 1; got {alpha!r}")
    _require(table, "comparison", _FOREST_COLUMNS)
    level = _one_level(table, "comparison")
    difference = _numeric(table, "comparison", "difference")
    low = _numeric(table, "comparison", "ci_low")
    high = _numeric(table, "comparison", "ci_high")
    significant = _numeric(table, "comparison", "pvalue_adjusted") < alpha
    names = [f"{a} − {b}" for a, b in zip(table["system_a"], table["system_b"], strict=True)]
    measures = pd.unique(table["measure"]) if "measure" in table.columns else []
    if len(measures) > 1:
        names = [f"{m}: {n}" for m, n in zip(table["measure"], names, strict=True)]
    ax = _axes(ax)
    palette = sns.color_palette(_PALETTE)
    styles = {
        True: {"color": palette[3], "marker": "D", "label": f"adjusted p < {alpha:g}"},
        False: {"color": "0.35", "marker": "o", "label": f"adjusted p ≥ {alpha:g}"},
    }
    n = len(table)
    y = np.arange(n)[::-1]  # first row on top
    ax.axvline(0.0, color="black", linewidth=0.8, zorder=0)
    for i in range(n):
        style = styles[bool(significant[i])]
        # Whiskers from the interval's midpoint, so an interval that excludes the point
        # estimate (possible for percentile intervals) is still drawn where it is.
        ax.errorbar(
            (low[i] + high[i]) / 2, y[i], xerr=(high[i] - low[i]) / 2, fmt="none",
            ecolor=style["color"], elinewidth=1.5, capsize=3,
        )
        ax.plot(difference[i], y[i], linestyle="none", marker=style["marker"],
                color=style["color"], markersize=6)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.5, n - 0.5)
    what = f"difference in {measures[0]}" if len(measures) == 1 else "difference"
    ax.set_xlabel(f"{what}, A − B (whiskers: {_level_text(level)})")
    handles = [
        Line2D([], [], color=styles[s]["color"], marker=styles[s]["marker"],
               label=styles[s]["label"])
        for s in (True, False) if s in set(significant.tolist())
    ]
    ax.legend(handles=handles, loc="best", fontsize="small")
    if title is not None:
        ax.set_title(title)
    return ax


# ---------------------------------------------------------------------- displacement
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
    _require(table, "table", ["system", "annotator_id", high_col, low_col])
    values = table[["system", "annotator_id"]].assign(
        low=_numeric(table, "table", low_col), high=_numeric(table, "table", high_col)
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
    ax = _axes(ax)
    palette = sns.color_palette(_PALETTE)
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


# ---------------------------------------------------------------------- agreement heatmap
_OVERALL = "(overall)"


def _labels(values: pd.Series) -> np.ndarray:
    """Row or column labels, a missing one (a collection-wide row) shown as ``(overall)``."""
    out = values.to_numpy(dtype=object).copy()
    out[pd.isna(values).to_numpy()] = _OVERALL
    return out


def plot_agreement_heatmap(
    table: pd.DataFrame,
    *,
    ax: Axes | None = None,
    index: str = "category",
    columns: str | Sequence[str] = "measure",
    values: str = "value",
    intervals: bool | None = None,
    fmt: str = ".2f",
    cmap: Any = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    title: str | None = None,
) -> Axes:
    """Heatmap of agreement per category, each cell annotated with its value.

    Two table shapes are read:

    * **long** (``columns`` is one column name): one row per (row label, column label) pair,
      e.g. ``category, measure, value, ci_low, ci_high`` from
      :meth:`~fuzzytruth.collection.AgreementResult.to_frame`, or ``depth, measure, value``
      from :meth:`~fuzzytruth.collection.LevelAgreement.to_frame` with ``index="depth"``;
    * **wide** (``columns`` is a list of column names): one row per category, the listed
      numeric columns side by side, e.g. ``["entropy", "ambiguous_share", "kappa"]`` of
      ``category_reliability(...).to_frame()``.

    Rows and columns keep their order of appearance. Each (row, column) pair must occur at
    most once: filter the table first rather than let the plot average. A missing row label
    (the collection-wide rows of an agreement table have category None) is shown as
    ``(overall)``. Cells without a value stay blank and unannotated.

    Parameters
    ----------
    table : pandas.DataFrame or object with ``to_frame()``
        The agreement table, or the result object that makes it.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    index : str
        Column whose values label the heatmap's rows (default ``"category"``).
    columns : str or sequence of str
        Long table: the column whose values label the heatmap's columns (default
        ``"measure"``; ``"depth"`` for categories × taxonomy depth). Wide table: the columns
        to show.
    values : str
        Long table only: the column of cell values (default ``"value"``).
    intervals : bool, optional
        Print ``[ci_low, ci_high]`` under each value. Default: for a long table that has both
        columns. True without them, or with a wide table, raises.
    fmt : str
        Format spec of the printed numbers (default ``".2f"``).
    cmap : matplotlib colormap
        Default ``"viridis"`` (colour-blind-safe); for coefficients centred on 0 such as
        κ, a diverging map with ``vmin=-1, vmax=1`` may read better.
    vmin, vmax : float, optional
        Colour scale limits; default the data's range.
    title : str, optional
        Default ``"Agreement per <index>"``.

    Returns
    -------
    matplotlib.axes.Axes
        With one annotation text per non-empty cell.

    Raises
    ------
    ValueError
        On missing columns, an empty table, a repeated (row, column) pair, non-numeric
        values, or ``intervals=True`` without ``ci_low``/``ci_high`` or with a wide table.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> table = pd.DataFrame({
    ...     "category": ["people", "people", "city", "city"],
    ...     "measure": ["fleiss_kappa", "krippendorff_alpha"] * 2,
    ...     "value": [0.61, 0.60, 0.32, 0.30]})
    >>> ax = plot_agreement_heatmap(table)
    >>> [t.get_text() for t in ax.texts]
    ['0.61', '0.60', '0.32', '0.30']
    >>> wide = pd.DataFrame({"category": ["people", "city"], "entropy": [0.4, 0.7],
    ...                      "kappa": [0.61, 0.32]})
    >>> ax = plot_agreement_heatmap(wide, columns=["entropy", "kappa"])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['entropy', 'kappa']
    >>> plt.close("all")
    """
    if not isinstance(table, pd.DataFrame):
        to_frame = getattr(table, "to_frame", None)
        if not callable(to_frame):
            raise ValueError(
                "table must be a DataFrame or an object with a to_frame() method; "
                f"got {type(table).__name__}"
            )
        table = to_frame()
        if not isinstance(table, pd.DataFrame):
            raise ValueError(
                f"table.to_frame() must return a DataFrame; got {type(table).__name__}"
            )
    if isinstance(columns, str):
        _require(table, "table", [index, columns, values])
        has_ci = "ci_low" in table.columns and "ci_high" in table.columns
        if intervals and not has_ci:
            raise ValueError(
                "intervals=True needs columns ['ci_low', 'ci_high'] in table; "
                f"found {list(table.columns)}"
            )
        show_ci = has_ci if intervals is None else bool(intervals)
        cells = pd.DataFrame({
            "row": _labels(table[index]),
            "col": _labels(table[columns]),
            "value": _numeric(table, "table", values),
        })
        if show_ci:
            cells["ci_low"] = _numeric(table, "table", "ci_low")
            cells["ci_high"] = _numeric(table, "table", "ci_high")
        column_title, value_title = columns, values
    else:
        names = list(columns)
        if not names or not all(isinstance(c, str) for c in names):
            raise ValueError(
                "columns must be one column name (a long table) or a non-empty list of column "
                f"names (a wide table); got {columns!r}"
            )
        if intervals:
            raise ValueError(
                "intervals=True needs a long table with ci_low and ci_high (columns given as "
                f"one column name); got the wide columns {names}"
            )
        _require(table, "table", [index, *names])
        show_ci = False
        rows = _labels(table[index])
        cells = pd.DataFrame({
            "row": np.tile(rows, len(names)),
            "col": np.repeat(np.array(names, dtype=object), len(rows)),
            "value": np.concatenate([_numeric(table, "table", c) for c in names]),
        })
        column_title, value_title = "", "value"
    repeated = cells.duplicated(["row", "col"], keep=False)
    if repeated.any():
        pairs = cells.loc[repeated, ["row", "col"]].drop_duplicates().head(5)
        raise ValueError(
            f"table must have one row per ({index}, {column_title or 'column'}); repeated: "
            f"{list(pairs.itertuples(index=False, name=None))} (filter the table first)"
        )
    row_labels, col_labels = pd.unique(cells["row"]), pd.unique(cells["col"])
    i = pd.Index(row_labels).get_indexer(cells["row"])
    j = pd.Index(col_labels).get_indexer(cells["col"])
    matrix = np.full((len(row_labels), len(col_labels)), np.nan)
    matrix[i, j] = cells["value"].to_numpy()
    annot = np.full(matrix.shape, "", dtype=object)
    for k, r in enumerate(cells.itertuples(index=False)):
        if np.isnan(r.value):
            continue
        text = format(r.value, fmt)
        if show_ci and not (np.isnan(r.ci_low) or np.isnan(r.ci_high)):
            text += f"\n[{r.ci_low:{fmt}}, {r.ci_high:{fmt}}]"
        annot[i[k], j[k]] = text
    ax = _axes(ax)
    sns.heatmap(
        pd.DataFrame(
            matrix,
            index=pd.Index(row_labels, name=index),
            columns=pd.Index(col_labels, name=column_title or None),
        ),
        ax=ax,
        annot=annot,
        fmt="",
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        linewidths=0.5,
        cbar_kws={"label": value_title},
        annot_kws={"fontsize": "small"},
    )
    ax.set_ylabel(index)
    ax.set_xlabel(column_title)
    ax.tick_params(axis="y", labelrotation=0)
    ax.set_title(f"Agreement per {index}" if title is None else title)
    return ax
