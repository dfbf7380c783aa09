"""Santini §5, individual comparisons: a system's ranking against each annotator's own answer.

Every annotator α answers a query with a ranked list ``I_1, ..., I_m`` of database items and a
relevance ``s_k`` in [0, 1] for each (eq. 15 and 19; the paper assumes ``s_k >= s_(k+1)``). A
system answers with its own ranked list. Positions are 1-based: ``k`` is an item's position in
the annotator's list and ``π_k`` its position in the system's list.

Definitions (the defaults are named; every choice is a keyword of :func:`weighted_displacement`)
-------------------------------------------------------------------------------------------------
``m``
    The annotator's list length, per (query, annotator). Annotator positions run ``1..m``.
Run depth ``L``
    How many of the system's items are read. With ``use_deeper_ranks=False`` the run is cut at
    the annotator's list length, ``L = min(len(run), m)``: the paper's ``C^m_μ`` (eq. 20). With
    ``use_deeper_ranks=True`` (default) the whole run is read, ``L = len(run)``: the paper's
    incremental case, where a run deeper than ``m`` finds the annotator's items further down and
    ``B`` empties (eq. 21 alone) whenever the run contains all of them.
Sets ``A``, ``B``, ``C``
    ``A``: annotator items among the run's first ``L``; ``B``: annotator items not there;
    ``C``: run items (among the first ``L``) that the annotator did not list. ``C`` contributes
    nothing (its relevance is zero *ex hypothesi*). ``B`` is ordered by annotator position;
    ``β_i`` is the annotator position of its ``i``-th item and ``|B| = n_b``.
``w_a``
    ``Σ_{k∈A} s_k |k − π_k|`` (eq. 21; eq. 17 when both lists order the whole database).
Optimist (eq. 22)
    The ``i``-th item of ``B`` is at ``L + i``, the first positions the run did not fill:
    ``w_b = Σ_i s_(β_i) |β_i − (L + i)|``. In the paper's setting (a run of at least ``m`` items
    cut at ``m``) ``L = m``, which is eq. 22's ``m + i``. A run read deeper than ``m`` has shown
    that its missing items are not among its first ``L``, and a run shorter than ``m`` leaves
    positions ``L + 1, ...`` free, so ``L + i`` is the optimist's slot in both cases.
Exact pessimist
    The last item of ``B`` is at ``N``, the next-to-last at ``N − 1``, ...: the ``i``-th at
    ``N − n_b + i``, so ``w_b = Σ_i s_(β_i) |β_i − (N − n_b + i)|``.
Pessimist (eq. 23)
    Every item of ``B`` is displaced by ``N``, the database size: ``w_b = N Σ_{B} s``. The paper
    offers it as the approximation of the exact pessimist for ``N ≫ m``.
``w``
    ``w_a + w_b`` under each hypothesis. Per item of ``B``, optimist ≤ exact pessimist <
    pessimist, so ``w_optimist ≤ w_exact_pessimist ≤ w_pessimist``. Derivation: the run's ``L``
    items and ``B`` are distinct database items, so ``N ≥ L + n_b`` (the input checks enforce
    it) and ``L + i ≤ N − n_b + i``; when ``L + i < β_i``, use ``β_i − i ≤ n_a ≤ L`` (the items
    before ``β_i`` not in ``B`` are in ``A``) to get ``β_i − L − i ≤ N − n_b + i − β_i``; and
    ``N − n_b + i − β_i < N`` because ``i ≤ n_b`` and ``β_i ≥ 1``.
``q``
    ``g(w)`` for a monotone decreasing ``g`` into [0, 1] (eq. 18): :class:`RationalG`
    ``1/(1+x)^p`` (default, ``p = 1``), :class:`ExponentialG` ``exp(−λx)``, or any vectorised
    callable, checked numerically by :func:`check_g`.
Scale-free ``q`` (``g="scale_free"``, beyond the paper)
    ``q = 1 − w / w_max`` with ``w_max = N Σ_k s_k``, the largest weighted displacement the
    answer can receive: under the pessimist hypothesis every item contributes at most
    ``N s_k`` (an item of ``A`` is displaced by less than ``N``), and a run that returns none of
    the annotator's items attains it. The optimist and exact pessimist never exceed it, so all
    three scale-free values lie in [0, 1] and keep their order. ``q = 1`` when ``w_max = 0``
    (all relevances zero).

Examples
--------
>>> import pandas as pd
>>> answers = pd.DataFrame({
...     "query_id": "q1", "annotator_id": "ann1",
...     "item_id": ["a", "b", "c"], "rank": [1, 2, 3], "relevance": [1.0, 0.5, 0.5]})
>>> run = pd.DataFrame({"system": "sys", "query_id": "q1",
...                     "item_id": ["b", "a", "x"], "rank": [1, 2, 3]})
>>> res = weighted_displacement(answers, run, n_items=10)
>>> res.to_frame()[["w_a", "w_optimist", "w_exact_pessimist", "w_pessimist"]]
   w_a  w_optimist  w_exact_pessimist  w_pessimist
0  1.5         2.0                5.0          6.5
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._random import as_generator
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows, percentile_interval
from fuzzytruth._validation import check_confidence_level
from fuzzytruth.runs import Run, rank

__all__ = [
    "HYPOTHESES",
    "DisplacementBootstrap",
    "DisplacementResult",
    "ExponentialG",
    "RationalG",
    "check_g",
    "displacement_kernel",
    "weighted_displacement",
]

HYPOTHESES: tuple[str, ...] = ("pessimist", "exact_pessimist", "optimist")
"""The three treatments of set B, ordered from the lowest to the highest quality ``q``."""

_COLUMNS = ("system", "query_id", "annotator_id", "item_id", "rank", "relevance", "score")
_RUN_ORDERS = ("rank", "score")
_ON_UNSORTED = ("raise", "sort")
_MEASURES = ("q", "w")


# --------------------------------------------------------------------------------------------
# g-normalisation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RationalG:
    """The rational quality function ``g(x) = 1 / (1 + x)^p`` (Santini, after eq. 18).

    Parameters
    ----------
    p : float
        Positive exponent; larger values penalise displacement faster.

    Examples
    --------
    >>> RationalG(p=2)(np.array([0.0, 1.0, 3.0]))
    array([1.    , 0.25  , 0.0625])
    """

    p: float = 1.0

    def __post_init__(self) -> None:
        if not (isinstance(self.p, int | float) and math.isfinite(self.p) and self.p > 0):
            raise ValueError(f"p must be a finite number > 0; got {self.p!r}")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate ``g`` elementwise on non-negative displacements ``x``."""
        return 1.0 / (1.0 + np.asarray(x, dtype=float)) ** self.p


@dataclass(frozen=True)
class ExponentialG:
    """The exponential quality function ``g(x) = exp(−λ x)`` (Santini, after eq. 18).

    Parameters
    ----------
    lam : float
        Positive rate λ.

    Examples
    --------
    >>> ExponentialG(lam=0.5)(np.array([0.0, 2.0]))
    array([1.        , 0.36787944])
    """

    lam: float = 1.0

    def __post_init__(self) -> None:
        if not (isinstance(self.lam, int | float) and math.isfinite(self.lam) and self.lam > 0):
            raise ValueError(f"lam must be a finite number > 0; got {self.lam!r}")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate ``g`` elementwise on non-negative displacements ``x``."""
        return np.exp(-self.lam * np.asarray(x, dtype=float))


_G_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 1e12, 181)))


def check_g(g: Callable[[np.ndarray], Any], *, x: np.ndarray | None = None) -> None:
    """Check numerically that ``g`` maps [0, ∞) monotonically decreasing into [0, 1].

    ``g`` is evaluated once, vectorised, on a grid of 182 points from 0 to 1e12 (0 and a
    geometric grid from 1e-6), merged with the displacements ``x`` it will be applied to. It must
    return an array of the same shape, finite, within [0, 1], never increasing along the sorted
    points (a slack of 1e-12 absorbs rounding), and strictly lower at the largest point than at
    0. A check on a grid cannot prove monotonicity; it catches increasing, constant and
    out-of-range functions.

    Parameters
    ----------
    g : callable
        Vectorised function of a float array.
    x : numpy.ndarray, optional
        Displacements (≥ 0) that will be normalised; added to the grid.

    Raises
    ------
    ValueError
        If ``g`` fails any of the conditions above; the message says which, and where.

    Examples
    --------
    >>> check_g(lambda x: 1 / (1 + x) ** 0.5)
    >>> check_g(lambda x: x / (1 + x))
    Traceback (most recent call last):
    ...
    ValueError: g must be monotone decreasing on [0, inf); got g(0)=0 < g(1e-06)=1e-06
    """
    grid = _G_GRID if x is None else np.unique(np.concatenate((_G_GRID, np.ravel(x))))
    if grid[0] < 0 or not np.all(np.isfinite(grid)):
        raise ValueError("x must hold finite displacements >= 0")
    try:
        y = np.asarray(g(grid), dtype=float)
    except Exception as exc:
        raise ValueError(
            f"g must accept a float array and return an array of the same shape; calling it "
            f"on an array of shape {grid.shape} raised {type(exc).__name__}: {exc}"
        ) from exc
    if y.shape != grid.shape:
        raise ValueError(
            f"g must be vectorised: for an input of shape {grid.shape} it returned shape {y.shape}"
        )
    bad = ~np.isfinite(y) | (y < 0) | (y > 1)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"g must map into [0, 1]; got g({grid[j]:.6g})={y[j]:.6g}")
    rise = np.diff(y) > 1e-12
    if rise.any():
        j = int(np.argmax(rise))
        raise ValueError(
            f"g must be monotone decreasing on [0, inf); got g({grid[j]:.6g})={y[j]:.6g} < "
            f"g({grid[j + 1]:.6g})={y[j + 1]:.6g}"
        )
    if not y[-1] < y[0]:
        raise ValueError(f"g must decrease: g(0)={y[0]:.6g} equals g({grid[-1]:.6g})={y[-1]:.6g}")


def _resolve_g(g: str | Callable[[np.ndarray], Any]) -> tuple[Callable | None, str]:
    """Return (function or None for scale-free, description)."""
    if isinstance(g, str):
        if g == "rational":
            return RationalG(), repr(RationalG())
        if g == "exponential":
            return ExponentialG(), repr(ExponentialG())
        if g == "scale_free":
            return None, "scale_free"
        raise ValueError(
            f"g must be 'rational', 'exponential', 'scale_free' or a callable; got {g!r}"
        )
    if not callable(g):
        raise ValueError(
            "g must be 'rational', 'exponential', 'scale_free' or a callable; "
            f"got {type(g).__name__}"
        )
    if isinstance(g, RationalG | ExponentialG):
        return g, repr(g)
    return g, getattr(g, "__name__", repr(g))


# --------------------------------------------------------------------------------------------
# kernel on padded arrays
# --------------------------------------------------------------------------------------------


def displacement_kernel(
    relevance: np.ndarray,
    positions: np.ndarray,
    *,
    lengths: np.ndarray,
    run_depth: np.ndarray,
    n_items: np.ndarray | int,
) -> dict[str, np.ndarray]:
    """Weighted displacement of many (annotator list, run) pairs at once.

    Row ``r`` describes one pair. Column ``j`` is annotator position ``k = j + 1``.

    Parameters
    ----------
    relevance : numpy.ndarray
        ``(n_pairs, width)`` relevance ``s_k`` of the annotator's item at each position;
        ignored past the row's length.
    positions : numpy.ndarray
        ``(n_pairs, width)`` integer 1-based position ``π_k`` of that item in the run's first
        ``run_depth`` items, or 0 if it is not among them (set B).
    lengths : numpy.ndarray
        ``(n_pairs,)`` the annotator's list length ``m``.
    run_depth : numpy.ndarray
        ``(n_pairs,)`` number ``L`` of run items read.
    n_items : numpy.ndarray or int
        Database size ``N``, per pair or for all.

    Returns
    -------
    dict of str to numpy.ndarray
        ``(n_pairs,)`` arrays: ``n_a``, ``n_b``, ``n_c``, ``w_a``, ``w_b_<h>`` and ``w_<h>`` for
        ``h`` in :data:`HYPOTHESES`, and ``w_max = N Σ s``.

    Raises
    ------
    ValueError
        If shapes disagree, a position exceeds ``run_depth``, or ``N < run_depth + n_b`` (the
        run's items and the missing ones are distinct database items).

    Examples
    --------
    Annotator ``[a, b, c]`` with s = (1, .5, .5); the run is ``[b, a, x]``, so c is missing:

    >>> out = displacement_kernel(np.array([[1.0, 0.5, 0.5]]), np.array([[2, 1, 0]]),
    ...                           lengths=np.array([3]), run_depth=np.array([3]), n_items=10)
    >>> [float(out[c][0]) for c in ("w_a", "w_optimist", "w_exact_pessimist", "w_pessimist")]
    [1.5, 2.0, 5.0, 6.5]
    """
    s = np.asarray(relevance, dtype=float)
    pi = np.asarray(positions)
    m = np.asarray(lengths, dtype=np.int64)
    depth = np.asarray(run_depth, dtype=np.int64)
    if s.ndim != 2 or pi.shape != s.shape:
        raise ValueError(
            f"relevance and positions must be 2-D arrays of one shape; got {s.shape} and {pi.shape}"
        )
    n_pairs, width = s.shape
    if m.shape != (n_pairs,) or depth.shape != (n_pairs,):
        raise ValueError(
            f"lengths and run_depth must have shape ({n_pairs},); got {m.shape} and {depth.shape}"
        )
    big_n = np.broadcast_to(np.asarray(n_items, dtype=np.int64), (n_pairs,))
    k = np.arange(1, width + 1)
    valid = k <= m[:, None]
    if np.any(valid & ((pi < 0) | (pi > depth[:, None]))):
        raise ValueError("positions must lie in 0..run_depth for every item of every list")
    in_a = valid & (pi > 0)
    in_b = valid & (pi == 0)
    s_a = np.where(in_a, s, 0.0)
    s_b = np.where(in_b, s, 0.0)
    n_a = in_a.sum(axis=1)
    n_b = in_b.sum(axis=1)
    if np.any(big_n < depth + n_b):
        r = int(np.argmax(big_n < depth + n_b))
        raise ValueError(
            f"n_items (N) must be at least the run depth plus the missing items; pair {r} has "
            f"N={big_n[r]}, run depth {depth[r]} and {n_b[r]} missing items"
        )
    i = np.cumsum(in_b, axis=1)  # 1-based index within B (only read where in_b)
    w_a = (s_a * np.abs(k - pi)).sum(axis=1)
    w_b = {
        "optimist": (s_b * np.abs(k - (depth[:, None] + i))).sum(axis=1),
        "exact_pessimist": (s_b * np.abs((big_n - n_b)[:, None] + i - k)).sum(axis=1),
        "pessimist": big_n * s_b.sum(axis=1),
    }
    out = {"n_a": n_a, "n_b": n_b, "n_c": depth - n_a, "w_a": w_a}
    for h in HYPOTHESES:
        out[f"w_b_{h}"] = w_b[h]
    for h in HYPOTHESES:
        out[f"w_{h}"] = w_a + w_b[h]
    out["w_max"] = big_n * np.where(valid, s, 0.0).sum(axis=1)
    return out


# --------------------------------------------------------------------------------------------
# input tables -> padded arrays
# --------------------------------------------------------------------------------------------


def _column_names(columns: Mapping[str, str] | None) -> dict[str, str]:
    names = {c: c for c in _COLUMNS}
    if columns is None:
        return names
    unknown = set(columns) - set(_COLUMNS)
    if unknown:
        raise ValueError(
            f"columns keys must be among {list(_COLUMNS)}; got {sorted(map(str, unknown))}"
        )
    names.update(columns)
    return names


def _require(df: pd.DataFrame, table: str, wanted: list[str]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{table} must be a pandas DataFrame; got {type(df).__name__}")
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise ValueError(
            f"{table} must have columns {wanted} (rename through columns=); missing {missing}, "
            f"found {list(df.columns)}"
        )
    if len(df) == 0:
        raise ValueError(f"{table} must not be empty")
    for c in wanted:
        n_na = int(df[c].isna().sum())
        if n_na:
            raise ValueError(f"{table} column {c!r} must have no missing values; got {n_na}")


def _numeric(df: pd.DataFrame, table: str, col: str) -> np.ndarray:
    try:
        x = df[col].to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{table} column {col!r} must be numeric; got dtype {df[col].dtype}"
        ) from exc
    if not np.all(np.isfinite(x)):
        raise ValueError(
            f"{table} column {col!r} must be finite; got {int((~np.isfinite(x)).sum())} "
            "non-finite values"
        )
    return x


def _sorted_positions(group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``group``: 0-based position within the group, and group sizes."""
    sizes = np.bincount(group, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return np.arange(len(group)) - starts[group], sizes


def _lexsort_unless_sorted(secondary: np.ndarray, primary: np.ndarray) -> np.ndarray:
    """``np.lexsort((secondary, primary))``, skipped when the rows are already in that order."""
    d1, d2 = np.diff(primary), np.diff(secondary)
    if np.all((d1 > 0) | ((d1 == 0) & (d2 > 0))):
        return np.arange(len(primary))
    return np.lexsort((secondary, primary))


def _first_duplicate(sorted_key: np.ndarray, sorted_group: np.ndarray) -> int | None:
    """Index of the first row equal to the previous one in the same group, or None."""
    dup = (sorted_key[1:] == sorted_key[:-1]) & (sorted_group[1:] == sorted_group[:-1])
    return int(np.argmax(dup)) + 1 if dup.any() else None


@dataclass(frozen=True, eq=False)
class _Prepared:
    query_ids: np.ndarray  # (n_queries,)
    list_query: np.ndarray  # (n_lists,) query code
    list_annotator: np.ndarray  # (n_lists,) annotator id
    lengths: np.ndarray  # (n_lists,) m
    relevance: np.ndarray  # (n_lists, width)
    pair_codes: np.ndarray  # (n_lists, width) (query, item) code; n_pairs past the end
    n_pairs: int
    systems: np.ndarray  # (n_systems,)
    run_pairs: list[np.ndarray]  # per system: (query, item) codes of its run rows
    run_positions: list[np.ndarray]  # per system: 1-based positions
    run_lengths: np.ndarray  # (n_systems, n_queries)
    n_items: np.ndarray  # (n_queries,)


def _n_items_per_query(n_items: Any, query_ids: np.ndarray) -> np.ndarray:
    if isinstance(n_items, Mapping | pd.Series):
        lookup = pd.Series(n_items) if isinstance(n_items, Mapping) else n_items
        absent = [q for q in query_ids if q not in lookup.index]
        if absent:
            raise ValueError(
                f"n_items must give N for every query; missing {len(absent)} queries, e.g. "
                f"{absent[0]!r}"
            )
        values = lookup.loc[query_ids].to_numpy()
    elif isinstance(n_items, int | np.integer) and not isinstance(n_items, bool):
        values = np.full(len(query_ids), n_items)
    else:
        raise ValueError(
            "n_items must be an int or a mapping query_id -> int (the database size N); got "
            f"{type(n_items).__name__}"
        )
    if not np.issubdtype(np.asarray(values).dtype, np.integer):
        raise ValueError(f"n_items must hold integers; got dtype {np.asarray(values).dtype}")
    values = values.astype(np.int64)
    if np.any(values < 1):
        raise ValueError(f"n_items must be >= 1; got {int(values.min())}")
    return values


def _prepare(
    annotations: pd.DataFrame,
    runs: pd.DataFrame,
    *,
    n_items: Any,
    run_order: str,
    on_unsorted: str,
    columns: Mapping[str, str] | None,
    ties: str = "docid_desc",
    score_dtype: str = "float64",
) -> _Prepared:
    if run_order not in _RUN_ORDERS:
        raise ValueError(f"run_order must be one of {list(_RUN_ORDERS)}; got {run_order!r}")
    if on_unsorted not in _ON_UNSORTED:
        raise ValueError(f"on_unsorted must be one of {list(_ON_UNSORTED)}; got {on_unsorted!r}")
    c = _column_names(columns)
    a_cols = [c["query_id"], c["annotator_id"], c["item_id"], c["rank"], c["relevance"]]
    r_cols = [c["system"], c["query_id"], c["item_id"], c[run_order]]
    _require(annotations, "annotations", a_cols)
    _require(runs, "runs", r_cols)

    a_rank = _numeric(annotations, "annotations", c["rank"])
    a_rel = _numeric(annotations, "annotations", c["relevance"])
    out_of_range = (a_rel < 0) | (a_rel > 1)
    if out_of_range.any():
        j = int(np.argmax(out_of_range))
        raise ValueError(
            f"annotations column {c['relevance']!r} must lie in [0, 1]; got "
            f"{int(out_of_range.sum())} values outside, e.g. {a_rel[j]:g}"
        )
    r_key = _numeric(runs, "runs", c[run_order])

    q_codes, query_ids = pd.factorize(annotations[c["query_id"]].to_numpy(), sort=True)
    query_ids = np.asarray(query_ids, dtype=object)
    n_queries = len(query_ids)
    rq = pd.Index(query_ids).get_indexer(runs[c["query_id"]].to_numpy())
    if not (rq >= 0).any():
        raise ValueError(
            f"runs and annotations must share query ids; none of the runs' {c['query_id']!r} "
            "values appears in annotations (check that both use the same type, e.g. str vs int)"
        )
    item_codes, item_uniques = pd.factorize(
        np.concatenate((annotations[c["item_id"]].to_numpy(), runs[c["item_id"]].to_numpy()))
    )
    n_item_codes = len(item_uniques)
    a_item = item_codes[: len(annotations)]
    r_item = item_codes[len(annotations) :]

    # --- annotator lists: sort by (list, rank), position within the list ---------------------
    ann_codes, _ = pd.factorize(annotations[c["annotator_id"]].to_numpy())
    list_codes, list_keys = pd.factorize(
        q_codes.astype(np.int64) * (ann_codes.max() + 1) + ann_codes, sort=True
    )
    n_lists = len(list_keys)
    order = _lexsort_unless_sorted(a_rank, list_codes)
    lst = list_codes[order]
    dup = _first_duplicate(a_rank[order], lst)
    if dup is not None:
        row = order[dup]
        raise ValueError(
            f"annotations column {c['rank']!r} must be unique within each (query, annotator) "
            f"list; query {annotations[c['query_id']].iat[row]!r}, annotator "
            f"{annotations[c['annotator_id']].iat[row]!r} repeats rank {a_rank[row]:g}"
        )
    pos, lengths = _sorted_positions(lst, n_lists)
    first_row = order[np.concatenate(([0], np.cumsum(lengths)[:-1]))]
    list_query = q_codes[first_row]
    list_annotator = annotations[c["annotator_id"]].to_numpy()[first_row]
    width = int(lengths.max())
    relevance = np.zeros((n_lists, width))
    relevance[lst, pos] = a_rel[order]
    items = np.full((n_lists, width), -1, dtype=np.int64)
    items[lst, pos] = a_item[order]

    def where(r: int) -> str:
        return f"query {query_ids[list_query[r]]!r}, annotator {list_annotator[r]!r}"

    sorted_items = np.sort(items, axis=1)
    dup_items = (sorted_items[:, 1:] == sorted_items[:, :-1]) & (sorted_items[:, 1:] >= 0)
    if dup_items.any():
        r = int(np.argmax(dup_items.any(axis=1)))
        j = int(np.argmax(dup_items[r]))
        raise ValueError(
            f"annotations must list each item at most once per (query, annotator); {where(r)} "
            f"lists item {item_uniques[sorted_items[r, j + 1]]!r} more than once"
        )
    valid = np.arange(width) < lengths[:, None]
    rising = (relevance[:, 1:] > relevance[:, :-1]) & valid[:, 1:]
    if rising.any():
        bad = rising.any(axis=1)
        r = int(np.argmax(bad))
        if on_unsorted == "raise":
            raise ValueError(
                f"annotations column {c['relevance']!r} must be non-increasing down each list "
                f"(Santini eq. 15 assumes s_k >= s_(k+1)); {int(bad.sum())} lists are not, e.g. "
                f"{where(r)}. Pass on_unsorted='sort' to re-order them by decreasing relevance"
            )
        warnings.warn(
            f"{int(bad.sum())} annotator lists were re-ordered by decreasing relevance (ties keep "
            f"their rank order), e.g. {where(r)}",
            UserWarning,
            stacklevel=3,
        )
        by_rel = np.argsort(np.where(valid, -relevance, np.inf), axis=1, kind="stable")
        relevance = np.take_along_axis(relevance, by_rel, axis=1)
        items = np.take_along_axis(items, by_rel, axis=1)

    # --- runs: drop queries nobody annotated, sort, positions -------------------------------
    keep = rq >= 0
    sys_codes, systems = pd.factorize(runs[c["system"]].to_numpy(), sort=True)
    systems = np.asarray(systems, dtype=object)
    n_systems = len(systems)
    sys_codes, rq, r_item, r_key = sys_codes[keep], rq[keep], r_item[keep], r_key[keep]
    run_codes = sys_codes.astype(np.int64) * n_queries + rq
    if run_order == "rank":
        order = _lexsort_unless_sorted(r_key, run_codes)
        dup = _first_duplicate(r_key[order], run_codes[order])
        if dup is not None:
            o = order[dup]
            raise ValueError(
                f"runs column {c['rank']!r} must be unique within each (system, query) list; "
                f"system {systems[sys_codes[o]]!r}, query {query_ids[rq[o]]!r} repeats rank "
                f"{r_key[o]:g} (use run_order='score' to break ties by item id)"
            )
    by_item = np.lexsort((r_item, run_codes))
    dup = _first_duplicate(r_item[by_item], run_codes[by_item])
    if dup is not None:
        o = by_item[dup]
        raise ValueError(
            f"runs must list each item at most once per (system, query); system "
            f"{systems[sys_codes[o]]!r}, query {query_ids[rq[o]]!r} lists item "
            f"{item_uniques[r_item[o]]!r} more than once"
        )
    if run_order == "score":  # the one ranking step of the library (fuzzytruth.runs.rank)
        width = len(str(max(int(run_codes.max(initial=0)), 0)))
        lists = Run(
            np.char.zfill(run_codes.astype(str), width),  # string order = list order
            np.asarray(item_uniques, dtype=object)[r_item],
            r_key,
        )
        order = rank(lists, ties=ties, score_dtype=score_dtype).rows
    run_sorted = run_codes[order]
    r_pos, run_lengths = _sorted_positions(run_sorted, n_systems * n_queries)
    run_lengths = run_lengths.reshape(n_systems, n_queries)

    # --- the join: (query, item) codes of the runs' rows; annotator items look theirs up ---
    r_join = rq[order].astype(np.int64) * n_item_codes + r_item[order]
    r_pair, uniques = pd.factorize(r_join)
    n_pairs = len(uniques)
    present = items >= 0
    a_join = (list_query[:, None].astype(np.int64) * n_item_codes + items)[present]
    found = pd.Index(uniques).get_indexer(a_join)
    pair_codes = np.full(items.shape, n_pairs, dtype=np.int64)  # n_pairs: in no run
    pair_codes[present] = np.where(found >= 0, found, n_pairs)
    sys_sorted = run_sorted // n_queries
    bounds = np.searchsorted(sys_sorted, np.arange(n_systems + 1))
    return _Prepared(
        query_ids=query_ids,
        list_query=list_query,
        list_annotator=list_annotator,
        lengths=lengths,
        relevance=relevance,
        pair_codes=pair_codes,
        n_pairs=n_pairs,
        systems=systems,
        run_pairs=[r_pair[bounds[j] : bounds[j + 1]] for j in range(n_systems)],
        run_positions=[r_pos[bounds[j] : bounds[j + 1]] + 1 for j in range(n_systems)],
        run_lengths=run_lengths,
        n_items=_n_items_per_query(n_items, query_ids),
    )


# --------------------------------------------------------------------------------------------
# public entry point and results
# --------------------------------------------------------------------------------------------


def weighted_displacement(
    annotations: pd.DataFrame,
    runs: pd.DataFrame,
    *,
    n_items: int | Mapping[Any, int] | pd.Series,
    g: str | Callable[[np.ndarray], Any] = "rational",
    use_deeper_ranks: bool = True,
    run_order: str = "rank",
    ties: str = "docid_desc",
    score_dtype: str = "float64",
    on_unsorted: str = "raise",
    columns: Mapping[str, str] | None = None,
) -> DisplacementResult:
    """Score every system against every annotator's own ranked answer (Santini §5).

    The definitions (``m``, run depth ``L``, sets A/B/C, the three hypotheses, ``g``) are in
    the module docstring of :mod:`fuzzytruth.displacement`.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``query_id``, ``annotator_id``, ``item_id``, ``rank``,
        ``relevance``: each annotator's answer, full or truncated. Within a (query, annotator)
        list, ascending ``rank`` gives the order (positions 1..m; ranks must be unique but need
        not be contiguous) and relevance must lie in [0, 1].
    runs : pandas.DataFrame
        Long table with columns ``system``, ``query_id``, ``item_id`` and ``rank`` (or
        ``score``, see ``run_order``). A system is scored on every annotated query; a query it
        has no rows for counts as an empty answer. Rows for queries nobody annotated are ignored.
    n_items : int or mapping
        Database size ``N``, for all queries or per ``query_id``. It must be at least the number
        of distinct items in each (annotator list, whole run) pair of the query.
    g : {'rational', 'exponential', 'scale_free'} or callable, default 'rational'
        Normalisation of ``w`` into ``q``: ``'rational'`` is ``RationalG(p=1)``,
        ``'exponential'`` is ``ExponentialG(lam=1)``; pass an instance for other parameters, or
        any vectorised monotone decreasing callable into [0, 1] (checked by :func:`check_g`).
        ``'scale_free'`` is ``q = 1 − w / (N Σ s)`` (beyond the paper).
    use_deeper_ranks : bool, default True
        Read the whole run (the paper's incremental case) rather than cutting it at the
        annotator's list length ``m`` (the paper's ``C^m_μ``).
    run_order : {'rank', 'score'}, default 'rank'
        How a run's positions are taken: ascending ``rank`` (unique within a (system, query)),
        or descending ``score``, ranked by :func:`fuzzytruth.runs.rank` (the step evaluation
        uses) with ``ties`` and ``score_dtype``. Positions are 1-based ordinals.
    ties : {'docid_desc', 'docid_asc', 'input_order'}, default 'docid_desc'
        With ``run_order='score'``: how tied scores are ordered (trec_eval: item id
        descending).
    score_dtype : {'float64', 'float32'}, default 'float64'
        With ``run_order='score'``: the precision in which scores are compared.
    on_unsorted : {'raise', 'sort'}, default 'raise'
        What to do with an annotator list whose relevance increases down the list: raise, or
        re-order it by decreasing relevance (stable, so ties keep their rank order) with a
        ``UserWarning``.
    columns : mapping, optional
        Rename columns: keys among ``system``, ``query_id``, ``annotator_id``, ``item_id``,
        ``rank``, ``relevance``, ``score``; values are the names in both tables.

    Returns
    -------
    DisplacementResult
        One row per (system, query, annotator); aggregates through its methods.

    Raises
    ------
    ValueError
        On missing columns or values, duplicate items or ranks within a list, relevance outside
        [0, 1] or increasing down a list (with ``on_unsorted='raise'``), ``N`` smaller than the
        lists, or an invalid option.

    Examples
    --------
    >>> import pandas as pd
    >>> answers = pd.DataFrame({
    ...     "query_id": ["q1"] * 4, "annotator_id": ["ann1"] * 4,
    ...     "item_id": ["a", "b", "c", "d"], "rank": [1, 2, 3, 4],
    ...     "relevance": [1.0, 0.8, 0.6, 0.4]})
    >>> runs = pd.DataFrame({"system": "S", "query_id": "q1",
    ...                      "item_id": ["b", "a", "x", "c", "d"], "rank": [1, 2, 3, 4, 5]})
    >>> res = weighted_displacement(answers, runs, n_items=100, use_deeper_ranks=False)
    >>> res.to_frame()[["n_a", "n_b", "n_c", "w_a", "w_optimist", "w_pessimist"]]
       n_a  n_b  n_c  w_a  w_optimist  w_pessimist
    0    3    1    1  2.4         2.8         42.4
    >>> weighted_displacement(answers, runs, n_items=100).to_frame()["w_pessimist"].item()
    2.8
    """
    if not isinstance(use_deeper_ranks, bool | np.bool_):
        raise ValueError(f"use_deeper_ranks must be True or False; got {use_deeper_ranks!r}")
    g_func, g_name = _resolve_g(g)
    prep = _prepare(
        annotations,
        runs,
        n_items=n_items,
        run_order=run_order,
        on_unsorted=on_unsorted,
        columns=columns,
        ties=ties,
        score_dtype=score_dtype,
    )
    n_lists = len(prep.lengths)
    n_sys = len(prep.systems)
    list_n = prep.n_items[prep.list_query]
    valid = np.arange(prep.relevance.shape[1]) < prep.lengths[:, None]
    lookup = np.zeros(prep.n_pairs + 1, dtype=np.int64)  # position of each (query, item)
    parts: dict[str, list[np.ndarray]] = {}
    for j in range(n_sys):  # one pass per system; all its lists at once
        lookup[prep.run_pairs[j]] = prep.run_positions[j]
        pi = lookup[prep.pair_codes]
        lookup[prep.run_pairs[j]] = 0
        depth = prep.run_lengths[j, prep.list_query]
        union = depth + ((pi == 0) & valid).sum(axis=1)  # distinct items of list and run
        if np.any(union > list_n):
            r = int(np.argmax(union > list_n))
            raise ValueError(
                "n_items (N) must be at least the number of distinct items in each annotator's "
                f"list and each run together; query {prep.query_ids[prep.list_query[r]]!r}, "
                f"annotator {prep.list_annotator[r]!r}, system {prep.systems[j]!r} name "
                f"{union[r]} items but N={list_n[r]}"
            )
        if not use_deeper_ranks:
            depth = np.minimum(depth, prep.lengths)
            pi = np.where(pi > prep.lengths[:, None], 0, pi)
        out = displacement_kernel(
            prep.relevance, pi, lengths=prep.lengths, run_depth=depth, n_items=list_n
        )
        out["run_depth"] = depth
        for key, val in out.items():
            parts.setdefault(key, []).append(val)
    cols = {key: np.concatenate(val) for key, val in parts.items()}
    if g_func is None:
        w_max = cols["w_max"]
        q = {
            h: 1.0 - np.divide(cols[f"w_{h}"], w_max, out=np.zeros(len(w_max)), where=w_max > 0)
            for h in HYPOTHESES
        }
    else:
        w_all = np.concatenate([cols[f"w_{h}"] for h in HYPOTHESES])
        if not isinstance(g_func, RationalG | ExponentialG):
            check_g(g_func, x=w_all)
        q_all = np.asarray(g_func(w_all), dtype=float).reshape(len(HYPOTHESES), -1)
        q = dict(zip(HYPOTHESES, q_all, strict=True))
    table = pd.DataFrame(
        {
            "system": np.repeat(prep.systems, n_lists),
            "query_id": np.tile(prep.query_ids[prep.list_query], n_sys),
            "annotator_id": np.tile(prep.list_annotator, n_sys),
            "m": np.tile(prep.lengths, n_sys),
            "run_depth": cols["run_depth"],
            "n_items": np.tile(list_n, n_sys),
            "n_a": cols["n_a"],
            "n_b": cols["n_b"],
            "n_c": cols["n_c"],
            "w_a": cols["w_a"],
            **{f"w_b_{h}": cols[f"w_b_{h}"] for h in HYPOTHESES},
            **{f"w_{h}": cols[f"w_{h}"] for h in HYPOTHESES},
            "w_max": cols["w_max"],
            **{f"q_{h}": q[h] for h in HYPOTHESES},
        }
    )
    return DisplacementResult(
        table=table, g=g_name, use_deeper_ranks=bool(use_deeper_ranks), run_order=run_order
    )


def _check_measure(measure: str) -> None:
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {list(_MEASURES)}; got {measure!r}")


@dataclass(frozen=True, eq=False)
class DisplacementResult:
    """Per (system, query, annotator) weighted displacements and qualities (Santini §5).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, query_id, annotator_id); see :meth:`to_frame`.
    g : str
        The normalisation used for ``q``.
    use_deeper_ranks : bool
        Whether runs were read past the annotator's list length.
    run_order : str
        How run positions were taken (``'rank'`` or ``'score'``).
    """

    def __repr__(self) -> str:
        t = self.table
        return (
            f"DisplacementResult({t['system'].nunique()} systems × {t['query_id'].nunique()} "
            f"queries × {t['annotator_id'].nunique()} annotators, g={self.g})"
        )


    table: pd.DataFrame
    g: str
    use_deeper_ranks: bool
    run_order: str

    def to_frame(self) -> pd.DataFrame:
        """The tidy per-list table (a copy).

        Columns: ``system``, ``query_id``, ``annotator_id``; ``m`` (annotator list length),
        ``run_depth`` (run items read), ``n_items`` (N); ``n_a``, ``n_b``, ``n_c`` (set
        sizes); ``w_a``; ``w_b_<h>`` and ``w_<h>`` for each hypothesis ``h`` in
        :data:`HYPOTHESES`; ``w_max = N Σ s``; ``q_<h>``.
        """
        return self.table.copy()

    def _summary(self, keys: list[str], measure: str) -> pd.DataFrame:
        _check_measure(measure)
        cols = [f"{measure}_{h}" for h in HYPOTHESES]
        grouped = self.table.groupby(keys, sort=True)[cols]
        stats = grouped.agg(["std", "min", "median", "max"])
        stats.columns = [f"{c[len(measure) + 1 :]}_{s}" for c, s in stats.columns]
        return stats

    def by_query(self, *, measure: str = "q") -> pd.DataFrame:
        """Per (system, query): mean over annotators and the spread across them.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Aggregate the quality ``q`` or the displacement ``w``.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``query_id``, ``n_annotators``, then for each hypothesis ``h``
            (pessimist, exact_pessimist, optimist, side by side): ``h`` (the mean over
            annotators), ``h_std`` (ddof=1; NaN for one annotator), ``h_min``, ``h_median``,
            ``h_max``.
        """
        keys = ["system", "query_id"]
        _check_measure(measure)
        cols = [f"{measure}_{h}" for h in HYPOTHESES]
        mean = self.table.groupby(keys, sort=True)[cols].mean()
        mean.columns = list(HYPOTHESES)
        spread = self._summary(keys, measure)
        n = self.table.groupby(keys, sort=True).size().rename("n_annotators")
        out = pd.concat([n, mean, spread], axis=1)
        return out[["n_annotators", *_ordered(HYPOTHESES)]].reset_index()

    def by_system(self, *, measure: str = "q") -> pd.DataFrame:
        """Per system: mean over queries of the per-query mean over annotators, and the spread.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Aggregate the quality ``q`` or the displacement ``w``.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``n_queries``, ``n_lists``, then for each hypothesis ``h``:
            ``h`` (every query weighs the same, whatever its number of annotators), and
            ``h_std``, ``h_min``, ``h_median``, ``h_max`` over all (query, annotator) lists.
        """
        per_query = self.by_query(measure=measure)
        mean = per_query.groupby("system", sort=True)[list(HYPOTHESES)].mean()
        spread = self._summary(["system"], measure)
        counts = per_query.groupby("system", sort=True).agg(
            n_queries=("query_id", "size"), n_lists=("n_annotators", "sum")
        )
        out = pd.concat([counts, mean, spread], axis=1)
        return out[["n_queries", "n_lists", *_ordered(HYPOTHESES)]].reset_index()

    def bootstrap(
        self,
        *,
        measure: str = "q",
        confidence_level: float = 0.95,
        n_resamples: int = 9999,
        rng: np.random.Generator | int | None = None,
    ) -> DisplacementBootstrap:
        """Two-stage bootstrap of each system's mean over queries and annotators.

        Each replicate resamples queries with replacement, then, within each drawn query,
        resamples its annotators with replacement; the statistic is the mean over the drawn
        queries of the mean over each query's drawn annotators (the estimate of
        :meth:`by_system`). Every system sees the same draws (paired). Intervals are percentile
        intervals.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Bootstrap the quality ``q`` or the displacement ``w``.
        confidence_level : float, default 0.95
            In (0, 1).
        n_resamples : int, default 9999
            Number of bootstrap replicates (≥ 1).
        rng : numpy.random.Generator or int, optional
            Source of randomness (a seed makes the result reproducible).

        Returns
        -------
        DisplacementBootstrap

        Examples
        --------
        >>> import pandas as pd
        >>> ann = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
        ...                     "annotator_id": ["a", "b", "a", "b"], "item_id": "x",
        ...                     "rank": 1, "relevance": [1.0, 0.5, 1.0, 1.0]})
        >>> run = pd.DataFrame({"system": "S", "query_id": ["q1", "q2"],
        ...                     "item_id": ["y", "x"], "rank": 1})
        >>> res = weighted_displacement(ann, run, n_items=5, g="scale_free")
        >>> boot = res.bootstrap(n_resamples=200, rng=0)
        >>> boot.to_frame()[["system", "pessimist", "optimist"]]
          system  pessimist  optimist
        0      S        0.5       0.9
        """
        _check_measure(measure)
        check_confidence_level(confidence_level)
        if not (isinstance(n_resamples, int | np.integer) and n_resamples >= 1):
            raise ValueError(f"n_resamples must be an integer >= 1; got {n_resamples!r}")
        rng = as_generator(rng)
        t = self.table
        systems, s_code = np.unique(t["system"].to_numpy(), return_inverse=True)
        q_code, _ = pd.factorize(t["query_id"])
        a_code, _ = pd.factorize(t["annotator_id"])
        n_q = int(q_code.max()) + 1
        # slot of each (query, annotator) within its query, shared by all systems
        qa, qa_code = np.unique(q_code * (a_code.max() + 1) + a_code, return_inverse=True)
        n_ann = np.bincount(qa // (a_code.max() + 1), minlength=n_q)
        width = int(n_ann.max())
        slot = (
            np.arange(len(qa))
            - np.concatenate(([0], np.cumsum(n_ann)[:-1]))[qa // (a_code.max() + 1)]
        )
        n_series = len(systems) * len(HYPOTHESES)
        values = np.zeros((n_q * width, n_series))
        rows = (q_code * width + slot[qa_code]).astype(np.int64)
        for j, h in enumerate(HYPOTHESES):
            values[rows, s_code * len(HYPOTHESES) + j] = t[f"{measure}_{h}"].to_numpy()
        estimate = (values.reshape(n_q, width, n_series).sum(axis=1) / n_ann[:, None]).mean(0)
        dist = np.empty((n_resamples, n_series))
        cells = n_q * width
        # per replicate and cell: a uniform, an index, a mask and a weight (~40 bytes)
        chunk = block_rows(cells, MEMORY_BUDGET, bytes_per_unit=40)
        for start in range(0, n_resamples, chunk):  # chunks of replicates, all at once
            b = min(chunk, n_resamples - start)
            qi = rng.integers(0, n_q, size=(b, n_q))
            drawn = np.minimum(
                (rng.random((b, n_q, width)) * n_ann[qi][..., None]).astype(np.int64),
                n_ann[qi][..., None] - 1,
            )
            used = np.arange(width) < n_ann[qi][..., None]
            flat = (np.arange(b)[:, None, None] * cells + qi[..., None] * width + drawn)[used]
            weight = np.broadcast_to((1.0 / n_ann[qi])[..., None], used.shape)[used]
            weights = np.bincount(flat, weights=weight, minlength=b * cells).reshape(b, cells)
            dist[start : start + b] = weights @ values / n_q
        shape = (len(systems), len(HYPOTHESES))
        return DisplacementBootstrap(
            systems=systems.astype(object),
            measure=measure,
            n_queries=n_q,
            estimate=estimate.reshape(shape),
            bootstrap_distribution=dist.T.reshape(*shape, n_resamples),
            confidence_level=float(confidence_level),
        )


def _ordered(hypotheses: tuple[str, ...]) -> list[str]:
    return [c for h in hypotheses for c in (h, f"{h}_std", f"{h}_min", f"{h}_median", f"{h}_max")]




@dataclass(frozen=True, eq=False)
class DisplacementBootstrap:
    """Two-stage (queries, then annotators) bootstrap of each system's mean score.

    Attributes
    ----------
    systems : numpy.ndarray
        ``(n_systems,)`` system names.
    measure : str
        ``'q'`` or ``'w'``.
    n_queries : int
        Number of queries resampled.
    estimate : numpy.ndarray
        ``(n_systems, 3)`` mean over queries of the mean over annotators, per hypothesis (in
        the order of :data:`HYPOTHESES`).
    bootstrap_distribution : numpy.ndarray
        ``(n_systems, 3, n_resamples)`` the statistic on each replicate.
    confidence_level : float
        Level of the interval reported by :meth:`to_frame`.
    """

    def __repr__(self) -> str:
        return (
            f"DisplacementBootstrap({len(self.systems)} systems, measure={self.measure!r}, "
            f"{self.n_queries} queries, {self.bootstrap_distribution.shape[-1]} resamples)"
        )


    systems: np.ndarray
    measure: str
    n_queries: int
    estimate: np.ndarray
    bootstrap_distribution: np.ndarray
    confidence_level: float

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Percentile interval ``(low, high)``, each ``(n_systems, 3)``.

        Parameters
        ----------
        confidence_level : float, optional
            Defaults to the level given to :meth:`DisplacementResult.bootstrap`.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        check_confidence_level(level)
        return percentile_interval(self.bootstrap_distribution, level)

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per system, the three hypotheses side by side.

        Columns: ``system``, ``measure``, ``n_queries``, then for each hypothesis ``h``
        (pessimist, exact_pessimist, optimist): ``h``, ``h_ci_low``, ``h_ci_high``; and
        ``confidence_level``, ``n_resamples``.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        data: dict[str, Any] = {
            "system": self.systems,
            "measure": self.measure,
            "n_queries": self.n_queries,
        }
        for j, h in enumerate(HYPOTHESES):
            data[h] = self.estimate[:, j]
            data[f"{h}_ci_low"] = low[:, j]
            data[f"{h}_ci_high"] = high[:, j]
        data["confidence_level"] = level
        data["n_resamples"] = self.bootstrap_distribution.shape[-1]
        return pd.DataFrame(data)
