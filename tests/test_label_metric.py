"""Taxonomy α's path metrics on a tree, from the tree (collection._label_metric.TreePath):
the same numbers, to the bit, as the table of path lengths that a DAG (or a metric given as a
matrix) still uses.

Oracles: Taxonomy.distance_matrix (a shortest-path search, the one rule for distances between
nodes) for each pair; the table's quadratic-form kernel for the forms (both add up whole
numbers, so both are exact); and agreement() with the same path lengths given as a matrix.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.collection._kernels import quadratic_forms
from fuzzytruth.collection._label_metric import MetricTable, TreePath


def random_tree(seed: int, n_nodes: int) -> Taxonomy:
    """Node k's parent drawn among nodes 0..k-1 (node 0 the root): chains, stars and
    everything between."""
    rng = np.random.default_rng(seed)
    return Taxonomy.from_parents({f"n{k}": f"n{rng.integers(k)}" if k else None
                                  for k in range(n_nodes)})


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 12), st.booleans())
def test_tree_paths_are_the_distance_matrix_and_their_forms_its_quadratic_forms(
        seed, n_nodes, n_rows, squared):
    tax = random_tree(seed, n_nodes)
    rng = np.random.default_rng(seed + 1)
    labels = rng.permutation(n_nodes)[: rng.integers(1, n_nodes + 1)]  # the root may be one
    path = TreePath.of(tax, labels, squared=squared)
    table = tax.distance_matrix([tax.nodes[j] for j in labels]).astype(float)
    table = table**2 if squared else table
    a, b = np.meshgrid(np.arange(len(labels)), np.arange(len(labels)), indexing="ij")
    assert np.array_equal(path.values(a, b), table)
    totals = rng.integers(0, 1000, size=(n_rows, len(labels))).astype(float)
    forms = path.quadratic_forms(totals)
    assert np.array_equal(forms, quadratic_forms(totals, table))
    assert np.array_equal(forms, MetricTable(table).quadratic_forms(totals))
    assert path.point_form(totals[0]) == MetricTable(table).point_form(totals[0])
    # a subset of the labels, in any order, read in place (agreement_by_level's depths)
    at = rng.permutation(len(labels))[: rng.integers(1, len(labels) + 1)]
    assert np.array_equal(path.quadratic_forms(totals[:, : len(at)], at),
                          quadratic_forms(totals[:, : len(at)], table[np.ix_(at, at)]))


def tree_collection(seed: int, n_items: int) -> Annotations:
    """2 to 6 labels per item, a third of them on one node, on a random tree of 30 nodes."""
    rng = np.random.default_rng(seed)
    tax = random_tree(seed, 30)
    rows = []
    for item in range(n_items):
        favourite = rng.integers(30)
        for annotator in range(rng.integers(2, 7)):
            node = favourite if rng.random() < 0.35 else rng.integers(30)
            rows.append((f"i{item}", f"a{annotator}", f"n{node}"))
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
@pytest.mark.parametrize("metric", ["path", "squared_path"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agreement_on_a_tree_is_the_agreement_with_the_path_table(function, metric, seed):
    """metric="path" on a tree (subtree sums) against the same path lengths given as a
    matrix (the table every replicate read before): every estimate and replicate, bit for
    bit, with the defaults otherwise."""
    ann = tree_collection(seed, 150)
    tax = ann.taxonomy
    lengths = tax.distance_matrix().astype(float)
    matrix = pd.DataFrame(lengths**2 if metric == "squared_path" else lengths,
                          index=tax.nodes, columns=tax.nodes)
    by_tree = function(ann, metric=metric, n_resamples=100, rng=seed)
    by_table = function(ann, metric=matrix, n_resamples=100, rng=seed)
    assert np.isfinite(by_tree.estimate).any()
    np.testing.assert_array_equal(by_tree.estimate, by_table.estimate)
    np.testing.assert_array_equal(by_tree.bootstrap_distribution,
                                  by_table.bootstrap_distribution)


def test_a_flat_taxonomy_of_60000_labels_needs_no_table():
    """Between leaves of one root every path is 2: taxonomy α is nominal α (the metric's
    factor 2 cancels, exactly). 60,000 labels made a (labels x labels) table of 57.6 GB,
    refused; the tree needs none."""
    n_labels = 60_000
    rng = np.random.default_rng(4)
    labels = rng.integers(n_labels, size=(4000, 3))
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(4000), 3),
                          "annotator_id": np.tile(["a", "b", "c"], 4000),
                          "label": [f"c{v}" for v in labels.ravel()]})
    tax = Taxonomy.flat([f"c{v}" for v in range(n_labels)])
    result = agreement(Annotations.from_frame(frame, taxonomy=tax), n_resamples=40, rng=1)
    table = result.to_frame()
    alpha = table.set_index("measure").loc[["krippendorff_alpha", "taxonomy_alpha"]]
    assert np.array_equal(alpha.iloc[0][["value", "ci_low", "ci_high"]].to_numpy(float),
                          alpha.iloc[1][["value", "ci_low", "ci_high"]].to_numpy(float))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), power=st.integers(-1070, 1024))
@example(seed=0, power=-1070)  # every entry a few multiples of the smallest subnormal
@example(seed=0, power=1024)  # the largest entries near the largest float
def test_taxonomy_alpha_is_the_same_for_the_metric_scaled_by_any_power_of_two(seed, power):
    """α reads ratios of sums of δ only: a metric matrix scaled by 2**j gives the same
    coefficients and intervals, bit for bit, from the smallest subnormal scale (a metric of
    5e-324 lost its digits in the sums: taxonomy α came out -0.032 where it is -0.028) to the
    largest float (entries near 1.8e308 overflowed as the sum of the matrix and its
    transpose)."""
    import warnings

    rng = np.random.default_rng(seed)
    tax = Taxonomy.flat(["u", "v", "w", "x"])
    rows = [(i, a, "uvwx"[rng.integers(0, 4)]) for i in range(25) for a in "abc"]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)
    delta = rng.integers(1, 8, (5, 5)).astype(float)
    delta = delta + delta.T
    np.fill_diagonal(delta, 0.0)
    scaled = np.ldexp(delta, power - int(np.frexp(delta.max())[1]))  # largest < 2**power
    assert np.array_equal(np.ldexp(scaled, int(np.frexp(delta.max())[1]) - power), delta)
    frames = [pd.DataFrame(d, index=tax.nodes, columns=tax.nodes) for d in (delta, scaled)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for function in (agreement, agreement_by_level):
            unit, small = (function(ann, metric=f, n_resamples=30, rng=1).to_frame()
                           for f in frames)
            pd.testing.assert_frame_equal(unit, small)


def test_taxonomy_alpha_of_a_metric_of_the_smallest_subnormal_is_the_unit_metrics():
    # every two labels 5e-324 apart (2**-1074): the sums of δ lost their digits and taxonomy α
    # came out -0.032 where the same metric written as ones gives -0.028
    rng = np.random.default_rng(0)
    tax = Taxonomy.flat(["u", "v", "w"])
    rows = [(i, a, "uvw"[rng.integers(0, 3)]) for i in range(30) for a in "abcd"]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)
    ones = 1.0 - np.eye(len(tax.nodes))
    unit, tiny = (agreement(ann, metric=pd.DataFrame(d, index=tax.nodes, columns=tax.nodes),
                            n_resamples=50, rng=0).to_frame() for d in (ones, ones * 5e-324))
    pd.testing.assert_frame_equal(unit, tiny)
