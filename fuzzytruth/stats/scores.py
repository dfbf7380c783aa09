"""The input of :mod:`fuzzytruth.stats`: per-query score arrays and the long-table adapter.

The statistics core reads arrays: ``(n_systems, n_queries)``, or
``(n_worlds, n_systems, n_queries)`` when each ground-truth world (one complete crisp ground
truth drawn from the annotators, shared by all systems) has its own scores.
:func:`scores_from_frame` turns a tidy long table with columns ``system, query_id, measure,
value`` and optionally ``world`` (what ``evaluate()`` produces) into one such array per
measure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._order import ranks, sorted_order
from fuzzytruth._validation import (
    by_labels,
    check_columns,
    detached,
    is_default_positions,
    numeric_values,
    plain,
    text_names,
)
from fuzzytruth.measures.names import label_among
from fuzzytruth.stats._validation import (
    COMPARED_QUERIES,
    MIN_QUERIES,
    as_labels,
    as_scores,
    check_axes,
)
from fuzzytruth.taxonomy import _show

REQUIRED_COLUMNS = ("system", "query_id", "measure", "value")


@dataclass(frozen=True, eq=False)
class ScoreMatrix(ReadOnlyArrays):
    """Per-query scores of several systems for one measure, with their labels.

    Attributes
    ----------
    values : numpy.ndarray
        ``(n_systems, n_queries)`` or ``(n_worlds, n_systems, n_queries)`` float64, finite. A
        DataFrame (systems × queries) gives its labels, or is put in the order of the
        ``systems`` and ``queries`` given by its labels
        (:func:`~fuzzytruth._validation.by_labels`).
    systems, queries : tuple
        Labels of the system and query axes; default a DataFrame's labels, else
        ``system0, ...`` and ``q0, ...``.
    measure : str
        The measure's name (``"score"`` when none was given).
    worlds : tuple or None
        Labels of the worlds axis (default ``world0, ...``), ``None`` without worlds.
    expected : numpy.ndarray or None
        ``(n_systems, n_queries)`` each query's expected score over the uncertain truth when
        known more exactly than the mean over the worlds (closed forms); default that mean.
    truth_model : str or None
        The truth model behind the scores' truth (``"dawid-skene"``...), named beside the
        estimand of :func:`~fuzzytruth.stats.compare`; None for a truth given as a table.
    seed : int or None
        The seed the worlds were drawn with (:attr:`Evaluation.seed
        <fuzzytruth.evaluation.Evaluation.seed>`), printed by the reports; None when not
        recorded (scores given as arrays or tables, or an ``rng`` that was a Generator).
    unit : str
        What the query axis holds, in the reports' words: ``"queries"``, or ``"items"`` for
        classifiers (each item is evaluated as a query).

    Examples
    --------
    >>> sm = ScoreMatrix([[0.1, 0.2], [0.3, 0.4]], systems=["bm25", "dense"])
    >>> sm.systems, sm.queries, sm.has_worlds
    (('bm25', 'dense'), ('q0', 'q1'), False)
    """

    values: np.ndarray
    systems: tuple | None = None
    queries: tuple | None = None
    measure: str = "score"
    worlds: tuple | None = None
    expected: np.ndarray | None = None
    truth_model: str | None = None
    seed: int | None = None
    unit: str = "queries"

    def __post_init__(self) -> None:
        if not isinstance(self.measure, str):  # it names the random stream and the rows
            raise ValueError(f"measure must be a str (a measure's name); got {self.measure!r}")
        check_axes(self.values, "values")
        if self.expected is not None:
            check_axes(self.expected, "expected")
        for axis, field in (("index", "systems"), ("columns", "queries")):
            # a DataFrame's labels, unless given (a list's index is a method, not labels)
            labels = getattr(self.values, axis, None) if hasattr(self.values, "columns") else None
            if getattr(self, field) is None and labels is not None and not (
                    is_default_positions(labels)):
                object.__setattr__(self, field, tuple(labels))
        given = {"rows": ("systems", self.systems), "columns": ("queries", self.queries)}
        values = detached(as_scores(by_labels(self.values, "values", **given), ndim=(2, 3)),
                          self.values)
        object.__setattr__(self, "values", values)
        if self.expected is not None:
            expected = detached(as_scores(by_labels(self.expected, "expected", **given),
                                          name="expected"), self.expected)
            if expected.shape != values.shape[-2:]:
                raise ValueError(
                    f"expected must have shape (n_systems, n_queries) = {values.shape[-2:]}; "
                    f"got {expected.shape}"
                )
            object.__setattr__(self, "expected", expected)
        systems = as_labels(self.systems, values.shape[-2], name="systems", prefix="system")
        queries = as_labels(self.queries, values.shape[-1], name="queries", prefix="q")
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "queries", queries)
        if values.ndim == 3:
            object.__setattr__(
                self,
                "worlds",
                as_labels(self.worlds, values.shape[0], name="worlds", prefix="world"),
            )
        elif self.worlds is not None:
            raise ValueError(
                "worlds labels need scores with a worlds axis (n_worlds, n_systems, n_queries); "
                f"got scores of shape {values.shape}"
            )

    def __repr__(self) -> str:
        """Its shape and labels in one line (the values themselves: :attr:`values`)."""
        worlds = f" × {len(self.worlds)} worlds" if self.has_worlds else ""
        model = f", truth_model={self.truth_model!r}" if self.truth_model else ""
        n = len(self.systems)
        return (f"ScoreMatrix({self.measure!r}, {n} system{'s' * (n != 1)} "
                f"({_show(self.systems, limit=4)}) × {len(self.queries)} {self.unit}{worlds}"
                f"{model})")

    @property
    def has_worlds(self) -> bool:
        """Whether the scores have a leading ground-truth worlds axis."""
        return self.values.ndim == 3

    @property
    def averaged(self) -> np.ndarray:
        """``(n_systems, n_queries)`` each query's expected score (the mean over worlds)."""
        if self.expected is not None:
            return self.expected
        return self.values.mean(axis=0) if self.has_worlds else self.values


def scores_from_frame(frame: pd.DataFrame) -> dict[str, ScoreMatrix]:
    """Turn a tidy long table of per-query scores into one :class:`ScoreMatrix` per measure.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``system``, ``query_id``, ``measure``, ``value`` and optionally ``world``.
        Every system must have exactly one value for every query (and every world) of a
        measure. Systems, queries, measures and worlds are sorted by value
        (:func:`fuzzytruth._order.sorted_order`), so that the order of the rows never changes
        a result (which system is A in a pair, a bootstrap's draws).

    Returns
    -------
    dict of str to ScoreMatrix

    Examples
    --------
    >>> frame = pd.DataFrame({
    ...     "system": ["a", "a", "b", "b"], "query_id": ["q1", "q2", "q1", "q2"],
    ...     "measure": "P@10", "value": [0.5, 0.7, 0.4, 0.6]})
    >>> sm = scores_from_frame(frame)["P@10"]
    >>> sm.systems, sm.queries
    (('a', 'b'), ('q1', 'q2'))
    >>> sm.values.tolist()
    [[0.5, 0.7], [0.4, 0.6]]
    """
    check_columns(frame, "frame", REQUIRED_COLUMNS, hint="(and optionally 'world')")
    with_worlds = "world" in frame.columns
    keys = ["system", "query_id", *(["world"] if with_worlds else [])]
    for column in ("measure", *keys):  # factorize codes a missing label -1: another label's
        missing = frame[column].isna().to_numpy()
        if missing.any():
            raise ValueError(
                f"frame column {column!r} must not contain missing values; got "
                f"{int(missing.sum())} (the first at row {int(missing.argmax())})"
            )
    out: dict[str, ScoreMatrix] = {}
    measures = pd.unique(frame["measure"])
    text_names(dict.fromkeys(measures.tolist()), "frame column 'measure'", "label")
    for measure in measures[sorted_order(measures)]:
        group = frame[(frame["measure"] == measure).to_numpy()]
        codes = [_canonical_codes(group[k], k) for k in keys]
        shape = tuple(len(labels) for _, labels in codes)
        flat = np.ravel_multi_index(tuple(c for c, _ in codes), shape)
        dup = pd.Series(flat).duplicated().to_numpy()
        if dup.any():
            row = group.iloc[int(np.argmax(dup))]
            raise ValueError(
                f"frame has more than one value for measure {measure!r} and "
                + ", ".join(f"{k}={row[k]!r}" for k in keys)
            )
        size = int(np.prod(shape))
        if len(group) != size:
            raise ValueError(
                f"frame must have one value for every {' x '.join(keys)} of measure "
                f"{measure!r}: expected {size} rows, got {len(group)} ({size - len(group)} "
                "missing)"
            )
        values = np.empty(size)
        values[flat] = _value_column(group, measure, keys)
        values = values.reshape(shape)  # (system, query[, world])
        if with_worlds:
            values = np.moveaxis(values, 2, 0)
        out[str(measure)] = ScoreMatrix(
            values=as_scores(values, ndim=(3,) if with_worlds else (2,),
                             name=f"value (measure {measure!r})"),
            systems=tuple(codes[0][1]),
            queries=tuple(codes[1][1]),
            measure=str(measure),
            worlds=tuple(codes[2][1]) if with_worlds else None,
        )
    return out


def _value_column(group: pd.DataFrame, measure: object, keys: list[str]) -> np.ndarray:
    """The ``value`` column of one measure's rows as float64, or a ValueError naming the row.

    Text holding numbers is read as numbers (a table read without types). Complex numbers,
    dates and durations are refused before the cast: ``pd.to_numeric`` passes complex values
    on and turns dates into nanoseconds since 1970 (1.7e18 for a 2024 date), which the cast
    to float then kept as scores without a word (the imaginary parts dropped with a
    ComplexWarning at most). A value that is not a finite number is reported with its row.
    """
    name = f"value (measure {measure!r})"
    column = group["value"]
    values = numeric_values(column, name).to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        row = group.iloc[int(bad[0])]
        where = ", ".join(f"{k}={plain(row[k])!r}" for k in keys)
        raise ValueError(
            f"{name} must be finite numbers; found {bad.size} that are not, the first at "
            f"row {plain(group.index[bad[0]])!r} ({where}): "
            f"{plain(column.iloc[int(bad[0])])!r}"
        )
    return values


def _canonical_codes(values: pd.Series, column: str) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` with the labels sorted by value (:func:`sorted_order`); two
    labels with the same text (``1`` and ``"1"``: one system or query everywhere else, and
    in every table written) are refused."""
    codes, uniques = pd.factorize(values, sort=False)
    text_names(dict.fromkeys(uniques.tolist()), f"frame column {column!r}", "label")
    order = sorted_order(uniques)
    return ranks(order)[codes], np.asarray(uniques, dtype=object)[order]


def evaluation_scores(evaluation: object) -> dict[str, ScoreMatrix]:
    """The score matrices of an :class:`~fuzzytruth.evaluation.Evaluation`, one per measure.

    The one place where :mod:`fuzzytruth.stats` reads an ``Evaluation``: its
    ``world_scores(measure)`` ``(n_worlds, n_systems, n_queries)`` and each query's expected
    score over the uncertain truth, ``query_means(measure)`` (exact where the family has a
    closed form), both under the evaluation's ``undefined`` rule. Queries that the rule or the
    preset leaves out of the aggregates (NaN there) are left out here too, so ``compare()``
    averages the same queries as :meth:`~fuzzytruth.evaluation.Evaluation.aggregate`. A crisp
    truth gives ``(n_systems, n_queries)`` scores without a worlds axis.
    """
    out: dict[str, ScoreMatrix] = {}
    crisp = evaluation.truth.crisp
    for measure in evaluation.measures:
        expected = evaluation.query_means(measure)
        keep = ~np.isnan(expected).any(axis=0)
        unit = "items" if "items" in evaluation.conventions else "queries"
        if keep.sum() < MIN_QUERIES:
            one = {"queries": "query", "items": "item"}[unit]
            held = (f"the evaluation holds {len(keep)} {one if len(keep) == 1 else unit}"
                    if len(keep) < MIN_QUERIES else
                    f"measure {measure!r} has a value on {int(keep.sum())} of the {len(keep)} "
                    f"{unit} (the others are undefined under undefined='skip', or left out of "
                    "the aggregates by the preset)")
            raise ValueError(
                f"{held}; no statistic of the systems is defined on fewer than {MIN_QUERIES} "
                f"(a comparison needs {COMPARED_QUERIES})"
            )
        values = evaluation.world_scores(measure)
        if not keep.all():  # a copy only when some query is left out
            values = values[..., keep]
        values.flags.writeable = False  # made here: the ScoreMatrix holds it without a copy
        if not crisp and np.isnan(values.min()):  # NaN propagates: no mask of the worlds
            raise ValueError(
                f"measure {measure!r} is undefined in some worlds (undefined='skip'): the "
                "statistics need a value in every world; evaluate with undefined='zero'"
            )
        out[str(measure)] = ScoreMatrix(
            values=values[0] if crisp else values,
            systems=tuple(evaluation.systems),
            queries=tuple(np.asarray(evaluation.queries, dtype=object)[keep]),
            measure=str(measure),
            expected=None if crisp else expected[:, keep],
            truth_model=evaluation.conventions.get("truth_model"),
            seed=evaluation.seed,
            unit=unit,
        )
    return out


def _refuse_wide(frame: pd.DataFrame) -> None:
    """A wide table of numbers (systems × queries, or its transpose), or an evaluation's own
    table, given where the long table is read: say how it goes in, rather than list the long
    table's missing columns."""
    if "value" not in frame.columns and {"mean", "truth_std", "method"} <= set(frame.columns):
        raise ValueError(
            "scores must be a long table with a 'value' column when it is a DataFrame; got "
            "what Evaluation.to_frame() gives (each query's mean over the uncertain truth, "
            "not its value in each world): pass the Evaluation itself, compare(evaluation)"
        )
    if set(REQUIRED_COLUMNS) <= set(frame.columns) or not len(frame.columns) or not all(
            pd.api.types.is_numeric_dtype(t) for t in frame.dtypes):
        return
    raise ValueError(
        "scores must be a long table with columns ['system', 'query_id', 'measure', 'value'] "
        "(and optionally 'world') when it is a DataFrame; got a wide "
        f"table of {frame.shape[0]} rows × {frame.shape[1]} columns of numbers: give it as "
        "ScoreMatrix(frame, measure=...) with the systems as rows and the queries as columns "
        "(frame.T if the rows are queries)"
    )


def as_score_matrices(
    scores: object,
    *,
    systems: Iterable[object] | None = None,
    queries: Iterable[object] | None = None,
    measure: str | None = None,
) -> dict[str, ScoreMatrix]:
    """Normalise every accepted input of :func:`~fuzzytruth.stats.compare` to score matrices.

    Accepts an :class:`~fuzzytruth.evaluation.Evaluation` (:func:`evaluation_scores`), a
    :class:`pandas.DataFrame` (long table), a :class:`ScoreMatrix`, a mapping of measure name
    to array or :class:`ScoreMatrix`, or one array (named by ``measure``).
    """
    from fuzzytruth.evaluation.result import Evaluation  # deferred: evaluate pulls in the metrics

    if isinstance(scores, Evaluation):
        if systems is not None or queries is not None:
            raise ValueError("systems and queries must be None when scores is an Evaluation; "
                             "the labels come from it (to compare some of its systems, "
                             "evaluate their runs alone: with the same rng their numbers are "
                             "the same)")
        if not scores.measures:
            raise ValueError("scores must hold at least one measure; got an Evaluation of none")
        return _select(evaluation_scores(scores), measure)
    held = scores.values() if isinstance(scores, Mapping) else scores
    if isinstance(scores, Mapping | list | tuple) and any(isinstance(v, Evaluation) for v in held):
        raise ValueError(
            f"scores must be one Evaluation of every system compared; got a "
            f"{type(scores).__name__} of Evaluations: evaluate the systems together, "
            "compare(evaluate({name: run, ...}, truth, measures)), so that they are paired on "
            "the same queries, options and ground-truth worlds"
        )
    if isinstance(scores, pd.DataFrame):
        if systems is not None or queries is not None:
            raise ValueError("systems and queries must be None when scores is a DataFrame; "
                             "the labels come from its columns")
        _refuse_wide(scores)
        return _select(scores_from_frame(scores), measure)
    if isinstance(scores, ScoreMatrix):
        if systems is not None or queries is not None:  # they were ignored
            raise ValueError("systems and queries must be None when scores is a ScoreMatrix; "
                             "the labels come from it")
        return {scores.measure: scores}
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("scores must hold at least one measure; got an empty mapping")
        if (systems is not None or queries is not None) and any(
                isinstance(v, ScoreMatrix) for v in scores.values()):  # they were ignored
            raise ValueError("systems and queries must be None when scores holds a "
                             "ScoreMatrix; the labels come from it")
        return {
            str(name): value if isinstance(value, ScoreMatrix)
            else ScoreMatrix(value, systems=systems, queries=queries, measure=str(name))
            for name, value in scores.items()
        }
    name = "score" if measure is None else measure
    return {name: ScoreMatrix(scores, systems=systems, queries=queries, measure=name)}


def _select(out: dict[str, ScoreMatrix], measure: str | None) -> dict[str, ScoreMatrix]:
    if measure is None:
        return out
    label = label_among(measure, out)
    return {label: out[label]}

