"""Partial rankings with ties: per item, per reader, an ordered list of tie-groups of classes.

Formats
-------
Selectors (JSON; google-deepmind/uncertain_ground_truth's format)
    A list with one entry per item; an item is a list of readers; a reader is a list of
    tie-groups, best first; a group is a list of class ids (ints ``0 .. n_classes - 1``).
    ``[[[[56]]], [[[342], [120]], [[342]]]]``: item 0 has one reader who named class 56; item
    1 has two readers, the first ranked 342 first and then 120, the second named 342 only.
    The format has no reader ids: reader ``r`` of an item gets ``reader_id`` ``r``, and the
    same ``r`` in two items need not be the same person. A reader with no group (``[]``, the
    padding that ``selectors_utils.pad_selectors`` writes) is skipped.
Long table (CSV, TSV or Parquet)
    One row per (item, reader, class): ``item_id, reader_id, class, rank_group``, with
    ``rank_group`` the 0-based position of the class's tie-group in that reader's ranking.

Rules (both formats): no id or class is missing; class ids must be known classes; within a
reader a class appears once; a reader's groups are numbered ``0 .. G-1`` without gaps; no group
is empty. A malformed file raises a ``ValueError`` on one line naming the file and the line
(JSON: the line where the item starts, and the item and the reader, counted from 0 in the
selectors list); a corrupt Parquet file names the file.

Files go through :func:`fuzzytruth.io.text.read_bytes`: compression recognised from the
content and its decompressed size capped (``max_decompressed_bytes``), a byte-order mark
removed, an ``encoding`` option for text. Written atomically
(:func:`fuzzytruth.io.output.open_output`), compressed by suffix.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._order import ranks, sorted_order
from fuzzytruth._validation import (
    check_columns,
    check_flag,
    check_type,
    numeric_values,
    ordered_ids,
    plain,
    refuse_float_ids,
    text_names,
)
from fuzzytruth.annotations import Annotations
from fuzzytruth.io.delimited import format_of
from fuzzytruth.io.output import open_output
from fuzzytruth.io.parquet import read_parquet_columns, write_parquet
from fuzzytruth.io.tables import read_delimited, write_delimited
from fuzzytruth.io.text import MaxBytes, load_json
from fuzzytruth.taxonomy import Taxonomy, _show

__all__ = ["Rankings", "pair_codes", "read_rankings", "write_rankings"]

_COLUMNS = ["item_id", "reader_id", "class", "rank_group"]
_FORMATS = ("json", "csv", "tsv", "parquet")


@dataclass(frozen=True, eq=False)
class Rankings:
    """Partial rankings with ties, bound to a taxonomy whose nodes include the classes.

    Attributes
    ----------
    frame : pandas.DataFrame
        ``item_id, reader_id, class, rank_group``, sorted by item id, reader id (each by
        value, :func:`fuzzytruth._order.sorted_order`) and rank group, the classes of a
        tie-group in the order given: the order of the readers and items in the input never
        changes a fit on the rankings, to the bit.
    taxonomy : Taxonomy
        Every class is one of its nodes (a flat taxonomy of the classes by default).
    classes : tuple
        The classes rankings may name, in the order given (selector class ids are positions
        in it; the columns of :func:`fuzzytruth.truth.models.irn`).
    anonymous_readers : bool
        Whether the reader ids are positions within each item (selectors have no reader
        ids), so that reader ``r`` of two items need not be one person: the annotator models
        (Dawid–Skene, one-coin, MACE), which estimate each annotator, warn on them.

    Examples
    --------
    >>> r = Rankings.from_selectors([[[[0, 3], [2]], [[1], [0]]], [[[2], [0, 1]]]],
    ...                             classes=["a", "b", "c", "d"])
    >>> r.to_selectors()
    [[[[0, 3], [2]], [[1], [0]]], [[[2], [0, 1]]]]
    >>> r.annotations().to_frame()
       item_id  annotator_id label  weight
    0        0             0     a     0.5
    1        0             0     d     0.5
    2        0             1     b     1.0
    3        1             0     c     1.0
    """

    frame: pd.DataFrame
    taxonomy: Taxonomy
    classes: tuple[Hashable, ...]
    anonymous_readers: bool = False

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        taxonomy: Taxonomy | None = None,
        classes: Sequence[Hashable] | None = None,
        item: str = "item_id",
        reader: str = "reader_id",
        label: str = "class",
        group: str = "rank_group",
        where: np.ndarray | None = None,
        source: str = "rankings",
        anonymous_readers: bool = False,
    ) -> Rankings:
        """Validate a long table (one row per item, reader and class).

        Parameters
        ----------
        frame : pandas.DataFrame
            The table.
        taxonomy : Taxonomy, optional
            Every class must be one of its nodes; default a flat taxonomy of ``classes``.
        classes : sequence, optional
            The classes rankings may name (default: the taxonomy's leaves, or the classes
            found, sorted, when there is no taxonomy).
        item, reader, label, group : str
            Column names.
        where, source : optional
            For messages: the file line of each row and the file's name.
        anonymous_readers : bool
            The reader ids are positions within each item, not people (see the class
            attributes).
        """
        anonymous_readers = check_flag("anonymous_readers", anonymous_readers)
        check_columns(frame, "frame", [], rows=False)
        for arg, col in (("item", item), ("reader", reader), ("label", label),
                         ("group", group)):
            if col not in frame.columns:
                raise ValueError(f"{source}: {arg}={col!r} is not a column; columns are "
                                 f"{list(frame.columns)}")
        if len(frame) == 0:
            raise ValueError(f"{source}: no rankings (the table has no rows)")
        lines = np.arange(1, len(frame) + 1) if where is None else np.asarray(where)
        kind = "row" if where is None else "line"
        for col in (item, reader, label):  # a missing id would be sorted among the others'
            missing = np.flatnonzero(pd.isna(frame[col]).to_numpy())
            if missing.size:
                raise ValueError(f"{source}, {kind} {int(lines[missing[0]])}: {col} must not "
                                 f"be missing; got {plain(frame[col].iloc[missing[0]])!r}")
        groups = numeric_values(pd.Series(frame[group].to_numpy()),
                                f"{source}: {group}").to_numpy(dtype=np.float64)
        # NaN fails the range test; past 2**53 a float holds no exact integer (and 1e20
        # overflowed the cast to int64 below)
        bad = np.flatnonzero(~((groups >= 0) & (groups < 2**53)) | (groups != np.round(groups)))
        if bad.size:
            raise ValueError(f"{source}, {kind} {int(lines[bad[0]])}: {group} must be an integer "
                             f">= 0 (below 2**53); got {plain(frame[group].iloc[bad[0]])!r}")
        taxonomy, classes = _universe(taxonomy, classes, frame[label])
        codes = pd.Index(classes).get_indexer(frame[label])
        bad = np.flatnonzero(codes < 0)
        if bad.size:
            raise ValueError(f"{source}, {kind} {int(lines[bad[0]])}: class "
                             f"{plain(frame[label].iloc[bad[0]])!r} is not a known class")
        table = pd.DataFrame({
            "item_id": frame[item].to_numpy(), "reader_id": frame[reader].to_numpy(),
            "class": np.asarray(classes, dtype=object)[codes],
            "rank_group": groups.astype(np.int64), "_code": codes, "_line": lines,
        })
        item_codes, item_ids = pd.factorize(table["item_id"])
        for given, ids in ((item, item_ids), (reader, pd.unique(table["reader_id"]))):
            refuse_float_ids(ids, f"frame column {given!r}")  # 1.0 reads "1.0": no run's "1"
            if ids.dtype == object:  # ids of several types: 1 and "1" would print alike
                text_names(dict.fromkeys(ids.tolist()), f"frame column {given!r}", "id")
        pair = pair_codes(item_codes, table["reader_id"])
        dup = pd.Series(pair * len(classes) + codes).duplicated().to_numpy()
        if dup.any():
            row = table.iloc[np.flatnonzero(dup)[0]]
            raise ValueError(f"{source}, {kind} {int(row['_line'])}: reader {row['reader_id']!r} "
                             f"ranks class {row['class']!r} twice on item {row['item_id']!r}")
        per = table.groupby(pair)["rank_group"].agg(["max", "nunique"])
        gaps = np.flatnonzero(per["max"].to_numpy() + 1 != per["nunique"].to_numpy())
        if gaps.size:
            row = table.iloc[np.flatnonzero(pair == per.index[gaps[0]])[0]]
            raise ValueError(f"{source}, {kind} {int(row['_line'])}: the rank groups of reader "
                             f"{row['reader_id']!r} on item {row['item_id']!r} must be numbered "
                             "0, 1, ... without gaps")
        canonical = [ranks(sorted_order(uniques))[codes_of] for codes_of, uniques in (
            pd.factorize(table[column]) for column in ("item_id", "reader_id"))]
        order = np.lexsort((table["rank_group"].to_numpy(), canonical[1], canonical[0]))
        table = table.iloc[order].drop(columns=["_code", "_line"]).reset_index(drop=True)
        return cls(table, taxonomy, tuple(classes), anonymous_readers)

    @classmethod
    def from_selectors(
        cls,
        selectors: Sequence[Any],
        *,
        classes: Sequence[Hashable] | int | None = None,
        taxonomy: Taxonomy | None = None,
        items: Sequence[Hashable] | None = None,
        source: str = "selectors",
    ) -> Rankings:
        """Rankings from the nested selectors lists (see the module docstring).

        Parameters
        ----------
        selectors : list
            One entry per item: readers, tie-groups, class ids.
        classes : sequence or int, optional
            Names of the class ids ``0 .. n - 1`` (or their number: the ids themselves are
            the names); default ``0 .. max id``.
        taxonomy : Taxonomy, optional
            Must contain the class names (default: flat).
        items : sequence, optional
            Distinct item ids, one per item (default ``0 .. n_items - 1``).
        source : str
            Name used in messages (the file).
        """
        if not isinstance(selectors, list):
            raise ValueError(f"{source}: selectors must be a list of items; got "
                             f"{type(selectors).__name__}")
        for arg, value in (("classes", classes), ("items", items)):
            number = arg == "classes" and isinstance(value, Integral) and not isinstance(
                value, bool)
            if value is not None and not number and (
                    isinstance(value, str | bytes) or not hasattr(value, "__len__")):
                allowed = "a sequence of names or their number" if arg == "classes" else (
                    "a sequence of ids")
                raise ValueError(f"{arg} must be {allowed}; got {value!r}")
            if value is not None and not number:  # a selector names class i by position
                ordered_ids(value, arg, "of the class ids the selectors use (class i the i-th)"
                            if arg == "classes" else "of the selectors' items")
        if items is not None:
            if len(items) != len(selectors):
                raise ValueError(f"items must give one id per item: {len(items)} ids for "
                                 f"{len(selectors)} items")
            repeated = pd.Index(items)[pd.Index(items).duplicated()]
            if len(repeated):  # two items of one id would merge into one item's rankings
                raise ValueError(f"items must be distinct ids; got {repeated[0]!r} more than "
                                 "once")
            refuse_float_ids(items, "items")
            text_names(dict.fromkeys(items), "items", "item")  # 1 and "1": one id as text
        rows = _flatten(selectors, source)
        ids = np.array([r[3] for r in rows], dtype=np.int64) if rows else np.empty(0, np.int64)
        if isinstance(classes, Integral) and not isinstance(classes, bool):
            classes = list(range(int(classes)))
        if classes is None:
            classes = list(range(int(ids.max(initial=-1)) + 1))
        n = len(classes)
        bad = np.flatnonzero(ids >= n)
        if bad.size:
            item_pos, reader_pos = rows[bad[0]][0], rows[bad[0]][1]
            raise _SelectorError(source, item_pos, reader_pos, f"class id {int(ids[bad[0]])} "
                                 f"is not below the number of classes ({n})")
        item_ids = np.arange(len(selectors)) if items is None else np.asarray(items, dtype=object)
        frame = pd.DataFrame({
            "item_id": item_ids[[r[0] for r in rows]] if rows else [],
            "reader_id": [r[1] for r in rows],
            "class": np.asarray(classes, dtype=object)[ids] if rows else [],
            "rank_group": [r[2] for r in rows],
        })
        return cls.from_frame(frame, taxonomy=taxonomy, classes=classes, source=source,
                              anonymous_readers=True)

    # ------------------------------------------------------------------ views
    @property
    def items(self) -> pd.Index:
        """Item ids, sorted (see :attr:`frame`)."""
        return pd.Index(pd.unique(self.frame["item_id"]), name="item_id")

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    def codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Integer codes ``(item, reader_in_item, class, rank_group)`` per row; ``item``
        indexes :attr:`items`, ``class`` indexes :attr:`classes`."""
        item = pd.Index(self.items).get_indexer(self.frame["item_id"])
        pair = pair_codes(item, self.frame["reader_id"])
        first = np.r_[0, np.flatnonzero(np.diff(item)) + 1]
        reader = pair - pair[first][np.repeat(np.arange(len(first)), np.diff(np.r_[first,
                                                                                 len(item)]))]
        label = pd.Index(self.classes).get_indexer(self.frame["class"])
        return item, reader, label, self.frame["rank_group"].to_numpy()

    def to_frame(self) -> pd.DataFrame:
        """The long table ``item_id, reader_id, class, rank_group``."""
        return self.frame.copy()

    def to_selectors(self) -> list:
        """The nested selectors lists, class ids as positions in :attr:`classes`."""
        item, _, label, group = self.codes()
        readers = pair_codes(item, self.frame["reader_id"])
        out: list = [[] for _ in range(self.n_items)]
        current: dict = {}
        for i, r, c, g in zip(item.tolist(), readers.tolist(), label.tolist(), group.tolist(),
                              strict=True):
            ranking = current.get(r)
            if ranking is None:
                ranking = current[r] = []
                out[i].append(ranking)
            if len(ranking) <= g:
                ranking.append([])
            ranking[g].append(c)
        return out

    def annotations(self) -> Annotations:
        """Each reader's top group as that reader's labels.

        A reader whose top group holds k classes gives each one weight 1/k (the ``"split"``
        duplicate policy of :class:`~fuzzytruth.annotations.Annotations`: the reader's vote is
        shared, an ancestor common to the k classes gets the whole vote once). The annotator
        id is the reader id; the ranks below the top group are not in the annotations (they
        stay here).
        """
        top = self.frame[self.frame["rank_group"] == 0]
        return Annotations.from_frame(
            top.rename(columns={"reader_id": "annotator_id", "class": "label"}),
            taxonomy=self.taxonomy, duplicates="split",
        )

    def __repr__(self) -> str:
        n_readers = self.frame.groupby("item_id", sort=False)["reader_id"].nunique().sum()
        return (f"Rankings({self.n_items} items, {n_readers} reader rankings, "
                f"{len(self.classes)} classes)")


def pair_codes(first: Any, second: Any) -> np.ndarray:
    """Codes (int64) of the pairs ``(first[i], second[i])``, numbered in order of first
    appearance (as ``pandas.factorize`` numbers a MultiIndex of them, which builds a tuple
    per row: 64 ms a call at 110,000 rows): each side factorised, then the pairs as one
    integer.

    Examples
    --------
    >>> pair_codes(np.array([0, 0, 1, 0]), ["r", "s", "r", "r"]).tolist()
    [0, 1, 2, 0]
    """
    a = pd.factorize(pd.Series(first))[0].astype(np.int64)
    b, b_uniques = pd.factorize(pd.Series(second))
    return pd.factorize(a * max(len(b_uniques), 1) + b)[0].astype(np.int64)


def _universe(taxonomy, classes, found) -> tuple[Taxonomy, list]:
    if classes is None:
        classes = list(taxonomy.leaves) if taxonomy is not None else sorted(pd.unique(found))
    classes = list(classes)
    if pd.Index(classes).has_duplicates:
        raise ValueError("classes must be distinct")
    if taxonomy is None:
        taxonomy = Taxonomy.flat(classes)
    missing = [c for c in classes if c not in taxonomy]
    if missing:
        raise ValueError(f"classes {_show(missing)} are not nodes of the taxonomy")
    return taxonomy, classes


class _SelectorError(ValueError):
    """A malformed selectors list: where (item, and reader when known) and what."""

    def __init__(self, source: str, item: int, reader: int | None, detail: str) -> None:
        self.item, self.detail = item, detail
        self.place = f"item {item}" + ("" if reader is None else f", reader {reader}")
        super().__init__(f"{source}, {self.place}: {detail} (items and readers counted from 0)")


def _flatten(selectors: list, source: str) -> list[tuple[int, int, int, int]]:
    """``(item, reader, group, class id)`` rows of the selectors, checked."""
    rows = []
    for i, readers in enumerate(selectors):
        if not isinstance(readers, list):
            raise _SelectorError(source, i, None,
                                 f"expected a list of readers; got {reprlib.repr(readers)}")
        kept = 0
        for r, ranking in enumerate(readers):
            if not isinstance(ranking, list):
                raise _SelectorError(source, i, r, "expected a list of tie-groups; got "
                                     f"{reprlib.repr(ranking)}")
            if not ranking:
                continue  # padding reader
            seen: set = set()
            for g, group in enumerate(ranking):
                if not isinstance(group, list) or not group:
                    raise _SelectorError(source, i, r, f"tie-group {g} must be a non-empty "
                                         f"list of class ids; got {reprlib.repr(group)}")
                for c in group:
                    if isinstance(c, bool) or not isinstance(c, Integral) or c < 0:
                        raise _SelectorError(source, i, r, "class ids must be integers >= 0; "
                                             f"got {c!r}")
                    if c in seen:
                        raise _SelectorError(source, i, r,
                                             f"class {c} appears twice in one ranking")
                    seen.add(c)
                    rows.append((i, kept, g, int(c)))
            kept += 1
        if kept == 0:
            raise _SelectorError(source, i, None, "no reader ranked anything")
    return rows


def _item_line(text: str, item: int) -> int:
    """The line of ``text`` (valid JSON, a list) on which the list's entry ``item`` starts."""
    decoder = json.JSONDecoder()
    space = re.compile(r"[ \t\n\r]*")
    at = space.match(text, text.index("[") + 1).end()
    for _ in range(item):
        at = space.match(text, decoder.raw_decode(text, at)[1]).end() + 1  # past the comma
        at = space.match(text, at).end()
    return text.count("\n", 0, at) + 1


def read_rankings(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    classes: Sequence[Hashable] | int | None = None,
    taxonomy: Taxonomy | None = None,
    encoding: str = "utf-8",
    max_decompressed_bytes: MaxBytes = "auto",
) -> Rankings:
    """Read partial rankings: selectors JSON, or a long CSV/TSV/Parquet table.

    Parameters
    ----------
    path : path-like
        The file (compression recognised from the content).
    format : {"json", "csv", "tsv", "parquet"}, optional
        Overrides the suffix.
    classes : sequence or int, optional
        JSON: names of the class ids (see :meth:`Rankings.from_selectors`); tables: the classes
        rankings may name.
    taxonomy : Taxonomy, optional
        Must contain the classes.
    encoding : str
        Encoding of a text file without a byte-order mark.
    max_decompressed_bytes : int, "auto" or None, default "auto"
        Cap on the content of a compressed file (:func:`fuzzytruth.io.text.read_bytes`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sel.json"
    >>> _ = path.write_text("[[[[1], [0]], [[1]]], [[[0, 1]]]]")
    >>> read_rankings(path, classes=["flu", "cold"]).to_frame()
      item_id  reader_id class  rank_group
    0       0          0  cold           0
    1       0          0   flu           1
    2       0          1  cold           0
    3       1          0   flu           0
    4       1          0  cold           0
    >>> _ = path.write_text("[[[[1], [0]]],\\n [[[0, 0]]]]")
    >>> read_rankings(path, classes=["flu", "cold"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...sel.json, line 2, item 1, reader 0: class 0 appears twice in one ranking ...
    """
    fmt = format_of(path, format, _FORMATS)
    name = os.fspath(path)
    if fmt == "json":
        data, text = load_json(
            name, encoding=encoding, max_decompressed_bytes=max_decompressed_bytes,
            expected="selectors such as [[[[56]], [[342], [120]]]]",
            too_deep="selectors nest 4 levels (items, readers, tie-groups, class ids); this "
            "file nests far deeper",
        )
        try:
            return Rankings.from_selectors(data, classes=classes, taxonomy=taxonomy,
                                           source=name)
        except _SelectorError as err:
            raise ValueError(f"{name}, line {_item_line(text, err.item)}, {err.place}: "
                             f"{err.detail} (items and readers counted from 0)") from None
    if fmt == "parquet":
        frame = read_parquet_columns(name, _COLUMNS, max_decompressed_bytes)
    else:
        frame = read_delimited(name, delimiter="," if fmt == "csv" else "\t",
                               required=_COLUMNS, encoding=encoding,
                               max_decompressed_bytes=max_decompressed_bytes)
    return Rankings.from_frame(frame, taxonomy=taxonomy, classes=classes, source=name,
                               where=frame.attrs["lines"])


def write_rankings(rankings: Rankings, path: str | os.PathLike, *,
                   format: str | None = None) -> None:
    """Write rankings as selectors JSON (class ids = positions in ``rankings.classes``; item
    and reader ids are not kept) or as a long table; round-trips with :func:`read_rankings`.
    Written atomically, compressed by suffix; ids that a table would not read back (see
    :mod:`fuzzytruth.io.delimited`; an empty one in Parquet) are a ValueError."""
    check_type(rankings, "rankings", Rankings)
    fmt = format_of(path, format, _FORMATS)
    if fmt == "json":
        with open_output(path) as handle:
            json.dump(rankings.to_selectors(), handle)
            handle.write("\n")
    elif fmt == "parquet":
        write_parquet(rankings.to_frame(), path, numbers=("rank_group",))
    else:
        write_delimited(rankings.to_frame().astype({"class": str}), path, fmt,
                        ["item_id", "reader_id", "class"])
