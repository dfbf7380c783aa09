"""Agreement per category (or taxonomy depth) as a heatmap: one colour scale per meaning, the
flagged categories marked."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Normalize

from fuzzytruth._validation import check_flag
from fuzzytruth.plots._common import axes, interval_ends, numeric, require

__all__ = ["WORSE_WHEN_HIGH", "plot_agreement_heatmap"]

WORSE_WHEN_HIGH = ("entropy", "ambiguous_share", "n_confusions")
"""Columns of :func:`~fuzzytruth.collection.category_reliability`'s table where a higher value
means a less reliable category; every other column shown is read as higher-is-better."""

_OVERALL = "(overall)"
_BETTER_CMAP, _WORSE_CMAP = "Blues", "Oranges"  # a colour-blind-safe pair of sequential maps
_FLAG_COLOUR = "#d55e00"  # the colour-blind palette's vermilion


def _labels(values: pd.Series) -> np.ndarray:
    """Row or column labels, a missing one (a collection-wide row) shown as ``(overall)``."""
    out = values.to_numpy(dtype=object).copy()
    out[pd.isna(values).to_numpy()] = _OVERALL
    return out


def _as_frame(table: Any) -> pd.DataFrame:
    if isinstance(table, pd.DataFrame):
        return table
    to_frame = getattr(table, "to_frame", None)
    if not callable(to_frame):
        raise ValueError(
            "table must be a DataFrame or an object with a to_frame() method; "
            f"got {type(table).__name__}"
        )
    frame = to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"table.to_frame() must return a DataFrame; got {type(frame).__name__}")
    return frame


def plot_agreement_heatmap(
    table: Any,
    *,
    ax: Axes | None = None,
    index: str = "category",
    columns: str | Sequence[str] = "measure",
    values: str = "value",
    intervals: bool | None = None,
    fmt: str = ".2f",
    cmap: Any = None,
    vmin: float | None = None,
    vmax: float | None = None,
    worse_when_high: Sequence[str] = WORSE_WHEN_HIGH,
    flag: str | None = "ambiguous",
    title: str | None = None,
) -> Axes:
    """Heatmap of agreement per category, each cell annotated with its value.

    Two table shapes are read:

    * **long** (``columns`` is one column name): one row per (row label, column label) pair,
      e.g. ``category, measure, value, ci_low, ci_high`` from
      :meth:`~fuzzytruth.collection.AgreementResult.to_frame`, or ``depth, measure, value``
      from :meth:`~fuzzytruth.collection.LevelAgreement.to_frame` with ``index="depth"``.
      Every cell is an agreement coefficient (higher is better), on one colour scale whose
      bar is labelled with the coefficients shown;
    * **wide** (``columns`` is a list of column names): one row per category, the listed
      numeric columns side by side, e.g. ``["mean_membership", "ambiguous_share",
      "closed_kappa"]`` of ``category_reliability(...).to_frame()``. Columns mean different
      things, so they get two colour scales: the ``worse_when_high`` columns (entropy,
      ambiguous share: a high value is bad) in oranges, the others (membership, κ: a high
      value is good) in blues, each scale spanning its own columns' values and each colour
      bar labelled with the columns it covers and which way is better. A darker cell is
      better on the blue scale and worse on the orange one.

    Categories the table flags (a true ``flag`` column, default ``ambiguous``: the rule of
    :func:`~fuzzytruth.collection.category_reliability`) are marked: their row label ends with
    ``*`` in vermilion, and the y axis label says what the star means.

    Rows and columns keep their order of appearance. Each (row, column) pair must occur at
    most once: filter the table first rather than let the plot average. A missing row label
    (the collection-wide rows of an agreement table have category None) is shown as
    ``(overall)``. Cells without a value stay blank and unannotated.

    Parameters
    ----------
    table : pandas.DataFrame or object with ``to_frame()``
        The agreement table, or the result object that makes it.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when omitted. Colour bars take room beside it.
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
    cmap : matplotlib colormap, optional
        Long table only: the one scale (default ``"Blues"``, darker = more agreement). For
        coefficients centred on 0 such as κ, a diverging map with ``vmin=-1, vmax=1`` may
        read better.
    vmin, vmax : float, optional
        Colour scale limits of every scale; default each scale's data range.
    worse_when_high : sequence of str
        Wide table only: the columns where higher is worse (default :data:`WORSE_WHEN_HIGH`).
    flag : str or None
        Boolean column marking rows to flag (default ``"ambiguous"``, used when the table has
        it); None marks nothing.
    title : str, optional
        Default ``"Agreement per <index>"`` (long table) or ``"Reliability per <index>"``
        (wide table).

    Returns
    -------
    matplotlib.axes.Axes
        With one ``QuadMesh`` per colour scale and one annotation text per non-empty cell.

    Raises
    ------
    ValueError
        On missing columns, an empty table, a repeated (row, column) pair, non-numeric
        values, ``intervals=True`` without ``ci_low``/``ci_high`` or with a wide table,
        ``cmap`` with a wide table, or a ``flag`` column that is not boolean.

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
    ...                      "kappa": [0.61, 0.32], "ambiguous": [False, True]})
    >>> ax = plot_agreement_heatmap(wide, columns=["entropy", "kappa"])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['entropy', 'kappa']
    >>> [t.get_text() for t in ax.get_yticklabels()], ax.get_ylabel()
    (['people', 'city *'], 'category (* flagged ambiguous)')
    >>> sorted(a.get_ylabel() for a in ax.figure.axes[1:])
    ['higher is better: kappa', 'higher is worse: entropy']
    >>> plt.close("all")
    """
    intervals = check_flag("intervals", intervals, none=True)
    table = _as_frame(table)
    _check_scale(fmt, vmin, vmax, worse_when_high)
    if isinstance(columns, str):
        require(table, "table", [index, columns, values])
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
            "value": numeric(table, "table", values),
        })
        if show_ci:
            cells["ci_low"], cells["ci_high"] = interval_ends(table, "table", "ci_low", "ci_high")
        column_title = columns
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
        if cmap is not None:
            raise ValueError(
                "cmap applies to a long table (one scale); a wide table has one scale per "
                f"meaning (worse_when_high); got cmap={cmap!r}"
            )
        require(table, "table", [index, *names])
        show_ci = False
        rows = _labels(table[index])
        cells = pd.DataFrame({
            "row": np.tile(rows, len(names)),
            "col": np.repeat(np.array(names, dtype=object), len(rows)),
            "value": np.concatenate([numeric(table, "table", c) for c in names]),
        })
        column_title = ""
    infinite = np.isinf(cells.drop(columns=["row", "col"]).to_numpy()).any(axis=1)
    if infinite.any():
        raise ValueError(
            f"table must hold finite values (NaN for a blank cell); the cell "
            f"({cells['row'].iloc[infinite.argmax()]}, {cells['col'].iloc[infinite.argmax()]}) "
            "is infinite"
        )
    repeated = cells.duplicated(["row", "col"], keep=False)
    if repeated.any():
        pairs = cells.loc[repeated, ["row", "col"]].drop_duplicates().head(5)
        raise ValueError(
            f"table must have one row per ({index}, {column_title or 'column'}); repeated: "
            f"{list(pairs.itertuples(index=False, name=None))} (filter the table first)"
        )
    flagged = _flagged_rows(table, index, flag)
    row_labels, col_labels = pd.unique(cells["row"]), pd.unique(cells["col"])
    i = pd.Index(row_labels).get_indexer(cells["row"])
    j = pd.Index(col_labels).get_indexer(cells["col"])
    matrix = np.full((len(row_labels), len(col_labels)), np.nan)
    matrix[i, j] = cells["value"].to_numpy()
    if isinstance(columns, str):
        shown = ", ".join(map(str, col_labels)) if columns == "measure" else values
        scales = [(np.arange(len(col_labels)), cmap or _BETTER_CMAP,
                   f"agreement: {shown}" if columns == "measure" else shown)]
    else:
        worse = [k for k, c in enumerate(col_labels) if c in set(worse_when_high)]
        better = [k for k in range(len(col_labels)) if k not in worse]
        scales = [
            (np.array(ks), cm, f"higher is {word}: " + ", ".join(col_labels[ks]))
            for ks, cm, word in ((better, _BETTER_CMAP, "better"), (worse, _WORSE_CMAP, "worse"))
            if ks
        ]
    ax = axes(ax)
    colours = np.full(matrix.shape, None, dtype=object)
    for k, (ks, cm, label) in enumerate(reversed(scales)):  # the last bar sits nearest
        part = np.full(matrix.shape, np.nan)
        part[:, ks] = matrix[:, ks]
        finite = part[np.isfinite(part)]
        low = vmin if vmin is not None else (finite.min() if finite.size else 0.0)
        high = vmax if vmax is not None else (finite.max() if finite.size else 1.0)
        norm = Normalize(low, high if high > low else low + 1e-9)
        colormap = mpl.colormaps[cm] if isinstance(cm, str) else cm
        mesh = ax.pcolormesh(np.ma.masked_invalid(part), cmap=colormap, norm=norm,
                             edgecolors="white", linewidth=0.5)
        # the farther bar leaves room for the nearer bar's label
        pad = 0.14 if k == 0 and len(scales) > 1 else 0.02
        ax.figure.colorbar(mesh, ax=ax, label=label, fraction=0.06, pad=pad)
        rgba = colormap(norm(part))
        for r, c in zip(*np.nonzero(np.isfinite(part)), strict=True):
            colours[r, c] = rgba[r, c]
    for k, r in enumerate(cells.itertuples(index=False)):
        if np.isnan(r.value):
            continue
        text = format(r.value, fmt)
        if show_ci and not (np.isnan(r.ci_low) or np.isnan(r.ci_high)):
            text += f"\n[{r.ci_low:{fmt}}, {r.ci_high:{fmt}}]"
        red, green, blue, _ = colours[i[k], j[k]]
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        ax.text(j[k] + 0.5, i[k] + 0.5, text, ha="center", va="center", fontsize="small",
                color="white" if dark else "black")
    long_names = max(len(str(c)) for c in col_labels) > 12
    ax.set_xticks(np.arange(len(col_labels)) + 0.5, [str(c) for c in col_labels],
                  rotation=25 if long_names else 0, ha="right" if long_names else "center")
    ax.set_yticks(np.arange(len(row_labels)) + 0.5,
                  [f"{r} *" if r in flagged else str(r) for r in row_labels])
    for tick, r in zip(ax.get_yticklabels(), row_labels, strict=True):
        if r in flagged:
            tick.set_color(_FLAG_COLOUR)
    ax.set_xlim(0, len(col_labels))
    ax.set_ylim(len(row_labels), 0)  # first row on top
    ax.tick_params(axis="both", length=0)
    ax.set_ylabel(f"{index} (* flagged {flag})" if flagged else index)
    ax.set_xlabel(column_title)
    default = f"Agreement per {index}" if isinstance(columns, str) else f"Reliability per {index}"
    ax.set_title(default if title is None else title)
    return ax


def _check_scale(fmt: object, vmin: object, vmax: object, worse_when_high: object) -> None:
    """A ValueError naming the argument: a format spec that does not format a float, colour
    limits that are not finite numbers or not in order, names given as one str."""
    try:
        format(0.5, fmt)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(
            f"fmt must be a format spec for a float such as '.2f'; got {fmt!r}"
        ) from None
    for name, limit in (("vmin", vmin), ("vmax", vmax)):
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, Real)
                                  or not np.isfinite(limit)):
            raise ValueError(f"{name} must be a finite number or None; got {limit!r}")
    if vmin is not None and vmax is not None and not vmin < vmax:  # type: ignore[operator]
        raise ValueError(f"vmin must be below vmax; got vmin={vmin!r}, vmax={vmax!r}")
    if isinstance(worse_when_high, str):
        raise ValueError(
            f"worse_when_high must be a list of column names; got the str {worse_when_high!r}"
        )


def _flagged_rows(table: pd.DataFrame, index: str, flag: str | None) -> set[Any]:
    """Row labels whose ``flag`` column is true in any of their rows."""
    if flag is None or flag not in table.columns:
        return set()
    marks = table[flag]
    if not pd.api.types.is_bool_dtype(marks):
        raise ValueError(f"table column {flag!r} (flag) must be boolean; got dtype {marks.dtype}")
    return set(_labels(table.loc[marks.to_numpy(), index]))
