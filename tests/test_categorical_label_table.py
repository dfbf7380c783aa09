"""The annotator worlds' per-item label table (``_LabelTable``) and their reachability pass,
built by compiled passes over each item's shares and labels instead of dense
``(n_items, n_nodes)`` tables: the same bits as the dense construction they replace (written out
below as the oracle), on hypothesis-made shares; and their memory at the size of a 9,841-node
taxonomy with 20,000 items."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trees import ternary_tree

from fuzzytruth import Annotations, Membership, Run, Taxonomy, evaluate
from fuzzytruth._random import unit_keys
from fuzzytruth.truth.categorical_worlds import (
    CategoricalWorlds,
    _compiled,
    _label_counts_py,
    _label_table_py,
    _LabelTable,
    _reachable_labels_py,
)


def dense_label_table(direct, rank):
    """The construction the table replaces, verbatim: every item's nodes sorted by
    ``(its share is not positive, rank)``, stably, cut to the most labels an item has
    (``(n_items, n_nodes)`` int64 positions and argsort: 1.6 GB each at 20,000 x 9,841)."""
    n_items, n_nodes = direct.shape
    width = max(int((direct > 0).sum(axis=1).max(initial=1)), 1)
    position = np.where(direct > 0, rank[None, :], n_nodes + rank[None, :])
    order = np.argsort(position, axis=1, kind="stable")[:, :width]
    shares = np.take_along_axis(direct, order, axis=1)
    cum = np.cumsum(shares, axis=1)
    cum = np.where(shares > 0, cum, np.inf)
    last = (shares > 0).sum(axis=1) - 1
    cum[np.arange(n_items), last] = np.inf
    labels = order.astype(np.int16 if n_nodes < 2**15 else np.int32)
    nodes = np.where(shares > 0, labels, n_nodes)
    return labels, nodes, cum


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@st.composite
def shares_and_ranks(draw):
    """Direct shares (floats that need not sum to 1; items with no label, one label, or every
    node; non-label cells 0, -0.0 or negative) and a rank with or without ties."""
    n_nodes = draw(st.integers(1, 14))
    n_items = draw(st.integers(0, 9))
    positive = st.floats(5e-324, 1.0, allow_subnormal=True)
    other = st.sampled_from([0.0, -0.0, -0.25])
    direct = np.zeros((n_items, n_nodes))
    for i in range(n_items):
        count = draw(st.sampled_from([0, 1, 1, 2, n_nodes, draw(st.integers(0, n_nodes))]))
        labels = draw(st.permutations(range(n_nodes)))[:count]
        for j in range(n_nodes):
            direct[i, j] = draw(positive) if j in labels else draw(other)
        if count and draw(st.booleans()):  # shares of annotators: thirds and sevenths
            direct[i, labels] = draw(st.sampled_from([1 / 3, 1 / 7, 0.1])) * np.arange(
                1, len(labels) + 1)
    if draw(st.booleans()):
        rank = np.array(draw(st.permutations(range(n_nodes))))
    else:  # ties, in the range the worlds' ranks take
        rank = np.array(draw(st.lists(st.integers(0, n_nodes - 1), min_size=n_nodes,
                                      max_size=n_nodes)))
    return direct, rank


@settings(max_examples=300, deadline=None)
@given(shares_and_ranks())
def test_label_table_is_the_dense_constructions_bits(case):
    """Labels (their padding too), drawable nodes and cumulative shares (the same cumsum
    order: the same floats; inf from the last label on) are the dense construction's, compiled
    and in pure Python; so are the draws."""
    direct, rank = case
    keys = unit_keys(np.arange(len(direct)))
    table = _LabelTable(direct, keys, rank)
    labels, nodes, cum = dense_label_table(direct, rank)
    assert_same_bits(table.labels, labels)
    assert_same_bits(table.nodes, nodes)
    assert_same_bits(table.cum, cum)
    reference = SimpleNamespace(labels=labels, cum=cum, keys=keys)
    worlds = np.arange(20)
    np.testing.assert_array_equal(table.draw(7, worlds, padding=99),
                                  _LabelTable.draw(reference, 7, worlds, padding=99))
    count = np.empty(len(direct), dtype=np.int64)
    _label_counts_py(direct, count)
    np.testing.assert_array_equal(count, (direct > 0).sum(axis=1))
    python = [np.empty_like(labels), np.empty_like(nodes), np.empty_like(cum)]
    _label_table_py(direct, np.argsort(rank, kind="stable"), count, *python)
    for got, want in zip(python, (labels, nodes, cum), strict=True):
        assert_same_bits(got, want)


def test_label_table_by_hand():
    # nodes named in the order c, a, b (rank 2, 0, 1): item 0's labels a then c, 0.3 + 0.6
    # summed in that order; item 1's one label b, its padding the first other node, a; item 2
    # has no label: every column padding (a, b), drawn as a
    direct = np.array([[0.6, 0.3, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    table = _LabelTable(direct, unit_keys(np.arange(3)), np.array([2, 0, 1]))
    assert table.labels.tolist() == [[1, 0], [2, 1], [1, 2]]
    assert table.nodes.tolist() == [[1, 0], [2, 3], [3, 3]]
    assert table.cum.tolist() == [[0.3, np.inf], [np.inf, np.inf], [np.inf, np.inf]]


def random_taxonomy(rng, n, dag):
    names = [f"n{k:03d}" for k in rng.permutation(n)]
    edges = [(names[int(rng.integers(0, i))], names[i]) for i in range(1, n)]
    if dag:
        for i in range(2, n):
            if rng.random() < 0.3:
                other = names[int(rng.integers(0, i))]
                if (other, names[i]) not in edges:
                    edges.append((other, names[i]))
    return Taxonomy.from_edges(edges)


@pytest.mark.parametrize("dag", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_reachable_items_are_the_dense_rule(seed, dag):
    """Under the annotator model an item is kept for a query when one of its labels lies at or
    below one of the query's possible targets: the dense rule ``(direct > 0) @ ancestors``
    (the ``(n_items, n_nodes)`` table the worlds built before), read from the label table in
    the ancestor slots; compiled and pure Python alike."""
    rng = np.random.default_rng(seed)
    tax = random_taxonomy(rng, int(rng.integers(5, 30)), dag)
    n_items, n_nodes = 25, len(tax)
    frame = pd.DataFrame({
        "item_id": np.repeat(np.arange(n_items), 4),
        "annotator_id": np.tile(list("abcd"), n_items),
        "label": np.array(tax.nodes)[rng.integers(0, n_nodes, size=4 * n_items)],
    })
    mem = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    dense = (mem.direct > 0) @ tax.ancestor_matrix > 0  # (item, node)
    n_q = 6
    truth = CategoricalWorlds(mem, np.zeros(n_q, dtype=np.int64), np.full(n_q, -1),
                              (np.zeros(0, np.int64),) * 2 + (np.zeros(0),),
                              own_label=False, exclude_query=False, world_model="annotator")
    truth.draw(5, seed=1)
    possible = rng.integers(0, n_nodes + 1, size=(n_q, 3))  # n_nodes: padding
    # 40 documents a query: every node's mark once per query; 1: each document's labels
    for depth, by_node in [(40, True), (1, False)]:
        docs = rng.integers(-1, n_items, size=(n_q, depth))
        assert (n_nodes <= depth * truth._labels.nodes.shape[1]) == by_node
        want = np.where([[d >= 0 and dense[d, possible[q][possible[q] < n_nodes]].any()
                          for d in docs[q]] for q in range(n_q)], docs, -1)
        np.testing.assert_array_equal(truth._reachable(docs, possible), want)
        out = np.empty_like(docs)
        _reachable_labels_py(*truth._anc, truth._labels.nodes, docs, possible, out)
        np.testing.assert_array_equal(out, want)
        _compiled()["reachable_labels"](*truth._anc, truth._labels.nodes, docs, possible, out)
        np.testing.assert_array_equal(out, want)


@pytest.mark.slow
def test_worlds_of_20000_items_on_9841_nodes_build_no_items_by_nodes_temporary():
    # 20,000 items with up to 5 labels on a 9,841-node tree: the Membership's own matrices
    # (matrix and direct, 2 x 1.57 GB) are built before tracing. The worlds built, besides, an
    # (n_items, n_nodes) int64 table of positions and its argsort (1.57 GB each, for a label
    # table of 20,000 x 5), a float64 copy of the matrix in name order (1.57 GB, read only by
    # the Bernoulli model) and a bool table of reachable (item, node) (197 MB): a peak of
    # 4.7 GB; 22 MB now (the label table is 20,000 x 5). Oracle: tracemalloc's peak, which
    # sees numpy's arrays.
    tax, leaves = ternary_tree(8)
    assert len(tax) == 9841
    rng = np.random.default_rng(0)
    n_items, n_q, depth = 20_000, 50, 100
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(n_items), 5),
                          "annotator_id": np.tile(list("abcde"), n_items),
                          "label": rng.choice(leaves, size=5 * n_items)})
    mem = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    queries = rng.choice(n_items, size=n_q, replace=False)  # items: their own label, drawn
    docs = np.array([rng.choice(n_items, size=depth, replace=False) for _ in range(n_q)])
    run = Run(np.repeat(queries, depth), docs.ravel(), np.tile(np.arange(depth, 0, -1), n_q))

    def worlds(membership, run):
        return evaluate(run, membership, ["P@5", "AP"], method="worlds", n_worlds=5, rng=2)

    small_tax, small_leaves = ternary_tree(2)  # the modules it imports and compiles
    small = pd.DataFrame({"item_id": np.repeat(np.arange(20), 5),
                          "annotator_id": np.tile(list("abcde"), 20),
                          "label": rng.choice(small_leaves, size=100)})
    worlds(Membership.from_annotations(Annotations.from_frame(small, taxonomy=small_tax)),
           Run(np.repeat([0, 1], 5), np.tile(np.arange(5), 2), np.tile(np.arange(5), 2)))
    tracemalloc.start()
    try:
        result = worlds(mem, run)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert mem.matrix.nbytes + mem.direct.nbytes == 2 * n_items * 9841 * 8
    assert peak < 100e6
    frame = result.to_frame()
    assert len(frame) == 2 * n_q and set(frame["query_id"]) == set(map(str, queries))
