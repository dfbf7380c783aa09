"""Sibling confusions (fuzzytruth.collection.reliability) against the definition walked by hand,
on random trees and DAGs, and their memory at the size of a real taxonomy: the confusion
counts are sparse, never an ``n_nodes × n_nodes`` array."""

from __future__ import annotations

import itertools
import tracemalloc
from collections import Counter, deque

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trees import ternary_tree

from fuzzytruth import Annotations, Taxonomy
from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth.collection import category_reliability, reliability, sibling_confusions
from fuzzytruth.collection._counts import label_counts


# ---------------------------------------------------------------------- oracle
@st.composite
def collections(draw):
    """``(edges, labels)``: a random tree or DAG (node k's parents among the nodes before it,
    names shuffled so that name order is not taxonomy order, edges in drawn order) and each
    item's labels, anywhere in the taxonomy (the root included, repeats allowed)."""
    n = draw(st.integers(2, 16), label="nodes")
    dag = draw(st.booleans(), label="dag")
    names = draw(st.permutations([f"n{k:02d}" for k in range(n)]))
    edges = [(names[p], names[k]) for k in range(1, n)
             for p in sorted(draw(st.sets(st.integers(0, k - 1), min_size=1,
                                          max_size=min(k, 3) if dag else 1)))]
    edges = draw(st.permutations(edges))
    labels = draw(st.lists(st.lists(st.sampled_from(names), min_size=1, max_size=7),
                           min_size=1, max_size=10), label="labels")
    return edges, labels


def annotations_of(edges, labels) -> Annotations:
    rows = [(f"item{i}", f"r{a}", label) for i, row in enumerate(labels)
            for a, label in enumerate(row)]
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                              "label"]),
                                  taxonomy=Taxonomy.from_edges(edges))


def brute_confusions(edges, labels) -> Counter:
    """{frozenset({c, c'}): n}: for each item and each unordered pair of its annotators, every
    unordered pair of distinct children c, c' of some parent (once, however many parents they
    share) for which one label is c or below c and not below c', and the other is c' or below
    c' and not below c; "below" by a walk up the edges."""
    parents: dict = {}
    children: dict = {}
    for parent, child in edges:
        parents.setdefault(child, []).append(parent)
        children.setdefault(parent, []).append(child)

    def under(node):  # the node and every ancestor
        seen, queue = {node}, deque([node])
        while queue:
            for p in parents.get(queue.popleft(), []):
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        return seen

    siblings = {frozenset((c, d)) for kids in children.values()
                for c, d in itertools.combinations(kids, 2) if c != d}
    out: Counter = Counter()
    for row in labels:
        for x, y in itertools.combinations(row, 2):
            up_x, up_y = under(x), under(y)
            for pair in siblings:
                c, d = sorted(pair)
                if (c in up_x and c not in up_y and d in up_y and d not in up_x) or (
                    d in up_x and d not in up_y and c in up_y and c not in up_x
                ):
                    out[pair] += 1
    return out


@given(collections(), st.integers(0, 4), st.sampled_from([MEMORY_BUDGET, 1.0, 2000.0]))
@settings(max_examples=300, deadline=None)
def test_confusions_are_the_definition_walked_by_hand(collection, n_confused, budget):
    edges, labels = collection
    ann = annotations_of(edges, labels)
    tax = ann.taxonomy
    want = brute_confusions(edges, labels)
    rows = [(c, d, n) for pair, n in want.items() for c, d in itertools.permutations(pair)]
    # one row per ordered pair: category in taxonomy order, most pairs first, ties in
    # taxonomy order of the other category
    rows.sort(key=lambda r: (tax.index(r[0]), -r[2], tax.index(r[1])))
    expected = pd.DataFrame({"category": pd.Series([r[0] for r in rows], dtype=object),
                             "other": pd.Series([r[1] for r in rows], dtype=object),
                             "n_pairs": np.array([r[2] for r in rows], dtype=np.int64)})
    # a budget of one byte or a few pairs: every block of label pairs (and of a DAG's join)
    # holds one pair or a few, and the counts are the same
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reliability, "MEMORY_BUDGET", budget)
        got = sibling_confusions(ann)
        results = {3: category_reliability(ann), n_confused: category_reliability(
            ann, n_confused=n_confused)}  # 3: the default
    pd.testing.assert_frame_equal(got, expected)
    for top, result in results.items():
        assert result.categories == tuple(n for n in tax.nodes if n != tax.root)
        for node, total, listed in zip(result.categories, result.n_confusions,
                                       result.confused_with, strict=True):
            others = [(r[1], r[2]) for r in rows if r[0] == node]
            assert total == sum(n for _, n in others)
            assert listed == tuple(o for o, _ in others[:top])
        assert result.n_confusions.dtype == np.int64


def test_a_label_under_both_siblings_of_a_dag_counts_for_neither():
    # ab lies under a and b (and is a sibling of a1 under a, of b1 under b); a1 lies under a
    # only, b1 under b only
    edges = [("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab"), ("a", "a1"), ("b", "b1")]
    got = sibling_confusions(annotations_of(edges, [["ab", "a1"], ["ab", "b1"], ["a1", "b1"],
                                                    ["a1", "b1", "b"]]))
    # (a, b): a1–b1 twice and a1–b, not ab–a1 or ab–b1 (ab is under both); b1–b: none
    assert got.to_dict("list") == {"category": ["a", "b", "a1", "ab", "ab", "b1"],
                                   "other": ["b", "a", "ab", "a1", "b1", "ab"],
                                   "n_pairs": [3, 3, 1, 1, 1, 1]}


def test_two_siblings_sharing_two_parents_count_once_per_pair():
    # c and d are children of both p and q: one annotator pair under c and d counts once
    edges = [("r", "p"), ("r", "q"), ("p", "c"), ("q", "c"), ("p", "d"), ("q", "d")]
    got = sibling_confusions(annotations_of(edges, [["c", "d"], ["c", "d", "d"]]))
    assert got.to_dict("list") == {"category": ["c", "d"], "other": ["d", "c"],
                                   "n_pairs": [3, 3]}


# ---------------------------------------------------------------------- memory
def traced_peak(function, *args, **kwargs):
    tracemalloc.start()
    try:
        result = function(*args, **kwargs)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_node_with_a_thousand_children_builds_no_matrix_over_all_nodes():
    # 1,000 labels under one root: 499,500 sibling pairs, which the confusions enumerated one
    # by one (a Python set) beside dense 1,001² float arrays (8 MB each) and blocks of
    # (1,001, pairs) indicator columns (over 100 MB); a flat taxonomy's confusions are the
    # pairs of distinct labels themselves.
    tax = Taxonomy.flat([f"c{k:04d}" for k in range(1000)])
    rng = np.random.default_rng(1)
    labels = rng.integers(1, 1001, size=(300, 5))
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(300), 5),
                          "annotator_id": np.tile(list("abcde"), 300),
                          "label": [tax.nodes[j] for j in labels.ravel()]})
    ann = Annotations.from_frame(frame, taxonomy=tax)
    tax.ancestor_slots()
    got, peak = traced_peak(sibling_confusions, ann)
    assert peak < 4e6  # 0.7 MB here (111 MB before)
    want: Counter = Counter()
    for row in labels:
        for x, y in itertools.combinations(row, 2):
            if x != y:
                want[x, y] += 1
                want[y, x] += 1
    assert {(tax.index(c), tax.index(o)): n
            for c, o, n in got.itertuples(index=False)} == dict(want)


@pytest.mark.slow
def test_confusions_of_a_9841_node_tree_build_no_matrix_over_all_nodes():
    # 20,000 items × 5 labels on a ternary tree of 9,841 nodes: the confusions were a dense
    # 9,841² float64 array (775 MB), its cross counts another and category_reliability's
    # argsort an int64 one (several GB at the peak); sparse, the label pairs and the sibling
    # pairs they count for take a few tens of MB. Oracle: tracemalloc's peak, which sees
    # numpy's and scipy's arrays.
    tax, _ = ternary_tree(8)
    assert len(tax) == 9841
    rng = np.random.default_rng(0)
    labels = rng.integers(1, len(tax), size=(20_000, 5))
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(20_000), 5),
                          "annotator_id": np.tile(list("abcde"), 20_000),
                          "label": [tax.nodes[j] for j in labels.ravel()]})
    ann = Annotations.from_frame(frame, taxonomy=tax)
    counts = label_counts(ann)
    tax.ancestor_slots()
    bound = 300e6  # far below one 9,841² float64 array
    frame, peak = traced_peak(sibling_confusions, ann)
    assert peak < bound

    def reliability_part():  # category_reliability's: the matrix, row sums and top three
        matrix = reliability._confusion_matrix(counts, tax)
        return matrix.sum(axis=1), reliability._most_confused(matrix, tax, 3)

    (totals, confused), peak = traced_peak(reliability_part)
    assert peak < bound
    # the numbers: in a tree every annotator pair with distinct labels, neither above the
    # other, is one confusion (listed under both siblings)
    pairs = 0
    for a, b in itertools.combinations(range(5), 2):
        x, y = labels[:, a], labels[:, b]
        pairs += int((~tax.is_under(x, y) & ~tax.is_under(y, x)).sum())
    assert frame["n_pairs"].sum() == 2 * pairs
    assert int(totals.sum()) == 2 * pairs
    by_node = frame.groupby("category", sort=False)["other"].apply(lambda s: tuple(s[:3]))
    assert all(confused[tax.index(node)] == top for node, top in by_node.items())
