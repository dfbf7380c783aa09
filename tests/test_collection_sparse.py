"""The sparse agreement path against a dense brute force (issue 24): point estimates and every
bootstrap replicate on random taxonomies, label sets and metrics; the compiled passes against
numpy, and their bits independent of the block of replicates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from thread_splits import one_and_many

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth._resampling import resample_block, resample_chunks
from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.collection._kernels import (
    DistinctColumns,
    quadratic_forms,
    weighted_column_sums,
)
from fuzzytruth.stats.procedures import UnreliableInferenceWarning


# ---------------------------------------------------------------------------- brute force
def dense_coefficients(counts: np.ndarray, weights: np.ndarray, delta: np.ndarray) -> dict:
    """Fleiss' κ (Gwet's form for unequal numbers of annotators), κ_j, nominal α and α with
    ``delta``, straight from their definitions on a dense ``(n_items, n_nodes)`` table, item
    ``i`` counted ``weights[i]`` times (a bootstrap replicate)."""
    n = counts.sum(axis=1)
    pair = (n >= 2) & (weights > 0)
    w, c, m = weights[pair], counts[pair], n[pair]
    p = (weights[:, None] * counts / n[:, None]).sum(axis=0) / weights.sum()
    pq = p * (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_d = (w[:, None] * c * (m[:, None] - c) / (m * (m - 1))[:, None]).sum(axis=0) / w.sum()
        kappa = 1 - mean_d.sum() / pq.sum() if pq.sum() > 0 else np.nan
        kappa_j = np.where(pq > 0, 1 - mean_d / pq, np.nan)

    def alpha(d: np.ndarray) -> float:
        observed = sum(wi * (ci @ d @ ci) / (mi - 1) for wi, ci, mi in zip(w, c, m, strict=True))
        totals = (w[:, None] * c).sum(axis=0)
        expected = totals @ d @ totals
        return 1 - (totals.sum() - 1) * observed / expected if expected > 0 else np.nan

    nominal = 1.0 - np.eye(len(delta))
    return {"fleiss_kappa": kappa, "krippendorff_alpha": alpha(nominal),
            "taxonomy_alpha": alpha(delta), "label_kappa": kappa_j}


def taxonomy_of(parents: list[int]) -> Taxonomy:
    """Node ``k + 1`` is a child of node ``parents[k]`` (< k + 1): any tree."""
    return Taxonomy.from_edges([(f"n{p}", f"n{k + 1}") for k, p in enumerate(parents)])


@st.composite
def collections(draw):
    """A random tree, items with 1–6 labels (anywhere in the tree, the root included; some
    items with a single annotator), item ids in no particular order, and a metric."""
    parents = draw(st.lists(st.integers(0, 30), min_size=1, max_size=10))
    parents = [min(p, k) for k, p in enumerate(parents)]
    tax = taxonomy_of(parents)
    n_nodes = len(tax)
    labels = draw(st.lists(st.lists(st.integers(0, n_nodes - 1), min_size=1, max_size=6),
                           min_size=2, max_size=14))
    ids = draw(st.permutations(range(len(labels))))
    rows = [(f"item{ids[i]:02d}", f"r{a}", tax.nodes[v])
            for i, row in enumerate(labels) for a, v in enumerate(row)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    kind = draw(st.sampled_from(["path", "squared_path", "nominal", "matrix"]))
    if kind == "matrix":
        upper = np.triu(np.array(draw(st.lists(
            st.floats(0, 5, allow_nan=False), min_size=n_nodes**2, max_size=n_nodes**2
        ))).reshape(n_nodes, n_nodes), 1)
        metric = upper + upper.T
        delta = metric
    else:
        metric = kind
        path = tax.distance_matrix().astype(float)
        delta = {"path": path, "squared_path": path**2, "nominal": 1 - np.eye(n_nodes)}[kind]
    return Annotations.from_frame(frame, taxonomy=tax), metric, delta


def dense_counts(ann: Annotations) -> np.ndarray:
    """``(n_items, n_nodes)`` label counts, items in sorted id order (the bootstrap's order)."""
    frame = ann.to_frame()
    table = pd.crosstab(frame["item_id"], frame["label"])
    return table.reindex(columns=list(ann.taxonomy.nodes), fill_value=0).sort_index().to_numpy(
        dtype=float
    )


def assert_close(got: float, expected: float) -> None:
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


# ---------------------------------------------------------------------------- sparse = dense
def _bootstrapped(function, ann: Annotations, counts: np.ndarray, **options):
    """``function(ann, **options)``; with one item of two or more labels, no replicate and a
    warning (every resample would compare that item alone)."""
    if (counts.sum(axis=1) >= 2).sum() == 1:
        with pytest.warns(UnreliableInferenceWarning, match="only one item"):
            res = function(ann, **options)
        assert res.bootstrap_distribution.shape[1] == 0
        return res
    return function(ann, **options)


@settings(max_examples=40, deadline=None)
@given(collections())
def test_sparse_agreement_equals_the_dense_brute_force(case):
    ann, metric, delta = case
    counts = dense_counts(ann)
    if (counts.sum(axis=1) < 2).all():
        with pytest.raises(ValueError, match="two or more annotators"):
            agreement(ann, metric=metric, n_resamples=0)
        return
    res = _bootstrapped(agreement, ann, counts, metric=metric, n_resamples=4, rng=7)
    (weights,) = list(resample_chunks(ann.n_items, 4, np.random.default_rng(7)))
    weights = weights[: res.bootstrap_distribution.shape[1]]
    used = np.flatnonzero(counts.sum(axis=0) > 0)
    assert [c for c in res.category if c is not None] == [ann.taxonomy.nodes[j] for j in used]
    for column, w in enumerate([np.ones(ann.n_items), *weights]):
        expected = dense_coefficients(counts, w, delta)
        values = res.estimate if column == 0 else res.bootstrap_distribution[:, column - 1]
        for row, (measure, category) in enumerate(zip(res.measure, res.category, strict=True)):
            if measure == "label_kappa":
                want = expected["label_kappa"][ann.taxonomy.index(category)]
            else:
                want = expected[measure]
            assert_close(values[row], want)


@settings(max_examples=25, deadline=None)
@given(collections())
def test_sparse_levels_equal_the_dense_brute_force_on_collapsed_labels(case):
    ann, metric, delta = case
    counts = dense_counts(ann)
    if (counts.sum(axis=1) < 2).all():
        return
    tax = ann.taxonomy
    res = _bootstrapped(agreement_by_level, ann, counts, metric=metric, n_resamples=3, rng=1)
    (weights,) = list(resample_chunks(ann.n_items, 3, np.random.default_rng(1)))
    weights = weights[: res.bootstrap_distribution.shape[1]]
    depths = range(1, int(tax.depths.max()) + 1)
    assert res.depth.tolist() == [d for d in depths for _ in range(3)]
    for d in depths:
        collapse = np.zeros((len(tax), len(tax)))
        collapse[np.arange(len(tax)), tax.indices(tax.ancestor_at_depth(n, d) for n in tax)] = 1
        level = counts @ collapse
        rows = np.flatnonzero(res.depth == d)
        assert (res.n_categories[rows] == (level.sum(axis=0) > 0).sum()).all()
        for column, w in enumerate([np.ones(ann.n_items), *weights]):
            expected = dense_coefficients(level, w, delta)
            values = res.estimate if column == 0 else res.bootstrap_distribution[:, column - 1]
            for row in rows:
                assert_close(values[row], expected[res.measure[row]])


@settings(max_examples=40, deadline=None)
@given(collections(), st.sampled_from(["path", "squared_path", "nominal"]))
def test_levels_on_a_tree_are_the_bits_of_each_depths_own_table(case, metric):
    """On a tree, the nominal and path metrics read every depth from one per-item table
    (steps and differences over the depths): whole numbers, the same bits as the collapsed
    table of each depth, point estimates and every replicate."""
    import importlib
    from unittest import mock

    module = importlib.import_module("fuzzytruth.collection.agreement")
    ann = case[0]
    if (dense_counts(ann).sum(axis=1) >= 2).sum() < 2:
        return
    one_table = agreement_by_level(ann, metric=metric, n_resamples=40, rng=9)
    with mock.patch.object(module, "_levels_on_tree", module._levels_by_tables):
        own_tables = agreement_by_level(ann, metric=metric, n_resamples=40, rng=9)
    np.testing.assert_array_equal(one_table.estimate, own_tables.estimate)
    np.testing.assert_array_equal(one_table.bootstrap_distribution,
                                  own_tables.bootstrap_distribution)


# ---------------------------------------------------------------------------- compiled passes
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 9), st.integers(1, 12))
def test_weighted_column_sums_are_the_product_and_do_not_depend_on_the_block(
    seed, n_items, n_columns, n_rows
):
    rng = np.random.default_rng(seed)
    dense = rng.random((n_items, n_columns)) * (rng.random((n_items, n_columns)) < 0.4)
    table = sparse.csr_array(dense)
    weights = rng.integers(0, 4, size=(n_rows, n_items)).astype(float)
    sums = weighted_column_sums(table, weights)
    np.testing.assert_allclose(sums, weights @ dense, rtol=1e-12, atol=1e-12)
    split = rng.integers(0, n_rows + 1)
    parts = np.vstack([weighted_column_sums(table, weights[:split]),
                       weighted_column_sums(table, weights[split:])])
    assert np.array_equal(parts, sums)  # bit for bit: a replicate does not see the others


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 15), st.integers(1, 12))
def test_quadratic_forms_are_tdt_and_do_not_depend_on_the_block(seed, n_labels, n_rows):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n_labels, n_labels)) * 3, 1)
    delta = upper + upper.T
    totals = rng.integers(0, 50, size=(n_rows, n_labels)).astype(float)
    out = quadratic_forms(totals, delta)
    np.testing.assert_allclose(out, np.einsum("ra,ab,rb->r", totals, delta, totals),
                               rtol=1e-12)
    one_by_one = np.concatenate([quadratic_forms(totals[r : r + 1], delta)
                                 for r in range(n_rows)])
    assert np.array_equal(one_by_one, out)
    # the labels as rows and columns of a larger metric, in any order, read in place: the
    # bits of the block taken out (agreement_by_level's depths share one metric)
    n_more = int(rng.integers(0, 6))
    upper = np.triu(rng.random((n_labels + n_more, n_labels + n_more)) * 3, 1)
    wider = upper + upper.T
    at = rng.permutation(n_labels + n_more)[:n_labels]
    assert np.array_equal(quadratic_forms(totals, wider, at),
                          quadratic_forms(totals, wider[np.ix_(at, at)]))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 12), st.integers(1, 3),
       st.booleans())
def test_distinct_columns_are_the_first_equal_columns(seed, n_items, width, n_tables, repeated):
    rng = np.random.default_rng(seed)
    # few columns to pick from, so that many repeat (the empty column among them)
    pool = rng.integers(0, 3, size=(n_items, 4)) * (rng.random((n_items, 4)) < 0.5) / 2
    dense = pool[:, rng.integers(0, 4, size=width)]
    columns = DistinctColumns(n_items)
    for part in np.array_split(np.arange(width), min(n_tables, width)):  # a table at a time
        table = sparse.csr_array(dense[:, part])
        if repeated:  # the same entries, each value split in two entries of its row, and
            coo = table.tocoo()  # an explicit zero
            table = sparse.csr_array((np.r_[coo.data / 2, coo.data / 2, 0.0],
                                      (np.r_[coo.row, coo.row, 0], np.r_[coo.col, coo.col, 0])),
                                     shape=table.shape)
            table.has_canonical_format = False
        columns.add(table)
    first = [next(k for k in range(width) if np.array_equal(dense[:, k], dense[:, j]))
             for j in range(width)]
    distinct = sorted(set(first))
    assert columns.copies.tolist() == [distinct.index(k) for k in first]
    np.testing.assert_array_equal(columns.table().toarray(), dense[:, distinct])
    # the bytes kept, which size the batches: each distinct entry's row (int32) and value once
    assert columns.nbytes == 12 * np.count_nonzero(dense[:, distinct])


def levels_collection(n_items: int, chain: int = 0) -> Annotations:
    """1 to 10 labels per item on a 3 × 3 × 3 tree, mostly near a true leaf; ``chain``
    one-child nodes between the root and the tree's first level."""
    rng = np.random.default_rng(7)
    tree = {f"g{a}": {f"g{a}{b}": [f"g{a}{b}{c}" for c in range(3)] for b in range(3)}
            for a in range(3)}
    for link in range(chain):
        tree = {f"chain{link}": tree}
    tax = Taxonomy.from_nested({"root": tree})
    leaves = [n for n in tax.nodes if n.startswith("g") and len(n) == 4]
    rows = []
    for item in range(n_items):
        truth = leaves[rng.integers(len(leaves))]
        for annotator in range(rng.integers(1, 11)):
            u = rng.random()
            label = truth if u < 0.6 else truth[:3] if u < 0.75 else leaves[rng.integers(27)]
            rows.append((f"i{item}", f"a{annotator}", label))
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                  taxonomy=tax)


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
@pytest.mark.parametrize("metric", ["path", "nominal"])
def test_equal_columns_summed_once_give_the_bits_of_the_whole_table(monkeypatch, function,
                                                                     metric):
    """The depths of agreement_by_level repeat columns (the items per number of labels at
    every depth), summed once: the same bits as summing the whole table."""
    import importlib

    module = importlib.import_module("fuzzytruth.collection.agreement")
    # the depths' own tables, as for a DAG or a metric other than path and nominal
    monkeypatch.setattr(module, "_levels_on_tree", module._levels_by_tables)
    ann = levels_collection(1000)
    found = []

    class Recorded(DistinctColumns):
        def table(self):
            found.append(len(self.copies) - self.table_width())
            return super().table()

        def table_width(self):
            return len(set(self.copies.tolist()))

    monkeypatch.setattr(module, "DistinctColumns", Recorded)
    summed_once = function(ann, metric=metric, n_resamples=200, rng=3)

    class EveryColumn:  # the tables side by side, every column summed
        def __init__(self, n_rows):
            self.tables, self.nbytes = [], 0

        def add(self, table):
            self.tables.append(sparse.csr_array(table))

        @property
        def copies(self):
            return np.arange(sum(t.shape[1] for t in self.tables))

        def table(self):
            return sparse.csr_array(sparse.hstack(self.tables, format="csr"))

    monkeypatch.setattr(module, "DistinctColumns", EveryColumn)
    every_column = function(ann, metric=metric, n_resamples=200, rng=3)
    assert found and (max(found) > 0 or function is agreement)  # the levels repeat columns
    np.testing.assert_array_equal(summed_once.estimate, every_column.estimate)
    np.testing.assert_array_equal(summed_once.bootstrap_distribution,
                                  every_column.bootstrap_distribution)


@pytest.mark.parametrize("metric", ["path", "squared_path", "nominal"])
def test_a_chain_above_the_categories_shifts_the_depths(metric):
    """A chain of one-child nodes between the root and the categories leaves one category at
    each of its depths (every coefficient undefined, not computed) and moves every other depth
    down by its length, with the same bits: a path between labels below the chain does not
    reach it. With each depth's own table, small memory budgets put the depths in several
    batches, on the same draws."""
    import importlib
    from unittest import mock

    module = importlib.import_module("fuzzytruth.collection.agreement")
    plain = agreement_by_level(levels_collection(400), metric=metric, n_resamples=50, rng=2)
    for budget, tables in ((1e9, False), (3e4, False), (3e4, True)):
        with mock.patch.object(module, "_levels_on_tree",  # each depth's own table
                               module._levels_by_tables if tables else module._levels_on_tree):
            chained = agreement_by_level(levels_collection(400, chain=4), metric=metric,
                                         n_resamples=50, rng=2, memory_budget=budget)
        top = chained.depth <= 4
        assert (chained.n_categories[top] == 1).all()
        assert np.isnan(chained.estimate[top]).all()
        assert np.isnan(chained.bootstrap_distribution[top]).all()
        np.testing.assert_array_equal(chained.depth[~top] - 4, plain.depth)
        np.testing.assert_array_equal(chained.estimate[~top], plain.estimate)
        np.testing.assert_array_equal(chained.bootstrap_distribution[~top],
                                      plain.bootstrap_distribution)


def test_the_coefficients_are_the_same_bits_whatever_the_layout_of_the_sums(monkeypatch):
    """Column sums given in F order (``sums[:, index]`` is) are read as in C order: numpy's
    row sums add up in an order that depends on the layout, and taxonomy α moved by one ulp in
    21–25 of 200 replicates in each of this collection's three depths (13–36 at 1,000 and 3,000
    items; measured by hand, 2026-11-28)."""
    import importlib

    module = importlib.import_module("fuzzytruth.collection.agreement")
    monkeypatch.setattr(module, "_levels_on_tree", module._levels_by_tables)
    problems = []
    bootstrap = module._bootstrap

    def keep(stats, columns, *args):
        problems.append((stats, columns.table(), columns.copies))
        return bootstrap(stats, columns, *args)

    monkeypatch.setattr(module, "_bootstrap", keep)
    agreement_by_level(levels_collection(300), metric="path", n_resamples=0)
    assert problems
    for stats, table, copies in problems:
        sums = weighted_column_sums(table, resample_block(table.shape[0], 5, 0, 200))
        for depth, part in zip(stats, module._split(sums[:, copies], stats), strict=True):
            assert not part.flags.c_contiguous
            np.testing.assert_array_equal(depth.estimate(part, table.shape[0]),
                                          depth.estimate(np.ascontiguousarray(part),
                                                         table.shape[0]))


def wide_collection(n_items: int = 3000, n_labels: int = 9000) -> Annotations:
    """Flat labels, more categories than numpy's reduction buffer (8,192 elements)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(n_labels, size=n_items)
    labels = np.where(rng.random((n_items, 3)) < 0.6, truth[:, None],
                      rng.integers(n_labels, size=(n_items, 3)))
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(n_items), 3),
                          "annotator_id": np.tile(["a", "b", "c"], n_items),
                          "label": [f"c{v}" for v in labels.ravel()]})
    return Annotations.from_frame(frame, taxonomy=Taxonomy.flat(f"c{v}" for v in range(n_labels)))


@pytest.mark.parametrize("data", ["image_collection", "wide"])
def test_replicates_are_the_same_bits_under_any_memory_budget(data):
    # the draws are keyed and each replicate's sums are added up in a fixed order, so the
    # blocks (here 1, about 7 and all replicates at a time) change no bit
    from fuzzytruth.datasets import image_collection

    if data == "image_collection":
        ann, metric = image_collection().annotations, "path"
    else:  # nominal: the path metric would need a 9,001² distance matrix
        ann, metric = wide_collection(), "nominal"
    n = ann.n_items
    for fn in (agreement, agreement_by_level):
        runs = [fn(ann, metric=metric, n_resamples=30, rng=5,
                   memory_budget=budget).bootstrap_distribution
                for budget in (1, 24 * n * 7 + 1, 1e9)]
        for other in runs[1:]:
            np.testing.assert_array_equal(other, runs[0])  # NaN where NaN, else equal bits


@pytest.mark.parametrize("threads", ["2", "3"])
def test_the_resampling_passes_split_over_threads_give_the_bits_of_one(monkeypatch, threads):
    """The bootstrap's resample counts (index_counts, and the other passes numbered by unit:
    permutations, random bytes; group_counts within groups) and the count-weighted sums
    (weighted_column_sums of a sparse table, weighted_sums of a dense one) are split over
    threads by replicates when large: the same bits as in one thread, each pass asserted to
    have been split (3 threads: uneven slices)."""
    from fuzzytruth import _threads
    from fuzzytruth._random import (
        group_counts,
        index_counts,
        permutations,
        random_bytes,
        weighted_sums,
    )

    rng = np.random.default_rng(8)
    n_items, n_rows = 3000, 400
    dense = rng.random((n_items, 7)) * (rng.random((n_items, 7)) < 0.5)
    table = sparse.csr_array(dense)
    assert n_rows * n_items >= _threads.THREADED_CELLS

    def passes():
        counts = index_counts(11, 3, n_items, np.arange(n_rows))
        return (counts, weighted_column_sums(table, counts), weighted_sums(counts, dense),
                permutations(11, 4, 30, 100, np.arange(n_rows)),
                random_bytes(11, 5, 6 * 3000, np.arange(n_rows)),
                group_counts(11, 6, np.arange(1000, dtype=np.uint64), np.full(1000, 3),
                             np.arange(n_rows)))

    one, _ = one_and_many(monkeypatch, threads, passes, 6)
    assert (one[0].sum(axis=1) == n_items).all()
    np.testing.assert_allclose(one[1], one[0] @ dense, rtol=1e-12)
    np.testing.assert_allclose(one[2], one[0] @ dense, rtol=1e-12)
    assert (one[5].reshape(n_rows, 1000, 3).sum(axis=2) == 3).all()


def test_the_depths_share_one_label_metric_rather_than_a_block_each():
    """agreement_by_level kept each depth's (U_d × U_d) block of the taxonomy metric beside the
    whole metric: Σ_d U_d² values, cubic in the depth of a chain (1,000 deep, 2,000 items:
    3.3 GB peak, 0.7 GB now; 3,000 deep was killed for memory). The depths read their blocks
    in place now; on this chain 250 deep the blocks would be 42 MB, the whole call peaked at
    56 MB with them and at 14 MB without (tracemalloc, 2026-11-28). The metric is given as a
    matrix: metric="path" on a tree no longer reads any table (collection._label_metric)."""
    import tracemalloc

    depth = 250
    nested = None
    for level in reversed(range(depth)):
        nested = {f"n{level}": nested}
    tax = Taxonomy.from_nested({"root": nested})
    rows = [(f"i{i}", f"a{a}", f"n{(7 * i + 3 * a) % depth}") for i in range(depth)
            for a in range(2)]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)
    table = tax.distance_matrix().astype(float)  # the path lengths, as a table
    agreement_by_level(ann, metric=table, n_resamples=2, rng=0)  # compiled, imports cached
    tracemalloc.start()
    try:
        result = agreement_by_level(ann, metric=table, n_resamples=10, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    labels = result.n_categories[:: len(result.n_categories) // depth].astype(float)
    assert len(labels) == depth and labels.max() > 200
    blocks = 8 * (labels**2).sum()
    assert peak < blocks / 2, (peak, blocks)
