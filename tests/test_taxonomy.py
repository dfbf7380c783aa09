"""Taxonomy: construction, structure queries, round trips and every validation error."""

from collections import deque

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trees import ternary_tree

from fuzzytruth import Taxonomy

SANTINI_EDGES = [
    ("all", "people"),
    ("all", "scenery"),
    ("people", "single"),
    ("people", "group"),
    ("people", "crowd"),
    ("scenery", "city"),
    ("scenery", "countryside"),
]
SANTINI_NESTED = {
    "all": {"people": ["single", "group", "crowd"], "scenery": ["city", "countryside"]}
}


def test_three_constructors_agree():
    a = Taxonomy.from_edges(SANTINI_EDGES)
    b = Taxonomy.from_nested(SANTINI_NESTED)
    c = Taxonomy.from_frame(a.to_frame())
    assert a.nodes == b.nodes == c.nodes
    assert a.to_edges() == b.to_edges() == c.to_edges()


def test_structure_queries():
    tax = Taxonomy.from_edges(SANTINI_EDGES)
    assert tax.root == "all"
    assert tax.is_tree
    assert tax.leaves == ("single", "group", "crowd", "city", "countryside")
    assert tax.ancestors("crowd") == ("people", "all")
    assert tax.ancestors("crowd", include_self=True) == ("crowd", "people", "all")
    assert tax.descendants("people") == ("single", "group", "crowd")
    assert tax.descendants("all", include_self=True) == tax.nodes
    assert [tax.depth(n) for n in ("all", "people", "crowd")] == [0, 1, 2]
    assert tax.children("scenery") == ("city", "countryside")
    assert tax.parents("all") == ()
    # path crowd -> people -> all -> scenery -> city: 4 edges
    assert tax.distance("crowd", "city") == 4
    assert tax.distance("crowd", "group") == 2
    assert tax.distance("crowd", "crowd") == 0
    assert tax.ancestor_at_depth("crowd", 1) == "people"
    assert tax.ancestor_at_depth("people", 2) == "people"
    assert "crowd" in tax and "dog" not in tax and len(tax) == 8


def test_dag_ancestors_each_once():
    # "ab" has two parents that share the root: the root is one ancestor, not two
    tax = Taxonomy.from_edges([("r", "a"), ("r", "b"), ("a", "ab"), ("b", "ab")])
    assert not tax.is_tree
    assert sorted(tax.ancestors("ab")) == ["a", "b", "r"]
    assert tax.ancestor_matrix[tax.index("ab")].sum() == 4  # itself, a, b, r
    assert tax.depth("ab") == 2
    assert tax.to_frame().query("child == 'ab'")["parent"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="to_nested needs a tree"):
        tax.to_nested()


def test_round_trips():
    tax = Taxonomy.from_edges(SANTINI_EDGES)
    assert Taxonomy.from_nested(tax.to_nested()).to_edges() == tax.to_edges()
    assert Taxonomy.from_edges(tax.to_edges()).nodes == tax.nodes
    assert Taxonomy.from_frame(tax.to_frame()).to_edges() == tax.to_edges()


def test_a_parent_is_named_as_its_node():
    # int ids in a frame whose parent column has the root's missing value: pandas holds the
    # parents as floats, and parents(), to_edges() and to_frame() named the node 0 as 0.0
    frame = pd.DataFrame({"child": [0, 1, 2], "parent": [None, 0, 1]})
    assert frame["parent"].dtype == float
    tax = Taxonomy.from_frame(frame)
    assert tax.nodes == (0, 1, 2)
    assert [type(p) for _, c in tax.to_edges() for p in tax.parents(c)] == [int, int]
    assert [tuple(map(repr, e)) for e in tax.to_edges()] == [("0", "1"), ("1", "2")]
    assert Taxonomy.from_edges(tax.to_edges()).to_edges() == tax.to_edges()


def test_single_node_taxonomy_needs_nodes():
    tax = Taxonomy.from_edges([], nodes=["all"])
    assert tax.root == "all" and tax.leaves == ("all",)


# ---------------------------------------------------------------------- errors
def test_cycle_names_its_nodes():
    with pytest.raises(ValueError, match=r"cycle in taxonomy: 'a' -> 'b' -> 'c' -> 'a'"):
        Taxonomy.from_edges([("r", "a"), ("a", "b"), ("b", "c"), ("c", "a")])


def test_self_loop_is_a_cycle():
    with pytest.raises(ValueError, match=r"cycle in taxonomy: 'a' -> 'a'"):
        Taxonomy.from_edges([("r", "a"), ("a", "a")])


def test_no_root_is_reported_as_cycle():
    with pytest.raises(ValueError, match="cycle in taxonomy"):
        Taxonomy.from_edges([("a", "b"), ("b", "a")])


def test_unknown_parent_in_frame_suggests_close_names():
    df = pd.DataFrame({"child": ["all", "people", "crowd"], "parent": [None, "all", "peple"]})
    with pytest.raises(ValueError, match=r"row 2: parent 'peple' of 'crowd' has no .*'people'"):
        Taxonomy.from_frame(df)


def test_unknown_parent_against_declared_nodes():
    with pytest.raises(ValueError, match=r"unknown parent 'scenry' in edge"):
        Taxonomy.from_edges([("all", "a"), ("scenry", "b")], nodes=["all", "a", "b"])


def test_duplicate_node_nested():
    with pytest.raises(ValueError, match=r"duplicate node 'x' in nested taxonomy"):
        Taxonomy.from_nested({"all": {"a": ["x"], "b": ["x"]}})


def test_duplicate_node_declared():
    with pytest.raises(ValueError, match=r"duplicate node\(s\) in nodes: 'a'"):
        Taxonomy.from_edges([("all", "a")], nodes=["all", "a", "a"])


def test_duplicate_root_row_in_frame():
    df = pd.DataFrame({"child": ["all", "all"], "parent": [None, None]})
    with pytest.raises(ValueError, match=r"duplicate node 'all': declared without a parent twice"):
        Taxonomy.from_frame(df)


@pytest.mark.parametrize(
    ("children", "parents", "message"),
    [
        (["all", "x", "x"], [None, "all", None],
         r"row 2: node 'x' is declared without a parent \(row 2\) and with parent 'all' "
         r"\(row 1\); only the root has a row with an empty parent"),
        (["all", "x", "x"], [None, None, "all"],
         r"row 2: node 'x' is declared without a parent \(row 1\) and with parent 'all' "
         r"\(row 2\)"),
    ],
)
def test_root_row_of_a_node_with_a_parent(children, parents, message):
    # the row "x," was dropped without a word: x became a child of all, not a second root
    frame = pd.DataFrame({"child": children, "parent": parents})
    with pytest.raises(ValueError, match=message):
        Taxonomy.from_frame(frame)


def test_root_row_of_a_node_with_a_parent_names_file_lines(tmp_path):
    from fuzzytruth import read_taxonomy

    path = tmp_path / "tax.csv"
    path.write_text("child,parent\nall,\nx,all\ny,all\nx,\n")
    with pytest.raises(ValueError, match=r"tax.csv, line 5: node 'x' is declared without a "
                                         r"parent \(line 5\) and with parent 'all' \(line 3\)"):
        read_taxonomy(path)


def test_duplicate_edge():
    with pytest.raises(ValueError, match=r"duplicate edge \('all', 'a'\)"):
        Taxonomy.from_edges([("all", "a"), ("all", "a")])


def test_several_roots_and_implicit_root():
    with pytest.raises(ValueError, match=r"taxonomy has 2 roots \('people', 'scenery'\)"):
        Taxonomy.from_edges([("people", "crowd"), ("scenery", "city")])
    tax = Taxonomy.from_edges([("people", "crowd"), ("scenery", "city")], implicit_root="all")
    assert tax.root == "all" and tax.children("all") == ("people", "scenery")
    with pytest.raises(ValueError, match="implicit_root 'people' is already a node"):
        Taxonomy.from_edges([("people", "crowd")], implicit_root="people")


@pytest.mark.parametrize("root", [float("nan"), np.nan, pd.NA, pd.NaT, ["all"]])
@pytest.mark.parametrize(
    "build",
    [
        lambda root: Taxonomy.from_edges([("people", "crowd"), ("scenery", "city")],
                                         implicit_root=root),
        lambda root: Taxonomy.from_parents({"crowd": "people", "city": "scenery"},
                                           implicit_root=root),
        lambda root: Taxonomy.from_frame(
            pd.DataFrame({"child": ["crowd", "city"], "parent": ["people", "scenery"]}),
            implicit_root=root,
        ),
    ],
)
def test_implicit_root_must_be_a_name(build, root):
    # a missing value was added as the root (node names are checked before it is added): a
    # taxonomy rooted at nan; a list was dict's TypeError "unhashable type"
    with pytest.raises(ValueError, match=r"implicit_root must be the name of the root to add "
                                         r"\(hashable, not a missing value\) or None; got "):
        build(root)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Taxonomy.from_edges([]),
        lambda: Taxonomy.from_nested({}),
        lambda: Taxonomy.from_frame(pd.DataFrame({"child": [], "parent": []})),
    ],
)
def test_empty_taxonomy(build):
    with pytest.raises(ValueError, match="empty"):
        build()


def test_bad_shapes_and_columns():
    with pytest.raises(ValueError, match=r"edges\[0\] must be a \(parent, child\) pair"):
        Taxonomy.from_edges([("a", "b", "c")])
    with pytest.raises(ValueError, match=r"parent='up' is not a column"):
        Taxonomy.from_frame(pd.DataFrame({"child": ["a"], "parent": [None]}), parent="up")
    with pytest.raises(ValueError, match="children of 'a' must be a mapping, a list or None"):
        Taxonomy.from_nested({"a": 3})


@pytest.mark.parametrize("depth", [-1, 0.5, 1.0, "1", True, None])
def test_ancestor_at_depth_needs_an_integer_depth(depth):
    # 0.5 was AssertionError "unreachable", "1" a TypeError from <, True read as depth 1
    tax = Taxonomy.from_edges(SANTINI_EDGES)
    with pytest.raises(ValueError, match=rf"depth must be an integer >= 0; got {depth!r}"):
        tax.ancestor_at_depth("crowd", depth)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Taxonomy.flat("yes"),
         r"labels must be an iterable of names, not a single str; got 'yes'"),
        (lambda: Taxonomy.from_edges([("all", "a"), ("all", "b")], nodes="all"),
         r"nodes must be an iterable of node names, not a single str; got 'all'"),
        (lambda: Taxonomy.from_edges(["ra", "rb"]),
         r"edges\[0\] must be a \(parent, child\) pair; got 'ra'"),
        (lambda: Taxonomy.from_edges([("r", "a"), 5]),
         r"edges\[1\] must be a \(parent, child\) pair; got 5"),
    ],
)
def test_a_str_is_not_a_list_of_names(build, message):
    # the characters were read as names: flat("yes") had the labels y, e, s, and the edge
    # "ra" was ("r", "a"); a non-iterable edge was tuple()'s TypeError
    with pytest.raises(ValueError, match=message):
        build()


def test_from_frame_needs_a_dataframe():
    # a dict of columns was AttributeError "'dict' object has no attribute 'columns'"
    with pytest.raises(ValueError, match="frame must be a pandas DataFrame; got dict"):
        Taxonomy.from_frame({"child": ["all"], "parent": [None]})


def test_unknown_node_lookup_suggests():
    tax = Taxonomy.from_edges(SANTINI_EDGES)
    with pytest.raises(ValueError, match=r"unknown node 'peopel'.*'people'"):
        tax.ancestors("peopel")
    # an unhashable value (query_categories={"q": ["people"]}) was dict's TypeError
    with pytest.raises(ValueError, match=r"unknown node \['people'\].*'people'"):
        tax.index(["people"])


# ---------------------------------------------------------------------- properties
@st.composite
def random_trees(draw):
    n = draw(st.integers(min_value=1, max_value=25))
    parents = [draw(st.integers(min_value=0, max_value=i - 1)) for i in range(1, n)]
    return [(f"n{p}", f"n{i}") for i, p in enumerate(parents, start=1)], n


@given(random_trees())
@settings(max_examples=60, deadline=None)
def test_tree_laws(tree):
    edges, n = tree
    tax = Taxonomy.from_edges(edges, nodes=[f"n{i}" for i in range(n)])
    assert tax.root == "n0" and tax.is_tree and len(tax) == n
    anc = tax.ancestor_matrix
    for node in tax.nodes:
        i = tax.index(node)
        expected = {tax.nodes[j] for j in np.flatnonzero(anc[i])}
        assert set(tax.ancestors(node, include_self=True)) == expected
        assert tax.depth(node) == len(tax.ancestors(node))
        for child in tax.children(node):
            assert tax.depth(child) == tax.depth(node) + 1
        # distance to the root is the depth
        assert tax.distance(node, tax.root) == tax.depth(node)
    # topological order: every parent column comes before its children
    for parent, child in tax.to_edges():
        assert tax.index(parent) < tax.index(child)


# ---------------------------------------------------------------------- distances
def bfs_distance(tax, a, b):
    """Brute force for the oracle: a breadth-first search from a, edges taken either way."""
    neighbours = {n: set() for n in tax.nodes}
    for parent, child in tax.to_edges():
        neighbours[parent].add(child)
        neighbours[child].add(parent)
    steps, queue = {a: 0}, deque([a])
    while queue:
        node = queue.popleft()
        for other in neighbours[node]:
            if other not in steps:
                steps[other] = steps[node] + 1
                queue.append(other)
    return steps[b]


def all_pairs(tax):
    """The rule before distances between given nodes: scipy's all-pairs shortest paths."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import shortest_path

    child = [tax.index(c) for _, c in tax.to_edges()]
    parent = [tax.index(p) for p, _ in tax.to_edges()]
    graph = csr_array((np.ones(len(child)), (child, parent)), shape=(len(tax),) * 2)
    return shortest_path(graph, directed=False, unweighted=True).astype(np.int64)


@st.composite
def random_dags(draw):
    """Up to three parents per node, among the nodes before it: shortest paths often run
    through a shared child rather than a common ancestor."""
    n = draw(st.integers(min_value=1, max_value=25))
    edges = []
    for i in range(1, n):
        k = draw(st.integers(min_value=1, max_value=min(i, 3)))
        chosen = draw(st.lists(st.integers(min_value=0, max_value=i - 1), min_size=k,
                               max_size=k, unique=True))
        edges += [(f"n{p}", f"n{i}") for p in chosen]
    return edges, n


@given(st.one_of(random_trees(), random_dags()), st.data())
@settings(max_examples=120, deadline=None)
def test_distances_between_nodes_are_the_all_pairs_submatrix(graph, data):
    edges, n = graph
    names = [f"n{i}" for i in range(n)]
    # nodes listed twice, in no particular order, or none; one source per block or all
    picked = data.draw(st.lists(st.sampled_from(names), max_size=2 * n), label="nodes")
    budget = data.draw(st.sampled_from([1.0, 64.0 * n, 128e6]), label="memory_budget")
    tax = Taxonomy.from_edges(edges, nodes=names)
    full = all_pairs(tax)
    columns = tax.indices(picked)
    sub = tax.distance_matrix(picked, memory_budget=budget)  # before any full matrix
    assert sub.dtype == np.int64 and sub.shape == (len(picked), len(picked))
    np.testing.assert_array_equal(sub, full[np.ix_(columns, columns)])
    for a, b in zip(picked, picked[1:] + picked[:1], strict=True):
        assert tax.distance(a, b) == bfs_distance(tax, a, b)
    np.testing.assert_array_equal(tax.distance_matrix(memory_budget=budget), full)
    # once the full matrix is kept, rows are read from it: the same numbers
    np.testing.assert_array_equal(tax.distance_matrix(picked), sub)


def test_distance_in_a_dag_runs_through_a_shared_child():
    # a and b have parents x and y under the root, and the child ab in common: a - ab - b is
    # 2 edges, while the way through their common ancestor (a - x - all - y - b) is 4
    tax = Taxonomy.from_edges([("all", "x"), ("all", "y"), ("x", "a"), ("y", "b"),
                               ("a", "ab"), ("b", "ab")])
    assert tax.distance("a", "b") == 2 == bfs_distance(tax, "a", "b")
    assert tax.distance("x", "b") == 3  # x - all - y - b, or x - a - ab - b
    # by hand: rows and columns b, a, b, all (b listed twice, not in node order)
    expected = [[0, 2, 0, 2], [2, 0, 2, 2], [0, 2, 0, 2], [2, 2, 2, 0]]
    assert tax.distance_matrix(["b", "a", "b", "all"]).tolist() == expected
    assert tax.distance_matrix([]).shape == (0, 0)


def test_distance_matrix_over_nodes_validates_them():
    tax = Taxonomy.from_edges(SANTINI_EDGES)
    with pytest.raises(ValueError, match="nodes must be an iterable of node names, not a single"):
        tax.distance_matrix("crowd")
    with pytest.raises(ValueError, match=r"unknown node 'crwd'.*'crowd'"):
        tax.distance_matrix(["city", "crwd"])
    with pytest.raises(ValueError, match="memory_budget must be a number of bytes > 0; got 0"):
        tax.distance_matrix(["city"], memory_budget=0)


def test_distances_of_a_few_nodes_build_no_matrix_over_all_nodes():
    # 3,280 nodes: an (n_nodes, n_nodes) matrix of distances takes 86 MB; 40 nodes need
    # 40 × 3,280 × 16 bytes (2 MB) at most. Oracle: tracemalloc's peak, which sees numpy's
    # and scipy's arrays. (The rule before this built the full matrix for one pair.)
    import tracemalloc

    tax, _ = ternary_tree(7)
    picked = list(tax.nodes[:: len(tax) // 40])
    assert len(tax) == 3280
    tracemalloc.start()
    try:
        one = tax.distance(picked[-1], picked[1])
        assert tracemalloc.get_traced_memory()[1] < 8e6  # peak bytes for one pair
        dist = tax.distance_matrix(picked)
        assert tracemalloc.get_traced_memory()[1] < 8e6
    finally:
        tracemalloc.stop()
    assert one == dist[-1, 1] == bfs_distance(tax, picked[-1], picked[1])


@given(st.one_of(random_trees(), random_dags()), st.integers(min_value=1, max_value=4))
@settings(max_examples=60, deadline=None)
def test_distance_between_every_pair_searches_once_per_node(graph, keep):
    # a metric tax.distance over every pair of labels (agreement's callable metric) searched
    # the taxonomy once per pair (1.7 ms each on 9,841 nodes): now once per node whose row is
    # not kept; with room for `keep` rows only (the budget), older rows are searched again.
    # Oracle: breadth-first search; the count of searches through scipy's shortest_path.
    from scipy.sparse import csgraph

    edges, n = graph
    names = [f"n{i}" for i in range(n)]
    tax = Taxonomy.from_edges(edges, nodes=names)
    calls = []
    search = csgraph.shortest_path

    def counted(*args, **kwargs):
        calls.append(kwargs.get("indices"))
        return search(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csgraph, "shortest_path", counted)
        patch.setattr("fuzzytruth.taxonomy.MEMORY_BUDGET", 8.0 * n * keep)
        got = [[tax.distance(a, b) for b in names] for a in names]
    assert got == [[bfs_distance(tax, a, b) for b in names] for a in names]
    # row a is searched once and serves every (a, b) and, while kept, every (b, a); the
    # rule before searched once per pair (n * n)
    assert all(len(indices) == 1 for indices in calls)
    if keep >= n:
        assert len(calls) == n
    assert len(calls) <= max(n, n * n // 2)


def test_a_distance_row_evicted_by_another_thread_is_not_read_again():
    """Threads share the kept rows of distances: another thread may evict a row between this
    thread's look-up and its read (the look-up answered yes, the read raised a KeyError). Here
    every read by key finds its row gone, as if evicted just before; each row must be read
    once, by the look-up, and each answer is still the breadth-first distance."""

    class EvictedBeforeTheRead(dict):
        def __getitem__(self, key):
            self.pop(key, None)
            raise KeyError(key)

    tax, _ = ternary_tree(2)
    names = list(tax.nodes)
    tax.__dict__["_distance_rows"] = EvictedBeforeTheRead()
    got = [[tax.distance(a, b) for b in names] for a in names]
    assert got == [[bfs_distance(tax, a, b) for b in names] for a in names]


def test_a_closure_that_cannot_fit_in_memory_is_refused_naming_the_depth(monkeypatch):
    # the closure of a chain holds n²/2 (node, ancestor) pairs: 0.76 GB at 10,000 nodes, and
    # at 40,000 the process was killed for memory. Here the machine is made small instead: a
    # chain of 300 nodes holds 45,150 pairs (722,400 bytes to build), a memory of 500 kB
    import fuzzytruth.taxonomy as taxonomy_module

    chain = Taxonomy.from_edges([(f"n{i}", f"n{i + 1}") for i in range(299)])
    monkeypatch.setattr(taxonomy_module, "physical_memory", lambda: 5e5)
    with pytest.raises(ValueError, match=r"a taxonomy of 300 nodes and depth 299: its ancestor "
                                         r"closure needs more than .* beyond the 500 kB of "
                                         r"memory here"):
        _ = chain.ancestor_closure
    # the slots' table alone (300 × 300 int32, 360 kB) is checked too, the closure built
    monkeypatch.setattr(taxonomy_module, "physical_memory", lambda: 1e12)
    chain._closure()
    monkeypatch.setattr(taxonomy_module, "physical_memory", lambda: 3e5)
    with pytest.raises(ValueError, match=r"its table of ancestor slots needs more than 360 kB"):
        chain.ancestor_slots()
    # a wide, shallow tree of as many nodes fits in the same small memory
    wide = Taxonomy.from_nested({"all": [f"c{i}" for i in range(299)]})
    monkeypatch.setattr(taxonomy_module, "physical_memory", lambda: 5e5)
    assert wide.ancestor_closure.nnz == 1 + 2 * 299


@pytest.mark.parametrize("build", [
    lambda: Taxonomy.flat([1, "1"]),
    lambda: Taxonomy.from_nested({"r": {1: None, "1": None}}),
    lambda: Taxonomy.from_parents({1: "r", "1": "r"}),
    lambda: Taxonomy.flat([1], root="1"),
    lambda: Taxonomy.flat(["a", b"a"]),
])
def test_nodes_equal_as_text_are_refused(build):
    # they were two nodes that every report, file and id of the library prints alike
    with pytest.raises(ValueError, match=r"taxonomy must name each node once as text; got "):
        build()
    assert Taxonomy.flat([1, 2]).nodes == ("(any)", 1, 2)  # ids of one type as before


def test_a_set_of_labels_or_edges_gives_the_same_taxonomy_in_every_process():
    """Taxonomy.flat({...}) and from_edges({...}) took the set's iteration order, which
    changes with the process's string hashing, as the order of the nodes (of every matrix's
    columns and every table's rows); a set is now taken in the order of its text, whatever
    order it iterates in (here sets that iterate backwards). Lists keep their order."""

    class Backwards(set):
        def __iter__(self):
            return iter(sorted(super().__iter__(), key=str, reverse=True))

    assert Taxonomy.flat(Backwards({"cow", "cat", "dog"})).leaves == ("cat", "cow", "dog")
    assert Taxonomy.flat(["cow", "cat"]).leaves == ("cow", "cat")
    edges = Backwards({("all", "b"), ("all", "a"), ("a", "a1"), ("b", "b1")})
    assert Taxonomy.from_edges(edges).nodes == ("all", "a", "b", "a1", "b1")
