"""Annotations validation and Membership (Santini eq. 6–9), with their laws."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.datasets import SANTINI_FIGURE1_PUBLISHED, santini_figure1, santini_taxonomy


def frame(rows):
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


TAX = santini_taxonomy()


# ---------------------------------------------------------------------- the paper's example
def test_figure1_reproduces_the_published_probabilities():
    # Santini §4: "classified as people by 2 subject, as crowd by one, and as city by two"
    mem = santini_figure1().membership
    for category, published in SANTINI_FIGURE1_PUBLISHED.items():
        assert mem.probability("fig1", category) == pytest.approx(published, abs=1e-15)


# ---------------------------------------------------------------------- annotations errors
def test_unknown_label_lists_offenders_and_close_names():
    df = frame([("a", "s1", "peple"), ("a", "s2", "cty"), ("b", "s1", "people")])
    with pytest.raises(
        ValueError,
        match=r"2 label\(s\) not in the taxonomy: 'peple', 'cty'"
        r".*'peple' -> 'people'.*'cty' -> 'city'",
    ):
        Annotations.from_frame(df, taxonomy=TAX)


def test_labels_of_another_type_than_the_nodes_say_how_to_convert():
    """An int label column (pandas reads "11" so) against a taxonomy of str nodes was refused
    with hints that printed np.int64(11) -> '11' and no reason; the reason and the
    conversion are now said."""
    tax = Taxonomy.from_nested({"root": {"1": ["11", "12"], "2": []}})
    df = pd.DataFrame({"item_id": ["a", "a"], "annotator_id": ["x", "y"], "label": [11, 2]})
    with pytest.raises(ValueError, match=r"^2 label\(s\) not in the taxonomy: 11, 2\. Closest "
                       r"known names: 11 -> '11', '1'; 2 -> '2', '12'; names are matched as "
                       r"they are, and 11 \(int\) is not '11' \(str\): convert them \(str\) "
                       r"\(frame\['label'\]\.astype\(str\)\)$"):
        Annotations.from_frame(df, taxonomy=tax)
    with pytest.raises(ValueError, match=r"^unknown node 11: not in the taxonomy \(closest known "
                       r"names: '11', '1'\); names are matched as they are, and 11 \(int\) is "
                       r"not '11' \(str\): convert them \(str\)$"):
        tax.index(11)
    converted = Annotations.from_frame(df.assign(label=df["label"].astype(str)), taxonomy=tax)
    assert sorted(converted.to_frame()["label"]) == ["11", "2"]
    # the other way round (str labels, int nodes) the hint printed "'11' -> '11'" and no
    # reason, and bytes labels got no reason either
    numbered = Taxonomy.from_edges([("root", 11), ("root", 2)])
    with pytest.raises(ValueError, match=r"^2 label\(s\) not in the taxonomy: '11', '2'\. "
                       r"Closest known names: '11' -> 11; '2' -> 2; names are matched as they "
                       r"are, and '11' \(str\) is not 11 \(int\): convert them \(int\)$"):
        Annotations.from_frame(df.assign(label=["11", "2"]), taxonomy=numbered)
    with pytest.raises(ValueError, match=r"and b'11' \(bytes\) is not '11' \(str\): decode "
                       r"them$"):
        Annotations.from_frame(df.assign(label=[b"11", b"2"]), taxonomy=tax)


def test_duplicate_label_is_an_error_by_default():
    df = frame([("a", "s1", "people"), ("a", "s1", "city")])
    with pytest.raises(ValueError, match=r"annotator 's1' labelled item 'a' more than once"):
        Annotations.from_frame(df, taxonomy=TAX)


def test_ids_with_the_same_text_are_refused():
    # items (or annotators) 1 and "1" were two, printed alike in every table and merged by
    # write_annotations and a read back; the rest of the library matches ids as text
    items = frame([(1, "s1", "people"), ("1", "s1", "city")])
    with pytest.raises(ValueError, match=r"frame column 'item_id' must name each id once as "
                                         r"text; got \[1, '1'\]"):
        Annotations.from_frame(items, taxonomy=TAX)
    people = frame([("a", 7, "people"), ("a", "7", "city")]).rename(columns={"annotator_id": "who"})
    with pytest.raises(ValueError, match=r"frame column 'who' must name each id once"):
        Annotations.from_frame(people, taxonomy=TAX, annotator="who")
    numbers = frame([(1, 1, "people"), (2, 1, "city")])  # one type: kept as given
    assert Annotations.from_frame(numbers, taxonomy=TAX).items.tolist() == [1, 2]


def test_duplicate_policies():
    df = frame([("a", "s1", "crowd"), ("a", "s1", "group"), ("a", "s2", "city")])
    first = Membership.from_annotations(
        Annotations.from_frame(df, taxonomy=TAX, duplicates="first")
    )
    last = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX, duplicates="last"))
    split = Membership.from_annotations(
        Annotations.from_frame(df, taxonomy=TAX, duplicates="split")
    )
    assert first.probability("a", "crowd") == 0.5 and first.probability("a", "group") == 0
    assert last.probability("a", "group") == 0.5 and last.probability("a", "crowd") == 0
    # split: s1's vote is halved between crowd and group; their shared parent gets it whole
    assert split.probability("a", "crowd") == 0.25
    assert split.probability("a", "group") == 0.25
    assert split.probability("a", "people") == 0.5
    assert split.probability("a", "all") == 1.0
    with pytest.raises(ValueError, match=r"duplicates must be one of"):
        Annotations.from_frame(df, taxonomy=TAX, duplicates="mean")


@pytest.mark.parametrize("policy", [np.array(["first", "last"]), ["first"], None, True])
def test_duplicates_policy_must_be_one_of_the_names(policy):
    # an array of two names was numpy's "truth value of an array ... is ambiguous"
    df = frame([("a", "s1", "people"), ("a", "s1", "city")])
    with pytest.raises(ValueError, match=r"duplicates must be one of \['error', 'first', "
                                         r"'last', 'split'\]; got "):
        Annotations.from_frame(df, taxonomy=TAX, duplicates=policy)


def test_missing_values_and_empty_and_columns():
    df = frame([("a", "s1", "people"), ("a", None, "city")])
    with pytest.raises(ValueError, match=r"missing value in column 'annotator_id' at row\(s\) 1"):
        Annotations.from_frame(df, taxonomy=TAX)
    with pytest.raises(ValueError, match="annotations are empty"):
        Annotations.from_frame(frame([]), taxonomy=TAX)
    with pytest.raises(ValueError, match=r"label='category' is not a column"):
        Annotations.from_frame(frame([("a", "s1", "people")]), taxonomy=TAX, label="category")


def test_from_frame_needs_a_dataframe():
    # a dict of columns was AttributeError "'dict' object has no attribute 'columns'"
    with pytest.raises(ValueError, match="frame must be a pandas DataFrame; got dict"):
        Annotations.from_frame({"item_id": ["a"], "annotator_id": ["s1"], "label": ["people"]},
                               taxonomy=TAX)


def test_configurable_column_names():
    df = pd.DataFrame({"image": ["x", "x"], "rater": ["r1", "r2"], "cat": ["city", "crowd"]})
    ann = Annotations.from_frame(df, taxonomy=TAX, item="image", annotator="rater", label="cat")
    assert list(ann.to_frame().columns) == ["item_id", "annotator_id", "label", "weight"]
    assert Membership.from_annotations(ann).probability("x", "scenery") == 0.5


def test_bad_annotator_weights():
    df = frame([("a", "s1", "people")])
    with pytest.raises(ValueError, match=r"annotator_weights must be finite and >= 0; got -1"):
        Annotations.from_frame(df, taxonomy=TAX, annotator_weights={"s1": -1})
    zero = Annotations.from_frame(df, taxonomy=TAX, annotator_weights={"s1": 0.0})
    with pytest.raises(ValueError, match=r"item\(s\) 'a' have total annotator weight 0"):
        Membership.from_annotations(zero)


def test_annotator_weights_series_with_a_repeated_id():
    # dict(series.items()) kept the last of the two weights of s1 without a word
    df = frame([("a", "s1", "people"), ("a", "s2", "city")])
    weights = pd.Series([1.0, 0.0, 1.0], index=["s1", "s1", "s2"])
    with pytest.raises(ValueError, match=r"annotator_weights must give each annotator one "
                                         r"weight; got several for 's1'"):
        Annotations.from_frame(df, taxonomy=TAX, annotator_weights=weights)
    with pytest.raises(ValueError, match="one weight; got several for 's1'"):
        Annotations.from_frame(df, taxonomy=TAX).with_annotator_weights(weights)


def test_annotator_weights_any_real_number():
    # a Fraction is a Real number, and so is an int past the largest float: np.isfinite
    # refused both with a TypeError about ufuncs, which named no parameter
    from fractions import Fraction

    df = frame([("a", "s1", "people"), ("a", "s2", "city")])
    ann = Annotations.from_frame(df, taxonomy=TAX, annotator_weights={"s1": Fraction(1, 3)})
    assert ann.annotator_weights == {"s1": 1 / 3}
    assert Membership.from_annotations(ann).probability("a", "people") == pytest.approx(0.25)
    with pytest.raises(ValueError, match=r"annotator_weights must be finite and >= 0; got "
                                         r"1000000000\d* for annotator 's1'"):
        Annotations.from_frame(df, taxonomy=TAX, annotator_weights={"s1": 10**400})


# ---------------------------------------------------------------------- membership
def test_unequal_numbers_of_annotators():
    df = frame(
        [
            ("a", "s1", "crowd"),
            ("a", "s2", "city"),
            ("b", "s1", "single"),
            ("b", "s2", "single"),
            ("b", "s3", "group"),
            ("b", "s4", "city"),
        ]
    )
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    assert mem.probability("a", "people") == 0.5
    assert mem.probability("b", "people") == 0.75
    assert mem.probability("b", "single") == 0.5


def test_annotator_weight_equals_repeating_the_annotator():
    base = frame([("a", "s1", "crowd"), ("a", "s2", "city"), ("a", "s3", "city")])
    weighted = Annotations.from_frame(base, taxonomy=TAX, annotator_weights={"s1": 2.0})
    repeated = frame(
        [("a", "s1", "crowd"), ("a", "s1b", "crowd"), ("a", "s2", "city"), ("a", "s3", "city")]
    )
    np.testing.assert_allclose(
        Membership.from_annotations(weighted).matrix,
        Membership.from_annotations(Annotations.from_frame(repeated, taxonomy=TAX)).matrix,
        atol=1e-15,
    )


@pytest.mark.parametrize("scale", [1e308, 2.0**1000, 1e-300])
def test_annotator_weights_are_shares_at_any_scale(scale):
    # shares do not depend on the unit of the weights (Santini eq. 6: a weighted share);
    # weights of 1e308 summed to inf, inf / inf = nan was clipped, and p(people) came out 0
    df = frame([("a", "s1", "crowd"), ("a", "s2", "city"), ("a", "s3", "crowd"),
                ("b", "s1", "single"), ("b", "s2", "single")])
    equal = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    scaled = Membership.from_annotations(Annotations.from_frame(
        df, taxonomy=TAX, annotator_weights={"s1": scale, "s2": scale, "s3": scale}))
    np.testing.assert_array_equal(scaled.matrix, equal.matrix)
    np.testing.assert_array_equal(scaled.direct, equal.direct)
    assert scaled.probability("a", "people") == 2 / 3


def test_dag_annotator_counts_once_per_ancestor():
    tax = Taxonomy.from_edges([("r", "a"), ("r", "b"), ("a", "ab"), ("b", "ab")])
    df = frame([("x", "s1", "ab"), ("x", "s2", "a")])
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=tax))
    # s1's "ab" reaches r by two paths but counts once: p(r) = 1, p(a) = 1, p(b) = 0.5
    assert [mem.probability("x", c) for c in ("r", "a", "b", "ab")] == [1.0, 1.0, 0.5, 0.5]


def test_crisp_from_labels_is_exactly_zero_one():
    mem = Membership.from_labels({"x": "crowd", "y": "city", "z": "people"}, taxonomy=TAX)
    assert mem.is_crisp
    assert set(np.unique(mem.matrix)) == {0.0, 1.0}
    assert mem.probability("x", "people") == 1.0 and mem.probability("z", "crowd") == 0.0
    with pytest.raises(ValueError, match="unknown node 'dog'"):
        Membership.from_labels({"x": "dog"}, taxonomy=TAX)


def test_category_size_and_exclusion():
    df = frame(
        [
            ("a", "s1", "crowd"),
            ("a", "s2", "city"),
            ("b", "s1", "crowd"),
            ("b", "s2", "crowd"),
            ("c", "s1", "city"),
            ("c", "s2", "city"),
        ]
    )
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    # |crowd| = 0.5 + 1 + 0 (eq. 9); |all| = number of items
    assert mem.category_size("crowd") == 1.5
    assert mem.category_size("all") == 3.0
    assert mem.category_size("crowd", exclude=["b"]) == 0.5
    sizes = mem.category_size()
    assert sizes["people"] == 1.5 and sizes.index.name == "category"


@given(st.lists(st.sampled_from(["x", "y", "z"]), max_size=6))
@settings(max_examples=40, deadline=None)
def test_category_size_excludes_each_item_once(exclude):
    # exclude=["x", "x"] subtracted x twice: |a| = 2 - 2 = 0, and |b| could be -1
    tax = Taxonomy.from_nested({"all": {"a": None, "b": None}})
    mem = Membership.from_labels({"x": "a", "y": "a", "z": "b"}, taxonomy=tax)
    brute = {c: sum(mem.probability(i, c) for i in mem.items if i not in exclude)
             for c in tax.nodes}
    assert mem.category_size(exclude=exclude).to_dict() == brute
    assert mem.category_size("a", exclude=exclude) == brute["a"]


def test_to_frame_is_tidy_and_complete():
    mem = santini_figure1().membership
    table = mem.to_frame()
    assert list(table.columns) == ["item_id", "category", "probability", "direct_share"]
    assert len(table) == len(TAX)
    assert table.set_index("category")["direct_share"].to_dict()["people"] == 0.4
    assert table["direct_share"].sum() == pytest.approx(1.0)


def test_from_probabilities_closed_and_open():
    table = pd.DataFrame({"crowd": [0.7, 0.0], "city": [0.3, 1.0]}, index=["x", "y"])
    mem = Membership.from_probabilities(table, taxonomy=TAX)
    assert mem.probability("x", "people") == 0.7 and mem.probability("x", "all") == 1.0
    with pytest.raises(ValueError, match=r"row 'x' sums to 0.5"):
        Membership.from_probabilities(table * 0.5, taxonomy=TAX)
    # close=False takes closed probabilities as they are (sums need not be 1) ...
    closed = (table * 0.5).assign(people=lambda t: t["crowd"], scenery=lambda t: t["city"])
    opened = Membership.from_probabilities(closed, taxonomy=TAX, close=False)
    assert opened.probability("x", "crowd") == 0.35 and opened.probability("x", "people") == 0.35
    assert opened.direct is None
    # ... but not a table where a category is more probable than its parent: crowd 0.35 under
    # people 0 was taken as it was
    with pytest.raises(ValueError, match=r"^with close=False the table must give closed "
                       r"probabilities, no category more probable than its parent \(an item in "
                       r"'crowd' is in 'people'\); item 'x': 'crowd' 0\.35 > 'people' 0\.0 "):
        Membership.from_probabilities(table * 0.5, taxonomy=TAX, close=False)
    given = np.zeros((1, len(TAX)))
    given[0, [TAX.index("all"), TAX.index("city")]] = 1.0
    with pytest.raises(ValueError, match=r"^matrix must give closed probabilities.*'city' 1\.0 "
                       r"> 'scenery' 0\.0"):
        Membership(TAX, ["x"], given)
    flat = Membership.from_probabilities(table)
    assert flat.taxonomy.root == "all" and flat.probability("y", "city") == 1.0
    with pytest.raises(ValueError, match="within \\[0, 1\\]"):
        Membership.from_probabilities(table * 2, taxonomy=TAX, close=False)


@pytest.mark.parametrize("close", [True, False])
@pytest.mark.parametrize("names", [["crowd", "crowd", "city"], [1, 1.0, 2]])
def test_from_probabilities_refuses_two_columns_on_one_category(close, names):
    # both columns were written into one node, the last kept: {crowd: 0, crowd: 1} read as
    # p(crowd) = 1 without a word (1 and 1.0 name one node of a taxonomy of ints)
    tax = Taxonomy.flat([names[0], names[2]], root="all")
    table = pd.DataFrame([[0.0, 1.0, 0.0]], columns=names, index=["x"])
    with pytest.raises(ValueError, match=rf"one column per category; got several columns for "
                                         rf"category {names[0]!r}"):
        Membership.from_probabilities(table, taxonomy=tax, close=close)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Membership.from_probabilities({"crowd": [1.0]}, taxonomy=TAX),
         "table must be a pandas DataFrame; got dict"),
        (lambda: Membership.from_probabilities(pd.DataFrame({"crowd": [1.0]}), taxonomy="TAX"),
         "taxonomy must be a fuzzytruth.Taxonomy, or None for a flat taxonomy of the columns; "
         "got str"),
        (lambda: Membership.from_labels({"x": "crowd"}, taxonomy={"all": ["crowd"]}),
         "taxonomy must be a fuzzytruth.Taxonomy; got dict"),
    ],
)
def test_membership_constructors_check_their_arguments(build, message):
    # each was an AttributeError ("'dict' object has no attribute 'columns'", "'str' object
    # has no attribute 'indices'") naming no parameter
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_membership_refuses_missing_item_ids(missing):
    # Annotations refuse a missing id; a probability table indexed [nan, "y"] was accepted
    # with an item nan
    table = pd.DataFrame({"crowd": [1.0, 0.0], "city": [0.0, 1.0]}, index=["x", missing])
    with pytest.raises(ValueError, match=r"item ids must not be missing values; got .* at "
                                         r"position 1"):
        Membership.from_probabilities(table, taxonomy=TAX)
    with pytest.raises(ValueError, match="item ids must not be missing values"):
        Membership.from_labels(pd.Series(["crowd", "city"], index=["x", missing]), taxonomy=TAX)


def test_tuple_item_ids():
    # Annotations take a tuple as an item id; Membership made the ids a MultiIndex and
    # failed with pandas' "Names should be list-like for a MultiIndex"
    df = frame([(("img", 1), "s1", "crowd"), (("img", 1), "s2", "city"),
                (("img", 2), "s1", "city")])
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    assert mem.items.tolist() == [("img", 1), ("img", 2)]
    assert mem.probability(("img", 1), "people") == 0.5
    assert mem.probabilities([("img", 2), ("img", 1)], "city").tolist() == [1.0, 0.5]
    assert mem.subset([("img", 2)]).items.tolist() == [("img", 2)]
    with pytest.raises(ValueError, match=r"unknown item id\(s\) \('img', 3\)"):
        mem.probability(("img", 3), "people")
    # a list names no item: it was pandas' NotImplementedError about MultiIndex
    with pytest.raises(ValueError, match=r"unknown item id\(s\) \['img', 1\]"):
        mem.probability(["img", 1], "people")


def test_unknown_items_are_named():
    mem = santini_figure1().membership
    with pytest.raises(ValueError, match=r"unknown item id\(s\) 'fig2'"):
        mem.probability("fig2", "people")


def test_membership_items_are_matched_as_text_and_named_once_as_text():
    """As every id across the library (a run's documents are text): "2" names item 2 in the
    lookups and the P/R distributions, where it was an unknown item; two items with the same
    text are refused when the membership is made (before, only when evaluated), and results
    naming one item twice as text are refused, not counted twice."""
    from fuzzytruth import precision_distribution, query_category_weights

    mem = Membership.from_labels({1: "crowd", 2: "city", 3: "people"}, taxonomy=TAX)
    assert mem.probability("2", "scenery") == mem.probability(2, "scenery") == 1.0
    assert (precision_distribution(mem, ["2", "3"], category="people").mean()
            == precision_distribution(mem, [2, 3], category="people").mean() == 0.5)
    assert query_category_weights(mem, "1").to_dict() == query_category_weights(mem, 1).to_dict()
    with pytest.raises(ValueError, match=r"^results must not repeat an item; repeated: '2'$"):
        precision_distribution(mem, [2, "2"], category="people")
    with pytest.raises(ValueError, match=r"^items must name each item once as text; got "
                                         r"\[1, '1'\]$"):
        Membership.from_labels({1: "crowd", "1": "city"}, taxonomy=TAX)
    table = pd.DataFrame([[1.0, 0.0], [0.0, 1.0]], index=[1, "1"], columns=["crowd", "city"])
    with pytest.raises(ValueError, match=r"items must name each item once as text"):
        Membership.from_probabilities(table, taxonomy=TAX)


# ---------------------------------------------------------------------- laws
@st.composite
def labelled_items(draw):
    n_items = draw(st.integers(1, 6))
    rows = []
    for i in range(n_items):
        n_annotators = draw(st.integers(1, 7))
        labels = draw(
            st.lists(st.sampled_from(TAX.nodes), min_size=n_annotators, max_size=n_annotators)
        )
        rows += [(f"i{i}", f"s{a}", lab) for a, lab in enumerate(labels)]
    return frame(rows)


@given(labelled_items())
@settings(max_examples=80, deadline=None)
def test_membership_laws(df):
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    m = mem.matrix
    assert np.all(m[:, TAX.index("all")] == 1.0)  # the root is always 1
    assert np.all((m >= 0) & (m <= 1))
    for parent, child in TAX.to_edges():  # p(parent) >= p(child)
        assert np.all(m[:, TAX.index(parent)] >= m[:, TAX.index(child)] - 1e-15)
    # direct shares sum to 1 per item, and the closure of the direct shares is the matrix
    np.testing.assert_allclose(mem.direct.sum(axis=1), 1.0)
    np.testing.assert_allclose(mem.direct @ TAX.ancestor_matrix, m, atol=1e-12)
    # brute-force count per item and category
    for (item, cat), expected in _brute_force(df).items():
        assert mem.probability(item, cat) == pytest.approx(expected, abs=1e-12)


def _brute_force(df):
    out = {}
    for item, group in df.groupby("item_id"):
        for cat in TAX.nodes:
            below = set(TAX.descendants(cat, include_self=True))
            out[item, cat] = group["label"].isin(below).mean()
    return out


@given(st.sampled_from(TAX.nodes), st.integers(1, 9))
@settings(max_examples=30, deadline=None)
def test_unanimous_annotators_give_crisp_membership(label, n_annotators):
    df = frame([("x", f"s{a}", label) for a in range(n_annotators)])
    mem = Membership.from_annotations(Annotations.from_frame(df, taxonomy=TAX))
    crisp = Membership.from_labels({"x": label}, taxonomy=TAX)
    assert mem.is_crisp
    np.testing.assert_array_equal(mem.matrix, crisp.matrix)


def test_a_membership_too_large_for_memory_is_named_before_it_is_allocated(monkeypatch):
    """100,000 items over 50,000 flat categories: numpy's MemoryError named an array shape
    (37.3 GiB), not the membership; the two dense tables are now sized first (the machine's
    memory is set small here rather than allocating gigabytes)."""
    import fuzzytruth._validation as validation

    df = frame([("a", "s1", "people"), ("b", "s1", "city")])
    annotations = Annotations.from_frame(df, taxonomy=TAX)
    need = 16 * 2 * len(TAX)
    monkeypatch.setattr(validation, "physical_memory", lambda: need - 1)
    with pytest.raises(ValueError, match=rf"^a membership of 2 items x {len(TAX)} taxonomy "
                       rf"nodes is two dense tables of {need} bytes, more than the {need - 1} "
                       "bytes of memory$"):
        Membership.from_annotations(annotations)
    with pytest.raises(ValueError, match="two dense tables"):
        Membership.from_labels({"a": "people", "b": "city"}, taxonomy=TAX)
    monkeypatch.setattr(validation, "physical_memory", lambda: need)
    assert Membership.from_annotations(annotations).matrix.shape == (2, len(TAX))


def test_the_constructor_refuses_a_root_probability_other_than_1():
    # Membership(taxonomy, items, matrix) took a root column of 0.9: every item is in the
    # root category (the from_* constructors set it to 1), so such a matrix is not p(node|item)
    tax = Taxonomy.from_edges([("all", "a"), ("all", "b")])
    with pytest.raises(ValueError, match=r"matrix must give the root 'all' probability 1 "
                                         r"\(every item is in the root category\); got 0.9 "
                                         r"for item 'y'"):
        Membership(tax, ["x", "y"], [[1.0, 0.5, 0.5], [0.9, 0.5, 0.4]])
    mem = Membership(tax, ["x", "y"], [[1.0, 0.5, 0.5], [1.0, 0.5, 0.4]])
    assert mem.probability("y", "b") == 0.4


def test_probability_tables_of_other_shapes_say_the_call_that_makes_them_items_by_categories():
    """A long table of (item, category, probability) rows, a table whose item ids were reset
    into a column, and a mapping of item to {category: p} were refused as a column 'item_id'
    that is no node (or text that is no number), or 'must be a DataFrame'; each error now
    gives the pandas call that makes the table read, which it does."""
    tax = Taxonomy.flat(["a", "b"])
    long = pd.DataFrame({"item_id": ["x", "x", "y"], "category": ["a", "b", "a"],
                         "probability": [0.25, 0.75, 1.0]})
    for taxonomy in (tax, None):
        with pytest.raises(ValueError, match=r"not numbers in column\(s\) 'item_id', "
                                             r"'category': a long table is made items × "
                                             r"categories first, table\.pivot\(index='item_id', "
                                             r"columns='category', values='probability'\)$"):
            Membership.from_probabilities(long, taxonomy=taxonomy)
    wide = long.pivot(index="item_id", columns="category", values="probability").fillna(0.0)
    assert Membership.from_probabilities(wide, taxonomy=tax).probability("x", "b") == 0.75
    with pytest.raises(ValueError, match=r"column\(s\) 'item_id': the item ids go in the index, "
                                         r"table\.set_index\('item_id'\)$"):
        Membership.from_probabilities(wide.reset_index(), taxonomy=tax)
    nested = {"x": {"a": 0.25, "b": 0.75}, "y": {"a": 1.0}}
    with pytest.raises(ValueError, match=r"got dict: a mapping of item to \{category: "
                                         r"probability\} becomes one with "
                                         r"pd\.DataFrame\.from_dict\(table, orient='index'\)"
                                         r"\.fillna\(0\.0\)$"):
        Membership.from_probabilities(nested, taxonomy=tax)
    made = Membership.from_probabilities(
        pd.DataFrame.from_dict(nested, orient="index").fillna(0.0), taxonomy=tax)
    assert made.matrix.tolist() == Membership.from_probabilities(wide, taxonomy=tax).matrix.tolist()
    with pytest.raises(ValueError, match=r"unknown node 'A': not in the taxonomy \(closest known "
                                         r"names: 'a'\)"):
        Membership.from_labels({"x": "A"}, taxonomy=tax)


def test_membership_from_a_table_of_labels_names_the_call_that_makes_annotations():
    """Membership.from_annotations(frame) failed with "'DataFrame' object has no attribute
    'taxonomy'"; it now says it takes Annotations and how a table becomes one."""
    frame = pd.DataFrame({"item_id": ["x", "x"], "annotator_id": ["a", "b"],
                          "label": ["single", "crowd"]})
    with pytest.raises(ValueError, match=r"^annotations must be an Annotations; got DataFrame: "
                                         r"a table of labels is Annotations\.from_frame\("):
        Membership.from_annotations(frame)
    made = Membership.from_annotations(Annotations.from_frame(frame, taxonomy=None))
    assert made.probability("x", "single") == 0.5


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_posteriors_in_single_precision_are_probabilities_within_their_precision(dtype):
    """A label model's posteriors in float32 (PyTorch's default) sum to 1 only within float32
    rounding (1.5e-8 here) and were refused against float64's 1e-9; they are now accepted
    within their dtype's sqrt(eps) and divided by their sum in float64, so that each item's
    shares sum to 1 and the root is 1. Rows off by more are still refused."""
    rng = np.random.default_rng(0)
    posterior = rng.dirichlet(np.ones(50), 200)
    table = pd.DataFrame(posterior.astype(dtype), columns=[f"c{i}" for i in range(50)])
    assert np.abs(table.to_numpy(np.float64).sum(axis=1) - 1).max() > 1e-9
    made = Membership.from_probabilities(table)
    given = table.to_numpy(np.float64)
    np.testing.assert_allclose(made.direct[:, 1:], given / given.sum(axis=1, keepdims=True),
                               rtol=1e-15)
    assert (made.matrix[:, 0] == 1.0).all()
    with pytest.raises(ValueError, match=r"row 0 sums to 1\.0"):
        Membership.from_probabilities((table * 1.05).astype(dtype))
