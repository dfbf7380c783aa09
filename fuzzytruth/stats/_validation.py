"""Input validation of :mod:`fuzzytruth.stats`: the statistics' own arguments; the checks shared
with the rest of the library (choices, confidence levels, integers) come from
:mod:`fuzzytruth._validation`, one message each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from fuzzytruth._validation import (
    COLUMN_NAMES,
    SCALE_LIMIT,
    check_choice,
    check_confidence_level,
    check_int,
    check_n_resamples,
    check_number,
    id_text,
    is_missing,
    ordered_ids,
    real_array,
    significance_level,
)
from fuzzytruth._warnings import warn

__all__ = [
    "DegenerateComparisonWarning",
    "all_pairs",
    "as_labels",
    "as_pairs",
    "as_scores",
    "baseline_pairs",
    "check_alpha",
    "check_alternative",
    "check_axes",
    "check_choice",
    "check_confidence_level",
    "check_int",
    "check_n_resamples",
    "check_tolerance",
    "flip_scale",
    "no_spread",
    "paired_differences",
    "scaled_deviations",
    "significance_level",
    "tie_margin",
    "warn_no_spread",
]

ALTERNATIVES = ("two-sided", "less", "greater")
MIN_QUERIES = 2
"""The fewest queries (units) a score matrix holds."""
COMPARED_QUERIES = 3
"""The fewest queries on which a test or interval of a comparison is computed
(:data:`fuzzytruth.stats.procedures.MIN_QUERIES`)."""


def check_alternative(alternative: object) -> str:
    """Validate scipy's ``alternative`` argument."""
    return check_choice("alternative", alternative, ALTERNATIVES)


def check_alpha(alpha: object) -> float:
    """Validate a significance level strictly between 0 and 1."""
    return check_confidence_level(alpha, name="alpha")


def check_tolerance(tolerance: object) -> float:
    """Validate a non-negative finite tie tolerance."""
    return check_number("tie_tolerance", tolerance)


def tie_margin(tolerance: float, x: np.ndarray) -> float:
    """How far apart two scores of ``x`` (or two means of them) may be and tie: ``tolerance``
    and the rounding of the scores' arithmetic, 1e-12 of the largest ``|score|``. A difference
    that equals the tolerance in exact arithmetic then ties whatever its rounding (0.8 − 0.6
    is 0.20000000000000007 in doubles, 0.5 − 0.3 is 0.2), and so do equal means summed in
    different orders.

    >>> tie_margin(0.2, np.array([[0.8, 0.6]])) > 0.8 - 0.6
    True
    """
    return tolerance + 1e-12 * max(float(x.max()), -float(x.min()), 0.0)


def paired_differences(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(n_pairs, n_queries)`` differences ``x[a] - x[b]``, those within the rounding of the
    scores' arithmetic (:func:`tie_margin` at tolerance 0: 1e-12 of the largest ``|score|``)
    set to 0: the one rule by which every paired test, interval and effect size (and the
    ties of :func:`~fuzzytruth.stats.wins_ties_losses`) decides that a query is a tie.

    Scores equal in exact arithmetic need not be equal in doubles (0.1 + 0.2 is
    0.30000000000000004); compared as they were, the differences 5.6e-17 of such "ties" were
    signs for the sign test and spread for the t test: 12 queries tied on every score, half
    of them through 0.1 + 0.2, gave a t-test p-value of 0.007, a sign-test p of 0.03 and a
    d_z of -1, beside 12 ties in the W/T/L column.

    >>> paired_differences(np.array([[0.3, 0.3, 0.5], [0.1 + 0.2, 0.3, 0.2]]),
    ...                    np.array([[0, 1]])).tolist()
    [[0.0, 0.0, 0.3]]
    """
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
    d[np.abs(d) <= tie_margin(0.0, x)] = 0.0
    return d


def flip_scale(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The absolute scale of the sign-flip tests' tie tolerance (``count_extreme``'s
    ``scale``), per pair: the largest ``|score|`` of its two systems. Of the scores, not of
    their differences: the differences of two systems equal up to rounding are themselves
    rounding noise, and a flip of it (5.6e-17) counted as more extreme than the tie 0
    (one-sided p 0.75 for differences that are all ties, where it must be 1). Of the pair's
    systems only, so that what a pair gets does not depend on the other systems compared.

    >>> flip_scale(np.array([[0.3, 0.5], [0.1 + 0.2, 0.5], [7.0, 1.0]]), np.array([[0, 1]]))
    array([0.5])
    """
    top = np.abs(x).max(axis=1)
    return np.maximum(top[pairs[:, 0]], top[pairs[:, 1]])


def scaled_deviations(x: np.ndarray, axis: int) -> np.ndarray:
    """Deviations of ``x`` from its mean along ``axis``, divided by their largest ``|value|``
    (0 where they are all 0): the input of a scale-free third moment (skewness, BCa's
    acceleration), whose cubes of raw deviations overflow from scores of about 1e103 and
    underflow below 1e-103, within the scores the statistics accept (:data:`SCALE_LIMIT`).

    >>> scaled_deviations(np.array([[1e120, 3e120, 5e120]]), axis=-1).tolist()
    [[-1.0, 0.0, 1.0]]
    """
    c = x - x.mean(axis=axis, keepdims=True)
    top = np.abs(c).max(axis=axis, keepdims=True)
    return np.divide(c, top, out=np.zeros_like(c), where=top > 0)




_QUERY_AXES = frozenset({*COLUMN_NAMES["query_col"], *COLUMN_NAMES["item"], "queries",
                         "topics", "items", "unit", "units"})
_SYSTEM_AXES = frozenset({*COLUMN_NAMES["system"], "systems", "runs", "models", "classifiers"})


def check_axes(scores: object, name: str = "scores") -> None:
    """Refuse a DataFrame whose axis names say it holds queries as rows or systems as columns
    (``frame.pivot(index="query_id", columns="system", ...)``, the usual wide table): read as
    ``(n_systems, n_queries)`` it would compare the queries as systems, without a word.

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"bm25": [0.2, 0.4], "dense": [0.3, 0.5]},
    ...                     index=pd.Index(["q1", "q2"], name="query_id"))
    >>> check_axes(wide)
    Traceback (most recent call last):
    ...
    ValueError: scores must hold systems as rows and queries as columns (n_systems,
    n_queries); got a DataFrame with the queries as rows (index 'query_id'): pass scores.T
    """
    index, columns = getattr(scores, "index", None), getattr(scores, "columns", None)
    if index is None or columns is None:
        return
    words = []
    if str(index.name).lower() in _QUERY_AXES:
        words.append(f"the queries as rows (index {index.name!r})")
    if str(columns.name).lower() in _SYSTEM_AXES:
        words.append(f"the systems as columns (columns {columns.name!r})")
    if words:
        raise ValueError(
            f"{name} must hold systems as rows and queries as columns (n_systems, n_queries); "
            f"got a DataFrame with {' and '.join(words)}: pass {name}.T"
        )


def as_scores(scores: object, *, ndim: Sequence[int] = (2,), name: str = "scores") -> np.ndarray:
    """Return ``scores`` as a float64 array, checking its rank, size and finiteness.

    The last axis is always queries and the one before it systems; a leading axis, when
    allowed, holds ground-truth worlds. A DataFrame whose axis names say the opposite is
    refused (:func:`check_axes`).
    """
    check_axes(scores, name)
    arr = real_array(scores, name, expected="a numeric array (n_systems, n_queries)")
    if arr.ndim not in ndim:
        shapes = " or ".join(
            {2: "(n_systems, n_queries)", 3: "(n_worlds, n_systems, n_queries)"}[d] for d in ndim
        )
        raise ValueError(f"{name} must have shape {shapes}; got an array of shape {arr.shape}")
    if arr.shape[-1] < MIN_QUERIES:
        raise ValueError(
            f"{name} must hold at least {MIN_QUERIES} queries (last axis); got {arr.shape[-1]}"
        )
    if arr.shape[-2] < 1:
        raise ValueError(f"{name} must hold at least 1 system; got shape {arr.shape}")
    if arr.ndim == 3 and arr.shape[0] < 1:
        raise ValueError(f"{name} must hold at least 1 world; got shape {arr.shape}")
    # a NaN or an infinity shows in the extremes (NaN propagates through min and max): two
    # passes without temporaries over what may be 1.6 GB of worlds, the mask only to name it
    low, high = float(arr.min()), float(arr.max())
    if not (np.isfinite(low) and np.isfinite(high)):
        bad = ~np.isfinite(arr)
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite; found {int(bad.sum())} non-finite value(s), the first at "
            f"index {first}"
        )
    largest = max(high, -low)  # no |arr| temporary: worlds are large
    if largest > SCALE_LIMIT or 0 < largest < 1 / SCALE_LIMIT:
        first = tuple(int(i) for i in np.unravel_index(np.abs(arr).argmax(), arr.shape))
        raise ValueError(
            f"{name} must be at most {SCALE_LIMIT:.0e} in absolute value, and not all below "
            f"{1 / SCALE_LIMIT:.0e}: the procedures square differences of scores, which would "
            f"overflow or underflow; got largest |value| {largest:.3g} at index {first}. "
            f"Rescale the scores."
        )
    return arr


def no_spread(d: np.ndarray) -> np.ndarray:
    """Per row, whether the values are all equal up to rounding (spread <= 1e-10 * max |d|).

    A constant paired difference computed in floating point has a standard deviation of
    about 1e-17, which would turn into a t statistic or an effect size of 1e15; such rows
    are treated as having no spread.

    Examples
    --------
    >>> base = np.linspace(0, 1, 7)
    >>> no_spread(np.vstack([(base + 0.1) - base, base])).tolist()
    [True, False]
    """
    d = np.asarray(d, dtype=np.float64)
    return d.std(axis=-1) <= 1e-10 * np.abs(d).max(axis=-1)


class DegenerateComparisonWarning(UserWarning):
    """A pair's differences have no spread: its t statistic, and what rests on it, are NaN."""


def warn_no_spread(
    flat: np.ndarray, labels: Sequence[str], consequence: str
) -> None:
    """Warn, naming up to five of them, about the pairs ``flat`` marks as without spread
    (:func:`no_spread`); ``consequence`` says what is NaN for them."""
    if not flat.any():
        return
    shown = ", ".join(labels[i] for i in np.flatnonzero(flat)[:5])
    warn(
        f"{int(flat.sum())} pair(s) have the same difference on every query ({shown}): "
        f"their spread is 0, so {consequence}",
        DegenerateComparisonWarning,
    )


def as_labels(labels: Iterable[object] | None, n: int, *, name: str, prefix: str) -> tuple:
    """Return ``n`` labels unique as text (``1`` and ``"1"`` print alike in every table, and
    are one id everywhere else in the library), generating ``prefix0, prefix1, ...`` when
    none are given."""
    if labels is None:
        return tuple(f"{prefix}{i}" for i in range(n))
    out = tuple(ordered_ids(labels, name))
    if len(out) != n:
        raise ValueError(f"{name} must have {n} entries to match scores; got {len(out)}")
    missing = [i for i, label in enumerate(out) if is_missing(label)]
    if missing:  # printed as "None" or "nan" in every table
        raise ValueError(f"{name} must not contain missing values (found at position "
                         f"{missing[0]})")
    texts = [id_text(label, name) for label in out]
    if len(set(texts)) != n:
        spellings: dict[str, dict[str, None]] = {}  # each text's labels, as repr, in order
        times = Counter(texts)
        for label, text in zip(out, texts, strict=True):
            if times[text] > 1:
                spellings.setdefault(text, {})[repr(label)] = None
        repeated = [" and ".join(shown) + " (one text)" if len(shown) > 1 else next(iter(shown))
                    for shown in spellings.values()]
        raise ValueError(f"{name} must be unique (as text); repeated: "
                         + ", ".join(repeated[:5]) + (", …" if len(repeated) > 5 else ""))
    return out


def as_pairs(pairs: object, n_systems: int) -> np.ndarray:
    """Validate ``(n_pairs, 2)`` integer system indices; ``None`` means all pairs ``i < j``."""
    if pairs is None:
        return all_pairs(n_systems)
    arr = np.asarray(pairs)
    if arr.size == 0:
        raise ValueError("pairs must hold at least one pair of system indices; got none")
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"pairs must be an integer array of shape (n_pairs, 2); got dtype {arr.dtype} "
            f"and shape {arr.shape}"
        )
    if arr.min() < 0 or arr.max() >= n_systems:
        raise ValueError(
            f"pairs must index systems 0..{n_systems - 1}; got values from {arr.min()} "
            f"to {arr.max()}"
        )
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError("pairs must compare two different systems; got a pair (i, i)")
    return arr.astype(np.intp)


def all_pairs(n_systems: int) -> np.ndarray:
    """All ``n (n - 1) / 2`` pairs ``(i, j)`` with ``i < j``, in row-major order.

    Examples
    --------
    >>> all_pairs(3).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    if n_systems < 2:
        raise ValueError(f"comparing systems needs at least 2 systems; got {n_systems}")
    i, j = np.triu_indices(n_systems, k=1)
    return np.column_stack([i, j]).astype(np.intp)


def baseline_pairs(n_systems: int, baseline: int) -> np.ndarray:
    """Pairs ``(i, baseline)`` for every other system ``i`` (difference = system - baseline).

    Examples
    --------
    >>> baseline_pairs(3, 1).tolist()
    [[0, 1], [2, 1]]
    """
    if n_systems < 2:
        raise ValueError(f"comparing systems needs at least 2 systems; got {n_systems}")
    others = np.array([i for i in range(n_systems) if i != baseline], dtype=np.intp)
    return np.column_stack([others, np.full_like(others, baseline)])
