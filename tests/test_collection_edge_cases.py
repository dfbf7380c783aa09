"""Agreement on hostile but legal collections, against exact oracles.

Each test here holds a case that differential fuzzing found wrong (thousands of generated
collections compared with rational-arithmetic definitions, statsmodels, krippendorff and
scikit-learn): the oracle is :func:`exact_coefficients`, Fleiss' κ (Gwet's form for unequal
numbers of annotators) and Krippendorff's α computed with fractions from their definitions,
so a value is either the right number to double precision or undefined (None, NaN here).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth._resampling import resample_chunks
from fuzzytruth.collection import (
    agreement,
    agreement_by_level,
    annotator_agreement,
    annotator_weights,
    category_reliability,
    sibling_confusions,
)
from fuzzytruth.collection._counts import LabelCounts
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

#: Numbers of annotators m for which m × (1/m) is not 1 in double precision.
INEXACT_RECIPROCALS = [49, 98, 103, 107]


def annotations_from(label_lists: list[list], taxonomy: Taxonomy) -> Annotations:
    """Item ``k`` labelled by annotators ``r0, r1, ...`` with ``label_lists[k]``."""
    rows = [(f"i{k}", f"r{a}", label)
            for k, labels in enumerate(label_lists) for a, label in enumerate(labels)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(frame, taxonomy=taxonomy)


def exact_coefficients(label_lists: list, delta=None) -> dict:
    """Fleiss' κ (Gwet 2014: P_a over the items with two labels or more, π_j over all),
    κ_j = 1 − D̄_j / (π_j (1 − π_j)), and Krippendorff's α from the coincidence matrix (every
    ordered pair of two of an item's m labels weighted 1/(m − 1)) with the metric ``delta``
    (nominal by default), in exact rational arithmetic; None where a denominator is 0. An
    item is a list of labels or a Counter of them."""
    delta = delta or (lambda a, b: int(a != b))
    tallies = [Counter(labels) for labels in label_lists]
    pairable = [tally for tally in tallies if tally.total() >= 2]
    shares: Counter = Counter()
    for tally in tallies:
        for label, n in tally.items():
            shares[label] += Fraction(n, tally.total() * len(tallies))
    agree, disagree = Fraction(0), Counter()
    coincidences: Counter = Counter()
    for tally in pairable:
        m = tally.total()
        for label, n in tally.items():
            agree += Fraction(n * (n - 1), m * (m - 1) * len(pairable))
            disagree[label] += Fraction(n * (m - n), m * (m - 1) * len(pairable))
        for (x, n_x), (y, n_y) in itertools.product(tally.items(), repeat=2):
            # the ordered pairs of two of the item's labels that read (x, y)
            coincidences[x, y] += Fraction(n_x * (n_y - (x == y)), m - 1)
    chance = sum(p * p for p in shares.values())
    kappa = None if chance == 1 else (agree - chance) / (1 - chance)
    label_kappa = {j: None if p in (0, 1) else 1 - disagree[j] / (p * (1 - p))
                   for j, p in shares.items()}
    margins: Counter = Counter()
    for (x, _), o in coincidences.items():
        margins[x] += o
    n = sum(margins.values())
    observed = sum(o * delta(x, y) for (x, y), o in coincidences.items())
    expected = sum(margins[x] * margins[y] * delta(x, y) for x in margins for y in margins)
    alpha = None if expected == 0 else 1 - (n - 1) * observed / expected
    return {"fleiss_kappa": kappa, "label_kappa": label_kappa, "alpha": alpha}


def assert_exact(got: float, want: Fraction | None) -> None:
    if want is None:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(float(want), abs=1e-12)


# ---------------------------------------------------------------------------- undefined
@pytest.mark.parametrize("m", INEXACT_RECIPROCALS)
def test_a_category_every_annotator_chose_leaves_every_coefficient_undefined(m):
    # with m annotators per item all choosing "a", no disagreement is expected: κ, α and κ_a
    # are 0/0. statsmodels' fleiss_kappa gives NaN on this table; the shares used to be
    # summed as m × (1/m) < 1, and κ came out 1.0 and κ_a 2.0
    tax = Taxonomy.flat(["a", "b"])
    ann = annotations_from([["a"] * m, ["a"] * m], tax)
    with np.errstate(invalid="ignore"):
        assert np.isnan(fleiss_kappa(np.array([[m, 0], [m, 0]])))
    assert np.isnan(agreement(ann, n_resamples=0).estimate).all()
    assert np.isnan(agreement_by_level(ann, n_resamples=0).estimate).all()


def test_replicates_that_draw_one_category_only_are_undefined():
    # two unanimous items, one "a" and one "b": a replicate drawing item i0 twice has a
    # single category (every coefficient undefined), one drawing both has perfect agreement
    m = INEXACT_RECIPROCALS[0]
    tax = Taxonomy.flat(["a", "b"])
    label_lists = [["a"] * m, ["b"] * m]
    res = agreement(annotations_from(label_lists, tax), n_resamples=16, rng=3)
    (counts,) = list(resample_chunks(2, 16, np.random.default_rng(3)))
    assert {tuple(c) for c in counts} == {(2.0, 0.0), (1.0, 1.0), (0.0, 2.0)}
    for r, drawn in enumerate(counts):
        replicate = [labels for labels, k in zip(label_lists, drawn, strict=True)
                     for _ in range(int(k))]
        want = exact_coefficients(replicate)
        values = res.bootstrap_distribution[:, r]
        assert_exact(values[0], want["fleiss_kappa"])
        assert_exact(values[1], want["alpha"])
        for row, category in enumerate(res.category[3:], start=3):
            assert_exact(values[row], want["label_kappa"].get(category))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, *INEXACT_RECIPROCALS]),
                          st.sampled_from(["a", "b", "c"]), st.integers(0, 3)),
                min_size=2, max_size=6))
def test_coefficients_equal_the_exact_definitions_for_any_numbers_of_annotators(items):
    # each item: m annotators, all of them choosing one label but for up to 3 dissenters
    label_lists = [[label] * (m - min(k, m - 1)) + ["c"] * min(k, m - 1)
                   for m, label, k in items]
    if all(len(labels) < 2 for labels in label_lists):
        return  # refused, tested in test_collection.py
    res = agreement(annotations_from(label_lists, Taxonomy.flat(["a", "b", "c"])),
                    n_resamples=0)
    want = exact_coefficients(label_lists)
    assert_exact(res.value("fleiss_kappa"), want["fleiss_kappa"])
    assert_exact(res.value("krippendorff_alpha"), want["alpha"])
    for category in res.category[3:]:
        assert_exact(res.value("label_kappa", category), want["label_kappa"][category])


# ---------------------------------------------------------------------------- metric
def test_a_metric_symmetric_to_rounding_counts_through_its_symmetric_part():
    # a matrix within numpy.allclose of symmetric is accepted; α counts (a, b) and (b, a)
    # alike, so it is α with (δ + δᵀ) / 2, whichever triangle the noise is in. The observed
    # term used to read the upper triangle and the expected term both: 1.8e-7 off
    tree = Taxonomy.from_nested({"r": {"p": ["p1", "p2"], "q": ["q1"]}})
    label_lists = [["p1", "p2", "q1"], ["p1", "p1", "p2"], ["q1", "q1", "p2"],
                   ["p2", "q", "p"]]
    ann = annotations_from(label_lists, tree)
    path = tree.distance_matrix().astype(float)
    metric = path + np.triu(np.full(path.shape, 1e-6), 1)
    index = {node: k for k, node in enumerate(tree.nodes)}
    symmetric = (metric + metric.T) / 2
    want = exact_coefficients(
        label_lists, lambda a, b: Fraction(symmetric[index[a], index[b]])
    )["alpha"]
    for given_metric in (metric, metric.T, lambda a, b: metric[index[a], index[b]]):
        got = agreement(ann, metric=given_metric, n_resamples=0).value("taxonomy_alpha")
        assert got == pytest.approx(float(want), abs=1e-12)


# ---------------------------------------------------------------------------- levels
@st.composite
def dags(draw):
    """Node k > 0 has one to three parents among the nodes before it: any DAG (a tree when
    every node has one), edges listed in drawn order."""
    n = draw(st.integers(1, 14))
    edges = [(f"n{p}", f"n{k}") for k in range(1, n)
             for p in draw(st.sets(st.integers(0, k - 1), min_size=1, max_size=min(k, 3)))]
    return Taxonomy.from_edges(draw(st.permutations(edges)), nodes=[f"n{k}" for k in range(n)])


@settings(max_examples=60, deadline=None)
@given(dags())
def test_ancestor_columns_take_the_parents_in_name_order_in_any_dag(tax):
    # oracle: breadth-first over each node's parents sorted by name, written here
    def first_at_depth(node, depth):
        queue, seen = sorted(tax.parents(node), key=str), set()
        while queue:
            ancestor = queue.pop(0)
            if ancestor in seen:
                continue
            seen.add(ancestor)
            if tax.depth(ancestor) == depth:
                return ancestor
            queue += sorted(tax.parents(ancestor), key=str)
        return node

    columns = tax.ancestors_at_depths()
    assert columns.shape == (tax.depths.max() + 1, len(tax))
    for depth, row in enumerate(columns):
        assert [tax.nodes[j] for j in row] == [
            node if tax.depth(node) <= depth else first_at_depth(node, depth) for node in tax]
        assert [tax.ancestor_at_depth(node, depth) for node in tax] == [tax.nodes[j] for j in row]


def test_levels_of_a_dag_do_not_depend_on_the_order_of_its_edges():
    # "ab" lies under "a" and "b" at depth 1; the collapse took the parent listed first, so
    # listing ("all", "b") before ("all", "a") turned κ at depth 1 from -0.2 into 0.333
    edges = [("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab"), ("a", "a1"), ("b", "b1")]
    label_lists = [["ab", "a1"], ["ab", "b1"], ["a1", "a1"]]
    tables = [agreement_by_level(annotations_from(label_lists, Taxonomy.from_edges(order)),
                                 n_resamples=40, rng=4).to_frame()
              for order in (edges, edges[::-1])]
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
    # "ab" counts as "a", the first of its parents by name: κ of [a, a], [a, b], [a, a]
    depth_one = tables[0].set_index(["depth", "measure"]).loc[(1, "fleiss_kappa"), "value"]
    want = exact_coefficients([["a", "a"], ["a", "b"], ["a", "a"]])["fleiss_kappa"]
    assert depth_one == pytest.approx(float(want), abs=1e-12)


def test_levels_walk_each_nodes_ancestors_once(monkeypatch):
    # a 300-level chain: asking ancestor_at_depth depth by depth walked the ancestors of every
    # deeper node once per depth, 44,850 walks (3.4 s here; 37 s for 1,000 nodes 500 deep).
    # Every look-up of a node's parents is counted, inside the taxonomy and out
    chain = Taxonomy.from_edges([(f"n{k}", f"n{k + 1}") for k in range(300)])
    ann = annotations_from([["n300", "n150", "n1"], ["n2", "n2"]], chain)
    asked = []

    class Counted(dict):
        def __getitem__(self, node):
            asked.append(node)
            return super().__getitem__(node)

    monkeypatch.setattr(chain, "_parents", Counted(chain._parents))
    res = agreement_by_level(ann, metric="nominal", n_resamples=0)
    assert len(asked) <= len(chain)
    # n300, n150, n2 and n1 are four categories at depth 300, three at depth 100 (n300 and
    # n150 both under n100) and one at depth 1
    for depth, n_categories in ((300, 4), (100, 3), (1, 1)):
        assert res.n_categories[res.depth == depth].tolist() == [n_categories] * 3


# ---------------------------------------------------------------------------- refusals
def test_an_unknown_row_lists_every_category_even_falsy_names():
    # categories named 0 and "" are legal node names; the list of known categories left
    # them out (it kept the truthy ones), so the message named ['a'] only
    tax = Taxonomy.flat([0, "", "a"])
    res = agreement(annotations_from([[0, ""], ["a", "a"]], tax), n_resamples=0)
    with pytest.raises(ValueError, match=r"and categories \[0, '', 'a'\]"):
        res.value("label_kappa", "b")


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_no_pairable_item_says_what_was_received(function):
    ann = annotations_from([["a"], ["b"], ["a"]], Taxonomy.flat(["a", "b"]))
    with pytest.raises(ValueError, match=r"no item has two or more annotators \(annotations "
                                         r"of 3 item\(s\), each with one label\)"):
        function(ann)


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_one_pairable_item_gives_no_interval_rather_than_a_point(function):
    # every resample of the items compared the one item's labels: fleiss_kappa -1.000
    # [-1.000, -1.000], an interval of width 0 that claimed certainty
    tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": ["b1"]}})
    ann = annotations_from([["a1", "a2"], ["b1"], ["a1"]], tax)
    with pytest.warns(UnreliableInferenceWarning,
                      match=f"{function.__name__}: only one item has two or more annotators"):
        res = function(ann, n_resamples=200, rng=0)
    table = res.to_frame()
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    assert res.bootstrap_distribution.shape[1] == 0
    point = function(ann, n_resamples=0)  # the estimates are those of no resampling
    np.testing.assert_array_equal(res.estimate, point.estimate)
    two = annotations_from([["a1", "a2"], ["b1", "b1"], ["a1"]], tax)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnreliableInferenceWarning)
        assert function(two, n_resamples=200, rng=0).bootstrap_distribution.shape[1] == 200


@pytest.mark.parametrize(("function", "named"), [
    (agreement, "agreement needs one label per (item, annotator); got annotations"),
    (agreement_by_level, "agreement_by_level needs one label per (item, annotator); got "
                         "annotations"),
    (annotator_agreement, "annotator_agreement needs one label per (item, annotator); got "
                          "annotations"),
    (sibling_confusions, "sibling_confusions needs one label per (item, annotator); got "
                         "annotations"),
    (category_reliability, "category_reliability needs one label per (item, annotator); got "
                           "data"),
])
def test_split_votes_are_refused_by_the_function_called(function, named):
    # every analysis said "agreement needs one label per (item, annotator)", whichever it was
    frame = pd.DataFrame({"item_id": ["x", "x", "x", "y", "y"],
                          "annotator_id": ["r1", "r1", "r2", "r1", "r2"],
                          "label": ["a", "b", "a", "a", "b"]})
    ann = Annotations.from_frame(frame, taxonomy=Taxonomy.flat(["a", "b"]), duplicates="split")
    with pytest.raises(ValueError) as caught:
        function(ann)
    assert str(caught.value).startswith(named)
    assert "the votes of 1 (item, annotator) pair(s)" in str(caught.value)


def _bad_metrics() -> list:
    tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})  # all, a, b, a1, a2
    path = tax.distance_matrix().astype(float)
    negative, asymmetric, diagonal = path.copy(), path.copy(), path.copy()
    negative[3, 2] = negative[2, 3] = -1.0
    asymmetric[1, 2] = 3.0
    diagonal[4, 4] = 0.5
    return [
        (negative, r"values must be finite and >= 0; got -1.0 for \('b', 'a1'\)"),
        (asymmetric, r"must be symmetric: metric\(a, b\) == metric\(b, a\); got 3.0 for "
                     r"\('a', 'b'\) and 2.0 for \('b', 'a'\)"),
        (diagonal, r"zero diagonal\); got 0.5 between 'a2' and itself"),
        (lambda x, y: None, r"metric\(a, b\) must return a number; got None for \('a1', 'a1'\)"),
        (lambda x, y: str(int(x != y)), r"must return a number; got '0' for \('a1', 'a1'\)"),
        ([["0", "x"]], r"metric must be one of .*; got \[\['0', 'x'\]\]"),
        (None, r"metric must be one of .*; got None"),
    ]


@pytest.mark.parametrize(("metric", "message"), _bad_metrics())
def test_a_bad_metric_is_refused_with_the_offending_value(metric, message):
    # the refusals said "metric values must be finite and >= 0" (which value?), a callable's
    # None surfaced as float()'s TypeError, text numbers were read as numbers, and None as a
    # matrix "of shape ()"
    tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
    ann = annotations_from([["a1", "a2"], ["a1", "b"]], tax)
    with pytest.raises(ValueError, match=message):
        agreement(ann, metric=metric, n_resamples=0)


@pytest.mark.parametrize("data", [None, pd.DataFrame(), "membership"])
def test_annotator_weights_names_its_own_parameter(data):
    # annotator_weights(data) refused a wrong type as "annotations must be an Annotations",
    # the parameter of the function it calls, and without the AnnotatorAgreement it accepts
    if isinstance(data, str):  # built here: a Membership of two labels
        data = Membership.from_annotations(
            annotations_from([["a", "b"]], Taxonomy.flat(["a", "b"])))
        message = (r"annotator_weights needs raw labels .*: pass an Annotations or an "
                   r"AnnotatorAgreement as data, not a Membership")
    else:
        message = (r"data must be an Annotations or an AnnotatorAgreement; got "
                   + type(data).__name__)
    with pytest.raises(ValueError, match=message):
        annotator_weights(data)


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_the_reported_confidence_level_is_the_one_used(function):
    # a float32 0.95 is read as 0.95 (fuzzytruth._validation.check_confidence_level) for the
    # interval, but the result kept the float32 and its table said 0.949999988079071
    ann = annotations_from([["a", "a", "b"], ["b", "b"], ["a", "b"]], Taxonomy.flat(["a", "b"]))
    res = function(ann, n_resamples=40, rng=1, confidence_level=np.float32(0.95))
    assert res.confidence_level == 0.95
    frame = res.to_frame()
    assert (frame["confidence_level"] == 0.95).all()
    reference = function(ann, n_resamples=40, rng=1).to_frame()
    pd.testing.assert_frame_equal(frame, reference, check_exact=True)


# ---------------------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_a_fractional_metric_gives_the_same_bits_under_any_budget(function):
    # the observed term of an item with k distinct labels adds k (k - 1) / 2 pair terms; with
    # a metric of irrational values their sum's last bit depended on the memory budget (numpy
    # indexing returns the (items, pairs) chunk in another layout when it has several rows,
    # and a row sum's rounding follows the layout): found by fuzzing, 1 case in 1,200
    tax = Taxonomy.from_nested({"r": {"p": ["p1", "p2", "p3"], "q": ["q1", "q2", "q3"]}})
    rng = np.random.default_rng(5)
    nodes = [n for n in tax.nodes if n != "r"]
    label_lists = [list(rng.choice(nodes, size=6, replace=False)) for _ in range(12)]
    ann = annotations_from(label_lists, tax)

    def root_path(a, b):
        return tax.distance(a, b) ** 0.5

    runs = [function(ann, metric=root_path, n_resamples=20, rng=2, memory_budget=budget)
            for budget in (1, 1e9)]
    assert np.array_equal(runs[0].estimate, runs[1].estimate, equal_nan=True)
    assert np.array_equal(runs[0].bootstrap_distribution, runs[1].bootstrap_distribution,
                          equal_nan=True)


# ---------------------------------------------------------------------------- huge counts
@pytest.mark.parametrize(("items", "seed"), [
    # (number of labels, majority label, dissenters' labels) per item
    ([(10**6, "a", "bc"), (10**6, "a", "b"), (999_983, "a", "")], 0),
    ([(10**6, "a", "b"), (10**6, "b", "a"), (50, "a", "c")], 1),
    ([(2 * 10**6, "a", "bb"), (10**6, "a", ""), (3, "c", "a")], 2),
])
def test_near_unanimous_items_with_a_million_labels(items, seed):
    # the disagreement of an item was 1 minus its pairs' agreement, and 1 − π_j was computed
    # from π_j: with 10⁶ labels and two dissenters both are 1 − 4e-6 to one rounding, and κ
    # and α came out 3e-10 off the exact values, κ_j 1e-9 (replicates too)
    tax = Taxonomy.flat(["a", "b", "c"])
    label_lists = [Counter({label: m - len(rest)}) + Counter(rest) for m, label, rest in items]
    counts = sparse.csr_array(np.array(
        [[labels[c] for c in tax.nodes] for labels in label_lists], dtype=float))
    res = agreement(LabelCounts(counts, tax), n_resamples=3, rng=seed)
    (draws,) = list(resample_chunks(len(items), 3, np.random.default_rng(seed)))
    for column, drawn in enumerate([np.ones(len(items)), *draws]):
        replicate = [labels for labels, k in zip(label_lists, drawn, strict=True)
                     for _ in range(int(k))]
        want = exact_coefficients(replicate)
        values = res.estimate if column == 0 else res.bootstrap_distribution[:, column - 1]
        assert_exact(values[0], want["fleiss_kappa"])
        assert_exact(values[1], want["alpha"])
        assert_exact(values[2], want["alpha"])  # flat: the path metric is 2 × nominal
        for row, category in enumerate(res.category[3:], start=3):
            assert_exact(values[row], want["label_kappa"].get(category))


def test_closed_kappa_of_near_unanimous_items_with_many_labels():
    # closed κ_ω is κ of the dichotomy "ω or below" vs not; with 10⁵ labels per item and one
    # or two outside ω, 1 − π_ω was computed from π_ω = 1 − 1e-5 and the value kept about 5
    # digits: closed κ of "p" was -6.6667046e-06 for the exact -6.6667111e-06
    tax = Taxonomy.from_nested({"r": {"p": ["p0", "p1"], "q": ["q0"]}})
    items = [["p0"] * (10**5 - 2) + ["q0", "p1"], ["p1"] * (10**5 - 1) + ["q0"],
             ["p0"] * 99_991]
    ann = annotations_from(items, tax)
    frame = category_reliability(ann).to_frame().set_index("category")
    for node in ("p", "p0", "p1", "q", "q0"):
        under = set(tax.descendants(node, include_self=True))
        dichotomy = [Counter(label in under for label in labels) for labels in items]
        assert_exact(frame.loc[node, "closed_kappa"],
                     exact_coefficients(dichotomy)["label_kappa"].get(True))


def test_cohen_kappa_of_two_annotators_who_almost_always_say_the_same():
    # two annotators sharing 99,991 items, all "a" but for two and three: p_e = 1 − 5e-5,
    # and 1 − p_e taken from it left κ = -1.80019449e-05 for the exact -1.80019442e-05
    # (relative error 4e-8; scikit-learn's cohen_kappa_score is within 1e-16)
    n = 99_991
    x, y = ["a"] * n, ["a"] * n
    x[10], x[20] = "b", "c"
    y[30], y[40], y[50] = "b", "b", "c"
    frame = pd.DataFrame({"item_id": list(range(n)) * 2, "annotator_id": ["x"] * n + ["y"] * n,
                          "label": x + y})
    res = annotator_agreement(Annotations.from_frame(frame, taxonomy=Taxonomy.flat(list("abc"))))
    p_o = Fraction(sum(a == b for a, b in zip(x, y, strict=True)), n)
    p_e = sum(Fraction(x.count(c) * y.count(c), n * n) for c in "abc")
    exact = float((p_o - p_e) / (1 - p_e))
    assert res.pairwise_kappa[0, 1] == pytest.approx(exact, rel=1e-12, abs=0)
    assert cohen_kappa_score(x, y) == pytest.approx(exact, rel=1e-12, abs=0)


@pytest.mark.parametrize("function", [agreement, agreement_by_level])
def test_the_order_of_the_taxonomys_nodes_changes_no_bit(function):
    # a taxonomy's node order follows the order its edges were given in, and the sums over
    # labels followed it: the same labels under a flat taxonomy listed backwards gave
    # replicates that differed in their last bit (found by fuzzing, 13 cases in 60)
    names = [f"c{k}" for k in range(12)]
    rng = np.random.default_rng(8)
    label_lists = [list(rng.choice(names, size=int(rng.integers(2, 7)))) for _ in range(40)]
    runs = [function(annotations_from(label_lists, Taxonomy.flat(order)), metric="nominal",
                     n_resamples=200, rng=6)
            for order in (names, names[::-1])]
    # κ_j rows follow each taxonomy's order: match the rows by (measure, category or depth)
    rows = [list(zip(run.measure, run.category if function is agreement else run.depth,
                     strict=True)) for run in runs]
    match = [rows[1].index(row) for row in rows[0]]
    assert np.array_equal(runs[0].estimate, runs[1].estimate[match], equal_nan=True)
    assert np.array_equal(runs[0].bootstrap_distribution,
                          runs[1].bootstrap_distribution[match], equal_nan=True)


def test_a_path_metric_too_large_for_memory_is_named_and_nominal_still_runs(monkeypatch):
    """100,000 items over 50,000 used labels: metric='path' built a 50,000 x 50,000 distance
    table (20 GB and more) and the process was killed. In a DAG the table is sized first (the
    machine's memory is set small here); the nominal coefficients need no table, nor do the
    path metrics on a tree (since 2026-11-28: collection._label_metric.TreePath)."""
    import fuzzytruth._validation as validation

    # c0 has two parents: a DAG, whose shortest paths come from the table
    dag = Taxonomy.from_edges([("all", "p"), ("all", "q"), ("q", "c0"),
                               *(("p", f"c{i}") for i in range(6))])
    tree = Taxonomy.from_nested({"all": [f"c{i}" for i in range(6)]})
    frame = pd.DataFrame({"item_id": np.repeat(["x", "y", "z"], 2),
                          "annotator_id": ["a", "b"] * 3,
                          "label": ["c0", "c1", "c2", "c2", "c3", "c4"]})
    annotations = Annotations.from_frame(frame, taxonomy=dag)
    monkeypatch.setattr(validation, "physical_memory", lambda: 16 * 5 * 5 - 1)  # 5 labels used
    with pytest.raises(ValueError, match=r"^metric='path' compares every pair of the 5 labels "
                       r"used: \(labels x labels\) distance tables of 400 bytes, more than the "
                       r"399 bytes of memory; metric='nominal' needs none, nor does a tree "
                       r"\(this taxonomy is a DAG\)$"):
        agreement(annotations, n_resamples=0)
    nominal = agreement(annotations, n_resamples=0, metric="nominal")
    assert np.isfinite(nominal.estimate[:2]).all()
    on_tree = agreement(Annotations.from_frame(frame, taxonomy=tree), n_resamples=0)
    assert np.isfinite(on_tree.estimate[:3]).all()


@pytest.mark.parametrize("by", ["kappa", "majority"])
def test_annotator_weights_warns_when_every_weight_is_0(by):
    # two annotators who disagree on every item: each mean kappa is -1, clipped to 0, and the
    # weights went on to Membership.from_annotations, which refused every item
    rows = [(f"i{i}", who, label) for i in range(20)
            for who, label in (("A", "ab"[i % 2]), ("B", "ba"[i % 2]))]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                 taxonomy=Taxonomy.flat(["a", "b"]))
    with pytest.warns(UserWarning, match="every annotator weight is 0, so "
                                         "Membership.from_annotations would refuse every item"):
        weights = annotator_weights(ann, by=by)
    assert weights == {"A": 0.0, "B": 0.0}
    with pytest.raises(ValueError, match="total annotator weight 0"):
        Membership.from_annotations(ann.with_annotator_weights(weights))
    agreeing = pd.DataFrame([(f"i{i}", who, "ab"[i % 2]) for i in range(20) for who in "AB"],
                            columns=["item_id", "annotator_id", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert annotator_weights(Annotations.from_frame(agreeing, taxonomy=None), by=by) == {
            "A": 1.0, "B": 1.0}
