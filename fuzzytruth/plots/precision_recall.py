"""Precision–recall under uncertain truth: one query's bands at every cutoff, and each
system's interpolated precision at the standard recall levels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from fuzzytruth._validation import check_choice
from fuzzytruth.plots._common import (
    axes,
    check_evaluation,
    check_level,
    interval_ends,
    level_text,
    numeric,
    one_level,
    require,
)
from fuzzytruth.uncertain.categorical import CutoffDistributions

__all__ = ["RECALL_LEVELS", "plot_pr_curves", "plot_system_pr", "system_pr_measures"]

_PR_COLUMNS = ("system", "cutoff", "measure", "mean", "truth_low", "truth_high")


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
        require(curves, "curves", _PR_COLUMNS)
        return curves, one_level(curves, "curves")
    if not isinstance(curves, Mapping):
        raise ValueError(
            "curves must be a mapping system -> CutoffDistributions or a DataFrame with "
            f"columns {list(_PR_COLUMNS)}; got {type(curves).__name__}"
        )
    if len(curves) == 0:
        raise ValueError("curves must not be empty")
    level = check_level(0.95 if confidence_level is None else confidence_level)
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
    cutoff over the truths (``truth_low`` to ``truth_high``). Means and intervals of an
    uncertain number are conditional on it being defined (see :class:`Distribution`).

    Parameters
    ----------
    curves : mapping or pandas.DataFrame
        System → :class:`~fuzzytruth.uncertain.CutoffDistributions` (from
        :func:`~fuzzytruth.uncertain.precision_recall_curve`), in legend order; or a tidy
        table with a ``system`` column plus the :meth:`CutoffDistributions.to_frame` columns
        (at least ``cutoff, measure, mean, truth_low, truth_high``, measures ``precision`` and
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
    lines = {}  # system -> (recall mean, precision mean, precision truth_low, truth_high)
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
            numeric(by_measure["recall"].loc[cutoffs], "curves", "mean"),
            numeric(precision, "curves", "mean"),
            *interval_ends(precision, "curves", "truth_low", "truth_high"),
        )
    ax = axes(ax)
    colours = sns.color_palette(palette, len(lines))
    for (system, (x, y, low, high)), colour in zip(lines.items(), colours, strict=True):
        ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
        ax.plot(x, y, color=colour, marker="o", markersize=3, label=str(system))
    ax.set_xlabel("recall (mean)")
    ax.set_ylabel("precision (mean)")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.05)
    ax.legend(title=f"system (band: {level_text(level)} of precision)", fontsize="small",
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


_BANDS = ("truths", "queries")


def plot_system_pr(
    evaluation: Any,
    *,
    ax: Axes | None = None,
    band: str = "truths",
    confidence_level: float | None = None,
    title: str | None = None,
    palette: Any = "colorblind",
) -> Axes:
    """System-level precision–recall curves under uncertain truth, one per system.

    Each point is a system's mean over queries of interpolated precision at a recall level
    (the ``iP@r`` measures of :func:`system_pr_measures`, as :meth:`Evaluation.aggregate
    <fuzzytruth.evaluation.Evaluation.aggregate>` reports them). The band is one of that
    table's two intervals, named in the title: ``band="truths"`` (default) the spread of the
    mean over the sampled truths (``truth_low`` to ``truth_high``: how much the annotators'
    uncertainty moves the curve, the queries held fixed), ``band="queries"`` the interval over
    queries (``ci_low`` to ``ci_high``, the t interval, estimand "queries" or "collection":
    how much the curve would move with other queries like these). Bands are light and edged
    with a thin line of their system's colour, so overlapping bands stay readable.

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with the ``iP@r`` measures (and worlds, for ``band="truths"``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted.
    band : {"truths", "queries"}
        Which interval the band shows (see above).
    confidence_level : float, optional
        Coverage of the bands (default: the evaluation's).
    title : str, optional
        Default: says what is shown: the number of queries averaged (the aggregate's
        ``n_queries``: under ``undefined="skip"`` the queries where iP is defined, their
        expected number per truth with uncertain truth; a range when systems or recall levels
        differ) and the band.
    palette : seaborn palette
        Colours of the systems.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Without ``iP@r`` measures in the evaluation, or with an unknown ``band``.

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
    >>> print(ax.get_title())
    System-level precision–recall: mean over 1 queries
    (bands: 95% interval over 200 sampled truths, queries held fixed)
    >>> plt.close("all")
    """
    from fuzzytruth.measures import parse_measure

    band = check_choice("band", band, _BANDS)
    check_evaluation(evaluation)
    names = [m for m in evaluation.measures if parse_measure(m).name == "iP"]
    if not names:
        raise ValueError(
            "evaluation must include interpolated precision at recall levels; evaluate with "
            "measures=system_pr_measures() (iP@0, iP@0.1, ..., iP@1)"
        )
    level = evaluation.confidence_level if confidence_level is None else confidence_level
    table = evaluation.aggregate(confidence_level=check_level(level))
    table = table[table["measure"].isin(names)].copy()
    table["recall"] = [float(parse_measure(m)["recall"]) for m in table["measure"]]
    low_col, high_col = ("truth_low", "truth_high") if band == "truths" else ("ci_low", "ci_high")
    ax = axes(ax)
    systems = list(evaluation.systems)
    colours = sns.color_palette(palette, len(systems))
    for system, colour in zip(systems, colours, strict=True):
        rows = table[table["system"] == system].sort_values("recall")
        x = rows["recall"].to_numpy()
        low, high = rows[low_col].to_numpy(), rows[high_col].to_numpy()
        if np.isfinite(low).any() and not np.array_equal(low, high):
            ax.fill_between(x, low, high, color=colour, alpha=0.12, linewidth=0)
            for edge in (low, high):
                ax.plot(x, edge, color=colour, linewidth=0.6, linestyle=":")
        ax.plot(x, rows["value"], color=colour, marker="o", markersize=3, label=str(system))
    ax.set_xlabel("recall level")
    ax.set_ylabel("interpolated precision iP@r (mean over queries)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    if band == "queries":
        estimand = table["estimand"].iloc[0]
        shown = f"bands: {level_text(level)} over queries, t, estimand {estimand}"
    elif evaluation.n_worlds:
        shown = f"bands: {level_text(level)} over {evaluation.n_worlds} sampled truths, " \
            "queries held fixed"
    else:
        shown = "no bands: a crisp truth has no spread over truths"
    ax.legend(title="system", fontsize="small", title_fontsize="small")
    if title is None:
        title = (f"System-level precision–recall: mean over "
                 f"{_queries_averaged(table['n_queries'])}\n({shown})")
    ax.set_title(title, fontsize="medium")
    return ax


def _queries_averaged(n_queries: pd.Series) -> str:
    """The number of queries behind the drawn points: '12 queries', '10–12 queries' when they
    differ, one decimal for an expected number per truth.

    Examples
    --------
    >>> _queries_averaged(pd.Series([12, 12])), _queries_averaged(pd.Series([10, 12.0]))
    ('12 queries', '10–12 queries')
    >>> _queries_averaged(pd.Series([1.5, 1.5]))
    '1.5 queries'
    """
    counts = n_queries.to_numpy(dtype=float)
    low, high = (f"{c:.0f}" if c == round(c) else f"{c:.1f}" for c in (counts.min(),
                                                                        counts.max()))
    return f"{low} queries" if low == high else f"{low}–{high} queries"
