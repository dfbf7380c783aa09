"""Chance-corrected agreement of a multi-annotator collection, overall and per taxonomy level.

Three coefficients, all computed from one ``(n_items, n_nodes)`` matrix of label counts and
bootstrapped over items with a resample-count matrix (no Python loop per replicate):

* Fleiss' κ (Fleiss 1971), overall and per category (κ_j);
* Krippendorff's α with the nominal metric;
* Krippendorff's α with a taxonomy metric: the disagreement between two labels is their
  distance in the taxonomy (default: path length), so confusing two sibling categories costs
  less than confusing categories in different branches.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth._random import as_generator, draw_seed
from fuzzytruth._resampling import (
    BYTES_PER_DRAW,
    MEMORY_BUDGET,
    percentile_interval,
    replicate_blocks,
    resample_block,
    run_blocks,
)
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection._counts import (
    LabelCounts,
    Metric,
    check_bootstrap,
    collapse_matrix,
    counts_of,
    format_estimate,
    metric_matrix,
)

__all__ = ["AgreementResult", "LevelAgreement", "agreement", "agreement_by_level"]

#: Names of the collection-wide coefficients, in row order.
MEASURES = ("fleiss_kappa", "krippendorff_alpha", "taxonomy_alpha")


# ---------------------------------------------------------------------------- kernel
@dataclass(frozen=True)
class _ItemStatistics:
    """Per-item ingredients of every coefficient, side by side in one ``(n_items, 3C + 2 + M)``
    table; each coefficient is a function of the column sums, so the sums for a batch of
    bootstrap replicates are one matrix product ``resample_counts @ table``.

    Columns: label counts n_ij (C), pair disagreements D_ij = n_ij (n_i − n_ij)/(n_i (n_i − 1))
    (C), shares n_ij / n_i (C), n_i, an indicator of n_i ≥ 2, and for each metric δ the
    observed term (n_i δ n_iᵀ)/(n_i − 1) (M). Items with a single annotator have zeros
    everywhere but in their shares: they enter the chance shares of Fleiss' κ (as in Gwet's
    generalisation) and nothing else.
    """

    table: np.ndarray
    deltas: np.ndarray  # (M, C, C)

    @classmethod
    def build(cls, counts: np.ndarray, deltas: np.ndarray) -> _ItemStatistics:
        n = counts.sum(axis=1)
        pairable = n >= 2
        shares = counts / n[:, None]
        counts = np.where(pairable[:, None], counts, 0.0)
        n = np.where(pairable, n, 0.0)
        safe = np.where(pairable, n, 2.0)  # any n >= 2 where the item is masked out
        disagreement = counts * (n[:, None] - counts) / (safe * (safe - 1))[:, None]
        observed = [np.einsum("ic,ic->i", counts @ d, counts) / (safe - 1) for d in deltas]
        table = np.column_stack([counts, disagreement, shares, n, pairable, *observed])
        return cls(table, deltas)

    def estimate(self, weights: np.ndarray) -> np.ndarray:
        """Coefficients for each row of ``weights`` (``(B, n_items)`` item multiplicities).

        Returns ``(B, 1 + C + M)``: Fleiss' κ, κ_j for every node, α for every metric. Undefined
        values (no pairable item, or no expected disagreement) are NaN.
        """
        c = self.deltas.shape[1]
        sums = weights @ self.table
        node_totals, disagreement, shares = sums[:, :c], sums[:, c : 2 * c], sums[:, 2 * c : 3 * c]
        n_total, n_pairable = sums[:, 3 * c], sums[:, 3 * c + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_disagreement = disagreement / n_pairable[:, None]
            p = shares / weights.sum(axis=1)[:, None]
            pq = p * (1 - p)
            kappa_j = np.where(pq > 0, 1 - mean_disagreement / pq, np.nan)
            pq_sum = pq.sum(axis=1)
            kappa = np.where(pq_sum > 0, 1 - mean_disagreement.sum(axis=1) / pq_sum, np.nan)
            alphas = []
            for m, delta in enumerate(self.deltas):
                expected = np.einsum("bc,bc->b", node_totals @ delta, node_totals)
                observed = sums[:, 3 * c + 2 + m]
                alphas.append(
                    np.where(expected > 0, 1 - (n_total - 1) * observed / expected, np.nan)
                )
        return np.column_stack([kappa, kappa_j, *alphas])


def _bootstrap(
    problems: list[_ItemStatistics],
    n_resamples: int,
    rng: np.random.Generator,
    memory_budget: float,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Point estimates and bootstrap distributions (``(n_values, n_resamples)``) of several
    problems over the same items; every problem sees the same resamples (paired). Blocks of
    replicates are computed by :func:`~fuzzytruth._resampling.run_blocks` (here, or on
    a Dask cluster under :func:`fuzzytruth.distributed.agreement`)."""
    n_items = problems[0].table.shape[0]
    estimates = [p.estimate(np.ones((1, n_items)))[0] for p in problems]
    blocks = replicate_blocks(n_resamples, BYTES_PER_DRAW * n_items, memory_budget)
    parts = run_blocks(_replicate_block, (problems, n_items, draw_seed(rng)), blocks)
    dists = [
        np.concatenate([np.empty((len(e), 0)), *(part[i] for part in parts)], axis=1)
        for i, e in enumerate(estimates)
    ]
    return estimates, dists


def _replicate_block(
    shared: tuple[list[_ItemStatistics], int, int], start: int, stop: int
) -> list[np.ndarray]:
    """Every problem's ``(n_values, stop - start)`` values on replicates ``start .. stop-1``."""
    problems, n_items, seed = shared
    w = resample_block(n_items, seed, start, stop)
    return [problem.estimate(w).T for problem in problems]


def _check_pairable(counts: np.ndarray) -> int:
    """Number of items with a single annotator; an error when no item has two."""
    single = counts.sum(axis=1) < 2
    if single.all():
        raise ValueError(
            "no item has two or more annotators: agreement is undefined (every coefficient "
            "compares labels given to the same item)"
        )
    return int(single.sum())


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class AgreementResult:
    """Agreement coefficients of a collection with their bootstrap distributions.

    Rows are the three collection-wide coefficients (``category`` None) followed by Fleiss'
    per-category κ_j, measure ``"label_kappa"``, of every category that was used as a label
    at least once. κ_j is computed on the raw labels: an item counts for j only when an
    annotator chose j itself, not a descendant of j. (The κ of "in ω or below", on labels
    closed under the taxonomy, is ``closed_kappa`` of
    :func:`~fuzzytruth.collection.category_reliability`; the two coincide on leaves.)

    Attributes
    ----------
    measure : tuple of str
        ``"fleiss_kappa"``, ``"krippendorff_alpha"``, ``"taxonomy_alpha"`` or ``"label_kappa"``
        per row.
    category : tuple
        None for collection-wide rows; the category of a κ_j row.
    estimate : numpy.ndarray
        Point estimate per row (NaN where undefined).
    bootstrap_distribution : numpy.ndarray
        ``(n_rows, n_resamples)`` replicates over items (NaN where undefined in a replicate).
    confidence_level : float
        Default level of :meth:`confidence_interval` and :meth:`to_frame`.
    n_items : int
        Items (the unit the bootstrap resamples).
    n_single_annotator_items : int
        Items with a single annotator: they only enter Fleiss' chance shares.
    """

    measure: tuple[str, ...]
    category: tuple[Hashable | None, ...]
    estimate: np.ndarray
    bootstrap_distribution: np.ndarray
    confidence_level: float
    n_items: int
    n_single_annotator_items: int

    def __repr__(self) -> str:
        low, high = self.confidence_interval()
        shown = [
            f"{m}={format_estimate(v, lo, hi)}"
            for m, c, v, lo, hi in zip(self.measure, self.category, self.estimate, low, high,
                                       strict=True)
            if c is None
        ]
        n_labels = sum(c is not None for c in self.category)
        return (
            f"AgreementResult({', '.join(shown)}; label_kappa for {n_labels} categories; "
            f"n_items={self.n_items}, n_resamples={self.bootstrap_distribution.shape[1]})"
        )

    def value(self, measure: str, category: Hashable | None = None) -> float:
        """The point estimate of one row.

        Examples
        --------
        >>> from fuzzytruth.datasets.fleiss import fleiss_1971
        >>> agreement(fleiss_1971().annotations, n_resamples=0).value("fleiss_kappa")
        0.4302445
        """
        for m, c, v in zip(self.measure, self.category, self.estimate, strict=True):
            if m == measure and c == category:
                return float(v)
        raise ValueError(
            f"no row with measure={measure!r} and category={category!r}; measures are "
            f"{sorted(set(self.measure))} and categories {[c for c in self.category if c]}"
        )

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Percentile bootstrap interval per row (NaN without replicates).

        Replicates in which a coefficient is undefined (e.g. a resample with no expected
        disagreement, or without the category) are left out of its interval.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        check_bootstrap(0, level)
        return percentile_interval(self.bootstrap_distribution, level)

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table ``measure, category, value, ci_low, ci_high, confidence_level,
        n_items``."""
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        return pd.DataFrame(
            {
                "measure": list(self.measure),
                "category": pd.Series(list(self.category), dtype=object),
                "value": self.estimate,
                "ci_low": low,
                "ci_high": high,
                "confidence_level": level,
                "n_items": self.n_items,
            }
        )


@dataclass(frozen=True)
class LevelAgreement:
    """Agreement after collapsing every label to its ancestor at each depth of the taxonomy.

    Attributes
    ----------
    depth : numpy.ndarray
        Depth of each row (0 is the root).
    measure : tuple of str
        Coefficient of each row: ``"fleiss_kappa"``, ``"krippendorff_alpha"`` or
        ``"taxonomy_alpha"``.
    estimate : numpy.ndarray
        Point estimate per row; NaN where undefined (always at depth 0).
    bootstrap_distribution : numpy.ndarray
        ``(n_rows, n_resamples)``; one set of item resamples is shared by all depths.
    n_categories : numpy.ndarray
        Number of distinct categories used as labels after collapsing to the row's depth.
    confidence_level : float
        Default level of :meth:`confidence_interval` and :meth:`to_frame`.
    n_items : int
        Items (the unit the bootstrap resamples).
    """

    depth: np.ndarray
    measure: tuple[str, ...]
    estimate: np.ndarray
    bootstrap_distribution: np.ndarray
    n_categories: np.ndarray
    confidence_level: float
    n_items: int

    def __repr__(self) -> str:
        low, high = self.confidence_interval()
        shown = [
            f"{d}: {format_estimate(v, lo, hi)}"
            for d, m, v, lo, hi in zip(self.depth, self.measure, self.estimate, low, high,
                                       strict=True)
            if m == "taxonomy_alpha" and d > 0
        ]
        return (
            f"LevelAgreement(taxonomy_alpha by depth {{{', '.join(shown)}}}; "
            f"n_items={self.n_items}, n_resamples={self.bootstrap_distribution.shape[1]})"
        )

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Percentile bootstrap interval per row, leaving out undefined replicates."""
        level = self.confidence_level if confidence_level is None else confidence_level
        check_bootstrap(0, level)
        return percentile_interval(self.bootstrap_distribution, level)

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table ``depth, measure, value, ci_low, ci_high, confidence_level,
        n_categories``."""
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        return pd.DataFrame(
            {
                "depth": self.depth,
                "measure": list(self.measure),
                "value": self.estimate,
                "ci_low": low,
                "ci_high": high,
                "confidence_level": level,
                "n_categories": self.n_categories,
            }
        )


# ---------------------------------------------------------------------------- public API
def agreement(
    annotations: Annotations | LabelCounts,
    *,
    metric: Metric = "path",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> AgreementResult:
    """Fleiss' κ (overall and per category), nominal α and taxonomy α, with bootstrap CIs.

    Parameters
    ----------
    annotations : Annotations
        One label per (item, annotator); items may have different numbers of annotators (or
        the :class:`~fuzzytruth.collection._counts.LabelCounts` of such annotations, which
        the Dask back end assembles from item partitions).
        Needs raw labels: a :class:`~fuzzytruth.truth.membership.Membership` is refused. Annotator
        weights are ignored (every label counts once).
    metric : {"path", "squared_path", "nominal"}, array or callable
        Disagreement δ(a, b) between two labels for ``taxonomy_alpha``. ``"path"`` (default):
        number of edges between a and b (:meth:`~fuzzytruth.taxonomy.Taxonomy.distance_matrix`).
        ``"squared_path"``: its square. Or an ``(n_nodes, n_nodes)`` matrix in taxonomy order,
        or a function ``f(a, b)`` of two node names; either must be symmetric, >= 0 and 0
        between a label and itself.
    n_resamples : int
        Bootstrap replicates over items (default 1000). ``0`` gives the point estimates alone
        (NaN intervals, an empty ``bootstrap_distribution``), in the time of one pass over the
        label counts; ask for it when only the values are wanted.
    confidence_level : float
        Level of the percentile intervals (default 0.95).
    rng : numpy.random.Generator or int, optional
        Source of the item resamples (a seed is passed to :func:`numpy.random.default_rng`).
    memory_budget : float
        Bytes the temporaries of one block of replicates may take (default 64e6). Replicates
        are drawn in blocks of ``memory_budget / (24 × n_items)``, each draw keyed by (seed,
        replicate, draw) with a counter-based generator, so the replicates do not depend on
        the budget nor on where a block is computed (:func:`fuzzytruth.distributed.agreement`;
        the values change with the budget only by the rounding of the matrix products); memory
        stays bounded whatever the number of items (ImageNet ReaL,
        185k items: about 50 MB in all).

    Returns
    -------
    AgreementResult

    Notes
    -----
    Let n_ij be the number of annotators who gave item i label j and n_i = Σ_j n_ij.

    **Fleiss' κ** (Fleiss 1971), generalised to unequal n_i as in Gwet (2014, *Handbook of
    Inter-Rater Reliability*, 4th ed.; R ``irrCAC::fleiss.kappa.raw``): with
    D_ij = n_ij (n_i − n_ij) / (n_i (n_i − 1)), D̄_j its mean over the items with n_i ≥ 2, and
    π_j = mean over all items of n_ij / n_i, κ_j = 1 − D̄_j / (π_j (1 − π_j)) and
    κ = 1 − Σ_j D̄_j / Σ_j π_j (1 − π_j) = (P_a − P_e)/(1 − P_e) with P_a the mean pair
    agreement and P_e = Σ_j π_j². With equal n_i these are Fleiss's formulas (κ equals
    ``statsmodels.stats.inter_rater.fleiss_kappa``, κ_j the per-category values of R's
    ``irr::kappam.fleiss(detail = TRUE)``). Items with a single annotator enter π only. κ_j is
    reported for the categories used at least once; it is NaN in a replicate that lacks the
    category. κ is NaN when a single category is used (no expected disagreement).

    **Krippendorff's α** = 1 − (n − 1) Σ_i (n_i δ n_iᵀ)/(n_i − 1) / (n_· δ n_·ᵀ), with n_i the
    label-count row of item i, n_· = Σ_i n_i and n the number of labels, all over the items
    with n_i ≥ 2 (Krippendorff's coincidence-matrix form, which handles unequal n_i; the
    items with a single annotator are unpairable and drop out). ``krippendorff_alpha`` uses
    the nominal δ (0 on the diagonal, 1 elsewhere), ``taxonomy_alpha`` the chosen metric. α
    is NaN when the expected disagreement is 0 (every label the same).

    **Why path length.** In a tree, the number of edges between labels a and b is the number of
    categories ω for which exactly one of the two labels says "the item is in ω" (the
    symmetric difference of their ancestor sets): the Hamming distance between the two
    annotators' membership vectors (Santini eq. 6). Siblings cost 2, cousins 4. On a flat
    taxonomy it is 2 × nominal, and since α is invariant to scaling δ, taxonomy α equals
    nominal α. ``"squared_path"`` weighs distant confusions quadratically; on a chain taxonomy
    it is Krippendorff's interval metric on depths.

    Bootstrap: items are resampled with replacement; the percentile interval leaves out
    replicates in which a coefficient is undefined.

    Examples
    --------
    Fleiss (1971), Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses.

    >>> from fuzzytruth.datasets.fleiss import fleiss_1971
    >>> res = agreement(fleiss_1971().annotations, n_resamples=200, rng=1)
    >>> res.to_frame()[["measure", "category", "value", "ci_low", "ci_high"]].round(3)
                  measure              category  value  ci_low  ci_high
    0        fleiss_kappa                  None  0.430   0.308    0.512
    1  krippendorff_alpha                  None  0.433   0.312    0.515
    2      taxonomy_alpha                  None  0.433   0.312    0.515
    3         label_kappa            depression  0.245   0.033    0.400
    4         label_kappa  personality_disorder  0.245   0.068    0.416
    5         label_kappa         schizophrenia  0.520   0.358    0.648
    6         label_kappa              neurosis  0.471   0.321    0.618
    7         label_kappa                 other  0.566   0.265    0.758
    """
    check_bootstrap(n_resamples, confidence_level, memory_budget)
    counts, taxonomy = counts_of(annotations, analysis="agreement")
    deltas = np.stack([metric_matrix("nominal", taxonomy), metric_matrix(metric, taxonomy)])
    n_single = _check_pairable(counts)
    stats = _ItemStatistics.build(counts, deltas)
    (estimate,), (dist,) = _bootstrap(
        [stats], n_resamples, as_generator(rng), memory_budget
    )
    used = np.flatnonzero(counts.sum(axis=0) > 0)
    n_nodes = len(taxonomy)
    # columns of the kernel: [kappa, kappa_j (all nodes), alpha_nominal, alpha_metric]
    rows = np.r_[0, n_nodes + 1, n_nodes + 2, 1 + used]
    return AgreementResult(
        measure=(*MEASURES, *(["label_kappa"] * len(used))),
        category=(None, None, None, *(taxonomy.nodes[j] for j in used)),
        estimate=estimate[rows],
        bootstrap_distribution=dist[rows],
        confidence_level=confidence_level,
        n_items=counts.shape[0],
        n_single_annotator_items=n_single,
    )


def agreement_by_level(
    annotations: Annotations | LabelCounts,
    *,
    metric: Metric = "path",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> LevelAgreement:
    """Agreement after collapsing labels to each depth of the taxonomy: where do annotators
    stop agreeing?

    At depth d every label is replaced by its ancestor at depth d
    (:meth:`~fuzzytruth.taxonomy.Taxonomy.ancestor_at_depth`); a label shallower than d stays
    itself (an annotator who said "people" still says "people" when the others are compared at
    the level of "crowd" vs "group": it is the most specific answer that annotator gave). In a
    DAG the first ancestor found breadth-first at depth d is used. Then the three coefficients
    of :func:`agreement` are computed for every depth from 0 to the taxonomy's maximum depth.

    At depth 0 every label is the root, no disagreement is possible or expected, and all
    coefficients are undefined (NaN), as they are at any depth where one category remains.
    The item resamples are shared by all depths, so intervals at two depths are paired.

    Parameters
    ----------
    annotations : Annotations
        As for :func:`agreement` (raw labels needed).
    metric, n_resamples, confidence_level, rng, memory_budget
        As for :func:`agreement`; the taxonomy metric is taken between the collapsed labels.

    Returns
    -------
    LevelAgreement

    Examples
    --------
    >>> import pandas as pd
    >>> from fuzzytruth import Annotations, Taxonomy
    >>> tax = Taxonomy.from_nested({"all": {"people": ["single", "crowd"],
    ...                                     "scenery": ["city", "sea"]}})
    >>> df = pd.DataFrame({"item_id": list("aaabbbccc"), "annotator_id": list("xyz") * 3,
    ...                    "label": ["single", "crowd", "crowd", "city", "sea", "city",
    ...                              "single", "single", "sea"]})
    >>> table = agreement_by_level(Annotations.from_frame(df, taxonomy=tax),
    ...                            n_resamples=0).to_frame()
    >>> table.query("measure == 'krippendorff_alpha'")[["depth", "value", "n_categories"]]
       depth  value  n_categories
    1      0    NaN             1
    4      1    0.6             2
    7      2    0.2             4
    """
    check_bootstrap(n_resamples, confidence_level, memory_budget)
    counts, taxonomy = counts_of(annotations, analysis="agreement_by_level")
    deltas = np.stack([metric_matrix("nominal", taxonomy), metric_matrix(metric, taxonomy)])
    _check_pairable(counts)
    depths = np.arange(int(taxonomy.depths.max()) + 1)
    level_counts = [counts @ collapse_matrix(taxonomy, int(d)) for d in depths]
    problems = [_ItemStatistics.build(c, deltas) for c in level_counts]
    estimates, dists = _bootstrap(
        problems, n_resamples, as_generator(rng), memory_budget
    )
    n_nodes = len(taxonomy)
    rows = [0, n_nodes + 1, n_nodes + 2]
    return LevelAgreement(
        depth=np.repeat(depths, len(MEASURES)),
        measure=MEASURES * len(depths),
        estimate=np.concatenate([e[rows] for e in estimates]),
        bootstrap_distribution=np.concatenate([d[rows] for d in dists]),
        n_categories=np.repeat(
            [int((c.sum(axis=0) > 0).sum()) for c in level_counts], len(MEASURES)
        ),
        confidence_level=confidence_level,
        n_items=counts.shape[0],
    )
