"""Predictions: one classifier's scores or probabilities, items × classes.

A classifier is evaluated the way a retrieval system is: each item plays a query, its classes
ranked by the classifier's scores play the result list (:mod:`fuzzytruth.classify.ranking`
ranks them, with a named tie rule), and the truth says which class the item belongs to.
:class:`Predictions` holds the dense matrix, not a long run: a classifier gives every class a
score, and the measures read whole rows (top-k sets, predicted distributions).

Ids are strings, as in a :class:`~fuzzytruth.runs.Run` (numbers are converted with ``str``);
classes are matched to the truth's taxonomy nodes by the same string form. Scores keep their
dtype when it is float32 or float64 (50,000 items × 1,000 classes take 200 MB in float32).

Probabilities or scores. ``probabilities=None`` (default) decides from the values: every row
finite, within [0, 1] and summing to 1 within ``sqrt(eps)`` of its dtype (scikit-learn's
tolerance in ``log_loss``; float16 rows, held as float64, within float16's) makes
probabilities, anything else scores (logits, margins). Measures
that read probabilities (cross-entropy, Brier, the distances between distributions, ECE) refuse
scores with an error naming the first row that does not sum to 1; ``probabilities=True``
demands them at construction.

Examples
--------
>>> p = Predictions([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]], items=["x", "y"],
...                 classes=["cat", "dog", "cow"], name="net")
>>> p
Predictions('net', 2 items × 3 classes, probabilities)
>>> p.to_frame().head(3)
  item_id class  score
0       x   cat    0.7
1       x   dog    0.2
2       x   cow    0.1
>>> Predictions([[0.5, np.nan]], items=["x"], classes=["a", "b"])
Traceback (most recent call last):
...
ValueError: scores must be finite; item 'x', class 'b' is nan
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._order import in_text_order, is_identity, name_order, ranks
from fuzzytruth._pairs import as_ids, integer_codes
from fuzzytruth._validation import (
    by_labels,
    check_columns,
    check_flag,
    check_real,
    check_type,
    detached,
    id_text,
    is_missing,
    numeric_values,
    ordered_ids,
    plain,
    probability_tolerance,
    refuse_float_ids,
)
from fuzzytruth.taxonomy import _show

__all__ = ["Predictions", "is_classifier_input", "probability_tolerance"]


def _ids(values: Iterable[Hashable], what: str) -> pd.Index:
    values = list(ordered_ids(values, f"{what} ids"))
    if not all(type(v) is str for v in values):  # str ids (the usual case) are their text
        missing = [i for i, v in enumerate(values) if is_missing(v)]
        if missing:  # str() would name them "None"
            raise ValueError(f"{what} ids must not contain missing values (found at position "
                             f"{missing[0]})")
        refuse_float_ids(values, f"{what} ids")  # 1.0 reads "1.0", no file's or int's id
        values = [id_text(v, f"{what} ids") for v in values]
    index = pd.Index(values, dtype=object, name=what)
    if index.has_duplicates:
        raise ValueError(f"{what} ids must be unique; repeated: {_show(index[index.duplicated()])}")
    return index


def column_ids(
    column: pd.Series, what: str, where: Callable[[int], str]
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's code and the distinct ids' text (an object array of str, in order of first
    appearance) of a long table's id column, read by the rule of a run's ids
    (:func:`fuzzytruth._pairs.as_ids`: text as it is, integers as theirs, floats refused); a
    missing id is a ValueError naming its row (``where``). Integers are hashed as integers
    (:func:`fuzzytruth._pairs.integer_codes`), text as Arrow strings, not as Python objects
    (2 M rows grouped by item, 2026-11-27: 4.0-4.6 s of CPU through ``astype(str)`` and an
    object factorisation, 0.5-0.7 s now; rows shuffled, 1.5-1.9 s, most of it Arrow hashing
    the scattered text)."""
    absent = np.flatnonzero(column.isna().to_numpy())
    if absent.size:
        raise ValueError(f"{where(absent[0])}: the {what} id must not be missing; got "
                         f"{column.iloc[absent[0]]!r}")
    name = f"the {what} ids of column {column.name!r}"
    integers = integer_codes(column, name)  # hashed as integers, the distinct ones written
    if integers is not None:
        return integers
    codes, uniques = pd.factorize(as_ids(column, name, in_blocks=False))
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


class Predictions(ReadOnlyArrays):
    """One classifier's scores (or probabilities): a row per item, a column per class.

    Parameters
    ----------
    scores : array_like
        ``(n_items, n_classes)`` finite numbers; float32 and float64 are kept as given, other
        numbers become float64. A DataFrame's rows and columns are matched to ``items`` and
        ``classes`` by its labels (its index and columns hold the same ids, in any order), an
        axis with pandas' default labels ``0 .. n - 1`` by position.
    items : sequence
        Item ids of the rows (converted to str; unique).
    classes : sequence
        Class of each column (converted to str; unique), matched to the truth's taxonomy nodes.
    name : str
        The classifier's name, as outputs print it.
    probabilities : bool, optional
        None (default): probabilities when every row is within [0, 1] and sums to 1 (module
        docstring); True: they must be, or a ValueError names the first row that is not;
        False: scores, whatever the values.

    Examples
    --------
    >>> Predictions([[2.0, -1.0]], items=[7], classes=["a", "b"]).probabilities
    False
    >>> Predictions([[0.6, 0.6]], items=[7], classes=["a", "b"], probabilities=True)
    Traceback (most recent call last):
    ...
    ValueError: probabilities must sum to 1 in every row (within 1.5e-08); item '7' sums to 1.2
    """

    def __init__(
        self,
        scores: Any,
        *,
        items: Sequence[Hashable],
        classes: Sequence[Hashable],
        name: str = "classifier",
        probabilities: bool | None = None,
    ) -> None:
        self._items = _ids(items, "item")
        self._classes = _ids(classes, "class")
        scores = by_labels(scores, "scores", rows=("items", self._items),  # ids read once: a
                           columns=("classes", self._classes))  # generator is not read again
        array = np.asarray(scores)
        # one predicted class per item (a hard classifier's output) is not a score table
        hard = (" (one predicted class per item is Predictions.from_labels({item: class}, "
                "classes=...))" if array.ndim == 1 and len(array) == len(self._items) else "")
        # rows sum to 1 within the precision they were given in: float16's is coarser
        precision = np.float16 if array.dtype == np.float16 else None
        if array.dtype not in (np.float32, np.float64):
            if array.dtype == object or not (
                np.issubdtype(array.dtype, np.number) or array.dtype == bool
            ):
                raise ValueError(f"scores must be numbers; got an array of {array.dtype}{hard}")
            check_real(array, "scores")
            array = array.astype(np.float64)
        if array.ndim != 2:
            raise ValueError(
                f"scores must be a 2-D array (n_items, n_classes); got shape {array.shape}{hard}"
            )
        if array.shape != (len(self._items), len(self._classes)):
            raise ValueError(
                f"scores must have shape (n_items, n_classes) = "
                f"({len(self._items)}, {len(self._classes)}); got {array.shape}"
            )
        if len(self._classes) == 0:
            raise ValueError("predictions need at least one class")
        finite = np.isfinite(array)
        if not finite.all():
            row, col = np.argwhere(~finite)[0]
            raise ValueError(
                f"scores must be finite; item {self._items[row]!r}, class "
                f"{self._classes[col]!r} is {float(array[row, col])!r}"
            )
        probabilities = check_flag("probabilities", probabilities, none=True)
        problem = self._not_probabilities(array, precision)
        if probabilities and problem:
            raise ValueError(f"probabilities must {problem}")
        self._scores = detached(np.ascontiguousarray(array), scores)
        self._problem = problem if probabilities is not False else "be declared so"
        self._is_probability = not self._problem
        self.name = str(name)

    def _not_probabilities(self, array: np.ndarray, precision: type | None = None) -> str:
        """Why ``array`` is not a matrix of probabilities ('' when it is); its rows must sum to
        1 within the tolerance of ``precision``, the dtype they were given in, when it is
        coarser than the array's."""
        if array.size == 0:
            return ""
        low, high = array.min(axis=1), array.max(axis=1)
        bad = np.flatnonzero((low < 0) | (high > 1))
        if bad.size:
            row = bad[0]
            value = low[row] if low[row] < 0 else high[row]
            if (low < 0).any():
                hint = (" (logits? scipy.special.softmax(scores, axis=1) makes them "
                        "probabilities)")
            elif np.allclose(array.sum(axis=1, dtype=np.float64), 100.0):
                hint = " (percentages? divide them by 100)"
            else:
                hint = ""
            return f"be within [0, 1]; item {self._items[row]!r} has {float(value)!r}{hint}"
        sums = array.sum(axis=1, dtype=np.float64)
        tol = probability_tolerance(np.dtype(precision or array.dtype))
        bad = np.flatnonzero(np.abs(sums - 1.0) > tol)
        if bad.size:
            row = bad[0]
            return (
                f"sum to 1 in every row (within {tol:.2g}); item {self._items[row]!r} sums to "
                f"{float(sums[row]):.6g}"
            )
        return ""

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        item: str = "item_id",
        cls_col: str = "class",
        score: str = "score",
        name: str = "classifier",
        probabilities: bool | None = None,
        classes: Sequence[Hashable] | None = None,
    ) -> Predictions:
        """Predictions from a long table, one row per (item, class).

        Every item needs a score for every class; a repeated (item, class) pair or a missing
        one is a ValueError naming it. Ids are read as a run's are: str as they are, integers
        as their decimal text, floating-point ids refused (1.0 would be the id "1.0", which no
        truth names; pandas reads an integer column with a missing value as floats). Items
        and classes are sorted by that text (so that the order of the rows never changes a
        result) unless ``classes`` gives the classes' order (and set).

        Examples
        --------
        >>> df = pd.DataFrame({"item_id": [1, 1, 2, 2], "class": ["a", "b", "a", "b"],
        ...                    "score": [0.9, 0.1, 0.4, 0.6]})
        >>> Predictions.from_frame(df).scores.tolist()
        [[0.9, 0.1], [0.4, 0.6]]
        >>> Predictions.from_frame(df.iloc[:3])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: item '2' has no score for class 'b': a classifier scores every class (1 of...
        """
        check_columns(frame, "frame", [], rows=False)
        for param, column in (("item", item), ("cls_col", cls_col), ("score", score)):
            if column not in frame.columns:
                raise ValueError(
                    f"{param}={column!r} is not a column of the table; its columns are "
                    f"{list(frame.columns)}"
                )
        values = numeric_values(frame[score], f"column {score!r}").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(
                f"column {score!r} must hold finite numbers; row {int(bad[0])} (item "
                f"{plain(frame[item].iloc[bad[0]])!r}, class "
                f"{plain(frame[cls_col].iloc[bad[0]])!r}) has {plain(frame[score].iloc[bad[0]])!r}"
            )
        return cls._from_long(frame[item], frame[cls_col], values, name=name,
                              probabilities=probabilities, classes=classes, rows=None)

    @classmethod
    def _from_long(
        cls,
        item_ids: pd.Series,
        class_ids: pd.Series,
        values: np.ndarray,
        *,
        name: str,
        probabilities: bool | None,
        classes: Sequence[Hashable] | None,
        rows: Callable[[int], str] | None,
    ) -> Predictions:
        """The matrix of a long table (its item and class columns, its scores); ``rows(i)``
        says where row ``i`` came from."""
        where = rows or (lambda i: f"row {int(i)}")
        item_code, item_text = column_ids(item_ids, "item", where)
        by_text = name_order(item_text)  # items sorted by their text
        item_code = ranks(by_text)[item_code]
        items = item_text[by_text]
        class_code, given = column_ids(class_ids, "class", where)
        if classes is None:
            class_index = pd.Index(given[name_order(given)], dtype=object)
        else:
            # they order the table's columns, naming none by position: a set is taken too
            class_index = _ids(in_text_order(classes), "class")
        column = class_index.get_indexer(given)
        unknown = np.flatnonzero(column[class_code] < 0)
        if unknown.size:
            raise ValueError(
                f"{where(unknown[0])}: class {given[class_code[unknown[0]]]!r} is not one of "
                f"the given classes {_show(class_index)}"
            )
        n_items, n_classes = len(items), len(class_index)
        flat = item_code * n_classes + column[class_code]
        seen = np.bincount(flat, minlength=n_items * n_classes)
        if seen.max(initial=0) > 1:
            twice = np.flatnonzero(seen[flat] > 1)
            raise ValueError(
                f"{where(twice[1])}: item {items[item_code[twice[1]]]!r} has a second score for "
                f"class {class_index[column[class_code[twice[1]]]]!r} (first at "
                f"{where(twice[0])})"
            )
        missing = np.flatnonzero(seen == 0)
        if missing.size:
            row, col = divmod(int(missing[0]), n_classes)
            scored = int(seen.reshape(n_items, n_classes)[row].sum())
            raise ValueError(
                f"item {items[row]!r} has no score for class {class_index[col]!r}: a classifier "
                f"scores every class ({scored} of {n_classes} classes given)"
            )
        matrix = np.empty(n_items * n_classes)
        matrix[flat] = values
        return cls(matrix.reshape(n_items, n_classes), items=items, classes=class_index,
                   name=name, probabilities=probabilities)

    @classmethod
    def from_wide(
        cls,
        frame: pd.DataFrame,
        *,
        item: str | None = None,
        name: str = "classifier",
        probabilities: bool | None = None,
    ) -> Predictions:
        """Predictions from a wide table: one row per item, one column per class.

        The items are the frame's index, or the column ``item`` when given.

        Examples
        --------
        >>> wide = pd.DataFrame({"id": ["x", "y"], "cat": [0.9, 0.2], "dog": [0.1, 0.8]})
        >>> Predictions.from_wide(wide, item="id").classes
        ('cat', 'dog')
        """
        check_type(frame, "frame", pd.DataFrame,
                   ": a matrix is Predictions(scores, items=..., classes=...)"
                   if isinstance(frame, np.ndarray) else
                   ": a mapping {item: {class: score}} is pd.DataFrame.from_dict(mapping, "
                   "orient='index')" if isinstance(frame, Mapping) else "")
        if item is not None:
            if item not in frame.columns:
                raise ValueError(
                    f"item={item!r} is not a column of the table; its columns are "
                    f"{list(frame.columns)}"
                )
            frame = frame.set_index(item)
        if frame.shape[1] == 0:
            raise ValueError("frame must have a column per class; got no class column")
        numbers = numeric_values(frame, "frame")
        unread = numbers.isna().to_numpy() & frame.notna().to_numpy()
        if unread.any():  # coerced to NaN: name the value given, not the NaN it became
            row, col = np.argwhere(unread)[0]
            raise ValueError(
                f"frame must hold numbers; item {str(frame.index[row])!r}, class "
                f"{str(frame.columns[col])!r} is {plain(frame.iat[row, col])!r}"
            )
        values = numbers.to_numpy(dtype=np.float64)
        return cls(values, items=frame.index, classes=frame.columns, name=name,
                   probabilities=probabilities)

    @classmethod
    def from_labels(
        cls,
        labels: Mapping[Hashable, Hashable | Sequence[Hashable]] | pd.Series,
        *,
        classes: Sequence[Hashable],
        name: str = "labels",
    ) -> Predictions:
        """One-hot probabilities of hard labels (a label set splits the mass evenly over its
        distinct labels): an annotator, or any hard classifier, scored as a classifier.

        Examples
        --------
        >>> Predictions.from_labels({"x": "b", "y": ["a", "b"]}, classes=["a", "b"]).scores
        array([[0. , 1. ],
               [0.5, 0.5]])
        """
        series = pd.Series(labels) if not isinstance(labels, pd.Series) else labels
        class_index = _ids(in_text_order(classes), "class")  # the one-hot columns: a set too
        chosen = [[value] if isinstance(value, str) or not isinstance(value, Iterable) else
                  list(value) for value in series.to_numpy()]
        counts = np.fromiter(map(len, chosen), dtype=np.int64, count=len(chosen))
        if (counts == 0).any():
            raise ValueError(f"item {series.index[int(np.argmax(counts == 0))]!r} has an empty "
                             "label set; give it at least one label")
        # every label looked up at once (a lookup per item: 200,000 items took 63.8 s)
        cols = class_index.get_indexer([str(v) for labels in chosen for v in labels])
        rows = np.repeat(np.arange(len(chosen)), counts)
        if (cols < 0).any():
            row = int(rows[np.argmax(cols < 0)])
            bad = [v for v in chosen[row] if class_index.get_indexer([str(v)])[0] < 0]
            raise ValueError(
                f"label(s) {_show(bad)} of item {series.index[row]!r} are not among the "
                f"classes {_show(class_index)}"
            )
        n_classes = len(class_index)
        # a set names each label once: ["a", "a"] is {a}
        rows, cols = np.divmod(np.unique(rows * n_classes + cols), n_classes)
        matrix = np.zeros((len(chosen), n_classes))
        matrix[rows, cols] = 1.0 / np.bincount(rows, minlength=len(chosen))[rows]
        return cls(matrix, items=series.index, classes=class_index, name=name,
                   probabilities=True)

    # ------------------------------------------------------------------ accessors
    @property
    def scores(self) -> np.ndarray:
        """``(n_items, n_classes)`` scores (read-only), rows in :attr:`items` order."""
        return self._scores

    @property
    def items(self) -> pd.Index:
        """Item ids (str), the row order."""
        return self._items

    @property
    def classes(self) -> tuple[str, ...]:
        """Class names (str), the column order."""
        return tuple(self._classes)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self._items)

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self._classes)

    @property
    def probabilities(self) -> bool:
        """Whether the rows are probability distributions (see the module docstring)."""
        return self._is_probability

    def require_probabilities(self, measure: str) -> None:
        """A ValueError naming ``measure`` when the rows are not probabilities."""
        if not self._is_probability:
            raise ValueError(
                f"measure {measure!r} reads predicted probabilities, and the predictions "
                f"{self.name!r} hold scores: they must {self._problem}"
            )

    def class_index(self, classes: Iterable[Hashable]) -> np.ndarray:
        """Column positions of ``classes`` (-1 for classes not predicted)."""
        return self._classes.get_indexer([str(c) for c in classes])

    def rows(self, items: Iterable[Hashable]) -> np.ndarray:
        """Row positions of ``items``; a ValueError names those not predicted."""
        items = [str(i) for i in items]
        pos = self._items.get_indexer(items)
        if (pos < 0).any():
            lost = [i for i, p in zip(items, pos, strict=True) if p < 0]
            raise ValueError(
                f"the predictions {self.name!r} have no row for {len(lost)} item(s) the "
                f"evaluation needs: {_show(lost)}"
            )
        return pos

    def subset(self, items: Iterable[Hashable]) -> Predictions:
        """The predictions of some items, in the given order (itself when they are its rows
        already, as evaluate() usually asks: no copy of the scores)."""
        rows = self.rows(items)
        if is_identity(rows, self.n_items):
            return self
        out = object.__new__(Predictions)
        scores = self._scores[rows]
        scores.flags.writeable = False
        out._scores, out._items = scores, self._items[rows]
        out._classes, out.name = self._classes, self.name
        out._problem, out._is_probability = self._problem, self._is_probability
        return out

    def to_frame(self) -> pd.DataFrame:
        """The long table ``item_id, class, score`` (one row per pair)."""
        n_items, n_classes = self._scores.shape
        return pd.DataFrame({
            "item_id": np.repeat(self._items.to_numpy(), n_classes),
            "class": np.tile(np.asarray(self._classes, dtype=object), n_items),
            "score": self._scores.ravel(),
        })

    def __len__(self) -> int:
        return self.n_items

    def __repr__(self) -> str:
        kind = "probabilities" if self._is_probability else "scores"
        return (f"Predictions({self.name!r}, {self.n_items} items × {self.n_classes} classes, "
                f"{kind})")


def is_classifier_input(systems: Any) -> bool:
    """Whether ``systems`` (what :func:`~fuzzytruth.evaluation.evaluate` was given) are
    classifiers: a :class:`Predictions` or a mapping holding one, rather than runs (or a list
    holding one, which the classifier path refuses with the mapping that names them).

    Examples
    --------
    >>> p = Predictions([[0.9, 0.1]], items=["x"], classes=["a", "b"])
    >>> is_classifier_input(p), is_classifier_input({"clf": p}), is_classifier_input({})
    (True, True, False)
    """
    if isinstance(systems, Predictions):
        return True
    values = systems.values() if isinstance(systems, Mapping) else systems
    return isinstance(systems, Mapping | list | tuple) and any(
        isinstance(v, Predictions) for v in values
    )
