"""Multi-annotator labels: a long table (item, annotator, label) bound to a taxonomy."""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping
from numbers import Real
from typing import Literal

import numpy as np
import pandas as pd

from fuzzytruth._order import name_order, ranks, sorted_order
from fuzzytruth._validation import (
    check_choice,
    check_columns,
    id_text,
    refuse_float_ids,
    text_names,
)
from fuzzytruth.taxonomy import Taxonomy, _show, closest_names, type_mismatch

__all__ = ["Annotations", "labels_hint"]


def labels_hint(given: object) -> str:
    """How to make :class:`Annotations` of ``given``, for the error that refuses it where
    labels are expected (empty when there is no obvious way): a table of labels, a file.

    >>> import pandas as pd
    >>> labels_hint("labels.csv")
    ': read the file first, with read_annotations(path, taxonomy=...)'
    """
    if isinstance(given, pd.DataFrame):
        return (": a table of labels is Annotations.from_frame(frame, taxonomy=...) of it "
                "(taxonomy=None: a flat label set; item=, annotator=, label= name its columns)")
    if isinstance(given, str | os.PathLike):
        return ": read the file first, with read_annotations(path, taxonomy=...)"
    return ""

DuplicatePolicy = Literal["error", "first", "last", "split"]
_DUPLICATE_POLICIES = ("error", "first", "last", "split")


class Annotations:
    """Labels given by annotators to items, each label a node of a :class:`Taxonomy`.

    The canonical table has the columns ``item_id``, ``annotator_id``, ``label`` and
    ``weight``. ``weight`` is the share of the annotator's vote that the row carries (1 for a
    single label; 1/k for each of k labels under ``duplicates="split"``). Items may have
    different numbers of annotators.

    Build one with :meth:`from_frame`. Annotator weights (for example reliability weights from
    :mod:`fuzzytruth.collection`) are kept separately in :attr:`annotator_weights` and applied
    by :class:`~fuzzytruth.truth.membership.Membership`.

    Examples
    --------
    >>> tax = Taxonomy.from_nested({"all": {"people": ["crowd"], "scenery": ["city"]}})
    >>> df = pd.DataFrame({"item_id": ["img01"] * 3, "annotator_id": ["s1", "s2", "s3"],
    ...                    "label": ["people", "crowd", "city"]})
    >>> ann = Annotations.from_frame(df, taxonomy=tax)
    >>> ann.n_items, ann.n_annotators
    (1, 3)
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        taxonomy: Taxonomy,
        annotator_weights: Mapping[Hashable, float] | None = None,
    ) -> None:
        self._taxonomy = taxonomy
        self._annotator_weights = dict(annotator_weights) if annotator_weights else None
        # codes computed once (codes() is called by every analysis), in a canonical order:
        # items and annotators sorted by id, rows by (item, annotator, label), so that the
        # order of the given rows changes no number, not even the last bit of a sum
        item_codes, items = pd.factorize(frame["item_id"])
        annotator_codes, annotators = pd.factorize(frame["annotator_id"])
        item_order, annotator_order = sorted_order(items), sorted_order(annotators)
        item_codes, items = ranks(item_order)[item_codes], np.asarray(items)[item_order]
        annotator_codes = ranks(annotator_order)[annotator_codes]
        annotators = np.asarray(annotators)[annotator_order]
        label_codes = pd.Index(taxonomy.nodes).get_indexer(frame["label"])
        label_rank = ranks(name_order(taxonomy.nodes))
        order = np.lexsort((label_rank[label_codes], annotator_codes, item_codes))
        self._frame = frame.iloc[order].reset_index(drop=True)
        self._item_codes = item_codes[order]
        self._annotator_codes = annotator_codes[order]
        self._label_codes = label_codes[order]
        self._items = pd.Index(items, name="item_id")
        self._annotators = pd.Index(annotators, name="annotator_id")

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        taxonomy: Taxonomy | None,
        item: str = "item_id",
        annotator: str = "annotator_id",
        label: str = "label",
        duplicates: DuplicatePolicy = "error",
        annotator_weights: Mapping[Hashable, float] | pd.Series | None = None,
    ) -> Annotations:
        """Validate a long table and bind it to ``taxonomy``.

        Parameters
        ----------
        frame : pandas.DataFrame
            One row per (item, annotator, label).
        taxonomy : Taxonomy or None
            Every label must be one of its nodes. None: the labels are a flat label set,
            :meth:`Taxonomy.flat` of the labels found, in sorted order (for agreement on labels
            without a hierarchy).
        item, annotator, label : str
            Column names in ``frame``.
        duplicates : {"error", "first", "last", "split"}
            What to do when one annotator labels one item more than once. ``"error"`` (default)
            raises; ``"first"``/``"last"`` keep the row that comes first/last in the table;
            ``"split"`` keeps every label and splits that annotator's vote equally among them
            (an ancestor shared by the labels still receives the whole vote once).
        annotator_weights : mapping or pandas.Series, optional
            Non-negative weight per annotator id; an annotator's vote counts in proportion to
            it. Keys are matched with the annotator ids as text, as every id is (``"1"`` names
            annotator ``1``; ``1`` and ``"1"`` both given are refused). Annotators not in the
            mapping get weight 1; a mapping that names none of the annotators is refused.

        Raises
        ------
        ValueError
            Empty table, a missing column, a missing value, a label not in the taxonomy (the
            first offenders and the closest known names are listed), a duplicate label under
            ``duplicates="error"``, two item (or annotator) ids with the same text (``1`` and
            ``"1"``: one id in every file and table), item or annotator ids given as
            floating-point numbers (``1.0`` reads "1.0", which no run's document ``1`` or
            ``"1"`` matches: convert them to int or str), or a negative or non-finite annotator
            weight.
        """
        check_columns(
            frame, "frame", {"item": item, "annotator": annotator, "label": label}, rows=False
        )
        check_choice("duplicates", duplicates, _DUPLICATE_POLICIES)
        if len(frame) == 0:
            raise ValueError("annotations are empty: the frame has no rows")
        df = pd.DataFrame(
            {
                "item_id": frame[item].array,
                "annotator_id": frame[annotator].array,
                "label": frame[label].array,
            }
        )
        for col, arg in (("item_id", item), ("annotator_id", annotator), ("label", label)):
            missing = df[col].isna().to_numpy()
            if missing.any():
                rows = np.flatnonzero(missing)
                raise ValueError(
                    f"missing value in column {arg!r} at row(s) {_show(rows.tolist())}"
                )
        if taxonomy is None:
            found = pd.unique(df["label"])
            taxonomy = Taxonomy.flat(found[sorted_order(found)])
        elif not isinstance(taxonomy, Taxonomy):
            raise ValueError("taxonomy must be a fuzzytruth.Taxonomy, or None for a flat label "
                             f"set of the labels found; got {type(taxonomy).__name__}")
        unknown = pd.unique(df.loc[~df["label"].isin(list(taxonomy.nodes)), "label"]).tolist()
        if len(unknown):
            hints = "; ".join(
                f"{u!r} -> {_show(closest_names(u, taxonomy.nodes)) or 'no close name'}"
                for u in unknown[:3]
            )
            mismatch = type_mismatch(unknown, taxonomy.nodes)
            raise ValueError(
                f"{len(unknown)} label(s) not in the taxonomy: {_show(unknown)}. "
                f"Closest known names: {hints}"
                + (f"{mismatch} (frame[{label!r}].astype(str))"
                   if mismatch.endswith("(str)") else mismatch)
            )
        # integer codes: duplicate checks and vote shares on int64 keys, not string pairs
        item_codes, items = pd.factorize(df["item_id"])
        annot_codes, annotators = pd.factorize(df["annotator_id"])
        for given, ids in ((item, items), (annotator, annotators)):
            refuse_float_ids(ids, f"frame column {given!r}")  # 1.0 reads "1.0": no run's "1"
            if ids.dtype == object:  # ids of several types: 1 and "1" would print alike
                text_names(dict.fromkeys(ids.tolist()), f"frame column {given!r}", "id")
        pair = pd.Series(item_codes.astype(np.int64) * len(annotators) + annot_codes)
        dup = pair.duplicated(keep=False).to_numpy()
        if dup.any():
            if duplicates == "error":
                first = df.loc[dup].iloc[0]
                n_pairs = pair[dup].nunique()
                raise ValueError(
                    f"annotator {first['annotator_id']!r} labelled item {first['item_id']!r} "
                    f"more than once ({n_pairs} such (item, annotator) pair(s)); pass "
                    "duplicates='first', 'last' or 'split' to choose a policy"
                )
            if duplicates in ("first", "last"):
                keep = ~pair.duplicated(keep=duplicates).to_numpy()
            else:
                label_codes = pd.Index(taxonomy.nodes).get_indexer(df["label"])
                keep = ~(pair * len(taxonomy) + label_codes).duplicated().to_numpy()
            df, pair = df.loc[keep], pair[keep]
        pair_codes = pd.factorize(pair)[0]
        df = df.assign(weight=1.0 / np.bincount(pair_codes)[pair_codes])
        if annotator_weights is not None:
            annotator_weights = _checked_weights(annotator_weights, pd.Index(annotators))
        return cls(df, taxonomy, annotator_weights)

    # ------------------------------------------------------------------ accessors
    @property
    def taxonomy(self) -> Taxonomy:
        """The taxonomy the labels belong to."""
        return self._taxonomy

    @property
    def items(self) -> pd.Index:
        """Item ids, sorted by id (:func:`fuzzytruth._order.sorted_order`: the order of the
        given rows changes nothing)."""
        return self._items

    @property
    def annotators(self) -> pd.Index:
        """Annotator ids, sorted by id (:func:`fuzzytruth._order.sorted_order`)."""
        return self._annotators

    @property
    def n_items(self) -> int:
        """Number of distinct items."""
        return len(self._items)

    @property
    def n_annotators(self) -> int:
        """Number of distinct annotators."""
        return len(self._annotators)

    @property
    def annotator_weights(self) -> dict[Hashable, float] | None:
        """Per-annotator weights, or None when every annotator counts equally."""
        return None if self._annotator_weights is None else dict(self._annotator_weights)

    def to_frame(self) -> pd.DataFrame:
        """The canonical long table: ``item_id, annotator_id, label, weight``."""
        return self._frame.copy()

    def with_annotator_weights(
        self, weights: Mapping[Hashable, float] | pd.Series | None
    ) -> Annotations:
        """The same labels with other annotator weights (None: all equal)."""
        if weights is not None:
            weights = _checked_weights(weights, self._annotators)
        return Annotations(self._frame, self._taxonomy, weights)

    def codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Integer codes ``(item, annotator, label_column, row_weight)`` for vectorised work.

        ``item`` indexes :attr:`items`, ``annotator`` indexes :attr:`annotators`,
        ``label_column`` indexes ``taxonomy.nodes``; ``row_weight`` is the row's share of the
        annotator's vote times the annotator's weight.
        """
        item, annot, label = self._item_codes, self._annotator_codes, self._label_codes
        weight = self._frame["weight"].to_numpy(dtype=float)
        if self._annotator_weights is not None:
            per = np.array([self._annotator_weights.get(a, 1.0) for a in self._annotators])
            weight = weight * per[annot]
        return item, annot, label, weight

    def one_label_per_pair(self) -> bool:
        """True when every (item, annotator) pair has one label (no vote split between
        several labels by ``duplicates="split"``)."""
        return bool((self._frame["weight"].to_numpy() == 1.0).all())

    def label_matrix(self) -> np.ndarray:
        """``(n_items, n_annotators)`` label column per cell, -1 where the annotator did not
        label the item. Needs one label per (item, annotator) (not ``duplicates="split"``)."""
        item, annot, label, _ = self.codes()
        if not self.one_label_per_pair():
            raise ValueError(
                "label_matrix needs one label per (item, annotator); these annotations "
                "split some votes between several labels"
            )
        out = np.full((self.n_items, self.n_annotators), -1, dtype=np.int64)
        out[item, annot] = label
        return out

    def __repr__(self) -> str:
        return (
            f"Annotations({len(self._frame)} labels, {self.n_items} items, "
            f"{self.n_annotators} annotators)"
        )


def _checked_weights(
    weights: Mapping[Hashable, float] | pd.Series, annotators: pd.Index
) -> dict[Hashable, float]:
    """``weights`` as a dict of floats keyed by the annotators' own ids (keys matched as text),
    after checking: finite non-negative numbers, keyed by ids of which at least one is an
    annotator's (weights computed on a larger collection may name annotators absent here; none
    known means another collection, which would change nothing silently)."""
    if not isinstance(weights, Mapping | pd.Series):
        raise ValueError(
            "annotator_weights must be a mapping {annotator_id: weight} or a pandas Series; "
            f"got {type(weights).__name__}"
        )
    if isinstance(weights, pd.Series) and weights.index.has_duplicates:
        again = weights.index[weights.index.duplicated()]
        raise ValueError(
            "annotator_weights must give each annotator one weight; got several for "
            f"{_show(again.unique().tolist())}"
        )
    # keyed as every id is matched, by text (1 and "1" one id): each key becomes the
    # annotator's own id, so that a weight given as "1" applies to annotator 1
    own = {id_text(a, "annotators"): a for a in annotators}
    keys = text_names(dict(weights.items()), "annotator_weights", "annotator")
    checked: dict[Hashable, float] = {}
    for text, (a, w) in zip(keys, weights.items(), strict=True):
        try:  # a Real as a float: a Fraction too; an int past the largest float is inf
            number = float(w) if isinstance(w, Real) and not isinstance(w, bool) else np.nan
        except OverflowError:
            number = np.inf
        if not np.isfinite(number) or number < 0:
            raise ValueError(
                f"annotator_weights must be finite and >= 0; got {w!r} for annotator {a!r}"
            )
        checked[own.get(text, a)] = number
    if len(weights) and not own.keys() & set(keys):
        raise ValueError(
            f"annotator_weights names no annotator of these annotations: got "
            f"{_show(weights.keys())}; the annotators are {_show(annotators)}"
        )
    return checked
