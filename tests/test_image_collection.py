"""The bundled simulated image collection: deterministic generator, documented shape, and the
properties the generative model promises (careless annotators, confusable siblings, ordered
system quality), each measured here from the data in plain numpy/pandas."""

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fuzzytruth.datasets import generate_image_collection as gen
from fuzzytruth.datasets.image_collection import image_collection

DATA = Path(str(resources.files("fuzzytruth.datasets").joinpath("data")))
COLLECTION = image_collection()


def bundled_files():
    return sorted(p.name for p in DATA.glob("image_collection_*"))


# ---------------------------------------------------------------------- the generator
def test_generator_rewrites_the_bundled_files_byte_for_byte(tmp_path, capsys):
    # the command line's entry point, into a temporary directory
    gen.main(["--out", str(tmp_path)])
    assert capsys.readouterr().out.count("wrote ") == len(bundled_files())
    assert sorted(p.name for p in tmp_path.iterdir()) == bundled_files()
    for name in bundled_files():
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_another_seed_gives_other_data():
    a = gen.simulate_image_collection(seed=1, n_items=50, n_queries=5, depth=10)
    b = gen.simulate_image_collection(seed=2, n_items=50, n_queries=5, depth=10)
    key = "image_collection_annotations.csv"
    assert not a[key].equals(b[key])


def test_bundled_data_stays_small():
    assert sum((DATA / name).stat().st_size for name in bundled_files()) < 3_000_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_items": 1}, r"n_items must be an integer >= 2; got 1"),
        ({"n_items": 10, "n_queries": 11}, r"n_queries must be an integer >= 1 and <= 10; got 11"),
        ({"n_items": 10, "n_queries": 2, "depth": 10}, r"depth must be .* <= 9; got 10"),
        ({"n_queries": 2.5}, r"n_queries must be an integer"),
        ({"n_items": "500"}, r"n_items must be an integer >= 2; got '500'"),
    ],
)
def test_simulate_rejects_bad_sizes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gen.simulate_image_collection(**kwargs)


def test_write_needs_an_existing_directory(tmp_path):
    with pytest.raises(ValueError, match="out_dir must be an existing directory"):
        gen.write_image_collection(tmp_path / "missing")


# ---------------------------------------------------------------------- documented shape
def test_taxonomy_has_about_20_categories_on_3_levels():
    tax = COLLECTION.taxonomy
    assert tax.root == "image" and tax.is_tree
    assert len(tax) == 21
    top = tax.children("image")
    assert top == ("people", "animals", "scenery", "objects")
    assert all(3 <= len(tax.children(t)) <= 5 for t in top)
    assert {tax.depth(leaf) for leaf in tax.leaves} == {2}
    for a, b in COLLECTION.confusable_pairs:
        assert tax.parents(a) == tax.parents(b)


def test_items_annotators_and_truth():
    ann = COLLECTION.annotations
    labels = ann.to_frame()
    assert ann.n_items == 500
    assert ann.n_annotators == 10
    per_item = labels.groupby("item_id").size()
    assert set(per_item) == {5, 6, 7}
    assert per_item.value_counts().min() > 100  # the three sizes are all common
    assert "image" not in set(labels["label"])
    truth = COLLECTION.truth
    assert truth.index.tolist() == ann.items.tolist()
    assert set(truth) == set(COLLECTION.taxonomy.leaves)
    assert truth.value_counts().min() >= 15  # every leaf has enough items to measure
    assert COLLECTION.membership.items.tolist() == ann.items.tolist()
    profiles = COLLECTION.annotator_profiles
    assert profiles.loc[profiles["careless"], "annotator_id"].tolist() == ["a03", "a08"]
    assert list(gen.CARELESS_ANNOTATORS) == ["a03", "a08"]
    assert "SIMULATED" in COLLECTION.description


def leave_one_out_majority_agreement(labels: pd.DataFrame) -> pd.Series:
    """Per annotator: share of its labels that are a most frequent label of the item's
    other annotators (ties count as agreement)."""
    item, items = pd.factorize(labels["item_id"])
    label, _ = pd.factorize(labels["label"])
    counts = np.zeros((len(items), label.max() + 1))
    np.add.at(counts, (item, label), 1)
    others = counts[item]
    others[np.arange(len(label)), label] -= 1
    agree = others[np.arange(len(label)), label] == others.max(axis=1)
    return pd.Series(agree).groupby(labels["annotator_id"].to_numpy()).mean()


def test_careless_annotators_agree_less_with_the_majority():
    agreement = leave_one_out_majority_agreement(COLLECTION.annotations.to_frame())
    careless = agreement[list(gen.CARELESS_ANNOTATORS)]
    careful = agreement.drop(list(gen.CARELESS_ANNOTATORS))
    assert careful.min() > 0.6
    assert careless.max() < 0.4
    assert careful.min() - careless.max() > 0.2


def test_confusable_siblings_have_lower_agreement():
    labels = COLLECTION.annotations.to_frame()
    counts = labels.groupby(["item_id", "label"]).size()
    n = labels.groupby("item_id").size()
    # share of ordered pairs of annotators of the item who gave the same label
    pairwise = (counts * (counts - 1)).groupby("item_id").sum() / (n * (n - 1))
    per_leaf = pairwise.groupby(COLLECTION.truth).mean()
    confusable = [leaf for pair in COLLECTION.confusable_pairs for leaf in pair]
    assert len(confusable) == 6
    assert per_leaf[confusable].max() < per_leaf.drop(confusable).min() - 0.15


# ---------------------------------------------------------------------- runs
def test_runs_are_well_formed_trec_rankings():
    runs = COLLECTION.runs
    assert list(runs) == ["strong", "medium", "weak"]
    queries = None
    for system, run in runs.items():
        assert run.columns.tolist() == ["query_id", "doc_id", "score", "rank"], system
        assert run.groupby("query_id").size().eq(100).all()
        assert run["query_id"].nunique() == 100
        assert queries is None or run["query_id"].unique().tolist() == queries
        queries = run["query_id"].unique().tolist()
        assert set(run["query_id"]) | set(run["doc_id"]) <= set(COLLECTION.truth.index)
        assert not (run["query_id"] == run["doc_id"]).any()
        assert not run.duplicated(["query_id", "doc_id"]).any()
        rank = run["rank"].to_numpy().reshape(100, 100)
        assert (rank == np.arange(1, 101)).all()
        score = run["score"].to_numpy().reshape(100, 100)
        # strictly decreasing within each query: distinct scores, no tie to break, also when
        # read in float32 as trec_eval does
        assert (np.diff(score, axis=1) < 0).all()
        assert (np.diff(score.astype(np.float32), axis=1) < 0).all()


def precision_at_10_same_leaf(run: pd.DataFrame) -> np.ndarray:
    top = run[run["rank"] <= 10]
    hit = (
        top["doc_id"].map(COLLECTION.truth).to_numpy()
        == top["query_id"].map(COLLECTION.truth).to_numpy()
    )
    return hit.reshape(-1, 10).mean(axis=1)


def test_systems_are_of_clearly_increasing_quality():
    p10 = {s: precision_at_10_same_leaf(run) for s, run in COLLECTION.runs.items()}
    mean = {s: v.mean() for s, v in p10.items()}
    assert mean["strong"] - mean["medium"] > 0.1
    assert mean["medium"] - mean["weak"] > 0.1
    # the strong system wins on most queries against the weak one (paired by query)
    assert (p10["strong"] > p10["weak"]).mean() > 0.6


def test_generator_needs_an_output_folder(capsys):
    # never over the bundled package data by default
    with pytest.raises(SystemExit):
        gen.main([])
    assert "--out" in capsys.readouterr().err
