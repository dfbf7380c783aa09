"""Closing shares over ancestors: one sparse rule (Taxonomy.close_over_ancestors), checked
against a brute-force closure on random trees and DAGs; its memory on a 3,280-node taxonomy;
and every place that closes over ancestors (Membership, category reliability, annotator
resampling, the annotator worlds, classifier levels) against the dense rule they used before,
``ancestor_matrix``, on seeded cases."""

from __future__ import annotations

import math
import tracemalloc
from collections import deque

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from trees import ternary_tree

from fuzzytruth import Annotations, Membership, Run, Taxonomy
from fuzzytruth.collection import category_reliability
from fuzzytruth.collection.reliability import _closed_kappa, _confusion_matrix
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler


# ---------------------------------------------------------------------- oracle
@st.composite
def graphs(draw):
    """``(edges, names)`` of a random tree or DAG: node i's parents among nodes 0..i-1."""
    n = draw(st.integers(min_value=1, max_value=20))
    dag = draw(st.booleans())
    edges = []
    for i in range(1, n):
        k = draw(st.integers(min_value=1, max_value=min(3, i) if dag else 1))
        chosen = draw(st.lists(st.integers(min_value=0, max_value=i - 1), min_size=k,
                               max_size=k, unique=True))
        edges += [(f"n{p}", f"n{i}") for p in chosen]
    return edges, [f"n{i}" for i in range(n)]


def brute_ancestors(edges, names):
    """{node: its ancestors and itself}, by a breadth-first walk up the edges."""
    parents = {n: [] for n in names}
    for parent, child in edges:
        parents[child].append(parent)
    out = {}
    for node in names:
        seen, queue = {node}, deque([node])
        while queue:
            for p in parents[queue.popleft()]:
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        out[node] = seen
    return out


def brute_closure(shares, names, ancestors):
    """out[r][w]: the shares of row r's labels that are w or below w, each label once,
    summed by math.fsum (the float nearest their exact sum: the rule's, in any order)."""
    out = {}
    for r, row in enumerate(shares):
        for w in names:
            out[r, w] = math.fsum(row[label] for label in row if w in ancestors[label])
    return out


values = st.one_of(st.integers(min_value=0, max_value=5).map(float),
                   st.sampled_from([0.1, 0.2, 0.3, 1 / 3, 1 / 6, 0.7, 1e-17, 2.0**-53,
                                    3 * 2.0**-54]),
                   st.floats(min_value=0, max_value=1, allow_nan=False))


@given(graphs(), st.data())
@settings(max_examples=150, deadline=None)
def test_the_closure_is_the_brute_force_closure(graph, data):
    edges, names = graph
    n_rows = data.draw(st.integers(min_value=0, max_value=6), label="rows")
    shares = [data.draw(st.dictionaries(st.sampled_from(names), values, max_size=len(names)),
                        label=f"row {r}") for r in range(n_rows)]
    budget = data.draw(st.sampled_from([1.0, 500.0, 128e6]), label="memory_budget")
    ancestors = brute_ancestors(edges, names)
    want = brute_closure(shares, names, ancestors)
    # the same taxonomy with its edges and nodes given in two orders: the same bits
    shuffled = data.draw(st.permutations(edges), label="edge order")
    for tax in (Taxonomy.from_edges(edges, nodes=names),
                Taxonomy.from_edges(shuffled, nodes=names[::-1])):
        expected = np.array([[want[r, w] for w in tax.nodes] for r in range(n_rows)])
        expected = expected.reshape(n_rows, len(tax))
        dense = np.zeros((n_rows, len(tax)))
        for r, row in enumerate(shares):
            for label, value in row.items():
                dense[r, tax.index(label)] = value
        got = tax.close_over_ancestors(dense, memory_budget=budget)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
        closed = tax.close_over_ancestors(sparse.csr_array(dense), memory_budget=budget)
        assert isinstance(closed, sparse.csr_array) and closed.has_sorted_indices
        assert np.all(closed.data != 0)  # only the nonzero closed values are stored
        np.testing.assert_array_equal(closed.toarray(), expected)
        # the closure itself: one entry per (node, ancestor or itself)
        brute = np.array([[w in ancestors[v] for w in tax.nodes] for v in tax.nodes])
        assert tax.ancestor_closure.nnz == sum(len(a) for a in ancestors.values())
        np.testing.assert_array_equal(tax.ancestor_closure.toarray(), brute)
        np.testing.assert_array_equal(tax.ancestor_matrix, brute)
        rows, cols = np.indices(brute.shape)
        np.testing.assert_array_equal(tax.is_under(rows, cols), brute)
        for node in tax.nodes:
            assert set(tax.descendants(node, include_self=True)) == {
                v for v in tax.nodes if node in ancestors[v]}


def test_the_closure_of_a_dag_counts_a_label_once():
    # ab lies under a and b, both under all: two paths from ab to all, one share counted
    tax = Taxonomy.from_edges([("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab")])
    assert tax.nodes == ("all", "a", "b", "ab")
    shares = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.25, 0.25]])
    want = [[1.0, 1.0, 1.0, 1.0], [1.0, 0.75, 0.5, 0.25]]  # by hand
    assert tax.close_over_ancestors(shares).tolist() == want
    assert tax.close_over_ancestors(sparse.csr_array(shares)).toarray().tolist() == want
    # a padding index (n_nodes) is under nothing and has nothing under it
    assert tax.is_under([3, 4, 3, 0], [4, 0, 0, 3]).tolist() == [False, False, True, False]


def test_the_closure_refuses_a_matrix_over_other_nodes():
    tax = Taxonomy.from_edges([("all", "a"), ("all", "b")])
    with pytest.raises(ValueError, match=r"shares must have shape \(n_rows, n_nodes=3\); "
                                         r"got \(2, 2\)"):
        tax.close_over_ancestors(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"n_nodes=3\); got \(1, 4\)"):
        tax.close_over_ancestors(sparse.csr_array(np.zeros((1, 4))))


def test_membership_does_not_depend_on_the_order_of_the_edges():
    # fractional annotator weights: the closed shares and the item totals were sums in the
    # taxonomy's node order (a dense product, and a row sum), which follows the order the edges
    # were given in; 0.1 + 0.3 + 0.7 is not 0.7 + 0.3 + 0.1 in floating point. Now the sums run
    # in name order: the same bits by name.
    rng = np.random.default_rng(4)
    names = [f"c{k:02d}" for k in range(30)]
    edges = [("root", names[0])] + [(names[int(rng.integers(0, k))], names[k])
                                    for k in range(1, 30)]
    rows = [(f"i{i}", f"a{a}", names[int(rng.integers(0, 30))])
            for i in range(60) for a in range(6)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    weights = {f"a{a}": w for a, w in enumerate([0.1, 0.3, 0.7, 1 / 3, 0.2, 2.9])}
    built = []
    for order in (edges, edges[::-1]):
        tax = Taxonomy.from_edges(order)
        mem = Membership.from_annotations(
            Annotations.from_frame(frame, taxonomy=tax, annotator_weights=weights))
        columns = [tax.index(n) for n in ["root", *names]]
        built.append((mem.matrix[:, columns], mem.direct[:, columns]))
    assert built[0][0].tobytes() == built[1][0].tobytes()
    assert built[0][1].tobytes() == built[1][1].tobytes()
    # an item's total is its root's closed votes, added in the same order as any node's: c00,
    # which every label is at or under, gets 1 exactly (it was 1 - 2.2e-16 for 3 items in 60)
    assert np.all(built[0][0][:, 1] == 1.0)


def test_a_share_of_exactly_one_half_is_one_half():
    # Dermatology case 1537 (fuzzytruth.datasets.dermatology, the readers' top groups): 10
    # readers, 5 of them chose Insect Bite alone, reader 5 split a vote three ways (1/3 each).
    # The item total is 10 exactly, but the thirds added among the whole votes in name
    # order came out a last bit above 10, and Insect Bite's 5 / total to 0.4999999999999999
    # (this case and one other left notebook 06's "cases >= 0.5"). Each closed sum is now
    # correctly rounded: the total is 10 (the float nearest it), the share 1/2 exactly.
    tax = Taxonomy.from_nested({"skin condition": {
        "high risk": ["Scabies"], "medium risk": ["Eczema", "Hypersensitivity",
                                                  "Prurigo nodularis"],
        "low risk": ["Insect Bite", "Folliculitis"]}})
    top = [(0, "Scabies"), (1, "Insect Bite"), (2, "Folliculitis"), (3, "Folliculitis"),
           (4, "Insect Bite"), (5, "Eczema"), (5, "Hypersensitivity"), (5, "Prurigo nodularis"),
           (6, "Insect Bite"), (7, "Insect Bite"), (8, "Insect Bite"), (9, "Folliculitis")]
    frame = pd.DataFrame([(1537, r, c) for r, c in top],
                         columns=["item_id", "annotator_id", "label"])
    mem = Membership.from_annotations(
        Annotations.from_frame(frame, taxonomy=tax, duplicates="split"))
    assert mem.probability(1537, "Insect Bite") == 0.5
    assert mem.probability(1537, "low risk") == 0.8
    assert mem.probability(1537, "medium risk") == 0.1
    # the closure itself: every cell the float nearest the exact sum of its terms
    votes = np.zeros((1, len(tax)))
    for _, c in top:
        votes[0, tax.index(c)] += 1 / 3 if c in ("Eczema", "Hypersensitivity",
                                                 "Prurigo nodularis") else 1.0
    closed = tax.close_over_ancestors(votes)
    assert closed[0, tax.index("skin condition")] == 10.0
    assert closed[0, tax.index("medium risk")] == math.fsum([1 / 3] * 3) == 1.0


def test_the_closure_rounds_ties_and_cancellations_as_fsum():
    # terms whose naive sums in any order are off: a tie (1 + 2**-53, rounded to even), a
    # cancellation (1e16 + 1 - 1e16), and a tenth ten times
    tax = Taxonomy.from_edges([("r", f"l{k}") for k in range(10)])
    rows = [[1.0, 2.0**-53, 2.0**-53, 0, 0, 0, 0, 0, 0, 0],
            [1e16, 1.0, -1e16, 0, 0, 0, 0, 0, 0, 0],
            [0.1] * 10,
            [0.1, 0.2, 0.3, -0.6, 1 / 3, 1 / 6, -0.5, 0, 0, 0]]
    shares = np.zeros((len(rows), len(tax)))
    shares[:, [tax.index(f"l{k}") for k in range(10)]] = rows
    want = [math.fsum(r) for r in rows]
    root = tax.index("r")
    for form in (shares, sparse.csr_array(shares)):
        got = tax.close_over_ancestors(form, dense=True)
        assert got[:, root].tolist() == want
        np.testing.assert_array_equal(np.delete(got, root, axis=1),
                                      np.delete(shares, root, axis=1))


# ---------------------------------------------------------------------- memory
def test_membership_of_a_large_taxonomy_builds_no_matrix_over_all_nodes():
    # 3,280 nodes: the dense float closure the product used took 3,280² × 8 bytes = 86 MB
    # (and the dense bool closure every taxonomy built, 11 MB). 300 items hold two dense
    # (300, 3,280) matrices, matrix and direct: 2 × 7.9 MB. Oracle: tracemalloc's peak, which
    # sees numpy's and scipy's arrays.
    tax, leaves = ternary_tree(7)
    assert len(tax) == 3280
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(300), 5),
                          "annotator_id": np.tile(list("abcde"), 300),
                          "label": rng.choice(leaves, size=1500)})
    ann = Annotations.from_frame(frame, taxonomy=tax)
    tracemalloc.start()
    try:
        mem = Membership.from_annotations(ann)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    own = mem.matrix.nbytes + mem.direct.nbytes
    assert own == 2 * 300 * 3280 * 8
    assert peak < own + 8e6  # the two matrices, and the sparse votes and closure (102 MB
    # before: the dense float closure)
    # the numbers: each item's labels are leaves, and their ancestors by hand ("d.j" has the
    # parent "d-1.(j // 3)")
    labels = frame["label"].to_numpy().reshape(300, 5)
    for item in (0, 299):
        expected = {}
        for label in labels[item]:
            depth, j = map(int, label.split("."))
            for d in range(depth, 0, -1):
                expected[f"{d}.{j}"] = expected.get(f"{d}.{j}", 0) + 0.2
                j //= 3
        got = {tax.nodes[c]: mem.matrix[item, c] for c in np.flatnonzero(mem.matrix[item])}
        assert got.pop("r") == 1.0
        assert got == pytest.approx(expected, abs=1e-15)


def test_worlds_of_a_large_taxonomy_build_no_matrix_over_all_nodes():
    # the annotator worlds kept a dense (n_nodes + 1, n_nodes) uint8 closure (11 MB here) and
    # multiplied each chunk's label counts by it as int64 (86 MB)
    from fuzzytruth import evaluate

    tax, leaves = ternary_tree(7)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(200), 3),
                          "annotator_id": np.tile(list("abc"), 200),
                          "label": rng.choice(leaves[:30], size=600)})
    mem = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax))
    docs = np.array([rng.choice(200, size=10, replace=False) for _ in range(5)])
    run = Run(np.repeat(np.arange(5), 10), docs.ravel(), np.tile(np.arange(10, 0, -1), 5))

    def worlds():
        return evaluate(run, mem, ["P@5", "AP"], method="worlds", n_worlds=50, rng=2,
                        query_categories={q: tax.nodes[int(q) + 1] for q in range(5)})

    first = worlds().to_frame()  # the modules it imports and compiles, before tracing
    tracemalloc.start()
    try:
        again = worlds().to_frame()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30e6  # 16 MB here, with (200, 3,280) tables of the items' labels (105 MB
    # before)
    pd.testing.assert_frame_equal(again, first)


# ---------------------------------------------------------------------- the call sites
def random_taxonomy(rng, n, dag):
    names = [f"n{k:03d}" for k in rng.permutation(n)]
    edges = []
    for i in range(1, n):
        parents = {names[int(rng.integers(0, i))]}
        if dag and i > 2 and rng.random() < 0.3:
            parents.add(names[int(rng.integers(0, i))])
        edges += [(p, names[i]) for p in sorted(parents)]
    return Taxonomy.from_edges([edges[k] for k in rng.permutation(len(edges))])


def random_annotations(rng, tax, n_items=30):
    nodes = list(tax.nodes[1:])
    rows = [(f"i{i:03d}", f"a{a}", nodes[int(rng.integers(0, len(nodes)))])
            for i in range(n_items) for a in range(int(rng.integers(1, 6)))]
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                              "label"]), taxonomy=tax)


def dense_votes(ann):
    item, _, label, weight = ann.codes()
    votes = np.zeros((ann.n_items, len(ann.taxonomy)))
    np.add.at(votes, (item, label), weight)
    return votes


CASES = [(seed, dag) for seed in range(4) for dag in (False, True)]


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_memberships_equal_the_dense_rule(seed, dag):
    # whole-number votes and dyadic shares: every sum is exact in either order
    rng = np.random.default_rng(seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    anc = tax.ancestor_matrix.astype(float)
    ann = random_annotations(rng, tax)
    votes = dense_votes(ann)
    totals = votes.sum(axis=1, keepdims=True)
    want = np.minimum(votes @ anc / totals, 1.0)
    want[:, 0] = 1.0
    mem = Membership.from_annotations(ann)
    assert mem.matrix.tobytes() == want.tobytes()
    assert mem.direct.tobytes() == (votes / totals).tobytes()
    labels = {f"x{k}": tax.nodes[int(rng.integers(0, len(tax)))] for k in range(20)}
    crisp = Membership.from_labels(labels, taxonomy=tax)
    assert crisp.matrix.tobytes() == anc[tax.indices(labels.values())].tobytes()
    columns = list(tax.nodes[1:9])
    shares = rng.integers(0, 5, size=(15, len(columns))).astype(float)
    shares[:, 0] += 1
    shares = shares / 2.0 ** np.ceil(np.log2(shares.sum(axis=1, keepdims=True)))
    shares[:, 0] += 1 - shares.sum(axis=1)  # sums to 1 exactly, all dyadic
    table = pd.DataFrame(shares, columns=columns)
    full = np.zeros((15, len(tax)))
    full[:, tax.indices(columns)] = shares
    want = np.minimum(full @ anc, 1.0)
    want[:, 0] = 1.0
    got = Membership.from_probabilities(table, taxonomy=tax).matrix
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_the_constructor_takes_direct_shares_only_with_their_closure(seed, dag):
    # Shares in thirds, fifths and sevenths (1-7 annotators, weighted), on trees and DAGs:
    # what from_annotations built passes the constructor's check (its matrix is the closure
    # of its direct shares within 1e-9); a share moved to another label, a row summing to 0
    # (which made the item's annotator worlds draw a label nobody gave it) are refused.
    rng = np.random.default_rng(20 + seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    nodes = list(tax.nodes[1:])
    rows = [(f"i{i:03d}", f"a{a}", nodes[int(rng.integers(0, len(nodes)))])
            for i in range(30) for a in range(int(rng.integers(1, 8)))]
    weights = {f"a{a}": float(rng.choice([1.0, 2.0, 3.0, 7.0])) for a in range(7)}
    mem = Membership.from_annotations(Annotations.from_frame(
        pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), taxonomy=tax,
        annotator_weights=weights))
    again = Membership(tax, mem.items, mem.matrix, mem.direct)
    assert np.array_equal(again.matrix, mem.matrix) and np.array_equal(again.direct, mem.direct)
    item = int(rng.integers(0, len(mem.items)))
    labelled = np.flatnonzero(mem.direct[item] > 0)
    unrelated = [j for j in range(1, len(tax)) if mem.matrix[item, j] == 0]
    moved = mem.direct.copy()
    moved[item, unrelated[0]] += moved[item, labelled[0]]
    moved[item, labelled[0]] = 0.0
    with pytest.raises(ValueError, match=rf"closure of direct.*item '{mem.items[item]}', "):
        Membership(tax, mem.items, mem.matrix, moved)
    empty = mem.direct.copy()
    empty[item] = 0.0
    with pytest.raises(ValueError, match=rf"row '{mem.items[item]}' sums to 0.0"):
        Membership(tax, mem.items, mem.matrix, empty)


def test_an_item_labelled_at_the_root_draws_the_root_in_annotator_worlds():
    from fuzzytruth.truth.categorical_worlds import sample_labels

    tax = Taxonomy.from_edges([("all", "a"), ("all", "b")])
    matrix = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    direct = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # y: no category below the root
    mem = Membership(tax, ["x", "y"], matrix, direct)
    labels = sample_labels(mem, 50, rng=0)
    assert (labels[:, 0] == tax.index("a")).all() and (labels[:, 1] == tax.index("all")).all()


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_reliability_equals_the_dense_rule(seed, dag):
    rng = np.random.default_rng(10 + seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    ann = random_annotations(rng, tax)
    anc = tax.ancestor_matrix
    counts = sparse.csr_array(dense_votes(ann))
    # closed κ read the closed counts of a sparse product; the same entries now
    closed = (counts @ sparse.csr_array(anc.astype(float))).tocoo()
    n = counts.sum(axis=1)
    m, k = closed.data, n[closed.row]
    safe = np.where(n >= 2, n, 2.0)[closed.row]
    pair = np.where(k >= 2, m * (k - m) / (safe * (safe - 1)), 0.0)
    disagreement = np.bincount(closed.col, pair, len(tax)) / (n >= 2).sum()
    p = np.bincount(closed.col, m / k, len(tax)) / len(n)
    outside = (len(n) - np.bincount(closed.col, None, len(tax))
               + np.bincount(closed.col, (k - m) / k, len(tax)))
    pq = p * (outside / len(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(pq > 0, 1 - disagreement / pq, np.nan)
    np.testing.assert_array_equal(_closed_kappa(counts, tax), want)
    # sibling confusions: labels under c but not d, by columns of the dense closure
    confusion = _confusion_matrix(counts, tax)
    cross = (counts.T @ counts).toarray()
    np.fill_diagonal(cross, 0.0)
    for node in tax.nodes:
        kids = tax.indices(tax.children(node))
        for c in kids:
            for d in kids:
                if c != d:
                    only_c = anc[:, c] & ~anc[:, d]
                    only_d = anc[:, d] & ~anc[:, c]
                    assert confusion[c, d] == only_c.astype(float) @ cross @ only_d
    # with a truth model, the voted items of a node are those with a label at or below it
    table = category_reliability(ann, truth_model="dawid-skene").to_frame()
    voted = (counts.toarray() @ anc.astype(float) > 0).sum(axis=0)
    got = table.set_index("category")["n_voted"]
    assert [got[n] for n in tax.nodes[1:]] == voted[1:].tolist()


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_annotator_resampling_cells_equal_the_dense_rule(seed, dag):
    rng = np.random.default_rng(20 + seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    ann = random_annotations(rng, tax)
    anc = tax.ancestor_matrix
    resampler = AnnotatorResampler(ann)
    nodes = np.unique(rng.integers(0, len(tax), size=8))
    item, _, label, _ = ann.codes()
    reached = dense_votes(ann) @ anc.astype(float) > 0  # (item, node): some label at or below
    want_item, want_col = np.nonzero(reached[:, nodes])
    got_item, got_col = resampler.voted_cells(nodes)
    np.testing.assert_array_equal(got_item, want_item)
    np.testing.assert_array_equal(got_col, want_col)
    votes = resampler.vote_matrix(got_item, nodes[got_col], closed=True).toarray()
    # a pair's weight goes to a cell when the pair's label is at or below the cell's node
    pairs = np.nonzero(votes)
    assert len(pairs[0]) > 0
    for cell in range(len(got_item)):
        node = nodes[got_col[cell]]
        rows = np.flatnonzero(item == got_item[cell])
        assert votes[:, cell].sum() == anc[label[rows], node].sum()


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_annotator_worlds_equal_the_dense_rule(seed, dag):
    from fuzzytruth.truth.categorical_worlds import CategoricalWorlds

    rng = np.random.default_rng(30 + seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    mem = Membership.from_annotations(random_annotations(rng, tax))
    anc = tax.ancestor_matrix
    n_items, n_nodes = len(mem.items), len(tax)
    n_q = 6
    fixed = rng.integers(0, n_nodes, size=n_q)
    fixed[:2] = -1  # two queries take their item's own label
    truth = CategoricalWorlds(mem, fixed, np.arange(n_q),
                              (np.array([0, 1]), np.zeros(2, dtype=np.int64), np.ones(2)),
                              own_label=True, exclude_query=True, world_model="annotator")
    truth.draw(40, seed=5)
    # an item can be relevant to a node when one of its labels lies at or below it
    every = np.tile(np.arange(n_items), (n_nodes, 1))  # (node, item)
    reach = truth._reachable(every, np.arange(n_nodes)[:, None]) >= 0
    np.testing.assert_array_equal(reach.T, (mem.direct > 0) @ anc > 0)
    chunk = truth.chunk(0, 40)
    labels = chunk["labels"]  # (n_items + 1, n_worlds): the last row is the padding node
    sizes = np.array([anc[labels[:-1, w]].sum(axis=0) for w in range(40)]).T
    np.testing.assert_array_equal(chunk["sizes"], sizes)
    state = truth.block(chunk, slice(0, n_q))
    targets = state["targets"]
    own = np.array([[anc[labels[q, w], targets[q, w]] for w in range(40)] for q in range(n_q)])
    np.testing.assert_array_equal(state["counts"], sizes[targets, np.arange(40)] - own)
    docs = rng.integers(-1, n_items, size=(n_q, 7))
    relevant = truth.relevant(state, docs).reshape(7, n_q, 40)
    for q in range(n_q):
        for c in range(7):
            want = (anc[labels[docs[q, c]], targets[q]] if docs[q, c] >= 0
                    else np.zeros(40, dtype=bool))
            np.testing.assert_array_equal(relevant[c, q], want)


@pytest.mark.parametrize(("seed", "dag"), CASES)
def test_classifier_groups_equal_the_dense_rule(seed, dag):
    from fuzzytruth.classify.targets import ClassMap, class_truth

    rng = np.random.default_rng(40 + seed)
    tax = random_taxonomy(rng, int(rng.integers(10, 40)), dag)
    classes = [str(n) for n in tax.nodes if not tax.children(n)]
    shares = pd.DataFrame(rng.dirichlet(np.ones(len(classes)), 6), columns=classes,
                          index=[f"x{k}" for k in range(6)])
    shares = shares.div(shares.sum(axis=1), axis=0)
    prepared = class_truth(Membership.from_probabilities(shares, taxonomy=tax)).prepare(
        list(shares.index))
    anc = tax.ancestor_matrix
    class_tax = tax.indices(classes)
    for level in (None, 1, 2):
        lifted = tax.ancestors_at_depths()[level] if level is not None else np.arange(len(tax))
        groups = np.unique(lifted)  # every node is one of the truth's nodes
        want = [np.flatnonzero(anc[class_tax, g]).tolist() for g in groups]
        got = [m.tolist() for m in ClassMap(prepared, classes, level).hard_members]
        assert got == want
