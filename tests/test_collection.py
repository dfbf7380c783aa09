"""Agreement coefficients of a collection (fuzzytruth.collection.agreement) and the bundled
Fleiss (1971) data."""

from __future__ import annotations

import itertools
from importlib import resources

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa
from trees import ternary_tree

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth._resampling import MEMORY_BUDGET, resample_chunks
from fuzzytruth.collection import agreement, agreement_by_level
from fuzzytruth.datasets.fleiss import FLEISS_1971_CATEGORIES, fleiss_1971

# ---------------------------------------------------------------------------- helpers
TREE = Taxonomy.from_nested(
    {"all": {"a": {"a1": ["a1x", "a1y"], "a2": None}, "b": ["b1", "b2", "b3"], "c": None}}
)


def random_annotations(
    seed: int,
    *,
    taxonomy: Taxonomy = TREE,
    n_items: int = 25,
    n_annotators: int = 5,
    missing: float = 0.3,
    labels: list | None = None,
) -> Annotations:
    """Random labels with some (item, annotator) cells missing (unequal counts per item)."""
    rng = np.random.default_rng(seed)
    pool = labels if labels is not None else [n for n in taxonomy.nodes if n != taxonomy.root]
    rows = []
    for i in range(n_items):
        # a few "true" labels per item so that there is some agreement
        favourite = pool[rng.integers(len(pool))]
        for a in range(n_annotators):
            if rng.random() < missing:
                continue
            label = favourite if rng.random() < 0.5 else pool[rng.integers(len(pool))]
            rows.append((f"i{i}", f"r{a}", label))
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    return Annotations.from_frame(frame, taxonomy=taxonomy)


def reliability_data(ann: Annotations) -> np.ndarray:
    """(annotators × items) matrix of label codes with NaN for missing, as krippendorff wants."""
    matrix = ann.label_matrix().T.astype(float)
    matrix[matrix < 0] = np.nan
    return matrix


def brute_force_alpha(ann: Annotations, delta) -> float:
    """Krippendorff's α by counting every ordered pair of annotators on every item."""
    frame = ann.to_frame()
    observed = 0.0
    values = []
    for _, group in frame.groupby("item_id"):
        labels = group["label"].tolist()
        m = len(labels)
        if m < 2:
            continue
        values.extend(labels)
        for x, y in itertools.permutations(range(m), 2):
            observed += delta(labels[x], labels[y]) / (m - 1)
    n = len(values)
    expected = sum(delta(x, y) for x, y in itertools.permutations(values, 2))
    return 1 - (n - 1) * observed / expected


def gwet_fleiss_kappa(ann: Annotations) -> float:
    """Fleiss' κ for unequal numbers of raters, Gwet (2014, Handbook of Inter-Rater
    Reliability, 4th ed.) as coded in R irrCAC::fleiss.kappa.raw, item by item: P_a = mean
    over items with r_i >= 2 of Σ_k r_ik (r_ik - 1) / (r_i (r_i - 1)); π_k = mean over all
    items of r_ik / r_i; P_e = Σ_k π_k²."""
    table = pd.crosstab(ann.to_frame()["item_id"], ann.to_frame()["label"])
    agreements, shares = [], []
    for _, row in table.iterrows():
        r = row.sum()
        shares.append(row / r)
        if r >= 2:
            agreements.append(sum(x * (x - 1) for x in row) / (r * (r - 1)))
    p_a = np.mean(agreements)
    p_e = float((pd.concat(shares, axis=1).mean(axis=1) ** 2).sum())
    return (p_a - p_e) / (1 - p_e)


# ---------------------------------------------------------------------------- Fleiss 1971
def test_fleiss_1971_reference_values():
    data = fleiss_1971()
    res = agreement(data.annotations, n_resamples=0)
    # irr::kappam.fleiss(diagnoses) = 0.4302445 (also the statsmodels test suite's value)
    assert res.value("fleiss_kappa") == pytest.approx(0.4302445, abs=5e-8)
    # krippendorff 0.9: alpha(value_counts=<Fleiss Table 1>, level_of_measurement="nominal")
    assert res.value("krippendorff_alpha") == pytest.approx(0.4334098, abs=5e-8)
    # on a flat taxonomy every distance between distinct labels is 2: same α as nominal
    assert res.value("taxonomy_alpha") == pytest.approx(0.4334098, abs=5e-8)
    # per-category κ_j as printed by irr::kappam.fleiss(diagnoses, detail = TRUE)
    printed = {
        "depression": 0.245,
        "personality_disorder": 0.245,
        "schizophrenia": 0.520,
        "neurosis": 0.471,
        "other": 0.566,
    }
    for category, value in printed.items():
        assert res.value("label_kappa", category) == pytest.approx(value, abs=5e-4)


def test_fleiss_1971_first_three_raters():
    # irr::kappam.fleiss(diagnoses[, 1:3]) printed "Kappa = 0.534"
    frame = fleiss_1971().frame
    sub = frame[frame["annotator_id"].isin(["rater1", "rater2", "rater3"])]
    ann = Annotations.from_frame(sub, taxonomy=fleiss_1971().taxonomy)
    assert agreement(ann, n_resamples=0).value("fleiss_kappa") == pytest.approx(0.534, abs=5e-4)


def test_fleiss_1971_dataset():
    data = fleiss_1971()
    assert data.taxonomy.root == "diagnosis"
    assert data.taxonomy.children("diagnosis") == FLEISS_1971_CATEGORIES
    assert list(data.frame.columns) == ["item_id", "annotator_id", "label"]
    assert len(data.frame) == 180
    assert (data.frame.groupby("item_id").size() == 6).all()
    # Fleiss (1971) Table 1 column proportions p_j: .144 .144 .167 .306 .239
    shares = data.frame["label"].value_counts(normalize=True)[list(FLEISS_1971_CATEGORIES)]
    np.testing.assert_allclose(shares, [0.144, 0.144, 0.167, 0.306, 0.239], atol=5e-4)
    header = (
        resources.files("fuzzytruth.datasets")
        .joinpath("data", "fleiss1971_diagnoses.csv")
        .read_text()
    )
    assert "Psychological Bulletin 76(5):378-382" in header
    assert "Table 1" in header


# ---------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("seed", range(5))
def test_fleiss_kappa_matches_statsmodels_with_equal_counts(seed):
    ann = random_annotations(seed, missing=0.0)
    res = agreement(ann, n_resamples=0)
    table = pd.crosstab(ann.to_frame()["item_id"], ann.to_frame()["label"]).to_numpy()
    assert res.value("fleiss_kappa") == pytest.approx(fleiss_kappa(table), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_kappa_with_unequal_counts_is_gwets_generalisation(seed):
    ann = random_annotations(seed, missing=0.45)
    assert agreement(ann, n_resamples=0).value("fleiss_kappa") == pytest.approx(
        gwet_fleiss_kappa(ann), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(5))
def test_nominal_alpha_matches_krippendorff_with_missing(seed):
    ann = random_annotations(seed, missing=0.4)
    expected = krippendorff.alpha(
        reliability_data=reliability_data(ann), level_of_measurement="nominal"
    )
    assert agreement(ann, n_resamples=0).value("krippendorff_alpha") == pytest.approx(
        expected, abs=1e-12
    )


@pytest.mark.parametrize("seed", range(4))
def test_taxonomy_alpha_matches_brute_force(seed):
    ann = random_annotations(seed, n_items=12, missing=0.4)
    res = agreement(ann, n_resamples=0)
    assert res.value("taxonomy_alpha") == pytest.approx(
        brute_force_alpha(ann, TREE.distance), abs=1e-12
    )
    squared = agreement(ann, metric="squared_path", n_resamples=0)
    assert squared.value("taxonomy_alpha") == pytest.approx(
        brute_force_alpha(ann, lambda a, b: TREE.distance(a, b) ** 2), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_taxonomy_alpha_matches_krippendorff_with_a_callable_metric(seed):
    # krippendorff 0.9 accepts a callable metric(v1, v2, i1, i2, n_v, dtype); give it the
    # taxonomy path length between the label codes
    ann = random_annotations(seed, missing=0.3)
    dist = TREE.distance_matrix().astype(float)

    def path(v1, v2, i1, i2, n_v, dtype=np.float64):
        return dist[np.asarray(v1, dtype=int), np.asarray(v2, dtype=int)].astype(dtype)

    expected = krippendorff.alpha(
        reliability_data=reliability_data(ann),
        value_domain=np.arange(len(TREE), dtype=float),
        level_of_measurement=path,
    )
    assert agreement(ann, n_resamples=0).value("taxonomy_alpha") == pytest.approx(
        expected, abs=1e-12
    )


def test_squared_path_on_a_chain_is_krippendorff_interval():
    # on a chain root -> 1 -> 2 -> 3 -> 4 the path length is the difference of depths, so
    # squared path length is Krippendorff's interval metric on the depths
    chain = Taxonomy.from_edges([("0", "1"), ("1", "2"), ("2", "3"), ("3", "4")])
    ann = random_annotations(3, taxonomy=chain, missing=0.3, labels=["0", "1", "2", "3", "4"])
    res = agreement(ann, metric="squared_path", n_resamples=0)
    depth_data = reliability_data(ann)  # label codes are the depths on a chain
    expected = krippendorff.alpha(reliability_data=depth_data, level_of_measurement="interval")
    assert res.value("taxonomy_alpha") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric", ["path", "squared_path"])
def test_path_metric_of_a_large_taxonomy_is_taken_between_the_labels_used(monkeypatch, metric):
    # a ternary tree of 3,280 nodes, 30 of them used: the metric comes from the tree itself
    # (subtree sums, no distance at all), never from the (n_nodes, n_nodes) matrix (86 MB
    # here), which the rule before built for every analysis with a path metric; in a DAG from
    # the distances between those 30 only
    tax, _ = ternary_tree(7)
    labels = list(tax.nodes[1 :: len(tax) // 30])
    whole = Taxonomy.distance_matrix

    budgets = []

    def between_nodes_only(self, nodes=None, **options):
        assert self.is_tree is False, "the tree's path lengths came from a search"
        assert nodes is not None, "the distances between all nodes were computed"
        budgets.append(options["memory_budget"])
        return whole(self, nodes, **options)

    monkeypatch.setattr(Taxonomy, "distance_matrix", between_nodes_only)
    # oracle: in a tree, depth(a) + depth(b) - 2 depth(lowest common ancestor)
    lineage = {n: tax.ancestors(n, include_self=True) for n in labels}

    def tree_path(a, b):
        common = next(x for x in lineage[a] if x in lineage[b])  # nearest first
        steps = tax.depth(a) + tax.depth(b) - 2 * tax.depth(common)
        return steps if metric == "path" else steps**2

    ann = random_annotations(5, taxonomy=tax, n_items=40, labels=labels)
    res = agreement(ann, metric=metric, n_resamples=0)
    assert res.value("taxonomy_alpha") == pytest.approx(brute_force_alpha(ann, tree_path),
                                                        abs=1e-12)
    by_level = agreement_by_level(ann, metric=metric, n_resamples=0, memory_budget=2**20)
    assert len(by_level.to_frame()) > 0
    assert not budgets
    # the same labels in a DAG (the deepest label gets a second parent): the table of their
    # distances, searched with the analysis' memory budget (it was the library's default)
    deepest = max(labels, key=tax.depth)
    dag = Taxonomy.from_edges([*tax.to_edges(), (tax.nodes[1], deepest)])
    ann = random_annotations(5, taxonomy=dag, n_items=40, labels=labels)
    agreement(ann, metric=metric, n_resamples=0)
    agreement_by_level(ann, metric=metric, n_resamples=0, memory_budget=2**20)
    agreement(ann, metric=metric, n_resamples=0, memory_budget=3 * 2**20)
    assert budgets[0] == MEMORY_BUDGET and budgets[-1] == 3 * 2**20
    assert set(budgets[1:-1]) == {2**20}


def test_metric_as_matrix_callable_and_scaled():
    ann = random_annotations(7)
    by_name = agreement(ann, n_resamples=0).value("taxonomy_alpha")
    matrix = TREE.distance_matrix() * 3.0
    assert agreement(ann, metric=matrix, n_resamples=0).value("taxonomy_alpha") == pytest.approx(
        by_name, abs=1e-12
    )
    by_callable = agreement(ann, metric=TREE.distance, n_resamples=0).value("taxonomy_alpha")
    assert by_callable == pytest.approx(by_name, abs=1e-12)
    nominal = agreement(ann, metric="nominal", n_resamples=0)
    assert nominal.value("taxonomy_alpha") == pytest.approx(
        nominal.value("krippendorff_alpha"), abs=1e-12
    )


# ---------------------------------------------------------------------------- properties
label_rows = st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=5), min_size=2, max_size=12)


def _flat_annotations(rows: list[list[int]]) -> Annotations:
    flat = Taxonomy.from_edges([("root", f"c{k}") for k in range(4)])
    frame = pd.DataFrame(
        [(i, f"r{a}", f"c{v}") for i, row in enumerate(rows) for a, v in enumerate(row)],
        columns=["item_id", "annotator_id", "label"],
    )
    return Annotations.from_frame(frame, taxonomy=flat)


@settings(max_examples=40, deadline=None)
@given(label_rows)
def test_flat_taxonomy_alpha_equals_nominal_alpha(rows):
    res = agreement(_flat_annotations(rows), n_resamples=0)
    nominal, tax = res.value("krippendorff_alpha"), res.value("taxonomy_alpha")
    assert (np.isnan(nominal) and np.isnan(tax)) or tax == pytest.approx(nominal, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(2, 5)), min_size=2, max_size=10))
def test_perfect_agreement_gives_one(items):
    rows = [[label] * n for label, n in items]
    res = agreement(_flat_annotations(rows), n_resamples=0)
    values = [res.value(m) for m in ("fleiss_kappa", "krippendorff_alpha", "taxonomy_alpha")]
    if len({label for label, _ in items}) >= 2:
        np.testing.assert_allclose(values, 1.0, atol=1e-12)
    else:  # one category: no disagreement expected, the coefficients are undefined
        assert np.isnan(values).all()


# ---------------------------------------------------------------------------- bootstrap
def test_bootstrap_replicates_are_the_statistic_on_resampled_items():
    ann = random_annotations(11, n_items=15, missing=0.6)
    res = agreement(ann, n_resamples=5, rng=42)
    frame = ann.to_frame()
    assert res.n_single_annotator_items > 0  # they are resampled too
    (counts,) = list(resample_chunks(ann.n_items, 5, np.random.default_rng(42)))
    for b in range(5):
        parts = []
        # replicates count the items in sorted id order, whatever the row order of the table
        for pos, item in enumerate(sorted(ann.items)):
            for copy in range(int(counts[b, pos])):
                part = frame[frame["item_id"] == item].assign(item_id=f"{item}#{copy}")
                parts.append(part)
        resampled = Annotations.from_frame(pd.concat(parts), taxonomy=TREE)
        direct = agreement(resampled, n_resamples=0)
        for row, (m, c) in enumerate(zip(res.measure, res.category, strict=True)):
            if c is not None and c not in set(resampled.to_frame()["label"]):
                assert np.isnan(res.bootstrap_distribution[row, b])
                continue
            assert res.bootstrap_distribution[row, b] == pytest.approx(
                direct.value(m, c), abs=1e-10
            )


def test_bootstrap_interval_reproducible_and_bracketing():
    ann = fleiss_1971().annotations
    a = agreement(ann, n_resamples=300, rng=5)
    b = agreement(ann, n_resamples=300, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    frame = a.to_frame()
    assert (frame["ci_low"] < frame["value"]).all() and (frame["value"] < frame["ci_high"]).all()
    narrow = a.to_frame(confidence_level=0.5)
    assert (narrow["ci_high"] - narrow["ci_low"] < frame["ci_high"] - frame["ci_low"]).all()
    assert set(frame.columns) >= {"measure", "category", "value", "ci_low", "ci_high"}
    assert (frame["confidence_level"] == 0.95).all()


def test_no_resamples_gives_nan_intervals():
    frame = agreement(fleiss_1971().annotations, n_resamples=0).to_frame()
    assert frame[["ci_low", "ci_high"]].isna().all().all()


def test_single_annotator_items_enter_only_fleiss_chance_shares():
    ann = random_annotations(2, missing=0.0)
    extra = pd.DataFrame({"item_id": ["solo1", "solo2"], "annotator_id": "r0", "label": "c"})
    more = Annotations.from_frame(
        pd.concat([ann.to_frame().drop(columns="weight"), extra]), taxonomy=TREE
    )
    a, b = agreement(ann, n_resamples=0), agreement(more, n_resamples=0)
    assert b.n_single_annotator_items == 2 and a.n_single_annotator_items == 0
    assert b.n_items == a.n_items + 2
    for measure in ("krippendorff_alpha", "taxonomy_alpha"):  # unpairable: no effect on α
        assert b.value(measure) == pytest.approx(a.value(measure), abs=1e-12)
    assert b.value("fleiss_kappa") == pytest.approx(gwet_fleiss_kappa(more), abs=1e-12)
    assert b.value("fleiss_kappa") != pytest.approx(a.value("fleiss_kappa"), abs=1e-6)


# ---------------------------------------------------------------------------- per level
def test_agreement_by_level_matches_relabelled_annotations():
    ann = random_annotations(4, n_items=30, missing=0.2)
    res = agreement_by_level(ann, n_resamples=0)
    table = res.to_frame()
    assert list(table.columns) == [
        "depth",
        "measure",
        "value",
        "ci_low",
        "ci_high",
        "confidence_level",
        "n_categories",
    ]
    assert table.loc[table["depth"] == 0, "value"].isna().all()
    for depth in (1, 2, 3):
        frame = ann.to_frame()
        frame["label"] = [TREE.ancestor_at_depth(lab, depth) for lab in frame["label"]]
        collapsed = agreement(Annotations.from_frame(frame, taxonomy=TREE), n_resamples=0)
        rows = table[table["depth"] == depth].set_index("measure")
        for measure in ("fleiss_kappa", "krippendorff_alpha", "taxonomy_alpha"):
            assert rows.loc[measure, "value"] == pytest.approx(collapsed.value(measure), abs=1e-12)
        assert (rows["n_categories"] == frame["label"].nunique()).all()
    deepest = agreement(ann, n_resamples=0)
    last = table[table["depth"] == 3].set_index("measure")["value"]
    assert last["krippendorff_alpha"] == pytest.approx(deepest.value("krippendorff_alpha"))


def test_agreement_by_level_on_a_dag():
    # "ab" has parents a and b; at depth 1 it collapses to the first ancestor found, "a"
    dag = Taxonomy.from_edges(
        [("all", "a"), ("all", "b"), ("a", "ab"), ("b", "ab"), ("a", "a1"), ("b", "b1")]
    )
    assert dag.ancestor_at_depth("ab", 1) == "a"
    ann = random_annotations(6, taxonomy=dag, n_items=20)
    table = agreement_by_level(ann, n_resamples=0).to_frame()
    frame = ann.to_frame()
    frame["label"] = [dag.ancestor_at_depth(lab, 1) for lab in frame["label"]]
    collapsed = agreement(Annotations.from_frame(frame, taxonomy=dag), n_resamples=0)
    row = table[(table["depth"] == 1) & (table["measure"] == "krippendorff_alpha")]
    assert row["value"].item() == pytest.approx(collapsed.value("krippendorff_alpha"))


def test_agreement_by_level_bootstrap_shape():
    res = agreement_by_level(random_annotations(1), n_resamples=50, rng=0)
    # depths 1 to 3 of TREE, three coefficients each; depth 0 (the root) has no row
    assert res.bootstrap_distribution.shape == (3 * 3, 50)
    table = res.to_frame()
    assert table.loc[table["depth"] > 0, "ci_low"].notna().all()


# ---------------------------------------------------------------------------- errors
def test_membership_is_refused_with_a_reason():
    mem = Membership.from_annotations(fleiss_1971().annotations)
    with pytest.raises(ValueError, match="needs raw labels"):
        agreement(mem)
    with pytest.raises(ValueError, match="needs raw labels"):
        agreement_by_level(mem)


def test_split_votes_are_refused():
    frame = pd.DataFrame(
        {"item_id": ["x", "x", "x"], "annotator_id": ["r1", "r1", "r2"], "label": ["b1", "b2", "c"]}
    )
    ann = Annotations.from_frame(frame, taxonomy=TREE, duplicates="split")
    with pytest.raises(ValueError, match="one label per"):
        agreement(ann)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metric": "cosine"}, "metric must be one of"),
        ({"metric": np.ones((2, 2))}, "shape"),
        ({"metric": np.ones((len(TREE), len(TREE)))}, "zero diagonal"),
        ({"metric": -(1 - np.eye(len(TREE)))}, ">= 0"),
        ({"metric": np.triu(1 - np.eye(len(TREE)))}, "symmetric"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"n_resamples": -1}, "n_resamples"),
        ({"n_resamples": 2.5}, "n_resamples"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        agreement(random_annotations(0), **kwargs)


def test_no_pairable_item():
    frame = pd.DataFrame({"item_id": ["x", "y"], "annotator_id": ["r1", "r2"], "label": "c"})
    with pytest.raises(ValueError, match="two or more annotators"):
        agreement(Annotations.from_frame(frame, taxonomy=TREE))


def test_value_unknown_row():
    with pytest.raises(ValueError, match="no row with measure"):
        agreement(fleiss_1971().annotations, n_resamples=0).value("fleiss_kappa", "nonsense")


def test_a_metric_table_is_read_by_its_node_labels():
    # A DataFrame labelled by node names was read by position: rows listed in another order
    # than the taxonomy's gave another metric, silently. The oracle is the same metric as an
    # array in taxonomy order.
    ann = random_annotations(9)
    nodes = list(TREE.nodes)
    matrix = TREE.distance_matrix().astype(float) ** 1.5
    expected = agreement(ann, metric=matrix, n_resamples=0).value("taxonomy_alpha")
    order = np.random.default_rng(0).permutation(len(nodes))
    labelled = pd.DataFrame(matrix, index=nodes, columns=nodes)
    for rows, columns in ((order, order), (order, order[::-1])):
        table = labelled.iloc[rows, columns]
        got = agreement(ann, metric=table, n_resamples=0).value("taxonomy_alpha")
        assert got == pytest.approx(expected, abs=1e-12)
    # a table without labels is an array, read by position
    unlabelled = agreement(ann, metric=pd.DataFrame(matrix), n_resamples=0)
    assert unlabelled.value("taxonomy_alpha") == pytest.approx(expected, abs=1e-12)
    wrong = pd.DataFrame(matrix, index=[*nodes[:-1], "zz"], columns=nodes)
    with pytest.raises(ValueError, match=r"^metric table row labels must be taxonomy nodes: "
                                         r"unknown node 'zz'"):
        agreement(ann, metric=wrong, n_resamples=0)
    twice = pd.DataFrame(matrix, index=nodes, columns=[*nodes[:-1], nodes[0]])
    with pytest.raises(ValueError, match=r"^metric table must label one column per node; node "
                                         r"'all' labels several$"):
        agreement(ann, metric=twice, n_resamples=0)
