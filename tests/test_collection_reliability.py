"""Category reliability, sibling confusions, annotator agreement and weights
(fuzzytruth.collection.reliability / annotators)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa
from test_collection import TREE, random_annotations

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.collection import (
    AnnotatorAgreement,
    agreement,
    annotator_agreement,
    annotator_weights,
    category_reliability,
    sibling_confusions,
)
from fuzzytruth.datasets import santini_figure1, santini_illustrative
from fuzzytruth.datasets.fleiss import fleiss_1971

DAG = Taxonomy.from_edges(
    [("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab"), ("a", "a1"), ("b", "b1")]
)


# ---------------------------------------------------------------------------- reliability
def test_membership_columns_on_santini_figure1():
    # one item, 5 subjects: people x2, crowd x1, city x2 -> p(people)=.6, p(crowd)=.2, ...
    table = category_reliability(santini_figure1().annotations).to_frame().set_index("category")
    assert "all" not in table.index
    assert table.loc["people", "size"] == pytest.approx(0.6)
    assert table.loc["people", "n_voted"] == 1
    assert table.loc["single", "n_voted"] == 0
    assert np.isnan(table.loc["single", "mean_membership"])
    assert not table.loc["single", "ambiguous"]
    # binary entropy in bits, by hand: H(0.6) = -(0.6 log2 0.6 + 0.4 log2 0.4) = 0.970951
    assert table.loc["people", "entropy"] == pytest.approx(0.970951, abs=1e-6)
    assert table.loc["crowd", "entropy"] == pytest.approx(0.721928, abs=1e-6)  # H(0.2)
    # 0.2 is not strictly inside (0.2, 0.8); 0.6 and 0.4 are
    assert table.loc["crowd", "ambiguous_share"] == 0.0
    assert table.loc["people", "ambiguous_share"] == 1.0
    assert table.loc["people", "ambiguous"]
    # people vs scenery: 3 annotators under people, 2 under scenery -> 6 pairs
    assert table.loc["people", "confused_with"] == ("scenery",)
    assert table.loc["people", "n_confusions"] == 6
    # people and crowd are nested, not siblings: that pair is no confusion
    assert table.loc["crowd", "n_confusions"] == 0


def test_size_matches_membership_and_columns():
    ann = santini_illustrative().annotations
    res = category_reliability(ann)
    mem = Membership.from_annotations(ann)
    sizes = mem.category_size()
    np.testing.assert_allclose(res.size, sizes.drop("all").to_numpy())
    p = mem.matrix[:, 1:]
    voted = p > 0
    np.testing.assert_array_equal(res.n_voted, voted.sum(axis=0))
    np.testing.assert_allclose(res.mean_membership, (p * voted).sum(0) / voted.sum(0))
    assert list(res.to_frame().columns) == [
        "category",
        "depth",
        "size",
        "n_voted",
        "mean_membership",
        "entropy",
        "ambiguous_share",
        "closed_kappa",
        "n_confusions",
        "confused_with",
        "ambiguous",
    ]


def test_closed_kappa_on_flat_taxonomy_equals_fleiss_per_category():
    data = fleiss_1971()
    rel = category_reliability(data.annotations)
    agr = agreement(data.annotations, n_resamples=0)
    for category, kappa in zip(rel.categories, rel.closed_kappa, strict=True):
        assert kappa == pytest.approx(agr.value("label_kappa", category), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_closed_kappa_is_statsmodels_binary_kappa(seed):
    # Fleiss' κ of the 2-category table (in ω or below, not) for each node, equal counts
    ann = random_annotations(seed, missing=0.0)
    rel = category_reliability(ann)
    frame = ann.to_frame()
    for category, kappa in zip(rel.categories, rel.closed_kappa, strict=True):
        inside = frame["label"].isin(TREE.descendants(category, include_self=True))
        m = inside.groupby(frame["item_id"]).sum().to_numpy()
        n = frame.groupby("item_id").size().to_numpy()
        table = np.column_stack([m, n - m])
        if m.sum() == 0:
            assert np.isnan(kappa)
        else:
            assert kappa == pytest.approx(fleiss_kappa(table), abs=1e-12)


def test_flag_rule_and_thresholds():
    ann = santini_illustrative().annotations
    default = category_reliability(ann)
    expected = (default.ambiguous_share > 0.5) | (default.closed_kappa < 0.4)
    np.testing.assert_array_equal(default.ambiguous, expected)
    never = category_reliability(ann, max_ambiguous_share=1.0, min_kappa=-1.0)
    assert not never.ambiguous.any()
    strict = category_reliability(ann, max_ambiguous_share=0.0, min_kappa=1.0)
    assert strict.ambiguous[default.n_voted > 0].all()
    wide = category_reliability(ann, ambiguous_band=(0.0, 1.0))
    assert (wide.ambiguous_share >= default.ambiguous_share).all()


def test_membership_input_from_an_outside_label_model():
    table = pd.DataFrame({"cat": [0.5, 0.9, 0.1], "dog": [0.5, 0.1, 0.9]}, index=["x", "y", "z"])
    res = category_reliability(Membership.from_probabilities(table))
    frame = res.to_frame().set_index("category")
    assert frame["closed_kappa"].isna().all()
    assert (frame["n_confusions"] == 0).all()
    assert frame.loc["cat", "confused_with"] == ()
    assert frame.loc["cat", "ambiguous_share"] == pytest.approx(1 / 3)
    assert frame.loc["cat", "size"] == pytest.approx(1.5)
    assert not frame["ambiguous"].any()
    assert category_reliability(
        Membership.from_probabilities(table), max_ambiguous_share=0.3
    ).ambiguous.all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ambiguous_band": (0.8, 0.2)}, "ambiguous_band"),
        ({"ambiguous_band": 0.5}, "ambiguous_band"),
        ({"max_ambiguous_share": 2}, "max_ambiguous_share"),
        ({"min_kappa": 3}, "min_kappa"),
        ({"n_confused": -1}, "n_confused"),
        # a str or None was a TypeError from the comparison; True passed as 1.0
        ({"max_ambiguous_share": "0.5"},
         r"^max_ambiguous_share must be a number within \[0, 1\]; got '0.5'$"),
        ({"max_ambiguous_share": True},
         r"^max_ambiguous_share must be a number within \[0, 1\]; got True$"),
        ({"min_kappa": None}, r"^min_kappa must be a number within \[-1, 1\]; got None$"),
    ],
)
def test_reliability_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        category_reliability(santini_figure1().annotations, **kwargs)


# ---------------------------------------------------------------------------- confusions
def brute_force_confusions(ann: Annotations, taxonomy: Taxonomy) -> dict:
    """Count, per unordered sibling pair, annotator pairs on one item whose labels fall
    under one sibling each (and not under the other)."""
    out: dict = {}
    siblings = {
        frozenset((c, d))
        for node in taxonomy.nodes
        for c, d in itertools.combinations(taxonomy.children(node), 2)
    }
    for _, group in ann.to_frame().groupby("item_id"):
        for x, y in itertools.combinations(group["label"], 2):
            up_x = set(taxonomy.ancestors(x, include_self=True))
            up_y = set(taxonomy.ancestors(y, include_self=True))
            for pair in siblings:
                c, d = tuple(pair)
                if (c in up_x and d not in up_x and d in up_y and c not in up_y) or (
                    d in up_x and c not in up_x and c in up_y and d not in up_y
                ):
                    out[pair] = out.get(pair, 0) + 1
    return out


@pytest.mark.parametrize(("seed", "taxonomy"), [(0, TREE), (1, TREE), (2, DAG), (3, DAG)])
def test_sibling_confusions_match_brute_force(seed, taxonomy):
    ann = random_annotations(seed, taxonomy=taxonomy, n_items=15)
    frame = sibling_confusions(ann)
    got = {frozenset((c, o)): n for c, o, n in frame.itertuples(index=False)}
    assert got == brute_force_confusions(ann, taxonomy)
    # each confusion is listed under both categories
    assert len(frame) == 2 * len(got)


def test_confused_with_order():
    ann = random_annotations(5, n_items=40)
    rel = category_reliability(ann, n_confused=2)
    frame = sibling_confusions(ann)
    for category, top in zip(rel.categories, rel.confused_with, strict=True):
        rows = frame[frame["category"] == category]
        assert tuple(rows["other"].head(2)) == top
        assert rows["n_pairs"].sum() == rel.n_confusions[rel.categories.index(category)]


# ---------------------------------------------------------------------------- annotators
@pytest.mark.parametrize("seed", range(4))
def test_pairwise_kappa_matches_sklearn(seed):
    ann = random_annotations(seed, n_items=30, missing=0.35)
    res = annotator_agreement(ann)
    labels = ann.label_matrix()
    for a, b in itertools.combinations(range(ann.n_annotators), 2):
        shared = (labels[:, a] >= 0) & (labels[:, b] >= 0)
        assert res.n_shared[a, b] == shared.sum()
        x, y = labels[shared, a], labels[shared, b]
        # one shared item: sklearn's 0 (they disagree) or NaN (they agree), not a measure
        if shared.sum() < 2 or (len(set(x)) == 1 and set(x) == set(y)):
            assert np.isnan(res.pairwise_kappa[a, b])
        else:
            assert res.pairwise_kappa[a, b] == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
            assert res.pairwise_kappa[b, a] == res.pairwise_kappa[a, b]
    assert np.isnan(np.diag(res.pairwise_kappa)).all()


def test_pairs_sharing_one_item_have_no_kappa():
    """Fresh annotators per item (each pair shares at most one item): κ of one item is 0
    when two disagree and undefined when they agree, so averaging the defined ones read
    every annotator as agreeing at chance (mean κ 0 for all 320, every weight 0, a warning
    that nobody agrees beyond chance) where Fleiss' κ of the same labels is 0.46. Now no
    pair of one item has a κ, every mean is undefined, and the weights are the neutral
    undefined weight with a warning that says why; the leave-one-out majority is defined."""
    rng = np.random.default_rng(0)
    rows = [(i, f"{i}-{a}", "abcd"[t if rng.random() < 0.8 else (t + 1) % 4])
            for i, t in enumerate(rng.integers(0, 4, 80)) for a in range(4)]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                 taxonomy=Taxonomy.flat(list("abcd")))
    res = annotator_agreement(ann)
    assert (res.n_shared.max() == 1) and np.isnan(res.pairwise_kappa).all()
    assert np.isnan(res.mean_kappa).all() and np.isfinite(res.majority_agreement).all()
    with pytest.warns(UserWarning, match="no two annotators share two items"):
        weights = annotator_weights(res)
    assert set(weights.values()) == {1.0}
    assert set(annotator_weights(res, by="majority").values()) != {1.0}


def test_fleiss_raters_1_and_2_kappa():
    # irr::kappa2(diagnoses[, c("rater1", "rater2")]) printed "Kappa = 0.651"
    res = annotator_agreement(fleiss_1971().annotations)
    pairs = res.pairs_to_frame().set_index(["annotator_id", "other"])
    assert pairs.loc[("rater1", "rater2"), "cohen_kappa"] == pytest.approx(0.651, abs=5e-4)
    assert pairs.loc[("rater1", "rater2"), "n_shared"] == 30


def brute_force_majority(ann: Annotations) -> dict:
    credit: dict = {}
    frame = ann.to_frame()
    for _, group in frame.groupby("item_id"):
        if len(group) < 2:
            continue
        for row in group.itertuples():
            others = group.loc[group.index != row.Index, "label"].value_counts()
            top = others[others == others.max()].index
            credit.setdefault(row.annotator_id, []).append((row.label in set(top)) / len(top))
    return {a: np.mean(v) for a, v in credit.items()}


@pytest.mark.parametrize("seed", range(4))
def test_majority_agreement_matches_brute_force(seed):
    ann = random_annotations(seed, n_items=30, missing=0.4)
    res = annotator_agreement(ann)
    expected = brute_force_majority(ann)
    for a, value in zip(res.annotators, res.majority_agreement, strict=True):
        assert value == pytest.approx(expected[a], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["b1", "b2", "b3", "c"]), min_size=1, max_size=7),
                min_size=1, max_size=8))
def test_majority_agreement_matches_brute_force_with_ties(rows):
    # few labels and up to 7 annotators per item: ties for the top label at every count
    frame = pd.DataFrame([(f"i{i}", f"r{a}", label) for i, row in enumerate(rows)
                          for a, label in enumerate(row)],
                         columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(frame, taxonomy=TREE)
    res = annotator_agreement(ann)
    expected = brute_force_majority(ann)
    for a, value, n in zip(res.annotators, res.majority_agreement, res.n_majority_items,
                           strict=True):
        if a in expected:
            assert value == pytest.approx(expected[a], abs=1e-12)
        else:
            assert np.isnan(value) and n == 0


def test_majority_tie_rule():
    # item x: r1 says b1, others r2: b1, r3: b2 -> for r1 the others tie (b1, b2): credit 1/2
    frame = pd.DataFrame(
        {"item_id": "x", "annotator_id": ["r1", "r2", "r3"], "label": ["b1", "b1", "b2"]}
    )
    res = annotator_agreement(Annotations.from_frame(frame, taxonomy=TREE))
    # r1: others {b1, b2} tie -> 1/2; r2: same; r3: others {b1, b1} -> 0
    np.testing.assert_allclose(res.majority_agreement, [0.5, 0.5, 0.0])


def test_careless_annotator_stands_out_and_weights():
    rng = np.random.default_rng(0)
    leaves = ["a1x", "a1y", "a2", "b1", "b2", "b3", "c"]
    rows = []
    for i in range(60):
        truth = leaves[rng.integers(len(leaves))]
        for a in range(5):
            careful = rng.random() < 0.85
            label = truth if careful and a != 4 else leaves[rng.integers(len(leaves))]
            rows.append((i, f"r{a}", label))
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    ann = Annotations.from_frame(frame, taxonomy=TREE)
    res = annotator_agreement(ann)
    table = res.to_frame().set_index("annotator_id")
    assert table["mean_pairwise_kappa"].idxmin() == "r4"
    assert table["majority_agreement"].idxmin() == "r4"
    weights = annotator_weights(res)
    assert min(weights, key=weights.get) == "r4"
    assert weights == annotator_weights(ann)
    np.testing.assert_allclose(
        [weights[a] for a in res.annotators], np.maximum(res.mean_kappa, 0.0)
    )
    majority = annotator_weights(ann, by="majority")
    np.testing.assert_allclose([majority[a] for a in res.annotators], res.majority_agreement)
    # usable by Annotations / Membership
    mem = Membership.from_annotations(ann.with_annotator_weights(weights))
    assert mem.matrix.shape == (60, len(TREE))


def test_weight_of_an_annotator_nobody_overlaps_and_clipping():
    frame = pd.DataFrame(
        {
            "item_id": ["x", "x", "y", "y", "z"],
            "annotator_id": ["r1", "r2", "r1", "r2", "loner"],
            "label": ["b1", "b2", "b2", "b1", "c"],
        }
    )
    ann = Annotations.from_frame(frame, taxonomy=TREE)
    res = annotator_agreement(ann)
    table = res.to_frame().set_index("annotator_id")
    assert np.isnan(table.loc["loner", "majority_agreement"])
    assert table.loc["loner", "n_partners"] == 0
    assert table.loc["r1", "mean_pairwise_kappa"] == pytest.approx(-1.0)  # always disagree
    weights = annotator_weights(ann)
    assert weights["r1"] == 0.0 and weights["r2"] == 0.0  # κ clipped at 0
    assert weights["loner"] == 0.0  # median of the defined weights
    assert annotator_weights(ann, undefined=1.0)["loner"] == 1.0


def test_annotator_errors():
    mem = Membership.from_annotations(santini_figure1().annotations)
    with pytest.raises(ValueError, match="needs raw labels"):
        annotator_agreement(mem)
    with pytest.raises(ValueError, match="needs raw labels"):
        sibling_confusions(mem)
    with pytest.raises(ValueError, match="by must be one of"):
        annotator_weights(santini_figure1().annotations, by="votes")
    with pytest.raises(ValueError, match="undefined"):
        annotator_weights(santini_figure1().annotations, undefined=-1.0)
    # a str was numpy's TypeError from isfinite; True became the weight 1.0
    for bad in ("1", True):
        with pytest.raises(ValueError, match=r"^undefined must be None or a finite number "
                                             rf">= 0; got {bad!r}$"):
            annotator_weights(santini_figure1().annotations, undefined=bad)
    assert annotator_weights(santini_figure1().annotations, undefined=np.int64(1)) == \
        annotator_weights(santini_figure1().annotations, undefined=1.0)
    assert isinstance(annotator_agreement(santini_figure1().annotations), AnnotatorAgreement)
    with pytest.raises(ValueError, match="annotations must be an Annotations; got DataFrame"):
        annotator_agreement(santini_figure1().annotations.to_frame())
    with pytest.raises(ValueError, match="data must be an Annotations or a Membership"):
        category_reliability(santini_figure1().annotations.to_frame())


def _whole_matrix_columns(p: np.ndarray, voted: np.ndarray, low: float = 0.2,
                          high: float = 0.8) -> dict:
    """The membership columns computed on the whole items × nodes matrices at once (the rule
    before the blocks of items), root column dropped."""
    n_voted = voted.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
        h = np.where((p > 0) & (p < 1), h, 0.0)
        return {
            "size": p.sum(axis=0)[1:],
            "n_voted": n_voted[1:],
            "mean_membership": np.where(n_voted > 0, (p * voted).sum(0) / n_voted, np.nan)[1:],
            "entropy": np.where(n_voted > 0, (h * voted).sum(0) / n_voted, np.nan)[1:],
            "ambiguous_share": np.where(
                n_voted > 0, ((p > low) & (p < high) & voted).sum(0) / n_voted, np.nan)[1:],
        }


@pytest.mark.filterwarnings("ignore::fuzzytruth.truth.models.base.NonConvergenceWarning")
@pytest.mark.parametrize("budget", [1.0, 2_000.0, 128e6])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_membership_columns_in_blocks_of_items_are_the_whole_matrix_sums(seed, budget):
    # the columns are summed over blocks of items sized from the memory budget (1 byte: one
    # item per block); every block size gives the bits of the sums over all items at once,
    # for annotations, an outside Membership (rows in another order than the sorted items)
    # and a truth model's posterior (voted: where some annotator placed the item)
    from fuzzytruth.collection import reliability as module
    from fuzzytruth.truth.models import fit_truth

    ann = random_annotations(seed, n_items=60, n_annotators=4)
    mem = Membership.from_annotations(ann)
    shuffled = np.random.default_rng(seed).permutation(len(mem.items))
    outside = Membership(mem.taxonomy, np.asarray(mem.items)[shuffled], mem.matrix[shuffled])
    posterior = fit_truth(ann, "dawid-skene").membership.matrix
    closed_votes = mem.matrix > 0  # the shares' p > 0: some annotator placed the item there
    cases = [
        (ann, {}, _whole_matrix_columns(mem.matrix, mem.matrix > 0)),
        (outside, {}, _whole_matrix_columns(mem.matrix, mem.matrix > 0)),
        (ann, {"truth_model": "dawid-skene"}, _whole_matrix_columns(posterior, closed_votes)),
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "MEMORY_BUDGET", budget)
        for data, options, expected in cases:
            table = category_reliability(data, **options)
            for column, values in expected.items():
                np.testing.assert_array_equal(getattr(table, column), values, err_msg=column)


@pytest.mark.parametrize("budget", [1.0, 2_000.0])
def test_closed_kappa_in_blocks_of_items_is_the_one_pass_kappa(monkeypatch, budget):
    # the closed counts are made for blocks of items; each block's terms are added to the
    # running sums entry by entry, as one pass adds them: the same bits for any block size
    from fuzzytruth.collection import reliability as module

    ann = random_annotations(3, n_items=80, n_annotators=4)
    whole = category_reliability(ann).closed_kappa
    assert np.isfinite(whole).sum() >= 3
    monkeypatch.setattr(module, "MEMORY_BUDGET", budget)
    np.testing.assert_array_equal(category_reliability(ann).closed_kappa, whole)


def test_reliability_names_every_item_of_weight_0_whatever_the_blocks(monkeypatch):
    # the shares are closed a block of items at a time (one item per block here); the items
    # whose annotators all weigh 0 are found before, all of them named
    from fuzzytruth.collection import reliability as module

    rows = [("p", "B", "a"), ("q", "A", "a"), ("q", "B", "b"), ("r", "A", "b"),
            ("r", "C", "b"), ("s", "B", "b"), ("z", "C", "a")]
    ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                                 taxonomy=Taxonomy.flat(["a", "b"]))
    ann = ann.with_annotator_weights({"A": 1.0, "B": 0.0, "C": 0.0})
    monkeypatch.setattr(module, "MEMORY_BUDGET", 1.0)
    with pytest.raises(ValueError, match=r"^item\(s\) 'p', 's', 'z' have total annotator "
                                         "weight 0$"):
        category_reliability(ann)


def _ternary_collection(n_items: int, seed: int) -> Annotations:
    """3 labels per item, leaves of a ternary tree 7 deep (3,280 nodes)."""
    from trees import ternary_tree

    tax, leaves = ternary_tree(7)
    picked = np.random.default_rng(seed).integers(0, len(leaves), (n_items, 3))
    rows = [(f"i{i}", f"r{a}", leaves[j]) for i in range(n_items)
            for a, j in enumerate(picked[i])]
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item_id", "annotator_id",
                                                             "label"]), taxonomy=tax)


def _traced_peak(call):
    """``call()``'s result and the peak of the memory it traced (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reliability_of_annotations_builds_no_items_by_nodes_membership():
    # 8,000 items x 3,280 nodes: Membership.from_annotations holds two 210 MB matrices (524 MB
    # traced before); the shares are closed a block of items at a time from the sparse votes
    ann = _ternary_collection(8000, seed=1)
    table, peak = _traced_peak(lambda: category_reliability(ann))
    assert peak < 250e6, peak
    mem = Membership.from_annotations(ann)
    for column, values in _whole_matrix_columns(mem.matrix, mem.matrix > 0).items():
        np.testing.assert_array_equal(getattr(table, column), values, err_msg=column)


def test_reliability_of_a_large_membership_holds_blocks_not_whole_matrices():
    # 4,000 items × 3,280 nodes (the membership: 105 MB): the entropies' temporaries were
    # five items × nodes float arrays and an outside Membership was copied in sorted order
    # (about 630 MB at the peak, tracemalloc); blocks of items hold about the memory budget
    mem = Membership.from_annotations(_ternary_collection(4000, seed=0))
    outside = Membership(mem.taxonomy, np.asarray(mem.items)[::-1], mem.matrix[::-1])
    table, peak = _traced_peak(lambda: category_reliability(outside))
    assert peak < 300e6, peak
    np.testing.assert_array_equal(table.n_voted, (mem.matrix > 0).sum(axis=0)[1:])
