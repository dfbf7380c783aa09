"""Probabilistic membership p(category | item), closed over ancestors (Santini eq. 6–9)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._order import code_order
from fuzzytruth._resampling import block_rows, row_chunks
from fuzzytruth._scaling import binary_exponent
from fuzzytruth._validation import (
    by_labels,
    check_columns,
    check_flag,
    check_real,
    check_table_fits,
    id_list,
    id_text,
    ids_text,
    ordered_ids,
    plain,
    probability_tolerance,
    real_array,
    refuse_float_ids,
    text_names,
)
from fuzzytruth.annotations import Annotations, labels_hint
from fuzzytruth.taxonomy import Taxonomy, _show
from fuzzytruth.truth.categorical import CategoricalTruth
from fuzzytruth.truth.protocol import TruthKind, TruthOptions

__all__ = ["Membership"]


def _check_dense_fits(n_items: int, n_nodes: int, memory: float | None = None) -> None:
    """A membership is two dense (items x nodes) float tables (the closed probabilities and
    the direct shares): an error naming their size when they cannot fit in ``memory``
    (default: the physical memory), where numpy's MemoryError named an array shape only.

    >>> _check_dense_fits(100_000, 50_001, memory=24e9)
    Traceback (most recent call last):
    ...
    ValueError: a membership of 100000 items x 50001 taxonomy nodes is two dense tables of \
80 GB, more than the 24 GB of memory
    """
    check_table_fits(16.0 * n_items * n_nodes,
                     f"a membership of {n_items} items x {n_nodes} taxonomy nodes is two dense "
                     "tables", memory=memory)


class Membership(ReadOnlyArrays):
    """p(ω | item) for every item and every node ω of a taxonomy.

    Definition (Santini eq. 6–8, DESIGN.md): p(ω|q) is the share of the annotators of item q
    whose label is ω or a descendant of ω. Annotators may differ per item; each annotator's
    vote is weighted by its annotator weight (1 by default). In a DAG an annotator counts once
    for each ancestor, however many paths lead there. The root always has probability 1.

    Alongside the closed probabilities, :attr:`direct` keeps the share of annotators who chose
    each node *directly* (it sums to 1 over nodes for each item); it is the default weight of
    a query's category mixture (:func:`fuzzytruth.precision_distribution`).

    Memory: a Membership holds two dense ``(n_items, n_nodes)`` float64 matrices,
    :attr:`matrix` and :attr:`direct` (one when it was given already closed): 16 bytes per
    item and node, 3.1 GB for 20,000 items over 9,841 nodes. The constructor copies the
    arrays it is given, checks that the root's column is 1 and, given ``direct``, that each
    item's direct shares sum to 1 and that ``matrix`` is their closure over ancestors (within
    1e-9); a DataFrame's rows and columns are matched to the items and the taxonomy's nodes
    by its labels (:func:`~fuzzytruth._validation.by_labels`; pandas' default labels: by
    position). The ``from_*`` constructors build theirs and keep them without a copy, and close
    the direct shares over ancestors by
    :meth:`Taxonomy.close_over_ancestors <fuzzytruth.Taxonomy.close_over_ancestors>`,
    sparse, so that building one takes little more than the two matrices.

    Examples
    --------
    Santini's Figure 1 image: 5 subjects, people ×2, crowd ×1, city ×2.

    >>> tax = Taxonomy.from_nested({"all": {"people": ["single", "group", "crowd"],
    ...                                     "scenery": ["city", "countryside"]}})
    >>> df = pd.DataFrame({"item_id": "img01", "annotator_id": list("abcde"),
    ...                    "label": ["people", "people", "crowd", "city", "city"]})
    >>> mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=tax))
    >>> mem.probability("img01", "people")
    0.6
    >>> mem.to_frame().query("category == 'crowd'")[["item_id", "probability"]]
      item_id  probability
    5   img01          0.2
    """

    def __init__(
        self,
        taxonomy: Taxonomy,
        items: Iterable[Hashable],
        matrix: np.ndarray,
        direct: np.ndarray | None = None,
    ) -> None:
        self._hold(taxonomy, items, matrix, direct, copy=True)

    @classmethod
    def _owning(
        cls, taxonomy: Taxonomy, items: Iterable[Hashable], matrix: np.ndarray,
        direct: np.ndarray | None,
    ) -> Membership:
        """A Membership holding ``matrix`` and ``direct`` themselves, checked as the
        constructor checks them: float64 arrays a ``from_*`` constructor has just built and
        hands over (no copy of two ``(n_items, n_nodes)`` matrices)."""
        out = cls.__new__(cls)
        out._hold(taxonomy, items, matrix, direct, copy=False)
        return out

    def _hold(
        self, taxonomy: Taxonomy, items: Iterable[Hashable], matrix: np.ndarray,
        direct: np.ndarray | None, *, copy: bool,
    ) -> None:
        # a tuple is one id (Annotations take it so), not the levels of a MultiIndex
        items = pd.Index(list(ordered_ids(items, "items")), name="item_id",
                         tupleize_cols=False)
        missing = items.isna()
        if missing.any():  # as Annotations refuse them: None, NaN, pd.NA name no item
            raise ValueError(
                f"item ids must not be missing values; got {plain(items[missing][0])!r} at "
                f"position {int(missing.argmax())}"
            )
        if items.has_duplicates:
            raise ValueError(f"duplicate item ids: {_show(items[items.duplicated()].tolist())}")
        refuse_float_ids(items, "item ids")  # 1.0 reads "1.0": no run's document "1"
        if items.inferred_type not in ("string", "integer", "empty"):  # ids of several types
            text_names(dict.fromkeys(items), "items", "item")  # 1 and "1": one id as text
        nodes = ("taxonomy nodes", taxonomy.nodes)
        matrix = real_array(by_labels(matrix, "matrix", rows=("items", items), columns=nodes),
                            "matrix", copy=copy)
        shape = (len(items), len(taxonomy))
        if matrix.shape != shape:
            raise ValueError(
                f"matrix must have shape (n_items, n_nodes) = {shape}; got {matrix.shape}"
            )
        if (
            not np.all(np.isfinite(matrix))
            or matrix.min(initial=0) < 0
            or matrix.max(initial=0) > 1
        ):
            raise ValueError("membership probabilities must be finite and within [0, 1]")
        root = matrix[:, taxonomy.index(taxonomy.root)]
        if copy and len(root) and not (root == 1.0).all():  # the from_* constructors set it
            at = int(np.argmax(root != 1.0))
            raise ValueError(
                f"matrix must give the root {taxonomy.root!r} probability 1 (every item is in "
                f"the root category); got {float(root[at])!r} for item {items[at]!r}"
            )
        if direct is not None:
            direct = real_array(by_labels(direct, "direct", rows=("items", items),
                                          columns=nodes), "direct", copy=copy)
            if direct.shape != shape:
                raise ValueError(f"direct must have shape {shape}; got {direct.shape}")
            if copy:  # given by a caller; the from_* constructors build both consistently
                _check_direct(taxonomy, items, matrix, direct)
            direct.flags.writeable = False
        elif copy:  # closed probabilities given alone: a child never above its parent
            check_closed(taxonomy, items, matrix, "matrix")
        matrix.flags.writeable = False
        self._taxonomy = taxonomy
        self._items = items
        self._matrix = matrix
        self._direct = direct

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_annotations(cls, annotations: Annotations) -> Membership:
        """Shares of annotators, closed over ancestors (Santini eq. 6–8).

        Annotator weights of ``annotations`` are applied; an item whose annotators all have
        weight 0 is an error.
        """

        if not isinstance(annotations, Annotations):
            raise ValueError(f"annotations must be an Annotations; got "
                             f"{type(annotations).__name__}{labels_hint(annotations)}")
        tax = annotations.taxonomy
        _check_dense_fits(annotations.n_items, len(tax))
        votes = weighted_votes(annotations)
        matrix, totals = closed_shares(tax, votes)
        row = np.repeat(np.arange(votes.shape[0]), np.diff(votes.indptr))
        direct = np.zeros(votes.shape)
        direct[row, votes.indices] = votes.data / totals[row]
        return cls._owning(tax, annotations.items, matrix, direct)

    @classmethod
    def from_labels(
        cls, labels: Mapping[Hashable, Hashable] | pd.Series, *, taxonomy: Taxonomy
    ) -> Membership:
        """The crisp case: one label per item gives probabilities exactly 0 or 1.

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"a": ["a1"], "b": None}})
        >>> Membership.from_labels({"x": "a1", "y": "b"}, taxonomy=tax).matrix.tolist()
        [[1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]
        """
        from scipy import sparse

        _check_taxonomy(taxonomy)
        if labels is None or not hasattr(labels, "__len__") or not len(labels):
            raise ValueError("labels must give at least one item its label, as {item: label} "
                             f"or a Series indexed by item; got {labels!r}")
        series = pd.Series(labels)
        several = [i for i, v in series.items() if isinstance(v, list | set | np.ndarray)
                   or (isinstance(v, tuple) and v not in taxonomy)]  # a tuple may be a node
        if several:
            raise ValueError(
                f"labels must give one label per item (the crisp case); item {several[0]!r} has "
                f"{series[several[0]]!r}: several labels of an item are annotations "
                "(Membership.from_annotations)"
            )
        _check_dense_fits(len(series), len(taxonomy))
        cols = taxonomy.indices(series.to_numpy())
        direct = np.zeros((len(series), len(taxonomy)))
        direct[np.arange(len(series)), cols] = 1.0
        labels = sparse.csr_array((np.ones(len(cols)), (np.arange(len(cols)), cols)),
                                  shape=direct.shape)
        matrix = taxonomy.close_over_ancestors(labels, dense=True)
        return cls._owning(taxonomy, series.index, matrix, direct)

    @classmethod
    def from_probabilities(
        cls,
        table: pd.DataFrame,
        *,
        taxonomy: Taxonomy | None = None,
        close: bool = True,
    ) -> Membership:
        """Membership from an item × category probability table (any outside label model).

        Parameters
        ----------
        table : pandas.DataFrame
            Index: item ids; columns: categories, one column each; values in [0, 1] (for
            example posteriors of a crowd-labelling model over the leaves).
        taxonomy : Taxonomy, optional
            Categories must be its nodes. Without it, a flat taxonomy ``"all" -> columns`` is
            built (the columns must not include ``"all"``).
        close : bool
            When True (default), the table gives *direct* shares, which must sum to 1 per item
            over the columns (within 1e-9; columns of float32 or float16, a label model's
            single-precision posteriors, within their dtype's sqrt(eps), then divided by
            their sum in float64); they are closed over ancestors as annotator shares are. When
            False, the table is already p(ω|item) for each column (e.g. independent
            per-category relevance probabilities); missing nodes get 0, the root 1, and no
            direct shares are kept.

        Examples
        --------
        >>> t = pd.DataFrame({"cat": [0.7, 0.0], "dog": [0.3, 1.0]}, index=["x", "y"])
        >>> Membership.from_probabilities(t).probability("x", "all")
        1.0
        """
        close = check_flag("close", close)
        if isinstance(table, Mapping):  # {item: {category: p}}, as a label model may give
            raise ValueError("table must be a pandas DataFrame; got "
                             f"{type(table).__name__}: a mapping of item to {{category: "
                             "probability} becomes one with pd.DataFrame.from_dict(table, "
                             "orient='index').fillna(0.0)")
        check_columns(table, "table", [], rows=False)
        if taxonomy is not None:
            _check_taxonomy(taxonomy, "or None for a flat taxonomy of the columns")
        if taxonomy is None:
            if "all" in table.columns:
                raise ValueError("a flat taxonomy is rooted at 'all': rename that column")
            taxonomy = Taxonomy.from_edges([("all", c) for c in table.columns])
        try:
            cols = taxonomy.indices(table.columns)
        except ValueError:  # a column of text that is no category: the items, a long table
            if _not_numeric(table):
                raise _text_columns_error(table) from None
            raise
        # two columns on one node (a repeated name, or 1 and 1.0) would be written over one
        # another, the last one kept
        again = pd.Index(cols).duplicated()
        if again.any():
            raise ValueError(
                "table must have one column per category; got several columns for category "
                f"{taxonomy.nodes[cols[again.argmax()]]!r}"
            )
        check_real(table, "table")
        try:
            values = table.to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise _text_columns_error(table) from None
        if not (
            np.isfinite(values).all()
            and values.min(initial=0) >= 0
            and values.max(initial=0) <= 1
        ):  # located only when there is one (a 185k × 1,000 table checks in three passes)
            row, col = np.argwhere(~((values >= 0) & (values <= 1)))[0]
            raise ValueError(
                "table values must be finite probabilities within [0, 1]; got "
                f"{float(values[row, col])!r} for item {table.index[row]!r}, category "
                f"{table.columns[col]!r}"
            )
        full = np.zeros((len(table), len(taxonomy)))
        full[:, cols] = values
        if not close:
            full[:, taxonomy.index(taxonomy.root)] = 1.0
            check_closed(taxonomy, table.index, full, "with close=False the table")
            return cls._owning(taxonomy, table.index, full, None)
        coarse = _coarse_precision(table)
        _check_sums(full, table.index, "with close=True each row gives direct shares and",
                    " (pass close=False for already-closed probabilities)",
                    tolerance=1e-9 if coarse is None else probability_tolerance(coarse))
        if coarse is not None:  # rounded to float32 or float16: made to sum to 1 in float64
            full /= full.sum(axis=1, keepdims=True)
        return cls._owning(taxonomy, table.index, _closure(taxonomy, full), full)

    # ------------------------------------------------------------------ accessors
    @property
    def taxonomy(self) -> Taxonomy:
        """The taxonomy whose nodes are the columns."""
        return self._taxonomy

    @property
    def items(self) -> pd.Index:
        """Item ids, the row order of :attr:`matrix`."""
        return self._items

    @property
    def categories(self) -> tuple[Hashable, ...]:
        """Category names, the column order of :attr:`matrix` (taxonomy order)."""
        return self._taxonomy.nodes

    @property
    def matrix(self) -> np.ndarray:
        """``(n_items, n_nodes)`` closed probabilities p(ω|item). Read-only."""
        return self._matrix

    @cached_property
    def _item_texts(self) -> pd.Index:
        """The item ids as text, in order (distinct: :meth:`_hold` refuses two ids with the
        same text)."""
        return pd.Index(ids_text(self._items.to_numpy(dtype=object), "items"), dtype=object)

    @property
    def direct(self) -> np.ndarray | None:
        """``(n_items, n_nodes)`` share of annotators choosing each node directly, or None
        when the membership was given already closed. Read-only."""
        return self._direct

    @property
    def is_crisp(self) -> bool:
        """True when every probability is exactly 0 or 1."""
        return bool(np.all((self._matrix == 0) | (self._matrix == 1)))

    def item_index(self, items: Iterable[Hashable]) -> np.ndarray:
        """Row positions of ``items``, matched as text as every id is (``"1"`` names item
        ``1``); a ValueError names the unknown ones."""
        items = id_list(items, "items", "item")
        pos = self._item_texts.get_indexer(
            pd.Index([id_text(i, "items") for i in items], dtype=object))
        if np.any(pos < 0):
            unknown = [i for i, p in zip(items, pos, strict=True) if p < 0]
            raise ValueError(f"unknown item id(s) {_show(unknown)}: not in the membership")
        return pos

    def probability(self, item: Hashable, category: Hashable) -> float:
        """p(category | item)."""
        return float(self._matrix[self.item_index([item])[0], self._taxonomy.index(category)])

    def probabilities(self, items: Iterable[Hashable], category: Hashable) -> np.ndarray:
        """p(category | item) for each item, in the given order."""
        return self._matrix[self.item_index(items), self._taxonomy.index(category)]

    def category_size(
        self, category: Hashable | None = None, *, exclude: Iterable[Hashable] | None = None
    ) -> float | pd.Series:
        """Expected category size |ω| = Σ_q p(ω|q) (Santini eq. 9).

        Parameters
        ----------
        category : hashable, optional
            One category (returns a float); all categories when omitted (returns a Series).
        exclude : iterable of item ids, optional
            Items left out of the sum, e.g. the query item itself (shape benchmarks do not
            count the query as a member of its own class); an item named twice is left out
            once.

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"a": None, "b": None}})
        >>> mem = Membership.from_labels({"x": "a", "y": "a", "z": "b"}, taxonomy=tax)
        >>> mem.category_size("a"), mem.category_size("a", exclude=["x"])
        (2.0, 1.0)
        """
        sizes = self._matrix.sum(axis=0)
        if exclude is not None:
            # each item once, however often it is named: a sum over items cannot lose one twice
            sizes = sizes - self._matrix[pd.unique(self.item_index(exclude))].sum(axis=0)
        if category is None:
            return pd.Series(sizes, index=pd.Index(self.categories, name="category"), name="size")
        return float(sizes[self._taxonomy.index(category)])

    def to_frame(self) -> pd.DataFrame:
        """Tidy table ``item_id, category, probability, direct_share`` (one row per pair)."""
        n_items, n_nodes = self._matrix.shape
        frame = pd.DataFrame(
            {
                "item_id": np.repeat(self._items.to_numpy(), n_nodes),
                "category": np.tile(np.array(self.categories, dtype=object), n_items),
                "probability": self._matrix.ravel(),
                "direct_share": (
                    self._direct.ravel()
                    if self._direct is not None
                    else np.full(self._matrix.size, np.nan)
                ),
            }
        )
        return frame

    def subset(self, items: Iterable[Hashable]) -> Membership:
        """The membership of some items only, in the given order."""
        pos = self.item_index(items)
        direct = None if self._direct is None else self._direct[pos]  # rows taken: copies
        return Membership._owning(self._taxonomy, self._items[pos], self._matrix[pos], direct)

    # ------------------------------------------------------------------ the truth protocol
    truth_kind = TruthKind.CATEGORICAL
    per_query = False  # every query's category is judged against all the items

    def bind(self, options: TruthOptions) -> CategoricalTruth:
        """This membership under the evaluation's options (:mod:`fuzzytruth.truth.protocol`)."""
        return CategoricalTruth(self, options)

    def __repr__(self) -> str:
        kind = "crisp" if self.is_crisp else "probabilistic"
        return f"Membership({kind}, {len(self._items)} items × {len(self.categories)} categories)"


def _check_taxonomy(taxonomy: object, alternative: str = "") -> None:
    """A ValueError naming ``taxonomy`` when it is not a :class:`Taxonomy`."""
    if not isinstance(taxonomy, Taxonomy):
        raise ValueError(
            f"taxonomy must be a fuzzytruth.Taxonomy{', ' + alternative if alternative else ''}; "
            f"got {type(taxonomy).__name__}"
        )


def _text_columns_error(table: pd.DataFrame) -> ValueError:
    """The error for a probability table with columns that are not numbers, with the call
    that makes it items × categories where its shape says which: the item ids in a column
    (``set_index``), or a long table of (item, category, probability) rows (``pivot``)."""
    text = _not_numeric(table)
    numeric = [c for c in table.columns if c not in text]
    if len(text) == 2 and len(numeric) == 1:
        how = (f": a long table is made items × categories first, table.pivot(index="
               f"{text[0]!r}, columns={text[1]!r}, values={numeric[0]!r})")
    elif len(text) == 1:
        how = f": the item ids go in the index, table.set_index({text[0]!r})"
    else:
        how = ""
    return ValueError(
        "table values must be finite probabilities within [0, 1]; got values that are not "
        f"numbers in column(s) {_show(text)}{how}"
    )


def _not_numeric(table: pd.DataFrame) -> list[Any]:
    """The columns of ``table`` that do not convert to float."""
    out = []
    for position, name in enumerate(table.columns):
        try:
            table.iloc[:, position].to_numpy(dtype=float)
        except (TypeError, ValueError):
            out.append(name)
    return out


def _closure(taxonomy: Taxonomy, direct: np.ndarray) -> np.ndarray:
    """p(node | item) from the direct shares: closed over ancestors, at most 1, the root 1.
    The shares are closed in sparse form, whose cost grows with the labels used (20,000 items
    with 5 labels each on a 3,280-node tree: 0.35 s against 1.25 s from the dense table, the
    same numbers)."""
    from scipy import sparse

    closed = taxonomy.close_over_ancestors(sparse.csr_array(direct), dense=True)
    np.minimum(closed, 1.0, out=closed)
    closed[:, taxonomy.index(taxonomy.root)] = 1.0
    return closed


def _coarse_precision(table: pd.DataFrame) -> np.dtype | None:
    """The coarsest floating-point dtype of ``table``'s columns when it is coarser than
    float64 (float32, float16: a label model's posteriors in single precision sum to 1 only
    within its rounding), else None."""
    floats = [np.dtype(t) for t in table.dtypes
              if isinstance(t, np.dtype) and t.kind == "f" and t.itemsize < 8]
    return max(floats, key=lambda t: np.finfo(t).eps) if floats else None


def _check_sums(direct: np.ndarray, items: pd.Index, what: str, hint: str = "",
                tolerance: float = 1e-9) -> None:
    """Each row of ``direct`` sums to 1 within ``tolerance``, else an error naming the first
    that does not (``what`` says what the rows are, ``hint`` ends the message)."""
    sums = direct.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > tolerance)
    if len(bad):
        raise ValueError(
            f"{what} must sum to 1 over the nodes; row {items[bad[0]]!r} sums to "
            f"{float(sums[bad[0]])!r}{hint}"
        )


def check_closed(taxonomy: Taxonomy, items: pd.Index, matrix: np.ndarray, what: str) -> None:
    """Closed probabilities: no node more probable than one of its parents (within 1e-9), as
    an item in a category is in each of its ancestors; else a ValueError naming ``what``, the
    item, both nodes and both values. Checked a block of items at a time."""
    edges = taxonomy.to_edges()
    if not edges or not len(items):
        return
    parent = taxonomy.indices([p for p, _ in edges])
    child = taxonomy.indices([c for _, c in edges])
    step = block_rows(len(edges), bytes_per_unit=17.0)
    for rows in row_chunks(len(items), step):
        block = matrix[rows]
        above = block[:, child] > block[:, parent] + 1e-9
        if above.any():
            row, edge = np.argwhere(above)[0]
            p, c = parent[edge], child[edge]
            raise ValueError(
                f"{what} must give closed probabilities, no category more probable than its "
                f"parent (an item in {taxonomy.nodes[c]!r} is in {taxonomy.nodes[p]!r}); item "
                f"{plain(items[rows][row])!r}: {taxonomy.nodes[c]!r} "
                f"{float(block[row, c])!r} > {taxonomy.nodes[p]!r} {float(block[row, p])!r} "
                "(direct shares, closed here: Membership.from_probabilities(..., close=True))"
            )


def _check_direct(taxonomy: Taxonomy, items: pd.Index, matrix: np.ndarray,
                  direct: np.ndarray) -> None:
    """Direct shares given to the constructor: finite, within [0, 1], each row summing to 1
    (an item whose row summed to 0 drew the first node of the taxonomy in every annotator
    world, a label no annotator gave it), and ``matrix`` their closure over ancestors within
    1e-9 (the annotator worlds draw from ``direct``, every other truth reads ``matrix``).
    Checked a block of items at a time (blocks sized from the memory budget)."""
    step = block_rows(len(taxonomy), bytes_per_unit=32.0)
    for rows in row_chunks(len(items), step):
        block = direct[rows]
        if (not np.all(np.isfinite(block)) or block.min(initial=0) < 0
                or block.max(initial=0) > 1):
            raise ValueError("direct shares must be finite and within [0, 1]")
        _check_sums(block, items[rows], "direct gives each item's direct shares, which")
        off = np.abs(_closure(taxonomy, block) - matrix[rows]) > 1e-9
        if off.any():
            row, col = np.argwhere(off)[0]
            closure = _closure(taxonomy, block[[row]])[0, col]
            raise ValueError(
                f"matrix must be the closure of direct over ancestors (p(node) = the direct "
                f"shares of the node and its descendants, at most 1); item "
                f"{plain(items[rows][row])!r}, node {taxonomy.nodes[col]!r}: matrix "
                f"{float(matrix[rows][row, col])!r}, closure of direct {float(closure)!r}"
            )


def weighted_votes(annotations: Annotations) -> Any:
    """``(n_items, n_nodes)`` sparse CSR of each item's annotator weights per label given
    (rows in item order, labels sorted), each item's weights scaled by the power of two that
    brings their largest below 1: the shares they give are unchanged to the last bit, and
    finite weights summing past the largest float (1e308 each) no longer overflow to
    inf / inf = nan, then 0. The weights of an item's rows for one label are added in row
    order. An item whose annotators all weigh 0 is an error naming it (and every other such
    item)."""
    from scipy import sparse

    item, _, label, weight = annotations.codes()
    n_items, n_nodes = annotations.n_items, len(annotations.taxonomy)
    largest = np.zeros(n_items)
    np.maximum.at(largest, item, weight)
    if np.any(largest <= 0):  # every annotator of the item weighs 0: no share is defined
        bad = annotations.items[largest <= 0].tolist()
        raise ValueError(f"item(s) {_show(bad)} have total annotator weight 0")
    weight = np.ldexp(weight, -binary_exponent(largest)[item])
    # one vote per (item, label) used (a stable sort groups the rows, already in item order,
    # by label within the item)
    key = item.astype(np.int64) * n_nodes + label
    order = code_order(key, n_items * n_nodes)
    ordered = key[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    at = np.empty(len(key), dtype=np.int64)
    at[order] = np.cumsum(first) - 1  # each row's (item, label) cell
    row, column = np.divmod(ordered[first], n_nodes)
    summed = np.bincount(at, weight, minlength=int(first.sum()))
    return sparse.csr_array(
        (summed, column, np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n_items))])),
        shape=(n_items, n_nodes),
    )


def closed_shares(taxonomy: Taxonomy, votes: Any) -> tuple[np.ndarray, np.ndarray]:
    """The closed membership ``(n_rows, n_nodes)`` of the rows of ``votes``
    (:func:`weighted_votes`, or a block of its rows: each with a positive weight) and each
    row's total weight. A vote for l counts once for each node that is l or an ancestor
    of l, however many DAG paths lead there; a vote split between labels
    (``duplicates="split"``) gives each label a share, so a shared ancestor gets it once. The
    root's closed votes are the item's total; every closed sum is correctly rounded
    (:meth:`Taxonomy.close_over_ancestors <fuzzytruth.Taxonomy.close_over_ancestors>`), so a
    node whose exact share is 1/2 of an exact total gets 0.5, and a row's values do not depend
    on the other rows."""
    matrix = taxonomy.close_over_ancestors(votes, dense=True)
    root = taxonomy.index(taxonomy.root)
    totals = matrix[:, root].copy()
    matrix /= totals[:, None]
    np.minimum(matrix, 1.0, out=matrix)
    matrix[:, root] = 1.0
    return matrix, totals
