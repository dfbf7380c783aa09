"""Agreement of each annotator with the others, and reliability weights derived from it."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._order import ranks, sorted_order
from fuzzytruth._validation import check_choice, check_number
from fuzzytruth._warnings import warn
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection._counts import label_counts, require_annotations

__all__ = ["AnnotatorAgreement", "annotator_agreement", "annotator_weights"]

_WEIGHT_RULES = ("kappa", "majority")


@dataclass(frozen=True)
class AnnotatorAgreement:
    """How well each annotator agrees with the others.

    Attributes
    ----------
    annotators : tuple
        Annotator ids, in :attr:`Annotations.annotators` order.
    n_items : numpy.ndarray
        Items each annotator labelled.
    majority_agreement : numpy.ndarray
        Leave-one-out majority agreement (see :func:`annotator_agreement`); NaN for an
        annotator who never shares an item.
    n_majority_items : numpy.ndarray
        Items of the annotator that have at least one other annotator.
    pairwise_kappa : numpy.ndarray
        ``(n_annotators, n_annotators)`` Cohen's κ over shared items; NaN on the diagonal and
        where undefined (fewer than two shared items, or chance agreement 1).
    n_shared : numpy.ndarray
        ``(n_annotators, n_annotators)`` number of items both annotators labelled.
    """

    annotators: tuple[Hashable, ...]
    n_items: np.ndarray
    majority_agreement: np.ndarray
    n_majority_items: np.ndarray
    pairwise_kappa: np.ndarray
    n_shared: np.ndarray

    @property
    def mean_kappa(self) -> np.ndarray:
        """Mean of each annotator's defined pairwise κ with the others (NaN if none); the
        values are added up in sorted order, so the bits do not depend on the annotators'
        order."""
        defined = np.isfinite(self.pairwise_kappa)
        total = np.sort(np.where(defined, self.pairwise_kappa, 0.0), axis=1).sum(axis=1)
        n = defined.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / n, np.nan)

    @property
    def n_partners(self) -> np.ndarray:
        """Number of other annotators with a defined pairwise κ."""
        return np.isfinite(self.pairwise_kappa).sum(axis=1)

    def _id_ranks(self) -> np.ndarray:
        return ranks(sorted_order(self.annotators))

    def __repr__(self) -> str:
        def lowest(values: np.ndarray, name: str) -> str:
            if not np.isfinite(values).any():
                return f"{name} undefined"
            i = int(np.lexsort((self._id_ranks(), values))[0])  # ties: the smallest id
            return (
                f"{name} {np.nanmin(values):.3f}–{np.nanmax(values):.3f} "
                f"(lowest {self.annotators[i]!r})"
            )

        return (
            f"AnnotatorAgreement({len(self.annotators)} annotators; "
            f"{lowest(self.majority_agreement, 'majority_agreement')}; "
            f"{lowest(self.mean_kappa, 'mean_pairwise_kappa')})"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per annotator: ``annotator_id, n_items_labelled, majority_agreement,
        n_majority_items, mean_pairwise_kappa, n_partners`` (``n_items`` in the agreement
        tables is the size of the collection, hence the longer name here).

        Rows go from the least to the most reliable annotator, so the ones to check come
        first: by ``mean_pairwise_kappa`` (chance-corrected, the default reliability weight of
        :func:`annotator_weights`), then ``majority_agreement``, both ascending, undefined
        values last, then by annotator id.
        """
        order = np.lexsort((self._id_ranks(), self.majority_agreement, self.mean_kappa))
        return pd.DataFrame(
            {
                "annotator_id": pd.Series(self.annotators, dtype=object)[order],
                "n_items_labelled": self.n_items[order],
                "majority_agreement": self.majority_agreement[order],
                "n_majority_items": self.n_majority_items[order],
                "mean_pairwise_kappa": self.mean_kappa[order],
                "n_partners": self.n_partners[order],
            }
        ).reset_index(drop=True)

    def pairs_to_frame(self) -> pd.DataFrame:
        """One row per unordered pair sharing at least one item: ``annotator_id, other,
        n_shared, cohen_kappa``, ``annotator_id`` the smaller of the two ids.

        Rows go from the least to the most agreeing pair (``cohen_kappa`` ascending,
        undefined last), then by the two ids.
        """
        rank = self._id_ranks()
        by_id = np.argsort(rank)  # annotator positions in id order
        a, b = np.triu_indices(len(self.annotators), k=1)
        a, b = by_id[a], by_id[b]
        keep = self.n_shared[a, b] > 0
        a, b = a[keep], b[keep]
        kappa = self.pairwise_kappa[a, b]
        order = np.lexsort((rank[b], rank[a], kappa))
        a, b = a[order], b[order]
        ids = np.array(self.annotators, dtype=object)
        return pd.DataFrame(
            {
                "annotator_id": pd.Series(ids[a], dtype=object),
                "other": pd.Series(ids[b], dtype=object),
                "n_shared": self.n_shared[a, b],
                "cohen_kappa": self.pairwise_kappa[a, b],
            }
        )


def _majority_credit(
    item: np.ndarray, label: np.ndarray, counts: sparse.csr_array
) -> tuple[np.ndarray, np.ndarray]:
    """Per label row: credit for matching the majority of the item's other annotators, and
    whether the item has other annotators at all.

    From each item's largest label count m1 (held by t1 labels) and the next one m2 (held by
    t2 labels): the other annotators' top labels are the label of the row alone when it holds
    m1 alone and m1 − 1 > m2 (credit 1), it and the t2 others when m1 − 1 = m2 (credit
    1/(1 + t2)); otherwise some other label is on top alone or tied (credit 0). One pass over
    the stored counts: no items × labels table.
    """
    indptr, data = counts.indptr, counts.data
    per_item = np.diff(indptr)
    row = np.repeat(np.arange(counts.shape[0]), per_item)
    m1 = np.maximum.reduceat(data, indptr[:-1])
    t1 = np.bincount(row, data == m1[row], len(m1))
    below = np.where(data < m1[row], data, 0.0)
    m2 = np.maximum.reduceat(below, indptr[:-1])
    t2 = np.bincount(row, (data == m2[row]) & (m2[row] > 0), len(m1))
    # the count of each label row's own label: the stored value at (item, label)
    keys = row.astype(np.int64) * counts.shape[1] + counts.indices
    own = data[np.searchsorted(keys, item.astype(np.int64) * counts.shape[1] + label)]
    top = m1[item]
    alone = (own == top) & (t1[item] == 1)
    credit = np.where(alone, np.where(top - 1 > m2[item], 1.0, 1.0 / (1.0 + t2[item])), 0.0)
    has_others = counts.sum(axis=1)[item] >= 2
    return np.where(has_others, credit, 0.0), has_others


def _pairwise_kappa(
    item: np.ndarray, annot: np.ndarray, label: np.ndarray, n_items: int, n_annot: int
) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's κ and shared-item counts for every pair of annotators, via sparse products."""
    n_labels = int(label.max()) + 1
    ones = np.ones(len(item))
    present = sparse.csr_matrix((ones, (item, annot)), shape=(n_items, n_annot))
    # one-hot of (annotator, label) per item, and of (item, label) per annotator
    chose = sparse.csr_matrix(
        (ones, (item, annot * n_labels + label)), shape=(n_items, n_annot * n_labels)
    )
    by_item_label = sparse.csr_matrix(
        (ones, (item * n_labels + label, annot)), shape=(n_items * n_labels, n_annot)
    )
    shared = (present.T @ present).toarray()
    agree = (by_item_label.T @ by_item_label).toarray()
    # margins (a, c, b): items labelled c by a that b also labelled, stored where non-zero
    # (never n_annotators² × n_labels); chance_pairs[a, b] = Σ_c margins(a, c, b) margins(b, c, a)
    margins = (chose.T @ present).tocoo()
    a, c = np.divmod(margins.row.astype(np.int64), n_labels)
    b = margins.col.astype(np.int64)
    keys = (a * n_labels + c) * n_annot + b
    order = np.argsort(keys)
    partner = (b * n_labels + c) * n_annot + a
    at = np.minimum(np.searchsorted(keys[order], partner), len(keys) - 1)
    found = keys[order][at] == partner
    products = np.where(found, margins.data * margins.data[order][at], 0.0)
    chance_pairs = np.bincount(a * n_annot + b, products, n_annot * n_annot).reshape(
        n_annot, n_annot
    )
    # κ = (p_o − p_e) / (1 − p_e) with p_o = agree / s and p_e = C / s², as
    # (s agree − C) / (s² − C): whole numbers until the division (1 − p_e from a rounded p_e
    # of 1 − 1e-5 keeps 11 digits)
    squared = shared * shared
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = np.where((shared > 1) & (chance_pairs < squared),
                         (shared * agree - chance_pairs) / (squared - chance_pairs), np.nan)
    np.fill_diagonal(kappa, np.nan)
    return kappa, shared.astype(np.int64)


def annotator_agreement(annotations: Annotations) -> AnnotatorAgreement:
    """Agreement of every annotator with the others, so careless annotators stand out.

    Parameters
    ----------
    annotations : Annotations
        Raw labels, one per (item, annotator); a Membership is refused (it does not keep who
        said what).

    Returns
    -------
    AnnotatorAgreement

    Notes
    -----
    **Leave-one-out majority agreement.** For each item an annotator labelled that has at
    least one other annotator, the annotator earns credit 1 when their label is the most
    frequent label among the *other* annotators of the item. When k labels tie for most
    frequent, the credit is 1/k if the annotator's label is one of them (the chance of
    matching a tie broken at random) and 0 otherwise. ``majority_agreement`` is the mean
    credit over those items (NaN when there are none). Labels are compared exactly: "crowd"
    does not match "people".

    **Pairwise Cohen's κ.** For two annotators, over the items both labelled:
    κ = (p_o − p_e)/(1 − p_e) with p_o the share of identical labels and p_e = Σ_c of the
    product of the two annotators' label shares on those items (Cohen 1960; as
    ``sklearn.metrics.cohen_kappa_score``). Undefined (NaN) with fewer than two shared items
    or when p_e = 1 (both used one and the same label throughout). On a single shared item κ
    is 0 when the two disagree and undefined when they agree (sklearn's values): not a
    measurement of either, and averaging its zeros alone read every annotator of a collection
    of fresh annotators per item as agreeing at chance (mean κ 0.000, every
    :func:`annotator_weights` weight 0, where the labels agree with κ = 0.46), so such pairs
    are left out. ``mean_kappa`` averages the defined values with equal weight per partner.
    Memory grows as n_annotators² (the pairwise tables) plus the (annotator, label,
    co-annotator) triples that occur.

    The result's arrays follow :attr:`Annotations.annotators`; its tables go from the least to
    the most reliable annotator (:meth:`AnnotatorAgreement.to_frame`). Every number is the
    same whatever the order of the rows of the annotation table.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> res = annotator_agreement(santini_illustrative().annotations)
    >>> res.to_frame()[["annotator_id", "majority_agreement", "mean_pairwise_kappa"]].round(3)
      annotator_id  majority_agreement  mean_pairwise_kappa
    0           s5               0.350                0.173
    1           s3               0.550                0.308
    2           s4               0.612                0.393
    3           s2               0.650                0.394
    4           s1               0.812                0.514
    """
    annotations = require_annotations(annotations, analysis="annotator_agreement")
    ordered = annotations  # canonical rows: sums in an order the given table's cannot change
    counts = label_counts(ordered, analysis="annotator_agreement")  # one label per pair?
    item, annot, label, _ = ordered.codes()
    n_annot = ordered.n_annotators
    credit, has_others = _majority_credit(item, label, counts)
    n_items = np.bincount(annot, minlength=n_annot)
    n_majority = np.bincount(annot, weights=has_others, minlength=n_annot).astype(np.int64)
    total = np.bincount(annot, weights=credit, minlength=n_annot)
    with np.errstate(invalid="ignore", divide="ignore"):
        majority = np.where(n_majority > 0, total / n_majority, np.nan)
    _, label_code = np.unique(label, return_inverse=True)
    kappa, shared = _pairwise_kappa(item, annot, label_code, ordered.n_items, n_annot)
    back = ordered.annotators.get_indexer(annotations.annotators)  # to the given order
    return AnnotatorAgreement(
        annotators=tuple(annotations.annotators),
        n_items=n_items[back],
        majority_agreement=majority[back],
        n_majority_items=n_majority[back],
        pairwise_kappa=kappa[np.ix_(back, back)],
        n_shared=shared[np.ix_(back, back)],
    )


def annotator_weights(
    data: Annotations | AnnotatorAgreement,
    *,
    by: Literal["kappa", "majority"] = "kappa",
    undefined: float | None = None,
) -> dict[Hashable, float]:
    """Reliability weights per annotator, for :meth:`Annotations.with_annotator_weights`.

    Parameters
    ----------
    data : Annotations or AnnotatorAgreement
        The collection, or its already computed :func:`annotator_agreement`.
    by : {"kappa", "majority"}
        ``"kappa"`` (default): weight = mean pairwise Cohen's κ clipped at 0, so an annotator
        who agrees with the others no better than chance gets no say, and agreement beyond
        chance counts linearly. ``"majority"``: weight = leave-one-out majority agreement
        (a share in [0, 1]; not chance-corrected, so it favours annotators of frequent labels).
    undefined : float, optional
        Weight of an annotator whose agreement is undefined (no shared item; for ``"kappa"``,
        no partner with two shared items). Default: the median of the defined weights (1.0 if
        none is defined, with a warning), a neutral choice that neither trusts nor ignores an
        annotator nobody can be checked against.

    Returns
    -------
    dict
        ``{annotator_id: weight}``, every weight finite and >= 0. If every annotator of an
        item ends up with weight 0, :meth:`Membership.from_annotations` refuses that item.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> ann = santini_illustrative().annotations
    >>> weights = annotator_weights(ann)
    >>> {a: round(w, 3) for a, w in weights.items()}
    {'s1': 0.514, 's2': 0.394, 's3': 0.308, 's4': 0.393, 's5': 0.173}
    >>> weighted = ann.with_annotator_weights(weights)
    """
    check_choice("by", by, _WEIGHT_RULES)
    undefined = check_number("undefined", undefined, none=True)
    if isinstance(data, AnnotatorAgreement):
        result = data
    else:
        result = annotator_agreement(require_annotations(
            data, analysis="annotator_weights", name="data",
            accepts="an Annotations or an AnnotatorAgreement",
        ))
    raw = np.maximum(result.mean_kappa, 0.0) if by == "kappa" else result.majority_agreement
    defined = np.isfinite(raw)
    if undefined is None:
        undefined = float(np.median(raw[defined])) if defined.any() else 1.0
    weights = np.where(defined, raw, undefined)
    if len(weights) and not (defined.any() and weights.any()):
        warn(_weights_warning(by, bool(defined.any()), undefined), UserWarning)
    return {a: float(w) for a, w in zip(result.annotators, weights, strict=True)}


def _weights_warning(by: str, any_defined: bool, undefined: float) -> str:
    """What :func:`annotator_weights` says when no annotator's agreement is defined, or every
    weight is 0."""
    refused = "Membership.from_annotations would refuse every item"
    if not any_defined:
        why = ("no two annotators share two items, and Cohen's kappa needs them; "
               "by='majority' reads a single shared item" if by == "kappa"
               else "no annotator shares an item with another")
        return (f"every annotator's agreement is undefined ({why}): every weight is the "
                f"undefined weight, {undefined:g}" + (f", so {refused}" if undefined == 0 else ""))
    why = ("no annotator agrees with the others beyond chance (mean Cohen's kappa at most "
           "0); by='majority' weighs by agreement not corrected for chance" if by == "kappa"
           else "no annotator ever agrees with the leave-one-out majority")
    return f"every annotator weight is 0, so {refused}: {why}"
