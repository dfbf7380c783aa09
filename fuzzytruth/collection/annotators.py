"""Agreement of each annotator with the others, and reliability weights derived from it."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection._counts import label_counts, require_annotations

__all__ = ["AnnotatorAgreement", "annotator_agreement", "annotator_weights"]

#: Bytes the temporaries of one block of the leave-one-out majority may take: a float copy
#: of the other annotators' counts and a boolean tie mask, 9 bytes per (label row, category).
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
        where undefined (no shared item, or chance agreement 1).
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
        """Mean of each annotator's defined pairwise κ with the others (NaN if none)."""
        defined = np.isfinite(self.pairwise_kappa)
        total = np.where(defined, self.pairwise_kappa, 0.0).sum(axis=1)
        n = defined.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / n, np.nan)

    @property
    def n_partners(self) -> np.ndarray:
        """Number of other annotators with a defined pairwise κ."""
        return np.isfinite(self.pairwise_kappa).sum(axis=1)

    def __repr__(self) -> str:
        def lowest(values: np.ndarray, name: str) -> str:
            if not np.isfinite(values).any():
                return f"{name} undefined"
            i = int(np.nanargmin(values))
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
        tables is the size of the collection, hence the longer name here)."""
        return pd.DataFrame(
            {
                "annotator_id": pd.Series(self.annotators, dtype=object),
                "n_items_labelled": self.n_items,
                "majority_agreement": self.majority_agreement,
                "n_majority_items": self.n_majority_items,
                "mean_pairwise_kappa": self.mean_kappa,
                "n_partners": self.n_partners,
            }
        )

    def pairs_to_frame(self) -> pd.DataFrame:
        """One row per unordered pair sharing at least one item: ``annotator_id, other,
        n_shared, cohen_kappa``."""
        a, b = np.triu_indices(len(self.annotators), k=1)
        keep = self.n_shared[a, b] > 0
        a, b = a[keep], b[keep]
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
    item: np.ndarray, label: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per label row: credit for matching the majority of the item's other annotators, and
    whether the item has other annotators at all."""
    n_rows, n_labels = len(item), counts.shape[1]
    credit = np.zeros(n_rows)
    step = block_rows(n_labels, MEMORY_BUDGET, bytes_per_unit=9)
    for start in range(0, n_rows, step):
        rows = slice(start, min(start + step, n_rows))
        others = counts[item[rows]]
        local = np.arange(others.shape[0])
        others[local, label[rows]] -= 1.0
        top = others.max(axis=1)
        tied = others == top[:, None]
        credit[rows] = tied[local, label[rows]] / tied.sum(axis=1)
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
    # margins[a, c, b]: items labelled c by a that b also labelled
    margins = (chose.T @ present).toarray().reshape(n_annot, n_labels, n_annot)
    chance_pairs = np.einsum("acb,bca->ab", margins, margins)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = agree / shared
        p_e = chance_pairs / shared**2
        kappa = np.where((shared > 0) & (p_e < 1), (p_o - p_e) / (1 - p_e), np.nan)
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
    ``sklearn.metrics.cohen_kappa_score``). Undefined (NaN) without a shared item or when
    p_e = 1 (both used one and the same label throughout). ``mean_kappa`` averages the defined
    values with equal weight per partner. Memory grows as n_annotators² × n_labels.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> res = annotator_agreement(santini_illustrative().annotations)
    >>> res.to_frame()[["annotator_id", "majority_agreement", "mean_pairwise_kappa"]].round(3)
      annotator_id  majority_agreement  mean_pairwise_kappa
    0           s1               0.812                0.514
    1           s2               0.650                0.394
    2           s3               0.550                0.308
    3           s4               0.612                0.393
    4           s5               0.350                0.173
    """
    annotations = require_annotations(annotations, analysis="annotator_agreement")
    counts = label_counts(annotations)  # also checks one label per (item, annotator)
    item, annot, label, _ = annotations.codes()
    used, label_code = np.unique(label, return_inverse=True)
    counts = counts[:, used]
    n_annot = annotations.n_annotators
    credit, has_others = _majority_credit(item, label_code, counts)
    n_items = np.bincount(annot, minlength=n_annot)
    n_majority = np.bincount(annot, weights=has_others, minlength=n_annot).astype(np.int64)
    total = np.bincount(annot, weights=credit, minlength=n_annot)
    with np.errstate(invalid="ignore", divide="ignore"):
        majority = np.where(n_majority > 0, total / n_majority, np.nan)
    kappa, shared = _pairwise_kappa(item, annot, label_code, annotations.n_items, n_annot)
    return AnnotatorAgreement(
        annotators=tuple(annotations.annotators),
        n_items=n_items,
        majority_agreement=majority,
        n_majority_items=n_majority,
        pairwise_kappa=kappa,
        n_shared=shared,
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
        Weight of an annotator whose agreement is undefined (no shared item). Default: the
        median of the defined weights (1.0 if none is defined), a neutral choice that neither
        trusts nor ignores an annotator nobody can be checked against.

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
    if by not in _WEIGHT_RULES:
        raise ValueError(f"by must be one of {_WEIGHT_RULES}; got {by!r}")
    if undefined is not None and (not np.isfinite(undefined) or undefined < 0):
        raise ValueError(f"undefined must be a finite weight >= 0 or None; got {undefined!r}")
    result = data if isinstance(data, AnnotatorAgreement) else annotator_agreement(data)
    raw = np.maximum(result.mean_kappa, 0.0) if by == "kappa" else result.majority_agreement
    defined = np.isfinite(raw)
    if undefined is None:
        undefined = float(np.median(raw[defined])) if defined.any() else 1.0
    weights = np.where(defined, raw, undefined)
    return {a: float(w) for a, w in zip(result.annotators, weights, strict=True)}
