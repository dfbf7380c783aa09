"""Chance-corrected agreement of a multi-annotator collection, overall and per taxonomy level.

Three coefficients, all computed from one sparse ``(n_items, n_nodes)`` table of label counts
and bootstrapped over items, blocks of replicates at a time (no Python loop per replicate nor
per item; nothing of size items × nodes):

* Fleiss' κ (Fleiss 1971), overall and per category (κ_j);
* Krippendorff's α with the nominal metric;
* Krippendorff's α with a taxonomy metric: the disagreement between two labels is their
  distance in the taxonomy (default: path length), so confusing two sibling categories costs
  less than confusing categories in different branches.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._order import name_order, ranks
from fuzzytruth._random import draw_seed
from fuzzytruth._resampling import (
    BYTES_PER_DRAW,
    MEMORY_BUDGET,
    percentile_interval,
    replicate_blocks,
    resample_block,
    run_blocks,
)
from fuzzytruth._scaling import binary_exponent
from fuzzytruth.annotations import Annotations
from fuzzytruth.collection._counts import (
    LabelCounts,
    Metric,
    check_bootstrap,
    counts_of,
    format_estimate,
    metric_matrix,
)
from fuzzytruth.collection._kernels import DistinctColumns, weighted_column_sums
from fuzzytruth.collection._label_metric import MetricTable, TreePath
from fuzzytruth.collection._levels import LevelTable
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["AgreementResult", "LevelAgreement", "agreement", "agreement_by_level"]

#: Names of the collection-wide coefficients, in row order.
MEASURES = ("fleiss_kappa", "krippendorff_alpha", "taxonomy_alpha")

#: Bytes of the temporaries of one label pair of one item (the observed disagreement of a
#: taxonomy metric is summed over the pairs of labels of each item, items in budgeted chunks),
#: besides the metric's own (``bytes_per_value``).
_BYTES_PER_PAIR = 40
#: Bytes of the per-replicate temporaries of one column of an item table (its sum, the
#: coefficients derived from it).
_BYTES_PER_COLUMN = 64


# ---------------------------------------------------------------------------- kernel
@dataclass(frozen=True)
class _ItemStatistics:
    """Per-item ingredients of every coefficient, side by side in one sparse ``(n_items, K)``
    table; each coefficient is a function of the column sums, so the sums of a bootstrap
    replicate are its resample counts times the table. The values are whole numbers (but for
    a taxonomy metric with fractional values), so these sums are exact whatever the order
    they are added in.

    With n_ij the count of label j (one of the U labels used) on item i and n_i = Σ_j n_ij,
    items are grouped by their number of labels m = n_i (few groups: 5 labels per item is
    one). The columns are, per group g: n_ij for every label j used in g ("A" columns), and
    n_ij² − n_ij where n_ij ≥ 2 (per label with ``per_category``, else one column for the
    group: "Q" columns), a count of the group's items, and Σ_ab n_ia n_ib δ_ab for the
    taxonomy metric δ (unless it is nominal). Per label given, one value, plus one where
    annotators repeat a label: about 1–2 stored values per label given, whatever the number of
    categories. :meth:`estimate` turns the group sums into the coefficients' sums (π n_ij,
    the shares n_ij / n_i, the pair disagreements n_ij (n_i − n_ij) / (n_i (n_i − 1)), the
    observed terms) with sparse maps of fixed summation order.

    Every difference is taken between whole numbers, before any division: the disagreeing
    pairs Σ_i n_ij (m − n_ij) = (m − 1) A − Q of a label, and m (m − 1) N − Q of a group of N
    items, and 1 − π_j from the labels other than j, N m − A. As 1 minus a rounded agreement
    or share they kept 10 significant digits on an item with 10⁶ labels and two dissenters
    (its pairs agree to 1 − 4e-6; κ and α were 3e-10 off, κ_j 1e-9). The sums and products
    are exact while below 2⁵³ (N m² < 9e15: m = 10⁶ labels on up to 9,000 items). Group sums
    are divided by m (or m (m − 1)), never multiplied by a rounded reciprocal, so where every
    label is j, π_j is 1 and 1 − π_j is 0 exactly (49 × (1/49) rounds below 1), and the
    coefficients that are then undefined are NaN.
    """

    n_columns: int  # K, the width of the table
    n_labels: int
    sizes: np.ndarray  # (G,) m_g, the number of labels of the items of group g
    maps: dict[str, sparse.csr_array]  # group sums -> per-label and per-group quantities
    a_group: np.ndarray  # (n_a,) the group g of each A column
    a_sizes: np.ndarray  # (n_a,) m_g of the group of each A column
    q_to_a: np.ndarray | None  # (n_q,) the A column of each Q column (per_category only)
    per_category: bool
    metric: MetricTable | TreePath | None  # δ between (at least) the used labels; None: nominal
    metric_at: np.ndarray | None  # (U,) the used labels' positions in metric; None: all, in order

    @classmethod
    def build(
        cls, counts: sparse.csr_array, metric: MetricTable | TreePath | None, *,
        per_category: bool, memory_budget: float, metric_at: np.ndarray | None = None,
    ) -> tuple[_ItemStatistics, sparse.csr_array]:
        """The statistics and their ``(n_items, K)`` table, from ``(n_items, U)`` counts whose
        columns are the labels used. ``metric_at`` (when given) places those labels in
        ``metric``, shared with other statistics (the depths of :func:`agreement_by_level`),
        which read it in place: no ``(U, U)`` block kept per depth (a chain 1,000 deep held
        2.7 GB of blocks for 2,000 items)."""
        n_items, u = counts.shape
        sizes, group = _groups_by_size(counts)
        n_groups = len(sizes)
        row = np.repeat(np.arange(n_items), np.diff(counts.indptr))
        value, key = counts.data, group[row] * u + counts.indices  # key: (group, label)
        a_keys, a_col = np.unique(key, return_inverse=True)
        repeated = value >= 2
        if per_category:
            q_keys, q_col = np.unique(key[repeated], return_inverse=True)
        else:
            q_keys, q_col = None, group[row[repeated]]
        stats = cls.of_keys(sizes, u, a_keys, metric, metric_at=metric_at, q_keys=q_keys)
        n_a, n_q = len(a_keys), stats.maps["q_sum"].shape[1]
        parts = [
            (row, a_col, value),
            (row[repeated], n_a + q_col, value[repeated] * (value[repeated] - 1)),
            (np.arange(n_items), n_a + n_q + group, np.ones(n_items)),
        ]
        if metric is not None:
            parts.append((np.arange(n_items), n_a + n_q + n_groups + group,
                          _observed(counts, metric, metric_at, memory_budget)))
        index = np.int32 if max(n_items, stats.n_columns) < 2**31 else np.int64
        rows = np.concatenate([r for r, _, _ in parts]).astype(index)
        cols = np.concatenate([c for _, c, _ in parts]).astype(index)
        vals = np.concatenate([v for _, _, v in parts])
        del parts
        table = sparse.csr_array((vals, (rows, cols)), shape=(n_items, stats.n_columns))
        table.eliminate_zeros()
        return stats, table

    @classmethod
    def of_keys(
        cls, sizes: np.ndarray, u: int, a_keys: np.ndarray,
        metric: MetricTable | TreePath | None, *, metric_at: np.ndarray | None = None,
        q_keys: np.ndarray | None = None,
    ) -> _ItemStatistics:
        """The statistics of a table whose items fall in groups of ``sizes`` labels, with
        the A columns ``a_keys`` (group × ``u`` + label, ascending) and, per label
        (``per_category``), the Q columns ``q_keys`` (else one per group)."""
        q_group = np.arange(len(sizes)) if q_keys is None else q_keys // u
        width = len(a_keys) + len(q_group) + len(sizes) * (2 if metric is not None else 1)
        a_group = a_keys // u
        q_to_a = None if q_keys is None else np.searchsorted(a_keys, q_keys)
        return cls(width, u, sizes, _maps(sizes, u, a_keys, q_group), a_group, sizes[a_group],
                   q_to_a, q_keys is not None, metric, metric_at)

    @property
    def n_values(self) -> int:
        """Values per replicate: κ, nominal α, taxonomy α, then κ_j of every label used."""
        return len(MEASURES) + (self.n_labels if self.per_category else 0)

    def estimate(self, sums: np.ndarray, n_items: int, *, point: bool = False) -> np.ndarray:
        """Coefficients from the column sums ``(B, K)`` of a replicate each. Undefined values
        (no pairable item, or no expected disagreement) are NaN."""
        # numpy's row sums add up in an order that depends on the layout (taxonomy α moved
        # by one ulp in a tenth of the replicates given in F order)
        sums = np.ascontiguousarray(sums)
        maps, sizes = self.maps, self.sizes
        n_a, n_q, n_groups = maps["share"].shape[1], maps["q_sum"].shape[1], len(sizes)
        a, q = sums[:, :n_a], sums[:, n_a : n_a + n_q]
        in_group = sums[:, n_a + n_q : n_a + n_q + n_groups]  # items drawn per group
        pairable = (sizes >= 2).astype(float)
        safe = np.maximum(sizes, 2.0)
        totals = _through(maps["total"], a)  # Σ π_i n_ij per label
        n_total = _dot(in_group, sizes * pairable)
        n_pairable = _dot(in_group, pairable)
        # the ordered pairs of an item's labels that differ, Σ_j n_ij (n_i − n_ij), per group:
        # n_i (n_i − 1) − Σ_j (n_ij² − n_ij) for each of its items, in whole numbers
        pairs = in_group * (sizes * (sizes - 1)) - _through(maps["q_sum"], q)
        # Σ_j D_ij = pairs / (n_i (n_i − 1)) and the nominal observed term pairs / (n_i − 1)
        disagreement = _dot(pairs / (safe * (safe - 1)), pairable)
        observed = _dot(pairs / (safe - 1), pairable)
        shares = a / self.a_sizes  # Σ n_ij / n_i over a group's items
        # Σ (n_i − n_ij) / n_i over all items, for 1 − π_j: the items of the groups without j,
        # then the labels other than j of the others (whole numbers until the division)
        others = in_group[:, self.a_group]
        absent = n_items - _through(maps["share"], others)
        others *= self.a_sizes
        others -= a
        others /= self.a_sizes
        rest = absent + _through(maps["share"], others)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = _through(maps["share"], shares) / n_items
            pq = p * (rest / n_items)
            pq_sum = pq.sum(axis=1)
            kappa = np.where(pq_sum > 0, 1 - disagreement / n_pairable / pq_sum, np.nan)
            # Σ_j t_j (n − t_j), not n² − Σ_j t_j²: no cancellation when one label dominates
            nominal_expected = (totals * (n_total[:, None] - totals)).sum(axis=1)
            alpha = np.where(nominal_expected > 0,
                             1 - (n_total - 1) * observed / nominal_expected, np.nan)
            if self.metric is None:
                taxonomy_alpha = alpha
            else:
                metric_observed = _dot(sums[:, n_a + n_q + n_groups :], pairable / (safe - 1))
                expected = (np.array([self.metric.point_form(totals[0], self.metric_at)])
                            if point else self.metric.quadratic_forms(totals, self.metric_at))
                taxonomy_alpha = np.where(
                    expected > 0, 1 - (n_total - 1) * metric_observed / expected, np.nan
                )
            columns = [kappa, alpha, taxonomy_alpha]
            if self.per_category:
                # Σ_i n_ij (n_i − n_ij) of label j in a group: (m − 1) A − Q, whole numbers
                label_pairs = a * (self.a_sizes - 1)
                label_pairs[:, self.q_to_a] -= q
                label_pairs /= np.maximum(self.a_sizes * (self.a_sizes - 1), 1)
                mean_disagreement = _through(maps["share"], label_pairs) / n_pairable[:, None]
                columns.append(np.where(pq > 0, 1 - mean_disagreement / pq, np.nan))
        return np.column_stack(columns)


def _groups_by_size(counts: sparse.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """The items' groups by number of labels: the sizes m_g, ascending, and each item's
    group (the grouping of every item table of the coefficients, and of the level table)."""
    return np.unique(counts.sum(axis=1), return_inverse=True)


def _maps(
    sizes: np.ndarray, u: int, a_keys: np.ndarray, q_group: np.ndarray
) -> dict[str, sparse.csr_array]:
    """Sparse 0/1 maps from group sums to what the coefficients add up, each ``(out, in)``
    CSR so that :func:`_through` sums every output in a fixed order: per label, the totals
    over pairable items (``total``, from the A sums) and the A columns of the label
    (``share``: the shares, pair disagreements and rests computed from each); per group, the
    Q sums (``q_sum``)."""
    m = sizes[a_keys // u]
    label = a_keys % u
    pairable = (m >= 2).astype(float)

    def to_labels(weight: np.ndarray, labels: np.ndarray, n_in: int) -> sparse.csr_array:
        return sparse.csr_array((weight, (labels, np.arange(n_in))), shape=(u, n_in))

    return {
        "total": to_labels(pairable, label, len(a_keys)),
        "share": to_labels(np.ones(len(a_keys)), label, len(a_keys)),
        "q_sum": sparse.csr_array((np.ones(len(q_group)), (q_group, np.arange(len(q_group)))),
                                  shape=(len(sizes), len(q_group))),
    }


def _through(mapping: sparse.csr_array, sums: np.ndarray) -> np.ndarray:
    """``sums @ mapping.T`` for a block of replicates ``(B, n_in)``: ``(B, n_out)``,
    C-ordered, each output added up over its inputs in one fixed order (scipy's CSR product
    with several vectors: the same for any B)."""
    return np.ascontiguousarray((mapping @ np.ascontiguousarray(sums.T)).T)


def _dot(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``x @ weights`` row by row, each row added up the same way whatever the number of rows
    (a BLAS product's rounding may depend on it)."""
    return (x * weights).sum(axis=1)


def _observed(
    counts: sparse.csr_array, metric: MetricTable | TreePath, at: np.ndarray | None,
    memory_budget: float,
) -> np.ndarray:
    """``(n_items,)`` n_i δ n_iᵀ of every row of ``counts`` (δ symmetric, zero diagonal: twice
    the sum over the pairs a < b of the item's labels), items with the same number k of
    stored labels together, ``(items, pairs)`` at a time in chunks sized from the budget
    (never an items × labels table)."""
    out = np.zeros(counts.shape[0])
    per_item = np.diff(counts.indptr)
    for k in np.unique(per_item[per_item >= 2]):
        items = np.flatnonzero(per_item == k)
        first, second = np.triu_indices(k, 1)
        per_pair = _BYTES_PER_PAIR + metric.bytes_per_value
        step = max(1, int(memory_budget // (per_pair * len(first))))
        for start in range(0, len(items), step):
            chunk = items[start : start + step]
            entries = counts.indptr[chunk][:, None] + np.arange(k)
            value, label = counts.data[entries], counts.indices[entries]
            if at is not None:  # the labels' positions in the metric
                label = at[label]
            terms = metric.values(label[:, first], label[:, second])
            terms *= value[:, first]
            terms *= value[:, second]
            # pair by pair: a row sum's rounding depends on the array's layout, which fancy
            # indexing picks by the chunk's shape (and the chunk on the memory budget)
            total = np.zeros(len(chunk))
            for pair in range(len(first)):
                total += terms[:, pair]
            out[chunk] = 2 * total
    return out


def _bootstrap(
    stats: list[_ItemStatistics],
    columns: DistinctColumns,
    n_resamples: int,
    seed: int,
    memory_budget: float,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Point estimates and bootstrap distributions (``(n_values, n_resamples)``) of several
    problems over the same items (their statistics, and their tables side by side as
    ``columns``: each distinct column summed once, with the same bits, since a column's sums
    do not depend on the others); every problem sees the resamples of ``seed`` (paired, also
    with another call's problems given the same seed: the draws are keyed). Blocks of
    replicates are computed by :func:`~fuzzytruth._resampling.run_blocks` (here, or on a Dask
    cluster under :func:`fuzzytruth.distributed.agreement`)."""
    table = columns.table()
    n_items = table.shape[0]
    # the distinct column of each of a problem's columns
    copies = [c[0] for c in _split(columns.copies[None, :], stats)]

    def values(sums: np.ndarray, *, point: bool = False) -> list[np.ndarray]:
        # one problem's columns at a time, in C order (x[:, index] is F order: a copy more)
        return [p.estimate(np.take(sums, c, axis=1), n_items, point=point)
                for p, c in zip(stats, copies, strict=True)]

    point = values(np.asarray(table.sum(axis=0))[None, :], point=True)
    return ([e[0] for e in point],
            _replicates(table, seed, values, stats, n_resamples, memory_budget))


def _replicates(
    table: sparse.csr_array, seed: int, values: Callable[[np.ndarray], list[np.ndarray]],
    stats: list[_ItemStatistics], n_resamples: int, memory_budget: float,
) -> list[np.ndarray]:
    """Every problem's ``(n_values, n_resamples)`` bootstrap values: the column sums of
    ``table`` (its items weighted by the resamples of ``seed``) in blocks of replicates sized
    by the draws, computed by :func:`~fuzzytruth._resampling.run_blocks` (here, or on a Dask
    cluster under :func:`fuzzytruth.distributed.agreement`), and ``values(sums)`` (each
    problem's ``(B, n_values)``) on runs of those blocks sized by the sums' width: a call per
    problem and run (a caterpillar 500 deep made 18,500 calls in blocks of 27 replicates, 8 s
    of its 12, where runs of 1,000 make 500). A replicate's values do not depend on the
    replicates computed with it."""
    n_items, width = table.shape
    sum_blocks = replicate_blocks(n_resamples, BYTES_PER_DRAW * n_items + 8 * width,
                                  memory_budget)
    per_estimate = 32 * width + _BYTES_PER_COLUMN * max(p.n_columns for p in stats)
    runs = _runs_of(sum_blocks, max(1, int(memory_budget // per_estimate)))
    parts = [values(np.concatenate(run_blocks(_column_sums, (table, seed), run)))
             for run in runs]
    return [np.concatenate([np.empty((0, p.n_values)), *(part[k] for part in parts)]).T
            for k, p in enumerate(stats)]


def _runs_of(blocks: list[tuple[int, int]], most: int) -> list[list[tuple[int, int]]]:
    """Consecutive ``blocks`` of replicates grouped into runs of at most ``most`` replicates
    (a block larger than that a run of its own)."""
    runs: list[list[tuple[int, int]]] = []
    for start, stop in blocks:
        if runs and stop - runs[-1][0][0] <= most:
            runs[-1].append((start, stop))
        else:
            runs.append([(start, stop)])
    return runs


def _column_sums(shared: tuple[sparse.csr_array, int], start: int, stop: int) -> np.ndarray:
    """``(stop - start, n_columns)`` column sums of the table of ``shared`` (with the seed)
    on replicates ``start .. stop-1``."""
    table, seed = shared
    return weighted_column_sums(table, resample_block(table.shape[0], seed, start, stop))


def _split(sums: np.ndarray, stats: list[_ItemStatistics]) -> list[np.ndarray]:
    """The column sums of tables side by side, cut back into each problem's."""
    edges = np.cumsum([0] + [p.n_columns for p in stats])
    return [sums[:, a:b] for a, b in itertools.pairwise(edges)]


def _check_pairable(counts: sparse.csr_array, n_resamples: int, analysis: str
                    ) -> tuple[int, int]:
    """The number of items with a single annotator and the replicates to draw: an error when
    no item has two annotators; none drawn (NaN intervals, with a warning) when one item has,
    since every resample of the items then compares that item's labels alone (the intervals
    were a point: fleiss_kappa -1.000 [-1.000, -1.000] from one item)."""
    single = counts.sum(axis=1) < 2
    if single.all():
        raise ValueError(
            f"no item has two or more annotators (annotations of {len(single)} item(s), each "
            "with one label): agreement is undefined (every coefficient compares labels given "
            "to the same item)"
        )
    from fuzzytruth.stats.procedures import replicates_to_draw  # scipy.stats: on use only

    n_resamples = replicates_to_draw(
        len(single) - int(single.sum()), n_resamples,
        f"{analysis}: only one item has two or more annotators, so resampling items cannot "
        "vary what the coefficients compare")
    return int(single.sum()), n_resamples


def _collapse(counts: sparse.csr_array, target: np.ndarray) -> sparse.csr_array:
    """The count table with every label column ``j`` moved to ``target[j]`` (counts of labels
    that meet there added up)."""
    moved = sparse.csr_array(
        (counts.data.copy(), target[counts.indices], counts.indptr.copy()), shape=counts.shape
    )
    moved.sum_duplicates()
    return moved


def _used(counts: sparse.csr_array) -> np.ndarray:
    """Columns (taxonomy nodes) used as a label at least once."""
    return np.flatnonzero(counts.sum(axis=0) > 0)


def _by_name(columns: np.ndarray, taxonomy: Taxonomy) -> np.ndarray:
    """``columns`` (taxonomy nodes) in name order (:func:`~fuzzytruth._order.name_order`):
    every sum over labels runs in that order, so that the order of the taxonomy's nodes,
    which follows the order its edges were given in, changes no bit."""
    return _in_rank_order(columns, ranks(name_order(taxonomy.nodes)))


def _in_rank_order(columns: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """``columns`` sorted by ``rank`` (each node's place in name order)."""
    return columns[np.argsort(rank[columns], kind="stable")]


def _compact(counts: sparse.csr_array, used: np.ndarray) -> sparse.csr_array:
    """The count table with the columns of the labels used only, in the order of ``used``."""
    position = np.full(counts.shape[1], -1)
    position[used] = np.arange(len(used))
    compact = sparse.csr_array((counts.data, position[counts.indices], counts.indptr),
                               shape=(counts.shape[0], len(used)))
    compact.sort_indices()  # each item's labels in the order of ``used``
    return compact


def _label_metric(
    metric: Metric, taxonomy: Taxonomy, nodes: np.ndarray, memory_budget: float
) -> MetricTable | TreePath | None:
    """The taxonomy metric between ``nodes``: None for the nominal metric (the coefficients
    compute it in closed form), the tree itself for ``"path"`` and ``"squared_path"`` on a
    tree, else a table (path searches in a DAG in blocks of ``memory_budget``)."""
    if isinstance(metric, str) and metric == "nominal":
        return None
    if isinstance(metric, str) and metric in ("path", "squared_path") and taxonomy.is_tree:
        return TreePath.of(taxonomy, nodes, squared=metric == "squared_path")
    return MetricTable(_unit_scaled(metric_matrix(metric, taxonomy, nodes,
                                                  memory_budget=memory_budget)))


def _unit_scaled(delta: np.ndarray) -> np.ndarray:
    """δ times 2**-k, its largest entry in [0.5, 1) (k that entry's binary exponent; all
    zeros as they are): the coefficients read ratios of sums of δ only, and a power of two
    scales those exactly, so every α keeps its bits, while a metric of subnormal values
    (5e-324 between every two labels) no longer loses its digits in the sums (taxonomy α came
    out -0.032 where it is -0.028, the value of every other scale) and one near the largest
    float no longer overflows them."""
    return np.ldexp(delta, -binary_exponent(delta.max(initial=0.0)))


# ---------------------------------------------------------------------------- results
class _Coefficients:
    """Rows of coefficients with their bootstrap replicates: the interval and the table the
    result classes share."""

    estimate: np.ndarray
    bootstrap_distribution: np.ndarray
    confidence_level: float

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Percentile bootstrap interval per row (NaN without replicates).

        Replicates in which a coefficient is undefined (e.g. a resample with no expected
        disagreement, or without the category) are left out of its interval.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        return percentile_interval(self.bootstrap_distribution, level)

    def _table(self, keys: dict, extra: dict, confidence_level: float | None) -> pd.DataFrame:
        """``keys`` columns, then ``value, ci_low, ci_high, confidence_level``, then ``extra``."""
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        return pd.DataFrame({**keys, "value": self.estimate, "ci_low": low, "ci_high": high,
                             "confidence_level": level, **extra})


@dataclass(frozen=True)
class AgreementResult(_Coefficients):
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
        categories = [c for c in self.category if c is not None]
        raise ValueError(
            f"no row with measure={measure!r} and category={category!r}; measures are "
            f"{sorted(set(self.measure))} and categories {categories}"
        )

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table ``measure, category, value, ci_low, ci_high, confidence_level,
        n_items``."""
        keys = {"measure": list(self.measure),
                "category": pd.Series(list(self.category), dtype=object)}
        return self._table(keys, {"n_items": self.n_items}, confidence_level)


@dataclass(frozen=True)
class LevelAgreement(_Coefficients):
    """Agreement after collapsing every label to its ancestor at each depth of the taxonomy.

    Attributes
    ----------
    depth : numpy.ndarray
        Depth of each row, from 1 to the taxonomy's maximum depth (at the root, depth 0,
        every label is the same and no coefficient is defined: it has no row).
    measure : tuple of str
        Coefficient of each row: ``"fleiss_kappa"``, ``"krippendorff_alpha"`` or
        ``"taxonomy_alpha"``.
    estimate : numpy.ndarray
        Point estimate per row; NaN where undefined (a depth where one category remains).
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
            if m == "taxonomy_alpha"
        ]
        return (
            f"LevelAgreement(taxonomy_alpha by depth {{{', '.join(shown)}}}; "
            f"n_items={self.n_items}, n_resamples={self.bootstrap_distribution.shape[1]})"
        )

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table ``depth, measure, value, ci_low, ci_high, confidence_level,
        n_categories``."""
        keys = {"depth": self.depth, "measure": list(self.measure)}
        return self._table(keys, {"n_categories": self.n_categories}, confidence_level)


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
        ``"squared_path"``: its square. Or an ``(n_nodes, n_nodes)`` matrix in taxonomy order
        (a DataFrame labelled by node names is read by its labels, in any order), or a
        function ``f(a, b)`` of two node names; either must be symmetric, >= 0 and 0 between
        a label and itself.
    n_resamples : int
        Bootstrap replicates over items (default 1000). ``0`` gives the point estimates alone
        (NaN intervals, an empty ``bootstrap_distribution``), in the time of one pass over the
        label counts; ask for it when only the values are wanted. When a single item has
        two or more annotators no replicate is drawn either (every resample would compare
        that item's labels alone), with an ``UnreliableInferenceWarning``.
    confidence_level : float
        Level of the percentile intervals (default 0.95).
    rng : numpy.random.Generator or int, optional
        Source of the item resamples (a seed is passed to :func:`numpy.random.default_rng`).
    memory_budget : float
        Bytes the temporaries of one block of replicates may take (default
        :data:`~fuzzytruth._resampling.MEMORY_BUDGET`). Replicates are drawn in blocks of
        about ``memory_budget / (24 × n_items)``, each draw keyed by (seed, replicate, draw)
        with a counter-based generator, and each replicate's sums are added up item by item
        in a fixed order: the numbers do not depend on the budget, on the blocks, nor on
        where a block is computed (:func:`fuzzytruth.distributed.agreement`), bit for bit.
        The label counts are sparse (one stored value per label given, never items ×
        categories), so memory grows with the number of labels, not with items × nodes
        (185,000 items, about 1,000 nodes, 3 to 20 labels per item, 1,000 replicates: at
        most 400 MB above the collection's own, 915 MB in all, and 2.7–6.7 s of CPU, over
        the twelve shapes of ``benchmarks/agreement.py``). The ``"path"`` metrics' searches
        from the labels used run in blocks of the same budget
        (:meth:`~fuzzytruth.taxonomy.Taxonomy.distance_matrix`).

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
    replicates in which a coefficient is undefined. Replicate r counts the items in sorted
    id order, so the replicates, and every number, do not depend on the order of the rows
    of the annotation table. A draw is a function of the seed, the replicate's number and
    the number of items only: the same seed gives the same replicates, and adding or
    removing an item changes every replicate (intervals of two collections are not paired).
    With fewer than 2 / (1 − confidence_level) − 1 replicates (39 at 0.95) the interval's
    ends are the extreme replicates, and reading it warns (ResamplingResolutionWarning).

    Undefined cases, beside the peers: when a single category is used, statsmodels'
    ``fleiss_kappa`` returns NaN with a RuntimeWarning and ``krippendorff.alpha`` refuses the
    data ("There has to be more than one value in the domain"); here the three coefficients
    are NaN, without a warning. κ_j is NaN when every label is j or none is (in a replicate,
    among the items drawn).

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
    confidence_level = check_bootstrap(n_resamples, confidence_level, memory_budget)
    counts, taxonomy = counts_of(annotations, analysis="agreement")
    n_single, n_resamples = _check_pairable(counts, n_resamples, "agreement")
    used = _used(counts)  # taxonomy order, the order of the κ_j rows
    labels = _by_name(used, taxonomy)  # the order of the sums
    stats, table = _ItemStatistics.build(_compact(counts, labels),
                                         _label_metric(metric, taxonomy, labels, memory_budget),
                                         per_category=True,
                                         memory_budget=memory_budget)
    columns = DistinctColumns(counts.shape[0])
    columns.add(table)
    del table
    (estimate,), (dist,) = _bootstrap([stats], columns, n_resamples, draw_seed(rng),
                                      memory_budget)
    # κ_j back in taxonomy order (used is labels sorted)
    rows = np.r_[np.arange(len(MEASURES)), len(MEASURES) + np.argsort(labels)]
    estimate, dist = estimate[rows], dist[rows]
    return AgreementResult(
        measure=(*MEASURES, *(["label_kappa"] * len(used))),
        category=(None, None, None, *(taxonomy.nodes[j] for j in used)),
        estimate=estimate,
        bootstrap_distribution=dist,
        confidence_level=confidence_level,
        n_items=counts.shape[0],
        n_single_annotator_items=n_single,
    )


def _levels_by_tables(
    counts: sparse.csr_array, taxonomy: Taxonomy, targets: np.ndarray, used: list[np.ndarray],
    several: list[int], nodes: np.ndarray, between: MetricTable | TreePath | None,
    n_resamples: int, seed: int, memory_budget: float,
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The estimates and bootstrap distributions of the depths ``several`` (indices into
    ``targets`` and ``used``), each from its own collapsed table: one depth's table at a time,
    kept as the columns no depth before had, in batches whose distinct columns fit the budget,
    each batch bootstrapped on the same (keyed) resamples (a taxonomy 500 deep held 500
    per-item tables side by side). For a DAG and a metric given as a matrix or a callable
    (on a tree, :func:`_levels_on_tree`)."""
    found, batch = {}, []
    columns = DistinctColumns(counts.shape[0])
    for i in several:
        depth, table = _ItemStatistics.build(
            _compact(_collapse(counts, targets[i]), used[i]), between, per_category=False,
            memory_budget=memory_budget, metric_at=np.searchsorted(nodes, used[i]),
        )
        batch.append((i, depth))
        columns.add(table)
        del table
        if columns.nbytes > memory_budget or i == several[-1]:
            done = _bootstrap([s for _, s in batch], columns, n_resamples, seed, memory_budget)
            found.update(zip([j for j, _ in batch], zip(*done, strict=True), strict=True))
            batch, columns = [], DistinctColumns(counts.shape[0])
    return found


def _levels_on_tree(
    counts: sparse.csr_array, taxonomy: Taxonomy, targets: np.ndarray, used: list[np.ndarray],
    several: list[int], nodes: np.ndarray, between: TreePath | None, n_resamples: int,
    seed: int, memory_budget: float,
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """As :func:`_levels_by_tables`, on a tree with the nominal, path or squared path metric:
    every depth's sums from one per-item table
    (:class:`~fuzzytruth.collection._levels.LevelTable`), the same whole numbers, so the same
    bits."""
    if not counts.has_canonical_format:
        counts = counts.copy()
        counts.sum_duplicates()
    n_items, n_nodes = counts.shape
    sizes, group = _groups_by_size(counts)
    power = 0 if between is None else 2 if between.squared else 1
    levels = LevelTable.build(counts, group, len(sizes), taxonomy, power=power)
    label_group = levels.label_keys // n_nodes
    label_node = levels.label_keys % n_nodes
    stats, maps = [], []
    for i in several:
        position = np.full(n_nodes, -1, dtype=np.int64)
        position[used[i]] = np.arange(len(used[i]))
        # each label column's A column at this depth: (group, its ancestor's place)
        keys = label_group * len(used[i]) + position[targets[i][label_node]]
        a_keys, a_col = np.unique(keys, return_inverse=True)
        stats.append(_ItemStatistics.of_keys(sizes, len(used[i]), a_keys, between,
                                             metric_at=np.searchsorted(nodes, used[i])))
        maps.append(sparse.csr_array((np.ones(len(keys)), (a_col, np.arange(len(keys)))),
                                     shape=(len(a_keys), len(keys))))
    values = functools.partial(_level_values, (levels, stats, maps, several))
    point = values(weighted_column_sums(levels.table, np.ones((1, n_items))), point=True)
    dists = _replicates(levels.table, seed, values, stats, n_resamples, memory_budget)
    return {i: (point[k][0], dists[k]) for k, i in enumerate(several)}


def _level_values(shared: tuple, sums: np.ndarray, *, point: bool = False) -> list[np.ndarray]:
    """Every depth's coefficients ``(B, n_values)`` from the level table's column sums
    ``(B, width)`` (``shared``: the level table, each depth's statistics and label map, the
    depths' indices into the sums)."""
    levels, stats, maps, depth_at = shared
    n_items = levels.table.shape[0]
    labels, in_group, pairs, paths = levels.depth_sums(sums)
    by_label = np.ascontiguousarray(labels.T)  # as _through reads them, once for all depths
    out = []
    for p, to_depth, d in zip(stats, maps, depth_at, strict=True):
        columns = [np.ascontiguousarray((to_depth @ by_label).T), pairs[:, :, d], in_group]
        if paths is not None:
            columns.append(paths[:, :, d])
        out.append(p.estimate(np.concatenate(columns, axis=1), n_items, point=point))
    return out


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

    At depth d every label is replaced by its ancestor at depth d; a label shallower than d
    stays itself (an annotator who said "people" still says "people" when the others are
    compared at the level of "crowd" vs "group": it is the most specific answer that annotator
    gave). In a DAG the first ancestor found breadth-first at depth d is used, each node's
    parents taken in name order, so that the order in which the taxonomy's edges were given
    changes no number (:meth:`~fuzzytruth.taxonomy.Taxonomy.ancestors_at_depths`). Then the
    three coefficients of :func:`agreement` are computed for every depth from 1 to the
    taxonomy's maximum depth.

    Depth 0 has no row: there every label is the root, no disagreement is possible or
    expected, and every coefficient would be undefined. A coefficient is also undefined (NaN)
    at a depth where a single category remains (``n_categories`` 1). The item resamples are
    shared by all depths, so intervals at two depths are paired.

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
    1      1    0.6             2
    4      2    0.2             4
    """
    confidence_level = check_bootstrap(n_resamples, confidence_level, memory_budget)
    counts, taxonomy = counts_of(annotations, analysis="agreement_by_level")
    _, n_resamples = _check_pairable(counts, n_resamples, "agreement_by_level")
    depths = np.arange(1, int(taxonomy.depths.max()) + 1)
    if not len(depths):
        raise ValueError(
            "agreement_by_level needs a taxonomy with a level below its root; this one has "
            "only the root, where every label is the same"
        )
    raw = _used(counts)
    targets = taxonomy.ancestors_at_depths()[depths]
    # the labels left at each depth, in the order of the sums
    rank = ranks(name_order(taxonomy.nodes))
    used = [_in_rank_order(np.unique(target[raw]), rank) for target in targets]
    nodes = np.unique(np.concatenate(used))
    between = _label_metric(metric, taxonomy, nodes, memory_budget)
    # a depth with one category left has every coefficient undefined: not computed (a chain
    # of one-child nodes above the categories is as many such depths)
    several = [i for i, u in enumerate(used) if len(u) > 1]
    estimates = [np.full(len(MEASURES), np.nan) for _ in depths]
    dists = [np.full((len(MEASURES), n_resamples), np.nan) for _ in depths]
    on_tree = taxonomy.is_tree and (between is None or isinstance(between, TreePath))
    levels = _levels_on_tree if on_tree else _levels_by_tables
    seed = draw_seed(rng)
    found = levels(counts, taxonomy, targets, used, several, nodes, between, n_resamples, seed,
                   memory_budget) if several else {}
    for i, (estimate, dist) in found.items():
        estimates[i], dists[i] = estimate, dist
    return LevelAgreement(
        depth=np.repeat(depths, len(MEASURES)),
        measure=MEASURES * len(depths),
        estimate=np.concatenate(estimates),
        bootstrap_distribution=np.concatenate(dists),
        n_categories=np.repeat([len(u) for u in used], len(MEASURES)),
        confidence_level=confidence_level,
        n_items=counts.shape[0],
    )
