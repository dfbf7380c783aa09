"""Reading and writing a classifier's predictions (:class:`~fuzzytruth.classify.Predictions`).

Formats
-------
Long table (``.csv``, ``.tsv``, ``.parquet``)
    ``item_id, class, score``: one row per (item, class); every item scores every class.
Wide table (``.csv``, ``.tsv``, ``.parquet``)
    ``item_id`` then one column per class (the header names the classes), one row per item.
NumPy (``.npy``, ``.npz``)
    ``.npy``: the ``(n_items, n_classes)`` matrix; ``classes`` must be given (a list, or a text
    file with one class per line), ``items`` may be (default ``0 .. n-1``). ``.npz``: an array
    ``scores`` (or ``probabilities``, or the archive's only 2-D array) with ``classes`` and
    optionally ``items`` arrays in the archive (or given).

``layout="auto"`` reads a table as long when its header names the item, class and score
columns, and as wide otherwise. CSV/TSV files go through the shared reader
(:func:`fuzzytruth.io.delimited.read_delimited`: compression from the content and its cap,
``#`` comments, an ``encoding`` option); every refusal names the file and line (a value that
is not a finite number, a repeated (item, class) pair, an item without a score for some
class).

Examples
--------
>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "net.csv"
>>> _ = path.write_text("item_id,cat,dog\\nx,0.9,0.1\\ny,0.2,0.8\\n")
>>> read_predictions(path)
Predictions('net', 2 items × 2 classes, probabilities)
>>> _ = path.write_text("item_id,class,score\\nx,cat,0.9\\nx,dog,oops\\n")
>>> read_predictions(path)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: ...net.csv, line 3: column 'score' must hold finite numbers; got 'oops'
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_type
from fuzzytruth.classify.predictions import Predictions, column_ids
from fuzzytruth.io.delimited import finite_numbers, format_of, read_delimited, write_delimited
from fuzzytruth.io.numpy_files import npy_array, npz_arrays
from fuzzytruth.io.output import open_output
from fuzzytruth.io.parquet import read_parquet_frame
from fuzzytruth.io.text import MaxBytes, read_bytes, read_names, shown
from fuzzytruth.taxonomy import _show

__all__ = ["LAYOUTS", "read_predictions", "write_predictions"]

LAYOUTS = ("auto", "long", "wide")
_FORMATS = ("csv", "tsv", "parquet", "npy", "npz")


def read_predictions(
    path: str | os.PathLike,
    *,
    layout: str = "auto",
    format: str | None = None,
    item: str = "item_id",
    cls: str = "class",
    score: str = "score",
    classes: Sequence[Hashable] | str | os.PathLike | None = None,
    items: Sequence[Hashable] | str | os.PathLike | None = None,
    name: str | None = None,
    probabilities: bool | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Predictions:
    """Read one classifier's predictions (module docstring for the formats).

    Parameters
    ----------
    path : path-like
        The file.
    layout : {"auto", "long", "wide"}
        How a table is laid out.
    format : {"csv", "tsv", "parquet", "npy", "npz"}, optional
        Overrides the suffix (a compression suffix such as ``.gz`` is looked through).
    item, cls, score : str
        Column names of the item ids, the classes (long tables) and the scores.
    classes : sequence or path-like, optional
        The classes of a NumPy matrix's columns (or a text file, one per line); for a long
        table, the order (and the set) of the classes; for a wide table, the order of its
        class columns (each named once).
    items : sequence or path-like, optional
        The item ids of a NumPy matrix's rows (or a text file, one per line; default: the
        ``items`` array of an ``.npz``, else ``0 .. n-1``).
    name : str, optional
        The classifier's name (default: the file name without its suffixes).
    probabilities : bool, optional
        As :class:`~fuzzytruth.classify.Predictions` (None: decided from the values).
    encoding : str
        Encoding of a text file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None
        Cap on what a compressed file may inflate to
        (:func:`fuzzytruth.io.text.read_bytes`); for a ``.npz`` archive, on what its members
        declare they inflate to (:mod:`fuzzytruth.io.numpy_files`).

    Returns
    -------
    Predictions
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {list(LAYOUTS)}; got {layout!r}")
    fmt = format_of(path, format, _FORMATS)
    where = os.fspath(path)
    name = name or Path(where).name.split(".")[0]
    try:
        if fmt in ("npy", "npz"):
            # an .npz is itself a zip archive: read as it is; an .npy may be compressed
            data = read_bytes(where, max_decompressed_bytes=max_decompressed_bytes) \
                if fmt == "npy" else Path(where).read_bytes()
            return _read_numpy(where, data, fmt, classes, items, name, probabilities, encoding,
                               max_decompressed_bytes)
        if items is not None:
            raise ValueError(f"items applies to a NumPy matrix (.npy, .npz) only; a table "
                             f"names its items in its {item!r} column")
        if fmt == "parquet":
            frame = read_parquet_frame(where, max_decompressed_bytes)
            lines = np.arange(len(frame)) + 1
            unit = "row"
        else:
            frame = read_delimited(where, delimiter="," if fmt == "csv" else "\t",
                                   required=[item], encoding=encoding,
                                   max_decompressed_bytes=max_decompressed_bytes)
            lines = frame.attrs["lines"]
            unit = "line"
    except ValueError as err:
        raise ValueError(str(err) if where in str(err) else f"{where}: {err}") from None
    long = {item, cls, score} <= set(frame.columns)
    order = _class_list(classes, encoding)
    if layout == "long" or (layout == "auto" and long):
        return _long(frame, where, lines, unit, item, cls, score, order, name, probabilities)
    try:
        return _wide(frame, where, lines, unit, item, order, name, probabilities)
    except ValueError as err:
        if layout == "wide" or not _holds_text(frame, item):
            raise
        raise ValueError(  # a long table under other column names, most likely
            f"{err} (read as a wide table, one column per class: the header does not name a "
            f"long table's columns {[item, cls, score]})"
        ) from None


def _holds_text(frame: pd.DataFrame, item: str) -> bool:
    """Whether a column besides ``item`` starts with a value that is no number (a class name,
    as a long table's class column holds), not a NaN or an infinity."""
    def number(value: object) -> bool:
        try:
            float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return True

    return len(frame) > 0 and not all(number(frame[c].iloc[0]) for c in frame.columns
                                      if c != item)


def _numbers(frame: pd.DataFrame, column: str, where: str, lines: np.ndarray,
             unit: str) -> np.ndarray:
    if frame[column].dtype.kind in "fiub":
        values = frame[column].to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(
                f"{where}, {unit} {int(lines[bad[0]])}: column {column!r} must hold finite "
                f"numbers; got {values[bad[0]]!r}"
            )
        return values
    frame.attrs["lines"] = lines
    try:
        return finite_numbers(frame, column, where)
    except ValueError as err:
        raise ValueError(str(err).replace(", line ", f", {unit} ")) from None


def _long(frame: pd.DataFrame, where: str, lines: np.ndarray, unit: str, item: str, cls: str,
          score: str, classes: list[str] | None, name: str,
          probabilities: bool | None) -> Predictions:
    missing = [c for c in (item, cls, score) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{where}: a long table needs the columns {[item, cls, score]}; missing {missing} "
            f"(found {list(frame.columns)})"
        )
    values = _numbers(frame, score, where, lines, unit)
    try:
        return Predictions._from_long(
            frame[item], frame[cls], values,
            name=name, probabilities=probabilities,
            classes=classes,
            rows=lambda i: f"{where}, {unit} {int(lines[i])}",
        )
    except ValueError as err:
        raise ValueError(str(err) if where in str(err) else f"{where}: {err}") from None


def _wide(frame: pd.DataFrame, where: str, lines: np.ndarray, unit: str, item: str,
          order: list[str] | None, name: str, probabilities: bool | None) -> Predictions:
    if item not in frame.columns:
        raise ValueError(
            f"{where}: a wide table needs an item column {item!r} (then one column per class); "
            f"found {list(frame.columns)}"
        )
    classes = [c for c in frame.columns if c != item]
    if not classes:
        raise ValueError(f"{where}: a wide table needs one column per class after {item!r}")
    if order is not None:  # the order of the class columns (an ordinal scale's, say)
        if sorted(order) != sorted(map(str, classes)):
            raise ValueError(
                f"{where}: classes must name the table's class columns, each once, in the "
                f"order wanted; got {_show(order)} for the columns {_show(classes)}"
            )
        by_name = dict(zip(map(str, classes), classes, strict=True))
        classes = [by_name[c] for c in order]
    matrix = np.column_stack([_numbers(frame, c, where, lines, unit) for c in classes])
    try:
        codes, text = column_ids(frame[item], "item",
                                 lambda i: f"{where}, {unit} {int(lines[i])}")
    except ValueError as err:
        raise ValueError(str(err) if where in str(err) else f"{where}: {err}") from None
    ids = text[codes]  # a parquet file's integers as their text, its floats refused
    repeated = pd.Series(codes).duplicated().to_numpy()
    if repeated.any():
        row = int(np.argmax(repeated))
        raise ValueError(f"{where}, {unit} {int(lines[row])}: item {ids[row]!r} has a second "
                         "row")
    try:
        return Predictions(matrix, items=ids, classes=classes, name=name,
                           probabilities=probabilities)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def _class_list(classes: object, encoding: str) -> list[str] | None:
    """Names given as a sequence, or as a text file with one per line (classes, item ids)."""
    if classes is None:
        return None
    if isinstance(classes, str | os.PathLike):
        return read_names(classes, encoding=encoding)
    return [str(c) for c in classes]


def _read_numpy(where: str, data: bytes, fmt: str, classes: object, items: object, name: str,
                probabilities: bool | None, encoding: str,
                max_decompressed_bytes: MaxBytes) -> Predictions:
    class_list = _class_list(classes, encoding)
    if isinstance(items, str | os.PathLike):
        items = _class_list(items, encoding)
    if fmt == "npy":
        loaded = npy_array(where, data)
    else:
        arrays = npz_arrays(where, data, max_decompressed_bytes)
    if fmt == "npy":
        matrix = loaded
        stored_items = None
    else:
        key = next((k for k in ("scores", "probabilities") if k in arrays), None)
        if key is None:
            matrices = [k for k, a in arrays.items() if a.ndim == 2]
            if len(matrices) != 1:
                raise ValueError(
                    f"{where}: expected an array 'scores' (or 'probabilities', or a single 2-D "
                    f"array); found {sorted(arrays)}"
                )
            key = matrices[0]
        matrix = arrays[key]
        if class_list is None and "classes" in arrays:
            class_list = [str(c) for c in arrays["classes"]]
        stored_items = arrays.get("items")
    if matrix.ndim != 2:
        raise ValueError(f"{where}: expected a 2-D (items × classes) array; got shape "
                         f"{matrix.shape}")
    if class_list is None:
        raise ValueError(
            f"{where}: a NumPy matrix does not name its classes; give them (argument "
            "'classes', or --prediction-classes: a list, or a text file with one class per "
            "line)" + (" or store a 'classes' array in the .npz" if fmt == "npz" else "")
        )
    if items is None:
        items = stored_items if stored_items is not None else np.arange(matrix.shape[0])
    if len(class_list) != matrix.shape[1] or len(items) != matrix.shape[0]:
        raise ValueError(
            f"{where}: the matrix is {matrix.shape[0]} items × {matrix.shape[1]} classes; got "
            f"{len(items)} item ids and {len(class_list)} classes"
        )
    return Predictions(matrix, items=list(items), classes=class_list, name=name,
                       probabilities=probabilities)


def write_predictions(
    predictions: Predictions, path: str | os.PathLike, *, layout: str = "long",
    format: str | None = None,
) -> None:
    """Write predictions as a long or wide table (CSV, TSV, Parquet) or a ``.npz`` archive
    (``scores``, ``classes``, ``items``); :func:`read_predictions` reads them back, and names
    it would not give back as they are (a class that is not a valid CSV/TSV header name in a
    wide table, an id ending in a NUL character in ``.npz``) are a ValueError. Written
    atomically, compressed by suffix (tables).

    Examples
    --------
    >>> import tempfile, os
    >>> p = Predictions([[0.5, 0.5]], items=["x"], classes=["a", "b"], name="net")
    >>> path = os.path.join(tempfile.mkdtemp(), "net.npz")
    >>> write_predictions(p, path)
    >>> read_predictions(path).scores.tolist()
    [[0.5, 0.5]]
    """
    check_type(predictions, "predictions", Predictions,
               ": a table is Predictions.from_frame(...) (long: item, class, score rows) or "
               "Predictions.from_wide(...) (a column per class) of it"
               if isinstance(predictions, pd.DataFrame) else "")
    if layout not in ("long", "wide"):
        raise ValueError(f"layout must be 'long' or 'wide'; got {layout!r}")
    fmt = format_of(path, format, ("csv", "tsv", "parquet", "npz"))
    if fmt == "npz":
        for what, labels in (("item", predictions.items), ("class", predictions.classes)):
            dropped = [v for v in map(str, labels) if v.endswith("\0")]
            if dropped:
                raise ValueError(
                    f"{what} {shown(dropped[0])} ends in a NUL character, which a .npz archive "
                    "drops (NumPy text arrays); write a CSV, TSV or Parquet file instead"
                )
        with open_output(path, binary=True) as handle:
            np.savez(handle, scores=predictions.scores,
                     classes=np.asarray(predictions.classes, dtype=str),
                     items=np.asarray(predictions.items, dtype=str))
        return
    if layout == "long":
        frame = predictions.to_frame()
        ids = ["item_id", "class"]
    else:
        names = set(map(str, predictions.classes))
        if "item_id" in names or {"class", "score"} <= names:
            raise ValueError(
                "a wide table with a class named 'item_id', or classes named 'class' and "
                "'score', would not read back (its header would name the item column, or those "
                "of a long table); write layout='long' instead"
            )
        frame = pd.DataFrame(predictions.scores, columns=list(predictions.classes))
        frame.insert(0, "item_id", predictions.items.to_numpy())
        ids = ["item_id"]
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        with open_output(path, binary=True) as handle:  # atomic, scores keep their type
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), handle)
    else:
        write_delimited(frame, path, fmt, ids)
